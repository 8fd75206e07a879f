// Creating tet bodies: lattice generators, validation, boundary surface, edges, masses.
#include "dynamics/tet/tet.h"
#include "dynamics/nodal.h"

#include <stdlib.h>
#include <string.h>

typedef TC_ARRAY(tc_vec3) vec_list;
typedef TC_ARRAY(int) int_list;

tc_tet_body_def tc_tet_body_def_default(void) {
    tc_tet_body_def d;
    memset(&d, 0, sizeof d);
    d.base.pose = tc_transform_identity();
    d.base.material = (tc_material){0.5, 0};
    d.shape = TC_TET_BOX;
    d.half_extents = tc_v3(0.2, 0.2, 0.2);
    d.radius = 0.2;
    d.resolution = 4;
    d.density = 1000;
    d.youngs_modulus = 1e5;
    d.poisson_ratio = 0.3;
    d.damping = 0.01;
    d.solver_tolerance = 1e-8;
    d.fixed_box = tc_aabb_empty();
    d.internal_value = TC_DEF_COOKIE;
    return d;
}

// Six tets per cube around the 000-111 diagonal (Freudenthal): every cube uses the same split,
// so neighbouring cubes share their face diagonals and the mesh is conforming.
static void add_cube(int_list* tets, const int c[8]) {
    static const int paths[6][2] = {{1, 3}, {1, 5}, {2, 3}, {2, 6}, {4, 5}, {4, 6}};
    for (int k = 0; k < 6; ++k) {
        tc_array_push(tets, c[0]);
        tc_array_push(tets, c[paths[k][0]]);
        tc_array_push(tets, c[paths[k][1]]);
        tc_array_push(tets, c[7]);
    }
}

static void lattice(vec_list* verts, int_list* tets, tc_vec3 lo, tc_vec3 hi, int nx, int ny, int nz, tc_real radius) {
    int* id = malloc((size_t)(nx + 1) * (ny + 1) * (nz + 1) * sizeof(int));
    if (!id) return;
    for (int i = 0; i < (nx + 1) * (ny + 1) * (nz + 1); ++i) id[i] = -1;
    tc_vec3 step = tc_v3((hi.x - lo.x) / nx, (hi.y - lo.y) / ny, (hi.z - lo.z) / nz);
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                tc_vec3 center = tc_v3(lo.x + (i + 0.5) * step.x, lo.y + (j + 0.5) * step.y, lo.z + (k + 0.5) * step.z);
                if (radius > 0 && tc_v3_len(center) > radius) continue;
                int c[8];
                for (int q = 0; q < 8; ++q) {
                    int gi = i + (q & 1), gj = j + ((q >> 1) & 1), gk = k + ((q >> 2) & 1);
                    int key = (gk * (ny + 1) + gj) * (nx + 1) + gi;
                    if (id[key] < 0) {
                        id[key] = verts->count;
                        tc_array_push(verts, tc_v3(lo.x + gi * step.x, lo.y + gj * step.y, lo.z + gk * step.z));
                    }
                    c[q] = id[key];
                }
                add_cube(tets, c);
            }
    free(id);
}

