// Tetrahedral mesh: nodes, tets (positively oriented), boundary triangles, validation, box generator.
#ifndef TC_TETMESH_H
#define TC_TETMESH_H

#include "core/core.h"

typedef struct tc_tetmesh {
    tc_vec3* nodes;
    int node_count;
    int (*tets)[4];
    int tet_count;
    int (*tris)[3]; ///< boundary triangles, outward counter-clockwise winding
    int tri_count;
} tc_tetmesh;

/// Signed volume of tet (a,b,c,d), m^3; positive when d lies on the side a->b x a->c points to.
tc_real tc_tet_volume(tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_vec3 d);

/// Barycentric coordinates of p in tet (a,b,c,d); returns false for a degenerate tet.
bool tc_tet_barycentric(tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_vec3 d, tc_vec3 p, tc_real out[4]);

/// Box of size (sx,sy,sz) centred at c, split into nx*ny*nz cells of 6 tets each.
/// Fills mesh (caller frees with tc_tetmesh_free). Errors: non-positive counts or sizes.
tc_result tc_tetmesh_box(tc_tetmesh* mesh, tc_vec3 c, tc_vec3 size, int nx, int ny, int nz, tc_error* error);

/// Checks indices and orientation (every tet volume > tiny), then builds boundary triangles.
tc_result tc_tetmesh_finalize(tc_tetmesh* mesh, const char* file, tc_error* error);

/// Total volume, m^3.
tc_real tc_tetmesh_volume(const tc_tetmesh* mesh);

void tc_tetmesh_free(tc_tetmesh* mesh);



/// Reads TetGen `<base>.node` and `<base>.ele` (0- or 1-based indices, attributes ignored) and
/// finalizes the mesh. Errors name the file and line: missing file, bad counts, bad numbers,
/// out-of-range indices, inverted tets.
tc_result tc_tetmesh_read_tetgen(tc_tetmesh* mesh, const char* base, tc_error* error);

/// Reads a Gmsh `.msh` file (ASCII, format 2.2 or 4.1): linear tets (type 4; the corners of
/// second-order type 11), other elements skipped, nodes no tet uses dropped; then finalizes.
/// Errors name the file and line: binary or other versions, missing sections, bad numbers,
/// duplicate or undefined node tags, no tets, inverted tets.
tc_result tc_tetmesh_read_gmsh(tc_tetmesh* mesh, const char* path, tc_error* error);

/// Reads `path` as Gmsh when it ends in ".msh", otherwise as the base of a TetGen pair
/// (a trailing ".node" or ".ele" is accepted and dropped).
tc_result tc_tetmesh_read(tc_tetmesh* mesh, const char* path, tc_error* error);
#endif
