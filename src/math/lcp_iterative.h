// An iterative solver for the LCP with a symmetric positive definite matrix: w = M z + q >= 0,
// z >= 0, w·z = 0 is the bound-constrained convex QP min ½ zᵀMz + qᵀz, z >= 0, solved by MPRGP
// (modified proportioning with reduced gradient projections, Dostál & Schöberl 2005): conjugate
// gradients on the free set, expansion steps along the projected gradient when a step would leave
// the feasible set, proportioning steps that release bound variables whose gradient pulls inwards.
// tc_lcp_lemke, tc_lcp_pk or tc_lcp_mprgp are picked by tc_lcp_solve, which falls back to Lemke when
// an iterative method does not converge.
#ifndef TC_LCP_ITERATIVE_H
#define TC_LCP_ITERATIVE_H
#include "core/core.h"
#include "math/lcp_lemke.h"

/// Statistics of an iterative solve.
typedef struct tc_lcp_iter_stats {
    int iterations;   ///< CG, expansion and proportioning steps
    int matvecs;      ///< products with M (each O(n · nonzeros of the vector))
    tc_real residual; ///< max over i of −z_i/|z|∞, −w_i/s, |w_i z_i|/(s |z|∞), s = max(|q|∞, |M|∞|z|∞)
} tc_lcp_iter_stats;

/// MPRGP for symmetric positive definite M (n×n, row-major; symmetry is not checked). Stops when
/// the projected gradient (w on z > 0, min(w, 0) on z = 0) is at most tol·|q|∞ (tol relative,
/// > 0), re-measured on w = Mz + q recomputed from scratch; at most max_iterations steps.
/// z holds the warm start on entry (negatives are clipped) and the solution on exit; w (may be
/// NULL) receives M z + q. work holds 4n reals. stats may be NULL.
/// Returns TC_RESULT_OK, TC_RESULT_NOT_CONVERGED (z holds the last iterate),
/// TC_RESULT_INVALID_ARGUMENT for n < 1, tol <= 0 or non-finite input.
tc_result tc_lcp_mprgp(int n, const tc_real* M, const tc_real* q, tc_real tol, int max_iterations, tc_real* z,
                       tc_real* w, tc_real* work, tc_lcp_iter_stats* stats);

/// The Polonsky–Keer conjugate-gradient method of boundary-element contact mechanics (Wear 231,
/// 1999), displacement-controlled: CG on the loaded set, pressures clipped at 0, penetrating
/// unloaded nodes enter with pressure −τ w_i and restart the conjugation. One product with M per
/// step plus one row per changed node. Same contract as tc_lcp_mprgp; work holds 5n reals.
/// single_work (may be NULL) holds n(n + 2) floats: then the steps first use single-precision copies
/// of the rows they touch (made on first use; about 2.5× faster products) until the projected
/// gradient is below max(tol, 1e−5)·|q|∞, and finish in double precision; the result is confirmed
/// on the exact w = Mz + q either way.
tc_result tc_lcp_pk(int n, const tc_real* M, const tc_real* q, tc_real tol, int max_iterations, tc_real* z, tc_real* w,
                    tc_real* work, float* single_work, tc_lcp_iter_stats* stats);

/// Reusable scratch of the iterative solvers: grows to the largest problem seen, so repeated solves
/// (every sub-step of a contact) do not allocate. Zero-initialise; release with tc_lcp_workspace_free.
typedef struct tc_lcp_workspace {
    TC_ARRAY(tc_real) reals;
    TC_ARRAY(float) singles;
    TC_ARRAY(tc_real) parts; ///< tc_lcp_pk_split's S and A (2n² + n reals)
} tc_lcp_workspace;

void tc_lcp_workspace_free(tc_lcp_workspace* ws);

