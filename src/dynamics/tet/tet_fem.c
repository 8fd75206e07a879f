// Corotational linear elasticity (stiffness warping) on linear tetrahedra, integrated by
// implicit Euler: one Newton step solved matrix-free by conjugate gradients (ALGORITHMS §6).
// Rotations come from a Gram-Schmidt QR of the deformation gradient, which stays a proper
// rotation when an element inverts, so inverted elements push themselves back out.
#include "dynamics/tet/tet.h"

#include <string.h>

tc_real tc_tet_signed_volume(const tc_tet_body* b, int t) {
    const int* q = b->tets + 4 * t;
    tc_vec3 a = b->x[q[0]];
    return tc_v3_dot(tc_v3_sub(b->x[q[1]], a), tc_v3_cross(tc_v3_sub(b->x[q[2]], a), tc_v3_sub(b->x[q[3]], a))) / 6;
}

static tc_mat3 qr_rotation(tc_mat3 F) {
    tc_vec3 c0 = tc_mat3_col(F, 0), c1 = tc_mat3_col(F, 1);
    tc_real l0 = tc_v3_len(c0);
    if (!(l0 > 1e-12)) return tc_mat3_identity();
    tc_vec3 r0 = tc_v3_scale(c0, 1 / l0);
    tc_vec3 r1 = tc_v3_madd(c1, -tc_v3_dot(r0, c1), r0);
    tc_real l1 = tc_v3_len(r1);
    if (!(l1 > 1e-12)) { // the first two columns are parallel: any perpendicular will do
        tc_vec3 t1, t2;
        tc_v3_basis(r0, &t1, &t2);
        r1 = t1;
    } else {
        r1 = tc_v3_scale(r1, 1 / l1);
    }
    return tc_mat3_from_cols(r0, r1, tc_v3_cross(r0, r1));
}

static tc_vec3 grad(const tc_mat3* G, int j) { // gradient of shape function j (rest frame)
    if (j > 0) return tc_v3(G->m[j - 1][0], G->m[j - 1][1], G->m[j - 1][2]);
    return tc_v3_neg(tc_v3_add(tc_v3_add(grad(G, 1), grad(G, 2)), grad(G, 3)));
}

// Forces on the 4 vertices (rest frame) from their displacements u (rest frame): -V sigma g_j.
static void element_forces(const tc_tet_body* b, int t, const tc_vec3 u[4], tc_vec3 f[4]) {
    const tc_mat3* G = &b->inv_dm[t];
    tc_vec3 g[4];
    for (int j = 0; j < 4; ++j) g[j] = grad(G, j);
    tc_real H[3][3] = {{0}};
    for (int j = 0; j < 4; ++j)
        for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c) H[a][c] += tc_v3_get(u[j], a) * tc_v3_get(g[j], c);
    tc_real tr = H[0][0] + H[1][1] + H[2][2], S[3][3];
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) S[a][c] = b->mu * (H[a][c] + H[c][a]) + (a == c ? b->lambda * tr : 0);
    for (int j = 0; j < 4; ++j) {
        tc_vec3 s = tc_v3(S[0][0] * g[j].x + S[0][1] * g[j].y + S[0][2] * g[j].z, S[1][0] * g[j].x + S[1][1] * g[j].y + S[1][2] * g[j].z,
                          S[2][0] * g[j].x + S[2][1] * g[j].y + S[2][2] * g[j].z);
        f[j] = tc_v3_scale(s, -b->volume[t]);
    }
}

static tc_mat3 element_rotation(const tc_tet_body* b, int t) {
    const int* q = b->tets + 4 * t;
    tc_mat3 Ds = tc_mat3_from_cols(tc_v3_sub(b->x[q[1]], b->x[q[0]]), tc_v3_sub(b->x[q[2]], b->x[q[0]]), tc_v3_sub(b->x[q[3]], b->x[q[0]]));
    return qr_rotation(tc_mat3_mul(Ds, b->inv_dm[t]));
}

// f += -R K (R^T x - X) for every element; rotations stored for the implicit solve.
static void elastic_forces_with(tc_tet_body* b, tc_mat3* rotations) {
    for (int t = 0; t < b->tet_count; ++t) {
        const int* q = b->tets + 4 * t;
        tc_mat3 R = element_rotation(b, t), Rt = tc_mat3_transpose(R);
        if (rotations) rotations[t] = R;
        tc_vec3 u[4], f[4];
        for (int j = 0; j < 4; ++j) u[j] = tc_v3_sub(tc_mat3_mul_v3(Rt, b->x[q[j]]), b->rest[q[j]]);
        element_forces(b, t, u, f);
        for (int j = 0; j < 4; ++j) b->f[q[j]] = tc_v3_add(b->f[q[j]], tc_mat3_mul_v3(R, f[j]));
    }
}

void tc_tet_elastic_forces(tc_tet_body* b) { elastic_forces_with(b, NULL); }

// y = K d (the warped stiffness with the step's rotations), K positive semi-definite.
static void stiffness_times(const tc_tet_body* b, const tc_mat3* rot, const tc_vec3* d, tc_vec3* y) {
    memset(y, 0, (size_t)b->n * sizeof(tc_vec3));
    for (int t = 0; t < b->tet_count; ++t) {
        const int* q = b->tets + 4 * t;
        tc_mat3 Rt = tc_mat3_transpose(rot[t]);
        tc_vec3 u[4], f[4];
        for (int j = 0; j < 4; ++j) u[j] = tc_mat3_mul_v3(Rt, d[q[j]]);
        element_forces(b, t, u, f);
        for (int j = 0; j < 4; ++j) y[q[j]] = tc_v3_sub(y[q[j]], tc_mat3_mul_v3(rot[t], f[j]));
    }
}

