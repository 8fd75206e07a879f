// Quasi-rigid contact (seed 002, ALGORITHMS.md §9.4–9.6): active nodes of a point-cloud surface
// against the other side's signed distance, the response matrix, the contact LCP solved by Lemke,
// iterated until the penetration is below a tolerance, coarse-to-fine over the sphere hierarchy.
#ifndef TC_QUASI_CONTACT_H
#define TC_QUASI_CONTACT_H
#include "core/core.h"
#include "contact/quasi_response.h"
#include "contact/quasi_tree.h"
#include "geometry/pointset.h"
#include "math/lcp_iterative.h"

/// The other side's surface: signed distance of world point p (negative inside) and its outward
/// unit normal there.
typedef tc_real tc_quasi_sdf_fn(const void* user, tc_vec3 p, tc_vec3* normal);

/// One side's compliant surface (cloud and tree in the body frame).
typedef struct tc_quasi_surface {
    const tc_pointset* cloud;
    const tc_sphere_tree* tree;
    const tc_real* areas;        ///< area share of each sample [m²]
    tc_transform pose;           ///< body frame in the world
    tc_response_params response;
} tc_quasi_surface;

typedef struct tc_quasi_contact_params {
    int coarse_level;     ///< first level solved (0 = samples; k >= 1 = tree cut k)
    int fine_level;       ///< last level solved, <= coarse_level
    tc_real tolerance;    ///< m, residual penetration that ends the iterations
    int max_iterations;   ///< LCP re-solves with corrected separations, >= 1
} tc_quasi_contact_params;

/// A contact patch: the nodes of A in contact with B at the finest level solved.
typedef struct tc_quasi_patch {
    TC_ARRAY(int) nodes;          ///< sample index (level 0) or representative sample (coarse)
    TC_ARRAY(tc_vec3) points;     ///< world node positions [m]
    TC_ARRAY(tc_vec3) normals;    ///< unit, B's outward normal: the push direction on A
    TC_ARRAY(tc_real) area;       ///< node area share a_i = 2πσ_i² [m²]
    TC_ARRAY(tc_real) s0;         ///< undeformed separation [m] (negative = overlap)
    TC_ARRAY(tc_real) pressure;   ///< normal traction p_i >= 0 [Pa]
    TC_ARRAY(tc_real) disp_a;     ///< A's surface displacement into A [m]
    TC_ARRAY(tc_real) disp_b;     ///< B's surface displacement into B [m] (0 for rigid B)
    TC_ARRAY(tc_real) matrix;     ///< scratch: the LCP matrix M, or the symmetric part S when split
    TC_ARRAY(tc_real) skew;       ///< scratch: the skew part A when split (M = (S + A) diag(d))
    TC_ARRAY(tc_real) scratch;    ///< scratch: q, w, matrix assembly
    tc_lcp_workspace lcp;         ///< scratch of the iterative solvers
    tc_lcp_method solver;         ///< LCP method (input, kept by clear; 0 = TC_LCP_AUTO)
    int level, iterations, pivots;
    int lcp_iterations;           ///< MPRGP steps over all solves of the last call
    int fallbacks;                ///< MPRGP solves that did not converge and went to Lemke
    bool symmetric;               ///< the last matrix was symmetric (equal kernel widths)
    bool split;                   ///< the last matrix is held as S and A (unequal widths, split PK)
    tc_real residual_penetration; ///< m, max(0, −s) after the last iteration
} tc_quasi_patch;

void tc_quasi_patch_clear(tc_quasi_patch* patch);
void tc_quasi_patch_free(tc_quasi_patch* patch);
/// Appends a node (world position p, area a); s0, normal and results are filled by the solve. Its
/// pressure starts at 0 (the iterative solver's warm start; set pressure.data[i] to seed it).
bool tc_quasi_patch_add(tc_quasi_patch* patch, int node, tc_vec3 p, tc_real area);

/// Solves the LCP for the nodes already in patch against B (sdf): s = s0 + (R_A + R_B) p >= 0,
/// p >= 0, s·p = 0; re-measures the separations at the displaced nodes and re-solves until the
/// penetration is below params->tolerance (at most max_iterations). response_b NULL = rigid B.
/// The LCP is solved by patch->solver (tc_lcp_solve): MPRGP warm-started from patch->pressure when
/// the matrix is symmetric and large enough, Lemke otherwise or when MPRGP does not converge; MPRGP
/// stops when the complementarity error is below 0.1·tolerance (relative to max|s0|, in [1e−12, 1e−3]).
/// Returns the LCP result (TC_RESULT_OK, INFEASIBLE, NOT_CONVERGED, OUT_OF_MEMORY).
tc_result tc_quasi_solve_nodes(tc_quasi_patch* patch, const tc_response_params* response_a,
                               const tc_response_params* response_b, tc_quasi_sdf_fn* sdf, const void* user,
                               const tc_quasi_contact_params* params);

/// Full contact of surface A against B: culling with the sphere tree, active nodes (conservative
/// signed-distance test plus the response reach), coarse-to-fine solves from params->coarse_level
/// down to params->fine_level. Leaves the finest level's patch in `patch` (empty if no contact).
tc_result tc_quasi_collide(const tc_quasi_surface* a, const tc_response_params* response_b, tc_quasi_sdf_fn* sdf,
                           const void* user, const tc_quasi_contact_params* params, tc_quasi_patch* patch);

/// Reach of the response beyond the penetrating nodes [m] for node spacing `spacing`.
tc_real tc_quasi_response_reach(const tc_response_params* response, tc_real spacing);

#endif
