// Tet mesh construction and validation.
#include <stdlib.h>
#include "geometry/tetmesh.h"

tc_real tc_tet_volume(tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_vec3 d) {
    return tc_v3_dot(tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(c, a)), tc_v3_sub(d, a)) / 6;
}

bool tc_tet_barycentric(tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_vec3 d, tc_vec3 p, tc_real out[4]) {
    tc_real v = tc_tet_volume(a, b, c, d);
    if (!(fabs(v) > 0)) return false;
    out[0] = tc_tet_volume(p, b, c, d) / v;
    out[1] = tc_tet_volume(a, p, c, d) / v;
    out[2] = tc_tet_volume(a, b, p, d) / v;
    out[3] = 1 - out[0] - out[1] - out[2];
    return true;
}

// Kuhn split of the unit cube: six tets along the main diagonal 0-7, all the same orientation.
static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 3, 2, 7}, {0, 2, 6, 7}, {0, 6, 4, 7}, {0, 4, 5, 7}, {0, 5, 1, 7}};

tc_result tc_tetmesh_box(tc_tetmesh* mesh, tc_vec3 c, tc_vec3 size, int nx, int ny, int nz, tc_error* error) {
    memset(mesh, 0, sizeof(*mesh));
    if (nx < 1 || ny < 1 || nz < 1 || nx > 200 || ny > 200 || nz > 200)
        return tc_error_set(error, TC_RESULT_OUT_OF_RANGE, NULL, "resolution", "cell counts must be in [1, 200]");
    if (!(size.x > 0 && size.y > 0 && size.z > 0) || !tc_v3_is_finite(c) || !tc_v3_is_finite(size))
        return tc_error_set(error, TC_RESULT_OUT_OF_RANGE, NULL, "size", "box size must be finite and positive");
    mesh->node_count = (nx + 1) * (ny + 1) * (nz + 1);
    mesh->tet_count = 6 * nx * ny * nz;
    mesh->nodes = tc_alloc(sizeof(tc_vec3) * (size_t)mesh->node_count);
    mesh->tets = tc_alloc(sizeof(int[4]) * (size_t)mesh->tet_count);
    tc_vec3 lo = tc_v3_madd(c, -0.5, size);
    for (int k = 0; k <= nz; ++k)
        for (int j = 0; j <= ny; ++j)
            for (int i = 0; i <= nx; ++i)
                mesh->nodes[(k * (ny + 1) + j) * (nx + 1) + i] =
                    tc_v3(lo.x + size.x * i / nx, lo.y + size.y * j / ny, lo.z + size.z * k / nz);
    int t = 0;
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                int corner[8];
                for (int b = 0; b < 8; ++b)
                    corner[b] = ((k + (b >> 2 & 1)) * (ny + 1) + j + (b >> 1 & 1)) * (nx + 1) + i + (b & 1);
                for (int s = 0; s < 6; ++s) {
                    for (int v = 0; v < 4; ++v) mesh->tets[t][v] = corner[kuhn[s][v]];
                    tc_vec3* p = mesh->nodes;
                    int* q = mesh->tets[t];
                    if (tc_tet_volume(p[q[0]], p[q[1]], p[q[2]], p[q[3]]) < 0) { int tmp = q[2]; q[2] = q[3]; q[3] = tmp; }
                    ++t;
                }
            }
    return tc_tetmesh_finalize(mesh, NULL, error);
}

typedef struct face_key { int v[3]; int orig[3]; } face_key;

static int cmp_face(const void* a, const void* b) {
    const face_key *x = a, *y = b;
    for (int i = 0; i < 3; ++i)
        if (x->v[i] != y->v[i]) return x->v[i] < y->v[i] ? -1 : 1;
    // Ties broken by original winding so sort order never depends on qsort's internals.
    for (int i = 0; i < 3; ++i)
        if (x->orig[i] != y->orig[i]) return x->orig[i] < y->orig[i] ? -1 : 1;
    return 0;
}

