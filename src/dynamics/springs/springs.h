// Internal store of mass-spring bodies (seed 003).
#ifndef TC_SPRINGS_INTERNAL_H
#define TC_SPRINGS_INTERNAL_H

#include "tactus/springs.h"
#include "geometry/trimesh.h"
#include "world/world_internal.h"
#include "dynamics/rigid/rigid.h"

typedef struct tc_spring {
    int i, j;
    tc_real rest, k, kd; ///< m, N/m, N s/m
} tc_spring;

/// One contact of a vertex with a dynamic rigid body over a world sub-step (for the records).
typedef struct tc_springs_touch {
    tc_real jn, depth;    ///< N s normal impulse summed over the pieces; m deepest penetration
    tc_vec3 n, p, jt;     ///< last normal (out of the rigid body), point; N s friction impulse on the vertex
} tc_springs_touch;

/// A dynamic rigid body as one spring body sees it during the explicit pieces of a world
/// sub-step: a copy that moves with the pieces and takes every vertex impulse at once, so each
/// projection sees the velocity the earlier ones left (the pair's kinetic energy can only drop).
/// The copy's changes reach the real body after the pieces (tc_springs_rigid_end).
typedef struct tc_springs_proxy {
    int index;                ///< rigid store index
    tc_rigid_body body;       ///< the copy: pose, com, v and w follow the pieces
    tc_transform end_pose;    ///< the real body after its own integration of this sub-step
    tc_vec3 end_com, v1, w1;  ///< its centre of mass and velocities then
    tc_aabb end_aabb;
    tc_vec3 dx, dtheta;       ///< m, rad: extra motion the impulses caused within the sub-step
    bool touched;
    tc_springs_touch* touch;  ///< per vertex when contacts are recorded this sub-step, else NULL
} tc_springs_proxy;

typedef struct tc_springs_body {
    int32_t slot;
    int n, tri_count;
    tc_vec3 *x, *v, *f;
    tc_real *m, *inv_m;          ///< kg per vertex (area share)
    int* tris;                   ///< 3 per triangle
    TC_ARRAY(tc_spring) springs; ///< edges first (edge_count), then bending springs
    int edge_count;
    int* vert_start;             ///< vertex v's neighbours: neighbours[vert_start[v] .. [v+1]) (edge graph)
    int* neighbours;
    tc_real rest_volume, pressure, drag, total_mass;
    tc_springs_integrator integrator;
    tc_real stable_step;         ///< s, explicit limit with a 0.9 safety factor
    bool warned;                 ///< the sub-stepping notice was logged
    tc_vec3 user_force;          ///< N, spread by mass, for one step
    tc_material material;
    tc_aabb aabb;
    TC_ARRAY(tc_springs_proxy) proxies; ///< dynamic rigid bodies near it this sub-step
    /// Integrator scratch allocated with the body, so that a step never allocates it: 7 n
    /// vectors (explicit: the contact forces kept over the pieces; implicit: the CG vectors) and
    /// n reals (the implicit Jacobi diagonal).
    tc_vec3* work;
    tc_real* work_diag;
} tc_springs_body;

typedef struct tc_springs_store {
    TC_ARRAY(tc_springs_body) bodies;
} tc_springs_store;

static inline tc_springs_store* tc_springs_store_of(const tc_world* w) { return (tc_springs_store*)w->stores[TC_BODY_SPRINGS]; }
static inline tc_springs_body* tc_springs_body_at(const tc_world* w, int i) { return &tc_springs_store_of(w)->bodies.data[i]; }

/// Accumulates spring, bending, damping, volume, drag and gravity forces into b->f (cleared first).
void tc_springs_forces(tc_springs_body* b, tc_vec3 gravity);
/// Explicit: symplectic Euler in as many equal sub-steps as the stability limit needs. Logs
/// nothing (it runs in the parallel integrate loop): tc_springs_note_explicit_pieces does.
void tc_springs_step_explicit(tc_world* w, tc_springs_body* b, tc_real h);
/// The number of equal pieces tc_springs_step_explicit cuts a sub-step h into.
int tc_springs_explicit_pieces(const tc_springs_body* b, tc_real h);
/// Logs, once per body, that a sub-step h needs more than one explicit piece (call it outside
/// parallel loops: the log callback need not be thread-safe).
void tc_springs_note_explicit_pieces(tc_springs_body* b, tc_real h);
/// One symplectic Euler step of exactly h (no limit check: the tests probe instability with it).
void tc_springs_step_raw(tc_springs_body* b, tc_vec3 gravity, tc_real h);
/// Implicit Euler: one Newton step with Jacobi-preconditioned conjugate gradients.
void tc_springs_step_implicit(tc_springs_body* b, tc_vec3 gravity, tc_real h);
/// 0.9 * 2 / omega_max, omega_max^2 <= max_i 2 sum_j k_ij / m_i (Gershgorin), damping included.
tc_real tc_springs_stable_step(const tc_springs_body* b);
/// Most explicit pieces one world sub-step may be cut into: beyond it a step takes seconds, so a
/// body that would need more is refused at creation (and capped at run time).
#define TC_SPRINGS_MAX_EXPLICIT_PIECES 10000
tc_real tc_springs_volume(const tc_springs_body* b);
void tc_springs_update_aabb(tc_springs_body* b);
/// Projects the vertices out of static bodies (h only scales the recorded forces: none here).
void tc_springs_project_static(tc_world* w, tc_springs_body* b, tc_real h);
/// Projects the vertices out of static bodies and out of the dynamic rigid proxies after explicit
/// piece `piece` of `pieces` of the world sub-step h (resting contact then holds within the
/// sub-step, and a fast impact is met piece by piece instead of once per world sub-step).
void tc_springs_project_rigid(tc_world* w, tc_springs_body* b, tc_real h, int piece, int pieces);
/// Before the (parallel) integration, after the rigid bodies integrated: the proxies of the
/// dynamic rigid bodies the body may reach within the sub-step h. Serial (it allocates).
void tc_springs_rigid_begin(tc_world* w, tc_springs_body* b, tc_real h, bool record);
/// After the integration, serially in body order: the proxies' velocity and motion changes go
/// to the rigid bodies, and their contacts are recorded.
void tc_springs_rigid_end(tc_world* w, tc_springs_body* b, tc_real h);
/// Edge-triangle contacts between spring bodies (collide hook).
void tc_springs_collide(tc_world* w, tc_real h);

/// The vertices of A inside B found by edge-triangle intersection and the flood fill, kept where
/// B's winding number is not 0 (before any response); writes up to capacity indices, returns the count.
int tc_springs_find_inside(const tc_springs_body* A, const tc_springs_body* B, int* out, int capacity);

/// Triangles of a spring body binned by their xy projection, for winding numbers along +z.
typedef struct tc_springs_winding {
    tc_aabb box;         ///< of B's vertices when built
    tc_real lo_x, lo_y, cell;
    int dims[2];
    TC_ARRAY(int) start; ///< per cell + 1: offsets into items
    TC_ARRAY(int) items; ///< triangle indices
} tc_springs_winding;

/// Bins B's triangles as they are now. Returns false when out of memory.
bool tc_springs_winding_build(tc_springs_winding* g, const tc_springs_body* B);
/// Winding number of B's closed surface around p (1 inside an outward-oriented mesh, 0 outside;
/// exact for any closed mesh, self-intersecting or not, as B was when the grid was built).
int tc_springs_winding_number(const tc_springs_winding* g, const tc_springs_body* B, tc_vec3 p);
void tc_springs_winding_free(tc_springs_winding* g);
#endif
