// The seed-001 scenes as shipped: colliding cubes bounce apart with both depth methods, spheres
// pile in a pit without blowing up, a tet box lands on a rigid step and the ground, a Gmsh ring
// rests around a peg.
#include "tc_test.h"

#include <stdio.h>

static void run(tc_scene* s, int steps, tc_real* max_ke) {
    tc_error e;
    for (int i = 0; i < steps; ++i) {
        if (tc_scene_step(s, &e) != TC_RESULT_OK) fail_msg("%s", e.message);
        if (max_ke) *max_ke = fmax(*max_ke, tc_world_get_stats(tc_scene_world(s)).kinetic_energy);
    }
}

static void test_cubes_bounce_apart(void** state) {
    (void)state;
    const char* scenes[2] = {"tet_cubes", "tet_cubes_closest"};
    for (int k = 0; k < 2; ++k) {
        tc_scene* s = tc_test_load_scene(scenes[k]);
        run(s, 40, NULL);
        tc_world* w = tc_scene_world(s);
        tc_body_id a = tc_world_find_body(w, "cube_a"), b = tc_world_find_body(w, "cube_b");
        tc_real gap = tc_body_get_pose(w, b).p.x - tc_body_get_pose(w, a).p.x;
        tc_real vrel = tc_body_get_linear_velocity(w, b).x - tc_body_get_linear_velocity(w, a).x;
        int inverted_a, inverted_b;
        tc_real rest;
        tc_tet_body_get_volume(w, a, &rest, &inverted_a);
        tc_tet_body_get_volume(w, b, &rest, &inverted_b);
        printf("%s: centres %.3f m apart, separating at %.3f m/s, %d inverted tets, %d contacts\n", scenes[k], gap, vrel,
               inverted_a + inverted_b, tc_world_get_stats(w).contact_count);
        assert_true(gap > 0.3 && vrel > 0);
        assert_int_equal(tc_world_get_stats(w).contact_count, 0); // no remaining penetration
        assert_int_equal(inverted_a + inverted_b, 0);
        tc_scene_destroy(s);
    }
}

// Statistics of one second of the pile (60 steps): mean kinetic energy, mean and largest
// per-step deepest contact, closest pair of sphere centres.
typedef struct pile_window {
    tc_real ke_mean, depth_mean, depth_max, closest;
} pile_window;

static pile_window pile_second(tc_scene* s) {
    tc_world* w = tc_scene_world(s);
    pile_window r = {0, 0, 0, 1e9};
    for (int i = 0; i < 60; ++i) {
        run(s, 1, NULL);
        tc_world_stats st = tc_world_get_stats(w);
        r.ke_mean += st.kinetic_energy / 60;
        r.depth_mean += st.max_penetration / 60;
        r.depth_max = fmax(r.depth_max, st.max_penetration);
        for (int a = 0; a < 4; ++a)
            for (int b = a + 1; b < 4; ++b) {
                char na[16], nb[16];
                snprintf(na, sizeof na, "ball_%d", a);
                snprintf(nb, sizeof nb, "ball_%d", b);
                tc_vec3 pa = tc_body_get_pose(w, tc_world_find_body(w, na)).p, pb = tc_body_get_pose(w, tc_world_find_body(w, nb)).p;
                r.closest = fmin(r.closest, tc_v3_dist(pa, pb));
            }
    }
    return r;
}

// The pile comes to rest, no sphere inside another. The pile is chaotic: which ball rolls about
// its pocket when, and the largest KE of a late second (0.05 ... 0.5 J), change with nothing but
// the CG's rounding (tolerance 1e-6 ... 1e-12, a 1e-6 m shift of the drop). So the criteria are
// one-second means relative to the impact (peak ~75 J) and their trend:
// - settled by the fifth second: its mean KE is below 2e-3 of the peak and at most half the
//   fourth second's (or below 1e-4 of the peak); 0.03-0.11 J and ratios 0.1-0.45 in 47 of 49 runs
//   (7 tolerances x 7 drops);
// - or, when a ball still rolls about its pocket then (KE 0.23-0.26 J, as much as in the fourth
//   second), at rest later: the mean KE of one of seconds 6-10 is below 6.7e-4 of the peak
//   (0.05 J; 0.029 J in one such run; the other, one drop at tolerance 1e-9, still rolls at
//   0.065 J and fails).
// A jittering pile does neither: with no material damping it stays at 0.31-0.33 J from the fourth
// second on; with the tet-tet normal penalty explicit its KE rises from 0.046 J in the fourth
// second to 0.076 J and stays there. The shipped drop passes at every tolerance 1e-6 ... 1e-12.
// - the per-step deepest contact averages below 3 cm (1.8-2.7 cm) and never passes 7.5 cm (half
//   a radius; single-step spikes reach 6.6 cm), sphere centres stay 0.22 m apart (radius 0.15).
static void test_spheres_pile_settles(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("tet_sphere_stack");
    tc_real ke_peak = 0;
    run(s, 180, &ke_peak);
    pile_window fourth = pile_second(s), fifth = pile_second(s), late = fifth;
    bool settled = fifth.ke_mean < 2e-3 * ke_peak && (fifth.ke_mean < 0.5 * fourth.ke_mean || fifth.ke_mean < 1e-4 * ke_peak);
    tc_real ke_late = 1e9;
    for (int second = 6; second <= 10 && !settled; ++second) { // still rolling: does it come to rest later?
        pile_window r = pile_second(s);
        ke_late = fmin(ke_late, r.ke_mean);
        late.depth_mean = (late.depth_mean * (second - 5) + r.depth_mean) / (second - 4);
        late.depth_max = fmax(late.depth_max, r.depth_max), late.closest = fmin(late.closest, r.closest);
    }
    printf("tet_sphere_stack: peak KE %.3g J; mean KE %.3g J in the fourth second, %.3g J in the fifth", ke_peak, fourth.ke_mean, fifth.ke_mean);
    if (!settled) printf(", %.3g J in the quietest of seconds 6-10", ke_late);
    printf("; deepest contact %.3g m on average, %.3g m at most; closest centres %.3f m\n", late.depth_mean, late.depth_max,
           fmin(fourth.closest, late.closest));
    assert_true(ke_peak > 50); // the drop happened
    assert_true(settled || ke_late < 6.7e-4 * ke_peak);
    assert_true(late.depth_mean < 0.03 && late.depth_max < 0.075);
    assert_true(fmin(fourth.closest, late.closest) > 0.22);
    tc_scene_destroy(s);
}

