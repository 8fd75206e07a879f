// Iterative LCP solvers for SPD matrices (Polonsky–Keer CG, MPRGP) and tc_lcp_solve's dispatch:
// known solutions, brute-force enumeration (n <= 10), Lemke on n = 200, scale invariance, warm
// starts, fallback to Lemke.
#include "tc_test.h"
#include "tc_lcp_brute.h"
#include "math/lcp_iterative.h"

typedef tc_result iterative_fn(int, const tc_real*, const tc_real*, tc_real, int, tc_real*, tc_real*, tc_real*,
                               tc_lcp_iter_stats*);
static tc_result pk_double(int n, const tc_real* M, const tc_real* q, tc_real tol, int cap, tc_real* z, tc_real* w,
                           tc_real* work, tc_lcp_iter_stats* st) {
    return tc_lcp_pk(n, M, q, tol, cap, z, w, work, NULL, st);
}

// with the single-precision first phase
static tc_result pk_single(int n, const tc_real* M, const tc_real* q, tc_real tol, int cap, tc_real* z, tc_real* w,
                           tc_real* work, tc_lcp_iter_stats* st) {
    float* single = malloc((size_t)n * (n + 2) * sizeof(float));
    tc_result r = tc_lcp_pk(n, M, q, tol, cap, z, w, work, single, st);
    free(single);
    return r;
}

enum { METHODS = 3 };
static iterative_fn* const methods[METHODS] = {pk_double, tc_lcp_mprgp, pk_single};
static const char* const method_names[METHODS] = {"PK", "MPRGP", "PK, float phase"};

static tc_real rnd(unsigned* s) {
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) / 16777216.0;
}

// M = B Bᵀ + shift I with B uniform in [-1, 1]: symmetric positive definite.
static void random_spd(int n, unsigned* seed, tc_real shift, tc_real* M) {
    tc_real* B = malloc((size_t)n * n * sizeof(tc_real));
    for (int i = 0; i < n * n; ++i) B[i] = 2 * rnd(seed) - 1;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            tc_real s = i == j ? shift : 0;
            for (int k = 0; k < n; ++k) s += B[i * n + k] * B[j * n + k];
            M[i * n + j] = s;
        }
    free(B);
}

static void test_known_2x2(void** state) {
    (void)state;
    for (int m = 0; m < METHODS; ++m) {
        tc_real M[4] = {2, 1, 1, 2}, q[2] = {-5, -6}, z[2] = {0, 0}, w[2], work[10];
        tc_lcp_iter_stats st;
        assert_int_equal(methods[m](2, M, q, 1e-13, 100, z, w, work, &st), TC_RESULT_OK);
        assert_near(z[0], 4.0 / 3, 1e-12);
        assert_near(z[1], 7.0 / 3, 1e-12);
        assert_near(w[0], 0, 1e-12);
        assert_true(st.residual < 1e-12);
        // one contact separates: z = (1, 0), w = (0, 4)
        q[0] = -2, q[1] = 3, z[0] = z[1] = 0;
        assert_int_equal(methods[m](2, M, q, 1e-13, 100, z, w, work, NULL), TC_RESULT_OK);
        assert_near(z[0], 1, 1e-12);
        assert_near(z[1], 0, 0);
        assert_near(w[1], 4, 1e-12);
        // q >= 0: z = 0 at once, whatever the warm start
        q[0] = 0.5, q[1] = 0, z[0] = z[1] = 7;
        assert_int_equal(methods[m](2, M, q, 1e-13, 100, z, w, work, &st), TC_RESULT_OK);
        assert_true(z[0] == 0 && z[1] == 0 && w[0] == 0.5 && st.iterations == 0);
        // bad input
        q[0] = NAN;
        assert_int_equal(methods[m](2, M, q, 1e-13, 100, z, w, work, NULL), TC_RESULT_INVALID_ARGUMENT);
        q[0] = -1;
        assert_int_equal(methods[m](2, M, q, 0, 100, z, w, work, NULL), TC_RESULT_INVALID_ARGUMENT);
        assert_int_equal(methods[m](0, M, q, 1e-9, 100, z, w, work, NULL), TC_RESULT_INVALID_ARGUMENT);
    }
}

