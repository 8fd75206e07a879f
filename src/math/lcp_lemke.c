// Lemke's method on a dense tableau [I | −M | −d | q] (Gauss–Jordan pivots, O(n²) each).
// Variables are numbered w_0..w_{n-1} = 0..n-1, z_0..z_{n-1} = n..2n-1, z0 (artificial) = 2n.
// Columns 0..n-1 of the tableau always hold B⁻¹, which the lexicographic rule compares.
#include "math/lcp_lemke.h"
#include <math.h>
#include "core/core.h"

typedef struct tableau {
    int n, cols;     // cols = 2n + 2 (variables + rhs)
    tc_real* t;      // n × cols, row-major
    int* basis;      // basic variable of each row
    tc_real tau;     // pivot tolerance
} tableau;

static inline tc_real* row_of(tableau* tb, int i) { return tb->t + (size_t)i * tb->cols; }

static void pivot(tableau* tb, int r, int e) {
    tc_real* pr = row_of(tb, r);
    tc_real inv = 1 / pr[e];
    for (int j = 0; j < tb->cols; ++j) pr[j] *= inv;
    pr[e] = 1;
    for (int i = 0; i < tb->n; ++i) {
        if (i == r) continue;
        tc_real* ri = row_of(tb, i);
        tc_real f = ri[e];
        if (f == 0) continue;
        for (int j = 0; j < tb->cols; ++j) ri[j] -= f * pr[j];
        ri[e] = 0;
    }
    tb->basis[r] = e;
}

// Compares rows a and b lexicographically on [rhs, B⁻¹ row] / T_ie; negative when a is smaller.
static int lex_compare(tableau* tb, int a, int b, int e) {
    tc_real* ra = row_of(tb, a);
    tc_real* rb = row_of(tb, b);
    int rhs = tb->cols - 1;
    tc_real da = ra[rhs] / ra[e], db = rb[rhs] / rb[e];
    tc_real scale = fmax(1, fmax(fabs(da), fabs(db)));
    if (fabs(da - db) > 1e-11 * scale) return da < db ? -1 : 1;
    for (int j = 0; j < tb->n; ++j) {
        tc_real xa = ra[j] / ra[e], xb = rb[j] / rb[e];
        if (fabs(xa - xb) > 1e-11 * fmax(1, fmax(fabs(xa), fabs(xb)))) return xa < xb ? -1 : 1;
    }
    return 0;
}

// Minimum-ratio row for entering column e, or -1 on ray termination.
static int ratio_test(tableau* tb, int e) {
    int best = -1;
    int z0 = 2 * tb->n;
    for (int i = 0; i < tb->n; ++i) {
        if (row_of(tb, i)[e] <= tb->tau) continue;
        if (best < 0) {
            best = i;
            continue;
        }
        int c = lex_compare(tb, i, best, e);
        // on a full tie (not expected: B⁻¹ rows differ) let z0 leave so the method stops
        if (c < 0 || (c == 0 && tb->basis[i] == z0)) best = i;
    }
    return best;
}

static int complement(int var, int n) { return var < n ? var + n : var - n; }

// The tableau holds z / z_unit (see tc_lcp_lemke); w is recomputed from the caller's M and q.
static void read_solution(const tableau* tb, tc_real z_unit, const tc_real* M, const tc_real* q, tc_real* z, tc_real* w) {
    int n = tb->n;
    for (int i = 0; i < n; ++i) z[i] = 0;
    for (int i = 0; i < n; ++i) {
        int v = tb->basis[i];
        if (v >= n && v < 2 * n) z[v - n] = z_unit * tb->t[(size_t)i * tb->cols + tb->cols - 1];
    }
    for (int i = 0; i < n; ++i) {
        tc_real s = q[i];
        for (int j = 0; j < n; ++j) s += M[(size_t)i * n + j] * z[j];
        w[i] = s;
    }
}

// Clamps round-off negatives and measures the complementarity residual (relative to the data scale).
static tc_real post_check(int n, const tc_real* M, const tc_real* q, tc_real* z, tc_real* w) {
    tc_real zmax = 0, mmax = 0, qmax = 0;
    for (int i = 0; i < n; ++i) {
        zmax = fmax(zmax, fabs(z[i]));
        qmax = fmax(qmax, fabs(q[i]));
        for (int j = 0; j < n; ++j) mmax = fmax(mmax, fabs(M[(size_t)i * n + j]));
    }
    tc_real wscale = fmax(fmax(qmax, mmax * zmax), 1e-300), zscale = fmax(zmax, 1e-300);
    tc_real worst = 0, dot = 0;
    for (int i = 0; i < n; ++i) {
        worst = fmax(worst, fmax(-z[i] / zscale, -w[i] / wscale));
        dot += fabs(w[i] * z[i]);
        if (z[i] < 0) z[i] = 0; // round-off only: larger negatives fail the check above
    }
    return fmax(worst, dot / (wscale * zscale));
}

