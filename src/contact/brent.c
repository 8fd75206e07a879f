// Brent's root finder: inverse quadratic interpolation / secant, guarded by bisection.
#include <float.h>
#include <math.h>
#include "contact/brent.h"

bool tc_brent(tc_brent_fn* g, void* ctx, tc_real a, tc_real b, tc_real tol, int max_iter, tc_real* root, int* iterations) {
    tc_real ga = g(a, ctx), gb = g(b, ctx);
    return tc_brent_known(g, ctx, a, b, ga, gb, tol, max_iter, root, iterations);
}

bool tc_brent_known(tc_brent_fn* g, void* ctx, tc_real a, tc_real b, tc_real fa, tc_real fb, tc_real tol, int max_iter,
                    tc_real* root, int* iterations) {
    if (iterations) *iterations = 0;
    *root = fabs(fa) < fabs(fb) ? a : b;
    if (fa == 0) { *root = a; return true; }
    if (fb == 0) { *root = b; return true; }
    if ((fa > 0) == (fb > 0) || !isfinite(fa) || !isfinite(fb)) return false;
    tc_real c = a, fc = fa, d = b - a, e = d;
    for (int it = 1; it <= max_iter; ++it) {
        if (iterations) *iterations = it;
        if ((fb > 0) == (fc > 0)) { c = a; fc = fa; d = e = b - a; } // keep the bracket [b, c]
        if (fabs(fc) < fabs(fb)) { a = b; b = c; c = a; fa = fb; fb = fc; fc = fa; } // b is the best
        tc_real tol1 = 2 * DBL_EPSILON * fabs(b) + 0.5 * tol, m = 0.5 * (c - b);
        if (fabs(m) <= tol1 || fb == 0) { *root = b; return true; }
        if (fabs(e) >= tol1 && fabs(fa) > fabs(fb)) {
            tc_real s = fb / fa, p, q;
            if (a == c) { // secant
                p = 2 * m * s;
                q = 1 - s;
            } else { // inverse quadratic interpolation
                tc_real qq = fa / fc, r = fb / fc;
                p = s * (2 * m * qq * (qq - r) - (b - a) * (r - 1));
                q = (qq - 1) * (r - 1) * (s - 1);
            }
            if (p > 0) q = -q;
            p = fabs(p);
            if (2 * p < fmin(3 * m * q - fabs(tol1 * q), fabs(e * q))) { e = d; d = p / q; }
            else { d = m; e = d; }
        } else { d = m; e = d; }
        a = b;
        fa = fb;
        b += fabs(d) > tol1 ? d : (m > 0 ? tol1 : -tol1);
        fb = g(b, ctx);
        if (!isfinite(fb)) { *root = a; return false; }
    }
    *root = b;
    return false;
}
