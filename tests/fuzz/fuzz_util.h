// Shared helpers of the fuzz targets: each target feeds the real file-reading entry point, so
// the bytes go through a private temporary file named with the extension the reader expects.
#ifndef TACTUS_FUZZ_UTIL_H
#define TACTUS_FUZZ_UTIL_H
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// Writes data to "<tmpdir>/tactus-fuzz-<pid><suffix>" and returns that path (static storage,
// reused by every call of the process), or NULL if the file cannot be written.
static inline const char* tc_fuzz_write_temp(const uint8_t* data, size_t size, const char* suffix) {
    static char path[512];
    const char* dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/tactus-fuzz-%ld%s", dir && dir[0] ? dir : "/tmp", (long)getpid(), suffix);
    FILE* f = fopen(path, "wb");
    if (!f) return NULL;
    size_t written = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || written != size) return NULL;
    return path;
}
#endif
