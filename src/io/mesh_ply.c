// PLY reader: ascii, binary_little_endian and binary_big_endian. Reads element "vertex"
// (x y z, optional nx ny nz) and element "face" (a list property of vertex indices, polygons
// fan-triangulated); other elements and properties are skipped.
#include "io/mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum ply_format { PLY_ASCII, PLY_LE, PLY_BE } ply_format;
typedef enum ply_type { T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_F32, T_F64, T_BAD } ply_type;

#define PLY_MAX_PROPS 32
#define PLY_MAX_ELEMENTS 16

typedef struct ply_prop {
    char name[64];
    ply_type type;
    bool is_list;
    ply_type count_type;
} ply_prop;

typedef struct ply_element {
    char name[64];
    long count;
    int prop_count;
    ply_prop props[PLY_MAX_PROPS];
} ply_element;

typedef struct ply_reader {
    const char* file;
    tc_error* error;
    FILE* f;
    int line;
    ply_format format;
    int element_count;
    ply_element elements[PLY_MAX_ELEMENTS];
    char text[4096]; ///< current ascii line
    char* cursor;    ///< next token in text
} ply_reader;

static ply_type type_of(const char* s) {
    static const struct { const char* name; ply_type t; } names[] = {
        {"char", T_I8},    {"int8", T_I8},     {"uchar", T_U8},  {"uint8", T_U8},   {"short", T_I16},
        {"int16", T_I16},  {"ushort", T_U16},  {"uint16", T_U16}, {"int", T_I32},   {"int32", T_I32},
        {"uint", T_U32},   {"uint32", T_U32},  {"float", T_F32}, {"float32", T_F32}, {"double", T_F64},
        {"float64", T_F64}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strcmp(names[i].name, s) == 0) return names[i].t;
    return T_BAD;
}

static int type_size(ply_type t) {
    static const int sizes[] = {1, 1, 2, 2, 4, 4, 4, 8};
    return sizes[t];
}

static tc_result fail(ply_reader* r, tc_result code, const char* fmt, const char* arg) {
    return tc_mesh_fail(r->error, code, r->file, r->line, fmt, arg);
}

static tc_result parse_property(ply_reader* r, char* rest) {
    if (r->element_count == 0) return fail(r, TC_RESULT_PARSE, "property before any element%s", "");
    ply_element* e = &r->elements[r->element_count - 1];
    if (e->prop_count == PLY_MAX_PROPS) return fail(r, TC_RESULT_LIMIT, "too many properties%s", "");
    ply_prop* p = &e->props[e->prop_count++];
    char a[64], b[64], c[64];
    int n = sscanf(rest, "%63s %63s %63s %63s", a, b, c, p->name);
    if (n >= 1 && strcmp(a, "list") == 0) {
        if (n != 4) return fail(r, TC_RESULT_PARSE, "bad list property \"%s\"", rest);
        p->is_list = true;
        p->count_type = type_of(b);
        p->type = type_of(c);
        if (p->count_type == T_BAD || p->type == T_BAD) return fail(r, TC_RESULT_PARSE, "unknown type in \"%s\"", rest);
        return TC_RESULT_OK;
    }
    if (sscanf(rest, "%63s %63s", a, p->name) != 2) return fail(r, TC_RESULT_PARSE, "bad property \"%s\"", rest);
    p->type = type_of(a);
    if (p->type == T_BAD) return fail(r, TC_RESULT_PARSE, "unknown property type \"%s\"", a);
    return TC_RESULT_OK;
}

static tc_result parse_header_line(ply_reader* r, char* line) {
    line[strcspn(line, "\r\n")] = '\0';
    char word[32];
    if (sscanf(line, "%31s", word) != 1 || strcmp(word, "comment") == 0 || strcmp(word, "obj_info") == 0)
        return TC_RESULT_OK;
    char* rest = line + strlen(word);
    while (*rest == ' ') rest++;
    if (strcmp(word, "format") == 0) {
        if (strncmp(rest, "ascii", 5) == 0) r->format = PLY_ASCII;
        else if (strncmp(rest, "binary_little_endian", 20) == 0) r->format = PLY_LE;
        else if (strncmp(rest, "binary_big_endian", 17) == 0) r->format = PLY_BE;
        else return fail(r, TC_RESULT_PARSE, "unknown format \"%s\"", rest);
        return TC_RESULT_OK;
    }
    if (strcmp(word, "element") == 0) {
        if (r->element_count == PLY_MAX_ELEMENTS) return fail(r, TC_RESULT_LIMIT, "too many elements%s", "");
        ply_element* e = &r->elements[r->element_count++];
        memset(e, 0, sizeof *e);
        if (sscanf(rest, "%63s %ld", e->name, &e->count) != 2 || e->count < 0 || e->count > 100000000)
            return fail(r, TC_RESULT_PARSE, "bad element line \"%s\"", rest);
        return TC_RESULT_OK;
    }
    if (strcmp(word, "property") == 0) return parse_property(r, rest);
    return fail(r, TC_RESULT_PARSE, "unknown header keyword \"%s\"", word);
}

