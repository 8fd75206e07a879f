/// @file springs.h
/// Mass-spring meshes (seed 003): closed triangle meshes whose edges are springs with damping,
/// optional bending springs across shared edges and a volume term, integrated by symplectic
/// Euler (stability limit checked, sub-stepped) or implicit Euler (Newton step + CG). Contacts
/// between spring bodies use edge-triangle intersection and a flood fill of the inside vertices.
#ifndef TACTUS_SPRINGS_H
#define TACTUS_SPRINGS_H

#include "tactus/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Built-in closed meshes (body frame, centred on the origin, counter-clockwise outward).
typedef enum tc_springs_shape {
    TC_SPRINGS_BOX = 0, ///< half_extents, `resolution` quads per edge
    TC_SPRINGS_SPHERE,  ///< radius, icosphere with `resolution` subdivisions (0..4)
    TC_SPRINGS_TORUS,   ///< radius (ring) and tube_radius, `resolution` x 2*resolution quads
    TC_SPRINGS_MESH,    ///< mesh_vertices / mesh_triangles
} tc_springs_shape;

typedef enum tc_springs_integrator {
    TC_SPRINGS_EXPLICIT = 0, ///< symplectic Euler, sub-stepped below the stability limit
    TC_SPRINGS_IMPLICIT,     ///< implicit Euler: one Newton step solved by conjugate gradients
} tc_springs_integrator;

/// Spring body creation parameters. Get one from tc_springs_body_def_default().
typedef struct tc_springs_body_def {
    tc_body_def base;
    tc_springs_shape shape;
    tc_vec3 half_extents;        ///< m, box, default 0.2
    tc_real radius;              ///< m, sphere radius or torus ring radius, default 0.2
    tc_real tube_radius;         ///< m, torus tube, default 0.07
    int resolution;              ///< mesh detail (see tc_springs_shape), default 4 (sphere: 2)
    const tc_vec3* mesh_vertices;
    int mesh_vertex_count;
    const int* mesh_triangles;   ///< 3 per triangle, counter-clockwise seen from outside
    int mesh_triangle_count;
    tc_real mass;                ///< kg, spread over the vertices by their share of the surface area; default 1
    tc_real stiffness;           ///< N/m per unit rest length: k = stiffness / rest length, default 2000
    tc_real damping;             ///< N s/m, relative velocity along each spring, default 2
    tc_real bending;             ///< fraction of the stiffness for springs across shared edges, default 0.2
    tc_real pressure;            ///< Pa-like volume stiffness: f = -pressure (V - V0)/V0 dV/dx, default 0
    tc_real drag;                ///< 1/s, optional global drag, default 0
    tc_springs_integrator integrator;
    int internal_value;
} tc_springs_body_def;

/// Default spring def: 0.2 m box of resolution 4, 1 kg, stiffness 2000 N/m per unit length,
/// damping 2 N s/m, bending 0.2, no pressure or drag, friction 0.5, explicit integrator.
TC_API tc_springs_body_def tc_springs_body_def_default(void);
/// Creates a spring body. Errors name the field: non-finite or non-positive sizes, mass or
/// stiffness, an open or degenerate mesh (zero-area triangle, unused or duplicate vertices).
TC_API tc_result tc_springs_body_create(tc_world* world, const tc_springs_body_def* def, tc_body_id* out_id, tc_error* error);
/// Vertex count of a spring body (0 for an invalid id).
TC_API int tc_springs_body_get_vertex_count(const tc_world* world, tc_body_id id);
/// Copies up to capacity vertex positions (m) and velocities (m/s; either may be NULL); returns the count.
TC_API int tc_springs_body_get_vertices(const tc_world* world, tc_body_id id, tc_vec3* positions, tc_vec3* velocities, int capacity);
/// Largest stable explicit sub-step (s): 0.9 * 2 / omega_max with omega_max from the stiffest vertex.
TC_API tc_real tc_springs_body_get_stable_step(const tc_world* world, tc_body_id id);
/// Enclosed volume (m^3) and its rest value.
TC_API tc_real tc_springs_body_get_volume(const tc_world* world, tc_body_id id, tc_real* rest_volume);
/// Sets every vertex's velocity (m/s).
TC_API tc_result tc_springs_body_set_velocity(tc_world* world, tc_body_id id, tc_vec3 v);

#ifdef __cplusplus
}
#endif
#endif
