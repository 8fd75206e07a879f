/// @file io.h
/// Mesh and point input (OBJ, PLY) and VTK output.
#ifndef TACTUS_IO_H
#define TACTUS_IO_H

#include "tactus/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A triangle mesh or point set read from a file. Free with tc_mesh_free.
typedef struct tc_mesh {
    tc_vec3* vertices;   ///< m
    int vertex_count;
    tc_vec3* normals;    ///< per vertex, NULL when the file has none
    int* triangles;      ///< 3 indices per triangle, NULL when triangle_count == 0
    int triangle_count;
} tc_mesh;

/// Reads an OBJ or PLY file chosen by extension (.obj, .ply; case-insensitive). On error out is
/// left empty and error reads "file: line N: problem".
TC_API tc_result tc_mesh_load(const char* path, tc_mesh* out, tc_error* error);
/// Wavefront OBJ: v, vn, f (v, v/vt, v//vn, v/vt/vn; negative indices; polygons fan-triangulated).
TC_API tc_result tc_mesh_load_obj(const char* path, tc_mesh* out, tc_error* error);
/// PLY (ascii, binary_little_endian, binary_big_endian): vertex x y z [nx ny nz], optional face list.
TC_API tc_result tc_mesh_load_ply(const char* path, tc_mesh* out, tc_error* error);
/// Frees the arrays and zeroes the mesh. Accepts NULL and empty meshes.
TC_API void tc_mesh_free(tc_mesh* mesh);

/// Writes everything tc_world_draw emits (triangles, lines, points, per-vertex RGBA colours) as a
/// VTK XML PolyData file (.vtp), written whole through a temp file + rename.
TC_API tc_result tc_vtk_write_world(const tc_world* world, const char* path, tc_error* error);
/// Writes a ParaView collection (.pvd) listing files[i] at times[i] (paths relative to the .pvd).
TC_API tc_result tc_vtk_write_pvd(const char* path, const char* const* files, const tc_real* times, int count,
                                  tc_error* error);
/// Writes size bytes to path via path.tmp + rename, so readers never see a partial file.
TC_API tc_result tc_write_file_atomic(const char* path, const void* data, size_t size, tc_error* error);

#ifdef __cplusplus
}
#endif
#endif
