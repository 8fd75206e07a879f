// Point-based bodies (ALGORITHMS.md §7.7): MLS exactness, rotation invariance, momentum,
// energy consistency, uniaxial stress, plasticity, surfels, fracture, validation.
#include "tc_test.h"
#include "dynamics/points/points.h"

static tc_points_body* build(tc_points_body_def d) {
    tc_points_body* b = NULL;
    tc_error e;
    assert_int_equal(tc_points_body_build(&d, &b, &e), TC_RESULT_OK);
    return b;
}

static tc_points_body_def small_box(void) {
    tc_points_body_def d = tc_points_body_def_default();
    d.half_extents = tc_v3(0.06, 0.05, 0.04);
    d.phyxel_spacing = 0.03;
    d.surfel_spacing = 0.03;
    d.jitter = 0.3;
    d.support_scale = 2.5;
    return d;
}

static tc_real rnd(uint32_t* s) {
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) * (1.0 / 16777216.0) - 0.5;
}

static tc_mat3 random_matrix(uint32_t* s, tc_real scale) {
    tc_mat3 G;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) G.m[r][c] = scale * rnd(s);
    return G;
}

static void test_mls_gradient_of_linear_field_is_exact(void** state) {
    (void)state;
    tc_points_body* b = build(small_box());
    uint32_t seed = 7;
    tc_mat3 G = random_matrix(&seed, 0.8);
    tc_vec3 t = tc_v3(0.3, -0.2, 0.1);
    for (int i = 0; i < b->np; ++i) b->x[i] = tc_v3_add(b->x0[i], tc_v3_add(tc_mat3_mul_v3(G, b->x0[i]), t));
    tc_points_compute_gradients(b);
    for (int i = 0; i < b->np; ++i)
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) assert_near(b->grad_u[i].m[r][c], G.m[r][c], 1e-12);
    tc_points_body_free(b);
}

static tc_real max_force(const tc_vec3* f, int n) {
    tc_real m = 0;
    for (int i = 0; i < n; ++i) m = fmax(m, tc_v3_len(f[i]));
    return m;
}

static void test_rigid_rotation_has_no_strain_and_no_force(void** state) {
    (void)state;
    tc_points_body_def d = small_box();
    d.volume_stiffness = 1e5;
    tc_points_body* b = build(d);
    tc_quat q = tc_quat_from_axis_angle(tc_v3_normalize(tc_v3(1, 2, 3)), 1.1);
    for (int i = 0; i < b->np; ++i) b->x[i] = tc_v3_add(tc_quat_rotate(q, b->x0[i]), tc_v3(1, 2, 3));
    tc_points_compute_gradients(b);
    tc_vec3* f = tc_calloc((size_t)b->np, sizeof(tc_vec3));
    tc_real energy = tc_points_elastic_forces(b, f);
    // Scale: a 1% strain gives forces of order E * vol * 0.01 / h.
    tc_real scale = b->mat.youngs * b->vol[0] / b->h[0];
    assert_true(max_force(f, b->np) < 1e-10 * scale);
    assert_true(fabs(energy) < 1e-12);
    for (int i = 0; i < b->np; ++i) {
        tc_mat3 e = tc_points_green_strain(tc_mat3_add(tc_mat3_identity(), b->grad_u[i]));
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) assert_near(e.m[r][c], 0, 1e-12);
    }
    tc_free(f, (size_t)b->np * sizeof(tc_vec3));
    tc_points_body_free(b);
}

static void deform_randomly(tc_points_body* b, uint32_t* seed, tc_real amp) {
    for (int i = 0; i < b->np; ++i) b->x[i] = tc_v3_add(b->x0[i], tc_v3(amp * rnd(seed), amp * rnd(seed), amp * rnd(seed)));
}