static tc_result read_header(ply_reader* r) {
    char line[512];
    if (!fgets(line, sizeof line, r->f) || strncmp(line, "ply", 3) != 0) {
        r->line = 1;
        return fail(r, TC_RESULT_PARSE, "not a PLY file (missing \"ply\" magic)%s", "");
    }
    r->line = 1;
    r->format = (ply_format)-1;
    while (fgets(line, sizeof line, r->f)) {
        r->line++;
        if (strncmp(line, "end_header", 10) == 0) {
            if ((int)r->format < 0) return fail(r, TC_RESULT_PARSE, "missing format line%s", "");
            return TC_RESULT_OK;
        }
        tc_result res = parse_header_line(r, line);
        if (res) return res;
    }
    return fail(r, TC_RESULT_PARSE, "missing end_header%s", "");
}

/// Reads one scalar of type t from the body (ascii token or binary bytes).
static tc_result read_scalar(ply_reader* r, ply_type t, double* out) {
    if (r->format == PLY_ASCII) {
        char* end;
        *out = strtod(r->cursor, &end);
        if (end == r->cursor) return fail(r, TC_RESULT_PARSE, "expected a number%s", "");
        r->cursor = end;
        return TC_RESULT_OK;
    }
    unsigned char b[8];
    int n = type_size(t);
    if (fread(b, 1, (size_t)n, r->f) != (size_t)n) return fail(r, TC_RESULT_PARSE, "unexpected end of file%s", "");
    if (r->format == PLY_BE)
        for (int i = 0; i < n / 2; ++i) {
            unsigned char tmp = b[i];
            b[i] = b[n - 1 - i];
            b[n - 1 - i] = tmp;
        }
    // The host is assumed little-endian after the swap above (x86, ARM in LE mode).
    union { int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32; float f; double d; unsigned char raw[8]; } u;
    memcpy(u.raw, b, (size_t)n);
    switch (t) {
    case T_I8: *out = u.i8; break;
    case T_U8: *out = u.u8; break;
    case T_I16: *out = u.i16; break;
    case T_U16: *out = u.u16; break;
    case T_I32: *out = u.i32; break;
    case T_U32: *out = u.u32; break;
    case T_F32: *out = u.f; break;
    default: *out = u.d; break;
    }
    return TC_RESULT_OK;
}

static tc_result next_ascii_line(ply_reader* r) {
    if (r->format != PLY_ASCII) return TC_RESULT_OK;
    do {
        if (!fgets(r->text, sizeof r->text, r->f)) return fail(r, TC_RESULT_PARSE, "unexpected end of file%s", "");
        r->line++;
    } while (r->text[strspn(r->text, " \t\r\n")] == '\0');
    r->cursor = r->text;
    return TC_RESULT_OK;
}

// A list's length: an integer in [0, 1e6] whatever its declared type (a float count of 5e31 must
// not reach a cast to long).
static tc_result read_list_length(ply_reader* r, const ply_prop* p, double* n) {
    tc_result res = read_scalar(r, p->count_type, n);
    if (res) return res;
    if (!(*n >= 0 && *n <= 1e6) || *n != floor(*n)) return fail(r, TC_RESULT_PARSE, "bad list length in property \"%s\"", p->name);
    return TC_RESULT_OK;
}

static tc_result read_vertex(ply_reader* r, const ply_element* e, tc_mesh_builder* b, bool* has_normals) {
    double x[6] = {0, 0, 0, 0, 0, 0};
    static const char* const names[6] = {"x", "y", "z", "nx", "ny", "nz"};
    for (int i = 0; i < e->prop_count; ++i) {
        const ply_prop* p = &e->props[i];
        double v = 0, n = 0;
        tc_result res = TC_RESULT_OK;
        if (p->is_list) {
            res = read_list_length(r, p, &n);
            for (long k = 0; !res && k < (long)n; ++k) res = read_scalar(r, p->type, &v);
            if (res) return res;
            continue;
        }
        if ((res = read_scalar(r, p->type, &v))) return res;
        if (!isfinite(v)) return fail(r, TC_RESULT_NOT_FINITE, "vertex property %s is not finite", p->name);
        for (int k = 0; k < 6; ++k)
            if (strcmp(p->name, names[k]) == 0) x[k] = v;
    }
    if (!tc_array_push(&b->vertices, tc_v3(x[0], x[1], x[2]))) return TC_RESULT_OUT_OF_MEMORY;
    if (*has_normals && !tc_array_push(&b->normals, tc_v3(x[3], x[4], x[5]))) return TC_RESULT_OUT_OF_MEMORY;
    return TC_RESULT_OK;
}

