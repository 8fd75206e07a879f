// Point body creation: validation, phyxel and surfel sampling, sizing, store management.
#include <stdio.h>
#include "dynamics/points/points.h"
#include "dynamics/nodal.h"

tc_points_body_def tc_points_body_def_default(void) {
    tc_points_body_def d;
    memset(&d, 0, sizeof d);
    d.base = tc_body_def_default();
    d.shape = TC_POINTS_BOX;
    d.half_extents = tc_v3(0.1, 0.1, 0.1);
    d.radius = 0.1;
    d.phyxel_spacing = 0.04;
    d.surfel_spacing = 0.015;
    d.jitter = 0.1;
    d.seed = 1;
    d.support_scale = 3;
    d.density = 1000;
    d.youngs_modulus = 1e5;
    d.poisson_ratio = 0.3;
    d.damping = 30;
    d.max_plastic_strain = 1;
    d.fracture_stretch = 1;
    d.pinned_box = tc_aabb_empty();
    d.internal_value = TC_DEF_COOKIE;
    return d;
}

// ---- allocation ----------------------------------------------------------------------------

#define ALLOC_N(ptr, n) ((ptr) = tc_calloc((size_t)((n) > 0 ? (n) : 1), sizeof(*(ptr))))
#define FREE_N(ptr, n) (tc_free((ptr), (size_t)((n) > 0 ? (n) : 1) * sizeof(*(ptr))), (ptr) = NULL)

tc_points_body* tc_points_body_alloc(int np, int ns) {
    tc_points_body* b = tc_calloc(1, sizeof *b);
    if (!b) return NULL;
    b->np = np;
    b->ns = ns;
    ALLOC_N(b->x0, np); ALLOC_N(b->x, np); ALLOC_N(b->v, np); ALLOC_N(b->f_ext, np);
    ALLOC_N(b->m, np); ALLOC_N(b->vol, np); ALLOC_N(b->h, np); ALLOC_N(b->rbar, np);
    ALLOC_N(b->pinned, np); ALLOC_N(b->grad_u, np); ALLOC_N(b->eps_p, np); ALLOC_N(b->dii, np);
    ALLOC_N(b->s0, ns); ALLOC_N(b->n0, ns); ALLOC_N(b->s, ns); ALLOC_N(b->n, ns); ALLOC_N(b->sv, ns);
    ALLOC_N(b->surfel_colliding, ns);
    ALLOC_N(b->work_f, np); ALLOC_N(b->work_x, np); ALLOC_N(b->work_r, np);
    bool ok = b->work_f && b->work_x && b->work_r && b->x0 && b->x && b->v && b->f_ext && b->m && b->vol && b->h && b->rbar && b->pinned && b->grad_u && b->eps_p &&
              b->dii && b->s0 && b->n0 && b->s && b->n && b->sv && b->surfel_colliding;
    if (!ok) {
        tc_points_body_free(b);
        return NULL;
    }
    return b;
}

void tc_points_body_free(tc_points_body* b) {
    if (!b) return;
    int np = b->np, ns = b->ns;
    FREE_N(b->x0, np); FREE_N(b->x, np); FREE_N(b->v, np); FREE_N(b->f_ext, np);
    FREE_N(b->m, np); FREE_N(b->vol, np); FREE_N(b->h, np); FREE_N(b->rbar, np);
    FREE_N(b->pinned, np); FREE_N(b->grad_u, np); FREE_N(b->eps_p, np); FREE_N(b->dii, np);
    FREE_N(b->s0, ns); FREE_N(b->n0, ns); FREE_N(b->s, ns); FREE_N(b->n, ns); FREE_N(b->sv, ns);
    FREE_N(b->surfel_colliding, ns);
    FREE_N(b->work_f, np); FREE_N(b->work_x, np); FREE_N(b->work_r, np);
    // each on its own: a build that ran out of memory may have allocated any subset
    if (b->nb_start) tc_free(b->nb_start, ((size_t)np + 1) * sizeof(int));
    FREE_N(b->nb, b->nb_count); FREE_N(b->nb_d, b->nb_count); FREE_N(b->nb_len0, b->nb_count);
    if (b->sp_start) tc_free(b->sp_start, ((size_t)ns + 1) * sizeof(int));
    FREE_N(b->sp, b->sp_count); FREE_N(b->sp_w, b->sp_count); FREE_N(b->surfel_mass, ns);
    tc_surfel_surface_free(&b->surface);
    tc_array_free(&b->contact_points);
    tc_array_free(&b->contact_normals);
    tc_array_free(&b->static_contacts);
    tc_array_free(&b->proxies);
    tc_free(b, sizeof *b);
}

