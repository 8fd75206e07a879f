if(TACTUS_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
endif()
if(TACTUS_BUILD_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(WARNING "TACTUS_BUILD_FUZZ needs clang (libFuzzer); only the replay tests are built")
  else()
    # coverage instrumentation for libFuzzer in everything; the fuzz binaries link the driver
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
endif()
