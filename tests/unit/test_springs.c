// Mass-spring meshes (ALGORITHMS §10.5): the oscillator's period and decay, the explicit
// stability limit, edge-triangle intersection cases, the flood fill, meshes and errors.
#include "tc_test.h"

#include "dynamics/springs/springs.h"
#include "geometry/mesh_gen.h"

#include <stdio.h>

// Two vertices joined by one spring: a body built by hand (the flood fill and integrators need
// no mesh for this).
static tc_springs_body two_masses(tc_real m, tc_real k, tc_real kd) {
    static tc_vec3 x[2], v[2], f[2];
    static tc_real mass[2], inv[2];
    tc_springs_body b;
    memset(&b, 0, sizeof b);
    b.n = 2;
    b.x = x, b.v = v, b.f = f, b.m = mass, b.inv_m = inv;
    x[0] = tc_v3(0, 0, 0), x[1] = tc_v3(1.1, 0, 0); // stretched by 0.1 m
    v[0] = v[1] = f[0] = f[1] = tc_v3_zero();
    mass[0] = mass[1] = m, inv[0] = inv[1] = 1 / m;
    b.total_mass = 2 * m;
    tc_spring s = {0, 1, 1.0, k, kd};
    tc_array_push(&b.springs, s);
    b.edge_count = 1;
    return b;
}

static void test_oscillator_period_and_decay(void** state) {
    (void)state;
    tc_real m = 0.5, k = 200, kd = 0.4, mu = m / 2; // relative motion: reduced mass m/2
    tc_real omega = sqrt(k / mu), zeta = kd / (2 * sqrt(k * mu)), h = 0.05 / omega;
    tc_springs_body b = two_masses(m, k, kd);
    tc_real prev = 0, t = 0, first_cross = -1, last_cross = -1, peak0 = 0.1, peak_late = 0;
    int crossings = 0;
    for (int step = 0; step < 20000; ++step) {
        tc_springs_step_raw(&b, tc_v3_zero(), h);
        t += h;
        tc_real ext = b.x[1].x - b.x[0].x - 1;
        if (step > 0 && prev > 0 && ext <= 0) { // downward zero crossings: one per period
            if (first_cross < 0) first_cross = t;
            last_cross = t, crossings++;
        }
        if (t > 10 * 2 * TC_PI / omega && t < 11 * 2 * TC_PI / omega) peak_late = fmax(peak_late, ext);
        prev = ext;
    }
    tc_real omega_d = omega * sqrt(1 - zeta * zeta), period = (last_cross - first_cross) / (crossings - 1);
    printf("oscillator: period %.6g s (analytic %.6g), peak after 10 periods %.5g (analytic %.5g)\n", period, 2 * TC_PI / omega_d,
           peak_late, peak0 * exp(-zeta * omega * 10.25 * 2 * TC_PI / omega_d));
    assert_near(period, 2 * TC_PI / omega_d, 0.01 * 2 * TC_PI / omega_d);
    tc_real expect = peak0 * exp(-zeta * omega * 10 * 2 * TC_PI / omega_d);
    assert_true(peak_late < expect * 1.02 && peak_late > expect * exp(-zeta * omega * 2 * TC_PI / omega_d) * 0.98);
    tc_array_free(&b.springs);
}

// h = 0.95 x the limit stays bounded; h = 1.05 x grows (undamped: the limit is exactly 2/omega).
static void test_stability_limit(void** state) {
    (void)state;
    tc_real m = 0.5, k = 200;
    tc_real limit = 2 / sqrt(2 * k / m);
    for (int c = 0; c < 2; ++c) {
        tc_springs_body b = two_masses(m, k, 0);
        tc_real h = (c ? 1.05 : 0.95) * limit, amp = 0;
        for (int s = 0; s < 10000; ++s) {
            tc_springs_step_raw(&b, tc_v3_zero(), h);
            amp = fmax(amp, fabs(b.x[1].x - b.x[0].x - 1));
        }
        printf("h = %.2f x limit: max extension %.3g m\n", c ? 1.05 : 0.95, amp);
        if (c) assert_true(amp > 10);
        else assert_true(amp < 0.5); // bounded: symplectic Euler keeps an ellipse, stretched by 1/sqrt(1 - (omega h / 2)^2)
        assert_near(tc_springs_stable_step(&b), 0.9 * limit, 1e-12);
        tc_array_free(&b.springs);
    }
}

