// Closed triangle meshes for deformable bodies: box, icosphere, torus (counter-clockwise outward).
#ifndef TC_MESH_GEN_H
#define TC_MESH_GEN_H
#include "core/core.h"

typedef struct tc_tri_mesh {
    TC_ARRAY(tc_vec3) vertices;
    TC_ARRAY(int) triangles; ///< 3 per triangle
} tc_tri_mesh;

/// A box of half extents h with n x n quads per face (shared vertices along the edges).
bool tc_mesh_gen_box(tc_tri_mesh* m, tc_vec3 h, int n);
/// An icosphere of radius r after `levels` subdivisions (0: 12 vertices).
bool tc_mesh_gen_sphere(tc_tri_mesh* m, tc_real r, int levels);
/// A torus around +Z: ring radius R, tube radius r, n_ring x n_tube quads.
bool tc_mesh_gen_torus(tc_tri_mesh* m, tc_real R, tc_real r, int n_ring, int n_tube);
void tc_tri_mesh_free(tc_tri_mesh* m);
/// Enclosed volume of a closed mesh (m^3; negative if inside out).
tc_real tc_tri_mesh_volume(const tc_vec3* v, const int* tris, int tri_count);
#endif
