// Mass properties against closed forms.
#include "tc_test.h"
#include "geometry/mass.h"

static void box_mesh(tc_vec3 h, tc_vec3 off, tc_vec3 v[8], int tri[36]) {
    for (int i = 0; i < 8; ++i) v[i] = tc_v3_add(off, tc_v3(i & 4 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 1 ? h.z : -h.z));
    static const int quads[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    for (int f = 0; f < 6; ++f) {
        int* t = tri + 6 * f;
        t[0] = quads[f][0]; t[1] = quads[f][1]; t[2] = quads[f][2];
        t[3] = quads[f][0]; t[4] = quads[f][2]; t[5] = quads[f][3];
    }
}

static void test_box_closed_form(void** state) {
    (void)state;
    tc_mass_props m = tc_mass_box(tc_v3(1, 2, 3), 10);
    assert_near(m.mass, 10 * 48, 1e-9);
    assert_near(m.inertia.m[0][0], m.mass / 12 * (16 + 36), 1e-9);
    assert_near(m.inertia.m[1][1], m.mass / 12 * (4 + 36), 1e-9);
    assert_near(m.inertia.m[2][2], m.mass / 12 * (4 + 16), 1e-9);
}

static void test_sphere_closed_form(void** state) {
    (void)state;
    tc_mass_props m = tc_mass_sphere(0.5, 1000);
    assert_near(m.mass, 1000 * 4.0 / 3.0 * TC_PI * 0.125, 1e-9);
    assert_near(m.inertia.m[2][2], 0.4 * m.mass * 0.25, 1e-9);
}

static void test_mesh_box_equals_box(void** state) {
    (void)state;
    tc_vec3 v[8];
    int tri[36];
    box_mesh(tc_v3(1, 2, 3), tc_v3(5, -4, 2), v, tri);
    tc_mass_props m, ref = tc_mass_box(tc_v3(1, 2, 3), 7);
    assert_int_equal(tc_mass_from_mesh(v, tri, 12, 7, &m), TC_RESULT_OK);
    assert_near(m.mass, ref.mass, 1e-9);
    assert_vec3_near(m.center, tc_v3(5, -4, 2), 1e-12);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) assert_near(m.inertia.m[i][j], ref.inertia.m[i][j], 1e-9);
}

static void test_mesh_tetrahedron(void** state) {
    (void)state;
    // Unit right tetrahedron: V = 1/6, centroid 1/4, inertia about the centroid:
    // about the origin Ixx = 2*rho/60 = m/5, Ixy = -rho/120; shifted to the centroid: 3m/40 and +m/80.
    tc_vec3 v[4] = {tc_v3(0, 0, 0), tc_v3(1, 0, 0), tc_v3(0, 1, 0), tc_v3(0, 0, 1)};
    int tri[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    tc_mass_props m;
    assert_int_equal(tc_mass_from_mesh(v, tri, 4, 6, &m), TC_RESULT_OK);
    assert_near(m.volume, 1.0 / 6.0, 1e-15);
    assert_near(m.mass, 1, 1e-14);
    assert_vec3_near(m.center, tc_v3(0.25, 0.25, 0.25), 1e-15);
    assert_near(m.inertia.m[0][0], 3.0 / 40.0, 1e-14);
    assert_near(m.inertia.m[0][1], 1.0 / 80.0, 1e-14);
}

static void test_mesh_inverted_is_degenerate(void** state) {
    (void)state;
    tc_vec3 v[4] = {tc_v3(0, 0, 0), tc_v3(1, 0, 0), tc_v3(0, 1, 0), tc_v3(0, 0, 1)};
    int tri[12] = {0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2}; // inward winding
    tc_mass_props m;
    assert_int_equal(tc_mass_from_mesh(v, tri, 4, 1, &m), TC_RESULT_DEGENERATE);
}

static void test_combine_parallel_axis(void** state) {
    (void)state;
    // Two unit cubes side by side equal one 2x1x1 box.
    tc_mass_props a = tc_mass_box(tc_v3(0.5, 0.5, 0.5), 1), parts[2];
    tc_transform left = tc_transform_identity(), right = tc_transform_identity();
    left.p = tc_v3(-0.5, 0, 0);
    right.p = tc_v3(0.5, 0, 0);
    parts[0] = tc_mass_transform(a, left);
    parts[1] = tc_mass_transform(a, right);
    tc_mass_props c = tc_mass_combine(parts, 2), ref = tc_mass_box(tc_v3(1, 0.5, 0.5), 1);
    assert_near(c.mass, ref.mass, 1e-12);
    for (int i = 0; i < 3; ++i) assert_near(c.inertia.m[i][i], ref.inertia.m[i][i], 1e-12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_closed_form),
        cmocka_unit_test(test_sphere_closed_form),
        cmocka_unit_test(test_mesh_box_equals_box),
        cmocka_unit_test(test_mesh_tetrahedron),
        cmocka_unit_test(test_mesh_inverted_is_degenerate),
        cmocka_unit_test(test_combine_parallel_axis),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
