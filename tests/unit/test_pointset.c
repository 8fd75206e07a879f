// Point-set surface: grid queries against brute force, PCA normals, MLS surface on a sphere.
#include "tc_test.h"
#include "geometry/pointset.h"

#define SPHERE_N 2000

// Fibonacci sphere: near-uniform samples of radius R around c, exact radial normals.
static void fibonacci_sphere(tc_vec3* pts, tc_vec3* nrm, int n, tc_real radius, tc_vec3 c) {
    const tc_real golden = TC_PI * (3 - sqrt(5.0));
    for (int i = 0; i < n; ++i) {
        tc_real z = 1 - (2 * i + 1.0) / n, r = sqrt(1 - z * z), phi = golden * i;
        tc_vec3 u = tc_v3(r * cos(phi), r * sin(phi), z);
        pts[i] = tc_v3_madd(c, radius, u);
        if (nrm) nrm[i] = u;
    }
}

// Deterministic pseudo-random in [0,1).
static tc_real rnd(unsigned* s) {
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) / 16777216.0;
}

static tc_vec3 random_unit(unsigned* s) {
    for (;;) {
        tc_vec3 v = tc_v3(2 * rnd(s) - 1, 2 * rnd(s) - 1, 2 * rnd(s) - 1);
        tc_real l = tc_v3_len(v);
        if (l > 0.1 && l <= 1) return tc_v3_scale(v, 1 / l);
    }
}

static void make_sphere(tc_pointset* ps, bool with_normals) {
    static tc_vec3 pts[SPHERE_N], nrm[SPHERE_N];
    fibonacci_sphere(pts, nrm, SPHERE_N, 1.0, tc_v3(0.3, -0.2, 0.5));
    tc_error err;
    assert_int_equal(tc_pointset_init(ps, pts, with_normals ? nrm : NULL, SPHERE_N, 0, "sphere", &err), TC_RESULT_OK);
}

static void test_radius_and_knn_match_brute_force(void** state) {
    (void)state;
    tc_pointset ps;
    make_sphere(&ps, true);
    unsigned seed = 7;
    int out[SPHERE_N];
    for (int q = 0; q < 40; ++q) {
        tc_vec3 x = tc_v3_add(tc_v3(0.3, -0.2, 0.5), tc_v3_scale(random_unit(&seed), 0.5 + rnd(&seed)));
        tc_real r = 0.05 + 0.3 * rnd(&seed);
        int found = tc_pointset_query_radius(&ps, x, r, out, SPHERE_N);
        int expect = 0, j = 0;
        for (int i = 0; i < ps.count; ++i)
            if (tc_v3_dist(ps.points[i], x) <= r) {
                ++expect;
                assert_int_equal(out[j++], i); // ascending index order
            }
        assert_int_equal(found, expect);
        // k-nearest: the k-th distance equals the brute-force k-th smallest
        int k = 1 + q % 17;
        tc_real d2[32];
        assert_int_equal(tc_pointset_query_knn(&ps, x, k, out, d2), k);
        for (int a = 1; a < k; ++a) assert_true(d2[a] >= d2[a - 1]);
        int closer = 0;
        for (int i = 0; i < ps.count; ++i)
            if (tc_v3_len2(tc_v3_sub(ps.points[i], x)) < d2[k - 1]) ++closer;
        assert_true(closer <= k - 1);
        assert_near(d2[0], tc_v3_len2(tc_v3_sub(ps.points[out[0]], x)), 0);
    }
    // a far query still finds the nearest point
    tc_vec3 far = tc_v3(100, 0, 0);
    int best = 0;
    for (int i = 1; i < ps.count; ++i)
        if (tc_v3_dist(ps.points[i], far) < tc_v3_dist(ps.points[best], far)) best = i;
    assert_int_equal(tc_pointset_nearest(&ps, far), best);
    tc_pointset_destroy(&ps);
}

