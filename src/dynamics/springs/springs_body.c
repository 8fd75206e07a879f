// Creating spring bodies: mesh from a generator or the def, validation, masses by area,
// edge and bending springs, the vertex graph for the flood fill.
#include "dynamics/springs/springs.h"
#include "dynamics/nodal.h"

#include "geometry/mesh_gen.h"

#include <stdio.h>
#include <string.h>

tc_springs_body_def tc_springs_body_def_default(void) {
    tc_springs_body_def d;
    memset(&d, 0, sizeof d);
    d.base.pose = tc_transform_identity();
    d.base.material = (tc_material){0.5, 0};
    d.shape = TC_SPRINGS_BOX;
    d.half_extents = tc_v3(0.2, 0.2, 0.2);
    d.radius = 0.2;
    d.tube_radius = 0.07;
    d.resolution = 4;
    d.mass = 1;
    d.stiffness = 2000;
    d.damping = 2;
    d.bending = 0.2;
    d.integrator = TC_SPRINGS_EXPLICIT;
    d.internal_value = TC_DEF_COOKIE;
    return d;
}

static tc_result check_def(const tc_springs_body_def* d, tc_error* e) {
    if (!d || d->internal_value != TC_DEF_COOKIE)
        return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "def", "use tc_springs_body_def_default() to initialise the def");
    if (!(d->mass > 0) || !isfinite(d->mass)) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "mass", "must be positive and finite (got %g)", d->mass);
    if (!(d->stiffness > 0) || !isfinite(d->stiffness))
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "stiffness", "must be positive and finite (got %g)", d->stiffness);
    const struct { const char* name; tc_real v; } nonneg[] = {{"damping", d->damping}, {"bending", d->bending}, {"pressure", d->pressure}, {"drag", d->drag}};
    for (size_t i = 0; i < sizeof nonneg / sizeof nonneg[0]; ++i)
        if (!(nonneg[i].v >= 0) || !isfinite(nonneg[i].v))
            return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, nonneg[i].name, "must be >= 0 and finite (got %g)", nonneg[i].v);
    if (!tc_v3_is_finite(d->base.pose.p) || !tc_v3_is_finite(d->base.linear_velocity) || !tc_v3_is_finite(d->base.angular_velocity))
        return tc_error_set(e, TC_RESULT_NOT_FINITE, NULL, "position", "pose and velocities must be finite");
    if ((int)d->integrator < 0 || d->integrator > TC_SPRINGS_IMPLICIT)
        return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "integrator", "unknown integrator %d", (int)d->integrator);
    return TC_RESULT_OK;
}

static tc_result build_mesh(const tc_springs_body_def* d, tc_tri_mesh* m, tc_error* e) {
    bool ok = false;
    int res = d->resolution;
    switch (d->shape) {
    case TC_SPRINGS_BOX:
        if (!(d->half_extents.x > 0 && d->half_extents.y > 0 && d->half_extents.z > 0) || !tc_v3_is_finite(d->half_extents))
            return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "half_extents", "every component must be positive and finite");
        if (res < 1 || res > 32) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "resolution", "must be in [1, 32] for a box (got %d)", res);
        ok = tc_mesh_gen_box(m, d->half_extents, res);
        break;
    case TC_SPRINGS_SPHERE:
        if (!(d->radius > 0) || !isfinite(d->radius)) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "radius", "must be positive and finite");
        if (res < 0 || res > 4) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "resolution", "must be in [0, 4] for a sphere (got %d)", res);
        ok = tc_mesh_gen_sphere(m, d->radius, res);
        break;
    case TC_SPRINGS_TORUS:
        if (!(d->tube_radius > 0) || !(d->radius > d->tube_radius) || !isfinite(d->radius))
            return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "tube_radius", "need 0 < tube_radius < radius");
        if (res < 3 || res > 64) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "resolution", "must be in [3, 64] for a torus (got %d)", res);
        ok = tc_mesh_gen_torus(m, d->radius, d->tube_radius, 2 * res, res);
        break;
    case TC_SPRINGS_MESH:
        if (!d->mesh_vertices || d->mesh_vertex_count < 4 || !d->mesh_triangles || d->mesh_triangle_count < 4)
            return tc_error_set(e, TC_RESULT_DEGENERATE, NULL, "mesh", "a closed mesh needs at least 4 vertices and 4 triangles");
        ok = true;
        for (int i = 0; i < d->mesh_vertex_count && ok; ++i) ok = tc_array_push(&m->vertices, d->mesh_vertices[i]);
        for (int i = 0; i < 3 * d->mesh_triangle_count && ok; ++i) ok = tc_array_push(&m->triangles, d->mesh_triangles[i]);
        break;
    default:
        return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "shape", "unknown shape %d", (int)d->shape);
    }
    return ok ? TC_RESULT_OK : tc_error_set(e, TC_RESULT_OUT_OF_MEMORY, NULL, "mesh", "out of memory");
}

