/// @file tet.h
/// Tetrahedral deformable bodies (seed 001): corotational linear FEM integrated by implicit
/// Euler with conjugate gradients; contacts between tet bodies by spatial hashing and the
/// consistent penetration depth of Heidelberger et al. (or the closest-feature baseline).
#ifndef TACTUS_TET_H
#define TACTUS_TET_H

#include "tactus/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tc_tet_shape {
    TC_TET_BOX = 0, ///< half_extents, `resolution` cubes along the longest side, 6 tets per cube
    TC_TET_SPHERE,  ///< radius: the cubes of a box lattice whose centres lie inside, `resolution` across
    TC_TET_MESH,    ///< vertices / tets given in the def (e.g. from TetGen or Gmsh files)
} tc_tet_shape;

typedef enum tc_tet_depth_method {
    TC_TET_CONSISTENT = 0, ///< seed 001: border points, propagation (default)
    TC_TET_CLOSEST,        ///< baseline: distance to the nearest surface triangle
} tc_tet_depth_method;

/// Tet body creation parameters. Get one from tc_tet_body_def_default().
typedef struct tc_tet_body_def {
    tc_body_def base;
    tc_tet_shape shape;
    tc_vec3 half_extents;        ///< m, box, default 0.2
    tc_real radius;              ///< m, sphere, default 0.2
    int resolution;              ///< cubes along the longest side / the diameter, default 4
    const tc_vec3* vertices;     ///< TC_TET_MESH: rest positions (body frame), copied
    int vertex_count;
    const int* tets;             ///< 4 per tet, positive orientation
    int tet_count;
    tc_real density;             ///< kg/m^3, default 1000
    tc_real youngs_modulus;      ///< Pa, default 1e5
    tc_real poisson_ratio;       ///< [0, 0.5), default 0.3
    tc_real damping;             ///< s, stiffness-proportional (Rayleigh beta), default 0.01
    tc_real solver_tolerance;    ///< CG stops at |r| <= tolerance |rhs| each sub-step, in (0, 0.1], default 1e-8
    tc_aabb fixed_box;           ///< body frame; vertices inside never move (empty = none)
    tc_tet_depth_method depth_method;
    bool self_collision;         ///< vertices also collide with the body's own tets (default false)
    int internal_value;
} tc_tet_body_def;

TC_API tc_tet_body_def tc_tet_body_def_default(void);
/// Creates a tet body. Errors name the field: non-finite or non-positive sizes, density or
/// modulus, Poisson ratio outside [0, 0.5), indices out of range, zero-volume or inverted tets.
TC_API tc_result tc_tet_body_create(tc_world* world, const tc_tet_body_def* def, tc_body_id* out_id, tc_error* error);
TC_API int tc_tet_body_get_vertex_count(const tc_world* world, tc_body_id id);
/// Copies up to capacity vertex positions and velocities (either may be NULL); returns the count.
TC_API int tc_tet_body_get_vertices(const tc_world* world, tc_body_id id, tc_vec3* positions, tc_vec3* velocities, int capacity);
/// Current total volume (m^3) and its rest value; the number of inverted tets.
TC_API tc_real tc_tet_body_get_volume(const tc_world* world, tc_body_id id, tc_real* rest_volume, int* inverted);

#ifdef __cplusplus
}
#endif
#endif
