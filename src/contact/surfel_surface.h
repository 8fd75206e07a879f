// Uniform point grid and the MLS point-set surface over surfels (ALGORITHMS.md §8.1).
#ifndef TC_SURFEL_SURFACE_H
#define TC_SURFEL_SURFACE_H

#include "core/core.h"

/// Dense uniform grid over a point set (counting sort, no hashing collisions).
typedef struct tc_point_grid {
    tc_vec3 origin;
    tc_real cell, inv_cell; ///< m, 1/m
    int dims[3];
    int* start;        ///< dims product + 1 entries
    int* items;        ///< point indices sorted by cell
    int item_count, cell_count;
} tc_point_grid;

/// Builds the grid; cell is enlarged if the box would need more than ~4 cells per point.
bool tc_point_grid_build(tc_point_grid* g, const tc_vec3* p, int count, tc_real cell);
void tc_point_grid_free(tc_point_grid* g);
/// The layout tc_point_grid_build gives g for these points (origin, cell, inv_cell, dims,
/// cell_count), without binning them: start and items are left untouched (no allocation).
void tc_point_grid_layout(tc_point_grid* g, const tc_vec3* p, int count, tc_real cell);
/// The cell x is binned in by g's layout (clamped to the grid). A query lists its points by
/// increasing cell index, then by point index within a cell.
int tc_point_grid_cell_index(const tc_point_grid* g, tc_vec3 x);
/// Cell index range [lo, hi] (inclusive, clamped) covering the ball (x, r); false if empty.
/// (It may hold one more cell where the ball ends within ~1e-7 cell of a cell boundary.)
/// Inline: thousands of calls per contact hook, whose lo and hi then stay in registers.
static inline bool tc_point_grid_range(const tc_point_grid* g, tc_vec3 x, tc_real r, int lo[3], int hi[3]) {
    if (!g->start) return false;
    for (int k = 0; k < 3; ++k) {
        tc_real o = tc_v3_get(g->origin, k), xk = tc_v3_get(x, k);
        // A multiply instead of the division the points were binned with: widened by 1e-7 cell
        // (far beyond their rounding difference) so that no cell holding a point within r is
        // missed; every caller tests the distances of the points it finds.
        tc_real a = (xk - r - o) * g->inv_cell - 1e-7, b = (xk + r - o) * g->inv_cell + 1e-7;
        // The cells floor(a) .. floor(b) clamped to the grid, without a floor: floor(b) >= 0 iff
        // b >= 0 and floor(a) <= n - 1 iff a < n; past those tests a cast truncates toward zero,
        // which is the floor for the values >= 0 it is applied to. (Also rejects NaN.)
        int n = g->dims[k];
        if (!(b >= 0) || !(a < n)) return false;
        lo[k] = a > 0 ? (int)a : 0;
        hi[k] = b < n - 1 ? (int)b : n - 1;
    }
    return true;
}

/// Out of memory in the point contact code (this thread): noted where an allocation fails (the
/// call then goes on with less, never crashes) and taken by the collide hook, which reports it.
void tc_surfel_note_out_of_memory(void);
/// True when an allocation failed since the last call (and clears the note).
bool tc_surfel_take_out_of_memory(void);
/// Indices of points within r of x (appended to out, which grows; when it cannot grow, the
/// points found so far and the out-of-memory note); returns the count appended.
int tc_point_grid_query(const tc_point_grid* g, const tc_vec3* p, tc_vec3 x, tc_real r, int** out, int* capacity);
/// Nearest point to x within max_r, or -1.
int tc_point_grid_nearest(const tc_point_grid* g, const tc_vec3* p, tc_vec3 x, tc_real max_r);
/// The same answer, the search starting from a ball of radius r0 (> 0; else half a cell) and
/// doubling up to max_r: an r0 just beyond the expected distance (or, for points known to be
/// far from every point, that distance) saves the empty smaller balls.
int tc_point_grid_nearest_from(const tc_point_grid* g, const tc_vec3* p, tc_vec3 x, tc_real r0, tc_real max_r);
/// tc_point_grid_nearest_from (the same answer) on sorted[t] = p[g->items[t]], the points
/// copied in grid order (as tc_surfel_surface's cs): no indirection per scanned point.
int tc_point_grid_nearest_sorted(const tc_point_grid* g, const tc_vec3* sorted, tc_vec3 x, tc_real r0, tc_real max_r);
/// True when a point lies closer than r to x (tc_point_grid_nearest(g, p, x, r) >= 0, stopping
/// at the first one found).
bool tc_point_grid_any_within(const tc_point_grid* g, const tc_vec3* p, tc_vec3 x, tc_real r);

