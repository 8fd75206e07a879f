// World lifetime, body slots and the step pipeline.
#include <stdatomic.h>
#include <stdio.h>
#include "core/parallel.h"
#include "world/world_internal.h"

static _Atomic uint16_t s_world_serial;

// A real field of tc_world_def and its range as docs/scene-format.md gives it: finite, >= lo
// (> lo when lo_open), <= hi.
typedef struct world_real_field {
    const char* path;
    tc_real value;
    tc_real lo, hi;
    bool lo_open;
} world_real_field;

static tc_result check_real_field(const world_real_field* f, tc_error* e) {
    bool above = f->lo_open ? f->value > f->lo : f->value >= f->lo;
    if (isfinite(f->value) && above && f->value <= f->hi) return TC_RESULT_OK;
    if (f->hi < INFINITY)
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, f->path, "must be in [%g, %g] (got %g)", f->lo, f->hi, f->value);
    return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, f->path, "must be finite and %s %g (got %g)", f->lo_open ? ">" : ">=",
                        f->lo, f->value);
}

static tc_result check_world_def(const tc_world_def* d, tc_error* e) {
    if (!d) return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "world", "def is NULL");
    if (d->internal_value != TC_DEF_COOKIE)
        return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "world", "def was not made by tc_world_def_default()");
    if (!tc_v3_is_finite(d->gravity)) return tc_error_set(e, TC_RESULT_NOT_FINITE, NULL, "world.gravity", "gravity is not finite");
    if (d->sub_steps < 1 || d->sub_steps > 1000)
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "world.sub_steps", "sub-steps must be in 1..1000 (got %d)", d->sub_steps);
    if (d->solver_iterations < 1 || d->solver_iterations > 10000)
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "world.solver_iterations", "solver iterations must be in 1..10000 (got %d)", d->solver_iterations);
    if (d->thread_count < 1 || d->thread_count > 256)
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "world.threads", "thread count must be in 1..256 (got %d)", d->thread_count);
    if ((int)d->position_correction < (int)TC_CORRECTION_SOFT_STEP || (int)d->position_correction > (int)TC_CORRECTION_SPLIT_IMPULSE)
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "world.position_correction", "unknown scheme %d", (int)d->position_correction);
    const world_real_field fields[] = {
        {"world.time_step", d->time_step, 0, INFINITY, true},
        {"world.contact_hertz", d->contact_hertz, 0, INFINITY, true},
        {"world.contact_damping_ratio", d->contact_damping_ratio, 0, INFINITY, false},
        {"world.contact_push_max_velocity", d->contact_push_max_velocity, 0, INFINITY, true},
        {"world.restitution_threshold", d->restitution_threshold, 0, INFINITY, false},
        {"world.linear_slop", d->linear_slop, 0, INFINITY, false},
        {"world.baumgarte", d->baumgarte, 0, 1, false},
        {"world.penalty_hertz", d->penalty_hertz, 0, INFINITY, true},
        {"world.penalty_damping_ratio", d->penalty_damping_ratio, 0, INFINITY, false},
        {"world.sleep_time", d->sleep_time, 0, INFINITY, false},
        {"world.energy_limit", d->energy_limit, 0, INFINITY, false},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
        tc_result r = check_real_field(&fields[i], e);
        if (r != TC_RESULT_OK) return r;
    }
    return TC_RESULT_OK;
}

tc_world* tc_world_create(const tc_world_def* def, tc_error* error) {
    if (check_world_def(def, error) != TC_RESULT_OK) return NULL;
    tc_world* w = tc_calloc(1, sizeof *w);
    if (!w) {
        tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, "world", "out of memory");
        return NULL;
    }
    w->def = *def;
    if (def->thread_count > 1 && !tc_parallel_enabled())
        tc_log(TC_LOG_INFO, TC_RESULT_OK, "world.threads = %d: this build has no OpenMP, the step runs on one thread", def->thread_count);
    uint16_t serial = (uint16_t)(atomic_fetch_add(&s_world_serial, 1) + 1);
    w->serial = serial ? serial : 1; // 0 is the null id's world
    w->free_head = -1;
    return w;
}

