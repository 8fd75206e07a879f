// Degenerate configurations (issue 8): exactly coincident and exactly touching bodies, and
// bodies from 0.1 mm to 10 km, never give NaN, never pass through, and settle.
#include "rigid_scene_util.h"

#include <stdio.h>

static void test_coincident_boxes_separate(void** state) {
    (void)state;
    tc_world* w = rs_world(TC_CORRECTION_SOFT_STEP);
    rs_plane(w, tc_v3(0, 0, 1), 0.6);
    tc_body_id a = rs_body(w, rs_box(tc_v3(0.5, 0.5, 0.5)), tc_v3(0, 0, 2), tc_quat_identity(), 0.6, 0, TC_CONTACT_GAUSS_MAP);
    tc_body_id b = rs_body(w, rs_box(tc_v3(0.5, 0.5, 0.5)), tc_v3(0, 0, 2), tc_quat_identity(), 0.6, 0, TC_CONTACT_GAUSS_MAP);
    tc_body_id c = rs_body(w, rs_sphere(0.4), tc_v3(3, 0, 2), tc_quat_identity(), 0.6, 0, TC_CONTACT_GAUSS_MAP);
    tc_body_id d = rs_body(w, rs_sphere(0.4), tc_v3(3, 0, 2), tc_quat_identity(), 0.6, 0, TC_CONTACT_GAUSS_MAP);
    rs_steps(w, 300);
    tc_vec3 pa = tc_body_get_pose(w, a).p, pb = tc_body_get_pose(w, b).p, pc = tc_body_get_pose(w, c).p, pd = tc_body_get_pose(w, d).p;
    printf("coincident boxes end %.3f m apart, spheres %.3f m apart\n", tc_v3_dist(pa, pb), tc_v3_dist(pc, pd));
    assert_true(tc_v3_is_finite(pa) && tc_v3_is_finite(pb) && tc_v3_is_finite(pc) && tc_v3_is_finite(pd));
    assert_true(tc_v3_dist(pa, pb) > 0.9 && tc_v3_dist(pc, pd) > 0.75); // pushed apart to at least touching
    assert_true(fmin(pa.z, pb.z) > 0.45 && fmin(pc.z, pd.z) > 0.35);     // nobody through the ground
    tc_world_destroy(w);
}

static void test_exactly_touching_rests(void** state) {
    (void)state;
    tc_world* w = rs_world(TC_CORRECTION_SOFT_STEP);
    rs_plane(w, tc_v3(0, 0, 1), 0.6);
    tc_body_id a = rs_body(w, rs_box(tc_v3(0.5, 0.5, 0.5)), tc_v3(0, 0, 0.5), tc_quat_identity(), 0.6, 0, TC_CONTACT_GAUSS_MAP);
    tc_body_id b = rs_body(w, rs_box(tc_v3(0.5, 0.5, 0.5)), tc_v3(1, 0, 0.5), tc_quat_identity(), 0.6, 0, TC_CONTACT_GAUSS_MAP);
    tc_body_id c = rs_body(w, rs_box(tc_v3(0.5, 0.5, 0.5)), tc_v3(0, 0, 1.5), tc_quat_identity(), 0.6, 0, TC_CONTACT_GAUSS_MAP);
    rs_steps(w, 120);
    assert_vec3_near(tc_body_get_pose(w, a).p, tc_v3(0, 0, 0.5), 1e-3);
    assert_vec3_near(tc_body_get_pose(w, b).p, tc_v3(1, 0, 0.5), 1e-3);
    assert_vec3_near(tc_body_get_pose(w, c).p, tc_v3(0, 0, 1.5), 2e-3);
    tc_world_destroy(w);
}

// The same drop at every scale: a box falls from 2 sizes up and rests on the ground.
static void test_scales(void** state) {
    (void)state;
    tc_real scales[5] = {1e-4, 1e-2, 1, 1e2, 1e4};
    for (int k = 0; k < 5; ++k) {
        tc_real s = scales[k];
        tc_world_def d = tc_world_def_default();
        d.gravity = tc_v3(0, 0, -9.81 * s); // the same motion in units of the body size
        tc_world* w = tc_world_create(&d, NULL);
        rs_plane(w, tc_v3(0, 0, 1), 0.6);
        tc_quat tilt = tc_quat_from_axis_angle(tc_v3_normalize(tc_v3(1, 1, 0)), 0.3);
        tc_body_id box = rs_body(w, rs_box(tc_v3(0.5 * s, 0.5 * s, 0.5 * s)), tc_v3(0, 0, 2 * s), tilt, 0.6, 0, TC_CONTACT_GAUSS_MAP);
        tc_body_id ball = rs_body(w, rs_sphere(0.4 * s), tc_v3(2 * s, 0, 2 * s), tc_quat_identity(), 0.6, 0, TC_CONTACT_GAUSS_MAP);
        rs_steps(w, 240);
        tc_vec3 p = tc_body_get_pose(w, box).p, q = tc_body_get_pose(w, ball).p;
        tc_real v = tc_v3_len(tc_body_get_linear_velocity(w, box)) / s;
        printf("scale %g m: box rests at z = %.4f sizes, ball at %.4f, speed %.2g sizes/s\n", s, p.z / s, q.z / s, v);
        assert_true(tc_v3_is_finite(p) && tc_v3_is_finite(q));
        assert_near(p.z / s, 0.5, 0.02);
        assert_near(q.z / s, 0.4, 0.02);
        assert_true(v < 1e-2);
        tc_world_destroy(w);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_coincident_boxes_separate), cmocka_unit_test(test_exactly_touching_rests),
                                       cmocka_unit_test(test_scales)};
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
