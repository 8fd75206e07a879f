// Contacts of spring bodies (seed 003, ALGORITHMS §10.3-10.4): the edges of one body are
// intersected with the triangles of the other; the intersecting edges separate the inside
// vertices, collected by a flood fill that never crosses them and confirmed by the other
// surface's winding number (springs_winding.c; a fill leaks past edges that cross twice);
// those vertices are pushed out, all from the same configuration,
// along one consistent direction (the area-weighted normal of the triangles hit), by their
// distance to the other surface, with the approach velocity removed and Coulomb friction
// (an inelastic projection: stable at any stiffness, unlike a penalty held over the explicit
// sub-steps). Vertices against static bodies get the same projection here, against dynamic
// rigid bodies in springs_rigid.c.
#include "dynamics/springs/springs.h"

#include "geometry/trimesh.h"

#include <string.h>

typedef TC_ARRAY(int) int_list;

/// A uniform grid over the overlap region: cell -> B's triangles whose boxes touch it, so each
/// edge of A is tested only against the triangles in the cells its box covers.
typedef struct tri_grid {
    tc_aabb box;
    tc_real cell;
    int dims[3];
    int_list start;       ///< per cell + 1: offsets into items
    int_list items;       ///< triangle indices (positions in pair_work.tris)
    int_list stamp;       ///< per candidate: the edge that last saw it (dedupe)
} tri_grid;

// One vertex of A inside B: its nearest point of B (triangle, barycentric weights) and depth.
typedef struct inside_contact {
    int vertex, tri;
    tc_vec3 bary;
    tc_real depth;
} inside_contact;

typedef struct pair_work {
    tri_grid grid;
    int_list tris;        ///< triangles of B near the overlap
    int_list cut_edges;   ///< spring indices of A's edges that cross B
    int_list inside;      ///< A's vertices inside B
    int_list queue;
    uint8_t* mark;        ///< per vertex of A: 1 inside
    int mark_count;
    tc_vec3 direction;    ///< out of B, area-weighted over the triangles hit
    tc_springs_winding winding; ///< B's triangles for the inside test
    TC_ARRAY(inside_contact) contacts;  ///< the inside vertices being resolved
    TC_ARRAY(tc_real) b_buffer; ///< per vertex of B: weights, then shifts
    tc_real *b_weight, *b_shift;
    bool out_of_memory;   ///< some list could not grow: the pair's inside set or response is incomplete
} pair_work;

static tc_aabb tri_box(const tc_springs_body* b, int t) {
    tc_aabb box = tc_aabb_empty();
    for (int k = 0; k < 3; ++k) box = tc_aabb_add_point(box, b->x[b->tris[3 * t + k]]);
    return box;
}

static bool cut(const pair_work* pw, const tc_springs_body* A, int u, int v) {
    for (int k = 0; k < pw->cut_edges.count; ++k) {
        const tc_spring* s = &A->springs.data[pw->cut_edges.data[k]];
        if ((s->i == u && s->j == v) || (s->i == v && s->j == u)) return true;
    }
    return false;
}

static void seed(pair_work* pw, int v) {
    if (pw->mark[v]) return;
    pw->mark[v] = 1;
    if (!tc_array_push(&pw->inside, v) || !tc_array_push(&pw->queue, v)) pw->out_of_memory = true;
}

static void cell_range(const tri_grid* g, tc_aabb b, int lo[3], int hi[3]) {
    for (int k = 0; k < 3; ++k) {
        tc_real o = tc_v3_get(g->box.lo, k);
        lo[k] = (int)floor((tc_v3_get(b.lo, k) - o) / g->cell), hi[k] = (int)floor((tc_v3_get(b.hi, k) - o) / g->cell);
        lo[k] = lo[k] < 0 ? 0 : (lo[k] >= g->dims[k] ? g->dims[k] - 1 : lo[k]);
        hi[k] = hi[k] < 0 ? 0 : (hi[k] >= g->dims[k] ? g->dims[k] - 1 : hi[k]);
    }
}

#define FOR_CELLS(g, lo, hi, c)                                       \
    for (int z_ = lo[2]; z_ <= hi[2]; ++z_)                           \
        for (int y_ = lo[1]; y_ <= hi[1]; ++y_)                       \
            for (int x_ = lo[0], c = (z_ * (g)->dims[1] + y_) * (g)->dims[0] + lo[0]; x_ <= hi[0]; ++x_, ++c)

