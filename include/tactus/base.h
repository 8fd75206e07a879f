/// @file base.h
/// Tactus base definitions: export macro, precision, result codes, errors and hooks.
///
/// Conventions (the one place they are stated; docs/conventions.md repeats them):
/// - SI units everywhere: metres, kilograms, seconds, newtons, pascals, radians.
/// - Right-handed frame, +Z up, default gravity (0, 0, -9.81) m/s^2.
/// - Quaternions are {x, y, z, w} with w the scalar part; scene files spell the names out.
/// - A contact normal points from side A to side B; a separation is negative when
///   the two sides penetrate (penetration = -separation).
#ifndef TACTUS_BASE_H
#define TACTUS_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && defined(TACTUS_SHARED)
#  if defined(TACTUS_BUILDING)
#    define TC_API __declspec(dllexport)
#  else
#    define TC_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define TC_API __attribute__((visibility("default")))
#else
#  define TC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TC_VERSION_MAJOR 0
#define TC_VERSION_MINOR 1
#define TC_VERSION_PATCH 0

/// Scalar type. Tactus computes in double precision: deformables, MLS fits and
/// Lemke pivots need it.
typedef double tc_real;
#define TC_R(x) ((tc_real)(x))

/// Every result code with its message. X(NAME, "message").
#define TC_RESULT_LIST(X)                                                \
    X(OK, "ok")                                                          \
    X(INVALID_ARGUMENT, "invalid argument")                              \
    X(STALE_ID, "stale or foreign id")                                   \
    X(OUT_OF_MEMORY, "out of memory")                                    \
    X(IO, "input/output error")                                          \
    X(PARSE, "parse error")                                              \
    X(MISSING_FIELD, "missing field")                                    \
    X(UNKNOWN_FIELD, "unknown field")                                    \
    X(WRONG_TYPE, "wrong type")                                          \
    X(OUT_OF_RANGE, "value out of range")                                \
    X(NOT_FINITE, "value is not finite")                                 \
    X(DEGENERATE, "degenerate geometry")                                 \
    X(NOT_CONVERGED, "iteration did not converge")                       \
    X(INFEASIBLE, "problem is infeasible")                               \
    X(WORLD_LOCKED, "world is locked during a step")                     \
    X(UNSTABLE, "simulation became unstable")                            \
    X(UNSUPPORTED, "unsupported operation")                              \
    X(LIMIT, "capacity limit reached")

typedef enum tc_result {
#define TC_RESULT_ENUM_(name, msg) TC_RESULT_##name,
    TC_RESULT_LIST(TC_RESULT_ENUM_)
#undef TC_RESULT_ENUM_
    TC_RESULT_COUNT
} tc_result;

/// Human-readable text of a result code (static storage, never NULL).
TC_API const char* tc_result_string(tc_result result);

/// A detailed error, filled by loaders and creators that take user input.
/// message reads "file: path.to.field: problem" (file omitted when there is none).
typedef struct tc_error {
    tc_result code;     ///< the result code, TC_RESULT_OK when no error
    char file[256];     ///< the file the error is about, "" if none
    char path[256];     ///< dotted path of the offending field, e.g. "bodies[2].mass"
    int line;           ///< 1-based line in the file, 0 if unknown
    char message[1024]; ///< the full message: "file: path: problem"
} tc_error;

/// Clears an error to TC_RESULT_OK. Accepts NULL.
TC_API void tc_error_clear(tc_error* error);

/// Log levels for tc_log_fn.
typedef enum tc_log_level { TC_LOG_DEBUG, TC_LOG_INFO, TC_LOG_WARNING, TC_LOG_ERROR } tc_log_level;

typedef void* tc_alloc_fn(size_t size, size_t alignment, void* user);
typedef void tc_free_fn(void* ptr, size_t size, void* user);
typedef void tc_log_fn(tc_log_level level, tc_result code, const char* message, void* user);

/// Replaces the allocator used by every Tactus allocation (NULL restores malloc/free).
/// Call before creating any world. A world with more than one thread (tc_world_def.thread_count)
/// calls it from several threads at once: it must then be thread-safe, as malloc is.
TC_API void tc_set_allocator(tc_alloc_fn* alloc, tc_free_fn* free_fn, void* user);
/// Bytes currently allocated by Tactus.
TC_API int64_t tc_get_byte_count(void);
/// Replaces the log sink (NULL restores the default, which prints warnings and errors to stderr).
TC_API void tc_set_log(tc_log_fn* fn, void* user);
/// Library version as "major.minor.patch".
TC_API const char* tc_version_string(void);

#ifdef __cplusplus
}
#endif
#endif
