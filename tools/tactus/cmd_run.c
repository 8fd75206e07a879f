// tactus run: steps a scene headless and writes a VTK series, metrics.csv and a summary.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>
#include "cli_util.h"
#include "commands.h"
#include "io/strbuf.h"
#include "run_state.h"
#include "tactus/tactus.h"

typedef struct run_options {
    const char* scene;
    double time;     ///< s, 0 = scene default
    int steps;       ///< 0 = from time
    const char* out; ///< NULL = out/<scene stem>
    int threads;     ///< 0 = scene value
    int every;       ///< 0 = scene default
    double time_scale;     ///< multiplies the scene's run.time (soak runs), 0 = 1
    int checkpoint_every;  ///< 0 = no checkpoints
    const char* checkpoint; ///< NULL = DIR/checkpoint.tcck
    bool hash;
} run_options;

static void run_usage(FILE* f) {
    fprintf(f, "usage: tactus run SCENE [--time T | --steps N] [--out DIR] [--threads N] [--every K] [--hash]\n"
               "                 [--checkpoint-every N [--checkpoint FILE]]\n\n"
               "  --time T     simulated seconds (default: the scene's run.time); rounded to whole\n"
               "               steps, at least one\n"
               "  --steps N    number of steps instead of --time\n"
               "  --time-scale K  run K times the scene's run.time (soak tests)\n"
               "  --out DIR    output directory (default: out/STEM for SCENE = path/STEM.json)\n"
               "  --threads N  threads for the step's parallel loops, 1 to 256 (default: the scene's\n"
               "               world.threads; the results are the same for every N)\n"
               "  --every K    write a frame every K steps (default: the scene's run.every)\n"
               "  --hash       print the hash of the final state as 16 hex digits\n"
               "  --checkpoint-every N  write the whole state every N steps (atomically; resume with\n"
               "               tactus resume FILE)\n"
               "  --checkpoint FILE     where (default DIR/checkpoint.tcck)\n\n"
               "Writes DIR/<scene>.pvd + DIR/frame_NNNNNN.vtp (ParaView) and DIR/metrics.csv; with quasi-rigid\n"
               "bodies also DIR/tractions.csv (last traction and displacement per sample). Frame files of an\n"
               "earlier run in DIR numbered past this run's last frame are removed.\n");
}

/// Returns -1 to continue, else the exit status.
static int parse_args(int argc, char** argv, run_options* o) {
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (cli_is_help(a)) {
            run_usage(stdout);
            return 0;
        } else if (strcmp(a, "--time") == 0) ok = cli_parse_real(a, v, &o->time), ++i;
        else if (strcmp(a, "--steps") == 0) ok = cli_parse_int(a, v, &o->steps), ++i;
        else if (strcmp(a, "--threads") == 0) {
            ok = cli_parse_int(a, v, &o->threads), ++i;
            if (ok && o->threads > 256) { // the range of world.threads, named here as the flag
                fprintf(stderr, "tactus: --threads must be in [1, 256] (got %d)\n", o->threads);
                ok = false;
            }
        }
        else if (strcmp(a, "--every") == 0) ok = cli_parse_int(a, v, &o->every), ++i;
        else if (strcmp(a, "--time-scale") == 0) ok = cli_parse_real(a, v, &o->time_scale), ++i;
        else if (strcmp(a, "--checkpoint-every") == 0) ok = cli_parse_int(a, v, &o->checkpoint_every), ++i;
        else if (strcmp(a, "--checkpoint") == 0) {
            o->checkpoint = v, ++i;
            ok = v != NULL;
            if (!ok) fprintf(stderr, "tactus: --checkpoint expects a file\n");
        }
        else if (strcmp(a, "--out") == 0) {
            o->out = v, ++i;
            ok = v != NULL;
            if (!ok) fprintf(stderr, "tactus: --out expects a directory\n");
        } else if (strcmp(a, "--hash") == 0) o->hash = true;
        else if (a[0] == '-' || o->scene) {
            fprintf(stderr, "tactus run: unexpected argument '%s'\n", a);
            ok = false;
        } else o->scene = a;
        if (!ok) return 2;
    }
    if (!o->scene) {
        run_usage(stderr);
        return 2;
    }
    if ((o->time > 0) + (o->steps > 0) + (o->time_scale > 0) > 1) {
        fprintf(stderr, "tactus run: give one of --time, --steps and --time-scale\n");
        return 2;
    }
    return -1;
}

/// "scenes/default.json" -> "default".
static void scene_stem(const char* path, char* out, size_t n) {
    const char* base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out, n, "%s", base);
    char* dot = strrchr(out, '.');
    if (dot && dot != out) *dot = '\0';
}


