#include "math/eigen.h"
#include "core/core.h"

#if defined(__GNUC__)
#define EIGEN_INLINE static inline __attribute__((always_inline))
#else
#define EIGEN_INLINE static inline
#endif

// One Jacobi rotation zeroing a[p][q]; accumulates the rotation into v.
// Always inlined with p, q constant and the loops unrolled, so that a and v (locals of
// tc_eigen_sym3) live in registers: the same operations in the same order as the loops (the
// same bits), without a call, the index arithmetic and the loads and stores of each entry
// (~1,100 instructions a decomposition of the PCA normals' covariances before, two sweeps each).
EIGEN_INLINE void jacobi_rotate(tc_real a[3][3], tc_real v[3][3], int p, int q) {
    tc_real apq = a[p][q];
    if (apq == 0) return;
    tc_real theta = (a[q][q] - a[p][p]) / (2 * apq);
    tc_real t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
    tc_real c = 1 / sqrt(t * t + 1), s = t * c;
#pragma GCC unroll 3
    for (int k = 0; k < 3; ++k) {
        tc_real akp = a[k][p], akq = a[k][q];
        a[k][p] = c * akp - s * akq;
        a[k][q] = s * akp + c * akq;
    }
#pragma GCC unroll 3
    for (int k = 0; k < 3; ++k) {
        tc_real apk = a[p][k], aqk = a[q][k];
        a[p][k] = c * apk - s * aqk;
        a[q][k] = s * apk + c * aqk;
    }
#pragma GCC unroll 3
    for (int k = 0; k < 3; ++k) {
        tc_real vkp = v[k][p], vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
    }
}

// (An AVX2 clone where available: the same scalar operations with three-operand encodings,
// no register copies before each product; no FMA (-ffp-contract=off): the same bits.)
TC_VECTOR_CLONES static void eigen_sym3(tc_mat3 m, tc_vec3* values, tc_mat3* vectors) {
    tc_real a[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a[i][j] = m.m[i][j];
    for (int sweep = 0; sweep < 50; ++sweep) {
        tc_real off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        tc_real diag = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
        if (off <= 1e-300 || off <= 1e-17 * diag) break;
        jacobi_rotate(a, v, 0, 1);
        jacobi_rotate(a, v, 0, 2);
        jacobi_rotate(a, v, 1, 2);
    }
    tc_real d[3] = {a[0][0], a[1][1], a[2][2]};
    int idx[3] = {0, 1, 2};
    for (int i = 0; i < 2; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (d[idx[j]] < d[idx[i]]) { int t = idx[i]; idx[i] = idx[j]; idx[j] = t; }
    tc_vec3 c0 = tc_v3(v[0][idx[0]], v[1][idx[0]], v[2][idx[0]]), c1 = tc_v3(v[0][idx[1]], v[1][idx[1]], v[2][idx[1]]);
    tc_vec3 c2 = tc_v3_cross(c0, c1); // right-handed
    *values = tc_v3(d[idx[0]], d[idx[1]], d[idx[2]]);
    *vectors = tc_mat3_from_cols(c0, c1, c2);
}

void tc_eigen_sym3(tc_mat3 a, tc_vec3* values, tc_mat3* vectors) { eigen_sym3(a, values, vectors); }
