// Default defs: one place for every default value (units in include/tactus/types.h).
#include "world/world_internal.h"

tc_world_def tc_world_def_default(void) {
    tc_world_def d;
    memset(&d, 0, sizeof d);
    d.gravity = tc_v3(0, 0, -9.81);
    d.time_step = 1.0 / 60.0;
    d.sub_steps = 4;
    d.solver_iterations = 4;
    d.thread_count = 1;
    d.position_correction = TC_CORRECTION_SOFT_STEP;
    d.contact_hertz = 60;
    d.contact_damping_ratio = 10;
    d.contact_push_max_velocity = 3;
    d.restitution_threshold = 1;
    d.linear_slop = 0.005;
    d.baumgarte = 0.2;
    d.penalty_hertz = 60;
    d.penalty_damping_ratio = 1;
    d.enable_sleep = true;
    d.sleep_time = 0.5;
    d.energy_limit = 0;
    d.internal_value = TC_DEF_COOKIE;
    return d;
}

tc_body_def tc_body_def_default(void) {
    tc_body_def d;
    memset(&d, 0, sizeof d);
    d.pose = tc_transform_identity();
    d.material.friction = 0.6;
    d.material.restitution = 0;
    return d;
}

tc_rigid_body_def tc_rigid_body_def_default(void) {
    tc_rigid_body_def d;
    memset(&d, 0, sizeof d);
    d.base = tc_body_def_default();
    d.contact_method = TC_CONTACT_GAUSS_MAP;
    d.allow_sleep = true;
    d.gyroscopic = true;
    d.internal_value = TC_DEF_COOKIE;
    return d;
}

tc_shape_def tc_shape_def_default(tc_shape_type type) {
    tc_shape_def d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.local = tc_transform_identity();
    d.radius = 0.5;
    d.half_extents = tc_v3(0.5, 0.5, 0.5);
    d.plane_normal = tc_v3(0, 0, 1);
    d.density = 1000;
    return d;
}

tc_debug_draw tc_debug_draw_default(void) {
    tc_debug_draw d;
    memset(&d, 0, sizeof d);
    d.draw_shapes = true;
    return d;
}

tc_color tc_color_map(double t) {
    // Piecewise-linear approximation of viridis (dark blue -> green -> yellow).
    static const float k[5][3] = {{0.267f, 0.005f, 0.329f}, {0.229f, 0.322f, 0.546f}, {0.128f, 0.567f, 0.551f},
                                  {0.369f, 0.789f, 0.383f}, {0.993f, 0.906f, 0.144f}};
    if (!(t > 0)) t = 0;
    if (t > 1) t = 1;
    double x = t * 4;
    int i = (int)x < 4 ? (int)x : 3;
    float f = (float)(x - i);
    tc_color c = {k[i][0] + f * (k[i + 1][0] - k[i][0]), k[i][1] + f * (k[i + 1][1] - k[i][1]),
                  k[i][2] + f * (k[i + 1][2] - k[i][2]), 1.0f};
    return c;
}
