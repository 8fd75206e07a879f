// Convex hulls (qhull + Gauss-map topology), triangle meshes, and their shape hooks.
#include "tc_test.h"

#include "core/core.h"
#include "geometry/hull.h"
#include "geometry/shape.h"
#include "geometry/trimesh.h"

static void test_cube_with_interior_points(void** state) {
    (void)state;
    tc_vec3 p[14];
    int n = 0;
    for (int i = 0; i < 8; ++i) p[n++] = tc_v3(i & 1 ? 1 : -1, i & 2 ? 2 : -2, i & 4 ? 0.5 : -0.5);
    for (int i = 0; i < 6; ++i) p[n++] = tc_v3(0.1 * i - 0.2, 0.05 * i, -0.1 + 0.03 * i); // interior
    tc_error e;
    tc_hull* h = tc_hull_from_points(p, n, "points", &e);
    assert_non_null(h);
    assert_int_equal(h->vertex_count, 8);
    assert_int_equal(h->face_count, 6); // coplanar triangles merged into quads
    assert_int_equal(h->edge_count, 12);
    tc_mass_props m = tc_hull_mass(h, 1000);
    assert_near(m.volume, 2 * 4 * 1, 1e-12);
    assert_vec3_near(h->centroid, tc_v3(0, 0, 0), 1e-12);
    assert_near(m.inertia.m[0][0], m.mass * (16 + 1) / 12.0, 1e-9 * m.mass); // (b^2 + c^2)/12
    for (int f = 0; f < h->face_count; ++f) { // CCW from outside: every vertex on or below every plane
        assert_near(tc_v3_len(h->face_normals[f]), 1, 1e-12);
        for (int v = 0; v < h->vertex_count; ++v)
            assert_true(tc_v3_dot(h->face_normals[f], h->vertices[v]) <= h->face_offsets[f] + 1e-12);
    }
    for (int v = 0; v < h->vertex_count; ++v) assert_int_equal(h->vert_start[v + 1] - h->vert_start[v], 3);
    tc_hull_free(h);
}

static void test_tetrahedron_mass(void** state) {
    (void)state;
    tc_vec3 p[4] = {tc_v3(0, 0, 0), tc_v3(1, 0, 0), tc_v3(0, 1, 0), tc_v3(0, 0, 1)};
    tc_hull* h = tc_hull_from_points(p, 4, "points", NULL);
    assert_non_null(h);
    assert_int_equal(h->face_count, 4);
    tc_mass_props m = tc_hull_mass(h, 1);
    assert_near(m.volume, 1.0 / 6, 1e-14);
    assert_vec3_near(m.center, tc_v3(0.25, 0.25, 0.25), 1e-14);
    tc_hull_free(h);
}

static void test_degenerate_inputs(void** state) {
    (void)state;
    tc_error e;
    tc_vec3 flat[5] = {tc_v3(0, 0, 0), tc_v3(1, 0, 0), tc_v3(0, 1, 0), tc_v3(1, 1, 0), tc_v3(0.5, 0.2, 0)};
    assert_null(tc_hull_from_points(flat, 5, "shapes[0].points", &e));
    assert_int_equal(e.code, TC_RESULT_DEGENERATE);
    assert_non_null(strstr(e.message, "shapes[0].points"));
    tc_vec3 line[4] = {tc_v3(0, 0, 0), tc_v3(1, 1, 1), tc_v3(2, 2, 2), tc_v3(3, 3, 3)};
    assert_null(tc_hull_from_points(line, 4, "p", &e));
    tc_vec3 same[4] = {tc_v3(1, 1, 1), tc_v3(1, 1, 1), tc_v3(1, 1, 1), tc_v3(1, 1, 1)};
    assert_null(tc_hull_from_points(same, 4, "p", &e));
    assert_null(tc_hull_from_points(same, 3, "p", &e));
    tc_vec3 nan[4] = {tc_v3(0, 0, 0), tc_v3(1, 0, 0), tc_v3(0, NAN, 0), tc_v3(0, 0, 1)};
    assert_null(tc_hull_from_points(nan, 4, "p", &e));
    assert_int_equal(e.code, TC_RESULT_NOT_FINITE);
    // duplicates of a valid tetrahedron are fine
    tc_vec3 dup[8] = {tc_v3(0, 0, 0), tc_v3(1, 0, 0), tc_v3(0, 1, 0), tc_v3(0, 0, 1),
                      tc_v3(0, 0, 0), tc_v3(1, 0, 0), tc_v3(0, 1, 0), tc_v3(0, 0, 1)};
    tc_hull* h = tc_hull_from_points(dup, 8, "p", &e);
    assert_non_null(h);
    assert_int_equal(h->vertex_count, 4);
    tc_hull_free(h);
}

