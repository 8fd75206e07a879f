// Tet FEM assembly (tet_fem.c, tet_assemble.c, tet_solve.c): the assembled warped stiffness and
// the elastic forces against an independent element stiffness in Voigt notation (V B^T D B), its
// symmetry and rigid-motion null space, the force it linearises, a free fall of one implicit
// step, the CG's warm start from three earlier steps, and the lane-wise assembly against the
// tet-by-tet one, bit for bit.
#include "tc_test.h"

#include "dynamics/tet/tet.h"

#include <math.h>
#include <string.h>

typedef struct fixture {
    tc_world* w;
    tc_tet_body* b;
} fixture;

static fixture make_box(tc_quat q) {
    tc_world_def wd = tc_world_def_default();
    wd.gravity = tc_v3_zero();
    fixture f = {tc_world_create(&wd, NULL), NULL};
    assert_non_null(f.w);
    tc_tet_body_def d = tc_tet_body_def_default();
    d.half_extents = tc_v3(0.3, 0.2, 0.15);
    d.resolution = 3;
    d.youngs_modulus = 1e5, d.poisson_ratio = 0.3;
    d.base.pose.p = tc_v3(1, -2, 0.5);
    d.base.pose.q = q;
    tc_body_id id;
    assert_int_equal(tc_tet_body_create(f.w, &d, &id, NULL), TC_RESULT_OK);
    f.b = tc_tet_body_at(f.w, tc_world_resolve(f.w, id)->index);
    return f;
}

static tc_quat some_rotation(void) { return tc_quat_normalize((tc_quat){0.3, -0.5, 0.2, 0.8}); }

static uint64_t s_seed;
static tc_real uniform(void) { // in [-1, 1), deterministic
    s_seed = s_seed * 6364136223846793005ull + 1442695040888963407ull;
    return (tc_real)(s_seed >> 11) / (tc_real)(1ull << 52) - 1;
}
static tc_vec3 random_vec(tc_real scale) { return tc_v3(scale * uniform(), scale * uniform(), scale * uniform()); }

// ---- the reference: 12x12 element stiffness from strain-displacement and elasticity matrices

static void voigt_stiffness(const tc_tet_body* b, int t, tc_real K[12][12]) {
    tc_real g[4][3], B[6][12], D[6][6];
    for (int j = 1; j < 4; ++j)
        for (int c = 0; c < 3; ++c) g[j][c] = b->inv_dm[t].m[j - 1][c];
    for (int c = 0; c < 3; ++c) g[0][c] = -(g[1][c] + g[2][c] + g[3][c]);
    memset(B, 0, sizeof B), memset(D, 0, sizeof D);
    for (int j = 0; j < 4; ++j) { // strains xx yy zz, engineering shears xy yz zx
        tc_real* col = &B[0][3 * j];
        col[0] = g[j][0], col[12 + 1] = g[j][1], col[24 + 2] = g[j][2];
        col[36 + 0] = g[j][1], col[36 + 1] = g[j][0];
        col[48 + 1] = g[j][2], col[48 + 2] = g[j][1];
        col[60 + 0] = g[j][2], col[60 + 2] = g[j][0];
    }
    for (int a = 0; a < 3; ++a) {
        for (int c = 0; c < 3; ++c) D[a][c] = b->lambda + (a == c ? 2 * b->mu : 0);
        D[3 + a][3 + a] = b->mu;
    }
    for (int r = 0; r < 12; ++r)
        for (int c = 0; c < 12; ++c) {
            tc_real s = 0;
            for (int p = 0; p < 6; ++p)
                for (int q = 0; q < 6; ++q) s += B[p][r] * D[p][q] * B[q][c];
            K[r][c] = b->volume[t] * s;
        }
}

