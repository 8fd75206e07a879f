// The renderer: records what the world draws through tc_debug_draw, then draws it in three
// batches (triangles shaded on the CPU, lines, points) with OpenGL 1.x, plus a ground grid and
// a bitmap-font overlay. Works the same in a window and offscreen.
#include "viewer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vert {
    tc_vec3 p;
    tc_color c;
} vert;

typedef struct recording {
    vert* tris;
    int tri_count, tri_cap; ///< vertices (3 per triangle)
    vert* lines;
    int line_count, line_cap;
    vert* points;
    float* point_sizes;
    int point_count, point_cap;
    tc_vec3 light; ///< unit, towards the light
} recording;

static bool grow(void** data, int* cap, int need, size_t elem) {
    if (need <= *cap) return true;
    int c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    void* d = realloc(*data, (size_t)c * elem);
    if (!d) return false;
    *data = d;
    *cap = c;
    return true;
}

static void rec_triangle(const tc_vec3 v[3], const tc_vec3 n[3], const tc_color c[3], void* ctx) {
    recording* r = ctx;
    if (!grow((void**)&r->tris, &r->tri_cap, r->tri_count + 3, sizeof(vert))) return;
    for (int k = 0; k < 3; ++k) {
        float shade = (float)(0.35 + 0.65 * fabs(tc_v3_dot(n[k], r->light))); // two-sided Lambert
        tc_color s = {c[k].r * shade, c[k].g * shade, c[k].b * shade, c[k].a};
        r->tris[r->tri_count++] = (vert){v[k], s};
    }
}

static void rec_line(tc_vec3 a, tc_vec3 b, tc_color c, void* ctx) {
    recording* r = ctx;
    if (!grow((void**)&r->lines, &r->line_cap, r->line_count + 2, sizeof(vert))) return;
    r->lines[r->line_count++] = (vert){a, c};
    r->lines[r->line_count++] = (vert){b, c};
}

static void rec_point(tc_vec3 p, float size, tc_color c, void* ctx) {
    recording* r = ctx;
    int cap = r->point_cap;
    if (!grow((void**)&r->points, &r->point_cap, r->point_count + 1, sizeof(vert))) return;
    if (r->point_cap != cap) {
        float* s = realloc(r->point_sizes, (size_t)r->point_cap * sizeof(float));
        if (!s) return;
        r->point_sizes = s;
    }
    r->point_sizes[r->point_count] = size;
    r->points[r->point_count++] = (vert){p, c};
}

static void grid(recording* r, tc_vec3 center, double extent) {
    tc_color c = {0.45f, 0.47f, 0.5f, 1};
    double x0 = floor(center.x) - extent, y0 = floor(center.y) - extent;
    for (int i = 0; i <= 2 * (int)extent; ++i) {
        rec_line(tc_v3(x0 + i, y0, 0.001), tc_v3(x0 + i, y0 + 2 * extent, 0.001), c, r);
        rec_line(tc_v3(x0, y0 + i, 0.001), tc_v3(x0 + 2 * extent, y0 + i, 0.001), c, r);
    }
}

// ---- a 3x5 bitmap font: rows top to bottom, 3 bits each --------------------------------------

static const char* glyph(char ch) {
    static const char* const digits[10] = {"111101101101111", "010110010010111", "111001111100111", "111001111001111",
                                           "101101111001001", "111100111001111", "111100111101111", "111001001001001",
                                           "111101111101111", "111101111001111"};
    static const char* const letters[26] = {
        "010101111101101", "110101110101110", "011100100100011", "110101101101110", "111100110100111", "111100110100100",
        "011100101101011", "101101111101101", "111010010010111", "001001001101010", "101101110101101", "100100100100111",
        "101111111101101", "110101101101101", "010101101101010", "110101110100100", "010101101110011", "110101110101101",
        "011100010001110", "111010010010010", "101101101101111", "101101101101010", "101101111111101", "101101010101101",
        "101101010010010", "111001010100111"};
    if (ch >= '0' && ch <= '9') return digits[ch - '0'];
    if (ch >= 'a' && ch <= 'z') ch = (char)(ch - 'a' + 'A');
    if (ch >= 'A' && ch <= 'Z') return letters[ch - 'A'];
    switch (ch) {
    case '.': return "000000000000010";
    case ':': return "000010000010000";
    case '/': return "001001010100100";
    case '-': return "000000111000000";
    case '=': return "000111000111000";
    case '(': return "010100100100010";
    case ')': return "010001001001010";
    case '%': return "101001010100101";
    case ',': return "000000000010100";
    default: return "000000000000000";
    }
}

