// A fast head-on impact of two soft point spheres (6 m/s closing, E = 1e5 Pa, 4 sub-steps of
// 1/240 s): the overlap of the first sub-steps goes deeper than the MLS surfaces reach (3h =
// 18 mm), yet the spheres must not pass through each other. They bounce apart in their order,
// with equal and opposite momenta. (Before the contact surface covered overlaps deeper than
// the reach, the surfels there seeded no samples and these spheres passed through.)
#include "points_scene_util.h"

static void test_head_on_impact_does_not_pass_through(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    wd.gravity = tc_v3_zero();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_body_id ids[2];
    for (int i = 0; i < 2; ++i) {
        tc_points_body_def d = tc_points_body_def_default();
        d.shape = TC_POINTS_SPHERE;
        d.radius = 0.05;
        d.phyxel_spacing = 0.02;
        d.surfel_spacing = 0.004;
        d.youngs_modulus = 1e5;
        d.jitter = 0;
        d.base.pose.p = tc_v3(0, 0, 0.11 * i);
        d.base.linear_velocity = tc_v3(0, 0, i == 0 ? 3 : -3);
        ids[i] = points_add(w, &d);
    }
    tc_real closest = INFINITY, worst_momentum = 0, m = tc_body_get_mass(w, ids[0]);
    for (int s = 0; s < 15; ++s) {
        points_step(w);
        tc_real gap = tc_body_get_center_of_mass(w, ids[1]).z - tc_body_get_center_of_mass(w, ids[0]).z;
        closest = fmin(closest, gap);
        tc_real p = m * tc_body_get_linear_velocity(w, ids[0]).z + tc_body_get_mass(w, ids[1]) * tc_body_get_linear_velocity(w, ids[1]).z;
        worst_momentum = fmax(worst_momentum, fabs(p));
    }
    tc_real closing_after = tc_body_get_linear_velocity(w, ids[1]).z - tc_body_get_linear_velocity(w, ids[0]).z;
    print_message("closest centre distance %.4f m (touching at 0.1), separating at %.2f m/s (closing at 6), momentum drift %.2g\n",
                  closest, closing_after, worst_momentum / (3 * m));
    assert_true(closest > 0.04);            // never crossed (b stays above a), at most 6 cm of overlap
    assert_true(tc_body_get_center_of_mass(w, ids[1]).z - tc_body_get_center_of_mass(w, ids[0]).z > 0.1); // apart again
    assert_true(closing_after > 0.3 * 6);   // they bounced
    assert_true(worst_momentum < 1e-9 * 3 * m);
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test_setup(test_head_on_impact_does_not_pass_through, tc_test_setup_log)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