static void test_forces_of_each_phyxel_sum_to_zero(void** state) {
    (void)state;
    tc_points_body_def d = small_box();
    d.volume_stiffness = 3e4;
    tc_points_body* b = build(d);
    uint32_t seed = 11;
    tc_vec3* f = tc_calloc((size_t)b->np, sizeof(tc_vec3));
    for (int trial = 0; trial < 5; ++trial) {
        deform_randomly(b, &seed, 0.01);
        tc_points_compute_gradients(b);
        memset(f, 0, (size_t)b->np * sizeof(tc_vec3));
        tc_points_elastic_forces(b, f);
        tc_vec3 sum = tc_v3_zero();
        for (int i = 0; i < b->np; ++i) sum = tc_v3_add(sum, f[i]);
        assert_true(tc_v3_len(sum) < 1e-12 * fmax(1, max_force(f, b->np)) * b->np);
        assert_true(max_force(f, b->np) > 0);
    }
    tc_free(f, (size_t)b->np * sizeof(tc_vec3));
    tc_points_body_free(b);
}

static tc_real total_energy(tc_points_body* b) {
    tc_points_compute_gradients(b);
    return tc_points_elastic_energy(b);
}

static void test_forces_are_minus_energy_gradient(void** state) {
    (void)state;
    tc_points_body_def d = small_box();
    d.volume_stiffness = 5e4;
    tc_points_body* b = build(d);
    uint32_t seed = 3;
    deform_randomly(b, &seed, 0.01);
    for (int i = 0; i < b->np; ++i) b->eps_p[i] = tc_mat3_scale(tc_mat3_identity(), 0.002 * (i % 3)); // plastic part too
    tc_vec3* f = tc_calloc((size_t)b->np, sizeof(tc_vec3));
    tc_points_compute_gradients(b);
    tc_points_elastic_forces(b, f);
    tc_real eps = 1e-7, worst = 0, fmaxv = max_force(f, b->np);
    for (int j = 0; j < b->np; ++j)
        for (int k = 0; k < 3; ++k) {
            tc_real* xk = &b->x[j].x + k;
            tc_real keep = *xk;
            *xk = keep + eps;
            tc_real ep = total_energy(b);
            *xk = keep - eps;
            tc_real em = total_energy(b);
            *xk = keep;
            tc_real fd = -(ep - em) / (2 * eps);
            worst = fmax(worst, fabs(fd - tc_v3_get(f[j], k)));
        }
    print_message("finite-difference worst error %.3g of max force %.3g\n", worst, fmaxv);
    assert_true(worst < 1e-6 * fmaxv);
    tc_free(f, (size_t)b->np * sizeof(tc_vec3));
    tc_points_body_free(b);
}

static void test_uniaxial_stretch_gives_young_modulus(void** state) {
    (void)state;
    tc_points_body_def d = small_box();
    d.poisson_ratio = 0;
    tc_points_body* b = build(d);
    tc_real s = 0.01;
    for (int i = 0; i < b->np; ++i) b->x[i] = tc_v3(b->x0[i].x * (1 + s), b->x0[i].y, b->x0[i].z);
    tc_points_compute_gradients(b);
    for (int i = 0; i < b->np; ++i) {
        tc_mat3 e = tc_points_green_strain(tc_mat3_add(tc_mat3_identity(), b->grad_u[i]));
        tc_real sigma_xx = 2 * b->mat.mu * e.m[0][0]; // lambda = 0 for nu = 0
        assert_near(sigma_xx, b->mat.youngs * e.m[0][0], 1e-9 * b->mat.youngs);
        assert_near(e.m[0][0], s + 0.5 * s * s, 0.05 * s);
    }
    tc_points_body_free(b);
}

static void stretch(tc_points_body* b, tc_real s) {
    for (int i = 0; i < b->np; ++i) b->x[i] = tc_v3(b->x0[i].x * (1 + s), b->x0[i].y, b->x0[i].z);
}

static tc_real plastic_norm(const tc_points_body* b) {
    tc_real m = 0;
    for (int i = 0; i < b->np; ++i) {
        tc_real s = 0;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) s += b->eps_p[i].m[r][c] * b->eps_p[i].m[r][c];
        m = fmax(m, sqrt(s));
    }
    return m;
}

