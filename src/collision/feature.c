#include "collision/feature.h"

#include <string.h>

// ---- feature selection on the Gauss map ---------------------------------------------------------

// The hull's vertices already placed at `pose`, copied rather than recomputed: packed (`soa`,
// stride h->soa_stride) or as points (`aos`); either may be NULL.
typedef struct placed_points {
    const tc_real* soa;
    const tc_vec3* aos;
} placed_points;

static tc_vec3 placed_vertex(const tc_hull* h, tc_transform pose, placed_points world, int i) {
    int s = h->soa_stride;
    if (world.soa) return tc_v3(world.soa[i], world.soa[s + i], world.soa[2 * s + i]);
    return world.aos ? world.aos[i] : tc_transform_point(pose, h->vertices[i]);
}

// Body-space vertex i from the packed copy (the cache lines the support scans already loaded).
static tc_vec3 body_vertex(const tc_hull* h, int i) {
    int s = h->soa_stride;
    return tc_v3(h->soa[i], h->soa[s + i], h->soa[2 * s + i]);
}

static void emit_face(const tc_hull* h, tc_transform pose, placed_points world, int f, tc_feature* out) {
    bool compact = h->loops != NULL;
    int s = compact ? h->loop_start[f] : h->face_start[f], n = (compact ? h->loop_start[f + 1] : h->face_start[f + 1]) - s;
    out->count = n;
    for (int i = 0; i < n; ++i) {
        out->ids[i] = compact ? h->loops[s + i] : h->face_verts[s + i];
        out->points[i] = placed_vertex(h, pose, world, out->ids[i]);
    }
    out->plane_normal = tc_quat_rotate(pose.q, h->face_normals[f]);
    out->plane_offset = h->face_offsets[f] + tc_v3_dot(out->plane_normal, pose.p);
}

static void emit_vertices(const tc_hull* h, tc_transform pose, placed_points world, const int* ids, int n, tc_feature* out) {
    out->count = n;
    for (int i = 0; i < n; ++i) {
        out->ids[i] = ids[i];
        out->points[i] = placed_vertex(h, pose, world, ids[i]);
    }
}

// The other end of edge e from vertex v.
static int edge_end(const tc_hull* h, int e, int v) { return h->edge_verts[2 * e] == v ? h->edge_verts[2 * e + 1] : h->edge_verts[2 * e]; }

// The tolerance is nearly always the same: remember its sine and cosine.
static tc_real cos_of(tc_real a) {
    static _Thread_local tc_real last = -1, value = 1;
    if (a != last) last = a, value = cos(a);
    return value;
}

static tc_real sin_of(tc_real a) {
    static _Thread_local tc_real last = -1, value = 0;
    if (a != last) last = a, value = sin(a);
    return value;
}

void tc_hull_feature(const tc_hull* h, tc_transform pose, tc_vec3 u, tc_real tolerance, tc_feature* out) {
    tc_vec3 ul = tc_v3_normalize(tc_quat_inv_rotate(pose.q, u));
    tc_hull_feature_at(h, pose, u, tc_hull_support_index(h, ul), tolerance, out);
}

void tc_hull_feature_at(const tc_hull* h, tc_transform pose, tc_vec3 u, int v, tc_real tolerance, tc_feature* out) {
    tc_hull_feature_placed(h, pose, NULL, NULL, u, v, tolerance, out);
}

