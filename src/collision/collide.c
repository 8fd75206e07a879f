// tc_collide: dispatch by shape types and contact method (docs/rigid.md). Convex pairs use
// GJK for separated pairs and the growth distance for overlapping ones, then Gauss-map feature
// intersection (seed 004); planes are exact half-spaces; triangle meshes collide triangle by
// triangle as thin prisms; the "tracking" baseline keeps one new point per step instead.
#include "collision/collide.h"

#include "collision/feature.h"
#include "collision/gjk.h"
#include "collision/support.h"
#include "core/core.h"
#include "geometry/hull.h"
#include "geometry/trimesh.h"

#include <string.h>

#define TC_FEATURE_TOLERANCE (3.0 * TC_PI / 180.0) // ALGORITHMS §2.2
#define TC_TRACKING_BREAK 0.02                     // m, Bullet's default breaking threshold
#define TC_MAX_HULL_STACK 256
#define TC_MAX_PACKED 64 // hulls up to this many vertices are packed for the support scans (larger ones climb)

/// A convex shape placed in the query frame (A's shape frame, see collide_convex), ready for GJK.
typedef struct placed {
    const tc_shape* shape;
    tc_transform pose;   ///< of the shape in the query frame
    tc_convex convex;
    tc_vec3 local_buf[TC_MAX_HULL_STACK];
    tc_real soa_buf[3 * TC_MAX_PACKED]; ///< the placed vertices packed (collision/support.h)
    tc_vec3* heap;       ///< placed vertices when the hull has more than the stack buffer holds
    int heap_count;
} placed;

// The query frame's own shape: its body-space vertices are used as they are (no copy).
static void place_at_origin(placed* p, const tc_shape* s) {
    p->shape = s;
    p->pose = tc_transform_identity();
    p->heap = NULL;
    p->heap_count = 0;
    if (s->type == TC_SHAPE_SPHERE) {
        p->local_buf[0] = tc_v3_zero();
        p->convex = (tc_convex){p->local_buf, 1, s->radius, tc_v3_zero(), NULL, NULL, 0};
        return;
    }
    const tc_hull* h = s->hull; // every reader takes the packed copy: the AoS pointer's cache line stays untouched
    p->convex = (tc_convex){NULL, h->vertex_count, 0, h->centroid, h, h->soa, h->soa_stride};
    const char* soa = (const char*)h->soa; // the first scans' lines, asked for together (a hint)
    for (int at = 0; at < 3 * 8 * h->soa_stride && at < 512; at += 64) __builtin_prefetch(soa + at);
}

// The other shape at `pose` in the query frame: its vertices are placed once, by a matrix
// (9 multiplications per vertex instead of the quaternion's 15).
static void place(placed* p, const tc_shape* s, tc_transform pose) {
    p->shape = s;
    p->pose = pose;
    p->heap = NULL;
    p->heap_count = 0;
    if (s->type == TC_SHAPE_SPHERE) {
        p->local_buf[0] = p->pose.p;
        p->convex = (tc_convex){p->local_buf, 1, s->radius, p->pose.p, NULL, NULL, 0};
        return;
    }
    const tc_hull* h = s->hull;
    tc_vec3* dst = p->local_buf;
    if (h->vertex_count > TC_MAX_HULL_STACK) {
        p->heap = tc_alloc((size_t)h->vertex_count * sizeof(tc_vec3));
        p->heap_count = h->vertex_count;
        dst = p->heap;
    }
    int n = dst ? h->vertex_count : 0;
    tc_mat3 r = tc_quat_to_mat3(pose.q);
    bool packed = n && h->soa_stride <= TC_MAX_PACKED; // packed copies of large hulls are not kept
    if (packed) tc_soa_place(h->soa, h->soa_stride, n, &r, &pose.p, p->soa_buf, NULL); // every reader takes the packed copy
    else
        for (int i = 0; i < n; ++i) dst[i] = tc_v3_add(pose.p, tc_mat3_mul_v3(r, h->vertices[i]));
    p->convex = (tc_convex){packed ? NULL : dst, n ? n : 1, 0, tc_v3_add(pose.p, tc_mat3_mul_v3(r, h->centroid)), n ? h : NULL,
                            packed ? p->soa_buf : NULL, packed ? h->soa_stride : 0};
    if (!n) p->local_buf[0] = p->convex.center, p->convex.points = p->local_buf; // out of memory: a point
}