static tc_real dot_all(const tc_vec3* a, const tc_vec3* c, int n) {
    tc_real s = 0;
    for (int i = 0; i < n; ++i) s += tc_v3_dot(a[i], c[i]);
    return s;
}

typedef struct system {
    const tc_tet_body* b;
    const tc_mat3* rot;
    tc_real stiff; ///< h beta + h^2
} system;

static void apply_system(const system* s, const tc_vec3* d, tc_vec3* y) {
    stiffness_times(s->b, s->rot, d, y);
    for (int i = 0; i < s->b->n; ++i) {
        tc_vec3 contact = tc_mat3_mul_v3(s->b->contact_jac[i], d[i]);
        y[i] = s->b->fixed[i] ? tc_v3_zero() : tc_v3_add(tc_v3_add(tc_v3_scale(d[i], s->b->m[i]), tc_v3_scale(y[i], s->stiff)), contact);
    }
}

// Fixed vertices (unreferenced ones included, which have no mass) keep a zero residual.
static tc_vec3 precondition(const tc_tet_body* b, int i, tc_vec3 r) { return b->fixed[i] ? tc_v3_zero() : tc_v3_scale(r, 1 / b->m[i]); }

// Conjugate gradients with a mass (Jacobi-like) preconditioner; fixed vertices stay at zero.
static void solve(const system* s, const tc_vec3* rhs, tc_vec3* x, tc_vec3* work) {
    int n = s->b->n;
    tc_vec3 *r = work, *z = work + n, *p = work + 2 * n, *q = work + 3 * n;
    for (int i = 0; i < n; ++i) {
        x[i] = tc_v3_zero();
        r[i] = s->b->fixed[i] ? tc_v3_zero() : rhs[i];
        z[i] = precondition(s->b, i, r[i]);
        p[i] = z[i];
    }
    tc_real rz = dot_all(r, z, n), r0 = dot_all(r, r, n);
    for (int it = 0; it < 2000 && dot_all(r, r, n) > 1e-16 * r0 && rz > 0; ++it) {
        apply_system(s, p, q);
        tc_real pq = dot_all(p, q, n);
        if (!(pq > 0)) break;
        tc_real alpha = rz / pq;
        for (int i = 0; i < n; ++i) x[i] = tc_v3_madd(x[i], alpha, p[i]), r[i] = tc_v3_madd(r[i], -alpha, q[i]);
        for (int i = 0; i < n; ++i) z[i] = precondition(s->b, i, r[i]);
        tc_real rz_new = dot_all(r, z, n);
        for (int i = 0; i < n; ++i) p[i] = tc_v3_madd(z[i], rz_new / rz, p[i]);
        rz = rz_new;
    }
}

void tc_tet_step_implicit(tc_tet_body* b, tc_vec3 g, tc_real h) {
    int n = b->n;
    tc_mat3* rot = tc_alloc((size_t)b->tet_count * sizeof(tc_mat3));
    tc_vec3* buf = tc_alloc(7 * (size_t)n * sizeof(tc_vec3));
    if (!rot || !buf) {
        tc_free(rot, (size_t)b->tet_count * sizeof(tc_mat3));
        tc_free(buf, 7 * (size_t)n * sizeof(tc_vec3));
        return;
    }
    tc_vec3 *rhs = buf, *dv = buf + n, *kv = buf + 2 * n, *work = buf + 3 * n;
    tc_vec3 user = tc_v3_scale(b->user_force, 1 / b->total_mass);
    for (int i = 0; i < n; ++i) b->f[i] = tc_v3_madd(b->f[i], b->m[i], tc_v3_add(g, user));
    elastic_forces_with(b, rot);
    stiffness_times(b, rot, b->v, kv); // K v0: damping force -beta K v0 and the h K v0 term
    for (int i = 0; i < n; ++i) rhs[i] = tc_v3_scale(tc_v3_madd(b->f[i], -(b->beta + h), kv[i]), h);
    system s = {b, rot, h * b->beta + h * h};
    solve(&s, rhs, dv, work);
    for (int i = 0; i < n; ++i) {
        if (!b->fixed[i]) {
            b->v[i] = tc_v3_add(b->v[i], dv[i]);
            b->x[i] = tc_v3_madd(b->x[i], h, b->v[i]);
        }
        b->f[i] = tc_v3_zero();
    }
    tc_free(rot, (size_t)b->tet_count * sizeof(tc_mat3));
    tc_free(buf, 7 * (size_t)n * sizeof(tc_vec3));
    tc_tet_update_surface(b);
}

void tc_tet_update_surface(tc_tet_body* b) {
    b->aabb = tc_aabb_empty();
    for (int i = 0; i < b->n; ++i) {
        b->aabb = tc_aabb_add_point(b->aabb, b->x[i]);
        b->vertex_normals[i] = tc_v3_zero();
    }
    for (int f = 0; f < b->face_count; ++f) { // area-weighted vertex normals of the surface
        const int* v = b->faces + 3 * f;
        tc_vec3 n = tc_v3_cross(tc_v3_sub(b->x[v[1]], b->x[v[0]]), tc_v3_sub(b->x[v[2]], b->x[v[0]]));
        for (int k = 0; k < 3; ++k) b->vertex_normals[v[k]] = tc_v3_add(b->vertex_normals[v[k]], n);
    }
    for (int i = 0; i < b->n; ++i)
        if (b->on_surface[i]) b->vertex_normals[i] = tc_v3_normalize(b->vertex_normals[i]);
}
