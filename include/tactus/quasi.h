/// @file quasi.h
/// Quasi-rigid bodies (Pauly, Pai & Guibas 2004; seed 002): a rigid body whose surface is a point
/// cloud with a thin compliant layer. Contacts with static, rigid and other quasi-rigid bodies are
/// resolved by a linear complementarity problem on the layer's half-space response (Polonsky–Keer
/// conjugate gradients or Lemke's method, see tc_quasi_solver), giving a contact surface, per-node
/// normal tractions and displacements, and the total force and torque applied to the rigid
/// dynamics. See docs/quasi.md.
#ifndef TACTUS_QUASI_H
#define TACTUS_QUASI_H
#include "tactus/world.h"
#ifdef __cplusplus
extern "C" {
#endif

/// The surface a quasi-rigid body is sampled from.
typedef enum tc_quasi_shape {
    TC_QUASI_SPHERE = 0, ///< radius; Fibonacci samples, exact normals and equal areas
    TC_QUASI_ELLIPSOID,  ///< half_extents = semi-axes; mapped Fibonacci samples with exact areas
    TC_QUASI_BOX,        ///< half_extents; a grid on each face
    TC_QUASI_POINTS,     ///< a user point cloud (body frame), e.g. from a PLY or sampled OBJ
} tc_quasi_shape;

/// The layer's point-load response.
typedef enum tc_quasi_response {
    TC_QUASI_BOUSSINESQ = 0,       ///< elastic half-space
    TC_QUASI_VOLUME_PRESERVING,    ///< sinks near the load and bulges around it (zero net volume)
} tc_quasi_response;

/// How the contact LCP of the body's patches is solved (see docs/quasi.md).
typedef enum tc_quasi_solver {
    TC_QUASI_SOLVER_AUTO = 0, ///< Polonsky–Keer CG (split for unequal sample areas) above 48 nodes,
                              ///< else Lemke; Lemke if CG does not converge
    TC_QUASI_SOLVER_LEMKE,    ///< always Lemke's pivoting (exact; about n³ in time)
    TC_QUASI_SOLVER_PK,       ///< Polonsky–Keer CG at any size
    TC_QUASI_SOLVER_MPRGP,    ///< MPRGP (Dostál) whenever the matrix is symmetric
} tc_quasi_solver;

/// Quasi-rigid body creation parameters. Get one from tc_quasi_body_def_default().
typedef struct tc_quasi_body_def {
    tc_body_def base;
    tc_quasi_shape shape;      ///< default TC_QUASI_SPHERE
    tc_real radius;            ///< m, sphere radius, default 0.1
    tc_vec3 half_extents;      ///< m, box half extents or ellipsoid semi-axes, default (0.1, 0.1, 0.1)
    int sample_count;          ///< samples on analytic shapes (>= 20), default 2000
    const tc_vec3* points;     ///< TC_QUASI_POINTS: point_count samples (m, body frame), copied
    const tc_vec3* normals;    ///< optional outward normals (else PCA, oriented away from the centroid)
    const tc_real* areas;      ///< optional area share per sample (m²; else π r_k²/k with k = 10)
    int point_count;
    tc_real density;           ///< kg/m³ of the solid (analytic shapes), default 1000
    tc_real mass;              ///< kg; 0 = from density (required > 0 for TC_QUASI_POINTS)
    tc_real shear_modulus;     ///< Pa, G of the layer, default 1e6
    tc_real poisson;           ///< Poisson ratio ν in [0, 0.5), default 0.3
    tc_quasi_response response;///< default TC_QUASI_BOUSSINESQ
    tc_real vp_reach;          ///< m, reach s of the volume-preserving bulge; 0 = 3 sample spacings
    tc_real layer_damping;     ///< Pa·s/m, normal damping of the layer per unit area, default 0 (elastic)
    int coarse_level;          ///< hierarchy level the contact solve starts at (0 = samples), default 0
    int fine_level;            ///< level it stops at (<= coarse_level), default 0
    tc_real tolerance;         ///< m, residual penetration ending the LCP iterations; 0 = 1e-3 spacing
    int max_iterations;        ///< LCP re-solves per contact, default 3
    tc_quasi_solver solver;    ///< LCP method, default TC_QUASI_SOLVER_AUTO
    tc_real linear_damping;    ///< 1/s, default 0
    tc_real angular_damping;   ///< 1/s, default 0
    int internal_value;        ///< set by the default function; do not touch
} tc_quasi_body_def;

/// Default def: a 0.1 m sphere of 2000 samples, G = 1 MPa, ν = 0.3, Boussinesq, density 1000.
TC_API tc_quasi_body_def tc_quasi_body_def_default(void);
/// Creates a quasi-rigid body. Validates every field (NaN, non-positive sizes, moduli, ν outside
/// [0, 0.5), levels, missing points/mass) and reports the field in error. Fills *id.
TC_API tc_result tc_quasi_body_create(tc_world* world, const tc_quasi_body_def* def, tc_body_id* id, tc_error* error);
/// Number of surface samples.
TC_API int tc_quasi_body_get_sample_count(const tc_world* world, tc_body_id id);
/// World positions and outward normals (either may be NULL) of up to capacity samples; returns the count.
TC_API int tc_quasi_body_get_samples(const tc_world* world, tc_body_id id, tc_vec3* positions, tc_vec3* normals, int capacity);
/// Per-sample normal traction (Pa, >= 0) and layer displacement (m, into the body) of the last
/// sub-step; either may be NULL. Samples not in contact read 0. Returns the count written.
TC_API int tc_quasi_body_get_tractions(const tc_world* world, tc_body_id id, tc_real* traction, tc_real* displacement, int capacity);
/// Total contact force (N) and torque about the centre of mass (N m) of the last sub-step.
TC_API void tc_quasi_body_get_contact_wrench(const tc_world* world, tc_body_id id, tc_vec3* force, tc_vec3* torque);
/// Angular velocity (rad/s, world) of the rigid frame.
TC_API tc_vec3 tc_quasi_body_get_angular_velocity(const tc_world* world, tc_body_id id);
/// Sets the linear (m/s) and angular (rad/s) velocity of the rigid frame.
TC_API tc_result tc_quasi_body_set_velocity(tc_world* world, tc_body_id id, tc_vec3 linear, tc_vec3 angular);

/// Contact statistics of the last sub-step.
typedef struct tc_quasi_stats {
    int active_nodes;   ///< nodes in this body's LCPs
    int contacts;       ///< pairs in contact
    int pivots;         ///< Lemke pivots
    int cg_steps;       ///< steps of the iterative LCP solver (Polonsky–Keer or MPRGP)
    int fallbacks;      ///< iterative solves that did not converge and went to Lemke
    double solve_time;  ///< s of wall time in the contact solves
} tc_quasi_stats;
/// Contact-solve statistics of the body's last step (all zero for an invalid id or another kind).
TC_API tc_quasi_stats tc_quasi_body_get_stats(const tc_world* world, tc_body_id id);

#ifdef __cplusplus
}
#endif
#endif
