#include "geometry/trimesh.h"

#include "core/core.h"

#include <stdlib.h>
#include <string.h>

void tc_trimesh_free(tc_trimesh* m) {
    if (!m) return;
    tc_free(m->vertices, (size_t)m->vertex_count * sizeof(tc_vec3));
    tc_free(m->triangles, 3 * (size_t)m->triangle_count * sizeof(int));
    tc_free(m->normals, (size_t)m->triangle_count * sizeof(tc_vec3));
    tc_free(m->order, (size_t)m->triangle_count * sizeof(int));
    tc_free(m->nodes, 2 * (size_t)m->triangle_count * sizeof(tc_trimesh_node));
    tc_free(m, sizeof *m);
}

static tc_aabb tri_box(const tc_trimesh* m, int t) {
    const int* v = m->triangles + 3 * t;
    tc_aabb b = tc_aabb_empty();
    for (int k = 0; k < 3; ++k) b = tc_aabb_add_point(b, m->vertices[v[k]]);
    return b;
}

static tc_vec3 tri_center(const tc_trimesh* m, int t) {
    const int* v = m->triangles + 3 * t;
    return tc_v3_scale(tc_v3_add(tc_v3_add(m->vertices[v[0]], m->vertices[v[1]]), m->vertices[v[2]]), 1.0 / 3);
}

// Median split along the longest axis by partial selection (nth-element style insertion is
// O(n^2) worst case; a full sort per level keeps it simple and O(n log^2 n)).
static const tc_trimesh* s_sort_mesh;
static int s_sort_axis;
static int compare_centers(const void* a, const void* b) {
    tc_real ca = tc_v3_get(tri_center(s_sort_mesh, *(const int*)a), s_sort_axis);
    tc_real cb = tc_v3_get(tri_center(s_sort_mesh, *(const int*)b), s_sort_axis);
    if (ca != cb) return ca < cb ? -1 : 1;
    return *(const int*)a - *(const int*)b;
}

static int build_node(tc_trimesh* m, int first, int count) {
    int id = m->node_count++;
    tc_trimesh_node* n = &m->nodes[id];
    n->box = tc_aabb_empty();
    for (int i = first; i < first + count; ++i) n->box = tc_aabb_union(n->box, tri_box(m, m->order[i]));
    n->first = first;
    n->count = count;
    n->left = n->right = -1;
    if (count <= 4) return id;
    tc_vec3 ext = tc_v3_sub(n->box.hi, n->box.lo);
    s_sort_mesh = m;
    s_sort_axis = ext.x > ext.y ? (ext.x > ext.z ? 0 : 2) : (ext.y > ext.z ? 1 : 2);
    qsort(m->order + first, (size_t)count, sizeof(int), compare_centers);
    int half = count / 2;
    int left = build_node(m, first, half);
    int right = build_node(m, first + half, count - half);
    m->nodes[id].left = left;
    m->nodes[id].right = right;
    return id;
}

static tc_result validate(const tc_vec3* v, int nv, const int* t, int nt, const char* path, tc_error* error) {
    if (!v || nv < 3 || !t || nt < 1)
        return tc_error_set(error, TC_RESULT_DEGENERATE, NULL, path, "a triangle mesh needs vertices and triangles");
    tc_aabb box = tc_aabb_empty();
    for (int i = 0; i < nv; ++i) {
        if (!tc_v3_is_finite(v[i])) return tc_error_set(error, TC_RESULT_NOT_FINITE, NULL, path, "vertex %d is not finite", i);
        box = tc_aabb_add_point(box, v[i]);
    }
    tc_real size2 = tc_v3_len2(tc_v3_sub(box.hi, box.lo));
    for (int i = 0; i < nt; ++i) {
        for (int k = 0; k < 3; ++k)
            if (t[3 * i + k] < 0 || t[3 * i + k] >= nv)
                return tc_error_set(error, TC_RESULT_OUT_OF_RANGE, NULL, path, "triangle %d: vertex index %d out of range (%d vertices)",
                                    i, t[3 * i + k], nv);
        tc_vec3 a = v[t[3 * i]], b = v[t[3 * i + 1]], c = v[t[3 * i + 2]];
        if (!(tc_v3_len(tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(c, a))) > 1e-12 * size2))
            return tc_error_set(error, TC_RESULT_DEGENERATE, NULL, path, "triangle %d has zero area (a sliver or repeated vertex)", i);
    }
    return TC_RESULT_OK;
}

