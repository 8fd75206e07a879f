// The benches' random numbers: splitmix64, one stream per executable, and the draws the
// narrowphase workloads make. Every draw is its own statement: as unsequenced function
// arguments (tc_v3(urand(), urand(), urand())) gcc drew them last to first and clang first to
// last, so the two compilers built different workloads. The helpers keep gcc's order, so the
// recorded workloads and hashes are unchanged.
#ifndef TC_BENCH_RANDOM_H
#define TC_BENCH_RANDOM_H

#include "tactus/math.h"

#include <stdint.h>

static uint64_t s_rng = 0x9E3779B97F4A7C15ull;

static inline double urand(void) {
    uint64_t z = (s_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/// scale * (u - 0.5) per component.
static inline tc_vec3 urand_vec3(double scale) {
    double z = scale * (urand() - 0.5), y = scale * (urand() - 0.5), x = scale * (urand() - 0.5);
    return tc_v3(x, y, z);
}

/// The second body's offset in the narrowphase pairs: x in [0.3, 0.9], y and z in [-0.2, 0.2].
static inline tc_vec3 urand_offset(void) {
    double z = 0.4 * urand() - 0.2, y = 0.4 * urand() - 0.2, x = 0.3 + 0.6 * urand();
    return tc_v3(x, y, z);
}

/// A random rotation (a normalised quaternion of uniform components).
static inline tc_quat urand_rotation(void) {
    double w = urand() - 0.5, z = urand() - 0.5, y = urand() - 0.5, x = urand() - 0.5;
    return tc_quat_normalize(tc_quat_make(x, y, z, w));
}

#endif