static tc_result generate(const tc_tet_body_def* d, vec_list* verts, int_list* tets, tc_error* e) {
    int r = d->resolution;
    if (d->shape == TC_TET_MESH) {
        if (!d->vertices || d->vertex_count < 4 || !d->tets || d->tet_count < 1)
            return tc_error_set(e, TC_RESULT_DEGENERATE, NULL, "tets", "a tet mesh needs at least 4 vertices and 1 tet");
        for (int i = 0; i < d->vertex_count; ++i) tc_array_push(verts, d->vertices[i]);
        for (int i = 0; i < 4 * d->tet_count; ++i) tc_array_push(tets, d->tets[i]);
        return TC_RESULT_OK;
    }
    if (r < 1 || r > 64) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "resolution", "must be in [1, 64] (got %d)", r);
    if (d->shape == TC_TET_BOX) {
        tc_vec3 h = d->half_extents;
        if (!(h.x > 0 && h.y > 0 && h.z > 0) || !tc_v3_is_finite(h))
            return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "half_extents", "every component must be positive and finite");
        tc_real cell = 2 * fmax(h.x, fmax(h.y, h.z)) / r;
        int nx = (int)fmax(1, round(2 * h.x / cell)), ny = (int)fmax(1, round(2 * h.y / cell)), nz = (int)fmax(1, round(2 * h.z / cell));
        lattice(verts, tets, tc_v3_neg(h), h, nx, ny, nz, 0);
    } else if (d->shape == TC_TET_SPHERE) {
        if (!(d->radius > 0) || !isfinite(d->radius)) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "radius", "must be positive and finite");
        tc_vec3 h = tc_v3(d->radius, d->radius, d->radius);
        lattice(verts, tets, tc_v3_neg(h), h, r, r, r, d->radius);
        if (tets->count == 0) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "resolution", "too coarse for a sphere");
    } else {
        return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "shape", "unknown shape %d", (int)d->shape);
    }
    for (int k = 0; k < tets->count / 4; ++k) { // half the Freudenthal paths run clockwise: flip those
        int* q = tets->data + 4 * k;
        tc_vec3 a = verts->data[q[0]];
        if (tc_v3_dot(tc_v3_sub(verts->data[q[1]], a), tc_v3_cross(tc_v3_sub(verts->data[q[2]], a), tc_v3_sub(verts->data[q[3]], a))) < 0) {
            int t = q[1];
            q[1] = q[2], q[2] = t;
        }
    }
    return TC_RESULT_OK;
}

static tc_result check_def(const tc_tet_body_def* d, tc_error* e) {
    if (!d || d->internal_value != TC_DEF_COOKIE)
        return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "def", "use tc_tet_body_def_default() to initialise the def");
    if (!(d->density > 0) || !isfinite(d->density)) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "density", "must be positive and finite (got %g)", d->density);
    if (!(d->youngs_modulus > 0) || !isfinite(d->youngs_modulus))
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "youngs_modulus", "must be positive and finite (got %g)", d->youngs_modulus);
    if (!(d->poisson_ratio >= 0 && d->poisson_ratio < 0.5))
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "poisson_ratio", "must be in [0, 0.5) (got %g)", d->poisson_ratio);
    if (!(d->damping >= 0) || !isfinite(d->damping)) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "damping", "must be >= 0 and finite");
    if (!(d->solver_tolerance > 0 && d->solver_tolerance <= 0.1))
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "solver_tolerance", "must be in (0, 0.1] (got %g)", d->solver_tolerance);
    if (!tc_v3_is_finite(d->base.pose.p) || !tc_v3_is_finite(d->base.linear_velocity) || !tc_v3_is_finite(d->base.angular_velocity))
        return tc_error_set(e, TC_RESULT_NOT_FINITE, NULL, "position", "pose and velocities must be finite");
    return TC_RESULT_OK;
}

static tc_result check_tets(const vec_list* v, const int_list* t, tc_error* e) {
    for (int i = 0; i < v->count; ++i)
        if (!tc_v3_is_finite(v->data[i])) return tc_error_set(e, TC_RESULT_NOT_FINITE, NULL, "vertices", "vertex %d is not finite", i);
    tc_aabb box = tc_aabb_empty();
    for (int i = 0; i < v->count; ++i) box = tc_aabb_add_point(box, v->data[i]);
    tc_real size = tc_v3_len(tc_v3_sub(box.hi, box.lo));
    for (int k = 0; k < t->count / 4; ++k) {
        const int* q = t->data + 4 * k;
        for (int j = 0; j < 4; ++j)
            if (q[j] < 0 || q[j] >= v->count) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "tets", "tet %d: vertex %d out of range", k, q[j]);
        tc_vec3 a = v->data[q[0]];
        tc_real vol = tc_v3_dot(tc_v3_sub(v->data[q[1]], a), tc_v3_cross(tc_v3_sub(v->data[q[2]], a), tc_v3_sub(v->data[q[3]], a))) / 6;
        if (fabs(vol) <= 1e-12 * size * size * size) return tc_error_set(e, TC_RESULT_DEGENERATE, NULL, "tets", "tet %d has zero volume", k);
        if (vol < 0) return tc_error_set(e, TC_RESULT_DEGENERATE, NULL, "tets", "tet %d is inverted (negative volume)", k);
    }
    return TC_RESULT_OK;
}