/// Polonsky–Keer for a non-symmetric M = B·diag(d) whose B is nearly symmetric (d > 0 a column
/// scale, e.g. the kernel areas of a response matrix whose far field is area/r), given as the two
/// parts of B: S = ½(B + Bᵀ) (symmetric positive definite) and A = ½(B − Bᵀ) (skew), both n×n
/// row-major, of A only the strict upper triangle is read (tc_quasi_matrix_boussinesq_split
/// builds them directly). With y = d⊙z the LCP reads
/// w = (S + A) y + q; rounds of warm-started PK solve y ← LCP(S, q + A y) until the true LCP holds
/// (projected gradient of z and w at most tol·|q|∞), at most 50 rounds of at most max_iterations
/// PK steps, each solved to a hundredth of the current error of the true LCP (not below tol). One
/// round costs PK's steps and one product with A. Needs 9n reals and n(n + 2) floats: from ws
/// (may be NULL: allocated for the call). z: warm start on entry (negatives clipped), the solution
/// (or last iterate) on exit; w (may be NULL) receives (S + A) diag(d) z + q. Returns
/// TC_RESULT_OK; NOT_CONVERGED when the splitting does not settle (B far from symmetric, S not
/// positive definite); INVALID_ARGUMENT (n < 1, tol <= 0, non-finite input, d <= 0); OUT_OF_MEMORY.
tc_result tc_lcp_pk_split_parts(int n, const tc_real* S, const tc_real* A, const tc_real* d, const tc_real* q, tc_real tol,
                                int max_iterations, tc_real* z, tc_real* w, tc_lcp_workspace* ws,
                                tc_lcp_iter_stats* stats);

/// tc_lcp_pk_split_parts for M itself: forms S and A from M and d (one tiled pass; in ws->parts,
/// 2n² + n reals, or allocated for the call when ws is NULL). Same results and errors.
tc_result tc_lcp_pk_split(int n, const tc_real* M, const tc_real* d, const tc_real* q, tc_real tol, int max_iterations,
                          tc_real* z, tc_real* w, tc_lcp_workspace* ws, tc_lcp_iter_stats* stats);

/// y = M x for a symmetric n×n M (row-major), skipping the zero entries of x: row k of M is its
/// column k, so the product is a sum of contiguous axpys. y must not alias x.
void tc_sym_matvec(int n, const tc_real* M, const tc_real* x, tc_real* y);

/// y = A x for a skew-symmetric n×n A (row-major) of which only the strict upper triangle is read:
/// one pass over it, a dot product and an axpy per row. y must not alias x.
void tc_skew_upper_matvec(int n, const tc_real* A, const tc_real* x, tc_real* y);

/// Which LCP method tc_lcp_solve uses.
typedef enum tc_lcp_method {
    TC_LCP_AUTO = 0, ///< Polonsky–Keer (split if M is not symmetric) for n > TC_LCP_LEMKE_MAX_N, else Lemke
    TC_LCP_LEMKE,    ///< always Lemke (exact pivoting, O(n²) per pivot)
    TC_LCP_PK,       ///< Polonsky–Keer for symmetric M, its splitting for scaled M (any n)
    TC_LCP_MPRGP,    ///< MPRGP whenever M is symmetric (any n)
} tc_lcp_method;

/// Sizes up to this one go to Lemke under TC_LCP_AUTO (exact and about as fast there).
#define TC_LCP_LEMKE_MAX_N 48

/// What tc_lcp_solve did.
typedef struct tc_lcp_solve_stats {
    int pivots;       ///< Lemke pivots (0 if Lemke did not run)
    int iterations;   ///< iterative steps (0 if no iterative method ran)
    int matvecs;      ///< their products with M
    bool fell_back;   ///< an iterative method ran and did not converge, Lemke solved instead
    tc_real residual; ///< of the method that produced z
} tc_lcp_solve_stats;

/// Solves the LCP w = Mz + q with the chosen method. symmetric: M is symmetric positive definite
/// (required by the iterative methods). column_scale (may be NULL): for a non-symmetric M, the d of
/// tc_lcp_pk_split (used by AUTO and PK); without it a non-symmetric M goes to Lemke. tol: their relative tolerance (see
/// tc_lcp_mprgp). Iteration cap 50 + n/2, then Lemke. z: warm start on entry for the iterative
/// methods (ignored by Lemke), the solution on exit; w (may be NULL) receives Mz + q.
/// Returns the result of the method that ran last (see tc_lcp_lemke); OUT_OF_MEMORY.
/// ws (may be NULL): scratch kept between calls; with it PK also runs its single-precision phase.
tc_result tc_lcp_solve(tc_lcp_method method, int n, const tc_real* M, bool symmetric, const tc_real* column_scale,
                       const tc_real* q, tc_real tol, tc_real* z, tc_real* w, tc_lcp_workspace* ws,
                       tc_lcp_solve_stats* stats);

#endif