void tc_world_destroy(tc_world* w) {
    if (!w) return;
    for (int k = 0; k < TC_BODY_KIND_COUNT; ++k) {
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)k);
        if (w->stores[k] && ops && ops->destroy_store) ops->destroy_store(w);
    }
    for (int i = 0; i < w->slots.count; ++i) tc_free_string(w->slots.data[i].name);
    tc_array_free(&w->slots);
    tc_name_index_free(&w->names);
    tc_array_free(&w->contacts);
    tc_free(w, sizeof *w);
}

tc_world_def tc_world_get_def(const tc_world* w) { return w->def; }
tc_result tc_world_set_gravity(tc_world* w, tc_vec3 g) {
    if (!w) return TC_RESULT_INVALID_ARGUMENT;
    tc_result r = tc_world_check_unlocked(w);
    if (r != TC_RESULT_OK) return r;
    if (!tc_v3_is_finite(g)) return TC_RESULT_NOT_FINITE;
    bool changed = g.x != w->def.gravity.x || g.y != w->def.gravity.y || g.z != w->def.gravity.z;
    w->def.gravity = g;
    if (!changed) return TC_RESULT_OK;
    // A body asleep under the old gravity is not at rest under the new one.
    for (int k = 0; k < TC_BODY_KIND_COUNT; ++k) {
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)k);
        if (w->stores[k] && ops && ops->wake_all) ops->wake_all(w);
    }
    return TC_RESULT_OK;
}

tc_result tc_world_check_unlocked(const tc_world* w) {
    if (w->locked) {
        tc_log(TC_LOG_ERROR, TC_RESULT_WORLD_LOCKED, "the world cannot be changed during a step");
        return TC_RESULT_WORLD_LOCKED;
    }
    return TC_RESULT_OK;
}

static const char* slot_name_of(const void* world, int32_t slot) { return tc_world_slot_name(world, slot); }

tc_result tc_world_alloc_body(tc_world* w, tc_body_kind kind, int index, const char* name, void* user_data, tc_body_id* id) {
    int32_t slot;
    if (w->free_head >= 0) {
        slot = w->free_head;
        w->free_head = w->slots.data[slot].next_free;
    } else {
        tc_body_slot fresh = {0};
        fresh.generation = 1;
        if (!tc_array_push(&w->slots, fresh)) return TC_RESULT_OUT_OF_MEMORY;
        slot = w->slots.count - 1;
    }
    tc_body_slot* s = &w->slots.data[slot];
    s->alive = true;
    s->kind = (uint8_t)kind;
    s->index = index;
    s->next_free = -1;
    s->name = tc_strdup(name ? name : "");
    s->user_data = user_data;
    if (!tc_name_index_insert(&w->names, w, slot_name_of, slot)) {
        tc_free_string(s->name);
        s->name = NULL;
        s->alive = false;
        s->next_free = w->free_head;
        w->free_head = slot;
        return TC_RESULT_OUT_OF_MEMORY;
    }
    w->body_count++;
    *id = tc_world_slot_id(w, slot);
    return TC_RESULT_OK;
}

tc_body_id tc_world_slot_id(const tc_world* w, int32_t slot) {
    const tc_body_slot* s = &w->slots.data[slot];
    tc_body_id id = {slot + 1, s->generation, w->serial, s->kind, 0};
    return id;
}

tc_body_slot* tc_world_resolve(const tc_world* w, tc_body_id id) {
    if (!w) return NULL;
    int32_t slot = id.index1 - 1;
    if (id.world != w->serial || slot < 0 || slot >= w->slots.count || !w->slots.data[slot].alive ||
        w->slots.data[slot].generation != id.generation) {
        tc_log(TC_LOG_WARNING, TC_RESULT_STALE_ID, "body id {%d, %u, world %u} is stale or foreign", id.index1, id.generation, id.world);
        return NULL;
    }
    return &w->slots.data[slot];
}

