// Small builders for rigid scenario tests: worlds, ground planes, boxes and spheres.
#ifndef TC_RIGID_SCENE_UTIL_H
#define TC_RIGID_SCENE_UTIL_H
#include "tc_test.h"

static inline tc_world* rs_world(tc_position_correction pc) {
    tc_world_def d = tc_world_def_default();
    d.position_correction = pc;
    tc_world* w = tc_world_create(&d, NULL);
    assert_non_null(w);
    return w;
}

static inline tc_body_id rs_plane(tc_world* w, tc_vec3 n, tc_real friction) {
    tc_shape_def s = tc_shape_def_default(TC_SHAPE_PLANE);
    s.plane_normal = n;
    tc_rigid_body_def d = tc_rigid_body_def_default();
    d.is_static = true;
    d.shapes = &s;
    d.shape_count = 1;
    d.base.material.friction = friction;
    d.base.name = "ground";
    tc_body_id id;
    assert_int_equal(tc_rigid_body_create(w, &d, &id, NULL), TC_RESULT_OK);
    return id;
}

static inline tc_body_id rs_body(tc_world* w, tc_shape_def s, tc_vec3 p, tc_quat q, tc_real friction, tc_real restitution,
                                  tc_contact_method method) {
    tc_rigid_body_def d = tc_rigid_body_def_default();
    d.shapes = &s;
    d.shape_count = 1;
    d.base.pose.p = p;
    d.base.pose.q = q;
    d.base.material.friction = friction;
    d.base.material.restitution = restitution;
    d.contact_method = method;
    tc_body_id id;
    tc_error e;
    assert_int_equal(tc_rigid_body_create(w, &d, &id, &e), TC_RESULT_OK);
    return id;
}

/// A rigid body of one shape at p: static, or free with velocity v (default material).
static inline tc_body_id rs_moving(tc_world* w, tc_shape_def s, tc_vec3 p, tc_vec3 v, bool is_static) {
    tc_rigid_body_def d = tc_rigid_body_def_default();
    d.shapes = &s;
    d.shape_count = 1;
    d.is_static = is_static;
    d.base.pose.p = p;
    d.base.linear_velocity = v;
    tc_body_id id;
    tc_error e;
    assert_int_equal(tc_rigid_body_create(w, &d, &id, &e), TC_RESULT_OK);
    return id;
}

static inline tc_shape_def rs_box(tc_vec3 h) {
    tc_shape_def s = tc_shape_def_default(TC_SHAPE_BOX);
    s.half_extents = h;
    return s;
}

static inline tc_shape_def rs_sphere(tc_real r) {
    tc_shape_def s = tc_shape_def_default(TC_SHAPE_SPHERE);
    s.radius = r;
    return s;
}

static inline void rs_steps(tc_world* w, int n) {
    tc_error e;
    for (int i = 0; i < n; ++i) assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
}
#endif