// Counting sort of the triangles into cells: two passes, no per-cell allocation.
static bool build_grid(pair_work* pw, const tc_springs_body* B, tc_aabb region) {
    tri_grid* g = &pw->grid;
    tc_real mean = 0;
    for (int e = 0; e < B->edge_count; ++e) mean += B->springs.data[e].rest;
    mean /= B->edge_count > 0 ? B->edge_count : 1;
    tc_vec3 ext = tc_v3_sub(region.hi, region.lo);
    g->box = region;
    g->cell = fmax(mean, fmax(ext.x, fmax(ext.y, ext.z)) / 32 + 1e-9);
    int cells = 1;
    for (int k = 0; k < 3; ++k) g->dims[k] = 1 + (int)(tc_v3_get(ext, k) / g->cell), cells *= g->dims[k];
    if (!tc_array_reserve(&g->start, cells + 1)) return false;
    g->start.count = cells + 1;
    memset(g->start.data, 0, (size_t)(cells + 1) * sizeof(int));
    int lo[3], hi[3];
    for (int pass = 0; pass < 2; ++pass) {
        for (int k = 0; k < pw->tris.count; ++k) {
            cell_range(g, tri_box(B, pw->tris.data[k]), lo, hi);
            FOR_CELLS(g, lo, hi, c) {
                if (pass == 0) g->start.data[c + 1]++;
                else g->items.data[g->start.data[c]++] = k;
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
    if (!tc_array_reserve(&g->stamp, pw->tris.count)) return false;
    g->stamp.count = pw->tris.count;
    for (int k = 0; k < pw->tris.count; ++k) g->stamp.data[k] = -1;
    return true;
}

// Edges of A against B's nearby triangles: cut edges, seeds on their inner side, direction.
static void intersect(pair_work* pw, const tc_springs_body* A, const tc_springs_body* B, tc_aabb region) {
    if (!build_grid(pw, B, region)) {
        pw->out_of_memory = true;
        return;
    }
    tri_grid* g = &pw->grid;
    for (int e = 0; e < A->edge_count; ++e) {
        const tc_spring* s = &A->springs.data[e];
        tc_aabb eb = tc_aabb_add_point(tc_aabb_add_point(tc_aabb_empty(), A->x[s->i]), A->x[s->j]);
        if (!tc_aabb_overlap(eb, region)) continue;
        bool hit_any = false;
        int lo[3], hi[3];
        cell_range(g, eb, lo, hi);
        FOR_CELLS(g, lo, hi, c)
        for (int q = g->start.data[c]; q < g->start.data[c + 1]; ++q) {
            int k = g->items.data[q];
            if (g->stamp.data[k] == e) continue; // already tested through another cell
            g->stamp.data[k] = e;
            const int* t = B->tris + 3 * pw->tris.data[k];
            tc_real param;
            if (!tc_aabb_overlap(eb, tri_box(B, pw->tris.data[k])) ||
                !tc_segment_triangle(A->x[s->i], A->x[s->j], B->x[t[0]], B->x[t[1]], B->x[t[2]], &param, NULL))
                continue;
            tc_vec3 n2 = tc_v3_cross(tc_v3_sub(B->x[t[1]], B->x[t[0]]), tc_v3_sub(B->x[t[2]], B->x[t[0]])); // |n2| = 2 area
            tc_vec3 hit = tc_v3_lerp(A->x[s->i], A->x[s->j], param);
            pw->direction = tc_v3_add(pw->direction, n2);
            seed(pw, tc_v3_dot(tc_v3_sub(A->x[s->i], hit), n2) < 0 ? s->i : s->j);
            hit_any = true;
        }
        if (hit_any && !tc_array_push(&pw->cut_edges, e)) pw->out_of_memory = true;
    }
}

// Keeps the filled vertices that B's surface winds around: a fill that leaked past a double
// crossing (an edge entering and leaving B) reaches outside vertices too.
static void confirm_inside(pair_work* pw, const tc_springs_body* A, const tc_springs_body* B) {
    if (pw->inside.count == 0) return;
    if (!tc_springs_winding_build(&pw->winding, B)) {
        pw->out_of_memory = true;
        return;
    }
    int kept = 0;
    for (int k = 0; k < pw->inside.count; ++k) {
        int i = pw->inside.data[k];
        if (tc_springs_winding_number(&pw->winding, B, A->x[i]) != 0) pw->inside.data[kept++] = i;
        else pw->mark[i] = 0;
    }
    pw->inside.count = kept;
}

static void flood(pair_work* pw, const tc_springs_body* A) {
    for (int q = 0; q < pw->queue.count; ++q) {
        int u = pw->queue.data[q];
        for (int k = A->vert_start[u]; k < A->vert_start[u + 1]; ++k) {
            int v = A->neighbours[k];
            if (!pw->mark[v] && !cut(pw, A, u, v)) seed(pw, v);
        }
    }
}

// The nearest point of B's surface to p: triangle, barycentric weights, distance.
static tc_real nearest(const tc_springs_body* B, tc_vec3 p, int* tri, tc_vec3* w) {
    tc_real best = 1e300;
    for (int t = 0; t < B->tri_count; ++t) {
        const int* v = B->tris + 3 * t;
        tc_vec3 a = B->x[v[0]], b = B->x[v[1]], c = B->x[v[2]];
        tc_vec3 q = tc_closest_point_triangle(p, a, b, c);
        tc_real d = tc_v3_dist(p, q);
        if (d >= best) continue;
        best = d, *tri = t;
        tc_vec3 n = tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(c, a)); // barycentric weights of q
        tc_real area = tc_v3_len2(n);
        tc_real wa = tc_v3_dot(n, tc_v3_cross(tc_v3_sub(b, q), tc_v3_sub(c, q))) / area;
        tc_real wb = tc_v3_dot(n, tc_v3_cross(tc_v3_sub(c, q), tc_v3_sub(a, q))) / area;
        *w = tc_v3(wa, wb, 1 - wa - wb);
    }
    return best;
}

// Inelastic projection of one contact: the vertex (mass ma) and the other side's surface point
// (effective mass mb, reached through `apply_b`) are moved apart by the depth in proportion to
// their inverse masses, their approach velocity along n is removed and friction bounded by
// mu times the normal impulse acts on the sliding velocity. Returns the normal impulse (N s).
typedef struct contact_side {
    tc_vec3 v;       ///< velocity of the other side at the contact (m/s)
    tc_real inv_m;   ///< 1/kg of the other side at the contact, 0 = immovable
} contact_side;

static tc_real project(tc_vec3* x, tc_vec3* v, tc_real inv_ma, contact_side other, tc_vec3 n, tc_real depth, tc_real mu,
                       tc_vec3* impulse_on_a) {
    tc_real w = inv_ma + other.inv_m;
    if (!(w > 0)) return 0;
    *x = tc_v3_madd(*x, depth * inv_ma / w, n);
    tc_vec3 vrel = tc_v3_sub(*v, other.v);
    tc_real vn = tc_v3_dot(vrel, n);
    tc_real jn = vn < 0 ? -vn / w : 0;
    tc_vec3 vt = tc_v3_madd(vrel, -vn, n);
    tc_real vtl = tc_v3_len(vt), jt = vtl > 1e-12 ? fmin(mu * jn, vtl / w) : 0;
    *impulse_on_a = tc_v3_add(tc_v3_scale(n, jn), vtl > 1e-12 ? tc_v3_scale(vt, -jt / vtl) : tc_v3_zero());
    *v = tc_v3_madd(*v, inv_ma, *impulse_on_a);
    return jn;
}

static contact_side surface_point(const tc_springs_body* B, int t, tc_vec3 bw) {
    contact_side other = {tc_v3_zero(), 0};
    const int* tv = B->tris + 3 * t;
    for (int q = 0; q < 3; ++q) {
        tc_real wq = tc_v3_get(bw, q);
        other.v = tc_v3_madd(other.v, wq, B->v[tv[q]]);
        other.inv_m += wq * wq * B->inv_m[tv[q]];
    }
    return other;
}

// Separates the inside vertices from B along n, all from the same configuration (Jacobi): each
// vertex of A takes its inverse-mass share of its depth; each vertex of B moves by the average of
// the shares of B's surface points around it, weighted by their barycentric weights. Applied one
// contact after another instead, B's triangles were pushed once per vertex of A that touches them
// and the unsigned depths, measured after earlier pushes, drove vertices far beyond the surface.
static void separate(pair_work* pw, tc_springs_body* A, tc_springs_body* B, tc_vec3 n) {
    memset(pw->b_weight, 0, (size_t)B->n * sizeof(tc_real));
    memset(pw->b_shift, 0, (size_t)B->n * sizeof(tc_real));
    for (int k = 0; k < pw->contacts.count; ++k) {
        const inside_contact* c = &pw->contacts.data[k];
        contact_side other = surface_point(B, c->tri, c->bary);
        tc_real w = A->inv_m[c->vertex] + other.inv_m;
        if (!(w > 0)) continue;
        A->x[c->vertex] = tc_v3_madd(A->x[c->vertex], c->depth * A->inv_m[c->vertex] / w, n);
        const int* tv = B->tris + 3 * c->tri;
        for (int q = 0; q < 3; ++q) {
            tc_real wq = tc_v3_get(c->bary, q);
            pw->b_weight[tv[q]] += wq, pw->b_shift[tv[q]] += wq * c->depth * other.inv_m / w;
        }
    }
    for (int q = 0; q < B->n; ++q)
        if (pw->b_weight[q] > 0 && B->inv_m[q] > 0) B->x[q] = tc_v3_madd(B->x[q], -pw->b_shift[q] / pw->b_weight[q], n);
}

static void respond(tc_world* w, pair_work* pw, tc_springs_body* A, tc_springs_body* B, tc_real h, bool record) {
    tc_real dl = tc_v3_len(pw->direction);
    if (!(dl > 0) || pw->inside.count == 0) return;
    tc_vec3 n = tc_v3_scale(pw->direction, 1 / dl);
    tc_real mu = sqrt(A->material.friction * B->material.friction);
    tc_array_clear(&pw->contacts);
    for (int k = 0; k < pw->inside.count; ++k) {
        inside_contact c = {pw->inside.data[k], 0, tc_v3(1, 0, 0), 0};
        c.depth = nearest(B, A->x[c.vertex], &c.tri, &c.bary);
        if (!tc_array_push(&pw->contacts, c)) {
            pw->out_of_memory = true;
            return;
        }
    }
    if (!tc_array_reserve(&pw->b_buffer, 2 * B->n)) {
        pw->out_of_memory = true;
        return;
    }
    pw->b_weight = pw->b_buffer.data, pw->b_shift = pw->b_buffer.data + B->n;
    separate(pw, A, B, n);
    for (int k = 0; k < pw->contacts.count; ++k) { // then the velocities, one contact after another (Gauss-Seidel)
        const inside_contact* ct = &pw->contacts.data[k];
        int i = ct->vertex, t = ct->tri;
        const int* tv = B->tris + 3 * t;
        contact_side other = surface_point(B, t, ct->bary);
        tc_vec3 J;
        tc_real jn = project(&A->x[i], &A->v[i], A->inv_m[i], other, n, 0, mu, &J);
        for (int q = 0; q < 3; ++q) B->v[tv[q]] = tc_v3_madd(B->v[tv[q]], -tc_v3_get(ct->bary, q) * B->inv_m[tv[q]], J);
        if (!record) continue;
        tc_vec3 ft = tc_v3_scale(tc_v3_madd(J, -tc_v3_dot(J, n), n), 1 / h); // the tangential part only
        tc_contact c = {tc_world_slot_id(w, B->slot), tc_world_slot_id(w, A->slot), t, i, A->x[i], n, -ct->depth, jn / h, ft, 0};
        tc_world_add_contact(w, &c);
    }
}

// Spring vertices against static bodies (dynamic rigid bodies: springs_rigid.c, every piece).
static void against_static(tc_world* w, tc_springs_body* A, tc_real h, bool record) {
    const tc_kind_ops* rig = tc_kind_ops_of(TC_BODY_RIGID);
    for (int s = 0; s < w->slots.count; ++s) {
        const tc_body_slot* slot = &w->slots.data[s];
        if (!slot->alive || slot->kind != TC_BODY_STATIC) continue;
        if (!tc_aabb_overlap(rig->body_aabb(w, slot->index), A->aabb)) continue;
        tc_material mat = rig->material(w, slot->index);
        tc_real mu = sqrt(A->material.friction * mat.friction);
        for (int i = 0; i < A->n; ++i) {
            tc_vec3 n;
            tc_real d = rig->signed_distance(w, slot->index, A->x[i], &n);
            if (d >= 0) continue;
            contact_side other = {rig->velocity_at(w, slot->index, -1, A->x[i]), 0};
            tc_vec3 J, p = A->x[i];
            tc_real jn = project(&A->x[i], &A->v[i], A->inv_m[i], other, n, -d, mu, &J);
            if (!record) continue;
            tc_vec3 ft = tc_v3_scale(tc_v3_madd(J, -tc_v3_dot(J, n), n), 1 / h); // the tangential part only
            tc_contact c = {tc_world_slot_id(w, s), tc_world_slot_id(w, A->slot), -1, i, p, n, d, jn / h, ft, 0};
            tc_world_add_contact(w, &c);
        }
    }
}

static void work_reset(pair_work* pw, int n) {
    tc_array_clear(&pw->tris), tc_array_clear(&pw->cut_edges), tc_array_clear(&pw->inside), tc_array_clear(&pw->queue);
    if (pw->mark_count < n) {
        tc_free(pw->mark, (size_t)pw->mark_count);
        pw->mark = tc_alloc((size_t)n);
        pw->mark_count = pw->mark ? n : 0;
    }
    if (pw->mark) memset(pw->mark, 0, (size_t)n);
    pw->out_of_memory = !pw->mark;
    pw->direction = tc_v3_zero();
}

static bool find_inside(pair_work* pw, const tc_springs_body* A, const tc_springs_body* B) {
    tc_aabb region = {tc_v3_max(A->aabb.lo, B->aabb.lo), tc_v3_min(A->aabb.hi, B->aabb.hi)};
    if (region.lo.x > region.hi.x || region.lo.y > region.hi.y || region.lo.z > region.hi.z) return false;
    work_reset(pw, A->n);
    if (!pw->mark) return false;
    for (int t = 0; t < B->tri_count; ++t)
        if (tc_aabb_overlap(tri_box(B, t), region) && !tc_array_push(&pw->tris, t)) pw->out_of_memory = true;
    intersect(pw, A, B, region);
    flood(pw, A);
    confirm_inside(pw, A, B);
    return true;
}

// A's vertices inside B pushed out. Out of memory: the pair (this direction) is skipped whole
// rather than resolved from an incomplete inside set, and the step says so.
static void one_way(tc_world* w, pair_work* pw, tc_springs_body* A, tc_springs_body* B, tc_real h, bool record) {
    bool found = find_inside(pw, A, B);
    if (found && !pw->out_of_memory) respond(w, pw, A, B, h, record);
    if (pw->out_of_memory)
        tc_world_out_of_memory(w, "springs bodies '%s' and '%s': out of memory finding the vertices inside; contact skipped this sub-step",
                               tc_world_slot_name(w, A->slot), tc_world_slot_name(w, B->slot));
}

int tc_springs_find_inside(const tc_springs_body* A, const tc_springs_body* B, int* out, int capacity) {
    pair_work pw;
    memset(&pw, 0, sizeof pw);
    int n = find_inside(&pw, A, B) ? pw.inside.count : 0;
    for (int i = 0; i < n && i < capacity; ++i) out[i] = pw.inside.data[i];
    tc_array_free(&pw.tris), tc_array_free(&pw.cut_edges), tc_array_free(&pw.inside), tc_array_free(&pw.queue);
    tc_array_free(&pw.grid.start), tc_array_free(&pw.grid.items), tc_array_free(&pw.grid.stamp);
    tc_free(pw.mark, (size_t)pw.mark_count);
    tc_springs_winding_free(&pw.winding);
    tc_array_free(&pw.contacts), tc_array_free(&pw.b_buffer);
    return n;
}

void tc_springs_collide(tc_world* w, tc_real h) {
    tc_springs_store* s = tc_springs_store_of(w);
    bool record = (w->substep_index % w->def.sub_steps) == w->def.sub_steps - 1;
    pair_work pw;
    memset(&pw, 0, sizeof pw);
    for (int i = 0; i < s->bodies.count; ++i) tc_springs_update_aabb(&s->bodies.data[i]);
    for (int i = 0; i < s->bodies.count; ++i)
        for (int j = i + 1; j < s->bodies.count; ++j) {
            tc_springs_body *a = &s->bodies.data[i], *b = &s->bodies.data[j];
            if (!tc_aabb_overlap(a->aabb, b->aabb)) continue;
            one_way(w, &pw, a, b, h, record);
            tc_springs_update_aabb(a), tc_springs_update_aabb(b); // the first direction moved vertices of both
            one_way(w, &pw, b, a, h, record);
        }
    for (int i = 0; i < s->bodies.count; ++i) against_static(w, &s->bodies.data[i], h, record);
    tc_array_free(&pw.grid.start), tc_array_free(&pw.grid.items), tc_array_free(&pw.grid.stamp);
    tc_array_free(&pw.tris), tc_array_free(&pw.cut_edges), tc_array_free(&pw.inside), tc_array_free(&pw.queue);
    tc_free(pw.mark, (size_t)pw.mark_count);
    tc_springs_winding_free(&pw.winding);
    tc_array_free(&pw.contacts), tc_array_free(&pw.b_buffer);
}

void tc_springs_project_static(tc_world* w, tc_springs_body* b, tc_real h) {
    tc_springs_update_aabb(b);
    against_static(w, b, h, false);
}
