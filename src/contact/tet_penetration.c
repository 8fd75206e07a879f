// Contacts between tetrahedral bodies (seed 001, ALGORITHMS §4-5): vertices are found inside
// other bodies' tets (or, with self_collision, their own) through a spatial hash (time-stamped
// buckets, the primes of Teschner et al.), then given a penetration depth and direction either by
// the consistent method (border-edge intersections with the penetrated surface found by walking
// the edge's cells through a hash of the surface triangles, distance-weighted averages,
// propagation inwards) or by the closest surface triangle (the baseline), and pushed out by a
// damped penalty with Coulomb friction whose reaction goes to the penetrated tet's vertices.
#include "contact/tet_penetration.h"

#include "geometry/trimesh.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef tc_tet_hit hit;
typedef tc_tet_grid spatial_hash;

static uint32_t bucket_of(const spatial_hash* h, const int c[3]) {
    uint32_t k = ((uint32_t)c[0] * 73856093u) ^ ((uint32_t)c[1] * 19349663u) ^ ((uint32_t)c[2] * 83492791u);
    return k % (uint32_t)h->size;
}

static void cell_of(const spatial_hash* h, tc_vec3 p, int c[3]) {
    c[0] = (int)floor(p.x / h->cell), c[1] = (int)floor(p.y / h->cell), c[2] = (int)floor(p.z / h->cell);
}

static bool same_cell(const int a[3], const int b[3]) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

static int next_prime(int n) {
    for (int p = n | 1;; p += 2) {
        bool prime = true;
        for (int d = 3; d * d <= p && prime; d += 2) prime = p % d != 0;
        if (prime) return p;
    }
}

static bool grid_init(spatial_hash* h, int expected, tc_real cell) {
    memset(h, 0, sizeof *h);
    h->size = next_prime(2 * expected + 1);
    h->cell = cell;
    h->now = 1;
    h->head = tc_alloc((size_t)h->size * sizeof(int));
    h->stamp = tc_calloc((size_t)h->size, sizeof(uint32_t));
    return h->head && h->stamp;
}

void tc_tet_grid_free(tc_tet_grid* h) {
    tc_free(h->head, (size_t)h->size * sizeof(int));
    tc_free(h->stamp, (size_t)h->size * sizeof(uint32_t));
    tc_array_free(&h->entries);
    memset(h, 0, sizeof *h);
}

static bool hash_insert(spatial_hash* h, int body, int index, const int cell[3]) {
    tc_tet_grid_entry e = {body, index, {cell[0], cell[1], cell[2]}, -1};
    uint32_t b = bucket_of(h, e.cell);
    if (h->stamp[b] != h->now) h->stamp[b] = h->now, h->head[b] = -1; // stale bucket: empty
    e.next = h->head[b];
    if (!tc_array_push(&h->entries, e)) return false;
    h->head[b] = h->entries.count - 1;
    return true;
}

// First entry of the bucket holding cell c (-1: empty); callers skip entries of other cells.
static int bucket_head(const spatial_hash* h, const int c[3]) {
    uint32_t b = bucket_of(h, c);
    return h->stamp[b] == h->now ? h->head[b] : -1;
}

tc_real tc_tet_cell_size(const tc_tet_store* s) {
    tc_real edge = 0;
    for (int i = 0; i < s->bodies.count; ++i) edge += s->bodies.data[i].mean_edge / s->bodies.count;
    return edge > 0 ? edge : 0.1;
}

// Which bodies can reach which (ALGORITHMS §4.1 culling): a vertex can only be inside a tet of
// another body within that body's bounding box, so only vertices in another body's box are
// hashed, and only tets and faces whose box meets another body's box are walked or hashed (two
// boxes head-on overlap in a thin slab). A self-colliding body keeps all of its own. The boxes
// are the bodies' own (b->aabb, the exact box of the positions: tc_tet_update_surface refreshes
// it after every change of them, at creation, after each step and after a state read; made here
// again it was 40 % of the hook), inflated far beyond the barycentric tolerance, so the result
// equals the unculled one.
typedef struct reach {
    int count;
    tc_aabb* box;  ///< per body
    bool* touch;   ///< count x count: boxes overlap, a != b
} reach;

