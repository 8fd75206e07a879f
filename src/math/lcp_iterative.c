// Iterative solvers for the LCP with a symmetric positive definite matrix (see lcp_iterative.h):
// MPRGP after Dostál & Schöberl, "Minimizing quadratic functions subject to bound constraints",
// Comput. Optim. Appl. 30 (2005); Polonsky & Keer's CG (Wear 231, 1999) and its splitting for
// column-scaled matrices; the dispatch with the Lemke fallback.
// Variables: x = z (the pressures), g = M x + q = w (the gradient of ½xᵀMx + qᵀx). The free
// gradient φ is g on x > 0; the chopped gradient β is min(g, 0) on x = 0; the projected gradient
// φ + β vanishes exactly at the LCP solution.
#include "math/lcp_iterative.h"
#include <limits.h>
#include <math.h>
#include "core/core.h"

TC_VECTOR_CLONES static void sym_matvec(int n, const tc_real* M, const tc_real* x, tc_real* y) {
    for (int i = 0; i < n; ++i) y[i] = 0;
    for (int k = 0; k < n; ++k) {
        tc_real xk = x[k];
        if (xk == 0) continue; // pressures are zero on the separated nodes: skip their columns
        const tc_real* row = M + (size_t)k * n;
        for (int i = 0; i < n; ++i) y[i] += xk * row[i];
    }
}

static tc_real dot(int n, const tc_real* a, const tc_real* b) {
    tc_real s = 0;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

static tc_real free_gradient(tc_real x, tc_real g) { return x > 0 ? g : 0; }
static tc_real chopped_gradient(tc_real x, tc_real g) { return x > 0 ? 0 : fmin(g, 0); }

static tc_real projected_gradient_norm(int n, const tc_real* x, const tc_real* g) {
    tc_real m = 0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(free_gradient(x[i], g[i]) + chopped_gradient(x[i], g[i])));
    return m;
}

// g = M x + q from scratch (the recursive updates drift by round-off).
static void gradient(int n, const tc_real* M, const tc_real* q, const tc_real* x, tc_real* g) {
    sym_matvec(n, M, x, g);
    for (int i = 0; i < n; ++i) g[i] += q[i];
}

// Dostál's test ‖β‖² <= Γ² φ̃ᵀφ (Γ = 1), φ̃ the reduced free gradient min(x/ᾱ, φ): when it fails,
// the bound variables pull harder than the free ones and a proportioning step releases them.
static bool proportional(int n, const tc_real* x, const tc_real* g, tc_real alpha_bar) {
    tc_real beta2 = 0, phi2 = 0;
    for (int i = 0; i < n; ++i) {
        tc_real b = chopped_gradient(x[i], g[i]), f = free_gradient(x[i], g[i]);
        beta2 += b * b;
        if (x[i] > 0) phi2 += fmin(x[i] / alpha_bar, f) * f;
    }
    return beta2 <= phi2;
}

typedef struct mprgp {
    int n;
    const tc_real *M, *q;
    tc_real *x, *g, *p, *Ap;
    tc_real alpha_bar; // fixed step length of the expansion's gradient projection, in (0, 2/‖M‖]
    int matvecs;
} mprgp;

static void set_p_to_free_gradient(mprgp* s) {
    for (int i = 0; i < s->n; ++i) s->p[i] = free_gradient(s->x[i], s->g[i]);
}

// Largest step along −p that keeps x >= 0.
static tc_real feasible_step(const mprgp* s) {
    tc_real a = INFINITY;
    for (int i = 0; i < s->n; ++i)
        if (s->p[i] > 0) a = fmin(a, s->x[i] / s->p[i]);
    return a;
}

// Expansion: go to the bound along −p, then a projected gradient step of length ᾱ on the free
// gradient (this is what adds variables to the active set).
static void expansion_step(mprgp* s, tc_real alpha_f) {
    int n = s->n;
    for (int i = 0; i < n; ++i) {
        s->x[i] = fmax(0, s->x[i] - alpha_f * s->p[i]);
        s->g[i] -= alpha_f * s->Ap[i];
    }
    for (int i = 0; i < n; ++i) s->x[i] = fmax(0, s->x[i] - s->alpha_bar * free_gradient(s->x[i], s->g[i]));
    gradient(n, s->M, s->q, s->x, s->g);
    s->matvecs++;
    set_p_to_free_gradient(s);
}

