// OBJ and PLY readers against small files written here; VTK writer output structure.
#include "tc_test.h"

#include <stdint.h>

static char tmp_dir[256];

static int make_tmp_dir(void** state) {
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "%s/test_mesh_io_tmp", TACTUS_BINARY_DIR);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char* write_bytes(const char* name, const void* data, size_t n, char* buf, size_t bn) {
    snprintf(buf, bn, "%s/%s", tmp_dir, name);
    FILE* f = fopen(buf, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
    return buf;
}

static const char* write_text(const char* name, const char* text, char* buf, size_t bn) {
    return write_bytes(name, text, strlen(text), buf, bn);
}

/// Signed volume of a closed triangle mesh (divergence theorem); 1/6 for the unit corner tet.
static double mesh_volume(const tc_mesh* m) {
    double v = 0;
    for (int t = 0; t < m->triangle_count; ++t) {
        tc_vec3 a = m->vertices[m->triangles[3 * t]], b = m->vertices[m->triangles[3 * t + 1]],
                c = m->vertices[m->triangles[3 * t + 2]];
        v += tc_v3_dot(a, tc_v3_cross(b, c)) / 6.0;
    }
    return v;
}

static void test_obj_forms(void** state) {
    (void)state;
    char path[512];
    // A unit cube: quads (fan-triangulated), the v/vt/vn, v//vn, v/vt and negative-index forms.
    write_text("cube.obj",
               "# cube\no cube\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
               "vt 0 0\nvn 0 0 -1\nvn 0 0 1\n"
               "f 1/1/1 4/1/1 3/1/1 2/1/1\n"
               "f 5//2 6//2 7//2 8//2\n"
               "f 1/1 2/1 6/1 5/1\n"
               "f -6 -5 -1 -2\n" // 3 4 8 7 (relative to the 8 vertices)
               "f 4 1 5 8\n"
               "f 2 3 7 6\n",
               path, sizeof path);
    tc_mesh m;
    tc_error e;
    assert_int_equal(tc_mesh_load(path, &m, &e), TC_RESULT_OK);
    assert_int_equal(m.vertex_count, 8);
    assert_int_equal(m.triangle_count, 12);
    assert_near(mesh_volume(&m), 1.0, 1e-12); // closed, consistently outward: volume 1
    assert_non_null(m.normals);
    assert_vec3_near(m.normals[0], tc_v3(0, 0, -1), 0);
    assert_vec3_near(m.normals[6], tc_v3(0, 0, 1), 0);
    tc_mesh_free(&m);
    assert_null(m.vertices);
}

static void test_obj_errors(void** state) {
    (void)state;
    char path[512], want[800];
    tc_mesh m;
    tc_error e;
    write_text("bad1.obj", "v 0 0 0\nv 1 0\n", path, sizeof path);
    assert_int_equal(tc_mesh_load_obj(path, &m, &e), TC_RESULT_PARSE);
    snprintf(want, sizeof want, "%s: line 2: expected 3 numbers", path);
    assert_string_equal(e.message, want);
    assert_int_equal(e.line, 2);
    write_text("bad2.obj", "v 0 0 0\nv 1 0 0\n\nf 1 2\n", path, sizeof path);
    assert_int_equal(tc_mesh_load_obj(path, &m, &e), TC_RESULT_DEGENERATE);
    snprintf(want, sizeof want, "%s: line 4: a face needs at least 3 vertices (got 2)", path);
    assert_string_equal(e.message, want);
    write_text("bad3.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", path, sizeof path);
    assert_int_equal(tc_mesh_load_obj(path, &m, &e), TC_RESULT_OUT_OF_RANGE);
    write_text("bad4.obj", "# nothing\n", path, sizeof path);
    assert_int_equal(tc_mesh_load_obj(path, &m, &e), TC_RESULT_PARSE);
    assert_int_equal(tc_mesh_load("/nonexistent.obj", &m, &e), TC_RESULT_IO);
    assert_int_equal(tc_mesh_load("x.stl", &m, &e), TC_RESULT_UNSUPPORTED);
    assert_null(m.vertices);
}

static const char* TET_HEADER_FMT =
    "ply\nformat %s 1.0\ncomment corner tetrahedron\nelement vertex 4\nproperty float x\nproperty float y\n"
    "property float z\nproperty float nx\nproperty float ny\nproperty float nz\nelement face 4\n"
    "property list uchar int vertex_indices\nend_header\n";

static const float TET_V[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
static const int TET_F[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

static void check_tet(const tc_mesh* m) {
    assert_int_equal(m->vertex_count, 4);
    assert_int_equal(m->triangle_count, 4);
    for (int i = 0; i < 4; ++i) assert_vec3_near(m->vertices[i], tc_v3(TET_V[i][0], TET_V[i][1], TET_V[i][2]), 0);
    for (int i = 0; i < 12; ++i) assert_int_equal(m->triangles[i], TET_F[i / 3][i % 3]);
    assert_near(mesh_volume(m), 1.0 / 6.0, 1e-12);
    assert_non_null(m->normals);
    assert_vec3_near(m->normals[3], tc_v3(0, 0, 1), 0);
}

static void put(uint8_t** p, const void* src, int n, bool big) {
    const uint8_t* s = src;
    for (int i = 0; i < n; ++i) (*p)[i] = big ? s[n - 1 - i] : s[i]; // host is little-endian (x86/ARM)
    *p += n;
}

static void write_binary_tet(const char* name, bool big, char* path, size_t pn) {
    uint8_t buf[2048];
    int h = snprintf((char*)buf, sizeof buf, TET_HEADER_FMT, big ? "binary_big_endian" : "binary_little_endian");
    uint8_t* p = buf + h;
    for (int i = 0; i < 4; ++i) {
        put(&p, TET_V[i], 12, false);
        // Each float swapped individually for big-endian.
        if (big) {
            p -= 12;
            for (int k = 0; k < 3; ++k) put(&p, &TET_V[i][k], 4, true);
        }
        float n[3] = {0, 0, (float)(i == 3)};
        for (int k = 0; k < 3; ++k) put(&p, &n[k], 4, big);
    }
    for (int f = 0; f < 4; ++f) {
        uint8_t three = 3;
        put(&p, &three, 1, big);
        for (int k = 0; k < 3; ++k) put(&p, &TET_F[f][k], 4, big);
    }
    write_bytes(name, buf, (size_t)(p - buf), path, pn);
}

static void test_ply_ascii_and_binary(void** state) {
    (void)state;
    char path[512], text[2048];
    int n = snprintf(text, sizeof text, TET_HEADER_FMT, "ascii");
    snprintf(text + n, sizeof text - (size_t)n,
             "0 0 0 0 0 0\n1 0 0 0 0 0\n0 1 0 0 0 0\n0 0 1 0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n");
    tc_mesh m;
    tc_error e;
    assert_int_equal(tc_mesh_load(write_text("tet_ascii.ply", text, path, sizeof path), &m, &e), TC_RESULT_OK);
    check_tet(&m);
    tc_mesh_free(&m);
    write_binary_tet("tet_le.ply", false, path, sizeof path);
    if (tc_mesh_load(path, &m, &e) != TC_RESULT_OK) fail_msg("%s", e.message);
    check_tet(&m);
    tc_mesh_free(&m);
    write_binary_tet("tet_be.PLY", true, path, sizeof path);
    if (tc_mesh_load(path, &m, &e) != TC_RESULT_OK) fail_msg("%s", e.message);
    check_tet(&m);
    tc_mesh_free(&m);
}

static void test_ply_points_and_quads(void** state) {
    (void)state;
    char path[512];
    tc_mesh m;
    tc_error e;
    // Points only (no faces), double precision, an extra ignored property and element.
    write_text("pts.ply",
               "ply\nformat ascii 1.0\nelement vertex 3\nproperty double x\nproperty double y\nproperty double z\n"
               "property uchar red\nelement edge 1\nproperty int vertex1\nproperty int vertex2\nend_header\n"
               "1.5 2 3 255\n4 5 6 0\n\n7 8 9.25 9\n0 1\n",
               path, sizeof path);
    if (tc_mesh_load_ply(path, &m, &e) != TC_RESULT_OK) fail_msg("%s", e.message);
    assert_int_equal(m.vertex_count, 3);
    assert_int_equal(m.triangle_count, 0);
    assert_null(m.normals);
    assert_vec3_near(m.vertices[2], tc_v3(7, 8, 9.25), 0);
    tc_mesh_free(&m);
    // A quad face is fan-triangulated into two triangles.
    write_text("quad.ply",
               "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
               "element face 1\nproperty list uchar uint vertex_index\nend_header\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n",
               path, sizeof path);
    if (tc_mesh_load_ply(path, &m, &e) != TC_RESULT_OK) fail_msg("%s", e.message);
    assert_int_equal(m.triangle_count, 2);
    int want[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 6; ++i) assert_int_equal(m.triangles[i], want[i]);
    tc_mesh_free(&m);
}

static void test_ply_errors(void** state) {
    (void)state;
    char path[512], want[800];
    tc_mesh m;
    tc_error e;
    write_text("e1.ply", "plyx\n", path, sizeof path);
    assert_int_equal(tc_mesh_load_ply(path, &m, &e), TC_RESULT_PARSE);
    write_text("e2.ply", "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\n"
                         "end_header\n0 0 0\n1 1\n",
               path, sizeof path);
    assert_int_equal(tc_mesh_load_ply(path, &m, &e), TC_RESULT_PARSE);
    snprintf(want, sizeof want, "%s: line 9: expected a number", path);
    assert_string_equal(e.message, want);
    write_text("e3.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty quad x\nend_header\n", path, sizeof path);
    assert_int_equal(tc_mesh_load_ply(path, &m, &e), TC_RESULT_PARSE);
    snprintf(want, sizeof want, "%s: line 4: unknown property type \"quad\"", path);
    assert_string_equal(e.message, want);
    write_text("e4.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                         "property float z\nend_header\nabc",
               path, sizeof path);
    assert_int_equal(tc_mesh_load_ply(path, &m, &e), TC_RESULT_PARSE);
    assert_non_null(strstr(e.message, "unexpected end of file"));
    write_text("e5.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                         "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n",
               path, sizeof path);
    assert_int_equal(tc_mesh_load_ply(path, &m, &e), TC_RESULT_OUT_OF_RANGE);
    snprintf(want, sizeof want, "%s: line 13: vertex index out of range", path);
    assert_string_equal(e.message, want);
    assert_null(m.vertices);
}

static int count_occurrences(const char* hay, const char* needle) {
    int n = 0;
    for (const char* p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static char* slurp(const char* path) {
    FILE* f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* s = malloc((size_t)n + 1);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/// Decodes VTK inline binary (base64 of [uint32 size][data]) starting at text; returns the byte count.
static size_t decode_vtk_block(const char* text, unsigned char* out, size_t cap) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (const char* c = text; *c && *c != '<'; ++c) {
        const char* p = *c ? strchr(alphabet, *c) : NULL;
        if (!p || *c == '=') continue;
        acc = (acc << 6) | (uint32_t)(p - alphabet);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n < cap) out[n] = (unsigned char)(acc >> bits);
            n++;
        }
    }
    return n;
}

/// Every recorded point of a box drawn at a known pose lies on that box's surface.
static void test_vtk_points_on_box(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_shape_def box = tc_shape_def_default(TC_SHAPE_BOX);
    box.half_extents = tc_v3(0.5, 0.25, 1.0);
    tc_rigid_body_def bd = tc_rigid_body_def_default();
    bd.shapes = &box;
    bd.shape_count = 1;
    bd.base.pose.p = tc_v3(1, 2, 3);
    bd.base.pose.q = tc_quat_from_axis_angle(tc_v3(0, 0, 1), 0.3);
    tc_body_id id;
    assert_int_equal(tc_rigid_body_create(w, &bd, &id, NULL), TC_RESULT_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/box_points.vtp", tmp_dir);
    assert_int_equal(tc_vtk_write_world(w, path, NULL), TC_RESULT_OK);
    char* s = slurp(path);
    int np = 0;
    assert_int_equal(sscanf(strstr(s, "<Piece "), "<Piece NumberOfPoints=\"%d\"", &np), 1);
    const char* pts = strstr(strstr(s, "<Points>"), "format=\"binary\">") + strlen("format=\"binary\">");
    size_t cap = 4 + 12 * (size_t)np;
    unsigned char* raw = malloc(cap);
    assert_int_equal(decode_vtk_block(pts, raw, cap), cap);
    uint32_t size;
    memcpy(&size, raw, 4);
    assert_int_equal(size, 12 * (size_t)np);
    for (int i = 0; i < np; ++i) {
        float f[3];
        memcpy(f, raw + 4 + 12 * (size_t)i, 12);
        tc_vec3 local = tc_transform_inv_point(bd.base.pose, tc_v3(f[0], f[1], f[2]));
        // On the surface: inside the box and on at least one face (float precision).
        double out = fmax(fabs(local.x) / 0.5, fmax(fabs(local.y) / 0.25, fabs(local.z) / 1.0));
        assert_near(out, 1.0, 1e-5);
    }
    free(raw);
    free(s);
    tc_world_destroy(w);
}

static void test_vtk_writer(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_shape_def box = tc_shape_def_default(TC_SHAPE_BOX);
    tc_rigid_body_def bd = tc_rigid_body_def_default();
    bd.shapes = &box;
    bd.shape_count = 1;
    tc_body_id id;
    assert_int_equal(tc_rigid_body_create(w, &bd, &id, NULL), TC_RESULT_OK);
    char path[512], pvd[512];
    snprintf(path, sizeof path, "%s/box.vtp", tmp_dir);
    tc_error e;
    assert_int_equal(tc_vtk_write_world(w, path, &e), TC_RESULT_OK);
    char* s = slurp(path);
    // Count what tc_world_draw emits and compare with the file's declared counts.
    char head[600];
    const char* piece = strstr(s, "<Piece ");
    assert_non_null(piece);
    int np = -1, nv = -1, nl = -1, npoly = -1;
    assert_int_equal(sscanf(piece, "<Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" NumberOfLines=\"%d\" NumberOfStrips=\"0\" NumberOfPolys=\"%d\"",
                            &np, &nv, &nl, &npoly), 4);
    assert_true(npoly >= 12); // a box is at least 12 triangles
    assert_int_equal(np, nv + 2 * nl + 3 * npoly);
    assert_int_equal(count_occurrences(s, "<DataArray"), 9); // color, normal, points, 3 x (connectivity, offsets)
    assert_non_null(strstr(s, "</VTKFile>"));
    snprintf(head, sizeof head, "%s.tmp", path);
    FILE* tmp = fopen(head, "r");
    assert_null(tmp); // the temp file was renamed away
    free(s);
    const char* files[2] = {"a.vtp", "b&c.vtp"};
    tc_real times[2] = {0, 0.5};
    snprintf(pvd, sizeof pvd, "%s/s.pvd", tmp_dir);
    assert_int_equal(tc_vtk_write_pvd(pvd, files, times, 2, &e), TC_RESULT_OK);
    s = slurp(pvd);
    assert_non_null(strstr(s, "timestep=\"0.5\" group=\"\" part=\"0\" file=\"b&amp;c.vtp\""));
    assert_int_equal(count_occurrences(s, "<DataSet"), 2);
    free(s);
    tc_world_destroy(w);
}

/// The Stanford bunny fetched by scripts/fetch_data.sh (skipped when not fetched): the known
/// vertex/triangle counts of the npm package, valid indices, and a clearly non-zero volume.
static void test_bunny_if_present(void** state) {
    (void)state;
    char path[512];
    tc_test_source_path("data/bunny.obj", path, sizeof path);
    FILE* f = fopen(path, "r");
    if (!f) {
        skip();
        return;
    }
    fclose(f);
    tc_mesh m;
    tc_error e;
    if (tc_mesh_load(path, &m, &e) != TC_RESULT_OK) fail_msg("%s", e.message);
    assert_int_equal(m.vertex_count, 1839);
    assert_int_equal(m.triangle_count, 3674);
    for (int i = 0; i < 3 * m.triangle_count; ++i) assert_true(m.triangles[i] >= 0 && m.triangles[i] < m.vertex_count);
    assert_true(fabs(mesh_volume(&m)) > 1.0);
    tc_mesh_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_obj_forms),
        cmocka_unit_test(test_obj_errors),
        cmocka_unit_test(test_ply_ascii_and_binary),
        cmocka_unit_test(test_ply_points_and_quads),
        cmocka_unit_test(test_ply_errors),
        cmocka_unit_test(test_vtk_writer),
        cmocka_unit_test(test_vtk_points_on_box),
        cmocka_unit_test(test_bunny_if_present),
    };
    return cmocka_run_group_tests(tests, make_tmp_dir, NULL);
}
