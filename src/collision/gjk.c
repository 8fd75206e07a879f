#include "collision/gjk.h"

#include "collision/mpr.h"
#include "collision/support.h"
#include "geometry/hull.h"

#include <float.h>
#include <string.h>

static int scan_support(const tc_convex* c, tc_vec3 d) {
    if (c->soa) return tc_soa_support(c->soa, c->soa_stride, d);
    int best = 0;
    tc_real best_dot = tc_v3_dot(c->points[0], d);
    for (int i = 1; i < c->count; ++i) {
        tc_real x = tc_v3_dot(c->points[i], d);
        if (x > best_dot) {
            best_dot = x;
            best = i;
        }
    }
    return best;
}

// Steepest ascent over the hull's edges: on a convex polytope a vertex no neighbour of which
// is further along d is the support. Each move strictly increases the height, so no vertex is
// visited twice.
static int climb_support(const tc_convex* c, tc_vec3 d, int v) {
    const tc_hull* h = c->hull;
    tc_real best = tc_v3_dot(tc_convex_point(c, v), d);
    for (int moves = 0; moves < c->count; ++moves) {
        int next = v;
        for (int k = h->vert_start[v]; k < h->vert_start[v + 1]; ++k) {
            int e = h->vert_edges[k];
            int w = h->edge_verts[2 * e] ^ h->edge_verts[2 * e + 1] ^ v;
            tc_real x = tc_v3_dot(tc_convex_point(c, w), d);
            if (x > best) best = x, next = w;
        }
        if (next == v) break;
        v = next;
    }
    return v;
}

int tc_convex_support_index(const tc_convex* c, tc_vec3 d, int* hint) {
    // a scan of a few points is cheaper than the walk's dependent loads and branches
    bool climb = c->count > TC_CLIMB_MIN_POINTS && c->hull && c->hull->vertex_count == c->count && hint && *hint >= 0 && *hint < c->count;
    int i = climb ? climb_support(c, d, *hint) : scan_support(c, d);
    if (hint) *hint = i;
    return i;
}

static tc_vec3 support_hinted(const tc_convex* c, tc_vec3 d, bool with_radius, int* hint) {
    tc_vec3 p = tc_convex_point(c, tc_convex_support_index(c, d, hint));
    if (with_radius && c->radius > 0) {
        tc_real l = tc_v3_len(d);
        if (l > 0) p = tc_v3_madd(p, c->radius / l, d);
    }
    return p;
}

tc_vec3 tc_convex_support(const tc_convex* c, tc_vec3 d, bool with_radius) { return support_hinted(c, d, with_radius, NULL); }

// ---- simplex: vertices w = a - b with their sources; nearest point to the origin -----------------

typedef struct simplex {
    tc_vec3 w[4], a[4], b[4];
    tc_real lambda[4];
    int n;
} simplex;

// Closest point of triangle (a, b, c) to the origin as barycentric weights (Ericson 5.1.5).
static void closest_triangle(tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_real bary[3]) {
    tc_vec3 ab = tc_v3_sub(b, a), ac = tc_v3_sub(c, a), ap = tc_v3_neg(a);
    tc_real d1 = tc_v3_dot(ab, ap), d2 = tc_v3_dot(ac, ap);
    bary[0] = 1, bary[1] = 0, bary[2] = 0;
    if (d1 <= 0 && d2 <= 0) return;
    tc_vec3 bp = tc_v3_neg(b);
    tc_real d3 = tc_v3_dot(ab, bp), d4 = tc_v3_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) { bary[0] = 0, bary[1] = 1; return; }
    tc_real vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        tc_real t = d1 / (d1 - d3);
        bary[0] = 1 - t, bary[1] = t;
        return;
    }
    tc_vec3 cp = tc_v3_neg(c);
    tc_real d5 = tc_v3_dot(ab, cp), d6 = tc_v3_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) { bary[0] = 0, bary[2] = 1; return; }
    tc_real vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        tc_real t = d2 / (d2 - d6);
        bary[0] = 1 - t, bary[2] = t;
        return;
    }
    tc_real va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        tc_real t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        bary[0] = 0, bary[1] = 1 - t, bary[2] = t;
        return;
    }
    tc_real denom = va + vb + vc;
    if (!(fabs(denom) > 0)) return; // degenerate triangle: keep vertex a
    bary[0] = va / denom, bary[1] = vb / denom, bary[2] = vc / denom;
}