static void zero_fill(int n, tc_real* z, tc_real* w) {
    for (int i = 0; i < n; ++i) {
        if (z) z[i] = 0;
        if (w) w[i] = 0;
    }
}

static tc_result run_pivots(tableau* tb, int* pivots) {
    int n = tb->n, z0 = 2 * n;
    // First pivot: z0 enters at the most negative q (ties: lowest index), making every rhs >= 0.
    int r = 0;
    for (int i = 1; i < n; ++i)
        if (row_of(tb, i)[tb->cols - 1] < row_of(tb, r)[tb->cols - 1]) r = i;
    int leaving = tb->basis[r];
    pivot(tb, r, z0);
    *pivots = 1;
    int cap = 50 + 10 * n;
    while (*pivots < cap) {
        int e = complement(leaving, n);
        r = ratio_test(tb, e);
        if (r < 0) return TC_RESULT_INFEASIBLE;
        leaving = tb->basis[r];
        pivot(tb, r, e);
        ++*pivots;
        if (leaving == z0) return TC_RESULT_OK;
    }
    return TC_RESULT_NOT_CONVERGED;
}

tc_result tc_lcp_lemke(int n, const tc_real* M, const tc_real* q, tc_real* z, tc_real* w, tc_lcp_stats* stats) {
    if (stats) stats->pivots = 0, stats->residual = 0;
    if (n < 1 || !M || !q || !z) return TC_RESULT_INVALID_ARGUMENT;
    bool trivial = true;
    tc_real mmax = 0, qmax = 0;
    for (int i = 0; i < n; ++i) {
        if (!isfinite(q[i])) return zero_fill(n, z, w), TC_RESULT_INVALID_ARGUMENT;
        if (q[i] < 0) trivial = false;
        qmax = fmax(qmax, fabs(q[i]));
        for (int j = 0; j < n; ++j) {
            tc_real m = M[(size_t)i * n + j];
            if (!isfinite(m)) return zero_fill(n, z, w), TC_RESULT_INVALID_ARGUMENT;
            mmax = fmax(mmax, fabs(m));
        }
    }
    if (!trivial && !(mmax > 0)) return zero_fill(n, z, w), TC_RESULT_INFEASIBLE; // M = 0, some q < 0
    if (trivial) {
        for (int i = 0; i < n; ++i) {
            z[i] = 0;
            if (w) w[i] = q[i];
        }
        return TC_RESULT_OK;
    }
    tableau tb = {n, 2 * n + 2, NULL, NULL, 0};
    size_t tsize = (size_t)n * (size_t)tb.cols * sizeof(tc_real);
    tb.t = tc_calloc(1, tsize);
    tb.basis = tc_alloc((size_t)n * sizeof(int));
    tc_real* wbuf = tc_alloc((size_t)n * sizeof(tc_real));
    tc_result result = TC_RESULT_OUT_OF_MEMORY;
    if (tb.t && tb.basis && wbuf) {
        // Pivot on M / max|M| and q / max|q|, so the tolerances are relative to the data whatever
        // its units (a 1 km quasi-rigid body has compliances near 1e-17 m/N); z scales back by
        // max|q| / max|M|.
        for (int i = 0; i < n; ++i) {
            tc_real* ri = row_of(&tb, i);
            ri[i] = 1;
            for (int j = 0; j < n; ++j) ri[n + j] = -M[(size_t)i * n + j] / mmax;
            ri[2 * n] = -1;
            ri[2 * n + 1] = q[i] / qmax;
            tb.basis[i] = i;
        }
        tb.tau = 1e-12;
        int pivots = 0;
        result = run_pivots(&tb, &pivots);
        if (stats) stats->pivots = pivots;
        if (result == TC_RESULT_OK) {
            read_solution(&tb, qmax / mmax, M, q, z, wbuf);
            tc_real res = post_check(n, M, q, z, wbuf);
            if (stats) stats->residual = res;
            if (!(res <= 1e-9)) result = TC_RESULT_NOT_CONVERGED;
            else if (w) memcpy(w, wbuf, (size_t)n * sizeof(tc_real));
        }
    }
    if (result != TC_RESULT_OK) zero_fill(n, z, w);
    if (tb.t) tc_free(tb.t, tsize);
    if (tb.basis) tc_free(tb.basis, (size_t)n * sizeof(int));
    if (wbuf) tc_free(wbuf, (size_t)n * sizeof(tc_real));
    return result;
}
