// Fast assembly of the Boussinesq response matrix (see quasi_matrix.h). Compiled with
// -fno-math-errno (src/CMakeLists.txt) so the far-field loop's sqrt vectorises.
#include "contact/quasi_matrix.h"
#include <math.h>
#include "contact/quasi_response.h"
#include "core/core.h"

enum { MIRROR_BLOCK = 64 };

typedef struct patch_soa {
    tc_real *x, *y, *z;   // node coordinates
    tc_real* far_coef;    // compliance σ_k²: the far entry is far_coef/r · S(4σ_k²/r²)
    tc_real* four_s2;     // 4σ_k²
    tc_real* near_coef;   // compliance σ_k √(π/2): the exact entry is near_coef · e^{−z}I₀(z)
    tc_real* near_above;  // the far form at z = TC_BESSEL_FAR_Z: it decreases with r, so larger is near
} patch_soa;

static patch_soa soa_fill(int n, const tc_vec3* p, const tc_real* sigma, bool uniform, tc_real compliance,
                          tc_real* scratch) {
    patch_soa s = {scratch, scratch + n, scratch + 2 * n, scratch + 3 * n, scratch + 4 * n, scratch + 5 * n, scratch + 6 * n};
    const tc_real far_at_edge = tc_bessel_far_series(1 / TC_BESSEL_FAR_Z) / (2 * sqrt(TC_BESSEL_FAR_Z));
    for (int k = 0; k < n; ++k) {
        tc_real sg = uniform ? sigma[0] : sigma[k];
        s.x[k] = p[k].x;
        s.y[k] = p[k].y;
        s.z[k] = p[k].z;
        s.far_coef[k] = compliance * sg * sg;
        s.four_s2[k] = 4 * sg * sg;
        s.near_coef[k] = compliance * sg * sqrt(TC_PI / 2);
        s.near_above[k] = compliance * sg * far_at_edge; // far_coef / r at r = 2σ√z_far
    }
    return s;
}

// Far-field form for columns [begin, end) of row i; the tiny shift keeps coincident points finite
// (near_entries overwrites them). Returns non-zero when some entry is near (near_entries' test).
TC_VECTOR_CLONES static long far_entries(const patch_soa* s, int i, int begin, int end, tc_real* restrict row) {
    const tc_real *restrict x = s->x, *restrict y = s->y, *restrict z = s->z, *restrict above = s->near_above;
    const tc_real *restrict far_coef = s->far_coef, *restrict four_s2 = s->four_s2;
    const tc_real px = x[i], py = y[i], pz = z[i];
    long near = 0;
    for (int k = begin; k < end; ++k) {
        tc_real dx = x[k] - px, dy = y[k] - py, dz = z[k] - pz;
        tc_real inv = 1 / (dx * dx + dy * dy + dz * dz + 1e-300);
        tc_real m = far_coef[k] * sqrt(inv) * tc_bessel_far_series(four_s2[k] * inv);
        row[k] = m;
        near |= (long)(m > above[k]);
    }
    return near;
}

enum { NEAR_CHUNK = 64 }; // columns per far pass: a chunk without a near entry skips the near scan

// Exact form where the series is not accurate enough (z < TC_BESSEL_FAR_Z, a few dozen columns),
// found by the far value itself: it exceeds near_above exactly when z < TC_BESSEL_FAR_Z.
static void near_entries(const patch_soa* s, int i, int begin, int end, tc_real* row) {
    const tc_real px = s->x[i], py = s->y[i], pz = s->z[i];
    for (int k = begin; k < end; ++k) {
        if (!(row[k] > s->near_above[k])) continue;
        tc_real dx = s->x[k] - px, dy = s->y[k] - py, dz = s->z[k] - pz;
        tc_real d2 = dx * dx + dy * dy + dz * dz;
        row[k] = s->near_coef[k] * tc_bessel_i0_scaled(d2 / s->four_s2[k]);
    }
}

// Row k's share of the mirror: M[k][i] = M[i][k] for i in [begin, end).
static void mirror_run(int n, int k, int begin, int end, tc_real* M) {
    tc_real* dst = M + (size_t)k * n;
    for (int i = begin; i < end; ++i) dst[i] = M[(size_t)i * n + k];
}

// Copies rows [i0, i1)'s strict upper part into the lower triangle while those rows are still in
// cache: each lower row k receives one contiguous run M[k][i0..min(k, i1)). Four lower rows at a
// time, so one read of four adjacent entries of a source row serves all four.
static void mirror_rows(int n, int i0, int i1, tc_real* M) {
    int k = i0 + 1;
    for (; k + 3 < n; k += 4) {
        tc_real *d0 = M + (size_t)k * n, *d1 = d0 + n, *d2 = d1 + n, *d3 = d2 + n;
        int end = k < i1 ? k : i1;
        for (int i = i0; i < end; ++i) {
            const tc_real* src = M + (size_t)i * n + k;
            d0[i] = src[0], d1[i] = src[1], d2[i] = src[2], d3[i] = src[3];
        }
        for (int j = 1; j < 4; ++j) mirror_run(n, k + j, end, k + j < i1 ? k + j : i1, M);
    }
    for (; k < n; ++k) mirror_run(n, k, i0, k < i1 ? k : i1, M);
}