// Closed 2-manifold: every directed edge has exactly one opposite; vertices finite and used;
// triangles of positive area; positive volume (outward winding).
static tc_result check_mesh(const tc_tri_mesh* m, tc_error* e) {
    int nv = m->vertices.count, nt = m->triangles.count / 3;
    for (int i = 0; i < nv; ++i)
        if (!tc_v3_is_finite(m->vertices.data[i])) return tc_error_set(e, TC_RESULT_NOT_FINITE, NULL, "mesh", "vertex %d is not finite", i);
    for (int t = 0; t < nt; ++t) {
        const int* v = m->triangles.data + 3 * t;
        for (int k = 0; k < 3; ++k)
            if (v[k] < 0 || v[k] >= nv) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "mesh", "triangle %d: index %d out of range", t, v[k]);
        tc_vec3 a = m->vertices.data[v[0]], b = m->vertices.data[v[1]], c = m->vertices.data[v[2]];
        if (!(tc_v3_len(tc_v3_cross(tc_v3_sub(b, a), tc_v3_sub(c, a))) > 1e-14))
            return tc_error_set(e, TC_RESULT_DEGENERATE, NULL, "mesh", "triangle %d has zero area", t);
    }
    for (int t = 0; t < nt; ++t) // O(n^2) but meshes here are small and this runs once
        for (int k = 0; k < 3; ++k) {
            int a = m->triangles.data[3 * t + k], b = m->triangles.data[3 * t + (k + 1) % 3], opposite = 0;
            for (int s = 0; s < 3 * nt; s += 3)
                for (int q = 0; q < 3; ++q)
                    opposite += m->triangles.data[s + q] == b && m->triangles.data[s + (q + 1) % 3] == a;
            if (opposite != 1)
                return tc_error_set(e, TC_RESULT_DEGENERATE, NULL, "mesh", "edge %d-%d is %s: the mesh must be closed and manifold", a, b,
                                    opposite ? "shared by more than two triangles" : "open");
        }
    if (!(tc_tri_mesh_volume(m->vertices.data, m->triangles.data, nt) > 0))
        return tc_error_set(e, TC_RESULT_DEGENERATE, NULL, "mesh", "the mesh encloses no volume or is inside out");
    return TC_RESULT_OK;
}

static bool add_spring(tc_springs_body* b, int i, int j, tc_real stiffness, tc_real kd) {
    tc_real rest = tc_v3_dist(b->x[i], b->x[j]);
    tc_spring s = {i, j, rest, stiffness / fmax(rest, 1e-9), kd};
    return tc_array_push(&b->springs, s);
}

static bool has_edge(const tc_springs_body* b, int i, int j) {
    for (int k = 0; k < b->springs.count; ++k)
        if ((b->springs.data[k].i == i && b->springs.data[k].j == j) || (b->springs.data[k].i == j && b->springs.data[k].j == i)) return true;
    return false;
}