static void test_plasticity_yield_creep_and_cap(void** state) {
    (void)state;
    tc_points_body_def d = small_box();
    d.yield_strain = 0.05;
    d.creep = 10;
    d.max_plastic_strain = 0.08;
    tc_points_body* b = build(d);
    stretch(b, 0.02); // below the elastic limit
    for (int k = 0; k < 20; ++k) tc_points_plasticity(b, 0.01);
    assert_near(plastic_norm(b), 0, 1e-15);
    stretch(b, 0.3); // far above: flows, capped at max_plastic
    for (int k = 0; k < 200; ++k) tc_points_plasticity(b, 0.01);
    assert_near(plastic_norm(b), 0.08, 1e-9);
    // After release (back to the rest positions) the strain-free state is no longer the rest
    // shape: a permanent set remains, so there is elastic energy at rest.
    stretch(b, 0);
    assert_true(total_energy(b) > 0);
    tc_points_body_free(b);
}

static void test_surfels_follow_affine_motion(void** state) {
    (void)state;
    tc_points_body* b = build(small_box());
    tc_quat q = tc_quat_from_axis_angle(tc_v3(0, 0, 1), 0.7);
    for (int i = 0; i < b->np; ++i) b->x[i] = tc_v3_add(tc_quat_rotate(q, b->x0[i]), tc_v3(0.5, 0, 0));
    tc_points_update_surfels(b);
    for (int k = 0; k < b->ns; ++k) {
        assert_vec3_near(b->s[k], tc_v3_add(tc_quat_rotate(q, b->s0[k]), tc_v3(0.5, 0, 0)), 1e-10);
        assert_vec3_near(b->n[k], tc_quat_rotate(q, b->n0[k]), 1e-10);
    }
    tc_points_body_free(b);
}

static void test_invalid_defs_are_rejected(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_body_id id;
    tc_error e;
    tc_points_body_def d = tc_points_body_def_default();
    d.density = NAN;
    assert_int_equal(tc_points_body_create(w, &d, &id, &e), TC_RESULT_INVALID_ARGUMENT);
    assert_non_null(strstr(e.message, "density"));
    d = tc_points_body_def_default();
    d.half_extents.y = -1;
    assert_int_equal(tc_points_body_create(w, &d, &id, &e), TC_RESULT_INVALID_ARGUMENT);
    assert_non_null(strstr(e.message, "half_extents"));
    d = tc_points_body_def_default();
    d.poisson_ratio = 0.5;
    assert_int_equal(tc_points_body_create(w, &d, &id, &e), TC_RESULT_INVALID_ARGUMENT);
    d = tc_points_body_def_default();
    d.phyxel_spacing = 1;
    assert_int_equal(tc_points_body_create(w, &d, &id, &e), TC_RESULT_DEGENERATE);
    assert_non_null(strstr(e.message, "phyxel_spacing"));
    d = tc_points_body_def_default();
    d.shape = TC_POINTS_MESH; // no mesh given
    assert_int_equal(tc_points_body_create(w, &d, &id, &e), TC_RESULT_INVALID_ARGUMENT);
    d = tc_points_body_def_default(); // so far out that doubles would crush the phyxels
    d.base.pose.p = tc_v3(0, 1e20, 0);
    assert_int_equal(tc_points_body_create(w, &d, &id, &e), TC_RESULT_OUT_OF_RANGE);
    assert_non_null(strstr(e.message, "position"));
    memset(&d, 0, sizeof d);
    assert_int_equal(tc_points_body_create(w, &d, &id, &e), TC_RESULT_INVALID_ARGUMENT);
    assert_int_equal(tc_world_get_body_count(w), 0);
    tc_world_destroy(w);
}

