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
// no register copies before each product; no FMA (-ffp-contract=off): the same bits. Used where
// the vector form below is not.)
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

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(TC_NO_VECTOR_CLONES) && !defined(TC_PLAIN_LANES)
#define EIGEN_AVX2 1
#include <immintrin.h>
// The same decomposition with a and v held by columns, one AVX2 vector each (lane k: row k;
// lane 3 unused). A rotation's column pass mixes columns p and q (the loop's operations, lane
// by lane); its row pass mixes lanes p and q of every column: lane p gets c a_pk + (-s) a_qk,
// which is c a_pk - s a_qk exactly (negation is exact, and x - y is x + (-y)), lane q gets
// c a_qk + s a_pk (= s a_pk + c a_qk: addition commutes exactly); the other lanes are kept by a
// blend. v's columns as a's. The same bits as the scalar loops (tested against them), ~45
// instead of ~115 instructions a rotation. A macro: the lane permutation and blends take
// immediates (an inline function's parameters are not constants in a Debug build).
// SWAP: vpermpd order exchanging lanes p and q; PQ: the blend mask of lanes p and q; QB: of lane q.
#define EIGEN_ROTATE(P, Q, SWAP, PQ, QB)                                                                              \
    do {                                                                                                              \
        tc_real apq = A[Q][P];                                                                                        \
        if (apq == 0) break;                                                                                          \
        tc_real theta = (A[Q][Q] - A[P][P]) / (2 * apq);                                                              \
        tc_real t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));                                  \
        tc_real c = 1 / sqrt(t * t + 1), s = t * c;                                                                   \
        __m256d cv = _mm256_set1_pd(c), sv = _mm256_set1_pd(s), cp = a[P], cq = a[Q];                                 \
        a[P] = _mm256_sub_pd(_mm256_mul_pd(cv, cp), _mm256_mul_pd(sv, cq));                                           \
        a[Q] = _mm256_add_pd(_mm256_mul_pd(sv, cp), _mm256_mul_pd(cv, cq));                                           \
        __m256d mix = _mm256_blend_pd(_mm256_set1_pd(-s), sv, QB);                                                    \
        _Pragma("GCC unroll 3") for (int k = 0; k < 3; ++k) {                                                        \
            __m256d x = a[k], y = _mm256_permute4x64_pd(x, SWAP);                                                     \
            a[k] = _mm256_blend_pd(x, _mm256_add_pd(_mm256_mul_pd(cv, x), _mm256_mul_pd(mix, y)), PQ);               \
        }                                                                                                             \
        __m256d vp = v[P], vq = v[Q];                                                                                 \
        v[P] = _mm256_sub_pd(_mm256_mul_pd(cv, vp), _mm256_mul_pd(sv, vq));                                           \
        v[Q] = _mm256_add_pd(_mm256_mul_pd(sv, vp), _mm256_mul_pd(cv, vq));                                           \
        _Pragma("GCC unroll 3") for (int k = 0; k < 3; ++k) _mm256_storeu_pd(A[k], a[k]);                            \
    } while (0)

__attribute__((target("avx2"))) static void eigen_sym3_avx2(tc_mat3 m, tc_vec3* values, tc_mat3* vectors) {
    __m256d a[3], v[3];
    tc_real A[3][4]; // a's columns as stored: A[k][row]
    for (int k = 0; k < 3; ++k) {
        a[k] = _mm256_setr_pd(m.m[0][k], m.m[1][k], m.m[2][k], 0);
        v[k] = _mm256_setr_pd(k == 0, k == 1, k == 2, 0);
        _mm256_storeu_pd(A[k], a[k]);
    }
    for (int sweep = 0; sweep < 50; ++sweep) {
        tc_real off = fabs(A[1][0]) + fabs(A[2][0]) + fabs(A[2][1]); // a01 + a02 + a12
        tc_real diag = fabs(A[0][0]) + fabs(A[1][1]) + fabs(A[2][2]);
        if (off <= 1e-300 || off <= 1e-17 * diag) break;
        EIGEN_ROTATE(0, 1, 0xE1, 0x3, 0x2);
        EIGEN_ROTATE(0, 2, 0xC6, 0x5, 0x4);
        EIGEN_ROTATE(1, 2, 0xD8, 0x6, 0x4);
    }
    tc_real d[3] = {A[0][0], A[1][1], A[2][2]}, V[3][4];
    for (int k = 0; k < 3; ++k) _mm256_storeu_pd(V[k], v[k]);
    int idx[3] = {0, 1, 2};
    for (int i = 0; i < 2; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (d[idx[j]] < d[idx[i]]) { int t = idx[i]; idx[i] = idx[j]; idx[j] = t; }
    tc_vec3 c0 = tc_v3(V[idx[0]][0], V[idx[0]][1], V[idx[0]][2]), c1 = tc_v3(V[idx[1]][0], V[idx[1]][1], V[idx[1]][2]);
    tc_vec3 c2 = tc_v3_cross(c0, c1); // right-handed
    *values = tc_v3(d[idx[0]], d[idx[1]], d[idx[2]]);
    *vectors = tc_mat3_from_cols(c0, c1, c2);
}
#endif

void tc_eigen_sym3(tc_mat3 a, tc_vec3* values, tc_mat3* vectors) {
#ifdef EIGEN_AVX2
    if (__builtin_cpu_supports("avx2")) {
        eigen_sym3_avx2(a, values, vectors);
        return;
    }
#endif
    eigen_sym3(a, values, vectors);
}
