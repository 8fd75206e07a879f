// Tetrahedral FEM bodies: meshes, errors, a cantilever against Euler-Bernoulli, resting volume.
#include "tc_test.h"

#include "dynamics/tet/tet.h"

#include <stdio.h>

static tc_world* world_with(tc_real dt, int sub, tc_vec3 g) {
    tc_world_def d = tc_world_def_default();
    d.time_step = dt, d.sub_steps = sub, d.gravity = g;
    tc_world* w = tc_world_create(&d, NULL);
    assert_non_null(w);
    return w;
}

static void test_box_mesh_volume_and_mass(void** state) {
    (void)state;
    tc_world* w = world_with(1.0 / 60, 4, tc_v3_zero());
    tc_tet_body_def d = tc_tet_body_def_default();
    d.half_extents = tc_v3(0.3, 0.2, 0.1);
    d.resolution = 6;
    tc_body_id id;
    assert_int_equal(tc_tet_body_create(w, &d, &id, NULL), TC_RESULT_OK);
    tc_real rest;
    int inverted;
    assert_near(tc_tet_body_get_volume(w, id, &rest, &inverted), 0.6 * 0.4 * 0.2, 1e-12);
    assert_int_equal(inverted, 0);
    assert_near(tc_body_get_mass(w, id), 1000 * 0.048, 1e-9);
    tc_world_destroy(w);
}

static void test_bad_meshes(void** state) {
    (void)state;
    tc_world* w = world_with(1.0 / 60, 4, tc_v3_zero());
    tc_vec3 v[4] = {tc_v3(0, 0, 0), tc_v3(1, 0, 0), tc_v3(0, 1, 0), tc_v3(0, 0, 1)};
    int inverted[4] = {0, 2, 1, 3}, flat_tet[4] = {0, 1, 2, 2}, range[4] = {0, 1, 2, 7};
    tc_tet_body_def d = tc_tet_body_def_default();
    d.shape = TC_TET_MESH, d.vertices = v, d.vertex_count = 4, d.tet_count = 1;
    tc_body_id id;
    tc_error e;
    d.tets = inverted;
    assert_int_equal(tc_tet_body_create(w, &d, &id, &e), TC_RESULT_DEGENERATE);
    assert_non_null(strstr(e.message, "tet 0 is inverted"));
    d.tets = flat_tet;
    assert_int_equal(tc_tet_body_create(w, &d, &id, &e), TC_RESULT_DEGENERATE);
    assert_non_null(strstr(e.message, "zero volume"));
    d.tets = range;
    assert_int_equal(tc_tet_body_create(w, &d, &id, &e), TC_RESULT_OUT_OF_RANGE);
    d = tc_tet_body_def_default();
    d.poisson_ratio = 0.5;
    assert_int_equal(tc_tet_body_create(w, &d, &id, &e), TC_RESULT_OUT_OF_RANGE);
    assert_non_null(strstr(e.message, "poisson_ratio"));
    d = tc_tet_body_def_default(); // so far out that doubles would crush the tets
    d.base.pose.p = tc_v3(1e20, 0, 0);
    assert_int_equal(tc_tet_body_create(w, &d, &id, &e), TC_RESULT_OUT_OF_RANGE);
    assert_non_null(strstr(e.message, "position"));
    d.base.pose.p = tc_v3(1e5, 0, 0); // far, but within the limit
    assert_int_equal(tc_tet_body_create(w, &d, &id, &e), TC_RESULT_OK);
    tc_world_destroy(w);
}

