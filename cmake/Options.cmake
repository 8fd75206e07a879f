option(TACTUS_BUILD_TESTS "Build the cmocka unit and scenario tests" ON)
option(TACTUS_BUILD_VIEWER "Build the GLFW viewer and the offscreen renderer" ON)
option(TACTUS_BUILD_BENCH "Build the benchmarks (needs Bullet, ODE, libccd)" OFF)
option(TACTUS_BUILD_FUZZ "Build libFuzzer targets (clang only)" OFF)
option(TACTUS_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
option(TACTUS_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)
option(TACTUS_OPENMP "Use OpenMP for parallel loops" ON)
# Every alternative path of the hand-vectorised loops, on any machine (to check that they give the
# recorded results): no AVX2 clones (TC_NO_VECTOR_CLONES), the portable support-point scan
# (TC_SUPPORT_PORTABLE) and plain-array surfel lanes (TC_PLAIN_LANES). tools/check_builds.sh.
option(TACTUS_PORTABLE_PATHS "Build the portable (non-AVX2, non-vector) code paths everywhere" OFF)
