// Checkpoint files: header, the scene's text, application data, the world state, a trailer and
// an FNV-1a checksum of everything before it.
// Resuming rebuilds the scene from its text, replays the body removals of the steps already
// taken, restores the state and checks the restored world's hash against the recorded one.
#include "io/scene_internal.h"
#include "tactus/checkpoint.h"
#include "tactus/io.h"
#include "world/state_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char k_magic[8] = {'T', 'A', 'C', 'T', 'U', 'S', 'C', 'K'};
// 2: the quasi-rigid stats gained cg_steps and fallbacks (and are written field by field)
// 3: tet bodies keep a third earlier velocity change (dv_prev2, the CG's warm start)
// 4: quasi-rigid bodies keep the energy ledgers of their open contacts (the passivity cap)
enum { k_version = 5 };
static const int64_t k_byte_order = 0x0102030405060708;
static const int64_t k_trailer = 0x444E454B43435454; // "TTCCKEND" read backwards

static void write_header(const tc_scene* s, tc_state_writer* out, const void* extra, size_t extra_size) {
    tc_world* w = s->world;
    tc_state_write(out, k_magic, sizeof k_magic);
    tc_state_write_i64(out, k_version);
    tc_state_write_i64(out, k_byte_order);
    tc_state_write_i64(out, (int64_t)sizeof(tc_real));
    tc_state_write_string(out, tc_version_string());
    tc_state_write_string(out, s->file);
    tc_state_write_string(out, s->dir);
    tc_state_write_string(out, s->text);
    tc_state_write_i64(out, s->thread_count);
    tc_state_write_i64(out, w->step_index);
    tc_state_write_i64(out, (int64_t)tc_world_hash(w));
    tc_state_write_i64(out, (int64_t)extra_size);
    if (extra_size) tc_state_write(out, extra, extra_size);
}

tc_result tc_scene_write_checkpoint(const tc_scene* s, const char* path, const void* extra, size_t extra_size, tc_error* error) {
    if (!s || !path || (extra_size && !extra))
        return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, path, NULL, "scene, path and extra data are required");
    if (!s->text) return tc_error_set(error, TC_RESULT_UNSUPPORTED, path, NULL, "the scene was not loaded from JSON text");
    tc_state_writer out = {0};
    write_header(s, &out, extra, extra_size);
    tc_error inner;
    tc_result r = tc_world_write_state(s->world, &out, &inner);
    if (r) tc_error_set(error, r, path, NULL, "%s", inner.message); // "<path>: world: <problem>"
    if (!r) {
        tc_state_write_i64(&out, k_trailer);
        tc_state_write_i64(&out, (int64_t)tc_hash_bytes(TC_HASH_SEED, out.data, out.size)); // the checksum
        r = out.failed ? tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, path, NULL, "out of memory")
                       : tc_write_file_atomic(path, out.data, out.size, error);
    }
    tc_state_writer_free(&out);
    return r;
}

static uint8_t* read_whole_file(const char* path, size_t* size, tc_error* error) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        tc_error_set(error, TC_RESULT_IO, path, NULL, "cannot open the checkpoint");
        return NULL;
    }
    uint8_t* data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            uint8_t* grown = realloc(data, cap);
            if (!grown) break;
            data = grown;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        if (got == 0) break;
        n += got;
    }
    bool ok = !ferror(f) && data;
    fclose(f);
    if (!ok) {
        free(data);
        tc_error_set(error, TC_RESULT_IO, path, NULL, "cannot read the checkpoint");
        return NULL;
    }
    *size = n;
    return data;
}

typedef struct header {
    char *version, *file, *dir, *text;
    int64_t threads, steps, hash, extra_size;
    const uint8_t* extra;
} header;

static void header_free(header* h) {
    tc_free_string(h->version);
    tc_free_string(h->file);
    tc_free_string(h->dir);
    tc_free_string(h->text);
}

