#include "collision/mpr.h"

#include "collision/support.h"
#include "geometry/hull.h"

#include <math.h>

typedef struct mpr_vertex {
    tc_vec3 v; ///< a support of D: A's point ia minus B's point ib (the points are fetched again at the end)
    int ia, ib;
} mpr_vertex;

typedef struct mpr_state {
    const tc_convex *A, *B;
    int *ha, *hb;
    tc_real max_separation;
    tc_mpr_result* out;
    bool packed; ///< both sets are packed and small enough to scan: both supports in one call
    tc_soa_pair16_fn pair16; ///< both packed with stride 16: the direct scan of both
    tc_soa_pair16_clear_fn clear16; ///< the same scan along the unnormalised direction (refine), NULL: not used
    tc_real reach_a, reach_b;       ///< bounds on |p| of each set's points (the rounding bound of their heights)
    unsigned valid_a, valid_b;      ///< lanes of the real points (the rest is padding)
} mpr_state;

// The support along d when both indices are known.
static mpr_vertex vertex_at(const mpr_state* m, int r) {
    const tc_real *a = m->A->soa, *b = m->B->soa;
    int i = r & 0xFFFF, j = r >> 16;
    mpr_vertex s = {tc_v3(a[i] - b[j], a[16 + i] - b[16 + j], a[32 + i] - b[32 + j]), i, j};
    return s;
}

// Inlined: called as a function, its direction went through the stack as three 8-byte stores read
// back as 16-byte loads, a failed store forward (~12 cycles) on every step of the refinement.
__attribute__((always_inline)) static inline mpr_vertex support_d(const mpr_state* m, tc_vec3 d) {
    mpr_vertex s;
    if (m->pair16) { // both packed with stride 16: the points straight from the packed copies
        const tc_real *a = m->A->soa, *b = m->B->soa;
        (void)a, (void)b;
        return vertex_at(m, m->pair16(a, b, d.x, d.y, d.z));
    }
    if (m->packed) tc_soa_support_pair(m->A->soa, m->A->soa_stride, m->B->soa, m->B->soa_stride, d, &s.ia, &s.ib);
    else s.ia = tc_convex_support_index(m->A, d, m->ha), s.ib = tc_convex_support_index(m->B, tc_v3_neg(d), m->hb);
    s.v = tc_v3_sub(tc_convex_point(m->A, s.ia), tc_convex_point(m->B, s.ib));
    return s;
}

// s = s_D(d). If d.s < 0 the origin is outside D, at least -d.s/|d| away: the pair is APART when
// that exceeds max_separation, else NEAR (the caller needs the exact gap). Returns true when
// the refinement must stop.
__attribute__((always_inline)) static inline bool outside(const mpr_state* m, tc_vec3 d, const mpr_vertex* s) {
    tc_real ds = tc_v3_dot(d, s->v);
    if (ds > 0) return false;
    tc_real dl = tc_v3_len(d);
    if (ds < 0 && dl > 0) {
        m->out->status = -ds > m->max_separation * dl ? TC_MPR_APART : TC_MPR_NEAR;
        m->out->normal = tc_v3_scale(d, 1.0 / dl);
        m->out->depth = ds / dl;
    }
    return true; // touching (ds == 0) is left to the ray cast
}

static void swap(mpr_vertex* x, mpr_vertex* y) {
    mpr_vertex t = *x;
    *x = *y;
    *y = t;
}

