// Fuzz target: the TetGen reader (tc_tetmesh_read_tetgen) on arbitrary bytes. The input is
// split at the first "@@" into the .node and the .ele file; any input must give a valid mesh
// (indices in range, positive volumes) or a clear error.
#include "fuzz_util.h"

#include "geometry/tetmesh.h"

static bool write_part(const char* path, const uint8_t* data, size_t size) {
    FILE* f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return (fclose(f) == 0) && ok;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    size_t cut = 0;
    while (cut + 1 < size && !(data[cut] == '@' && data[cut + 1] == '@')) ++cut;
    const char* dir = getenv("TMPDIR");
    char base[512], node[600], ele[600];
    snprintf(base, sizeof base, "%s/tactus-fuzz-tet-%ld", dir && dir[0] ? dir : "/tmp", (long)getpid());
    snprintf(node, sizeof node, "%s.node", base);
    snprintf(ele, sizeof ele, "%s.ele", base);
    size_t rest = cut + 2 <= size ? cut + 2 : size;
    if (!write_part(node, data, cut) || !write_part(ele, data + rest, size - rest)) return 0;
    tc_tetmesh mesh;
    memset(&mesh, 0, sizeof mesh);
    tc_error error;
    if (tc_tetmesh_read_tetgen(&mesh, base, &error) == TC_RESULT_OK) {
        for (int t = 0; t < mesh.tet_count; ++t) {
            for (int k = 0; k < 4; ++k)
                if (mesh.tets[t][k] < 0 || mesh.tets[t][k] >= mesh.node_count) abort();
            tc_vec3 a = mesh.nodes[mesh.tets[t][0]], b = mesh.nodes[mesh.tets[t][1]], c = mesh.nodes[mesh.tets[t][2]], d = mesh.nodes[mesh.tets[t][3]];
            if (!(tc_tet_volume(a, b, c, d) > 0)) abort();
        }
    } else if (!error.message[0]) {
        abort();
    }
    tc_tetmesh_free(&mesh);
    remove(node);
    remove(ele);
    return 0;
}