static bool reach_init(reach* r, const tc_tet_store* s, tc_real margin) {
    int nb = s->bodies.count;
    r->count = nb;
    r->box = tc_alloc((size_t)nb * sizeof(tc_aabb));
    r->touch = tc_calloc((size_t)nb * (size_t)nb, sizeof(bool));
    if (nb > 0 && (!r->box || !r->touch)) return false;
    for (int b = 0; b < nb; ++b) r->box[b] = tc_aabb_inflate(s->bodies.data[b].aabb, margin);
    for (int a = 0; a < nb; ++a)
        for (int b = 0; b < nb; ++b) r->touch[a * nb + b] = a != b && tc_aabb_overlap(r->box[a], r->box[b]);
    return true;
}

static void reach_free(reach* r) {
    tc_free(r->box, (size_t)r->count * sizeof(tc_aabb));
    tc_free(r->touch, (size_t)r->count * (size_t)r->count * sizeof(bool));
}

// Does the box (of a tet or face of body b) meet another body's box?
static bool reaches_other(const reach* r, int b, tc_aabb box) {
    for (int a = 0; a < r->count; ++a)
        if (r->touch[b * r->count + a] && tc_aabb_overlap(box, r->box[a])) return true;
    return false;
}

static bool point_reaches_other(const reach* r, int b, tc_vec3 p) {
    for (int a = 0; a < r->count; ++a)
        if (r->touch[b * r->count + a] && tc_aabb_contains_point(r->box[a], p)) return true;
    return false;
}

static tc_real reach_margin(tc_real cell) { return 1e-6 * cell; }

// Can anything of body b collide at all (another body's box meets its box, or itself)?
static bool body_in_reach(const reach* r, const tc_tet_body* body, int b) {
    if (body->self_collision) return true;
    for (int a = 0; a < r->count; ++a)
        if (r->touch[b * r->count + a]) return true;
    return false;
}

// Face boxes are inflated so that the segment test's tolerance (1e-9 relative) and the DDA's
// rounding at cell boundaries can never lose a crossing.
static tc_aabb face_box(const tc_tet_body* b, int f, tc_real margin) {
    const int* v = b->faces + 3 * f;
    tc_aabb box = tc_aabb_add_point(tc_aabb_add_point(tc_aabb_add_point(tc_aabb_empty(), b->x[v[0]]), b->x[v[1]]), b->x[v[2]]);
    return tc_aabb_inflate(box, margin);
}

bool tc_tet_grid_build_faces(tc_tet_grid* g, const tc_tet_store* s) {
    tc_real cell = tc_tet_cell_size(s), margin = 1e-6 * cell;
    int expected = 0;
    for (int bi = 0; bi < s->bodies.count; ++bi) expected += 2 * s->bodies.data[bi].face_count;
    reach r = {0};
    memset(g, 0, sizeof *g);
    bool ok = reach_init(&r, s, reach_margin(cell)) && grid_init(g, expected, cell);
    for (int bi = 0; bi < s->bodies.count && ok; ++bi) {
        const tc_tet_body* b = &s->bodies.data[bi];
        int faces = body_in_reach(&r, b, bi) ? b->face_count : 0;
        for (int f = 0; f < faces && ok; ++f) {
            tc_aabb box = face_box(b, f, margin);
            if (!b->self_collision && !reaches_other(&r, bi, box)) continue; // no other body's edge can cross it
            int lo[3], hi[3];
            cell_of(g, box.lo, lo);
            cell_of(g, box.hi, hi);
            for (int z = lo[2]; z <= hi[2]; ++z)
                for (int y = lo[1]; y <= hi[1]; ++y)
                    for (int x = lo[0]; x <= hi[0] && ok; ++x) ok = hash_insert(g, bi, f, (int[3]){x, y, z});
        }
    }
    reach_free(&r);
    return ok;
}

