// Implicit Euler for tet bodies (ALGORITHMS §6): one Newton step
// (M + (h beta + h^2) K + C) dv = h (f - (beta + h) K v), with K the warped stiffness assembled
// once per step (tet_fem.c) and C the tet-tet contact terms, solved by conjugate gradients with
// a symmetric Gauss-Seidel preconditioner, warm-started from the previous two steps' dv.
// Preconditioners measured on the tet_peers bench (9,720 tets, 68 CG iterations per sub-step with
// the mass one): inverse 3x3 diagonal blocks 81 iterations (no better: the stiffness couples
// neighbours, and the blocks are nearly isotropic); symmetric Gauss-Seidel 30, at about the cost
// of one product per iteration in Eisenstat's form (below); its D-ILU variant 28, not worth its
// factorisation.
#include "dynamics/tet/tet.h"

// Turns the assembled K into the system matrix: diagonal blocks m I + stiff K_ii + C_i and the
// off-diagonal ones stiff K_ij (stiff = h beta + h^2), copied into full rows; rows of fixed
// vertices are zero (their dv stays 0), and so is their inverse diagonal block.
static void form_system(tc_tet_body* b, tc_real stiff) {
    tc_tet_solver* s = &b->solver;
    const tc_mat3 zero = {{{0}}};
    for (int i = 0; i < b->n; ++i) {
        tc_mat3 d = tc_mat3_add(tc_mat3_scale(s->diag[i], stiff), b->contact_jac[i]);
        for (int a = 0; a < 3; ++a) d.m[a][a] += b->m[i];
        s->diag[i] = b->fixed[i] ? zero : d;
        s->inv_diag[i] = b->fixed[i] ? zero : tc_mat3_inverse(d);
        for (int k = b->adj_start[i]; k < b->adj_start[i + 1]; ++k) {
            const tc_mat3* B = &s->off[s->row_edge[k]]; // block (lower vertex, higher vertex)
            tc_mat3 K = s->row_col[k] > i ? *B : tc_mat3_transpose(*B);
            s->rows[k] = b->fixed[i] ? zero : tc_mat3_scale(K, stiff);
        }
    }
}

// y = A d for the system matrix A of form_system.
static void system_multiply(const tc_tet_body* b, const tc_vec3* d, tc_vec3* y) {
    const tc_tet_solver* s = &b->solver;
    for (int i = 0; i < b->n; ++i) {
        tc_vec3 sum = tc_mat3_mul_v3(s->diag[i], d[i]);
        for (int k = b->adj_start[i]; k < b->adj_start[i + 1]; ++k) sum = tc_v3_add(sum, tc_mat3_mul_v3(s->rows[k], d[s->row_col[k]]));
        y[i] = sum;
    }
}

// Conjugate gradients preconditioned by symmetric Gauss-Seidel, P = W D^-1 W^T with W = D + L
// (A = L + D + U, U = L^T), in Eisenstat's form: CG runs on W^-1 A W^-T, whose product costs one
// backward sweep t = W^-T p and one forward sweep W^-1 (p - D t) (A = W + W^T - D), so every
// block is read once per iteration instead of three times (product, then both sweeps of P); the
// solution is updated by x += alpha t. The stopping rule is that of plain CG, |r| <= 1e-8 |rhs|
// for the residual r = W rh of the transformed one rh; r costs a pass over the lower blocks, so
// it is only formed when rh . D rh (free: CG needs it), scaled by the ratio |r|^2 / rh . D rh of
// the last check, says the rule may hold. Starts from warm_start's guess; fixed vertices
// (unreferenced ones included, which have no mass) have zero rows and keep r = 0 and dv = 0.
// Returns the iterations.
typedef struct cg_vectors {
    tc_vec3 *rh, *p, *t, *y, *drh; ///< transformed residual, direction, W^-T p, W^-1 A W^-T p - t, D rh
} cg_vectors;

// rh = W^-1 r (forward sweep).
static void forward_solve(const tc_tet_body* b, const tc_vec3* r, tc_vec3* rh) {
    const tc_tet_solver* s = &b->solver;
    for (int i = 0; i < b->n; ++i) {
        tc_vec3 sum = r[i];
        for (int k = b->adj_start[i]; k < s->row_split[i]; ++k) sum = tc_v3_sub(sum, tc_mat3_mul_v3(s->rows[k], rh[s->row_col[k]]));
        rh[i] = tc_mat3_mul_v3(s->inv_diag[i], sum);
    }
}

// |W rh|^2, the squared norm of the residual r.
static tc_real residual_norm2(const tc_tet_body* b, const tc_vec3* rh) {
    const tc_tet_solver* s = &b->solver;
    tc_real sum = 0;
    for (int i = 0; i < b->n; ++i) {
        tc_vec3 r = tc_mat3_mul_v3(s->diag[i], rh[i]);
        for (int k = b->adj_start[i]; k < s->row_split[i]; ++k) r = tc_v3_add(r, tc_mat3_mul_v3(s->rows[k], rh[s->row_col[k]]));
        sum += tc_v3_dot(r, r);
    }
    return sum;
}

