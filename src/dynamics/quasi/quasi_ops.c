// The quasi-rigid kind's entry in the registry. `index` is the body's rigid-store index.
#include "world/state_io.h"
#include <limits.h>
#include <math.h>
#include "dynamics/quasi/quasi.h"

void tc_quasi_remove_body(tc_world* w, int rigid_index);
void tc_quasi_destroy_store(tc_world* w);

static tc_rigid_body* rigid(const tc_world* w, int index) { return &tc_rigid_store_of(w)->bodies.data[index]; }

static tc_aabb body_aabb(const tc_world* w, int i) {
    const tc_quasi_body* q = tc_quasi_record(w, i);
    tc_transform pose = rigid(w, i)->pose;
    tc_aabb box = tc_aabb_empty();
    for (int c = 0; c < 8; ++c) {
        tc_vec3 corner = tc_v3(c & 1 ? q->local_box.hi.x : q->local_box.lo.x, c & 2 ? q->local_box.hi.y : q->local_box.lo.y,
                               c & 4 ? q->local_box.hi.z : q->local_box.lo.z);
        box = tc_aabb_add_point(box, tc_transform_point(pose, corner));
    }
    return box;
}

static tc_real signed_distance(const tc_world* w, int i, tc_vec3 p, tc_vec3* normal) {
    const tc_quasi_body* q = tc_quasi_record(w, i);
    tc_transform pose = rigid(w, i)->pose;
    if (!tc_aabb_contains_point(tc_aabb_inflate(body_aabb(w, i), 3 * q->cloud.h), p)) return 1e300;
    tc_vec3 nl;
    tc_real d = tc_pointset_signed_distance_any(&q->cloud, tc_transform_inv_point(pose, p), &nl);
    if (normal) *normal = tc_quat_rotate(pose.q, nl);
    return d;
}

static int surface_point_count(const tc_world* w, int i) { return tc_quasi_record(w, i)->cloud.count; }

static void surface_point(const tc_world* w, int i, int k, tc_vec3* p, tc_vec3* v, tc_real* mass) {
    const tc_quasi_body* q = tc_quasi_record(w, i);
    const tc_rigid_body* b = rigid(w, i);
    *p = tc_transform_point(b->pose, q->cloud.points[k]);
    *v = tc_rigid_velocity_at(b, *p);
    *mass = b->mass / q->cloud.count;
}

static tc_vec3 velocity_at(const tc_world* w, int i, int k, tc_vec3 p) {
    (void)k;
    return tc_rigid_velocity_at(rigid(w, i), p);
}

static void apply_point_force(tc_world* w, int i, int k, tc_vec3 p, tc_vec3 f) {
    (void)k;
    tc_rigid_add_force_at(rigid(w, i), f, p);
}

static tc_real contact_mass(const tc_world* w, int i, int k) {
    (void)k;
    return rigid(w, i)->mass;
}

static tc_material material(const tc_world* w, int i) { return rigid(w, i)->material; }

// The energy a quasi body's open contacts have taken from the frames, as far as it is held in this
// body's layer: a contact with a static or rigid body is held by this layer alone, one between two
// quasi bodies (its ledger kept by the body of lower index) by both layers, counted half each.
static tc_real ledgers_held(const tc_world* w, const tc_quasi_body* q) {
    const tc_quasi_store* s = tc_quasi_store_of(w);
    tc_real held = 0;
    for (int k = 0; k < q->ledgers.count; ++k) {
        const tc_quasi_ledger* led = &q->ledgers.data[k];
        const tc_body_slot* other = led->other_slot >= 0 && led->other_slot < w->slots.count ? &w->slots.data[led->other_slot] : NULL;
        bool shared = other && other->alive && other->kind == TC_BODY_QUASI;
        held += shared ? 0.5 * led->absorbed : led->absorbed;
    }
    for (int i = 0; i < s->bodies.count; ++i) {
        const tc_quasi_body* other = &s->bodies.data[i];
        if (other == q) continue;
        for (int k = 0; k < other->ledgers.count; ++k)
            if (other->ledgers.data[k].other_slot == q->slot) held += 0.5 * other->ledgers.data[k].absorbed;
    }
    return held;
}

