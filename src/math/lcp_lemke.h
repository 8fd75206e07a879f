// Lemke's complementary pivoting for the linear complementarity problem (ALGORITHMS.md §9.4):
// find z with w = M z + q >= 0, z >= 0, w·z = 0.
#ifndef TC_LCP_LEMKE_H
#define TC_LCP_LEMKE_H
#include "tactus/base.h"

/// Statistics of one solve.
typedef struct tc_lcp_stats {
    int pivots;         ///< complementary pivots taken (including the first z0 pivot)
    tc_real residual;   ///< max(|min(z,0)|, |min(w,0)|, |w·z|/scale) after the post-check
} tc_lcp_stats;

/// Solves the LCP of size n with M (n×n, row-major) and q (n). Covering vector d = 1, lexicographic
/// ratio test for degenerate ties (z0's row preferred), pivot cap 50 + 10 n, post-check of
/// w = M z + q. z and w (may be NULL) receive n values each; stats may be NULL.
/// Returns TC_RESULT_OK; TC_RESULT_INFEASIBLE on ray termination (no solution found for this M);
/// TC_RESULT_NOT_CONVERGED when the pivot cap is hit or the post-check fails;
/// TC_RESULT_INVALID_ARGUMENT for n < 1 or non-finite input; TC_RESULT_OUT_OF_MEMORY.
/// On any failure z and w are zero-filled.
tc_result tc_lcp_lemke(int n, const tc_real* M, const tc_real* q, tc_real* z, tc_real* w, tc_lcp_stats* stats);

#endif