// ---- sampling ------------------------------------------------------------------------------

static tc_real rand01(uint32_t* state) {
    uint32_t x = *state ? *state : 0x9E3779B9u; // xorshift32: deterministic across platforms
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return (x >> 8) * (1.0 / 16777216.0);
}

// Generalised winding number of a closed mesh around p (1 inside, 0 outside).
static tc_real winding_number(const tc_points_body_def* d, tc_vec3 p) {
    tc_real total = 0;
    for (int t = 0; t < d->mesh_triangle_count; ++t) {
        tc_vec3 a = tc_v3_sub(d->mesh_vertices[d->mesh_triangles[3 * t]], p);
        tc_vec3 b = tc_v3_sub(d->mesh_vertices[d->mesh_triangles[3 * t + 1]], p);
        tc_vec3 c = tc_v3_sub(d->mesh_vertices[d->mesh_triangles[3 * t + 2]], p);
        tc_real la = tc_v3_len(a), lb = tc_v3_len(b), lc = tc_v3_len(c);
        tc_real num = tc_v3_dot(a, tc_v3_cross(b, c));
        tc_real den = la * lb * lc + tc_v3_dot(a, b) * lc + tc_v3_dot(a, c) * lb + tc_v3_dot(b, c) * la;
        total += 2 * atan2(num, den);
    }
    return total / (4 * TC_PI);
}

static bool inside_shape(const tc_points_body_def* d, tc_vec3 p) {
    switch (d->shape) {
    case TC_POINTS_BOX:
        return fabs(p.x) <= d->half_extents.x && fabs(p.y) <= d->half_extents.y && fabs(p.z) <= d->half_extents.z;
    case TC_POINTS_SPHERE: return tc_v3_len(p) <= d->radius;
    case TC_POINTS_MESH: return winding_number(d, p) > 0.5;
    }
    return false;
}

static tc_aabb shape_box(const tc_points_body_def* d) {
    tc_aabb box = tc_aabb_empty();
    if (d->shape == TC_POINTS_BOX) { box.lo = tc_v3_neg(d->half_extents); box.hi = d->half_extents; }
    if (d->shape == TC_POINTS_SPHERE) { box.lo = tc_v3(-d->radius, -d->radius, -d->radius); box.hi = tc_v3_neg(box.lo); }
    if (d->shape == TC_POINTS_MESH)
        for (int i = 0; i < d->mesh_vertex_count; ++i) box = tc_aabb_add_point(box, d->mesh_vertices[i]);
    return box;
}

static tc_real shape_volume(const tc_points_body_def* d) {
    if (d->shape == TC_POINTS_BOX) return 8 * d->half_extents.x * d->half_extents.y * d->half_extents.z;
    if (d->shape == TC_POINTS_SPHERE) return 4.0 / 3.0 * TC_PI * d->radius * d->radius * d->radius;
    tc_real v = 0;
    for (int t = 0; t < d->mesh_triangle_count; ++t) {
        const int* tri = &d->mesh_triangles[3 * t];
        v += tc_v3_dot(d->mesh_vertices[tri[0]], tc_v3_cross(d->mesh_vertices[tri[1]], d->mesh_vertices[tri[2]])) / 6;
    }
    return v;
}

// Jittered grid phyxels inside the shape, cells centred so a box is sampled symmetrically.
typedef TC_ARRAY(tc_vec3) vec3_array;

// Grid cells per axis for the phyxel spacing, in double so a tiny spacing cannot overflow an int.
static void phyxel_grid(const tc_points_body_def* d, tc_real cells[3]) {
    tc_aabb box = shape_box(d);
    for (int k = 0; k < 3; ++k) cells[k] = fmax(1, round((tc_v3_get(box.hi, k) - tc_v3_get(box.lo, k)) / d->phyxel_spacing));
}

// Upper bound on the phyxel count: every grid cell gives at most one phyxel.
static tc_real phyxel_bound(const tc_points_body_def* d) {
    tc_real n[3];
    phyxel_grid(d, n);
    return n[0] * n[1] * n[2];
}

