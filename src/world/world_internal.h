// Internal world layout, the body-slot pool and the per-kind operation table.
// See docs/pipeline.md for the step order these hooks are called in.
#ifndef TC_WORLD_INTERNAL_H
#define TC_WORLD_INTERNAL_H

#include "tactus/world.h"
#include "core/core.h"
#include "world/name_index.h"

#define TC_DEF_COOKIE 0x7AC705

/// One entry of the body pool; the id's index1 is slot + 1.
typedef struct tc_body_slot {
    uint32_t generation;
    int32_t next_free;  ///< free-list link, -1 at the end
    uint8_t kind;       ///< tc_body_kind
    bool alive;
    int32_t index;      ///< index of the body in its kind's store
    char* name;
    void* user_data;
} tc_body_slot;

struct tc_state_writer;
struct tc_state_reader;

/// Operations every body kind provides to the world pipeline. NULL hooks are skipped.
/// `index` is the body's index in the kind's own store (tc_body_slot.index).
typedef struct tc_kind_ops {
    const char* name;
    /// The kind adds the generic coupling's penalty forces explicitly (as forces of the next
    /// sub-step): the coupling then keeps its damper at the discrete critical value
    /// m (2 w - w^2 h), since a damper above 2 m / h reverses the velocity and feeds energy in.
    bool explicit_penalty;
    void (*destroy_store)(tc_world* w);
    /// Removes body `index`; a store that moves another body into the hole calls tc_world_body_moved.
    void (*remove_body)(tc_world* w, int index);
    /// Once per step, before the sub-steps (e.g. rigid broadphase + narrowphase).
    void (*begin_step)(tc_world* w, tc_real dt);
    /// Each sub-step: clear force accumulators and add gravity and user forces.
    void (*apply_forces)(tc_world* w, tc_real h);
    /// Each sub-step: this kind's own contact method for pairs it owns (see tc_coupling_of),
    /// accumulating forces and recording tc_contact records with tc_world_add_contact.
    void (*collide)(tc_world* w, tc_real h);
    /// Each sub-step, after every kind collided: advance the state by h.
    void (*integrate)(tc_world* w, tc_real h);
    /// Once per step after the sub-steps (restitution, impulse storage, sleep, plasticity).
    void (*end_step)(tc_world* w, tc_real dt);

    // Queries used by the generic penalty coupling, the tools and the API.
    tc_aabb (*body_aabb)(const tc_world* w, int index);
    /// Signed distance of world point p to body `index` (negative inside) and outward normal.
    /// Return a large positive value when p is far or the body has no inside.
    tc_real (*signed_distance)(const tc_world* w, int index, tc_vec3 p, tc_vec3* normal);
    /// Optional: the same for points up to `margin` m outside the body's box too (signed_distance
    /// may give up just outside it); 1e300 (normal untouched) beyond.
    tc_real (*signed_distance_near)(const tc_world* w, int index, tc_vec3 p, tc_real margin, tc_vec3* normal);
    /// Number of surface sample points (vertices, surfels) used against other kinds' SDF.
    int (*surface_point_count)(const tc_world* w, int index);
    /// Position, velocity and mass share (kg) of surface sample k.
    void (*surface_point)(const tc_world* w, int index, int k, tc_vec3* p, tc_vec3* v, tc_real* mass);
    /// Velocity of the material point of body `index` at world point p (k = sample hint or -1).
    tc_vec3 (*velocity_at)(const tc_world* w, int index, int k, tc_vec3 p);
    /// Adds force f (N) at world point p (k = surface sample receiving it, or -1 for "at p").
    void (*apply_point_force)(tc_world* w, int index, int k, tc_vec3 p, tc_vec3 f);
    /// Optional: surface sample k touches immovable geometry (other_slot -1) or, when
    /// `rigid_contacts`, the dynamic rigid body in world slot other_slot, or may within this
    /// sub-step of h s: the plane with outward normal n at signed distance d (m, < 0 inside),
    /// friction mu. The kind integrates the contact itself within its own steps (stiffer than a
    /// force held over the sub-step), a rigid body through a proxy whose change it gives the body
    /// after its integration, and returns the normal force (N) it exerts now, for the records,
    /// and its friction force in *friction (N, tangential).
    tc_real (*static_contact)(tc_world* w, int index, int k, int32_t other_slot, tc_vec3 n, tc_real d, tc_real mu, tc_real h,
                              tc_vec3* friction);
    /// The kind's static_contact takes contacts with dynamic rigid bodies too.
    bool rigid_contacts;
    /// Effective mass (kg) a contact at sample k / point p sees; 0 = immovable.
    tc_real (*contact_mass)(const tc_world* w, int index, int k);
    /// Surface material of the body (friction, restitution).
    tc_material (*material)(const tc_world* w, int index);
    /// Kinetic energy and potential energy (gravity relative to z = 0, plus elastic), J.
    void (*energy)(const tc_world* w, int index, tc_real* kinetic, tc_real* potential);
    uint64_t (*hash)(const tc_world* w, int index, uint64_t h);
    void (*draw)(const tc_world* w, int index, const tc_debug_draw* draw);
    /// Returns false and fills error (naming the body) when the body's state is not finite.
    bool (*check_finite)(const tc_world* w, int index, tc_error* error);
    tc_transform (*pose)(const tc_world* w, int index);
    tc_vec3 (*linear_velocity)(const tc_world* w, int index);
    /// rad/s, world frame (node-based kinds: the rigid rotation I^-1 L about the centre of mass).
    tc_vec3 (*angular_velocity)(const tc_world* w, int index);
    tc_vec3 (*center_of_mass)(const tc_world* w, int index);
    tc_real (*mass)(const tc_world* w, int index);
    bool (*ray_cast)(const tc_world* w, int index, tc_vec3 o, tc_vec3 d, tc_real max_t, tc_real* t, tc_vec3* n);
    /// tc_body_apply_force: force f (N) at world point p, held for the next step (deformable
    /// kinds spread it over their nodes by mass). NULL: the kind takes no user forces.
    tc_result (*apply_user_force)(tc_world* w, int index, tc_vec3 f, tc_vec3 p);
    /// tc_body_set_pose: moves the body rigidly so that the `pose` hook's frame becomes `to`
    /// (finite, unit quaternion; checked by the caller). Velocities are kept. NULL: unsupported.
    tc_result (*set_pose)(tc_world* w, int index, tc_transform to);
    /// tc_body_set_velocity: rigid velocity field v + omega x (x - centre of mass), m/s and rad/s
    /// (finite; checked by the caller). NULL: unsupported.
    tc_result (*set_velocity)(tc_world* w, int index, tc_vec3 v, tc_vec3 omega);
    /// Wakes every sleeping body of the store (gravity changed, static geometry moved).
    void (*wake_all)(tc_world* w);
    /// False while the body sleeps or cannot move (static). NULL: the kind never sleeps.
    bool (*is_awake)(const tc_world* w, int index);
    /// Optional: wakes one sleeping body (before the step's begin_step).
    void (*wake)(tc_world* w, int index);
    /// Checkpoints (world/state_io.h): every dynamic variable of the whole store, bodies in store
    /// order, enough that a resumed run is bit-identical to an uninterrupted one. read_state
    /// restores into a store rebuilt from the same scene and returns an error naming `file`
    /// for a stream that does not fit. A kind without them cannot be checkpointed.
    void (*write_state)(const tc_world* w, struct tc_state_writer* out);
    /// Optional: TC_RESULT_OK when the store's present state can be written, else an error
    /// naming the body that cannot (e.g. a body the scene does not create).
    tc_result (*check_state)(const tc_world* w, tc_error* error);
    tc_result (*read_state)(tc_world* w, struct tc_state_reader* in, const char* file, tc_error* error);
} tc_kind_ops;

