// TetGen .node/.ele reader, and the reader that picks TetGen or Gmsh by the file name.
#include <math.h>
#include <stdio.h>
#include "geometry/tetmesh.h"

// Next non-comment, non-empty line into buf; returns false at end of file.
static bool next_line(FILE* fp, char* buf, int size, int* line) {
    while (fgets(buf, size, fp)) {
        ++*line;
        char* c = buf;
        while (*c == ' ' || *c == '\t') ++c;
        if (*c != '#' && *c != '\n' && *c != '\r' && *c != 0) return true;
    }
    return false;
}

static tc_result read_nodes(tc_tetmesh* m, const char* path, int* first, tc_error* error) {
    FILE* fp = fopen(path, "r");
    if (!fp) return tc_error_set(error, TC_RESULT_IO, path, "", "cannot open");
    char buf[512];
    int line = 0, n = 0, dim = 0;
    tc_result rc = TC_RESULT_OK;
    if (!next_line(fp, buf, sizeof buf, &line) || sscanf(buf, "%d %d", &n, &dim) != 2 || n < 4 || n > 50000000 || dim != 3) {
        fclose(fp);
        return tc_error_set(error, TC_RESULT_PARSE, path, "", "line %d: expected '<count> 3 ...' header", line);
    }
    m->nodes = tc_alloc(sizeof(tc_vec3) * (size_t)n);
    if (!m->nodes) {
        fclose(fp);
        return tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, path, "", "line %d: no memory for %d nodes", line, n);
    }
    m->node_count = n;
    for (int i = 0; i < n && rc == TC_RESULT_OK; ++i) {
        int id = 0;
        double x = 0, y = 0, z = 0;
        if (!next_line(fp, buf, sizeof buf, &line) || sscanf(buf, "%d %lf %lf %lf", &id, &x, &y, &z) != 4)
            rc = tc_error_set(error, TC_RESULT_PARSE, path, "", "line %d: expected '<id> x y z'", line);
        else if (!isfinite(x) || !isfinite(y) || !isfinite(z))
            rc = tc_error_set(error, TC_RESULT_NOT_FINITE, path, "", "line %d: coordinates must be finite", line);
        else if (i == 0) *first = id;
        m->nodes[i] = tc_v3(x, y, z);
    }
    fclose(fp);
    return rc;
}

static tc_result read_tets(tc_tetmesh* m, const char* path, int first, tc_error* error) {
    FILE* fp = fopen(path, "r");
    if (!fp) return tc_error_set(error, TC_RESULT_IO, path, "", "cannot open");
    char buf[512];
    int line = 0, n = 0, per = 0;
    tc_result rc = TC_RESULT_OK;
    if (!next_line(fp, buf, sizeof buf, &line) || sscanf(buf, "%d %d", &n, &per) != 2 || n < 1 || n > 100000000 || per != 4) {
        fclose(fp);
        return tc_error_set(error, TC_RESULT_PARSE, path, "", "line %d: expected '<count> 4 ...' header (linear tets)", line);
    }
    m->tets = tc_alloc(sizeof(int[4]) * (size_t)n);
    if (!m->tets) {
        fclose(fp);
        return tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, path, "", "line %d: no memory for %d tets", line, n);
    }
    m->tet_count = n;
    for (int t = 0; t < n && rc == TC_RESULT_OK; ++t) {
        int id, q[4];
        if (!next_line(fp, buf, sizeof buf, &line) || sscanf(buf, "%d %d %d %d %d", &id, &q[0], &q[1], &q[2], &q[3]) != 5) {
            rc = tc_error_set(error, TC_RESULT_PARSE, path, "", "line %d: expected '<id> n0 n1 n2 n3'", line);
            break;
        }
        for (int v = 0; v < 4 && rc == TC_RESULT_OK; ++v) {
            long long k = (long long)q[v] - first; // checked in the files' own numbering, naming the line
            if (k < 0 || k >= m->node_count)
                rc = tc_error_set(error, TC_RESULT_OUT_OF_RANGE, path, "", "line %d: node %d out of range (the .node file numbers %lld to %lld)", line,
                                  q[v], (long long)first, (long long)first + m->node_count - 1);
            else m->tets[t][v] = (int)k;
        }
    }
    fclose(fp);
    return rc;
}

tc_result tc_tetmesh_read_tetgen(tc_tetmesh* mesh, const char* base, tc_error* error) {
    memset(mesh, 0, sizeof(*mesh));
    char path[1024];
    int first = 0;
    snprintf(path, sizeof path, "%s.node", base);
    tc_result rc = read_nodes(mesh, path, &first, error);
    snprintf(path, sizeof path, "%s.ele", base);
    if (rc == TC_RESULT_OK) rc = read_tets(mesh, path, first, error);
    if (rc == TC_RESULT_OK) rc = tc_tetmesh_finalize(mesh, path, error);
    if (rc != TC_RESULT_OK) tc_tetmesh_free(mesh);
    return rc;
}

static bool ends_with(const char* s, const char* suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

tc_result tc_tetmesh_read(tc_tetmesh* mesh, const char* path, tc_error* error) {
    if (ends_with(path, ".msh")) return tc_tetmesh_read_gmsh(mesh, path, error);
    char base[1024];
    size_t n = strlen(path);
    if (n >= sizeof base) {
        memset(mesh, 0, sizeof(*mesh));
        return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, path, "", "path longer than 1023 characters");
    }
    memcpy(base, path, n + 1);
    if (ends_with(base, ".node")) base[n - 5] = 0;
    else if (ends_with(base, ".ele")) base[n - 4] = 0;
    return tc_tetmesh_read_tetgen(mesh, base, error);
}
