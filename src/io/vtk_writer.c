// VTK XML PolyData output. A recording tc_debug_draw captures whatever tc_world_draw emits
// (every body kind draws itself), so one writer exports all kinds.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "core/core.h"
#include "io/strbuf.h"
#include "tactus/io.h"

typedef struct rec_vertex {
    tc_vec3 p, n;
    tc_color c;
} rec_vertex;

typedef TC_ARRAY(rec_vertex) rec_array;

typedef struct recording {
    rec_array points; ///< one per drawn point
    rec_array lines;  ///< two per segment
    rec_array tris;   ///< three per triangle
    bool failed;
} recording;

static void rec_push(recording* r, rec_array* a, rec_vertex v) {
    if (!tc_array_push(a, v)) r->failed = true;
}

static void rec_line(tc_vec3 a, tc_vec3 b, tc_color c, void* ctx) {
    recording* r = ctx;
    rec_push(r, &r->lines, (rec_vertex){a, tc_v3_zero(), c});
    rec_push(r, &r->lines, (rec_vertex){b, tc_v3_zero(), c});
}

static void rec_point(tc_vec3 p, float size, tc_color c, void* ctx) {
    (void)size;
    recording* r = ctx;
    rec_push(r, &r->points, (rec_vertex){p, tc_v3_zero(), c});
}

static void rec_triangle(const tc_vec3 v[3], const tc_vec3 n[3], const tc_color c[3], void* ctx) {
    recording* r = ctx;
    for (int k = 0; k < 3; ++k) rec_push(r, &r->tris, (rec_vertex){v[k], n ? n[k] : tc_v3_zero(), c[k]});
}

static void rec_free(recording* r) {
    tc_array_free(&r->points);
    tc_array_free(&r->lines);
    tc_array_free(&r->tris);
}

static unsigned char to_byte(float x) {
    float c = x < 0 ? 0 : (x > 1 ? 1 : x);
    return (unsigned char)(c * 255.0f + 0.5f);
}

