// Tet mesh: box generator volume and boundary, barycentric coordinates, inverted-tet rejection,
// TetGen and Gmsh readers.
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
    write_file("tet_io_test.ele", "# tets\n1 4 0\n1 1 2 3 5\n"); // the file's own numbering in the message
    assert_int_equal(tc_tetmesh_read_tetgen(&m, "tet_io_test", &err), TC_RESULT_OUT_OF_RANGE);
    assert_non_null(strstr(err.message, "line 3: node 5 out of range (the .node file numbers 1 to 4)"));
    write_file("tet_io_test.ele", "1 4 0\n1 -2147483648 2 3 4\n"); // no overflow
    assert_int_equal(tc_tetmesh_read_tetgen(&m, "tet_io_test", &err), TC_RESULT_OUT_OF_RANGE);
    assert_int_equal(tc_tetmesh_read_tetgen(&m, "no_such_mesh", &err), TC_RESULT_IO);
    remove("tet_io_test.node");
    remove("tet_io_test.ele");
}

// Writes mesh m as Gmsh ASCII: format 2.2 or 4.1, node tags 10*i+7 (sparse, not in order of
// use), a geometry point node no tet uses, point/line/triangle elements to skip, and a
// $PhysicalNames section to skip.
static void write_gmsh(const char* path, const tc_tetmesh* m, int version) {
    FILE* fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "$MeshFormat\n%s 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n3 1 \"body\"\n$EndPhysicalNames\n", version == 2 ? "2.2" : "4.1");
    int n = m->node_count;
    if (version == 2) {
        fprintf(fp, "$Nodes\n%d\n", n + 1);
        for (int i = n - 1; i >= 0; --i) fprintf(fp, "%d %.17g %.17g %.17g\n", 10 * i + 7, m->nodes[i].x, m->nodes[i].y, m->nodes[i].z);
        fprintf(fp, "99999 5 5 5\n$EndNodes\n$Elements\n%d\n", m->tet_count + 3);
        fprintf(fp, "1 15 2 0 1 99999\n2 1 2 0 1 7 17\n3 2 2 0 1 7 17 27\n");
        for (int t = 0; t < m->tet_count; ++t)
            fprintf(fp, "%d 4 2 1 1 %d %d %d %d\n", t + 4, 10 * m->tets[t][0] + 7, 10 * m->tets[t][1] + 7, 10 * m->tets[t][2] + 7, 10 * m->tets[t][3] + 7);
    } else {
        fprintf(fp, "$Entities\n1 0 0 1\n1 5 5 5 0\n1 0 0 0 1 1 1 0 0\n$EndEntities\n");
        fprintf(fp, "$Nodes\n2 %d 7 99999\n0 1 0 1\n99999\n5 5 5\n3 1 1 %d\n", n + 1, n);
        for (int i = n - 1; i >= 0; --i) fprintf(fp, "%d\n", 10 * i + 7);
        for (int i = n - 1; i >= 0; --i) fprintf(fp, "%.17g %.17g %.17g 0.5 0.5 0.5\n", m->nodes[i].x, m->nodes[i].y, m->nodes[i].z);
        fprintf(fp, "$EndNodes\n$Elements\n2 %d 1 %d\n2 1 2 1\n1 7 17 27\n3 1 4 %d\n", m->tet_count + 1, m->tet_count + 1, m->tet_count);
        for (int t = 0; t < m->tet_count; ++t)
            fprintf(fp, "%d %d %d %d %d\n", t + 2, 10 * m->tets[t][0] + 7, 10 * m->tets[t][1] + 7, 10 * m->tets[t][2] + 7, 10 * m->tets[t][3] + 7);
    }
    fprintf(fp, "$EndElements\n");
    fclose(fp);
}

// Both versions read back to the generated box: same tets (same volume, boundary), the unused
// geometry point dropped.
static void test_read_gmsh_both_versions(void** state) {
    (void)state;
    tc_tetmesh box, m;
    tc_error err = {0};
    assert_int_equal(tc_tetmesh_box(&box, tc_v3(0, 0, 1), tc_v3(1, 2, 3), 2, 3, 4, &err), TC_RESULT_OK);
    for (int version = 2; version <= 4; version += 2) {
        write_gmsh("tet_io_test.msh", &box, version);
        assert_int_equal(tc_tetmesh_read(&m, "tet_io_test.msh", &err), TC_RESULT_OK);
        assert_int_equal(m.node_count, box.node_count);
        assert_int_equal(m.tet_count, box.tet_count);
        assert_int_equal(m.tri_count, box.tri_count);
        assert_near(tc_tetmesh_volume(&m), 6.0, 1e-12);
        for (int t = 0; t < m.tet_count; ++t)
            for (int k = 0; k < 4; ++k) assert_vec3_near(m.nodes[m.tets[t][k]], box.nodes[box.tets[t][k]], 0);
        tc_tetmesh_free(&m);
    }
    tc_tetmesh_free(&box);
    remove("tet_io_test.msh");
}