bool tc_body_is_valid(const tc_world* w, tc_body_id id) {
    if (!w) return false;
    int32_t slot = id.index1 - 1;
    return id.world == w->serial && slot >= 0 && slot < w->slots.count && w->slots.data[slot].alive &&
           w->slots.data[slot].generation == id.generation;
}

void tc_world_body_moved(tc_world* w, int32_t slot, int new_index) { w->slots.data[slot].index = new_index; }

void* tc_world_store(tc_world* w, tc_body_kind kind, size_t size) {
    if (!w->stores[kind]) w->stores[kind] = tc_calloc(1, size);
    return w->stores[kind];
}

const char* tc_world_slot_name(const tc_world* w, int32_t slot) {
    const char* n = w->slots.data[slot].name;
    return n ? n : "";
}

tc_result tc_body_destroy(tc_world* w, tc_body_id id) {
    tc_body_slot* s = tc_world_resolve(w, id);
    if (!s) return TC_RESULT_STALE_ID;
    tc_result r = tc_world_check_unlocked(w);
    if (r != TC_RESULT_OK) return r;
    tc_world_release_body(w, id);
    return TC_RESULT_OK;
}

void tc_world_release_body(tc_world* w, tc_body_id id) {
    tc_body_slot* s = &w->slots.data[id.index1 - 1];
    const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)s->kind);
    if (ops && ops->remove_body) ops->remove_body(w, s->index);
    tc_name_index_remove(&w->names, w, slot_name_of, id.index1 - 1);
    s = &w->slots.data[id.index1 - 1];
    tc_free_string(s->name);
    s->name = NULL;
    s->alive = false;
    s->generation++;
    s->next_free = w->free_head;
    w->free_head = id.index1 - 1;
    w->body_count--;
}

void tc_world_add_contact(tc_world* w, const tc_contact* c) {
    if (!tc_array_push(&w->contacts, *c)) tc_world_out_of_memory(w, "world: out of memory for the contact records (%d kept)", w->contacts.count);
}

void tc_world_out_of_memory(tc_world* w, const char* fmt, ...) {
    char text[sizeof w->oom_message];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    int expected = 0; // the first report wins; it is logged by tc_world_step (the log need not be thread-safe)
    if (atomic_compare_exchange_strong(&w->oom_reported, &expected, 1)) memcpy(w->oom_message, text, sizeof text);
}

const tc_contact* tc_world_get_contacts(const tc_world* w, int* count) {
    if (count) *count = w->contacts.count;
    return w->contacts.data;
}

int tc_world_get_body_count(const tc_world* w) { return w ? w->body_count : 0; }

int tc_world_get_bodies(const tc_world* w, tc_body_id* out, int capacity) {
    int n = 0;
    for (int i = 0; i < w->slots.count; ++i) {
        if (!w->slots.data[i].alive) continue;
        if (n < capacity && out) out[n] = tc_world_slot_id(w, i);
        n++;
    }
    return n;
}

tc_body_id tc_world_find_body(const tc_world* w, const char* name) {
    int32_t slot = w ? tc_name_index_find(&w->names, w, slot_name_of, name) : -1;
    return slot >= 0 ? tc_world_slot_id(w, slot) : TC_NULL_BODY;
}

// ---- the step pipeline ------------------------------------------------------------------------

typedef void stage_fn(tc_world* w, tc_real h);

static void run_stage(tc_world* w, tc_real h, size_t hook_offset) {
    for (int k = 0; k < TC_BODY_KIND_COUNT; ++k) {
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)k);
        if (!ops || !w->stores[k] || k == TC_BODY_STATIC) continue; // static bodies live in the rigid store
        stage_fn* fn = *(stage_fn* const*)((const char*)ops + hook_offset);
        if (fn) fn(w, h);
    }
}

#define RUN_STAGE(w, h, hook) run_stage((w), (h), offsetof(tc_kind_ops, hook))

