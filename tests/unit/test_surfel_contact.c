// Contact surfaces of point bodies (ALGORITHMS.md §8.5): Brent, MLS sphere, stiffness-weighted
// contact surface, force conservation, density estimate, sampling independence.
#include "tc_test.h"
#include "contact/brent.h"
#include "contact/surfel_contact.h"
#include "math/eigen.h"

static tc_real cubic(tc_real x, void* c) { (void)c; return x * x * x - 2 * x - 5; }
static tc_real cos_minus(tc_real x, void* c) { (void)c; return cos(x) - x; }
static tc_real flat_step(tc_real x, void* c) { (void)c; return x < 0.3 ? -1 : (x < 0.7 ? 0.0 * x + 1e-3 : 1); }

static void test_brent_known_roots(void** state) {
    (void)state;
    tc_real r;
    int it;
    assert_true(tc_brent(cubic, NULL, 2, 3, 1e-14, 50, &r, &it));
    assert_near(r, 2.0945514815423265, 1e-12);
    assert_true(it < 15); // superlinear
    assert_true(tc_brent(cos_minus, NULL, 0, 1, 1e-14, 50, &r, NULL));
    assert_near(r, 0.7390851332151607, 1e-12);
    // A discontinuous, flat function converges by bisection onto the jump at 0.3.
    assert_true(tc_brent(flat_step, NULL, 0, 1, 1e-10, 100, &r, NULL));
    assert_near(r, 0.3, 1e-9);
    // No sign change: reported, not invented.
    assert_false(tc_brent(cubic, NULL, 3, 4, 1e-12, 50, &r, NULL));
}

static tc_points_body* build(tc_points_body_def d) {
    tc_points_body* b = NULL;
    tc_error e;
    assert_int_equal(tc_points_body_build(&d, &b, &e), TC_RESULT_OK);
    return b;
}

static tc_real rnd(uint32_t* s) {
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) * (1.0 / 16777216.0);
}

static void test_mls_sphere_projection_inside_and_normals(void** state) {
    (void)state;
    enum { N = 2000 };
    tc_real R = 1;
    tc_vec3* s = tc_alloc(N * sizeof(tc_vec3));
    tc_vec3* n = tc_alloc(N * sizeof(tc_vec3));
    tc_real golden = TC_PI * (3 - sqrt(5.0));
    for (int i = 0; i < N; ++i) {
        tc_real z = 1 - 2 * (i + 0.5) / N, r = sqrt(1 - z * z);
        n[i] = tc_v3(r * cos(golden * i), r * sin(golden * i), z);
        s[i] = tc_v3_scale(n[i], R);
    }
    tc_real spacing = sqrt(4 * TC_PI / N);
    tc_surfel_surface S = {0};
    assert_true(tc_surfel_surface_build(&S, s, n, N, 1.5 * spacing));
    uint32_t seed = 5;
    for (int q = 0; q < 200; ++q) {
        tc_vec3 dir = tc_v3_normalize(tc_v3(rnd(&seed) - 0.5, rnd(&seed) - 0.5, rnd(&seed) - 0.5));
        tc_real rad = R * (0.8 + 0.4 * rnd(&seed));
        tc_vec3 x = tc_v3_scale(dir, rad), p, pn;
        assert_true(tc_surfel_surface_project(&S, x, &p, &pn));
        assert_near(tc_v3_len(p), R, 1e-3 * R);
        tc_vec3 fn;
        tc_real f = tc_surfel_surface_eval(&S, x, &fn);
        if (rad < 0.99 * R) { assert_true(f < 0); assert_true(tc_surfel_surface_inside(&S, x)); }
        if (rad > 1.01 * R) { assert_true(f > 0); assert_false(tc_surfel_surface_inside(&S, x)); }
        tc_vec3 pca;
        assert_true(tc_surfel_surface_pca_normal(&S, p, dir, &pca));
        assert_true(tc_v3_dot(pca, tc_v3_normalize(p)) > cos(TC_PI / 180));
    }
    tc_surfel_surface_free(&S);
    tc_free(s, N * sizeof(tc_vec3));
    tc_free(n, N * sizeof(tc_vec3));
}

// The PCA normal (inverse iteration, a Jacobi decomposition where it does not settle) is the
// least eigenvector of the weighted covariance of the points within 2h (weights exp(-d^2/h^2)
// about x, the centroid weighted), as the test computes it with tc_eigen_sym3: a plane with
// noise and a sphere cap to within 1e-9; a cloud without a flat direction (close eigenvalues:
// the fallback) and collinear points (no unique normal) give an eigenvector of the least
// eigenvalue (its Rayleigh quotient equal to it to 1e-9 of the trace).
static void test_pca_normal_is_the_least_eigenvector(void** state) {
    (void)state;
    enum { N = 81 };
    tc_real h = 1;
    tc_vec3 s[N], n[N];
    uint32_t seed = 11;
    for (int shape = 0; shape < 4; ++shape) {
        for (int i = 0; i < N; ++i) {
            tc_real u = 0.35 * (i % 9 - 4), v = 0.35 * (i / 9 - 4), jitter = 0.02 * (rnd(&seed) - 0.5);
            if (shape == 0) s[i] = tc_v3(u, v, 0.001 * (rnd(&seed) - 0.5)); // plane, noise 1e-3 h
            else if (shape == 1) s[i] = tc_v3(u + jitter, v, 2 - sqrt(4 - u * u - v * v)); // sphere cap R = 2h
            else if (shape == 2) s[i] = tc_v3(1.4 * (rnd(&seed) - 0.5), 1.4 * (rnd(&seed) - 0.5), 1.4 * (rnd(&seed) - 0.5));
            else s[i] = tc_v3(0.3 * (i % 9 - 4) + jitter, 0.5 * (0.3 * (i % 9 - 4) + jitter), 0); // collinear
            n[i] = tc_v3(0, 0, 1);
        }
        tc_surfel_surface S = {0};
        assert_true(tc_surfel_surface_build(&S, s, n, N, h));
        tc_vec3 x = tc_v3(0.05, -0.03, 0.01), pca;
        assert_true(tc_surfel_surface_pca_normal(&S, x, tc_v3(0.1, 0.2, 1), &pca));
        tc_real w_sum = 0, C[3][3] = {{0}};
        tc_vec3 c = tc_v3_zero();
        for (int i = 0; i < N; ++i) {
            tc_real d2 = tc_v3_len2(tc_v3_sub(s[i], x)), w = d2 <= 4 * h * h ? exp(-d2 / (h * h)) : 0;
            w_sum += w;
            c = tc_v3_madd(c, w, s[i]);
        }
        c = tc_v3_scale(c, 1 / w_sum);
        for (int i = 0; i < N; ++i) {
            tc_real d2 = tc_v3_len2(tc_v3_sub(s[i], x)), w = d2 <= 4 * h * h ? exp(-d2 / (h * h)) : 0;
            tc_vec3 e = tc_v3_sub(s[i], c);
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) C[a][b] += w * tc_v3_get(e, a) * tc_v3_get(e, b);
        }
        tc_mat3 M = {{{C[0][0], C[0][1], C[0][2]}, {C[1][0], C[1][1], C[1][2]}, {C[2][0], C[2][1], C[2][2]}}};
        tc_vec3 values;
        tc_mat3 V;
        tc_eigen_sym3(M, &values, &V);
        tc_vec3 least = tc_mat3_col(V, 0);
        assert_near(tc_v3_len(pca), 1, 1e-12);
        if (shape < 2) assert_true(tc_v3_len(tc_v3_cross(pca, least)) < 1e-9);
        tc_vec3 Mp = tc_v3(C[0][0] * pca.x + C[0][1] * pca.y + C[0][2] * pca.z, C[1][0] * pca.x + C[1][1] * pca.y + C[1][2] * pca.z,
                           C[2][0] * pca.x + C[2][1] * pca.y + C[2][2] * pca.z);
        tc_real trace = C[0][0] + C[1][1] + C[2][2];
        assert_near(tc_v3_dot(pca, Mp), values.x, 1e-9 * trace);
        tc_surfel_surface_free(&S);
    }
}

// The fits from the shared neighbour lists (tiles, one per grid cell) equal bit for bit those
// of a walk of the grid around each point: the same neighbours in the same order. Points
// everywhere in and around a sphere (inside, outside, beyond the grid, on cell boundaries),
// more distinct cells than the cache keeps (it starts over), queried in two orders, and again
// after the surfels moved and the surface was rebuilt (stale lists would differ).
static void expect_same_fit(const tc_surfel_surface* S, tc_vec3 x) {
    tc_surfel_fit tiled, direct;
    memset(&tiled, 0, sizeof tiled);
    memset(&direct, 0, sizeof direct);
    bool ok_t = tc_surfel_surface_fit(S, x, &tiled), ok_d = tc_surfel_surface_fit_direct(S, x, &direct);
    assert_int_equal(ok_t, ok_d);
    assert_memory_equal(&tiled, &direct, sizeof tiled);
}