static bool write_frame(run_state* s) {
    if (s->frame_count == s->frame_capacity) {
        int cap = s->frame_capacity ? 2 * s->frame_capacity : 64;
        char** f = realloc(s->frames, sizeof *f * (size_t)cap);
        tc_real* t = realloc(s->times, sizeof *t * (size_t)cap);
        if (!f || !t) {
            free(f ? f : s->frames);
            free(t ? t : s->times);
            s->frames = NULL;
            s->times = NULL;
            return false;
        }
        s->frames = f;
        s->times = t;
        s->frame_capacity = cap;
    }
    char name[64], path[1200];
    snprintf(name, sizeof name, "frame_%06d.vtp", s->frame_count);
    snprintf(path, sizeof path, "%s/%s", s->dir, name);
    tc_error e;
    if (tc_vtk_write_world(tc_scene_world(s->scene), path, &e) != TC_RESULT_OK) {
        fprintf(stderr, "tactus: %s\n", e.message);
        return false;
    }
    s->frames[s->frame_count] = strdup(name);
    s->times[s->frame_count] = tc_world_get_stats(tc_scene_world(s->scene)).time;
    s->frame_count++;
    return true;
}

static void csv_header(run_state* s) {
    tc_strbuf_printf(&s->csv, "time,kinetic_energy,potential_energy,contact_count,max_penetration,step_wall_time");
    for (int i = 0; i < tc_scene_metric_count(s->scene); ++i) tc_strbuf_printf(&s->csv, ",%s", tc_scene_metric_label(s->scene, i));
    tc_strbuf_printf(&s->csv, "\n");
}

static void csv_row(run_state* s) {
    tc_world_stats st = tc_world_get_stats(tc_scene_world(s->scene));
    tc_strbuf_printf(&s->csv, "%.9g,%.9g,%.9g,%d,%.9g,%.6g", st.time, st.kinetic_energy, st.potential_energy,
                     st.contact_count, st.max_penetration, st.step_wall_time);
    for (int i = 0; i < tc_scene_metric_count(s->scene); ++i)
        tc_strbuf_printf(&s->csv, ",%.9g", tc_scene_metric_value(s->scene, i));
    tc_strbuf_printf(&s->csv, "\n");
}

static void progress(const run_state* s, int64_t step, int64_t total) {
    tc_real t = tc_world_get_stats(tc_scene_world(s->scene)).time;
    if (s->tty) {
        int width = 40, filled = (int)(width * step / (total > 0 ? total : 1));
        printf("\r[%.*s%*s] %3d%%  t = %.3f s", filled, "########################################", width - filled, "",
               (int)(100 * step / (total > 0 ? total : 1)), t);
        if (step == total) printf("\n");
        fflush(stdout);
    } else if (total >= 10 ? step % (total / 10) == 0 || step == total : true) {
        printf("step %lld/%lld  t = %.4f s\n", (long long)step, (long long)total, t);
    }
}

/// Every quasi-rigid sample's last normal traction (Pa) and layer displacement (m), for
/// tools/quasi/traction_map.py. Returns the number of samples written (0: no quasi body).
static int quasi_tractions_csv(tc_world* w, tc_strbuf* b) {
    int n = tc_world_get_body_count(w), rows = 0;
    tc_body_id* ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
    n = ids ? tc_world_get_bodies(w, ids, n) : 0;
    tc_strbuf_printf(b, "body,x,y,z,traction,displacement\n");
    for (int i = 0; i < n; ++i) {
        if (tc_body_get_kind(w, ids[i]) != TC_BODY_QUASI) continue;
        int m = tc_quasi_body_get_sample_count(w, ids[i]);
        tc_vec3* x = malloc((size_t)m * sizeof *x);
        tc_real* t = malloc((size_t)m * 2 * sizeof *t);
        if (x && t) {
            tc_quasi_body_get_samples(w, ids[i], x, NULL, m);
            tc_quasi_body_get_tractions(w, ids[i], t, t + m, m);
            for (int k = 0; k < m; ++k)
                tc_strbuf_printf(b, "%s,%.9g,%.9g,%.9g,%.9g,%.9g\n", tc_body_get_name(w, ids[i]), x[k].x, x[k].y, x[k].z, t[k], t[m + k]);
            rows += m;
        } else
            b->failed = true;
        free(x);
        free(t);
    }
    free(ids);
    return rows;
}

static bool write_tractions(run_state* s) {
    tc_strbuf b = {0};
    int rows = quasi_tractions_csv(tc_scene_world(s->scene), &b);
    char path[1400];
    tc_error e;
    bool ok = true;
    snprintf(path, sizeof path, "%s/tractions.csv", s->dir);
    if (rows > 0 && (b.failed || tc_write_file_atomic(path, b.data, b.length, &e) != TC_RESULT_OK)) {
        fprintf(stderr, "tactus: %s\n", b.failed ? "out of memory for tractions" : e.message);
        ok = false;
    }
    tc_strbuf_free(&b);
    return ok;
}

