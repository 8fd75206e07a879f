// Tet mesh: box generator volume and boundary, barycentric coordinates, inverted-tet rejection.
#include "tc_test.h"
#include <stdio.h>
#include "geometry/tetmesh.h"

static void test_box_volume_and_boundary(void** state) {
    (void)state;
    tc_tetmesh m;
    tc_error err = {0};
    assert_int_equal(tc_tetmesh_box(&m, tc_v3(1, 2, 3), tc_v3(2, 1, 0.5), 3, 2, 4, &err), TC_RESULT_OK);
    assert_int_equal(m.tet_count, 6 * 3 * 2 * 4);
    assert_near(tc_tetmesh_volume(&m), 1.0, 1e-12);
    // Boundary of a Kuhn-split box: 2 triangles per surface quad.
    assert_int_equal(m.tri_count, 2 * 2 * (3 * 2 + 2 * 4 + 3 * 4));
    // Divergence theorem: sum of outward area vectors is zero, and sum (x . n A)/3 is the volume.
    tc_vec3 sum = tc_v3_zero();
    tc_real vol = 0;
    for (int i = 0; i < m.tri_count; ++i) {
        tc_vec3 a = m.nodes[m.tris[i][0]], b = m.nodes[m.tris[i][1]], c = m.nodes[m.tris[i][2]];
        tc_vec3 an = tc_v3_scale(tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(c, a)), 0.5);
        sum = tc_v3_add(sum, an);
        vol += tc_v3_dot(a, an) / 3;
    }
    assert_vec3_near(sum, tc_v3_zero(), 1e-12);
    assert_near(vol, 1.0, 1e-12);
    tc_tetmesh_free(&m);
}

static void test_barycentric(void** state) {
    (void)state;
    tc_vec3 a = tc_v3(0, 0, 0), b = tc_v3(1, 0, 0), c = tc_v3(0, 1, 0), d = tc_v3(0, 0, 1);
    tc_real w[4];
    assert_true(tc_tet_barycentric(a, b, c, d, tc_v3(0.1, 0.2, 0.3), w));
    assert_near(w[0], 0.4, 1e-14);
    assert_near(w[1], 0.1, 1e-14);
    assert_near(w[2], 0.2, 1e-14);
    assert_near(w[3], 0.3, 1e-14);
    assert_false(tc_tet_barycentric(a, b, c, tc_v3(1, 1, 0), tc_v3(0, 0, 0), w));
}

static void test_inverted_tet_rejected(void** state) {
    (void)state;
    tc_vec3 nodes[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    int tets[1][4] = {{0, 2, 1, 3}};
    tc_tetmesh m = {nodes, 4, tets, 1, NULL, 0};
    tc_error err = {0};
    assert_int_equal(tc_tetmesh_finalize(&m, "x.ele", &err), TC_RESULT_DEGENERATE);
    assert_non_null(strstr(err.message, "inverted"));
    tets[0][3] = 7;
    assert_int_equal(tc_tetmesh_finalize(&m, "x.ele", &err), TC_RESULT_OUT_OF_RANGE);
    tc_tetmesh bad;
    assert_int_equal(tc_tetmesh_box(&bad, tc_v3_zero(), tc_v3(1, -1, 1), 1, 1, 1, &err), TC_RESULT_OUT_OF_RANGE);
}

static void write_file(const char* path, const char* text) {
    FILE* fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

// One-based TetGen files of a unit tet: volume 1/6, 4 boundary triangles; then bad files.
static void test_read_tetgen(void** state) {
    (void)state;
    write_file("tet_io_test.node", "# comment\n4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n");
    write_file("tet_io_test.ele", "1 4 0\n1 1 2 3 4\n");
    tc_tetmesh m;
    tc_error err = {0};
    assert_int_equal(tc_tetmesh_read_tetgen(&m, "tet_io_test", &err), TC_RESULT_OK);
    assert_near(tc_tetmesh_volume(&m), 1.0 / 6, 1e-15);
    assert_int_equal(m.tri_count, 4);
    tc_tetmesh_free(&m);
    write_file("tet_io_test.ele", "1 4 0\n1 1 3 2 4\n");
    assert_int_equal(tc_tetmesh_read_tetgen(&m, "tet_io_test", &err), TC_RESULT_DEGENERATE);
    write_file("tet_io_test.ele", "1 4 0\n1 1 2 x 4\n");
    assert_int_equal(tc_tetmesh_read_tetgen(&m, "tet_io_test", &err), TC_RESULT_PARSE);
    assert_non_null(strstr(err.message, "line 2"));
    assert_int_equal(tc_tetmesh_read_tetgen(&m, "no_such_mesh", &err), TC_RESULT_IO);
    remove("tet_io_test.node");
    remove("tet_io_test.ele");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_box_volume_and_boundary, tc_test_setup_log),
        cmocka_unit_test_setup(test_barycentric, tc_test_setup_log),
        cmocka_unit_test_setup(test_read_tetgen, tc_test_setup_log),
        cmocka_unit_test_setup(test_inverted_tet_rejected, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