static void test_mls_tiled_fits_match_direct_fits(void** state) {
    (void)state;
    enum { N = 2000, Q = 3000 };
    tc_vec3* s = tc_alloc(N * sizeof(tc_vec3));
    tc_vec3* n = tc_alloc(N * sizeof(tc_vec3));
    tc_vec3* x = tc_alloc(Q * sizeof(tc_vec3));
    tc_real golden = TC_PI * (3 - sqrt(5.0));
    for (int i = 0; i < N; ++i) {
        tc_real z = 1 - 2 * (i + 0.5) / N, r = sqrt(1 - z * z);
        n[i] = tc_v3(r * cos(golden * i), r * sin(golden * i), z);
        s[i] = n[i];
    }
    tc_real spacing = sqrt(4 * TC_PI / N);
    tc_surfel_surface S = {0};
    assert_true(tc_surfel_surface_build(&S, s, n, N, 1.5 * spacing));
    uint32_t seed = 11;
    for (int q = 0; q < Q; ++q) {
        if (q % 3 == 0) { // near the surface, where the contact fits are made
            tc_vec3 dir = tc_v3_normalize(tc_v3(rnd(&seed) - 0.5, rnd(&seed) - 0.5, rnd(&seed) - 0.5));
            x[q] = tc_v3_scale(dir, 0.8 + 0.4 * rnd(&seed));
        } else // anywhere in a box 1.4 times the grid's: many cells, some beyond the grid
            x[q] = tc_v3(2.8 * rnd(&seed) - 1.4, 2.8 * rnd(&seed) - 1.4, 2.8 * rnd(&seed) - 1.4);
        if (q % 7 == 0) x[q].x = S.grid.origin.x + S.grid.cell * (int)(rnd(&seed) * S.grid.dims[0]); // a cell boundary
    }
    for (int q = 0; q < Q; ++q) expect_same_fit(&S, x[q]);
    for (int q = Q - 1; q >= 0; --q) expect_same_fit(&S, x[q]);
    for (int i = 0; i < N; ++i) s[i] = tc_v3_add(tc_v3_scale(s[i], 1.1), tc_v3(0.05, 0, 0));
    assert_true(tc_surfel_surface_build(&S, s, n, N, 1.5 * spacing));
    for (int q = 0; q < Q; ++q) expect_same_fit(&S, x[q]);
    tc_surfel_surface_drop_tiles(&S);
    for (int q = 0; q < Q; q += 5) expect_same_fit(&S, x[q]);
    tc_surfel_surface_free(&S);
    tc_free(s, N * sizeof(tc_vec3));
    tc_free(n, N * sizeof(tc_vec3));
    tc_free(x, Q * sizeof(tc_vec3));
}

// tc_surfel_surface_reaches (stops at the first surfel within the reach, scanning the rows
// from the middle of the ball out) and tc_surfel_surface_reaches_from (the last query's surfel
// found tested first) say whether any surfel lies within TC_SURFEL_REACH h: the brute-force
// answer, for points on the sphere, in shells straddling the reach inside and outside it, and
// anywhere in a box beyond the grid.
static void test_mls_reaches_matches_brute_force(void** state) {
    (void)state;
    enum { N = 1500, Q = 4000 };
    tc_vec3* s = tc_alloc(N * sizeof(tc_vec3));
    tc_vec3* n = tc_alloc(N * sizeof(tc_vec3));
    tc_real golden = TC_PI * (3 - sqrt(5.0));
    for (int i = 0; i < N; ++i) {
        tc_real z = 1 - 2 * (i + 0.5) / N, r = sqrt(1 - z * z);
        n[i] = tc_v3(r * cos(golden * i), r * sin(golden * i), z);
        s[i] = n[i];
    }
    tc_real h = 1.5 * sqrt(4 * TC_PI / N), reach2 = (TC_SURFEL_REACH * h) * (TC_SURFEL_REACH * h);
    tc_surfel_surface S = {0};
    assert_true(tc_surfel_surface_build(&S, s, n, N, h));
    uint32_t seed = 5;
    int yes = 0, no = 0, hint = -1;
    for (int q = 0; q < Q; ++q) {
        tc_vec3 x, dir = tc_v3_normalize(tc_v3(rnd(&seed) - 0.5, rnd(&seed) - 0.5, rnd(&seed) - 0.5));
        if (q % 4 == 0) x = dir;
        else if (q % 4 == 1) x = tc_v3_scale(dir, 1 + (2.6 + 0.8 * rnd(&seed)) * h); // outside, near the reach
        else if (q % 4 == 2) x = tc_v3_scale(dir, 1 - (2.6 + 0.8 * rnd(&seed)) * h); // inside, near the reach
        else x = tc_v3(3 * rnd(&seed) - 1.5, 3 * rnd(&seed) - 1.5, 3 * rnd(&seed) - 1.5);
        bool brute = false;
        for (int i = 0; i < N && !brute; ++i) brute = tc_v3_len2(tc_v3_sub(s[i], x)) <= reach2;
        assert_int_equal(tc_surfel_surface_reaches(&S, x), brute);
        assert_int_equal(tc_surfel_surface_reaches_from(&S, x, &hint), brute); // (the hint: the last point's surfel found)
        yes += brute, no += !brute;
    }
    assert_true(yes > Q / 4 && no > Q / 8); // both answers well exercised
    tc_surfel_surface_free(&S);
    tc_free(s, N * sizeof(tc_vec3));
    tc_free(n, N * sizeof(tc_vec3));
}

// The weights are cut off at TC_SURFEL_CUTOFF h: a surfel just beyond leaves the fit at x
// untouched, one just inside moves it. Far off the surface (fewer than 8 surfels within the
// cut-off) a fit takes the surfels within the reach, 3h, and fails beyond it.
static tc_real plane_fit_with_extra(tc_real extra_dist, tc_vec3 x, bool* ok) {
    enum { M = 21 };
    tc_vec3 s[M * M + 1], n[M * M + 1];
    tc_real spacing = 0.01, h = 1.5 * spacing;
    int count = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < M; ++j) s[count] = tc_v3((i - M / 2) * spacing, (j - M / 2) * spacing, 0), n[count++] = tc_v3(0, 0, 1);
    if (extra_dist > 0) s[count] = tc_v3_madd(x, extra_dist * h, tc_v3(0.6, 0, 0.8)), n[count++] = tc_v3(0, 0, 1);
    tc_surfel_surface S = {0};
    assert_true(tc_surfel_surface_build(&S, s, n, count, h));
    tc_surfel_fit fit;
    *ok = tc_surfel_surface_fit(&S, x, &fit);
    tc_surfel_surface_free(&S);
    return fit.f;
}

static void test_mls_cutoff_and_reach(void** state) {
    (void)state;
    tc_real h = 0.015;
    bool ok;
    tc_vec3 x = tc_v3(0.003, 0.002, 0);
    tc_real plain = plane_fit_with_extra(0, x, &ok);
    assert_true(ok);
    assert_near(plain, 0, 1e-12);
    assert_true(plane_fit_with_extra(TC_SURFEL_CUTOFF * 1.02, x, &ok) == plain);
    assert_true(fabs(plane_fit_with_extra(TC_SURFEL_CUTOFF * 0.98, x, &ok) - plain) > 1e-6 * h);
    // 2.5h above the plane: no surfel within 2h, the fit of those within 3h is the plane's.
    assert_near(plane_fit_with_extra(0, tc_v3(0.003, 0.002, 2.5 * h), &ok), 2.5 * h, 1e-9);
    assert_true(ok);
    plane_fit_with_extra(0, tc_v3(0.003, 0.002, (TC_SURFEL_REACH + 0.02) * h), &ok);
    assert_false(ok);
}

// Two wide slabs, A below B, overlapping by delta in z (the faces act as half-spaces near the centre).
typedef struct slab_pair { tc_points_body *A, *B; tc_real top_a, bottom_b; } slab_pair;

static slab_pair make_slabs(tc_real ea, tc_real eb, tc_real delta, tc_real surfel_spacing) {
    tc_points_body_def d = tc_points_body_def_default();
    d.half_extents = tc_v3(0.15, 0.15, 0.05);
    d.phyxel_spacing = 0.05;
    d.surfel_spacing = surfel_spacing;
    d.jitter = 0;
    d.youngs_modulus = ea;
    d.base.pose.p = tc_v3(0, 0, 0);
    slab_pair s;
    s.A = build(d);
    d.youngs_modulus = eb;
    d.base.pose.p = tc_v3(0, 0, 0.1 - delta);
    s.B = build(d);
    s.top_a = 0.05;
    s.bottom_b = 0.05 - delta;
    return s;
}

static void free_slabs(slab_pair s) {
    tc_points_body_free(s.A);
    tc_points_body_free(s.B);
}

static tc_surfel_contact_params params(tc_real spacing) {
    tc_surfel_contact_params p = {1e7, 0, 0.5, spacing, 2, false};
    return p;
}

// Mean height of the contact samples within 0.05 m of the axis.
static tc_real central_height(const tc_surfel_contact* c, int* count) {
    tc_real sum = 0;
    *count = 0;
    for (int i = 0; i < c->points.count; ++i) {
        tc_vec3 p = c->points.data[i];
        if (fabs(p.x) > 0.05 || fabs(p.y) > 0.05) continue;
        sum += p.z;
        (*count)++;
    }
    return *count ? sum / *count : NAN;
}

static void check_surface_split(tc_real ea, tc_real eb) {
    tc_real delta = 0.01;
    slab_pair s = make_slabs(ea, eb, delta, 0.012);
    tc_surfel_contact c = {0};
    tc_surfel_contact_params p = params(0.012);
    assert_true(tc_surfel_contact_surface(s.A, s.B, &p, &c) > 20);
    int n;
    tc_real z = central_height(&c, &n);
    assert_true(n > 10);
    // w_i = E_i: A's surface moves down by delta E_B / (E_A + E_B).
    tc_real expect = s.top_a - delta * eb / (ea + eb);
    print_message("E_A/E_B = %g: contact surface at %.6f, expected %.6f (%d central samples)\n", ea / eb, z, expect, n);
    assert_near(z, expect, 0.02 * delta);
    for (int i = 0; i < c.normals.count; ++i)
        if (fabs(c.points.data[i].x) < 0.05 && fabs(c.points.data[i].y) < 0.05) assert_true(c.normals.data[i].z > 0.99); // A to B
    tc_surfel_contact_free(&c);
    free_slabs(s);
}

static void test_equal_stiffness_contact_surface_is_midway(void** state) {
    (void)state;
    check_surface_split(1e5, 1e5);
}

static void test_stiffer_body_deforms_less(void** state) {
    (void)state;
    check_surface_split(4e5, 1e5); // A stiffer: moves 0.2 delta
    check_surface_split(1e5, 4e5); // A softer: moves 0.8 delta
}

static tc_vec3 sum_ext(const tc_points_body* b) {
    tc_vec3 s = tc_v3_zero();
    for (int i = 0; i < b->np; ++i) s = tc_v3_add(s, b->f_ext[i]);
    return s;
}

