// A growable text buffer for writers that build a whole file in memory before writing it.
#ifndef TC_IO_STRBUF_H
#define TC_IO_STRBUF_H

#include <stddef.h>
#include "tactus/base.h"

typedef struct tc_strbuf {
    char* data;
    size_t length;
    size_t capacity;
    bool failed; ///< an allocation failed; the content is truncated
} tc_strbuf;

void tc_strbuf_printf(tc_strbuf* b, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void tc_strbuf_free(tc_strbuf* b);

#endif
