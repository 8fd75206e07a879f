// Implicit Euler for tet bodies (ALGORITHMS §6): one Newton step
// (M + (h beta + h^2) K + C) dv = h (f - (beta + h) K v), with K the warped stiffness assembled
// once per step (tet_fem.c) and C the tet-tet contact terms, solved by conjugate gradients with
// a block SSOR preconditioner, warm-started from the previous three steps' dv.
// Preconditioners measured on the tet_peers bench (9,720 tets, 68 CG iterations per sub-step with
// the mass one, before the warm start from two steps): inverse 3x3 diagonal blocks 81 iterations
// (no better: the stiffness couples neighbours, and the blocks are nearly isotropic); symmetric
// Gauss-Seidel 30, at about the cost of one product per iteration in Eisenstat's form (below);
// its D-ILU variant 28, not worth its factorisation. With the warm start from two steps: SSOR
// (omega = 1.3) 14.7 against Gauss-Seidel's 18.5.
#include "dynamics/tet/tet.h"

// Turns the assembled diagonal blocks into the system's, m I + stiff K_ii + C_i (stiff = h beta +
// h^2), zero for fixed vertices (their dv stays 0), after setting kv = K_ii v0 (the diagonal part
// of K v0; products_and_scaling adds the rest). The off-diagonal blocks, stiff K_ij, are read
// from the edge blocks until products_and_scaling scales them in place.
static void form_system(tc_tet_body* b, tc_real stiff, const tc_vec3* v0, tc_vec3* kv) {
    tc_tet_solver* s = &b->solver;
    const tc_mat3 zero = {{{0}}};
    for (int i = 0; i < b->n; ++i) {
        kv[i] = tc_mat3_mul_v3(s->diag[i], v0[i]);
        tc_mat3 d = tc_mat3_add(tc_mat3_scale(s->diag[i], stiff), b->contact_jac[i]);
        for (int a = 0; a < 3; ++a) d.m[a][a] += b->m[i];
        s->diag[i] = b->fixed[i] ? zero : d;
    }
}

// G = L^-1 for the Cholesky factor L L^T = D of an SPD 3x3 block (lower triangular); sets *l to
// L. A block that is not positive definite (a vertex without mass) gets G = L = 0: its row drops
// out of the solve like a fixed vertex's.
static tc_mat3 inverse_cholesky(tc_mat3 d, tc_mat3* l) {
    const tc_mat3 zero = {{{0}}};
    tc_real l00 = d.m[0][0] > 0 ? sqrt(d.m[0][0]) : 0;
    tc_real l10 = l00 > 0 ? d.m[1][0] / l00 : 0, l20 = l00 > 0 ? d.m[2][0] / l00 : 0;
    tc_real p11 = d.m[1][1] - l10 * l10, l11 = p11 > 0 ? sqrt(p11) : 0;
    tc_real l21 = l11 > 0 ? (d.m[2][1] - l20 * l10) / l11 : 0;
    tc_real p22 = d.m[2][2] - l20 * l20 - l21 * l21, l22 = p22 > 0 ? sqrt(p22) : 0;
    if (!(l00 > 0 && l11 > 0 && l22 > 0)) {
        *l = zero;
        return zero;
    }
    *l = (tc_mat3){{{l00, 0, 0}, {l10, l11, 0}, {l20, l21, l22}}};
    tc_real g00 = 1 / l00, g11 = 1 / l11, g22 = 1 / l22, g10 = -l10 * g00 * g11, g21 = -l21 * g11 * g22;
    tc_real g20 = -(l20 * g00 + l21 * g10) * g22;
    return (tc_mat3){{{g00, 0, 0}, {g10, g11, 0}, {g20, g21, g22}}};
}

// G_u M G_v^T for lower triangular G_u, G_v (12 products less than two full 3x3 products).
static tc_mat3 scale_block(const tc_mat3* gu, tc_mat3 m, const tc_mat3* gv) {
    tc_mat3 a, out;
    for (int c = 0; c < 3; ++c) {
        a.m[0][c] = gu->m[0][0] * m.m[0][c];
        a.m[1][c] = gu->m[1][0] * m.m[0][c] + gu->m[1][1] * m.m[1][c];
        a.m[2][c] = gu->m[2][0] * m.m[0][c] + gu->m[2][1] * m.m[1][c] + gu->m[2][2] * m.m[2][c];
    }
    for (int r = 0; r < 3; ++r) {
        out.m[r][0] = a.m[r][0] * gv->m[0][0];
        out.m[r][1] = a.m[r][0] * gv->m[1][0] + a.m[r][1] * gv->m[1][1];
        out.m[r][2] = a.m[r][0] * gv->m[2][0] + a.m[r][1] * gv->m[2][1] + a.m[r][2] * gv->m[2][2];
    }
    return out;
}