// The world sub-steps an explicit body above its limit, says so once, and stays bounded.
static void test_world_substeps_and_reports(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    wd.gravity = tc_v3_zero();
    wd.sub_steps = 1;
    tc_world* w = tc_world_create(&wd, NULL);
    tc_springs_body_def d = tc_springs_body_def_default();
    d.stiffness = 1e5; // far beyond a 1/60 s explicit step
    d.base.angular_velocity = tc_v3(0, 0, 3);
    tc_body_id id;
    tc_error e;
    assert_int_equal(tc_springs_body_create(w, &d, &id, &e), TC_RESULT_OK);
    tc_real limit = tc_springs_body_get_stable_step(w, id);
    assert_true(limit > 0 && limit < wd.time_step / 10);
    tc_test_log_clear();
    for (int s = 0; s < 60; ++s) assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
    assert_non_null(strstr(tc_test_log_text(), "exceeds the explicit limit"));
    tc_real rest;
    tc_real vol = tc_springs_body_get_volume(w, id, &rest);
    assert_near(vol, rest, 0.05 * rest); // spinning, not exploding
    tc_world_destroy(w);
}

static void test_segment_triangle_cases(void** state) {
    (void)state;
    tc_vec3 a = tc_v3(0, 0, 0), b = tc_v3(1, 0, 0), c = tc_v3(0, 1, 0);
    tc_real t;
    assert_true(tc_segment_triangle(tc_v3(0.2, 0.2, -1), tc_v3(0.2, 0.2, 1), a, b, c, &t, NULL)); // hit
    assert_near(t, 0.5, 1e-12);
    assert_false(tc_segment_triangle(tc_v3(0.8, 0.8, -1), tc_v3(0.8, 0.8, 1), a, b, c, &t, NULL)); // miss beside
    assert_false(tc_segment_triangle(tc_v3(0.2, 0.2, 0.5), tc_v3(0.2, 0.2, 1), a, b, c, &t, NULL)); // miss short
    assert_true(tc_segment_triangle(tc_v3(-0.5, 0.2, 0), tc_v3(0.5, 0.2, 0), a, b, c, &t, NULL));  // in the plane
    assert_false(tc_segment_triangle(tc_v3(-0.5, 2, 0), tc_v3(0.5, 2, 0), a, b, c, &t, NULL));     // in the plane, outside
    assert_true(tc_segment_triangle(tc_v3(0, 0, -1), tc_v3(0, 0, 1), a, b, c, &t, NULL));          // through a vertex
    assert_true(tc_segment_triangle(tc_v3(0.3, 0.3, 0), tc_v3(0.3, 0.3, 1), a, b, c, &t, NULL));    // touching at its end
    assert_near(t, 0, 1e-12);
}

static void test_meshes_closed_and_outward(void** state) {
    (void)state;
    tc_tri_mesh m[3];
    memset(m, 0, sizeof m);
    assert_true(tc_mesh_gen_box(&m[0], tc_v3(0.5, 0.25, 0.125), 3));
    assert_true(tc_mesh_gen_sphere(&m[1], 1, 3));
    assert_true(tc_mesh_gen_torus(&m[2], 1, 0.25, 48, 24));
    tc_real vol[3] = {tc_tri_mesh_volume(m[0].vertices.data, m[0].triangles.data, m[0].triangles.count / 3),
                      tc_tri_mesh_volume(m[1].vertices.data, m[1].triangles.data, m[1].triangles.count / 3),
                      tc_tri_mesh_volume(m[2].vertices.data, m[2].triangles.data, m[2].triangles.count / 3)};
    assert_near(vol[0], 1 * 0.5 * 0.25, 1e-12);
    assert_near(vol[1], 4.0 / 3 * TC_PI, 0.02 * 4.0 / 3 * TC_PI);
    assert_near(vol[2], 2 * TC_PI * TC_PI * 1 * 0.0625, 0.02 * 2 * TC_PI * TC_PI * 0.0625);
    for (int i = 0; i < 3; ++i) tc_tri_mesh_free(&m[i]);
}

