// The rigid contact solver against analytic facts (ALGORITHMS §3.6): resting penetration,
// inclines with and without sliding, restitution, momentum, stacks and sleeping.
#include "rigid_scene_util.h"

#include <stdio.h>

// Soft step: the steady penetration of a resting box is g / omega^2 with omega = 2 pi 60 Hz
// (static contacts at twice the 60 Hz default, capped at a quarter of the 240 Hz sub-step rate).
static void test_resting_penetration_soft_step(void** state) {
    (void)state;
    tc_world* w = rs_world(TC_CORRECTION_SOFT_STEP);
    rs_plane(w, tc_v3(0, 0, 1), 0.6);
    tc_body_id box = rs_body(w, rs_box(tc_v3(0.5, 0.5, 0.5)), tc_v3(0, 0, 0.5), tc_quat_identity(), 0.6, 0, TC_CONTACT_GAUSS_MAP);
    rs_steps(w, 120);
    tc_real pen = 0.5 - tc_body_get_pose(w, box).p.z, omega = 2 * TC_PI * 60;
    printf("soft step resting penetration %.4g m (g/omega^2 = %.4g m)\n", pen, 9.81 / (omega * omega));
    assert_near(pen, 9.81 / (omega * omega), 0.02 * 9.81 / (omega * omega));
    tc_world_destroy(w);
}

static void test_resting_penetration_baumgarte_and_split(void** state) {
    (void)state;
    tc_position_correction modes[2] = {TC_CORRECTION_BAUMGARTE, TC_CORRECTION_SPLIT_IMPULSE};
    for (int m = 0; m < 2; ++m) {
        tc_world* w = rs_world(modes[m]);
        rs_plane(w, tc_v3(0, 0, 1), 0.6);
        tc_body_id box = rs_body(w, rs_box(tc_v3(0.5, 0.5, 0.5)), tc_v3(0, 0, 0.52), tc_quat_identity(), 0.6, 0, TC_CONTACT_GAUSS_MAP);
        rs_steps(w, 180);
        tc_real pen = 0.5 - tc_body_get_pose(w, box).p.z;
        printf("%s resting penetration %.4g m\n", m ? "split impulse" : "baumgarte", pen);
        assert_true(pen >= -1e-4 && pen <= 0.005 + 1e-4); // within the slop
        tc_world_destroy(w);
    }
}

// A block on a slope of angle phi: holds when tan(phi) < mu, else slides at g(sin - mu cos).
static void test_incline(void** state) {
    (void)state;
    tc_real mu = 0.5, angles[2] = {20, 35};
    for (int k = 0; k < 2; ++k) {
        tc_real phi = angles[k] * TC_PI / 180;
        tc_world* w = rs_world(TC_CORRECTION_SOFT_STEP);
        tc_vec3 n = tc_v3(-sin(phi), 0, cos(phi)); // slope rising towards +x
        rs_plane(w, n, mu);
        tc_quat q = tc_quat_from_axis_angle(tc_v3(0, 1, 0), -phi);
        tc_body_id b = rs_body(w, rs_box(tc_v3(0.2, 0.2, 0.1)), tc_v3_scale(n, 0.1), q, mu, 0, TC_CONTACT_GAUSS_MAP);
        rs_steps(w, 30); // settle
        tc_vec3 v0 = tc_body_get_linear_velocity(w, b);
        rs_steps(w, 60);
        tc_vec3 v1 = tc_body_get_linear_velocity(w, b);
        tc_real a = (tc_v3_len(v1) - tc_v3_len(v0)) / 1.0, expect = 9.81 * (sin(phi) - mu * cos(phi));
        printf("incline %.0f deg: speed %.3g m/s, acceleration %.4g (expected %.4g)\n", angles[k], tc_v3_len(v1), a, expect > 0 ? expect : 0);
        if (tan(phi) < mu) assert_true(tc_v3_len(v1) < 1e-3);
        else assert_near(a, expect, 0.02 * expect);
        tc_world_destroy(w);
    }
}

