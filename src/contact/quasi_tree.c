// Bounding-sphere hierarchy by recursive PCA splits (ALGORITHMS.md §9.6).
#include "contact/quasi_tree.h"
#include <stdlib.h>
#include "core/core.h"
#include "math/eigen.h"

static int push_node(tc_sphere_tree* t) {
    if (t->node_count == t->node_capacity) {
        int cap = t->node_capacity ? 2 * t->node_capacity : 64;
        tc_sphere_node* n = tc_realloc(t->nodes, (size_t)t->node_capacity * sizeof(tc_sphere_node),
                                       (size_t)cap * sizeof(tc_sphere_node));
        if (!n) return -1;
        t->nodes = n;
        t->node_capacity = cap;
    }
    return t->node_count++;
}

static void fit_sphere(tc_sphere_tree* t, tc_sphere_node* nd, const tc_vec3* pts) {
    tc_vec3 c = tc_v3_zero();
    for (int i = nd->begin; i < nd->end; ++i) c = tc_v3_add(c, pts[t->order[i]]);
    c = tc_v3_scale(c, 1.0 / (nd->end - nd->begin));
    tc_real r2 = 0, best = INFINITY;
    nd->representative = t->order[nd->begin];
    for (int i = nd->begin; i < nd->end; ++i) {
        tc_real d2 = tc_v3_len2(tc_v3_sub(pts[t->order[i]], c));
        if (d2 > r2) r2 = d2;
        if (d2 < best) best = d2, nd->representative = t->order[i];
    }
    nd->centroid = c;
    nd->radius = sqrt(r2);
}

// Partitions [begin, end) by the side of the plane through the centroid normal to the principal
// axis; stable (keeps index order within each side) for determinism. Returns the split point.
static int split_points(tc_sphere_tree* t, const tc_sphere_node* nd, const tc_vec3* pts, int* scratch) {
    tc_mat3 cov = tc_mat3_zero();
    for (int i = nd->begin; i < nd->end; ++i) {
        tc_vec3 d = tc_v3_sub(pts[t->order[i]], nd->centroid);
        cov = tc_mat3_add(cov, tc_mat3_outer(d, d));
    }
    tc_vec3 values;
    tc_mat3 vectors;
    tc_eigen_sym3(cov, &values, &vectors);
    tc_vec3 axis = tc_mat3_col(vectors, 2);
    int lo = 0, n = nd->end - nd->begin, hi = n;
    for (int i = nd->begin; i < nd->end; ++i)
        if (tc_v3_dot(tc_v3_sub(pts[t->order[i]], nd->centroid), axis) < 0) scratch[lo++] = t->order[i];
    for (int i = nd->end - 1; i >= nd->begin; --i)
        if (tc_v3_dot(tc_v3_sub(pts[t->order[i]], nd->centroid), axis) >= 0) scratch[--hi] = t->order[i];
    if (lo == 0 || lo == n) lo = n / 2; // coincident points: split by count
    memcpy(t->order + nd->begin, scratch, (size_t)n * sizeof(int));
    return nd->begin + lo;
}

static bool build_node(tc_sphere_tree* t, int index, const tc_vec3* pts, int leaf_size, int* scratch) {
    tc_sphere_node* nd = &t->nodes[index];
    fit_sphere(t, nd, pts);
    nd->child[0] = nd->child[1] = -1;
    if (nd->end - nd->begin <= leaf_size) return true;
    int mid = split_points(t, nd, pts, scratch);
    int begin = nd->begin, end = nd->end;
    int a = push_node(t), b = push_node(t);
    if (a < 0 || b < 0) return false;
    t->nodes[index].child[0] = a; // nd may have moved with the realloc
    t->nodes[index].child[1] = b;
    t->nodes[a].begin = begin, t->nodes[a].end = mid;
    t->nodes[b].begin = mid, t->nodes[b].end = end;
    return build_node(t, a, pts, leaf_size, scratch) && build_node(t, b, pts, leaf_size, scratch);
}

static int compare_real(const void* pa, const void* pb) {
    tc_real a = *(const tc_real*)pa, b = *(const tc_real*)pb;
    return (a > b) - (a < b);
}

bool tc_sphere_tree_build(tc_sphere_tree* t, const tc_vec3* pts, int count, int leaf_size) {
    memset(t, 0, sizeof(*t));
    if (count < 1) return false;
    if (leaf_size < 2) leaf_size = 2;
    t->point_count = count;
    t->order = tc_alloc((size_t)count * sizeof(int));
    int* scratch = tc_alloc((size_t)count * sizeof(int));
    bool ok = t->order && scratch;
    if (ok) {
        for (int i = 0; i < count; ++i) t->order[i] = i;
        int root = push_node(t);
        ok = root == 0;
        if (ok) {
            t->nodes[0].begin = 0, t->nodes[0].end = count;
            ok = build_node(t, 0, pts, leaf_size, scratch);
        }
    }
    if (scratch) tc_free(scratch, (size_t)count * sizeof(int));
    if (!ok) {
        tc_sphere_tree_destroy(t);
        return false;
    }
    int leaves = 0;
    for (int i = 0; i < t->node_count; ++i) leaves += t->nodes[i].child[0] < 0;
    tc_real* radii = tc_alloc((size_t)leaves * sizeof(tc_real));
    if (!radii) {
        tc_sphere_tree_destroy(t);
        return false;
    }
    leaves = 0;
    for (int i = 0; i < t->node_count; ++i)
        if (t->nodes[i].child[0] < 0) radii[leaves++] = t->nodes[i].radius;
    qsort(radii, (size_t)leaves, sizeof(tc_real), compare_real);
    t->leaf_radius = fmax(radii[leaves / 2], 1e-12);
    tc_free(radii, (size_t)leaves * sizeof(tc_real));
    return true;
}

void tc_sphere_tree_destroy(tc_sphere_tree* t) {
    if (t->nodes) tc_free(t->nodes, (size_t)t->node_capacity * sizeof(tc_sphere_node));
    if (t->order) tc_free(t->order, (size_t)t->point_count * sizeof(int));
    memset(t, 0, sizeof(*t));
}

bool tc_sphere_tree_in_cut(const tc_sphere_tree* t, int node, int level) {
    const tc_sphere_node* nd = &t->nodes[node];
    return nd->child[0] < 0 || nd->radius <= t->leaf_radius * ldexp(1.0, level - 1);
}

static int count_cut(const tc_sphere_tree* t, int node, int level) {
    if (tc_sphere_tree_in_cut(t, node, level)) return 1;
    return count_cut(t, t->nodes[node].child[0], level) + count_cut(t, t->nodes[node].child[1], level);
}

int tc_sphere_tree_cut_size(const tc_sphere_tree* t, int level) {
    return level <= 0 ? t->point_count : count_cut(t, 0, level);
}