// One MPRGP step; false when the curvature vanishes (M not positive definite in practice).
static bool mprgp_step(mprgp* s) {
    int n = s->n;
    if (!proportional(n, s->x, s->g, s->alpha_bar)) {
        for (int i = 0; i < n; ++i) s->p[i] = chopped_gradient(s->x[i], s->g[i]);
        sym_matvec(n, s->M, s->p, s->Ap);
        s->matvecs++;
        tc_real dAd = dot(n, s->p, s->Ap);
        if (!(dAd > 0)) return false;
        tc_real a = dot(n, s->g, s->p) / dAd; // > 0: the chopped gradient is a descent direction
        for (int i = 0; i < n; ++i) {
            s->x[i] = fmax(0, s->x[i] - a * s->p[i]);
            s->g[i] -= a * s->Ap[i];
        }
        set_p_to_free_gradient(s);
        return true;
    }
    sym_matvec(n, s->M, s->p, s->Ap);
    s->matvecs++;
    tc_real pAp = dot(n, s->p, s->Ap);
    if (!(pAp > 0)) return false;
    tc_real a_cg = dot(n, s->g, s->p) / pAp, a_f = feasible_step(s);
    if (a_cg > a_f) {
        expansion_step(s, a_f);
        return true;
    }
    for (int i = 0; i < n; ++i) {
        s->x[i] = fmax(0, s->x[i] - a_cg * s->p[i]);
        s->g[i] -= a_cg * s->Ap[i];
    }
    // conjugate the new free gradient against p: γ = φᵀAp / pᵀAp
    tc_real num = 0;
    for (int i = 0; i < n; ++i) num += free_gradient(s->x[i], s->g[i]) * s->Ap[i];
    tc_real gamma = num / pAp;
    for (int i = 0; i < n; ++i) s->p[i] = free_gradient(s->x[i], s->g[i]) - gamma * s->p[i];
    return true;
}

static tc_real residual_of(int n, const tc_real* q, const tc_real* z, const tc_real* w, tc_real m_norm) {
    tc_real zmax = 0, qmax = 0;
    for (int i = 0; i < n; ++i) zmax = fmax(zmax, fabs(z[i])), qmax = fmax(qmax, fabs(q[i]));
    tc_real wscale = fmax(fmax(qmax, m_norm * zmax), 1e-300), zscale = fmax(zmax, 1e-300), worst = 0;
    for (int i = 0; i < n; ++i)
        worst = fmax(worst, fmax(fmax(-z[i] / zscale, -w[i] / wscale), fabs(w[i] * z[i]) / (wscale * zscale)));
    return worst;
}

// ‖M‖∞ (an upper bound of ‖M‖₂ for symmetric M), or a negative value on non-finite entries.
static tc_real inf_norm_checked(int n, const tc_real* M) {
    tc_real best = 0;
    for (int i = 0; i < n; ++i) {
        tc_real s = 0;
        for (int k = 0; k < n; ++k) s += fabs(M[(size_t)i * n + k]);
        if (!isfinite(s)) return -1;
        best = fmax(best, s);
    }
    return best;
}

static bool all_finite(int n, const tc_real* v) {
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i])) return false;
    return true;
}

static bool all_nonnegative(int n, const tc_real* q) {
    for (int i = 0; i < n; ++i)
        if (q[i] < 0) return false;
    return true;
}

// The iterative solvers' common start: argument checks (INVALID_ARGUMENT), the trivial solution
// z = 0 when q >= 0 (OK: nothing presses), else NOT_CONVERGED with *qmax = max|q| to go on.
static tc_result check_or_solve_trivial(int n, const tc_real* M, const tc_real* q, tc_real tol, tc_real* z, tc_real* w,
                                        const tc_real* work, tc_real* qmax) {
    if (n < 1 || !M || !q || !z || !work || !(tol > 0) || !isfinite(tol)) return TC_RESULT_INVALID_ARGUMENT;
    *qmax = 0;
    for (int i = 0; i < n; ++i) {
        if (!isfinite(q[i]) || !isfinite(z[i])) return TC_RESULT_INVALID_ARGUMENT;
        *qmax = fmax(*qmax, fabs(q[i]));
    }
    if (!all_nonnegative(n, q)) return TC_RESULT_NOT_CONVERGED;
    for (int i = 0; i < n; ++i) z[i] = 0;
    if (w) memcpy(w, q, (size_t)n * sizeof(tc_real));
    return TC_RESULT_OK;
}

