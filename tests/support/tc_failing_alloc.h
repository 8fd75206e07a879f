// An allocator whose n-th allocation fails (installed through the library's allocator hooks),
// for the out-of-memory tests.
#ifndef TC_FAILING_ALLOC_H
#define TC_FAILING_ALLOC_H
#include <stdlib.h>

static int s_alloc_count;  ///< allocations since arm()
static int s_fail_at = -1; ///< the allocation (0-based) that returns NULL; -1 = none

static void* failing_alloc(size_t size, size_t alignment, void* user) {
    (void)alignment;
    (void)user;
    if (s_alloc_count++ == s_fail_at) return NULL;
    return malloc(size); // glibc malloc is 16-byte aligned, as tc_alloc asks
}

static void plain_free(void* ptr, size_t size, void* user) {
    (void)size;
    (void)user;
    free(ptr);
}

/// From now on, allocation fail_at (0-based) fails; -1: none.
static void arm(int fail_at) {
    s_alloc_count = 0;
    s_fail_at = fail_at;
}
#endif
