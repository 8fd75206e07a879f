// Math: vectors, quaternions, 3x3 matrices and the symmetric eigen-decomposition.
#include "tc_test.h"
#include "math/eigen.h"

static void test_vector_ops(void** state) {
    (void)state;
    tc_vec3 a = tc_v3(1, 2, 3), b = tc_v3(-2, 0.5, 4);
    assert_near(tc_v3_dot(a, b), -2 + 1 + 12, 1e-15);
    tc_vec3 c = tc_v3_cross(a, b);
    assert_near(tc_v3_dot(c, a), 0, 1e-12);
    assert_near(tc_v3_dot(c, b), 0, 1e-12);
    assert_vec3_near(tc_v3_cross(tc_v3(1, 0, 0), tc_v3(0, 1, 0)), tc_v3(0, 0, 1), 0); // right-handed
    assert_near(tc_v3_len(tc_v3_normalize(b)), 1, 1e-15);
    tc_vec3 t1, t2, n = tc_v3_normalize(tc_v3(0.3, -0.2, 0.9));
    tc_v3_basis(n, &t1, &t2);
    assert_near(tc_v3_dot(t1, n), 0, 1e-14);
    assert_near(tc_v3_dot(t2, n), 0, 1e-14);
    assert_near(tc_v3_dot(tc_v3_cross(t1, t2), n), 1, 1e-14);
}

static void test_quaternion_rotation(void** state) {
    (void)state;
    tc_quat q = tc_quat_from_axis_angle(tc_v3(0, 0, 1), TC_PI / 2);
    assert_vec3_near(tc_quat_rotate(q, tc_v3(1, 0, 0)), tc_v3(0, 1, 0), 1e-15);
    tc_quat r = tc_quat_from_axis_angle(tc_v3(1, 1, 0), 0.7);
    tc_vec3 v = tc_v3(0.2, -1.5, 3);
    // composition: (q r) v = q (r v); inverse undoes
    assert_vec3_near(tc_quat_rotate(tc_quat_mul(q, r), v), tc_quat_rotate(q, tc_quat_rotate(r, v)), 1e-14);
    assert_vec3_near(tc_quat_inv_rotate(r, tc_quat_rotate(r, v)), v, 1e-14);
    // matrix form agrees and round-trips
    tc_mat3 R = tc_quat_to_mat3(r);
    assert_vec3_near(tc_mat3_mul_v3(R, v), tc_quat_rotate(r, v), 1e-14);
    tc_quat r2 = tc_mat3_to_quat(R);
    assert_near(fabs(r2.x * r.x + r2.y * r.y + r2.z * r.z + r2.w * r.w), 1, 1e-14);
    assert_near(tc_mat3_det(R), 1, 1e-14);
    // integrating a constant angular velocity for 1 s in small steps gives the analytic rotation
    tc_quat p = tc_quat_identity();
    for (int i = 0; i < 10000; ++i) p = tc_quat_integrate(p, tc_v3(0, 0, 1), 1e-4);
    assert_vec3_near(tc_quat_rotate(p, tc_v3(1, 0, 0)), tc_v3(cos(1.0), sin(1.0), 0), 1e-4);
}

static void test_matrix_ops(void** state) {
    (void)state;
    tc_mat3 a = {{{4, 1, 2}, {0.5, 3, -1}, {2, -2, 5}}};
    tc_mat3 ai = tc_mat3_inverse(a);
    tc_mat3 id = tc_mat3_mul(a, ai);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) assert_near(id.m[i][j], i == j, 1e-14);
    assert_near(tc_mat3_det(tc_mat3_transpose(a)), tc_mat3_det(a), 1e-12);
    tc_mat3 singular = {{{1, 2, 3}, {2, 4, 6}, {0, 1, 1}}};
    assert_near(tc_mat3_det(tc_mat3_inverse(singular)), 0, 0);
    tc_vec3 u = tc_v3(1, 2, 3), v = tc_v3(-1, 4, 0.5);
    assert_vec3_near(tc_mat3_mul_v3(tc_mat3_skew(u), v), tc_v3_cross(u, v), 1e-15);
}

