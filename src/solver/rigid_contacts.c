// Rigid contact pipeline: broadphase, narrowphase and the PGS solver drive these hooks.
#include "dynamics/rigid/rigid.h"

static void refresh_bounds(tc_rigid_store* s) {
    for (int i = 0; i < s->bodies.count; ++i) tc_rigid_update_derived(&s->bodies.data[i]);
}

void tc_rigid_contacts_begin_step(tc_world* w, tc_rigid_store* s, tc_real dt) {
    (void)w;
    (void)dt;
    refresh_bounds(s);
}

void tc_rigid_contacts_substep(tc_world* w, tc_rigid_store* s, tc_real h) {
    for (int i = 0; i < s->bodies.count; ++i) tc_rigid_integrate_velocity(&s->bodies.data[i], w->def.gravity, h);
    for (int i = 0; i < s->bodies.count; ++i) tc_rigid_integrate_position(&s->bodies.data[i], h);
}

void tc_rigid_contacts_end_step(tc_world* w, tc_rigid_store* s, tc_real dt) {
    (void)w;
    (void)s;
    (void)dt;
}

void tc_rigid_contacts_destroy(tc_rigid_store* s) { (void)s; }
void tc_rigid_contacts_body_removed(tc_rigid_store* s, int index, int moved_from) {
    (void)s;
    (void)index;
    (void)moved_from;
}

// This pipeline keeps no state between steps yet: nothing to checkpoint.
void tc_rigid_contacts_write_state(const tc_rigid_store* s, struct tc_state_writer* out) {
    (void)s;
    (void)out;
}

tc_result tc_rigid_contacts_read_state(tc_rigid_store* s, struct tc_state_reader* in, const char* file, tc_error* error) {
    (void)s;
    (void)in;
    (void)file;
    (void)error;
    return TC_RESULT_OK;
}