// B^T v for a stored block B: the products and sums of tc_mat3_mul_v3(tc_mat3_transpose(B), v),
// in the same order, without the copy.
static inline tc_vec3 mul_transposed(const tc_mat3* B, tc_vec3 v) {
    return tc_v3(B->m[0][0] * v.x + B->m[1][0] * v.y + B->m[2][0] * v.z, B->m[0][1] * v.x + B->m[1][1] * v.y + B->m[2][1] * v.z,
                 B->m[0][2] * v.x + B->m[1][2] * v.y + B->m[2][2] * v.z);
}

// One pass over the blocks before CG. It forms the three products a step needs, ax = A x and
// aw = A w for the system matrix A of form_system (the warm start's two guesses) and kv += the
// off-diagonal part of K v0 (the damping force and the h K v0 term), rows of fixed vertices giving
// 0; and it scales the system symmetrically by the inverse Cholesky factors G_i of its diagonal
// blocks, A' = G A G^T (unit diagonal blocks: the Gauss-Seidel sweeps below then need no diagonal
// block, which saves four of the eighteen block products per row and iteration; the
// preconditioner is the same: G^-1 (I + L') (I + U') G^-T = (D + L) D^-1 (D + U)).
// Each edge block (i, j), i < j, is read once, in row i: it adds B x_j to row i and B^T x_i to row
// j, then is scaled in place (K is not needed after the right-hand side). Rows are visited in
// ascending order, so every row still sums its diagonal term, its lower columns ascending, then its
// upper ones ascending: the sums of a row-by-row product, bit for bit. The sweeps read the scaled
// block in s->off as (i, j) in row i and transposed in row j: one copy of the matrix. Afterwards
// s->inv_diag holds G and s->diag the factors L = G^-1 (the true residual needs them).
typedef struct step_products {
    tc_vec3 *ax, *aw, *az, *kv;
} step_products;

static void products_and_scaling(tc_tet_body* b, tc_real stiff, const tc_vec3* x, const tc_vec3* w, const tc_vec3* z, const tc_vec3* v0,
                                 step_products out) {
    tc_tet_solver* s = &b->solver;
    for (int i = 0; i < b->n; ++i) {
        out.ax[i] = tc_mat3_mul_v3(s->diag[i], x[i]), out.aw[i] = tc_mat3_mul_v3(s->diag[i], w[i]); // out.kv[i] holds K_ii v0
        out.az[i] = tc_mat3_mul_v3(s->diag[i], z[i]);
        s->inv_diag[i] = inverse_cholesky(s->diag[i], &s->diag[i]);
    }
    for (int i = 0; i < b->n; ++i)
        for (int k = s->row_split[i]; k < b->adj_start[i + 1]; ++k) {
            int j = s->row_col[k];
            tc_mat3* K = &s->off[s->row_edge[k]];
            tc_mat3 B = tc_mat3_scale(*K, stiff);
            out.ax[i] = tc_v3_add(out.ax[i], tc_mat3_mul_v3(B, x[j]));
            out.aw[i] = tc_v3_add(out.aw[i], tc_mat3_mul_v3(B, w[j]));
            out.az[i] = tc_v3_add(out.az[i], tc_mat3_mul_v3(B, z[j]));
            out.kv[i] = tc_v3_add(out.kv[i], tc_mat3_mul_v3(*K, v0[j]));
            out.ax[j] = tc_v3_add(out.ax[j], mul_transposed(&B, x[i]));
            out.aw[j] = tc_v3_add(out.aw[j], mul_transposed(&B, w[i]));
            out.az[j] = tc_v3_add(out.az[j], mul_transposed(&B, z[i]));
            out.kv[j] = tc_v3_add(out.kv[j], mul_transposed(K, v0[i]));
            *K = scale_block(&s->inv_diag[i], B, &s->inv_diag[j]);
        }
    for (int i = 0; i < b->n; ++i)
        if (b->fixed[i]) out.ax[i] = out.aw[i] = out.az[i] = out.kv[i] = tc_v3_zero();
}

