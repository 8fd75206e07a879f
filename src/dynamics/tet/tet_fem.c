// Corotational linear elasticity (stiffness warping) on linear tetrahedra (ALGORITHMS §6).
// Rotations come from a Gram-Schmidt QR of the deformation gradient, which stays a proper
// rotation when an element inverts, so inverted elements push themselves back out. Once per
// step every element adds its forces and its warped stiffness R K R^T to a block sparse matrix
// (tet_assemble.c, the same operations as the scalar formulas here, vectorised across tets;
// tet_solve.c runs the implicit Euler step on it).
#include "dynamics/tet/tet.h"

#include <string.h>

/// Local vertex pairs of a tet's 6 edges, in the order of solver.tet_edges.
static const int k_pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

tc_real tc_tet_signed_volume(const tc_tet_body* b, int t) {
    const int* q = b->tets + 4 * t;
    tc_vec3 a = b->x[q[0]];
    return tc_v3_dot(tc_v3_sub(b->x[q[1]], a), tc_v3_cross(tc_v3_sub(b->x[q[2]], a), tc_v3_sub(b->x[q[3]], a))) / 6;
}

tc_mat3 tc_tet_qr_rotation(tc_mat3 F) {
    tc_vec3 c0 = tc_mat3_col(F, 0), c1 = tc_mat3_col(F, 1);
    tc_real l0 = tc_v3_len(c0);
    if (!(l0 > 1e-12)) return tc_mat3_identity();
    tc_vec3 r0 = tc_v3_scale(c0, 1 / l0);
    tc_vec3 r1 = tc_v3_madd(c1, -tc_v3_dot(r0, c1), r0);
    tc_real l1 = tc_v3_len(r1);
    if (!(l1 > 1e-12)) { // the first two columns are parallel: any perpendicular will do
        tc_vec3 t1, t2;
        tc_v3_basis(r0, &t1, &t2);
        r1 = t1;
    } else {
        r1 = tc_v3_scale(r1, 1 / l1);
    }
    return tc_mat3_from_cols(r0, r1, tc_v3_cross(r0, r1));
}

static tc_mat3 deformation_gradient(const tc_tet_body* b, int t) {
    const int* q = b->tets + 4 * t;
    tc_vec3 x0 = b->x[q[0]];
    tc_mat3 Ds = tc_mat3_from_cols(tc_v3_sub(b->x[q[1]], x0), tc_v3_sub(b->x[q[2]], x0), tc_v3_sub(b->x[q[3]], x0));
    return tc_mat3_mul(Ds, b->inv_dm[t]);
}

// f_j += -V R S g_j with the linear stress S = mu (H + H^T) + lambda tr(H) I of the rest-frame
// displacement gradient H = R^T F - I (that is sum_j (R^T x_j - X_j) g_j^T: the gradients sum
// to zero, so only differences across the tet enter and absolute positions cancel exactly).
static void add_element_forces(tc_tet_body* b, int t, tc_mat3 R, tc_mat3 F) {
    tc_mat3 H = tc_mat3_mul(tc_mat3_transpose(R), F), S;
    tc_real tr = H.m[0][0] + H.m[1][1] + H.m[2][2] - 3;
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) S.m[a][c] = b->mu * (H.m[a][c] + H.m[c][a] - 2 * (a == c)) + (a == c ? b->lambda * tr : 0);
    tc_mat3 P = tc_mat3_scale(tc_mat3_mul(R, S), -b->volume[t]);
    const int* q = b->tets + 4 * t;
    const tc_vec3* g = b->grads + 4 * t;
    for (int j = 0; j < 4; ++j) b->f[q[j]] = tc_v3_add(b->f[q[j]], tc_mat3_mul_v3(P, g[j]));
}

void tc_tet_elastic_forces(tc_tet_body* b) {
    for (int t = 0; t < b->tet_count; ++t) {
        tc_mat3 F = deformation_gradient(b, t);
        add_element_forces(b, t, tc_tet_qr_rotation(F), F);
    }
}

static tc_vec3 transpose_times(const tc_mat3* B, tc_vec3 v) {
    return tc_v3(B->m[0][0] * v.x + B->m[1][0] * v.y + B->m[2][0] * v.z, B->m[0][1] * v.x + B->m[1][1] * v.y + B->m[2][1] * v.z,
                 B->m[0][2] * v.x + B->m[1][2] * v.y + B->m[2][2] * v.z);
}

void tc_tet_multiply(const tc_tet_body* b, const tc_vec3* d, tc_vec3* y) {
    const tc_tet_solver* s = &b->solver;
    for (int i = 0; i < b->n; ++i) {
        if (b->fixed[i]) {
            y[i] = tc_v3_zero();
            continue;
        }
        tc_vec3 sum = tc_mat3_mul_v3(s->diag[i], d[i]);
        for (int k = b->adj_start[i]; k < b->adj_start[i + 1]; ++k) {
            int j = b->adj[k];
            const tc_mat3* B = &s->off[s->adj_edge[k]];
            sum = tc_v3_add(sum, j > i ? tc_mat3_mul_v3(*B, d[j]) : transpose_times(B, d[j]));
        }
        y[i] = sum;
    }
}

static int find_slot(const tc_tet_body* b, int row, int col) {
    for (int k = b->adj_start[row]; k < b->adj_start[row + 1]; ++k)
        if (b->adj[k] == col) return k;
    return -1;
}