static void test_mls_is_signed_distance_on_sphere(void** state) {
    (void)state;
    tc_pointset ps;
    make_sphere(&ps, true);
    tc_vec3 c = tc_v3(0.3, -0.2, 0.5);
    // h = 2 x spacing (spacing ~ sqrt(4 pi / N) ~ 0.079)
    assert_true(ps.h > 0.1 && ps.h < 0.2);
    unsigned seed = 3;
    for (int q = 0; q < 200; ++q) {
        tc_vec3 u = random_unit(&seed);
        tc_real t = -0.2 + 0.4 * rnd(&seed);
        tc_vec3 x = tc_v3_madd(c, 1 + t, u);
        tc_mls_eval e;
        assert_true(tc_pointset_mls(&ps, x, &e));
        // f ~ signed distance; a(x) sits h^2/(2R) inside a curved surface (weighted-centroid bias)
        assert_near(e.f, t, 0.6 * ps.h * ps.h + 0.02 * fabs(t));
        assert_true(tc_v3_dot(e.n, u) > cos(1.0 * TC_PI / 180));
        if (fabs(t) > 0.05) assert_true((e.f < 0) == (t < 0));
        if (fabs(t) > ps.h * ps.h) assert_int_equal(tc_pointset_inside(&ps, x), t < 0);
        tc_vec3 p, n;
        assert_true(tc_pointset_project(&ps, x, &p, &n));
        // the projection lands on the sphere (within the MLS curvature bias) along the radial line
        assert_near(tc_v3_dist(p, c), 1 - 0.5 * ps.h * ps.h, 0.15 * ps.h * ps.h);
        assert_true(tc_v3_dot(tc_v3_normalize(tc_v3_sub(p, c)), u) > cos(0.5 * TC_PI / 180));
        tc_mls_eval ep;
        tc_pointset_mls(&ps, p, &ep);
        assert_true(fabs(ep.f) < 1e-6 * ps.h);
        tc_real sd = tc_pointset_signed_distance(&ps, x, NULL);
        assert_near(sd, tc_v3_dist(x, c) - tc_v3_dist(p, c), 1e-3);
    }
    // out of reach: outside and far, never NaN
    tc_mls_eval far;
    assert_false(tc_pointset_mls(&ps, tc_v3(10, 0, 0), &far));
    assert_true(far.f > 0);
    assert_false(tc_pointset_inside(&ps, tc_v3(10, 0, 0)));
    // beyond reach: a signed lower bound from the nearest sample (outside far, inside at the centre)
    tc_real dfar = tc_pointset_signed_distance_any(&ps, tc_v3_add(c, tc_v3(10, 0, 0)), NULL);
    assert_true(dfar > 8.8 && dfar <= 9.0);
    tc_real dcentre = tc_pointset_signed_distance_any(&ps, c, NULL);
    assert_true(dcentre < -0.7 && dcentre >= -1.0);
    tc_pointset_destroy(&ps);
}

static void test_pca_normals_point_out(void** state) {
    (void)state;
    tc_pointset ps;
    make_sphere(&ps, false);
    tc_vec3 c = tc_v3(0.3, -0.2, 0.5);
    tc_pointset_estimate_normals(&ps, 12);
    double worst = 0;
    for (int i = 0; i < ps.count; ++i) {
        tc_vec3 radial = tc_v3_normalize(tc_v3_sub(ps.points[i], c));
        worst = fmax(worst, acos(fmin(1, tc_v3_dot(ps.normals[i], radial))) * 180 / TC_PI);
    }
    printf("worst PCA normal error %.3f deg\n", worst);
    assert_true(worst < 1.0);
    // Gaussian-weighted PCA at a point on the surface, oriented by a reference
    tc_vec3 n;
    tc_real flat;
    tc_vec3 x = tc_v3_add(c, tc_v3(0, 0.6, 0.8));
    assert_true(tc_pointset_pca_normal(&ps, x, tc_v3(0, 0, -1), &n, &flat));
    assert_true(tc_v3_dot(n, tc_v3(0, -0.6, -0.8)) > cos(1.0 * TC_PI / 180));
    assert_true(flat >= 0 && flat < 0.05);
    // flipped stored normals are kept flipped (orientation agrees with the stored normal)
    for (int i = 0; i < ps.count; ++i) ps.normals[i] = tc_v3_neg(ps.normals[i]);
    tc_pointset_estimate_normals(&ps, 12);
    tc_vec3 radial0 = tc_v3_normalize(tc_v3_sub(ps.points[0], c));
    assert_true(tc_v3_dot(ps.normals[0], radial0) < -0.99);
    tc_pointset_destroy(&ps);
}

