// Implicit Euler for tet bodies (ALGORITHMS §6): one Newton step
// (M + (h beta + h^2) K + C) dv = h (f - (beta + h) K v), with K the warped stiffness assembled
// once per step (tet_fem.c) and C the tet-tet contact terms, solved by conjugate gradients with
// a mass preconditioner. (A block-Jacobi one, the inverse 3x3 diagonal blocks, saved no time on
// the tet_peers bench: the blocks are nearly isotropic.)
#include "dynamics/tet/tet.h"

static tc_real dot_all(const tc_vec3* a, const tc_vec3* c, int n) {
    tc_real s = 0;
    for (int i = 0; i < n; ++i) s += tc_v3_dot(a[i], c[i]);
    return s;
}

// Turns the assembled K into the system matrix in place: off-diagonal blocks scaled by
// stiff = h beta + h^2, diagonal blocks m I + stiff K_ii + C_i.
static void form_system(tc_tet_body* b, tc_real stiff) {
    tc_tet_solver* s = &b->solver;
    for (int k = 0; k < b->edge_count; ++k) s->off[k] = tc_mat3_scale(s->off[k], stiff);
    for (int i = 0; i < b->n; ++i) {
        tc_mat3 d = tc_mat3_add(tc_mat3_scale(s->diag[i], stiff), b->contact_jac[i]);
        for (int a = 0; a < 3; ++a) d.m[a][a] += b->m[i];
        s->diag[i] = d;
    }
}

// Conjugate gradients until |r| <= 1e-8 |rhs|, warm-started from x (the last step's dv: the
// velocity change varies slowly from step to step); fixed vertices (unreferenced ones included,
// which have no mass) keep a zero residual and a zero dv. Returns the iterations.
static int solve(tc_tet_body* b, const tc_vec3* rhs, tc_vec3* x, tc_vec3* work) {
    int n = b->n;
    const tc_real* inv_mass = b->solver.inv_mass;
    tc_vec3 *r = work, *z = work + n, *p = work + 2 * n, *q = work + 3 * n;
    tc_real rr0 = 0;
    for (int i = 0; i < n; ++i) rr0 += b->fixed[i] ? 0 : tc_v3_dot(rhs[i], rhs[i]);
    tc_tet_multiply(b, x, q);
    for (int i = 0; i < n; ++i) {
        r[i] = b->fixed[i] ? tc_v3_zero() : tc_v3_sub(rhs[i], q[i]);
        z[i] = tc_v3_scale(r[i], inv_mass[i]);
        p[i] = z[i];
    }
    tc_real rz = dot_all(r, z, n), rr = dot_all(r, r, n), tolerance = 1e-16 * rr0;
    int it = 0;
    for (; it < 2000 && rr > tolerance && rz > 0; ++it) {
        tc_tet_multiply(b, p, q);
        tc_real pq = dot_all(p, q, n);
        if (!(pq > 0)) break;
        tc_real alpha = rz / pq, rz_new = 0;
        rr = 0;
        for (int i = 0; i < n; ++i) {
            x[i] = tc_v3_madd(x[i], alpha, p[i]);
            r[i] = tc_v3_madd(r[i], -alpha, q[i]);
            z[i] = tc_v3_scale(r[i], inv_mass[i]);
            rr += tc_v3_dot(r[i], r[i]);
            rz_new += tc_v3_dot(r[i], z[i]);
        }
        for (int i = 0; i < n; ++i) p[i] = tc_v3_madd(z[i], rz_new / rz, p[i]);
        rz = rz_new;
    }
    return it;
}

void tc_tet_step_implicit(tc_tet_body* b, tc_vec3 g, tc_real h) {
    int n = b->n;
    tc_vec3 *rhs = b->solver.work, *dv = b->solver.dv, *kv = rhs + n, *work = rhs + 2 * n;
    tc_vec3 user = tc_v3_scale(b->user_force, 1 / b->total_mass);
    for (int i = 0; i < n; ++i) b->f[i] = tc_v3_madd(b->f[i], b->m[i], tc_v3_add(g, user));
    tc_tet_assemble(b);
    tc_tet_multiply(b, b->v, kv); // K v0: damping force -beta K v0 and the h K v0 term
    for (int i = 0; i < n; ++i) rhs[i] = tc_v3_scale(tc_v3_madd(b->f[i], -(b->beta + h), kv[i]), h);
    form_system(b, h * b->beta + h * h);
    b->solver.iterations = solve(b, rhs, dv, work);
    for (int i = 0; i < n; ++i) {
        if (!b->fixed[i]) {
            b->v[i] = tc_v3_add(b->v[i], dv[i]);
            b->x[i] = tc_v3_madd(b->x[i], h, b->v[i]);
        }
        b->f[i] = tc_v3_zero();
    }
    tc_tet_update_surface(b);
}
