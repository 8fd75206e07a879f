// Internal point-based body store (seed 000): phyxels, surfels, MLS elasticity, plasticity.
#ifndef TC_POINTS_H
#define TC_POINTS_H

#include "tactus/points.h"
#include "world/world_internal.h"
#include "contact/surfel_surface.h"

/// Most phyxels / surfels a body may sample; a def whose spacings would give more is refused
/// before sampling. Every shipped scene and test is below 1% of these. Setup is quadratic in
/// the phyxel count (neighbour search) and proportional to phyxels x surfels (surfel weights).
#define TC_POINTS_MAX_PHYXELS 100000
#define TC_POINTS_MAX_SURFELS 2000000

/// The poly6 kernel's factor 315/(64 pi h^9) (1/m^9).
static inline tc_real tc_poly6_factor(tc_real h) {
    tc_real h3 = h * h * h;
    return 315.0 / (64.0 * TC_PI * h3 * h3 * h3);
}

/// Poly6 kernel w(r, h) = 315/(64 pi h^9) (h^2 - r^2)^3 for r < h, else 0; takes r^2.
static inline tc_real tc_poly6(tc_real r2, tc_real h) {
    tc_real h2 = h * h;
    if (r2 >= h2) return 0;
    tc_real d = h2 - r2;
    return tc_poly6_factor(h) * d * d * d;
}

/// tc_poly6(r2, h) from h2 = h * h and factor = tc_poly6_factor(h) (the same bits), without a
/// branch: for loops over many r2, about half of them outside.
static inline tc_real tc_poly6_with(tc_real r2, tc_real h2, tc_real factor) {
    tc_real d = h2 - r2, w = factor * d * d * d;
    uint64_t bits, keep = (uint64_t)0 - (uint64_t)!(r2 >= h2); // all ones inside (and for a NaN r2, as tc_poly6)
    memcpy(&bits, &w, sizeof bits);
    bits &= keep; // +0 outside (gcc turns a ?: here into a branch, mispredicted on half the calls)
    memcpy(&w, &bits, sizeof w);
    return w;
}

/// Material constants shared by every phyxel of a body.
typedef struct tc_points_material {
    tc_real lambda, mu;   ///< Pa, Lamé parameters
    tc_real kv;           ///< Pa, volume term (multiplied by phyxel volume)
    tc_real youngs;       ///< Pa
    tc_real density;      ///< kg/m^3
    tc_real damping;      ///< 1/s
    tc_real yield, creep, max_plastic;
} tc_points_material;

/// A surfel against static geometry or a dynamic rigid body over one sub-step, linearised: the
/// plane with normal n at signed distance d (m, < 0 inside) from the surfel at the sub-step's
/// start, moving with the rigid body's proxy (if any). The body integrates it within its own
/// sub-steps (tc_points_integrate), as stiff as they allow.
typedef struct tc_points_static_contact {
    int k;               ///< surfel
    tc_vec3 n;           ///< outward normal of the geometry
    tc_real d;           ///< m, signed distance at the start
    tc_real mu;          ///< Coulomb friction coefficient
    tc_real omega, zeta; ///< rad/s lower bound of the contact frequency, damping ratio
    tc_real push_max;    ///< m/s: the spring rests while the surfel leaves faster than this
    int proxy;           ///< index in the body's proxies, or -1: immovable geometry
    tc_vec3 arm;         ///< m, the surfel relative to the proxy's centre of mass at the start
    tc_vec3 v_other;     ///< m/s, the other body's velocity at the surfel at the start (records)
} tc_points_static_contact;

/// A dynamic rigid body as the point body meets it within its internal steps: a copy that takes
/// every contact impulse at once (its velocities change within the sub-step); the summed impulse
/// reaches the real body as a force over the next sub-step (points_ops.c), so that the rigid
/// solver meets it together with the body's other contacts.
typedef struct tc_points_proxy {
    int rigid;            ///< index in the rigid store
    tc_real inv_mass;     ///< 1/kg
    tc_mat3 inv_inertia;  ///< world inverse inertia at the sub-step's start
    tc_vec3 v1, w1;       ///< its velocities after its own integration over the sub-step
    tc_vec3 v, w;         ///< v1, w1 plus the impulses so far
    tc_vec3 dx, dtheta;   ///< m, rad: the extra motion of those impulses
    tc_vec3 impulse, angular_impulse; ///< N s, N m s about its com: what the body took
    tc_real msum;         ///< kg, the surfel masses registered against it (its mass is shared among them)
    bool touched;
} tc_points_proxy;