static void test_random_against_enumeration(void** state) {
    (void)state;
    unsigned seed = 777;
    for (int trial = 0; trial < 200; ++trial) {
        int n = 1 + trial % 10;
        tc_real M[100], q[10], zb[10], work[50];
        random_spd(n, &seed, 0.1, M);
        for (int i = 0; i < n; ++i) q[i] = 2 * rnd(&seed) - 1.2;
        assert_int_equal(tc_test_lcp_brute_force(n, M, q, zb), 1);
        tc_real zmax = 0;
        for (int i = 0; i < n; ++i) zmax = fmax(zmax, zb[i]);
        for (int m = 0; m < METHODS; ++m) {
            tc_real z[10] = {0}, w[10];
            tc_lcp_iter_stats st;
            tc_result r = methods[m](n, M, q, 1e-12, 1000, z, w, work, &st);
            assert_int_equal(r, TC_RESULT_OK);
            for (int i = 0; i < n; ++i) {
                assert_near(z[i], zb[i], 1e-8 * (1 + zmax));
                assert_true(z[i] >= 0 && w[i] >= -1e-11);
                assert_true(fabs(z[i] * w[i]) <= 1e-10 * (1 + zmax));
            }
        }
    }
}

// n = 200, condition number ~1e3: both methods agree with Lemke; the warm start from the solution
// needs no step; the solution scales as z·b/a when M scales by a and q by b.
// Gaussian-kernel matrices (nearly singular, like a dense contact patch) with random warm starts:
// after a clipped step the conjugate direction can point uphill; a solve that reports success
// must still return z >= 0 (it used to return pressures down to -0.09 in this family).
static void test_success_means_nonnegative(void** state) {
    (void)state;
    unsigned seed = 616;
    int successes = 0;
    for (int trial = 0; trial < 600; ++trial) {
        int n = 2 + (int)(40 * rnd(&seed));
        tc_real *P = malloc(2 * (size_t)n * sizeof(tc_real)), *M = malloc((size_t)n * n * sizeof(tc_real));
        tc_real *q = malloc((size_t)n * sizeof(tc_real)), *z = malloc((size_t)n * sizeof(tc_real));
        tc_real *w = malloc((size_t)n * sizeof(tc_real)), *work = malloc(5 * (size_t)n * sizeof(tc_real));
        tc_real sigma = 0.05 + 0.3 * rnd(&seed);
        for (int i = 0; i < 2 * n; ++i) P[i] = rnd(&seed);
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < n; ++k) {
                tc_real dx = P[2 * i] - P[2 * k], dy = P[2 * i + 1] - P[2 * k + 1];
                M[i * n + k] = exp(-(dx * dx + dy * dy) / (sigma * sigma)) + (i == k ? 1e-3 : 0);
            }
        for (int i = 0; i < n; ++i) q[i] = rnd(&seed) - 0.6, z[i] = rnd(&seed) < 1.0 / 3 ? 3 * rnd(&seed) : 0;
        tc_lcp_iter_stats st;
        if (tc_lcp_pk(n, M, q, 1e-8, 50 + n / 2, z, w, work, NULL, &st) == TC_RESULT_OK) {
            ++successes;
            for (int i = 0; i < n; ++i) {
                if (!(z[i] >= 0)) fail_msg("trial %d: z[%d] = %g after a successful solve", trial, i, z[i]);
                if (!(w[i] >= -1e-6)) fail_msg("trial %d: w[%d] = %g after a successful solve", trial, i, w[i]);
            }
        }
        free(P), free(M), free(q), free(z), free(w), free(work);
    }
    assert_true(successes > 500);
}