// Gram-Schmidt on the columns of F = Ds Dm^-1 (the rotation the model defines).
static tc_mat3 reference_rotation(const tc_tet_body* b, int t) {
    const int* q = b->tets + 4 * t;
    tc_mat3 Ds = tc_mat3_from_cols(tc_v3_sub(b->x[q[1]], b->x[q[0]]), tc_v3_sub(b->x[q[2]], b->x[q[0]]), tc_v3_sub(b->x[q[3]], b->x[q[0]]));
    tc_mat3 F = tc_mat3_mul(Ds, b->inv_dm[t]);
    tc_vec3 c0 = tc_v3_normalize(tc_mat3_col(F, 0)), c1 = tc_mat3_col(F, 1);
    c1 = tc_v3_normalize(tc_v3_sub(c1, tc_v3_scale(c0, tc_v3_dot(c0, c1))));
    return tc_mat3_from_cols(c0, c1, tc_v3_cross(c0, c1));
}

static void element_apply(tc_real K[12][12], const tc_vec3 in[4], tc_vec3 out[4]) {
    tc_real u[12], y[12];
    for (int j = 0; j < 4; ++j) u[3 * j] = in[j].x, u[3 * j + 1] = in[j].y, u[3 * j + 2] = in[j].z;
    for (int r = 0; r < 12; ++r) {
        y[r] = 0;
        for (int c = 0; c < 12; ++c) y[r] += K[r][c] * u[c];
    }
    for (int j = 0; j < 4; ++j) out[j] = tc_v3(y[3 * j], y[3 * j + 1], y[3 * j + 2]);
}

// y = sum_e R K_e R^T d and f = -sum_e R K_e (R^T x - X) over the elements.
static void reference(const tc_tet_body* b, const tc_vec3* d, tc_vec3* y, tc_vec3* f) {
    memset(y, 0, (size_t)b->n * sizeof(tc_vec3)), memset(f, 0, (size_t)b->n * sizeof(tc_vec3));
    for (int t = 0; t < b->tet_count; ++t) {
        const int* q = b->tets + 4 * t;
        tc_real K[12][12];
        voigt_stiffness(b, t, K);
        tc_mat3 R = reference_rotation(b, t), Rt = tc_mat3_transpose(R);
        tc_vec3 u[4], e[4], ky[4], kf[4];
        for (int j = 0; j < 4; ++j) u[j] = tc_mat3_mul_v3(Rt, d[q[j]]), e[j] = tc_v3_sub(tc_mat3_mul_v3(Rt, b->x[q[j]]), b->rest[q[j]]);
        element_apply(K, u, ky);
        element_apply(K, e, kf);
        for (int j = 0; j < 4; ++j) {
            y[q[j]] = tc_v3_add(y[q[j]], tc_mat3_mul_v3(R, ky[j]));
            f[q[j]] = tc_v3_sub(f[q[j]], tc_mat3_mul_v3(R, kf[j]));
        }
    }
}

static tc_real max_norm(const tc_vec3* a, int n) {
    tc_real m = 0;
    for (int i = 0; i < n; ++i) m = fmax(m, tc_v3_len(a[i]));
    return m;
}

static tc_real max_diff(const tc_vec3* a, const tc_vec3* c, int n) {
    tc_real m = 0;
    for (int i = 0; i < n; ++i) m = fmax(m, tc_v3_dist(a[i], c[i]));
    return m;
}

typedef struct buffers {
    tc_vec3 *d, *y, *yr, *fr;
} buffers;

static buffers make_buffers(int n) {
    buffers s = {tc_calloc((size_t)n, sizeof(tc_vec3)), tc_calloc((size_t)n, sizeof(tc_vec3)), tc_calloc((size_t)n, sizeof(tc_vec3)),
                 tc_calloc((size_t)n, sizeof(tc_vec3))};
    assert_true(s.d && s.y && s.yr && s.fr);
    return s;
}

