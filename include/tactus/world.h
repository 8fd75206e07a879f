/// @file world.h
/// The world: creation, stepping, bodies by id, queries, statistics and state hash.
#ifndef TACTUS_WORLD_H
#define TACTUS_WORLD_H

#include "tactus/types.h"
#include "tactus/debug_draw.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tc_world tc_world;

/// Per-step statistics, refreshed by every tc_world_step.
typedef struct tc_world_stats {
    int64_t step;             ///< steps taken
    tc_real time;             ///< s, simulated time
    int body_count;
    int awake_body_count;     ///< bodies not asleep; static bodies never count, deformables always do
    int contact_count;        ///< contacts of this step (sleeping islands make none: 0 once all sleep)
    tc_real max_penetration;  ///< m, largest penetration among this step's contacts (>= 0; 0 once all sleep)
    tc_real kinetic_energy;   ///< J
    tc_real potential_energy; ///< J, gravitational (relative to z = 0) plus elastic
    double step_wall_time;    ///< s, wall-clock time of the last step
} tc_world_stats;

/// Creates a world. Returns NULL and fills error (may be NULL) when def is invalid.
/// The caller owns the world; free it with tc_world_destroy.
TC_API tc_world* tc_world_create(const tc_world_def* def, tc_error* error);
/// Destroys the world and every body in it. Accepts NULL.
TC_API void tc_world_destroy(tc_world* world);
/// Advances the world by def.time_step. Returns TC_RESULT_UNSTABLE (and fills error with the
/// body and step) when a state becomes non-finite or the energy limit is exceeded, and
/// TC_RESULT_OUT_OF_MEMORY (error names the stage and body) when an allocation failed: that stage
/// skipped or degraded what the message says, every body stays finite and the next step is a
/// normal one (docs/reliability.md).
TC_API tc_result tc_world_step(tc_world* world, tc_error* error);
/// The def the world was created with.
TC_API tc_world_def tc_world_get_def(const tc_world* world);
/// Sets the gravity (m/s^2) used from the next step on. A change wakes every sleeping body.
/// Returns TC_RESULT_NOT_FINITE (gravity unchanged) for a non-finite vector and
/// TC_RESULT_WORLD_LOCKED during a step.
TC_API tc_result tc_world_set_gravity(tc_world* world, tc_vec3 gravity);
/// Statistics of the last step (all zero before the first). contact_count and max_penetration
/// cover this step's contacts only: bodies asleep make none, so both drop to 0 once all sleep.
TC_API tc_world_stats tc_world_get_stats(const tc_world* world);
/// FNV-1a hash of the whole simulation state in id order; equal states give equal hashes.
TC_API uint64_t tc_world_hash(const tc_world* world);
/// Contacts of the last step (valid until the next step).
TC_API const tc_contact* tc_world_get_contacts(const tc_world* world, int* count);
/// Draws every body and the enabled debug layers through draw.
TC_API void tc_world_draw(const tc_world* world, const tc_debug_draw* draw);
/// Number of live bodies.
TC_API int tc_world_get_body_count(const tc_world* world);
/// Copies up to capacity live body ids, in creation-slot order; returns the number of live bodies.
TC_API int tc_world_get_bodies(const tc_world* world, tc_body_id* out, int capacity);
/// The body with this name, or the null id.
TC_API tc_body_id tc_world_find_body(const tc_world* world, const char* name);
/// Bounding box of every body except infinite planes.
TC_API tc_aabb tc_world_get_bounds(const tc_world* world);

/// Creates a rigid or static body. Errors (bad def, degenerate shape, zero mass) go to error.
TC_API tc_result tc_rigid_body_create(tc_world* world, const tc_rigid_body_def* def,
                                      tc_body_id* out_id, tc_error* error);
/// Destroys any body. TC_RESULT_STALE_ID for a stale or foreign id.
TC_API tc_result tc_body_destroy(tc_world* world, tc_body_id id);
/// True when id names a live body of this world.
TC_API bool tc_body_is_valid(const tc_world* world, tc_body_id id);
/// The body's kind; TC_BODY_KIND_COUNT for a stale or foreign id (which also logs a warning).
TC_API tc_body_kind tc_body_get_kind(const tc_world* world, tc_body_id id);
/// The body's name ("" if none or invalid id).
TC_API const char* tc_body_get_name(const tc_world* world, tc_body_id id);
/// World pose of the body frame (identity for an invalid id). Deformables (tet, spring, point
/// bodies) report a frame at their centre of mass with no rotation.
TC_API tc_transform tc_body_get_pose(const tc_world* world, tc_body_id id);
/// Velocity of the centre of mass, m/s (zero for an invalid id).
TC_API tc_vec3 tc_body_get_linear_velocity(const tc_world* world, tc_body_id id);
/// Angular velocity, rad/s, world frame (zero for static bodies and invalid ids). Tet, spring and
/// point bodies report the rotation of their best rigid fit, I^-1 L about the centre of mass.
TC_API tc_vec3 tc_body_get_angular_velocity(const tc_world* world, tc_body_id id);
/// Centre of mass, m, world.
TC_API tc_vec3 tc_body_get_center_of_mass(const tc_world* world, tc_body_id id);
/// Total mass, kg (0 for static bodies).
TC_API tc_real tc_body_get_mass(const tc_world* world, tc_body_id id);
/// Moves the body so that tc_body_get_pose's frame becomes pose (m; the quaternion is normalised).
/// Rigid, static and quasi bodies take the pose; deformables (tet, springs, points) move every
/// node by the rigid motion taking their reported pose to the new one (their reported frame has
/// no rotation, so it keeps none: the centre of mass lands at pose applied to its old offset).
/// Velocities are kept. Moving a rigid-store body wakes every sleeping body. Returns
/// TC_RESULT_STALE_ID, TC_RESULT_NOT_FINITE, TC_RESULT_INVALID_ARGUMENT (zero quaternion) or
/// TC_RESULT_WORLD_LOCKED during a step; the body is then unchanged.
TC_API tc_result tc_body_set_pose(tc_world* world, tc_body_id id, tc_transform pose);
/// Sets the velocity: linear (m/s, of the centre of mass) and angular (rad/s, world frame).
/// Rigid and quasi bodies take both and wake; deformables give every node
/// linear + angular x (x - centre of mass), fixed or pinned nodes keeping zero velocity.
/// Static bodies return TC_RESULT_UNSUPPORTED; also TC_RESULT_STALE_ID, TC_RESULT_NOT_FINITE,
/// TC_RESULT_WORLD_LOCKED (body unchanged).
TC_API tc_result tc_body_set_velocity(tc_world* world, tc_body_id id, tc_vec3 linear, tc_vec3 angular);
/// Adds a force (N) at a world point (m), applied during the next step only. Rigid and quasi
/// bodies also take its torque; deformables spread it over their nodes by mass (point unused).
/// Static bodies return TC_RESULT_UNSUPPORTED; non-finite input TC_RESULT_NOT_FINITE.
TC_API tc_result tc_body_apply_force(tc_world* world, tc_body_id id, tc_vec3 force, tc_vec3 point);
/// Axis-aligned box of the body, m.
TC_API tc_aabb tc_body_get_aabb(const tc_world* world, tc_body_id id);
/// The first body hit by the ray origin + t dir (t in [0, max_t]); the null id if none.
TC_API tc_body_id tc_world_ray_cast(const tc_world* world, tc_vec3 origin, tc_vec3 dir, tc_real max_t,
                                    tc_real* out_t, tc_vec3* out_normal);

#ifdef __cplusplus
}
#endif
#endif
