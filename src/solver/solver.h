// The rigid contact solver (ALGORITHMS §3): persistent manifolds per shape pair, contact rows
// solved by projected Gauss-Seidel with Coulomb friction inside sub-steps, with one of three
// position corrections (soft step, Baumgarte, split impulse), restitution and sleeping islands.
#ifndef TC_SOLVER_H
#define TC_SOLVER_H

#include "collision/collide.h"
#include "dynamics/rigid/rigid.h"

/// The persistent contact state of one shape pair.
typedef struct tc_pair_manifold {
    uint64_t key;           ///< slot and shape of A and of B (see tc_pair_key)
    int body_a, body_b;     ///< store indices this step
    int shape_a, shape_b;
    tc_real friction, restitution;
    tc_manifold m;
} tc_pair_manifold;

/// One manifold point as a constraint (normal + two friction rows).
typedef struct tc_contact_row {
    int a, b;               ///< store indices
    int pair, point;        ///< where the impulses are stored back
    tc_vec3 n, t1, t2;
    tc_vec3 ra, rb;         ///< m, from the centres of mass at the start of the step
    tc_vec3 anchor_a, anchor_b; ///< body frames: the current separation follows the bodies
    tc_real base;           ///< m, separation at collide time minus the anchors' gap then
    tc_real mass_n, mass_t1, mass_t2;
    tc_real bias, mass_scale, impulse_scale; ///< normal row's soft terms for the current pass
    tc_real friction, restitution;
    tc_real pre_vn;         ///< m/s, normal velocity before the step (restitution)
    tc_real ln, lt1, lt2;   ///< accumulated impulses, N s
    tc_real lp;             ///< split impulse: pseudo impulse
    tc_real max_ln;
    tc_real inv_ma, inv_mb;    ///< 1/kg
    tc_vec3 wa[3], wb[3];      ///< I^-1 (r x u) for u = n, t1, t2: the angular velocity per unit impulse
    tc_vec3 k_n;               ///< m/s per N s: change of the relative velocity per unit normal impulse
    bool static_contact;    ///< against a static body: stiffer soft contact
} tc_contact_row;

typedef struct tc_solver {
    TC_ARRAY(tc_pair_manifold) pairs; ///< sorted by key
    TC_ARRAY(tc_contact_row) rows;
    TC_ARRAY(int) body_pairs;          ///< broadphase output, 2 store indices per pair
    TC_ARRAY(tc_vec3) pseudo;          ///< split impulse: (v, w) pseudo velocities, 2 per body
    TC_ARRAY(tc_real) reach;           ///< per body: m it can travel this step (speculative margin)
    TC_ARRAY(tc_vec3) vel;             ///< per body: packed (v, w) while the rows are solved
    TC_ARRAY(tc_vec3) delta;           ///< per body: displacement and rotation vector since the step began
    TC_ARRAY(int) island;              ///< union-find parent per body (sleeping)
    TC_ARRAY(tc_real) island_sleep;    ///< min sleep time per island root
    bool cache_invalid;                ///< a body was removed: no warm start from old slots
    tc_real margin;                    ///< m, speculative contact distance
} tc_solver;

uint64_t tc_pair_key(int32_t slot_a, int shape_a, int32_t slot_b, int shape_b);

/// Builds rows from the step's manifolds (warm-start impulses from the manifolds).
void tc_solver_prepare(tc_world* w, tc_rigid_store* s, tc_solver* sv, tc_real dt);
/// One sub-step: warm start, biased solve, positions, relax (the scheme from the world def).
void tc_solver_substep(tc_world* w, tc_rigid_store* s, tc_solver* sv, tc_real h);
/// After the sub-steps: restitution, impulses back into the manifolds, contact reports.
void tc_solver_finish(tc_world* w, tc_rigid_store* s, tc_solver* sv, tc_real dt);
/// Union-find islands of touching dynamic bodies; islands at rest long enough fall asleep.
void tc_solver_update_sleep(tc_world* w, tc_rigid_store* s, tc_solver* sv, tc_real dt);
/// Wakes every body of the island body `index` belonged to last step.
void tc_solver_wake_island(tc_rigid_store* s, tc_solver* sv, int index);
#endif