static void test_forces_are_conserved_and_opposite(void** state) {
    (void)state;
    slab_pair s = make_slabs(1e5, 2e5, 0.008, 0.015);
    for (int i = 0; i < s.B->np; ++i) s.B->v[i] = tc_v3(0.3, 0.1, -0.2); // sliding and closing: friction + damping
    tc_points_update_surfels(s.B);
    tc_surfel_contact c = {0};
    tc_surfel_contact_params p = params(0.015);
    p.damping = 1e4;
    tc_surfel_contact_surface(s.A, s.B, &p, &c);
    tc_surfel_contact_forces(s.A, s.B, &p, &c);
    for (int k = 0; k < c.points.count; ++k) {
        tc_points_distribute_force(s.A, c.points.data[k], c.forces.data[k]);
        tc_points_distribute_force(s.B, c.points.data[k], tc_v3_neg(c.forces.data[k]));
    }
    tc_vec3 fa = sum_ext(s.A), fb = sum_ext(s.B);
    tc_real scale = tc_v3_len(c.total_a);
    assert_true(scale > 0);
    assert_true(c.total_a.z < 0); // A (below) is pushed down
    assert_true(c.total_a.x > 0); // friction drags A along B's sliding direction
    assert_vec3_near(fa, c.total_a, 1e-12 * scale);
    assert_vec3_near(fb, tc_v3_neg(c.total_a), 1e-12 * scale);
    tc_surfel_contact_free(&c);
    free_slabs(s);
}

static void test_density_estimate_on_planar_grid(void** state) {
    (void)state;
    enum { M = 21 };
    tc_real a = 0.01;
    tc_vec3 pts[M * M];
    for (int j = 0; j < M; ++j)
        for (int i = 0; i < M; ++i) pts[j * M + i] = tc_v3(i * a, j * a, 0);
    tc_point_grid g = {0};
    tc_point_grid_build(&g, pts, M * M, a);
    tc_real rho = tc_surfel_contact_density(pts, M * M, &g, (M / 2) * M + M / 2, 8);
    assert_near(rho * a * a, 1, 0.3);
    tc_point_grid_free(&g);
}

// The density against a brute-force k-NN (all pairs, sorted) with the same rim correction, on
// points where the first ball holds the k nearest, where it must grow (a sparse tail), and in
// a dense cluster (more than the walk lists: the centroid's grid-walk path).
static void test_density_matches_brute_force(void** state) {
    (void)state;
    enum { N = 260, K = 6 };
    tc_vec3 pts[N];
    uint32_t seed = 3;
    for (int i = 0; i < N; ++i) {
        if (i < 150) pts[i] = tc_v3(0.1 * rnd(&seed), 0.1 * rnd(&seed), 0.002 * rnd(&seed));      // ~1 per 0.01 cell
        else if (i < 230) pts[i] = tc_v3(0.05 + 0.004 * rnd(&seed), 0.05 + 0.004 * rnd(&seed), 0); // dense cluster
        else pts[i] = tc_v3(0.2 + 0.1 * (i - 230), 0.3 * rnd(&seed), 0);                            // sparse tail
    }
    tc_point_grid g = {0};
    assert_true(tc_point_grid_build(&g, pts, N, 0.01));
    for (int i = 0; i < N; ++i) {
        tc_real d2[N];
        int m = 0;
        for (int j = 0; j < N; ++j)
            if (j != i) d2[m++] = tc_v3_len2(tc_v3_sub(pts[i], pts[j]));
        for (int a = 1; a < m; ++a) // insertion sort
            for (int b = a; b > 0 && d2[b] < d2[b - 1]; --b) { tc_real t = d2[b]; d2[b] = d2[b - 1]; d2[b - 1] = t; }
        tc_real rk = sqrt(d2[K - 1]), rk2 = (rk * 1.000001) * (rk * 1.000001);
        tc_vec3 centroid = tc_v3_zero();
        int used = 0;
        for (int j = 0; j < N; ++j)
            if (j != i && tc_v3_len2(tc_v3_sub(pts[i], pts[j])) <= rk2) centroid = tc_v3_add(centroid, tc_v3_sub(pts[j], pts[i])), used++;
        tc_real offset = tc_v3_len(centroid) / used;
        tc_real covered = fmax(0.5, fmin(1, 1 - 0.5 * offset / (4 * rk / (3 * TC_PI))));
        tc_real expect = K / (covered * TC_PI * rk * rk);
        assert_near(tc_surfel_contact_density(pts, N, &g, i, K) / expect, 1, 1e-9); // (the centroid's sum order differs)
    }
    tc_point_grid_free(&g);
}

// The densities of all samples at once (blocks of cells, four samples per vector) have the bits
// of the walk's, sample by sample: patches across each axis with a dense cluster, stacks of
// coincident samples at equal distances (order-sensitive centroid sums), a sparse tail (balls
// that grow: the walk decides those) and sets of 1 to 7 samples (fewer than k others).
static void test_densities_match_walk(void** state) {
    (void)state;
    enum { N = 300 };
    tc_vec3 pts[N];
    tc_real batch[N];
    for (int axis = 0; axis < 3; ++axis) {
        uint32_t seed = 11;
        for (int i = 0; i < N; ++i) {
            tc_real u = 0.12 * rnd(&seed), v = 0.08 * rnd(&seed), w = 0.003 * rnd(&seed);
            if (i >= 200 && i < 280) u = 0.06 + 0.003 * rnd(&seed), v = 0.04 + 0.003 * rnd(&seed); // cluster
            if (i >= 280) u = 0.3 + 0.07 * (i - 280);                                              // tail
            if (i >= 250 && i < 276) {
                u = i < 260 ? 0 : (i < 268 ? 0.007 : 0.0045), v = i < 260 ? 0 : (i < 268 ? 0.0045 : 0.007), w = 0;
            }
            tc_real c[3];
            c[axis] = w, c[(axis + 1) % 3] = u, c[(axis + 2) % 3] = v;
            pts[i] = tc_v3(c[0], c[1], c[2]);
        }
        for (int count = 1; count <= N; count = count < 8 ? count + 1 : (count < N ? N : N + 1)) {
            tc_point_grid g = {0};
            assert_true(tc_point_grid_build(&g, pts, count, 0.006));
            tc_surfel_contact_densities(pts, count, &g, batch);
            for (int i = 0; i < count; ++i) {
                tc_real walk = tc_surfel_contact_density(pts, count, &g, i, 6);
                assert_memory_equal(&walk, &batch[i], sizeof walk);
            }
            tc_point_grid_free(&g);
        }
    }
}

// A non-finite sample has no density (0) and ends the walk: before, its ball grew forever (a NaN
// sample hung the batch; an infinite one, whose grid box is infinite, every walk). The finite
// samples around a NaN keep the walk's values.
static void test_densities_of_non_finite_samples_end(void** state) {
    (void)state;
    enum { N = 20 };
    tc_vec3 pts[N];
    tc_real batch[N];
    for (int bad = 0; bad < 2; ++bad) {
        for (int i = 0; i < N; ++i) pts[i] = tc_v3(0.004 * (i % 5), 0.004 * (i / 5), 0);
        pts[7].x = bad == 0 ? NAN : INFINITY;
        tc_point_grid g = {0};
        bool built = tc_point_grid_build(&g, pts, N, 0.006);
        tc_surfel_contact_densities(pts, N, &g, batch);
        assert_true(batch[7] == 0);
        assert_true(tc_surfel_contact_density(pts, N, &g, 7, 6) == 0);
        for (int i = 0; i < N; ++i) {
            tc_real walk = tc_surfel_contact_density(pts, N, &g, i, 6);
            assert_memory_equal(&walk, &batch[i], sizeof walk);
            if (built && bad == 0 && i != 7) assert_true(walk > 0);
        }
        tc_point_grid_free(&g);
    }
}

// The resampling's second gap pass, which keeps the first pass's gaps far from the added
// samples, lists the same candidates as a fresh search: jittered lattices with holes across z
// and across x, samples added at some of the first pass's midpoints and at random.
static void test_gap_reuse_matches_fresh_search(void** state) {
    (void)state;
    const tc_real sp = 0.01;
    for (int run = 0; run < 4; ++run) {
        int across = run & 1, added = run < 2 ? 8 : 40; // (40: many earlier samples near several added ones)
        uint32_t seed = 21 + (uint32_t)run;
        tc_surfel_points pts = {0}, first = {0}, fresh = {0}, reused = {0};
        for (int a = 0; a < 30; ++a)
            for (int b = 0; b < 30; ++b) {
                if (rnd(&seed) < 0.15) continue; // holes
                tc_real u = (a + 0.3 * rnd(&seed) - 0.15) * sp, v = (b + 0.3 * rnd(&seed) - 0.15) * sp, w = 0.001 * sp * rnd(&seed);
                tc_vec3 p = across ? tc_v3(w, u, v) : tc_v3(u, v, w);
                tc_array_push(&pts, p);
            }
        int old = pts.count;
        tc_surfel_contact_gap_candidates(&pts, sp, old, &first);
        assert_true(first.count > 20);
        for (int c = 0; c < added; ++c) { // added: near some midpoints, and anywhere
            int at = added * 5 / 8;
            tc_vec3 q = c < at ? first.data[c * (first.count / at)] : tc_v3(0.3 * rnd(&seed), 0.3 * rnd(&seed), 0);
            if (c >= at && across) q = tc_v3(0, q.x, q.y);
            tc_array_push(&pts, tc_v3_add(q, tc_v3(0.05 * sp * rnd(&seed), 0.05 * sp * rnd(&seed), 0)));
        }
        tc_surfel_contact_gap_candidates(&pts, sp, pts.count, &fresh);
        tc_surfel_contact_gap_candidates(&pts, sp, old, &reused);
        assert_int_equal(fresh.count, reused.count);
        assert_memory_equal(fresh.data, reused.data, (size_t)fresh.count * sizeof(tc_vec3));
        assert_true(fresh.count > 10 && fresh.count < first.count); // the added samples filled some gaps
        tc_array_free(&pts);
        tc_array_free(&first);
        tc_array_free(&fresh);
        tc_array_free(&reused);
    }
}