// Edge springs once per undirected edge (i < j); bending springs join the two vertices
// opposite each shared edge.
static bool build_springs(tc_springs_body* b, const tc_springs_body_def* d) {
    for (int t = 0; t < b->tri_count; ++t)
        for (int k = 0; k < 3; ++k) {
            int i = b->tris[3 * t + k], j = b->tris[3 * t + (k + 1) % 3];
            if (i < j && !add_spring(b, i, j, d->stiffness, d->damping)) return false;
        }
    b->edge_count = b->springs.count;
    if (d->bending <= 0) return true;
    for (int t = 0; t < b->tri_count; ++t)
        for (int k = 0; k < 3; ++k) {
            int i = b->tris[3 * t + k], j = b->tris[3 * t + (k + 1) % 3], far = b->tris[3 * t + (k + 2) % 3];
            if (i > j) continue;
            for (int u = 0; u < b->tri_count; ++u)
                for (int q = 0; q < 3; ++q)
                    if (b->tris[3 * u + q] == j && b->tris[3 * u + (q + 1) % 3] == i) {
                        int other = b->tris[3 * u + (q + 2) % 3];
                        if (other != far && !has_edge(b, far, other) && !add_spring(b, far, other, d->bending * d->stiffness, d->bending * d->damping))
                            return false;
                    }
        }
    return true;
}

static bool build_graph(tc_springs_body* b) {
    b->vert_start = tc_calloc((size_t)b->n + 1, sizeof(int));
    b->neighbours = tc_alloc(2 * (size_t)b->edge_count * sizeof(int));
    if (!b->vert_start || !b->neighbours) return false;
    for (int k = 0; k < b->edge_count; ++k) b->vert_start[b->springs.data[k].i + 1]++, b->vert_start[b->springs.data[k].j + 1]++;
    for (int v = 0; v < b->n; ++v) b->vert_start[v + 1] += b->vert_start[v];
    int* fill = tc_calloc((size_t)b->n, sizeof(int));
    if (!fill) return false;
    for (int k = 0; k < b->edge_count; ++k) {
        int i = b->springs.data[k].i, j = b->springs.data[k].j;
        b->neighbours[b->vert_start[i] + fill[i]++] = j;
        b->neighbours[b->vert_start[j] + fill[j]++] = i;
    }
    tc_free(fill, (size_t)b->n * sizeof(int));
    return true;
}

static void masses_by_area(tc_springs_body* b, tc_real total) {
    tc_real area = 0;
    for (int t = 0; t < b->tri_count; ++t) {
        const int* v = b->tris + 3 * t;
        tc_real a = 0.5 * tc_v3_len(tc_v3_cross(tc_v3_sub(b->x[v[1]], b->x[v[0]]), tc_v3_sub(b->x[v[2]], b->x[v[0]])));
        for (int k = 0; k < 3; ++k) b->m[v[k]] += a / 3;
        area += a;
    }
    for (int i = 0; i < b->n; ++i) {
        b->m[i] *= total / area;
        b->inv_m[i] = b->m[i] > 0 ? 1 / b->m[i] : 0;
    }
}

void tc_springs_free_body(tc_springs_body* b);
void tc_springs_free_body(tc_springs_body* b) {
    size_t n = (size_t)b->n;
    tc_free(b->x, n * sizeof(tc_vec3));
    tc_free(b->v, n * sizeof(tc_vec3));
    tc_free(b->f, n * sizeof(tc_vec3));
    tc_free(b->m, n * sizeof(tc_real));
    tc_free(b->inv_m, n * sizeof(tc_real));
    tc_free(b->tris, 3 * (size_t)b->tri_count * sizeof(int));
    tc_free(b->vert_start, (n + 1) * sizeof(int));
    tc_free(b->neighbours, 2 * (size_t)b->edge_count * sizeof(int));
    tc_free(b->work, 7 * n * sizeof(tc_vec3));
    tc_free(b->work_diag, n * sizeof(tc_real));
    tc_array_free(&b->springs);
    tc_array_free(&b->proxies);
}

