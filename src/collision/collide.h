// Narrowphase interface between rigid/static shapes and the contact solver.
// Conventions: the manifold normal points from shape A to shape B; a point's separation is
// negative when penetrating. Every point carries anchors in both bodies' frames so the
// solver can update separations inside sub-steps and match points across steps.
#ifndef TC_COLLIDE_H
#define TC_COLLIDE_H

#include "geometry/shape.h"

#define TC_MAX_MANIFOLD_POINTS 8

typedef struct tc_manifold_point {
    tc_vec3 point;          ///< m, world, midway between the two surfaces
    tc_vec3 normal;         ///< unit, world, from A to B (triangle meshes give each point its own)
    tc_vec3 anchor_a;       ///< m, the point on A in A's body frame
    tc_vec3 anchor_b;       ///< m, the point on B in B's body frame
    tc_real separation;     ///< m, negative when penetrating
    uint32_t feature;       ///< key of the feature pair that made the point (warm-start matching)
    tc_real normal_impulse; ///< N s, solver state kept across steps
    tc_real tangent_impulse[2];
    tc_real age;            ///< s the point has persisted (tracking baseline)
} tc_manifold_point;

typedef struct tc_manifold {
    tc_vec3 normal;         ///< unit, world, from A to B
    int count;
    tc_manifold_point points[TC_MAX_MANIFOLD_POINTS];
    int portal_valid;       ///< 1: `portal` warm-starts the next query of this pair (0 after a memset)
    int portal[6];          ///< convex polytope pairs: the exit face the growth distance found (gjk.h, mpr.h)
} tc_manifold;

/// Contact points between shape a (of a body at pose_a) and shape b (body at pose_b), for pairs
/// whose separation is below `margin` (m, speculative distance). `previous` is this pair's
/// manifold from the last step (count 0 if none): the tracking baseline keeps and refreshes its
/// points; the Gauss-map method carries impulses by feature key. For convex polytope pairs a
/// nonzero `previous->normal` (the last contact normal, or the separating axis a query without
/// contact leaves in `out->normal`) and `previous->portal` warm-start the contact normal query
/// (same answer up to round-off, fewer support scans when the bodies moved little; where a
/// support is an exact tie, e.g. an edge exactly perpendicular to the normal, the feature chosen
/// may differ from a cold query's: about 1 pair in 10⁵ of random hulls).
/// The poses' quaternions must be unit (the world keeps them so; they are not renormalised here).
/// Returns the number of points written to out (0 = no contact; out->normal is then the axis that
/// proved the pair apart, or zero).
int tc_collide(const tc_shape* a, tc_transform pose_a, const tc_shape* b, tc_transform pose_b,
               tc_contact_method method, tc_real margin, const tc_manifold* previous, tc_manifold* out);

#endif