static tc_vec3 combine(const tc_vec3* p, const tc_real* l, int n) {
    tc_vec3 s = tc_v3_zero();
    for (int i = 0; i < n; ++i) s = tc_v3_madd(s, l[i], p[i]);
    return s;
}

// Keeps the vertices with positive weight, in order.
static void compact(simplex* s) {
    int k = 0;
    for (int i = 0; i < s->n; ++i)
        if (s->lambda[i] > 0) {
            s->w[k] = s->w[i], s->a[k] = s->a[i], s->b[k] = s->b[i], s->lambda[k] = s->lambda[i];
            k++;
        }
    if (k == 0) { // all weights vanished numerically: keep the nearest vertex
        int best = 0;
        for (int i = 1; i < s->n; ++i)
            if (tc_v3_len2(s->w[i]) < tc_v3_len2(s->w[best])) best = i;
        s->w[0] = s->w[best], s->a[0] = s->a[best], s->b[0] = s->b[best], s->lambda[0] = 1;
        k = 1;
    }
    s->n = k;
}

static void solve_segment(simplex* s) {
    tc_vec3 d = tc_v3_sub(s->w[1], s->w[0]);
    tc_real dd = tc_v3_len2(d), t = dd > 0 ? -tc_v3_dot(s->w[0], d) / dd : 0;
    t = fmin(1, fmax(0, t));
    s->lambda[0] = 1 - t;
    s->lambda[1] = t;
}

static void solve_triangle(simplex* s) { closest_triangle(s->w[0], s->w[1], s->w[2], s->lambda); }

// Origin inside the tetrahedron: weights are signed volumes. Else the nearest of the faces that
// see the origin (all faces when the tetrahedron is flat).
static bool solve_tetrahedron(simplex* s) {
    static const int faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    tc_vec3* w = s->w;
    tc_real vol = tc_v3_dot(tc_v3_sub(w[1], w[0]), tc_v3_cross(tc_v3_sub(w[2], w[0]), tc_v3_sub(w[3], w[0])));
    tc_real scale = tc_v3_len2(tc_v3_sub(w[1], w[0])) + tc_v3_len2(tc_v3_sub(w[2], w[0])) + tc_v3_len2(tc_v3_sub(w[3], w[0]));
    bool flat = fabs(vol) <= 1e-14 * scale * sqrt(scale);
    tc_real best = DBL_MAX, best_l[4] = {1, 0, 0, 0};
    bool inside = !flat;
    for (int f = 0; f < 4 && !flat; ++f) { // C_f: the volume with vertex f replaced by the origin
        tc_vec3 p[4] = {w[0], w[1], w[2], w[3]};
        p[f] = tc_v3_zero();
        tc_real c = tc_v3_dot(tc_v3_sub(p[1], p[0]), tc_v3_cross(tc_v3_sub(p[2], p[0]), tc_v3_sub(p[3], p[0])));
        s->lambda[f] = c / vol;
        if (s->lambda[f] < 0) inside = false;
    }
    if (inside) return true;
    for (int f = 0; f < 4; ++f) {
        if (!flat && s->lambda[f] >= 0) continue; // the face opposite f does not see the origin
        const int* ix = faces[f];
        tc_real l3[3];
        closest_triangle(w[ix[0]], w[ix[1]], w[ix[2]], l3);
        tc_vec3 v = tc_v3_add(tc_v3_add(tc_v3_scale(w[ix[0]], l3[0]), tc_v3_scale(w[ix[1]], l3[1])), tc_v3_scale(w[ix[2]], l3[2]));
        tc_real d = tc_v3_len2(v);
        if (d < best) {
            best = d;
            memset(best_l, 0, sizeof best_l);
            for (int k = 0; k < 3; ++k) best_l[ix[k]] = l3[k];
        }
    }
    memcpy(s->lambda, best_l, sizeof best_l);
    return false;
}