static void draw_text(const tc_gl* gl, const char* text, float x, float y, float px) {
    gl->Begin(GL_QUADS);
    for (const char* s = text; *s; ++s, x += 4 * px) {
        const char* g = glyph(*s);
        for (int row = 0; row < 5; ++row)
            for (int col = 0; col < 3; ++col) {
                if (g[3 * row + col] != '1') continue;
                float qx = x + col * px, qy = y + row * px;
                gl->Vertex2f(qx, qy);
                gl->Vertex2f(qx + px, qy);
                gl->Vertex2f(qx + px, qy + px);
                gl->Vertex2f(qx, qy + px);
            }
    }
    gl->End();
}

static void overlay(const tc_gl* gl, int w, int h, const char* text) {
    gl->MatrixMode(GL_PROJECTION);
    gl->LoadIdentity();
    gl->Ortho(0, w, h, 0, -1, 1);
    gl->MatrixMode(GL_MODELVIEW);
    gl->LoadIdentity();
    gl->Disable(GL_DEPTH_TEST);
    float px = h >= 600 ? 3 : 2;
    gl->Color4f(0, 0, 0, 0.55f);
    gl->Begin(GL_QUADS);
    float tw = (float)strlen(text) * 4 * px + 2 * px, th = 9 * px;
    gl->Vertex2f(0, 0), gl->Vertex2f(tw + 4, 0), gl->Vertex2f(tw + 4, th), gl->Vertex2f(0, th);
    gl->End();
    gl->Color4f(1, 1, 1, 1);
    draw_text(gl, text, 2 * px, 2 * px, px);
}

void tc_view_overlay_text(const tc_world* w, char* out, size_t size) {
    tc_world_stats s = tc_world_get_stats(w);
    snprintf(out, size, "T %.2f S   STEP %.2f MS   BODIES %d   CONTACTS %d", s.time, 1e3 * s.step_wall_time, s.body_count,
             s.contact_count);
}

static void draw_batches(const tc_gl* gl, const recording* r) {
    gl->Enable(GL_POLYGON_OFFSET_FILL);
    gl->PolygonOffset(1, 1); // lines drawn on surfaces stay visible
    gl->Begin(GL_TRIANGLES);
    for (int i = 0; i < r->tri_count; ++i) {
        gl->Color4f(r->tris[i].c.r, r->tris[i].c.g, r->tris[i].c.b, r->tris[i].c.a);
        gl->Vertex3d(r->tris[i].p.x, r->tris[i].p.y, r->tris[i].p.z);
    }
    gl->End();
    gl->Disable(GL_POLYGON_OFFSET_FILL);
    gl->LineWidth(1.5f);
    gl->Begin(GL_LINES);
    for (int i = 0; i < r->line_count; ++i) {
        gl->Color4f(r->lines[i].c.r, r->lines[i].c.g, r->lines[i].c.b, r->lines[i].c.a);
        gl->Vertex3d(r->lines[i].p.x, r->lines[i].p.y, r->lines[i].p.z);
    }
    gl->End();
    for (int i = 0; i < r->point_count; ++i) { // sizes differ: one batch each
        gl->PointSize(r->point_sizes[i]);
        gl->Begin(GL_POINTS);
        gl->Color4f(r->points[i].c.r, r->points[i].c.g, r->points[i].c.b, r->points[i].c.a);
        gl->Vertex3d(r->points[i].p.x, r->points[i].p.y, r->points[i].p.z);
        gl->End();
    }
}

void tc_view_draw(const tc_gl* gl, const tc_world* world, const tc_view_camera* cam, int w, int h, const tc_debug_draw* layers,
                  const char* text) {
    recording r;
    memset(&r, 0, sizeof r);
    r.light = tc_v3_normalize(tc_v3_add(tc_v3_sub(tc_view_camera_eye(cam), cam->target), tc_v3(0, 0, 0.6 * cam->distance)));
    tc_debug_draw dd = *layers;
    dd.draw_triangle = rec_triangle;
    dd.draw_line = rec_line;
    dd.draw_point = rec_point;
    dd.draw_text = NULL;
    dd.context = &r;
    tc_world_draw(world, &dd);
    grid(&r, cam->target, 10);
    gl->Viewport(0, 0, w, h);
    gl->ClearColor(0.16f, 0.18f, 0.22f, 1);
    gl->Clear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    gl->Enable(GL_DEPTH_TEST);
    gl->DepthFunc(GL_LEQUAL);
    gl->Enable(GL_BLEND);
    gl->BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    double view[16], proj[16];
    tc_view_matrices(cam, w, h, view, proj);
    gl->MatrixMode(GL_PROJECTION);
    gl->LoadMatrixd(proj);
    gl->MatrixMode(GL_MODELVIEW);
    gl->LoadMatrixd(view);
    draw_batches(gl, &r);
    if (text && text[0]) overlay(gl, w, h, text);
    free(r.tris);
    free(r.lines);
    free(r.points);
    free(r.point_sizes);
}