// True for a name this command gives frames ("frame_" six digits ".vtp"); *index its number.
static bool frame_name(const char* name, int* index) {
    if (strlen(name) != 16 || strncmp(name, "frame_", 6) != 0 || strcmp(name + 12, ".vtp") != 0) return false;
    *index = 0;
    for (int i = 6; i < 12; ++i) {
        if (name[i] < '0' || name[i] > '9') return false;
        *index = 10 * *index + (name[i] - '0');
    }
    return true;
}

// A run into a directory an earlier, longer run wrote leaves that run's later frames behind,
// and ParaView's "frame_..vtp" group would show them after this run's: they are removed (only
// files of this command's frame pattern numbered past the last frame written).
static void remove_stale_frames(const run_state* s) {
    DIR* d = opendir(s->dir);
    if (!d) return;
    int removed = 0, index;
    char path[1400];
    for (struct dirent* e; (e = readdir(d)) != NULL;) {
        if (!frame_name(e->d_name, &index) || index < s->frame_count) continue;
        snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name);
        removed += unlink(path) == 0;
    }
    closedir(d);
    if (removed > 0) printf("tactus: removed %d frame file%s of an earlier run from %s\n", removed, removed == 1 ? "" : "s", s->dir);
}

static bool write_outputs(run_state* s) {
    char path[1400];
    tc_error e;
    bool ok = write_tractions(s);
    snprintf(path, sizeof path, "%s/metrics.csv", s->dir);
    if (s->csv.failed || tc_write_file_atomic(path, s->csv.data, s->csv.length, &e) != TC_RESULT_OK) {
        fprintf(stderr, "tactus: %s\n", s->csv.failed ? "out of memory for metrics" : e.message);
        ok = false;
    }
    snprintf(path, sizeof path, "%s/%s.pvd", s->dir, s->stem);
    if (tc_vtk_write_pvd(path, (const char* const*)s->frames, s->times, s->frame_count, &e) != TC_RESULT_OK) {
        fprintf(stderr, "tactus: %s\n", e.message);
        ok = false;
    }
    remove_stale_frames(s);
    return ok;
}

/// Library heap bytes less the metrics buffer this command grows on purpose.
static int64_t world_heap(const run_state* s) { return tc_get_byte_count() - (int64_t)s->csv.capacity; }

static void summary(const run_state* s, int64_t steps, double wall, double max_pen) {
    tc_world* w = tc_scene_world(s->scene);
    tc_world_stats st = tc_world_get_stats(w);
    printf("tactus run %s\n", tc_scene_file(s->scene));
    printf("  steps            %lld\n", (long long)steps);
    printf("  simulated time   %.4f s\n", st.time);
    printf("  wall time        %.3f s (%.3f ms/step)\n", wall, steps ? 1e3 * wall / (double)steps : 0.0);
    printf("  bodies           %d\n", tc_world_get_body_count(w));
    printf("  contacts (last)  %d\n", st.contact_count);
    printf("  max penetration  %.6g m\n", max_pen);
    printf("  frames           %d\n", s->frame_count);
    printf("  heap             %.3f MB live (%.3f MB at 10%% of the run)\n", 1e-6 * (double)world_heap(s),
           1e-6 * (double)s->heap_early);
    printf("  output           %s/%s.pvd, %s/metrics.csv\n", s->dir, s->stem, s->dir);
}

static bool write_checkpoint(run_state* s) {
    tc_state_writer blob = {0};
    run_state_save(s, &blob);
    tc_error e;
    tc_result r = blob.failed ? TC_RESULT_OUT_OF_MEMORY
                              : tc_scene_write_checkpoint(s->scene, s->checkpoint, blob.data, blob.size, &e);
    tc_state_writer_free(&blob);
    if (r) fprintf(stderr, "%stactus: checkpoint: %s\n", s->tty ? "\n" : "", r == TC_RESULT_OUT_OF_MEMORY ? "out of memory" : e.message);
    return r == TC_RESULT_OK;
}

// SIGINT / SIGTERM only set this; the loop checks it between steps, so a run stops on a whole
// step and still writes its .pvd, metrics.csv (and a checkpoint when it writes them).
static volatile sig_atomic_t s_stop_signal;

static void on_stop_signal(int sig) { s_stop_signal = sig; }

static void catch_stop_signals(struct sigaction old[2]) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    s_stop_signal = 0;
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
}

static void restore_stop_signals(const struct sigaction old[2]) {
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
}