// Reduces s to the sub-simplex nearest the origin; returns true when the origin is inside.
static bool solve_simplex(simplex* s, tc_vec3* v) {
    bool inside = false;
    if (s->n == 1) s->lambda[0] = 1;
    else if (s->n == 2) solve_segment(s);
    else if (s->n == 3) solve_triangle(s);
    else inside = solve_tetrahedron(s);
    if (!inside) compact(s);
    *v = combine(s->w, s->lambda, s->n);
    return inside;
}

static bool already_in(const simplex* s, tc_vec3 w, tc_real eps2) {
    for (int i = 0; i < s->n; ++i)
        if (tc_v3_len2(tc_v3_sub(s->w[i], w)) <= eps2) return true;
    return false;
}

tc_gjk_result tc_gjk_distance(const tc_convex* A, const tc_convex* B) {
    tc_gjk_result r = {0};
    simplex s = {0};
    tc_vec3 v = tc_v3_sub(tc_convex_point(A, 0), tc_convex_point(B, 0));
    tc_real scale = tc_v3_len2(tc_v3_sub(A->center, B->center)) + 1e-30;
    for (int i = 0; i < A->count; ++i) scale = fmax(scale, tc_v3_len2(tc_v3_sub(tc_convex_point(A, i), A->center)));
    tc_real prev = DBL_MAX;
    int ha = 0, hb = 0;
    r.status = TC_GJK_NOT_CONVERGED;
    for (r.iterations = 0; r.iterations < 64; ++r.iterations) {
        tc_vec3 a = support_hinted(A, tc_v3_neg(v), false, &ha), b = support_hinted(B, v, false, &hb);
        tc_vec3 w = tc_v3_sub(a, b);
        tc_real vv = tc_v3_len2(v);
        if (vv - tc_v3_dot(v, w) <= 1e-12 * vv || already_in(&s, w, 1e-20 * scale)) {
            if (s.n == 0) s.w[0] = w, s.a[0] = a, s.b[0] = b, s.lambda[0] = 1, s.n = 1; // converged at once
            r.status = TC_GJK_SEPARATED;
            break;
        }
        s.w[s.n] = w, s.a[s.n] = a, s.b[s.n] = b, s.n++;
        tc_vec3 nv;
        bool inside = solve_simplex(&s, &nv);
        if (inside || tc_v3_len2(nv) <= 1e-20 * scale) {
            r.status = TC_GJK_OVERLAP;
            break;
        }
        if (tc_v3_len2(nv) >= prev * (1 - 1e-12) && tc_v3_len2(nv) >= vv) { // stall: keep the previous answer
            r.status = TC_GJK_SEPARATED;
            break;
        }
        prev = tc_v3_len2(nv);
        v = nv;
    }
    if (r.status == TC_GJK_NOT_CONVERGED) r.status = TC_GJK_SEPARATED; // best estimate so far
    if (r.status == TC_GJK_OVERLAP) {
        r.cores_overlap = true;
        r.distance = -(A->radius + B->radius);
        return r;
    }
    tc_vec3 pa = combine(s.a, s.lambda, s.n), pb = combine(s.b, s.lambda, s.n);
    tc_real core = tc_v3_dist(pa, pb);
    r.normal = core > 0 ? tc_v3_scale(tc_v3_sub(pb, pa), 1.0 / core) : tc_v3(0, 0, 1);
    r.distance = core - A->radius - B->radius;
    r.point_a = tc_v3_madd(pa, A->radius, r.normal);
    r.point_b = tc_v3_madd(pb, -B->radius, r.normal);
    return r;
}

typedef enum ray_status { RAY_MISS, RAY_HIT, RAY_APART } ray_status;

