// tactus: run, validate and inspect Tactus scenes. Commands come from commands.h.
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "tactus/tactus.h"

typedef struct command {
    const char* name;
    const char* summary;
    int (*run)(int argc, char** argv);
} command;

#define TACTUS_COMMAND_ENTRY_(name, summary) {#name, summary, tactus_cmd_##name},
static const command commands[] = {TACTUS_COMMANDS(TACTUS_COMMAND_ENTRY_)};
#undef TACTUS_COMMAND_ENTRY_

static void usage(FILE* out) {
    fprintf(out, "usage: tactus <command> [options]   (tactus <command> --help for details)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n  --version  print the library version\n");
}

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("tactus %s\n", tc_version_string());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "tactus: unknown command '%s' (see tactus --help)\n", argv[1]);
    return 2;
}
