#include <stdio.h>
#include <time.h>
#include "core/core.h"

static const char* s_result_strings[] = {
#define TC_RESULT_STR_(name, msg) msg,
    TC_RESULT_LIST(TC_RESULT_STR_)
#undef TC_RESULT_STR_
};

const char* tc_result_string(tc_result result) {
    if ((int)result < 0 || result >= TC_RESULT_COUNT) return "unknown result";
    return s_result_strings[result];
}

const char* tc_version_string(void) { return "0.1.0"; }

static tc_log_fn* s_log_fn;
static void* s_log_user;

void tc_set_log(tc_log_fn* fn, void* user) {
    s_log_fn = fn;
    s_log_user = user;
}

void tc_log(tc_log_level level, tc_result code, const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (s_log_fn) {
        s_log_fn(level, code, buf, s_log_user);
        return;
    }
    if (level >= TC_LOG_WARNING)
        fprintf(stderr, "tactus %s: %s\n", level == TC_LOG_ERROR ? "error" : "warning", buf);
}

void tc_error_clear(tc_error* error) {
    if (error) memset(error, 0, sizeof *error);
}

tc_result tc_error_set(tc_error* error, tc_result code, const char* file, const char* path, const char* fmt, ...) {
    if (!error) return code;
    char problem[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    error->code = code;
    snprintf(error->file, sizeof error->file, "%s", file ? file : "");
    snprintf(error->path, sizeof error->path, "%s", path ? path : "");
    error->line = 0;
    int n = 0;
    error->message[0] = '\0';
    if (file && file[0]) n += snprintf(error->message + n, sizeof error->message - (size_t)n, "%s: ", file);
    if (path && path[0] && n < (int)sizeof error->message)
        n += snprintf(error->message + n, sizeof error->message - (size_t)n, "%s: ", path);
    if (n < (int)sizeof error->message) snprintf(error->message + n, sizeof error->message - (size_t)n, "%s", problem);
    return code;
}

double tc_wall_time(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
