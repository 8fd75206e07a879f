#include <stdatomic.h>
#include <stdlib.h>
#include "core/core.h"

static tc_alloc_fn* s_alloc;
static tc_free_fn* s_free;
static void* s_alloc_user;
static _Atomic int64_t s_byte_count;

void tc_set_allocator(tc_alloc_fn* alloc, tc_free_fn* free_fn, void* user) {
    s_alloc = alloc;
    s_free = free_fn;
    s_alloc_user = user;
}

int64_t tc_get_byte_count(void) { return atomic_load(&s_byte_count); }

void* tc_alloc(size_t size) {
    if (size == 0) return NULL;
    void* p = s_alloc ? s_alloc(size, 16, s_alloc_user) : malloc(size);
    if (p) atomic_fetch_add(&s_byte_count, (int64_t)size);
    return p;
}

void* tc_calloc(size_t count, size_t size) {
    if (count != 0 && size > SIZE_MAX / count) return NULL;
    void* p = tc_alloc(count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

void tc_free(void* ptr, size_t size) {
    if (!ptr) return;
    atomic_fetch_sub(&s_byte_count, (int64_t)size);
    if (s_free) s_free(ptr, size, s_alloc_user);
    else free(ptr);
}

void* tc_realloc(void* ptr, size_t old_size, size_t new_size) {
    if (new_size == 0) {
        tc_free(ptr, old_size);
        return NULL;
    }
    if (!s_alloc) {
        void* p = realloc(ptr, new_size);
        if (p) atomic_fetch_add(&s_byte_count, (int64_t)new_size - (int64_t)old_size);
        return p;
    }
    void* p = tc_alloc(new_size);
    if (!p) return NULL;
    if (ptr) memcpy(p, ptr, old_size < new_size ? old_size : new_size);
    tc_free(ptr, old_size);
    return p;
}

char* tc_strdup(const char* s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char* r = tc_alloc(n);
    if (r) memcpy(r, s, n);
    return r;
}

void tc_free_string(char* s) {
    if (s) tc_free(s, strlen(s) + 1);
}

bool tc_array_reserve_raw(void** data, int* capacity, int n, size_t elem_size) {
    if (n <= *capacity) return true;
    int cap = *capacity < 8 ? 8 : *capacity;
    while (cap < n) cap = cap > (1 << 29) ? n : cap * 2;
    void* p = tc_realloc(*data, (size_t)*capacity * elem_size, (size_t)cap * elem_size);
    if (!p) return false;
    *data = p;
    *capacity = cap;
    return true;
}
