// Point-set surface: uniform grid, neighbour queries, PCA normals, MLS surface (ALGORITHMS.md §8.1).
#include "geometry/pointset.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "core/core.h"
#include "math/eigen.h"

// Grid memory stays linear in the point count: at most this many cells per point.
#define TC_POINTSET_CELLS_PER_POINT 8
#define TC_MLS_REACH 3.0 // weights are truncated at 3h

static void free_grid(tc_pointset* ps) {
    int cells = ps->dims[0] * ps->dims[1] * ps->dims[2];
    if (ps->cell_start) tc_free(ps->cell_start, (size_t)(cells + 1) * sizeof(int));
    if (ps->cell_items) tc_free(ps->cell_items, (size_t)ps->count * sizeof(int));
    ps->cell_start = NULL;
    ps->cell_items = NULL;
    ps->dims[0] = ps->dims[1] = ps->dims[2] = 0;
}

static int cell_coord(tc_real v, tc_real origin, tc_real cell, int dim) {
    tc_real c = floor((v - origin) / cell);
    if (c < 0) return 0;
    if (c > dim - 1) return dim - 1;
    return (int)c;
}

static int cell_index(const tc_pointset* ps, tc_vec3 p) {
    int i = cell_coord(p.x, ps->grid_origin.x, ps->cell, ps->dims[0]);
    int j = cell_coord(p.y, ps->grid_origin.y, ps->cell, ps->dims[1]);
    int k = cell_coord(p.z, ps->grid_origin.z, ps->cell, ps->dims[2]);
    return (k * ps->dims[1] + j) * ps->dims[0] + i;
}

// Counting sort of the points into cells: deterministic, items ascend by index inside a cell.
static tc_result build_grid(tc_pointset* ps, tc_real cell) {
    free_grid(ps);
    tc_aabb box = tc_aabb_empty();
    for (int i = 0; i < ps->count; ++i) box = tc_aabb_add_point(box, ps->points[i]);
    tc_vec3 ext = tc_v3_sub(box.hi, box.lo);
    tc_real max_ext = fmax(ext.x, fmax(ext.y, ext.z));
    if (!(cell > 0)) cell = max_ext > 0 ? max_ext : 1;
    double max_cells = (double)TC_POINTSET_CELLS_PER_POINT * ps->count + 64;
    for (;;) {
        double n = 1;
        for (int a = 0; a < 3; ++a) n *= floor(tc_v3_get(ext, a) / cell) + 1;
        if (n <= max_cells) break;
        cell *= 1.01 * cbrt(n / max_cells);
    }
    ps->cell = cell;
    ps->grid_origin = box.lo;
    for (int a = 0; a < 3; ++a) ps->dims[a] = (int)floor(tc_v3_get(ext, a) / cell) + 1;
    int cells = ps->dims[0] * ps->dims[1] * ps->dims[2];
    ps->cell_start = tc_calloc((size_t)cells + 1, sizeof(int));
    ps->cell_items = tc_alloc((size_t)ps->count * sizeof(int));
    if (!ps->cell_start || !ps->cell_items) return TC_RESULT_OUT_OF_MEMORY;
    for (int i = 0; i < ps->count; ++i) ps->cell_start[cell_index(ps, ps->points[i]) + 1]++;
    for (int c = 0; c < cells; ++c) ps->cell_start[c + 1] += ps->cell_start[c];
    int* fill = tc_alloc((size_t)cells * sizeof(int));
    if (!fill) return TC_RESULT_OUT_OF_MEMORY;
    memcpy(fill, ps->cell_start, (size_t)cells * sizeof(int));
    for (int i = 0; i < ps->count; ++i) ps->cell_items[fill[cell_index(ps, ps->points[i])]++] = i;
    tc_free(fill, (size_t)cells * sizeof(int));
    return TC_RESULT_OK;
}

