// The seed-004 scenes as shipped in scenes/: what the paper and the issue claim of each.
#include "tc_test.h"

#include <stdio.h>
#include <stdlib.h>

static void step(tc_scene* s, int n) {
    tc_error e;
    for (int i = 0; i < n; ++i)
        if (tc_scene_step(s, &e) != TC_RESULT_OK) fail_msg("%s", e.message);
}

static int metric_index(const tc_scene* s, const char* label) {
    for (int i = 0; i < tc_scene_metric_count(s); ++i)
        if (strcmp(tc_scene_metric_label(s, i), label) == 0) return i;
    fail_msg("no metric %s", label);
    return -1;
}

typedef struct drop_figures {
    tc_real max_penetration, rest_alignment, rest_kinetic;
} drop_figures;

static drop_figures run_box_drop(const char* name) {
    tc_scene* s = tc_test_load_scene(name);
    int ip = metric_index(s, "box_penetration:box"), ia = metric_index(s, "box_alignment:box");
    drop_figures f = {0, 0, 0};
    int rest = 0;
    for (int k = 0; k < 240; ++k) {
        step(s, 1);
        f.max_penetration = fmax(f.max_penetration, tc_scene_metric_value(s, ip));
        if (k >= 120) { // resting phase: t >= 2 s
            f.rest_alignment += tc_scene_metric_value(s, ia);
            f.rest_kinetic = fmax(f.rest_kinetic, tc_world_get_stats(tc_scene_world(s)).kinetic_energy);
            rest++;
        }
    }
    f.rest_alignment /= rest;
    tc_scene_destroy(s);
    return f;
}

// Seed 004 figure 9: penetration and alignment error far below contact tracking's, no
// oscillation at rest.
static void test_box_drop_gauss_map_beats_tracking(void** state) {
    (void)state;
    drop_figures g = run_box_drop("box_drop"), t = run_box_drop("box_drop_tracking");
    printf("box drop  gauss map: max penetration %.3g m, resting alignment %.3g rad, resting KE %.3g J\n", g.max_penetration,
           g.rest_alignment, g.rest_kinetic);
    printf("box drop  tracking : max penetration %.3g m, resting alignment %.3g rad, resting KE %.3g J\n", t.max_penetration,
           t.rest_alignment, t.rest_kinetic);
    assert_true(g.max_penetration * 10 < t.max_penetration);
    assert_true(g.rest_alignment * 100 < t.rest_alignment);
    assert_true(g.rest_kinetic < 1e-12 && t.rest_kinetic > 1e3 * g.rest_kinetic);
    assert_true(g.max_penetration < 1e-3);
}

/// Max distance any named-prefix body moved between two snapshots.
static tc_real max_drift(const tc_world* w, const tc_vec3* before, const tc_body_id* ids, int n) {
    tc_real d = 0;
    for (int i = 0; i < n; ++i)
        if (tc_body_is_valid(w, ids[i])) d = fmax(d, tc_v3_dist(before[i], tc_body_get_pose(w, ids[i]).p));
    return d;
}

static int snapshot(const tc_world* w, tc_body_id* ids, tc_vec3* pos, int cap) {
    int n = tc_world_get_bodies(w, ids, cap);
    for (int i = 0; i < n; ++i) pos[i] = tc_body_get_pose(w, ids[i]).p;
    return n;
}

static void test_pyramid_stands(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("pyramid");
    static tc_body_id ids[256];
    static tc_vec3 pos[256];
    step(s, 60);
    int n = snapshot(tc_scene_world(s), ids, pos, 256);
    assert_int_equal(n, 211);
    tc_real ke_prev = 1e300;
    for (int k = 0; k < 540; ++k) {
        step(s, 1);
        tc_real ke = tc_world_get_stats(tc_scene_world(s)).kinetic_energy;
        if (k > 60) assert_true(ke <= ke_prev * (1 + 1e-9) + 1e-12); // never gains energy at rest
        ke_prev = ke;
    }
    tc_real drift = max_drift(tc_scene_world(s), pos, ids, n);
    printf("pyramid: max drift %.3g m over 9 s\n", drift);
    assert_true(drift < 0.01);
    tc_scene_destroy(s);
}

static void test_brick_wall_stands_while_bricks_go(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("brick_wall");
    static tc_body_id ids[64];
    static tc_vec3 pos[64];
    step(s, 30);
    int n = snapshot(tc_scene_world(s), ids, pos, 64);
    step(s, 570); // to 10 s: all six removals happened
    tc_world* w = tc_scene_world(s);
    assert_int_equal(tc_world_get_body_count(w), 53 - 9);
    tc_real drift = max_drift(w, pos, ids, n);
    printf("brick wall: %d bodies left, max drift %.3g m\n", tc_world_get_body_count(w), drift);
    assert_true(drift < 0.01);
    tc_scene_destroy(s);
}

static void test_tower_stands_then_tilts(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("tower");
    static tc_body_id ids[16];
    static tc_vec3 pos[16];
    step(s, 60);
    int n = snapshot(tc_scene_world(s), ids, pos, 16);
    step(s, 58); // just before the push at 2 s
    tc_real drift = max_drift(tc_scene_world(s), pos, ids, n);
    int it = metric_index(s, "box_alignment:top");
    tc_real tilt_before = tc_scene_metric_value(s, it);
    tc_real tilt_after = 0;
    for (int k = 0; k < 60; ++k) { // the largest tilt in the second after the push
        step(s, 1);
        tilt_after = fmax(tilt_after, tc_scene_metric_value(s, it));
    }
    printf("tower: drift %.3g m while standing, top tilt %.3g -> %.3g rad after the push\n", drift, tilt_before, tilt_after);
    assert_true(drift < 0.01);
    assert_true(tilt_before < 0.05 && tilt_after > 0.2);
    tc_scene_destroy(s);
}

static void test_convex_rain_is_deterministic(void** state) {
    (void)state;
    uint64_t h[2];
    for (int k = 0; k < 2; ++k) {
        tc_scene* s = tc_test_load_scene("convex_rain");
        step(s, 40);
        h[k] = tc_world_hash(tc_scene_world(s));
        tc_scene_destroy(s);
    }
    assert_true(h[0] == h[1]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_drop_gauss_map_beats_tracking), cmocka_unit_test(test_pyramid_stands),
        cmocka_unit_test(test_brick_wall_stands_while_bricks_go), cmocka_unit_test(test_tower_stands_then_tilts),
        cmocka_unit_test(test_convex_rain_is_deterministic),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
