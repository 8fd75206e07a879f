// Quasi-rigid contact LCP against Hertz theory; sphere tree; collide on a sampled sphere.
#include "tc_test.h"
#include "contact/quasi_contact.h"
#include "tc_quasi_sdf.h"

static tc_response_params layer(void) {
    tc_response_params r = {TC_RESPONSE_BOUSSINESQ, 1e6, 0.3, 0};
    return r;
}

typedef struct hertz_result {
    tc_real load, radius, peak;
} hertz_result;

static hertz_result solve_cap(const tc_response_params* ra, const tc_response_params* rb, tc_real R, tc_real delta) {
    tc_real a = sqrt(R * delta), h = a / 10;
    paraboloid pb = {R, delta};
    tc_quasi_patch pt = {0};
    int n = (int)ceil(1.5 * a / h);
    for (int i = -n; i <= n; ++i)
        for (int j = -n; j <= n; ++j) {
            tc_vec3 p = tc_v3(i * h, j * h, 0);
            tc_vec3 nrm;
            if (paraboloid_sdf(&pb, p, &nrm) < 0) assert_true(tc_quasi_patch_add(&pt, (int)pt.nodes.count, p, h * h));
        }
    tc_quasi_contact_params params = {0, 0, 1e-9 * delta, 3};
    assert_int_equal(tc_quasi_solve_nodes(&pt, ra, rb, paraboloid_sdf, &pb, &params), TC_RESULT_OK);
    hertz_result res = {0, 0, 0};
    tc_real phi_sum = 0;
    tc_real sigma = h / sqrt(2 * TC_PI);
    for (int i = 0; i < pt.nodes.count; ++i) {
        tc_real pk = pt.pressure.data[i];
        assert_true(pk >= 0);
        tc_vec3 q = pt.points.data[i];
        res.load += pk * pt.area.data[i];
        if (pk > 0) res.radius = fmax(res.radius, sqrt(q.x * q.x + q.y * q.y) + 0.5 * h);
        tc_real phi = exp(-(q.x * q.x + q.y * q.y) / (2 * sigma * sigma));
        res.peak += pk * phi;
        phi_sum += phi;
    }
    // Σφ_k(0) is 1.18 at a grid node (the kernels' ripple), so read the field Shepard-normalised
    res.peak /= phi_sum;
    // complementarity after deformation: no penetration left, no traction where separated
    assert_true(pt.residual_penetration <= 1e-6 * delta);
    tc_quasi_patch_free(&pt);
    return res;
}

static void test_hertz_sphere_on_rigid_plane(void** state) {
    (void)state;
    tc_response_params ra = layer();
    tc_real E = 2 * ra.shear_modulus * (1 + ra.poisson), Es = E / (1 - ra.poisson * ra.poisson), R = 0.05;
    tc_real depths[3] = {2e-4, 6e-4, 2e-3}; // a decade of indentation
    for (int k = 0; k < 3; ++k) {
        tc_real delta = depths[k];
        hertz_result r = solve_cap(&ra, NULL, R, delta);
        tc_real P = 4.0 / 3 * Es * sqrt(R) * pow(delta, 1.5), a = sqrt(R * delta), p0 = 2 * Es / TC_PI * sqrt(delta / R);
        printf("delta %.1e: load %.4g (Hertz %.4g), radius %.4g (%.4g), peak %.4g (%.4g)\n", delta, r.load, P, r.radius, a,
               r.peak, p0);
        assert_near(r.load / P, 1, 0.10);
        assert_near(r.radius / a, 1, 0.10);
        assert_near(r.peak / p0, 1, 0.10);
    }
}

static void test_two_compliant_bodies_halve_stiffness(void** state) {
    (void)state;
    tc_response_params ra = layer();
    tc_real E = 2 * ra.shear_modulus * (1 + ra.poisson), Es = E / (1 - ra.poisson * ra.poisson) / 2, R = 0.05;
    tc_real delta = 6e-4;
    hertz_result r = solve_cap(&ra, &ra, R, delta);
    tc_real P = 4.0 / 3 * Es * sqrt(R) * pow(delta, 1.5);
    assert_near(r.load / P, 1, 0.10);
}

static void fibonacci_sphere(tc_vec3* pts, tc_vec3* nrm, int n, tc_real radius) {
    const tc_real golden = TC_PI * (3 - sqrt(5.0));
    for (int i = 0; i < n; ++i) {
        tc_real z = 1 - (2 * i + 1.0) / n, r = sqrt(1 - z * z), phi = golden * i;
        nrm[i] = tc_v3(r * cos(phi), r * sin(phi), z);
        pts[i] = tc_v3_scale(nrm[i], radius);
    }
}