// Stopped by a signal: the last state as a frame (and checkpoint) unless just written; the
// conventional 128 + signal exit status.
static int stop_on_signal(run_state* s, int sig) {
    fprintf(stderr, "%stactus: %s at step %lld of %lld: stopping, writing the outputs\n", s->tty ? "\n" : "",
            sig == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)", (long long)s->step, (long long)s->total);
    if (s->step % s->every != 0) write_frame(s);
    if (s->checkpoint_every > 0 && s->step % s->checkpoint_every != 0) write_checkpoint(s);
    return 128 + sig;
}

// The library's message already names the step when the world failed a check ("world: step
// 12: ..."); otherwise (an event, say) say which step, counted the same way (1 = the first).
static void report_step_error(const run_state* s, const tc_error* e) {
    char step[64];
    snprintf(step, sizeof step, "step %lld: ", (long long)s->step + 1);
    bool named = strstr(e->message, step) != NULL;
    fprintf(stderr, "%stactus: %s%s\n", s->tty ? "\n" : "", named ? "" : step, e->message);
}

int run_loop(run_state* s, bool hash) {
    tc_world* w = tc_scene_world(s->scene);
    int status = 0;
    struct timespec t0, t1;
    struct sigaction old[2];
    catch_stop_signals(old);
    timespec_get(&t0, TIME_UTC);
    int64_t first = s->step;
    while (status == 0 && s->step < s->total && !s_stop_signal) {
        tc_error e;
        if (tc_scene_step(s->scene, &e) != TC_RESULT_OK) {
            report_step_error(s, &e);
            status = 1;
            break;
        }
        s->step++;
        if (s->step == first + (s->total - first) / 10) s->heap_early = world_heap(s);
        s->max_pen = fmax(s->max_pen, tc_world_get_stats(w).max_penetration);
        csv_row(s);
        if ((s->step % s->every == 0 || s->step == s->total) && !write_frame(s)) status = 1;
        if (status == 0 && s->checkpoint_every > 0 && s->step % s->checkpoint_every == 0 && !write_checkpoint(s)) status = 1;
        progress(s, s->step, s->total);
    }
    timespec_get(&t1, TIME_UTC);
    if (status == 0 && s_stop_signal) status = stop_on_signal(s, s_stop_signal);
    restore_stop_signals(old);
    if (!write_outputs(s) && status == 0) status = 1;
    summary(s, s->step - first, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), s->max_pen);
    if (hash) printf("hash %016llx\n", (unsigned long long)tc_world_hash(w));
    return status;
}

// The run's length and output settings; false (after a message) for a step count out of range.
static bool plan(run_state* s, const run_options* o) {
    tc_world* w = tc_scene_world(s->scene);
    tc_scene_run run = tc_scene_run_settings(s->scene);
    tc_real dt = tc_world_get_def(w).time_step;
    tc_real time = o->time > 0 ? o->time : run.time * (o->time_scale > 0 ? o->time_scale : 1);
    char what[128];
    if (o->time > 0) snprintf(what, sizeof what, "--time %g", o->time);
    else if (o->time_scale > 0) snprintf(what, sizeof what, "--time-scale %g (run.time %g s)", o->time_scale, run.time);
    else snprintf(what, sizeof what, "run.time");
    if (o->steps > 0) s->total = o->steps;
    else if (!cli_steps_for_time(what, time, dt, &s->total)) return false;
    s->every = o->every > 0 ? o->every : run.every;
    s->checkpoint_every = o->checkpoint_every;
    if (o->checkpoint) snprintf(s->checkpoint, sizeof s->checkpoint, "%s", o->checkpoint);
    else snprintf(s->checkpoint, sizeof s->checkpoint, "%s/checkpoint.tcck", s->dir);
    return true;
}

static int simulate(run_state* s, const run_options* o) {
    csv_header(s);
    csv_row(s);
    if (!write_frame(s)) return 1;
    return run_loop(s, o->hash);
}

int tactus_cmd_run(int argc, char** argv) {
    run_options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    run_state s;
    memset(&s, 0, sizeof s);
    tc_error e;
    s.scene = tc_scene_load_threads(o.scene, o.threads, &e);
    if (!s.scene) {
        fprintf(stderr, "%s\n", e.message);
        return 1;
    }
    scene_stem(o.scene, s.stem, sizeof s.stem);
    if (o.out) snprintf(s.dir, sizeof s.dir, "%s", o.out);
    else snprintf(s.dir, sizeof s.dir, "out/%s", s.stem);
    s.tty = isatty(fileno(stdout));
    int status = !plan(&s, &o) ? 2 : cli_make_dirs(s.dir) ? simulate(&s, &o) : 1;
    run_state_free(&s);
    return status;
}
