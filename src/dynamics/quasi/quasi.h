// The quasi-rigid store: point-cloud surfaces and compliant layers of bodies whose rigid frames live
// in the rigid store (kind TC_BODY_QUASI). A quasi body's world slot index is its rigid-store index,
// so the rigid store's compaction keeps it valid; this store maps slots to its own records.
#ifndef TC_QUASI_INTERNAL_H
#define TC_QUASI_INTERNAL_H
#include "tactus/quasi.h"
#include "contact/quasi_contact.h"
#include "dynamics/rigid/rigid.h"

/// Energy ledger of one contact (this body's patch against one other body, from first load to
/// the sub-step the patch carries none): the work its layer load has taken out of the frames,
/// net, which caps the work the load may give back (see quasi_collide.c).
typedef struct tc_quasi_ledger {
    int32_t other_slot;
    int32_t touched;  ///< loaded this sub-step
    tc_real absorbed; ///< [J], >= 0
} tc_quasi_ledger;

typedef struct tc_quasi_body {
    int32_t slot;
    tc_pointset cloud;           ///< body frame
    tc_sphere_tree tree;
    tc_real* areas;              ///< cloud.count area shares [m²]
    tc_real spacing;             ///< mean sample spacing [m]
    tc_aabb local_box;           ///< of the samples, body frame
    tc_response_params response;
    tc_quasi_contact_params contact;
    tc_lcp_method solver;        ///< from tc_quasi_body_def.solver
    tc_real layer_damping;
    // outputs of the last sub-step
    tc_real* traction;           ///< per sample [Pa]
    tc_real* displacement;       ///< per sample [m]
    tc_vec3 force, torque;
    tc_quasi_stats stats;
    TC_ARRAY(tc_quasi_ledger) ledgers; ///< open contacts, in the order they began
    long lcp_failures; ///< contact solves skipped so far (logged at 1, 10, 100, ...)
} tc_quasi_body;

typedef struct tc_quasi_store {
    TC_ARRAY(tc_quasi_body) bodies;
    TC_ARRAY(int) record_of_slot;   ///< slot -> index in bodies, -1 if none
    tc_quasi_patch patch, patch_back;
    TC_ARRAY(tc_vec3) reaction;     ///< per rigid-store body: the rigid solver's last force (first half) and torque
} tc_quasi_store;

_Static_assert((int)TC_QUASI_SOLVER_LEMKE == (int)TC_LCP_LEMKE && (int)TC_QUASI_SOLVER_PK == (int)TC_LCP_PK &&
                   (int)TC_QUASI_SOLVER_MPRGP == (int)TC_LCP_MPRGP && (int)TC_QUASI_SOLVER_AUTO == (int)TC_LCP_AUTO,
               "tc_quasi_solver mirrors tc_lcp_method");

static inline tc_quasi_store* tc_quasi_store_of(const tc_world* w) { return (tc_quasi_store*)w->stores[TC_BODY_QUASI]; }
/// The quasi record of the rigid body at rigid-store index `index`.
tc_quasi_body* tc_quasi_record(const tc_world* w, int rigid_index);
/// The rigid frame of a quasi record.
tc_rigid_body* tc_quasi_rigid(const tc_world* w, const tc_quasi_body* q);

/// Most samples a box may take: the per-face grids keep at least one cell per side, so a thin
/// box takes more than its sample_count budget (refused above this, before sampling).
#define TC_QUASI_MAX_BOX_SAMPLES 2000000

/// The number of samples tc_quasi_sample_shape gives a box of half extents he (m) for the
/// budget, in double so extreme aspect ratios cannot overflow an int.
tc_real tc_quasi_box_sample_count(tc_vec3 he, int budget);

/// Samples an analytic shape: count points, outward normals and area shares (allocated with
/// tc_alloc, count entries each). Returns the number of samples (0 on allocation failure).
int tc_quasi_sample_shape(const tc_quasi_body_def* def, tc_vec3** points, tc_vec3** normals, tc_real** areas);

/// The contact pass (collide hook).
void tc_quasi_collide_all(tc_world* w, tc_real h);
/// Draw hook.
void tc_quasi_draw_body(const tc_world* w, int index, const tc_debug_draw* draw);

#endif