// Conjugate gradients on the scaled system A' x' = G b (x = G^T x'), preconditioned by SSOR,
// P = W W^T (up to a constant) with W = I / omega + L' (A' = L' + I + U', U' = L'^T; omega = 1 is
// symmetric Gauss-Seidel), in Eisenstat's form: CG runs on W^-1 A' W^-T, whose product costs one
// backward sweep t = W^-T p and one forward sweep W^-1 (p + (1 - 2 / omega) t) (A' = W + W^T +
// (1 - 2 / omega) I), so every block is read once per iteration instead of three times (product,
// then both sweeps of P); x' is updated by alpha t. The stopping rule is that of
// plain CG on the unscaled system, |r| <= tol |rhs| (tol = b->cg_tolerance, 1e-8 by default) for the residual r = G^-1 W rh of the
// transformed one rh; it costs a pass over the lower blocks, so it is only formed when rh . rh
// (free: CG needs it), scaled by the ratio |r|^2 / rh . rh of the last check, says the rule may
// hold. Starts from warm_start's guess; fixed vertices (unreferenced ones included, which have
// no mass) have zero rows and G and keep r = 0 and dv = 0. Returns the iterations.
typedef struct cg_vectors {
    tc_vec3 *rh, *p, *t, *y, *xs; ///< transformed residual, direction, W^-T p, W^-1 A' W^-T p - t, the change of x'
} cg_vectors;

// The SSOR relaxation factor. Measured, mean CG iterations per sub-step: tet_peers bench 18.5
// (omega = 1, symmetric Gauss-Seidel), 15.7 (1.2), 14.7 (1.3), 13.5 (1.5), 13.3 (1.6), 15.3
// (1.7); tet scene tests 13.9 (1), 13.1 (1.2), 13.4 (1.3), 14.0 (1.4), 15.2 (1.5). 1.3 helps both.
static const tc_real k_omega = 1.3;

// rh = W^-1 G r (forward sweep).
static void forward_solve(const tc_tet_body* b, const tc_vec3* r, tc_vec3* rh) {
    const tc_tet_solver* s = &b->solver;
    for (int i = 0; i < b->n; ++i) {
        tc_vec3 sum = tc_mat3_mul_v3(s->inv_diag[i], r[i]);
        for (int k = b->adj_start[i]; k < s->row_split[i]; ++k) sum = tc_v3_sub(sum, mul_transposed(&s->off[s->row_edge[k]], rh[s->row_col[k]]));
        rh[i] = tc_v3_scale(sum, k_omega);
    }
}

// |G^-1 W rh|^2, the squared norm of the residual r of the unscaled system.
static tc_real residual_norm2(const tc_tet_body* b, const tc_vec3* rh) {
    const tc_tet_solver* s = &b->solver;
    tc_real sum = 0;
    for (int i = 0; i < b->n; ++i) {
        tc_vec3 r = tc_v3_scale(rh[i], 1 / k_omega);
        for (int k = b->adj_start[i]; k < s->row_split[i]; ++k) r = tc_v3_add(r, mul_transposed(&s->off[s->row_edge[k]], rh[s->row_col[k]]));
        r = tc_mat3_mul_v3(s->diag[i], r);
        sum += tc_v3_dot(r, r);
    }
    return sum;
}

// One pass each way over the block rows per CG iteration, the vector work folded into them: the
// backward sweep first finishes the direction, p = rh + beta p (beta < 0: p = rh, the first
// direction), then sets t = W^-T p, summing a row's upper columns descending so that t[i + 1],
// written one row before, enters last (a shorter chain of dependent rows: 2-4 % faster on the
// bench; the forward sweep's lower columns ascend, so y[i - 1] is already last there); the forward
// sweep sets y = W^-1 (p + (1 - 2 / omega) t), so that W^-1 A' W^-T p = t + y, and returns
// p . (t + y), summed in index order.
static tc_real transformed_multiply(const tc_tet_body* b, cg_vectors* v, tc_real beta) {
    const tc_tet_solver* s = &b->solver;
    for (int i = b->n - 1; i >= 0; --i) {
        v->p[i] = beta < 0 ? v->rh[i] : tc_v3_madd(v->rh[i], beta, v->p[i]);
        tc_vec3 sum = v->p[i];
        for (int k = b->adj_start[i + 1] - 1; k >= s->row_split[i]; --k) sum = tc_v3_sub(sum, tc_mat3_mul_v3(s->off[s->row_edge[k]], v->t[s->row_col[k]]));
        v->t[i] = tc_v3_scale(sum, k_omega);
    }
    tc_real pq = 0;
    for (int i = 0; i < b->n; ++i) {
        tc_vec3 sum = tc_v3_madd(v->p[i], 1 - 2 / k_omega, v->t[i]);
        for (int k = b->adj_start[i]; k < s->row_split[i]; ++k) sum = tc_v3_sub(sum, mul_transposed(&s->off[s->row_edge[k]], v->y[s->row_col[k]]));
        v->y[i] = tc_v3_scale(sum, k_omega);
        pq += tc_v3_dot(v->p[i], tc_v3_add(v->t[i], v->y[i]));
    }
    return pq;
}

