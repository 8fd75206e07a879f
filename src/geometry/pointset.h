// Point-set surface: a point cloud with normals, a uniform-grid neighbour query (radius and
// k-nearest), PCA normals and the MLS implicit surface of ALGORITHMS.md §8.1 (Alexa & Adamson).
// Shared by the quasi-rigid kind (seed 002) and the point-based kind (seed 000).
// All coordinates are in the frame the points were given in (callers keep clouds in body frames
// and transform queries, so rigid motion never rebuilds the grid).
#ifndef TC_POINTSET_H
#define TC_POINTSET_H
#include "tactus/base.h"
#include "tactus/math.h"

/// A point cloud with unit normals and a uniform grid over its bounding box.
typedef struct tc_pointset {
    tc_vec3* points;  ///< count points [m], owned
    tc_vec3* normals; ///< count unit normals, owned (zero until set or estimated)
    int count;
    tc_real h;        ///< MLS Gaussian width [m]; weights truncated at 3h
    // grid (CSR): the points of cell c are cell_items[cell_start[c] .. cell_start[c+1])
    tc_vec3 grid_origin;
    tc_real cell;     ///< cell edge [m]
    int dims[3];
    int* cell_start;  ///< dims product + 1 entries, owned
    int* cell_items;  ///< count entries, owned
} tc_pointset;

/// MLS evaluation at a query point (§8.1).
typedef struct tc_mls_eval {
    tc_vec3 a;        ///< weighted centroid a(x) [m]
    tc_vec3 n;        ///< weighted normal n(x) (unit)
    tc_real f;        ///< n(x)·(x − a(x)) ≈ signed distance [m], positive outside
    tc_real weight;   ///< Σθ_k (0 when no sample within 3h)
    int neighbours;   ///< samples within 3h
} tc_mls_eval;

/// Copies count points (and normals if non-NULL; they are normalised) and builds the grid.
/// h > 0 is the MLS width; h <= 0 picks 2x the mean nearest-neighbour spacing. Errors: count < 1,
/// NaN/inf coordinates, zero normals -> TC_RESULT_INVALID_ARGUMENT naming `path`.points[i].
tc_result tc_pointset_init(tc_pointset* ps, const tc_vec3* points, const tc_vec3* normals, int count, tc_real h,
                           const char* path, tc_error* error);
/// Frees everything owned; leaves ps zeroed. Accepts a zeroed pointset.
void tc_pointset_destroy(tc_pointset* ps);

/// Mean distance from each point to its nearest other point [m] (0 for a single point).
tc_real tc_pointset_mean_spacing(const tc_pointset* ps);

/// Calls visit(index, squared distance, user) for every point within radius r of x, in grid order
/// (deterministic). Returns the number visited.
typedef void tc_pointset_visit_fn(int index, tc_real dist2, void* user);
int tc_pointset_visit_radius(const tc_pointset* ps, tc_vec3 x, tc_real r, tc_pointset_visit_fn* visit, void* user);
/// Writes up to cap indices of the points within r of x (ascending index order); returns how many
/// lie within r (may exceed cap).
int tc_pointset_query_radius(const tc_pointset* ps, tc_vec3 x, tc_real r, int* out, int cap);
/// The k nearest points to x, nearest first (ties by index); returns min(k, count). out_dist2 may be NULL.
int tc_pointset_query_knn(const tc_pointset* ps, tc_vec3 x, int k, int* out, tc_real* out_dist2);
/// Index of the nearest point to x (-1 for an empty set).
int tc_pointset_nearest(const tc_pointset* ps, tc_vec3 x);

/// PCA normal at x from the Gaussian-weighted covariance of the samples within 3h: the
/// eigenvector of the smallest eigenvalue, oriented to agree with `reference` (flip if n·ref < 0).
/// flatness (may be NULL) gets λ_min/Σλ. Returns false when fewer than 3 samples are in reach.
bool tc_pointset_pca_normal(const tc_pointset* ps, tc_vec3 x, tc_vec3 reference, tc_vec3* normal, tc_real* flatness);
/// Estimates every normal by Gaussian-weighted PCA within 3h (tc_pointset_pca_normal), or over the
/// k nearest neighbours (k >= 3) where fewer than 3 samples are in reach. Orientation: agrees with
/// the existing normal when one is set, else points away from the cloud's centroid (correct for
/// star-shaped clouds such as spheres, ellipsoids, boxes).
void tc_pointset_estimate_normals(tc_pointset* ps, int k);

/// Evaluates the MLS surface at x. Returns false (and weight 0, f = +inf) when no sample lies
/// within 3h: x is outside and far.
bool tc_pointset_mls(const tc_pointset* ps, tc_vec3 x, tc_mls_eval* out);
/// Projects x onto the MLS surface by x <- x − f(x) n(x) until |f| < 1e-6 h (at most 20 times).
/// Writes the projection and the surface normal there. Returns false if x is out of reach.
bool tc_pointset_project(const tc_pointset* ps, tc_vec3 x, tc_vec3* proj, tc_vec3* normal);
/// Signed distance everywhere: the MLS distance within reach; beyond it, the piecewise-linear
/// estimate from the nearest sample s (sign of (x − s)·n_s, magnitude |x − s| − h, a lower bound on
/// the distance to the surface, which stays within about h of its samples). Never infinite.
tc_real tc_pointset_signed_distance_any(const tc_pointset* ps, tc_vec3 x, tc_vec3* normal);
/// Paper eq. 2: x is inside when (x − x_proj)·n(x_proj) < 0. Points out of reach are outside.
bool tc_pointset_inside(const tc_pointset* ps, tc_vec3 x);
/// Signed distance to the MLS surface [m] (negative inside) via the projection; +inf out of reach.
/// normal (may be NULL) gets the surface normal at the projection.
tc_real tc_pointset_signed_distance(const tc_pointset* ps, tc_vec3 x, tc_vec3* normal);

#endif