static void test_plane_exact(void** state) {
    (void)state;
    // a planar grid: f is exactly the height above the plane, projection drops straight down
    enum { side = 21 };
    tc_vec3 pts[side * side], nrm[side * side];
    for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j) {
            pts[i * side + j] = tc_v3(0.1 * i, 0.1 * j, 0.25);
            nrm[i * side + j] = tc_v3(0, 0, 1);
        }
    tc_pointset ps;
    assert_int_equal(tc_pointset_init(&ps, pts, nrm, side * side, 0, NULL, NULL), TC_RESULT_OK);
    assert_near(tc_pointset_mean_spacing(&ps), 0.1, 1e-12);
    assert_near(ps.h, 0.2, 1e-12);
    tc_mls_eval e;
    assert_true(tc_pointset_mls(&ps, tc_v3(1.03, 0.97, 0.4), &e));
    assert_near(e.f, 0.15, 1e-12);
    tc_vec3 p, n;
    assert_true(tc_pointset_project(&ps, tc_v3(1.03, 0.97, 0.1), &p, &n));
    assert_vec3_near(p, tc_v3(1.03, 0.97, 0.25), 1e-12);
    assert_vec3_near(n, tc_v3(0, 0, 1), 1e-15);
    assert_true(tc_pointset_inside(&ps, tc_v3(1, 1, 0.2)));
    tc_pointset_destroy(&ps);
}

static void test_bad_input(void** state) {
    (void)state;
    tc_vec3 pts[3] = {{0, 0, 0}, {1, 0, 0}, {0, NAN, 0}};
    tc_vec3 nrm[3] = {{0, 0, 1}, {0, 0, 0}, {0, 0, 1}};
    tc_pointset ps;
    tc_error err;
    assert_int_equal(tc_pointset_init(&ps, pts, NULL, 3, 0, "body", &err), TC_RESULT_NOT_FINITE);
    assert_non_null(strstr(err.message, "points[2]"));
    assert_int_equal(tc_pointset_init(&ps, pts, nrm, 2, 0, "body", &err), TC_RESULT_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "normals[1]"));
    assert_int_equal(tc_pointset_init(&ps, pts, NULL, 0, 0, "body", &err), TC_RESULT_INVALID_ARGUMENT);
    assert_int_equal(tc_pointset_init(&ps, pts, NULL, 2, NAN, "body", &err), TC_RESULT_NOT_FINITE);
    // a single point works and queries stay finite
    assert_int_equal(tc_pointset_init(&ps, pts, nrm, 1, 0, "body", &err), TC_RESULT_OK);
    assert_int_equal(tc_pointset_nearest(&ps, tc_v3(5, 5, 5)), 0);
    assert_int_equal(tc_pointset_query_radius(&ps, tc_v3(NAN, 0, 0), 1, NULL, 0), 0);
    tc_pointset_destroy(&ps);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_radius_and_knn_match_brute_force, tc_test_setup_log),
        cmocka_unit_test_setup(test_mls_is_signed_distance_on_sphere, tc_test_setup_log),
        cmocka_unit_test_setup(test_pca_normals_point_out, tc_test_setup_log),
        cmocka_unit_test_setup(test_plane_exact, tc_test_setup_log),
        cmocka_unit_test_setup(test_bad_input, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
