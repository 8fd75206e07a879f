// Drawing rigid and static bodies through tc_debug_draw.
#include "geometry/hull.h"
#include "geometry/trimesh.h"
#include "dynamics/rigid/rigid.h"

static void tri(const tc_debug_draw* d, tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_vec3 na, tc_vec3 nb, tc_vec3 nc, tc_color col) {
    tc_vec3 v[3] = {a, b, c}, n[3] = {na, nb, nc};
    tc_color cc[3] = {col, col, col};
    d->draw_triangle(v, n, cc, d->context);
}

static void flat_tri(const tc_debug_draw* d, tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_color col) {
    tc_vec3 n = tc_v3_normalize(tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(c, a)));
    tri(d, a, b, c, n, n, n, col);
}

static void draw_sphere(const tc_debug_draw* d, tc_transform t, tc_real r, tc_color col) {
    enum { SLICES = 16, STACKS = 10 };
    for (int i = 0; i < STACKS; ++i) {
        tc_real t0 = TC_PI * i / STACKS, t1 = TC_PI * (i + 1) / STACKS;
        for (int j = 0; j < SLICES; ++j) {
            tc_real p0 = 2 * TC_PI * j / SLICES, p1 = 2 * TC_PI * (j + 1) / SLICES;
            tc_vec3 n[4] = {tc_v3(sin(t0) * cos(p0), sin(t0) * sin(p0), cos(t0)), tc_v3(sin(t1) * cos(p0), sin(t1) * sin(p0), cos(t1)),
                            tc_v3(sin(t1) * cos(p1), sin(t1) * sin(p1), cos(t1)), tc_v3(sin(t0) * cos(p1), sin(t0) * sin(p1), cos(t0))};
            tc_vec3 v[4], nw[4];
            for (int k = 0; k < 4; ++k) {
                nw[k] = tc_quat_rotate(t.q, n[k]);
                v[k] = tc_v3_madd(t.p, r, nw[k]);
            }
            tri(d, v[0], v[1], v[2], nw[0], nw[1], nw[2], col);
            tri(d, v[0], v[2], v[3], nw[0], nw[2], nw[3], col);
        }
    }
}

static void draw_box(const tc_debug_draw* d, tc_transform t, tc_vec3 h, tc_color col) {
    static const int faces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
    tc_vec3 c[8];
    for (int i = 0; i < 8; ++i)
        c[i] = tc_transform_point(t, tc_v3(i & 4 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 1 ? h.z : -h.z));
    for (int f = 0; f < 6; ++f) {
        flat_tri(d, c[faces[f][0]], c[faces[f][1]], c[faces[f][2]], col);
        flat_tri(d, c[faces[f][0]], c[faces[f][2]], c[faces[f][3]], col);
    }
}

static void draw_plane(const tc_debug_draw* d, tc_transform t, tc_vec3 n, tc_real off) {
    tc_vec3 t1, t2;
    tc_v3_basis(n, &t1, &t2);
    tc_vec3 o = tc_v3_scale(n, off);
    const int N = 20;
    const tc_real S = 1.0;
    for (int i = -N; i < N; ++i)
        for (int j = -N; j < N; ++j) {
            tc_color col = ((i + j) & 1) ? (tc_color){0.55f, 0.55f, 0.58f, 1} : (tc_color){0.45f, 0.45f, 0.48f, 1};
            tc_vec3 a = tc_v3_madd(tc_v3_madd(o, i * S, t1), j * S, t2);
            tc_vec3 b = tc_v3_madd(a, S, t1), c = tc_v3_madd(b, S, t2), e = tc_v3_madd(a, S, t2);
            flat_tri(d, tc_transform_point(t, a), tc_transform_point(t, b), tc_transform_point(t, c), col);
            flat_tri(d, tc_transform_point(t, a), tc_transform_point(t, c), tc_transform_point(t, e), col);
        }
}

static void draw_hull(const tc_debug_draw* d, tc_transform t, const tc_hull* h, tc_color col) {
    for (int f = 0; f < h->face_count; ++f) {
        const int* loop = h->face_verts + h->face_start[f];
        int m = h->face_start[f + 1] - h->face_start[f];
        tc_vec3 a = tc_transform_point(t, h->vertices[loop[0]]);
        for (int i = 1; i + 1 < m; ++i)
            flat_tri(d, a, tc_transform_point(t, h->vertices[loop[i]]), tc_transform_point(t, h->vertices[loop[i + 1]]), col);
    }
}

static void draw_mesh(const tc_debug_draw* d, tc_transform t, const tc_trimesh* m, tc_color col) {
    for (int i = 0; i < m->triangle_count; ++i) {
        const int* v = m->triangles + 3 * i;
        flat_tri(d, tc_transform_point(t, m->vertices[v[0]]), tc_transform_point(t, m->vertices[v[1]]),
                 tc_transform_point(t, m->vertices[v[2]]), col);
    }
}

static void draw_aabb(const tc_debug_draw* d, tc_aabb b) {
    tc_color c = {0.3f, 0.9f, 0.3f, 1};
    for (int i = 0; i < 8; ++i)
        for (int k = 0; k < 3; ++k) {
            int j = i ^ (1 << k);
            if (j < i) continue;
            tc_vec3 p = tc_v3(i & 1 ? b.hi.x : b.lo.x, i & 2 ? b.hi.y : b.lo.y, i & 4 ? b.hi.z : b.lo.z);
            tc_vec3 q = tc_v3(j & 1 ? b.hi.x : b.lo.x, j & 2 ? b.hi.y : b.lo.y, j & 4 ? b.hi.z : b.lo.z);
            d->draw_line(p, q, c, d->context);
        }
}

void tc_rigid_draw_body(const tc_world* w, int index, const tc_debug_draw* d);
void tc_rigid_draw_body(const tc_world* w, int index, const tc_debug_draw* d) {
    const tc_rigid_body* b = &tc_rigid_store_of(w)->bodies.data[index];
    if (d->draw_aabbs && d->draw_line && b->kind != TC_BODY_STATIC) draw_aabb(d, b->aabb);
    if (!d->draw_shapes || !d->draw_triangle || b->kind == TC_BODY_QUASI) return;
    tc_color col = b->kind == TC_BODY_STATIC ? (tc_color){0.6f, 0.6f, 0.62f, 1}
                   : b->awake                ? (tc_color){0.85f, 0.55f, 0.3f, 1}
                                             : (tc_color){0.55f, 0.45f, 0.4f, 1};
    for (int i = 0; i < b->shape_count; ++i) {
        const tc_shape* s = &b->shapes[i];
        tc_transform t = tc_transform_mul(b->pose, s->local);
        if (s->type == TC_SHAPE_SPHERE) draw_sphere(d, t, s->radius, col);
        else if (s->type == TC_SHAPE_BOX) draw_box(d, t, s->half_extents, col);
        else if (s->type == TC_SHAPE_PLANE) draw_plane(d, t, s->plane_normal, s->plane_offset);
        else if (s->type == TC_SHAPE_HULL) draw_hull(d, t, s->hull, col);
        else if (s->type == TC_SHAPE_TRIMESH) draw_mesh(d, t, s->mesh, col);
    }
}