static void test_mesh_body_matches_box_volume(void** state) {
    (void)state;
    // A closed cube mesh: the sampled mass equals density x volume and surfels lie on its faces.
    tc_vec3 v[8];
    for (int i = 0; i < 8; ++i) v[i] = tc_v3(i & 1 ? 0.1 : -0.1, i & 2 ? 0.1 : -0.1, i & 4 ? 0.1 : -0.1);
    int tri[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    tc_points_body_def d = tc_points_body_def_default();
    d.shape = TC_POINTS_MESH;
    d.mesh_vertices = v;
    d.mesh_vertex_count = 8;
    d.mesh_triangles = tri;
    d.mesh_triangle_count = 12;
    tc_points_body* b = build(d);
    assert_near(b->total_mass, 1000 * 0.008, 1e-9);
    assert_int_equal(b->np, 125);
    for (int k = 0; k < b->ns; ++k) {
        tc_vec3 s = b->s0[k];
        tc_real m = fmax(fabs(s.x), fmax(fabs(s.y), fabs(s.z)));
        assert_near(m, 0.1, 1e-12);
    }
    tc_points_body_free(b);
}

static int count_points_bodies(tc_world* w, uint32_t* marks) {
    tc_body_id ids[16];
    int n = tc_world_get_bodies(w, ids, 16), c = 0;
    for (int i = 0; i < n; ++i)
        if (tc_body_get_kind(w, ids[i]) == TC_BODY_POINTS) marks[c++] = tc_points_body_get_mark(w, ids[i]);
    return c;
}

static void test_fracture_splits_and_never_remerges(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    wd.gravity = tc_v3_zero();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_points_body_def d = tc_points_body_def_default();
    d.half_extents = tc_v3(0.16, 0.04, 0.04);
    d.phyxel_spacing = 0.04;
    d.surfel_spacing = 0.02;
    d.support_scale = 2;
    d.fracture = true;
    d.youngs_modulus = 2e3; // soft putty: flows instead of springing back
    d.creep = 50;
    d.max_plastic_strain = 10;
    tc_body_id id;
    tc_error e;
    assert_int_equal(tc_points_body_create(w, &d, &id, &e), TC_RESULT_OK);
    tc_points_body* b = tc_points_body_at(w, 0);
    for (int i = 0; i < b->np; ++i) b->v[i] = tc_v3(b->x0[i].x > 0 ? 3 : -3, 0, 0); // pull apart
    uint32_t marks[16];
    int parts = 1;
    for (int s = 0; s < 30 && parts < 2; ++s) {
        assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
        parts = count_points_bodies(w, marks);
    }
    assert_true(parts >= 2);
    assert_true(marks[0] != marks[1] && marks[0] != 0 && marks[1] != 0);
    // Push the parts back together: they collide as separate bodies and stay separate.
    tc_body_id ids[16];
    int n = tc_world_get_bodies(w, ids, 16);
    for (int i = 0; i < n; ++i) {
        tc_vec3 c = tc_body_get_center_of_mass(w, ids[i]);
        tc_points_body_set_velocity(w, ids[i], tc_v3(c.x > 0 ? -1 : 1, 0, 0));
    }
    int contacts = 0;
    for (int s = 0; s < 60; ++s) {
        assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
        int nc;
        tc_world_get_contacts(w, &nc);
        contacts += nc;
        int now = count_points_bodies(w, marks); // never fewer bodies; marks stay distinct
        assert_true(now >= parts);
        parts = now;
        for (int a = 0; a < now; ++a)
            for (int c = a + 1; c < now; ++c) assert_true(marks[a] != marks[c]);
    }
    assert_true(contacts > 0); // they did meet again
    tc_world_destroy(w);
}

static uint64_t run_and_hash(void) {
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_points_body_def d = tc_points_body_def_default();
    d.phyxel_spacing = 0.05;
    d.surfel_spacing = 0.03;
    tc_body_id a, b;
    tc_error e;
    assert_int_equal(tc_points_body_create(w, &d, &a, &e), TC_RESULT_OK);
    d.base.pose.p = tc_v3(0.05, 0, 0.19);
    assert_int_equal(tc_points_body_create(w, &d, &b, &e), TC_RESULT_OK);
    tc_points_body_set_velocity(w, b, tc_v3(0, 0, -1));
    for (int s = 0; s < 10; ++s) assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
    uint64_t h = tc_world_hash(w);
    tc_world_destroy(w);
    return h;
}

static void test_same_scene_gives_same_hash(void** state) {
    (void)state;
    assert_true(run_and_hash() == run_and_hash());
}

static void test_non_finite_state_names_the_body(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_points_body_def d = tc_points_body_def_default();
    d.base.name = "jelly";
    tc_body_id id;
    tc_error e;
    assert_int_equal(tc_points_body_create(w, &d, &id, &e), TC_RESULT_OK);
    assert_int_equal(tc_points_body_set_velocity(w, id, tc_v3(NAN, 0, 0)), TC_RESULT_NOT_FINITE);
    tc_points_body_at(w, 0)->v[3].x = NAN; // corrupt the state directly
    assert_int_equal(tc_world_step(w, &e), TC_RESULT_UNSTABLE);
    assert_non_null(strstr(e.message, "jelly"));
    tc_world_destroy(w);
}

static void test_destroy_keeps_other_ids_valid(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_points_body_def d = tc_points_body_def_default();
    d.phyxel_spacing = 0.05;
    tc_body_id a, b;
    tc_error e;
    assert_int_equal(tc_points_body_create(w, &d, &a, &e), TC_RESULT_OK);
    d.base.pose.p = tc_v3(1, 0, 0);
    assert_int_equal(tc_points_body_create(w, &d, &b, &e), TC_RESULT_OK);
    assert_int_equal(tc_body_destroy(w, a), TC_RESULT_OK);
    assert_false(tc_body_is_valid(w, a));
    assert_near(tc_body_get_center_of_mass(w, b).x, 1, 0.01); // b moved into the freed store index
    assert_int_equal(tc_points_body_get_phyxel_count(w, b), 64);
    assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
    tc_world_destroy(w);
}

static void test_applied_force_accelerates_the_centre_of_mass(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    wd.gravity = tc_v3_zero();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_points_body_def d = tc_points_body_def_default();
    d.phyxel_spacing = 0.05;
    tc_body_id id;
    tc_error e;
    assert_int_equal(tc_points_body_create(w, &d, &id, &e), TC_RESULT_OK);
    assert_int_equal(tc_points_body_apply_force(w, id, tc_v3(8, 0, 0)), TC_RESULT_OK); // 8 kg body
    assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
    assert_near(tc_body_get_linear_velocity(w, id).x, 1.0 * wd.time_step, 1e-12); // a = 1 m/s^2 for one step
    assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);                      // then it is gone
    assert_near(tc_body_get_linear_velocity(w, id).x, 1.0 * wd.time_step, 1e-12);
    assert_int_equal(tc_points_body_apply_force(w, id, tc_v3(NAN, 0, 0)), TC_RESULT_NOT_FINITE);
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_mls_gradient_of_linear_field_is_exact, tc_test_setup_log),
        cmocka_unit_test_setup(test_rigid_rotation_has_no_strain_and_no_force, tc_test_setup_log),
        cmocka_unit_test_setup(test_forces_of_each_phyxel_sum_to_zero, tc_test_setup_log),
        cmocka_unit_test_setup(test_forces_are_minus_energy_gradient, tc_test_setup_log),
        cmocka_unit_test_setup(test_uniaxial_stretch_gives_young_modulus, tc_test_setup_log),
        cmocka_unit_test_setup(test_plasticity_yield_creep_and_cap, tc_test_setup_log),
        cmocka_unit_test_setup(test_surfels_follow_affine_motion, tc_test_setup_log),
        cmocka_unit_test_setup(test_invalid_defs_are_rejected, tc_test_setup_log),
        cmocka_unit_test_setup(test_mesh_body_matches_box_volume, tc_test_setup_log),
        cmocka_unit_test_setup(test_fracture_splits_and_never_remerges, tc_test_setup_log),
        cmocka_unit_test_setup(test_same_scene_gives_same_hash, tc_test_setup_log),
        cmocka_unit_test_setup(test_non_finite_state_names_the_body, tc_test_setup_log),
        cmocka_unit_test_setup(test_destroy_keeps_other_ids_valid, tc_test_setup_log),
        cmocka_unit_test_setup(test_applied_force_accelerates_the_centre_of_mass, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