/// The MLS weights exp(-r^2/h^2) are truncated at TC_SURFEL_CUTOFF h (about 28 neighbours at
/// h = 1.5 spacing, within the 10-30 of ALGORITHMS.md 8.1); where fewer than 8 surfels lie that
/// close (more than ~1.7h off a flat surface) a fit takes those within TC_SURFEL_REACH h instead,
/// and f is undefined beyond the reach.
#define TC_SURFEL_CUTOFF 2.0
#define TC_SURFEL_REACH 3.0
/// MLS implicit surface f(x) = n(x).(x - a(x)) over oriented points (positions borrowed).
typedef struct tc_surfel_surface {
    const tc_vec3* s;
    const tc_vec3* n;
    int count;
    tc_real h;         ///< m, Gaussian width; neighbours truncated at TC_SURFEL_CUTOFF h (TC_SURFEL_REACH h far off)
    tc_point_grid grid;
    tc_vec3* cs;       ///< s copied in grid order (owned)
    tc_real* rec;      ///< s and n copied in grid order, 6 reals per surfel: x y z nx ny nz (owned)
    tc_real* soa;      ///< the same as 6 arrays (x y z nx ny nz) of sorted_count + 4 entries (zero padded; owned)
    int sorted_count;  ///< allocated entries of cs and records of rec
    /// Neighbour lists shared by the fits made in one grid cell (owned, filled lazily by the
    /// fits and emptied by a rebuild; see surfel_surface.c). It makes the queries of a const
    /// surface write to this cache: one surface must not be queried from two threads at once.
    struct tc_surfel_tiles* tiles;
} tc_surfel_surface;

/// exp(-s) (the Gaussian weights): for 0 <= s <= 9 (within the reach, 3h) from a table and a short series,
/// to ~1e-15 relative without a libm call; libm exp elsewhere.
tc_real tc_exp_neg(tc_real s);

/// The local model of the MLS surface fitted at one point x: with (u, v) = the coordinates of
/// y - a along (t1, t2) divided by h, f(y) ~ n.(y - a) - (c0 + c1 u + c2 v + c3 u^2 + c4 uv + c5 v^2).
/// It equals the MLS f at x; elsewhere it is the quadratic patch x's neighbours define
/// (the weights do not move with y), accurate near x.
typedef struct tc_surfel_fit {
    tc_vec3 a, n, t1, t2; ///< weighted centroid (m) and the orthonormal frame of the fit
    tc_real c[6];         ///< height coefficients (zero when the quadratic fit is degenerate: the plane)
    tc_real inv_h;        ///< 1/m
    tc_real f;            ///< f(x) (m); 1e300 when no surfel is within 3h of x
} tc_surfel_fit;

/// True when a surfel is within 3h of x (where a fit exists); stops at the first one.
bool tc_surfel_surface_reaches(const tc_surfel_surface* S, tc_vec3 x);
/// The same answer, the grid position *hint (of S's sorted surfels; -1 none) tested first and
/// set to the surfel found: successive points near each other are mostly answered by the first.
bool tc_surfel_surface_reaches_from(const tc_surfel_surface* S, tc_vec3 x, int* hint);
/// Fits the local model at x. False (fit->f = 1e300) when no surfel is within 3h of x.
bool tc_surfel_surface_fit(const tc_surfel_surface* S, tc_vec3 x, tc_surfel_fit* fit);
/// The same fit from a walk of the grid around x alone, without the shared neighbour lists
/// (tiles): the reference the tiled fit must equal bit for bit (tests).
bool tc_surfel_surface_fit_direct(const tc_surfel_surface* S, tc_vec3 x, tc_surfel_fit* fit);
/// The model's signed height at y (m); at the fit point it is the MLS f there.
/// (Inline: the seeding's Brent searches and bisections evaluate it ~30,000 times per contact
/// call; the same operations in the same order wherever it is compiled, -ffp-contract=off.)
static inline tc_real tc_surfel_fit_value(const tc_surfel_fit* fit, tc_vec3 y) {
    tc_vec3 e = tc_v3_sub(y, fit->a);
    tc_real u = tc_v3_dot(e, fit->t1) * fit->inv_h, v = tc_v3_dot(e, fit->t2) * fit->inv_h;
    const tc_real* c = fit->c;
    return tc_v3_dot(e, fit->n) - (c[0] + c[1] * u + c[2] * v + c[3] * u * u + c[4] * u * v + c[5] * v * v);
}

