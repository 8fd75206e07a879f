#include "collision/support.h"


void tc_soa_pack(const tc_vec3* p, int n, tc_real* soa) {
    int s = tc_soa_stride(n);
    for (int i = 0; i < s; ++i) {
        tc_vec3 v = p[i < n ? i : 0];
        soa[i] = v.x, soa[s + i] = v.y, soa[2 * s + i] = v.z;
    }
}

// The portable scan and placement: point by point, in the scalar code's operation order.
static int scan_scalar(const tc_real* soa, int stride, tc_real dx, tc_real dy, tc_real dz) {
    const tc_real *x = soa, *y = soa + stride, *z = soa + 2 * stride;
    int best = 0;
    tc_real best_h = x[0] * dx + y[0] * dy + z[0] * dz;
    for (int i = 1; i < stride; ++i) {
        tc_real h = x[i] * dx + y[i] * dy + z[i] * dz;
        if (h > best_h) best_h = h, best = i;
    }
    return best;
}

static int scan16_pair_scalar(const tc_real* a, const tc_real* b, tc_real dx, tc_real dy, tc_real dz) {
    return scan_scalar(a, 16, dx, dy, dz) | scan_scalar(b, 16, -dx, -dy, -dz) << 16;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(TC_SUPPORT_PORTABLE) // TC_SUPPORT_PORTABLE: the portable code on x86 too (for testing it)
#include <immintrin.h>

// x86-64 with AVX2: the heights of all points first (4 per instruction, each x*dx + y*dy + z*dz in
// the scalar order, no FMA), their maximum, then the first point whose height equals it: the scalar
// scan's answer (every +-0 tie and every value compare the same way under == as under the scalar's
// strict >). Without AVX2 the scalar scan is used: measured faster here than the same idea in SSE2
// (0.73 vs 0.99 us per narrowphase query), its branches being well predicted.
// The heights of 16 packed points along (dx, dy, dz), 4 per register, and their maximum in
// every lane of *m.
__attribute__((target("avx2"), always_inline)) static inline void heights16_avx2(const tc_real* soa, tc_real dx, tc_real dy, tc_real dz,
                                                                                 __m256d h[4], __m256d* m) {
    const tc_real *x = soa, *y = soa + 16, *z = soa + 32;
    __m256d vx = _mm256_set1_pd(dx), vy = _mm256_set1_pd(dy), vz = _mm256_set1_pd(dz);
    for (int k = 0; k < 4; ++k)
        h[k] = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(x + 4 * k), vx), _mm256_mul_pd(_mm256_loadu_pd(y + 4 * k), vy)),
                             _mm256_mul_pd(_mm256_loadu_pd(z + 4 * k), vz));
    __m256d t = _mm256_max_pd(_mm256_max_pd(h[0], h[1]), _mm256_max_pd(h[2], h[3]));
    t = _mm256_max_pd(t, _mm256_permute2f128_pd(t, t, 1));
    *m = _mm256_max_pd(t, _mm256_permute_pd(t, 5));
}

// The common case, 16 packed points (hulls of up to 16 vertices), unrolled: no loop, no branch.
__attribute__((target("avx2"), always_inline)) static inline int scan16_avx2(const tc_real* soa, tc_real dx, tc_real dy, tc_real dz) {
    __m256d h[4], m;
    heights16_avx2(soa, dx, dy, dz, h, &m);
    __m256d h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3];
    unsigned hits = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(h0, m, _CMP_EQ_OQ)) |
                    (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(h1, m, _CMP_EQ_OQ)) << 4 |
                    (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(h2, m, _CMP_EQ_OQ)) << 8 |
                    (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(h3, m, _CMP_EQ_OQ)) << 12;
    return hits ? __builtin_ctz(hits) : 0; // 0: NaN heights (non-finite input)
}

__attribute__((target("avx2"))) static int scan16_one_avx2(const tc_real* soa, tc_real dx, tc_real dy, tc_real dz) {
    return scan16_avx2(soa, dx, dy, dz);
}

// The scan above, when its winner is clear: no other of the first `count` points (the rest are
// padding copies of point 0) has a height within tau of the maximum; else -1.
__attribute__((target("avx2"), always_inline)) static inline int scan16_clear_avx2(const tc_real* soa, tc_real dx, tc_real dy, tc_real dz,
                                                                                   tc_real tau, unsigned valid) {
    __m256d h[4], m;
    heights16_avx2(soa, dx, dy, dz, h, &m);
    __m256d h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3];
    __m256d low = _mm256_sub_pd(m, _mm256_set1_pd(tau));
    unsigned near = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(h0, low, _CMP_GE_OQ)) |
                    (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(h1, low, _CMP_GE_OQ)) << 4 |
                    (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(h2, low, _CMP_GE_OQ)) << 8 |
                    (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(h3, low, _CMP_GE_OQ)) << 12;
    near &= valid;
    return near && !(near & (near - 1)) ? __builtin_ctz(near) : -1; // exactly one: the winner
}

__attribute__((target("avx2"))) static int scan16_pair_clear_avx2(const tc_real* a, const tc_real* b, tc_real dx, tc_real dy, tc_real dz,
                                                                  tc_real tau_a, tc_real tau_b, unsigned valid_a, unsigned valid_b) {
    int i = scan16_clear_avx2(a, dx, dy, dz, tau_a, valid_a), j = scan16_clear_avx2(b, -dx, -dy, -dz, tau_b, valid_b);
    return i < 0 || j < 0 ? -1 : i | j << 16;
}