tc_trimesh* tc_trimesh_create(const tc_vec3* v, int nv, const int* t, int nt, const char* path, tc_error* error) {
    if (validate(v, nv, t, nt, path, error) != TC_RESULT_OK) return NULL;
    tc_trimesh* m = tc_calloc(1, sizeof *m);
    if (!m) return NULL;
    m->vertex_count = nv;
    m->triangle_count = nt;
    m->vertices = tc_alloc((size_t)nv * sizeof(tc_vec3));
    m->triangles = tc_alloc(3 * (size_t)nt * sizeof(int));
    m->normals = tc_alloc((size_t)nt * sizeof(tc_vec3));
    m->order = tc_alloc((size_t)nt * sizeof(int));
    m->nodes = tc_alloc(2 * (size_t)nt * sizeof(tc_trimesh_node));
    if (!m->vertices || !m->triangles || !m->normals || !m->order || !m->nodes) {
        tc_trimesh_free(m);
        tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, path, "out of memory");
        return NULL;
    }
    memcpy(m->vertices, v, (size_t)nv * sizeof(tc_vec3));
    memcpy(m->triangles, t, 3 * (size_t)nt * sizeof(int));
    for (int i = 0; i < nt; ++i) {
        tc_vec3 a = v[t[3 * i]], b = v[t[3 * i + 1]], c = v[t[3 * i + 2]];
        m->normals[i] = tc_v3_normalize(tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(c, a)));
        m->order[i] = i;
    }
    build_node(m, 0, nt);
    return m;
}

tc_aabb tc_trimesh_bounds(const tc_trimesh* m) { return m->nodes[0].box; }

static int compare_ints(const void* a, const void* b) { return *(const int*)a - *(const int*)b; }

int tc_trimesh_query(const tc_trimesh* m, tc_aabb box, int* out, int capacity) {
    int stack[128], top = 0, found = 0;
    stack[top++] = 0;
    while (top > 0) {
        const tc_trimesh_node* n = &m->nodes[stack[--top]];
        if (!tc_aabb_overlap(n->box, box)) continue;
        if (n->left < 0) {
            for (int i = n->first; i < n->first + n->count; ++i)
                if (tc_aabb_overlap(tri_box(m, m->order[i]), box)) {
                    if (found < capacity) out[found] = m->order[i];
                    found++;
                }
        } else if (top + 2 <= 128) {
            stack[top++] = n->left;
            stack[top++] = n->right;
        }
    }
    qsort(out, (size_t)(found < capacity ? found : capacity), sizeof(int), compare_ints); // deterministic order
    return found;
}

tc_vec3 tc_closest_point_triangle(tc_vec3 p, tc_vec3 a, tc_vec3 b, tc_vec3 c) {
    tc_vec3 ab = tc_v3_sub(b, a), ac = tc_v3_sub(c, a), ap = tc_v3_sub(p, a);
    tc_real d1 = tc_v3_dot(ab, ap), d2 = tc_v3_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) return a;
    tc_vec3 bp = tc_v3_sub(p, b);
    tc_real d3 = tc_v3_dot(ab, bp), d4 = tc_v3_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) return b;
    tc_real vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return tc_v3_madd(a, d1 / (d1 - d3), ab);
    tc_vec3 cp = tc_v3_sub(p, c);
    tc_real d5 = tc_v3_dot(ab, cp), d6 = tc_v3_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) return c;
    tc_real vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return tc_v3_madd(a, d2 / (d2 - d6), ac);
    tc_real va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
        return tc_v3_madd(b, (d4 - d3) / ((d4 - d3) + (d5 - d6)), tc_v3_sub(c, b));
    tc_real denom = 1.0 / (va + vb + vc);
    return tc_v3_add(a, tc_v3_add(tc_v3_scale(ab, vb * denom), tc_v3_scale(ac, vc * denom)));
}

static tc_real aabb_distance2(tc_aabb b, tc_vec3 p) {
    tc_vec3 q = tc_v3_max(b.lo, tc_v3_min(p, b.hi));
    return tc_v3_len2(tc_v3_sub(p, q));
}