// The gap candidates equal those of a brute-force search over all pairs (the same distance
// tests; ordered by i, then by the one-spacing grid's cell of j, then by j): the split of the
// neighbours (4 at a time on AVX2) loses and invents none. Patches across z and x with holes,
// and samples placed on the 1.5-spacing boundary (the square-root band).
static void test_gap_candidates_match_brute_force(void** state) {
    (void)state;
    const tc_real sp = 0.01;
    for (int across = 0; across < 2; ++across) {
        uint32_t seed = 41 + (uint32_t)across;
        tc_surfel_points pts = {0}, found = {0}, brute = {0};
        for (int a = 0; a < 25; ++a)
            for (int b = 0; b < 25; ++b) {
                if (rnd(&seed) < 0.2) continue; // holes
                tc_real u = (a + 0.4 * rnd(&seed) - 0.2) * sp, v = (b + 0.4 * rnd(&seed) - 0.2) * sp, w = 0.01 * sp * rnd(&seed);
                if (a % 5 == 0 && b % 3 == 0) u = a * sp, v = b * sp, w = 0; // (lattice points)
                tc_array_push(&pts, across ? tc_v3(w, u, v) : tc_v3(u, v, w));
            }
        for (int k = 0; k < 6; ++k) { // exactly 1.5 spacings from a lattice point
            tc_vec3 o = across ? tc_v3(0, 5 * sp * k, 9 * sp) : tc_v3(5 * sp * k, 9 * sp, 0);
            tc_array_push(&pts, tc_v3_add(o, across ? tc_v3(0, 1.5 * sp, 0) : tc_v3(1.5 * sp, 0, 0)));
        }
        tc_surfel_contact_gap_candidates(&pts, sp, pts.count, &found);
        tc_point_grid order = {0};
        tc_point_grid_layout(&order, pts.data, pts.count, sp);
        tc_real r2 = (0.75 * sp) * (0.75 * sp), far2 = (2.2 * sp) * (2.2 * sp);
        for (int i = 0; i < pts.count; ++i) {
            int keys[64], js[64], n = 0;
            for (int j = i + 1; j < pts.count; ++j) {
                tc_vec3 d = tc_v3_sub(pts.data[j], pts.data[i]);
                if (!(tc_v3_len2(d) <= far2) || tc_v3_dist(pts.data[i], pts.data[j]) < 1.5 * sp) continue;
                tc_vec3 mid = tc_v3_lerp(pts.data[i], pts.data[j], 0.5);
                bool covered = false;
                for (int k = 0; k < pts.count && !covered; ++k) covered = tc_v3_len2(tc_v3_sub(pts.data[k], mid)) < r2;
                if (covered) continue;
                assert_true(n < 64);
                int key = tc_point_grid_cell_index(&order, pts.data[j]), at = n++;
                for (; at > 0 && (keys[at - 1] > key || (keys[at - 1] == key && js[at - 1] > j)); --at) keys[at] = keys[at - 1], js[at] = js[at - 1];
                keys[at] = key, js[at] = j;
            }
            for (int q = 0; q < n; ++q) tc_array_push(&brute, tc_v3_lerp(pts.data[i], pts.data[js[q]], 0.5));
        }
        assert_true(brute.count > 20);
        assert_int_equal(found.count, brute.count);
        assert_memory_equal(found.data, brute.data, (size_t)found.count * sizeof(tc_vec3));
        tc_array_free(&pts);
        tc_array_free(&found);
        tc_array_free(&brute);
    }
}

// The PCA normals of a surface at its own points in one call equal those of
// tc_surfel_surface_pca_normal point by point, bit for bit (ref where it fails): patches of
// samples across z and across x, a curved cap, sparse points (fewer than 8 within 2h: the reach)
// and a lone point.
static void test_pca_normals_match_one_by_one(void** state) {
    (void)state;
    const tc_real sp = 0.01;
    for (int shape = 0; shape < 3; ++shape) {
        uint32_t seed = 61 + (uint32_t)shape;
        tc_surfel_points pts = {0}, refs = {0};
        for (int a = 0; a < 28; ++a)
            for (int b = 0; b < 28; ++b) {
                if (rnd(&seed) < 0.1) continue;
                tc_real u = (a + 0.5 * rnd(&seed)) * 0.7 * sp, v = (b + 0.5 * rnd(&seed)) * 0.7 * sp;
                tc_real w = shape == 2 ? 2 * (u * u + v * v) : 0.02 * sp * rnd(&seed);
                tc_array_push(&pts, shape == 1 ? tc_v3(w, u, v) : tc_v3(u, v, w));
            }
        for (int k = 0; k < 12; ++k) // sparse points beside the patch, and a lone one far off
            tc_array_push(&pts, tc_v3(-0.05 - 1.7 * sp * k, 0.3 * sp * k, 0.01 * k * sp));
        tc_array_push(&pts, tc_v3(1, 1, 1));
        for (int i = 0; i < pts.count; ++i)
            tc_array_push(&refs, tc_v3_normalize(tc_v3(rnd(&seed) - 0.5, rnd(&seed) - 0.5, rnd(&seed) - 0.5)));
        tc_surfel_surface S = {0};
        assert_true(tc_surfel_surface_build(&S, pts.data, pts.data, pts.count, sp));
        tc_vec3* batch = tc_alloc((size_t)pts.count * sizeof(tc_vec3));
        tc_surfel_surface_pca_normals(&S, refs.data, batch);
        int failed = 0;
        for (int i = 0; i < pts.count; ++i) {
            tc_vec3 one;
            if (!tc_surfel_surface_pca_normal(&S, pts.data[i], refs.data[i], &one)) one = refs.data[i], failed++;
            assert_memory_equal(&one, &batch[i], sizeof one);
        }
        assert_true(failed >= 1); // (the lone point)
        tc_free(batch, (size_t)pts.count * sizeof(tc_vec3));
        tc_surfel_surface_free(&S);
        tc_array_free(&pts);
        tc_array_free(&refs);
    }
}

static tc_real total_force(tc_real spacing, bool seed_form, int* samples) {
    slab_pair s = make_slabs(1e5, 1e5, 0.01, 0.012);
    tc_surfel_contact c = {0};
    tc_surfel_contact_params p = params(spacing);
    p.seed_density_scaling = seed_form;
    *samples = tc_surfel_contact_surface(s.A, s.B, &p, &c);
    tc_surfel_contact_forces(s.A, s.B, &p, &c);
    tc_real f = -c.total_a.z;
    tc_surfel_contact_free(&c);
    free_slabs(s);
    return f;
}

// A zero cell size (coincident points' mean spacing) must not hang the grid build; every point is
// still found.
static void test_grid_with_zero_cell(void** state) {
    (void)state;
    tc_vec3 pts[3] = {tc_v3(0, 0, 0), tc_v3(1, 0, 0), tc_v3(0, 2, 0)};
    tc_point_grid g = {0};
    assert_true(tc_point_grid_build(&g, pts, 3, 0));
    for (int i = 0; i < 3; ++i) assert_int_equal(tc_point_grid_nearest(&g, pts, pts[i], 0.1), i);
    tc_point_grid_free(&g);
}

// tc_point_grid_any_within answers whether tc_point_grid_nearest finds a point (strictly closer
// than r), on random points and queries, and at the boundary.
static void test_grid_any_within_matches_nearest(void** state) {
    (void)state;
    enum { N = 300 };
    tc_vec3 pts[N];
    uint32_t seed = 7;
    for (int i = 0; i < N; ++i) pts[i] = tc_v3(rnd(&seed), rnd(&seed), 0.2 * rnd(&seed));
    tc_point_grid g = {0};
    assert_true(tc_point_grid_build(&g, pts, N, 0.05));
    int hits = 0;
    for (int q = 0; q < 2000; ++q) {
        tc_vec3 x = tc_v3(1.2 * rnd(&seed) - 0.1, 1.2 * rnd(&seed) - 0.1, 0.4 * rnd(&seed) - 0.1);
        tc_real r = 0.08 * rnd(&seed);
        bool any = tc_point_grid_any_within(&g, pts, x, r);
        assert_int_equal(any, tc_point_grid_nearest(&g, pts, x, r) >= 0);
        hits += any;
    }
    assert_true(hits > 200 && hits < 1800); // both answers exercised
    tc_vec3 two[2] = {tc_v3(0, 0, 0), tc_v3(1, 0, 0)};
    assert_true(tc_point_grid_build(&g, two, 2, 0.25));
    assert_false(tc_point_grid_any_within(&g, two, tc_v3(0.5, 0, 0), 0.5)); // at exactly r: not closer
    assert_true(tc_point_grid_any_within(&g, two, tc_v3(0.5, 0, 0), 0.51));
    tc_point_grid_free(&g);
}

// tc_point_grid_nearest_from (and _sorted, on the points in grid order) gives the brute-force answer (the least distance below max_r, the
// least index among equal ones) whatever the start radius: tiny, zero, huge, past max_r.
static void test_grid_nearest_from_any_start(void** state) {
    (void)state;
    enum { N = 200 };
    tc_vec3 pts[N];
    uint32_t seed = 11;
    for (int i = 0; i < N; ++i) pts[i] = i % 7 == 6 ? pts[i - 3] : tc_v3(rnd(&seed), rnd(&seed), 0.1 * rnd(&seed)); // some duplicates: ties
    tc_point_grid g = {0};
    assert_true(tc_point_grid_build(&g, pts, N, 0.04));
    tc_vec3 sorted[N]; // the points in grid order, for tc_point_grid_nearest_sorted
    for (int t = 0; t < N; ++t) sorted[t] = pts[g.items[t]];
    const tc_real starts[5] = {1e-9, 0, 0.013, 0.5, 10};
    int found = 0;
    for (int q = 0; q < 600; ++q) {
        tc_vec3 x = q % 5 == 0 ? pts[(q * 7) % N] : tc_v3(1.2 * rnd(&seed) - 0.1, 1.2 * rnd(&seed) - 0.1, 0.3 * rnd(&seed) - 0.1);
        tc_real max_r = 0.15 * rnd(&seed), best_d2 = max_r * max_r;
        int best = -1;
        for (int i = 0; i < N; ++i) {
            tc_real d2 = tc_v3_len2(tc_v3_sub(pts[i], x));
            if (d2 < best_d2) best_d2 = d2, best = i; // index order: the first of equal distances
        }
        for (int k = 0; k < 5; ++k) {
            assert_int_equal(tc_point_grid_nearest_from(&g, pts, x, starts[k], max_r), best);
            assert_int_equal(tc_point_grid_nearest_sorted(&g, sorted, x, starts[k], max_r), best);
        }
        assert_int_equal(tc_point_grid_nearest(&g, pts, x, max_r), best);
        found += best >= 0;
    }
    assert_true(found > 100 && found < 550); // both answers exercised
    tc_point_grid_free(&g);
}

