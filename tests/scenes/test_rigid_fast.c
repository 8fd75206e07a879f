// Fast rigid bodies against thin static walls and each other: the broadphase grows each box by
// the distance the body travels in the step and the contacts are speculative, so a body stops at
// the surface instead of tunnelling (docs/rigid.md, The solver).
#include "rigid_scene_util.h"

// A 2 cm ball or a 4 cm cube at `speed` towards a 1 cm static wall (the ball crosses several
// wall thicknesses per sub-step): it stays on its side and comes back or stops.
static void fire_at_wall(tc_shape_type type, tc_real speed) {
    tc_world_def wd = tc_world_def_default();
    wd.gravity = tc_v3_zero();
    tc_world* w = tc_world_create(&wd, NULL);
    rs_moving(w, rs_box(tc_v3(0.5, 0.5, 0.005)), tc_v3(0, 0, 1), tc_v3_zero(), true);
    tc_shape_def s = type == TC_SHAPE_SPHERE ? rs_sphere(0.02) : rs_box(tc_v3(0.02, 0.02, 0.02));
    tc_body_id b = rs_moving(w, s, tc_v3(0.01, -0.02, 0), tc_v3(0, 0, speed), false);
    tc_real furthest = -INFINITY;
    for (int i = 0; i < 60; ++i) {
        assert_int_equal(tc_world_step(w, NULL), TC_RESULT_OK);
        furthest = fmax(furthest, tc_body_get_center_of_mass(w, b).z);
    }
    tc_real vz = tc_body_get_linear_velocity(w, b).z;
    print_message("%s at %3.0f m/s: centre reached %.4f m (wall face at 0.995, touching at 0.975), now at %.2f m/s\n",
                  type == TC_SHAPE_SPHERE ? "ball" : "cube", speed, furthest, vz);
    assert_true(furthest < 0.995); // never inside the wall
    assert_true(vz < 0.05);         // stopped or sent back, not through
    tc_world_destroy(w);
}

static void test_fast_bodies_do_not_tunnel_through_thin_wall(void** state) {
    (void)state;
    const tc_real speeds[] = {10, 50, 200};
    for (int i = 0; i < 3; ++i) {
        fire_at_wall(TC_SHAPE_SPHERE, speeds[i]);
        fire_at_wall(TC_SHAPE_BOX, speeds[i]);
    }
}

// Two 2 cm balls closing at 100 m/s head on: they never pass through each other.
static void test_fast_balls_do_not_pass_through_each_other(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    wd.gravity = tc_v3_zero();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_body_id a = rs_moving(w, rs_sphere(0.02), tc_v3(0, 0, 0), tc_v3(0, 0, 50), false);
    tc_body_id b = rs_moving(w, rs_sphere(0.02), tc_v3(0.005, 0, 1), tc_v3(0, 0, -50), false);
    tc_real gap = INFINITY;
    for (int i = 0; i < 60; ++i) {
        assert_int_equal(tc_world_step(w, NULL), TC_RESULT_OK);
        gap = fmin(gap, tc_body_get_center_of_mass(w, b).z - tc_body_get_center_of_mass(w, a).z);
    }
    print_message("balls at 100 m/s closing: smallest centre gap along z %.4f m (touching at <= 0.04)\n", gap);
    assert_true(gap > 0); // b stays above a
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_fast_bodies_do_not_tunnel_through_thin_wall, tc_test_setup_log),
        cmocka_unit_test_setup(test_fast_balls_do_not_pass_through_each_other, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
