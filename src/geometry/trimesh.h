// Static triangle meshes: vertices, triangles (CCW seen from outside), face normals and an AABB
// tree (median split) for box overlap queries, ray casts and nearest-triangle distance.
#ifndef TC_TRIMESH_H
#define TC_TRIMESH_H

#include "tactus/types.h"

typedef struct tc_trimesh_node {
    tc_aabb box;
    int left, right;  ///< children, -1 for a leaf
    int first, count; ///< leaf: triangles order[first .. first+count)
} tc_trimesh_node;

typedef struct tc_trimesh {
    int vertex_count, triangle_count, node_count;
    tc_vec3* vertices;   ///< m, shape frame
    int* triangles;      ///< 3 per triangle
    tc_vec3* normals;    ///< unit, per triangle
    int* order;          ///< triangle indices in tree order
    tc_trimesh_node* nodes;
} tc_trimesh;

/// Copies and validates the mesh: finite vertices, indices in range, no zero-area (sliver)
/// triangle (area < 1e-12 of the squared bounding size). `path` names the input in errors.
tc_trimesh* tc_trimesh_create(const tc_vec3* vertices, int vertex_count, const int* triangles, int triangle_count,
                              const char* path, tc_error* error);
void tc_trimesh_free(tc_trimesh* mesh);
tc_aabb tc_trimesh_bounds(const tc_trimesh* mesh);
/// Writes up to `capacity` indices of triangles whose boxes overlap `box` (shape frame), in
/// ascending order; returns how many overlap (may exceed capacity).
int tc_trimesh_query(const tc_trimesh* mesh, tc_aabb box, int* out, int capacity);
/// Distance from p to the nearest triangle, signed by that triangle's normal side.
tc_real tc_trimesh_signed_distance(const tc_trimesh* mesh, tc_vec3 p, tc_vec3* normal);
/// First hit of origin + t dir, t in [0, max_t], from the front side.
bool tc_trimesh_ray_cast(const tc_trimesh* mesh, tc_vec3 origin, tc_vec3 dir, tc_real max_t, tc_real* t, tc_vec3* normal);
/// Segment p0-p1 against triangle (a, b, c), epsilon-inclusive so edges through a vertex or along
/// an edge count (ALGORITHMS §10.3); coplanar segments by a test in the plane. On a hit writes
/// the segment parameter t in [0, 1] and, if bary is not NULL, the barycentric weights of a, b, c.
bool tc_segment_triangle(tc_vec3 p0, tc_vec3 p1, tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_real* t, tc_vec3* bary);
/// Closest point of triangle (a, b, c) to p.
tc_vec3 tc_closest_point_triangle(tc_vec3 p, tc_vec3 a, tc_vec3 b, tc_vec3 c);
#endif