// One pass each way over the block rows per CG iteration, the vector work folded into them: the
// backward sweep first finishes the direction, p = D rh + beta p (beta < 0: p = D rh, the first
// direction), then sets t = W^-T p; the forward sweep sets y = W^-1 (p - D t), so that
// W^-1 A W^-T p = t + y, and returns p . (t + y). Sums run in index order as in separate loops.
static tc_real transformed_multiply(const tc_tet_body* b, cg_vectors* v, tc_real beta) {
    const tc_tet_solver* s = &b->solver;
    for (int i = b->n - 1; i >= 0; --i) {
        v->p[i] = beta < 0 ? v->drh[i] : tc_v3_madd(v->drh[i], beta, v->p[i]);
        tc_vec3 sum = v->p[i];
        for (int k = s->row_split[i]; k < b->adj_start[i + 1]; ++k) sum = tc_v3_sub(sum, tc_mat3_mul_v3(s->rows[k], v->t[s->row_col[k]]));
        v->t[i] = tc_mat3_mul_v3(s->inv_diag[i], sum);
    }
    tc_real pq = 0;
    for (int i = 0; i < b->n; ++i) {
        tc_vec3 sum = tc_v3_sub(v->p[i], tc_mat3_mul_v3(s->diag[i], v->t[i]));
        for (int k = b->adj_start[i]; k < s->row_split[i]; ++k) sum = tc_v3_sub(sum, tc_mat3_mul_v3(s->rows[k], v->y[s->row_col[k]]));
        v->y[i] = tc_mat3_mul_v3(s->inv_diag[i], sum);
        pq += tc_v3_dot(v->p[i], tc_v3_add(v->t[i], v->y[i]));
    }
    return pq;
}

// The first guess: the combination of the last two steps' dv (x and dv_prev; they vary smoothly
// from step to step) nearest the solution in the A-norm, from the 2x2 normal equations (a single
// multiple of x when the two are nearly parallel). On the bench this takes free-flight steps from
// 19 to 2-3 iterations at 4 sub-steps and from 45 to 28 at one. Sets r = rhs - A x and |r|^2,
// moves the old x into dv_prev; ax is scratch.
static void warm_start(tc_tet_body* b, const tc_vec3* rhs, tc_vec3* x, tc_vec3* r, tc_vec3* ax, tc_real* rr) {
    int n = b->n;
    tc_vec3* w = b->solver.dv_prev;
    system_multiply(b, x, r);
    system_multiply(b, w, ax);
    tc_real uau = 0, uaw = 0, waw = 0, ub = 0, wb = 0;
    for (int i = 0; i < n; ++i) {
        if (b->fixed[i]) continue;
        uau += tc_v3_dot(x[i], r[i]), uaw += tc_v3_dot(x[i], ax[i]), waw += tc_v3_dot(w[i], ax[i]);
        ub += tc_v3_dot(x[i], rhs[i]), wb += tc_v3_dot(w[i], rhs[i]);
    }
    tc_real det = uau * waw - uaw * uaw, a = 0, c = 0;
    if (det > 1e-12 * uau * waw) a = (ub * waw - wb * uaw) / det, c = (uau * wb - uaw * ub) / det;
    else if (uau > 0) a = ub / uau;
    *rr = 0;
    for (int i = 0; i < n; ++i) {
        tc_vec3 u = x[i];
        x[i] = tc_v3_madd(tc_v3_scale(u, a), c, w[i]);
        r[i] = b->fixed[i] ? tc_v3_zero() : tc_v3_madd(tc_v3_madd(rhs[i], -a, r[i]), -c, ax[i]);
        *rr += tc_v3_dot(r[i], r[i]);
        w[i] = u;
    }
}

static int solve(tc_tet_body* b, const tc_vec3* rhs, tc_vec3* x, tc_vec3* work) {
    int n = b->n;
    const tc_mat3* diag = b->solver.diag;
    cg_vectors v = {work, work + n, work + 2 * n, work + 3 * n, work + 4 * n};
    tc_vec3* r = v.y; // the initial residual, before y is needed
    tc_real rr0 = 0, rr = 0, rho = 0, beta = -1;
    for (int i = 0; i < n; ++i) rr0 += b->fixed[i] ? 0 : tc_v3_dot(rhs[i], rhs[i]);
    warm_start(b, rhs, x, r, v.t, &rr);
    forward_solve(b, r, v.rh);
    for (int i = 0; i < n; ++i) {
        v.drh[i] = tc_mat3_mul_v3(diag[i], v.rh[i]);
        rho += tc_v3_dot(v.rh[i], v.drh[i]);
    }
    tc_real tolerance = 1e-16 * rr0, ratio = rho > 0 ? rr / rho : 0; // |r|^2 per rh . D rh at the last check
    int it = 0;
    for (; it < 2000 && rr > tolerance && rho > 0; ++it) {
        tc_real pq = transformed_multiply(b, &v, beta);
        if (!(pq > 0)) break;
        tc_real alpha = rho / pq, rho_new = 0;
        for (int i = 0; i < n; ++i) {
            x[i] = tc_v3_madd(x[i], alpha, v.t[i]);
            v.rh[i] = tc_v3_madd(v.rh[i], -alpha, tc_v3_add(v.t[i], v.y[i]));
            v.drh[i] = tc_mat3_mul_v3(diag[i], v.rh[i]);
            rho_new += tc_v3_dot(v.rh[i], v.drh[i]);
        }
        beta = rho_new / rho;
        rho = rho_new;
        if (ratio * rho <= 4 * tolerance) { // may be converged: check the true residual
            rr = residual_norm2(b, v.rh);
            ratio = rho > 0 ? rr / rho : 0;
        }
    }
    return it;
}

void tc_tet_step_implicit(tc_tet_body* b, tc_vec3 g, tc_real h) {
    int n = b->n;
    tc_vec3 *rhs = b->solver.work, *dv = b->solver.dv, *kv = rhs + n, *work = rhs + n; // kv is done with before the solve
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