static void test_large_against_lemke(void** state) {
    (void)state;
    enum { n = 200 };
    unsigned seed = 4242;
    tc_real* M = malloc(n * n * sizeof(tc_real));
    tc_real* Ms = malloc(n * n * sizeof(tc_real));
    tc_real q[n], qs[n], zl[n], wl[n], z[n], w[n], work[5 * n];
    random_spd(n, &seed, 0.5, M);
    for (int i = 0; i < n; ++i) q[i] = 2 * rnd(&seed) - 1.3;
    tc_lcp_stats ls;
    assert_int_equal(tc_lcp_lemke(n, M, q, zl, wl, &ls), TC_RESULT_OK);
    tc_real zmax = 0;
    int loaded = 0;
    for (int i = 0; i < n; ++i) zmax = fmax(zmax, zl[i]), loaded += zl[i] > 0;
    assert_true(loaded > 20 && loaded < n - 20); // a real active-set problem
    const tc_real a[3] = {1e-17, 1, 1e15}, b[3] = {1e3, 1, 1e-9};
    for (int m = 0; m < METHODS; ++m) {
        tc_lcp_iter_stats st;
        for (int i = 0; i < n; ++i) z[i] = 0;
        assert_int_equal(methods[m](n, M, q, 1e-12, 5000, z, w, work, &st), TC_RESULT_OK);
        printf("%s: n %d, %d loaded, %d steps, %d products (Lemke: %d pivots)\n", method_names[m], n, loaded,
               st.iterations, st.matvecs, ls.pivots);
        for (int i = 0; i < n; ++i) assert_near(z[i], zl[i], 1e-8 * zmax);
        tc_lcp_iter_stats warm;
        assert_int_equal(methods[m](n, M, q, 1e-12, 5000, z, w, work, &warm), TC_RESULT_OK);
        assert_int_equal(warm.iterations, 0);
        for (int s = 0; s < 3; ++s) {
            for (int i = 0; i < n * n; ++i) Ms[i] = M[i] * a[s];
            for (int i = 0; i < n; ++i) qs[i] = q[i] * b[s], z[i] = 0;
            assert_int_equal(methods[m](n, Ms, qs, 1e-12, 5000, z, w, work, NULL), TC_RESULT_OK);
            for (int i = 0; i < n; ++i) assert_near(z[i] * a[s] / b[s], zl[i], 1e-8 * zmax);
        }
    }
    free(M);
    free(Ms);
}

// M = B diag(d) with B = SPD + a small skew part: the split PK reaches the unique solution
// (enumeration for n <= 10, Lemke for n = 200), and tc_lcp_solve uses it under AUTO.
static void test_split_for_scaled_nonsymmetric(void** state) {
    (void)state;
    unsigned seed = 31337;
    tc_real M[100], B[100], d[10], q[10], zb[10];
    for (int trial = 0; trial < 100; ++trial) {
        int n = 1 + trial % 10;
        random_spd(n, &seed, 0.5, B);
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) {
                tc_real skew = 0.02 * (rnd(&seed) - 0.5);
                B[i * n + j] += skew, B[j * n + i] -= skew;
            }
        for (int k = 0; k < n; ++k) d[k] = 0.2 + 2 * rnd(&seed);
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < n; ++k) M[i * n + k] = B[i * n + k] * d[k];
        for (int i = 0; i < n; ++i) q[i] = 2 * rnd(&seed) - 1.2;
        assert_int_equal(tc_test_lcp_brute_force(n, M, q, zb), 1);
        tc_real z[10] = {0}, w[10], zmax = 0;
        for (int i = 0; i < n; ++i) zmax = fmax(zmax, zb[i]);
        tc_lcp_iter_stats st;
        assert_int_equal(tc_lcp_pk_split(n, M, d, q, 1e-12, 1000, z, w, NULL, &st), TC_RESULT_OK);
        for (int i = 0; i < n; ++i) {
            assert_near(z[i], zb[i], 1e-8 * (1 + zmax));
            assert_true(z[i] >= 0 && w[i] >= -1e-11);
        }
    }
    enum { n = 200 };
    tc_real* Ml = malloc(n * n * sizeof(tc_real));
    tc_real* Bl = malloc(n * n * sizeof(tc_real));
    tc_real dl[n], ql[n], zl[n], z[n], w[n];
    random_spd(n, &seed, 0.5, Bl);
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            tc_real skew = 0.02 * (rnd(&seed) - 0.5);
            Bl[i * n + j] += skew, Bl[j * n + i] -= skew;
        }
    for (int k = 0; k < n; ++k) dl[k] = 0.5 + rnd(&seed), ql[k] = 2 * rnd(&seed) - 1.3;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) Ml[i * n + k] = Bl[i * n + k] * dl[k];
    assert_int_equal(tc_lcp_lemke(n, Ml, ql, zl, w, NULL), TC_RESULT_OK);
    tc_real zmax = 0;
    for (int i = 0; i < n; ++i) zmax = fmax(zmax, zl[i]), z[i] = 0;
    tc_lcp_solve_stats st;
    assert_int_equal(tc_lcp_solve(TC_LCP_AUTO, n, Ml, false, dl, ql, 1e-12, z, w, NULL, &st), TC_RESULT_OK);
    printf("split PK: n %d, %d steps, %d products, fell back %d\n", n, st.iterations, st.matvecs, st.fell_back);
    assert_true(st.iterations > 0 && st.pivots == 0 && !st.fell_back);
    for (int i = 0; i < n; ++i) assert_near(z[i], zl[i], 1e-8 * zmax);
    // without a column scale a non-symmetric M goes to Lemke
    assert_int_equal(tc_lcp_solve(TC_LCP_AUTO, n, Ml, false, NULL, ql, 1e-12, z, w, NULL, &st), TC_RESULT_OK);
    assert_true(st.pivots > 0 && st.iterations == 0);
    // bad scale
    dl[3] = 0;
    assert_int_equal(tc_lcp_pk_split(n, Ml, dl, ql, 1e-12, 100, z, w, NULL, NULL), TC_RESULT_INVALID_ARGUMENT);
    free(Ml);
    free(Bl);
}