// Kinetic + gravitational energy of the frame plus the layer's elastic energy ½ Σ p a u, counted
// only up to the kinetic energy its open contacts have taken from the frames (ledgers_held): the
// passivity cap (quasi_collide.c) gives back no more than that, so the rest (a deeper overlap than
// the frames paid for, reached within one coarse sub-step) never becomes motion.
static void energy(const tc_world* w, int i, tc_real* ke, tc_real* pe) {
    const tc_rigid_body* b = rigid(w, i);
    const tc_quasi_body* q = tc_quasi_record(w, i);
    tc_mat3 R = tc_quat_to_mat3(b->pose.q);
    tc_mat3 Iw = tc_mat3_mul(tc_mat3_mul(R, b->inertia_local), tc_mat3_transpose(R));
    *ke = 0.5 * b->mass * tc_v3_len2(b->v) + 0.5 * tc_v3_dot(b->w, tc_mat3_mul_v3(Iw, b->w));
    tc_real elastic = 0;
    for (int k = 0; k < q->cloud.count; ++k) elastic += 0.5 * q->traction[k] * q->areas[k] * q->displacement[k];
    elastic = fmin(elastic, ledgers_held(w, q));
    *pe = -b->mass * tc_v3_dot(w->def.gravity, b->com) + elastic;
}

static uint64_t hash(const tc_world* w, int i, uint64_t h) {
    const tc_rigid_body* b = rigid(w, i);
    const tc_quasi_body* q = tc_quasi_record(w, i);
    h = tc_hash_vec3(h, b->pose.p);
    h = tc_hash_quat(h, b->pose.q);
    h = tc_hash_vec3(h, b->v);
    h = tc_hash_vec3(h, b->w);
    for (int k = 0; k < q->cloud.count; ++k) h = tc_hash_real(h, q->traction[k]);
    return h;
}

static bool check_finite(const tc_world* w, int i, tc_error* e) {
    const tc_rigid_body* b = rigid(w, i);
    const tc_quasi_body* q = tc_quasi_record(w, i);
    if (tc_v3_is_finite(b->pose.p) && tc_v3_is_finite(b->v) && tc_v3_is_finite(b->w) && isfinite(tc_quat_len(b->pose.q)) &&
        tc_v3_is_finite(q->force) && tc_v3_is_finite(q->torque))
        return true;
    tc_error_set(e, TC_RESULT_UNSTABLE, NULL, tc_world_slot_name(w, b->slot), "step %lld: quasi-rigid body state became non-finite",
                 (long long)w->step_index);
    return false;
}

static tc_transform pose(const tc_world* w, int i) { return rigid(w, i)->pose; }
static tc_vec3 linear_velocity(const tc_world* w, int i) { return rigid(w, i)->v; }
static tc_vec3 angular_velocity(const tc_world* w, int i) { return rigid(w, i)->w; }
static tc_vec3 center_of_mass(const tc_world* w, int i) { return rigid(w, i)->com; }
static tc_real mass(const tc_world* w, int i) { return rigid(w, i)->mass; }

// Sphere tracing on the MLS distance, starting where the ray enters the sample box.
static bool ray_cast(const tc_world* w, int i, tc_vec3 o, tc_vec3 d, tc_real max_t, tc_real* t, tc_vec3* n) {
    const tc_quasi_body* q = tc_quasi_record(w, i);
    tc_aabb box = tc_aabb_inflate(body_aabb(w, i), q->cloud.h);
    tc_vec3 dir = tc_v3_normalize(d);
    tc_real len = tc_v3_len(d), s = 0, s_max = max_t * len;
    if (!(len > 0)) return false;
    for (int it = 0; it < 200 && s <= s_max; ++it) {
        tc_vec3 p = tc_v3_madd(o, s, dir);
        tc_real dist;
        if (!tc_aabb_contains_point(box, p)) {
            dist = fmax(q->spacing, 0.5 * tc_v3_dist(p, tc_v3_scale(tc_v3_add(box.lo, box.hi), 0.5)) - 0.5 * tc_v3_dist(box.lo, box.hi));
        } else {
            tc_vec3 nrm;
            dist = signed_distance(w, i, p, &nrm);
            if (dist < 1e-4 * q->spacing) {
                *t = s / len;
                *n = nrm;
                return true;
            }
            dist = fmin(dist, q->cloud.h); // the MLS distance is reliable only within its reach
        }
        s += dist;
    }
    return false;
}

// The stats field by field: the file layout does not follow the struct's (or its padding).
static void write_stats(struct tc_state_writer* out, const tc_quasi_stats* st) {
    tc_state_write_i64(out, st->active_nodes);
    tc_state_write_i64(out, st->contacts);
    tc_state_write_i64(out, st->pivots);
    tc_state_write_i64(out, st->cg_steps);
    tc_state_write_i64(out, st->fallbacks);
    tc_state_write_real(out, st->solve_time);
}