static void test_hull_shape_hooks(void** state) {
    (void)state;
    tc_vec3 p[8];
    for (int i = 0; i < 8; ++i) p[i] = tc_v3(i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5, i & 4 ? 0.5 : -0.5);
    tc_shape_def def = tc_shape_def_default(TC_SHAPE_HULL);
    def.points = p;
    def.point_count = 8;
    tc_shape s;
    assert_int_equal(tc_shape_init(&s, &def, false, "s", NULL), TC_RESULT_OK);
    tc_transform pose = tc_transform_identity();
    tc_vec3 n;
    assert_near(tc_shape_signed_distance(&s, pose, tc_v3(0, 0, 0.2), &n), -0.3, 1e-12);
    assert_near(tc_shape_signed_distance(&s, pose, tc_v3(1.5, 0, 0), &n), 1.0, 1e-12);
    assert_vec3_near(n, tc_v3(1, 0, 0), 1e-12);
    assert_near(tc_shape_signed_distance(&s, pose, tc_v3(1.5, 1.5, 0), &n), sqrt(2.0), 1e-12); // edge region
    tc_real t;
    assert_true(tc_shape_ray_cast(&s, pose, tc_v3(-3, 0.1, 0), tc_v3(1, 0, 0), 10, &t, &n));
    assert_near(t, 2.5, 1e-12);
    assert_vec3_near(n, tc_v3(-1, 0, 0), 1e-12);
    assert_near(tc_shape_mass(&s).mass, 1000, 1e-9);
    tc_shape_free(&s);
}

