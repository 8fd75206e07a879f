// Assembly of the elastic forces and the warped stiffness R K R^T (ALGORITHMS §6), vectorised
// across tets: the tets are taken LANES at a time, gathered into per-lane arrays, the arithmetic
// runs as loops over the lanes (AVX2 where the CPU has it, TC_VECTOR_CLONES), and the results are
// added to the vertex forces and the blocks in tet order by a scalar pass. Every lane does exactly
// the operations of the scalar formulas (tet_fem.c: deformation_gradient, tc_tet_qr_rotation,
// add_element_forces; -ffp-contract=off, no reassociation), and every sum runs in the same order
// as one tet after another, so the results are the same bit for bit on any CPU.
#include "dynamics/tet/tet.h"

#include <math.h>
#include <string.h>

/// Local vertex pairs of a tet's 6 edges, in the order of solver.tet_edges.
static const int k_pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

enum { LANES = 16 }; // tets per chunk: the lane arrays (about 21 kB) stay in the L1 cache

// Per-lane data of one chunk, component arrays of LANES values. Matrices are row-major (entry
// (i, j) at [3 i + j]), vectors of a tet's vertex j at [3 j + i]. The rest-state part is made once
// at creation (solver.rest_lanes, one per chunk: 3.6 kB per 16 tets), the rest per step.
struct tc_tet_rest_lanes {
    tc_real dm[9][LANES];   ///< the rest shape's inverse
    tc_real g[12][LANES];   ///< the shape-function gradients
    tc_real volume[LANES];
    tc_real swap[6][LANES]; ///< 1: edge k's stored block is (c, a) of its local pair (a, c)
};
typedef struct tc_tet_rest_lanes rest_lanes;

typedef struct tet_lanes {
    tc_real e[9][LANES];         ///< the edge vectors x_{j+1} - x_0, vector j at [3 j + i]
    tc_real F[9][LANES];         ///< deformation gradient
    tc_real R[9][LANES];         ///< its QR rotation
    tc_real degenerate[LANES];   ///< 1: a QR column vanished, R comes from tc_tet_qr_rotation
    tc_real force[12][LANES];    ///< -V R S g_j, the force on vertex j
    tc_real block[10][9][LANES]; ///< stiffness blocks without their diagonal shift: vertices 0-3, then the edges
    tc_real shift[10][LANES];    ///< mu V g_a . g_c, added to the block's diagonal afterwards
} tet_lanes;

static int chunk_count(const tc_tet_body* b) { return (b->tet_count + LANES - 1) / LANES; }

bool tc_tet_rest_lanes_init(tc_tet_body* b) {
    int chunks = chunk_count(b);
    b->solver.rest_lanes = chunks > 0 ? tc_alloc((size_t)chunks * sizeof(rest_lanes)) : NULL;
    if (chunks > 0 && !b->solver.rest_lanes) return false;
    static const tc_real identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int c = 0; c < chunks; ++c) {
        rest_lanes* L = &b->solver.rest_lanes[c];
        for (int l = 0; l < LANES; ++l) {
            int t = c * LANES + l;
            if (t >= b->tet_count) { // a dummy tet: undeformed (no rotation fallback), no volume, never added
                for (int k = 0; k < 9; ++k) L->dm[k][l] = identity[k];
                for (int k = 0; k < 12; ++k) L->g[k][l] = 0;
                for (int k = 0; k < 6; ++k) L->swap[k][l] = 0;
                L->volume[l] = 0;
                continue;
            }
            const int* q = b->tets + 4 * t;
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) L->dm[3 * i + j][l] = b->inv_dm[t].m[i][j];
            for (int j = 0; j < 4; ++j) {
                tc_vec3 g = b->grads[4 * t + j];
                L->g[3 * j][l] = g.x, L->g[3 * j + 1][l] = g.y, L->g[3 * j + 2][l] = g.z;
            }
            for (int k = 0; k < 6; ++k) L->swap[k][l] = q[k_pairs[k][0]] > q[k_pairs[k][1]];
            L->volume[l] = b->volume[t];
        }
    }
    return true;
}

void tc_tet_rest_lanes_free(tc_tet_body* b) {
    tc_free(b->solver.rest_lanes, (size_t)chunk_count(b) * sizeof(rest_lanes));
    b->solver.rest_lanes = NULL;
}

// The edge vectors of the chunk's tets (dummy lanes: the unit vectors, so F = I there).
static void gather(const tc_tet_body* b, tet_lanes* L, int t0, int count) {
    for (int l = 0; l < LANES; ++l) {
        if (l >= count) {
            for (int k = 0; k < 9; ++k) L->e[k][l] = k % 4 == 0;
            continue;
        }
        const int* q = b->tets + 4 * (t0 + l);
        tc_vec3 x0 = b->x[q[0]];
        for (int j = 0; j < 3; ++j) {
            tc_vec3 d = tc_v3_sub(b->x[q[j + 1]], x0);
            L->e[3 * j][l] = d.x, L->e[3 * j + 1][l] = d.y, L->e[3 * j + 2][l] = d.z;
        }
    }
}