// Gradients of the 4 shape functions in the rest frame: rows of Dm^-1, the first minus their sum.
static void rest_gradients(const tc_mat3* G, tc_vec3 g[4]) {
    for (int j = 1; j < 4; ++j) g[j] = tc_v3(G->m[j - 1][0], G->m[j - 1][1], G->m[j - 1][2]);
    g[0] = tc_v3_neg(tc_v3_add(tc_v3_add(g[1], g[2]), g[3]));
}

// Full block rows for the solve: row i lists its columns below i, then those above.
static void build_rows(tc_tet_body* b) {
    tc_tet_solver* s = &b->solver;
    for (int i = 0; i < b->n; ++i) {
        int k = b->adj_start[i];
        for (int pass = 0; pass < 2; ++pass) {
            if (pass == 1) s->row_split[i] = k;
            for (int a = b->adj_start[i]; a < b->adj_start[i + 1]; ++a) {
                if ((b->adj[a] > i) != (pass == 1)) continue;
                s->row_col[k] = b->adj[a], s->row_edge[k] = s->adj_edge[a];
                k++;
            }
        }
    }
}

bool tc_tet_solver_init(tc_tet_body* b) {
    size_t n = (size_t)b->n, nt = (size_t)b->tet_count, nnz = (size_t)b->adj_start[b->n], ne = (size_t)b->edge_count;
    tc_tet_solver* s = &b->solver;
    b->grads = tc_alloc(4 * nt * sizeof(tc_vec3));
    s->diag = tc_alloc(n * sizeof(tc_mat3)), s->inv_diag = tc_alloc(n * sizeof(tc_mat3)), s->row_split = tc_alloc(n * sizeof(int));
    s->off = tc_alloc(ne * sizeof(tc_mat3)), s->adj_edge = tc_alloc(nnz * sizeof(int)), s->tet_edges = tc_alloc(6 * nt * sizeof(int));
    s->row_col = tc_alloc(nnz * sizeof(int)), s->row_edge = tc_alloc(nnz * sizeof(int));
    s->work = tc_calloc(7 * n, sizeof(tc_vec3)), s->dv = tc_calloc(n, sizeof(tc_vec3)), s->dv_prev = tc_calloc(n, sizeof(tc_vec3));
    if (!b->grads || !s->diag || !s->inv_diag || !s->row_split || !s->work || !s->dv || !s->dv_prev) return false;
    if (nnz > 0 && (!s->off || !s->adj_edge || !s->tet_edges || !s->row_col || !s->row_edge)) return false;
    for (int e = 0; e < b->edge_count; ++e) { // every edge is in both rows' adjacency
        int u = b->edges[2 * e], v = b->edges[2 * e + 1];
        s->adj_edge[find_slot(b, u, v)] = e;
        s->adj_edge[find_slot(b, v, u)] = e;
    }
    build_rows(b);
    for (int t = 0; t < b->tet_count; ++t) {
        const int* q = b->tets + 4 * t;
        rest_gradients(&b->inv_dm[t], b->grads + 4 * t);
        for (int k = 0; k < 6; ++k) { // every tet edge is in the adjacency
            int a = q[k_pairs[k][0]], c = q[k_pairs[k][1]];
            s->tet_edges[6 * t + k] = s->adj_edge[find_slot(b, a, c)];
        }
    }
    return tc_tet_rest_lanes_init(b);
}

void tc_tet_solver_free(tc_tet_body* b) {
    size_t n = (size_t)b->n, nt = (size_t)b->tet_count, nnz = b->adj_start ? (size_t)b->adj_start[b->n] : 0, ne = (size_t)b->edge_count;
    tc_tet_solver* s = &b->solver;
    tc_tet_rest_lanes_free(b);
    tc_free(b->grads, 4 * nt * sizeof(tc_vec3));
    tc_free(s->diag, n * sizeof(tc_mat3)), tc_free(s->inv_diag, n * sizeof(tc_mat3)), tc_free(s->row_split, n * sizeof(int));
    tc_free(s->off, ne * sizeof(tc_mat3)), tc_free(s->adj_edge, nnz * sizeof(int)), tc_free(s->tet_edges, 6 * nt * sizeof(int));
    tc_free(s->row_col, nnz * sizeof(int)), tc_free(s->row_edge, nnz * sizeof(int));
    tc_free(s->work, 7 * n * sizeof(tc_vec3)), tc_free(s->dv, n * sizeof(tc_vec3)), tc_free(s->dv_prev, n * sizeof(tc_vec3));
    memset(s, 0, sizeof *s);
    b->grads = NULL;
}

void tc_tet_update_surface(tc_tet_body* b) {
    b->aabb = tc_aabb_empty();
    for (int i = 0; i < b->n; ++i) {
        b->aabb = tc_aabb_add_point(b->aabb, b->x[i]);
        b->vertex_normals[i] = tc_v3_zero();
    }
    for (int f = 0; f < b->face_count; ++f) { // area-weighted vertex normals of the surface
        const int* v = b->faces + 3 * f;
        tc_vec3 n = tc_v3_cross(tc_v3_sub(b->x[v[1]], b->x[v[0]]), tc_v3_sub(b->x[v[2]], b->x[v[0]]));
        for (int k = 0; k < 3; ++k) b->vertex_normals[v[k]] = tc_v3_add(b->vertex_normals[v[k]], n);
    }
    for (int i = 0; i < b->n; ++i)
        if (b->on_surface[i]) b->vertex_normals[i] = tc_v3_normalize(b->vertex_normals[i]);
}