tc_result tc_lcp_mprgp(int n, const tc_real* M, const tc_real* q, tc_real tol, int max_iterations, tc_real* z,
                       tc_real* w, tc_real* work, tc_lcp_iter_stats* stats) {
    tc_lcp_iter_stats st = {0, 0, 0};
    if (stats) *stats = st;
    tc_real qmax = 0;
    tc_result early = check_or_solve_trivial(n, M, q, tol, z, w, work, &qmax);
    if (early != TC_RESULT_NOT_CONVERGED) return early;
    tc_real m_norm = inf_norm_checked(n, M);
    if (m_norm < 0) return TC_RESULT_INVALID_ARGUMENT;
    if (!(m_norm > 0)) return TC_RESULT_NOT_CONVERGED; // M = 0 is not positive definite
    mprgp s = {n, M, q, z, work, work + n, work + 2 * n, 1.9 / m_norm, 0};
    for (int i = 0; i < n; ++i) s.x[i] = fmax(0, z[i]);
    gradient(n, M, q, s.x, s.g);
    s.matvecs = 1;
    set_p_to_free_gradient(&s);
    tc_real eps = tol * qmax;
    bool converged = false;
    while (st.iterations < max_iterations) {
        if (projected_gradient_norm(n, s.x, s.g) <= eps) {
            gradient(n, M, q, s.x, s.g); // confirm on the exact gradient
            s.matvecs++;
            if (projected_gradient_norm(n, s.x, s.g) <= eps) {
                converged = true;
                break;
            }
            set_p_to_free_gradient(&s);
        }
        ++st.iterations;
        if (!mprgp_step(&s)) break;
    }
    if (!converged) {
        gradient(n, M, q, s.x, s.g);
        s.matvecs++;
        converged = projected_gradient_norm(n, s.x, s.g) <= eps;
    }
    st.matvecs = s.matvecs;
    st.residual = residual_of(n, q, s.x, s.g, m_norm);
    if (w) memcpy(w, s.g, (size_t)n * sizeof(tc_real));
    if (stats) *stats = st;
    return converged ? TC_RESULT_OK : TC_RESULT_NOT_CONVERGED;
}

// ---- Polonsky–Keer conjugate gradients -------------------------------------------------------

typedef struct pk_state {
    int n;
    const tc_real *M, *q;
    tc_real *x, *g, *t, *r, *dx;
    // Single-precision phase: rows of M scaled by 1/max diag (|entries| <= 1 for SPD M), converted
    // on first use; products summed in float (4 lanes on SSE2, half the memory of double rows).
    bool single;
    float *Mf, *acc, *ready;
    tc_real mscale;
    int matvecs;
} pk_state;

static const float* single_row(pk_state* s, int k) {
    float* row = s->Mf + (size_t)k * s->n;
    if (s->ready[k] == 0) {
        const tc_real* src = s->M + (size_t)k * s->n;
        for (int i = 0; i < s->n; ++i) row[i] = (float)(src[i] * s->mscale);
        s->ready[k] = 1;
    }
    return row;
}

// out = M v: exact rows, or in the single phase float rows with v scaled to |v|∞ = 1.
TC_VECTOR_CLONES static void pk_product(pk_state* s, const tc_real* v, tc_real* out) {
    int n = s->n;
    if (!s->single) {
        sym_matvec(n, s->M, v, out);
        return;
    }
    tc_real vmax = 0;
    for (int k = 0; k < n; ++k) vmax = fmax(vmax, fabs(v[k]));
    for (int i = 0; i < n; ++i) s->acc[i] = 0;
    if (vmax > 0) {
        for (int k = 0; k < n; ++k) {
            if (v[k] == 0) continue;
            float vk = (float)(v[k] / vmax);
            const float* row = single_row(s, k);
            for (int i = 0; i < n; ++i) s->acc[i] += vk * row[i];
        }
    }
    tc_real back = vmax / s->mscale;
    for (int i = 0; i < n; ++i) out[i] = s->acc[i] * back;
}