// F = Ds Dm^-1 and its Gram-Schmidt QR rotation (tc_tet_qr_rotation's operations; the lanes where
// a column vanishes are flagged and redone by it). Every statement is a loop over the lanes, so
// each vectorises whole.
TC_VECTOR_CLONES static void lane_rotations(const rest_lanes* restrict rest, tet_lanes* restrict L) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int l = 0; l < LANES; ++l)
                L->F[3 * i + j][l] = L->e[i][l] * rest->dm[j][l] + L->e[3 + i][l] * rest->dm[3 + j][l] + L->e[6 + i][l] * rest->dm[6 + j][l];
    for (int l = 0; l < LANES; ++l) {
        tc_real c0x = L->F[0][l], c0y = L->F[3][l], c0z = L->F[6][l], c1x = L->F[1][l], c1y = L->F[4][l], c1z = L->F[7][l];
        tc_real l0 = sqrt(c0x * c0x + c0y * c0y + c0z * c0z), s0 = 1 / l0;
        tc_real r0x = c0x * s0, r0y = c0y * s0, r0z = c0z * s0;
        tc_real m = -(r0x * c1x + r0y * c1y + r0z * c1z);
        tc_real r1x = c1x + m * r0x, r1y = c1y + m * r0y, r1z = c1z + m * r0z;
        tc_real l1 = sqrt(r1x * r1x + r1y * r1y + r1z * r1z), s1 = 1 / l1;
        r1x = r1x * s1, r1y = r1y * s1, r1z = r1z * s1;
        L->R[0][l] = r0x, L->R[1][l] = r1x, L->R[2][l] = r0y * r1z - r0z * r1y;
        L->R[3][l] = r0y, L->R[4][l] = r1y, L->R[5][l] = r0z * r1x - r0x * r1z;
        L->R[6][l] = r0z, L->R[7][l] = r1z, L->R[8][l] = r0x * r1y - r0y * r1x;
        L->degenerate[l] = !((l0 > 1e-12) & (l1 > 1e-12)); // & not &&: no branch in the lane loop
    }
}

// Forces -V R S g_j (S the linear stress of H = R^T F - I): add_element_forces' operations.
// Leaves the rotated gradients r_j = R g_j in r.
TC_VECTOR_CLONES static void lane_forces(const rest_lanes* restrict rest, tet_lanes* restrict L, tc_real mu, tc_real lambda, tc_real (*restrict r)[LANES]) {
    tc_real H[9][LANES], S[9][LANES], P[9][LANES], tr[LANES];
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c)
            for (int l = 0; l < LANES; ++l) H[3 * a + c][l] = L->R[a][l] * L->F[c][l] + L->R[3 + a][l] * L->F[3 + c][l] + L->R[6 + a][l] * L->F[6 + c][l];
    for (int l = 0; l < LANES; ++l) tr[l] = H[0][l] + H[4][l] + H[8][l] - 3;
    // S = mu (H + H^T - 2 I) + lambda tr I, spelt as the scalar formula's mu (H_ac + H_ca - 2 (a == c))
    // + (a == c ? lambda tr : 0) with the cases apart (+ 0.0 kept: it turns -0 into +0 there too)
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c)
            if (a == c)
                for (int l = 0; l < LANES; ++l) S[4 * a][l] = mu * (H[4 * a][l] + H[4 * a][l] - 2.0) + lambda * tr[l];
            else
                for (int l = 0; l < LANES; ++l) S[3 * a + c][l] = mu * (H[3 * a + c][l] + H[3 * c + a][l] - 0.0) + 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int l = 0; l < LANES; ++l)
                P[3 * i + j][l] = (L->R[3 * i][l] * S[j][l] + L->R[3 * i + 1][l] * S[3 + j][l] + L->R[3 * i + 2][l] * S[6 + j][l]) * -rest->volume[l];
    for (int v = 0; v < 4; ++v)
        for (int i = 0; i < 3; ++i)
            for (int l = 0; l < LANES; ++l) {
                tc_real gx = rest->g[3 * v][l], gy = rest->g[3 * v + 1][l], gz = rest->g[3 * v + 2][l];
                L->force[3 * v + i][l] = P[3 * i][l] * gx + P[3 * i + 1][l] * gy + P[3 * i + 2][l] * gz;
                r[3 * v + i][l] = L->R[3 * i][l] * gx + L->R[3 * i + 1][l] * gy + L->R[3 * i + 2][l] * gz;
            }
}

