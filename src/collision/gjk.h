// GJK on support maps (ALGORITHMS §1): distance and witnesses, ray cast on the Minkowski
// difference, and the growth distance GJK-GD of seed 004 (contact normal of overlapping pairs).
#ifndef TC_GJK_H
#define TC_GJK_H

#include "tactus/types.h"

struct tc_hull;

/// A convex set given by its support map: the hull of `points` (world frame, count >= 1)
/// swept by a sphere of `radius`; `center` is a strictly interior point (contraction point).
/// Optional: `hull` gives the vertex adjacency (points[i] is hull vertex i placed in the world),
/// so supports of large hulls are found by hill climbing instead of scanning every point.
typedef struct tc_convex {
    const tc_vec3* points;
    int count;
    tc_real radius;
    tc_vec3 center;
    const struct tc_hull* hull;
    const tc_real* soa;  ///< optional: the points packed (collision/support.h), scanned 4 at a time; `points` may then be NULL
    int soa_stride;
} tc_convex;

/// Point i of c (from the packed copy when there is one: the one a query's cache lines hold).
static inline tc_vec3 tc_convex_point(const tc_convex* c, int i) {
    return c->soa ? tc_v3(c->soa[i], c->soa[c->soa_stride + i], c->soa[2 * c->soa_stride + i]) : c->points[i];
}

#define TC_CLIMB_MIN_POINTS 32 ///< hulls with more vertices use hill climbing for their supports

/// Support point in direction d, including the radius when `with_radius`.
tc_vec3 tc_convex_support(const tc_convex* c, tc_vec3 d, bool with_radius);
/// Index of the support point in direction d. With a hull, hill climbing over its edges starts at
/// `*hint` (any valid index; updated to the answer); without, every point is scanned.
int tc_convex_support_index(const tc_convex* c, tc_vec3 d, int* hint);

typedef enum tc_gjk_status { TC_GJK_SEPARATED, TC_GJK_OVERLAP, TC_GJK_NOT_CONVERGED } tc_gjk_status;

typedef struct tc_gjk_result {
    tc_gjk_status status;
    tc_real distance;    ///< m, between the full sets (radii subtracted); <= 0 when overlapping cores+radii
    tc_vec3 point_a;     ///< witness on A's surface (separated) — world
    tc_vec3 point_b;     ///< witness on B's surface
    tc_vec3 normal;      ///< unit, from A to B (separated only)
    int iterations;
    bool cores_overlap;  ///< the radius-free cores intersect
} tc_gjk_result;

/// Distance between two convex sets (ALGORITHMS §1.1, Voronoi-region simplex solver).
tc_gjk_result tc_gjk_distance(const tc_convex* a, const tc_convex* b);

/// First hit of q + lambda r (lambda >= 0) on D = A (-) B (full supports). Returns false on a miss
/// or when q is inside D. On a hit writes lambda, the outward normal of D there (unit) and the
/// witnesses a*, b* (a* - b* = hit point).
bool tc_gjk_ray_cast(const tc_convex* a, const tc_convex* b, tc_vec3 q, tc_vec3 r, tc_real* lambda, tc_vec3* normal,
                     tc_vec3* a_star, tc_vec3* b_star);

typedef struct tc_growth_result {
    bool ok;
    tc_real alpha;     ///< growth distance: < 1 overlapping, 1 touching, > 1 separated
    tc_vec3 normal;    ///< unit, from A to B
    tc_real depth;     ///< m, overlap along the normal h_D(n) (negative = separation)
    tc_vec3 point;     ///< contact point of the grown/contracted bodies
} tc_growth_result;

/// Growth distance by contraction about each set's center (seed 004 eq. 1-2, ALGORITHMS §1.4).
/// `fallback_dir` is used when the centers coincide. Overlapping polytopes: the face of A - B the
/// line through the centres leaves by, found by portal refinement (mpr.h); the GJK ray cast
/// answers the rest (rounded sets, separated pairs, degenerate portals).
tc_growth_result tc_growth_distance(const tc_convex* a, const tc_convex* b, tc_vec3 fallback_dir);

/// The growth distance for a contact query: stops early, with `apart` set, as soon as a direction
/// proves the sets farther apart than `max_separation` (m); then only `depth` (the proving bound
/// h_D(n) < -max_separation) and `normal` are set. Polytopes proved apart by less than that stop
/// too, with `near` set (the contact needs GJK's closest points, not the growth distance > 1). `support_a`/`support_b` (may be NULL) receive
/// the indices of the supports of A along the normal and of B against it.
typedef struct tc_growth_query {
    tc_growth_result result;
    bool apart;
    bool near;        ///< proved apart, but by at most max_separation: only `normal` and `depth` (a lower bound of -distance) are set; GJK gives the gap
    int support_a, support_b;
    bool has_portal;  ///< overlapping polytopes: `portal` holds the exit face triangle (warm start of the next query)
    int portal[6];    ///< (A, B) vertex indices of its 3 corners (see mpr.h)
} tc_growth_query;
tc_growth_query tc_growth_distance_within(const tc_convex* a, const tc_convex* b, tc_vec3 fallback_dir, tc_real max_separation);
/// The same query warm-started from the last step's answer for this pair: `axis` (A to B, any
/// length, zero for none: the last normal or separating axis): if it still proves the sets apart
/// the query ends after one support of each; `portal` (may be NULL: the last query's `portal`):
/// the starting portal of the refinement (one support confirms an unchanged exit face). Same answer
/// as the cold query up to round-off.
tc_growth_query tc_growth_distance_warm(const tc_convex* a, const tc_convex* b, tc_vec3 fallback_dir, tc_real max_separation,
                                        tc_vec3 axis, const int* portal);
#endif