// Phase 1: a portal (v1, v2, v3) the ray from v0 through the origin passes through.
static bool discover(const mpr_state* m, tc_vec3 v0, mpr_vertex p[3]) {
    tc_vec3 n = tc_v3_neg(v0);
    p[0] = support_d(m, n);
    if (outside(m, n, &p[0])) return false;
    n = tc_v3_cross(p[0].v, v0);
    if (tc_v3_len2(n) <= 1e-24 * tc_v3_len2(p[0].v) * tc_v3_len2(v0)) return false; // origin on the line v0 v1
    p[1] = support_d(m, n);
    if (outside(m, n, &p[1])) return false;
    n = tc_v3_cross(tc_v3_sub(p[0].v, v0), tc_v3_sub(p[1].v, v0));
    if (tc_v3_dot(n, v0) > 0) swap(&p[0], &p[1]), n = tc_v3_neg(n);
    for (int it = 0; it < 32; ++it) {
        if (!(tc_v3_len2(n) > 0)) return false;
        p[2] = support_d(m, n);
        if (outside(m, n, &p[2])) return false;
        if (tc_v3_dot(tc_v3_cross(p[0].v, p[2].v), v0) < 0) { // the origin is outside the face (v0, v1, v3)
            p[1] = p[2];
            n = tc_v3_cross(tc_v3_sub(p[0].v, v0), tc_v3_sub(p[2].v, v0));
            continue;
        }
        if (tc_v3_dot(tc_v3_cross(p[2].v, p[1].v), v0) < 0) { // outside (v0, v3, v2)
            p[0] = p[2];
            n = tc_v3_cross(tc_v3_sub(p[2].v, v0), tc_v3_sub(p[1].v, v0));
            continue;
        }
        return true;
    }
    return false;
}

// Barycentric weights of x in triangle (a, b, c) (x in its plane).
static void barycentric(tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_vec3 x, tc_real w[3]) {
    tc_vec3 n = tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(c, a));
    tc_real nn = tc_v3_len2(n);
    w[1] = tc_v3_dot(tc_v3_cross(tc_v3_sub(x, a), tc_v3_sub(c, a)), n) / nn;
    w[2] = tc_v3_dot(tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(x, a)), n) / nn;
    w[0] = 1 - w[1] - w[2];
}

// The portal lies on D's boundary and the origin behind it: the exit point and the face data.
static void finish(const mpr_state* m, tc_vec3 v0, const mpr_vertex p[3], tc_vec3 n, const mpr_vertex* s) {
    tc_mpr_result* o = m->out;
    o->status = TC_MPR_OVERLAP;
    o->normal = n;
    o->depth = tc_v3_dot(n, s->v);
    o->t_exit = tc_v3_dot(n, p[0].v) / tc_v3_dot(n, v0);
    tc_real w[3];
    barycentric(p[0].v, p[1].v, p[2].v, tc_v3_scale(v0, o->t_exit), w);
    tc_vec3 a0 = tc_convex_point(m->A, p[0].ia), a1 = tc_convex_point(m->A, p[1].ia), a2 = tc_convex_point(m->A, p[2].ia);
    o->a_star = tc_v3_add(tc_v3_add(tc_v3_scale(a0, w[0]), tc_v3_scale(a1, w[1])), tc_v3_scale(a2, w[2]));
    o->support_a = s->ia, o->support_b = s->ib;
    o->point_a = tc_convex_point(m->A, s->ia), o->point_b = tc_convex_point(m->B, s->ib);
    for (int k = 0; k < 3; ++k) o->portal[2 * k] = p[k].ia, o->portal[2 * k + 1] = p[k].ib;
}

// Phase 2: push the portal out to D's boundary. On a polytope it ends on the face the ray leaves
// through: then the support along the portal normal is no further out than the portal.
// (Prefetching the face planes here, for the contact features, helped before the hulls had their
// compact topology; now it measures slower: 0.516-0.522 us without, 0.527-0.533 with.)
// The refinement's supports are along the unit portal normal n = n'/|n'|. The scan along n' itself
// can start while the root and the division run: it gives the same indices whenever each winner
// is clear by tau = 1e-10 |n'|_1 R (R >= |p| bounds every point; the heights' rounding error along
// n' or along n, scaled to n', is below ~1e-15 |n'|_1 R, so a winner ahead by more stays ahead);
// near ties take the scan along n as before. Only for |n'|_1 well inside the normal range (no
// underflow in the heights).
static int scan_early(const mpr_state* m, tc_vec3 n) {
    tc_real l1 = fabs(n.x) + fabs(n.y) + fabs(n.z);
    if (!m->clear16 || !(l1 > 1e-150 && l1 < 1e150)) return -1;
    return m->clear16(m->A->soa, m->B->soa, n.x, n.y, n.z, 1e-10 * l1 * m->reach_a, 1e-10 * l1 * m->reach_b, m->valid_a, m->valid_b);
}