// The warped stiffness blocks mu V r_c r_a^T + lambda V r_a r_c^T from the rotated gradients,
// their diagonal shift mu V g_a . g_c kept apart (added after the block, as the scalar assembly
// did). Edge blocks are stored as (lower vertex index, higher): a swapped pair trades a and c.
TC_VECTOR_CLONES static void lane_blocks(const rest_lanes* restrict rest, tet_lanes* restrict L, tc_real mu, tc_real lambda, const tc_real (*restrict r)[LANES]) {
    for (int v = 0; v < 4; ++v)
        for (int l = 0; l < LANES; ++l) { // one lane's whole block at once: its 9 inputs stay in registers
            tc_real mu_v = mu * rest->volume[l], lambda_v = lambda * rest->volume[l], rv[3], mr[3], lr[3];
            for (int i = 0; i < 3; ++i) rv[i] = r[3 * v + i][l], mr[i] = rv[i] * mu_v, lr[i] = rv[i] * lambda_v;
            L->shift[v][l] = mu_v * (rest->g[3 * v][l] * rest->g[3 * v][l] + rest->g[3 * v + 1][l] * rest->g[3 * v + 1][l] + rest->g[3 * v + 2][l] * rest->g[3 * v + 2][l]);
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) L->block[v][3 * i + j][l] = mr[i] * rv[j] + lr[i] * rv[j];
        }
    for (int k = 0; k < 6; ++k) {
        int a = k_pairs[k][0], c = k_pairs[k][1];
        for (int l = 0; l < LANES; ++l) {
            tc_real mu_v = mu * rest->volume[l], lambda_v = lambda * rest->volume[l], mrc[3], lra[3];
            bool swap = rest->swap[k][l] != 0; // written out: selects inside a loop stop the vectoriser
            tc_real ax = r[3 * a][l], ay = r[3 * a + 1][l], az = r[3 * a + 2][l], cx = r[3 * c][l], cy = r[3 * c + 1][l], cz = r[3 * c + 2][l];
            const tc_real ra[3] = {swap ? cx : ax, swap ? cy : ay, swap ? cz : az}, rc[3] = {swap ? ax : cx, swap ? ay : cy, swap ? az : cz};
            for (int i = 0; i < 3; ++i) mrc[i] = rc[i] * mu_v, lra[i] = ra[i] * lambda_v;
            L->shift[4 + k][l] = mu_v * (rest->g[3 * a][l] * rest->g[3 * c][l] + rest->g[3 * a + 1][l] * rest->g[3 * c + 1][l] + rest->g[3 * a + 2][l] * rest->g[3 * c + 2][l]);
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) L->block[4 + k][3 * i + j][l] = mrc[i] * ra[j] + lra[i] * rc[j];
        }
    }
}

static void add_block(tc_mat3* target, const tet_lanes* L, int k, int l) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) target->m[i][j] += L->block[k][3 * i + j][l];
    for (int i = 0; i < 3; ++i) target->m[i][i] += L->shift[k][l];
}

// The chunk's results added in tet order (the sums of a tet-by-tet assembly).
static void scatter(tc_tet_body* b, const tet_lanes* L, int t0, int count) {
    for (int l = 0; l < count; ++l) {
        int t = t0 + l;
        const int* q = b->tets + 4 * t;
        const int* edges = b->solver.tet_edges + 6 * t;
        for (int v = 0; v < 4; ++v) b->f[q[v]] = tc_v3_add(b->f[q[v]], tc_v3(L->force[3 * v][l], L->force[3 * v + 1][l], L->force[3 * v + 2][l]));
        for (int v = 0; v < 4; ++v) add_block(&b->solver.diag[q[v]], L, v, l);
        for (int k = 0; k < 6; ++k) add_block(&b->solver.off[edges[k]], L, 4 + k, l);
    }
}

// Lanes whose QR lost a column get tc_tet_qr_rotation's answer (identity or any perpendicular).
static void fix_degenerate(tet_lanes* L, int count) {
    for (int l = 0; l < count; ++l) {
        if (L->degenerate[l] == 0) continue;
        tc_mat3 F, R;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) F.m[i][j] = L->F[3 * i + j][l];
        R = tc_tet_qr_rotation(F);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) L->R[3 * i + j][l] = R.m[i][j];
    }
}

void tc_tet_assemble(tc_tet_body* b) {
    memset(b->solver.diag, 0, (size_t)b->n * sizeof(tc_mat3));
    memset(b->solver.off, 0, (size_t)b->edge_count * sizeof(tc_mat3));
    tet_lanes L;
    for (int c = 0; c < chunk_count(b); ++c) {
        int t0 = c * LANES, count = b->tet_count - t0 < LANES ? b->tet_count - t0 : LANES;
        const rest_lanes* rest = &b->solver.rest_lanes[c];
        gather(b, &L, t0, count);
        lane_rotations(rest, &L);
        fix_degenerate(&L, count);
        tc_real r[12][LANES];
        lane_forces(rest, &L, b->mu, b->lambda, r);
        lane_blocks(rest, &L, b->mu, b->lambda, (const tc_real(*)[LANES])r);
        scatter(b, &L, t0, count);
    }
}