static void unplace(placed* p) { tc_free(p->heap, (size_t)p->heap_count * sizeof(tc_vec3)); }

/// Turns feature points into manifold points (anchors in the body frames, impulses carried
/// over from `previous` by feature key).
static int emit(tc_feature_point* fp, int count, tc_vec3 n, tc_transform body_a, tc_transform body_b, const tc_manifold* previous,
                tc_manifold* out) {
    out->normal = n;
    out->count = 0;
    for (int i = 0; i < count && out->count < TC_MAX_MANIFOLD_POINTS; ++i) {
        tc_manifold_point* m = &out->points[out->count++];
        // every field set here, no memset: its `rep stos` cost more than the rest of the loop
        m->normal_impulse = m->tangent_impulse[0] = m->tangent_impulse[1] = m->age = 0;
        m->point = tc_v3_scale(tc_v3_add(fp[i].on_a, fp[i].on_b), 0.5);
        m->normal = n;
        m->anchor_a = tc_transform_inv_point(body_a, fp[i].on_a);
        m->anchor_b = tc_transform_inv_point(body_b, fp[i].on_b);
        m->separation = fp[i].separation;
        m->feature = fp[i].key;
        for (int k = 0; previous && k < previous->count; ++k)
            if (previous->points[k].feature == m->feature) {
                m->normal_impulse = previous->points[k].normal_impulse;
                m->tangent_impulse[0] = previous->points[k].tangent_impulse[0];
                m->tangent_impulse[1] = previous->points[k].tangent_impulse[1];
                m->age = previous->points[k].age;
                break;
            }
    }
    return out->count;
}

static tc_feature_point single_point(tc_vec3 on_a, tc_vec3 n, tc_real separation, uint32_t key) {
    tc_feature_point p = {on_a, tc_v3_madd(on_a, separation, n), separation, key};
    return p;
}

// ---- convex pairs --------------------------------------------------------------------------------

typedef struct convex_contact {
    tc_vec3 normal;
    tc_real separation;  ///< of the single fallback point
    tc_vec3 on_a;        ///< fallback point on A
    bool touching;
    int support_a, support_b; ///< vertex indices of the supports along +-normal, -1 if unknown
    bool has_portal;          ///< the growth distance's exit face, for the next query's warm start
    int portal[6];
} convex_contact;

static convex_contact from_gjk(const tc_gjk_result* r) {
    convex_contact c = {r->normal, r->distance, r->point_a, true, -1, -1, false, {0}};
    return c;
}

static convex_contact from_growth(const placed* A, const placed* B, const tc_growth_result* g, tc_vec3 hint) {
    convex_contact c = {0};
    c.touching = true;
    c.support_a = c.support_b = -1;
    if (!g->ok) { // numerically stuck: push apart along the centres
        c.normal = tc_v3_normalize(tc_v3_len2(hint) > 0 ? hint : tc_v3(0, 0, 1));
        c.separation = -(A->convex.radius + B->convex.radius);
        c.on_a = A->convex.center;
        return c;
    }
    c.normal = g->normal;
    c.separation = -g->depth;
    c.on_a = tc_v3_madd(g->point, 0.5 * g->depth, g->normal);
    return c;
}

// A separated pair: no points; the normal is the axis that proved it (the next query's warm start).
static convex_contact apart(tc_vec3 axis) {
    convex_contact c = {0};
    c.normal = axis;
    return c;
}