// tc_surfel_surface_nearest (the AVX2 walk of one ball where available) gives the brute-force
// answer too: points on a wavy sheet with duplicates (ties), queries on and off it, some on
// cell bounds (x's own cell within rounding), balls of one cell to many.
static void test_surface_nearest_matches_brute_force(void** state) {
    (void)state;
    enum { N = 600 };
    tc_vec3 s[N], n[N];
    uint32_t seed = 5;
    for (int i = 0; i < N; ++i) {
        tc_real u = rnd(&seed), v = rnd(&seed);
        s[i] = i % 9 == 8 ? s[i - 5] : tc_v3(u, v, 0.1 * sin(6 * u) * cos(5 * v));
        n[i] = tc_v3(0, 0, 1);
    }
    tc_surfel_surface S = {0};
    assert_true(tc_surfel_surface_build(&S, s, n, N, 0.03));
    int found = 0;
    for (int q = 0; q < 1500; ++q) {
        tc_vec3 x = tc_v3(1.2 * rnd(&seed) - 0.1, 1.2 * rnd(&seed) - 0.1, 0.6 * rnd(&seed) - 0.3);
        if (q % 4 == 0) x.x = S.grid.origin.x + (q % 11) * S.grid.cell; // on a cell bound
        if (q % 6 == 0) x.y = S.grid.origin.y + (q % 7) * S.grid.cell;
        if (q % 10 == 0) x = s[q % N];
        tc_real max_r = 0.3 * rnd(&seed), best_d2 = max_r * max_r;
        int best = -1;
        for (int i = 0; i < N; ++i) {
            tc_real d2 = tc_v3_len2(tc_v3_sub(s[i], x));
            if (d2 < best_d2) best_d2 = d2, best = i;
        }
        assert_int_equal(tc_surfel_surface_nearest(&S, x, max_r, max_r), best);
        assert_int_equal(tc_surfel_surface_nearest(&S, x, 0.25 * max_r, max_r), best);
        if (best >= 0 && best_d2 > 0) { // a ball through exactly the nearest (the classification's hint): it is not within
            tc_real r = sqrt(best_d2);
            int through = tc_surfel_surface_nearest(&S, x, r, r);
            assert_true(through == best || through == -1);
            assert_int_equal(tc_surfel_surface_nearest(&S, x, r * (1 + 1e-9), r * (1 + 1e-9)), best);
        }
        found += best >= 0;
        assert_int_equal(tc_surfel_surface_nearest(&S, x, -max_r, -max_r), -1); // a negative radius holds nothing
    }
    assert_true(found > 300 && found < 1400); // both answers exercised
    tc_surfel_surface_free(&S);
}

// tc_surfel_surface_nearest where a ball's rows hold more surfels than one list of the AVX2
// searches takes (256: the list is scanned and refilled, a row in pieces): dense clusters of
// equal points (ties across the pieces) on a coarse grid, and a few far points.
static void test_surface_nearest_long_rows(void** state) {
    (void)state;
    enum { N = 1500 };
    tc_vec3 s[N], n[N];
    uint32_t seed = 17;
    for (int i = 0; i < N; ++i) {
        tc_real u = rnd(&seed), v = rnd(&seed);
        s[i] = i % 3 == 2 ? s[(i * 7) % (i - 1)] : i % 50 == 0 ? tc_v3(3 * u, 3 * v, 1) : tc_v3(0.2 * u, 0.05 * v, 0.01 * u * v);
        n[i] = tc_v3(0, 0, 1);
    }
    tc_surfel_surface S = {0};
    assert_true(tc_surfel_surface_build(&S, s, n, N, 0.2)); // cells of 0.3: a cluster in one or two rows
    for (int q = 0; q < 300; ++q) {
        tc_vec3 x = q % 5 == 0 ? s[(q * 13) % N] : tc_v3(0.3 * rnd(&seed) - 0.05, 0.2 * rnd(&seed) - 0.05, 0.4 * rnd(&seed) - 0.2);
        tc_real max_r = q % 3 == 0 ? 5 : 0.4 * rnd(&seed), best_d2 = max_r * max_r;
        int best = -1;
        for (int i = 0; i < N; ++i) {
            tc_real d2 = tc_v3_len2(tc_v3_sub(s[i], x));
            if (d2 < best_d2) best_d2 = d2, best = i;
        }
        assert_int_equal(tc_surfel_surface_nearest(&S, x, max_r, max_r), best);
        assert_int_equal(tc_surfel_surface_nearest(&S, x, 0.01 * max_r, max_r), best);
    }
    tc_surfel_surface_free(&S);
}

// tc_point_grid_layout is the layout the build gives, tc_point_grid_cell_index the cell a point
// is binned in, and a query lists its points by (cell index, point index).
static void test_grid_cell_index_orders_queries(void** state) {
    (void)state;
    enum { N = 400 };
    tc_vec3 pts[N];
    uint32_t seed = 5;
    for (int i = 0; i < N; ++i) pts[i] = tc_v3(0.3 * rnd(&seed) - 2, rnd(&seed), 0.05 * rnd(&seed));
    tc_point_grid g = {0}, layout = {0};
    assert_true(tc_point_grid_build(&g, pts, N, 0.03));
    tc_point_grid_layout(&layout, pts, N, 0.03);
    assert_null(layout.start);
    assert_true(layout.cell == g.cell && layout.cell_count == g.cell_count);
    for (int k = 0; k < 3; ++k) assert_int_equal(layout.dims[k], g.dims[k]);
    for (int c = 0; c < g.cell_count; ++c)
        for (int t = g.start[c]; t < g.start[c + 1]; ++t) assert_int_equal(tc_point_grid_cell_index(&layout, pts[g.items[t]]), c);
    int* near = NULL;
    int cap = 0, listed = 0;
    for (int q = 0; q < 100; ++q) {
        int n = tc_point_grid_query(&g, pts, pts[q], 0.12, &near, &cap);
        for (int a = 1; a < n; ++a) {
            int ca = tc_point_grid_cell_index(&layout, pts[near[a - 1]]), cb = tc_point_grid_cell_index(&layout, pts[near[a]]);
            assert_true(ca < cb || (ca == cb && near[a - 1] < near[a]));
        }
        listed += n;
    }
    assert_true(listed > 300); // several points per query
    tc_free(near, (size_t)cap * sizeof(int));
    tc_point_grid_free(&g);
}

static void test_total_force_independent_of_sampling(void** state) {
    (void)state;
    int n1, n2;
    tc_real f1 = total_force(0.012, false, &n1), f2 = total_force(0.006, false, &n2);
    print_message("area share: %d samples %.4g N, %d samples %.4g N\n", n1, f1, n2, f2);
    assert_true(n2 > 3 * n1);
    assert_true(fabs(f2 - f1) < 0.1 * f1);
    // Expected magnitude: k * (delta/2 per side, symmetrised) * area 0.3 x 0.3.
    assert_near(f1, 1e7 * 0.005 * 0.09, 0.25 * 1e7 * 0.005 * 0.09);
    tc_real g1 = total_force(0.012, true, &n1), g2 = total_force(0.006, true, &n2);
    print_message("seed density form: %.4g N -> %.4g N (x%.1f)\n", g1, g2, g2 / g1);
    assert_true(g2 / g1 > 8);
}

static void test_fast_exp_matches_libm(void** state) {
    (void)state;
    tc_real worst = 0;
    for (int i = 0; i <= 9000; ++i) {
        tc_real x = i * 1e-3;
        worst = fmax(worst, fabs(tc_exp_neg(x) / exp(-x) - 1));
    }
    print_message("tc_exp_neg on [0, 9]: worst relative error %.2g\n", worst);
    assert_true(worst < 1e-14);
}

// Two spheres (E_A = 2 E_B) overlapping by `overlap` along x.
static void make_spheres(tc_real overlap, tc_points_body** A, tc_points_body** B) {
    tc_points_body_def d = tc_points_body_def_default();
    d.shape = TC_POINTS_SPHERE;
    d.radius = 0.1;
    d.phyxel_spacing = 0.03;
    d.surfel_spacing = sqrt(4 * TC_PI * 0.01 / 3000);
    d.youngs_modulus = 2e5;
    *A = build(d);
    d.youngs_modulus = 1e5;
    d.base.pose.p = tc_v3(0.2 - overlap, 0, 0);
    *B = build(d);
}

// The branch-free poly6 (factor taken once) gives tc_poly6's bits inside, on and beyond the
// support, and for a NaN distance.
static void test_poly6_with_matches_poly6(void** state) {
    (void)state;
    const tc_real hs[3] = {0.01, 0.3, 2.0};
    for (int k = 0; k < 3; ++k) {
        tc_real h = hs[k], h2 = h * h, factor = tc_poly6_factor(h);
        tc_real r2s[6] = {0, 0.37 * h2, nextafter(h2, 0), h2, 1.5 * h2, NAN};
        for (int q = 0; q < 6 + 200; ++q) {
            tc_real r2 = q < 6 ? r2s[q] : 2 * h2 * (q - 6) / 199.0;
            tc_real a = tc_poly6(r2, h), b = tc_poly6_with(r2, h2, factor);
            assert_memory_equal(&a, &b, sizeof a);
        }
    }
}

