// Contacts between tetrahedral bodies (seed 001, ALGORITHMS §4-5): vertices are found inside
// other bodies' tets through a spatial hash (time-stamped buckets, the primes of Teschner et
// al.), then given a penetration depth and direction either by the consistent method
// (border-point intersections with the penetrated surface, distance-weighted averages,
// propagation inwards) or by the closest surface triangle (the baseline), and pushed out by a
// damped penalty with Coulomb friction whose reaction goes to the penetrated tet's vertices.
#include "dynamics/tet/tet.h"

#include "geometry/trimesh.h"

#include <stdlib.h>
#include <string.h>

typedef struct hash_entry {
    int body, vertex, cell[3], next;
} hash_entry;

typedef struct spatial_hash {
    int* head;       ///< per bucket: first entry, valid only when stamp matches
    uint32_t* stamp;
    int size;
    uint32_t now;
    TC_ARRAY(hash_entry) entries;
    tc_real cell;
} spatial_hash;

typedef struct hit {
    int tet_body, tet;   ///< the penetrated body and tet
    tc_real bary[4];
} hit;

static uint32_t bucket_of(const spatial_hash* h, const int c[3]) {
    uint32_t k = ((uint32_t)c[0] * 73856093u) ^ ((uint32_t)c[1] * 19349663u) ^ ((uint32_t)c[2] * 83492791u);
    return k % (uint32_t)h->size;
}

static void cell_of(const spatial_hash* h, tc_vec3 p, int c[3]) {
    c[0] = (int)floor(p.x / h->cell), c[1] = (int)floor(p.y / h->cell), c[2] = (int)floor(p.z / h->cell);
}

static int next_prime(int n) {
    for (int p = n | 1;; p += 2) {
        bool prime = true;
        for (int d = 3; d * d <= p && prime; d += 2) prime = p % d != 0;
        if (prime) return p;
    }
}

