// Newton's cradle of stiff elastic point spheres (scenes/points_cradle.json): momentum passes
// through the row to the last sphere, and the total is conserved through the impacts.
#include "points_scene_util.h"

static void test_cradle_passes_momentum(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    wd.gravity = tc_v3_zero();          // the strings are not modelled: a free row
    wd.penalty_damping_ratio = 0;       // elastic impacts
    tc_world* w = tc_world_create(&wd, NULL);
    enum { N = 3 };
    tc_body_id ids[N];
    for (int i = 0; i < N; ++i) {
        tc_points_body_def d = tc_points_body_def_default();
        d.shape = TC_POINTS_SPHERE;
        d.radius = 0.05;
        d.phyxel_spacing = 0.025;
        d.surfel_spacing = 0.01;
        d.youngs_modulus = 1e6;
        d.damping = 2;
        d.jitter = 0;
        d.base.pose.p = tc_v3(i * 0.102, 0, 0);
        if (i == 0) d.base.linear_velocity = tc_v3(1, 0, 0);
        ids[i] = points_add(w, &d);
    }
    tc_real p0 = tc_body_get_mass(w, ids[0]) * 1.0, worst = 0;
    int touching = 0;
    for (int s = 0; s < 45; ++s) {
        points_step(w);
        tc_real p = 0;
        for (int i = 0; i < N; ++i) p += tc_body_get_mass(w, ids[i]) * tc_body_get_linear_velocity(w, ids[i]).x;
        worst = fmax(worst, fabs(p - p0));
        touching += points_contacts_between(w, ids[0], ids[1]) > 0;
    }
    tc_real last = tc_body_get_mass(w, ids[N - 1]) * tc_body_get_linear_velocity(w, ids[N - 1]).x;
    tc_real first = tc_body_get_mass(w, ids[0]) * tc_body_get_linear_velocity(w, ids[0]).x;
    print_message("momentum: first %.3f, last %.3f of %.3f; worst drift %.3g\n", first / p0, last / p0, p0, worst / p0);
    assert_true(touching > 0);
    assert_true(last > 0.6 * p0);          // most of it reached the end of the row
    assert_true(fabs(first) < 0.2 * p0);   // and the first sphere nearly stopped
    assert_true(worst < 1e-9 * p0);        // contact forces are equal and opposite
    for (int i = 0; i + 1 < N; ++i)        // the row ends up ordered and separating
        assert_true(tc_body_get_linear_velocity(w, ids[i]).x <= tc_body_get_linear_velocity(w, ids[i + 1]).x + 1e-9);
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test_setup(test_cradle_passes_momentum, tc_test_setup_log)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
