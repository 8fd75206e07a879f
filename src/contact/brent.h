// Brent's method for a bracketed 1-D root (ALGORITHMS.md §8.3).
#ifndef TC_BRENT_H
#define TC_BRENT_H
#include "tactus/base.h"

typedef tc_real tc_brent_fn(tc_real t, void* context);

/// Finds a root of g in [a, b] with g(a) g(b) <= 0 to within tol (absolute, in t).
/// Returns false when the interval does not bracket a sign change or max_iter is exhausted;
/// *root then holds the best estimate. *iterations (may be NULL) receives the evaluations used.
bool tc_brent(tc_brent_fn* g, void* context, tc_real a, tc_real b, tc_real tol, int max_iter, tc_real* root, int* iterations);
/// Same with g(a) = ga and g(b) = gb already known (saves two evaluations).
bool tc_brent_known(tc_brent_fn* g, void* context, tc_real a, tc_real b, tc_real ga, tc_real gb, tc_real tol, int max_iter,
                    tc_real* root, int* iterations);

#endif
