#include "math/eigen.h"

// One Jacobi rotation zeroing a[p][q]; accumulates the rotation into v.
static void jacobi_rotate(tc_mat3* a, tc_mat3* v, int p, int q) {
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

void tc_eigen_sym3(tc_mat3 a, tc_vec3* values, tc_mat3* vectors) {
    tc_mat3 v = tc_mat3_identity();
    for (int sweep = 0; sweep < 50; ++sweep) {
        tc_real off = fabs(a.m[0][1]) + fabs(a.m[0][2]) + fabs(a.m[1][2]);
        tc_real diag = fabs(a.m[0][0]) + fabs(a.m[1][1]) + fabs(a.m[2][2]);
        if (off <= 1e-300 || off <= 1e-17 * diag) break;
        jacobi_rotate(&a, &v, 0, 1);
        jacobi_rotate(&a, &v, 0, 2);
        jacobi_rotate(&a, &v, 1, 2);
    }
    tc_real d[3] = {a.m[0][0], a.m[1][1], a.m[2][2]};
    int idx[3] = {0, 1, 2};
    for (int i = 0; i < 2; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (d[idx[j]] < d[idx[i]]) { int t = idx[i]; idx[i] = idx[j]; idx[j] = t; }
    tc_vec3 c0 = tc_mat3_col(v, idx[0]), c1 = tc_mat3_col(v, idx[1]);
    tc_vec3 c2 = tc_v3_cross(c0, c1); // right-handed
    *values = tc_v3(d[idx[0]], d[idx[1]], d[idx[2]]);
    *vectors = tc_mat3_from_cols(c0, c1, c2);
}
