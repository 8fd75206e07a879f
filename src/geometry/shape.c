#include <float.h>
#include "geometry/shape.h"
#include "core/core.h"
#include "geometry/hull.h"
#include "geometry/trimesh.h"

static bool finite_transform(tc_transform t) {
    return tc_v3_is_finite(t.p) && isfinite(t.q.x) && isfinite(t.q.y) && isfinite(t.q.z) && isfinite(t.q.w);
}

static tc_result init_primitive(tc_shape* s, const tc_shape_def* def, const char* path, tc_error* error) {
    switch (def->type) {
    case TC_SHAPE_SPHERE:
        if (!isfinite(def->radius) || def->radius <= 0)
            return tc_error_set(error, TC_RESULT_OUT_OF_RANGE, NULL, path, "sphere radius must be positive and finite (got %g)", def->radius);
        s->radius = def->radius;
        return TC_RESULT_OK;
    case TC_SHAPE_BOX:
        if (!tc_v3_is_finite(def->half_extents) || def->half_extents.x <= 0 || def->half_extents.y <= 0 || def->half_extents.z <= 0)
            return tc_error_set(error, TC_RESULT_OUT_OF_RANGE, NULL, path, "box half extents must be positive and finite");
        s->half_extents = def->half_extents;
        s->hull = tc_hull_box(def->half_extents); // its Gauss map serves the feature contacts
        return s->hull ? TC_RESULT_OK : tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, path, "out of memory");
    case TC_SHAPE_HULL:
        s->hull = tc_hull_from_points(def->points, def->point_count, path, error);
        return s->hull ? TC_RESULT_OK : error ? error->code : TC_RESULT_DEGENERATE;
    case TC_SHAPE_TRIMESH:
        s->mesh = tc_trimesh_create(def->points, def->point_count, def->triangles, def->triangle_count, path, error);
        return s->mesh ? TC_RESULT_OK : error ? error->code : TC_RESULT_DEGENERATE;
    case TC_SHAPE_PLANE: {
        tc_real l = tc_v3_len(def->plane_normal);
        if (!isfinite(l) || l < 1e-12 || !isfinite(def->plane_offset))
            return tc_error_set(error, TC_RESULT_DEGENERATE, NULL, path, "plane normal must be a finite non-zero vector");
        s->plane_normal = tc_v3_scale(def->plane_normal, 1.0 / l);
        s->plane_offset = def->plane_offset;
        return TC_RESULT_OK;
    }
    default:
        return tc_error_set(error, TC_RESULT_UNSUPPORTED, NULL, path, "shape type %d is not available in this build", (int)def->type);
    }
}

tc_result tc_shape_init(tc_shape* s, const tc_shape_def* def, bool is_static, const char* path, tc_error* error) {
    memset(s, 0, sizeof *s);
    if ((int)def->type < 0 || def->type >= TC_SHAPE_TYPE_COUNT)
        return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, NULL, path, "unknown shape type %d", (int)def->type);
    if (!finite_transform(def->local))
        return tc_error_set(error, TC_RESULT_NOT_FINITE, NULL, path, "local pose is not finite");
    if (!is_static && (def->type == TC_SHAPE_PLANE || def->type == TC_SHAPE_TRIMESH))
        return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, NULL, path, "planes and triangle meshes are static-only shapes");
    if (!is_static && (!isfinite(def->density) || def->density <= 0))
        return tc_error_set(error, TC_RESULT_OUT_OF_RANGE, NULL, path, "density must be positive and finite (got %g)", def->density);
    s->type = def->type;
    s->local = def->local;
    s->local.q = tc_quat_normalize(def->local.q);
    s->local_is_identity = s->local.p.x == 0 && s->local.p.y == 0 && s->local.p.z == 0 && s->local.q.x == 0 && s->local.q.y == 0 &&
                           s->local.q.z == 0 && s->local.q.w == 1;
    s->density = def->density;
    return init_primitive(s, def, path, error);
}

