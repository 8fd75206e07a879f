// The rigid store's entry in the kind registry.
#include <stdio.h>
#include "dynamics/rigid/rigid.h"

void tc_rigid_remove_body(tc_world* w, int index);
void tc_rigid_destroy_store(tc_world* w);
void tc_rigid_write_state(const tc_world* w, struct tc_state_writer* out);
tc_result tc_rigid_read_state(tc_world* w, struct tc_state_reader* in, const char* file, tc_error* error);

static tc_rigid_body* body(const tc_world* w, int index) { return &tc_rigid_store_of(w)->bodies.data[index]; }

static void begin_step(tc_world* w, tc_real dt) { tc_rigid_contacts_begin_step(w, tc_rigid_store_of(w), dt); }

static void apply_forces(tc_world* w, tc_real h) {
    (void)h;
    tc_rigid_store* s = tc_rigid_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i) {
        tc_rigid_body* b = &s->bodies.data[i];
        b->force = tc_v3_add(b->user_force, b->lag_force);
        b->torque = tc_v3_add(b->user_torque, b->lag_torque);
        b->lag_force = b->lag_torque = tc_v3_zero();
    }
}

static void integrate(tc_world* w, tc_real h) { tc_rigid_contacts_substep(w, tc_rigid_store_of(w), h); }

static void end_step(tc_world* w, tc_real dt) {
    tc_rigid_store* s = tc_rigid_store_of(w);
    tc_rigid_contacts_end_step(w, s, dt);
    for (int i = 0; i < s->bodies.count; ++i) {
        s->bodies.data[i].user_force = tc_v3_zero();
        s->bodies.data[i].user_torque = tc_v3_zero();
    }
}

static tc_aabb body_aabb(const tc_world* w, int i) { return body(w, i)->aabb; }

static tc_real signed_distance_near(const tc_world* w, int i, tc_vec3 p, tc_real margin, tc_vec3* n) {
    const tc_rigid_body* b = body(w, i);
    if (!tc_aabb_contains_point(tc_aabb_inflate(b->aabb, margin), p)) return 1e300;
    return tc_rigid_signed_distance(b, p, n);
}

static tc_real signed_distance(const tc_world* w, int i, tc_vec3 p, tc_vec3* n) { return signed_distance_near(w, i, p, 1e-3, n); }

static tc_vec3 velocity_at(const tc_world* w, int i, int k, tc_vec3 p) {
    (void)k;
    return tc_rigid_velocity_at(body(w, i), p);
}

static void apply_point_force(tc_world* w, int i, int k, tc_vec3 p, tc_vec3 f) {
    (void)k;
    tc_rigid_body* b = body(w, i);
    if (tc_rigid_is_dynamic(b)) {
        tc_rigid_add_force_at(b, f, p);
        b->awake = true;
        b->sleep_time = 0;
    }
}

static tc_real contact_mass(const tc_world* w, int i, int k) {
    (void)k;
    return body(w, i)->mass;
}

static tc_material material(const tc_world* w, int i) { return body(w, i)->material; }

static void energy(const tc_world* w, int i, tc_real* ke, tc_real* pe) {
    const tc_rigid_body* b = body(w, i);
    if (!tc_rigid_is_dynamic(b)) return;
    tc_mat3 R = tc_quat_to_mat3(b->pose.q);
    tc_mat3 Iw = tc_mat3_mul(tc_mat3_mul(R, b->inertia_local), tc_mat3_transpose(R));
    *ke = 0.5 * b->mass * tc_v3_len2(b->v) + 0.5 * tc_v3_dot(b->w, tc_mat3_mul_v3(Iw, b->w));
    *pe = -b->mass * tc_v3_dot(w->def.gravity, b->com);
}

static uint64_t hash(const tc_world* w, int i, uint64_t h) {
    const tc_rigid_body* b = body(w, i);
    h = tc_hash_vec3(h, b->pose.p);
    h = tc_hash_quat(h, b->pose.q);
    h = tc_hash_vec3(h, b->v);
    return tc_hash_vec3(h, b->w);
}

static bool check_finite(const tc_world* w, int i, tc_error* e) {
    const tc_rigid_body* b = body(w, i);
    if (tc_v3_is_finite(b->pose.p) && tc_v3_is_finite(b->v) && tc_v3_is_finite(b->w) && isfinite(tc_quat_len(b->pose.q))) return true;
    tc_error_set(e, TC_RESULT_UNSTABLE, NULL, tc_world_slot_name(w, b->slot), "step %lld: rigid body state became non-finite",
                 (long long)w->step_index);
    return false;
}