static void test_eigen_symmetric(void** state) {
    (void)state;
    // A = Q diag(1, 2, 5) Q^T for a known rotation Q
    tc_mat3 Q = tc_quat_to_mat3(tc_quat_from_axis_angle(tc_v3(1, -2, 0.5), 1.1));
    tc_mat3 A = tc_mat3_mul(tc_mat3_mul(Q, tc_mat3_diag(tc_v3(1, 2, 5))), tc_mat3_transpose(Q));
    tc_vec3 values;
    tc_mat3 V;
    tc_eigen_sym3(A, &values, &V);
    assert_vec3_near(values, tc_v3(1, 2, 5), 1e-12);
    for (int k = 0; k < 3; ++k) {
        tc_vec3 e = tc_mat3_col(V, k);
        assert_vec3_near(tc_mat3_mul_v3(A, e), tc_v3_scale(e, tc_v3_get(values, k)), 1e-12);
    }
    assert_near(tc_mat3_det(V), 1, 1e-12);
    // repeated eigenvalues
    tc_eigen_sym3(tc_mat3_diag(tc_v3(3, 3, 1)), &values, &V);
    assert_vec3_near(values, tc_v3(1, 3, 3), 1e-15);
}

// The cyclic Jacobi as it was written before its rotations were inlined (loops over k through
// pointers, a call per rotation): tc_eigen_sym3 must give the same bits.
static void reference_rotate(tc_mat3* a, tc_mat3* v, int p, int q) {
    tc_real apq = a->m[p][q];
    if (apq == 0) return;
    tc_real theta = (a->m[q][q] - a->m[p][p]) / (2 * apq);
    tc_real t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
    tc_real c = 1 / sqrt(t * t + 1), s = t * c;
    for (int k = 0; k < 3; ++k) {
        tc_real akp = a->m[k][p], akq = a->m[k][q];
        a->m[k][p] = c * akp - s * akq;
        a->m[k][q] = s * akp + c * akq;
    }
    for (int k = 0; k < 3; ++k) {
        tc_real apk = a->m[p][k], aqk = a->m[q][k];
        a->m[p][k] = c * apk - s * aqk;
        a->m[q][k] = s * apk + c * aqk;
    }
    for (int k = 0; k < 3; ++k) {
        tc_real vkp = v->m[k][p], vkq = v->m[k][q];
        v->m[k][p] = c * vkp - s * vkq;
        v->m[k][q] = s * vkp + c * vkq;
    }
}

static void reference_eigen(tc_mat3 a, tc_vec3* values, tc_mat3* vectors) {
    tc_mat3 v = tc_mat3_identity();
    for (int sweep = 0; sweep < 50; ++sweep) {
        tc_real off = fabs(a.m[0][1]) + fabs(a.m[0][2]) + fabs(a.m[1][2]);
        tc_real diag = fabs(a.m[0][0]) + fabs(a.m[1][1]) + fabs(a.m[2][2]);
        if (off <= 1e-300 || off <= 1e-17 * diag) break;
        reference_rotate(&a, &v, 0, 1);
        reference_rotate(&a, &v, 0, 2);
        reference_rotate(&a, &v, 1, 2);
    }
    tc_real d[3] = {a.m[0][0], a.m[1][1], a.m[2][2]};
    int idx[3] = {0, 1, 2};
    for (int i = 0; i < 2; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (d[idx[j]] < d[idx[i]]) { int t = idx[i]; idx[i] = idx[j]; idx[j] = t; }
    tc_vec3 c0 = tc_mat3_col(v, idx[0]), c1 = tc_mat3_col(v, idx[1]);
    *values = tc_v3(d[idx[0]], d[idx[1]], d[idx[2]]);
    *vectors = tc_mat3_from_cols(c0, c1, tc_v3_cross(c0, c1));
}

static void test_eigen_same_bits_as_reference(void** state) {
    (void)state;
    uint32_t seed = 7;
    for (int n = 0; n < 2000; ++n) {
        tc_real e[6];
        for (int k = 0; k < 6; ++k) {
            seed = seed * 1664525u + 1013904223u;
            e[k] = ((seed >> 8) * (1.0 / 16777216.0) - 0.5) * (k < 3 ? 1 : (n % 3 == 0 ? 1e-9 : 0.3)); // (some nearly diagonal)
        }
        if (n % 7 == 0) e[3 + n % 3] = 0; // an exact zero off the diagonal
        if (n % 11 == 0) e[1] = e[0];     // a repeated diagonal entry
        tc_mat3 A = {{{e[0], e[3], e[4]}, {e[3], e[1], e[5]}, {e[4], e[5], e[2]}}};
        tc_vec3 values, ref_values;
        tc_mat3 V, ref_V;
        tc_eigen_sym3(A, &values, &V);
        reference_eigen(A, &ref_values, &ref_V);
        assert_memory_equal(&values, &ref_values, sizeof values);
        assert_memory_equal(&V, &ref_V, sizeof V);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_ops),
        cmocka_unit_test(test_quaternion_rotation),
        cmocka_unit_test(test_matrix_ops),
        cmocka_unit_test(test_eigen_symmetric),
        cmocka_unit_test(test_eigen_same_bits_as_reference),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