static void sort3(int v[3]) {
    if (v[0] > v[1]) { int t = v[0]; v[0] = v[1]; v[1] = t; }
    if (v[1] > v[2]) { int t = v[1]; v[1] = v[2]; v[2] = t; }
    if (v[0] > v[1]) { int t = v[0]; v[0] = v[1]; v[1] = t; }
}

// Faces appearing once are boundary; winding (outward for positive tets) kept from the tet.
static void build_boundary(tc_tetmesh* mesh) {
    static const int face_of[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    int n = 4 * mesh->tet_count;
    face_key* faces = tc_alloc(sizeof(face_key) * (size_t)n);
    for (int t = 0; t < mesh->tet_count; ++t)
        for (int f = 0; f < 4; ++f) {
            face_key* k = &faces[4 * t + f];
            for (int i = 0; i < 3; ++i) k->orig[i] = k->v[i] = mesh->tets[t][face_of[f][i]];
            sort3(k->v);
        }
    qsort(faces, (size_t)n, sizeof(face_key), cmp_face);
    int count = 0;
    mesh->tris = tc_alloc(sizeof(int[3]) * (size_t)n);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && memcmp(faces[j].v, faces[i].v, sizeof(int[3])) == 0) ++j;
        if (j - i == 1) memcpy(mesh->tris[count++], faces[i].orig, sizeof(int[3]));
        i = j;
    }
    mesh->tri_count = count;
    tc_free(faces, sizeof(face_key) * (size_t)n);
}

tc_result tc_tetmesh_finalize(tc_tetmesh* mesh, const char* file, tc_error* error) {
    if (mesh->node_count < 4 || mesh->tet_count < 1)
        return tc_error_set(error, TC_RESULT_DEGENERATE, file, "tets", "need at least 4 nodes and 1 tet");
    for (int i = 0; i < mesh->node_count; ++i)
        if (!tc_v3_is_finite(mesh->nodes[i]))
            return tc_error_set(error, TC_RESULT_NOT_FINITE, file, "nodes", "node %d is not finite", i);
    for (int t = 0; t < mesh->tet_count; ++t) {
        const int* q = mesh->tets[t];
        for (int v = 0; v < 4; ++v)
            if (q[v] < 0 || q[v] >= mesh->node_count)
                return tc_error_set(error, TC_RESULT_OUT_OF_RANGE, file, "tets", "tet %d: node index %d out of range", t, q[v]);
        tc_vec3 a = mesh->nodes[q[0]], b = mesh->nodes[q[1]], c = mesh->nodes[q[2]], d = mesh->nodes[q[3]];
        tc_real vol = tc_tet_volume(a, b, c, d);
        tc_real edge = tc_v3_dist(a, b) + tc_v3_dist(a, c) + tc_v3_dist(a, d);
        if (!(vol > 1e-12 * edge * edge * edge))
            return tc_error_set(error, TC_RESULT_DEGENERATE, file, "tets", "tet %d is inverted or has zero volume (%g)", t, vol);
    }
    build_boundary(mesh);
    return TC_RESULT_OK;
}

tc_real tc_tetmesh_volume(const tc_tetmesh* mesh) {
    tc_real v = 0;
    for (int t = 0; t < mesh->tet_count; ++t) {
        const int* q = mesh->tets[t];
        v += tc_tet_volume(mesh->nodes[q[0]], mesh->nodes[q[1]], mesh->nodes[q[2]], mesh->nodes[q[3]]);
    }
    return v;
}

void tc_tetmesh_free(tc_tetmesh* mesh) {
    tc_free(mesh->nodes, sizeof(tc_vec3) * (size_t)mesh->node_count);
    tc_free(mesh->tets, sizeof(int[4]) * (size_t)mesh->tet_count);
    tc_free(mesh->tris, sizeof(int[3]) * (size_t)(4 * mesh->tet_count));
    memset(mesh, 0, sizeof(*mesh));
}