static void free_buffers(buffers* s, int n) {
    tc_free(s->d, (size_t)n * sizeof(tc_vec3)), tc_free(s->y, (size_t)n * sizeof(tc_vec3));
    tc_free(s->yr, (size_t)n * sizeof(tc_vec3)), tc_free(s->fr, (size_t)n * sizeof(tc_vec3));
}

// A deformed, rotated box: assembled K d and the elastic forces equal the 12x12 reference.
static void test_assembly_matches_voigt_reference(void** state) {
    (void)state;
    fixture fx = make_box(some_rotation());
    tc_tet_body* b = fx.b;
    buffers s = make_buffers(b->n);
    s_seed = 7;
    for (int i = 0; i < b->n; ++i) b->x[i] = tc_v3_add(tc_v3_scale(b->x[i], 1.03), random_vec(0.01)); // cells are 0.2 m
    for (int i = 0; i < b->n; ++i) s.d[i] = random_vec(1);
    memset(b->f, 0, (size_t)b->n * sizeof(tc_vec3));
    tc_tet_assemble(b);
    tc_tet_multiply(b, s.d, s.y);
    reference(b, s.d, s.yr, s.fr);
    assert_true(max_norm(s.yr, b->n) > 1e3);
    assert_true(max_diff(s.y, s.yr, b->n) < 1e-10 * max_norm(s.yr, b->n));
    assert_true(max_norm(s.fr, b->n) > 1);
    assert_true(max_diff(b->f, s.fr, b->n) < 1e-9 * max_norm(s.fr, b->n));
    free_buffers(&s, b->n);
    tc_world_destroy(fx.w);
}

// K is symmetric (e^T K d = d^T K e: rows below the diagonal use the stored blocks transposed),
// positive semi-definite, and at rest rigid translations and rotations are in its null space.
static void test_symmetric_with_rigid_null_space(void** state) {
    (void)state;
    fixture fx = make_box(some_rotation());
    tc_tet_body* b = fx.b;
    buffers s = make_buffers(b->n);
    tc_tet_assemble(b);
    assert_true(max_norm(b->f, b->n) < 1e-9); // rest shape, only rotated: no force
    s_seed = 11;
    for (int i = 0; i < b->n; ++i) s.d[i] = random_vec(1), s.fr[i] = random_vec(1);
    tc_tet_multiply(b, s.d, s.y);
    tc_tet_multiply(b, s.fr, s.yr);
    tc_real ekd = 0, dke = 0, dkd = 0;
    for (int i = 0; i < b->n; ++i) ekd += tc_v3_dot(s.fr[i], s.y[i]), dke += tc_v3_dot(s.d[i], s.yr[i]), dkd += tc_v3_dot(s.d[i], s.y[i]);
    assert_near(ekd, dke, 1e-10 * fabs(dkd));
    assert_true(dkd > 0);
    tc_real scale = max_norm(s.y, b->n); // |K d| for a unit-size d
    tc_vec3 omega = tc_v3(0.4, -0.7, 0.2), shift = tc_v3(0.3, 0.1, -0.9);
    for (int i = 0; i < b->n; ++i) s.d[i] = tc_v3_add(shift, tc_v3_cross(omega, b->x[i]));
    tc_tet_multiply(b, s.d, s.y);
    assert_true(max_norm(s.y, b->n) < 1e-10 * scale);
    free_buffers(&s, b->n);
    tc_world_destroy(fx.w);
}