typedef struct tc_points_body {
    int32_t slot;
    uint32_t mark;            ///< fracture group mark (0 = never split)
    tc_points_material mat;
    tc_material surface_material;
    bool fracture;
    tc_real fracture_stretch;
    tc_real contact_stiffness;   ///< N/m^3, 0 = derived
    tc_real resample_spacing;    ///< m
    bool seed_density_scaling;
    tc_real surfel_spacing;      ///< m
    tc_real min_support;         ///< m, smallest h_i
    tc_real operator_norm;       ///< tc_points_operator_norm of the current neighbour pairs
    tc_real rest_operator_norm;  ///< the same at creation (before any pair broke)
    // Phyxels.
    int np;
    tc_vec3 *x0, *x, *v, *f_ext;  ///< rest, current, velocity, external force of this sub-step
    tc_vec3 user_force;           ///< N, spread over the phyxels by mass for the next step
    tc_real *m, *vol, *h, *rbar;
    uint8_t* pinned;
    tc_mat3 *grad_u, *eps_p;      ///< current displacement gradient and plastic strain
    int* nb_start;                ///< CSR of neighbours: j = nb[nb_start[i] .. nb_start[i+1])
    int* nb;
    tc_vec3* nb_d;                ///< d_j = A_i^-1 (w_ij x_ij)
    tc_real* nb_len0;             ///< rest distance of the pair
    tc_vec3* dii;                 ///< d_i = -sum_j d_j
    int nb_count;
    // Surfels.
    int ns;
    tc_vec3 *s0, *n0, *s, *n, *sv;  ///< rest position and normal, current position, normal, velocity
    tc_real surfel_radius;
    int* sp_start;                  ///< CSR surfel -> phyxels with normalised weights
    int* sp;
    tc_real* sp_w;
    int sp_count;
    tc_real* surfel_mass;           ///< kg per surfel: each phyxel's mass split among the surfels it carries by weight
    tc_real total_mass;
    tc_aabb aabb;
    tc_surfel_surface surface;      ///< MLS implicit surface over the current surfels
    // Contact surface of the last collide (drawing and outputs).
    TC_ARRAY(tc_vec3) contact_points;
    TC_ARRAY(tc_vec3) contact_normals;
    /// Contacts with immovable geometry registered for the coming sub-step (points_contact.c).
    TC_ARRAY(tc_points_static_contact) static_contacts;
    TC_ARRAY(tc_points_proxy) proxies; ///< dynamic rigid bodies met this sub-step
    tc_real static_dt;              ///< s, the internal step the registered contacts will take
    int elastic_steps;              ///< internal steps the elastic stability needs this sub-step
    uint8_t* surfel_colliding;      ///< 1 when the surfel is replaced by the contact surface
    bool surface_ok;                ///< false when the last surface build ran out of memory
    bool split_pending;             ///< pairs broke but the split ran out of memory: retried next step
    // Step scratch, np entries each, allocated with the body so that a step never allocates them.
    tc_vec3 *work_f, *work_x;       ///< forces and start-of-sub-step positions (tc_points_integrate)
    tc_real* work_r;                ///< tc_points_operator_norm's row sums
} tc_points_body;

typedef struct tc_points_store {
    TC_ARRAY(tc_points_body*) bodies;
    uint32_t next_mark;
} tc_points_store;

static inline tc_points_store* tc_points_store_of(const tc_world* w) { return (tc_points_store*)w->stores[TC_BODY_POINTS]; }
static inline tc_points_body* tc_points_body_at(const tc_world* w, int index) { return tc_points_store_of(w)->bodies.data[index]; }

// ---- MLS elasticity (points_mls.c) ----
/// Builds the neighbour lists (within h_i at rest, optional group marks) and the d vectors.
/// Enlarges h_i until the moment matrix is well conditioned. Returns false when a phyxel has fewer
/// than 4 non-coplanar neighbours even after enlarging (then *bad is its index) or when out of
/// memory (then *bad is -1).
bool tc_points_build_neighbours(tc_points_body* b, int* bad);
/// Recomputes the d vectors of phyxel i from its current neighbour list; false if A is singular.
bool tc_points_compute_d(tc_points_body* b, int i);
/// grad_u of every phyxel from the current positions.
void tc_points_compute_gradients(tc_points_body* b);
/// Adds the elastic and volume forces to f (np entries) and returns the strain energy (J).
tc_real tc_points_elastic_forces(tc_points_body* b, tc_vec3* f);
/// Strain energy only (J), from the current grad_u.
tc_real tc_points_elastic_energy(const tc_points_body* b);
/// Gershgorin bound (1/kg m^-2 up to the modulus) of the MLS elastic operator's largest
/// eigenvalue: max over phyxels j of (1/m_j) sum_i vol_i |d_j^(i)| sum_k |d_k^(i)|. Pairs
/// breaking leave ill-conditioned moment matrices with larger d vectors, so it grows.
/// Uses the body's work_r scratch (allocates nothing).
tc_real tc_points_operator_norm(const tc_points_body* b);
/// Green strain of a deformation gradient.
tc_mat3 tc_points_green_strain(tc_mat3 F);