// A tet's inverse edge matrix, computed once per tet per pass (ALGORITHMS §4.2).
typedef struct tet_frame {
    tc_vec3 origin;
    tc_mat3 inverse;
    bool degenerate; ///< |det| too small: skipped
} tet_frame;

static tet_frame frame_of(const tc_tet_body* b, int t) {
    const int* q = b->tets + 4 * t;
    tc_mat3 D = tc_mat3_from_cols(tc_v3_sub(b->x[q[1]], b->x[q[0]]), tc_v3_sub(b->x[q[2]], b->x[q[0]]), tc_v3_sub(b->x[q[3]], b->x[q[0]]));
    tet_frame f = {b->x[q[0]], tc_mat3_identity(), fabs(tc_mat3_det(D)) < 1e-18};
    if (!f.degenerate) f.inverse = tc_mat3_inverse(D);
    return f;
}

// Barycentric coordinates of p; inside when all are >= -eps.
static bool in_tet(const tet_frame* f, tc_vec3 p, tc_real bary[4]) {
    tc_vec3 l = tc_mat3_mul_v3(f->inverse, tc_v3_sub(p, f->origin));
    bary[1] = l.x, bary[2] = l.y, bary[3] = l.z, bary[0] = 1 - l.x - l.y - l.z;
    for (int k = 0; k < 4; ++k)
        if (bary[k] < -1e-9) return false;
    return true;
}

// Other bodies' vertices always (massless ones never); the body's own surface vertices when self_collision is on and
// the tet is not one of theirs (inner vertices inside a neighbour tet are an inverted element,
// the elastic forces' business).
static bool may_collide(const tc_tet_store* s, int tet_body, int t, int body, int v) {
    const tc_tet_body* b = &s->bodies.data[body];
    if (b->m[v] == 0) return false; // a vertex of no tet (allowed in a mesh, inert)
    if (body != tet_body) return true;
    if (!b->self_collision || !b->on_surface[v]) return false;
    const int* q = b->tets + 4 * t;
    return q[0] != v && q[1] != v && q[2] != v && q[3] != v;
}

static void test_vertex(const tc_tet_store* s, int bi, int t, const tet_frame* frame, int body, int v, hit** hits) {
    hit* slot = &hits[body][v];
    if (slot->tet_body >= 0 || !may_collide(s, bi, t, body, v)) return; // one penetrated tet per vertex is enough
    tc_real bary[4];
    if (!in_tet(frame, s->bodies.data[body].x[v], bary)) return;
    slot->tet_body = bi, slot->tet = t;
    memcpy(slot->bary, bary, sizeof bary);
}

static void clear_hits(const tc_tet_store* s, hit** hits) {
    for (int bi = 0; bi < s->bodies.count; ++bi)
        for (int i = 0; i < s->bodies.data[bi].n; ++i) hits[bi][i] = (hit){-1, -1, {0, 0, 0, 0}};
}

// Pass 2 for one tet: the vertices hashed into the cells of its box (ALGORITHMS §4.2).
static void tet_against_cells(const tc_tet_store* s, const spatial_hash* h, const reach* r, int bi, int t, hit** hits) {
    const tc_tet_body* b = &s->bodies.data[bi];
    const int* q = b->tets + 4 * t;
    tc_aabb box = tc_aabb_empty();
    for (int k = 0; k < 4; ++k) box = tc_aabb_add_point(box, b->x[q[k]]);
    if (!b->self_collision && !reaches_other(r, bi, box)) return; // no other body's vertex is near
    tet_frame frame = frame_of(b, t);
    if (frame.degenerate) return;
    int lo[3], hi[3];
    cell_of(h, box.lo, lo);
    cell_of(h, box.hi, hi);
    for (int z = lo[2]; z <= hi[2]; ++z)
        for (int y = lo[1]; y <= hi[1]; ++y)
            for (int x = lo[0]; x <= hi[0]; ++x) {
                int c[3] = {x, y, z};
                for (int e = bucket_head(h, c); e >= 0; e = h->entries.data[e].next) {
                    const tc_tet_grid_entry* en = &h->entries.data[e];
                    if (same_cell(en->cell, c)) test_vertex(s, bi, t, &frame, en->body, en->index, hits);
                }
            }
}