static void update_stats(tc_world* w, double wall) {
    tc_world_stats* s = &w->stats;
    s->step = w->step_index;
    s->time = w->time;
    s->body_count = w->body_count;
    s->contact_count = w->contacts.count;
    s->max_penetration = 0;
    for (int i = 0; i < w->contacts.count; ++i)
        if (-w->contacts.data[i].separation > s->max_penetration) s->max_penetration = -w->contacts.data[i].separation;
    s->kinetic_energy = s->potential_energy = 0;
    s->awake_body_count = 0;
    for (int i = 0; i < w->slots.count; ++i) {
        const tc_body_slot* b = &w->slots.data[i];
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)b->kind);
        if (b->alive && ops) s->awake_body_count += ops->is_awake ? ops->is_awake(w, b->index) : 1;
        if (!b->alive || !ops || !ops->energy) continue;
        tc_real ke = 0, pe = 0;
        ops->energy(w, b->index, &ke, &pe);
        s->kinetic_energy += ke;
        s->potential_energy += pe;
    }
    s->step_wall_time = wall;
}

static tc_result check_state(tc_world* w, tc_error* error) {
    for (int i = 0; i < w->slots.count; ++i) {
        const tc_body_slot* b = &w->slots.data[i];
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)b->kind);
        if (!b->alive || !ops || !ops->check_finite) continue;
        if (!ops->check_finite(w, b->index, error)) return TC_RESULT_UNSTABLE;
    }
    // An explosion shows as kinetic energy; the potential energy's zero is arbitrary.
    tc_real ke = w->stats.kinetic_energy;
    if (!isfinite(ke) || !isfinite(w->stats.potential_energy))
        return tc_error_set(error, TC_RESULT_UNSTABLE, NULL, "world", "step %lld: energy is not finite", (long long)w->step_index);
    if (w->def.energy_limit > 0 && ke > w->def.energy_limit)
        return tc_error_set(error, TC_RESULT_UNSTABLE, NULL, "world", "step %lld: kinetic energy %g J exceeds the limit %g J",
                            (long long)w->step_index, ke, w->def.energy_limit);
    return TC_RESULT_OK;
}

tc_result tc_world_step(tc_world* w, tc_error* error) {
    if (!w) return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, NULL, "world", "world is NULL");
    tc_result r = tc_world_check_unlocked(w);
    if (r != TC_RESULT_OK) return r;
    double t0 = tc_wall_time();
    w->locked = true;
    atomic_store(&w->oom_reported, 0);
    tc_real dt = w->def.time_step, h = dt / w->def.sub_steps;
    tc_array_clear(&w->contacts);
    tc_coupling_wake_near(w, dt);
    RUN_STAGE(w, dt, begin_step);
    for (int s = 0; s < w->def.sub_steps; ++s) {
        RUN_STAGE(w, h, apply_forces);
        RUN_STAGE(w, h, collide);
        tc_coupling_penalty_sdf(w, h);
        RUN_STAGE(w, h, integrate);
        w->substep_index++;
    }
    RUN_STAGE(w, dt, end_step);
    w->time += dt;
    w->step_index++;
    w->locked = false;
    update_stats(w, tc_wall_time() - t0);
    bool oom = atomic_load(&w->oom_reported);
    if (oom) tc_log(TC_LOG_ERROR, TC_RESULT_OUT_OF_MEMORY, "step %lld: %s", (long long)w->step_index, w->oom_message);
    r = check_state(w, error);
    if (r != TC_RESULT_OK || !oom) return r;
    return tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, NULL, "step %lld: %s", (long long)w->step_index, w->oom_message);
}

tc_world_stats tc_world_get_stats(const tc_world* w) { return w->stats; }

uint64_t tc_world_hash(const tc_world* w) {
    uint64_t h = TC_HASH_SEED;
    h = tc_hash_bytes(h, &w->step_index, sizeof w->step_index);
    for (int i = 0; i < w->slots.count; ++i) {
        const tc_body_slot* b = &w->slots.data[i];
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)b->kind);
        if (!b->alive) continue;
        h = tc_hash_bytes(h, &i, sizeof i);
        if (ops && ops->hash) h = ops->hash(w, b->index, h);
    }
    return h;
}