void tc_hull_feature_placed(const tc_hull* h, tc_transform pose, const tc_vec3* world, const tc_real* world_soa, tc_vec3 u, int v,
                            tc_real tolerance, tc_feature* out) {
    placed_points placed = {world_soa, world};
    out->count = 0; // the emitters fill the rest
    out->plane_normal = tc_v3_zero();
    out->plane_offset = 0;
    tc_vec3 ul = tc_v3_normalize(tc_quat_inv_rotate(pose.q, u));
    const tc_hull_fan* fan = h->fans; // v's faces and edge neighbours in one cache line (NULL: large hulls)
    int begin = fan ? h->fan_start[v] : h->vert_start[v], end = fan ? h->fan_start[v + 1] : h->vert_start[v + 1], best_face = -1;
    tc_real best_cos = -2;
    for (int k = begin; k < end; ++k) {
        int f = fan ? fan[k].face : h->vert_faces[k];
        tc_real c = tc_v3_dot(h->face_normals[f], ul);
        if (c > best_cos) best_cos = c, best_face = f;
    }
    bool face_fits = best_face >= 0 && (fan ? h->loop_start[best_face + 1] - h->loop_start[best_face]
                                            : h->face_start[best_face + 1] - h->face_start[best_face]) <= TC_FEATURE_MAX;
    if (best_cos >= cos_of(tolerance) && face_fits) {
        emit_face(h, pose, placed, best_face, out);
        return;
    }
    int best_edge_end = -1;
    tc_real best_drop = sin_of(tolerance);
    tc_vec3 pv = body_vertex(h, v);
    for (int k = begin; k < end; ++k) {
        int w = fan ? fan[k].neighbor : edge_end(h, h->vert_edges[k], v);
        tc_vec3 d = tc_v3_sub(pv, body_vertex(h, w));
        tc_real dot = tc_v3_dot(d, ul);
        // most edges fall steeply: rule them out without the root and the division (the margin
        // keeps every edge the exact test below could accept)
        if (dot > 0 && best_drop >= 0 && dot * dot > best_drop * best_drop * tc_v3_len2(d) * (1 + 1e-9)) continue;
        tc_real drop = dot / tc_v3_len(d); // sine of the edge's tilt out of the contact plane
        if (drop <= best_drop) best_drop = drop, best_edge_end = w;
    }
    // an edge in index order: its keys must not depend on which end the support query returned
    // (both are supports when the edge lies in the contact plane)
    int ids[2] = {v, best_edge_end};
    if (best_edge_end >= 0 && best_edge_end < v) ids[0] = best_edge_end, ids[1] = v;
    emit_vertices(h, pose, placed, ids, best_edge_end >= 0 ? 2 : 1, out);
}

// ---- intersection in the contact plane ----------------------------------------------------------

typedef struct plane_frame {
    tc_vec3 o, t1, t2, n;
} plane_frame;

typedef struct pt2 {
    tc_real u, w;
    uint32_t tag;
} pt2;

static pt2 project(const plane_frame* f, tc_vec3 x, uint32_t tag) {
    tc_vec3 d = tc_v3_sub(x, f->o);
    pt2 p = {tc_v3_dot(d, f->t1), tc_v3_dot(d, f->t2), tag};
    return p;
}

static tc_real cross2(pt2 a, pt2 b, pt2 p) { return (b.u - a.u) * (p.w - a.w) - (b.w - a.w) * (p.u - a.u); }

static uint32_t mix(uint32_t h, uint32_t x) {
    h ^= x + 0x9e3779b9u + (h << 6) + (h >> 2);
    return h;
}

// Height (along n, from the frame origin) of the feature's surface above the plane point (u, w).
static tc_real height(const tc_feature* f, const plane_frame* P, pt2 q) {
    if (f->count >= 3) {
        tc_real nn = tc_v3_dot(f->plane_normal, P->n);
        if (fabs(nn) > 1e-6)
            return (f->plane_offset - tc_v3_dot(f->plane_normal, P->o) - q.u * tc_v3_dot(f->plane_normal, P->t1) -
                    q.w * tc_v3_dot(f->plane_normal, P->t2)) / nn;
    }
    if (f->count == 2) {
        pt2 a = project(P, f->points[0], 0), b = project(P, f->points[1], 0);
        tc_real du = b.u - a.u, dw = b.w - a.w, l2 = du * du + dw * dw;
        tc_real s = l2 > 0 ? ((q.u - a.u) * du + (q.w - a.w) * dw) / l2 : 0;
        s = fmin(1, fmax(0, s));
        tc_real za = tc_v3_dot(tc_v3_sub(f->points[0], P->o), P->n), zb = tc_v3_dot(tc_v3_sub(f->points[1], P->o), P->n);
        return za + s * (zb - za);
    }
    tc_real z = -1e300; // a vertex, or a face seen edge-on: its highest point
    for (int i = 0; i < f->count; ++i) z = fmax(z, tc_v3_dot(tc_v3_sub(f->points[i], P->o), P->n));
    return z;
}

