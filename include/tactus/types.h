/// @file types.h
/// Ids, body kinds, shapes, materials and the creation defs of the world and rigid bodies.
/// Every def is obtained from its tc_xxx_def_default(); a def built otherwise is rejected.
#ifndef TACTUS_TYPES_H
#define TACTUS_TYPES_H

#include "tactus/base.h"
#include "tactus/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The body kinds one world simulates together.
typedef enum tc_body_kind {
    TC_BODY_STATIC = 0, ///< immovable geometry: plane, box, sphere, hull, triangle mesh
    TC_BODY_RIGID,      ///< free rigid body made of convex parts (seed 004)
    TC_BODY_QUASI,      ///< quasi-rigid body: rigid frame + compliant point-cloud surface (seed 002)
    TC_BODY_TET,        ///< tetrahedral corotational FEM body (seed 001)
    TC_BODY_POINTS,     ///< point-based body: phyxels + surfels (seed 000)
    TC_BODY_SPRINGS,    ///< mass-spring triangle mesh (seed 003)
    TC_BODY_KIND_COUNT
} tc_body_kind;

/// Body id, passed by value. All-zero is the null id. Do not read the fields.
typedef struct tc_body_id {
    int32_t index1;      ///< slot index + 1
    uint32_t generation; ///< slot generation, bumped on reuse
    uint16_t world;      ///< serial of the owning world
    uint8_t kind;        ///< tc_body_kind
    uint8_t pad;
} tc_body_id;

#define TC_NULL_BODY ((tc_body_id){0, 0, 0, 0, 0})
/// True for the null id (TC_NULL_BODY).
static inline bool tc_body_id_is_null(tc_body_id id) { return id.index1 == 0; }
/// True when a and b name the same body of the same world (kind and padding ignored).
static inline bool tc_body_id_equal(tc_body_id a, tc_body_id b) {
    return a.index1 == b.index1 && a.generation == b.generation && a.world == b.world;
}

/// Position correction scheme of the rigid contact solver.
typedef enum tc_position_correction {
    TC_CORRECTION_SOFT_STEP = 0, ///< soft constraints with sub-stepping and relax (default)
    TC_CORRECTION_BAUMGARTE,     ///< velocity bias beta/h * (penetration - slop)
    TC_CORRECTION_SPLIT_IMPULSE  ///< pseudo-velocities, no energy injected
} tc_position_correction;

/// Contact generator for rigid convex pairs.
typedef enum tc_contact_method {
    TC_CONTACT_GAUSS_MAP = 0, ///< seed 004: GJK-GD normal + Gauss-map feature intersection
    TC_CONTACT_TRACKING       ///< baseline: one closest point per step in a persistent manifold
} tc_contact_method;

/// World creation parameters. Get one from tc_world_def_default().
typedef struct tc_world_def {
    tc_vec3 gravity;          ///< m/s^2, default (0, 0, -9.81)
    tc_real time_step;        ///< s per tc_world_step, default 1/60
    int sub_steps;            ///< sub-steps per step, default 4
    int solver_iterations;    ///< PGS iterations per sub-step, default 4
    int thread_count;         ///< threads for the step's parallel loops (docs/pipeline.md), default 1; results do not depend on it
    tc_position_correction position_correction; ///< rigid solver scheme, default soft step
    tc_real contact_hertz;    ///< Hz, stiffness of soft rigid contacts, default 60 (static contacts twice, capped at a quarter of the sub-step rate); soft step only
    tc_real contact_damping_ratio; ///< non-dimensional, default 10; soft step only
    tc_real contact_push_max_velocity; ///< m/s, cap on position-correction speed, default 3; soft step and Baumgarte
    tc_real restitution_threshold; ///< m/s, slower impacts do not bounce, default 1
    tc_real linear_slop;      ///< m, allowed penetration, default 0.005; Baumgarte and split impulse only
    tc_real baumgarte;        ///< non-dimensional correction factor, default 0.2; Baumgarte and split impulse only
    tc_real penalty_hertz;    ///< Hz, natural frequency of penalty contacts of deformables, default 60
    tc_real penalty_damping_ratio; ///< non-dimensional, damping of penalty contacts, default 1
    bool enable_sleep;        ///< let resting islands sleep, default true
    tc_real sleep_time;       ///< s at rest before sleeping, default 0.5
    tc_real energy_limit;     ///< J, a step whose kinetic energy exceeds this fails with UNSTABLE; 0 = off
    int internal_value;       ///< set by the default function; do not touch
} tc_world_def;