static void test_tree_and_collide_sphere_on_ground(void** state) {
    (void)state;
    enum { N = 6000 };
    static tc_vec3 pts[N], nrm[N];
    static tc_real areas[N];
    tc_real R = 0.1;
    fibonacci_sphere(pts, nrm, N, R);
    for (int i = 0; i < N; ++i) areas[i] = 4 * TC_PI * R * R / N;
    tc_pointset cloud;
    assert_int_equal(tc_pointset_init(&cloud, pts, nrm, N, 0, "sphere", NULL), TC_RESULT_OK);
    tc_sphere_tree tree;
    assert_true(tc_sphere_tree_build(&tree, pts, N, 8));
    // every point lies in its leaf's sphere; each point appears once
    int* seen = calloc(N, sizeof(int));
    for (int i = 0; i < tree.node_count; ++i) {
        const tc_sphere_node* nd = &tree.nodes[i];
        for (int k = nd->begin; k < nd->end; ++k)
            assert_true(tc_v3_dist(pts[tree.order[k]], nd->centroid) <= nd->radius * (1 + 1e-12));
        if (nd->child[0] < 0) {
            assert_true(nd->end - nd->begin <= 8);
            for (int k = nd->begin; k < nd->end; ++k) seen[tree.order[k]]++;
        }
    }
    for (int i = 0; i < N; ++i) assert_int_equal(seen[i], 1);
    free(seen);
    // cuts get coarser with the level
    assert_true(tc_sphere_tree_cut_size(&tree, 1) < N / 2);
    assert_true(tc_sphere_tree_cut_size(&tree, 3) < tc_sphere_tree_cut_size(&tree, 1) / 4);

    tc_real delta = 2e-3;
    tc_quasi_surface surf = {&cloud, &tree, areas, {{0, 0, R - delta}, {0, 0, 0, 1}}, layer()};
    tc_real E = 2e6 * 1.3, Es = E / (1 - 0.09), P = 4.0 / 3 * Es * sqrt(R) * pow(delta, 1.5);
    tc_quasi_patch pt = {0};
    for (int coarse = 0; coarse <= 3; ++coarse) {
        tc_quasi_contact_params params = {coarse, 0, 1e-6 * delta, 3};
        assert_int_equal(tc_quasi_collide(&surf, NULL, ground_sdf, NULL, &params, &pt), TC_RESULT_OK);
        tc_real load = 0;
        for (int i = 0; i < pt.nodes.count; ++i) load += pt.pressure.data[i] * pt.area.data[i];
        printf("coarse %d -> fine 0: %d nodes, load %.4g (Hertz %.4g)\n", coarse, pt.nodes.count, load, P);
        assert_int_equal(pt.level, 0);
        assert_near(load / P, 1, 0.15);
    }
    // the volume-preserving layer (no far-field sinking) is stiffer for the same overlap, and
    // still resolves the penetration
    tc_quasi_surface vp = surf;
    vp.response.kind = TC_RESPONSE_VOLUME_PRESERVING;
    vp.response.vp_reach = 0.03;
    tc_quasi_contact_params vp_params = {0, 0, 1e-6 * delta, 3};
    assert_int_equal(tc_quasi_collide(&vp, NULL, ground_sdf, NULL, &vp_params, &pt), TC_RESULT_OK);
    tc_real vp_load = 0;
    for (int i = 0; i < pt.nodes.count; ++i) vp_load += pt.pressure.data[i] * pt.area.data[i];
    printf("volume-preserving: %d nodes, load %.4g N, residual penetration %.2g m\n", pt.nodes.count, vp_load, pt.residual_penetration);
    assert_true(vp_load > 1.05 * P && vp_load < 3 * P);
    assert_true(pt.residual_penetration <= 1e-6 * delta);
    // a coarse level alone still carries about the load
    tc_quasi_contact_params coarse_only = {2, 2, 1e-6 * delta, 3};
    assert_int_equal(tc_quasi_collide(&surf, NULL, ground_sdf, NULL, &coarse_only, &pt), TC_RESULT_OK);
    tc_real load = 0;
    for (int i = 0; i < pt.nodes.count; ++i) load += pt.pressure.data[i] * pt.area.data[i];
    printf("level 2 only: %d nodes, load %.4g\n", pt.nodes.count, load);
    assert_int_equal(pt.level, 2);
    assert_near(load / P, 1, 0.5);
    // far away: no nodes
    surf.pose.p.z = 1;
    tc_quasi_contact_params params = {0, 0, 1e-6, 3};
    assert_int_equal(tc_quasi_collide(&surf, NULL, ground_sdf, NULL, &params, &pt), TC_RESULT_OK);
    assert_int_equal(pt.nodes.count, 0);
    tc_quasi_patch_free(&pt);
    tc_sphere_tree_destroy(&tree);
    tc_pointset_destroy(&cloud);
}