/// (Re)builds the surface over count points s with normals n (arrays must outlive it; S starts
/// zeroed). Rebuild after moving the points: the grid and the sorted copies are snapshots.
bool tc_surfel_surface_build(tc_surfel_surface* S, const tc_vec3* s, const tc_vec3* n, int count, tc_real h);
void tc_surfel_surface_free(tc_surfel_surface* S);
/// tc_point_grid_nearest_from on the surface's grid and surfels, read from its copies in grid
/// order (AVX2 where available): the surfel nearest to x within max_r (ties to the least
/// index), or -1.
int tc_surfel_surface_nearest(const tc_surfel_surface* S, tc_vec3 x, tc_real r0, tc_real max_r);
/// tc_surfel_surface_nearest (the same surfel), and *pos its grid position (its position and
/// normal at rec + 6 *pos, in the SoA copies at *pos) where the search knew it (the AVX2
/// flat-list scans: nearly all), else -1.
int tc_surfel_surface_nearest_at(const tc_surfel_surface* S, tc_vec3 x, tc_real r0, tc_real max_r, int* pos);
/// Empties the cache of shared neighbour lists (keeps its memory); the next fits remake them.
/// Only needed to measure a call from the state a rebuild leaves (results do not depend on it).
void tc_surfel_surface_drop_tiles(tc_surfel_surface* S);
/// f(x) (m, negative inside) and n(x); returns 1e300 (normal untouched) when no surfel is within 3h.
tc_real tc_surfel_surface_eval(const tc_surfel_surface* S, tc_vec3 x, tc_vec3* normal);
/// The weighted normal n(x) alone (no fit); false when no surfel is within 3h.
bool tc_surfel_surface_normal(const tc_surfel_surface* S, tc_vec3 x, tc_vec3* normal);
/// Projects x on the surface (x <- x - f n, |f| < 1e-6 h, <= 20 iterations). false if x is far.
bool tc_surfel_surface_project(const tc_surfel_surface* S, tc_vec3 x, tc_vec3* proj, tc_vec3* normal);
/// Inside test of seed 000 eq. 2: (x - x_proj).n(x_proj) < 0.
bool tc_surfel_surface_inside(const tc_surfel_surface* S, tc_vec3 x);
/// True when the normals of all surfels in the 3x3x3 grid cells around x's cell (those within
/// at least a cell, 1.5h, of x) are within acos(cos_max) of n, judged from each cell's normal
/// cone (made when first asked for and kept until the next rebuild or
/// tc_surfel_surface_drop_tiles; conservative: it may say false where surfel by surfel they
/// pass). False outside the grid or when out of memory.
bool tc_surfel_surface_flat_at(const tc_surfel_surface* S, tc_vec3 x, tc_vec3 n, tc_real cos_max);
/// PCA normal at x (eigenvector of the smallest eigenvalue of the weighted covariance),
/// oriented along ref; returns false when fewer than 3 points are near.
bool tc_surfel_surface_pca_normal(const tc_surfel_surface* S, tc_vec3 x, tc_vec3 ref, tc_vec3* normal);
/// The PCA normals at every point of S, normal[i] = tc_surfel_surface_pca_normal(S, S->s[i],
/// ref[i]) (the same bits), ref[i] where that fails (ref and normal may be the same array).
void tc_surfel_surface_pca_normals(const tc_surfel_surface* S, const tc_vec3* ref, tc_vec3* normal);

#endif