// False when out of memory. Callers check phyxel_bound() first, so the counts fit an int.
static bool sample_phyxels(const tc_points_body_def* d, vec3_array* out) {
    tc_aabb box = shape_box(d);
    tc_vec3 ext = tc_v3_sub(box.hi, box.lo);
    tc_real cells[3], step[3];
    phyxel_grid(d, cells);
    int n[3];
    for (int k = 0; k < 3; ++k) {
        n[k] = (int)cells[k];
        step[k] = tc_v3_get(ext, k) / n[k];
    }
    uint32_t rng = d->seed;
    for (int k = 0; k < n[2]; ++k)
        for (int j = 0; j < n[1]; ++j)
            for (int i = 0; i < n[0]; ++i) {
                tc_vec3 p = tc_v3(box.lo.x + step[0] * (i + 0.5), box.lo.y + step[1] * (j + 0.5), box.lo.z + step[2] * (k + 0.5));
                // One draw per statement: as unsequenced arguments gcc drew z first and clang x
                // first (different bodies per compiler); this keeps gcc's order.
                tc_real jz = rand01(&rng) - 0.5, jy = rand01(&rng) - 0.5, jx = rand01(&rng) - 0.5;
                tc_vec3 jit = tc_v3(jx, jy, jz);
                p = tc_v3_madd(p, d->jitter * d->phyxel_spacing, jit);
                if (inside_shape(d, p) && !tc_array_push(out, p)) return false;
            }
    return true;
}

static bool push_surfel(vec3_array* s, vec3_array* n, tc_vec3 p, tc_vec3 nn) {
    return tc_array_push(s, p) && tc_array_push(n, nn);
}

// Surfels per box face side (u, v) and sphere/mesh totals, in double: callers check
// surfel_bound() before sampling, so the int counts below cannot overflow.
static tc_real face_cells(tc_real half, tc_real spacing) { return fmax(1, round(2 * half / spacing)); }

static tc_real sphere_surfel_count(const tc_points_body_def* d) {
    return fmax(12, round(4 * TC_PI * d->radius * d->radius / (d->surfel_spacing * d->surfel_spacing)));
}

static tc_real triangle_area(const tc_points_body_def* d, int t, tc_vec3* normal) {
    tc_vec3 a = d->mesh_vertices[d->mesh_triangles[3 * t]], b = d->mesh_vertices[d->mesh_triangles[3 * t + 1]],
            c = d->mesh_vertices[d->mesh_triangles[3 * t + 2]];
    tc_vec3 cr = tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(c, a));
    if (normal) *normal = cr;
    return 0.5 * tc_v3_len(cr);
}

static tc_real surfel_bound(const tc_points_body_def* d) {
    if (d->shape == TC_POINTS_SPHERE) return sphere_surfel_count(d);
    tc_real total = 0;
    if (d->shape == TC_POINTS_BOX) {
        for (int axis = 0; axis < 3; ++axis) {
            tc_real hu = tc_v3_get(d->half_extents, (axis + 1) % 3), hv = tc_v3_get(d->half_extents, (axis + 2) % 3);
            total += 2 * face_cells(hu, d->surfel_spacing) * face_cells(hv, d->surfel_spacing);
        }
        return total;
    }
    for (int t = 0; t < d->mesh_triangle_count; ++t) total += triangle_area(d, t, NULL);
    return floor(total / (d->surfel_spacing * d->surfel_spacing)) + 1; // +1: the carried fraction
}

static bool sample_box_surfels(const tc_points_body_def* d, vec3_array* s, vec3_array* n) {
    tc_vec3 he = d->half_extents;
    for (int axis = 0; axis < 3; ++axis)
        for (int side = -1; side <= 1; side += 2) {
            int u = (axis + 1) % 3, v = (axis + 2) % 3;
            tc_real hu = tc_v3_get(he, u), hv = tc_v3_get(he, v);
            int nu = (int)face_cells(hu, d->surfel_spacing), nv = (int)face_cells(hv, d->surfel_spacing);
            for (int j = 0; j < nv; ++j)
                for (int i = 0; i < nu; ++i) {
                    tc_real c[3], nn[3] = {0, 0, 0};
                    c[axis] = side * tc_v3_get(he, axis);
                    c[u] = -hu + 2 * hu * (i + 0.5) / nu;
                    c[v] = -hv + 2 * hv * (j + 0.5) / nv;
                    nn[axis] = side;
                    if (!push_surfel(s, n, tc_v3(c[0], c[1], c[2]), tc_v3(nn[0], nn[1], nn[2]))) return false;
                }
        }
    return true;
}

