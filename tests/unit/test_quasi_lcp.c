// The quasi-rigid contact LCP through each solver: Polonsky–Keer and MPRGP against Lemke on a
// Hertz cap (one and two compliant layers), on a sampled sphere from every coarse level.
#include "tc_test.h"
#include "contact/quasi_contact.h"
#include "tc_quasi_sdf.h"

// Sphere cap R = 5 cm pressed δ = 1 mm on a grid of spacing a/10 (about 630 nodes); with
// `uneven`, node areas vary ±30 % in a smooth pattern (a non-symmetric matrix).
static void fill_cap_areas(tc_quasi_patch* pt, const paraboloid* pb, bool uneven) {
    tc_real a = sqrt(pb->radius * pb->depth), h = a / 10;
    int n = (int)ceil(1.5 * a / h);
    for (int i = -n; i <= n; ++i)
        for (int j = -n; j <= n; ++j) {
            tc_vec3 p = tc_v3(i * h, j * h, 0), nrm;
            tc_real area = h * h * (uneven ? 1 + 0.3 * sin(0.7 * i) * cos(0.5 * j) : 1);
            if (paraboloid_sdf(pb, p, &nrm) < 0) assert_true(tc_quasi_patch_add(pt, pt->nodes.count, p, area));
        }
}

static void fill_cap(tc_quasi_patch* pt, const paraboloid* pb) { fill_cap_areas(pt, pb, false); }

static void assert_same_pressures(const tc_quasi_patch* a, const tc_quasi_patch* b, tc_real rel) {
    assert_int_equal(a->nodes.count, b->nodes.count);
    tc_real pmax = 0;
    for (int i = 0; i < a->nodes.count; ++i) pmax = fmax(pmax, a->pressure.data[i]);
    assert_true(pmax > 0);
    for (int i = 0; i < a->nodes.count; ++i) {
        assert_int_equal(a->nodes.data[i], b->nodes.data[i]);
        assert_near(a->pressure.data[i], b->pressure.data[i], rel * pmax);
    }
}

static void test_solvers_agree_on_hertz_cap(void** state) {
    (void)state;
    tc_response_params ra = {TC_RESPONSE_BOUSSINESQ, 1e6, 0.3, 0}, rb = {TC_RESPONSE_BOUSSINESQ, 3e5, 0.45, 0};
    paraboloid pb = {0.05, 1e-3};
    tc_quasi_contact_params params = {0, 0, 1e-9 * pb.depth, 3};
    for (int two = 0; two < 2; ++two) {
        tc_quasi_patch ref = {0};
        ref.solver = TC_LCP_LEMKE;
        fill_cap(&ref, &pb);
        assert_int_equal(tc_quasi_solve_nodes(&ref, &ra, two ? &rb : NULL, paraboloid_sdf, &pb, &params), TC_RESULT_OK);
        assert_true(ref.symmetric && ref.pivots > 0 && ref.lcp_iterations == 0);
        for (int m = TC_LCP_AUTO; m <= TC_LCP_MPRGP; ++m) {
            if (m == TC_LCP_LEMKE) continue;
            tc_quasi_patch pt = {0};
            pt.solver = (tc_lcp_method)m;
            fill_cap(&pt, &pb);
            assert_int_equal(tc_quasi_solve_nodes(&pt, &ra, two ? &rb : NULL, paraboloid_sdf, &pb, &params), TC_RESULT_OK);
            printf("%s, method %d: %d nodes, %d steps (Lemke %d pivots)\n", two ? "two layers" : "rigid plane", m,
                   pt.nodes.count, pt.lcp_iterations, ref.pivots);
            assert_true(pt.pivots == 0 && pt.fallbacks == 0 && pt.lcp_iterations > 0);
            assert_true(pt.residual_penetration <= 1e-6 * pb.depth);
            assert_same_pressures(&ref, &pt, 1e-6);
            // the displacement splits between the layers in proportion to (1−ν)/G
            tc_real ca = 0.7 / 1e6, cb = 0.55 / 3e5;
            for (int i = 0; i < pt.nodes.count; ++i) {
                assert_near(pt.disp_a.data[i], ref.disp_a.data[i], 1e-6 * pb.depth);
                if (two) assert_near(pt.disp_a.data[i] * cb, pt.disp_b.data[i] * ca, 1e-12 * pb.depth * cb);
                else assert_true(pt.disp_b.data[i] == 0);
            }
            tc_quasi_patch_free(&pt);
        }
        tc_quasi_patch_free(&ref);
    }
}

