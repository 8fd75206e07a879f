// tactus: run, validate and inspect Tactus scenes.
#include <stdio.h>
#include <string.h>
#include "tactus/tactus.h"

int main(int argc, char** argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        printf("usage: tactus <command> [options]\n");
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("tactus %s\n", tc_version_string());
        return 0;
    }
    fprintf(stderr, "tactus: unknown command '%s' (see tactus --help)\n", argv[1]);
    return 2;
}