static bool sample_sphere_surfels(const tc_points_body_def* d, vec3_array* s, vec3_array* n) {
    int count = (int)sphere_surfel_count(d);
    tc_real golden = TC_PI * (3 - sqrt(5.0)); // Fibonacci sphere: near-uniform, deterministic
    for (int i = 0; i < count; ++i) {
        tc_real z = 1 - 2 * (i + 0.5) / count, r = sqrt(fmax(0, 1 - z * z)), phi = golden * i;
        tc_vec3 nn = tc_v3(r * cos(phi), r * sin(phi), z);
        if (!push_surfel(s, n, tc_v3_scale(nn, d->radius), nn)) return false;
    }
    return true;
}

static bool sample_mesh_surfels(const tc_points_body_def* d, vec3_array* s, vec3_array* n) {
    uint32_t rng = d->seed * 2654435761u + 1;
    tc_real carry = 0, cell = d->surfel_spacing * d->surfel_spacing;
    for (int t = 0; t < d->mesh_triangle_count; ++t) {
        tc_vec3 a = d->mesh_vertices[d->mesh_triangles[3 * t]], b = d->mesh_vertices[d->mesh_triangles[3 * t + 1]],
                c = d->mesh_vertices[d->mesh_triangles[3 * t + 2]];
        tc_vec3 cr;
        tc_real want = triangle_area(d, t, &cr) / cell + carry;
        int count = (int)floor(want);
        carry = want - count; // keeps the total proportional to area on finely tessellated meshes
        for (int k = 0; k < count; ++k) {
            tc_real r1 = sqrt(rand01(&rng)), r2 = rand01(&rng);
            tc_vec3 p = tc_v3_add(tc_v3_scale(a, 1 - r1), tc_v3_add(tc_v3_scale(b, r1 * (1 - r2)), tc_v3_scale(c, r1 * r2)));
            if (!push_surfel(s, n, p, tc_v3_normalize(cr))) return false;
        }
    }
    return true;
}

// ---- validation ----------------------------------------------------------------------------

#define REQUIRE(cond, field, ...) \
    do { if (!(cond)) return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, NULL, field, __VA_ARGS__); } while (0)

static tc_result validate_mesh(const tc_points_body_def* d, tc_error* error) {
    REQUIRE(d->mesh_vertices && d->mesh_vertex_count >= 4, "mesh_vertices", "a mesh needs at least 4 vertices");
    REQUIRE(d->mesh_triangles && d->mesh_triangle_count >= 4, "mesh_triangles", "a mesh needs at least 4 triangles");
    for (int i = 0; i < d->mesh_vertex_count; ++i)
        REQUIRE(tc_v3_is_finite(d->mesh_vertices[i]), "mesh_vertices", "vertex %d is not finite", i);
    for (int t = 0; t < 3 * d->mesh_triangle_count; ++t)
        REQUIRE(d->mesh_triangles[t] >= 0 && d->mesh_triangles[t] < d->mesh_vertex_count, "mesh_triangles",
                "index %d out of range [0, %d)", d->mesh_triangles[t], d->mesh_vertex_count);
    REQUIRE(shape_volume(d) > 0, "mesh_triangles", "the mesh encloses no volume (open, or wound clockwise)");
    return TC_RESULT_OK;
}