static void test_jelly_lands(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("tet_on_rigid");
    run(s, 180, NULL);
    tc_world* w = tc_scene_world(s);
    tc_body_id j = tc_world_find_body(w, "jelly");
    int n = tc_tet_body_get_vertex_count(w, j);
    tc_vec3 x[1024];
    assert_true(n <= 1024);
    tc_tet_body_get_vertices(w, j, x, NULL, n);
    tc_real low = 1e9;
    for (int i = 0; i < n; ++i) low = fmin(low, x[i].z);
    printf("tet_on_rigid: lowest vertex %.3g m, centre at z = %.3f m\n", low, tc_body_get_pose(w, j).p.z);
    assert_true(low > -0.01);
    tc_scene_destroy(s);
}

// Convex and concave bodies (an L-shaped TetGen mesh among them) come to rest on the ground.
static void test_mixed_rests(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("tet_mixed");
    tc_real ke_max = 0;
    run(s, 180, &ke_max);
    tc_world* w = tc_scene_world(s);
    tc_real ke = tc_world_get_stats(w).kinetic_energy, low = 1e9;
    tc_body_id ids[8];
    int n = tc_world_get_bodies(w, ids, 8);
    for (int i = 0; i < n; ++i) {
        if (tc_body_get_kind(w, ids[i]) != TC_BODY_TET) continue;
        tc_vec3 x[1024];
        int m = tc_tet_body_get_vertices(w, ids[i], x, NULL, 1024);
        for (int k = 0; k < m && k < 1024; ++k) low = fmin(low, x[k].z);
    }
    printf("tet_mixed: KE %.3g J (peak %.3g J), lowest vertex %.3g m\n", ke, ke_max, low);
    assert_true(ke < 1e-3 * ke_max && low > -0.01);
    tc_scene_destroy(s);
}

// A concave body from a Gmsh file: the ring drops over the peg and rests on the ground around
// it: no vertex inside the peg, centre near the peg's axis, at rest.
static void test_ring_rests_around_peg(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("tet_ring_peg");
    tc_real ke_max = 0;
    run(s, 150, &ke_max);
    tc_world* w = tc_scene_world(s);
    tc_body_id ring = tc_world_find_body(w, "ring");
    tc_vec3 x[256];
    int n = tc_tet_body_get_vertices(w, ring, x, NULL, 256);
    assert_int_equal(n, 216);
    tc_real low = 1e9, inside = 0;
    for (int k = 0; k < n; ++k) {
        low = fmin(low, x[k].z);
        if (x[k].z < 0.4) inside = fmax(inside, fmin(0.05 - fabs(x[k].x), 0.05 - fabs(x[k].y))); // depth into the peg
    }
    tc_vec3 c = tc_body_get_center_of_mass(w, ring);
    tc_real ke = tc_world_get_stats(w).kinetic_energy;
    printf("tet_ring_peg: KE %.3g J (peak %.3g J), centre (%.3f %.3f %.3f), lowest vertex %.4f m, deepest in peg %.4f m\n", ke, ke_max,
           c.x, c.y, c.z, low, inside);
    assert_true(ke < 1e-4 * ke_max);
    assert_true(inside <= 0.005);
    assert_true(hypot(c.x, c.y) < 0.1 && fabs(c.z - 0.05) < 0.01 && low > -0.01);
    tc_scene_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cubes_bounce_apart), cmocka_unit_test(test_spheres_pile_settles),
                                       cmocka_unit_test(test_jelly_lands), cmocka_unit_test(test_mixed_rests),
                                       cmocka_unit_test(test_ring_rests_around_peg)};
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
