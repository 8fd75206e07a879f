// Mesh loading entry point and the builder shared by the OBJ and PLY readers.
#include "io/mesh.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void tc_mesh_builder_free(tc_mesh_builder* b) {
    tc_array_free(&b->vertices);
    tc_array_free(&b->normals);
    tc_array_free(&b->triangles);
}

/// Shrinks an array's block to exactly count elements (or frees it when empty).
static void* shrink(void* data, int count, int capacity, size_t elem) {
    if (count == 0) {
        tc_free(data, (size_t)capacity * elem);
        return NULL;
    }
    return tc_realloc(data, (size_t)capacity * elem, (size_t)count * elem);
}

void tc_mesh_builder_finish(tc_mesh_builder* b, tc_mesh* out) {
    memset(out, 0, sizeof *out);
    out->vertex_count = b->vertices.count;
    out->vertices = shrink(b->vertices.data, b->vertices.count, b->vertices.capacity, sizeof(tc_vec3));
    if (b->normals.count == b->vertices.count && b->normals.count > 0) {
        out->normals = shrink(b->normals.data, b->normals.count, b->normals.capacity, sizeof(tc_vec3));
    } else {
        tc_array_free(&b->normals);
    }
    out->triangle_count = b->triangles.count / 3;
    out->triangles = shrink(b->triangles.data, b->triangles.count, b->triangles.capacity, sizeof(int));
    memset(b, 0, sizeof *b);
}

tc_result tc_mesh_fail(tc_error* error, tc_result code, const char* file, int line, const char* fmt, ...) {
    char problem[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    char where[32] = "";
    if (line > 0) snprintf(where, sizeof where, "line %d", line);
    tc_error_set(error, code, file, where, "%s", problem);
    if (error) error->line = line;
    return code;
}

void tc_mesh_free(tc_mesh* mesh) {
    if (!mesh) return;
    tc_free(mesh->vertices, (size_t)mesh->vertex_count * sizeof(tc_vec3));
    if (mesh->normals) tc_free(mesh->normals, (size_t)mesh->vertex_count * sizeof(tc_vec3));
    if (mesh->triangles) tc_free(mesh->triangles, (size_t)mesh->triangle_count * 3 * sizeof(int));
    memset(mesh, 0, sizeof *mesh);
}

static bool ends_with_ci(const char* s, const char* suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    if (m > n) return false;
    for (size_t i = 0; i < m; ++i)
        if (tolower((unsigned char)s[n - m + i]) != suffix[i]) return false;
    return true;
}

tc_result tc_mesh_load(const char* path, tc_mesh* out, tc_error* error) {
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, path, NULL, "path and mesh must not be NULL");
    if (ends_with_ci(path, ".obj")) return tc_mesh_load_obj(path, out, error);
    if (ends_with_ci(path, ".ply")) return tc_mesh_load_ply(path, out, error);
    return tc_error_set(error, TC_RESULT_UNSUPPORTED, path, NULL, "unknown mesh format (expected .obj or .ply)");
}
