// Replays fuzz inputs without libFuzzer: every file named on the command line, or every regular
// file of a directory named there, goes through LLVMFuzzerTestOneInput once. The regular test
// build runs the seed corpus and the regression inputs (crashes once found) this way, so a
// fixed crash stays fixed under gcc and under the sanitizers.
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int replay_file(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "replay: cannot open %s\n", path); return 1; }
    uint8_t* data = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t* grown = realloc(data, cap);
            if (!grown) { free(data); fclose(f); fprintf(stderr, "replay: out of memory\n"); return 1; }
            data = grown;
        }
        size_t n = fread(data + size, 1, cap - size, f);
        if (n == 0) break;
        size += n;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int compare_names(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

// Files of a directory in name order (deterministic output), skipping dot files.
static int replay_dir(const char* dir, int* count) {
    DIR* d = opendir(dir);
    if (!d) { fprintf(stderr, "replay: cannot open directory %s\n", dir); return 1; }
    char** names = NULL;
    int n = 0, cap = 0, failed = 0;
    for (struct dirent* e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char** grown = realloc(names, (size_t)cap * sizeof *names);
            if (!grown) { failed = 1; break; }
            names = grown;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) { failed = 1; break; }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n > 0) qsort(names, (size_t)n, sizeof *names, compare_names);
    for (int i = 0; i < n; ++i) {
        failed |= replay_file(names[i]);
        free(names[i]);
    }
    *count += n;
    free(names);
    return failed;
}

int main(int argc, char** argv) {
    int failed = 0, count = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) != 0) continue; // an empty regressions/ folder may be absent
        if (S_ISDIR(st.st_mode)) failed |= replay_dir(argv[i], &count);
        else { failed |= replay_file(argv[i]); ++count; }
    }
    printf("replayed %d inputs\n", count);
    return failed;
}
