// Convex polytopes with the topology the Gauss map needs (seed 004, ALGORITHMS §2.1): merged
// polygonal faces (counter-clockwise seen from outside), face planes, edges with their two
// faces, and per-vertex incident faces and edges. Built by qhull from points, or directly
// from known faces (boxes, triangle prisms).
#ifndef TC_HULL_H
#define TC_HULL_H

#include "tactus/types.h"
#include "geometry/mass.h"

/// One face around a vertex, with the edge neighbour at the same place in the vertex's edge list:
/// what the contact feature selection reads, in 2 bytes (hulls of up to 255 vertices and faces).
typedef struct tc_hull_fan {
    uint8_t face;            ///< vert_faces[k]
    uint8_t neighbor;        ///< the other end of edge vert_edges[k]
} tc_hull_fan;

#define TC_HULL_COMPACT_MAX 255 ///< hulls with at most this many vertices and faces get the compact topology

typedef struct tc_hull {
    // first cache line (the block is 64-byte aligned): what every convex query reads
    int vertex_count, soa_stride;
    int face_count;
    int topology_bytes;      ///< face planes and compact topology: this many bytes from face_normals on
    tc_real* soa;            ///< the vertices packed for support scans: x[], y[], z[] of soa_stride each (collision/support.h)
    tc_vec3* face_normals;   ///< unit, outward
    tc_vec3 centroid;        ///< volume centroid (strictly interior), the GJK-GD contraction point
    tc_real extent;          ///< m, max distance of a vertex from the centroid
    // second line: what the contact features read (prefetched with the face planes)
    tc_real* face_offsets;   ///< n_f . x = offset on face f
    // The compact topology (NULL for hulls with more than TC_HULL_COMPACT_MAX vertices or faces):
    // the same incidence as vert_start/vert_faces/vert_edges and face_start/face_verts, in 1-2 bytes
    // an index, stored right after the planes so a query's features touch few cache lines.
    uint16_t* fan_start;     ///< vertex v's fans are fans[fan_start[v] .. fan_start[v+1]) (= vert_start)
    tc_hull_fan* fans;       ///< per vertex, in vert_faces order
    uint16_t* loop_start;    ///< face f's loop is loops[loop_start[f] .. loop_start[f+1]) (= face_start)
    uint8_t* loops;          ///< = face_verts
    int edge_count, loop_length;
    // the rest: building, mass, drawing, hill climbing, large hulls
    int* vert_start;         ///< vertex v's faces/edges: vert_faces/vert_edges[vert_start[v]..[v+1])
    int* face_start;         ///< face f's loop is face_verts[face_start[f] .. face_start[f+1])
    int* face_verts;         ///< counter-clockwise seen from outside
    tc_vec3* vertices;       ///< m, shape frame
    int* edge_verts;         ///< 2 per edge
    int* edge_faces;         ///< 2 per edge: the face where v0->v1 runs CCW, then the other
    int* vert_faces;
    int* vert_edges;         ///< same count as faces (a closed polytope has degree = faces per vertex)
    void* block;             ///< the allocation holding the hull and its arrays (the hull is its 64-byte aligned start)
    size_t bytes;            ///< the block's size (tc_hull_free)
} tc_hull;

/// Convex hull of `count` points (qhull). TC_RESULT_DEGENERATE for fewer than 4 distinct points,
/// coplanar or collinear input; TC_RESULT_NOT_FINITE for NaN/inf. `path` names the input in errors.
tc_hull* tc_hull_from_points(const tc_vec3* points, int count, const char* path, tc_error* error);
/// A polytope from faces given as vertex loops (CCW from outside), e.g. a box or a prism.
/// Returns NULL on inconsistent topology (open or non-manifold).
tc_hull* tc_hull_from_faces(const tc_vec3* vertices, int vertex_count, const int* loop_start, const int* loops, int face_count);
/// An axis-aligned box of half extents h centred at the origin.
tc_hull* tc_hull_box(tc_vec3 h);
void tc_hull_free(tc_hull* hull);
/// Asks the cache for what the contact feature selection reads (face planes, fans, loops): one
/// burst of parallel loads instead of a chain of dependent misses. A hint: no effect on results.
void tc_hull_prefetch_topology(const tc_hull* hull);
/// Exact mass properties of the solid hull at `density` (shape frame).
tc_mass_props tc_hull_mass(const tc_hull* hull, tc_real density);
/// Index of the vertex furthest along d (shape frame).
int tc_hull_support_index(const tc_hull* hull, tc_vec3 d);
/// Signed distance of a shape-frame point: exact outside? no: max over face planes (exact inside,
/// a lower bound outside), normal of that face.
tc_real tc_hull_plane_distance(const tc_hull* hull, tc_vec3 p, tc_vec3* normal);
#endif