typedef struct face_key {
    int v[3];     ///< sorted
    int oriented[3];
} face_key;

static int compare_faces(const void* a, const void* b) {
    const face_key *x = a, *y = b;
    for (int k = 0; k < 3; ++k)
        if (x->v[k] != y->v[k]) return x->v[k] < y->v[k] ? -1 : 1;
    return 0;
}

static void sort3(int* v) {
    if (v[0] > v[1]) { int t = v[0]; v[0] = v[1]; v[1] = t; }
    if (v[1] > v[2]) { int t = v[1]; v[1] = v[2]; v[2] = t; }
    if (v[0] > v[1]) { int t = v[0]; v[0] = v[1]; v[1] = t; }
}

// Boundary faces are the faces of exactly one tet, kept with that tet's outward orientation.
static bool build_surface(tc_tet_body* b) {
    static const int local[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    int nf = 4 * b->tet_count;
    face_key* f = malloc((size_t)nf * sizeof *f);
    if (!f) return false;
    for (int t = 0; t < b->tet_count; ++t)
        for (int k = 0; k < 4; ++k) {
            face_key* q = &f[4 * t + k];
            for (int j = 0; j < 3; ++j) q->oriented[j] = q->v[j] = b->tets[4 * t + local[k][j]];
            sort3(q->v);
        }
    qsort(f, (size_t)nf, sizeof *f, compare_faces);
    int_list faces = {0};
    for (int i = 0; i < nf;) {
        int j = i + 1;
        while (j < nf && compare_faces(&f[i], &f[j]) == 0) ++j;
        if (j - i == 1)
            for (int k = 0; k < 3; ++k) tc_array_push(&faces, f[i].oriented[k]);
        i = j;
    }
    free(f);
    b->face_count = faces.count / 3;
    b->faces = tc_alloc((size_t)faces.count * sizeof(int) + 1);
    if (b->faces && faces.count) memcpy(b->faces, faces.data, (size_t)faces.count * sizeof(int));
    tc_array_free(&faces);
    b->on_surface = tc_calloc((size_t)b->n, sizeof(bool));
    b->vertex_normals = tc_calloc((size_t)b->n, sizeof(tc_vec3));
    if (!b->faces || !b->on_surface || !b->vertex_normals) return false;
    for (int i = 0; i < 3 * b->face_count; ++i) b->on_surface[b->faces[i]] = true;
    for (int i = 0; i < b->n; ++i) b->surf_count += b->on_surface[i];
    b->surf = tc_alloc((size_t)b->surf_count * sizeof(int) + 1);
    if (!b->surf) return false;
    for (int i = 0, k = 0; i < b->n; ++i)
        if (b->on_surface[i]) b->surf[k++] = i;
    return true;
}

static int compare_edges(const void* a, const void* b) {
    const int *x = a, *y = b;
    return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

static bool build_edges(tc_tet_body* b) {
    int* e = malloc((size_t)b->tet_count * 12 * sizeof(int));
    if (!e) return false;
    static const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    for (int t = 0; t < b->tet_count; ++t)
        for (int k = 0; k < 6; ++k) {
            int u = b->tets[4 * t + pairs[k][0]], v = b->tets[4 * t + pairs[k][1]];
            e[2 * (6 * t + k)] = u < v ? u : v;
            e[2 * (6 * t + k) + 1] = u < v ? v : u;
        }
    qsort(e, (size_t)b->tet_count * 6, 2 * sizeof(int), compare_edges);
    int count = 0;
    for (int i = 0; i < 6 * b->tet_count; ++i)
        if (i == 0 || compare_edges(&e[2 * i], &e[2 * (i - 1)]) != 0) e[2 * count] = e[2 * i], e[2 * count + 1] = e[2 * i + 1], count++;
    b->edge_count = count;
    b->edges = tc_alloc(2 * (size_t)count * sizeof(int));
    b->adj_start = tc_calloc((size_t)b->n + 1, sizeof(int));
    b->adj = tc_alloc(2 * (size_t)count * sizeof(int));
    int* fill = calloc((size_t)b->n, sizeof(int));
    bool ok = b->edges && b->adj_start && b->adj && fill;
    if (ok) {
        memcpy(b->edges, e, 2 * (size_t)count * sizeof(int));
        for (int k = 0; k < count; ++k) b->adj_start[e[2 * k] + 1]++, b->adj_start[e[2 * k + 1] + 1]++;
        for (int v = 0; v < b->n; ++v) b->adj_start[v + 1] += b->adj_start[v];
        for (int k = 0; k < count; ++k) {
            int u = e[2 * k], v = e[2 * k + 1];
            b->adj[b->adj_start[u] + fill[u]++] = v;
            b->adj[b->adj_start[v] + fill[v]++] = u;
        }
        tc_real sum = 0;
        for (int k = 0; k < count; ++k) sum += tc_v3_dist(b->rest[e[2 * k]], b->rest[e[2 * k + 1]]);
        b->mean_edge = count ? sum / count : 0;
    }
    free(fill);
    free(e);
    return ok;
}

static bool fill_body(tc_tet_body* b, const vec_list* v, const int_list* t, const tc_tet_body_def* d) {
    b->n = v->count, b->tet_count = t->count / 4;
    size_t n = (size_t)b->n, nt = (size_t)b->tet_count;
    b->x = tc_alloc(n * sizeof(tc_vec3)), b->v = tc_calloc(n, sizeof(tc_vec3)), b->f = tc_calloc(n, sizeof(tc_vec3));
    b->rest = tc_alloc(n * sizeof(tc_vec3)), b->m = tc_calloc(n, sizeof(tc_real)), b->fixed = tc_calloc(n, sizeof(bool));
    b->contact_jac = tc_calloc(n, sizeof(tc_mat3));
    b->tets = tc_alloc(4 * nt * sizeof(int)), b->inv_dm = tc_alloc(nt * sizeof(tc_mat3)), b->volume = tc_alloc(nt * sizeof(tc_real));
    if (!b->x || !b->v || !b->f || !b->rest || !b->m || !b->fixed || !b->contact_jac || !b->tets || !b->inv_dm || !b->volume) return false;
    memcpy(b->tets, t->data, 4 * nt * sizeof(int));
    for (int i = 0; i < b->n; ++i) {
        b->rest[i] = v->data[i];
        b->x[i] = tc_transform_point(d->base.pose, v->data[i]);
        b->v[i] = tc_v3_add(d->base.linear_velocity, tc_v3_cross(d->base.angular_velocity, tc_v3_sub(b->x[i], d->base.pose.p)));
        b->fixed[i] = tc_aabb_contains_point(d->fixed_box, v->data[i]);
        if (b->fixed[i]) b->v[i] = tc_v3_zero();
    }
    for (int k = 0; k < b->tet_count; ++k) {
        const int* q = b->tets + 4 * k;
        tc_mat3 dm = tc_mat3_from_cols(tc_v3_sub(b->rest[q[1]], b->rest[q[0]]), tc_v3_sub(b->rest[q[2]], b->rest[q[0]]),
                                       tc_v3_sub(b->rest[q[3]], b->rest[q[0]]));
        b->inv_dm[k] = tc_mat3_inverse(dm);
        b->volume[k] = tc_mat3_det(dm) / 6;
        for (int j = 0; j < 4; ++j) b->m[q[j]] += d->density * b->volume[k] / 4;
        b->total_mass += d->density * b->volume[k];
    }
    for (int i = 0; i < b->n; ++i) // a vertex of no tet has no mass: it stays where it is, inert
        if (b->m[i] == 0) b->fixed[i] = true, b->v[i] = tc_v3_zero();
    tc_real E = d->youngs_modulus, nu = d->poisson_ratio;
    b->mu = E / (2 * (1 + nu));
    b->lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
    b->beta = d->damping;
    b->cg_tolerance = d->solver_tolerance;
    b->depth_method = d->depth_method;
    b->self_collision = d->self_collision;
    b->material = d->base.material;
    if (!build_surface(b) || !build_edges(b) || !tc_tet_solver_init(b)) return false;
    tc_tet_update_surface(b);
    return true;
}

void tc_tet_free_body(tc_tet_body* b);
void tc_tet_free_body(tc_tet_body* b) {
    size_t n = (size_t)b->n, nt = (size_t)b->tet_count;
    tc_tet_solver_free(b); // before the adjacency, which sizes its blocks
    tc_free(b->x, n * sizeof(tc_vec3)), tc_free(b->v, n * sizeof(tc_vec3)), tc_free(b->f, n * sizeof(tc_vec3));
    tc_free(b->rest, n * sizeof(tc_vec3)), tc_free(b->m, n * sizeof(tc_real)), tc_free(b->fixed, n * sizeof(bool));
    tc_free(b->contact_jac, n * sizeof(tc_mat3));
    tc_free(b->tets, 4 * nt * sizeof(int)), tc_free(b->inv_dm, nt * sizeof(tc_mat3)), tc_free(b->volume, nt * sizeof(tc_real));
    tc_free(b->faces, 3 * (size_t)b->face_count * sizeof(int) + 1);
    tc_free(b->on_surface, n * sizeof(bool)), tc_free(b->vertex_normals, n * sizeof(tc_vec3));
    tc_free(b->surf, (size_t)b->surf_count * sizeof(int) + 1);
    tc_free(b->edges, 2 * (size_t)b->edge_count * sizeof(int)), tc_free(b->adj, 2 * (size_t)b->edge_count * sizeof(int));
    tc_free(b->adj_start, (n + 1) * sizeof(int));
}

tc_result tc_tet_body_create(tc_world* w, const tc_tet_body_def* d, tc_body_id* id, tc_error* e) {
    if (!w || !id) return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "world", "world and id are required");
    tc_result r = tc_world_check_unlocked(w);
    if (r || (r = check_def(d, e))) return r;
    vec_list verts = {0};
    int_list tets = {0};
    if (!(r = generate(d, &verts, &tets, e)) && !(r = check_tets(&verts, &tets, e)))
        r = tc_nodal_check_placement(verts.data, verts.count, d->base.pose.p, e);
    tc_tet_store* s = r ? NULL : tc_world_store(w, TC_BODY_TET, sizeof(tc_tet_store));
    tc_tet_body b;
    memset(&b, 0, sizeof b);
    if (!r && (!s || !fill_body(&b, &verts, &tets, d) || !tc_array_push(&s->bodies, b))) {
        tc_tet_free_body(&b);
        r = tc_error_set(e, TC_RESULT_OUT_OF_MEMORY, NULL, "tet", "out of memory");
    }
    tc_array_free(&verts);
    tc_array_free(&tets);
    if (r) return r;
    r = tc_world_alloc_body(w, TC_BODY_TET, s->bodies.count - 1, d->base.name, d->base.user_data, id);
    if (r) {
        tc_tet_free_body(&s->bodies.data[--s->bodies.count]);
        return tc_error_set(e, r, NULL, "tet", "cannot create the body");
    }
    s->bodies.data[s->bodies.count - 1].slot = id->index1 - 1;
    return TC_RESULT_OK;
}