// The first guess: the combination of the last three steps' dv (u[0] = the last, u[1], u[2];
// they vary smoothly from step to step, so the span holds their quadratic extrapolation) nearest
// the solution in the A-norm, from the 3x3 normal equations G c = u . rhs, G_kl = u_k . A u_l,
// solved by an LDL^T factorisation that drops a vector whose pivot is below 1e-12 of its G_kk
// (nearly in the span of the earlier ones; with two vectors this is the test det > 1e-12 uau waw).
// Takes au[k] = A u[k] (products_and_scaling; au[0] may be r), sets r = rhs - A x for the new x
// and *rr = |r|^2, and writes x into u[2]'s buffer: the caller rotates the three buffers.
enum { k_warm = 3 };

// c solves G c = beta over the kept vectors (keep[k]); dropped ones get c[k] = 0.
static void warm_coefficients(tc_real G[k_warm][k_warm], const tc_real beta[k_warm], tc_real c[k_warm]) {
    tc_real L[k_warm][k_warm] = {{0}}, d[k_warm] = {0}, y[k_warm] = {0};
    bool keep[k_warm];
    for (int k = 0; k < k_warm; ++k) {
        tc_real pivot = G[k][k];
        for (int j = 0; j < k; ++j) {
            if (!keep[j]) continue;
            tc_real ljd = G[k][j];
            for (int m = 0; m < j; ++m)
                if (keep[m]) ljd -= L[k][m] * L[j][m] * d[m];
            L[k][j] = ljd / d[j];
            pivot -= L[k][j] * ljd;
        }
        keep[k] = G[k][k] > 0 && pivot > 1e-12 * G[k][k];
        d[k] = keep[k] ? pivot : 0;
    }
    for (int k = 0; k < k_warm; ++k) {
        y[k] = keep[k] ? beta[k] : 0;
        for (int j = 0; j < k; ++j) y[k] -= keep[k] && keep[j] ? L[k][j] * y[j] : 0;
    }
    for (int k = k_warm - 1; k >= 0; --k) {
        c[k] = keep[k] ? y[k] / d[k] : 0;
        for (int j = k + 1; j < k_warm; ++j) c[k] -= keep[k] && keep[j] ? L[j][k] * c[j] : 0;
    }
}

static void warm_start(const tc_tet_body* b, const tc_vec3* rhs, tc_vec3* const u[k_warm], tc_vec3* r, tc_vec3* const au[k_warm], tc_real* rr) {
    int n = b->n;
    tc_real G[k_warm][k_warm] = {{0}}, beta[k_warm] = {0}, c[k_warm];
    for (int i = 0; i < n; ++i) {
        if (b->fixed[i]) continue;
        for (int k = 0; k < k_warm; ++k) {
            beta[k] += tc_v3_dot(u[k][i], rhs[i]);
            for (int l = 0; l <= k; ++l) G[k][l] += tc_v3_dot(u[k][i], au[l][i]);
        }
    }
    for (int k = 0; k < k_warm; ++k)
        for (int l = k + 1; l < k_warm; ++l) G[k][l] = G[l][k];
    warm_coefficients(G, beta, c);
    *rr = 0;
    for (int i = 0; i < n; ++i) {
        tc_vec3 x = tc_v3_scale(u[0][i], c[0]), ax = tc_v3_scale(au[0][i], c[0]);
        for (int k = 1; k < k_warm; ++k) x = tc_v3_madd(x, c[k], u[k][i]), ax = tc_v3_madd(ax, c[k], au[k][i]);
        u[k_warm - 1][i] = x;
        r[i] = b->fixed[i] ? tc_v3_zero() : tc_v3_sub(rhs[i], ax);
        *rr += tc_v3_dot(r[i], r[i]);
    }
}