bool tc_tet_find_colliding(const tc_tet_store* s, tc_tet_hit** hits) {
    int total = 0;
    for (int bi = 0; bi < s->bodies.count; ++bi) total += s->bodies.data[bi].n;
    spatial_hash h = {0};
    reach r = {0};
    clear_hits(s, hits);
    tc_real cell = tc_tet_cell_size(s);
    bool ok = reach_init(&r, s, reach_margin(cell)) && grid_init(&h, total, cell);
    for (int bi = 0; bi < s->bodies.count && ok; ++bi) { // pass 1: every vertex that may be inside a tet
        const tc_tet_body* b = &s->bodies.data[bi];
        int vertices = body_in_reach(&r, b, bi) ? b->n : 0;
        for (int i = 0; i < vertices && ok; ++i) {
            if (!(b->self_collision && b->on_surface[i]) && !point_reaches_other(&r, bi, b->x[i])) continue;
            int c[3];
            cell_of(&h, b->x[i], c);
            ok = hash_insert(&h, bi, i, c);
        }
    }
    for (int bi = 0; bi < s->bodies.count && ok; ++bi) { // pass 2: every tet that may hold a vertex
        int tets = body_in_reach(&r, &s->bodies.data[bi], bi) ? s->bodies.data[bi].tet_count : 0;
        for (int t = 0; t < tets; ++t) tet_against_cells(s, &h, &r, bi, t, hits);
    }
    tc_tet_grid_free(&h);
    reach_free(&r);
    return ok;
}

void tc_tet_find_colliding_brute(const tc_tet_store* s, tc_tet_hit** hits) {
    clear_hits(s, hits);
    for (int bi = 0; bi < s->bodies.count; ++bi)
        for (int t = 0; t < s->bodies.data[bi].tet_count; ++t) {
            tet_frame frame = frame_of(&s->bodies.data[bi], t);
            for (int body = 0; body < s->bodies.count && !frame.degenerate; ++body)
                for (int v = 0; v < s->bodies.data[body].n; ++v) test_vertex(s, bi, t, &frame, body, v, hits);
        }
}

// The crossing nearest the segment's outside end o; ties go to the lower face index so that the
// result does not depend on the order faces are visited in.
typedef struct crossing {
    tc_real from_o;
    int face;
    tc_vec3 x, n;
} crossing;

typedef struct edge_query {
    const tc_tet_body* B;
    tc_vec3 p, o;
    int skip0, skip1; ///< self-collision: faces touching the edge's own vertices are not crossings
} edge_query;

static void try_face(const edge_query* e, int f, crossing* best) {
    const int* v = e->B->faces + 3 * f;
    for (int k = 0; k < 3; ++k)
        if (v[k] == e->skip0 || v[k] == e->skip1) return;
    tc_real t;
    tc_vec3 w;
    const tc_vec3* x = e->B->x;
    if (!tc_segment_triangle(e->p, e->o, x[v[0]], x[v[1]], x[v[2]], &t, &w)) return;
    tc_real from_o = 1 - t;
    if (from_o > best->from_o || (from_o == best->from_o && f >= best->face)) return;
    const tc_vec3* vn = e->B->vertex_normals;
    best->from_o = from_o, best->face = f;
    best->x = tc_v3_lerp(e->p, e->o, t);
    best->n = tc_v3_normalize(tc_v3_add(tc_v3_add(tc_v3_scale(vn[v[0]], w.x), tc_v3_scale(vn[v[1]], w.y)), tc_v3_scale(vn[v[2]], w.z)));
}