// Sutherland-Hodgman: clip `subject` by the CCW polygon `clip` (keeps the left of every edge).
static int clip_polygon(const pt2* subject, int ns, const pt2* clip, int nc, tc_real eps, pt2* out, int cap) {
    pt2 buf_a[2 * TC_FEATURE_MAX + 8], buf_b[2 * TC_FEATURE_MAX + 8];
    int n = ns < 2 * TC_FEATURE_MAX ? ns : 2 * TC_FEATURE_MAX;
    memcpy(buf_a, subject, (size_t)n * sizeof(pt2));
    pt2 *in = buf_a, *res = buf_b;
    for (int k = 0; k < nc && n > 0; ++k) {
        pt2 c0 = clip[k], c1 = clip[(k + 1) % nc];
        int m = 0;
        for (int i = 0; i < n && m < 2 * TC_FEATURE_MAX + 6; ++i) {
            pt2 S = in[(i + n - 1) % n], E = in[i];
            tc_real ds = cross2(c0, c1, S), de = cross2(c0, c1, E);
            bool s_in = ds >= -eps, e_in = de >= -eps;
            if (e_in != s_in && fabs(ds - de) > 0) {
                tc_real t = ds / (ds - de);
                pt2 x = {S.u + t * (E.u - S.u), S.w + t * (E.w - S.w), mix(mix(mix(0x51u, (uint32_t)k), S.tag), E.tag)};
                res[m++] = x;
            }
            if (e_in) res[m++] = E;
        }
        pt2* t = in;
        in = res;
        res = t;
        n = m;
    }
    int k = 0; // drop near-duplicates (a clipped segment comes back twice)
    for (int i = 0; i < n && k < cap; ++i) {
        bool dup = false;
        for (int j = 0; j < k && !dup; ++j) dup = fabs(out[j].u - in[i].u) <= eps && fabs(out[j].w - in[i].w) <= eps;
        if (!dup) out[k++] = in[i];
    }
    return k;
}

static int edge_edge(pt2 a0, pt2 a1, pt2 b0, pt2 b1, tc_real eps, pt2* out) {
    tc_real du = a1.u - a0.u, dw = a1.w - a0.w, eu = b1.u - b0.u, ew = b1.w - b0.w;
    tc_real den = du * ew - dw * eu, la = sqrt(du * du + dw * dw), lb = sqrt(eu * eu + ew * ew);
    if (fabs(den) > 1e-9 * la * lb) { // crossing lines: one point if both parameters are in range
        tc_real s = ((b0.u - a0.u) * ew - (b0.w - a0.w) * eu) / den;
        tc_real t = ((b0.u - a0.u) * dw - (b0.w - a0.w) * du) / den;
        tc_real es = eps / la, et = eps / lb;
        if (s < -es || s > 1 + es || t < -et || t > 1 + et) return 0;
        pt2 x = {a0.u + s * du, a0.w + s * dw, mix(mix(0xEEu, a0.tag), b0.tag)};
        out[0] = x;
        return 1;
    }
    if (fabs(cross2(a0, a1, b0)) > eps * la) return 0; // parallel, apart
    // collinear: the overlap of the two intervals on a's line
    tc_real s0 = ((b0.u - a0.u) * du + (b0.w - a0.w) * dw) / (la * la), s1 = ((b1.u - a0.u) * du + (b1.w - a0.w) * dw) / (la * la);
    tc_real lo = fmax(0, fmin(s0, s1)), hi = fmin(1, fmax(s0, s1));
    if (lo > hi + eps / la) return 0;
    pt2 p = {a0.u + lo * du, a0.w + lo * dw, mix(0xE0u, a0.tag)}, q = {a0.u + hi * du, a0.w + hi * dw, mix(0xE1u, a1.tag)};
    out[0] = p;
    out[1] = q;
    return (hi - lo) * la > eps ? 2 : 1;
}

static bool near_segment(pt2 p, pt2 a, pt2 b, tc_real eps) {
    tc_real du = b.u - a.u, dw = b.w - a.w, l2 = du * du + dw * dw;
    tc_real s = l2 > 0 ? fmin(1, fmax(0, ((p.u - a.u) * du + (p.w - a.w) * dw) / l2)) : 0;
    tc_real eu = p.u - (a.u + s * du), ew = p.w - (a.w + s * dw);
    return eu * eu + ew * ew <= eps * eps;
}

// Projected feature, counter-clockwise seen from +n (B's faces are reversed: their outside is -n).
static int project_feature(const tc_feature* f, const plane_frame* P, bool reverse, uint32_t side, pt2* out) {
    for (int i = 0; i < f->count; ++i) {
        int j = reverse ? f->count - 1 - i : i;
        out[i] = project(P, f->points[j], (side << 28) | (uint32_t)f->ids[j]);
    }
    return f->count;
}