typedef struct socket {
    tc_vec3 centre;
    tc_real radius;
} socket_cavity;

// A rigid socket: the solid lies outside a spherical cavity; its outward normal points inwards.
static tc_real socket_sdf(const void* user, tc_vec3 p, tc_vec3* normal) {
    const socket_cavity* s = user;
    tc_vec3 d = tc_v3_sub(s->centre, p);
    tc_real len = tc_v3_len(d);
    *normal = len > 0 ? tc_v3_scale(d, 1 / len) : tc_v3(0, 0, 1);
    return s->radius - len;
}

// qr_ball_socket: a ball seated in a socket 1% larger spreads its load over a wide, conforming
// area (the femur-in-hip case) -- far wider than Hertz predicts for the same load on a plane.
static void test_ball_in_socket_conforming_contact(void** state) {
    (void)state;
    enum { N = 1800 };
    static tc_vec3 pts[N], nrm[N];
    static tc_real areas[N];
    tc_real R = 0.05, Rs = 0.0505, e = 0.0008;
    fibonacci_sphere(pts, nrm, N, R);
    for (int i = 0; i < N; ++i) areas[i] = 4 * TC_PI * R * R / N;
    tc_pointset cloud;
    assert_int_equal(tc_pointset_init(&cloud, pts, nrm, N, 0, "ball", NULL), TC_RESULT_OK);
    tc_sphere_tree tree;
    assert_true(tc_sphere_tree_build(&tree, pts, N, 8));
    socket_cavity sock = {{0, 0, 0}, Rs};
    tc_quasi_surface surf = {&cloud, &tree, areas, {{0, 0, -e}, {0, 0, 0, 1}}, layer()};
    tc_quasi_contact_params params = {0, 0, 1e-7, 3};
    tc_quasi_patch pt = {0};
    assert_int_equal(tc_quasi_collide(&surf, NULL, socket_sdf, &sock, &params, &pt), TC_RESULT_OK);
    tc_vec3 F = tc_v3_zero();
    tc_real half_angle = 0;
    for (int i = 0; i < pt.nodes.count; ++i) {
        tc_real p = pt.pressure.data[i];
        if (p <= 0) continue;
        F = tc_v3_madd(F, p * pt.area.data[i], pt.normals.data[i]);
        tc_vec3 r = tc_v3_normalize(tc_v3_sub(pt.points.data[i], surf.pose.p));
        half_angle = fmax(half_angle, acos(-r.z));
    }
    tc_real Es = 2e6 * 1.3 / (1 - 0.09), a_hertz = cbrt(3 * F.z * R / (4 * Es));
    tc_real a_contact = R * sin(half_angle);
    printf("ball in socket: load %.1f N, contact half-angle %.1f deg, patch radius %.4g m (Hertz on a plane %.4g m)\n", F.z,
           half_angle * 180 / TC_PI, a_contact, a_hertz);
    assert_true(F.z > 0);
    assert_near(F.x, 0, 1e-3 * F.z);
    assert_near(F.y, 0, 1e-3 * F.z);
    assert_true(half_angle > 30 * TC_PI / 180);
    assert_true(a_contact > 2 * a_hertz);
    assert_true(pt.residual_penetration <= 1e-6);
    tc_quasi_patch_free(&pt);
    tc_sphere_tree_destroy(&tree);
    tc_pointset_destroy(&cloud);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_hertz_sphere_on_rigid_plane, tc_test_setup_log),
        cmocka_unit_test_setup(test_two_compliant_bodies_halve_stiffness, tc_test_setup_log),
        cmocka_unit_test_setup(test_tree_and_collide_sphere_on_ground, tc_test_setup_log),
        cmocka_unit_test_setup(test_ball_in_socket_conforming_contact, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