// Bounding boxes of the deformable kinds (rigid bodies draw their own, per body and shape).
static void draw_box(const tc_debug_draw* d, tc_aabb b) {
    tc_color c = {0.3f, 0.9f, 0.3f, 1};
    for (int i = 0; i < 8; ++i)
        for (int k = 0; k < 3; ++k) {
            int j = i | (1 << k);
            if (j == i) continue;
            tc_vec3 p = tc_v3(i & 1 ? b.hi.x : b.lo.x, i & 2 ? b.hi.y : b.lo.y, i & 4 ? b.hi.z : b.lo.z);
            tc_vec3 q = tc_v3(j & 1 ? b.hi.x : b.lo.x, j & 2 ? b.hi.y : b.lo.y, j & 4 ? b.hi.z : b.lo.z);
            d->draw_line(p, q, c, d->context);
        }
}

void tc_world_draw(const tc_world* w, const tc_debug_draw* draw) {
    for (int i = 0; i < w->slots.count; ++i) {
        const tc_body_slot* b = &w->slots.data[i];
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)b->kind);
        if (b->alive && ops && ops->draw) ops->draw(w, b->index, draw);
        bool deformable = b->kind == TC_BODY_TET || b->kind == TC_BODY_POINTS || b->kind == TC_BODY_SPRINGS;
        if (b->alive && deformable && draw->draw_aabbs && draw->draw_line && ops->body_aabb) draw_box(draw, ops->body_aabb(w, b->index));
    }
    if (draw->draw_penetration && draw->draw_line) { // depth vectors, magnified 10x to be seen
        tc_color magenta = {1, 0.2f, 1, 1};
        for (int i = 0; i < w->contacts.count; ++i) {
            const tc_contact* c = &w->contacts.data[i];
            if (c->separation < 0) draw->draw_line(c->point, tc_v3_madd(c->point, 10 * c->separation, c->normal), magenta, draw->context);
        }
    }
    if (draw->draw_contacts && draw->draw_line) {
        tc_color red = {1, 0.2f, 0.2f, 1}, yellow = {1, 1, 0.2f, 1};
        for (int i = 0; i < w->contacts.count; ++i) {
            const tc_contact* c = &w->contacts.data[i];
            if (draw->draw_point) draw->draw_point(c->point, 6, red, draw->context);
            draw->draw_line(c->point, tc_v3_madd(c->point, 0.1, c->normal), yellow, draw->context);
        }
    }
}

// ---- per-body queries dispatched to the kind -----------------------------------------------

#define KIND_QUERY(w, id, hook, fallback)                                             \
    do {                                                                                \
        const tc_body_slot* s_ = tc_world_resolve((w), (id));                           \
        const tc_kind_ops* ops_ = s_ ? tc_kind_ops_of((tc_body_kind)s_->kind) : NULL;   \
        if (!ops_ || !ops_->hook) return (fallback);                                    \
        return ops_->hook((w), s_->index);                                               \
    } while (0)

tc_body_kind tc_body_get_kind(const tc_world* w, tc_body_id id) {
    const tc_body_slot* s = tc_world_resolve(w, id);
    return s ? (tc_body_kind)s->kind : TC_BODY_KIND_COUNT;
}

const char* tc_body_get_name(const tc_world* w, tc_body_id id) {
    const tc_body_slot* s = tc_world_resolve(w, id);
    return s ? tc_world_slot_name(w, id.index1 - 1) : "";
}