static tc_result read_face(ply_reader* r, const ply_element* e, tc_mesh_builder* b, int vertex_count) {
    for (int i = 0; i < e->prop_count; ++i) {
        const ply_prop* p = &e->props[i];
        double v = 0, n = 1;
        tc_result res = p->is_list ? read_list_length(r, p, &n) : TC_RESULT_OK;
        if (res) return res;
        bool indices = p->is_list && (strcmp(p->name, "vertex_indices") == 0 || strcmp(p->name, "vertex_index") == 0);
        if (indices && (n < 3 || n > 1000)) return fail(r, TC_RESULT_DEGENERATE, "a face needs 3 or more vertices%s", "");
        int first = -1, prev = -1;
        for (long k = 0; k < (long)n; ++k) {
            if ((res = read_scalar(r, p->type, &v))) return res;
            if (!indices) continue;
            if (v < 0 || v >= vertex_count || v != floor(v)) return fail(r, TC_RESULT_OUT_OF_RANGE, "vertex index out of range%s", "");
            int idx = (int)v;
            if (k >= 2) {
                if (!tc_array_push(&b->triangles, first) || !tc_array_push(&b->triangles, prev) ||
                    !tc_array_push(&b->triangles, idx))
                    return TC_RESULT_OUT_OF_MEMORY;
            }
            if (k == 0) first = idx;
            prev = idx;
        }
    }
    return TC_RESULT_OK;
}

static bool element_has(const ply_element* e, const char* name) {
    for (int i = 0; i < e->prop_count; ++i)
        if (!e->props[i].is_list && strcmp(e->props[i].name, name) == 0) return true;
    return false;
}

static tc_result read_body(ply_reader* r, tc_mesh_builder* b) {
    int vertex_count = 0;
    bool seen_vertex = false;
    for (int ei = 0; ei < r->element_count; ++ei) {
        const ply_element* e = &r->elements[ei];
        bool is_vertex = strcmp(e->name, "vertex") == 0, is_face = strcmp(e->name, "face") == 0;
        bool has_normals = is_vertex && element_has(e, "nx") && element_has(e, "ny") && element_has(e, "nz");
        if (is_vertex && !(element_has(e, "x") && element_has(e, "y") && element_has(e, "z")))
            return fail(r, TC_RESULT_PARSE, "element vertex lacks x, y or z%s", "");
        if (is_face && !seen_vertex) return fail(r, TC_RESULT_PARSE, "element face comes before element vertex%s", "");
        for (long i = 0; i < e->count; ++i) {
            tc_result res = next_ascii_line(r);
            if (!res) {
                if (is_vertex) res = read_vertex(r, e, b, &has_normals);
                else if (is_face) res = read_face(r, e, b, vertex_count);
                else res = read_face(r, e, b, 0); // skips every property of an unknown element
            }
            if (res) return res;
        }
        if (is_vertex) {
            vertex_count = (int)e->count;
            seen_vertex = true;
        }
    }
    if (!seen_vertex) return fail(r, TC_RESULT_PARSE, "no element vertex%s", "");
    return TC_RESULT_OK;
}

tc_result tc_mesh_load_ply(const char* path, tc_mesh* out, tc_error* error) {
    memset(out, 0, sizeof *out);
    ply_reader* r = tc_calloc(1, sizeof *r);
    r->file = path;
    r->error = error;
    r->f = fopen(path, "rb");
    tc_result res = r->f ? read_header(r) : tc_mesh_fail(error, TC_RESULT_IO, path, 0, "cannot open file");
    tc_mesh_builder b;
    memset(&b, 0, sizeof b);
    if (!res) res = read_body(r, &b);
    if (r->f) fclose(r->f);
    tc_free(r, sizeof *r);
    if (res) {
        tc_mesh_builder_free(&b);
        return res;
    }
    tc_mesh_builder_finish(&b, out);
    return TC_RESULT_OK;
}
