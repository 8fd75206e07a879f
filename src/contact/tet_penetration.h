// Internal stages of the contacts between tet bodies (seed 001, ALGORITHMS §4-5), exposed so the
// unit tests can compare the spatial hash with brute force and probe the depth methods directly.
#ifndef TC_TET_PENETRATION_H
#define TC_TET_PENETRATION_H

#include "dynamics/tet/tet.h"

/// Where a vertex is: inside tet `tet` of body `tet_body` (-1: inside no other tet) at `bary`.
typedef struct tc_tet_hit {
    int tet_body, tet;
    tc_real bary[4];
} tc_tet_hit;

/// Penetration depth d (m, >= 0) and unit push-out direction r of one colliding vertex.
typedef struct tc_tet_depth {
    tc_real d;
    tc_vec3 r;
    bool known; ///< false: not colliding with that body, or unreachable by propagation
} tc_tet_depth;

typedef struct tc_tet_grid_entry {
    int body, index, cell[3], next;
} tc_tet_grid_entry;

/// A spatial hash (Teschner et al.): cells of size `cell`, a prime bucket count, chained entries.
typedef struct tc_tet_grid {
    int* head;
    uint32_t* stamp; ///< a bucket is empty unless its stamp equals `now`
    int size;
    uint32_t now;
    TC_ARRAY(tc_tet_grid_entry) entries;
    tc_real cell;
} tc_tet_grid;

/// The hash cell size: the mean edge length of the store's bodies (ALGORITHMS §4.1).
tc_real tc_tet_cell_size(const tc_tet_store* s);
/// Builds a grid of the surface triangles that another body's edge may cross (those whose box
/// meets another body's box; all of a self-colliding body's), entered in each cell their (slightly
/// inflated) bounding box covers; false when out of memory. Free it with tc_tet_grid_free.
bool tc_tet_grid_build_faces(tc_tet_grid* g, const tc_tet_store* s);
void tc_tet_grid_free(tc_tet_grid* g);

/// Colliding vertices by the two-pass spatial hash: hits[b][v] for every body b and vertex v
/// (caller-allocated, fully written). Vertices of a body with self_collision also count when
/// inside one of its own tets that does not have them as a corner (surface vertices only).
/// When a vertex is inside several tets, the first in (body, tet) index order is kept.
bool tc_tet_find_colliding(const tc_tet_store* s, tc_tet_hit** hits);
/// The same result by testing every vertex against every tet (for tests).
void tc_tet_find_colliding_brute(const tc_tet_store* s, tc_tet_hit** hits);

/// Depths of body a's vertices that penetrate body b (b == a: self-collision, always the
/// consistent method). `faces` is the face grid from tc_tet_grid_add_faces, or NULL to scan every
/// surface triangle of b (same result). False when out of memory: the vertices past the border
/// then have no depth (known = false).
bool tc_tet_depths(const tc_tet_store* s, int a, int b, const tc_tet_hit* hits_a, const tc_tet_grid* faces, tc_tet_depth_method method,
                   tc_tet_depth* out);
#endif
