// Contact points by Gauss-map feature intersection (ALGORITHMS §2.6) through tc_collide.
#include "tc_test.h"

#include "collision/collide.h"
#include "collision/feature.h"
#include "collision/gjk.h"
#include "geometry/hull.h"

#include <stdio.h>
#include <string.h>

static tc_shape make_box(tc_vec3 h) {
    tc_shape_def d = tc_shape_def_default(TC_SHAPE_BOX);
    d.half_extents = h;
    tc_shape s;
    assert_int_equal(tc_shape_init(&s, &d, false, "box", NULL), TC_RESULT_OK);
    return s;
}

static tc_shape make_plane(void) {
    tc_shape_def d = tc_shape_def_default(TC_SHAPE_PLANE);
    d.plane_normal = tc_v3(0, 0, 1);
    tc_shape s;
    assert_int_equal(tc_shape_init(&s, &d, true, "plane", NULL), TC_RESULT_OK);
    return s;
}

static tc_transform at(tc_vec3 p, tc_quat q) {
    tc_transform t = {p, q};
    return t;
}

static void test_box_resting_on_plane(void** state) {
    (void)state;
    tc_shape plane = make_plane(), box = make_box(tc_v3(0.5, 0.5, 0.5));
    tc_quat yaw = tc_quat_from_axis_angle(tc_v3(0, 0, 1), TC_PI / 6);
    tc_manifold m;
    int n = tc_collide(&plane, tc_transform_identity(), &box, at(tc_v3(0.3, -0.2, 0.49), yaw), TC_CONTACT_GAUSS_MAP, 0.02, NULL, &m);
    assert_int_equal(n, 4);
    assert_vec3_near(m.normal, tc_v3(0, 0, 1), 1e-12);
    for (int i = 0; i < 4; ++i) {
        assert_near(m.points[i].separation, -0.01, 1e-9);
        tc_vec3 local = tc_quat_inv_rotate(yaw, tc_v3_sub(m.points[i].point, tc_v3(0.3, -0.2, 0)));
        assert_near(fabs(local.x), 0.5, 1e-9);
        assert_near(fabs(local.y), 0.5, 1e-9);
    }
    // the same pair the other way round: normal flipped, same points
    n = tc_collide(&box, at(tc_v3(0.3, -0.2, 0.49), yaw), &plane, tc_transform_identity(), TC_CONTACT_GAUSS_MAP, 0.02, NULL, &m);
    assert_int_equal(n, 4);
    assert_vec3_near(m.normal, tc_v3(0, 0, -1), 1e-12);
    // tracking baseline: one point per step
    n = tc_collide(&plane, tc_transform_identity(), &box, at(tc_v3(0.3, -0.2, 0.49), yaw), TC_CONTACT_TRACKING, 0.02, NULL, &m);
    assert_int_equal(n, 1);
    tc_shape_free(&box);
    tc_shape_free(&plane);
}

static void test_edge_and_tilted_boxes(void** state) {
    (void)state;
    tc_shape plane = make_plane(), box = make_box(tc_v3(0.5, 0.5, 0.5));
    tc_manifold m;
    tc_quat roll45 = tc_quat_from_axis_angle(tc_v3(1, 0, 0), TC_PI / 4);
    int n = tc_collide(&plane, tc_transform_identity(), &box, at(tc_v3(0, 0, sqrt(0.5) - 0.01), roll45), TC_CONTACT_GAUSS_MAP, 0.02, NULL, &m);
    assert_int_equal(n, 2);
    assert_near(m.points[0].separation, -0.01, 1e-9);
    assert_near(m.points[1].separation, -0.01, 1e-9);
    assert_near(fabs(m.points[0].point.x - m.points[1].point.x), 1.0, 1e-9);
    tc_quat roll10 = tc_quat_from_axis_angle(tc_v3(1, 0, 0), 10 * TC_PI / 180);
    tc_real low = 0.5 * cos(10 * TC_PI / 180) + 0.5 * sin(10 * TC_PI / 180);
    n = tc_collide(&plane, tc_transform_identity(), &box, at(tc_v3(0, 0, low - 0.005), roll10), TC_CONTACT_GAUSS_MAP, 0.02, NULL, &m);
    assert_int_equal(n, 2);
    tc_quat corner = tc_quat_mul(tc_quat_from_axis_angle(tc_v3(0, 1, 0), 0.3), roll10);
    n = tc_collide(&plane, tc_transform_identity(), &box, at(tc_v3(0, 0, 0.6), corner), TC_CONTACT_GAUSS_MAP, 0.5, NULL, &m);
    assert_true(n >= 1);
    tc_shape_free(&box);
    tc_shape_free(&plane);
}

