// Lemke LCP solver: known solutions, degeneracy, ray termination, brute-force enumeration.
#include "tc_test.h"
#include "tc_lcp_brute.h"
#include "math/lcp_lemke.h"

static void test_known_2x2(void** state) {
    (void)state;
    tc_real M[4] = {2, 1, 1, 2}, q[2] = {-5, -6}, z[2], w[2];
    tc_lcp_stats st;
    assert_int_equal(tc_lcp_lemke(2, M, q, z, w, &st), TC_RESULT_OK);
    assert_near(z[0], 4.0 / 3, 1e-12);
    assert_near(z[1], 7.0 / 3, 1e-12);
    assert_near(w[0], 0, 1e-12);
    assert_near(w[1], 0, 1e-12);
    assert_true(st.residual < 1e-12);
    // mixed: one contact separates. M = [[2,1],[1,2]], q = (-2, 3): z = (1, 0), w = (0, 4)
    q[0] = -2, q[1] = 3;
    assert_int_equal(tc_lcp_lemke(2, M, q, z, w, NULL), TC_RESULT_OK);
    assert_near(z[0], 1, 1e-12);
    assert_near(z[1], 0, 1e-15);
    assert_near(w[1], 4, 1e-12);
}

// The solution does not depend on units: M in m/N near 1e-17 (a 1 km quasi-rigid body) or 1e+15,
// q in m near 1e+3 or 1e-9. Scaling M by a and q by b scales z by b / a and w by b.
static void test_scale_invariant(void** state) {
    (void)state;
    const tc_real a[3] = {1e-17, 1, 1e15}, b[3] = {1e3, 1, 1e-9};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            tc_real M[4] = {2 * a[i], 1 * a[i], 1 * a[i], 2 * a[i]}, q[2] = {-5 * b[j], -6 * b[j]}, z[2], w[2];
            assert_int_equal(tc_lcp_lemke(2, M, q, z, w, NULL), TC_RESULT_OK);
            assert_near(z[0] * a[i] / b[j], 4.0 / 3, 1e-12);
            assert_near(z[1] * a[i] / b[j], 7.0 / 3, 1e-12);
            assert_near(w[0] / b[j], 0, 1e-12);
        }
    tc_real zero[1] = {0}, q[1] = {-1}, z[1] = {5};
    assert_int_equal(tc_lcp_lemke(1, zero, q, z, NULL, NULL), TC_RESULT_INFEASIBLE); // w = -1 whatever z
    assert_true(z[0] == 0);
}

static void test_nonnegative_q_is_trivial(void** state) {
    (void)state;
    tc_real M[4] = {1, 0, 0, 1}, q[2] = {0.5, 0}, z[2] = {9, 9}, w[2];
    tc_lcp_stats st;
    assert_int_equal(tc_lcp_lemke(2, M, q, z, w, &st), TC_RESULT_OK);
    assert_near(z[0], 0, 0);
    assert_near(z[1], 0, 0);
    assert_near(w[0], 0.5, 0);
    assert_int_equal(st.pivots, 0);
}

static void test_degenerate_tie(void** state) {
    (void)state;
    tc_real M[4] = {1, 0, 0, 1}, q[2] = {-1, -1}, z[2], w[2];
    assert_int_equal(tc_lcp_lemke(2, M, q, z, w, NULL), TC_RESULT_OK);
    assert_near(z[0], 1, 1e-14);
    assert_near(z[1], 1, 1e-14);
    // a larger fully degenerate case: every ratio ties at every step
    enum { n = 6 };
    tc_real Mi[n * n] = {0}, qi[n], zi[n], wi[n];
    for (int i = 0; i < n; ++i) Mi[i * n + i] = 2, qi[i] = -2;
    assert_int_equal(tc_lcp_lemke(n, Mi, qi, zi, wi, NULL), TC_RESULT_OK);
    for (int i = 0; i < n; ++i) assert_near(zi[i], 1, 1e-13);
}

static void test_infeasible_reported(void** state) {
    (void)state;
    tc_real M[1] = {-1}, q[1] = {-1}, z[1] = {5}, w[1];
    tc_lcp_stats st;
    assert_int_equal(tc_lcp_lemke(1, M, q, z, w, &st), TC_RESULT_INFEASIBLE);
    assert_near(z[0], 0, 0);
    assert_true(st.pivots >= 1 && st.pivots < 10);
    // bad input
    tc_real Mn[1] = {NAN};
    assert_int_equal(tc_lcp_lemke(1, Mn, q, z, w, NULL), TC_RESULT_INVALID_ARGUMENT);
    assert_int_equal(tc_lcp_lemke(0, M, q, z, w, NULL), TC_RESULT_INVALID_ARGUMENT);
}

static tc_real rnd(unsigned* s) {
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) / 16777216.0;
}

static void test_random_against_enumeration(void** state) {
    (void)state;
    unsigned seed = 12345;
    for (int trial = 0; trial < 200; ++trial) {
        int n = 1 + trial % 10;
        tc_real B[100], M[100], q[10], z[10], w[10], zb[10];
        for (int i = 0; i < n * n; ++i) B[i] = 2 * rnd(&seed) - 1;
        // M = B Bᵀ + 0.1 I (positive definite) plus a skew part on odd trials (still P-matrix)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                tc_real s = i == j ? 0.1 : 0;
                for (int k = 0; k < n; ++k) s += B[i * n + k] * B[j * n + k];
                M[i * n + j] = s;
            }
        if (trial % 2)
            for (int i = 0; i < n; ++i)
                for (int j = i + 1; j < n; ++j) {
                    tc_real s = rnd(&seed) - 0.5;
                    M[i * n + j] += s;
                    M[j * n + i] -= s;
                }
        for (int i = 0; i < n; ++i) q[i] = 2 * rnd(&seed) - 1.2;
        assert_int_equal(tc_lcp_lemke(n, M, q, z, w, NULL), TC_RESULT_OK);
        assert_int_equal(tc_test_lcp_brute_force(n, M, q, zb), 1); // P-matrix: exactly one solution
        for (int i = 0; i < n; ++i) {
            assert_near(z[i], zb[i], 1e-8 * (1 + fabs(zb[i])));
            assert_true(z[i] >= 0 && w[i] >= -1e-10);
            assert_true(fabs(z[i] * w[i]) <= 1e-9);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_known_2x2, tc_test_setup_log),
        cmocka_unit_test_setup(test_scale_invariant, tc_test_setup_log),
        cmocka_unit_test_setup(test_nonnegative_q_is_trivial, tc_test_setup_log),
        cmocka_unit_test_setup(test_degenerate_tie, tc_test_setup_log),
        cmocka_unit_test_setup(test_infeasible_reported, tc_test_setup_log),
        cmocka_unit_test_setup(test_random_against_enumeration, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