static tc_result validate_def(const tc_points_body_def* d, tc_error* error) {
    REQUIRE(d, "def", "def is NULL");
    REQUIRE(d->internal_value == TC_DEF_COOKIE, "def", "not initialised with tc_points_body_def_default()");
    REQUIRE(tc_v3_is_finite(d->base.pose.p) && tc_quat_len(d->base.pose.q) > 1e-9, "pose", "pose is not finite");
    REQUIRE(tc_v3_is_finite(d->base.linear_velocity) && tc_v3_is_finite(d->base.angular_velocity), "linear_velocity", "velocity is not finite");
    if (d->shape == TC_POINTS_BOX)
        REQUIRE(d->half_extents.x > 0 && d->half_extents.y > 0 && d->half_extents.z > 0 && tc_v3_is_finite(d->half_extents),
                "half_extents", "half extents must be positive and finite");
    else if (d->shape == TC_POINTS_SPHERE)
        REQUIRE(d->radius > 0 && isfinite(d->radius), "radius", "radius must be positive and finite");
    else if (d->shape == TC_POINTS_MESH) {
        tc_result r = validate_mesh(d, error);
        if (r != TC_RESULT_OK) return r;
    } else
        REQUIRE(false, "shape", "unknown shape %d", (int)d->shape);
    REQUIRE(d->phyxel_spacing > 0 && isfinite(d->phyxel_spacing), "phyxel_spacing", "must be positive and finite");
    REQUIRE(d->surfel_spacing > 0 && isfinite(d->surfel_spacing), "surfel_spacing", "must be positive and finite");
    // Counts in double before sampling: a tiny spacing would otherwise overflow an int or
    // exhaust memory (body setup is also quadratic in the phyxel count).
    tc_real phyxels = phyxel_bound(d), surfels = surfel_bound(d);
    REQUIRE(phyxels <= TC_POINTS_MAX_PHYXELS, "phyxel_spacing", "would create up to %.3g phyxels (limit %d)", phyxels,
            TC_POINTS_MAX_PHYXELS);
    REQUIRE(surfels <= TC_POINTS_MAX_SURFELS, "surfel_spacing", "would create %.3g surfels (limit %d)", surfels,
            TC_POINTS_MAX_SURFELS);
    REQUIRE(d->jitter >= 0 && d->jitter <= 0.5, "jitter", "must be in [0, 0.5]");
    REQUIRE(d->support_scale >= 1.5 && d->support_scale <= 6, "support_scale", "must be in [1.5, 6]");
    REQUIRE(d->density > 0 && isfinite(d->density), "density", "must be positive and finite");
    REQUIRE(d->youngs_modulus > 0 && isfinite(d->youngs_modulus), "youngs_modulus", "must be positive and finite");
    REQUIRE(d->poisson_ratio >= 0 && d->poisson_ratio < 0.5, "poisson_ratio", "must be in [0, 0.5)");
    REQUIRE(d->volume_stiffness >= 0 && isfinite(d->volume_stiffness), "volume_stiffness", "must be >= 0 and finite");
    REQUIRE(d->damping >= 0 && isfinite(d->damping), "damping", "must be >= 0 and finite");
    REQUIRE(d->yield_strain >= 0 && isfinite(d->yield_strain), "yield_strain", "must be >= 0 and finite");
    REQUIRE(d->creep >= 0 && isfinite(d->creep), "creep", "must be >= 0 and finite");
    REQUIRE(d->max_plastic_strain >= 0 && isfinite(d->max_plastic_strain), "max_plastic_strain", "must be >= 0 and finite");
    REQUIRE(d->fracture_stretch >= 1 && isfinite(d->fracture_stretch), "fracture_stretch", "must be >= 1 and finite");
    REQUIRE(d->contact_stiffness >= 0 && isfinite(d->contact_stiffness), "contact_stiffness", "must be >= 0 and finite");
    REQUIRE(d->contact_resample_spacing >= 0 && isfinite(d->contact_resample_spacing), "contact_resample_spacing", "must be >= 0 and finite");
    REQUIRE(d->base.material.friction >= 0 && isfinite(d->base.material.friction), "material.friction", "must be >= 0");
    return TC_RESULT_OK;
}

// ---- sizing --------------------------------------------------------------------------------

// Mean distance to the k = 10 nearest phyxels (fewer if the body is smaller).
static void mean_neighbour_distance(tc_points_body* b) {
    enum { K = 10 };
    for (int i = 0; i < b->np; ++i) {
        tc_real best[K];
        int n = 0;
        for (int j = 0; j < b->np; ++j) {
            if (j == i) continue;
            tc_real d = tc_v3_dist(b->x0[i], b->x0[j]);
            int pos = n < K ? n++ : K;
            if (pos == K && d >= best[K - 1]) continue;
            if (pos == K) pos = K - 1;
            while (pos > 0 && best[pos - 1] > d) { best[pos] = best[pos - 1]; pos--; }
            best[pos] = d;
        }
        tc_real sum = 0;
        for (int k = 0; k < n; ++k) sum += best[k];
        b->rbar[i] = n ? sum / n : 1;
    }
}

