# CLI checks: tactus run outputs, --hash repeatability, validate on every scene, bad scenes, --help,
# a frame read back by VTK itself (skipped without python3-vtk9), checkpoint/resume, the quasi
# traction map, run-length edge cases, SIGINT/SIGTERM.
foreach(check run_outputs hash_repeatable validate_scenes bad_scenes help vtk_reader checkpoint_resume checkpoint_killed traction_map run_edges run_signals)
  add_test(NAME cli_${check}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_checks.sh ${check} $<TARGET_FILE:tactus_cli>
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_${check})
  set_tests_properties(cli_${check} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
endforeach()
