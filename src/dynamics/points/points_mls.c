// MLS displacement gradient, Green strain, linear stress and exact forces (ALGORITHMS.md §7.1-7.3).
#include "dynamics/points/points.h"
#include "math/eigen.h"

tc_mat3 tc_points_green_strain(tc_mat3 F) {
    tc_mat3 e = tc_mat3_mul(tc_mat3_transpose(F), F);
    for (int k = 0; k < 3; ++k) e.m[k][k] -= 1;
    return tc_mat3_scale(e, 0.5);
}

// Moment matrix A_i = sum_j w_ij x_ij x_ij^T over the current neighbour list.
static tc_mat3 moment_matrix(const tc_points_body* b, int i) {
    tc_mat3 A = tc_mat3_zero();
    for (int t = b->nb_start[i]; t < b->nb_start[i + 1]; ++t) {
        tc_vec3 xij = tc_v3_sub(b->x0[b->nb[t]], b->x0[i]);
        A = tc_mat3_add(A, tc_mat3_scale(tc_mat3_outer(xij, xij), tc_poly6(tc_v3_len2(xij), b->h[i])));
    }
    return A;
}

// Condition number of a symmetric positive semi-definite matrix (inf when singular).
static tc_real condition(tc_mat3 A) {
    tc_vec3 ev;
    tc_mat3 V;
    tc_eigen_sym3(A, &ev, &V);
    return ev.x > 0 ? ev.z / ev.x : INFINITY;
}

// Inverse of A restricted to its well-supported directions: eigenvalues under 1% of the largest
// are dropped. A phyxel whose neighbours no longer span space (pairs broken at a crack front)
// then measures strain only along the directions it still has, instead of amplifying noise into
// huge d vectors (a nearly singular A blew the fracture scene up after ~5 s of creep).
static tc_mat3 pseudo_inverse(tc_mat3 A) {
    tc_vec3 ev;
    tc_mat3 V;
    tc_eigen_sym3(A, &ev, &V);
    tc_real cut = 1e-2 * ev.z;
    if (!(ev.z > 0)) return tc_mat3_zero();
    tc_vec3 inv = tc_v3(ev.x > cut ? 1 / ev.x : 0, ev.y > cut ? 1 / ev.y : 0, 1 / ev.z);
    return tc_mat3_mul(tc_mat3_mul(V, tc_mat3_diag(inv)), tc_mat3_transpose(V));
}

bool tc_points_compute_d(tc_points_body* b, int i) {
    tc_mat3 A = moment_matrix(b, i);
    tc_real cond = condition(A);
    bool ok = b->nb_start[i + 1] - b->nb_start[i] >= 4 && cond < 1e4;
    tc_mat3 Ainv = cond < 1e2 ? tc_mat3_inverse(A) : pseudo_inverse(A);
    tc_vec3 sum = tc_v3_zero();
    for (int t = b->nb_start[i]; t < b->nb_start[i + 1]; ++t) {
        tc_vec3 xij = tc_v3_sub(b->x0[b->nb[t]], b->x0[i]);
        b->nb_d[t] = tc_mat3_mul_v3(Ainv, tc_v3_scale(xij, tc_poly6(tc_v3_len2(xij), b->h[i])));
        sum = tc_v3_add(sum, b->nb_d[t]);
    }
    b->dii[i] = tc_v3_neg(sum);
    return ok;
}

tc_real tc_points_operator_norm(const tc_points_body* b) {
    tc_real* row = b->work_r;
    memset(row, 0, (size_t)b->np * sizeof(tc_real));
    for (int i = 0; i < b->np; ++i) {
        tc_real s = tc_v3_len(b->dii[i]);
        for (int t = b->nb_start[i]; t < b->nb_start[i + 1]; ++t) s += tc_v3_len(b->nb_d[t]);
        row[i] += b->vol[i] * tc_v3_len(b->dii[i]) * s;
        for (int t = b->nb_start[i]; t < b->nb_start[i + 1]; ++t) row[b->nb[t]] += b->vol[i] * tc_v3_len(b->nb_d[t]) * s;
    }
    tc_real norm = 0;
    for (int j = 0; j < b->np; ++j) norm = fmax(norm, row[j] / b->m[j]);
    return norm;
}

static int count_within(const tc_points_body* b, int i, tc_real h) {
    int n = 0;
    for (int j = 0; j < b->np; ++j)
        if (j != i && tc_v3_len2(tc_v3_sub(b->x0[j], b->x0[i])) < h * h) n++;
    return n;
}

