// The quasi-rigid LCP method as a body option: the default (Polonsky–Keer CG on the symmetric
// matrix of a sphere's equal-area samples) and forced Lemke or MPRGP settle a pressed ball to the
// same contact force; the def and the scene field "solver" are validated.
#include "rigid_scene_util.h"

static tc_world* press_world(tc_quasi_solver solver, tc_body_id* ball) {
    tc_world_def wd = tc_world_def_default();
    wd.sub_steps = 4;
    wd.enable_sleep = false;
    tc_world* w = tc_world_create(&wd, NULL);
    assert_non_null(w);
    rs_plane(w, tc_v3(0, 0, 1), tc_rigid_body_def_default().base.material.friction);
    tc_error err;
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.sample_count = 8000;
    d.shear_modulus = 2e5;
    d.layer_damping = 3e5;
    d.solver = solver;
    d.base.pose.p = tc_v3(0, 0, 0.1);
    assert_int_equal(tc_quasi_body_create(w, &d, ball, &err), TC_RESULT_OK);
    return w;
}

static void test_methods_settle_alike(void** state) {
    (void)state;
    const tc_quasi_solver solvers[3] = {TC_QUASI_SOLVER_LEMKE, TC_QUASI_SOLVER_AUTO, TC_QUASI_SOLVER_MPRGP};
    tc_real fz[3];
    for (int s = 0; s < 3; ++s) {
        tc_body_id ball;
        tc_world* w = press_world(solvers[s], &ball);
        tc_error err;
        int pivots = 0, steps = 0, fallbacks = 0, nodes = 0;
        for (int i = 0; i < 40; ++i) {
            assert_int_equal(tc_world_step(w, &err), TC_RESULT_OK);
            tc_quasi_stats st = tc_quasi_body_get_stats(w, ball);
            pivots += st.pivots, steps += st.cg_steps, fallbacks += st.fallbacks;
            nodes = st.active_nodes > nodes ? st.active_nodes : nodes;
        }
        tc_vec3 F, T;
        tc_quasi_body_get_contact_wrench(w, ball, &F, &T);
        fz[s] = F.z;
        printf("solver %d: force %.6f N, up to %d nodes per step (4 sub-steps), %d pivots, %d CG steps, %d fallbacks\n",
               (int)solvers[s], F.z, nodes, pivots, steps, fallbacks);
        assert_true(nodes > 4 * 48); // above the size where AUTO picks Lemke, in each of the 4 sub-steps
        assert_int_equal(fallbacks, 0);
        if (solvers[s] == TC_QUASI_SOLVER_LEMKE) assert_true(pivots > 0 && steps == 0);
        else assert_true(steps > 0 && pivots == 0);
        tc_world_destroy(w);
    }
    assert_true(fz[0] > 1);
    // the iterative solvers stop at 0.1 × the penetration tolerance (1e-3 spacing): the trajectories agree closely
    assert_near(fz[1] / fz[0], 1, 1e-3);
    assert_near(fz[2] / fz[0], 1, 1e-3);
}

static const char* write_scene(const char* solver, char* buf, size_t n) {
    snprintf(buf, n, "%s/test_qr_solver_%s.json", TACTUS_BINARY_DIR, solver);
    FILE* f = fopen(buf, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"name\": \"s\", \"bodies\": [{\"type\": \"static\", \"name\": \"ground\", \"shapes\": [{\"type\": \"plane\", "
            "\"normal\": [0, 0, 1], \"offset\": 0}]}, {\"type\": \"quasi\", \"name\": \"ball\", \"sample_count\": 500, "
            "\"solver\": \"%s\", \"position\": [0, 0, 0.1]}]}",
            solver);
    fclose(f);
    return buf;
}

static void test_solver_option_validated(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_quasi_body_def d = tc_quasi_body_def_default();
    tc_body_id id;
    tc_error err;
    d.solver = (tc_quasi_solver)7;
    assert_int_equal(tc_quasi_body_create(w, &d, &id, &err), TC_RESULT_OUT_OF_RANGE);
    assert_non_null(strstr(err.message, "body.solver"));
    d.solver = (tc_quasi_solver)-1;
    assert_int_equal(tc_quasi_body_create(w, &d, &id, &err), TC_RESULT_OUT_OF_RANGE);
    tc_world_destroy(w);
    char path[512];
    const char* good[4] = {"auto", "lemke", "pk", "mprgp"};
    for (int i = 0; i < 4; ++i) {
        tc_scene* s = tc_scene_load(write_scene(good[i], path, sizeof path), &err);
        if (!s) fail_msg("%s", err.message);
        tc_scene_destroy(s);
    }
    assert_null(tc_scene_load(write_scene("fast", path, sizeof path), &err));
    printf("bad solver: %s\n", err.message);
    assert_non_null(strstr(err.message, "solver"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_methods_settle_alike, tc_test_setup_log),
        cmocka_unit_test_setup(test_solver_option_validated, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