static void test_box_on_box_octagon(void** state) {
    (void)state;
    tc_hull* a = tc_hull_box(tc_v3(1, 1, 1));
    tc_hull* b = tc_hull_box(tc_v3(1, 1, 1));
    tc_feature fa, fb;
    tc_transform ta = tc_transform_identity(), tb = at(tc_v3(0, 0, 1.99), tc_quat_from_axis_angle(tc_v3(0, 0, 1), TC_PI / 4));
    tc_hull_feature(a, ta, tc_v3(0, 0, 1), 3 * TC_PI / 180, &fa);
    tc_hull_feature(b, tb, tc_v3(0, 0, -1), 3 * TC_PI / 180, &fb);
    assert_int_equal(fa.count, 4);
    assert_int_equal(fb.count, 4);
    tc_feature_point p[64];
    int n = tc_intersect_features(&fa, &fb, tc_v3(0, 0, 1), 0.02, p, 64);
    assert_int_equal(n, 8);
    for (int i = 0; i < n; ++i) assert_near(p[i].separation, -0.01, 1e-9);
    tc_shape A = make_box(tc_v3(1, 1, 1)), B = make_box(tc_v3(1, 1, 1));
    tc_manifold m;
    assert_int_equal(tc_collide(&A, ta, &B, tb, TC_CONTACT_GAUSS_MAP, 0.02, NULL, &m), 4); // reduced
    assert_vec3_near(m.normal, tc_v3(0, 0, 1), 1e-9);
    // a small box overhanging the top face of a big one: the clipped rectangle
    tc_shape small = make_box(tc_v3(0.5, 0.5, 0.5));
    assert_int_equal(tc_collide(&A, ta, &small, at(tc_v3(0.8, 0, 1.49), tc_quat_identity()), TC_CONTACT_GAUSS_MAP, 0.02, NULL, &m), 4);
    for (int i = 0; i < 4; ++i) {
        assert_true(m.points[i].point.x >= 0.3 - 1e-9 && m.points[i].point.x <= 1 + 1e-9);
        assert_near(fabs(m.points[i].point.y), 0.5, 1e-9);
        assert_near(m.points[i].separation, -0.01, 1e-9);
    }
    tc_hull_free(a);
    tc_hull_free(b);
    tc_shape_free(&A);
    tc_shape_free(&B);
    tc_shape_free(&small);
}

