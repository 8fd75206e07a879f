// Fuzz target: the OBJ reader (tc_mesh_load_obj) on arbitrary bytes. Any input must give a
// mesh whose indices are in range, or a clear error; never a crash or a sanitizer report.
#include "fuzz_util.h"

#include "tactus/tactus.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* path = tc_fuzz_write_temp(data, size, ".obj");
    if (!path) return 0;
    tc_mesh mesh;
    tc_error error;
    if (tc_mesh_load_obj(path, &mesh, &error) == TC_RESULT_OK) {
        for (int i = 0; i < mesh.vertex_count; ++i) // readers reject NaN and infinities
            if (!isfinite(mesh.vertices[i].x) || !isfinite(mesh.vertices[i].y) || !isfinite(mesh.vertices[i].z)) abort();
        for (int i = 0; i < 3 * mesh.triangle_count; ++i)
            if (mesh.triangles[i] < 0 || mesh.triangles[i] >= mesh.vertex_count) abort();
        tc_mesh_free(&mesh);
    } else if (!error.message[0]) {
        abort();
    }
    remove(path);
    return 0;
}
