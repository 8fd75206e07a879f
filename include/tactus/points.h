/// @file points.h
/// Point-based deformable bodies (seed 000, Müller et al. 2004 + contact surfaces):
/// phyxels carry mass and elasticity (MLS displacement gradient, Green strain, linear stress,
/// volume term, plasticity); surfels sample the surface and are moved by the phyxels.
/// Two point bodies in contact build a contact surface between their implicit surfaces.
#ifndef TACTUS_POINTS_H
#define TACTUS_POINTS_H

#include "tactus/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The rest shape a point body is sampled from (body frame, centred on the origin of the frame).
typedef enum tc_points_shape {
    TC_POINTS_BOX = 0, ///< half_extents
    TC_POINTS_SPHERE,  ///< radius
    TC_POINTS_MESH,    ///< closed triangle mesh (mesh_vertices / mesh_triangles)
} tc_points_shape;

/// Point body creation parameters. Get one from tc_points_body_def_default().
typedef struct tc_points_body_def {
    tc_body_def base;
    tc_points_shape shape;
    tc_vec3 half_extents;          ///< m, box half extents, default 0.1
    tc_real radius;                ///< m, sphere radius, default 0.1
    const tc_vec3* mesh_vertices;  ///< m, body frame, copied at creation
    int mesh_vertex_count;
    const int* mesh_triangles;     ///< 3 indices per triangle, counter-clockwise seen from outside
    int mesh_triangle_count;
    tc_real phyxel_spacing;        ///< m, grid spacing of the phyxels, default 0.04
    tc_real surfel_spacing;        ///< m, spacing of the surfels, default 0.015
    tc_real jitter;                ///< fraction of the spacing the grid is jittered by, default 0.1
    uint32_t seed;                 ///< jitter seed, default 1
    tc_real support_scale;         ///< h_i = support_scale * mean distance to 10 nearest, default 3
    tc_real density;               ///< kg/m^3, default 1000
    tc_real youngs_modulus;        ///< Pa, default 1e5
    tc_real poisson_ratio;         ///< [0, 0.5), default 0.3
    tc_real volume_stiffness;      ///< Pa, k_v of the volume-conserving term (times phyxel volume), default 0
    tc_real damping;               ///< 1/s, relative-velocity damping along neighbour pairs, default 30
    tc_real yield_strain;          ///< elastic limit (Frobenius norm of strain), default 0 (with creep 0: elastic)
    tc_real creep;                 ///< 1/s, plastic flow rate, default 0 = purely elastic
    tc_real max_plastic_strain;    ///< cap on |eps_p|, default 1
    bool fracture;                 ///< split into separate bodies when neighbour pairs stretch past h, default false
    tc_real fracture_stretch;      ///< a pair breaks when its length exceeds this times its rest length and h, default 1
    tc_real contact_stiffness;     ///< N/m^3 (pressure per metre of penetration); 0 = derived from penalty_hertz
    tc_real contact_resample_spacing; ///< m, target spacing of contact surfels; 0 = surfel_spacing
    bool seed_density_scaling;     ///< multiply contact forces by the surfel density (seed's form) instead of area share
    tc_aabb pinned_box;            ///< body frame; phyxels inside are fixed in space (empty box = none)
    int internal_value;
} tc_points_body_def;

/// Default point body: 0.2 m box, 1000 kg/m^3, E = 1e5 Pa, nu = 0.3, elastic.
TC_API tc_points_body_def tc_points_body_def_default(void);

/// Creates a point body: samples phyxels inside and surfels on the shape, sizes the supports and
/// masses, precomputes the MLS moment matrices. Errors name the field (non-finite or
/// non-positive sizes, density, modulus; poisson ratio out of [0, 0.5); a mesh that is open or
/// degenerate; too few phyxels). Returns TC_RESULT_OK and fills *out_id.
TC_API tc_result tc_points_body_create(tc_world* world, const tc_points_body_def* def, tc_body_id* out_id,
                                       tc_error* error);

/// Number of phyxels of a point body (0 for an invalid id or another kind).
TC_API int tc_points_body_get_phyxel_count(const tc_world* world, tc_body_id id);
/// Copies up to capacity phyxel world positions (m); returns the phyxel count.
TC_API int tc_points_body_get_phyxels(const tc_world* world, tc_body_id id, tc_vec3* out, int capacity);
/// Copies up to capacity phyxel velocities (m/s); returns the phyxel count.
TC_API int tc_points_body_get_velocities(const tc_world* world, tc_body_id id, tc_vec3* out, int capacity);
/// Number of surfels.
TC_API int tc_points_body_get_surfel_count(const tc_world* world, tc_body_id id);
/// Copies up to capacity surfel positions and normals (either may be NULL); returns the count.
TC_API int tc_points_body_get_surfels(const tc_world* world, tc_body_id id, tc_vec3* positions, tc_vec3* normals, int capacity);
/// Fracture mark of the body: bodies split from one another carry different marks; 0 = never split.
TC_API uint32_t tc_points_body_get_mark(const tc_world* world, tc_body_id id);
/// Adds a force (N) spread over the phyxels in proportion to their mass, for the next step only
/// (the same as tc_body_apply_force on a point body).
TC_API tc_result tc_points_body_apply_force(tc_world* world, tc_body_id id, tc_vec3 force);
/// Sets the velocity of every phyxel (m/s).
TC_API tc_result tc_points_body_set_velocity(tc_world* world, tc_body_id id, tc_vec3 v);

#ifdef __cplusplus
}
#endif
#endif