static tc_result read_header(tc_state_reader* in, const char* path, header* h, tc_error* error) {
    char magic[8];
    tc_state_read(in, magic, sizeof magic);
    if (in->failed || memcmp(magic, k_magic, sizeof magic) != 0)
        return tc_error_set(error, TC_RESULT_PARSE, path, "header", "not a Tactus checkpoint");
    int64_t version = tc_state_read_i64(in), order = tc_state_read_i64(in), real_size = tc_state_read_i64(in);
    if (version != k_version || order != k_byte_order || real_size != (int64_t)sizeof(tc_real))
        return tc_error_set(error, TC_RESULT_UNSUPPORTED, path, "header",
                            "checkpoint format version %lld from another machine kind or build (this build reads version %d)",
                            (long long)version, k_version);
    h->version = tc_state_read_string(in);
    h->file = tc_state_read_string(in);
    h->dir = tc_state_read_string(in);
    h->text = tc_state_read_string(in);
    h->threads = tc_state_read_count(in, 0, 4096);
    h->steps = tc_state_read_count(in, 0, INT64_MAX);
    h->hash = tc_state_read_i64(in);
    h->extra_size = tc_state_read_count(in, 0, (int64_t)(in->size - in->pos));
    h->extra = in->data + in->pos;
    in->pos += in->failed ? 0 : (size_t)h->extra_size;
    if (in->failed) return tc_error_set(error, TC_RESULT_PARSE, path, "header", "truncated checkpoint");
    if (strcmp(h->version, tc_version_string()) != 0)
        return tc_error_set(error, TC_RESULT_UNSUPPORTED, path, "header", "written by Tactus %s, this is %s", h->version,
                            tc_version_string());
    return TC_RESULT_OK;
}

static tc_result restore(tc_scene* s, tc_state_reader* in, const char* path, const header* h, tc_error* error) {
    tc_result r = tc_scene_replay_removals(s, h->steps, error);
    if (!r) r = tc_world_read_state(s->world, in, path, error);
    if (!r && tc_state_read_i64(in) != k_trailer)
        r = tc_error_set(error, TC_RESULT_PARSE, path, "trailer", "truncated or corrupt checkpoint");
    if (!r && (int64_t)tc_world_hash(s->world) != h->hash)
        r = tc_error_set(error, TC_RESULT_PARSE, path, "world", "the restored state's hash differs from the recorded one");
    return r;
}

tc_scene* tc_scene_resume(const char* path, void** extra, size_t* extra_size, tc_error* error) {
    tc_error local;
    if (!error) error = &local;
    tc_error_clear(error);
    if (!path) {
        tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, NULL, NULL, "checkpoint path is NULL");
        return NULL;
    }
    size_t size = 0;
    uint8_t* data = read_whole_file(path, &size, error);
    if (!data) return NULL;
    int64_t sum = 0;
    if (size >= sizeof sum) memcpy(&sum, data + size - sizeof sum, sizeof sum);
    if (size >= sizeof k_magic && memcmp(data, k_magic, sizeof k_magic) == 0 &&
        (size < sizeof sum || (int64_t)tc_hash_bytes(TC_HASH_SEED, data, size - sizeof sum) != sum)) {
        tc_error_set(error, TC_RESULT_PARSE, path, "checksum", "truncated or damaged checkpoint (checksum mismatch)");
        free(data);
        return NULL;
    }
    tc_state_reader in = {data, size - (size >= sizeof sum ? sizeof sum : 0), 0, false};
    header h = {0};
    tc_scene* s = NULL;
    if (!read_header(&in, path, &h, error)) s = tc_scene_load_text(h.text, h.file, h.dir, (int)h.threads, error);
    if (s && restore(s, &in, path, &h, error) != TC_RESULT_OK) {
        tc_scene_destroy(s);
        s = NULL;
    }
    if (s && extra) {
        *extra = h.extra_size ? tc_alloc((size_t)h.extra_size) : NULL;
        if (h.extra_size && !*extra) {
            tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, path, NULL, "out of memory");
            tc_scene_destroy(s);
            s = NULL;
        } else if (h.extra_size) {
            memcpy(*extra, h.extra, (size_t)h.extra_size);
        }
        if (extra_size) *extra_size = s ? (size_t)h.extra_size : 0;
    }
    header_free(&h);
    free(data);
    return s;
}

void tc_checkpoint_free_extra(void* extra, size_t extra_size) { tc_free(extra, extra_size); }
