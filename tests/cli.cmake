# CLI checks: tactus run outputs, --hash repeatability, validate on every scene, bad scenes, --help.
foreach(check run_outputs hash_repeatable validate_scenes bad_scenes help)
  add_test(NAME cli_${check}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_checks.sh ${check} $<TARGET_FILE:tactus_cli>
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_${check})
  set_tests_properties(cli_${check} PROPERTIES TIMEOUT 120)
endforeach()