// Amanatides-Woo walk through the cells of segment p->o (ALGORITHMS §4.3), testing the faces of
// body `bi` hashed there. A face spanning several visited cells is tested once per cell; the
// result does not change.
static void crossings_in_cells(const edge_query* e, int bi, const spatial_hash* g, crossing* best) {
    int c[3], end[3], step[3];
    tc_real tmax[3], tdelta[3];
    cell_of(g, e->p, c);
    cell_of(g, e->o, end);
    tc_vec3 d = tc_v3_sub(e->o, e->p);
    for (int a = 0; a < 3; ++a) {
        tc_real da = tc_v3_get(d, a), pa = tc_v3_get(e->p, a);
        step[a] = da > 0 ? 1 : da < 0 ? -1 : 0;
        tmax[a] = da > 0 ? ((c[a] + 1) * g->cell - pa) / da : da < 0 ? (c[a] * g->cell - pa) / da : 1e300;
        tdelta[a] = da != 0 ? g->cell / fabs(da) : 1e300;
    }
    for (int guard = 0; guard < 1 << 16; ++guard) {
        for (int k = bucket_head(g, c); k >= 0; k = g->entries.data[k].next) {
            const tc_tet_grid_entry* en = &g->entries.data[k];
            if (en->body == bi && same_cell(en->cell, c)) try_face(e, en->index, best);
        }
        if (same_cell(c, end)) break;
        int a = tmax[0] <= tmax[1] && tmax[0] <= tmax[2] ? 0 : tmax[1] <= tmax[2] ? 1 : 2;
        if (tmax[a] > 1) break;
        c[a] += step[a], tmax[a] += tdelta[a];
    }
}

// Nearest intersection (to o) of segment p->o with B's surface, and B's smooth normal there.
static bool surface_crossing(const edge_query* e, int bi, const spatial_hash* faces, tc_vec3* x, tc_vec3* n) {
    crossing best = {1e300, INT_MAX, e->p, tc_v3(0, 0, 1)};
    if (faces) crossings_in_cells(e, bi, faces, &best);
    else
        for (int f = 0; f < e->B->face_count; ++f) try_face(e, f, &best);
    *x = best.x, *n = best.n;
    return best.face != INT_MAX;
}

typedef tc_tet_depth depth;

// Stages 2-3: border points (a colliding vertex with an outside neighbour) from their edges'
// crossings of B's surface. For self-collision the faces at the edge's own ends do not count.
static void border_depths(const tc_tet_body* A, const tc_tet_body* B, int other, bool self, const hit* hits, const spatial_hash* faces,
                          depth* out) {
    for (int p = 0; p < A->n; ++p) {
        out[p].known = false;
        if (hits[p].tet_body != other) continue;
        tc_real wsum = 0, dsum = 0;
        tc_vec3 rsum = tc_v3_zero();
        for (int k = A->adj_start[p]; k < A->adj_start[p + 1]; ++k) {
            int o = A->adj[k];
            edge_query e = {B, A->x[p], A->x[o], self ? p : -1, self ? o : -1};
            tc_vec3 x, nn;
            if (hits[o].tet_body == other || !surface_crossing(&e, other, faces, &x, &nn)) continue;
            tc_real dist2 = tc_v3_len2(tc_v3_sub(x, A->x[p]));
            if (dist2 < 1e-18) { // on the surface: no depth, the normal as direction
                wsum = 1, dsum = 0, rsum = nn;
                break;
            }
            tc_real mu = 1 / dist2;
            wsum += mu, dsum += mu * tc_v3_dot(tc_v3_sub(x, A->x[p]), nn), rsum = tc_v3_madd(rsum, mu, nn);
        }
        if (wsum > 0 && tc_v3_len2(rsum) > 0) out[p] = (depth){fmax(dsum / wsum, 0), tc_v3_normalize(rsum), true};
    }
}

