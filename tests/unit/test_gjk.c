// GJK distance, ray cast and growth distance against closed forms (ALGORITHMS §1.6), and the
// overlap classification of random hull pairs against an independent separating-axis test.
#include "tc_test.h"

#include "collision/gjk.h"
#include "geometry/hull.h"

#include <stdio.h>
#include <stdlib.h>

static void box_points(tc_vec3 h, tc_transform t, tc_vec3 out[8]) {
    for (int i = 0; i < 8; ++i) out[i] = tc_transform_point(t, tc_v3(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z));
}

static tc_convex convex_of(const tc_vec3* p, int n, tc_vec3 center, tc_real radius) {
    tc_convex c = {p, n, radius, center, NULL, NULL, 0};
    return c;
}

static void test_box_distances(void** state) {
    (void)state;
    tc_vec3 a[8], b[8];
    box_points(tc_v3(1, 1, 1), tc_transform_identity(), a);
    tc_transform tb = tc_transform_identity();
    tb.p = tc_v3(2.3, 0.2, -0.1);
    box_points(tc_v3(1, 1, 1), tb, b);
    tc_convex A = convex_of(a, 8, tc_v3_zero(), 0), B = convex_of(b, 8, tb.p, 0);
    tc_gjk_result r = tc_gjk_distance(&A, &B);
    assert_int_equal(r.status, TC_GJK_SEPARATED);
    assert_near(r.distance, 0.3, 1e-12);
    assert_near(tc_v3_dist(r.point_a, r.point_b), 0.3, 1e-12);
    assert_vec3_near(r.normal, tc_v3(1, 0, 0), 1e-12);
    // a copy rotated 45 degrees about z at (X, 0, 0): vertex against face, X - h(1 + sqrt 2)
    tc_transform tr = {tc_v3(3, 0, 0), tc_quat_from_axis_angle(tc_v3(0, 0, 1), TC_PI / 4)};
    box_points(tc_v3(1, 1, 1), tr, b);
    B.center = tr.p;
    r = tc_gjk_distance(&A, &B);
    assert_near(r.distance, 3 - (1 + sqrt(2.0)), 1e-12);
    // diagonal gap: corner to corner
    tb.p = tc_v3(3, 3, 3);
    box_points(tc_v3(1, 1, 1), tb, b);
    B.center = tb.p;
    r = tc_gjk_distance(&A, &B);
    assert_near(r.distance, sqrt(3.0), 1e-12);
    tb.p = tc_v3(1.5, 0.5, 0);
    box_points(tc_v3(1, 1, 1), tb, b);
    B.center = tb.p;
    assert_int_equal(tc_gjk_distance(&A, &B).status, TC_GJK_OVERLAP);
}

static void test_spheres_and_points(void** state) {
    (void)state;
    tc_vec3 ca = tc_v3(0, 0, 0), cb = tc_v3(3, 4, 0);
    tc_convex A = convex_of(&ca, 1, ca, 1), B = convex_of(&cb, 1, cb, 0.5);
    tc_gjk_result r = tc_gjk_distance(&A, &B);
    assert_near(r.distance, 5 - 1.5, 1e-12);
    assert_vec3_near(r.point_a, tc_v3(0.6, 0.8, 0), 1e-12);
    // point vs box: the clamp distance
    tc_vec3 box[8], p = tc_v3(2, 3, 0.5);
    box_points(tc_v3(1, 1, 1), tc_transform_identity(), box);
    tc_convex Bx = convex_of(box, 8, tc_v3_zero(), 0), P = convex_of(&p, 1, p, 0);
    assert_near(tc_gjk_distance(&P, &Bx).distance, sqrt(1 + 4.0), 1e-12);
}

static void test_ray_cast(void** state) {
    (void)state;
    tc_vec3 box[8], origin = tc_v3_zero();
    box_points(tc_v3(1, 1, 1), tc_transform_identity(), box);
    tc_convex A = convex_of(box, 8, tc_v3_zero(), 0), O = convex_of(&origin, 1, origin, 0);
    tc_real l;
    tc_vec3 n;
    assert_true(tc_gjk_ray_cast(&A, &O, tc_v3(-5, 0.3, 0.2), tc_v3(1, 0, 0), &l, &n, NULL, NULL));
    assert_near(l, 4, 1e-9);
    assert_vec3_near(n, tc_v3(-1, 0, 0), 1e-9);
    assert_false(tc_gjk_ray_cast(&A, &O, tc_v3(-5, 3, 0), tc_v3(1, 0, 0), &l, &n, NULL, NULL));
    tc_vec3 c = tc_v3_zero();
    tc_convex S = convex_of(&c, 1, c, 1);
    assert_true(tc_gjk_ray_cast(&S, &O, tc_v3(0, 0, 5), tc_v3(0, 0, -2), &l, &n, NULL, NULL));
    assert_near(l, 2, 1e-6);
    assert_vec3_near(n, tc_v3(0, 0, 1), 1e-6);
}