static bool fill_body(tc_springs_body* b, const tc_tri_mesh* m, const tc_springs_body_def* d) {
    b->n = m->vertices.count;
    b->tri_count = m->triangles.count / 3;
    size_t n = (size_t)b->n;
    b->x = tc_alloc(n * sizeof(tc_vec3));
    b->v = tc_calloc(n, sizeof(tc_vec3));
    b->f = tc_calloc(n, sizeof(tc_vec3));
    b->m = tc_calloc(n, sizeof(tc_real));
    b->inv_m = tc_calloc(n, sizeof(tc_real));
    b->tris = tc_alloc(3 * (size_t)b->tri_count * sizeof(int));
    b->work = tc_alloc(7 * n * sizeof(tc_vec3));
    b->work_diag = tc_alloc(n * sizeof(tc_real));
    if (!b->x || !b->v || !b->f || !b->m || !b->inv_m || !b->tris || !b->work || !b->work_diag) return false;
    memcpy(b->tris, m->triangles.data, 3 * (size_t)b->tri_count * sizeof(int));
    for (int i = 0; i < b->n; ++i) {
        b->x[i] = tc_transform_point(d->base.pose, m->vertices.data[i]);
        tc_vec3 r = tc_v3_sub(b->x[i], d->base.pose.p);
        b->v[i] = tc_v3_add(d->base.linear_velocity, tc_v3_cross(d->base.angular_velocity, r));
    }
    masses_by_area(b, d->mass);
    if (!build_springs(b, d) || !build_graph(b)) return false;
    b->rest_volume = tc_springs_volume(b);
    b->pressure = d->pressure;
    b->drag = d->drag;
    b->total_mass = d->mass;
    b->integrator = d->integrator;
    b->material = d->base.material;
    b->stable_step = tc_springs_stable_step(b);
    tc_springs_update_aabb(b);
    return true;
}

// Explicit Euler is sub-stepped below its stability limit; a stiffness so high for the mass that one
// world sub-step needs more than TC_SPRINGS_MAX_EXPLICIT_PIECES pieces would make every step take
// seconds (a fuzz find: stiffness 2e50). Refuse it and point at the implicit integrator.
static tc_result check_explicit_pieces(const tc_springs_body* b, const tc_world* w, tc_error* e) {
    if (b->integrator != TC_SPRINGS_EXPLICIT) return TC_RESULT_OK;
    tc_real h = w->def.time_step / w->def.sub_steps, pieces = h / b->stable_step;
    if (pieces <= TC_SPRINGS_MAX_EXPLICIT_PIECES) return TC_RESULT_OK;
    return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "stiffness",
                        "explicit integration would need %.3g pieces per sub-step of %g s (stable step %.3g s; at most %d): "
                        "use the implicit integrator, a lower stiffness or a larger mass",
                        pieces, h, b->stable_step, TC_SPRINGS_MAX_EXPLICIT_PIECES);
}

tc_result tc_springs_body_create(tc_world* w, const tc_springs_body_def* d, tc_body_id* id, tc_error* e) {
    if (!w || !id) return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "world", "world and id are required");
    tc_result r = tc_world_check_unlocked(w);
    if (r || (r = check_def(d, e))) return r;
    tc_tri_mesh mesh = {0};
    if ((r = build_mesh(d, &mesh, e)) || (r = check_mesh(&mesh, e))) {
        tc_tri_mesh_free(&mesh);
        return r;
    }
    if ((r = tc_nodal_check_placement(mesh.vertices.data, mesh.vertices.count, d->base.pose.p, e))) {
        tc_tri_mesh_free(&mesh);
        return r;
    }
    tc_springs_store* s = tc_world_store(w, TC_BODY_SPRINGS, sizeof(tc_springs_store));
    tc_springs_body b;
    memset(&b, 0, sizeof b);
    bool ok = s && fill_body(&b, &mesh, d);
    tc_tri_mesh_free(&mesh);
    if (!ok || !tc_array_push(&s->bodies, b)) {
        tc_springs_free_body(&b);
        return tc_error_set(e, TC_RESULT_OUT_OF_MEMORY, NULL, "springs", "out of memory");
    }
    if ((r = check_explicit_pieces(&s->bodies.data[s->bodies.count - 1], w, e))) {
        tc_springs_free_body(&s->bodies.data[--s->bodies.count]);
        return r;
    }
    r = tc_world_alloc_body(w, TC_BODY_SPRINGS, s->bodies.count - 1, d->base.name, d->base.user_data, id);
    if (r) {
        tc_springs_free_body(&s->bodies.data[--s->bodies.count]);
        return tc_error_set(e, r, NULL, "springs", "cannot create the body");
    }
    s->bodies.data[s->bodies.count - 1].slot = id->index1 - 1;
    return TC_RESULT_OK;
}
