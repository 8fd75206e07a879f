# Fuzz targets (tests/fuzz/fuzz_<name>.c, each defining LLVMFuzzerTestOneInput).
# - Every build: fuzz_<name>_replay runs the seed corpus tests/fuzz/corpus/<name>/ and the
#   regression inputs tests/fuzz/regressions/<name>/ once (CTest fuzz_replay_<name>).
# - With TACTUS_BUILD_FUZZ=ON and clang: fuzz_<name> is a libFuzzer binary; CTest fuzz_<name>
#   (label "fuzz") fuzzes for TACTUS_FUZZ_SECONDS from a copy of the corpus in the build tree.
#   A crash leaves its input in <build>/tests/fuzz-artifacts/; copy it to regressions/<name>/.
set(TACTUS_FUZZ_SECONDS 20 CACHE STRING "Seconds each libFuzzer target runs under CTest")
set(fuzz_dir ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
file(GLOB TACTUS_FUZZ_SOURCES CONFIGURE_DEPENDS ${fuzz_dir}/fuzz_*.c)
set(fuzz_binaries "")
foreach(src ${TACTUS_FUZZ_SOURCES})
  get_filename_component(target ${src} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" name ${target})
  add_executable(${target}_replay ${src} ${fuzz_dir}/replay_main.c)
  target_include_directories(${target}_replay PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${target}_replay PRIVATE tactus_static)
  tactus_set_warnings(${target}_replay)
  add_test(NAME fuzz_replay_${name}
           COMMAND ${target}_replay ${fuzz_dir}/corpus/${name} ${fuzz_dir}/regressions/${name})
  set_tests_properties(fuzz_replay_${name} PROPERTIES TIMEOUT 120)
  if(TACTUS_BUILD_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
    add_executable(${target} ${src})
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${target} PRIVATE tactus_static)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
    list(APPEND fuzz_binaries ${target})
    set(work ${CMAKE_CURRENT_BINARY_DIR}/fuzz-work/${name})
    set(artifacts ${CMAKE_CURRENT_BINARY_DIR}/fuzz-artifacts/)
    add_test(NAME fuzz_${name}
             COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1
                     ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:${target}> -DSEEDS=${fuzz_dir}/corpus/${name}
                     -DWORK=${work} -DDICT=${fuzz_dir}/${name}.dict -DARTIFACTS=${artifacts} -DSECONDS=${TACTUS_FUZZ_SECONDS}
                     -P ${fuzz_dir}/run_fuzzer.cmake)
    set_tests_properties(fuzz_${name} PROPERTIES LABELS fuzz TIMEOUT 600)
  endif()
endforeach()
if(fuzz_binaries)
  add_custom_target(fuzz_targets DEPENDS ${fuzz_binaries})
endif()
