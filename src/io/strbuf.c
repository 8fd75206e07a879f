#include "io/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include "core/core.h"

static bool grow(tc_strbuf* b, size_t need) {
    if (b->length + need + 1 <= b->capacity) return true;
    size_t cap = b->capacity ? b->capacity : 4096;
    while (cap < b->length + need + 1) cap *= 2;
    char* d = b->data ? tc_realloc(b->data, b->capacity, cap) : tc_alloc(cap);
    if (!d) return false;
    b->data = d;
    b->capacity = cap;
    return true;
}

void tc_strbuf_printf(tc_strbuf* b, const char* fmt, ...) {
    if (b->failed) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !grow(b, (size_t)n)) {
        b->failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->data + b->length, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->length += (size_t)n;
}

void tc_strbuf_free(tc_strbuf* b) {
    if (b->data) tc_free(b->data, b->capacity);
    b->data = NULL;
    b->length = b->capacity = 0;
    b->failed = false;
}