bool tc_points_build_neighbours(tc_points_body* b, int* bad) {
    // Grow each support until the moment matrix is well conditioned (cond < 1e4).
    int total = 0;
    for (int i = 0; i < b->np; ++i) {
        for (int tries = 0; tries < 8; ++tries) {
            tc_mat3 A = tc_mat3_zero();
            int n = 0;
            for (int j = 0; j < b->np; ++j) {
                tc_vec3 xij = tc_v3_sub(b->x0[j], b->x0[i]);
                tc_real w = j == i ? 0 : tc_poly6(tc_v3_len2(xij), b->h[i]);
                if (w <= 0) continue;
                A = tc_mat3_add(A, tc_mat3_scale(tc_mat3_outer(xij, xij), w));
                n++;
            }
            if (n >= 4 && condition(A) < 1e4) break;
            b->h[i] *= 1.25;
        }
        total += count_within(b, i, b->h[i]);
    }
    b->nb_count = total;
    b->nb_start = tc_alloc(((size_t)b->np + 1) * sizeof(int));
    b->nb = tc_alloc((size_t)(total > 0 ? total : 1) * sizeof(int));
    b->nb_d = tc_alloc((size_t)(total > 0 ? total : 1) * sizeof(tc_vec3));
    b->nb_len0 = tc_alloc((size_t)(total > 0 ? total : 1) * sizeof(tc_real));
    if (!b->nb_start || !b->nb || !b->nb_d || !b->nb_len0) {
        if (bad) *bad = -1; // out of memory; tc_points_body_free releases what was allocated
        return false;
    }
    int t = 0;
    for (int i = 0; i < b->np; ++i) {
        b->nb_start[i] = t;
        for (int j = 0; j < b->np; ++j) {
            tc_real r2 = tc_v3_len2(tc_v3_sub(b->x0[j], b->x0[i]));
            if (j == i || r2 >= b->h[i] * b->h[i]) continue;
            b->nb[t] = j;
            b->nb_len0[t] = sqrt(r2);
            t++;
        }
    }
    b->nb_start[b->np] = t;
    for (int i = 0; i < b->np; ++i)
        if (!tc_points_compute_d(b, i)) {
            if (bad) *bad = i;
            return false;
        }
    return true;
}

void tc_points_compute_gradients(tc_points_body* b) {
    for (int i = 0; i < b->np; ++i) {
        tc_vec3 ui = tc_v3_sub(b->x[i], b->x0[i]);
        tc_mat3 G = tc_mat3_zero();
        for (int t = b->nb_start[i]; t < b->nb_start[i + 1]; ++t) {
            int j = b->nb[t];
            tc_vec3 du = tc_v3_sub(tc_v3_sub(b->x[j], b->x0[j]), ui);
            G = tc_mat3_add(G, tc_mat3_outer(du, b->nb_d[t]));
        }
        b->grad_u[i] = G;
    }
}

static tc_mat3 cofactor(tc_mat3 F) {
    tc_vec3 f1 = tc_mat3_col(F, 0), f2 = tc_mat3_col(F, 1), f3 = tc_mat3_col(F, 2);
    return tc_mat3_from_cols(tc_v3_cross(f2, f3), tc_v3_cross(f3, f1), tc_v3_cross(f1, f2));
}

static tc_real ddot(tc_mat3 a, tc_mat3 c) {
    tc_real s = 0;
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) s += a.m[r][k] * c.m[r][k];
    return s;
}

// Stress-like matrix P (per unit volume: dU/dF) and the energy density of phyxel i.
static tc_mat3 first_piola(const tc_points_body* b, int i, tc_real* energy_density) {
    tc_mat3 F = tc_mat3_add(tc_mat3_identity(), b->grad_u[i]);
    tc_mat3 E = tc_mat3_add(tc_points_green_strain(F), tc_mat3_scale(b->eps_p[i], -1));
    tc_real tr = E.m[0][0] + E.m[1][1] + E.m[2][2];
    tc_mat3 S = tc_mat3_scale(E, 2 * b->mat.mu);
    for (int k = 0; k < 3; ++k) S.m[k][k] += b->mat.lambda * tr;
    tc_mat3 P = tc_mat3_mul(F, S);
    tc_real J = tc_mat3_det(F);
    *energy_density = 0.5 * ddot(E, S) + 0.5 * b->mat.kv * (J - 1) * (J - 1);
    if (b->mat.kv > 0) P = tc_mat3_add(P, tc_mat3_scale(cofactor(F), b->mat.kv * (J - 1)));
    return P;
}

tc_real tc_points_elastic_forces(tc_points_body* b, tc_vec3* f) {
    tc_real energy = 0;
    for (int i = 0; i < b->np; ++i) {
        tc_real psi;
        tc_mat3 P = tc_mat3_scale(first_piola(b, i, &psi), -b->vol[i]);
        energy += b->vol[i] * psi;
        for (int t = b->nb_start[i]; t < b->nb_start[i + 1]; ++t)
            f[b->nb[t]] = tc_v3_add(f[b->nb[t]], tc_mat3_mul_v3(P, b->nb_d[t]));
        f[i] = tc_v3_add(f[i], tc_mat3_mul_v3(P, b->dii[i]));
    }
    return energy;
}

tc_real tc_points_elastic_energy(const tc_points_body* b) {
    tc_real energy = 0;
    for (int i = 0; i < b->np; ++i) {
        tc_real psi;
        first_piola(b, i, &psi);
        energy += b->vol[i] * psi;
    }
    return energy;
}