// A beam clamped at one end sags under gravity: tip deflection q L^4 / (8 E I).
static void test_cantilever_euler_bernoulli(void** state) {
    (void)state;
    tc_world* w = world_with(0.25, 1, tc_v3(0, 0, -9.81)); // large implicit steps: straight to the rest shape
    tc_tet_body_def d = tc_tet_body_def_default();
    tc_real L = 1, a = 0.1, E = 5e7;
    d.half_extents = tc_v3(L / 2, a / 2, a / 2);
    d.resolution = 60; // 6 elements through the thickness: linear tets lock in bending when coarser
    d.youngs_modulus = E;
    d.poisson_ratio = 0;
    d.damping = 0.05;
    d.fixed_box = (tc_aabb){tc_v3(-L / 2 - 1e-6, -1, -1), tc_v3(-L / 2 + 1e-6, 1, 1)};
    tc_body_id id;
    assert_int_equal(tc_tet_body_create(w, &d, &id, NULL), TC_RESULT_OK);
    int n = tc_tet_body_get_vertex_count(w, id);
    tc_vec3* x = calloc((size_t)n, sizeof(tc_vec3));
    bool* at_tip = calloc((size_t)n, sizeof(bool));
    tc_tet_body_get_vertices(w, id, x, NULL, n);
    for (int i = 0; i < n; ++i) at_tip[i] = x[i].x > L / 2 - 1e-6; // the free end, chosen at rest
    tc_error e;
    for (int s = 0; s < 16; ++s) assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
    tc_tet_body_get_vertices(w, id, x, NULL, n);
    tc_real tip = 0;
    int count = 0;
    for (int i = 0; i < n; ++i)
        if (at_tip[i]) tip += x[i].z, count++;
    tip /= count;
    free(at_tip);
    tc_real q = 1000 * 9.81 * a * a, I = a * a * a * a / 12, expect = q * L * L * L * L / (8 * E * I);
    printf("cantilever: tip deflection %.4g m, Euler-Bernoulli %.4g m\n", -tip, expect);
    assert_near(-tip / expect, 1, 0.1);
    free(x);
    tc_world_destroy(w);
}

static void test_box_rests_on_ground(void** state) {
    (void)state;
    tc_world* w = world_with(1.0 / 60, 4, tc_v3(0, 0, -9.81));
    tc_shape_def plane = tc_shape_def_default(TC_SHAPE_PLANE);
    tc_rigid_body_def g = tc_rigid_body_def_default();
    g.is_static = true, g.shapes = &plane, g.shape_count = 1;
    tc_body_id ground, box;
    assert_int_equal(tc_rigid_body_create(w, &g, &ground, NULL), TC_RESULT_OK);
    tc_tet_body_def d = tc_tet_body_def_default();
    d.base.pose.p = tc_v3(0, 0, 0.5);
    d.base.pose.q = tc_quat_from_axis_angle(tc_v3(1, 0, 0), 0.3);
    assert_int_equal(tc_tet_body_create(w, &d, &box, NULL), TC_RESULT_OK);
    tc_error e;
    for (int s = 0; s < 180; ++s) assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
    tc_real rest;
    int inverted;
    tc_real vol = tc_tet_body_get_volume(w, box, &rest, &inverted);
    int n = tc_tet_body_get_vertex_count(w, box);
    tc_vec3 x[512];
    tc_tet_body_get_vertices(w, box, x, NULL, 512);
    tc_real low = 1e9;
    for (int i = 0; i < n; ++i) low = fmin(low, x[i].z);
    tc_real ke = tc_world_get_stats(w).kinetic_energy;
    printf("tet box on the ground: volume %.4g of %.4g, lowest vertex %.3g m, KE %.3g J, %d inverted\n", vol, rest, low, ke, inverted);
    assert_near(vol / rest, 1, 0.05);
    assert_int_equal(inverted, 0);
    assert_true(low > -0.01);
    assert_true(ke < 0.05);
    tc_world_destroy(w);
}

// Consistent depth is exact against a flat face (ALGORITHMS §5.1): every colliding vertex of a
// small cube pushed into a wide slab gets its distance to the slab's top as depth, straight up.
static void test_consistent_depth_half_space(void** state) {
    (void)state;
    tc_world* w = world_with(1.0 / 60, 1, tc_v3_zero());
    tc_tet_body_def slab = tc_tet_body_def_default();
    slab.half_extents = tc_v3(1, 1, 0.2);
    slab.resolution = 10;
    slab.base.pose.p = tc_v3(0, 0, -0.2);
    slab.fixed_box = (tc_aabb){tc_v3(-2, -2, -2), tc_v3(2, 2, 2)};
    tc_tet_body_def cube = tc_tet_body_def_default();
    cube.half_extents = tc_v3(0.1, 0.1, 0.1);
    cube.resolution = 4;
    cube.base.pose.p = tc_v3(0.013, -0.021, 0.1 - 0.07); // 7 cm into the slab
    tc_body_id a, b;
    assert_int_equal(tc_tet_body_create(w, &slab, &a, NULL), TC_RESULT_OK);
    assert_int_equal(tc_tet_body_create(w, &cube, &b, NULL), TC_RESULT_OK);
    tc_error e;
    assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
    int n = 0, checked = 0;
    const tc_contact* c = tc_world_get_contacts(w, &n);
    for (int i = 0; i < n; ++i) {
        if (!tc_body_id_equal(c[i].body_b, b)) continue;
        assert_near(-c[i].separation, -c[i].point.z, 1e-9);     // depth = distance below the top face
        assert_vec3_near(c[i].normal, tc_v3(0, 0, 1), 1e-9);     // pushed straight out
        checked++;
    }
    printf("consistent depth on a half-space: %d colliding vertices exact\n", checked);
    assert_true(checked >= 25 * 2); // the cube's bottom two layers of vertices at least
    tc_world_destroy(w);
}