static void test_trimesh(void** state) {
    (void)state;
    tc_vec3 v[8];
    for (int i = 0; i < 8; ++i) v[i] = tc_v3(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
    int t[36] = {0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};
    tc_error e;
    tc_trimesh* m = tc_trimesh_create(v, 8, t, 12, "mesh", &e);
    assert_non_null(m);
    tc_vec3 n;
    assert_near(tc_trimesh_signed_distance(m, tc_v3(0, 0, 3), &n), 2, 1e-12);
    assert_vec3_near(n, tc_v3(0, 0, 1), 1e-12);
    assert_near(tc_trimesh_signed_distance(m, tc_v3(0.2, 0, 0.5), &n), -0.5, 1e-12);
    int hits[12];
    tc_aabb q = {tc_v3(0.5, -0.1, 0.9), tc_v3(0.6, 0.1, 1.1)};
    int count = tc_trimesh_query(m, q, hits, 12);
    assert_true(count >= 2);
    for (int i = 0; i < count; ++i) assert_true(m->normals[hits[i]].z > 0.99 || fabs(m->normals[hits[i]].z) < 1e-12);
    tc_real tt;
    assert_true(tc_trimesh_ray_cast(m, tc_v3(0.3, 0.2, 5), tc_v3(0, 0, -1), 10, &tt, &n));
    assert_near(tt, 4, 1e-12);
    tc_trimesh_free(m);
    int sliver[3] = {0, 1, 1};
    assert_null(tc_trimesh_create(v, 8, sliver, 1, "mesh", &e));
    assert_int_equal(e.code, TC_RESULT_DEGENERATE);
    int bad[3] = {0, 1, 9};
    assert_null(tc_trimesh_create(v, 8, bad, 1, "mesh", &e));
    assert_int_equal(e.code, TC_RESULT_OUT_OF_RANGE);
}

// tc_hull_from_faces packs everything in one block sized from V, F and the loop length: a box
// must come out with Euler's counts and consistent incidence; open, non-manifold or out-of-range
// loops must be refused (they would not fit the block's E = L/2 edges).
static void test_hull_from_faces_topology(void** state) {
    (void)state;
    tc_hull* h = tc_hull_box(tc_v3(1, 2, 3));
    assert_non_null(h);
    assert_int_equal(h->vertex_count, 8);
    assert_int_equal(h->face_count, 6);
    assert_int_equal(h->edge_count, 12);
    assert_int_equal(h->vertex_count - h->edge_count + h->face_count, 2);
    assert_true(h->bytes >= sizeof *h);
    for (int e = 0; e < h->edge_count; ++e) { // each edge between two different faces, both ends vertices of both
        int f0 = h->edge_faces[2 * e], f1 = h->edge_faces[2 * e + 1];
        assert_true(f0 >= 0 && f1 >= 0 && f0 != f1);
        assert_true(f0 < h->face_count && f1 < h->face_count);
    }
    for (int v = 0; v < h->vertex_count; ++v)
        for (int k = h->vert_start[v]; k < h->vert_start[v + 1]; ++k) {
            int e = h->vert_edges[k];
            assert_true(h->edge_verts[2 * e] == v || h->edge_verts[2 * e + 1] == v);
        }
    assert_vec3_near(h->centroid, tc_v3(0, 0, 0), 1e-14);
    assert_near(h->extent, sqrt(14.0), 1e-14);
    tc_hull_free(h);

    tc_vec3 v[8];
    for (int i = 0; i < 8; ++i) v[i] = tc_v3(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
    static const int open_loops[20] = {0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4, 2, 6, 7, 3, 0, 2, 3, 1}; // +z face missing
    static const int open_start[6] = {0, 4, 8, 12, 16, 20};
    assert_null(tc_hull_from_faces(v, 8, open_start, open_loops, 5));
    static const int twice[28] = {0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4, 2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 7, 6, 4, 5, 7, 6}; // +z twice
    static const int twice_start[8] = {0, 4, 8, 12, 16, 20, 24, 28};
    assert_null(tc_hull_from_faces(v, 8, twice_start, twice, 7));
    // a closed "house" (the box with an apex 8 over +z, 9 vertices) given only 8 vertices: every
    // edge matches and every given vertex has 3 faces, only the apex index is out of range
    static const int house[32] = {0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4, 2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 8, 5, 7, 8, 7, 6, 8, 6, 4, 8};
    static const int house_start[10] = {0, 4, 8, 12, 16, 20, 23, 26, 29, 32};
    assert_null(tc_hull_from_faces(v, 8, house_start, house, 9));
    tc_vec3 v9[9];
    memcpy(v9, v, sizeof v);
    v9[8] = tc_v3(0, 0, 2);
    h = tc_hull_from_faces(v9, 9, house_start, house, 9); // the same loops with the apex given: a valid polytope
    assert_non_null(h);
    assert_int_equal(h->edge_count, 16);
    assert_int_equal(h->vertex_count - h->edge_count + h->face_count, 2);
    tc_hull_free(h);
}

// The compact topology (1-byte indices, 2-byte starts) must repeat the int incidence exactly, and
// exist only for hulls of up to 255 vertices and faces; the hull starts on a cache line.
static void check_compact(const tc_hull* h) {
    assert_int_equal((uintptr_t)h % 64, 0);
    for (int v = 0; v <= h->vertex_count; ++v) assert_int_equal(h->fan_start[v], h->vert_start[v]);
    for (int f = 0; f <= h->face_count; ++f) assert_int_equal(h->loop_start[f], h->face_start[f]);
    for (int i = 0; i < h->loop_length; ++i) assert_int_equal(h->loops[i], h->face_verts[i]);
    for (int v = 0; v < h->vertex_count; ++v)
        for (int k = h->vert_start[v]; k < h->vert_start[v + 1]; ++k) {
            int e = h->vert_edges[k], w = h->fans[k].neighbor;
            assert_int_equal(h->fans[k].face, h->vert_faces[k]);
            assert_true(w != v && (h->edge_verts[2 * e] == w || h->edge_verts[2 * e + 1] == w));
        }
    const char* planes = (const char*)h->face_normals; // the compact arrays lie in the prefetched span
    assert_true((const char*)(h->loops + h->loop_length) <= planes + h->topology_bytes);
}

static void test_compact_topology(void** state) {
    (void)state;
    tc_hull* box = tc_hull_box(tc_v3(1, 2, 3));
    assert_non_null(box->fans);
    check_compact(box);
    tc_hull_free(box);
    enum { N = 400 }; // points on a sphere: all on the hull, more than 255 of them
    tc_vec3* p = tc_alloc(N * sizeof(tc_vec3));
    for (int i = 0; i < N; ++i) {
        double z = 1 - (2 * i + 1) / (double)N, r = sqrt(1 - z * z), phi = 2.399963229728653 * i;
        p[i] = tc_v3(r * cos(phi), r * sin(phi), z);
    }
    tc_hull* small = tc_hull_from_points(p, 40, "small", NULL);
    assert_non_null(small);
    assert_non_null(small->fans);
    check_compact(small);
    tc_hull* large = tc_hull_from_points(p, N, "large", NULL);
    assert_non_null(large);
    assert_true(large->vertex_count > TC_HULL_COMPACT_MAX);
    assert_int_equal((uintptr_t)large % 64, 0);
    assert_null(large->fans);
    assert_null(large->loops);
    tc_hull_free(small);
    tc_hull_free(large);
    tc_free(p, N * sizeof(tc_vec3));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_with_interior_points), cmocka_unit_test(test_tetrahedron_mass),
        cmocka_unit_test(test_degenerate_inputs),         cmocka_unit_test(test_hull_shape_hooks),
        cmocka_unit_test(test_trimesh),                   cmocka_unit_test(test_hull_from_faces_topology),
        cmocka_unit_test(test_compact_topology),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
