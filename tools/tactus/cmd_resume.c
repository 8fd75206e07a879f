// tactus resume: continues a run from a checkpoint written by `tactus run --checkpoint-every`.
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "commands.h"
#include "run_state.h"

static void resume_usage(FILE* f) {
    fprintf(f, "usage: tactus resume CHECKPOINT [--steps N] [--out DIR] [--checkpoint-every N] [--hash]\n\n"
               "Rebuilds the scene saved in CHECKPOINT, restores its state and runs it to the end of\n"
               "the original run, bit-identical to a run that was never interrupted (same build and\n"
               "thread count). Frames and metrics continue in the original output directory.\n\n"
               "  --steps N             run until step N (counted from the start) instead; N must be\n"
               "                        after the checkpoint's step\n"
               "  --out DIR             write the new outputs (and the checkpoints, unless the run\n"
               "                        named its own file) to DIR instead; its .pvd lists the\n"
               "                        earlier frames where they are, by absolute path\n"
               "  --checkpoint-every N  change the checkpoint interval\n"
               "  --hash                print the hash of the final state as 16 hex digits\n");
}

typedef struct resume_options {
    const char* checkpoint;
    const char* out;
    int checkpoint_every; ///< -1 = keep the run's
    int steps;            ///< 0 = the run's total
    bool hash;
} resume_options;

static int parse_args(int argc, char** argv, resume_options* o) {
    memset(o, 0, sizeof *o);
    o->checkpoint_every = -1;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (cli_is_help(a)) {
            resume_usage(stdout);
            return 0;
        } else if (strcmp(a, "--steps") == 0) ok = cli_parse_int(a, v, &o->steps), ++i;
        else if (strcmp(a, "--checkpoint-every") == 0) ok = cli_parse_int(a, v, &o->checkpoint_every), ++i;
        else if (strcmp(a, "--out") == 0) {
            o->out = v, ++i;
            ok = v != NULL;
            if (!ok) fprintf(stderr, "tactus: --out expects a directory\n");
        } else if (strcmp(a, "--hash") == 0) o->hash = true;
        else if (a[0] == '-' || o->checkpoint) {
            fprintf(stderr, "tactus resume: unexpected argument '%s'\n", a);
            ok = false;
        } else o->checkpoint = a;
        if (!ok) return 2;
    }
    if (!o->checkpoint) {
        resume_usage(stderr);
        return 2;
    }
    return -1;
}

// With --out elsewhere: the new directory's .pvd lists the earlier frames by their absolute
// paths (they stay where the interrupted run wrote them; when that directory is gone it lists
// the resumed frames only), and a checkpoint at the run's default place (DIR/checkpoint.tcck)
// moves to the new directory. The saved directory is absolute (tactus run saves it so).
// False when out of memory or a path does not fit.
static bool move_outputs(run_state* s, const char* new_dir) {
    char old_abs[2048], new_abs[2048], old_default[2100];
    if (!cli_absolute_path(s->dir, old_abs, sizeof old_abs) || !cli_absolute_path(new_dir, new_abs, sizeof new_abs)) return false;
    if (strcmp(old_abs, new_abs) == 0) return true;
    snprintf(old_default, sizeof old_default, "%s/checkpoint.tcck", old_abs);
    if (strcmp(s->checkpoint, old_default) == 0 &&
        (size_t)snprintf(s->checkpoint, sizeof s->checkpoint, "%s/checkpoint.tcck", new_dir) >= sizeof s->checkpoint)
        return false;
    if (s->frame_count > 0 && access(old_abs, F_OK) != 0) {
        fprintf(stderr, "tactus resume: the earlier frames' directory %s: %s; %s lists the resumed frames only\n", old_abs,
                strerror(errno), new_dir);
        for (int i = 0; i < s->frame_count; ++i) free(s->frames[i]);
        s->frame_count = 0;
    }
    for (int i = 0; i < s->frame_count; ++i) {
        if (s->frames[i][0] == '/') continue;
        size_t n = strlen(old_abs) + strlen(s->frames[i]) + 2;
        char* path = malloc(n);
        if (!path) return false;
        snprintf(path, n, "%s/%s", old_abs, s->frames[i]);
        free(s->frames[i]);
        s->frames[i] = path;
    }
    return true;
}

int tactus_cmd_resume(int argc, char** argv) {
    resume_options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    run_state s;
    memset(&s, 0, sizeof s);
    tc_error e;
    void* blob = NULL;
    size_t blob_size = 0;
    s.scene = tc_scene_resume(o.checkpoint, &blob, &blob_size, &e);
    if (!s.scene) {
        fprintf(stderr, "%s\n", e.message);
        return 1;
    }
    bool ok = run_state_load(&s, blob, blob_size);
    tc_checkpoint_free_extra(blob, blob_size);
    if (!ok) {
        fprintf(stderr, "%s: run: the checkpoint was not written by tactus run\n", o.checkpoint);
        run_state_free(&s);
        return 1;
    }
    if (o.steps > 0 && o.steps <= s.step) {
        fprintf(stderr, "tactus resume: --steps %d: the checkpoint is already at step %lld (give a later step)\n", o.steps,
                (long long)s.step);
        run_state_free(&s);
        return 2;
    }
    if (o.out && (strlen(o.out) >= sizeof s.dir || !cli_make_dirs(o.out) || !move_outputs(&s, o.out))) {
        fprintf(stderr, "tactus resume: cannot prepare the output directory %s\n", o.out);
        run_state_free(&s);
        return 1;
    }
    if (o.out) snprintf(s.dir, sizeof s.dir, "%s", o.out);
    if (o.checkpoint_every >= 0) s.checkpoint_every = o.checkpoint_every;
    if (o.steps > 0) s.total = o.steps;
    s.tty = isatty(fileno(stdout));
    printf("resuming %s at step %lld of %lld\n", tc_scene_file(s.scene), (long long)s.step, (long long)s.total);
    int status = cli_make_dirs(s.dir) ? run_loop(&s, o.hash) : 1;
    run_state_free(&s);
    return status;
}
