// Internal helpers shared by the mesh readers.
#ifndef TC_IO_MESH_H
#define TC_IO_MESH_H

#include "core/core.h"
#include "tactus/io.h"

/// Growable arrays a reader fills before handing them to a tc_mesh.
typedef struct tc_mesh_builder {
    TC_ARRAY(tc_vec3) vertices;
    TC_ARRAY(tc_vec3) normals;
    TC_ARRAY(int) triangles; ///< 3 per triangle
} tc_mesh_builder;

void tc_mesh_builder_free(tc_mesh_builder* b);
/// Moves the arrays into out (shrunk to size); normals kept only when one per vertex.
void tc_mesh_builder_finish(tc_mesh_builder* b, tc_mesh* out);
/// Fills error with "file: line N: problem" and returns code.
tc_result tc_mesh_fail(tc_error* error, tc_result code, const char* file, int line, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#endif
