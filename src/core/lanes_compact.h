// Compaction of kept SIMD lanes (internal; the AVX2 paths of the point contact and the force
// distribution): for each 4-bit mask of kept lanes, the lane indices that move the kept values,
// in order, to the front of a register.
#ifndef TC_CORE_LANES_COMPACT_H
#define TC_CORE_LANES_COMPACT_H
#include <immintrin.h>
#include <stdint.h>
#include "tactus/base.h"

// Of 4 doubles: 32-bit lane indices (vpermps on the doubles' halves).
static const int32_t tc_compact_perm_pd[16][8] = {
    {0, 1, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 1, 0, 1}, {2, 3, 0, 1, 0, 1, 0, 1}, {0, 1, 2, 3, 0, 1, 0, 1},
    {4, 5, 0, 1, 0, 1, 0, 1}, {0, 1, 4, 5, 0, 1, 0, 1}, {2, 3, 4, 5, 0, 1, 0, 1}, {0, 1, 2, 3, 4, 5, 0, 1},
    {6, 7, 0, 1, 0, 1, 0, 1}, {0, 1, 6, 7, 0, 1, 0, 1}, {2, 3, 6, 7, 0, 1, 0, 1}, {0, 1, 2, 3, 6, 7, 0, 1},
    {4, 5, 6, 7, 0, 1, 0, 1}, {0, 1, 4, 5, 6, 7, 0, 1}, {2, 3, 4, 5, 6, 7, 0, 1}, {0, 1, 2, 3, 4, 5, 6, 7}};

// Of 4 32-bit values (vpermilps), or the kept lanes' own indices 0-3 (plus a base: kept indices).
static const int32_t tc_compact_perm_epi32[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
    {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0}, {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};

// The lanes of v that perm keeps, stored to out in order (4 doubles written; the kept ones count).
__attribute__((target("avx2"), always_inline)) static inline void tc_compact_store_pd(tc_real* out, __m256d v, __m256i perm) {
    _mm256_storeu_pd(out, _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), perm)));
}
#endif