// The distribution of one force by brute force: poly6 weights over every phyxel strictly
// within h (h grown to just beyond the 6th nearest when fewer are within it), in index order.
static void distribute_brute(tc_points_body* b, tc_vec3 p, tc_vec3 f) {
    tc_real rmean = 0, wsum = 0, d2[1024], near6[6];
    assert_true(b->np <= 1024);
    for (int i = 0; i < b->np; ++i) rmean += b->rbar[i];
    tc_real h = 2 * rmean / b->np;
    int inside = 0;
    for (int i = 0; i < b->np; ++i) {
        d2[i] = tc_v3_len2(tc_v3_sub(b->x[i], p));
        inside += d2[i] < h * h;
    }
    if (inside < 6) { // the 6 smallest squared distances by repeated selection
        for (int k = 0; k < 6; ++k) {
            near6[k] = INFINITY;
            for (int i = 0; i < b->np; ++i)
                if (d2[i] < near6[k] && (k == 0 || d2[i] > near6[k - 1])) near6[k] = d2[i];
        }
        if (near6[5] >= h * h) h = sqrt(near6[5]) * 1.0001;
    }
    for (int i = 0; i < b->np; ++i) wsum += tc_poly6(d2[i], h);
    for (int i = 0; i < b->np; ++i)
        if (tc_poly6(d2[i], h) > 0) b->f_ext[i] = tc_v3_madd(b->f_ext[i], tc_poly6(d2[i], h) / wsum, f);
}

// A batch of forces (grouped by cells of samples internally) spreads exactly as the brute
// force sum, sample after sample: the same phyxels, weights and order, so the same bits; the
// samples cover the body, its surface and beyond (where the support grows).
static void test_batch_distribution_matches_brute_force(void** state) {
    (void)state;
    tc_points_body *A, *B;
    make_spheres(0.02, &A, &B);
    enum { N = 600 };
    tc_vec3 p[N], f[N];
    uint32_t seed = 7;
    for (int k = 0; k < N; ++k) {
        tc_real r = 0.13 * rnd(&seed);
        tc_vec3 dir = tc_v3_normalize(tc_v3(rnd(&seed) - 0.5, rnd(&seed) - 0.5, rnd(&seed) - 0.5));
        p[k] = tc_v3_scale(dir, k % 3 == 0 ? 0.1 - 0.01 * rnd(&seed) : r);
        f[k] = tc_v3(rnd(&seed) - 0.5, rnd(&seed) - 0.5, rnd(&seed) - 0.5);
    }
    tc_vec3* batch = malloc(sizeof(tc_vec3) * (size_t)A->np);
    for (int i = 0; i < A->np; ++i) A->f_ext[i] = tc_v3_zero();
    tc_points_distribute_forces(A, p, f, N, -1);
    memcpy(batch, A->f_ext, sizeof(tc_vec3) * (size_t)A->np);
    for (int i = 0; i < A->np; ++i) A->f_ext[i] = tc_v3_zero();
    for (int k = 0; k < N; ++k) distribute_brute(A, p[k], tc_v3_scale(f[k], -1));
    for (int i = 0; i < A->np; ++i) {
        assert_true(memcmp(&batch[i], &A->f_ext[i], sizeof(tc_vec3)) == 0);
    }
    free(batch);
    tc_points_body_free(A);
    tc_points_body_free(B);
}

// The normal-cone flatness test: true on the bench's sphere (10,000 surfels: normals within
// ~14 degrees over a block of cells) for its own normal, false for a normal 40 degrees off and
// at a box's edge; after the surfels turn and the surface is rebuilt, the cached cones follow.
static void test_flat_at_follows_the_normals(void** state) {
    (void)state;
    enum { N = 10000 };
    tc_vec3 *s = tc_alloc(N * sizeof(tc_vec3)), *n = tc_alloc(N * sizeof(tc_vec3));
    tc_real golden = TC_PI * (3 - sqrt(5.0)), R = 0.1;
    for (int i = 0; i < N; ++i) {
        tc_real z = 1 - 2 * (i + 0.5) / N, r = sqrt(1 - z * z);
        n[i] = tc_v3(r * cos(golden * i), r * sin(golden * i), z);
        s[i] = tc_v3_scale(n[i], R);
    }
    tc_real spacing = sqrt(4 * TC_PI * R * R / N);
    tc_surfel_surface S = {0};
    assert_true(tc_surfel_surface_build(&S, s, n, N, 1.5 * spacing));
    tc_real cos25 = cos(25 * TC_PI / 180), c40 = cos(40 * TC_PI / 180), s40 = sin(40 * TC_PI / 180);
    for (int i = 0; i < N; i += 97) {
        tc_vec3 t1, t2;
        tc_v3_basis(n[i], &t1, &t2);
        assert_true(tc_surfel_surface_flat_at(&S, s[i], n[i], cos25));
        assert_false(tc_surfel_surface_flat_at(&S, s[i], tc_v3_add(tc_v3_scale(n[i], c40), tc_v3_scale(t1, s40)), cos25));
    }
    assert_false(tc_surfel_surface_flat_at(&S, tc_v3(10, 0, 0), n[0], cos25)); // outside the grid
    // Every normal turned by 40 degrees about z, positions kept: the rebuilt surface is not flat
    // along the old normals (the cones were made again).
    for (int i = 0; i < N; ++i) n[i] = tc_v3(c40 * n[i].x - s40 * n[i].y, s40 * n[i].x + c40 * n[i].y, n[i].z);
    assert_true(tc_surfel_surface_build(&S, s, n, N, 1.5 * spacing));
    int flat_old = 0;
    for (int i = 0; i < N; i += 97) flat_old += tc_surfel_surface_flat_at(&S, s[i], tc_v3_normalize(s[i]), cos25);
    assert_true(flat_old < N / 97 / 4); // (near the poles the turn moves little)
    tc_surfel_surface_free(&S);
    // A box's edge: the cells around it hold both faces' normals.
    tc_points_body_def d = tc_points_body_def_default();
    d.half_extents = tc_v3(0.1, 0.1, 0.1);
    d.surfel_spacing = 0.01;
    d.phyxel_spacing = 0.03;
    tc_points_body* B = build(d);
    assert_false(tc_surfel_surface_flat_at(&B->surface, tc_v3(0.1, 0.1, 0), tc_v3(1, 0, 0), cos25));
    assert_true(tc_surfel_surface_flat_at(&B->surface, tc_v3(0.1, 0, 0), tc_v3(1, 0, 0), cos25));
    tc_points_body_free(B);
    tc_free(s, N * sizeof(tc_vec3));
    tc_free(n, N * sizeof(tc_vec3));
}

static void test_fit_is_exact_at_its_point_and_close_nearby(void** state) {
    (void)state;
    tc_points_body *A, *B;
    make_spheres(0.01, &A, &B);
    tc_real h = A->surface.h, worst = 0, worst_quarter = 0, worst_reach = 0;
    int granted = 0;
    for (int q = 0; q < 50; ++q) {
        tc_vec3 x = tc_v3_scale(tc_v3_normalize(tc_v3(1, 0.02 * (q - 25), 0.013 * q - 0.3)), 0.1 + 0.002 * (q % 5 - 2));
        tc_surfel_fit fit;
        assert_true(tc_surfel_surface_fit(&A->surface, x, &fit));
        tc_vec3 n;
        assert_true(tc_surfel_surface_eval(&A->surface, x, &n) == fit.f); // the same computation
        assert_true(tc_surfel_fit_value(&fit, x) == fit.f);
        // Half an h away the model of a smooth surface stays within a small fraction of h.
        tc_vec3 dir = tc_v3_normalize(tc_v3(0.3, 1, -0.5)), y = tc_v3_madd(x, 0.5 * h, dir), z = tc_v3_madd(x, 0.25 * h, dir);
        worst = fmax(worst, fabs(tc_surfel_fit_value(&fit, y) - tc_surfel_surface_eval(&A->surface, y, NULL)));
        worst_quarter = fmax(worst_quarter, fabs(tc_surfel_fit_value(&fit, z) - tc_surfel_surface_eval(&A->surface, z, NULL)));
        // The contact search's reach where flat, 0.75 h (fit_reach), for fits off the surface
        // (inside and outside) whose curvature bias r^2/2 kappa^2 |f| (the model keeps the
        // surface's curvature, the level set |f| off it bends by kappa^2 |f| more or less) is
        // within 2e-3 h; the reach along several directions (oblique, along the surface, across it).
        for (int side = -1; side <= 1; side += 2)
            for (int depth = 0; depth <= 4; ++depth) {
                tc_vec3 xf = tc_v3_scale(tc_v3_normalize(x), 0.1 + side * 0.25 * depth * h);
                assert_true(tc_surfel_surface_fit(&A->surface, xf, &fit));
                tc_real kappa = 2 * (fmax(fabs(fit.c[3]), fabs(fit.c[5])) + 0.5 * fabs(fit.c[4])) / (h * h);
                if (0.5 * 0.75 * 0.75 * h * kappa * kappa * fabs(fit.f) > 2e-3) continue; // (a reach of h/2 there)
                granted++;
                const tc_vec3 dirs[3] = {dir, tc_v3_normalize(tc_v3_cross(xf, tc_v3(0, 0, 1))), tc_v3_normalize(tc_v3(-1, 0.2, 0.4))};
                for (int d = 0; d < 3; ++d) {
                    tc_vec3 w = tc_v3_madd(xf, 0.75 * h, dirs[d]);
                    worst_reach = fmax(worst_reach, fabs(tc_surfel_fit_value(&fit, w) - tc_surfel_surface_eval(&A->surface, w, NULL)));
                }
            }
    }
    print_message("fit model vs MLS f: worst %.2g h at h/4, %.2g h at h/2, %.2g h at 0.75 h (%d fits up to 0.5 h off the surface)\n",
                  worst_quarter / h, worst / h, worst_reach / h, granted);
    assert_true(worst_quarter < 1e-3 * h); // the reach the contact search trusts the fits to at edges
    assert_true(worst < 0.01 * h);
    assert_true(granted >= 100 && worst_reach < 3e-3 * h); // where flat: 2e-3 h of bias and the fit's own ~1e-3 h
    tc_points_body_free(A);
    tc_points_body_free(B);
}

