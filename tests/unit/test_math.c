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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_ops),
        cmocka_unit_test(test_quaternion_rotation),
        cmocka_unit_test(test_matrix_ops),
        cmocka_unit_test(test_eigen_symmetric),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