// m_i proportional to rbar_i^3, scaled so the total mass is density x shape volume; vol_i = m_i/rho_i.
static void size_masses(tc_points_body* b, tc_real volume) {
    tc_real sum = 0;
    for (int i = 0; i < b->np; ++i) sum += b->rbar[i] * b->rbar[i] * b->rbar[i];
    tc_real s = b->mat.density * volume / sum;
    b->total_mass = 0;
    for (int i = 0; i < b->np; ++i) {
        b->m[i] = s * b->rbar[i] * b->rbar[i] * b->rbar[i];
        b->total_mass += b->m[i];
    }
    for (int i = 0; i < b->np; ++i) {
        tc_real rho = b->m[i] * tc_poly6(0, b->h[i]);
        for (int t = b->nb_start[i]; t < b->nb_start[i + 1]; ++t)
            rho += b->m[b->nb[t]] * tc_poly6(tc_v3_len2(tc_v3_sub(b->x0[b->nb[t]], b->x0[i])), b->h[i]);
        b->vol[i] = b->m[i] / rho;
    }
}

bool tc_points_build_surfel_weights(tc_points_body* b) {
    int total = 0;
    for (int pass = 0; pass < 2; ++pass) {
        int t = 0;
        for (int k = 0; k < b->ns; ++k) {
            if (pass == 1) b->sp_start[k] = t;
            int first = t, nearest = 0;
            tc_real wsum = 0, best = INFINITY;
            for (int i = 0; i < b->np; ++i) {
                tc_real r2 = tc_v3_len2(tc_v3_sub(b->s0[k], b->x0[i]));
                if (r2 < best) { best = r2; nearest = i; }
                tc_real w = tc_poly6(r2, b->h[i]);
                if (w <= 0) continue;
                if (pass == 1) { b->sp[t] = i; b->sp_w[t] = w; }
                wsum += w;
                t++;
            }
            if (t == first) { // no phyxel reaches this surfel: follow the nearest one
                if (pass == 1) { b->sp[t] = nearest; b->sp_w[t] = 1; }
                wsum = 1;
                t++;
            }
            if (pass == 1)
                for (int q = first; q < t; ++q) b->sp_w[q] /= wsum;
        }
        if (pass == 0) {
            total = t;
            b->sp_count = total;
            b->sp_start = tc_alloc(((size_t)b->ns + 1) * sizeof(int));
            ALLOC_N(b->sp, total);
            ALLOC_N(b->sp_w, total);
            if (!b->sp_start || !b->sp || !b->sp_w) return false;
        } else
            b->sp_start[b->ns] = t;
    }
    return true;
}

bool tc_points_build_surfel_masses(tc_points_body* b) {
    tc_real* load = tc_calloc((size_t)b->np, sizeof(tc_real)); // the weights each phyxel carries
    if (!b->surfel_mass) ALLOC_N(b->surfel_mass, b->ns);
    if (!load || !b->surfel_mass) {
        if (load) tc_free(load, (size_t)b->np * sizeof(tc_real));
        return false;
    }
    for (int t = 0; t < b->sp_count; ++t) load[b->sp[t]] += b->sp_w[t];
    for (int k = 0; k < b->ns; ++k) {
        tc_real m = 0;
        for (int t = b->sp_start[k]; t < b->sp_start[k + 1]; ++t) m += b->m[b->sp[t]] * b->sp_w[t] / load[b->sp[t]];
        b->surfel_mass[k] = m;
    }
    tc_free(load, (size_t)b->np * sizeof(tc_real));
    return true;
}

static void set_material(tc_points_body* b, const tc_points_body_def* d) {
    tc_real E = d->youngs_modulus, nu = d->poisson_ratio;
    b->mat.youngs = E;
    b->mat.lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
    b->mat.mu = E / (2 * (1 + nu));
    b->mat.kv = d->volume_stiffness;
    b->mat.density = d->density;
    b->mat.damping = d->damping;
    b->mat.yield = d->yield_strain;
    b->mat.creep = d->creep;
    b->mat.max_plastic = d->max_plastic_strain;
    b->surface_material = d->base.material;
    b->fracture = d->fracture;
    b->fracture_stretch = d->fracture_stretch;
    b->contact_stiffness = d->contact_stiffness;
    b->surfel_spacing = d->surfel_spacing;
    b->resample_spacing = d->contact_resample_spacing > 0 ? d->contact_resample_spacing : d->surfel_spacing;
    b->seed_density_scaling = d->seed_density_scaling;
    b->surfel_radius = 0.75 * d->surfel_spacing;
}