static void test_growth_distance_by_hand(void** state) {
    (void)state;
    tc_vec3 a[8], b[8];
    box_points(tc_v3(1, 1, 1), tc_transform_identity(), a);
    tc_transform tb = tc_transform_identity();
    tb.p = tc_v3(1.5, 0.5, 0);
    box_points(tc_v3(1, 1, 1), tb, b);
    tc_convex A = convex_of(a, 8, tc_v3_zero(), 0), B = convex_of(b, 8, tb.p, 0);
    tc_growth_result g = tc_growth_distance(&A, &B, tc_v3(0, 0, 1));
    assert_true(g.ok);
    assert_near(g.alpha, 0.75, 1e-9);
    assert_vec3_near(g.normal, tc_v3(1, 0, 0), 1e-9);
    assert_near(g.depth, 0.5, 1e-9);
    tb.p = tc_v3(3, 0, 0);
    box_points(tc_v3(1, 1, 1), tb, b);
    B.center = tb.p;
    g = tc_growth_distance(&A, &B, tc_v3(0, 0, 1));
    assert_near(g.alpha, 1.5, 1e-9);
    assert_near(g.depth, -1, 1e-9);
    tc_vec3 c1 = tc_v3_zero(), c2 = tc_v3(1.2, 0, 0);
    tc_convex S1 = convex_of(&c1, 1, c1, 1), S2 = convex_of(&c2, 1, c2, 0.5);
    g = tc_growth_distance(&S1, &S2, tc_v3(0, 0, 1));
    assert_near(g.alpha, 0.8, 1e-6);
    assert_vec3_near(g.normal, tc_v3(1, 0, 0), 1e-6);
    assert_near(g.depth, 0.3, 1e-6);
    // invariance under a common rigid motion
    tc_transform m = {tc_v3(0.3, -2, 5), tc_quat_from_axis_angle(tc_v3_normalize(tc_v3(1, 2, 3)), 0.7)};
    tb.p = tc_v3(1.5, 0.5, 0);
    box_points(tc_v3(1, 1, 1), m, a);
    box_points(tc_v3(1, 1, 1), tc_transform_mul(m, tb), b);
    A.center = m.p;
    B.center = tc_transform_point(m, tb.p);
    g = tc_growth_distance(&A, &B, tc_v3(0, 0, 1));
    assert_near(g.alpha, 0.75, 1e-9);
    assert_vec3_near(g.normal, tc_quat_rotate(m.q, tc_v3(1, 0, 0)), 1e-9);
}

// ---- random hulls against the separating-axis test ------------------------------------------

static double urand(unsigned* s) {
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) / 16777216.0;
}

static void interval(const tc_hull* h, tc_vec3 axis, tc_real* lo, tc_real* hi) {
    *lo = 1e300, *hi = -1e300;
    for (int i = 0; i < h->vertex_count; ++i) {
        tc_real d = tc_v3_dot(h->vertices[i], axis);
        *lo = fmin(*lo, d), *hi = fmax(*hi, d);
    }
}

// Signed gap along the best separating axis (> 0 separated, < 0 overlapping).
static tc_real sat_gap(const tc_hull* a, const tc_hull* b) {
    tc_real best = -1e300;
    for (int pass = 0; pass < 3; ++pass) {
        int na = pass == 0 ? a->face_count : pass == 1 ? b->face_count : a->edge_count * b->edge_count;
        for (int k = 0; k < na; ++k) {
            tc_vec3 axis;
            if (pass == 0) axis = a->face_normals[k];
            else if (pass == 1) axis = b->face_normals[k];
            else {
                int ea = k / b->edge_count, eb = k % b->edge_count;
                tc_vec3 da = tc_v3_sub(a->vertices[a->edge_verts[2 * ea + 1]], a->vertices[a->edge_verts[2 * ea]]);
                tc_vec3 db = tc_v3_sub(b->vertices[b->edge_verts[2 * eb + 1]], b->vertices[b->edge_verts[2 * eb]]);
                axis = tc_v3_cross(da, db);
                tc_real l = tc_v3_len(axis);
                if (l < 1e-9) continue;
                axis = tc_v3_scale(axis, 1.0 / l);
            }
            tc_real alo, ahi, blo, bhi;
            interval(a, axis, &alo, &ahi);
            interval(b, axis, &blo, &bhi);
            best = fmax(best, fmax(blo - ahi, alo - bhi));
        }
    }
    return best;
}

