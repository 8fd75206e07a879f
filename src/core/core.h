// Internal core services: allocation, logging, errors, hashing, growable arrays.
#ifndef TC_CORE_H
#define TC_CORE_H

#include <stdarg.h>
#include <string.h>
#include "tactus/base.h"
#include "tactus/math.h"

void* tc_alloc(size_t size);
void* tc_calloc(size_t count, size_t size);
/// Grows or shrinks a block from tc_alloc; old_size must be the block's current size.
void* tc_realloc(void* ptr, size_t old_size, size_t new_size);
void tc_free(void* ptr, size_t size);
char* tc_strdup(const char* s);
void tc_free_string(char* s);

void tc_log(tc_log_level level, tc_result code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/// Fills error (may be NULL) with code and "file: path: problem" (file/path may be NULL or "").
/// Returns code so callers can `return tc_error_set(...)`.
tc_result tc_error_set(tc_error* error, tc_result code, const char* file, const char* path, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/// FNV-1a 64-bit over bytes, continuing from h (start with TC_HASH_SEED).
#define TC_HASH_SEED 14695981039346656037ull

/// Marks a hot, vectorisable loop function for an AVX2 copy picked at load time on x86-64 Linux
/// with gcc (portable baseline otherwise). The results are bitwise the same either way: the build
/// has -ffp-contract=off (no FMA), and such loops are element-wise or keep a fixed summation order.
/// -DTC_NO_VECTOR_CLONES (cmake -DTACTUS_PORTABLE_PATHS=ON) builds the baseline loops only.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(TC_NO_VECTOR_CLONES)
#define TC_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TC_VECTOR_CLONES
#endif
uint64_t tc_hash_bytes(uint64_t h, const void* data, size_t size);
uint64_t tc_hash_real(uint64_t h, tc_real x);
uint64_t tc_hash_vec3(uint64_t h, tc_vec3 v);
uint64_t tc_hash_quat(uint64_t h, tc_quat q);

/// Growable array: `TC_ARRAY(T) name;` then tc_array_push(&name, value).
#define TC_ARRAY(T) struct { T* data; int count; int capacity; }
/// Ensures room for n elements; returns false on allocation failure.
bool tc_array_reserve_raw(void** data, int* capacity, int n, size_t elem_size);
#define tc_array_reserve(a, n) tc_array_reserve_raw((void**)&(a)->data, &(a)->capacity, (n), sizeof(*(a)->data))
#define tc_array_push(a, value) \
    (tc_array_reserve((a), (a)->count + 1) ? ((a)->data[(a)->count++] = (value), true) : false)
#define tc_array_free(a) \
    (tc_free((a)->data, (size_t)(a)->capacity * sizeof(*(a)->data)), (a)->data = NULL, (a)->count = (a)->capacity = 0)
#define tc_array_clear(a) ((a)->count = 0)

/// Wall-clock seconds from a monotonic clock.
double tc_wall_time(void);

#endif
