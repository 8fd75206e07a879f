include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS tactus tactus_static EXPORT tactusTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/tactus DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tactusTargets NAMESPACE tactus:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tactus)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tactusConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tactusConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tactus)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tactusConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tactusConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tactusConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tactus)
file(RELATIVE_PATH TACTUS_PC_UP ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${CMAKE_CURRENT_LIST_DIR}/tactus.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tactus.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tactus.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