// Both scans of a Minkowski-difference support in one call: independent, so they overlap.
__attribute__((target("avx2"))) static int scan16_pair_avx2(const tc_real* a, const tc_real* b, tc_real dx, tc_real dy, tc_real dz) {
    return scan16_avx2(a, dx, dy, dz) | scan16_avx2(b, -dx, -dy, -dz) << 16;
}

__attribute__((target("avx2"))) static void place_avx2(const tc_real* soa, int stride, const tc_mat3* r, const tc_vec3* t, tc_real* out) {
    const tc_real *x = soa, *y = soa + stride, *z = soa + 2 * stride;
    const tc_real* tt = &t->x;
    for (int i = 0; i < stride; i += 4) {
        __m256d px = _mm256_loadu_pd(x + i), py = _mm256_loadu_pd(y + i), pz = _mm256_loadu_pd(z + i);
        for (int row = 0; row < 3; ++row) {
            __m256d a = _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(r->m[row][0]), px), _mm256_mul_pd(_mm256_set1_pd(r->m[row][1]), py));
            a = _mm256_add_pd(a, _mm256_mul_pd(_mm256_set1_pd(r->m[row][2]), pz));
            _mm256_storeu_pd(out + row * stride + i, _mm256_add_pd(_mm256_set1_pd(tt[row]), a));
        }
    }
}

static void place_sse2(const tc_real* soa, int stride, const tc_mat3* r, const tc_vec3* t, tc_real* out) {
    const tc_real *x = soa, *y = soa + stride, *z = soa + 2 * stride;
    const tc_real* tt = &t->x;
    for (int i = 0; i < stride; i += 2) {
        __m128d px = _mm_loadu_pd(x + i), py = _mm_loadu_pd(y + i), pz = _mm_loadu_pd(z + i);
        for (int row = 0; row < 3; ++row) {
            __m128d a = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(r->m[row][0]), px), _mm_mul_pd(_mm_set1_pd(r->m[row][1]), py));
            a = _mm_add_pd(a, _mm_mul_pd(_mm_set1_pd(r->m[row][2]), pz));
            _mm_storeu_pd(out + row * stride + i, _mm_add_pd(_mm_set1_pd(tt[row]), a));
        }
    }
}

#ifdef TC_SUPPORT_NO_AVX2 // the code of machines without AVX2, on an AVX2 machine (for testing it)
static bool has_avx2(void) { return false; }
#else
static bool has_avx2(void) { return __builtin_cpu_supports("avx2"); }
#endif

static int scan(const tc_real* soa, int stride, tc_real dx, tc_real dy, tc_real dz) {
    if (stride == 16 && has_avx2()) return scan16_one_avx2(soa, dx, dy, dz);
    return scan_scalar(soa, stride, dx, dy, dz);
}

tc_soa_pair16_fn tc_soa_pair16(void) { return has_avx2() ? scan16_pair_avx2 : scan16_pair_scalar; }
tc_soa_pair16_clear_fn tc_soa_pair16_clear(void) { return has_avx2() ? scan16_pair_clear_avx2 : NULL; }

static void place4(const tc_real* soa, int stride, const tc_mat3* r, const tc_vec3* t, tc_real* out) {
    if (has_avx2()) place_avx2(soa, stride, r, t, out);
    else place_sse2(soa, stride, r, t, out);
}
#else
static void place_scalar(const tc_real* soa, int stride, const tc_mat3* r, const tc_vec3* t, tc_real* out) {
    for (int i = 0; i < stride; ++i) {
        tc_vec3 p = tc_v3_add(*t, tc_mat3_mul_v3(*r, tc_v3(soa[i], soa[stride + i], soa[2 * stride + i])));
        out[i] = p.x, out[stride + i] = p.y, out[2 * stride + i] = p.z;
    }
}

static int scan(const tc_real* soa, int stride, tc_real dx, tc_real dy, tc_real dz) { return scan_scalar(soa, stride, dx, dy, dz); }
static void place4(const tc_real* soa, int stride, const tc_mat3* r, const tc_vec3* t, tc_real* out) { place_scalar(soa, stride, r, t, out); }
tc_soa_pair16_fn tc_soa_pair16(void) { return scan16_pair_scalar; }
tc_soa_pair16_clear_fn tc_soa_pair16_clear(void) { return NULL; }
#endif

void tc_soa_place(const tc_real* soa, int stride, int n, const tc_mat3* r, const tc_vec3* t, tc_real* out, tc_vec3* aos) {
    place4(soa, stride, r, t, out);
    for (int i = 0; aos && i < n; ++i) aos[i] = tc_v3(out[i], out[stride + i], out[2 * stride + i]);
}

int tc_soa_support(const tc_real* soa, int stride, tc_vec3 d) { return scan(soa, stride, d.x, d.y, d.z); }

void tc_soa_support_pair(const tc_real* a, int stride_a, const tc_real* b, int stride_b, tc_vec3 d, int* ia, int* ib) {
    *ia = scan(a, stride_a, d.x, d.y, d.z);
    *ib = scan(b, stride_b, -d.x, -d.y, -d.z);
}