tc_result tc_points_body_build(const tc_points_body_def* d, tc_points_body** out, tc_error* error) {
    tc_result r = validate_def(d, error);
    if (r != TC_RESULT_OK) return r;
    vec3_array px = {0}, ss = {0}, sn = {0};
    bool sampled = sample_phyxels(d, &px);
    if (sampled && d->shape == TC_POINTS_BOX) sampled = sample_box_surfels(d, &ss, &sn);
    else if (sampled && d->shape == TC_POINTS_SPHERE) sampled = sample_sphere_surfels(d, &ss, &sn);
    else if (sampled) sampled = sample_mesh_surfels(d, &ss, &sn);
    r = TC_RESULT_OK;
    tc_points_body* b = NULL;
    if (!sampled)
        r = tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, "points", "out of memory sampling %d phyxels and %d surfels",
                         px.count, ss.count);
    else if (px.count < 5)
        r = tc_error_set(error, TC_RESULT_DEGENERATE, NULL, "phyxel_spacing", "only %d phyxels fit in the shape; at least 5 are needed", px.count);
    else if (ss.count < 4)
        r = tc_error_set(error, TC_RESULT_DEGENERATE, NULL, "surfel_spacing", "only %d surfels on the shape", ss.count);
    else
        r = tc_nodal_check_placement(ss.data, ss.count, d->base.pose.p, error);
    if (r == TC_RESULT_OK && !(b = tc_points_body_alloc(px.count, ss.count)))
        r = tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, "points", "out of memory");
    if (r == TC_RESULT_OK) {
        tc_transform T = d->base.pose;
        T.q = tc_quat_normalize(T.q);
        set_material(b, d);
        for (int i = 0; i < b->np; ++i) {
            b->x0[i] = b->x[i] = tc_transform_point(T, px.data[i]);
            tc_vec3 rel = tc_quat_rotate(T.q, px.data[i]);
            b->v[i] = tc_v3_add(d->base.linear_velocity, tc_v3_cross(d->base.angular_velocity, rel));
            b->pinned[i] = tc_aabb_contains_point(d->pinned_box, px.data[i]);
        }
        for (int k = 0; k < b->ns; ++k) {
            b->s0[k] = b->s[k] = tc_transform_point(T, ss.data[k]);
            b->n0[k] = b->n[k] = tc_quat_rotate(T.q, sn.data[k]);
        }
        mean_neighbour_distance(b);
        for (int i = 0; i < b->np; ++i) b->h[i] = d->support_scale * b->rbar[i];
        int bad = -1;
        if (!tc_points_build_neighbours(b, &bad) && bad < 0)
            r = tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, "points", "out of memory for the neighbour lists");
        else if (bad >= 0)
            r = tc_error_set(error, TC_RESULT_DEGENERATE, NULL, "phyxel_spacing",
                             "phyxel %d has fewer than 4 non-coplanar neighbours; use a smaller spacing", bad);
        else if (!tc_points_build_surfel_weights(b))
            r = tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, "points", "out of memory");
    }
    if (r == TC_RESULT_OK) {
        size_masses(b, shape_volume(d));
        b->min_support = INFINITY;
        for (int i = 0; i < b->np; ++i) b->min_support = fmin(b->min_support, b->h[i]);
        b->rest_operator_norm = b->operator_norm = tc_points_operator_norm(b);
        if (isnan(b->operator_norm) || !tc_points_update_surfels(b) || !tc_points_build_surfel_masses(b))
            r = tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, "points", "out of memory");
    }
    if (r == TC_RESULT_OK)
        *out = b;
    else
        tc_points_body_free(b);
    tc_array_free(&px);
    tc_array_free(&ss);
    tc_array_free(&sn);
    return r;
}

tc_result tc_points_store_insert(tc_world* w, tc_points_body* b, const char* name, void* user_data, tc_body_id* id) {
    tc_points_store* s = tc_world_store(w, TC_BODY_POINTS, sizeof(tc_points_store));
    if (!s || !tc_array_push(&s->bodies, b)) return TC_RESULT_OUT_OF_MEMORY;
    tc_result r = tc_world_alloc_body(w, TC_BODY_POINTS, s->bodies.count - 1, name, user_data, id);
    if (r != TC_RESULT_OK) {
        s->bodies.count--;
        return r;
    }
    b->slot = id->index1 - 1;
    return TC_RESULT_OK;
}