// Issue 5 (e): a box whose vertices are mirrored (every tet inverted) or squashed flat (every
// tet of zero volume) springs back to its rest volume with no inverted tet and no NaN: the QR
// rotation stays proper, so the elastic forces push the elements back out.
static void test_inverted_box_recovers(void** state) {
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        tc_world* w = world_with(1.0 / 60, 4, tc_v3_zero());
        tc_tet_body_def d = tc_tet_body_def_default();
        d.resolution = 3;
        d.damping = 0.02;
        tc_body_id id;
        assert_int_equal(tc_tet_body_create(w, &d, &id, NULL), TC_RESULT_OK);
        tc_tet_body* b = tc_tet_body_at(w, 0);
        for (int i = 0; i < b->n; ++i) {
            if (mode == 0) b->x[i].x = -b->x[i].x;
            else b->x[i].z = 0;
        }
        tc_tet_update_surface(b);
        tc_real rest;
        int inverted;
        tc_real before = tc_tet_body_get_volume(w, id, &rest, &inverted);
        assert_true(mode == 0 ? inverted == b->tet_count && before < 0 : inverted == b->tet_count);
        tc_error e;
        for (int s = 0; s < 120; ++s) assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK); // check_finite fails on NaN
        tc_real after = tc_tet_body_get_volume(w, id, &rest, &inverted);
        printf("%s box: volume %.3g -> %.4g of %.4g, %d inverted tets left\n", mode == 0 ? "mirrored" : "flattened", before, after, rest,
               inverted);
        assert_int_equal(inverted, 0);
        assert_near(after / rest, 1, 0.05);
        tc_world_destroy(w);
    }
}

// A mesh vertex that belongs to no tet has no mass: it stays put instead of poisoning the solve.
static void test_stray_vertex_is_inert(void** state) {
    (void)state;
    tc_world* w = world_with(1.0 / 60, 4, tc_v3(0, 0, -9.81));
    tc_vec3 v[5] = {tc_v3(0, 0, 0), tc_v3(0.1, 0, 0), tc_v3(0, 0.1, 0), tc_v3(0, 0, 0.1), tc_v3(1, 1, 1)};
    int tet[4] = {0, 1, 2, 3};
    tc_tet_body_def d = tc_tet_body_def_default();
    d.shape = TC_TET_MESH, d.vertices = v, d.vertex_count = 5, d.tets = tet, d.tet_count = 1;
    tc_body_id id;
    assert_int_equal(tc_tet_body_create(w, &d, &id, NULL), TC_RESULT_OK);
    tc_error e;
    for (int s = 0; s < 30; ++s) assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
    tc_vec3 x[5];
    tc_tet_body_get_vertices(w, id, x, NULL, 5);
    assert_vec3_near(x[4], tc_v3(1, 1, 1), 0);
    assert_near(x[0].z, -0.5 * 9.81 * 0.25, 0.05); // the tet itself falls freely for 0.5 s
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_box_mesh_volume_and_mass), cmocka_unit_test(test_bad_meshes),
                                       cmocka_unit_test(test_cantilever_euler_bernoulli), cmocka_unit_test(test_box_rests_on_ground),
                                       cmocka_unit_test(test_consistent_depth_half_space), cmocka_unit_test(test_inverted_box_recovers),
                                       cmocka_unit_test(test_stray_vertex_is_inert)};
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