// At the rotated rest shape K is the exact Jacobian of the corotational force (the rotation's
// own variation multiplies a zero stress): central differences of the force give -K d.
static void test_stiffness_linearises_force(void** state) {
    (void)state;
    fixture fx = make_box(some_rotation());
    tc_tet_body* b = fx.b;
    buffers s = make_buffers(b->n);
    tc_tet_assemble(b);
    s_seed = 3;
    for (int i = 0; i < b->n; ++i) s.d[i] = random_vec(1), s.fr[i] = b->x[i];
    tc_tet_multiply(b, s.d, s.y);
    tc_real eps = 1e-6;
    for (int sign = -1; sign <= 1; sign += 2) {
        for (int i = 0; i < b->n; ++i) b->x[i] = tc_v3_madd(s.fr[i], sign * eps, s.d[i]), b->f[i] = tc_v3_zero();
        tc_tet_elastic_forces(b);
        for (int i = 0; i < b->n; ++i) s.yr[i] = sign < 0 ? b->f[i] : tc_v3_scale(tc_v3_sub(b->f[i], s.yr[i]), -1 / (2 * eps));
    }
    assert_true(max_diff(s.y, s.yr, b->n) < 1e-6 * max_norm(s.y, b->n));
    free_buffers(&s, b->n);
    tc_world_destroy(fx.w);
}

// A free body at rest under gravity: K of a uniform velocity change is zero, so one implicit
// step gives every vertex exactly dv = g h.
static void test_free_fall_step(void** state) {
    (void)state;
    fixture fx = make_box(some_rotation());
    tc_tet_body* b = fx.b;
    tc_vec3 g = tc_v3(0.5, -1, -9.81);
    tc_real h = 1.0 / 240;
    tc_tet_step_implicit(b, g, h);
    for (int i = 0; i < b->n; ++i) assert_vec3_near(b->v[i], tc_v3_scale(g, h), 1e-9);
    tc_world_destroy(fx.w);
}

// Four free-fall steps: every step's dv is g h, so the warm start's three vectors are zero or
// parallel from the second step on; the factorisation drops the dependent ones (a singular 3x3
// solve would give NaN) and the start is already the solution.
static void test_warm_start_parallel_vectors(void** state) {
    (void)state;
    fixture fx = make_box(some_rotation());
    tc_tet_body* b = fx.b;
    tc_vec3 g = tc_v3(0.5, -1, -9.81);
    tc_real h = 1.0 / 240;
    for (int step = 1; step <= 4; ++step) {
        tc_tet_step_implicit(b, g, h);
        for (int i = 0; i < b->n; ++i) assert_vec3_near(b->v[i], tc_v3_scale(g, step * h), 1e-9);
        if (step > 1) assert_true(b->solver.iterations <= 1);
    }
    tc_world_destroy(fx.w);
}

// The start is the A-norm-best combination of all three earlier dv: with two random ones and the
// solution (g h) as the oldest, CG starts at the solution; from the two random ones alone it
// needs many iterations.
static void test_warm_start_uses_third_vector(void** state) {
    (void)state;
    tc_vec3 g = tc_v3(0.5, -1, -9.81);
    tc_real h = 1.0 / 240;
    int iterations[2];
    for (int with_solution = 0; with_solution < 2; ++with_solution) {
        fixture fx = make_box(some_rotation());
        tc_tet_body* b = fx.b;
        s_seed = 11;
        for (int i = 0; i < b->n; ++i) {
            b->solver.dv[i] = random_vec(0.1), b->solver.dv_prev[i] = random_vec(0.1);
            b->solver.dv_prev2[i] = with_solution ? tc_v3_scale(g, h) : tc_v3_zero();
        }
        tc_tet_step_implicit(b, g, h);
        for (int i = 0; i < b->n; ++i) assert_vec3_near(b->v[i], tc_v3_scale(g, h), 1e-9);
        iterations[with_solution] = b->solver.iterations;
        tc_world_destroy(fx.w);
    }
    assert_true(iterations[1] <= 1);
    assert_true(iterations[0] > 3);
}

