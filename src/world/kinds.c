// The registry of body kinds and the coupling policy between them (docs/pipeline.md).
#include "world/world_internal.h"

extern const tc_kind_ops tc_rigid_kind_ops;
extern const tc_kind_ops tc_quasi_kind_ops;
extern const tc_kind_ops tc_points_kind_ops;
extern const tc_kind_ops tc_springs_kind_ops;

const tc_kind_ops* tc_kind_ops_of(tc_body_kind kind) {
    switch (kind) {
    case TC_BODY_STATIC:
    case TC_BODY_RIGID: return &tc_rigid_kind_ops;
    case TC_BODY_QUASI: return &tc_quasi_kind_ops;
    case TC_BODY_POINTS: return &tc_points_kind_ops;
    case TC_BODY_SPRINGS: return &tc_springs_kind_ops;
    default: return NULL;
    }
}

tc_coupling tc_coupling_of(tc_body_kind a, tc_body_kind b) {
    if (a > b) { tc_body_kind t = a; a = b; b = t; }
    if (a == TC_BODY_STATIC && b == TC_BODY_STATIC) return TC_COUPLE_NONE;
    if (b <= TC_BODY_RIGID) return TC_COUPLE_SOLVER;           // static/rigid with rigid
    if (b == TC_BODY_QUASI && a <= TC_BODY_QUASI) return TC_COUPLE_KIND; // LCP (seed 002)
    if (a == b) return TC_COUPLE_KIND;                         // tet-tet, points-points, springs-springs
    if (b == TC_BODY_SPRINGS && a <= TC_BODY_RIGID) return TC_COUPLE_KIND; // springs project their vertices out
    return TC_COUPLE_PENALTY_SDF;
}
