// Mass properties of solids: closed forms and closed-triangle-mesh integration.
#ifndef TC_MASS_H
#define TC_MASS_H
#include "tactus/types.h"

/// Mass, centre and inertia tensor about the centre, in the frame the input was given in.
typedef struct tc_mass_props {
    tc_real mass;     ///< kg
    tc_real volume;   ///< m^3
    tc_vec3 center;   ///< m
    tc_mat3 inertia;  ///< kg m^2, about center
} tc_mass_props;

tc_mass_props tc_mass_box(tc_vec3 half_extents, tc_real density);
tc_mass_props tc_mass_sphere(tc_real radius, tc_real density);
/// Exact properties of the solid bounded by a closed, outward (counter-clockwise) triangle mesh,
/// by signed tetrahedra from the origin. TC_RESULT_DEGENERATE when the volume is not positive.
tc_result tc_mass_from_mesh(const tc_vec3* vertices, const int* triangles, int triangle_count,
                            tc_real density, tc_mass_props* out);
/// props expressed in the parent frame where the solid is placed at pose t.
tc_mass_props tc_mass_transform(tc_mass_props props, tc_transform t);
/// Sum of parts (all in one frame), inertia about the combined centre (parallel-axis theorem).
tc_mass_props tc_mass_combine(const tc_mass_props* parts, int count);
/// Scales mass and inertia so the total mass is `mass`.
tc_mass_props tc_mass_with_total(tc_mass_props props, tc_real mass);

#endif