// Polytope pairs start with the growth distance: overlapping pairs need nothing else, and for
// separated ones -h_D(n) is a lower bound on the distance, so far pairs stop there too. Only
// pairs separated by less than the margin pay for GJK's closest points (their normal).
// Pairs with a sphere use GJK first: its witnesses are exact for rounded shapes. A previous
// normal (contact normal or separating axis) warm-starts the growth distance.
static convex_contact convex_normal(const placed* A, const placed* B, tc_real margin, const tc_manifold* previous,
                                    tc_vec3 previous_normal) {
    bool warm = previous && tc_v3_len2(previous_normal) > 0;
    tc_vec3 hint = previous && previous->count ? previous_normal : tc_v3_sub(B->convex.center, A->convex.center);
    bool rounded = A->convex.radius > 0 || B->convex.radius > 0;
    if (!rounded) {
        bool portal = previous && previous->portal_valid == 1;
        tc_growth_query q = warm || portal ? tc_growth_distance_warm(&A->convex, &B->convex, hint, margin, previous_normal,
                                                                     portal ? previous->portal : NULL)
                                           : tc_growth_distance_within(&A->convex, &B->convex, hint, margin);
        const tc_growth_result* g = &q.result;
        if (q.apart || (g->ok && -g->depth > margin)) return apart(g->normal);
        if (g->ok && g->alpha < 1) {
            convex_contact c = from_growth(A, B, g, hint);
            c.support_a = q.support_a, c.support_b = q.support_b; // the features start from them
            c.has_portal = q.has_portal;
            memcpy(c.portal, q.portal, sizeof c.portal);
            return c;
        }
    }
    tc_gjk_result r = tc_gjk_distance(&A->convex, &B->convex);
    if (r.distance > margin) return apart(r.normal);
    if (!r.cores_overlap) return from_gjk(&r);
    tc_growth_result g = tc_growth_distance(&A->convex, &B->convex, hint);
    return from_growth(A, B, &g, hint);
}

static void shape_feature(const placed* p, tc_vec3 u, int support, tc_feature* f) {
    if (p->shape->type == TC_SHAPE_SPHERE) {
        memset(f, 0, sizeof *f);
        f->count = 1;
        f->points[0] = tc_v3_madd(p->pose.p, p->shape->radius, u);
        return;
    }
    const tc_vec3* world = p->convex.hull ? p->convex.points : NULL; // NULL: placement ran out of memory
    const tc_real* world_soa = p->convex.hull ? p->convex.soa : NULL;
    if (support >= 0 && support < p->shape->hull->vertex_count)
        tc_hull_feature_placed(p->shape->hull, p->pose, world, world_soa, u, support, TC_FEATURE_TOLERANCE, f);
    else tc_hull_feature(p->shape->hull, p->pose, u, TC_FEATURE_TOLERANCE, f);
}

static int convex_points(const placed* A, const placed* B, const convex_contact* c, tc_contact_method method, tc_real margin,
                         tc_feature_point* fp) {
    bool sphere = A->shape->type == TC_SHAPE_SPHERE || B->shape->type == TC_SHAPE_SPHERE;
    if (method == TC_CONTACT_TRACKING || sphere) {
        tc_vec3 on_a = c->on_a;
        if (A->shape->type == TC_SHAPE_SPHERE) on_a = tc_v3_madd(A->pose.p, A->shape->radius, c->normal);
        else if (B->shape->type == TC_SHAPE_SPHERE)
            on_a = tc_v3_madd(tc_v3_madd(B->pose.p, -B->shape->radius, c->normal), -c->separation, c->normal);
        fp[0] = single_point(on_a, c->normal, c->separation, 0x5u);
        return 1;
    }
    if (A->shape->type == TC_SHAPE_HULL) tc_hull_prefetch_topology(A->shape->hull);
    if (B->shape->type == TC_SHAPE_HULL) tc_hull_prefetch_topology(B->shape->hull);
    tc_feature fa, fb;
    shape_feature(A, c->normal, c->support_a, &fa);
    shape_feature(B, tc_v3_neg(c->normal), c->support_b, &fb);
    int n = tc_intersect_features(&fa, &fb, c->normal, margin, fp, 2 * TC_FEATURE_MAX);
    if (n == 0) fp[n++] = single_point(c->on_a, c->normal, c->separation, 0xFA11u); // ALGORITHMS §2.3 fallback
    return tc_reduce_points(fp, n, c->normal);
}

static bool is_identity(tc_transform t) {
    return t.p.x == 0 && t.p.y == 0 && t.p.z == 0 && t.q.x == 0 && t.q.y == 0 && t.q.z == 0 && t.q.w == 1;
}

// Most shapes sit at their body's origin: then the body pose is the shape's, without a product
// and its renormalisation.
static tc_transform shape_pose(tc_transform body, const tc_shape* s) {
    return s->local_is_identity || is_identity(s->local) ? body : tc_transform_mul(body, s->local);
}