static void test_tetrahedron_on_vertex_and_sphere(void** state) {
    (void)state;
    tc_vec3 p[4] = {tc_v3(0, 0, -1), tc_v3(1, 0, 1), tc_v3(-1, 1, 1), tc_v3(-1, -1, 1)};
    tc_shape_def d = tc_shape_def_default(TC_SHAPE_HULL);
    d.points = p;
    d.point_count = 4;
    tc_shape tet, plane = make_plane(), box = make_box(tc_v3(1, 1, 1));
    assert_int_equal(tc_shape_init(&tet, &d, false, "tet", NULL), TC_RESULT_OK);
    tc_manifold m;
    assert_int_equal(tc_collide(&plane, tc_transform_identity(), &tet, at(tc_v3(0, 0, 0.99), tc_quat_identity()), TC_CONTACT_GAUSS_MAP, 0.02, NULL, &m), 1);
    assert_near(m.points[0].separation, -0.01, 1e-12);
    tc_shape_def sd = tc_shape_def_default(TC_SHAPE_SPHERE);
    sd.radius = 0.5;
    tc_shape sphere;
    assert_int_equal(tc_shape_init(&sphere, &sd, false, "s", NULL), TC_RESULT_OK);
    assert_int_equal(tc_collide(&box, tc_transform_identity(), &sphere, at(tc_v3(0.2, 0.1, 1.45), tc_quat_identity()), TC_CONTACT_GAUSS_MAP, 0.02, NULL, &m), 1);
    assert_vec3_near(m.normal, tc_v3(0, 0, 1), 1e-9);
    assert_near(m.points[0].separation, -0.05, 1e-9);
    assert_vec3_near(m.points[0].point, tc_v3(0.2, 0.1, 0.975), 1e-9);
    tc_shape_free(&tet);
    tc_shape_free(&plane);
    tc_shape_free(&box);
    tc_shape_free(&sphere);
}

static double urand(unsigned* s) {
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) / 16777216.0;
}

// Every overlapping pair yields a point; none deeper than the overlap along n.
static void test_random_overlaps_property(void** state) {
    (void)state;
    unsigned seed = 77u;
    int pairs = 0;
    for (int i = 0; i < 2000; ++i) {
        tc_vec3 pa[16], pb[16];
        for (int k = 0; k < 16; ++k) {
            pa[k] = tc_v3(urand(&seed) - 0.5, urand(&seed) - 0.5, urand(&seed) - 0.5);
            pb[k] = tc_v3(urand(&seed) - 0.5, urand(&seed) - 0.5, urand(&seed) - 0.5);
        }
        tc_shape_def d = tc_shape_def_default(TC_SHAPE_HULL);
        d.point_count = 16;
        tc_shape A, B;
        d.points = pa;
        assert_int_equal(tc_shape_init(&A, &d, false, "a", NULL), TC_RESULT_OK);
        d.points = pb;
        assert_int_equal(tc_shape_init(&B, &d, false, "b", NULL), TC_RESULT_OK);
        tc_transform tb = at(tc_v3(urand(&seed) - 0.5, urand(&seed) - 0.5, urand(&seed) - 0.5), tc_quat_identity());
        tc_convex ca = {A.hull->vertices, A.hull->vertex_count, 0, A.hull->centroid, NULL, NULL, 0};
        tc_vec3 wb[64];
        for (int k = 0; k < B.hull->vertex_count; ++k) wb[k] = tc_transform_point(tb, B.hull->vertices[k]);
        tc_convex cb = {wb, B.hull->vertex_count, 0, tc_transform_point(tb, B.hull->centroid), NULL, NULL, 0};
        if (tc_gjk_distance(&ca, &cb).status == TC_GJK_OVERLAP) {
            tc_growth_result g = tc_growth_distance(&ca, &cb, tc_v3(0, 0, 1));
            tc_manifold m;
            int n = tc_collide(&A, tc_transform_identity(), &B, tb, TC_CONTACT_GAUSS_MAP, 0.02, NULL, &m);
            if (n < 1) fail_msg("pair %d: overlapping but no contact point", i);
            for (int k = 0; k < n; ++k) assert_true(-m.points[k].separation <= g.depth + 1e-9);
            pairs++;
        }
        tc_shape_free(&A);
        tc_shape_free(&B);
    }
    printf("%d overlapping pairs checked\n", pairs);
    assert_true(pairs > 500);
}

static tc_quat random_rotation(unsigned* seed) {
    return tc_quat_normalize(tc_quat_make(urand(seed) - 0.5, urand(seed) - 0.5, urand(seed) - 0.5, urand(seed) - 0.5));
}