// g += Σ_j dx_j M[j, :] over the nodes whose pressure the projection changed (dx reset to 0).
static void apply_corrections(pk_state* s) {
    int n = s->n;
    for (int j = 0; j < n; ++j) {
        tc_real d = s->dx[j];
        if (d == 0) continue;
        s->dx[j] = 0;
        if (s->single) {
            const float* row = single_row(s, j);
            tc_real f = d / s->mscale;
            for (int i = 0; i < n; ++i) s->g[i] += f * row[i];
            continue;
        }
        const tc_real* row = s->M + (size_t)j * n;
        for (int i = 0; i < n; ++i) s->g[i] += d * row[i];
    }
}

// When no loaded node has a gradient left (a cold start, or a set solved exactly) CG has no
// direction: release the penetrating unloaded nodes by an exact line search along their gradient.
static bool pk_release_step(pk_state* s) {
    int n = s->n;
    for (int i = 0; i < n; ++i) s->t[i] = s->x[i] > 0 ? 0 : fmin(s->g[i], 0);
    pk_product(s, s->t, s->r);
    s->matvecs++;
    tc_real tt = dot(n, s->t, s->t), trt = dot(n, s->t, s->r);
    if (!(trt > 0)) return false;
    tc_real a = tt / trt;
    for (int i = 0; i < n; ++i) {
        s->x[i] -= a * s->t[i];
        s->g[i] -= a * s->r[i];
        s->t[i] = 0;
    }
    return true;
}

// One PK iteration; returns false when the curvature vanishes. *conjugate carries δ.
static bool pk_step(pk_state* s, tc_real* g_old, bool* conjugate) {
    int n = s->n;
    tc_real G = 0;
    for (int i = 0; i < n; ++i)
        if (s->x[i] > 0) G += s->g[i] * s->g[i];
    if (G == 0) {
        *conjugate = false;
        return pk_release_step(s);
    }
    tc_real beta = *conjugate && *g_old > 0 ? G / *g_old : 0;
    for (int i = 0; i < n; ++i) s->t[i] = s->x[i] > 0 ? s->g[i] + beta * s->t[i] : 0;
    *g_old = G;
    pk_product(s, s->t, s->r);
    s->matvecs++;
    tc_real num = 0, den = 0;
    for (int i = 0; i < n; ++i)
        if (s->x[i] > 0) num += s->g[i] * s->t[i], den += s->r[i] * s->t[i];
    if (!(den > 0)) return false;
    tc_real tau = num / den;
    // After a clip the conjugate direction can point uphill (num < 0): a step along it would give
    // entering nodes negative pressure. Restart from the steepest descent (beta = 0, num = G > 0).
    if (!(tau > 0)) {
        *conjugate = false;
        return true;
    }
    bool entered = false;
    for (int i = 0; i < n; ++i) {
        bool loaded = s->x[i] > 0;
        if (loaded) {
            tc_real xn = s->x[i] - tau * s->t[i];
            if (xn < 0) s->dx[i] = -xn, xn = 0; // the update below assumed xn: correct to 0
            s->x[i] = xn;
        }
        s->g[i] -= tau * s->r[i];
        if (!loaded && s->g[i] < 0) { // penetrating without pressure: enters the contact
            tc_real add = -tau * s->g[i];
            s->x[i] = add, s->dx[i] += add, entered = true;
        }
    }
    apply_corrections(s);
    *conjugate = !entered;
    return true;
}

// Largest diagonal entry (>= every |M_ij| of an SPD matrix), or 0 if none is positive.
static tc_real max_diagonal(int n, const tc_real* M) {
    tc_real m = 0;
    for (int i = 0; i < n; ++i) m = fmax(m, M[(size_t)i * n + i]);
    return m;
}

// What the split's rounds tell PK beyond tc_lcp_pk's arguments.
typedef struct pk_options {
    const tc_real* g_start; // M z + q for the warm start z >= 0, known to the caller: no first product
    bool* rows_kept;        // in/out: single_work's float rows of this M were set up by an earlier call
    bool trust_single;      // when the tolerance is above the float phase's floor, end there without
                            // the exact product: w is then the float phase's (about 1e-6 relative)
} pk_options;

