// VTK XML PolyData output. A recording tc_debug_draw captures whatever tc_world_draw emits
// (every body kind draws itself), so one writer exports all kinds.
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

/// Appends a DataArray of the three blocks' field (0 = position, 1 = normal, 2 = colour).
static void write_vertex_array(tc_strbuf* b, const recording* r, int field) {
    const rec_vertex* blocks[3] = {r->points.data, r->lines.data, r->tris.data};
    int counts[3] = {r->points.count, r->lines.count, r->tris.count};
    if (field == 0) tc_strbuf_printf(b, "<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    if (field == 1) tc_strbuf_printf(b, "<DataArray type=\"Float32\" Name=\"normal\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    if (field == 2) tc_strbuf_printf(b, "<DataArray type=\"UInt8\" Name=\"color\" NumberOfComponents=\"4\" format=\"ascii\">\n");
    for (int k = 0; k < 3; ++k) {
        for (int i = 0; i < counts[k]; ++i) {
            const rec_vertex* v = &blocks[k][i];
            if (field == 0) tc_strbuf_printf(b, "%.9g %.9g %.9g\n", v->p.x, v->p.y, v->p.z);
            if (field == 1) tc_strbuf_printf(b, "%.6g %.6g %.6g\n", v->n.x, v->n.y, v->n.z);
            if (field == 2)
                tc_strbuf_printf(b, "%u %u %u %u\n", to_byte(v->c.r), to_byte(v->c.g), to_byte(v->c.b), to_byte(v->c.a));
        }
    }
    tc_strbuf_printf(b, "</DataArray>\n");
}

/// Appends a cell section (Verts, Lines, Polys) of `cells` cells of `per` consecutive points from `first`.
static void write_cells(tc_strbuf* b, const char* tag, int first, int cells, int per) {
    tc_strbuf_printf(b, "<%s>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n", tag);
    for (int i = 0; i < cells * per; ++i) tc_strbuf_printf(b, "%d%c", first + i, (i % per == per - 1) ? '\n' : ' ');
    tc_strbuf_printf(b, "</DataArray>\n<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n");
    for (int i = 1; i <= cells; ++i) tc_strbuf_printf(b, "%d\n", i * per);
    tc_strbuf_printf(b, "</DataArray>\n</%s>\n", tag);
}

static void write_vtp(tc_strbuf* b, const recording* r) {
    int np = r->points.count, nl = r->lines.count / 2, nt = r->tris.count / 3;
    int total = r->points.count + r->lines.count + r->tris.count;
    tc_strbuf_printf(b, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                        "<PolyData>\n<Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" NumberOfLines=\"%d\" "
                        "NumberOfStrips=\"0\" NumberOfPolys=\"%d\">\n",
                     total, np, nl, nt);
    tc_strbuf_printf(b, "<PointData Scalars=\"color\" Normals=\"normal\">\n");
    write_vertex_array(b, r, 2);
    write_vertex_array(b, r, 1);
    tc_strbuf_printf(b, "</PointData>\n<Points>\n");
    write_vertex_array(b, r, 0);
    tc_strbuf_printf(b, "</Points>\n");
    write_cells(b, "Verts", 0, np, 1);
    write_cells(b, "Lines", np, nl, 2);
    write_cells(b, "Polys", np + 2 * nl, nt, 3);
    tc_strbuf_printf(b, "</Piece>\n</PolyData>\n</VTKFile>\n");
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
    if (!rec.failed) write_vtp(&b, &rec);
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
