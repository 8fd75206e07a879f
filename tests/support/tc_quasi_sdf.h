// Signed-distance callbacks shared by the quasi-rigid contact tests (tc_quasi_sdf_fn).
#ifndef TC_TEST_QUASI_SDF_H
#define TC_TEST_QUASI_SDF_H

#include "contact/quasi_contact.h"

typedef struct paraboloid {
    tc_real radius, depth;
} paraboloid;

// A sphere cap flattened onto its tangent plane z = 0, against a rigid plane at depth δ:
// separation r²/(2R) − δ (+ z, the node's displacement along the normal).
static inline tc_real paraboloid_sdf(const void* user, tc_vec3 p, tc_vec3* normal) {
    const paraboloid* pb = user;
    *normal = tc_v3(0, 0, 1);
    return (p.x * p.x + p.y * p.y) / (2 * pb->radius) - pb->depth + p.z;
}

// The ground plane z = 0.
static inline tc_real ground_sdf(const void* user, tc_vec3 p, tc_vec3* normal) {
    (void)user;
    *normal = tc_v3(0, 0, 1);
    return p.z;
}

#endif
