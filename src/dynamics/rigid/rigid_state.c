// Checkpoint hooks of the rigid store: the dynamic state of every rigid, static and quasi-rigid
// frame in store order, then the contact pipeline's persistent state (warm-start impulses).
#include "dynamics/rigid/rigid.h"
#include "world/state_io.h"

void tc_rigid_write_state(const tc_world* w, tc_state_writer* out);
tc_result tc_rigid_read_state(tc_world* w, tc_state_reader* in, const char* file, tc_error* error);

static void write_body(const tc_rigid_body* b, tc_state_writer* out) {
    tc_state_write_vec3(out, b->pose.p);
    tc_state_write_quat(out, b->pose.q);
    tc_state_write_vec3(out, b->v);
    tc_state_write_vec3(out, b->w);
    tc_state_write_vec3(out, b->user_force);
    tc_state_write_vec3(out, b->user_torque);
    tc_state_write_vec3(out, b->lag_force);
    tc_state_write_vec3(out, b->lag_torque);
    tc_state_write_i64(out, b->wake_next);
    tc_state_write_i64(out, b->awake);
    tc_state_write_real(out, b->sleep_time);
}

static void read_body(tc_rigid_body* b, tc_state_reader* in) {
    b->pose.p = tc_state_read_vec3(in);
    b->pose.q = tc_state_read_quat(in);
    b->v = tc_state_read_vec3(in);
    b->w = tc_state_read_vec3(in);
    b->user_force = tc_state_read_vec3(in);
    b->user_torque = tc_state_read_vec3(in);
    b->lag_force = tc_state_read_vec3(in);
    b->lag_torque = tc_state_read_vec3(in);
    b->wake_next = tc_state_read_i64(in) != 0;
    b->awake = tc_state_read_i64(in) != 0;
    b->sleep_time = tc_state_read_real(in);
    tc_rigid_update_derived(b);
}

void tc_rigid_write_state(const tc_world* w, tc_state_writer* out) {
    const tc_rigid_store* s = tc_rigid_store_of(w);
    tc_state_write_i64(out, s->bodies.count);
    for (int i = 0; i < s->bodies.count; ++i) write_body(&s->bodies.data[i], out);
    tc_rigid_contacts_write_state(s, out);
}

tc_result tc_rigid_read_state(tc_world* w, tc_state_reader* in, const char* file, tc_error* error) {
    tc_rigid_store* s = tc_rigid_store_of(w);
    if (tc_state_read_i64(in) != s->bodies.count)
        return tc_error_set(error, TC_RESULT_PARSE, file, "rigid", "the checkpoint's rigid body count does not match the scene");
    for (int i = 0; i < s->bodies.count; ++i) read_body(&s->bodies.data[i], in);
    if (in->failed) return tc_error_set(error, TC_RESULT_PARSE, file, "rigid", "truncated rigid body state");
    for (int i = 0; i < s->bodies.count; ++i)
        if (!tc_v3_is_finite(s->bodies.data[i].pose.p) || !tc_v3_is_finite(s->bodies.data[i].v) ||
            !tc_v3_is_finite(s->bodies.data[i].w) || !(tc_quat_len(s->bodies.data[i].pose.q) > 0.5))
            return tc_error_set(error, TC_RESULT_NOT_FINITE, file, tc_world_slot_name(w, s->bodies.data[i].slot),
                                "the checkpoint holds a non-finite rigid body state");
    return tc_rigid_contacts_read_state(s, in, file, error);
}