// tc_lcp_pk with options (opt may be NULL).
static tc_result pk_solve(int n, const tc_real* M, const tc_real* q, tc_real tol, int max_iterations, tc_real* z,
                          tc_real* w, tc_real* work, float* single_work, const pk_options* opt,
                          tc_lcp_iter_stats* stats) {
    tc_lcp_iter_stats st = {0, 0, 0};
    if (stats) *stats = st;
    tc_real qmax = 0;
    tc_result early = check_or_solve_trivial(n, M, q, tol, z, w, work, &qmax);
    if (early != TC_RESULT_NOT_CONVERGED) return early;
    pk_state s = {n, M, q, z, work, work + n, work + 2 * n, work + 3 * n, false, NULL, NULL, NULL, 0, 0};
    tc_real dmax = max_diagonal(n, M);
    if (single_work && dmax > 0 && isfinite(dmax)) {
        s.single = true;
        s.Mf = single_work, s.acc = single_work + (size_t)n * n, s.ready = s.acc + n;
        s.mscale = 1 / dmax;
        if (!opt || !opt->rows_kept || !*opt->rows_kept)
            for (int i = 0; i < n; ++i) s.ready[i] = 0;
        if (opt && opt->rows_kept) *opt->rows_kept = true;
    }
    for (int i = 0; i < n; ++i) s.x[i] = fmax(0, z[i]), s.t[i] = s.dx[i] = 0;
    if (opt && opt->g_start) {
        memcpy(s.g, opt->g_start, (size_t)n * sizeof(tc_real));
    } else {
        gradient(n, M, q, s.x, s.g);
        s.matvecs = 1;
    }
    // the float phase stops where its round-off (about 1e-6 relative) would stall it
    tc_real eps = tol * qmax, eps_single = fmax(eps, 1e-5 * qmax), g_old = 0;
    bool converged = false, conjugate = false;
    while (st.iterations < max_iterations) {
        if (projected_gradient_norm(n, s.x, s.g) <= (s.single ? eps_single : eps)) {
            if (s.single && eps_single == eps && opt && opt->trust_single) {
                converged = true;
                break;
            }
            gradient(n, M, q, s.x, s.g); // confirm on the exact gradient
            s.matvecs++;
            if (projected_gradient_norm(n, s.x, s.g) <= eps) {
                converged = true;
                break;
            }
            s.single = false; // finish in double precision
            conjugate = false;
        }
        ++st.iterations;
        if (!pk_step(&s, &g_old, &conjugate)) break;
    }
    if (!converged) {
        gradient(n, M, q, s.x, s.g);
        s.matvecs++;
        converged = projected_gradient_norm(n, s.x, s.g) <= eps;
    }
    // no O(n²) scan of M up front: a non-finite entry that was used shows in the result
    if (!all_finite(n, s.x) || !all_finite(n, s.g)) return TC_RESULT_INVALID_ARGUMENT;
    st.matvecs = s.matvecs;
    st.residual = residual_of(n, q, s.x, s.g, 0);
    if (w) memcpy(w, s.g, (size_t)n * sizeof(tc_real));
    if (stats) *stats = st;
    return converged ? TC_RESULT_OK : TC_RESULT_NOT_CONVERGED;
}

tc_result tc_lcp_pk(int n, const tc_real* M, const tc_real* q, tc_real tol, int max_iterations, tc_real* z, tc_real* w,
                    tc_real* work, float* single_work, tc_lcp_iter_stats* stats) {
    return pk_solve(n, M, q, tol, max_iterations, z, w, work, single_work, NULL, stats);
}

enum { SPLIT_BLOCK = 64, SPLIT_MAX_ROUNDS = 50 };

// S = sym(M D⁻¹) and the strict upper triangle of A = skew(M D⁻¹), tile pair by tile pair so the transposed reads stay in
// cache; inv_d = 1/d.
static void split_parts(int n, const tc_real* M, const tc_real* inv_d, tc_real* S, tc_real* A) {
    for (int bi = 0; bi < n; bi += SPLIT_BLOCK)
        for (int bk = 0; bk < n; bk += SPLIT_BLOCK) {
            int iend = bi + SPLIT_BLOCK < n ? bi + SPLIT_BLOCK : n, kend = bk + SPLIT_BLOCK < n ? bk + SPLIT_BLOCK : n;
            for (int i = bi; i < iend; ++i)
                for (int k = bk; k < kend; ++k) {
                    tc_real b_ik = M[(size_t)i * n + k] * inv_d[k], b_ki = M[(size_t)k * n + i] * inv_d[i];
                    S[(size_t)i * n + k] = 0.5 * (b_ik + b_ki);
                    if (k > i) A[(size_t)i * n + k] = 0.5 * (b_ik - b_ki);
                }
        }
}