// `pose` seen from `frame`: frame^-1 * pose with one rotation (the inverse and a product take two).
static tc_transform relative_pose(tc_transform frame, tc_transform pose) {
    tc_transform r;
    r.q = tc_quat_normalize(tc_quat_mul(tc_quat_conj(frame.q), pose.q));
    r.p = tc_quat_inv_rotate(frame.q, tc_v3_sub(pose.p, frame.p));
    return r;
}

// Works in A's shape frame F: A's vertices need no placement, B's are placed once relative to A;
// the normal and the points go back to the world at the end (a handful of transforms).
static int collide_convex(const tc_shape* a, tc_transform body_a, const tc_shape* b, tc_transform body_b, tc_contact_method method,
                          tc_real margin, const tc_manifold* previous, tc_feature_point* fp, tc_vec3* normal, tc_manifold* cache) {
    tc_transform frame = shape_pose(body_a, a);
    tc_transform b_in_frame = relative_pose(frame, shape_pose(body_b, b));
    placed A, B;
    place_at_origin(&A, a);
    place(&B, b, b_in_frame);
    tc_vec3 previous_normal = previous ? tc_quat_inv_rotate(frame.q, previous->normal) : tc_v3_zero();
    convex_contact c = convex_normal(&A, &B, margin, previous, previous_normal);
    int n = c.touching ? convex_points(&A, &B, &c, method, margin, fp) : 0;
    tc_mat3 r = tc_quat_to_mat3(frame.q);
    *normal = tc_mat3_mul_v3(r, c.normal);
    for (int i = 0; i < n; ++i) {
        fp[i].on_a = tc_v3_add(frame.p, tc_mat3_mul_v3(r, fp[i].on_a));
        fp[i].on_b = tc_v3_add(frame.p, tc_mat3_mul_v3(r, fp[i].on_b));
    }
    if (cache && c.has_portal) cache->portal_valid = 1, memcpy(cache->portal, c.portal, sizeof c.portal);
    unplace(&B);
    return n;
}

// ---- planes and triangle meshes (always shape A here) ----------------------------------------

static int collide_plane(const tc_shape* plane, tc_transform body_a, const tc_shape* b, tc_transform body_b, tc_contact_method method,
                         tc_real margin, tc_feature_point* fp, tc_vec3* normal) {
    tc_transform tp = tc_transform_mul(body_a, plane->local), tb = tc_transform_mul(body_b, b->local);
    tc_vec3 n = tc_quat_rotate(tp.q, plane->plane_normal);
    tc_real e = plane->plane_offset + tc_v3_dot(n, tp.p);
    *normal = n;
    tc_feature f;
    if (b->type == TC_SHAPE_SPHERE) {
        memset(&f, 0, sizeof f);
        f.count = 1;
        f.points[0] = tc_v3_madd(tb.p, -b->radius, n);
    } else {
        tc_hull_feature(b->hull, tb, tc_v3_neg(n), TC_FEATURE_TOLERANCE, &f);
        if (method == TC_CONTACT_TRACKING) { // the baseline: only the deepest vertex
            int deepest = 0;
            for (int i = 1; i < f.count; ++i)
                if (tc_v3_dot(n, f.points[i]) < tc_v3_dot(n, f.points[deepest])) deepest = i;
            f.points[0] = f.points[deepest];
            f.ids[0] = f.ids[deepest];
            f.count = 1;
        }
    }
    int k = 0;
    for (int i = 0; i < f.count; ++i) {
        tc_real s = tc_v3_dot(n, f.points[i]) - e;
        if (s >= margin) continue;
        fp[k++] = (tc_feature_point){tc_v3_madd(f.points[i], -s, n), f.points[i], s, 0x9000u + (uint32_t)f.ids[i]};
    }
    return tc_reduce_points(fp, k, n);
}