static tc_shape random_hull(unsigned* seed, tc_transform local) {
    tc_vec3 p[16];
    for (int k = 0; k < 16; ++k) p[k] = tc_v3(urand(seed) - 0.5, urand(seed) - 0.5, urand(seed) - 0.5);
    tc_shape_def d = tc_shape_def_default(TC_SHAPE_HULL);
    d.points = p;
    d.point_count = 16;
    d.local = local;
    tc_shape s;
    assert_int_equal(tc_shape_init(&s, &d, false, "hull", NULL), TC_RESULT_OK);
    return s;
}

// g applied to manifold m (world quantities move, body-frame anchors do not).
static void assert_manifold_moved(const tc_manifold* m, const tc_manifold* moved, tc_transform g, int pair) {
    if (m->count != moved->count) fail_msg("pair %d: %d points, %d after the common motion", pair, m->count, moved->count);
    if (m->count == 0) return;
    assert_vec3_near(moved->normal, tc_quat_rotate(g.q, m->normal), 1e-9);
    for (int k = 0; k < m->count; ++k) {
        assert_true(moved->points[k].feature == m->points[k].feature);
        assert_near(moved->points[k].separation, m->points[k].separation, 1e-9);
        assert_vec3_near(moved->points[k].point, tc_transform_point(g, m->points[k].point), 1e-9);
        assert_vec3_near(moved->points[k].anchor_a, m->points[k].anchor_a, 1e-9);
        assert_vec3_near(moved->points[k].anchor_b, m->points[k].anchor_b, 1e-9);
    }
}

// The convex query works in A's shape frame: its answers must not depend on where the pair is in
// the world (a common rigid motion moves the manifold with it, warm starts included), and a shape
// offset in its body (shape.local) must give the answer of the body moved by that offset.
static void test_frame_invariance(void** state) {
    (void)state;
    unsigned seed = 91u;
    int touching = 0;
    for (int i = 0; i < 300; ++i) {
        tc_transform la = at(tc_v3(0.2, -0.1, 0.3), random_rotation(&seed)), lb = at(tc_v3(-0.3, 0.1, 0), random_rotation(&seed));
        tc_shape A = random_hull(&seed, la), B = random_hull(&seed, lb);
        tc_transform pa = at(tc_v3(urand(&seed), urand(&seed), urand(&seed)), random_rotation(&seed));
        tc_transform pb = at(tc_v3_add(pa.p, tc_v3(1.2 * urand(&seed) - 0.6, 1.2 * urand(&seed) - 0.6, 1.2 * urand(&seed) - 0.6)),
                             random_rotation(&seed));
        tc_transform g = at(tc_v3(5 * urand(&seed) - 2.5, 5 * urand(&seed) - 2.5, 5 * urand(&seed) - 2.5), random_rotation(&seed));
        tc_manifold cold, cold_g, warm, warm_g;
        tc_collide(&A, pa, &B, pb, TC_CONTACT_GAUSS_MAP, 0.02, NULL, &cold);
        tc_collide(&A, tc_transform_mul(g, pa), &B, tc_transform_mul(g, pb), TC_CONTACT_GAUSS_MAP, 0.02, NULL, &cold_g);
        assert_manifold_moved(&cold, &cold_g, g, i);
        // one frame later, warm-started from the previous answers (each in its own world)
        tc_transform pb1 = at(tc_v3_add(pb.p, tc_v3(0.005, -0.004, 0.003)), pb.q);
        tc_collide(&A, pa, &B, pb1, TC_CONTACT_GAUSS_MAP, 0.02, &cold, &warm);
        tc_collide(&A, tc_transform_mul(g, pa), &B, tc_transform_mul(g, pb1), TC_CONTACT_GAUSS_MAP, 0.02, &cold_g, &warm_g);
        assert_manifold_moved(&warm, &warm_g, g, i);
        // the offsets moved into the body poses: the same contact in the world
        tc_shape_def d = tc_shape_def_default(TC_SHAPE_HULL);
        d.points = A.hull->vertices;
        d.point_count = A.hull->vertex_count;
        tc_shape Aw, Bw;
        assert_int_equal(tc_shape_init(&Aw, &d, false, "a", NULL), TC_RESULT_OK);
        d.points = B.hull->vertices;
        d.point_count = B.hull->vertex_count;
        assert_int_equal(tc_shape_init(&Bw, &d, false, "b", NULL), TC_RESULT_OK);
        tc_manifold off;
        tc_collide(&Aw, tc_transform_mul(pa, la), &Bw, tc_transform_mul(pb, lb), TC_CONTACT_GAUSS_MAP, 0.02, NULL, &off);
        assert_int_equal(off.count, cold.count);
        if (cold.count) assert_vec3_near(off.normal, cold.normal, 1e-9);
        for (int k = 0; k < cold.count; ++k) { // the rebuilt hulls may number their vertices differently
            bool found = false;
            for (int j = 0; j < off.count && !found; ++j)
                found = tc_v3_dist(off.points[j].point, cold.points[k].point) < 1e-9 &&
                        fabs(off.points[j].separation - cold.points[k].separation) < 1e-9;
            if (!found) fail_msg("pair %d: point %d not found with the offsets in the poses", i, k);
        }
        touching += cold.count > 0;
        tc_shape_free(&Aw), tc_shape_free(&Bw), tc_shape_free(&A), tc_shape_free(&B);
    }
    printf("%d of 300 pairs touching\n", touching);
    assert_true(touching > 50 && touching < 300);
}