TC_VECTOR_CLONES static void skew_upper_matvec(int n, const tc_real* A, const tc_real* x, tc_real* y) {
    for (int i = 0; i < n; ++i) y[i] = 0;
    bool any = false;
    for (int k = 0; k < n && !any; ++k) any = x[k] != 0;
    if (!any) return; // a cold start: nothing is loaded
    for (int k = 0; k < n; ++k) {
        const tc_real* restrict row = A + (size_t)k * n;
        tc_real xk = x[k];
        if (xk != 0)
            for (int j = k + 1; j < n; ++j) y[j] -= xk * row[j]; // A_jk = −A_kj
        // Σ_{j>k} A_kj x_j in eight interleaved partial sums (vector registers; one running sum
        // would wait on the adder's latency at every step); the order is fixed
        tc_real s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int j = k + 1;
        for (; j + 7 < n; j += 8)
            for (int l = 0; l < 8; ++l) s[l] += row[j + l] * x[j + l];
        for (; j < n; ++j) s[0] += row[j] * x[j];
        y[k] += ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    }
}

// The exported names are plain wrappers: gcc gives a target_clones function's dispatcher default
// visibility whatever the build's -fvisibility, so the clones stay static (out of the .so's symbols).
void tc_sym_matvec(int n, const tc_real* M, const tc_real* x, tc_real* y) { sym_matvec(n, M, x, y); }
void tc_skew_upper_matvec(int n, const tc_real* A, const tc_real* x, tc_real* y) { skew_upper_matvec(n, A, x, y); }

void tc_lcp_workspace_free(tc_lcp_workspace* ws) {
    tc_array_free(&ws->reals);
    tc_array_free(&ws->singles);
    tc_array_free(&ws->parts);
}

typedef struct split_buffers {
    tc_real *work, *y, *qt, *w, *Ay;
    float* single;
    size_t real_bytes, float_bytes; // non-zero when allocated for this call
} split_buffers;

static bool split_alloc(split_buffers* b, int n, tc_lcp_workspace* ws) {
    size_t reals = 9 * (size_t)n, floats = (size_t)n * (n + 2);
    if (ws) {
        if (floats > INT_MAX || !tc_array_reserve(&ws->reals, (int)reals) || !tc_array_reserve(&ws->singles, (int)floats))
            return false;
        b->work = ws->reals.data, b->single = ws->singles.data;
    } else {
        b->real_bytes = reals * sizeof(tc_real), b->float_bytes = floats * sizeof(float);
        b->work = tc_alloc(b->real_bytes);
        b->single = tc_alloc(b->float_bytes);
        if (!b->work || !b->single) return false;
    }
    b->y = b->work + 5 * n, b->qt = b->y + n, b->w = b->qt + n, b->Ay = b->w + n;
    return true;
}

static void split_free(split_buffers* b) {
    if (b->work && b->real_bytes) tc_free(b->work, b->real_bytes);
    if (b->single && b->float_bytes) tc_free(b->single, b->float_bytes);
}

static bool split_input_valid(int n, const tc_real* d, const tc_real* q, const tc_real* z, tc_real tol) {
    if (n < 1 || !d || !q || !z || !(tol > 0) || !isfinite(tol)) return false;
    for (int i = 0; i < n; ++i)
        if (!isfinite(q[i]) || !isfinite(z[i]) || !(d[i] > 0) || !isfinite(d[i])) return false;
    return true;
}

// w = S y + A y + q from scratch; b->Ay receives A y unless it already holds it (skew_known).
static void split_true_w(int n, const tc_real* S, const tc_real* A, const tc_real* q, bool skew_known,
                         split_buffers* b, tc_lcp_iter_stats* st) {
    if (!skew_known) skew_upper_matvec(n, A, b->y, b->Ay);
    sym_matvec(n, S, b->y, b->w);
    st->matvecs += skew_known ? 1 : 2;
    for (int i = 0; i < n; ++i) b->w[i] += b->Ay[i] + q[i];
}