// solver_tolerance ends CG earlier: from the same deformed box a loose tolerance takes fewer
// iterations and lands near the tight solve (the residual bound scaled by the conditioning);
// values outside (0, 0.1] are refused naming the field.
static void test_solver_tolerance(void** state) {
    (void)state;
    tc_vec3 g = tc_v3(0, 0, -9.81);
    tc_real h = 1.0 / 60;
    tc_real tol[2] = {1e-8, 1e-3};
    int iterations[2];
    tc_vec3* dv[2] = {NULL, NULL};
    int n = 0;
    for (int k = 0; k < 2; ++k) {
        fixture fx = make_box(some_rotation());
        tc_tet_body* b = fx.b;
        b->cg_tolerance = tol[k];
        s_seed = 3;
        for (int i = 0; i < b->n; ++i) b->x[i] = tc_v3_add(b->x[i], random_vec(0.02));
        tc_tet_step_implicit(b, g, h);
        n = b->n;
        dv[k] = tc_alloc((size_t)n * sizeof(tc_vec3));
        assert_non_null(dv[k]);
        memcpy(dv[k], b->solver.dv, (size_t)n * sizeof(tc_vec3));
        iterations[k] = b->solver.iterations;
        tc_world_destroy(fx.w);
    }
    assert_true(iterations[1] + 3 <= iterations[0]);
    tc_real diff = 0, size = 0;
    for (int i = 0; i < n; ++i) diff += tc_v3_len2(tc_v3_sub(dv[0][i], dv[1][i])), size += tc_v3_len2(dv[0][i]);
    assert_true(size > 0 && diff > 0);
    assert_true(sqrt(diff) < 0.02 * sqrt(size)); // measured 1.7e-3
    for (int k = 0; k < 2; ++k) tc_free(dv[k], (size_t)n * sizeof(tc_vec3));
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    const tc_real bad[3] = {0, 0.5, NAN};
    for (int k = 0; k < 3; ++k) {
        tc_tet_body_def d = tc_tet_body_def_default();
        d.solver_tolerance = bad[k];
        tc_body_id id;
        tc_error e;
        assert_int_equal(tc_tet_body_create(w, &d, &id, &e), TC_RESULT_OUT_OF_RANGE);
        assert_non_null(strstr(e.message, "solver_tolerance"));
    }
    tc_world_destroy(w);
}

// ---- tet-by-tet assembly, the formulas of tet_fem.c one element after another: the lane-wise
// assembly (tet_assemble.c) must give the same bits

static void reference_block(tc_mat3* target, tc_real d, tc_vec3 ra, tc_vec3 rc, tc_vec3 mrc, tc_vec3 lra) {
    const tc_real a[3] = {ra.x, ra.y, ra.z}, c[3] = {rc.x, rc.y, rc.z}, mc[3] = {mrc.x, mrc.y, mrc.z}, la[3] = {lra.x, lra.y, lra.z};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) target->m[i][j] += mc[i] * a[j] + la[i] * c[j];
    for (int i = 0; i < 3; ++i) target->m[i][i] += d;
}

static void reference_assembly(const tc_tet_body* b, tc_mat3* diag, tc_mat3* off) {
    static const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    memset(diag, 0, (size_t)b->n * sizeof(tc_mat3));
    memset(off, 0, (size_t)b->edge_count * sizeof(tc_mat3));
    for (int t = 0; t < b->tet_count; ++t) {
        const int* q = b->tets + 4 * t;
        const tc_vec3* g = b->grads + 4 * t;
        tc_vec3 x0 = b->x[q[0]];
        tc_mat3 Ds = tc_mat3_from_cols(tc_v3_sub(b->x[q[1]], x0), tc_v3_sub(b->x[q[2]], x0), tc_v3_sub(b->x[q[3]], x0));
        tc_mat3 R = tc_tet_qr_rotation(tc_mat3_mul(Ds, b->inv_dm[t]));
        tc_real mu_v = b->mu * b->volume[t], lambda_v = b->lambda * b->volume[t];
        tc_vec3 r[4], mr[4], lr[4];
        for (int j = 0; j < 4; ++j) r[j] = tc_mat3_mul_v3(R, g[j]), mr[j] = tc_v3_scale(r[j], mu_v), lr[j] = tc_v3_scale(r[j], lambda_v);
        for (int j = 0; j < 4; ++j) reference_block(&diag[q[j]], mu_v * tc_v3_dot(g[j], g[j]), r[j], r[j], mr[j], lr[j]);
        for (int k = 0; k < 6; ++k) {
            int a = pairs[k][0], c = pairs[k][1];
            if (q[a] > q[c]) a = pairs[k][1], c = pairs[k][0];
            reference_block(&off[b->solver.tet_edges[6 * t + k]], mu_v * tc_v3_dot(g[a], g[c]), r[a], r[c], mr[c], lr[a]);
        }
    }
}