static tc_hull* random_hull(unsigned* s, tc_vec3 center) {
    tc_vec3 p[16];
    for (int i = 0; i < 16; ++i) p[i] = tc_v3_add(center, tc_v3(urand(s) - 0.5, urand(s) - 0.5, urand(s) - 0.5));
    return tc_hull_from_points(p, 16, "random", NULL);
}

static void test_random_pairs_match_sat(void** state) {
    (void)state;
    unsigned seed = 20261123u;
    printf("random hull pairs, seed %u\n", seed);
    int checked = 0, overlaps = 0;
    for (int i = 0; i < 10000; ++i) {
        tc_hull* a = random_hull(&seed, tc_v3_zero());
        tc_hull* b = random_hull(&seed, tc_v3(urand(&seed) * 1.6 - 0.8, urand(&seed) * 1.6 - 0.8, urand(&seed) * 1.6 - 0.8));
        assert_non_null(a);
        assert_non_null(b);
        tc_real gap = sat_gap(a, b);
        if (fabs(gap) > 1e-9) {
            tc_convex A = convex_of(a->vertices, a->vertex_count, a->centroid, 0);
            tc_convex B = convex_of(b->vertices, b->vertex_count, b->centroid, 0);
            tc_gjk_result r = tc_gjk_distance(&A, &B);
            bool gjk_overlap = r.status == TC_GJK_OVERLAP;
            if (gjk_overlap != (gap < 0)) fail_msg("pair %d: SAT gap %g, GJK distance %g", i, gap, r.distance);
            if (!gjk_overlap) assert_true(r.distance <= gap * (1 + 1e-9) + 1e-12 || r.distance >= gap - 1e-9);
            if (gjk_overlap) {
                tc_growth_result g = tc_growth_distance(&A, &B, tc_v3(0, 0, 1));
                assert_true(g.ok && g.alpha < 1 + 1e-9 && g.depth >= -1e-9);
            }
            checked++;
            overlaps += gjk_overlap;
        }
        tc_hull_free(a);
        tc_hull_free(b);
    }
    printf("checked %d pairs, %d overlapping\n", checked, overlaps);
    assert_true(overlaps > 1000 && checked - overlaps > 1000);
}

// Hill climbing over the hull's edges (large hulls) finds the same support height as a scan of
// every vertex, from any start, for any direction.
static void test_support_climbing_matches_scan(void** state) {
    (void)state;
    unsigned seed = 77u;
    tc_vec3 p[400];
    for (int i = 0; i < 400; ++i) {
        tc_vec3 d = tc_v3(urand(&seed) - 0.5, urand(&seed) - 0.5, urand(&seed) - 0.5);
        p[i] = tc_v3_scale(tc_v3_normalize(d), 0.5 + 0.01 * urand(&seed));
    }
    tc_hull* h = tc_hull_from_points(p, 400, "sphere", NULL);
    assert_non_null(h);
    assert_true(h->vertex_count > 64); // large enough to climb
    tc_convex with = {h->vertices, h->vertex_count, 0, h->centroid, h, NULL, 0}, without = {h->vertices, h->vertex_count, 0, h->centroid, NULL, NULL, 0};
    int hint = 0;
    for (int k = 0; k < 5000; ++k) {
        tc_vec3 d = tc_v3(urand(&seed) - 0.5, urand(&seed) - 0.5, urand(&seed) - 0.5);
        if (k % 7 == 0) hint = (int)(urand(&seed) * h->vertex_count) % h->vertex_count; // cold starts too
        int climbed = tc_convex_support_index(&with, d, &hint), scanned = tc_convex_support_index(&without, d, NULL);
        assert_int_equal(hint, climbed);
        assert_near(tc_v3_dot(h->vertices[climbed], d), tc_v3_dot(h->vertices[scanned], d), 1e-14);
    }
    tc_hull_free(h);
}