// A triangle as a prism reaching `depth` behind it: a solid with an interior for GJK-GD.
static tc_shape prism_shape(const tc_trimesh* m, int t, tc_transform mesh_pose, tc_real depth, tc_hull** hull) {
    tc_vec3 v[6];
    const int* ix = m->triangles + 3 * t;
    for (int k = 0; k < 3; ++k) {
        v[k] = tc_transform_point(mesh_pose, m->vertices[ix[k]]);
        v[k + 3] = tc_v3_madd(v[k], -depth, tc_quat_rotate(mesh_pose.q, m->normals[t]));
    }
    static const int loops[18] = {0, 1, 2, 3, 5, 4, 0, 3, 4, 1, 1, 4, 5, 2, 2, 5, 3, 0};
    static const int start[6] = {0, 3, 6, 10, 14, 18};
    *hull = tc_hull_from_faces(v, 6, start, loops, 5);
    tc_shape s;
    memset(&s, 0, sizeof s);
    s.type = TC_SHAPE_HULL;
    s.local = tc_transform_identity();
    s.hull = *hull;
    return s;
}

static int collide_mesh(const tc_shape* mesh, tc_transform body_a, const tc_shape* b, tc_transform body_b, tc_contact_method method,
                        tc_real margin, tc_feature_point* fp, tc_vec3* normals) {
    tc_transform tm = tc_transform_mul(body_a, mesh->local);
    tc_aabb box = tc_shape_aabb(b, body_b), local = tc_aabb_empty();
    for (int i = 0; i < 8; ++i) // the convex's box in the mesh frame
        local = tc_aabb_add_point(local, tc_transform_inv_point(tm, tc_v3(i & 1 ? box.hi.x : box.lo.x, i & 2 ? box.hi.y : box.lo.y,
                                                                          i & 4 ? box.hi.z : box.lo.z)));
    local = tc_aabb_inflate(local, margin);
    int tris[64];
    int count = tc_trimesh_query(mesh->mesh, local, tris, 64);
    count = count < 64 ? count : 64;
    tc_real depth = fmax(tc_v3_len(tc_v3_sub(box.hi, box.lo)), 1e-3);
    int total = 0;
    tc_feature_point tmp[2 * TC_FEATURE_MAX + 1];
    for (int i = 0; i < count; ++i) {
        tc_hull* hull = NULL;
        tc_shape prism = prism_shape(mesh->mesh, tris[i], tm, depth, &hull);
        if (!hull) continue;
        tc_vec3 n;
        int k = collide_convex(&prism, tc_transform_identity(), b, body_b, method, margin, NULL, tmp, &n, NULL);
        tc_hull_free(hull);
        for (int j = 0; j < k; ++j) { // keep the deepest TC_MAX_MANIFOLD_POINTS overall
            tmp[j].key = tmp[j].key * 31u + (uint32_t)tris[i];
            int slot = total < TC_MAX_MANIFOLD_POINTS ? total++ : -1;
            if (slot < 0) {
                int worst = 0;
                for (int q = 1; q < total; ++q)
                    if (fp[q].separation > fp[worst].separation) worst = q;
                if (fp[worst].separation <= tmp[j].separation) continue;
                slot = worst;
            }
            fp[slot] = tmp[j];
            normals[slot] = n;
        }
    }
    return total;
}

// ---- the tracking baseline: a persistent manifold fed one point per step -------------------

static int track(const tc_manifold* previous, tc_transform body_a, tc_transform body_b, tc_vec3 n, tc_feature_point fresh,
                 tc_feature_point* fp, tc_manifold_point* carried) {
    int k = 0;
    for (int i = 0; previous && i < previous->count; ++i) {
        const tc_manifold_point* p = &previous->points[i];
        tc_vec3 xa = tc_transform_point(body_a, p->anchor_a), xb = tc_transform_point(body_b, p->anchor_b);
        tc_vec3 d = tc_v3_sub(xb, xa);
        tc_real s = tc_v3_dot(d, n);
        tc_real drift = tc_v3_len(tc_v3_madd(d, -s, n));
        if (s > TC_TRACKING_BREAK || drift > TC_TRACKING_BREAK) continue;
        if (tc_v3_dist(xa, fresh.on_a) < TC_TRACKING_BREAK) continue; // replaced by the new point
        fp[k] = (tc_feature_point){xa, xb, s, p->feature};
        carried[k++] = *p;
    }
    static uint32_t serial_mix = 0x7A11u;
    fresh.key = serial_mix ^ (uint32_t)(k * 2654435761u) ^ (previous ? (uint32_t)previous->count * 97u : 0u);
    fp[k] = fresh;
    memset(&carried[k], 0, sizeof carried[k]);
    k++;
    if (k > 4) { // keep the deepest and the largest area; carry the kept points' state
        tc_feature_point all[TC_MAX_MANIFOLD_POINTS + 1];
        memcpy(all, fp, (size_t)k * sizeof *fp);
        tc_reduce_points(fp, k, n);
        tc_manifold_point kept[4];
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < k; ++j)
                if (all[j].key == fp[i].key && tc_v3_dist(all[j].on_a, fp[i].on_a) == 0) kept[i] = carried[j];
        memcpy(carried, kept, sizeof kept);
        k = 4;
    }
    return k;
}

