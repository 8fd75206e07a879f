// Fuzz target: the Gmsh reader (tc_tetmesh_read_gmsh) on arbitrary bytes. Any input must give a
// valid mesh (indices in range, positive volumes, every node used) or a clear error.
#include "fuzz_util.h"

#include "geometry/tetmesh.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* path = tc_fuzz_write_temp(data, size, ".msh");
    if (!path) return 0;
    tc_tetmesh mesh;
    tc_error error;
    if (tc_tetmesh_read_gmsh(&mesh, path, &error) == TC_RESULT_OK) {
        char* used = calloc((size_t)mesh.node_count, 1);
        for (int t = 0; t < mesh.tet_count; ++t) {
            for (int k = 0; k < 4; ++k) {
                if (mesh.tets[t][k] < 0 || mesh.tets[t][k] >= mesh.node_count) abort();
                used[mesh.tets[t][k]] = 1;
            }
            tc_vec3 a = mesh.nodes[mesh.tets[t][0]], b = mesh.nodes[mesh.tets[t][1]], c = mesh.nodes[mesh.tets[t][2]], d = mesh.nodes[mesh.tets[t][3]];
            if (!(tc_tet_volume(a, b, c, d) > 0)) abort();
        }
        for (int i = 0; i < mesh.node_count; ++i)
            if (!used[i]) abort();
        free(used);
    } else if (!error.message[0] || mesh.nodes || mesh.tets) {
        abort();
    }
    tc_tetmesh_free(&mesh);
    remove(path);
    return 0;
}