void tc_shape_free(tc_shape* s) {
    tc_hull_free(s->hull);
    tc_trimesh_free(s->mesh);
    s->hull = NULL;
    s->mesh = NULL;
}

tc_mass_props tc_shape_mass(const tc_shape* s) {
    tc_mass_props m = {0};
    m.inertia = tc_mat3_zero();
    if (s->type == TC_SHAPE_SPHERE) m = tc_mass_sphere(s->radius, s->density);
    else if (s->type == TC_SHAPE_BOX) m = tc_mass_box(s->half_extents, s->density);
    else if (s->type == TC_SHAPE_HULL) m = tc_hull_mass(s->hull, s->density);
    return tc_mass_transform(m, s->local);
}

static tc_transform world_of(const tc_shape* s, tc_transform body) { return tc_transform_mul(body, s->local); }

tc_aabb tc_shape_aabb(const tc_shape* s, tc_transform body) {
    tc_transform t = world_of(s, body);
    tc_aabb b = tc_aabb_empty();
    if (s->type == TC_SHAPE_SPHERE) {
        b.lo = t.p;
        b.hi = t.p;
        return tc_aabb_inflate(b, s->radius);
    }
    if (s->type == TC_SHAPE_BOX) {
        tc_mat3 R = tc_quat_to_mat3(t.q);
        tc_vec3 e;
        e.x = fabs(R.m[0][0]) * s->half_extents.x + fabs(R.m[0][1]) * s->half_extents.y + fabs(R.m[0][2]) * s->half_extents.z;
        e.y = fabs(R.m[1][0]) * s->half_extents.x + fabs(R.m[1][1]) * s->half_extents.y + fabs(R.m[1][2]) * s->half_extents.z;
        e.z = fabs(R.m[2][0]) * s->half_extents.x + fabs(R.m[2][1]) * s->half_extents.y + fabs(R.m[2][2]) * s->half_extents.z;
        b.lo = tc_v3_sub(t.p, e);
        b.hi = tc_v3_add(t.p, e);
        return b;
    }
    if (s->type == TC_SHAPE_HULL) {
        for (int i = 0; i < s->hull->vertex_count; ++i) b = tc_aabb_add_point(b, tc_transform_point(t, s->hull->vertices[i]));
        return b;
    }
    if (s->type == TC_SHAPE_TRIMESH) {
        tc_aabb l = tc_trimesh_bounds(s->mesh);
        for (int i = 0; i < 8; ++i)
            b = tc_aabb_add_point(b, tc_transform_point(t, tc_v3(i & 1 ? l.hi.x : l.lo.x, i & 2 ? l.hi.y : l.lo.y, i & 4 ? l.hi.z : l.lo.z)));
        return b;
    }
    if (s->type == TC_SHAPE_PLANE) {
        // A plane is unbounded: a huge box keeps AABB logic uniform.
        b.lo = tc_v3(-1e18, -1e18, -1e18);
        b.hi = tc_v3(1e18, 1e18, 1e18);
        return b;
    }
    return b;
}

static tc_real box_signed_distance(tc_vec3 h, tc_vec3 p, tc_vec3* n) {
    tc_vec3 q = tc_v3(fabs(p.x) - h.x, fabs(p.y) - h.y, fabs(p.z) - h.z);
    if (q.x > 0 || q.y > 0 || q.z > 0) {
        tc_vec3 o = tc_v3(fmax(q.x, 0) * (p.x < 0 ? -1 : 1), fmax(q.y, 0) * (p.y < 0 ? -1 : 1), fmax(q.z, 0) * (p.z < 0 ? -1 : 1));
        tc_real d = tc_v3_len(o);
        *n = tc_v3_scale(o, 1.0 / d);
        return d;
    }
    int axis = q.x > q.y ? (q.x > q.z ? 0 : 2) : (q.y > q.z ? 1 : 2);
    tc_real c[3] = {0, 0, 0};
    c[axis] = tc_v3_get(p, axis) < 0 ? -1 : 1;
    *n = tc_v3(c[0], c[1], c[2]);
    return tc_v3_get(q, axis);
}