/// How a pair of kinds is resolved (docs/pipeline.md).
typedef enum tc_coupling {
    TC_COUPLE_NONE = 0,    ///< never collide (static-static)
    TC_COUPLE_SOLVER,      ///< rigid constraint rows in the PGS solver
    TC_COUPLE_KIND,        ///< the kind's own paper method (its collide hook)
    TC_COUPLE_PENALTY_SDF, ///< generic penalty: surface samples against the other side's SDF
} tc_coupling;

tc_coupling tc_coupling_of(tc_body_kind a, tc_body_kind b);
/// The ops of the store that holds bodies of `kind` (static bodies live in the rigid store).
const tc_kind_ops* tc_kind_ops_of(tc_body_kind kind);

struct tc_world {
    tc_world_def def;
    uint16_t serial;
    bool locked;
    TC_ARRAY(tc_body_slot) slots;
    tc_name_index names; ///< body name -> slot
    int32_t free_head;
    int body_count;
    void* stores[TC_BODY_KIND_COUNT]; ///< each kind's store, created on its first body
    TC_ARRAY(tc_contact) contacts;    ///< this step's contacts
    tc_world_stats stats;
    tc_real time;
    int64_t step_index;
    int64_t substep_index;
    /// Set (0 -> 1) by the first tc_world_out_of_memory of a step, which writes oom_message;
    /// tc_world_step then returns TC_RESULT_OUT_OF_MEMORY with that message.
    _Atomic int oom_reported;
    char oom_message[512];
};

