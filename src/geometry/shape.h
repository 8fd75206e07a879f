// Internal shapes: the convex parts, planes and triangle meshes rigid and static bodies are made of.
#ifndef TC_SHAPE_H
#define TC_SHAPE_H
#include "tactus/types.h"
#include "geometry/mass.h"

struct tc_hull;    // convex polytope with Gauss map (geometry/hull.h)
struct tc_trimesh; // static triangle mesh (geometry/trimesh.h)

typedef struct tc_shape {
    tc_shape_type type;
    tc_transform local;      ///< pose in the body frame
    tc_real radius;          ///< sphere
    tc_vec3 half_extents;    ///< box
    tc_vec3 plane_normal;    ///< plane (body frame, unit)
    tc_real plane_offset;
    tc_real density;
    struct tc_hull* hull;    ///< owned, TC_SHAPE_HULL
    struct tc_trimesh* mesh; ///< owned, TC_SHAPE_TRIMESH
    bool local_is_identity;  ///< set by tc_shape_init when `local` is exactly the identity (false: test it)
} tc_shape;

/// Validates def and builds the shape. path names the def for messages, e.g. "shapes[1]".
tc_result tc_shape_init(tc_shape* shape, const tc_shape_def* def, bool is_static, const char* path, tc_error* error);
void tc_shape_free(tc_shape* shape);
/// Mass properties in the body frame.
tc_mass_props tc_shape_mass(const tc_shape* shape);
/// World AABB of the shape when its body is at body_pose (planes give a huge box).
tc_aabb tc_shape_aabb(const tc_shape* shape, tc_transform body_pose);
/// Signed distance of world point p to the shape (negative inside) and the outward unit normal
/// of the nearest surface. Exact for spheres, boxes and planes; hulls use the face planes inside.
tc_real tc_shape_signed_distance(const tc_shape* shape, tc_transform body_pose, tc_vec3 p, tc_vec3* normal);
/// Ray origin + t dir; returns true and the smallest t in [0, max_t] and the normal on a hit.
bool tc_shape_ray_cast(const tc_shape* shape, tc_transform body_pose, tc_vec3 origin, tc_vec3 dir,
                       tc_real max_t, tc_real* t, tc_vec3* normal);
/// Support point of the shape in world direction d (convex shapes only).
tc_vec3 tc_shape_support(const tc_shape* shape, tc_transform body_pose, tc_vec3 d);

#endif