// The root search on local fits lands on the contact surface F = 0 as the search with an exact
// MLS fit at every evaluation does, one seed per colliding surfel. (The segments differ: the
// fast path takes most of them along the tangent plane of other's nearest surfel or a
// neighbour's model of other, the exact path along other's MLS normal at the surfel: a few
// degrees apart, which moves the deepest seeds, on segments up to 3h long, by up to ~0.4 h.)
static void test_seeds_on_fits_match_exact_roots(void** state) {
    (void)state;
    const tc_real overlaps[] = {0.004, 0.012, 0.03}; // the deepest seeds ~3h long
    for (int o = 0; o < 3; ++o) {
        tc_points_body *A, *B;
        make_spheres(overlaps[o], &A, &B);
        tc_surfel_contact counts = {0};
        tc_surfel_points fast = {0}, exact = {0};
        tc_surfel_contact_seeds(A, B, false, &counts, &fast);
        tc_surfel_contact_seeds(A, B, true, &counts, &exact);
        assert_true(fast.count > 20);
        assert_int_equal(fast.count, exact.count);
        tc_real h = fmin(A->surface.h, B->surface.h), worst = 0, F = 0, F_exact = 0;
        for (int i = 0; i < fast.count; ++i) {
            tc_real nearest = INFINITY; // (seeds are ~0.6 h apart)
            for (int j = 0; j < exact.count; ++j) nearest = fmin(nearest, tc_v3_dist(fast.data[i], exact.data[j]));
            worst = fmax(worst, nearest);
            F = fmax(F, fabs(tc_contact_surface_function(A, B, fast.data[i])) / (A->mat.youngs + B->mat.youngs));
            F_exact = fmax(F_exact, fabs(tc_contact_surface_function(A, B, exact.data[i])) / (A->mat.youngs + B->mat.youngs));
        }
        print_message("overlap %g m: %d seeds, worst distance to an exact root %.2g h, |F|/(E_A+E_B) <= %.2g h (exact roots: %.2g h)\n",
                      overlaps[o], fast.count, worst / h, F / h, F_exact / h);
        assert_true(worst < 0.5 * h);
        assert_true(F < 5e-4 * h); // (fits trusted to 0.75 h where flat and little biased: within ~3e-3 h of the MLS surfaces there)
        // Resampled and relaxed samples are re-projected on the local fits: still on F = 0.
        tc_surfel_contact c = {0};
        tc_surfel_contact_params p = params(A->resample_spacing);
        assert_true(tc_surfel_contact_surface(A, B, &p, &c) > 20);
        tc_real F_final = 0;
        for (int i = 0; i < c.points.count; ++i)
            F_final = fmax(F_final, fabs(tc_contact_surface_function(A, B, c.points.data[i])) / (A->mat.youngs + B->mat.youngs));
        print_message("  %d relaxed samples: |F|/(E_A+E_B) <= %.2g h\n", c.points.count, F_final / h);
        assert_true(F_final < 1e-3 * h);
        tc_surfel_contact_free(&c);
        tc_array_free(&fast);
        tc_array_free(&exact);
        tc_points_body_free(A);
        tc_points_body_free(B);
    }
}

// An overlap deeper than the MLS reach (3h, here 40 mm against 29 mm): the surfels deep inside
// the other body are still the colliding ones (the phyxels' balls stick out of the surface:
// eq. 2 with the nearest surfel decides there) and seed along the segment to the other's
// nearest surfel, so the contact surface has no hole in the middle.
static int inside_sphere(const tc_points_body* b, tc_vec3 centre, tc_real R) {
    int n = 0;
    for (int k = 0; k < b->ns; ++k) n += tc_v3_dist(b->s[k], centre) < R;
    return n;
}

static void test_deep_overlap_has_no_hole(void** state) {
    (void)state;
    tc_real overlap = 0.04, R = 0.1;
    tc_points_body *A, *B;
    make_spheres(overlap, &A, &B);
    assert_true(overlap > TC_SURFEL_REACH * A->surface.h);
    tc_surfel_contact c = {0};
    tc_surfel_contact_params p = params(A->resample_spacing);
    int samples = tc_surfel_contact_surface(A, B, &p, &c);
    int geo_a = inside_sphere(A, tc_v3(0.2 - overlap, 0, 0), R), geo_b = inside_sphere(B, tc_v3_zero(), R);
    print_message("colliding %d + %d (inside the other sphere: %d + %d), %d samples\n", c.colliding_a, c.colliding_b, geo_a, geo_b, samples);
    assert_true(abs(c.colliding_a - geo_a) <= 1 && abs(c.colliding_b - geo_b) <= 1);
    // Every sample lies in the overlap (within half a spacing of both spheres).
    for (int q = 0; q < samples; ++q) {
        assert_true(tc_v3_len(c.points.data[q]) < R + 0.5 * p.spacing);
        assert_true(tc_v3_dist(c.points.data[q], tc_v3(0.2 - overlap, 0, 0)) < R + 0.5 * p.spacing);
    }
    // The contact disc (radius sqrt(R^2 - (0.1 - overlap/2)^2) = 6 cm): every point within 80 %
    // of its radius has a sample within 1.5 spacings (in the plane of the disc).
    tc_real rho_max = sqrt(R * R - (R - overlap / 2) * (R - overlap / 2)), worst = 0;
    for (int i = 0; i <= 8; ++i)
        for (int j = 0; j < 16; ++j) {
            tc_real rho = 0.8 * rho_max * i / 8, phi = 2 * TC_PI * j / 16, best = INFINITY;
            for (int q = 0; q < samples; ++q)
                best = fmin(best, hypot(c.points.data[q].y - rho * cos(phi), c.points.data[q].z - rho * sin(phi)));
            worst = fmax(worst, best);
        }
    print_message("largest gap in the contact disc: %.2f spacings\n", worst / p.spacing);
    assert_true(worst < 1.5 * p.spacing);
    tc_surfel_contact_free(&c);
    tc_points_body_free(A);
    tc_points_body_free(B);
    // 7 cm (> 6h): where the middle of a segment is beyond both surfaces' reach F is not
    // defined, and no seed is placed there (the linear model only guides the search).
    make_spheres(0.07, &A, &B);
    tc_surfel_contact counts = {0};
    tc_surfel_points seeds = {0};
    tc_surfel_contact_seeds(A, B, false, &counts, &seeds);
    int undefined = 0;
    for (int q = 0; q < seeds.count; ++q) undefined += isnan(tc_contact_surface_function(A, B, seeds.data[q]));
    print_message("7 cm: %d seeds, %d where F is undefined\n", seeds.count, undefined);
    assert_true(seeds.count > 100);
    assert_int_equal(undefined, 0);
    tc_array_free(&seeds);
    tc_points_body_free(A);
    tc_points_body_free(B);
}

// Colliding flags of A's and B's surfels after seeding (fast classification or a fit per surfel).
static void classify(tc_points_body* A, tc_points_body* B, bool exact, uint8_t* flags_a, uint8_t* flags_b, int* count) {
    memset(A->surfel_colliding, 0, (size_t)A->ns);
    memset(B->surfel_colliding, 0, (size_t)B->ns);
    tc_surfel_contact counts = {0};
    tc_surfel_points seeds = {0};
    tc_surfel_contact_seeds(A, B, exact, &counts, &seeds);
    memcpy(flags_a, A->surfel_colliding, (size_t)A->ns);
    memcpy(flags_b, B->surfel_colliding, (size_t)B->ns);
    *count = counts.colliding_a + counts.colliding_b;
    tc_array_free(&seeds);
}

// One body of a classification case: shape, half extents (boxes; spheres have radius 0.1),
// surfel and phyxel spacings (m).
typedef struct class_body { int shape; tc_vec3 half; tc_real spacing, phyxel; } class_body;

// x inside the undeformed body b placed at pose.
static bool inside_body(class_body b, tc_transform pose, tc_vec3 x) {
    tc_vec3 local = tc_quat_inv_rotate(pose.q, tc_v3_sub(x, pose.p));
    if (b.shape == TC_POINTS_SPHERE) return tc_v3_len(local) < 0.1;
    return fabs(local.x) < b.half.x && fabs(local.y) < b.half.y && fabs(local.z) < b.half.z;
}

// Surfels of `self` flagged differently by the fast classification (fast) and a fit per
// surfel (exact): each must be one the fast path flags inside `other`'s undeformed shape.
static int inside_extras(const tc_points_body* self, const uint8_t* fast, const uint8_t* exact, class_body other, tc_transform pose) {
    int extras = 0;
    for (int k = 0; k < self->ns; ++k) {
        if (fast[k] == exact[k]) continue;
        assert_true(fast[k] && !exact[k]);
        assert_true(inside_body(other, pose, self->s[k]));
        extras++;
    }
    return extras;
}

