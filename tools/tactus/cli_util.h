// Small helpers shared by the tactus commands.
#ifndef TACTUS_CLI_UTIL_H
#define TACTUS_CLI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Most steps one run may take (as --steps accepts).
#define CLI_MAX_STEPS 1000000000LL

/// True when arg is "--help" or "-h".
bool cli_is_help(const char* arg);
/// Parses a positive real / positive int option value; prints an error naming opt on failure.
bool cli_parse_real(const char* opt, const char* text, double* out);
bool cli_parse_int(const char* opt, const char* text, int* out);
/// Steps to simulate `time` seconds at time step dt: round(time / dt), at least 1 (a positive
/// time shorter than a step runs one step). Prints an error naming what (the flag, or the
/// scene's run.time) and returns false when the count is not finite or above CLI_MAX_STEPS.
bool cli_steps_for_time(const char* what, double time, double dt, int64_t* steps);
/// Creates dir and its parents (like mkdir -p). Prints an error on failure.
bool cli_make_dirs(const char* dir);
/// path made absolute against the working directory (unchanged when it starts with '/'; not
/// normalised) into out (cap bytes); false when the working directory is unknown or too long.
bool cli_absolute_path(const char* path, char* out, size_t cap);

#endif
