// Shared builders for the point-based scenario tests (C API; the JSON scenes mirror them).
#ifndef POINTS_SCENE_UTIL_H
#define POINTS_SCENE_UTIL_H
#include "tc_test.h"

static inline tc_body_id points_add_ground(tc_world* w) {
    tc_shape_def plane = tc_shape_def_default(TC_SHAPE_PLANE);
    tc_rigid_body_def g = tc_rigid_body_def_default();
    g.is_static = true;
    g.shapes = &plane;
    g.shape_count = 1;
    g.base.name = "ground";
    tc_body_id id;
    tc_error e;
    assert_int_equal(tc_rigid_body_create(w, &g, &id, &e), TC_RESULT_OK);
    return id;
}

static inline tc_body_id points_add(tc_world* w, const tc_points_body_def* d) {
    tc_body_id id;
    tc_error e;
    tc_result r = tc_points_body_create(w, d, &id, &e);
    if (r != TC_RESULT_OK) print_error("%s\n", e.message);
    assert_int_equal(r, TC_RESULT_OK);
    return id;
}

static inline void points_step(tc_world* w) {
    tc_error e;
    tc_result r = tc_world_step(w, &e);
    if (r != TC_RESULT_OK) print_error("%s\n", e.message);
    assert_int_equal(r, TC_RESULT_OK);
}

/// Contacts of the last step between bodies a and b (either order).
static inline int points_contacts_between(const tc_world* w, tc_body_id a, tc_body_id b) {
    int n, count = 0;
    const tc_contact* c = tc_world_get_contacts(w, &n);
    for (int i = 0; i < n; ++i)
        if ((tc_body_id_equal(c[i].body_a, a) && tc_body_id_equal(c[i].body_b, b)) ||
            (tc_body_id_equal(c[i].body_a, b) && tc_body_id_equal(c[i].body_b, a)))
            count++;
    return count;
}
#endif