tc_real tc_trimesh_signed_distance(const tc_trimesh* m, tc_vec3 p, tc_vec3* normal) {
    tc_real best2 = 1e300;
    int best = 0;
    tc_vec3 best_q = p;
    int stack[128], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const tc_trimesh_node* n = &m->nodes[stack[--top]];
        if (aabb_distance2(n->box, p) >= best2) continue;
        if (n->left >= 0) {
            if (top + 2 <= 128) {
                stack[top++] = n->left;
                stack[top++] = n->right;
            }
            continue;
        }
        for (int i = n->first; i < n->first + n->count; ++i) {
            int t = m->order[i];
            const int* v = m->triangles + 3 * t;
            tc_vec3 q = tc_closest_point_triangle(p, m->vertices[v[0]], m->vertices[v[1]], m->vertices[v[2]]);
            tc_real d2 = tc_v3_len2(tc_v3_sub(p, q));
            if (d2 < best2 || (d2 == best2 && t < best)) {
                best2 = d2;
                best = t;
                best_q = q;
            }
        }
    }
    tc_real d = sqrt(best2);
    tc_vec3 off = tc_v3_sub(p, best_q);
    bool behind = tc_v3_dot(off, m->normals[best]) < 0;
    if (normal) *normal = d > 1e-12 ? tc_v3_scale(off, (behind ? -1 : 1) / d) : m->normals[best];
    return behind ? -d : d;
}

bool tc_trimesh_ray_cast(const tc_trimesh* m, tc_vec3 o, tc_vec3 dir, tc_real max_t, tc_real* t_out, tc_vec3* normal) {
    bool hit = false;
    tc_real best = max_t;
    for (int t = 0; t < m->triangle_count; ++t) { // Moller-Trumbore; rays are rare (picking)
        const int* v = m->triangles + 3 * t;
        tc_vec3 a = m->vertices[v[0]], e1 = tc_v3_sub(m->vertices[v[1]], a), e2 = tc_v3_sub(m->vertices[v[2]], a);
        tc_vec3 pv = tc_v3_cross(dir, e2);
        tc_real det = tc_v3_dot(e1, pv);
        if (det > -1e-300 && det < 1e-300) continue;
        tc_real inv = 1.0 / det;
        tc_vec3 tv = tc_v3_sub(o, a);
        tc_real u = tc_v3_dot(tv, pv) * inv;
        if (u < 0 || u > 1) continue;
        tc_vec3 qv = tc_v3_cross(tv, e1);
        tc_real w = tc_v3_dot(dir, qv) * inv;
        if (w < 0 || u + w > 1) continue;
        tc_real s = tc_v3_dot(e2, qv) * inv;
        if (s >= 0 && s <= best && tc_v3_dot(dir, m->normals[t]) < 0) {
            best = s;
            hit = true;
            if (normal) *normal = m->normals[t];
        }
    }
    if (hit) *t_out = best;
    return hit;
}

bool tc_segment_triangle(tc_vec3 p0, tc_vec3 p1, tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_real* t_out, tc_vec3* bary) {
    const tc_real eps = 1e-9;
    tc_vec3 d = tc_v3_sub(p1, p0), e1 = tc_v3_sub(b, a), e2 = tc_v3_sub(c, a);
    tc_vec3 P = tc_v3_cross(d, e2);
    tc_real det = tc_v3_dot(e1, P), scale = tc_v3_len(d) * tc_v3_len(e1) * tc_v3_len(e2);
    if (fabs(det) <= eps * scale) { // parallel: coplanar edges count when they touch the triangle
        tc_vec3 n = tc_v3_cross(e1, e2);
        tc_real nl = tc_v3_len(n);
        if (!(nl > 0) || fabs(tc_v3_dot(tc_v3_sub(p0, a), n)) > eps * nl * (tc_v3_len(e1) + tc_v3_len(d))) return false;
        for (int k = 0; k <= 8; ++k) { // sample the segment: a 2-D test in the plane
            tc_vec3 q = tc_v3_madd(p0, k / 8.0, d);
            if (tc_v3_dist(tc_closest_point_triangle(q, a, b, c), q) <= eps * (tc_v3_len(e1) + tc_v3_len(d))) {
                *t_out = k / 8.0;
                if (bary) *bary = tc_v3(1.0 / 3, 1.0 / 3, 1.0 / 3); // in-plane contact: no single crossing point
                return true;
            }
        }
        return false;
    }
    tc_vec3 T = tc_v3_sub(p0, a);
    tc_real u = tc_v3_dot(T, P) / det;
    if (u < -eps || u > 1 + eps) return false;
    tc_vec3 Q = tc_v3_cross(T, e1);
    tc_real v = tc_v3_dot(d, Q) / det;
    if (v < -eps || u + v > 1 + eps) return false;
    tc_real t = tc_v3_dot(e2, Q) / det;
    if (t < -eps || t > 1 + eps) return false;
    *t_out = t;
    if (bary) *bary = tc_v3(1 - u - v, u, v);
    return true;
}