// Unequal node areas: M is not symmetric; AUTO and PK solve it by the split PK, as Lemke does.
static void test_split_on_uneven_areas(void** state) {
    (void)state;
    tc_response_params ra = {TC_RESPONSE_BOUSSINESQ, 1e6, 0.3, 0};
    paraboloid pb = {0.05, 1e-3};
    tc_quasi_contact_params params = {0, 0, 1e-9 * pb.depth, 3};
    tc_quasi_patch ref = {0};
    ref.solver = TC_LCP_LEMKE;
    fill_cap_areas(&ref, &pb, true);
    assert_int_equal(tc_quasi_solve_nodes(&ref, &ra, NULL, paraboloid_sdf, &pb, &params), TC_RESULT_OK);
    assert_false(ref.symmetric);
    for (int m = TC_LCP_AUTO; m <= TC_LCP_PK; ++m) {
        if (m == TC_LCP_LEMKE) continue;
        tc_quasi_patch pt = {0};
        pt.solver = (tc_lcp_method)m;
        fill_cap_areas(&pt, &pb, true);
        assert_int_equal(tc_quasi_solve_nodes(&pt, &ra, NULL, paraboloid_sdf, &pb, &params), TC_RESULT_OK);
        printf("uneven areas, method %d: %d nodes, %d steps (Lemke %d pivots)\n", m, pt.nodes.count, pt.lcp_iterations,
               ref.pivots);
        assert_true(pt.pivots == 0 && pt.fallbacks == 0 && pt.lcp_iterations > 0);
        assert_true(pt.residual_penetration <= 1e-6 * pb.depth);
        assert_same_pressures(&ref, &pt, 1e-6);
        tc_quasi_patch_free(&pt);
    }
    tc_quasi_patch_free(&ref);
}

// A sampled sphere on the ground: every coarse level (warm start of the fine solve from the kept
// clusters' pressures) and every method reach the same fine pressures.
static void test_coarse_to_fine_same_solution(void** state) {
    (void)state;
    enum { N = 6000 };
    static tc_vec3 pts[N], nrm[N];
    static tc_real areas[N];
    tc_real R = 0.1, delta = 2e-3;
    const tc_real golden = TC_PI * (3 - sqrt(5.0));
    for (int i = 0; i < N; ++i) {
        tc_real z = 1 - (2 * i + 1.0) / N, r = sqrt(1 - z * z), phi = golden * i;
        nrm[i] = tc_v3(r * cos(phi), r * sin(phi), z);
        pts[i] = tc_v3_scale(nrm[i], R);
        areas[i] = 4 * TC_PI * R * R / N;
    }
    tc_pointset cloud;
    tc_sphere_tree tree;
    assert_int_equal(tc_pointset_init(&cloud, pts, nrm, N, 0, "sphere", NULL), TC_RESULT_OK);
    assert_true(tc_sphere_tree_build(&tree, pts, N, 8));
    tc_quasi_surface surf = {&cloud, &tree, areas, {{0, 0, R - delta}, {0, 0, 0, 1}}, {TC_RESPONSE_BOUSSINESQ, 1e6, 0.3, 0}};
    tc_quasi_patch ref = {0}, pt = {0};
    ref.solver = TC_LCP_LEMKE;
    tc_quasi_contact_params p0 = {0, 0, 1e-9 * delta, 3};
    assert_int_equal(tc_quasi_collide(&surf, NULL, ground_sdf, NULL, &p0, &ref), TC_RESULT_OK);
    assert_true(ref.nodes.count > TC_LCP_LEMKE_MAX_N);
    for (int m = TC_LCP_AUTO; m <= TC_LCP_MPRGP; ++m)
        for (int coarse = 0; coarse <= 3; ++coarse) {
            if (m == TC_LCP_LEMKE) continue;
            tc_quasi_contact_params params = {coarse, 0, 1e-9 * delta, 3};
            pt.solver = (tc_lcp_method)m;
            assert_int_equal(tc_quasi_collide(&surf, NULL, ground_sdf, NULL, &params, &pt), TC_RESULT_OK);
            assert_true(pt.level == 0 && pt.fallbacks == 0 && pt.lcp_iterations > 0);
            assert_same_pressures(&ref, &pt, 1e-6);
        }
    tc_quasi_patch_free(&ref);
    tc_quasi_patch_free(&pt);
    tc_sphere_tree_destroy(&tree);
    tc_pointset_destroy(&cloud);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_solvers_agree_on_hertz_cap, tc_test_setup_log),
        cmocka_unit_test_setup(test_split_on_uneven_areas, tc_test_setup_log),
        cmocka_unit_test_setup(test_coarse_to_fine_same_solution, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