// A box with random deformation (inverted tets among them), one tet collapsed to a point and one
// flattened to a line (the QR's two fallbacks) and a tet count that leaves a partial chunk: the
// lane-wise assembly's forces equal tc_tet_elastic_forces' and its blocks the tet-by-tet ones,
// bit for bit (the vectorised and the scalar code paths do the same operations).
static void test_lane_assembly_matches_tet_by_tet(void** state) {
    (void)state;
    fixture fx = make_box(some_rotation());
    tc_tet_body* b = fx.b;
    assert_true(b->tet_count % 16 != 0);
    s_seed = 5;
    for (int i = 0; i < b->n; ++i) b->x[i] = tc_v3_add(b->x[i], random_vec(0.15)); // cells are 0.2 m: some tets invert
    const int* point = b->tets + 4 * 3;
    for (int k = 1; k < 4; ++k) b->x[point[k]] = b->x[point[0]];
    const int* line = b->tets + 4 * (b->tet_count - 2);
    tc_vec3 dir = tc_v3_sub(b->x[line[1]], b->x[line[0]]);
    for (int k = 2; k < 4; ++k) b->x[line[k]] = tc_v3_madd(b->x[line[0]], k, dir);
    int inverted = 0;
    for (int t = 0; t < b->tet_count; ++t) inverted += tc_tet_signed_volume(b, t) < 0;
    assert_true(inverted > 0);
    tc_vec3* f_ref = tc_alloc((size_t)b->n * sizeof(tc_vec3));
    tc_mat3* diag = tc_alloc((size_t)b->n * sizeof(tc_mat3));
    tc_mat3* off = tc_alloc((size_t)b->edge_count * sizeof(tc_mat3));
    assert_true(f_ref && diag && off);
    memset(b->f, 0, (size_t)b->n * sizeof(tc_vec3));
    tc_tet_elastic_forces(b);
    memcpy(f_ref, b->f, (size_t)b->n * sizeof(tc_vec3));
    reference_assembly(b, diag, off);
    memset(b->f, 0, (size_t)b->n * sizeof(tc_vec3));
    tc_tet_assemble(b);
    assert_true(max_norm(f_ref, b->n) > 1);
    assert_memory_equal(b->f, f_ref, (size_t)b->n * sizeof(tc_vec3));
    assert_memory_equal(b->solver.diag, diag, (size_t)b->n * sizeof(tc_mat3));
    assert_memory_equal(b->solver.off, off, (size_t)b->edge_count * sizeof(tc_mat3));
    tc_free(f_ref, (size_t)b->n * sizeof(tc_vec3));
    tc_free(diag, (size_t)b->n * sizeof(tc_mat3));
    tc_free(off, (size_t)b->edge_count * sizeof(tc_mat3));
    tc_world_destroy(fx.w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assembly_matches_voigt_reference),
        cmocka_unit_test(test_symmetric_with_rigid_null_space),
        cmocka_unit_test(test_stiffness_linearises_force),
        cmocka_unit_test(test_free_fall_step),
        cmocka_unit_test(test_warm_start_parallel_vectors),
        cmocka_unit_test(test_warm_start_uses_third_vector),
        cmocka_unit_test(test_solver_tolerance),
        cmocka_unit_test(test_lane_assembly_matches_tet_by_tet),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