// ---- body lifetime and state (points_body.c, points_integrate.c) ----
void tc_points_body_free(tc_points_body* b);
/// Allocates phyxel and surfel arrays for np phyxels and ns surfels (zeroed).
tc_points_body* tc_points_body_alloc(int np, int ns);
/// Surfel -> phyxel weight lists from rest positions.
bool tc_points_build_surfel_weights(tc_points_body* b);
/// Each surfel's share of the phyxel masses (after the weights and masses): phyxel p's mass is
/// split among the surfels it carries in proportion to their weights, so the surfels' shares of
/// a phyxel sum to its mass. The mass a contact at a surfel pushes. False when out of memory.
bool tc_points_build_surfel_masses(tc_points_body* b);
/// Moves surfels with the phyxel displacement field (first order) and refreshes aabb + surface.
/// False when the surface ran out of memory.
bool tc_points_update_surfels(tc_points_body* b);
/// At a sub-step's start (positions as they are until tc_points_integrate): the displacement
/// gradients and the internal steps the elastic stability needs (elastic_steps), which the
/// static contacts' registration and the integration both read.
void tc_points_begin_substep(tc_points_body* b, tc_real h);
/// Advances the body by h with internal sub-steps bounded by the stability estimate (after
/// tc_points_begin_substep); the registered static contacts act within them (and are consumed).
/// Allocates nothing but the MLS surface: returns false when that ran out of memory (then
/// surface_ok is false).
bool tc_points_integrate(tc_points_body* b, tc_vec3 gravity, tc_real h);
/// Registers surfel k's contact with immovable geometry for the coming sub-step; returns the
/// normal force (N) it exerts at its start and its friction force in *friction (N; for contact
/// records). h: the sub-step (s). Returns NAN when out of memory (the surfel then goes without
/// this contact).
tc_real tc_points_add_static_contact(tc_points_body* b, const tc_points_static_contact* c, tc_real h, tc_vec3* friction);
/// The contact frequency (rad/s) and damping ratio the static contacts use with internal steps
/// of dt s: stiffer than the world's penalty when the body's own sub-steps allow it.
void tc_points_static_contact_gains(const tc_points_static_contact* c, tc_real dt, tc_real* omega, tc_real* zeta);
/// The internal sub-step tc_points_integrate takes for a sub-step h (s).
tc_real tc_points_internal_dt(const tc_points_body* b, tc_real h);
/// Normal force (N) of a static contact on a surfel of mass m at signed distance d moving at vn
/// along the normal.
tc_real tc_points_static_contact_normal_force(const tc_points_static_contact* c, tc_real m, tc_real omega, tc_real zeta, tc_real d,
                                              tc_real vn);
/// The friction force (N) of a static contact with normal force fn on a surfel of mass m moving
/// at v: Coulomb, no more than stops the sliding within dt.
tc_vec3 tc_points_static_contact_friction(const tc_points_static_contact* c, tc_real m, tc_real fn, tc_vec3 v, tc_real dt);
/// Adds the contacts' forces at the present state to f (phyxel forces), the surfels' motion
/// measured from the phyxel positions x_start of the sub-step's start, tau s into it; the
/// proxies take the reactions over the internal step dt (and move on by it).
void tc_points_static_contacts_apply(tc_points_body* b, const tc_vec3* x_start, tc_real tau, tc_real dt, tc_vec3* f);
/// The proxy of the rigid body with store index `rigid` (made on first use from its present
/// state; its msum grows by m); -1 when out of memory.
int tc_points_proxy_for(tc_points_body* b, int rigid, tc_real inv_mass, tc_mat3 inv_inertia, tc_real m);
/// Rebuilds the MLS surface over the current surfels; false when out of memory.
bool tc_points_build_surface(tc_points_body* b);
/// Checkpoint hooks (points_state.c).
struct tc_state_writer;
struct tc_state_reader;
void tc_points_write_state(const tc_world* w, struct tc_state_writer* out);
tc_result tc_points_read_state(tc_world* w, struct tc_state_reader* in, const char* file, tc_error* error);
tc_result tc_points_check_state(const tc_world* w, tc_error* error);
/// Stable explicit time step (s).
tc_real tc_points_stable_dt(const tc_points_body* b);
/// Plastic flow over dt (once per step).
void tc_points_plasticity(tc_points_body* b, tc_real dt);
/// Fracture: breaks over-stretched pairs and splits the body into new bodies (world step end).
void tc_points_fracture(tc_world* w, int index);
/// Adds the force f at world point p spread with poly6 weights over nearby phyxels (sum kept).
void tc_points_distribute_force(tc_points_body* b, tc_vec3 p, tc_vec3 f);
/// The same for count forces sign * f[k] at p[k], in order (one phyxel grid for the batch).
void tc_points_distribute_forces(tc_points_body* b, const tc_vec3* p, const tc_vec3* f, int count, tc_real sign);
/// Velocity of surfel k (interpolated from the phyxels).
tc_vec3 tc_points_surfel_velocity(const tc_points_body* b, int k);
/// Creates the body record from a validated def (no world registration).
tc_result tc_points_body_build(const tc_points_body_def* def, tc_points_body** out, tc_error* error);
/// Adds a built body to the world's store and registers a slot.
tc_result tc_points_store_insert(tc_world* w, tc_points_body* b, const char* name, void* user_data, tc_body_id* id);

#endif
