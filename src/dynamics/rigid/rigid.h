// The rigid store: static and dynamic rigid bodies (and the rigid frames of quasi-rigid bodies).
#ifndef TC_RIGID_H
#define TC_RIGID_H

#include "world/world_internal.h"
#include "geometry/shape.h"

typedef struct tc_rigid_body {
    int32_t slot;            ///< owning world slot
    uint8_t kind;            ///< TC_BODY_STATIC, TC_BODY_RIGID or TC_BODY_QUASI
    tc_shape* shapes;
    int shape_count;
    tc_transform pose;       ///< body frame in the world
    tc_vec3 com_local;       ///< centre of mass in the body frame
    tc_vec3 com;             ///< centre of mass in the world
    tc_vec3 v;               ///< m/s, velocity of the centre of mass
    tc_vec3 w;               ///< rad/s, world frame
    tc_real mass, inv_mass;
    tc_mat3 inertia_local;   ///< kg m^2 about com, body axes
    tc_mat3 inv_inertia_local;
    tc_mat3 inv_inertia_world;
    tc_vec3 force, torque;   ///< this sub-step's accumulated force (N) and torque about com (N m)
    tc_vec3 user_force, user_torque; ///< applied by tc_body_apply_force, kept for one step
    /// The reactions of deformable bodies met through proxies in the last sub-step (N, N m
    /// about com), applied over the next one, when the solver meets them with the body's other
    /// contacts (points_ops.c)
    tc_vec3 lag_force, lag_torque;
    /// Touched by a deformable body while asleep: met as immovable for the rest of the step (its
    /// solver pairs were made without it) and woken at the next step's start.
    bool wake_next;
    tc_material material;
    tc_real linear_damping, angular_damping;
    tc_contact_method contact_method;
    bool allow_sleep, awake, gyroscopic;
    tc_real sleep_time;      ///< s the body has been below the sleep thresholds
    tc_aabb aabb;            ///< world box of all shapes, refreshed each step
} tc_rigid_body;

typedef struct tc_rigid_store {
    TC_ARRAY(tc_rigid_body) bodies;
    void* solver;            ///< contact pipeline state (broadphase, manifolds), owned by solver/
} tc_rigid_store;

static inline tc_rigid_store* tc_rigid_store_of(const tc_world* w) { return (tc_rigid_store*)w->stores[TC_BODY_RIGID]; }
static inline bool tc_rigid_is_dynamic(const tc_rigid_body* b) { return b->inv_mass > 0; }

/// Creates a rigid body record of kind `kind` (RIGID or QUASI) from def; returns its store index
/// via *index. Used by tc_rigid_body_create and by the quasi-rigid kind.
tc_result tc_rigid_store_add(tc_world* w, const tc_rigid_body_def* def, uint8_t kind, int32_t slot, int* index, tc_error* error);
/// tc_body_apply_force for a body of this store (rigid and quasi-rigid frames).
tc_result tc_rigid_apply_user_force(tc_world* w, int index, tc_vec3 f, tc_vec3 p);
/// The set_pose / set_velocity / wake_all hooks of the rigid store (also those of quasi frames).
/// set_pose wakes every sleeping body; set_velocity returns TC_RESULT_UNSUPPORTED for static bodies.
tc_result tc_rigid_set_pose(tc_world* w, int index, tc_transform to);
tc_result tc_rigid_set_velocity(tc_world* w, int index, tc_vec3 v, tc_vec3 omega);
void tc_rigid_wake_all(tc_world* w);
/// is_awake hook: dynamic and not asleep.
bool tc_rigid_is_awake(const tc_world* w, int index);
/// Refreshes com, world inverse inertia and the AABB from pose.
void tc_rigid_update_derived(tc_rigid_body* b);
/// Velocity of the material point at world point p.
static inline tc_vec3 tc_rigid_velocity_at(const tc_rigid_body* b, tc_vec3 p) {
    return tc_v3_add(b->v, tc_v3_cross(b->w, tc_v3_sub(p, b->com)));
}
/// Adds force f at world point p to the sub-step accumulators.
void tc_rigid_add_force_at(tc_rigid_body* b, tc_vec3 f, tc_vec3 p);
/// v += h (g + F/m), w += h I^-1 (tau - w x I w) with the gyroscopic term solved implicitly.
void tc_rigid_integrate_velocity(tc_rigid_body* b, tc_vec3 gravity, tc_real h);
/// Position and orientation from the velocities (symplectic Euler), then derived data.
void tc_rigid_integrate_position(tc_rigid_body* b, tc_real h);
/// Signed distance of p to the body's union of shapes (negative inside) and outward normal.
tc_real tc_rigid_signed_distance(const tc_rigid_body* b, tc_vec3 p, tc_vec3* normal);

/// Contact pipeline hooks implemented in solver/ (broadphase, narrowphase, PGS).
void tc_rigid_contacts_begin_step(tc_world* w, tc_rigid_store* store, tc_real dt);
void tc_rigid_contacts_substep(tc_world* w, tc_rigid_store* store, tc_real h);
void tc_rigid_contacts_end_step(tc_world* w, tc_rigid_store* store, tc_real dt);
void tc_rigid_contacts_destroy(tc_rigid_store* store);
/// The rigid solver's contact load on every body over the last sub-step it solved (at a step's first
/// sub-step, its warm start): the impulses / h [N] and their torque about the centre of mass [N m],
/// zero for a body without solver contacts. force and torque hold store->bodies.count entries.
void tc_rigid_contacts_reactions(const tc_rigid_store* store, tc_real h, tc_vec3* force, tc_vec3* torque);
void tc_rigid_contacts_body_removed(tc_rigid_store* store, int index, int moved_from);
/// Checkpoint of the contact pipeline's persistent state (manifolds, warm-start impulses, sleep
/// islands): whatever the next step reads besides the bodies themselves (world/state_io.h).
void tc_rigid_contacts_write_state(const tc_rigid_store* store, struct tc_state_writer* out);
tc_result tc_rigid_contacts_read_state(tc_rigid_store* store, struct tc_state_reader* in, const char* file, tc_error* error);

#endif