// The rounds: y ← PK(S, q + A y) until w = S y + A y + q meets the projected-gradient test on z.
// b->w carries w of the current y (PK hands back S y + q̃, the skew product of the new y is
// swapped in). PK ends a round in its float phase when the round's tolerance allows, so b->w is
// then accurate to about 1e-6 relative: enough to steer the rounds; convergence is only accepted
// on a w recomputed exactly. A round costs PK's steps and one product with A.
static tc_result split_rounds(int n, const tc_real* S, const tc_real* A, const tc_real* d, const tc_real* q, tc_real tol,
                              int max_iterations, tc_real* z, split_buffers* b, tc_lcp_iter_stats* st) {
    tc_real qmax = 0;
    for (int i = 0; i < n; ++i) qmax = fmax(qmax, fabs(q[i]));
    for (int i = 0; i < n; ++i) z[i] = fmax(0, z[i]), b->y[i] = d[i] * z[i];
    split_true_w(n, S, A, q, false, b, st);
    bool exact = true, rows_kept = false; // PK's float rows of S serve every round
    tc_real eps = tol * qmax;
    for (int round = 0; round < SPLIT_MAX_ROUNDS; ++round) {
        tc_real outer = projected_gradient_norm(n, z, b->w);
        if (outer <= eps && !exact) { // looks converged: confirm on the exact w (A y is exact already)
            split_true_w(n, S, A, q, true, b, st);
            exact = true;
            outer = projected_gradient_norm(n, z, b->w);
        }
        if (outer <= eps) return TC_RESULT_OK;
        for (int i = 0; i < n; ++i) b->qt[i] = q[i] + b->Ay[i];
        // inexact rounds: no need to solve far below the current error of the true LCP
        tc_real inner_tol = qmax > 0 ? fmax(tol, 0.01 * outer / qmax) : tol;
        tc_lcp_iter_stats inner;
        // b->w = S y + q̃ here: PK's start gradient, no product needed
        pk_options opt = {b->w, &rows_kept, true};
        tc_result r = pk_solve(n, S, b->qt, inner_tol, max_iterations, b->y, b->w, b->work, b->single, &opt, &inner);
        st->iterations += inner.iterations, st->matvecs += inner.matvecs + 1;
        if (r != TC_RESULT_OK) return r == TC_RESULT_INVALID_ARGUMENT ? r : TC_RESULT_NOT_CONVERGED;
        for (int i = 0; i < n; ++i) z[i] = b->y[i] / d[i], b->w[i] -= b->Ay[i];
        skew_upper_matvec(n, A, b->y, b->Ay);
        for (int i = 0; i < n; ++i) b->w[i] += b->Ay[i];
        exact = false;
    }
    return TC_RESULT_NOT_CONVERGED;
}

tc_result tc_lcp_pk_split_parts(int n, const tc_real* S, const tc_real* A, const tc_real* d, const tc_real* q, tc_real tol,
                                int max_iterations, tc_real* z, tc_real* w, tc_lcp_workspace* ws,
                                tc_lcp_iter_stats* stats) {
    tc_lcp_iter_stats st = {0, 0, 0};
    if (stats) *stats = st;
    if (!S || !A || !split_input_valid(n, d, q, z, tol)) return TC_RESULT_INVALID_ARGUMENT;
    split_buffers b = {0};
    tc_result result = TC_RESULT_OUT_OF_MEMORY;
    if (split_alloc(&b, n, ws)) result = split_rounds(n, S, A, d, q, tol, max_iterations, z, &b, &st);
    if (result == TC_RESULT_OK && !all_finite(n, b.w)) result = TC_RESULT_INVALID_ARGUMENT;
    if (result == TC_RESULT_OK) {
        st.residual = residual_of(n, q, z, b.w, 0);
        if (w) memcpy(w, b.w, (size_t)n * sizeof(tc_real));
    }
    split_free(&b);
    if (stats) *stats = st;
    return result;
}

