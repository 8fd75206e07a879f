#define _POSIX_C_SOURCE 200809L
#include "run_state.h"
#include "cli_util.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

enum { k_blob_version = 1 };

void run_state_save(const run_state* s, tc_state_writer* out) {
    tc_state_write_i64(out, k_blob_version);
    // The directory and checkpoint path as absolute paths: a resume may run from another
    // working directory (and the earlier frames stay where they are).
    char dir[sizeof s->dir + 1024], checkpoint[sizeof s->checkpoint + 1024];
    tc_state_write_string(out, cli_absolute_path(s->dir, dir, sizeof dir) ? dir : s->dir);
    tc_state_write_string(out, s->stem);
    tc_state_write_string(out, cli_absolute_path(s->checkpoint, checkpoint, sizeof checkpoint) ? checkpoint : s->checkpoint);
    int64_t ints[5] = {s->step, s->total, s->every, s->checkpoint_every, s->frame_count};
    tc_state_write(out, ints, sizeof ints);
    tc_state_write_real(out, s->max_pen);
    for (int i = 0; i < s->frame_count; ++i) {
        tc_state_write_string(out, s->frames[i]);
        tc_state_write_real(out, s->times[i]);
    }
    tc_state_write_i64(out, (int64_t)s->csv.length);
    tc_state_write(out, s->csv.data, s->csv.length);
}

static bool read_into(tc_state_reader* in, char* out, size_t cap) {
    char* str = tc_state_read_string(in);
    bool ok = str && strlen(str) < cap;
    if (ok) memcpy(out, str, strlen(str) + 1);
    tc_free_string(str);
    return ok;
}

static bool load_frames(run_state* s, tc_state_reader* in, int64_t count) {
    s->frames = calloc((size_t)count + 1, sizeof *s->frames);
    s->times = calloc((size_t)count + 1, sizeof *s->times);
    if (!s->frames || !s->times) return false;
    s->frame_capacity = (int)count + 1;
    for (int64_t i = 0; i < count; ++i) {
        char* name = tc_state_read_string(in);
        if (!name) return false;
        s->frames[i] = strdup(name);
        tc_free_string(name);
        s->times[i] = tc_state_read_real(in);
        s->frame_count++;
        if (!s->frames[i]) return false;
    }
    return !in->failed;
}

bool run_state_load(run_state* s, const void* data, size_t size) {
    tc_state_reader in = {data, size, 0, false};
    if (tc_state_read_i64(&in) != k_blob_version) return false;
    if (!read_into(&in, s->dir, sizeof s->dir) || !read_into(&in, s->stem, sizeof s->stem) ||
        !read_into(&in, s->checkpoint, sizeof s->checkpoint))
        return false;
    int64_t ints[5];
    tc_state_read(&in, ints, sizeof ints);
    s->step = ints[0];
    s->total = ints[1];
    s->every = (int)ints[2];
    s->checkpoint_every = (int)ints[3];
    s->max_pen = tc_state_read_real(&in);
    if (in.failed || s->every <= 0 || ints[4] < 0 || ints[4] > INT32_MAX / 2 || s->step < 0 || s->step > s->total) return false;
    if (!load_frames(s, &in, ints[4])) return false;
    int64_t csv_length = tc_state_read_count(&in, 0, (int64_t)(in.size - in.pos));
    if (in.failed) return false;
    tc_strbuf_printf(&s->csv, "%.*s", (int)csv_length, (const char*)in.data + in.pos);
    return !s->csv.failed;
}

void run_state_free(run_state* s) {
    for (int i = 0; i < s->frame_count; ++i) free(s->frames[i]);
    free(s->frames);
    free(s->times);
    tc_strbuf_free(&s->csv);
    tc_scene_destroy(s->scene);
    memset(s, 0, sizeof *s);
}