// Stage 4: propagation, one layer at a time (only earlier layers count).
// False when out of memory (the vertices past the border then have no depth).
static bool propagate(const tc_tet_body* A, int other, const hit* hits, depth* out) {
    int n = A->n;
    if (n <= 0) return true;
    bool* layer = tc_alloc((size_t)n * sizeof(bool));
    depth* next = tc_alloc((size_t)n * sizeof(depth));
    bool ok = layer && next;
    for (bool grew = ok; grew;) {
        grew = false;
        memset(layer, 0, (size_t)n * sizeof(bool));
        for (int p = 0; p < n; ++p) {
            if (hits[p].tet_body != other || out[p].known) continue;
            tc_real wsum = 0, dsum = 0;
            tc_vec3 rsum = tc_v3_zero();
            for (int k = A->adj_start[p]; k < A->adj_start[p + 1]; ++k) {
                int j = A->adj[k];
                if (!out[j].known) continue;
                tc_real mu = 1 / fmax(tc_v3_len2(tc_v3_sub(A->x[j], A->x[p])), 1e-18);
                wsum += mu, dsum += mu * (tc_v3_dot(tc_v3_sub(A->x[j], A->x[p]), out[j].r) + out[j].d);
                rsum = tc_v3_madd(rsum, mu, out[j].r);
            }
            if (wsum > 0 && tc_v3_len2(rsum) > 0) next[p] = (depth){fmax(dsum / wsum, 0), tc_v3_normalize(rsum), true}, layer[p] = true;
        }
        for (int p = 0; p < n; ++p)
            if (layer[p]) out[p] = next[p], grew = true;
    }
    tc_free(layer, (size_t)n * sizeof(bool));
    tc_free(next, (size_t)n * sizeof(depth));
    return ok;
}

static void closest_depths(const tc_tet_body* A, const tc_tet_body* B, int other, const hit* hits, depth* out) {
    for (int p = 0; p < A->n; ++p) {
        out[p].known = false;
        if (hits[p].tet_body != other) continue;
        tc_real best = 1e300;
        tc_vec3 best_q = A->x[p];
        for (int f = 0; f < B->face_count; ++f) {
            const int* v = B->faces + 3 * f;
            tc_vec3 q = tc_closest_point_triangle(A->x[p], B->x[v[0]], B->x[v[1]], B->x[v[2]]);
            tc_real d = tc_v3_dist(q, A->x[p]);
            if (d < best) best = d, best_q = q;
        }
        if (best > 1e-12) out[p] = (depth){best, tc_v3_scale(tc_v3_sub(best_q, A->x[p]), 1 / best), true};
    }
}

bool tc_tet_depths(const tc_tet_store* s, int a, int b, const tc_tet_hit* hits_a, const tc_tet_grid* faces, tc_tet_depth_method method,
                   tc_tet_depth* out) {
    const tc_tet_body *A = &s->bodies.data[a], *B = &s->bodies.data[b];
    if (method == TC_TET_CLOSEST && a != b) { // the nearest own triangle says nothing about a self-penetration
        closest_depths(A, B, b, hits_a, out);
        return true;
    }
    border_depths(A, B, b, a == b, hits_a, faces, out);
    return propagate(A, b, hits_a, out);
}

// Adds J to the implicit-step matrix block of vertex i (fixed vertices do not move anyway).
static void add_jacobian(tc_tet_body* b, int i, tc_mat3 J) { b->contact_jac[i] = tc_mat3_add(b->contact_jac[i], J); }