static void hash_insert(spatial_hash* h, int body, int vertex, tc_vec3 p) {
    hash_entry e = {body, vertex, {0, 0, 0}, -1};
    cell_of(h, p, e.cell);
    uint32_t b = bucket_of(h, e.cell);
    if (h->stamp[b] != h->now) h->stamp[b] = h->now, h->head[b] = -1; // stale bucket: empty
    e.next = h->head[b];
    if (!tc_array_push(&h->entries, e)) return;
    h->head[b] = h->entries.count - 1;
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

// Pass 1 hashes every vertex; pass 2 walks every tet's cells (ALGORITHMS §4.2).
static void detect(tc_tet_store* s, spatial_hash* h, hit** hits) {
    h->now++;
    tc_array_clear(&h->entries);
    for (int bi = 0; bi < s->bodies.count; ++bi)
        for (int i = 0; i < s->bodies.data[bi].n; ++i) hash_insert(h, bi, i, s->bodies.data[bi].x[i]);
    for (int bi = 0; bi < s->bodies.count; ++bi) {
        const tc_tet_body* b = &s->bodies.data[bi];
        for (int t = 0; t < b->tet_count; ++t) {
            const int* q = b->tets + 4 * t;
            tet_frame frame = frame_of(b, t);
            if (frame.degenerate) continue;
            tc_aabb box = tc_aabb_empty();
            for (int k = 0; k < 4; ++k) box = tc_aabb_add_point(box, b->x[q[k]]);
            int lo[3], hi[3];
            cell_of(h, box.lo, lo);
            cell_of(h, box.hi, hi);
            for (int z = lo[2]; z <= hi[2]; ++z)
                for (int y = lo[1]; y <= hi[1]; ++y)
                    for (int x = lo[0]; x <= hi[0]; ++x) {
                        int c[3] = {x, y, z};
                        uint32_t bk = bucket_of(h, c);
                        if (h->stamp[bk] != h->now) continue;
                        for (int e = h->head[bk]; e >= 0; e = h->entries.data[e].next) {
                            const hash_entry* en = &h->entries.data[e];
                            if (en->cell[0] != x || en->cell[1] != y || en->cell[2] != z || en->body == bi) continue;
                            hit* slot = &hits[en->body][en->vertex];
                            if (slot->tet_body >= 0) continue; // one penetrated tet per vertex is enough
                            tc_real bary[4];
                            if (!in_tet(&frame, s->bodies.data[en->body].x[en->vertex], bary)) continue;
                            slot->tet_body = bi, slot->tet = t;
                            memcpy(slot->bary, bary, sizeof bary);
                        }
                    }
        }
    }
}

// Nearest intersection (to o) of segment p->o with B's surface, and B's smooth normal there.
static bool surface_crossing(const tc_tet_body* B, tc_vec3 p, tc_vec3 o, tc_vec3* x, tc_vec3* n) {
    tc_real best = 1e300;
    tc_aabb seg = tc_aabb_add_point(tc_aabb_add_point(tc_aabb_empty(), p), o);
    for (int f = 0; f < B->face_count; ++f) {
        const int* v = B->faces + 3 * f;
        tc_vec3 a = B->x[v[0]], b = B->x[v[1]], c = B->x[v[2]];
        tc_aabb fb = tc_aabb_add_point(tc_aabb_add_point(tc_aabb_add_point(tc_aabb_empty(), a), b), c);
        if (!tc_aabb_overlap(fb, seg)) continue;
        tc_real t;
        tc_vec3 w;
        if (!tc_segment_triangle(p, o, a, b, c, &t, &w)) continue;
        tc_real from_o = 1 - t;
        if (from_o >= best) continue;
        best = from_o;
        *x = tc_v3_lerp(p, o, t);
        *n = tc_v3_normalize(tc_v3_add(tc_v3_add(tc_v3_scale(B->vertex_normals[v[0]], w.x), tc_v3_scale(B->vertex_normals[v[1]], w.y)),
                                       tc_v3_scale(B->vertex_normals[v[2]], w.z)));
    }
    return best < 1e300;
}

typedef struct depth {
    tc_real d;
    tc_vec3 r;
    bool known;
} depth;

// Stages 2-4 for the colliding vertices of A (all penetrating body `other`).
static void consistent_depths(const tc_tet_body* A, const tc_tet_body* B, int other, const hit* hits, depth* out) {
    int n = A->n;
    for (int p = 0; p < n; ++p) {
        out[p].known = false;
        if (hits[p].tet_body != other) continue;
        tc_real wsum = 0, dsum = 0;
        tc_vec3 rsum = tc_v3_zero();
        for (int k = A->adj_start[p]; k < A->adj_start[p + 1]; ++k) { // border point: an outside neighbour
            int o = A->adj[k];
            tc_vec3 x = A->x[p], nn = tc_v3(0, 0, 1);
            if (hits[o].tet_body == other || !surface_crossing(B, A->x[p], A->x[o], &x, &nn)) continue;
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
    if (n <= 0) return;
    bool* layer = malloc((size_t)n * sizeof(bool));
    depth* next = malloc((size_t)n * sizeof(depth));
    for (bool grew = layer && next; grew;) { // propagation, one layer at a time (only earlier layers count)
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
    free(layer);
    free(next);
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

static void respond(tc_world* w, tc_tet_body* A, tc_tet_body* B, const hit* hits, const depth* d, tc_real h, bool record) {
    tc_real omega = 2 * TC_PI * w->def.penalty_hertz, zeta = w->def.penalty_damping_ratio;
    tc_real mu = sqrt(A->material.friction * B->material.friction);
    for (int p = 0; p < A->n; ++p) {
        if (!d[p].known) continue;
        const int* q = B->tets + 4 * hits[p].tet;
        tc_vec3 vb = tc_v3_zero();
        tc_real mb = 0;
        for (int k = 0; k < 4; ++k) vb = tc_v3_madd(vb, hits[p].bary[k], B->v[q[k]]), mb += hits[p].bary[k] * B->m[q[k]];
        tc_real m = A->m[p] * mb / (A->m[p] + mb);
        tc_vec3 vrel = tc_v3_sub(A->v[p], vb);
        tc_real vn = tc_v3_dot(vrel, d[p].r);
        tc_real damping = fmin(2 * zeta * m * omega, m / h); // an explicit damper above m/h would overshoot
        tc_real fn = fmax(0, m * omega * omega * d[p].d - damping * vn);
        tc_vec3 vt = tc_v3_madd(vrel, -vn, d[p].r);
        tc_real vtl = tc_v3_len(vt), ft = vtl > 1e-12 ? fmin(mu * fn, m * vtl / h) : 0;
        tc_vec3 f = tc_v3_add(tc_v3_scale(d[p].r, fn), vtl > 1e-12 ? tc_v3_scale(vt, -ft / vtl) : tc_v3_zero());
        A->f[p] = tc_v3_add(A->f[p], f);
        for (int k = 0; k < 4; ++k) B->f[q[k]] = tc_v3_madd(B->f[q[k]], -hits[p].bary[k], f);
        if (!record) continue;
        tc_contact c = {tc_world_slot_id(w, B->slot), tc_world_slot_id(w, A->slot), hits[p].tet, p, A->x[p], d[p].r, -d[p].d, fn, f, 0};
        tc_world_add_contact(w, &c);
    }
}

void tc_tet_collide(tc_world* w, tc_real h) {
    tc_tet_store* s = tc_tet_store_of(w);
    int nb = s->bodies.count, total = 0;
    if (nb < 2) return;
    tc_real edge = 0;
    for (int i = 0; i < nb; ++i) total += s->bodies.data[i].n, edge += s->bodies.data[i].mean_edge / nb;
    spatial_hash hash = {0};
    hash.size = next_prime(2 * total + 1);
    hash.cell = edge > 0 ? edge : 0.1;
    hash.head = tc_alloc((size_t)hash.size * sizeof(int));
    hash.stamp = tc_calloc((size_t)hash.size, sizeof(uint32_t));
    hit** hits = tc_calloc((size_t)nb, sizeof(hit*));
    depth* d = tc_alloc((size_t)total * sizeof(depth));
    bool ok = hash.head && hash.stamp && hits && d;
    for (int i = 0; i < nb && ok; ++i) {
        hits[i] = tc_alloc((size_t)s->bodies.data[i].n * sizeof(hit));
        ok = hits[i] != NULL;
        for (int k = 0; ok && k < s->bodies.data[i].n; ++k) hits[i][k].tet_body = -1;
    }
    bool record = (w->substep_index % w->def.sub_steps) == w->def.sub_steps - 1;
    if (ok) {
        detect(s, &hash, hits);
        for (int a = 0; a < nb; ++a)
            for (int b = 0; b < nb; ++b) {
                if (a == b) continue;
                tc_tet_body *A = &s->bodies.data[a], *B = &s->bodies.data[b];
                if (A->depth_method == TC_TET_CLOSEST) closest_depths(A, B, b, hits[a], d);
                else consistent_depths(A, B, b, hits[a], d);
                respond(w, A, B, hits[a], d, h, record);
            }
    }
    for (int i = 0; i < nb && hits; ++i) tc_free(hits[i], (size_t)s->bodies.data[i].n * sizeof(hit));
    tc_free(hits, (size_t)nb * sizeof(hit*));
    tc_free(d, (size_t)total * sizeof(depth));
    tc_free(hash.head, (size_t)hash.size * sizeof(int));
    tc_free(hash.stamp, (size_t)hash.size * sizeof(uint32_t));
    tc_array_free(&hash.entries);
}