/// The geometry types a rigid or static body can be made of.
typedef enum tc_shape_type {
    TC_SHAPE_SPHERE = 0, ///< radius
    TC_SHAPE_BOX,        ///< half extents
    TC_SHAPE_HULL,       ///< convex hull of points (qhull)
    TC_SHAPE_PLANE,      ///< infinite plane n.x = offset (static bodies only)
    TC_SHAPE_TRIMESH,    ///< triangle mesh (static bodies only)
    TC_SHAPE_TYPE_COUNT
} tc_shape_type;

/// One convex part (or a static plane / triangle mesh) of a body. Arrays are copied at creation.
typedef struct tc_shape_def {
    tc_shape_type type;
    tc_transform local;       ///< pose of the shape in the body frame
    tc_real radius;           ///< m, sphere radius
    tc_vec3 half_extents;     ///< m, box half extents
    tc_vec3 plane_normal;     ///< unit normal of a plane, pointing out of the solid side
    tc_real plane_offset;     ///< m, plane is {x : normal.x = offset} in the body frame
    const tc_vec3* points;    ///< hull input points (m, body frame) or trimesh vertices
    int point_count;
    const int* triangles;     ///< trimesh: 3 vertex indices per triangle, counter-clockwise seen from outside
    int triangle_count;
    tc_real density;          ///< kg/m^3, used when the body's mass is derived, default 1000
} tc_shape_def;

/// Surface material of a body.
typedef struct tc_material {
    tc_real friction;    ///< Coulomb coefficient, default 0.6 (mixed as sqrt(a*b))
    tc_real restitution; ///< 0..1, default 0 (mixed as max(a,b))
} tc_material;

/// Fields every body def starts with.
typedef struct tc_body_def {
    const char* name;          ///< optional, copied; used in messages and outputs
    tc_transform pose;         ///< m / unit quaternion, world pose of the body frame
    tc_vec3 linear_velocity;   ///< m/s, of the centre of mass (or of every node for deformables)
    tc_vec3 angular_velocity;  ///< rad/s, world frame
    void* user_data;
    tc_material material;
} tc_body_def;

/// Rigid or static body made of one or more shapes (several convex parts make a composite).
typedef struct tc_rigid_body_def {
    tc_body_def base;
    bool is_static;            ///< immovable if true (then mass is ignored)
    const tc_shape_def* shapes;
    int shape_count;
    tc_real mass;              ///< kg; 0 = derive from the shapes' densities
    tc_real linear_damping;    ///< 1/s, default 0
    tc_real angular_damping;   ///< 1/s, default 0
    tc_contact_method contact_method; ///< default TC_CONTACT_GAUSS_MAP
    bool allow_sleep;          ///< default true
    bool gyroscopic;           ///< integrate the gyroscopic term implicitly, default true
    int internal_value;
} tc_rigid_body_def;

/// Default world def: gravity -9.81 z, 60 Hz, 4 sub-steps, soft-step solver.
TC_API tc_world_def tc_world_def_default(void);
/// Default rigid body def: dynamic, identity pose, no shapes, friction 0.6.
TC_API tc_rigid_body_def tc_rigid_body_def_default(void);
/// Default shape def of the given type with unit size (radius 0.5, half extents 0.5, plane z = 0).
TC_API tc_shape_def tc_shape_def_default(tc_shape_type type);
/// Default body base: identity pose, at rest, friction 0.6, restitution 0.
TC_API tc_body_def tc_body_def_default(void);

/// A contact between two bodies, as every contact method reports it.
typedef struct tc_contact {
    tc_body_id body_a, body_b;
    int element_a, element_b;  ///< shape, node, surfel or triangle index on each side; -1 if none
    tc_vec3 point;             ///< m, world point midway between the two surfaces
    tc_vec3 normal;            ///< unit, from A to B
    tc_real separation;        ///< m, negative when penetrating
    tc_real normal_force;      ///< N, mean over the last step (impulse / dt for the rigid solver)
    tc_vec3 friction_force;    ///< N, tangential force on B
    uint32_t feature;          ///< feature key of the contact generator
} tc_contact;

#ifdef __cplusplus
}
#endif
#endif
