#define _POSIX_C_SOURCE 200809L
#include "cli_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool cli_is_help(const char* arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

bool cli_parse_real(const char* opt, const char* text, double* out) {
    char* end = NULL;
    double x = text ? strtod(text, &end) : 0;
    if (!text || end == text || *end || !isfinite(x) || x <= 0) {
        fprintf(stderr, "tactus: %s expects a positive number (got '%s')\n", opt, text ? text : "");
        return false;
    }
    *out = x;
    return true;
}

bool cli_parse_int(const char* opt, const char* text, int* out) {
    char* end = NULL;
    long x = text ? strtol(text, &end, 10) : 0;
    if (!text || end == text || *end || x <= 0 || x > 1000000000L) {
        fprintf(stderr, "tactus: %s expects a positive integer (got '%s')\n", opt, text ? text : "");
        return false;
    }
    *out = (int)x;
    return true;
}

bool cli_steps_for_time(const char* what, double time, double dt, int64_t* steps) {
    double n = time / dt; // range first: llround of 1e300 is undefined
    if (!(n <= (double)CLI_MAX_STEPS)) {
        fprintf(stderr, "tactus: %s: %g s would take %g steps of %g s (at most %lld)\n", what, time, n, dt, CLI_MAX_STEPS);
        return false;
    }
    *steps = llround(n) > 0 ? llround(n) : 1;
    return true;
}

bool cli_make_dirs(const char* dir) {
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) return false;
    for (char* p = buf + 1;; ++p) {
        bool end = *p == '\0';
        if (*p == '/' || end) {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "tactus: cannot create directory %s: %s\n", buf, strerror(errno));
                return false;
            }
            if (end) break;
            *p = '/';
        }
    }
    return true;
}

bool cli_absolute_path(const char* path, char* out, size_t cap) {
    if (path[0] == '/') return (size_t)snprintf(out, cap, "%s", path) < cap;
    char cwd[1024];
    if (!getcwd(cwd, sizeof cwd)) return false;
    return (size_t)snprintf(out, cap, "%s/%s", cwd, path) < cap;
}
