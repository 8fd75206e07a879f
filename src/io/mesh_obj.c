// Wavefront OBJ reader: v, vn and f records; everything else (vt, o, g, s, usemtl...) ignored.
#include "io/mesh.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct obj_state {
    const char* file;
    int line;
    tc_error* error;
    tc_mesh_builder b;
    TC_ARRAY(tc_vec3) vn; ///< normals as listed, indexed by faces
    bool has_face_normals;
} obj_state;

static tc_result read_reals(obj_state* s, char* rest, int n, tc_real* out) {
    char* p = rest;
    for (int i = 0; i < n; ++i) {
        char* end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p) return tc_mesh_fail(s->error, TC_RESULT_PARSE, s->file, s->line, "expected %d numbers", n);
        if (!isfinite(x)) return tc_mesh_fail(s->error, TC_RESULT_NOT_FINITE, s->file, s->line, "number is not finite");
        out[i] = x;
        p = end;
    }
    return TC_RESULT_OK;
}

/// Converts a 1-based (or negative, relative) OBJ index to 0-based; -1 when out of range.
static int resolve_index(long idx, int count) {
    if (idx > 0 && idx <= count) return (int)idx - 1;
    if (idx < 0 && idx >= -(long)count) return count + (int)idx; // -LONG_MIN would overflow
    return -1;
}

/// Parses one "v", "v/vt", "v//vn" or "v/vt/vn" token.
static tc_result parse_corner(obj_state* s, char** p, int* v, int* n) {
    char* end;
    long vi = strtol(*p, &end, 10);
    if (end == *p) return tc_mesh_fail(s->error, TC_RESULT_PARSE, s->file, s->line, "bad face vertex \"%.16s\"", *p);
    *v = resolve_index(vi, s->b.vertices.count);
    if (*v < 0)
        return tc_mesh_fail(s->error, TC_RESULT_OUT_OF_RANGE, s->file, s->line, "vertex index %ld out of range (%d vertices)",
                            vi, s->b.vertices.count);
    *n = -1;
    *p = end;
    if (**p != '/') return TC_RESULT_OK;
    (*p)++;
    if (**p != '/') (void)strtol(*p, p, 10); // texture index: not needed
    if (**p != '/') return TC_RESULT_OK;
    (*p)++;
    long ni = strtol(*p, &end, 10);
    if (end == *p) return tc_mesh_fail(s->error, TC_RESULT_PARSE, s->file, s->line, "bad normal index");
    *n = resolve_index(ni, s->vn.count);
    if (*n < 0) return tc_mesh_fail(s->error, TC_RESULT_OUT_OF_RANGE, s->file, s->line, "normal index %ld out of range", ni);
    *p = end;
    return TC_RESULT_OK;
}

static tc_result parse_face(obj_state* s, char* rest) {
    int first = -1, prev = -1, corners = 0;
    char* p = rest;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '\n' || *p == '\r' || *p == '#') break;
        int v = -1, n = -1;
        tc_result r = parse_corner(s, &p, &v, &n);
        if (r) return r;
        if (n >= 0) {
            s->b.normals.data[v] = s->vn.data[n];
            s->has_face_normals = true;
        }
        if (corners >= 2) {
            // Fan triangulation around the first corner.
            int t[3] = {first, prev, v};
            for (int k = 0; k < 3; ++k)
                if (!tc_array_push(&s->b.triangles, t[k])) return TC_RESULT_OUT_OF_MEMORY;
        }
        if (corners == 0) first = v;
        prev = v;
        corners++;
    }
    if (corners < 3)
        return tc_mesh_fail(s->error, TC_RESULT_DEGENERATE, s->file, s->line, "a face needs at least 3 vertices (got %d)",
                            corners);
    return TC_RESULT_OK;
}

static tc_result parse_line(obj_state* s, char* line) {
    while (*line == ' ' || *line == '\t') line++;
    tc_real c[3];
    tc_result r = TC_RESULT_OK;
    if (line[0] == 'v' && (line[1] == ' ' || line[1] == '\t')) {
        r = read_reals(s, line + 2, 3, c);
        if (!r && !tc_array_push(&s->b.vertices, tc_v3(c[0], c[1], c[2]))) r = TC_RESULT_OUT_OF_MEMORY;
        if (!r && !tc_array_push(&s->b.normals, tc_v3_zero())) r = TC_RESULT_OUT_OF_MEMORY;
    } else if (line[0] == 'v' && line[1] == 'n' && (line[2] == ' ' || line[2] == '\t')) {
        r = read_reals(s, line + 3, 3, c);
        if (!r && !tc_array_push(&s->vn, tc_v3_normalize(tc_v3(c[0], c[1], c[2])))) r = TC_RESULT_OUT_OF_MEMORY;
    } else if (line[0] == 'f' && (line[1] == ' ' || line[1] == '\t')) {
        r = parse_face(s, line + 2);
    }
    return r;
}

tc_result tc_mesh_load_obj(const char* path, tc_mesh* out, tc_error* error) {
    memset(out, 0, sizeof *out);
    FILE* f = fopen(path, "r");
    if (!f) return tc_mesh_fail(error, TC_RESULT_IO, path, 0, "cannot open file");
    obj_state s;
    memset(&s, 0, sizeof s);
    s.file = path;
    s.error = error;
    char line[4096];
    tc_result r = TC_RESULT_OK;
    while (!r && fgets(line, sizeof line, f)) {
        s.line++;
        r = parse_line(&s, line);
    }
    fclose(f);
    if (!r && s.b.vertices.count == 0) r = tc_mesh_fail(error, TC_RESULT_PARSE, path, 0, "no vertices");
    if (!r && !s.has_face_normals) tc_array_free(&s.b.normals);
    tc_array_free(&s.vn);
    if (r) {
        tc_mesh_builder_free(&s.b);
        return r;
    }
    tc_mesh_builder_finish(&s.b, out);
    return TC_RESULT_OK;
}