static void read_stats(struct tc_state_reader* in, tc_quasi_stats* st) {
    st->active_nodes = (int)tc_state_read_count(in, 0, INT_MAX);
    st->contacts = (int)tc_state_read_count(in, 0, INT_MAX);
    st->pivots = (int)tc_state_read_count(in, 0, INT_MAX);
    st->cg_steps = (int)tc_state_read_count(in, 0, INT_MAX);
    st->fallbacks = (int)tc_state_read_count(in, 0, INT_MAX);
    st->solve_time = tc_state_read_real(in);
}

// Checkpoints: the rigid frames are in the rigid store's state; here the layer's last
// tractions and displacements and the contact outputs, per record in store order.
static void write_state(const tc_world* w, struct tc_state_writer* out) {
    const tc_quasi_store* s = tc_quasi_store_of(w);
    tc_state_write_i64(out, s->bodies.count);
    for (int i = 0; i < s->bodies.count; ++i) {
        const tc_quasi_body* q = &s->bodies.data[i];
        tc_state_write_i64(out, q->cloud.count);
        tc_state_write(out, q->traction, (size_t)q->cloud.count * sizeof(tc_real));
        tc_state_write(out, q->displacement, (size_t)q->cloud.count * sizeof(tc_real));
        tc_state_write_vec3(out, q->force);
        tc_state_write_vec3(out, q->torque);
        write_stats(out, &q->stats);
        tc_state_write_i64(out, q->ledgers.count);
        for (int k = 0; k < q->ledgers.count; ++k) {
            tc_state_write_i64(out, q->ledgers.data[k].other_slot);
            tc_state_write_real(out, q->ledgers.data[k].absorbed);
        }
    }
}

static tc_result read_state(tc_world* w, struct tc_state_reader* in, const char* file, tc_error* e) {
    tc_quasi_store* s = tc_quasi_store_of(w);
    if (tc_state_read_i64(in) != s->bodies.count) return tc_error_set(e, TC_RESULT_PARSE, file, "quasi", "body count differs from the scene");
    for (int i = 0; i < s->bodies.count; ++i) {
        tc_quasi_body* q = &s->bodies.data[i];
        if (tc_state_read_i64(in) != q->cloud.count) return tc_error_set(e, TC_RESULT_PARSE, file, "quasi", "sample count differs from the scene");
        tc_state_read(in, q->traction, (size_t)q->cloud.count * sizeof(tc_real));
        tc_state_read(in, q->displacement, (size_t)q->cloud.count * sizeof(tc_real));
        q->force = tc_state_read_vec3(in);
        q->torque = tc_state_read_vec3(in);
        read_stats(in, &q->stats);
        int open = (int)tc_state_read_count(in, 0, INT_MAX);
        tc_array_clear(&q->ledgers);
        for (int k = 0; k < open && !in->failed; ++k) {
            tc_quasi_ledger led = {(int32_t)tc_state_read_count(in, 0, (int64_t)w->slots.count - 1), 1, 0};
            led.absorbed = tc_state_read_real(in);
            if (!tc_array_push(&q->ledgers, led)) return tc_error_set(e, TC_RESULT_OUT_OF_MEMORY, file, "quasi", "out of memory");
        }
    }
    return in->failed ? tc_error_set(e, TC_RESULT_PARSE, file, "quasi", "truncated quasi-rigid state") : TC_RESULT_OK;
}

const tc_kind_ops tc_quasi_kind_ops = {
    .name = "quasi",
    .destroy_store = tc_quasi_destroy_store,
    .remove_body = tc_quasi_remove_body,
    .collide = tc_quasi_collide_all,
    .body_aabb = body_aabb,
    .signed_distance = signed_distance,
    .surface_point_count = surface_point_count,
    .surface_point = surface_point,
    .velocity_at = velocity_at,
    .apply_point_force = apply_point_force,
    .contact_mass = contact_mass,
    .material = material,
    .energy = energy,
    .hash = hash,
    .draw = tc_quasi_draw_body,
    .check_finite = check_finite,
    .pose = pose,
    .linear_velocity = linear_velocity,
    .angular_velocity = angular_velocity,
    .center_of_mass = center_of_mass,
    .mass = mass,
    .ray_cast = ray_cast,
    .apply_user_force = tc_rigid_apply_user_force, // the frame is a rigid body of the rigid store
    .set_pose = tc_rigid_set_pose,                 // the samples live in the frame: they follow it
    .set_velocity = tc_rigid_set_velocity,
    .is_awake = tc_rigid_is_awake,
    .write_state = write_state,
    .read_state = read_state,
};
