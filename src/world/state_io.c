#include "world/state_io.h"

#include <string.h>

void tc_state_write(tc_state_writer* w, const void* data, size_t size) {
    if (w->failed) return;
    if (w->size + size > w->capacity) {
        size_t cap = w->capacity ? w->capacity : 4096;
        while (cap < w->size + size) cap *= 2;
        uint8_t* grown = tc_alloc(cap);
        if (!grown) {
            w->failed = true;
            return;
        }
        if (w->size) memcpy(grown, w->data, w->size);
        tc_free(w->data, w->capacity);
        w->data = grown;
        w->capacity = cap;
    }
    memcpy(w->data + w->size, data, size);
    w->size += size;
}

void tc_state_write_i64(tc_state_writer* w, int64_t v) { tc_state_write(w, &v, sizeof v); }
void tc_state_write_real(tc_state_writer* w, tc_real v) { tc_state_write(w, &v, sizeof v); }
void tc_state_write_vec3(tc_state_writer* w, tc_vec3 v) { tc_state_write(w, &v, sizeof v); }
void tc_state_write_quat(tc_state_writer* w, tc_quat q) { tc_state_write(w, &q, sizeof q); }

void tc_state_write_string(tc_state_writer* w, const char* s) {
    size_t n = s ? strlen(s) : 0;
    tc_state_write_i64(w, (int64_t)n);
    if (n) tc_state_write(w, s, n);
}

void tc_state_writer_free(tc_state_writer* w) {
    tc_free(w->data, w->capacity);
    *w = (tc_state_writer){0};
}

bool tc_state_read(tc_state_reader* r, void* out, size_t size) {
    if (r->failed || size > r->size - r->pos) {
        r->failed = true;
        memset(out, 0, size);
        return false;
    }
    memcpy(out, r->data + r->pos, size);
    r->pos += size;
    return true;
}

int64_t tc_state_read_i64(tc_state_reader* r) {
    int64_t v;
    tc_state_read(r, &v, sizeof v);
    return v;
}

tc_real tc_state_read_real(tc_state_reader* r) {
    tc_real v;
    tc_state_read(r, &v, sizeof v);
    return v;
}

tc_vec3 tc_state_read_vec3(tc_state_reader* r) {
    tc_vec3 v;
    tc_state_read(r, &v, sizeof v);
    return v;
}

tc_quat tc_state_read_quat(tc_state_reader* r) {
    tc_quat q;
    tc_state_read(r, &q, sizeof q);
    return q;
}

int64_t tc_state_read_count(tc_state_reader* r, int64_t lo, int64_t hi) {
    int64_t v = tc_state_read_i64(r);
    if (v < lo || v > hi) {
        r->failed = true;
        return lo;
    }
    return v;
}

char* tc_state_read_string(tc_state_reader* r) {
    int64_t n = tc_state_read_count(r, 0, (int64_t)(r->size - r->pos));
    if (r->failed) return NULL;
    char* s = tc_alloc((size_t)n + 1);
    if (!s) {
        r->failed = true;
        return NULL;
    }
    tc_state_read(r, s, (size_t)n);
    s[n] = '\0';
    return s;
}

// ---- the world ---------------------------------------------------------------------------------

static const char* kind_label(int k) {
    const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)k);
    return ops && ops->name ? ops->name : "unknown";
}

static void write_slots(const tc_world* w, tc_state_writer* out) {
    tc_state_write_i64(out, w->slots.count);
    tc_state_write_i64(out, w->free_head);
    tc_state_write_i64(out, w->body_count);
    for (int i = 0; i < w->slots.count; ++i) {
        const tc_body_slot* s = &w->slots.data[i];
        int64_t packed[5] = {s->generation, s->next_free, s->kind, s->alive, s->index};
        tc_state_write(out, packed, sizeof packed);
    }
}

tc_result tc_world_write_state(const tc_world* w, tc_state_writer* out, tc_error* error) {
    for (int k = 0; k < TC_BODY_KIND_COUNT; ++k) {
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)k);
        if (w->stores[k] && k != TC_BODY_STATIC && (!ops || !ops->write_state || !ops->read_state))
            return tc_error_set(error, TC_RESULT_UNSUPPORTED, NULL, "world",
                                "%s bodies cannot be checkpointed yet", kind_label(k));
        tc_result r = w->stores[k] && ops && ops->check_state ? ops->check_state(w, error) : TC_RESULT_OK;
        if (r) return r;
    }
    tc_state_write_real(out, w->time);
    tc_state_write_i64(out, w->step_index);
    tc_state_write_i64(out, w->substep_index);
    tc_state_write(out, &w->stats, sizeof w->stats); // events read the clock from the stats
    write_slots(w, out);
    for (int k = 0; k < TC_BODY_KIND_COUNT; ++k) {
        if (!w->stores[k] || k == TC_BODY_STATIC) continue;
        tc_state_write_i64(out, k); // section tag: a reader checks the kinds line up
        tc_kind_ops_of((tc_body_kind)k)->write_state(w, out);
    }
    tc_state_write_i64(out, -1);
    return out->failed ? tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, "world", "out of memory") : TC_RESULT_OK;
}

// The rebuilt world must hold the same bodies in the same store places, else the state
// would land on the wrong bodies.
static tc_result check_slots(const tc_world* w, tc_state_reader* in, const char* file, tc_error* error) {
    int64_t count = tc_state_read_count(in, 0, INT32_MAX);
    int64_t free_head = tc_state_read_i64(in), bodies = tc_state_read_i64(in);
    if (in->failed || count != w->slots.count || free_head != w->free_head || bodies != w->body_count)
        return tc_error_set(error, TC_RESULT_PARSE, file, "world.slots",
                            "the checkpoint's %lld body slots do not match the scene's %d", (long long)count, w->slots.count);
    for (int i = 0; i < w->slots.count; ++i) {
        const tc_body_slot* s = &w->slots.data[i];
        int64_t p[5];
        tc_state_read(in, p, sizeof p);
        if (in->failed || p[0] != s->generation || p[1] != s->next_free || p[2] != s->kind || p[3] != s->alive ||
            p[4] != s->index)
            return tc_error_set(error, TC_RESULT_PARSE, file, "world.slots", "body slot %d (\"%s\") does not match the scene", i,
                                tc_world_slot_name(w, i));
    }
    return TC_RESULT_OK;
}

tc_result tc_world_read_state(tc_world* w, tc_state_reader* in, const char* file, tc_error* error) {
    tc_real time = tc_state_read_real(in);
    int64_t step = tc_state_read_i64(in), substep = tc_state_read_i64(in);
    tc_world_stats stats;
    tc_state_read(in, &stats, sizeof stats);
    tc_result r = check_slots(w, in, file, error);
    if (r) return r;
    for (int k = 0; k < TC_BODY_KIND_COUNT; ++k) {
        if (!w->stores[k] || k == TC_BODY_STATIC) continue;
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)k);
        if (tc_state_read_i64(in) != k || !ops->read_state)
            return tc_error_set(error, TC_RESULT_PARSE, file, "world", "missing the state of the %s bodies", kind_label(k));
        if ((r = ops->read_state(w, in, file, error))) return r;
    }
    if (tc_state_read_i64(in) != -1 || in->failed)
        return tc_error_set(error, TC_RESULT_PARSE, file, "world", "truncated or corrupt body state");
    w->time = time;
    w->step_index = step;
    w->substep_index = substep;
    w->stats = stats;
    return TC_RESULT_OK;
}
