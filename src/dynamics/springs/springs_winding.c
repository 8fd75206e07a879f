// Inside test of a point against a closed spring mesh: the winding number counted along a ray
// in +z. The mesh's triangles are binned by their xy projection in a uniform grid, so a ray
// meets only the triangles of its cell. Each projected triangle containing the point's xy (and
// lying above it) adds the sign of its projected area: +1 where the ray leaves through an
// outward face, -1 where it enters. Points on a projected edge or vertex are decided as if the
// point were moved by an infinitesimal (e, e^2) in xy, and each edge is evaluated in one
// canonical vertex order, so the two triangles sharing an edge always agree: every ray counts
// each crossing exactly once and the sum is exact for a closed mesh, however deformed.
#include "dynamics/springs/springs.h"

#include <string.h>

// Orientation of p against the canonical edge (lo index -> hi index), perturbed as above:
// > 0 left of the edge, < 0 right; never 0 unless the edge projects to a point.
static int edge_side(tc_vec3 a, tc_vec3 b, tc_real px, tc_real py) {
    tc_real dx = b.x - a.x, dy = b.y - a.y;
    tc_real w = dx * (py - a.y) - dy * (px - a.x);
    if (w > 0) return 1;
    if (w < 0) return -1;
    if (dy != 0) return dy < 0 ? 1 : -1; // moving p by +e in x: w changes by -dy e
    return dx > 0 ? 1 : (dx < 0 ? -1 : 0); // then by +e^2 in y: w changes by dx e^2
}

static int side_in_order(const tc_vec3* x, int u, int v, tc_real px, tc_real py) {
    return u < v ? edge_side(x[u], x[v], px, py) : -edge_side(x[v], x[u], px, py);
}

// +1 / -1 when the ray from p in +z crosses triangle t (by its projected orientation), else 0.
static int crossing(const tc_springs_body* B, int t, tc_vec3 p) {
    const int* v = B->tris + 3 * t;
    int s0 = side_in_order(B->x, v[0], v[1], p.x, p.y);
    int s1 = side_in_order(B->x, v[1], v[2], p.x, p.y);
    int s2 = side_in_order(B->x, v[2], v[0], p.x, p.y);
    if (s0 == 0 || s0 != s1 || s1 != s2) return 0;
    tc_vec3 a = B->x[v[0]], b = B->x[v[1]], c = B->x[v[2]];
    tc_vec3 n = tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(c, a));
    if (n.z == 0) return 0;
    tc_real z = a.z - (n.x * (p.x - a.x) + n.y * (p.y - a.y)) / n.z; // the plane's height at p's xy
    return z > p.z ? s0 : 0;
}

static void cell_of(const tc_springs_winding* g, tc_real x, tc_real y, int* cx, int* cy) {
    *cx = (int)floor((x - g->lo_x) / g->cell), *cy = (int)floor((y - g->lo_y) / g->cell);
    *cx = *cx < 0 ? 0 : (*cx >= g->dims[0] ? g->dims[0] - 1 : *cx);
    *cy = *cy < 0 ? 0 : (*cy >= g->dims[1] ? g->dims[1] - 1 : *cy);
}

// Counting sort of the triangles into the xy cells their projected boxes touch.
bool tc_springs_winding_build(tc_springs_winding* g, const tc_springs_body* B) {
    tc_aabb box = tc_aabb_empty(); // B's own box may be stale: the contacts move vertices
    for (int i = 0; i < B->n; ++i) box = tc_aabb_add_point(box, B->x[i]);
    g->box = box;
    tc_real mean = 0;
    for (int e = 0; e < B->edge_count; ++e) mean += B->springs.data[e].rest;
    mean /= B->edge_count > 0 ? B->edge_count : 1;
    tc_real ext = fmax(box.hi.x - box.lo.x, box.hi.y - box.lo.y);
    g->lo_x = box.lo.x, g->lo_y = box.lo.y;
    g->cell = fmax(2 * mean, ext / 64 + 1e-9);
    g->dims[0] = 1 + (int)((box.hi.x - box.lo.x) / g->cell), g->dims[1] = 1 + (int)((box.hi.y - box.lo.y) / g->cell);
    int cells = g->dims[0] * g->dims[1];
    if (!tc_array_reserve(&g->start, cells + 1)) return false;
    g->start.count = cells + 1;
    memset(g->start.data, 0, (size_t)(cells + 1) * sizeof(int));
    for (int pass = 0; pass < 2; ++pass) {
        for (int t = 0; t < B->tri_count; ++t) {
            const int* v = B->tris + 3 * t;
            tc_aabb tb = tc_aabb_add_point(tc_aabb_add_point(tc_aabb_add_point(tc_aabb_empty(), B->x[v[0]]), B->x[v[1]]), B->x[v[2]]);
            int x0, y0, x1, y1;
            cell_of(g, tb.lo.x, tb.lo.y, &x0, &y0);
            cell_of(g, tb.hi.x, tb.hi.y, &x1, &y1);
            for (int cy = y0; cy <= y1; ++cy)
                for (int cx = x0; cx <= x1; ++cx) {
                    int c = cy * g->dims[0] + cx;
                    if (pass == 0) g->start.data[c + 1]++;
                    else g->items.data[g->start.data[c]++] = t;
                }
        }
        if (pass == 0) {
            for (int c = 0; c < cells; ++c) g->start.data[c + 1] += g->start.data[c];
            if (!tc_array_reserve(&g->items, g->start.data[cells])) return false;
            g->items.count = g->start.data[cells];
        }
    }
    for (int c = cells; c > 0; --c) g->start.data[c] = g->start.data[c - 1]; // the fill advanced each start by its count
    g->start.data[0] = 0;
    return true;
}

int tc_springs_winding_number(const tc_springs_winding* g, const tc_springs_body* B, tc_vec3 p) {
    const tc_aabb* b = &g->box;
    if (!(p.x >= b->lo.x && p.x <= b->hi.x && p.y >= b->lo.y && p.y <= b->hi.y && p.z <= b->hi.z)) return 0;
    int cx, cy;
    cell_of(g, p.x, p.y, &cx, &cy);
    int c = cy * g->dims[0] + cx, w = 0;
    for (int q = g->start.data[c]; q < g->start.data[c + 1]; ++q) w += crossing(B, g->items.data[q], p);
    return w;
}

void tc_springs_winding_free(tc_springs_winding* g) {
    tc_array_free(&g->start), tc_array_free(&g->items);
}