// The classification decides most candidates without a fit (neighbours' bounds, the tangent
// plane of the other's nearest surfel): it must flag exactly the surfels a fit per surfel
// flags, on spheres and on boxes (sharp edges, where f changes fastest), aligned and rotated, on
// plates ~1.5 h thick (both faces within the reach of one fit) and on the benchmark's pair.
// Where the other body is so thin or so deeply entered that a fit at the surfel weighs in its
// far face too (the last two cases: a plate 1.2 h thick, a sphere 2.6 h into a slab 5.3 h
// thick), the fitted f rises back towards 0 inside it and a fit per surfel calls a few surfels
// outside that are inside the other body: there the fast path may flag more, never fewer, and
// only surfels inside the other's shape.
static void test_classification_matches_a_fit_per_surfel(void** state) {
    (void)state;
    tc_real bench = sqrt(4 * TC_PI * 0.01 / 1e4);
    const tc_vec3 cube = {0.1, 0.1, 0.1}, plate = {0.1, 0.1, 0.011}, slab = {0.1, 0.1, 0.08};
    const class_body bench_sphere = {TC_POINTS_SPHERE, cube, bench, 0.022}, sphere = {TC_POINTS_SPHERE, cube, 0.01, 0.022},
                     box = {TC_POINTS_BOX, cube, 0.01, 0.022}, sphere_p = {TC_POINTS_SPHERE, cube, 0.01, 0.01},
                     box_p = {TC_POINTS_BOX, cube, 0.01, 0.01}, plate_p = {TC_POINTS_BOX, plate, 0.01, 0.01};
    const struct { class_body a, b; tc_real angle; tc_vec3 axis, at; bool extras_allowed; } cases[] = {
        {bench_sphere, bench_sphere, 0, {1, 0, 0}, {0.18, 0, 0}, false},
        {bench_sphere, bench_sphere, 0, {1, 0, 0}, {0.196, 0, 0}, false},
        {box, box, 0, {1, 0, 0}, {0.18, 0.05, 0.03}, false},
        {box, box, 0.6, {1, 0, 0}, {0.19, 0.05, 0.03}, false},
        {box, box, 0.4, {1, 1, 1}, {0.2, 0.05, 0.03}, false},
        {box, sphere, 0, {1, 0, 0}, {0.18, 0.07, 0.05}, false},
        {sphere, box, 0.4, {1, 1, 1}, {0.17, 0.07, 0.05}, false},
        {sphere_p, plate_p, 0.5, {1, 1, 0}, {0.16, 0.04, 0.02}, false},
        {plate_p, box_p, 0.7, {0, 1, 1}, {0.08, 0.05, 0.1}, false},
        {plate_p, plate_p, 1.2, {1, 0, 1}, {0.05, 0.03, 0.02}, false},
        {{TC_POINTS_BOX, cube, 0.01, 0.022}, {TC_POINTS_BOX, plate, 0.012, 0.01}, 0.7, {1, 1, 0}, {0.08, 0.03, 0.02}, true},
        {{TC_POINTS_SPHERE, cube, 0.008, 0.03}, {TC_POINTS_BOX, slab, 0.02, 0.03}, 0.4, {1, 0.3, 0}, {0.02, 0.01, 0.1}, true},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        tc_points_body_def d = tc_points_body_def_default();
        d.radius = 0.1;
        d.shape = cases[c].a.shape, d.half_extents = cases[c].a.half;
        d.surfel_spacing = cases[c].a.spacing, d.phyxel_spacing = cases[c].a.phyxel;
        tc_points_body* A = build(d);
        d.shape = cases[c].b.shape, d.half_extents = cases[c].b.half;
        d.surfel_spacing = cases[c].b.spacing, d.phyxel_spacing = cases[c].b.phyxel;
        d.base.pose.p = cases[c].at;
        tc_vec3 axis = tc_v3_normalize(cases[c].axis);
        tc_real s = sin(0.5 * cases[c].angle);
        d.base.pose.q = (tc_quat){axis.x * s, axis.y * s, axis.z * s, cos(0.5 * cases[c].angle)};
        tc_points_body* B = build(d);
        uint8_t *fa = tc_alloc((size_t)A->ns), *fb = tc_alloc((size_t)B->ns), *ea = tc_alloc((size_t)A->ns), *eb = tc_alloc((size_t)B->ns);
        int fast_count, exact_count;
        classify(A, B, false, fa, fb, &fast_count);
        classify(A, B, true, ea, eb, &exact_count);
        tc_transform origin = {tc_v3_zero(), {0, 0, 0, 1}};
        int extras = inside_extras(A, fa, ea, cases[c].b, d.base.pose) + inside_extras(B, fb, eb, cases[c].a, origin);
        print_message("case %zu: %d colliding surfels, %d more inside the other (fast)\n", c, exact_count, extras);
        assert_true(exact_count > 20);
        assert_int_equal(fast_count, exact_count + extras);
        if (!cases[c].extras_allowed) assert_int_equal(extras, 0);
        tc_free(fa, (size_t)A->ns);
        tc_free(fb, (size_t)B->ns);
        tc_free(ea, (size_t)A->ns);
        tc_free(eb, (size_t)B->ns);
        tc_points_body_free(A);
        tc_points_body_free(B);
    }
}

// Largest distance from a point of `from` to the nearest point of `to` (m).
static tc_real coverage_gap(const tc_surfel_contact* from, const tc_surfel_contact* to) {
    tc_real worst = 0;
    for (int i = 0; i < from->points.count; ++i) {
        tc_real best = INFINITY;
        for (int j = 0; j < to->points.count; ++j) best = fmin(best, tc_v3_dist(from->points.data[i], to->points.data[j]));
        worst = fmax(worst, best);
    }
    return worst;
}

// Seeds predicted to land well within half a spacing of a kept sample are not root-found (the
// resampling would delete them). The contact surface must be the one of root-finding every
// seed: about as many samples, each within a fraction of a spacing of one of the other set,
// as close to F = 0; on spheres of unequal stiffness (shallow to ~3h deep seeds) the same samples. Also
// on rotated boxes, whose edges are where a prediction can miss (one does here).
static void test_skipped_seeds_keep_the_contact_surface(void** state) {
    (void)state;
    for (int c = 0; c < 4; ++c) {
        tc_points_body *A, *B;
        if (c < 3) {
            const tc_real overlaps[] = {0.004, 0.012, 0.03};
            make_spheres(overlaps[c], &A, &B);
        } else {
            tc_points_body_def d = tc_points_body_def_default();
            d.shape = TC_POINTS_BOX;
            d.half_extents = tc_v3(0.1, 0.1, 0.1);
            d.phyxel_spacing = 0.03;
            d.surfel_spacing = 0.01;
            A = build(d);
            d.base.pose.p = tc_v3(0.19, 0.05, 0.03);
            d.base.pose.q = (tc_quat){sin(0.3), 0, 0, cos(0.3)};
            B = build(d);
        }
        tc_surfel_contact fast = {0}, every = {0};
        tc_surfel_contact_params p = params(A->resample_spacing);
        int n = tc_surfel_contact_surface_seeded(A, B, &p, false, &fast);
        int m = tc_surfel_contact_surface_seeded(A, B, &p, true, &every);
        tc_real h = fmin(A->surface.h, B->surface.h), spacing = p.spacing, same = 0, F = 0, F_every = 0;
        if (n == m)
            for (int i = 0; i < n; ++i) same = fmax(same, tc_v3_dist(fast.points.data[i], every.points.data[i]));
        tc_real gap = fmax(coverage_gap(&fast, &every), coverage_gap(&every, &fast));
        for (int i = 0; i < n; ++i)
            F = fmax(F, fabs(tc_contact_surface_function(A, B, fast.points.data[i])) / (A->mat.youngs + B->mat.youngs));
        for (int i = 0; i < m; ++i)
            F_every = fmax(F_every, fabs(tc_contact_surface_function(A, B, every.points.data[i])) / (A->mat.youngs + B->mat.youngs));
        print_message("case %d: %d / %d samples (skipping / every seed), sample by sample %.2g h, coverage gap %.2g spacing, "
                      "|F|/(E_A+E_B) <= %.2g h (every seed: %.2g h)\n", c, n, m, n == m ? same / h : NAN, gap / spacing, F / h, F_every / h);
        assert_true(m > 20);
        assert_true(abs(n - m) <= 1 + m / 50);
        assert_true(gap < 0.5 * spacing);
        assert_true(F < F_every + 1e-3 * h); // (relaxed samples near box edges sit ~0.016 h off F = 0 either way)
        if (c < 3) { // smooth surfaces: the predictions hold, the very same samples
            assert_int_equal(n, m);
            assert_true(same < 1e-6 * h);
        }
        tc_surfel_contact_free(&fast);
        tc_surfel_contact_free(&every);
        tc_points_body_free(A);
        tc_points_body_free(B);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_brent_known_roots, tc_test_setup_log),
        cmocka_unit_test_setup(test_mls_sphere_projection_inside_and_normals, tc_test_setup_log),
        cmocka_unit_test_setup(test_mls_tiled_fits_match_direct_fits, tc_test_setup_log),
        cmocka_unit_test_setup(test_mls_reaches_matches_brute_force, tc_test_setup_log),
        cmocka_unit_test_setup(test_mls_cutoff_and_reach, tc_test_setup_log),
        cmocka_unit_test_setup(test_deep_overlap_has_no_hole, tc_test_setup_log),
        cmocka_unit_test_setup(test_equal_stiffness_contact_surface_is_midway, tc_test_setup_log),
        cmocka_unit_test_setup(test_stiffer_body_deforms_less, tc_test_setup_log),
        cmocka_unit_test_setup(test_forces_are_conserved_and_opposite, tc_test_setup_log),
        cmocka_unit_test_setup(test_density_estimate_on_planar_grid, tc_test_setup_log),
        cmocka_unit_test_setup(test_density_matches_brute_force, tc_test_setup_log),
        cmocka_unit_test_setup(test_densities_match_walk, tc_test_setup_log),
        cmocka_unit_test_setup(test_densities_of_non_finite_samples_end, tc_test_setup_log),
        cmocka_unit_test_setup(test_gap_reuse_matches_fresh_search, tc_test_setup_log),
        cmocka_unit_test_setup(test_gap_candidates_match_brute_force, tc_test_setup_log),
        cmocka_unit_test_setup(test_pca_normals_match_one_by_one, tc_test_setup_log),
        cmocka_unit_test_setup(test_pca_normal_is_the_least_eigenvector, tc_test_setup_log),
        cmocka_unit_test_setup(test_total_force_independent_of_sampling, tc_test_setup_log),
        cmocka_unit_test_setup(test_grid_with_zero_cell, tc_test_setup_log),
        cmocka_unit_test_setup(test_grid_any_within_matches_nearest, tc_test_setup_log),
        cmocka_unit_test_setup(test_grid_nearest_from_any_start, tc_test_setup_log),
        cmocka_unit_test_setup(test_surface_nearest_matches_brute_force, tc_test_setup_log),
        cmocka_unit_test_setup(test_surface_nearest_long_rows, tc_test_setup_log),
        cmocka_unit_test_setup(test_grid_cell_index_orders_queries, tc_test_setup_log),
        cmocka_unit_test_setup(test_fast_exp_matches_libm, tc_test_setup_log),
        cmocka_unit_test_setup(test_poly6_with_matches_poly6, tc_test_setup_log),
        cmocka_unit_test_setup(test_batch_distribution_matches_brute_force, tc_test_setup_log),
        cmocka_unit_test_setup(test_flat_at_follows_the_normals, tc_test_setup_log),
        cmocka_unit_test_setup(test_fit_is_exact_at_its_point_and_close_nearby, tc_test_setup_log),
        cmocka_unit_test_setup(test_seeds_on_fits_match_exact_roots, tc_test_setup_log),
        cmocka_unit_test_setup(test_classification_matches_a_fit_per_surfel, tc_test_setup_log),
        cmocka_unit_test_setup(test_skipped_seeds_keep_the_contact_surface, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