// CG from the warm start; work holds 5 n vectors, of which y (work + 3 n), t (work + 2 n) and xs
// (work + 4 n) come in holding A dv, A dv_prev and A dv_prev2 (products_and_scaling, which also
// scaled the system). Leaves the solution in b->solver.dv after rotating the three buffers.
static int solve(tc_tet_body* b, const tc_vec3* rhs, tc_vec3* work) {
    int n = b->n;
    tc_tet_solver* s = &b->solver;
    cg_vectors v = {work, work + n, work + 2 * n, work + 3 * n, work + 4 * n};
    tc_vec3* r = v.y; // the initial residual, before y is needed
    tc_real rr0 = 0, rr = 0, rho = 0, beta = -1;
    for (int i = 0; i < n; ++i) rr0 += b->fixed[i] ? 0 : tc_v3_dot(rhs[i], rhs[i]);
    tc_vec3* const u[k_warm] = {s->dv, s->dv_prev, s->dv_prev2};
    tc_vec3* const au[k_warm] = {v.y, v.t, v.xs};
    warm_start(b, rhs, u, r, au, &rr);
    s->dv_prev2 = u[1], s->dv_prev = u[0], s->dv = u[2]; // u[2] now holds the first guess
    tc_vec3* x = s->dv;
    forward_solve(b, r, v.rh);
    for (int i = 0; i < n; ++i) {
        rho += tc_v3_dot(v.rh[i], v.rh[i]);
        v.xs[i] = tc_v3_zero();
    }
    tc_real tolerance = b->cg_tolerance * b->cg_tolerance * rr0, ratio = rho > 0 ? rr / rho : 0; // |r|^2 per rh . rh at the last check
    int it = 0;
    for (; it < 2000 && rr > tolerance && rho > 0; ++it) {
        tc_real pq = transformed_multiply(b, &v, beta);
        if (!(pq > 0)) break;
        tc_real alpha = rho / pq, rho_new = 0;
        for (int i = 0; i < n; ++i) {
            v.xs[i] = tc_v3_madd(v.xs[i], alpha, v.t[i]);
            v.rh[i] = tc_v3_madd(v.rh[i], -alpha, tc_v3_add(v.t[i], v.y[i]));
            rho_new += tc_v3_dot(v.rh[i], v.rh[i]);
        }
        beta = rho_new / rho;
        rho = rho_new;
        if (ratio * rho <= 4 * tolerance) { // may be converged: check the true residual
            rr = residual_norm2(b, v.rh);
            ratio = rho > 0 ? rr / rho : 0;
        }
    }
    for (int i = 0; i < n; ++i) x[i] = tc_v3_add(x[i], tc_mat3_mul_v3(tc_mat3_transpose(b->solver.inv_diag[i]), v.xs[i]));
    return it;
}

void tc_tet_step_implicit(tc_tet_body* b, tc_vec3 g, tc_real h) {
    int n = b->n;
    tc_vec3 *rhs = b->solver.work, *work = rhs + n;
    step_products products = {work + 3 * n, work + 2 * n, work + 4 * n, work + n}; // the solve's y, t, xs and p (see solve)
    tc_vec3 user = tc_v3_scale(b->user_force, 1 / b->total_mass);
    for (int i = 0; i < n; ++i) b->f[i] = tc_v3_madd(b->f[i], b->m[i], tc_v3_add(g, user));
    tc_tet_assemble(b);
    tc_real stiff = h * b->beta + h * h;
    form_system(b, stiff, b->v, products.kv);
    products_and_scaling(b, stiff, b->solver.dv, b->solver.dv_prev, b->solver.dv_prev2, b->v, products);
    for (int i = 0; i < n; ++i) rhs[i] = tc_v3_scale(tc_v3_madd(b->f[i], -(b->beta + h), products.kv[i]), h); // damping -beta K v0, h K v0
    b->solver.iterations = solve(b, rhs, work);
    const tc_vec3* dv = b->solver.dv;
    for (int i = 0; i < n; ++i) {
        if (!b->fixed[i]) {
            b->v[i] = tc_v3_add(b->v[i], dv[i]);
            b->x[i] = tc_v3_madd(b->x[i], h, b->v[i]);
        }
        b->f[i] = tc_v3_zero();
    }
    tc_tet_update_surface(b);
}