tc_transform tc_body_get_pose(const tc_world* w, tc_body_id id) { KIND_QUERY(w, id, pose, tc_transform_identity()); }
tc_vec3 tc_body_get_linear_velocity(const tc_world* w, tc_body_id id) { KIND_QUERY(w, id, linear_velocity, tc_v3_zero()); }
tc_vec3 tc_body_get_angular_velocity(const tc_world* w, tc_body_id id) { KIND_QUERY(w, id, angular_velocity, tc_v3_zero()); }
tc_vec3 tc_body_get_center_of_mass(const tc_world* w, tc_body_id id) { KIND_QUERY(w, id, center_of_mass, tc_v3_zero()); }
tc_real tc_body_get_mass(const tc_world* w, tc_body_id id) { KIND_QUERY(w, id, mass, 0); }

tc_result tc_body_apply_force(tc_world* w, tc_body_id id, tc_vec3 f, tc_vec3 p) {
    tc_body_slot* s = tc_world_resolve(w, id);
    if (!s) return TC_RESULT_STALE_ID;
    if (!tc_v3_is_finite(f) || !tc_v3_is_finite(p)) return TC_RESULT_NOT_FINITE;
    const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)s->kind);
    return ops && ops->apply_user_force ? ops->apply_user_force(w, s->index, f, p) : TC_RESULT_UNSUPPORTED;
}
tc_aabb tc_body_get_aabb(const tc_world* w, tc_body_id id) { KIND_QUERY(w, id, body_aabb, tc_aabb_empty()); }

tc_result tc_body_set_pose(tc_world* w, tc_body_id id, tc_transform pose) {
    tc_body_slot* s = tc_world_resolve(w, id);
    if (!s) return TC_RESULT_STALE_ID;
    tc_result r = tc_world_check_unlocked(w);
    if (r != TC_RESULT_OK) return r;
    tc_real qlen = tc_quat_len(pose.q);
    if (!tc_v3_is_finite(pose.p) || !isfinite(qlen)) return TC_RESULT_NOT_FINITE;
    if (!(qlen > 1e-12)) return TC_RESULT_INVALID_ARGUMENT;
    pose.q = tc_quat_normalize(pose.q);
    const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)s->kind);
    return ops && ops->set_pose ? ops->set_pose(w, s->index, pose) : TC_RESULT_UNSUPPORTED;
}

tc_result tc_body_set_velocity(tc_world* w, tc_body_id id, tc_vec3 linear, tc_vec3 angular) {
    tc_body_slot* s = tc_world_resolve(w, id);
    if (!s) return TC_RESULT_STALE_ID;
    tc_result r = tc_world_check_unlocked(w);
    if (r != TC_RESULT_OK) return r;
    if (!tc_v3_is_finite(linear) || !tc_v3_is_finite(angular)) return TC_RESULT_NOT_FINITE;
    const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)s->kind);
    return ops && ops->set_velocity ? ops->set_velocity(w, s->index, linear, angular) : TC_RESULT_UNSUPPORTED;
}

tc_aabb tc_world_get_bounds(const tc_world* w) {
    tc_aabb b = tc_aabb_empty();
    for (int i = 0; i < w->slots.count; ++i) {
        const tc_body_slot* s = &w->slots.data[i];
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)s->kind);
        if (!s->alive || !ops || !ops->body_aabb) continue;
        tc_aabb a = ops->body_aabb(w, s->index);
        if (a.hi.x - a.lo.x > 1e9) continue; // planes
        b = tc_aabb_union(b, a);
    }
    return b;
}

tc_body_id tc_world_ray_cast(const tc_world* w, tc_vec3 o, tc_vec3 d, tc_real max_t, tc_real* out_t, tc_vec3* out_n) {
    tc_body_id best = TC_NULL_BODY;
    tc_real best_t = max_t;
    for (int i = 0; i < w->slots.count; ++i) {
        const tc_body_slot* s = &w->slots.data[i];
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)s->kind);
        tc_real t;
        tc_vec3 n;
        if (!s->alive || !ops || !ops->ray_cast) continue;
        if (ops->ray_cast(w, s->index, o, d, best_t, &t, &n) && t <= best_t) {
            best_t = t;
            best = tc_world_slot_id(w, i);
            if (out_n) *out_n = n;
        }
    }
    if (out_t) *out_t = best_t;
    return best;
}