static bool host_is_little_endian(void) {
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/// Appends base64 of [uint32 byte count][data] (VTK's inline "binary" format, header_type UInt32).
static void append_base64_block(tc_strbuf* b, const void* data, size_t size) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t total = size + 4;
    unsigned char* raw = tc_alloc(total);
    char* out = tc_alloc(4 * ((total + 2) / 3) + 1);
    if (!raw || !out || size > UINT32_MAX - 4) {
        b->failed = true;
        if (raw) tc_free(raw, total);
        if (out) tc_free(out, 4 * ((total + 2) / 3) + 1);
        return;
    }
    uint32_t header = (uint32_t)size;
    memcpy(raw, &header, 4); // host order, matching the byte_order attribute
    if (size) memcpy(raw + 4, data, size);
    size_t o = 0;
    for (size_t i = 0; i < total; i += 3) {
        uint32_t v = (uint32_t)raw[i] << 16;
        if (i + 1 < total) v |= (uint32_t)raw[i + 1] << 8;
        if (i + 2 < total) v |= raw[i + 2];
        out[o++] = alphabet[(v >> 18) & 63];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < total ? alphabet[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < total ? alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    tc_strbuf_printf(b, "%s\n", out);
    tc_free(out, 4 * ((total + 2) / 3) + 1);
    tc_free(raw, total);
}

/// Appends one DataArray element with the given VTK type, name and components, base64-encoded.
static void write_array(tc_strbuf* b, const char* type, const char* name, int components, const void* data,
                        size_t size) {
    tc_strbuf_printf(b, "<DataArray type=\"%s\"", type);
    if (name) tc_strbuf_printf(b, " Name=\"%s\"", name);
    tc_strbuf_printf(b, " NumberOfComponents=\"%d\" format=\"binary\">\n", components);
    append_base64_block(b, data, size);
    tc_strbuf_printf(b, "</DataArray>\n");
}

/// Per-point arrays of the three blocks (points, then line ends, then triangle corners).
static bool write_point_arrays(tc_strbuf* b, const recording* r) {
    const rec_vertex* blocks[3] = {r->points.data, r->lines.data, r->tris.data};
    int counts[3] = {r->points.count, r->lines.count, r->tris.count};
    size_t n = (size_t)(counts[0] + counts[1] + counts[2]);
    float* pos = tc_alloc(sizeof(float) * 3 * (n ? n : 1));
    float* nrm = tc_alloc(sizeof(float) * 3 * (n ? n : 1));
    unsigned char* col = tc_alloc(4 * (n ? n : 1));
    bool ok = pos && nrm && col;
    size_t k = 0;
    for (int blk = 0; ok && blk < 3; ++blk) {
        for (int i = 0; i < counts[blk]; ++i, ++k) {
            const rec_vertex* v = &blocks[blk][i];
            float p[3] = {(float)v->p.x, (float)v->p.y, (float)v->p.z};
            float q[3] = {(float)v->n.x, (float)v->n.y, (float)v->n.z};
            unsigned char c[4] = {to_byte(v->c.r), to_byte(v->c.g), to_byte(v->c.b), to_byte(v->c.a)};
            memcpy(pos + 3 * k, p, sizeof p);
            memcpy(nrm + 3 * k, q, sizeof q);
            memcpy(col + 4 * k, c, sizeof c);
        }
    }
    if (ok) {
        tc_strbuf_printf(b, "<PointData Scalars=\"color\" Normals=\"normal\">\n");
        write_array(b, "UInt8", "color", 4, col, 4 * n);
        write_array(b, "Float32", "normal", 3, nrm, sizeof(float) * 3 * n);
        tc_strbuf_printf(b, "</PointData>\n<Points>\n");
        write_array(b, "Float32", NULL, 3, pos, sizeof(float) * 3 * n);
        tc_strbuf_printf(b, "</Points>\n");
    }
    if (pos) tc_free(pos, sizeof(float) * 3 * (n ? n : 1));
    if (nrm) tc_free(nrm, sizeof(float) * 3 * (n ? n : 1));
    if (col) tc_free(col, 4 * (n ? n : 1));
    return ok;
}

/// Appends a cell section (Verts, Lines, Polys) of `cells` cells of `per` consecutive points from `first`.
static bool write_cells(tc_strbuf* b, const char* tag, int first, int cells, int per) {
    size_t nc = (size_t)cells * (size_t)per;
    int32_t* conn = tc_alloc(sizeof(int32_t) * (nc ? nc : 1));
    int32_t* offs = tc_alloc(sizeof(int32_t) * (cells ? (size_t)cells : 1));
    bool ok = conn && offs;
    for (size_t i = 0; ok && i < nc; ++i) conn[i] = first + (int32_t)i;
    for (int i = 0; ok && i < cells; ++i) offs[i] = (i + 1) * per;
    if (ok) {
        tc_strbuf_printf(b, "<%s>\n", tag);
        write_array(b, "Int32", "connectivity", 1, conn, sizeof(int32_t) * nc);
        write_array(b, "Int32", "offsets", 1, offs, sizeof(int32_t) * (size_t)cells);
        tc_strbuf_printf(b, "</%s>\n", tag);
    }
    if (conn) tc_free(conn, sizeof(int32_t) * (nc ? nc : 1));
    if (offs) tc_free(offs, sizeof(int32_t) * (cells ? (size_t)cells : 1));
    return ok;
}

static bool write_vtp(tc_strbuf* b, const recording* r) {
    int np = r->points.count, nl = r->lines.count / 2, nt = r->tris.count / 3;
    int total = r->points.count + r->lines.count + r->tris.count;
    tc_strbuf_printf(b, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"%s\" "
                        "header_type=\"UInt32\">\n<PolyData>\n<Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" "
                        "NumberOfLines=\"%d\" NumberOfStrips=\"0\" NumberOfPolys=\"%d\">\n",
                     host_is_little_endian() ? "LittleEndian" : "BigEndian", total, np, nl, nt);
    bool ok = write_point_arrays(b, r) && write_cells(b, "Verts", 0, np, 1) && write_cells(b, "Lines", np, nl, 2) &&
              write_cells(b, "Polys", np + 2 * nl, nt, 3);
    tc_strbuf_printf(b, "</Piece>\n</PolyData>\n</VTKFile>\n");
    return ok;
}

tc_result tc_write_file_atomic(const char* path, const void* data, size_t size, tc_error* error) {
    char tmp[1100];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (n < 0 || (size_t)n >= sizeof tmp) return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, path, NULL, "path too long");
    FILE* f = fopen(tmp, "wb");
    if (!f) return tc_error_set(error, TC_RESULT_IO, path, NULL, "cannot create %s", tmp);
    bool ok = fwrite(data, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return tc_error_set(error, TC_RESULT_IO, path, NULL, "cannot write file");
    }
    return TC_RESULT_OK;
}

tc_result tc_vtk_write_world(const tc_world* world, const char* path, tc_error* error) {
    if (!world || !path) return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, path, NULL, "world and path are required");
    recording rec;
    memset(&rec, 0, sizeof rec);
    tc_debug_draw draw = tc_debug_draw_default();
    draw.draw_line = rec_line;
    draw.draw_point = rec_point;
    draw.draw_triangle = rec_triangle;
    draw.context = &rec;
    tc_world_draw(world, &draw);
    tc_strbuf b = {0};
    if (!rec.failed && !write_vtp(&b, &rec)) b.failed = true;
    tc_result r = (rec.failed || b.failed) ? tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, path, NULL, "out of memory")
                                           : tc_write_file_atomic(path, b.data, b.length, error);
    tc_strbuf_free(&b);
    rec_free(&rec);
    return r;
}

static void xml_escape(tc_strbuf* b, const char* s) {
    for (; *s; ++s) {
        if (*s == '&') tc_strbuf_printf(b, "&amp;");
        else if (*s == '<') tc_strbuf_printf(b, "&lt;");
        else if (*s == '"') tc_strbuf_printf(b, "&quot;");
        else tc_strbuf_printf(b, "%c", *s);
    }
}

tc_result tc_vtk_write_pvd(const char* path, const char* const* files, const tc_real* times, int count, tc_error* error) {
    tc_strbuf b = {0};
    tc_strbuf_printf(&b, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                         "<Collection>\n");
    for (int i = 0; i < count; ++i) {
        tc_strbuf_printf(&b, "<DataSet timestep=\"%.9g\" group=\"\" part=\"0\" file=\"", times[i]);
        xml_escape(&b, files[i]);
        tc_strbuf_printf(&b, "\"/>\n");
    }
    tc_strbuf_printf(&b, "</Collection>\n</VTKFile>\n");
    tc_result r = b.failed ? tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, path, NULL, "out of memory")
                           : tc_write_file_atomic(path, b.data, b.length, error);
    tc_strbuf_free(&b);
    return r;
}
