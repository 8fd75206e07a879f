#include "core/core.h"

uint64_t tc_hash_bytes(uint64_t h, const void* data, size_t size) {
    const unsigned char* p = data;
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t tc_hash_real(uint64_t h, tc_real x) {
    if (x == 0) x = 0; // -0 and +0 hash alike
    return tc_hash_bytes(h, &x, sizeof x);
}

uint64_t tc_hash_vec3(uint64_t h, tc_vec3 v) {
    h = tc_hash_real(h, v.x);
    h = tc_hash_real(h, v.y);
    return tc_hash_real(h, v.z);
}

uint64_t tc_hash_quat(uint64_t h, tc_quat q) {
    h = tc_hash_real(h, q.x);
    h = tc_hash_real(h, q.y);
    h = tc_hash_real(h, q.z);
    return tc_hash_real(h, q.w);
}
