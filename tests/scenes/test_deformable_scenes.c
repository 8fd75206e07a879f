// The shipped seed-002 and seed-000 scenes load and show their claims.
#include "tc_test.h"

#include <stdio.h>

static void run(tc_scene* s, int steps) {
    tc_error e;
    for (int i = 0; i < steps; ++i)
        if (tc_scene_step(s, &e) != TC_RESULT_OK) fail_msg("%s", e.message);
}

static void test_qr_press_force_equals_load(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("qr_press");
    run(s, 90);
    tc_world* w = tc_scene_world(s);
    tc_body_id foot = tc_world_find_body(w, "foot");
    tc_vec3 f;
    tc_quasi_body_get_contact_wrench(w, foot, &f, NULL);
    tc_real load = tc_body_get_mass(w, foot) * 9.81 + 10; // weight plus the 10 N press event
    printf("qr_press: contact force %.4g N for a load of %.4g N\n", f.z, load);
    assert_near(f.z / load, 1, 0.02);
    tc_scene_destroy(s);
}

static void test_qr_spinning_ball_curves(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("qr_spinning_ball");
    run(s, 90);
    tc_vec3 p = tc_body_get_pose(tc_scene_world(s), tc_world_find_body(tc_scene_world(s), "ball")).p;
    printf("qr_spinning_ball: down the slope %.3f m, sideways %.3f m\n", -p.x, p.y);
    assert_true(fabs(p.y) > 0.02); // spin about the slope normal turns into a sideways path
    tc_scene_destroy(s);
}

static void test_points_cradle_passes_momentum(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("points_cradle");
    tc_world* w = tc_scene_world(s);
    tc_real v0 = 1, v4 = 0; // the first ball's slowest and the last ball's fastest speed
    for (int k = 0; k < 60; ++k) {
        run(s, 1);
        v0 = fmin(v0, fabs(tc_body_get_linear_velocity(w, tc_world_find_body(w, "ball_0")).x));
        v4 = fmax(v4, tc_body_get_linear_velocity(w, tc_world_find_body(w, "ball_2")).x);
    }
    printf("points_cradle: first ball %.3f m/s, last ball %.3f m/s (started 1 m/s)\n", v0, v4);
    assert_true(v4 > 0.6 && fabs(v0) < 0.2); // the spheres have equal masses: speed stands for momentum
    tc_scene_destroy(s);
}

static void test_points_fracture_splits(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("points_fracture");
    run(s, 180);
    int bodies = tc_world_get_body_count(tc_scene_world(s));
    printf("points_fracture: %d bodies after 3 s (ground + putty at the start)\n", bodies);
    assert_true(bodies >= 3);
    tc_scene_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_qr_press_force_equals_load), cmocka_unit_test(test_qr_spinning_ball_curves),
                                       cmocka_unit_test(test_points_cradle_passes_momentum), cmocka_unit_test(test_points_fracture_splits)};
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