static void test_bad_defs(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_body_id id;
    tc_error e;
    tc_springs_body_def d = tc_springs_body_def_default();
    d.mass = 0;
    assert_int_equal(tc_springs_body_create(w, &d, &id, &e), TC_RESULT_OUT_OF_RANGE);
    assert_non_null(strstr(e.message, "mass"));
    d = tc_springs_body_def_default();
    d.stiffness = NAN;
    assert_int_equal(tc_springs_body_create(w, &d, &id, &e), TC_RESULT_OUT_OF_RANGE);
    d = tc_springs_body_def_default(); // so far out that doubles crush the mesh (a fuzz find: it hung)
    d.base.pose.p = tc_v3(5.5e61, 0, 1);
    assert_int_equal(tc_springs_body_create(w, &d, &id, &e), TC_RESULT_OUT_OF_RANGE);
    assert_non_null(strstr(e.message, "position"));
    d.base.pose.p = tc_v3(1e6, 0, 1); // far, but well within the limit
    assert_int_equal(tc_springs_body_create(w, &d, &id, &e), TC_RESULT_OK);
    d = tc_springs_body_def_default(); // explicit steps would take seconds (a fuzz find: it hung)
    d.stiffness = 1e30;
    assert_int_equal(tc_springs_body_create(w, &d, &id, &e), TC_RESULT_OUT_OF_RANGE);
    assert_non_null(strstr(e.message, "stiffness"));
    assert_non_null(strstr(e.message, "implicit"));
    d.integrator = TC_SPRINGS_IMPLICIT; // the implicit integrator takes it
    assert_int_equal(tc_springs_body_create(w, &d, &id, &e), TC_RESULT_OK);
    d = tc_springs_body_def_default(); // an open mesh: a single tetrahedron missing one face
    tc_vec3 v[4] = {tc_v3(0, 0, 0), tc_v3(1, 0, 0), tc_v3(0, 1, 0), tc_v3(0, 0, 1)};
    int open[9] = {0, 2, 1, 0, 1, 3, 0, 3, 2};
    d.shape = TC_SPRINGS_MESH, d.mesh_vertices = v, d.mesh_vertex_count = 4, d.mesh_triangles = open, d.mesh_triangle_count = 3;
    assert_int_equal(tc_springs_body_create(w, &d, &id, &e), TC_RESULT_DEGENERATE);
    int inverted[12] = {0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2};
    d.mesh_triangles = inverted, d.mesh_triangle_count = 4;
    assert_int_equal(tc_springs_body_create(w, &d, &id, &e), TC_RESULT_DEGENERATE);
    assert_non_null(strstr(e.message, "inside out"));
    int good[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    d.mesh_triangles = good;
    assert_int_equal(tc_springs_body_create(w, &d, &id, &e), TC_RESULT_OK);
    tc_world_destroy(w);
}

static const tc_springs_body* springs_body(tc_world* w, tc_body_id id) {
    return tc_springs_body_at(w, w->slots.data[id.index1 - 1].index);
}

// Boxes pushed into each other at random offsets: the flood fill's inside set equals the
// vertices that lie inside the other box (exact for boxes).
static void test_flood_fill_matches_geometry(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_springs_body_def d = tc_springs_body_def_default();
    d.resolution = 4;
    d.half_extents = tc_v3(0.5, 0.5, 0.5);
    tc_body_id big, small;
    assert_int_equal(tc_springs_body_create(w, &d, &big, NULL), TC_RESULT_OK);
    unsigned seed = 5;
    for (int trial = 0; trial < 20; ++trial) {
        seed = seed * 1664525u + 1013904223u;
        double r1 = (seed >> 8) / 16777216.0;
        seed = seed * 1664525u + 1013904223u;
        double r2 = (seed >> 8) / 16777216.0;
        tc_springs_body_def e = tc_springs_body_def_default();
        e.resolution = 3;
        e.half_extents = tc_v3(0.23, 0.17, 0.21);
        e.base.pose.p = tc_v3(0.1 * r1 - 0.05, 0.3 * r2 - 0.15, 0.5 + 0.1 * r1 + 0.013);
        e.base.pose.q = tc_quat_from_axis_angle(tc_v3_normalize(tc_v3(r1, r2, 1)), 0.3 * r2);
        assert_int_equal(tc_springs_body_create(w, &e, &small, NULL), TC_RESULT_OK);
        const tc_springs_body *A = springs_body(w, small), *B = springs_body(w, big);
        int inside[512];
        int n = tc_springs_find_inside(A, B, inside, 512);
        int expected = 0;
        for (int i = 0; i < A->n; ++i) {
            tc_vec3 p = A->x[i];
            bool in = fabs(p.x) < 0.5 && fabs(p.y) < 0.5 && fabs(p.z) < 0.5;
            expected += in;
            bool listed = false;
            for (int k = 0; k < n; ++k) listed |= inside[k] == i;
            if (in != listed) fail_msg("trial %d: vertex %d inside %d, flood fill %d", trial, i, in, listed);
        }
        assert_int_equal(n, expected);
        assert_true(expected > 0);
        tc_body_destroy(w, small);
    }
    tc_world_destroy(w);
}

// OBJ input through a scene file, and a .springs text scene with its line-numbered errors.
static void test_obj_and_text_scenes(void** state) {
    (void)state;
    char obj[512], json[512], text[512];
    snprintf(obj, sizeof obj, "%s/springs_tet.obj", TACTUS_BINARY_DIR);
    snprintf(json, sizeof json, "%s/springs_obj.json", TACTUS_BINARY_DIR);
    snprintf(text, sizeof text, "%s/springs_bad.springs", TACTUS_BINARY_DIR);
    FILE* f = fopen(obj, "w");
    fprintf(f, "v 0 0 0\nv 0.2 0 0\nv 0 0.2 0\nv 0 0 0.2\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
    fclose(f);
    f = fopen(json, "w");
    fprintf(f, "{\"bodies\": [{\"type\": \"springs\", \"name\": \"tet\", \"shape\": \"mesh\", \"mesh\": \"springs_tet.obj\","
               " \"position\": [0, 0, 1], \"velocity\": [1, 0, 0]}]}");
    fclose(f);
    tc_error e;
    tc_scene* s = tc_scene_load(json, &e);
    if (!s) fail_msg("%s", e.message);
    tc_body_id id = tc_world_find_body(tc_scene_world(s), "tet");
    assert_int_equal(tc_springs_body_get_vertex_count(tc_scene_world(s), id), 4);
    assert_near(tc_body_get_linear_velocity(tc_scene_world(s), id).x, 1, 1e-12);
    tc_scene_destroy(s);
    f = fopen(text, "w");
    fprintf(f, "ground 0\nmesh box position 0 0 oops velocity 0 0 0\n");
    fclose(f);
    assert_null(tc_scene_load(text, &e));
    assert_non_null(strstr(e.message, "springs_bad.springs: line 2: position needs three finite numbers"));
    char shipped[512];
    snprintf(shipped, sizeof shipped, "%s/scenes/springs_text.springs", TACTUS_SOURCE_DIR);
    s = tc_scene_load(shipped, &e);
    if (!s) fail_msg("%s", e.message);
    assert_int_equal(tc_world_get_body_count(tc_scene_world(s)), 4); // ground + 3 meshes
    tc_scene_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oscillator_period_and_decay), cmocka_unit_test(test_stability_limit),
        cmocka_unit_test(test_world_substeps_and_reports),  cmocka_unit_test(test_segment_triangle_cases),
        cmocka_unit_test(test_meshes_closed_and_outward),   cmocka_unit_test(test_bad_defs),
        cmocka_unit_test(test_flood_fill_matches_geometry), cmocka_unit_test(test_obj_and_text_scenes),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