// Hulls of more than 255 vertices have no compact topology (geometry/hull.h): their features come
// from the int incidence arrays. A 400-vertex sphere-like hull pressed 10 mm into a box's top face,
// as B and as A: points on the top face, the normal along +-z, the depth that of its lowest vertex.
static void test_large_hull_features(void** state) {
    (void)state;
    enum { N = 400 };
    tc_vec3 p[N];
    tc_real low = 1;
    for (int i = 0; i < N; ++i) {
        double z = 1 - (2 * i + 1) / (double)N, r = sqrt(1 - z * z), phi = 2.399963229728653 * i;
        p[i] = tc_v3(r * cos(phi), r * sin(phi), z);
        low = fmin(low, z);
    }
    tc_shape_def d = tc_shape_def_default(TC_SHAPE_HULL);
    d.points = p;
    d.point_count = N;
    tc_shape ball;
    assert_int_equal(tc_shape_init(&ball, &d, false, "ball", NULL), TC_RESULT_OK);
    assert_true(ball.hull->vertex_count > TC_HULL_COMPACT_MAX);
    assert_null(ball.hull->fans);
    tc_shape box = make_box(tc_v3(2, 2, 0.5));
    tc_transform box_pose = tc_transform_identity(), ball_pose = at(tc_v3(0, 0, 0.5 - low - 0.01), tc_quat_identity());
    for (int swap = 0; swap < 2; ++swap) {
        tc_manifold m;
        memset(&m, 0, sizeof m);
        int n = swap ? tc_collide(&ball, ball_pose, &box, box_pose, TC_CONTACT_GAUSS_MAP, 0.02, NULL, &m)
                     : tc_collide(&box, box_pose, &ball, ball_pose, TC_CONTACT_GAUSS_MAP, 0.02, NULL, &m);
        assert_true(n >= 1);
        assert_true((swap ? -m.normal.z : m.normal.z) > 0.999);
        tc_real deepest = 0;
        for (int k = 0; k < n; ++k) {
            deepest = fmin(deepest, m.points[k].separation);
            assert_near(m.points[k].point.z, 0.5, 0.011); // midway between the surfaces, on the top face
        }
        assert_near(deepest, -0.01, 1e-3);
    }
    tc_shape_free(&ball);
    tc_shape_free(&box);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_resting_on_plane),   cmocka_unit_test(test_edge_and_tilted_boxes),
        cmocka_unit_test(test_box_on_box_octagon),     cmocka_unit_test(test_tetrahedron_on_vertex_and_sphere),
        cmocka_unit_test(test_random_overlaps_property), cmocka_unit_test(test_frame_invariance),
        cmocka_unit_test(test_large_hull_features),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
