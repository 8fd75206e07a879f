# Viewer tests: offscreen rendering (always, OSMesa needs no display), every scene renders,
# and the window under Xvfb (only when xvfb-run exists): a screenshot and a scripted drag.
if(TARGET tactus_viewer)
  add_executable(test_render ${CMAKE_CURRENT_SOURCE_DIR}/viewer/test_render.c)
  target_include_directories(test_render PRIVATE ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR}/support)
  target_link_libraries(test_render PRIVATE tactus_viewer PkgConfig::CMOCKA)
  target_compile_definitions(test_render PRIVATE TACTUS_BINARY_DIR="${PROJECT_BINARY_DIR}" TACTUS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  tactus_set_warnings(test_render)
  add_executable(png_stats ${CMAKE_CURRENT_SOURCE_DIR}/viewer/png_stats.c)
  target_link_libraries(png_stats PRIVATE PkgConfig::PNG)
  # Mesa keeps a few allocations for the life of the process: not ours, not leaks to report.
  set(viewer_env "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/viewer/lsan.supp")
  add_test(NAME test_render COMMAND test_render)
  set_tests_properties(test_render PROPERTIES ENVIRONMENT "${viewer_env}" TIMEOUT 120)
  foreach(check render_scenes render_frames)
    add_test(NAME viewer_${check}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/viewer/viewer_checks.sh ${check} $<TARGET_FILE:tactus_cli>
              $<TARGET_FILE:png_stats> ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/viewer_${check})
    set_tests_properties(viewer_${check} PROPERTIES ENVIRONMENT "${viewer_env}" TIMEOUT 600 SKIP_RETURN_CODE 77)
  endforeach()
  find_program(XVFB_RUN xvfb-run)
  if(XVFB_RUN AND TARGET PkgConfig::GLFW)
    foreach(check window_screenshot window_drag)
      add_test(NAME viewer_${check}
        COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/viewer/viewer_checks.sh ${check} $<TARGET_FILE:tactus_cli>
                $<TARGET_FILE:png_stats> ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/viewer_${check})
      # GLFW unloads the X11 GL driver at exit, so the driver's own allocations show up as leaks
      # from an unknown module that no suppression can name; our code's leaks are checked by
      # every other test, including the offscreen ones
      set_tests_properties(viewer_${check} PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0" TIMEOUT 300
                           SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
    endforeach()
  endif()
endif()