typedef struct ray_hit {
    tc_real lambda;
    tc_vec3 normal;   ///< unit; RAY_APART: the separating direction
    tc_real bound;    ///< RAY_APART: h_D(normal) < -max_separation
    tc_vec3 a_star, b_star;
    tc_vec3 last_a, last_b; ///< RAY_HIT: the supports taken along `normal` (at the last advance)
    int index_a, index_b;   ///< their vertex indices
} ray_hit;

// GJK ray cast (ALGORITHMS §1.3, van den Bergen) with supports warm-started from `ha`, `hb`:
// x advances to the plane of each support that lies in front of it, the simplex of x - p_i is
// reduced to its part nearest x, and the cast ends when x is on D (|v| -> 0). A support already
// in the simplex is not added again, but after an advance x has moved: the simplex is solved again
// (stopping there would leave x on a supporting plane of D, not on D). Every support
// p = s_D(v) also bounds the distance of the origin to D from below by -v.p/|v|, so the cast
// stops (RAY_APART) once that exceeds max_separation. `first` (may be NULL): the supports along the
// first direction x - (cA - cB).
static ray_status ray_cast(const tc_convex* A, const tc_convex* B, tc_vec3 q, tc_vec3 ray, tc_real max_separation, int* ha, int* hb,
                           const tc_vec3 first[2], ray_hit* out) {
    // s.w[i] holds x - p_i for the current x; p_i = a_i - b_i is recovered when x advances
    simplex s = {0};
    tc_real lambda = 0, exit2 = max_separation > 0 ? max_separation * max_separation : 0;
    tc_vec3 x = q, n = tc_v3_zero();
    tc_vec3 v = tc_v3_sub(x, tc_v3_sub(A->center, B->center));
    tc_real scale = tc_v3_len2(v) + 1e-30, eps2 = 1e-12 * scale; // |v| down to 1e-6 of the start distance
    for (int it = 0; it < 64 && tc_v3_len2(v) > eps2; ++it) {
        tc_vec3 a, b;
        if (it == 0 && first) a = first[0], b = first[1]; // the caller's supports along the first v
        else a = support_hinted(A, v, true, ha), b = support_hinted(B, tc_v3_neg(v), true, hb);
        tc_vec3 p = tc_v3_sub(a, b), w = tc_v3_sub(x, p);
        tc_real vp = tc_v3_dot(v, p), vv = tc_v3_len2(v);
        if (vp < 0 && vp * vp > exit2 * vv) {
            tc_real vl = sqrt(vv);
            out->normal = tc_v3_scale(v, 1.0 / vl);
            out->bound = vp / vl;
            return RAY_APART;
        }
        tc_real vw = tc_v3_dot(v, w);
        bool advanced = vw > 0;
        if (advanced) {
            tc_real vr = tc_v3_dot(v, ray);
            if (vr >= 0) return RAY_MISS;
            tc_real step = -vw / vr;
            lambda += step;
            x = tc_v3_madd(q, lambda, ray);
            n = v;
            out->last_a = a, out->last_b = b, out->index_a = *ha, out->index_b = *hb;
            for (int i = 0; i < s.n; ++i) s.w[i] = tc_v3_madd(s.w[i], step, ray); // x moved: x - p_i too
            w = tc_v3_sub(x, p);
        }
        bool known = already_in(&s, w, 1e-24 * scale);
        if (known && !advanced) break; // no progress possible: converged within round-off
        if (!known) s.w[s.n] = w, s.a[s.n] = a, s.b[s.n] = b, s.n++;
        if (solve_simplex(&s, &v)) break; // x on the surface within round-off
    }
    tc_real nl = tc_v3_len(n);
    if (!(nl > 0)) return RAY_MISS; // started inside
    out->lambda = lambda;
    out->normal = tc_v3_scale(n, 1.0 / nl);
    out->a_star = combine(s.a, s.lambda, s.n);
    out->b_star = combine(s.b, s.lambda, s.n);
    return RAY_HIT;
}