tc_result tc_points_body_create(tc_world* w, const tc_points_body_def* def, tc_body_id* out_id, tc_error* error) {
    if (!w || !out_id) return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, NULL, "world", "world or out_id is NULL");
    tc_result r = tc_world_check_unlocked(w);
    if (r != TC_RESULT_OK) return tc_error_set(error, r, NULL, "world", "cannot create a body during a step");
    tc_points_body* b = NULL;
    r = tc_points_body_build(def, &b, error);
    if (r != TC_RESULT_OK) return r;
    r = tc_points_store_insert(w, b, def->base.name, def->base.user_data, out_id);
    if (r != TC_RESULT_OK) {
        tc_points_body_free(b);
        return tc_error_set(error, r, NULL, "points", "out of memory");
    }
    return TC_RESULT_OK;
}

void tc_points_remove_body(tc_world* w, int index);
void tc_points_remove_body(tc_world* w, int index) {
    tc_points_store* s = tc_points_store_of(w);
    tc_points_body_free(s->bodies.data[index]);
    int last = s->bodies.count - 1;
    if (index != last) {
        s->bodies.data[index] = s->bodies.data[last];
        tc_world_body_moved(w, s->bodies.data[index]->slot, index);
    }
    s->bodies.count--;
}

void tc_points_destroy_store(tc_world* w);
void tc_points_destroy_store(tc_world* w) {
    tc_points_store* s = tc_points_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i) tc_points_body_free(s->bodies.data[i]);
    tc_array_free(&s->bodies);
    tc_free(s, sizeof *s);
    w->stores[TC_BODY_POINTS] = NULL;
}

// ---- getters -------------------------------------------------------------------------------

static const tc_points_body* lookup(const tc_world* w, tc_body_id id) {
    if (!tc_body_is_valid(w, id)) return NULL;
    const tc_body_slot* s = &w->slots.data[id.index1 - 1];
    return s->kind == TC_BODY_POINTS ? tc_points_body_at(w, s->index) : NULL;
}

int tc_points_body_get_phyxel_count(const tc_world* w, tc_body_id id) {
    const tc_points_body* b = lookup(w, id);
    return b ? b->np : 0;
}

static int copy_vec3(const tc_vec3* src, int n, tc_vec3* out, int capacity) {
    if (out)
        for (int i = 0; i < n && i < capacity; ++i) out[i] = src[i];
    return n;
}

int tc_points_body_get_phyxels(const tc_world* w, tc_body_id id, tc_vec3* out, int capacity) {
    const tc_points_body* b = lookup(w, id);
    return b ? copy_vec3(b->x, b->np, out, capacity) : 0;
}

int tc_points_body_get_velocities(const tc_world* w, tc_body_id id, tc_vec3* out, int capacity) {
    const tc_points_body* b = lookup(w, id);
    return b ? copy_vec3(b->v, b->np, out, capacity) : 0;
}

int tc_points_body_get_surfel_count(const tc_world* w, tc_body_id id) {
    const tc_points_body* b = lookup(w, id);
    return b ? b->ns : 0;
}

int tc_points_body_get_surfels(const tc_world* w, tc_body_id id, tc_vec3* positions, tc_vec3* normals, int capacity) {
    const tc_points_body* b = lookup(w, id);
    if (!b) return 0;
    copy_vec3(b->s, b->ns, positions, capacity);
    return copy_vec3(b->n, b->ns, normals, capacity);
}

uint32_t tc_points_body_get_mark(const tc_world* w, tc_body_id id) {
    const tc_points_body* b = lookup(w, id);
    return b ? b->mark : 0;
}

tc_result tc_points_body_set_velocity(tc_world* w, tc_body_id id, tc_vec3 v) {
    if (!tc_body_is_valid(w, id)) return TC_RESULT_STALE_ID;
    if (!tc_v3_is_finite(v)) return TC_RESULT_NOT_FINITE;
    tc_points_body* b = (tc_points_body*)lookup(w, id);
    if (!b) return TC_RESULT_UNSUPPORTED;
    for (int i = 0; i < b->np; ++i) b->v[i] = b->pinned[i] ? tc_v3_zero() : v;
    return TC_RESULT_OK;
}

tc_result tc_points_body_apply_force(tc_world* w, tc_body_id id, tc_vec3 f) {
    if (!tc_body_is_valid(w, id)) return TC_RESULT_STALE_ID;
    if (!tc_v3_is_finite(f)) return TC_RESULT_NOT_FINITE;
    tc_points_body* b = (tc_points_body*)lookup(w, id);
    if (!b) return TC_RESULT_UNSUPPORTED;
    b->user_force = tc_v3_add(b->user_force, f);
    return TC_RESULT_OK;
}