static int finish_tracking(tc_feature_point* fp, int n_new, tc_vec3 n, tc_transform body_a, tc_transform body_b, const tc_manifold* previous,
                           tc_manifold* out) {
    if (n_new == 0) {
        out->count = 0;
        out->normal = n; // collide.h: the axis the pair was found apart along (a caller may reuse out as previous)
        return 0;
    }
    tc_feature_point pts[TC_MAX_MANIFOLD_POINTS + 1];
    tc_manifold_point carried[TC_MAX_MANIFOLD_POINTS + 1];
    int k = track(previous, body_a, body_b, n, fp[0], pts, carried);
    emit(pts, k, n, body_a, body_b, NULL, out);
    for (int i = 0; i < k; ++i) {
        out->points[i].normal_impulse = carried[i].normal_impulse;
        out->points[i].tangent_impulse[0] = carried[i].tangent_impulse[0];
        out->points[i].tangent_impulse[1] = carried[i].tangent_impulse[1];
        out->points[i].age = carried[i].age;
        if (carried[i].feature) out->points[i].feature = carried[i].feature;
    }
    return k;
}

// ---- dispatch --------------------------------------------------------------------------------

static bool is_convex(const tc_shape* s) { return s->type == TC_SHAPE_SPHERE || s->type == TC_SHAPE_BOX || s->type == TC_SHAPE_HULL; }

static void flip(tc_manifold* m) {
    m->normal = tc_v3_neg(m->normal);
    m->portal_valid = 0; // its (A, B) index pairs would be the wrong way round
    for (int i = 0; i < m->count; ++i) {
        tc_manifold_point* p = &m->points[i];
        tc_vec3 t = p->anchor_a;
        p->anchor_a = p->anchor_b;
        p->anchor_b = t;
        p->normal = tc_v3_neg(p->normal);
    }
}

static void flip_previous(const tc_manifold* previous, tc_manifold* flipped) {
    *flipped = *previous;
    flip(flipped);
}

int tc_collide(const tc_shape* a, tc_transform pose_a, const tc_shape* b, tc_transform pose_b, tc_contact_method method, tc_real margin,
               const tc_manifold* previous, tc_manifold* out) {
    out->count = 0;
    out->portal_valid = 0;
    if (!is_convex(b) && is_convex(a)) { // keep the plane or mesh as A
        tc_manifold prev;
        if (previous) flip_previous(previous, &prev);
        int n = tc_collide(b, pose_b, a, pose_a, method, margin, previous ? &prev : NULL, out);
        flip(out);
        return n;
    }
    if (!is_convex(b)) return 0; // static-static
    tc_feature_point fp[2 * TC_FEATURE_MAX + 1];
    tc_vec3 n = tc_v3(0, 0, 1), normals[TC_MAX_MANIFOLD_POINTS];
    int count;
    if (a->type == TC_SHAPE_TRIMESH) {
        count = collide_mesh(a, pose_a, b, pose_b, method, margin, fp, normals);
        emit(fp, count, count ? normals[0] : n, pose_a, pose_b, previous, out);
        for (int i = 0; i < out->count; ++i) out->points[i].normal = normals[i];
        return out->count;
    }
    if (a->type == TC_SHAPE_PLANE) count = collide_plane(a, pose_a, b, pose_b, method, margin, fp, &n);
    else count = collide_convex(a, pose_a, b, pose_b, method, margin, previous, fp, &n, out);
    if (method == TC_CONTACT_TRACKING) return finish_tracking(fp, count, n, pose_a, pose_b, previous, out);
    return emit(fp, count, n, pose_a, pose_b, previous, out);
}