bool tc_gjk_ray_cast(const tc_convex* A, const tc_convex* B, tc_vec3 q, tc_vec3 ray, tc_real* lambda_out, tc_vec3* normal,
                     tc_vec3* a_star, tc_vec3* b_star) {
    int ha = 0, hb = 0;
    ray_hit hit;
    if (ray_cast(A, B, q, ray, INFINITY, &ha, &hb, NULL, &hit) != RAY_HIT) return false;
    *lambda_out = hit.lambda;
    *normal = hit.normal;
    if (a_star) *a_star = hit.a_star;
    if (b_star) *b_star = hit.b_star;
    return true;
}

// Largest distance of a point from the center: one root of the largest square (the root is
// monotonic and correctly rounded, so this equals the largest of the roots).
static tc_real extent_of(const tc_convex* c) {
    tc_real l2 = 0;
    for (int i = 0; i < c->count; ++i) {
        tc_real x = tc_v3_len2(tc_v3_sub(tc_convex_point(c, i), c->center));
        l2 = x > l2 ? x : l2;
    }
    return sqrt(l2);
}

// The warm start: does the last axis n (unit, A to B) still prove the sets apart?
static bool apart_along(const tc_convex* A, const tc_convex* B, tc_vec3 n, tc_real max_separation, int* ha, int* hb,
                        tc_growth_query* out) {
    tc_vec3 sa = support_hinted(A, n, true, ha), sb = support_hinted(B, tc_v3_neg(n), true, hb);
    tc_real h = tc_v3_dot(n, tc_v3_sub(sa, sb)); // h_D(n) = -(gap along n)
    if (!(h < -max_separation)) return false;
    out->apart = true;
    out->result.ok = true;
    out->result.normal = n;
    out->result.depth = h;
    return true;
}

// Polytopes: the exit face by portal refinement (mpr.c), when it decides the query.
// `contact`: a contact query, which stops on NEAR too (the plain growth distance computes alpha > 1).
static bool from_portal(const tc_convex* A, const tc_convex* B, tc_real max_separation, int* ha, int* hb, const int* warm_portal,
                        bool contact, tc_growth_query* out) {
    tc_mpr_result r = tc_mpr_growth(A, B, max_separation, ha, hb, warm_portal);
    tc_growth_result* g = &out->result;
    if (r.status == TC_MPR_UNDECIDED || (r.status == TC_MPR_NEAR && !contact)) return false;
    g->normal = r.normal;
    g->depth = r.depth;
    if (r.status == TC_MPR_NEAR) {
        out->near = true;
        return true;
    }
    g->ok = true;
    if (r.status == TC_MPR_APART) {
        out->apart = true;
        return true;
    }
    g->alpha = 1.0 / (1.0 - r.t_exit);
    g->point = tc_v3_add(A->center, tc_v3_scale(tc_v3_sub(r.a_star, A->center), g->alpha));
    out->support_a = r.support_a;
    out->support_b = r.support_b;
    out->has_portal = true;
    memcpy(out->portal, r.portal, sizeof out->portal);
    return true;
}

