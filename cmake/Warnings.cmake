# Warning flags applied to every Tactus target through tactus_set_warnings().
set(TACTUS_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wmissing-prototypes -Wvla
    -Wimplicit-fallthrough -Wstrict-prototypes -Wshadow=local)
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
  set(TACTUS_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wmissing-prototypes -Wvla
      -Wimplicit-fallthrough -Wstrict-prototypes -Wshadow)
endif()
if(TACTUS_WARNINGS_AS_ERRORS)
  list(APPEND TACTUS_WARNING_FLAGS -Werror)
endif()

function(tactus_set_warnings target)
  target_compile_options(${target} PRIVATE ${TACTUS_WARNING_FLAGS})
  # Bit-identical results across builds need no fused multiply-add contraction.
  target_compile_options(${target} PRIVATE -ffp-contract=off)
endfunction()