// The early exit of the contact query: "apart" only when the sets are farther apart than the
// threshold (checked against a separating-axis gap and GJK), with depth a lower bound of the distance;
// "near" only when they are apart by less (GJK and SAT agree they are apart); otherwise the same
// result as the plain growth distance.
static void test_growth_within_exits_only_when_apart(void** state) {
    (void)state;
    unsigned seed = 424242u;
    int apart = 0, full = 0, near = 0;
    for (int i = 0; i < 3000; ++i) {
        tc_hull* a = random_hull(&seed, tc_v3_zero());
        tc_hull* b = random_hull(&seed, tc_v3(urand(&seed) * 2 - 1, urand(&seed) * 2 - 1, urand(&seed) * 2 - 1));
        assert_non_null(a);
        assert_non_null(b);
        tc_convex A = convex_of(a->vertices, a->vertex_count, a->centroid, 0);
        tc_convex B = convex_of(b->vertices, b->vertex_count, b->centroid, 0);
        tc_real gap = sat_gap(a, b), threshold = 0.05;
        tc_growth_query q = tc_growth_distance_within(&A, &B, tc_v3(0, 0, 1), threshold);
        if (q.apart) { // the SAT gap and GJK's distance are both at least the proving bound
            tc_gjk_result r = tc_gjk_distance(&A, &B);
            assert_true(q.result.depth < -threshold);
            assert_true(gap > threshold - 1e-9 && r.distance > threshold - 1e-9);
            assert_true(-q.result.depth <= r.distance + 1e-9);
            assert_near(tc_v3_len(q.result.normal), 1, 1e-12);
            apart++;
        } else if (q.near) { // proved apart, within the threshold: GJK's distance and the SAT gap agree
            tc_gjk_result r = tc_gjk_distance(&A, &B);
            assert_true(q.result.depth < 0 && q.result.depth >= -threshold);
            assert_true(r.status == TC_GJK_SEPARATED && gap > 0);
            assert_true(-q.result.depth <= r.distance + 1e-9);
            tc_growth_result g = tc_growth_distance(&A, &B, tc_v3(0, 0, 1));
            assert_true(g.ok && g.alpha > 1);
            near++;
        } else {
            tc_growth_result g = tc_growth_distance(&A, &B, tc_v3(0, 0, 1));
            assert_true(q.result.ok == g.ok);
            assert_true(q.result.alpha == g.alpha && q.result.depth == g.depth);
            assert_true(tc_v3_dist(q.result.normal, g.normal) == 0);
            full++;
        }
        tc_hull_free(a);
        tc_hull_free(b);
    }
    printf("early exits %d, near %d, full queries %d\n", apart, near, full);
    assert_true(apart > 300 && full > 300 && near > 10);
}