tc_result tc_pointset_init(tc_pointset* ps, const tc_vec3* points, const tc_vec3* normals, int count, tc_real h,
                           const char* path, tc_error* error) {
    memset(ps, 0, sizeof(*ps));
    const char* name = path ? path : "pointset";
    if (!points || count < 1)
        return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, NULL, name, "a point set needs at least one point");
    if (!isfinite(h))
        return tc_error_set(error, TC_RESULT_NOT_FINITE, NULL, name, "MLS width h is not finite");
    for (int i = 0; i < count; ++i) {
        if (!tc_v3_is_finite(points[i]))
            return tc_error_set(error, TC_RESULT_NOT_FINITE, NULL, name, "points[%d] is not finite", i);
        if (normals && !(tc_v3_is_finite(normals[i]) && tc_v3_len2(normals[i]) > 1e-24))
            return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, NULL, name,
                                "normals[%d] is zero or not finite", i);
    }
    ps->count = count;
    ps->points = tc_alloc((size_t)count * sizeof(tc_vec3));
    ps->normals = tc_calloc((size_t)count, sizeof(tc_vec3));
    if (!ps->points || !ps->normals) {
        tc_pointset_destroy(ps);
        return tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, name, "out of memory for %d points", count);
    }
    memcpy(ps->points, points, (size_t)count * sizeof(tc_vec3));
    if (normals)
        for (int i = 0; i < count; ++i) ps->normals[i] = tc_v3_normalize(normals[i]);
    // Provisional grid to measure the spacing, then the final grid with cell = h.
    tc_real cell0 = 0;
    if (count > 1) {
        tc_aabb box = tc_aabb_empty();
        for (int i = 0; i < count; ++i) box = tc_aabb_add_point(box, points[i]);
        cell0 = tc_v3_dist(box.lo, box.hi) / sqrt((tc_real)count);
    }
    tc_result r = build_grid(ps, cell0);
    if (r == TC_RESULT_OK) {
        tc_real spacing = tc_pointset_mean_spacing(ps);
        ps->h = h > 0 ? h : (spacing > 0 ? 2 * spacing : 1);
        r = build_grid(ps, ps->h);
    }
    if (r != TC_RESULT_OK) {
        tc_pointset_destroy(ps);
        return tc_error_set(error, r, NULL, name, "out of memory for the grid");
    }
    return TC_RESULT_OK;
}

void tc_pointset_destroy(tc_pointset* ps) {
    free_grid(ps);
    if (ps->points) tc_free(ps->points, (size_t)ps->count * sizeof(tc_vec3));
    if (ps->normals) tc_free(ps->normals, (size_t)ps->count * sizeof(tc_vec3));
    memset(ps, 0, sizeof(*ps));
}

int tc_pointset_visit_radius(const tc_pointset* ps, tc_vec3 x, tc_real r, tc_pointset_visit_fn* visit, void* user) {
    if (ps->count == 0 || !(r >= 0) || !tc_v3_is_finite(x)) return 0;
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        tc_real xa = tc_v3_get(x, a), oa = tc_v3_get(ps->grid_origin, a);
        tc_real l = floor((xa - r - oa) / ps->cell), u = floor((xa + r - oa) / ps->cell);
        if (u < 0 || l > ps->dims[a] - 1) return 0;
        lo[a] = l < 0 ? 0 : (int)l;
        hi[a] = u > ps->dims[a] - 1 ? ps->dims[a] - 1 : (int)u;
    }
    tc_real r2 = r * r;
    int found = 0;
    for (int k = lo[2]; k <= hi[2]; ++k)
        for (int j = lo[1]; j <= hi[1]; ++j)
            for (int i = lo[0]; i <= hi[0]; ++i) {
                int c = (k * ps->dims[1] + j) * ps->dims[0] + i;
                for (int t = ps->cell_start[c]; t < ps->cell_start[c + 1]; ++t) {
                    int idx = ps->cell_items[t];
                    tc_real d2 = tc_v3_len2(tc_v3_sub(ps->points[idx], x));
                    if (d2 <= r2) {
                        if (visit) visit(idx, d2, user);
                        ++found;
                    }
                }
            }
    return found;
}

