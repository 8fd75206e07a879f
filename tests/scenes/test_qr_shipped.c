// The shipped qr_ball_socket scene (seed 002, the femur-in-hip case) loads and shows its claim:
// the ball seated in the cup carries its weight over a conforming, wide contact cap.
#include "tc_test.h"

#include <stdio.h>
#include <stdlib.h>

static void test_qr_ball_socket_conforming(void** state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/qr_ball_socket.json", TACTUS_SOURCE_DIR);
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    if (!s) fail_msg("%s", e.message);
    for (int i = 0; i < 16; ++i)
        if (tc_scene_step(s, &e) != TC_RESULT_OK) fail_msg("%s", e.message);
    tc_world* w = tc_scene_world(s);
    tc_body_id head = tc_world_find_body(w, "head");
    int n = tc_quasi_body_get_sample_count(w, head);
    tc_vec3* p = calloc((size_t)n, sizeof(tc_vec3));
    tc_real* t = calloc((size_t)n, sizeof(tc_real));
    assert_non_null(p);
    assert_non_null(t);
    tc_quasi_body_get_samples(w, head, p, NULL, n);
    tc_quasi_body_get_tractions(w, head, t, NULL, n);
    const tc_real R = 0.047, G = 2e5, nu = 0.45; // the head's radius and layer, as in the scene
    tc_vec3 c = tc_body_get_pose(w, head).p;
    tc_real half_angle = 0;
    for (int i = 0; i < n; ++i)
        if (t[i] > 0) half_angle = fmax(half_angle, acos(fmin(1, -(p[i].z - c.z) / R)));
    tc_vec3 F;
    tc_quasi_body_get_contact_wrench(w, head, &F, NULL);
    tc_real weight = tc_body_get_mass(w, head) * 9.81;
    tc_real Es = 2 * G * (1 + nu) / (1 - nu * nu), a_plane = cbrt(3 * weight * R / (4 * Es)); // Hertz on a plane
    printf("qr_ball_socket: weight %.3f N, contact force %.3f N, half-angle %.1f deg, patch radius %.4g m (plane: %.4g m)\n",
           weight, F.z, half_angle * 180 / TC_PI, R * sin(half_angle), a_plane);
    assert_near(F.z / weight, 1, 0.1);
    assert_true(half_angle > 20 * TC_PI / 180);
    assert_true(R * sin(half_angle) > 2 * a_plane);
    free(p);
    free(t);
    tc_scene_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_qr_ball_socket_conforming)};
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
