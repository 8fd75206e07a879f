// Uniform point grid and the MLS point-set surface over surfels (ALGORITHMS.md §8.1).
#ifndef TC_SURFEL_SURFACE_H
#define TC_SURFEL_SURFACE_H

#include "core/core.h"

/// Dense uniform grid over a point set (counting sort, no hashing collisions).
typedef struct tc_point_grid {
    tc_vec3 origin;
    tc_real cell;
    int dims[3];
    int* start;        ///< dims product + 1 entries
    int* items;        ///< point indices sorted by cell
    int item_count, cell_count;
} tc_point_grid;

/// Builds the grid; cell is enlarged if the box would need more than ~4 cells per point.
bool tc_point_grid_build(tc_point_grid* g, const tc_vec3* p, int count, tc_real cell);
void tc_point_grid_free(tc_point_grid* g);
/// Cell index range [lo, hi] (inclusive, clamped) covering the ball (x, r); false if empty.
bool tc_point_grid_range(const tc_point_grid* g, tc_vec3 x, tc_real r, int lo[3], int hi[3]);
/// Indices of points within r of x (appended to out, which grows); returns the count appended.
int tc_point_grid_query(const tc_point_grid* g, const tc_vec3* p, tc_vec3 x, tc_real r, int** out, int* capacity);
/// Nearest point to x within max_r, or -1.
int tc_point_grid_nearest(const tc_point_grid* g, const tc_vec3* p, tc_vec3 x, tc_real max_r);

/// MLS implicit surface f(x) = n(x).(x - a(x)) over oriented points (positions borrowed).
typedef struct tc_surfel_surface {
    const tc_vec3* s;
    const tc_vec3* n;
    int count;
    tc_real h;         ///< m, Gaussian width; neighbours truncated at 3h
    tc_point_grid grid;
} tc_surfel_surface;

/// (Re)builds the surface over count points s with normals n (arrays must outlive it).
bool tc_surfel_surface_build(tc_surfel_surface* S, const tc_vec3* s, const tc_vec3* n, int count, tc_real h);
void tc_surfel_surface_free(tc_surfel_surface* S);
/// f(x) (m, negative inside) and n(x); returns 1e300 (normal untouched) when no surfel is within 3h.
tc_real tc_surfel_surface_eval(const tc_surfel_surface* S, tc_vec3 x, tc_vec3* normal);
/// The weighted normal n(x) alone (no fit); false when no surfel is within 3h.
bool tc_surfel_surface_normal(const tc_surfel_surface* S, tc_vec3 x, tc_vec3* normal);
/// Projects x on the surface (x <- x - f n, |f| < 1e-6 h, <= 20 iterations). false if x is far.
bool tc_surfel_surface_project(const tc_surfel_surface* S, tc_vec3 x, tc_vec3* proj, tc_vec3* normal);
/// Inside test of seed 000 eq. 2: (x - x_proj).n(x_proj) < 0.
bool tc_surfel_surface_inside(const tc_surfel_surface* S, tc_vec3 x);
/// PCA normal at x (eigenvector of the smallest eigenvalue of the weighted covariance),
/// oriented along ref; returns false when fewer than 3 points are near.
bool tc_surfel_surface_pca_normal(const tc_surfel_surface* S, tc_vec3 x, tc_vec3 ref, tc_vec3* normal);

#endif