// A symmetric part that is not positive definite: the split PK finds no curvature and reports it;
// tc_lcp_solve hands the LCP to Lemke, which finds it infeasible (w_1 = −2 z_1 − 1 < 0).
static void test_split_falls_back(void** state) {
    (void)state;
    tc_real M[4] = {-1, 0.5, 0.1, 1}, d[2] = {2, 1}, q[2] = {-1, 1}, z[2] = {0, 0}, w[2];
    tc_lcp_iter_stats it;
    assert_int_equal(tc_lcp_pk_split(2, M, d, q, 1e-12, 100, z, w, NULL, &it), TC_RESULT_NOT_CONVERGED);
    tc_lcp_solve_stats st;
    z[0] = z[1] = 0;
    assert_int_equal(tc_lcp_solve(TC_LCP_PK, 2, M, false, d, q, 1e-12, z, w, NULL, &st), TC_RESULT_INFEASIBLE);
    assert_true(st.fell_back && st.pivots > 0);
}

static void test_solve_dispatch_and_fallback(void** state) {
    (void)state;
    enum { n = 60 };
    unsigned seed = 99;
    tc_real* M = malloc(n * n * sizeof(tc_real));
    tc_real q[n], z[n], w[n], zl[n];
    random_spd(n, &seed, 0.5, M);
    for (int i = 0; i < n; ++i) q[i] = 2 * rnd(&seed) - 1.3;
    assert_int_equal(tc_lcp_lemke(n, M, q, zl, w, NULL), TC_RESULT_OK);
    tc_lcp_solve_stats st;
    // AUTO: iterative above TC_LCP_LEMKE_MAX_N when symmetric, Lemke when not declared symmetric
    for (int i = 0; i < n; ++i) z[i] = 0;
    assert_int_equal(tc_lcp_solve(TC_LCP_AUTO, n, M, true, NULL, q, 1e-12, z, w, NULL, &st), TC_RESULT_OK);
    assert_true(st.iterations > 0 && st.pivots == 0 && !st.fell_back);
    for (int i = 0; i < n; ++i) assert_near(z[i], zl[i], 1e-8);
    assert_int_equal(tc_lcp_solve(TC_LCP_AUTO, n, M, false, NULL, q, 1e-12, z, w, NULL, &st), TC_RESULT_OK);
    assert_true(st.iterations == 0 && st.pivots > 0);
    assert_int_equal(tc_lcp_solve(TC_LCP_LEMKE, n, M, true, NULL, q, 1e-12, z, w, NULL, &st), TC_RESULT_OK);
    assert_true(st.iterations == 0 && st.pivots > 0);
    for (int i = 0; i < n; ++i) z[i] = 0;
    assert_int_equal(tc_lcp_solve(TC_LCP_MPRGP, n, M, true, NULL, q, 1e-12, z, w, NULL, &st), TC_RESULT_OK);
    assert_true(st.iterations > 0 && st.pivots == 0);
    // small n goes to Lemke under AUTO
    tc_real M2[4] = {2, 1, 1, 2}, q2[2] = {-5, -6}, z2[2] = {0, 0};
    assert_int_equal(tc_lcp_solve(TC_LCP_AUTO, 2, M2, true, NULL, q2, 1e-12, z2, NULL, NULL, &st), TC_RESULT_OK);
    assert_true(st.pivots > 0 && st.iterations == 0);
    // a symmetric matrix that is not positive definite: CG finds no curvature, Lemke takes over
    // and reports the LCP as infeasible (w_2 = −z_2 − 1 < 0 for every z_2 >= 0)
    tc_real Mi[4] = {1, 0, 0, -1}, qi[2] = {-1, -1}, zi[2] = {0, 0};
    for (int m = TC_LCP_PK; m <= TC_LCP_MPRGP; ++m) {
        assert_int_equal(tc_lcp_solve((tc_lcp_method)m, 2, Mi, true, NULL, qi, 1e-12, zi, NULL, NULL, &st), TC_RESULT_INFEASIBLE);
        assert_true(st.fell_back && st.pivots > 0);
    }
    free(M);
}