// Rigid and quasi-rigid frames (both live in this store); static bodies take no forces.
tc_result tc_rigid_apply_user_force(tc_world* w, int i, tc_vec3 f, tc_vec3 p) {
    tc_rigid_body* b = body(w, i);
    if (!tc_rigid_is_dynamic(b)) return TC_RESULT_UNSUPPORTED;
    b->user_force = tc_v3_add(b->user_force, f);
    b->user_torque = tc_v3_add(b->user_torque, tc_v3_cross(tc_v3_sub(p, b->com), f));
    b->awake = true;
    b->sleep_time = 0;
    return TC_RESULT_OK;
}

static tc_transform pose(const tc_world* w, int i) { return body(w, i)->pose; }
static tc_vec3 linear_velocity(const tc_world* w, int i) { return body(w, i)->v; }
static tc_vec3 angular_velocity(const tc_world* w, int i) { return body(w, i)->w; }
static tc_vec3 center_of_mass(const tc_world* w, int i) { return body(w, i)->com; }
static tc_real mass(const tc_world* w, int i) { return body(w, i)->mass; }

static bool ray_cast(const tc_world* w, int i, tc_vec3 o, tc_vec3 d, tc_real max_t, tc_real* t, tc_vec3* n) {
    const tc_rigid_body* b = body(w, i);
    bool hit = false;
    for (int s = 0; s < b->shape_count; ++s) {
        tc_real ts;
        tc_vec3 ns;
        if (tc_shape_ray_cast(&b->shapes[s], b->pose, o, d, max_t, &ts, &ns)) {
            max_t = ts;
            *t = ts;
            *n = ns;
            hit = true;
        }
    }
    return hit;
}

void tc_rigid_draw_body(const tc_world* w, int index, const tc_debug_draw* draw);

void tc_rigid_wake_all(tc_world* w) {
    tc_rigid_store* s = tc_rigid_store_of(w);
    for (int i = 0; s && i < s->bodies.count; ++i) {
        tc_rigid_body* b = &s->bodies.data[i];
        if (tc_rigid_is_dynamic(b)) b->awake = true, b->sleep_time = 0;
    }
}

tc_result tc_rigid_set_pose(tc_world* w, int i, tc_transform to) {
    tc_rigid_body* b = body(w, i);
    b->pose = to;
    b->lag_force = b->lag_torque = tc_v3_zero(); // a reaction from where it was
    tc_rigid_update_derived(b);
    // Whatever rested on the body at its old place, or sleeps where it lands, must move again:
    // a teleport is rare, so every sleeping body wakes rather than the touched islands only.
    tc_rigid_wake_all(w);
    return TC_RESULT_OK;
}

tc_result tc_rigid_set_velocity(tc_world* w, int i, tc_vec3 v, tc_vec3 omega) {
    tc_rigid_body* b = body(w, i);
    if (!tc_rigid_is_dynamic(b)) return TC_RESULT_UNSUPPORTED;
    b->v = v;
    b->w = omega;
    b->lag_force = b->lag_torque = tc_v3_zero(); // the velocity is set, reactions included
    b->awake = true;
    b->sleep_time = 0;
    return TC_RESULT_OK;
}

static void wake(tc_world* w, int i) {
    tc_rigid_body* b = body(w, i);
    if (tc_rigid_is_dynamic(b)) b->awake = true, b->sleep_time = 0;
}

bool tc_rigid_is_awake(const tc_world* w, int i) {
    const tc_rigid_body* b = body(w, i);
    return tc_rigid_is_dynamic(b) && b->awake;
}

const tc_kind_ops tc_rigid_kind_ops = {
    .name = "rigid",
    .destroy_store = tc_rigid_destroy_store,
    .remove_body = tc_rigid_remove_body,
    .begin_step = begin_step,
    .apply_forces = apply_forces,
    .integrate = integrate,
    .end_step = end_step,
    .body_aabb = body_aabb,
    .signed_distance = signed_distance,
    .signed_distance_near = signed_distance_near,
    .velocity_at = velocity_at,
    .apply_point_force = apply_point_force,
    .contact_mass = contact_mass,
    .material = material,
    .energy = energy,
    .hash = hash,
    .draw = tc_rigid_draw_body,
    .check_finite = check_finite,
    .pose = pose,
    .linear_velocity = linear_velocity,
    .angular_velocity = angular_velocity,
    .center_of_mass = center_of_mass,
    .mass = mass,
    .ray_cast = ray_cast,
    .apply_user_force = tc_rigid_apply_user_force,
    .set_pose = tc_rigid_set_pose,
    .set_velocity = tc_rigid_set_velocity,
    .wake_all = tc_rigid_wake_all,
    .is_awake = tc_rigid_is_awake,
    .wake = wake,
    .write_state = tc_rigid_write_state,
    .read_state = tc_rigid_read_state,
};