// Penalty k d - c v_n along r at the pair's reduced mass (k = m w^2, c = 2 zeta m w), Coulomb
// friction, reaction to the penetrated tet's vertices by barycentric weights. The normal part is
// implicit on each side (the other side held still, Jacobi style): it is evaluated at the
// end-of-step depth d - h v_n and (h c + h^2 k) r r^T joins the implicit step's matrix. An
// explicit penalty at the default 60 Hz with 4 sub-steps (w h = 1.57) and its damper capped at
// m/h has a discrete eigenvalue 1 - (w h)^2 < -1: it was unstable and kept piles jittering.
static void respond(tc_world* w, tc_tet_body* A, tc_tet_body* B, const hit* hits, const depth* d, tc_real h, bool record) {
    tc_real omega = 2 * TC_PI * w->def.penalty_hertz, zeta = w->def.penalty_damping_ratio;
    tc_real mu = sqrt(A->material.friction * B->material.friction);
    for (int p = 0; p < A->n; ++p) {
        if (!d[p].known) continue;
        const int* q = B->tets + 4 * hits[p].tet;
        const tc_real* bary = hits[p].bary;
        tc_vec3 vb = tc_v3_zero();
        tc_real mb = 0;
        for (int k = 0; k < 4; ++k) vb = tc_v3_madd(vb, bary[k], B->v[q[k]]), mb += bary[k] * B->m[q[k]];
        tc_real m = A->m[p] * mb / (A->m[p] + mb), stiffness = m * omega * omega, damping = 2 * zeta * m * omega;
        tc_vec3 vrel = tc_v3_sub(A->v[p], vb);
        tc_real vn = tc_v3_dot(vrel, d[p].r);
        tc_real fn = fmax(0, stiffness * (d[p].d - h * vn) - damping * vn);
        tc_vec3 vt = tc_v3_madd(vrel, -vn, d[p].r);
        tc_real vtl = tc_v3_len(vt), ft = vtl > 1e-12 ? fmin(mu * fn, m * vtl / h) : 0;
        tc_vec3 f = tc_v3_add(tc_v3_scale(d[p].r, fn), vtl > 1e-12 ? tc_v3_scale(vt, -ft / vtl) : tc_v3_zero());
        A->f[p] = tc_v3_add(A->f[p], f);
        for (int k = 0; k < 4; ++k) B->f[q[k]] = tc_v3_madd(B->f[q[k]], -bary[k], f);
        if (fn > 0) {
            tc_mat3 J = tc_mat3_scale(tc_mat3_outer(d[p].r, d[p].r), h * damping + h * h * stiffness);
            add_jacobian(A, p, J);
            for (int k = 0; k < 4; ++k) add_jacobian(B, q[k], tc_mat3_scale(J, bary[k] * bary[k]));
        }
        if (!record) continue;
        tc_vec3 f_t = tc_v3_madd(f, -tc_v3_dot(f, d[p].r), d[p].r); // the tangential part only
        tc_contact c = {tc_world_slot_id(w, B->slot), tc_world_slot_id(w, A->slot), hits[p].tet, p, A->x[p], d[p].r, -d[p].d, fn, f_t, 0};
        tc_world_add_contact(w, &c);
    }
}

static bool any_self_collision(const tc_tet_store* s) {
    for (int i = 0; i < s->bodies.count; ++i)
        if (s->bodies.data[i].self_collision) return true;
    return false;
}

void tc_tet_collide(tc_world* w, tc_real h) {
    tc_tet_store* s = tc_tet_store_of(w);
    int nb = s->bodies.count, total = 0;
    if (nb < 2 && !any_self_collision(s)) return;
    for (int i = 0; i < nb; ++i) total += s->bodies.data[i].n;
    tc_tet_grid faces;
    hit** hits = tc_calloc((size_t)nb, sizeof(hit*));
    depth* d = tc_alloc((size_t)total * sizeof(depth));
    bool ok = tc_tet_grid_build_faces(&faces, s) && hits && d;
    for (int i = 0; i < nb && ok; ++i) ok = (hits[i] = tc_alloc((size_t)s->bodies.data[i].n * sizeof(hit))) != NULL;
    bool record = (w->substep_index % w->def.sub_steps) == w->def.sub_steps - 1;
    ok = ok && tc_tet_find_colliding(s, hits);
    if (!ok) tc_world_out_of_memory(w, "tet contacts: out of memory for the spatial hash of %d vertices; tet-tet contacts skipped this sub-step", total);
    for (int a = 0; a < nb && ok; ++a)
        for (int b = 0; b < nb; ++b) {
            tc_tet_body *A = &s->bodies.data[a], *B = &s->bodies.data[b];
            if (a == b && !A->self_collision) continue;
            if (!tc_tet_depths(s, a, b, hits[a], &faces, A->depth_method, d))
                tc_world_out_of_memory(w, "tet body '%s': out of memory propagating penetration depths; only its border vertices respond",
                                       tc_world_slot_name(w, A->slot));
            respond(w, A, B, hits[a], d, h, record);
        }
    for (int i = 0; i < nb && hits; ++i) tc_free(hits[i], (size_t)s->bodies.data[i].n * sizeof(hit));
    tc_free(hits, (size_t)nb * sizeof(hit*));
    tc_free(d, (size_t)total * sizeof(depth));
    tc_tet_grid_free(&faces);
}