tc_result tc_lcp_pk_split(int n, const tc_real* M, const tc_real* d, const tc_real* q, tc_real tol, int max_iterations,
                          tc_real* z, tc_real* w, tc_lcp_workspace* ws, tc_lcp_iter_stats* stats) {
    if (stats) *stats = (tc_lcp_iter_stats){0, 0, 0};
    if (!M || !split_input_valid(n, d, q, z, tol)) return TC_RESULT_INVALID_ARGUMENT;
    size_t reals = 2 * (size_t)n * n + (size_t)n, bytes = 0;
    tc_real* S = NULL;
    if (ws) {
        if (reals > INT_MAX || !tc_array_reserve(&ws->parts, (int)reals)) return TC_RESULT_OUT_OF_MEMORY;
        S = ws->parts.data;
    } else {
        bytes = reals * sizeof(tc_real);
        S = tc_alloc(bytes);
        if (!S) return TC_RESULT_OUT_OF_MEMORY;
    }
    tc_real *A = S + (size_t)n * n, *inv_d = A + (size_t)n * n;
    for (int i = 0; i < n; ++i) inv_d[i] = 1 / d[i];
    split_parts(n, M, inv_d, S, A);
    tc_result result = tc_lcp_pk_split_parts(n, S, A, d, q, tol, max_iterations, z, w, ws, stats);
    if (bytes) tc_free(S, bytes);
    return result;
}

tc_result tc_lcp_solve(tc_lcp_method method, int n, const tc_real* M, bool symmetric, const tc_real* column_scale,
                       const tc_real* q, tc_real tol, tc_real* z, tc_real* w, tc_lcp_workspace* ws,
                       tc_lcp_solve_stats* stats) {
    tc_lcp_solve_stats st = {0, 0, 0, false, 0};
    bool wants_iterative = method != TC_LCP_LEMKE && (method != TC_LCP_AUTO || n > TC_LCP_LEMKE_MAX_N);
    bool iterative = symmetric && wants_iterative;
    tc_result result = TC_RESULT_OK;
    if (!symmetric && column_scale && wants_iterative && method != TC_LCP_MPRGP) {
        tc_lcp_iter_stats it;
        result = tc_lcp_pk_split(n, M, column_scale, q, tol, 50 + n / 2, z, w, ws, &it);
        st.iterations = it.iterations, st.matvecs = it.matvecs, st.residual = it.residual;
        // INVALID_ARGUMENT here may be a zero column scale the split cannot divide by: Lemke
        // takes the merged matrix as it is (and reports truly invalid input itself)
        st.fell_back = result == TC_RESULT_NOT_CONVERGED || result == TC_RESULT_INVALID_ARGUMENT;
        if (!st.fell_back) {
            if (stats) *stats = st;
            return result;
        }
    }
    if (iterative) {
        // the workspace's reals when there is one (no allocation per solve); the split above is done with them
        size_t bytes = 5 * (size_t)(n > 0 ? n : 1) * sizeof(tc_real);
        bool own = !ws || !tc_array_reserve(&ws->reals, 5 * (n > 0 ? n : 1));
        tc_real* work = own ? tc_alloc(bytes) : ws->reals.data;
        if (!work) {
            if (stats) *stats = st;
            return TC_RESULT_OUT_OF_MEMORY;
        }
        float* single_work = NULL; // PK's single-precision rows need n(n + 2) floats of ws
        if (ws && method != TC_LCP_MPRGP && (size_t)n * (n + 2) <= INT_MAX &&
            tc_array_reserve(&ws->singles, n * (n + 2)))
            single_work = ws->singles.data;
        tc_lcp_iter_stats it;
        int cap = 50 + n / 2;
        result = method == TC_LCP_MPRGP ? tc_lcp_mprgp(n, M, q, tol, cap, z, w, work, &it)
                                        : tc_lcp_pk(n, M, q, tol, cap, z, w, work, single_work, &it);
        if (own) tc_free(work, bytes);
        st.iterations = it.iterations, st.matvecs = it.matvecs, st.residual = it.residual;
        st.fell_back = result == TC_RESULT_NOT_CONVERGED;
        if (!st.fell_back) {
            if (stats) *stats = st;
            return result;
        }
    }
    tc_lcp_stats ls;
    result = tc_lcp_lemke(n, M, q, z, w, &ls);
    st.pivots = ls.pivots, st.residual = ls.residual;
    if (stats) *stats = st;
    return result;
}