// Both raw entries of the pair (i, k), k in [begin, end): M_ik into row_ik[k], M_ki into row_ki[k];
// they share the distance and its square root, so the pair costs about one far entry. Returns
// non-zero when some entry is near (near_entries' test), so a chunk without one skips that scan.
TC_VECTOR_CLONES static long far_pair_entries(const patch_soa* s, int i, int begin, int end, tc_real* restrict row_ik,
                                              tc_real* restrict row_ki) {
    // restrict locals: with two output rows gcc's run-time alias checks would exceed its limit and
    // leave the loop scalar
    const tc_real *restrict x = s->x, *restrict y = s->y, *restrict z = s->z;
    const tc_real *restrict far_coef = s->far_coef, *restrict four_s2 = s->four_s2, *restrict above = s->near_above;
    const tc_real px = x[i], py = y[i], pz = z[i], coef_i = far_coef[i], four_s2_i = four_s2[i], above_i = above[i];
    long near = 0;
    for (int k = begin; k < end; ++k) {
        tc_real dx = x[k] - px, dy = y[k] - py, dz = z[k] - pz;
        tc_real inv = 1 / (dx * dx + dy * dy + dz * dz + 1e-300);
        tc_real root = sqrt(inv);
        tc_real m_ik = far_coef[k] * root * tc_bessel_far_series(four_s2[k] * inv);
        tc_real m_ki = coef_i * root * tc_bessel_far_series(four_s2_i * inv);
        row_ik[k] = m_ik, row_ki[k] = m_ki;
        near |= (long)(m_ik > above[k]) | (long)(m_ki > above_i);
    }
    return near;
}

// The exact form for either entry of a pair whose far value says it is near (see near_entries).
static void near_pair_entries(const patch_soa* s, int i, int begin, int end, tc_real* row_ik, tc_real* row_ki) {
    const tc_real px = s->x[i], py = s->y[i], pz = s->z[i];
    for (int k = begin; k < end; ++k) {
        bool near_ik = row_ik[k] > s->near_above[k], near_ki = row_ki[k] > s->near_above[i];
        if (!near_ik && !near_ki) continue;
        tc_real dx = s->x[k] - px, dy = s->y[k] - py, dz = s->z[k] - pz;
        tc_real d2 = dx * dx + dy * dy + dz * dz;
        if (near_ik) row_ik[k] = s->near_coef[k] * tc_bessel_i0_scaled(d2 / s->four_s2[k]);
        if (near_ki) row_ki[k] = s->near_coef[i] * tc_bessel_i0_scaled(d2 / s->four_s2[i]);
    }
}

// Row i's strict upper part: (M_ik, M_ki) in place -> S_ik = ½(M_ik/d_k + M_ki/d_i) in sym_row,
// A_ik = ½(M_ik/d_k − M_ki/d_i) in skew_row.
TC_VECTOR_CLONES static void split_pairs(const tc_real* restrict inv_d, int i, int begin, int n,
                                         tc_real* restrict sym_row, tc_real* restrict skew_row) {
    const tc_real inv_i = inv_d[i];
    for (int k = begin; k < n; ++k) {
        tc_real b_ik = sym_row[k] * inv_d[k], b_ki = skew_row[k] * inv_i;
        sym_row[k] = 0.5 * (b_ik + b_ki);
        skew_row[k] = 0.5 * (b_ik - b_ki);
    }
}

void tc_quasi_matrix_boussinesq_split(int n, const tc_vec3* points, const tc_real* sigma, tc_real compliance,
                                      const tc_real* d, tc_real* S, tc_real* A, tc_real* scratch) {
    patch_soa s = soa_fill(n, points, sigma, false, compliance, scratch);
    tc_real* inv_d = scratch + 7 * n;
    for (int k = 0; k < n; ++k) inv_d[k] = 1 / d[k];
    for (int i0 = 0; i0 < n; i0 += MIRROR_BLOCK) {
        int i1 = i0 + MIRROR_BLOCK < n ? i0 + MIRROR_BLOCK : n;
        for (int i = i0; i < i1; ++i) {
            tc_real *sym_row = S + (size_t)i * n, *skew_row = A + (size_t)i * n;
            for (int c = i + 1; c < n; c += NEAR_CHUNK) {
                int end = c + NEAR_CHUNK < n ? c + NEAR_CHUNK : n;
                if (far_pair_entries(&s, i, c, end, sym_row, skew_row)) near_pair_entries(&s, i, c, end, sym_row, skew_row);
            }
            split_pairs(inv_d, i, i + 1, n, sym_row, skew_row);
            sym_row[i] = s.near_coef[i] * inv_d[i];
        }
        mirror_rows(n, i0, i1, S); // A stays upper: its products read one triangle
    }
}

bool tc_quasi_sigma_uniform(int n, const tc_real* sigma) {
    for (int k = 1; k < n; ++k)
        if (fabs(sigma[k] - sigma[0]) > 1e-12 * sigma[0]) return false;
    return true;
}

bool tc_quasi_matrix_boussinesq(int n, const tc_vec3* points, const tc_real* sigma, tc_real compliance, tc_real* M,
                                tc_real* scratch) {
    bool uniform = tc_quasi_sigma_uniform(n, sigma);
    patch_soa s = soa_fill(n, points, sigma, uniform, compliance, scratch);
    for (int i0 = 0; i0 < n; i0 += MIRROR_BLOCK) {
        int i1 = i0 + MIRROR_BLOCK < n ? i0 + MIRROR_BLOCK : n;
        for (int i = i0; i < i1; ++i) {
            tc_real* row = M + (size_t)i * n;
            int begin = uniform ? i + 1 : 0; // symmetric: the upper half only
            for (int c = begin; c < n; c += NEAR_CHUNK) {
                int end = c + NEAR_CHUNK < n ? c + NEAR_CHUNK : n;
                if (far_entries(&s, i, c, end, row)) near_entries(&s, i, c, end, row);
            }
            row[i] = s.near_coef[i]; // the bounded self term, e^0 I₀(0) = 1
        }
        if (uniform) mirror_rows(n, i0, i1, M);
    }
    return uniform;
}