// Inside: the nearest face plane (exact). Outside: the distance to the closest point on the
// surface, found on the faces whose planes the point is above.
static tc_real hull_signed_distance(const tc_hull* h, tc_vec3 p, tc_vec3* n) {
    tc_real d = tc_hull_plane_distance(h, p, n);
    if (d <= 0) return d;
    tc_real best2 = 1e300;
    tc_vec3 best_q = p;
    for (int f = 0; f < h->face_count; ++f) {
        if (tc_v3_dot(h->face_normals[f], p) - h->face_offsets[f] <= 0) continue;
        const int* loop = h->face_verts + h->face_start[f];
        int m = h->face_start[f + 1] - h->face_start[f];
        for (int i = 1; i + 1 < m; ++i) {
            tc_vec3 q = tc_closest_point_triangle(p, h->vertices[loop[0]], h->vertices[loop[i]], h->vertices[loop[i + 1]]);
            tc_real d2 = tc_v3_len2(tc_v3_sub(p, q));
            if (d2 < best2) {
                best2 = d2;
                best_q = q;
            }
        }
    }
    tc_real dist = sqrt(best2);
    if (dist > 1e-12) *n = tc_v3_scale(tc_v3_sub(p, best_q), 1.0 / dist);
    return dist;
}

// Ray against the intersection of the face half-spaces (Cyrus-Beck).
static bool ray_hull(const tc_hull* h, tc_vec3 o, tc_vec3 dir, tc_real max_t, tc_real* t, tc_vec3* n) {
    tc_real lo = 0, hi = max_t;
    int face = -1;
    for (int f = 0; f < h->face_count; ++f) {
        tc_real num = h->face_offsets[f] - tc_v3_dot(h->face_normals[f], o), den = tc_v3_dot(h->face_normals[f], dir);
        if (fabs(den) < 1e-300) {
            if (num < 0) return false;
            continue;
        }
        tc_real s = num / den;
        if (den < 0) {
            if (s > lo) { lo = s; face = f; }
        } else if (s < hi) hi = s;
        if (lo > hi) return false;
    }
    if (face < 0) return false; // starts inside
    *t = lo;
    *n = h->face_normals[face];
    return true;
}

tc_real tc_shape_signed_distance(const tc_shape* s, tc_transform body, tc_vec3 p, tc_vec3* normal) {
    tc_transform t = world_of(s, body);
    tc_vec3 local = tc_transform_inv_point(t, p), n = tc_v3(0, 0, 1);
    tc_real d = DBL_MAX;
    if (s->type == TC_SHAPE_SPHERE) {
        tc_real l = tc_v3_len(local);
        n = l > 1e-12 ? tc_v3_scale(local, 1.0 / l) : tc_v3(0, 0, 1);
        d = l - s->radius;
    } else if (s->type == TC_SHAPE_BOX) {
        d = box_signed_distance(s->half_extents, local, &n);
    } else if (s->type == TC_SHAPE_PLANE) {
        n = s->plane_normal;
        d = tc_v3_dot(n, local) - s->plane_offset;
    } else if (s->type == TC_SHAPE_HULL) {
        d = hull_signed_distance(s->hull, local, &n);
    } else if (s->type == TC_SHAPE_TRIMESH) {
        d = tc_trimesh_signed_distance(s->mesh, local, &n);
    }
    if (normal) *normal = tc_quat_rotate(t.q, n);
    return d;
}