// The growth distance's normal against a brute force: the face of hull(A - B) (qhull over all
// vertex differences) where the line t (cA - cB) enters it. Hits within 1e-7 of an edge of A - B
// (two faces give nearly the same t) have no unique normal and are skipped. `warm`: the query
// warm-started from the answer for B moved by up to 2 cm (its normal and exit-face portal), or
// from a random axis, or with a portal of invalid indices.
static void check_growth_normals(bool warm) {
    unsigned seed = warm ? 515151u : 31337u;
    int checked = 0, skipped = 0, reused = 0;
    for (int i = 0; i < 1500; ++i) {
        tc_hull* a = random_hull(&seed, tc_v3_zero());
        tc_hull* b = random_hull(&seed, tc_v3(urand(&seed) * 0.8 - 0.4, urand(&seed) * 0.8 - 0.4, urand(&seed) * 0.8 - 0.4));
        assert_non_null(a);
        assert_non_null(b);
        tc_vec3 d[256];
        int n = 0;
        for (int j = 0; j < a->vertex_count; ++j)
            for (int k = 0; k < b->vertex_count; ++k) d[n++] = tc_v3_sub(a->vertices[j], b->vertices[k]);
        tc_hull* D = tc_hull_from_points(d, n, "difference", NULL);
        assert_non_null(D);
        tc_vec3 c = tc_v3_sub(a->centroid, b->centroid), best = tc_v3_zero();
        tc_real tmin = -1e300, second = -1e300;
        for (int f = 0; f < D->face_count; ++f) {
            tc_real nc = tc_v3_dot(D->face_normals[f], c), t = nc < 0 ? D->face_offsets[f] / nc : -1e300;
            if (t > tmin) second = tmin, tmin = t, best = D->face_normals[f];
            else if (t > second) second = t;
        }
        tc_convex A = convex_of(a->vertices, a->vertex_count, a->centroid, 0);
        tc_convex B = convex_of(b->vertices, b->vertex_count, b->centroid, 0);
        if (tmin < 1 && tmin - second > 1e-7) {
            tc_growth_result g;
            if (!warm) g = tc_growth_distance(&A, &B, tc_v3(0, 0, 1)); // overlapping: the portal; apart (tmin > 0): the ray cast
            else { // warm start from the answer for B moved by up to 2 cm (the last frame), or from anything
                tc_vec3 shift = tc_v3_scale(tc_v3(urand(&seed) - 0.5, urand(&seed) - 0.5, urand(&seed) - 0.5), 0.04), moved[64];
                for (int k = 0; k < b->vertex_count; ++k) moved[k] = tc_v3_add(b->vertices[k], shift);
                tc_convex Bm = convex_of(moved, b->vertex_count, tc_v3_add(b->centroid, shift), 0);
                tc_growth_query last = tc_growth_distance_within(&A, &Bm, tc_v3(0, 0, 1), INFINITY);
                tc_vec3 turn = tc_v3(urand(&seed) - 0.5, urand(&seed) - 0.5, urand(&seed) - 0.5);
                tc_vec3 axis = i % 4 ? last.result.normal : tc_v3_scale(turn, 3);
                int garbage[6] = {-1, 99, 3, 2, 1, 0}, *portal = last.has_portal ? last.portal : NULL;
                if (i % 7 == 0) portal = garbage; // indices out of range are ignored
                tc_growth_query q = tc_growth_distance_warm(&A, &B, tc_v3(0, 0, 1), INFINITY, axis, portal);
                reused += portal == last.portal;
                if (tmin > 0) { // apart: the contact query stops at the first support proving it
                    assert_true(q.near && !q.apart && q.result.depth < 0);
                    tc_hull_free(D), tc_hull_free(a), tc_hull_free(b);
                    continue;
                }
                assert_true(!q.near && !q.apart);
                g = q.result;
            }
            assert_true(g.ok);
            if (tc_v3_dist(g.normal, best) > 1e-6)
                fail_msg("pair %d: normal (%g %g %g), brute force (%g %g %g)", i, g.normal.x, g.normal.y, g.normal.z, best.x, best.y, best.z);
            assert_near(g.alpha, 1 / (1 - tmin), 1e-9);
            checked++;
        } else skipped += tmin < 1;
        tc_hull_free(D);
        tc_hull_free(a);
        tc_hull_free(b);
    }
    printf("%s: %d pairs checked (alpha < 2), %d skipped (hit on an edge of A - B), %d from a previous portal\n", warm ? "warm" : "cold",
           checked, skipped, reused);
    assert_true(checked > 1000 && (!warm || reused > 800));
}

static void test_growth_normal_matches_brute_force(void** state) {
    (void)state;
    check_growth_normals(false);
}

static void test_growth_warm_matches_brute_force(void** state) {
    (void)state;
    check_growth_normals(true);
}

// A warm start from a separating axis ends "apart" with that axis; from an axis that does not
// separate, the query runs on and agrees with the cold one.
static void test_growth_warm_separated(void** state) {
    (void)state;
    unsigned seed = 99u;
    int apart = 0;
    for (int i = 0; i < 2000; ++i) {
        tc_hull* a = random_hull(&seed, tc_v3_zero());
        tc_hull* b = random_hull(&seed, tc_v3(urand(&seed) * 3 - 1.5, urand(&seed) * 3 - 1.5, urand(&seed) * 3 - 1.5));
        assert_non_null(a);
        assert_non_null(b);
        tc_convex A = convex_of(a->vertices, a->vertex_count, a->centroid, 0);
        tc_convex B = convex_of(b->vertices, b->vertex_count, b->centroid, 0);
        tc_growth_query cold = tc_growth_distance_within(&A, &B, tc_v3(0, 0, 1), 0.01);
        if (cold.apart) {
            tc_growth_query w = tc_growth_distance_warm(&A, &B, tc_v3(0, 0, 1), 0.01, tc_v3_scale(cold.result.normal, 2.5), NULL);
            assert_true(w.apart);
            assert_true(tc_v3_dist(w.result.normal, cold.result.normal) < 1e-15);
            assert_true(sat_gap(a, b) > 0.01 - 1e-9);
            apart++;
        }
        tc_hull_free(a);
        tc_hull_free(b);
    }
    assert_true(apart > 500);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_distances),           cmocka_unit_test(test_spheres_and_points),
        cmocka_unit_test(test_ray_cast),                cmocka_unit_test(test_growth_distance_by_hand),
        cmocka_unit_test(test_random_pairs_match_sat),  cmocka_unit_test(test_support_climbing_matches_scan),
        cmocka_unit_test(test_growth_within_exits_only_when_apart), cmocka_unit_test(test_growth_normal_matches_brute_force),
        cmocka_unit_test(test_growth_warm_matches_brute_force),     cmocka_unit_test(test_growth_warm_separated),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