static int intersect_2d(const pt2* a, int na, const pt2* b, int nb, tc_real eps, pt2* out, int cap) {
    if (na >= 3 && nb >= 2) return clip_polygon(b, nb, a, na, eps, out, cap);
    if (nb >= 3 && na >= 2) return clip_polygon(a, na, b, nb, eps, out, cap);
    if (na == 2 && nb == 2) return edge_edge(a[0], a[1], b[0], b[1], eps, out);
    const pt2* v = na == 1 ? a : b; // a vertex against anything
    const pt2* other = na == 1 ? b : a;
    int no = na == 1 ? nb : na;
    bool inside = no == 1   ? (fabs(v->u - other->u) <= eps && fabs(v->w - other->w) <= eps)
                  : no == 2 ? near_segment(*v, other[0], other[1], eps)
                            : clip_polygon(v, 1, other, no, eps, out, cap) == 1;
    if (inside) out[0] = *v;
    return inside ? 1 : 0;
}

int tc_intersect_features(const tc_feature* fa, const tc_feature* fb, tc_vec3 n, tc_real margin, tc_feature_point* out, int capacity) {
    plane_frame P;
    P.n = n;
    P.t1 = tc_v3_normalize(fabs(n.x) < 0.57 ? tc_v3_cross(n, tc_v3(1, 0, 0)) : tc_v3_cross(n, tc_v3(0, 1, 0)));
    P.t2 = tc_v3_cross(n, P.t1);
    P.o = fa->points[0];
    pt2 a[TC_FEATURE_MAX], b[TC_FEATURE_MAX], res[2 * TC_FEATURE_MAX];
    int na = project_feature(fa, &P, false, 1, a), nb = project_feature(fb, &P, true, 2, b);
    tc_real size2 = 0; // the largest square, one root: the root is monotonic and correctly rounded
    for (int i = 0; i < fa->count; ++i) size2 = fmax(size2, tc_v3_len2(tc_v3_sub(fa->points[i], P.o)));
    for (int i = 0; i < fb->count; ++i) size2 = fmax(size2, tc_v3_len2(tc_v3_sub(fb->points[i], P.o)));
    tc_real size = sqrt(size2);
    tc_real eps = 1e-6 * fmax(size, 1e-6);
    int m = intersect_2d(a, na, b, nb, eps, res, 2 * TC_FEATURE_MAX), k = 0;
    for (int i = 0; i < m && k < capacity; ++i) {
        tc_real za = height(fa, &P, res[i]), zb = height(fb, &P, res[i]);
        if (zb - za >= margin) continue;
        tc_vec3 base = tc_v3_add(P.o, tc_v3_add(tc_v3_scale(P.t1, res[i].u), tc_v3_scale(P.t2, res[i].w)));
        out[k].on_a = tc_v3_madd(base, za, n);
        out[k].on_b = tc_v3_madd(base, zb, n);
        out[k].separation = zb - za;
        out[k].key = res[i].tag;
        k++;
    }
    return k;
}

static tc_real tri_area2(tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_vec3 n) {
    return fabs(tc_v3_dot(tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(c, a)), n));
}

int tc_reduce_points(tc_feature_point* p, int count, tc_vec3 n) {
    if (count <= 4) return count;
    int pick[4];
    pick[0] = 0;
    for (int i = 1; i < count; ++i)
        if (p[i].separation < p[pick[0]].separation) pick[0] = i;
    tc_real best = -1;
    for (int i = 0; i < count; ++i) {
        tc_real d = tc_v3_len2(tc_v3_sub(p[i].on_a, p[pick[0]].on_a));
        if (d > best) best = d, pick[1] = i;
    }
    best = -1;
    for (int i = 0; i < count; ++i) {
        tc_real a = tri_area2(p[pick[0]].on_a, p[pick[1]].on_a, p[i].on_a, n);
        if (a > best) best = a, pick[2] = i;
    }
    best = -1;
    pick[3] = pick[0];
    for (int i = 0; i < count; ++i) { // the point adding most area: the largest triangle it makes with an edge
        tc_vec3 a = p[pick[0]].on_a, b = p[pick[1]].on_a, c = p[pick[2]].on_a, x = p[i].on_a;
        tc_real gain = fmax(tri_area2(a, b, x, n), fmax(tri_area2(b, c, x, n), tri_area2(c, a, x, n)));
        if (i != pick[0] && i != pick[1] && i != pick[2] && gain > best) best = gain, pick[3] = i;
    }
    tc_feature_point kept[4];
    for (int i = 0; i < 4; ++i) kept[i] = p[pick[i]];
    memcpy(p, kept, sizeof kept);
    return 4;
}
