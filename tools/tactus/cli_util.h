// Small helpers shared by the tactus commands.
#ifndef TACTUS_CLI_UTIL_H
#define TACTUS_CLI_UTIL_H

#include <stdbool.h>

/// True when arg is "--help" or "-h".
bool cli_is_help(const char* arg);
/// Parses a positive real / positive int option value; prints an error naming opt on failure.
bool cli_parse_real(const char* opt, const char* text, double* out);
bool cli_parse_int(const char* opt, const char* text, int* out);
/// Creates dir and its parents (like mkdir -p). Prints an error on failure.
bool cli_make_dirs(const char* dir);

#endif