typedef struct neighbour {
    tc_real d2;
    int index;
} neighbour;

typedef struct neighbour_list {
    TC_ARRAY(neighbour) items;
    bool failed;
} neighbour_list;

static void collect_neighbour(int index, tc_real d2, void* user) {
    neighbour_list* list = user;
    neighbour nb = {d2, index};
    if (!tc_array_push(&list->items, nb)) list->failed = true;
}

static int compare_neighbour(const void* pa, const void* pb) {
    const neighbour* a = pa;
    const neighbour* b = pb;
    if (a->d2 != b->d2) return a->d2 < b->d2 ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static int compare_int(const void* pa, const void* pb) {
    int a = *(const int*)pa, b = *(const int*)pb;
    return (a > b) - (a < b);
}

int tc_pointset_query_radius(const tc_pointset* ps, tc_vec3 x, tc_real r, int* out, int cap) {
    neighbour_list list = {{0}, false};
    int found = tc_pointset_visit_radius(ps, x, r, collect_neighbour, &list);
    int n = list.items.count < cap ? list.items.count : cap;
    if (n > 0) {
        int* all = tc_alloc((size_t)list.items.count * sizeof(int));
        if (all) {
            for (int i = 0; i < list.items.count; ++i) all[i] = list.items.data[i].index;
            qsort(all, (size_t)list.items.count, sizeof(int), compare_int);
            memcpy(out, all, (size_t)n * sizeof(int));
            tc_free(all, (size_t)list.items.count * sizeof(int));
        }
    }
    tc_array_free(&list.items);
    return found;
}

int tc_pointset_query_knn(const tc_pointset* ps, tc_vec3 x, int k, int* out, tc_real* out_dist2) {
    if (k <= 0 || ps->count == 0 || !tc_v3_is_finite(x)) return 0;
    if (k > ps->count) k = ps->count;
    // Every point within r is found, so once >= k lie within r the k nearest are among them.
    tc_vec3 ext = tc_v3_sub(tc_v3_scale(tc_v3(ps->dims[0], ps->dims[1], ps->dims[2]), ps->cell), tc_v3_zero());
    tc_vec3 centre = tc_v3_madd(ps->grid_origin, 0.5, ext);
    tc_real r_all = tc_v3_dist(x, centre) + tc_v3_len(ext);
    tc_real r = ps->cell;
    neighbour_list list = {{0}, false};
    for (;;) {
        tc_array_clear(&list.items);
        tc_pointset_visit_radius(ps, x, r, collect_neighbour, &list);
        if (list.failed || list.items.count >= k || r > r_all) break;
        r *= 2;
    }
    int n = 0;
    if (!list.failed) {
        qsort(list.items.data, (size_t)list.items.count, sizeof(neighbour), compare_neighbour);
        n = list.items.count < k ? list.items.count : k;
        for (int i = 0; i < n; ++i) {
            out[i] = list.items.data[i].index;
            if (out_dist2) out_dist2[i] = list.items.data[i].d2;
        }
    }
    tc_array_free(&list.items);
    return n;
}

int tc_pointset_nearest(const tc_pointset* ps, tc_vec3 x) {
    int idx = -1;
    return tc_pointset_query_knn(ps, x, 1, &idx, NULL) == 1 ? idx : -1;
}

tc_real tc_pointset_mean_spacing(const tc_pointset* ps) {
    if (ps->count < 2) return 0;
    tc_real sum = 0;
    for (int i = 0; i < ps->count; ++i) {
        int idx[2];
        tc_real d2[2];
        // the point itself is its own nearest (distance 0), so take the second
        if (tc_pointset_query_knn(ps, ps->points[i], 2, idx, d2) == 2) sum += sqrt(d2[1]);
    }
    return sum / ps->count;
}

// ---- Gaussian-weighted moments -----------------------------------------------------------

typedef struct weighted_sums {
    const tc_pointset* ps;
    tc_real inv_h2;
    tc_real w;       // Σθ
    tc_vec3 wp;      // Σθ s
    tc_vec3 wn;      // Σθ n
    int count;
} weighted_sums;

static void accumulate_weights(int index, tc_real d2, void* user) {
    weighted_sums* s = user;
    tc_real theta = exp(-d2 * s->inv_h2);
    s->w += theta;
    s->wp = tc_v3_madd(s->wp, theta, s->ps->points[index]);
    s->wn = tc_v3_madd(s->wn, theta, s->ps->normals[index]);
    s->count++;
}

static weighted_sums weigh(const tc_pointset* ps, tc_vec3 x) {
    weighted_sums s = {ps, 1 / (ps->h * ps->h), 0, {0, 0, 0}, {0, 0, 0}, 0};
    tc_pointset_visit_radius(ps, x, TC_MLS_REACH * ps->h, accumulate_weights, &s);
    return s;
}

bool tc_pointset_mls(const tc_pointset* ps, tc_vec3 x, tc_mls_eval* out) {
    weighted_sums s = weigh(ps, x);
    out->neighbours = s.count;
    out->weight = s.w;
    tc_real nlen = tc_v3_len(s.wn);
    if (!(s.w > DBL_MIN) || !(nlen > 1e-12 * s.w)) {
        out->a = x;
        out->n = tc_v3(0, 0, 1);
        out->f = INFINITY;
        out->weight = 0;
        return false;
    }
    out->a = tc_v3_scale(s.wp, 1 / s.w);
    out->n = tc_v3_scale(s.wn, 1 / nlen);
    out->f = tc_v3_dot(out->n, tc_v3_sub(x, out->a));
    return true;
}

bool tc_pointset_project(const tc_pointset* ps, tc_vec3 x, tc_vec3* proj, tc_vec3* normal) {
    tc_mls_eval e;
    if (!tc_pointset_mls(ps, x, &e)) {
        if (proj) *proj = x;
        if (normal) *normal = tc_v3(0, 0, 1);
        return false;
    }
    for (int it = 0; it < 20 && fabs(e.f) >= 1e-6 * ps->h; ++it) {
        tc_vec3 next = tc_v3_madd(x, -e.f, e.n);
        tc_mls_eval en;
        if (!tc_pointset_mls(ps, next, &en)) break; // stepped out of reach: keep the last good point
        x = next;
        e = en;
    }
    if (proj) *proj = x;
    if (normal) *normal = e.n;
    return true;
}

tc_real tc_pointset_signed_distance(const tc_pointset* ps, tc_vec3 x, tc_vec3* normal) {
    tc_vec3 p, n;
    if (!tc_pointset_project(ps, x, &p, &n)) {
        if (normal) *normal = n;
        return INFINITY;
    }
    if (normal) *normal = n;
    tc_vec3 d = tc_v3_sub(x, p);
    tc_real len = tc_v3_len(d);
    return tc_v3_dot(d, n) < 0 ? -len : len;
}

tc_real tc_pointset_signed_distance_any(const tc_pointset* ps, tc_vec3 x, tc_vec3* normal) {
    tc_real d = tc_pointset_signed_distance(ps, x, normal);
    if (isfinite(d)) return d;
    int k = tc_pointset_nearest(ps, x);
    if (k < 0) return INFINITY;
    tc_vec3 off = tc_v3_sub(x, ps->points[k]);
    tc_real len = fmax(tc_v3_len(off) - ps->h, 0);
    if (normal) *normal = ps->normals[k];
    return tc_v3_dot(off, ps->normals[k]) < 0 ? -len : len;
}

bool tc_pointset_inside(const tc_pointset* ps, tc_vec3 x) {
    tc_vec3 p, n;
    if (!tc_pointset_project(ps, x, &p, &n)) return false;
    return tc_v3_dot(tc_v3_sub(x, p), n) < 0;
}

// ---- PCA normals --------------------------------------------------------------------------

typedef struct covariance_sums {
    const tc_pointset* ps;
    tc_real inv_h2;
    tc_vec3 a;
    tc_mat3 c;
} covariance_sums;

static void accumulate_covariance(int index, tc_real d2, void* user) {
    covariance_sums* s = user;
    tc_real theta = exp(-d2 * s->inv_h2);
    tc_vec3 d = tc_v3_sub(s->ps->points[index], s->a);
    s->c = tc_mat3_add(s->c, tc_mat3_scale(tc_mat3_outer(d, d), theta));
}

static bool pca_from_covariance(tc_mat3 c, tc_vec3 reference, tc_vec3* normal, tc_real* flatness) {
    tc_vec3 values;
    tc_mat3 vectors;
    tc_eigen_sym3(c, &values, &vectors);
    tc_real sum = values.x + values.y + values.z;
    if (!(sum > 0)) return false;
    tc_vec3 n = tc_v3_normalize(tc_mat3_col(vectors, 0));
    if (tc_v3_dot(n, reference) < 0) n = tc_v3_neg(n);
    *normal = n;
    if (flatness) *flatness = values.x / sum;
    return true;
}

bool tc_pointset_pca_normal(const tc_pointset* ps, tc_vec3 x, tc_vec3 reference, tc_vec3* normal, tc_real* flatness) {
    weighted_sums s = weigh(ps, x);
    if (s.count < 3 || !(s.w > DBL_MIN)) return false;
    covariance_sums cs = {ps, 1 / (ps->h * ps->h), tc_v3_scale(s.wp, 1 / s.w), tc_mat3_zero()};
    tc_pointset_visit_radius(ps, x, TC_MLS_REACH * ps->h, accumulate_covariance, &cs);
    return pca_from_covariance(cs.c, reference, normal, flatness);
}

void tc_pointset_estimate_normals(tc_pointset* ps, int k) {
    if (k < 3) k = 3;
    if (ps->count < 3) return;
    tc_vec3 centroid = tc_v3_zero();
    for (int i = 0; i < ps->count; ++i) centroid = tc_v3_add(centroid, ps->points[i]);
    centroid = tc_v3_scale(centroid, 1.0 / ps->count);
    int* idx = tc_alloc((size_t)k * sizeof(int));
    tc_vec3* estimated = tc_alloc((size_t)ps->count * sizeof(tc_vec3));
    if (!idx || !estimated) {
        if (idx) tc_free(idx, (size_t)k * sizeof(int));
        if (estimated) tc_free(estimated, (size_t)ps->count * sizeof(tc_vec3));
        return;
    }
    for (int i = 0; i < ps->count; ++i) {
        tc_vec3 old = ps->normals[i];
        tc_vec3 ref = tc_v3_len2(old) > 0 ? old : tc_v3_sub(ps->points[i], centroid);
        tc_vec3 nrm = old;
        // Gaussian-weighted PCA (symmetric about the point, so curvature does not tilt it);
        // fall back to the k nearest for sparse clouds.
        if (!tc_pointset_pca_normal(ps, ps->points[i], ref, &nrm, NULL)) {
            int n = tc_pointset_query_knn(ps, ps->points[i], k, idx, NULL);
            tc_vec3 mean = tc_v3_zero();
            for (int j = 0; j < n; ++j) mean = tc_v3_add(mean, ps->points[idx[j]]);
            mean = tc_v3_scale(mean, 1.0 / n);
            tc_mat3 c = tc_mat3_zero();
            for (int j = 0; j < n; ++j) {
                tc_vec3 d = tc_v3_sub(ps->points[idx[j]], mean);
                c = tc_mat3_add(c, tc_mat3_outer(d, d));
            }
            if (!pca_from_covariance(c, ref, &nrm, NULL) && tc_v3_len2(old) == 0) nrm = tc_v3_normalize(ref);
        }
        estimated[i] = nrm;
    }
    memcpy(ps->normals, estimated, (size_t)ps->count * sizeof(tc_vec3));
    tc_free(estimated, (size_t)ps->count * sizeof(tc_vec3));
    tc_free(idx, (size_t)k * sizeof(int));
}