static void refine(const mpr_state* m, tc_vec3 v0, mpr_vertex p[3]) {
    tc_real tol = 1e-10 * (tc_v3_len(v0) + tc_v3_len(tc_v3_sub(p[0].v, v0)));
    for (int it = 0; it < 64; ++it) {
        tc_vec3 n = tc_v3_cross(tc_v3_sub(p[1].v, p[0].v), tc_v3_sub(p[2].v, p[0].v));
        int early = scan_early(m, n);
        tc_real nl = tc_v3_len(n);
        if (!(nl > 0)) return;
        n = tc_v3_scale(n, 1.0 / nl);
        mpr_vertex s = early >= 0 ? vertex_at(m, early) : support_d(m, n);
        if (outside(m, n, &s)) return;
        if (tc_v3_dot(tc_v3_sub(s.v, p[2].v), n) <= tol) { // on the boundary
            if (tc_v3_dot(n, p[0].v) > 0 && tc_v3_dot(n, v0) < 0) finish(m, v0, p, n, &s); // else: apart by < tol
            return;
        }
        tc_vec3 x = tc_v3_cross(s.v, v0); // which of the three new faces the ray passes through
        if (tc_v3_dot(p[0].v, x) > 0) {
            if (tc_v3_dot(p[1].v, x) > 0) p[0] = s;
            else p[2] = s;
        } else {
            if (tc_v3_dot(p[2].v, x) > 0) p[1] = s;
            else p[0] = s;
        }
    }
}

// A previous portal re-placed: usable when the ray from v0 through the origin crosses it, i.e. the
// triple products (p_i x p_j).v0 over its edges, in the orientation discovery leaves, are >= 0.
static bool reuse_portal(const mpr_state* m, tc_vec3 v0, const int* ix, mpr_vertex p[3]) {
    for (int k = 0; k < 3; ++k) {
        int ia = ix[2 * k], ib = ix[2 * k + 1];
        if (ia < 0 || ia >= m->A->count || ib < 0 || ib >= m->B->count) return false;
        p[k].ia = ia, p[k].ib = ib;
        p[k].v = tc_v3_sub(tc_convex_point(m->A, ia), tc_convex_point(m->B, ib));
    }
    tc_vec3 n = tc_v3_cross(tc_v3_sub(p[1].v, p[0].v), tc_v3_sub(p[2].v, p[0].v));
    if (!(tc_v3_len2(n) > 0)) return false;
    if (tc_v3_dot(n, v0) > 0) swap(&p[0], &p[1]); // the moved bodies may have turned it over
    return tc_v3_dot(tc_v3_cross(p[0].v, p[2].v), v0) >= 0 && tc_v3_dot(tc_v3_cross(p[2].v, p[1].v), v0) >= 0 &&
           tc_v3_dot(tc_v3_cross(p[1].v, p[0].v), v0) >= 0;
}

// The scans tc_convex_support_index would do (not the hill climb of large hulls), on packed points.
static bool packed_scan(const tc_convex* c) { return c->soa && c->count <= TC_CLIMB_MIN_POINTS; }

tc_mpr_result tc_mpr_growth(const tc_convex* A, const tc_convex* B, tc_real max_separation, int* ha, int* hb, const int* warm_portal) {
    tc_mpr_result out;
    out.status = TC_MPR_UNDECIDED;
    bool packed = packed_scan(A) && packed_scan(B);
    mpr_state m = {A, B, ha, hb, max_separation, &out, packed, packed && A->soa_stride == 16 && B->soa_stride == 16 ? tc_soa_pair16() : NULL,
                   NULL, 0, 0, 0, 0};
    if (m.pair16 && A->hull && B->hull && A->count <= 16 && B->count <= 16) { // reach: the centre's distance plus the hull's extent
        m.clear16 = tc_soa_pair16_clear();
        m.reach_a = 2 * (tc_v3_len(A->center) + A->hull->extent), m.reach_b = 2 * (tc_v3_len(B->center) + B->hull->extent);
        m.valid_a = (1u << A->count) - 1, m.valid_b = (1u << B->count) - 1;
    }
    tc_vec3 v0 = tc_v3_sub(A->center, B->center);
    if (!(tc_v3_len2(v0) > 0)) return out;
    mpr_vertex p[3];
    if ((warm_portal && reuse_portal(&m, v0, warm_portal, p)) || discover(&m, v0, p)) refine(&m, v0, p);
    return out;
}
