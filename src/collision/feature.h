// Contact points by feature intersection in the contact plane (seed 004, ALGORITHMS §2.2-2.3):
// each body's supporting feature along the contact normal is picked on its Gauss map with a
// small angular tolerance, both are projected on the contact plane and intersected there.
#ifndef TC_FEATURE_H
#define TC_FEATURE_H

#include "geometry/hull.h"

#define TC_FEATURE_MAX 32

/// A supporting feature in world coordinates: 1 point = vertex, 2 = edge, >= 3 = face (loop
/// counter-clockwise seen from outside the body).
typedef struct tc_feature {
    int count;
    tc_vec3 points[TC_FEATURE_MAX];
    int ids[TC_FEATURE_MAX]; ///< hull vertex indices (stable keys for warm starting)
    tc_vec3 plane_normal;    ///< face: outward unit normal
    tc_real plane_offset;    ///< face: plane_normal . x = plane_offset
} tc_feature;

/// Supporting feature of hull (placed at `pose`) for world direction u, with angular tolerance
/// `tolerance` (rad, default 3 degrees): face if a face normal is within it, else an edge nearly
/// perpendicular to u, else the support vertex.
void tc_hull_feature(const tc_hull* hull, tc_transform pose, tc_vec3 u, tc_real tolerance, tc_feature* out);
/// Same, when the support vertex of the hull along u is already known (`support`, a vertex index).
void tc_hull_feature_at(const tc_hull* hull, tc_transform pose, tc_vec3 u, int support, tc_real tolerance, tc_feature* out);
/// Same, with the hull's vertices already placed at `pose`: packed in `world_soa` (as hull->soa,
/// collision/support.h) or else as points in `world` (vertex_count points); both may be NULL.
void tc_hull_feature_placed(const tc_hull* hull, tc_transform pose, const tc_vec3* world, const tc_real* world_soa, tc_vec3 u, int support,
                            tc_real tolerance, tc_feature* out);

/// One point of contact between features.
typedef struct tc_feature_point {
    tc_vec3 on_a, on_b;   ///< the points on each surface (world)
    tc_real separation;   ///< m, (on_b - on_a) . n, negative when penetrating
    uint32_t key;         ///< which vertices/edges made it
} tc_feature_point;

/// Intersects feature a (of body A, facing +n) with feature b (of B, facing -n) in the plane
/// normal to n; keeps points with separation < margin. Returns the count (<= capacity).
int tc_intersect_features(const tc_feature* a, const tc_feature* b, tc_vec3 n, tc_real margin, tc_feature_point* out,
                          int capacity);

/// Keeps at most 4 of the points: the deepest, the farthest from it, then the two that
/// maximise the area (ALGORITHMS §2.3). Returns the new count.
int tc_reduce_points(tc_feature_point* p, int count, tc_vec3 n);
#endif
