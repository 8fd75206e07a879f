# Runs one libFuzzer binary for a bounded time on a scratch copy of its seed corpus
# (so fuzzing never edits the repository). Called by CTest: cmake -DBIN= -DSEEDS= -DWORK=
# -DARTIFACTS= -DSECONDS= [-DDICT=tests/fuzz/<name>.dict] -P run_fuzzer.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK} ${ARTIFACTS})
file(GLOB seeds ${SEEDS}/*)
if(seeds)
  file(COPY ${seeds} DESTINATION ${WORK})
endif()
set(dict_arg "")
if(EXISTS ${DICT})
  set(dict_arg -dict=${DICT})
endif()
execute_process(COMMAND ${BIN} ${dict_arg} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
                        -max_len=65536 -print_final_stats=1 -artifact_prefix=${ARTIFACTS} ${WORK}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer ${BIN} failed (exit ${rc}); the crashing input is in ${ARTIFACTS}")
endif()