/// Allocates a slot for a new body of `kind` stored at `index`; fills *id. name may be NULL.
tc_result tc_world_alloc_body(tc_world* w, tc_body_kind kind, int index, const char* name, void* user_data, tc_body_id* id);
/// Removes a live body (id checked by the caller) from its store and frees its slot, even during
/// a step: a stage undoing its own additions (a fracture that ran out of memory half-way).
void tc_world_release_body(tc_world* w, tc_body_id id);
/// Resolves an id to its slot; NULL (and a logged warning) for stale or foreign ids.
tc_body_slot* tc_world_resolve(const tc_world* w, tc_body_id id);
/// A store moved its body from one index to `new_index`; the owning slot follows.
void tc_world_body_moved(tc_world* w, int32_t slot, int new_index);
/// The id of the body in `slot`.
tc_body_id tc_world_slot_id(const tc_world* w, int32_t slot);
/// The store of `kind`, allocated zeroed with `size` bytes on first use (NULL on OOM).
void* tc_world_store(tc_world* w, tc_body_kind kind, size_t size);
/// Records a contact for outputs, metrics and drawing.
void tc_world_add_contact(tc_world* w, const tc_contact* c);
/// Returns TC_RESULT_WORLD_LOCKED while a step runs.
tc_result tc_world_check_unlocked(const tc_world* w);
/// Name of the body in slot (never NULL).
const char* tc_world_slot_name(const tc_world* w, int32_t slot);

/// A step stage ran out of memory and skipped or degraded what it names (fmt: "points body 'x':
/// out of memory for ..."). Thread-safe (logs nothing itself); the first report of a step is kept
/// and logged by tc_world_step at the step's end. tc_world_step returns TC_RESULT_OUT_OF_MEMORY with that message (unless a state
/// became non-finite, which is reported first).
void tc_world_out_of_memory(tc_world* w, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/// The generic penalty coupling between bodies of different kinds (world/coupling.c).
void tc_coupling_penalty_sdf(tc_world* w, tc_real h);
/// Before a step's begin_step: wakes the sleeping bodies a moving deformable body that takes
/// rigid contacts itself (rigid_contacts) may reach within the step of dt s.
void tc_coupling_wake_near(tc_world* w, tc_real dt);

#endif