// The split PK given S and the upper triangle of A directly (the lower triangle holds NaN, so a
// read of it would show): the same solution as Lemke on M = (S + A) diag(d), from a cold and a warm
// start, with a kept workspace; the skew product against the dense one.
static void test_split_parts(void** state) {
    (void)state;
    enum { n = 150 };
    unsigned seed = 4242;
    tc_real* S = malloc(n * n * sizeof(tc_real));
    tc_real* A = malloc(n * n * sizeof(tc_real));
    tc_real* M = malloc(n * n * sizeof(tc_real));
    tc_real d[n], q[n], zl[n], z[n], w[n], x[n], y[n];
    random_spd(n, &seed, 0.5, S);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) A[i * n + k] = k > i ? 0.02 * (rnd(&seed) - 0.5) : NAN;
    for (int k = 0; k < n; ++k) d[k] = 0.3 + 2 * rnd(&seed), q[k] = 2 * rnd(&seed) - 1.3;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) {
            tc_real skew = k > i ? A[i * n + k] : k < i ? -A[k * n + i] : 0;
            M[i * n + k] = (S[i * n + k] + skew) * d[k];
        }
    // the skew product reads the upper triangle only and equals the dense one
    for (int k = 0; k < n; ++k) x[k] = k % 4 ? 0 : rnd(&seed);
    tc_skew_upper_matvec(n, A, x, y);
    for (int i = 0; i < n; ++i) {
        tc_real s = 0;
        for (int k = 0; k < n; ++k) s += (k > i ? A[i * n + k] : k < i ? -A[k * n + i] : 0) * x[k];
        assert_near(y[i], s, 1e-14);
    }
    assert_int_equal(tc_lcp_lemke(n, M, q, zl, w, NULL), TC_RESULT_OK);
    tc_real zmax = 0;
    for (int i = 0; i < n; ++i) zmax = fmax(zmax, zl[i]), z[i] = 0;
    tc_lcp_workspace ws = {0};
    tc_lcp_iter_stats st;
    for (int start = 0; start < 2; ++start) { // cold, then warm from a perturbed solution
        if (start) for (int i = 0; i < n; ++i) z[i] = zl[i] * (1 + 0.1 * (rnd(&seed) - 0.5));
        assert_int_equal(tc_lcp_pk_split_parts(n, S, A, d, q, 1e-12, 1000, z, w, &ws, &st), TC_RESULT_OK);
        for (int i = 0; i < n; ++i) {
            assert_near(z[i], zl[i], 1e-8 * zmax);
            tc_real mz = q[i];
            for (int k = 0; k < n; ++k) mz += M[i * n + k] * z[k];
            assert_near(w[i], mz, 1e-10); // the returned w is M z + q
            assert_true(z[i] >= 0 && w[i] >= -1e-11);
        }
        assert_true(st.iterations > 0 || start == 1);
    }
    d[5] = -1;
    assert_int_equal(tc_lcp_pk_split_parts(n, S, A, d, q, 1e-12, 100, z, w, &ws, NULL), TC_RESULT_INVALID_ARGUMENT);
    tc_lcp_workspace_free(&ws);
    free(S);
    free(A);
    free(M);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_known_2x2, tc_test_setup_log),
        cmocka_unit_test_setup(test_random_against_enumeration, tc_test_setup_log),
        cmocka_unit_test_setup(test_large_against_lemke, tc_test_setup_log),
        cmocka_unit_test_setup(test_success_means_nonnegative, tc_test_setup_log),
        cmocka_unit_test_setup(test_split_for_scaled_nonsymmetric, tc_test_setup_log),
        cmocka_unit_test_setup(test_split_falls_back, tc_test_setup_log),
        cmocka_unit_test_setup(test_split_parts, tc_test_setup_log),
        cmocka_unit_test_setup(test_solve_dispatch_and_fallback, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
