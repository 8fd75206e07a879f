# The install tree works for downstream users: find_package(tactus) and pkg-config.
# Not in sanitizer builds: a plain consumer cannot load an ASan-instrumented libtactus.so.
if(NOT TACTUS_SANITIZE)
  add_test(NAME install_consumer
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/check.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/install_consumer)
  set_tests_properties(install_consumer PROPERTIES TIMEOUT 300)
endif()