static void expect_gmsh_error(const char* text, tc_result code, const char* words) {
    write_file("tet_io_test.msh", text);
    tc_tetmesh m;
    tc_error err = {0};
    assert_int_equal(tc_tetmesh_read_gmsh(&m, "tet_io_test.msh", &err), code);
    assert_non_null(strstr(err.message, "tet_io_test.msh"));
    if (!strstr(err.message, words)) fail_msg("'%s' does not say '%s'", err.message, words);
    assert_null(m.nodes);
}

#define GMSH_HEAD "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
#define GMSH_NODES "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n"

static void test_read_gmsh_errors(void** state) {
    (void)state;
    // A second-order tet keeps its corners; mid-edge nodes are dropped.
    write_file("tet_io_test.msh", GMSH_HEAD "$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 .5 0 0\n$EndNodes\n"
                                            "$Elements\n1\n1 11 0 1 2 3 4 5 5 5 5 5 5\n$EndElements\n");
    tc_tetmesh m;
    tc_error err = {0};
    assert_int_equal(tc_tetmesh_read_gmsh(&m, "tet_io_test.msh", &err), TC_RESULT_OK);
    assert_int_equal(m.node_count, 4);
    assert_near(tc_tetmesh_volume(&m), 1.0 / 6, 1e-15);
    tc_tetmesh_free(&m);
    expect_gmsh_error("$MeshFormat\n4.1 1 8\n$EndMeshFormat\n", TC_RESULT_UNSUPPORTED, "binary");
    expect_gmsh_error("$MeshFormat\n3.0 0 8\n$EndMeshFormat\n", TC_RESULT_UNSUPPORTED, "version");
    expect_gmsh_error("$Nodes\n", TC_RESULT_PARSE, "must start with $MeshFormat");
    expect_gmsh_error(GMSH_HEAD GMSH_NODES, TC_RESULT_PARSE, "no $Elements");
    expect_gmsh_error(GMSH_HEAD "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 nan 0\n4 0 0 1\n$EndNodes\n", TC_RESULT_NOT_FINITE, "line 8");
    expect_gmsh_error(GMSH_HEAD "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1\n", TC_RESULT_PARSE, "line 8: expected node coordinates");
    expect_gmsh_error(GMSH_HEAD "$Nodes\n4\n1 0 0 0\n2 1 0 0\n", TC_RESULT_PARSE, "end of file");
    expect_gmsh_error(GMSH_HEAD "$Nodes\n4\n1 0 0 0\n1 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n1\n1 4 0 1 2 3 4\n$EndElements\n",
                      TC_RESULT_PARSE, "tag 1 appears twice");
    expect_gmsh_error(GMSH_HEAD GMSH_NODES "$Elements\n1\n1 4 0 1 2 3 9\n$EndElements\n", TC_RESULT_OUT_OF_RANGE, "node tag 9");
    expect_gmsh_error(GMSH_HEAD GMSH_NODES "$Elements\n1\n1 2 0 1 2 3\n$EndElements\n", TC_RESULT_DEGENERATE, "no tetrahedra");
    expect_gmsh_error(GMSH_HEAD GMSH_NODES "$Elements\n1\n1 4 0 1 3 2 4\n$EndElements\n", TC_RESULT_DEGENERATE, "inverted");
    expect_gmsh_error(GMSH_HEAD GMSH_NODES "$Elements\n1\n1 4 0 1 2 3\n$EndElements\n", TC_RESULT_PARSE, "line 13: tetrahedron");
    expect_gmsh_error(GMSH_HEAD GMSH_NODES "$Elements\n1\n1 4 0 1 2 3 4\n$Nodes\n", TC_RESULT_PARSE, "expected $EndElements");
    tc_error e2 = {0};
    assert_int_equal(tc_tetmesh_read(&m, "no_such_mesh.msh", &e2), TC_RESULT_IO);
    remove("tet_io_test.msh");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_box_volume_and_boundary, tc_test_setup_log),
        cmocka_unit_test_setup(test_barycentric, tc_test_setup_log),
        cmocka_unit_test_setup(test_read_tetgen, tc_test_setup_log),
        cmocka_unit_test_setup(test_inverted_tet_rejected, tc_test_setup_log),
        cmocka_unit_test_setup(test_read_gmsh_both_versions, tc_test_setup_log),
        cmocka_unit_test_setup(test_read_gmsh_errors, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