static void test_restitution(void** state) {
    (void)state;
    tc_real es[2] = {0.5, 0};
    for (int k = 0; k < 2; ++k) {
        tc_world* w = rs_world(TC_CORRECTION_SOFT_STEP);
        assert_int_equal(tc_world_set_gravity(w, tc_v3_zero()), TC_RESULT_OK);
        rs_plane(w, tc_v3(0, 0, 1), 0);
        tc_body_id s = rs_body(w, rs_sphere(0.25), tc_v3(0, 0, 0.4), tc_quat_identity(), 0, es[k], TC_CONTACT_GAUSS_MAP);
        tc_body_set_velocity(w, s, tc_v3(0, 0, -5), tc_v3_zero());
        rs_steps(w, 30);
        tc_real vz = tc_body_get_linear_velocity(w, s).z;
        printf("restitution %.1f: rebound %.4g m/s\n", es[k], vz);
        assert_near(vz, 5 * es[k], 0.1);
        tc_world_destroy(w);
    }
}

static void test_momentum_conserved(void** state) {
    (void)state;
    tc_world* w = rs_world(TC_CORRECTION_SOFT_STEP);
    assert_int_equal(tc_world_set_gravity(w, tc_v3_zero()), TC_RESULT_OK);
    tc_body_id a = rs_body(w, rs_box(tc_v3(0.3, 0.2, 0.25)), tc_v3(0, 0, 0), tc_quat_identity(), 0.4, 0.2, TC_CONTACT_GAUSS_MAP);
    tc_body_id b = rs_body(w, rs_sphere(0.3), tc_v3(1.5, 0.1, 0.05), tc_quat_identity(), 0.4, 0.2, TC_CONTACT_GAUSS_MAP);
    tc_body_set_velocity(w, a, tc_v3(2, 0, 0), tc_v3(0, 0, 1));
    tc_body_set_velocity(w, b, tc_v3(-1, 0.2, 0), tc_v3_zero());
    tc_vec3 p0 = tc_v3_add(tc_v3_scale(tc_body_get_linear_velocity(w, a), tc_body_get_mass(w, a)),
                           tc_v3_scale(tc_body_get_linear_velocity(w, b), tc_body_get_mass(w, b)));
    rs_steps(w, 60);
    tc_vec3 p1 = tc_v3_add(tc_v3_scale(tc_body_get_linear_velocity(w, a), tc_body_get_mass(w, a)),
                           tc_v3_scale(tc_body_get_linear_velocity(w, b), tc_body_get_mass(w, b)));
    assert_true(tc_v3_len(tc_body_get_linear_velocity(w, b)) > 0.5); // they did collide
    assert_true(tc_v3_len(tc_v3_sub(p1, p0)) <= 1e-9 * tc_v3_len(p0));
    tc_world_destroy(w);
}

// A column of 10 boxes stands for 10 s, drifts < 1 cm, never gains energy at rest, and sleeps.
static void test_stack_stands_and_sleeps(void** state) {
    (void)state;
    tc_world* w = rs_world(TC_CORRECTION_SOFT_STEP);
    rs_plane(w, tc_v3(0, 0, 1), 0.6);
    tc_body_id ids[10];
    for (int i = 0; i < 10; ++i)
        ids[i] = rs_body(w, rs_box(tc_v3(0.25, 0.25, 0.25)), tc_v3(0.002 * i, 0, 0.25 + 0.5 * i), tc_quat_identity(), 0.6, 0, TC_CONTACT_GAUSS_MAP);
    rs_steps(w, 60);
    tc_vec3 top0 = tc_body_get_pose(w, ids[9]).p;
    tc_real e_prev = 1e300;
    for (int s = 0; s < 540; ++s) {
        rs_steps(w, 1);
        tc_world_stats st = tc_world_get_stats(w);
        if (s > 60) assert_true(st.kinetic_energy <= e_prev + 1e-9);
        e_prev = st.kinetic_energy;
    }
    tc_vec3 top1 = tc_body_get_pose(w, ids[9]).p;
    printf("10-box stack: top drift %.3g m over 9 s, final kinetic energy %.3g J\n", tc_v3_dist(top0, top1), e_prev);
    assert_true(tc_v3_dist(top0, top1) < 0.01);
    assert_true(e_prev == 0); // asleep
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resting_penetration_soft_step), cmocka_unit_test(test_resting_penetration_baumgarte_and_split),
        cmocka_unit_test(test_incline),                       cmocka_unit_test(test_restitution),
        cmocka_unit_test(test_momentum_conserved),            cmocka_unit_test(test_stack_stands_and_sleeps),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