static tc_growth_query growth_query(const tc_convex* A, const tc_convex* B, tc_vec3 fallback_dir, tc_real max_separation,
                                    const tc_vec3* warm_axis, const int* warm_portal, bool contact) {
    tc_growth_query out; // zeroed field by field: a memset of it compiles to a slow `rep stos`
    out.result.ok = false, out.result.alpha = out.result.depth = 0;
    out.result.normal = out.result.point = tc_v3_zero();
    out.apart = out.near = out.has_portal = false;
    out.support_a = out.support_b = 0;
    for (int k = 0; k < 6; ++k) out.portal[k] = 0;
    tc_growth_result* g = &out.result;
    int ha = 0, hb = 0;
    tc_real warm_len = warm_axis ? tc_v3_len(*warm_axis) : 0;
    if (warm_len > 0 && isfinite(warm_len) && apart_along(A, B, tc_v3_scale(*warm_axis, 1.0 / warm_len), max_separation, &ha, &hb, &out))
        return out;
    tc_vec3 c = tc_v3_sub(A->center, B->center);
    tc_real len = tc_v3_len(c);
    bool polytopes = A->radius == 0 && B->radius == 0 && A->count >= 4 && B->count >= 4;
    // the portal needs centres clearly apart; the hull's own extent is scale enough for that test
    tc_real size = A->hull && A->hull->vertex_count == A->count ? A->hull->extent : extent_of(A);
    if (polytopes && len > 1e-6 * size && from_portal(A, B, max_separation, &ha, &hb, warm_portal, contact, &out)) return out;
    tc_real L = fmax(1e-9, extent_of(A)); // size scale for the tolerances
    L += A->radius + B->radius;
    bool coincident = len < 1e-9 * L;
    if (coincident) { // coincident centers: grow along the fallback direction
        tc_real fl = tc_v3_len(fallback_dir);
        c = fl > 0 ? tc_v3_scale(fallback_dir, -1e-6 * L / fl) : tc_v3(0, 0, -1e-6 * L);
        len = tc_v3_len(c);
    }
    tc_vec3 chat = tc_v3_scale(c, 1.0 / len);
    // support of D = A - B in -chat: sigma = h_D(-chat)
    tc_vec3 first[2] = {support_hinted(A, tc_v3_neg(chat), true, &ha), support_hinted(B, chat, true, &hb)};
    tc_vec3 sd = tc_v3_sub(first[0], first[1]);
    tc_real sigma = -tc_v3_dot(chat, sd);
    if (sigma < -max_separation) { // the centres' axis already separates them
        out.apart = true;
        g->ok = true;
        g->normal = tc_v3_neg(chat);
        g->depth = sigma;
        return out;
    }
    tc_real ts = -(sigma + 0.01 * L) / len;
    tc_vec3 q = tc_v3_scale(c, ts);
    ray_hit hit;
    // the cast's first direction q - c = (ts - 1) c, ts < 0, points along -chat: the supports just
    // found are its first ones (not when the centres coincide: c is then the fallback, not their offset)
    bool reuse = ts < 0 && !coincident;
    ray_status st = ray_cast(A, B, q, c, max_separation, &ha, &hb, reuse ? first : NULL, &hit);
    if (st == RAY_MISS) return out;
    g->ok = true;
    g->normal = hit.normal;
    if (st == RAY_APART) {
        out.apart = true;
        g->depth = hit.bound;
        return out;
    }
    tc_real tmin = ts + hit.lambda;
    g->alpha = 1.0 / (1.0 - tmin);
    tc_vec3 n = hit.normal;
    tc_vec3 sa, sb;
    if (A->radius == 0 && B->radius == 0) sa = hit.last_a, sb = hit.last_b, ha = hit.index_a, hb = hit.index_b; // already known
    else sa = support_hinted(A, n, true, &ha), sb = support_hinted(B, tc_v3_neg(n), true, &hb);
    g->depth = tc_v3_dot(n, tc_v3_sub(sa, sb));
    g->point = tc_v3_add(A->center, tc_v3_scale(tc_v3_sub(hit.a_star, A->center), g->alpha));
    out.support_a = ha;
    out.support_b = hb;
    return out;
}

tc_growth_query tc_growth_distance_within(const tc_convex* A, const tc_convex* B, tc_vec3 fallback_dir, tc_real max_separation) {
    return growth_query(A, B, fallback_dir, max_separation, NULL, NULL, true);
}

tc_growth_query tc_growth_distance_warm(const tc_convex* A, const tc_convex* B, tc_vec3 fallback_dir, tc_real max_separation,
                                        tc_vec3 axis, const int* portal) {
    return growth_query(A, B, fallback_dir, max_separation, &axis, portal, true);
}

tc_growth_result tc_growth_distance(const tc_convex* A, const tc_convex* B, tc_vec3 fallback_dir) {
    return growth_query(A, B, fallback_dir, INFINITY, NULL, NULL, false).result;
}
