// Reference solvers for the LCP tests: dense Gaussian elimination and brute-force enumeration
// of all 2^n complementary sets (n <= 10), shared by test_lcp_lemke and test_lcp_iterative.
#ifndef TC_TEST_LCP_BRUTE_H
#define TC_TEST_LCP_BRUTE_H

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "tactus/base.h"

// Solves A x = b (k×k, overwritten) by Gaussian elimination with partial pivoting.
static inline bool tc_test_solve_dense(int k, tc_real* A, tc_real* b) {
    for (int c = 0; c < k; ++c) {
        int p = c;
        for (int r = c + 1; r < k; ++r)
            if (fabs(A[r * k + c]) > fabs(A[p * k + c])) p = r;
        if (fabs(A[p * k + c]) < 1e-14) return false;
        for (int j = 0; j < k; ++j) {
            tc_real t = A[c * k + j];
            A[c * k + j] = A[p * k + j], A[p * k + j] = t;
        }
        tc_real t = b[c];
        b[c] = b[p], b[p] = t;
        for (int r = c + 1; r < k; ++r) {
            tc_real f = A[r * k + c] / A[c * k + c];
            for (int j = c; j < k; ++j) A[r * k + j] -= f * A[c * k + j];
            b[r] -= f * b[c];
        }
    }
    for (int c = k - 1; c >= 0; --c) {
        for (int j = c + 1; j < k; ++j) b[c] -= A[c * k + j] * b[j];
        b[c] /= A[c * k + c];
    }
    return true;
}

// The unique complementary set alpha with z_alpha = −M_αα⁻¹ q_α >= 0 and w elsewhere >= 0.
static inline int tc_test_lcp_brute_force(int n, const tc_real* M, const tc_real* q, tc_real* z) {
    int solutions = 0;
    tc_real A[100], b[10], cand[10];
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
        int idx[10], k = 0;
        for (int i = 0; i < n; ++i)
            if (mask & (1u << i)) idx[k++] = i;
        for (int a = 0; a < k; ++a) {
            b[a] = -q[idx[a]];
            for (int c = 0; c < k; ++c) A[a * k + c] = M[idx[a] * n + idx[c]];
        }
        if (k > 0 && !tc_test_solve_dense(k, A, b)) continue;
        for (int i = 0; i < n; ++i) cand[i] = 0;
        bool ok = true;
        for (int a = 0; a < k; ++a) {
            if (b[a] < -1e-10) ok = false;
            cand[idx[a]] = b[a];
        }
        for (int i = 0; i < n && ok; ++i) {
            tc_real wi = q[i];
            for (int j = 0; j < n; ++j) wi += M[i * n + j] * cand[j];
            if (!(mask & (1u << i)) && wi < -1e-10) ok = false;
        }
        if (ok) ++solutions, memcpy(z, cand, (size_t)n * sizeof(tc_real));
    }
    return solutions;
}

#endif
