// Minkowski portal refinement (Snethen, XenoCollide; the method libccd's MPR implements) used for
// the growth distance of two polytopes (seed 004 eq. 2, ALGORITHMS §1.4): the line through the
// interior point cA - cB of D = A - B and the origin leaves D through a face of D; that face's
// normal is the GJK-GD contact normal and the exit point gives alpha. MPR finds the face with one
// support of D per step and no simplex solves, where the GJK ray cast needs more of both.
#ifndef TC_MPR_H
#define TC_MPR_H

#include "collision/gjk.h"

typedef enum tc_mpr_status {
    TC_MPR_OVERLAP,   ///< the origin is inside D: normal, t_exit, depth, a_star and the supports are set
    TC_MPR_APART,     ///< a support proved the sets farther apart than max_separation: normal, depth set
    TC_MPR_UNDECIDED, ///< a degenerate configuration or a touching support: use the ray cast
    TC_MPR_NEAR,      ///< a support proved the sets apart, but not by more than max_separation: normal, depth set
} tc_mpr_status;

typedef struct tc_mpr_result {
    tc_mpr_status status;
    tc_vec3 normal;      ///< unit, from A to B
    tc_real depth;       ///< h_D(normal) (APART: the proving bound, < -max_separation)
    tc_real t_exit;      ///< the exit point is t_exit (cA - cB); alpha = 1 / (1 - t_exit)
    tc_vec3 a_star;      ///< the part of the exit point on A (exit point = a_star - b_star)
    int support_a, support_b; ///< vertex indices of the supports along +-normal
    tc_vec3 point_a, point_b; ///< those supports
    int portal[6];       ///< OVERLAP: the final portal, a triangle on the exit face: (A, B) vertex indices of its 3 corners
} tc_mpr_result;

/// Growth-distance face of two polytopes (radius 0, at least 2 points each) by portal refinement.
/// `ha`, `hb`: support hints (see tc_convex_support_index), updated. `warm_portal` (may be NULL):
/// a previous result's `portal`; when the line through the centres still crosses that triangle
/// (re-placed at the current poses) it is the starting portal: discovery is skipped and an
/// unchanged exit face is confirmed by one support. Indices out of range are ignored.
tc_mpr_result tc_mpr_growth(const tc_convex* a, const tc_convex* b, tc_real max_separation, int* ha, int* hb, const int* warm_portal);
#endif