static bool ray_sphere(tc_vec3 o, tc_vec3 dir, tc_real r, tc_real max_t, tc_real* t, tc_vec3* n) {
    tc_real a = tc_v3_dot(dir, dir), b = tc_v3_dot(o, dir), c = tc_v3_dot(o, o) - r * r;
    tc_real disc = b * b - a * c;
    if (a <= 0 || disc < 0) return false;
    tc_real root = (-b - sqrt(disc)) / a;
    if (root < 0 || root > max_t) return false;
    *t = root;
    *n = tc_v3_normalize(tc_v3_madd(o, root, dir));
    return true;
}

static bool ray_box(tc_vec3 o, tc_vec3 dir, tc_vec3 h, tc_real max_t, tc_real* t, tc_vec3* n) {
    tc_real lo = 0, hi = max_t;
    int axis = -1;
    for (int i = 0; i < 3; ++i) {
        tc_real oi = tc_v3_get(o, i), di = tc_v3_get(dir, i), hi_ext = tc_v3_get(h, i);
        if (fabs(di) < 1e-300) {
            if (oi < -hi_ext || oi > hi_ext) return false;
            continue;
        }
        tc_real t0 = (-hi_ext - oi) / di, t1 = (hi_ext - oi) / di;
        if (t0 > t1) { tc_real tmp = t0; t0 = t1; t1 = tmp; }
        if (t0 > lo) { lo = t0; axis = i; }
        if (t1 < hi) hi = t1;
        if (lo > hi) return false;
    }
    if (axis < 0) return false; // origin inside the box
    tc_real c[3] = {0, 0, 0};
    c[axis] = tc_v3_get(dir, axis) > 0 ? -1 : 1;
    *t = lo;
    *n = tc_v3(c[0], c[1], c[2]);
    return true;
}

bool tc_shape_ray_cast(const tc_shape* s, tc_transform body, tc_vec3 origin, tc_vec3 dir, tc_real max_t, tc_real* t, tc_vec3* normal) {
    tc_transform w = world_of(s, body);
    tc_vec3 o = tc_transform_inv_point(w, origin), d = tc_quat_inv_rotate(w.q, dir), n;
    bool hit = false;
    if (s->type == TC_SHAPE_SPHERE) hit = ray_sphere(o, d, s->radius, max_t, t, &n);
    else if (s->type == TC_SHAPE_BOX) hit = ray_box(o, d, s->half_extents, max_t, t, &n);
    else if (s->type == TC_SHAPE_HULL) hit = ray_hull(s->hull, o, d, max_t, t, &n);
    else if (s->type == TC_SHAPE_TRIMESH) hit = tc_trimesh_ray_cast(s->mesh, o, d, max_t, t, &n);
    else if (s->type == TC_SHAPE_PLANE) {
        tc_real dn = tc_v3_dot(s->plane_normal, d);
        if (dn < -1e-300) {
            tc_real root = (s->plane_offset - tc_v3_dot(s->plane_normal, o)) / dn;
            if (root >= 0 && root <= max_t) { *t = root; n = s->plane_normal; hit = true; }
        }
    }
    if (hit && normal) *normal = tc_quat_rotate(w.q, n);
    return hit;
}

tc_vec3 tc_shape_support(const tc_shape* s, tc_transform body, tc_vec3 d) {
    tc_transform w = world_of(s, body);
    tc_vec3 l = tc_quat_inv_rotate(w.q, d), r = tc_v3_zero();
    if (s->type == TC_SHAPE_SPHERE) r = tc_v3_scale(tc_v3_normalize(l), s->radius);
    else if (s->type == TC_SHAPE_BOX)
        r = tc_v3(l.x >= 0 ? s->half_extents.x : -s->half_extents.x, l.y >= 0 ? s->half_extents.y : -s->half_extents.y,
                  l.z >= 0 ? s->half_extents.z : -s->half_extents.z);
    else if (s->type == TC_SHAPE_HULL) r = s->hull->vertices[tc_hull_support_index(s->hull, l)];
    return tc_transform_point(w, r);
}
