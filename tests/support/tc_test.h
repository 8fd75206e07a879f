// Shared test helpers: cmocka includes, tolerances, a log hook that fails tests on warnings.
#ifndef TC_TEST_H
#define TC_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>
#include "tactus/tactus.h"

/// Tolerance scaled by the TC_TOL_SCALE environment variable (default 1), to audit bounds.
static inline double tc_test_tol(double tol) {
    const char* s = getenv("TC_TOL_SCALE");
    return s ? tol * atof(s) : tol;
}

#define assert_near(a, b, tol)                                                                   \
    do {                                                                                         \
        double a_ = (double)(a), b_ = (double)(b), t_ = tc_test_tol(tol);                        \
        if (!(fabs(a_ - b_) <= t_)) {                                                            \
            print_error("%s = %.12g, expected %.12g within %g\n", #a, a_, b_, t_);              \
            fail();                                                                              \
        }                                                                                        \
    } while (0)

#define assert_vec3_near(a, b, tol)          \
    do {                                     \
        tc_vec3 va_ = (a), vb_ = (b);        \
        assert_near(va_.x, vb_.x, tol);      \
        assert_near(va_.y, vb_.y, tol);      \
        assert_near(va_.z, vb_.z, tol);      \
    } while (0)

/// Counts warnings and errors logged by the library; tests assert it stays 0 where expected.
static int tc_test_warnings;
static char tc_test_log_buffer[8192]; ///< every message since tc_test_log_clear, one per line
static inline void tc_test_log_clear(void) { tc_test_log_buffer[0] = '\0'; }
static inline const char* tc_test_log_text(void) { return tc_test_log_buffer; }
static inline void tc_test_log(tc_log_level level, tc_result code, const char* msg, void* user) {
    (void)code;
    (void)user;
    size_t used = strlen(tc_test_log_buffer);
    snprintf(tc_test_log_buffer + used, sizeof tc_test_log_buffer - used, "%s\n", msg);
    if (level >= TC_LOG_WARNING) {
        tc_test_warnings++;
        fprintf(stderr, "[tactus log] %s\n", msg);
    }
}
static inline int tc_test_setup_log(void** state) {
    (void)state;
    tc_test_warnings = 0;
    tc_set_log(tc_test_log, NULL);
    return 0;
}

/// Path of a file under the source tree.
static inline const char* tc_test_source_path(const char* rel, char* buf, size_t n) {
    snprintf(buf, n, "%s/%s", TACTUS_SOURCE_DIR, rel);
    return buf;
}

/// Loads scenes/<name>.json of the source tree; fails the test with the loader's message.
static inline tc_scene* tc_test_load_scene(const char* name) {
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/%s.json", TACTUS_SOURCE_DIR, name);
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    if (!s) fail_msg("%s", e.message);
    return s;
}

#endif
