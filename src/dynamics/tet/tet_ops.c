// The tet store's entry in the kind registry, and the public getters.

#include "dynamics/tet/tet.h"

#include "geometry/trimesh.h"
#include "dynamics/nodal.h"
#include "core/parallel.h"

#include <string.h>

void tc_tet_free_body(tc_tet_body* b);

static tc_tet_body* body(const tc_world* w, int i) { return tc_tet_body_at(w, i); }

static void remove_body(tc_world* w, int index) {
    tc_tet_store* s = tc_tet_store_of(w);
    tc_tet_free_body(&s->bodies.data[index]);
    int last = s->bodies.count - 1;
    if (index != last) {
        s->bodies.data[index] = s->bodies.data[last];
        tc_world_body_moved(w, s->bodies.data[index].slot, index);
    }
    s->bodies.count--;
}

static void destroy_store(tc_world* w) {
    tc_tet_store* s = tc_tet_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i) tc_tet_free_body(&s->bodies.data[i]);
    tc_array_free(&s->bodies);
    tc_free(s, sizeof *s);
    w->stores[TC_BODY_TET] = NULL;
}

static void apply_forces(tc_world* w, tc_real h) {
    (void)h;
    tc_tet_store* s = tc_tet_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i) {
        memset(s->bodies.data[i].f, 0, (size_t)s->bodies.data[i].n * sizeof(tc_vec3));
        memset(s->bodies.data[i].contact_jac, 0, (size_t)s->bodies.data[i].n * sizeof(tc_mat3));
    }
}

// Bodies are independent here (each step reads and writes only its own body, its solver's own
// scratch included): one body per thread.
static void integrate(tc_world* w, tc_real h) {
    tc_tet_store* s = tc_tet_store_of(w);
    int count = s->bodies.count, threads = tc_parallel_width(w->def.thread_count, count);
    tc_vec3 g = w->def.gravity;
    TC_PARALLEL_FOR(threads)
    for (int i = 0; i < count; ++i) tc_tet_step_implicit(&s->bodies.data[i], g, h);
}

static void end_step(tc_world* w, tc_real dt) {
    (void)dt;
    tc_tet_store* s = tc_tet_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i) s->bodies.data[i].user_force = tc_v3_zero();
}

static tc_aabb body_aabb(const tc_world* w, int i) { return body(w, i)->aabb; }

static tc_real signed_distance(const tc_world* w, int i, tc_vec3 p, tc_vec3* normal) {
    const tc_tet_body* b = body(w, i);
    if (!tc_aabb_contains_point(tc_aabb_inflate(b->aabb, 1e-3), p)) return 1e300;
    tc_real best = 1e300;
    tc_vec3 q = p, n = tc_v3(0, 0, 1);
    for (int f = 0; f < b->face_count; ++f) {
        const int* v = b->faces + 3 * f;
        tc_vec3 c = tc_closest_point_triangle(p, b->x[v[0]], b->x[v[1]], b->x[v[2]]);
        tc_real d = tc_v3_len2(tc_v3_sub(p, c));
        if (d < best) best = d, q = c, n = tc_v3_cross(tc_v3_sub(b->x[v[1]], b->x[v[0]]), tc_v3_sub(b->x[v[2]], b->x[v[0]]));
    }
    tc_vec3 off = tc_v3_sub(p, q);
    tc_real dist = sqrt(best);
    bool inside = tc_v3_dot(off, n) < 0;
    if (normal) *normal = dist > 1e-9 ? tc_v3_scale(off, (inside ? -1 : 1) / dist) : tc_v3_normalize(n);
    return inside ? -dist : dist;
}

static int surface_point_count(const tc_world* w, int i) { return body(w, i)->surf_count; }

static void surface_point(const tc_world* w, int i, int k, tc_vec3* p, tc_vec3* v, tc_real* m) {
    const tc_tet_body* b = body(w, i);
    int s = b->surf[k];
    *p = b->x[s], *v = b->v[s], *m = b->m[s];
}

static int nearest_vertex(const tc_tet_body* b, tc_vec3 p) {
    int best = b->surf[0];
    for (int k = 1; k < b->surf_count; ++k)
        if (tc_v3_len2(tc_v3_sub(b->x[b->surf[k]], p)) < tc_v3_len2(tc_v3_sub(b->x[best], p))) best = b->surf[k];
    return best;
}

static tc_vec3 velocity_at(const tc_world* w, int i, int k, tc_vec3 p) {
    const tc_tet_body* b = body(w, i);
    return b->v[k >= 0 ? b->surf[k] : nearest_vertex(b, p)];
}

static void apply_point_force(tc_world* w, int i, int k, tc_vec3 p, tc_vec3 f) {
    tc_tet_body* b = body(w, i);
    int v = k >= 0 ? b->surf[k] : nearest_vertex(b, p);
    b->f[v] = tc_v3_add(b->f[v], f);
}

// A surface vertex against static geometry, implicit like the tet-tet contacts (tet_penetration.c
// respond): the spring at the end-of-step depth -d - h v_n, and (h c + h^2 k) n n^T joins the
// implicit step's matrix, so the whole body meets the contact within the one solve. Implicit, it
// may be far stiffer than the coupling's force held over the sub-step (w h = 4: a vertex's
// approach is stopped within a step; at 60 Hz a 5 cm tet ball thrown at 6 m/s passed through a
// static ball of its size). A vertex that will only reach the geometry within the step (d >= 0)
// gets the spring alone; the spring rests while the vertex leaves faster than push_max.
static tc_real static_contact(tc_world* w, int i, int k, tc_vec3 n, tc_real d, tc_real mu, tc_real h, tc_vec3* friction) {
    tc_tet_body* b = body(w, i);
    int v = b->surf[k];
    if (b->fixed[v]) return 0;
    tc_real omega = fmax(2 * TC_PI * w->def.penalty_hertz, 4 / h), m = b->m[v], vn = tc_v3_dot(b->v[v], n);
    // At least three times the material's stiffness at a vertex, (lambda + 2 mu) times the edge
    // length: a softer contact lets the body behind push its front vertices deep in (a 5 cm ball,
    // E = 1e6 Pa, at 6 m/s drove them 1.8 cm into a 2 cm wall, past its middle, and stuck there).
    // Ten times left tet_sphere_stack's balls rolling in their pockets (chaotic, but 15x the KE).
    tc_real stiffness = fmax(m * omega * omega, 3 * (b->lambda + 2 * b->mu) * b->mean_edge);
    tc_real damping = d < 0 ? 2 * w->def.penalty_damping_ratio * sqrt(stiffness * m) : 0;
    tc_real spring = vn < w->def.contact_push_max_velocity ? stiffness * (-d - h * vn) : 0;
    tc_real fn = fmax(0, spring - damping * vn);
    if (fn <= 0) return 0;
    tc_vec3 vt = tc_v3_madd(b->v[v], -vn, n), ft = tc_v3_zero();
    tc_real vtl = tc_v3_len(vt);
    if (vtl > 1e-12) ft = tc_v3_scale(vt, -fmin(mu * fn, m * vtl / h) / vtl);
    b->f[v] = tc_v3_add(b->f[v], tc_v3_madd(ft, fn, n));
    *friction = d < 0 ? ft : tc_v3_zero();
    b->contact_jac[v] = tc_mat3_add(b->contact_jac[v], tc_mat3_scale(tc_mat3_outer(n, n), h * damping + h * h * stiffness));
    return d < 0 ? fn : 0;
}

static tc_real contact_mass(const tc_world* w, int i, int k) {
    const tc_tet_body* b = body(w, i);
    return k >= 0 ? b->m[b->surf[k]] : b->total_mass / b->n;
}

static tc_material material(const tc_world* w, int i) { return body(w, i)->material; }

static void energy(const tc_world* w, int i, tc_real* ke, tc_real* pe) {
    const tc_tet_body* b = body(w, i);
    tc_nodal_energy(b->x, b->v, b->m, b->n, w->def.gravity, ke, pe);
}

static uint64_t hash(const tc_world* w, int i, uint64_t h) {
    const tc_tet_body* b = body(w, i);
    return tc_nodal_hash(b->x, b->v, b->n, h);
}

static void draw(const tc_world* w, int i, const tc_debug_draw* d) {
    const tc_tet_body* b = body(w, i);
    tc_color col = {0.55f, 0.6f, 0.9f, 1};
    for (int f = 0; f < b->face_count && d->draw_shapes && d->draw_triangle; ++f) {
        const int* v = b->faces + 3 * f;
        tc_vec3 p[3] = {b->x[v[0]], b->x[v[1]], b->x[v[2]]};
        tc_vec3 n = tc_v3_normalize(tc_v3_cross(tc_v3_sub(p[1], p[0]), tc_v3_sub(p[2], p[0]))), nn[3] = {n, n, n};
        tc_color c[3] = {col, col, col};
        d->draw_triangle(p, nn, c, d->context);
    }
    if (d->draw_tets && d->draw_line) {
        tc_color edge = {0.9f, 0.9f, 0.9f, 0.6f};
        for (int k = 0; k < b->edge_count; ++k) d->draw_line(b->x[b->edges[2 * k]], b->x[b->edges[2 * k + 1]], edge, d->context);
    }
}

static bool check_finite(const tc_world* w, int i, tc_error* e) {
    const tc_tet_body* b = body(w, i);
    int k = tc_nodal_first_non_finite(b->x, b->v, b->n);
    if (k < 0) return true;
    tc_error_set(e, TC_RESULT_UNSTABLE, NULL, tc_world_slot_name(w, b->slot), "step %lld: tet vertex %d became non-finite",
                         (long long)w->step_index, k);
    return false;
}

static tc_vec3 center_of_mass(const tc_world* w, int i) {
    const tc_tet_body* b = body(w, i);
    return tc_nodal_mean(b->x, b->m, b->n, b->total_mass);
}

static tc_transform pose(const tc_world* w, int i) {
    tc_transform t = tc_transform_identity();
    t.p = center_of_mass(w, i);
    return t;
}

static tc_vec3 linear_velocity(const tc_world* w, int i) {
    const tc_tet_body* b = body(w, i);
    return tc_nodal_mean(b->v, b->m, b->n, b->total_mass);
}

static tc_vec3 angular_velocity(const tc_world* w, int i) {
    const tc_tet_body* b = body(w, i);
    return tc_nodal_angular_velocity(b->x, b->v, b->m, b->n, center_of_mass(w, i));
}

static tc_real mass(const tc_world* w, int i) { return body(w, i)->total_mass; }

static bool ray_cast(const tc_world* w, int i, tc_vec3 o, tc_vec3 d, tc_real max_t, tc_real* t, tc_vec3* n) {
    const tc_tet_body* b = body(w, i);
    return tc_nodal_ray_cast(b->x, b->faces, b->face_count, o, d, max_t, t, n);
}

static tc_result apply_user_force(tc_world* w, int i, tc_vec3 f, tc_vec3 p) {
    (void)p; // spread over the nodes by mass: the whole body is pushed
    body(w, i)->user_force = tc_v3_add(body(w, i)->user_force, f);
    return TC_RESULT_OK;
}

static void write_state(const tc_world* w, struct tc_state_writer* out) {
    const tc_tet_store* s = tc_tet_store_of(w);
    tc_state_write_i64(out, s->bodies.count);
    for (int i = 0; i < s->bodies.count; ++i) {
        const tc_tet_body* b = &s->bodies.data[i];
        tc_nodal_write(out, b->x, b->v, b->n);
        tc_state_write_vec3(out, b->user_force);
        for (int k = 0; k < b->n; ++k) tc_state_write_vec3(out, b->solver.dv[k]); // the CG's warm start
        for (int k = 0; k < b->n; ++k) tc_state_write_vec3(out, b->solver.dv_prev[k]);
        for (int k = 0; k < b->n; ++k) tc_state_write_vec3(out, b->solver.dv_prev2[k]);
    }
}

static tc_result read_state(tc_world* w, struct tc_state_reader* in, const char* file, tc_error* e) {
    tc_tet_store* s = tc_tet_store_of(w);
    if (tc_state_read_i64(in) != s->bodies.count) return tc_error_set(e, TC_RESULT_PARSE, file, "tet", "body count differs from the scene");
    for (int i = 0; i < s->bodies.count; ++i) {
        tc_tet_body* b = &s->bodies.data[i];
        if (!tc_nodal_read(in, b->x, b->v, b->n)) return tc_error_set(e, TC_RESULT_PARSE, file, "tet", "vertex count differs from the scene");
        b->user_force = tc_state_read_vec3(in);
        for (int k = 0; k < b->n; ++k) {
            tc_vec3 dv = tc_state_read_vec3(in);
            b->solver.dv[k] = b->fixed[k] || !tc_v3_is_finite(dv) ? tc_v3_zero() : dv;
        }
        for (int k = 0; k < b->n; ++k) {
            tc_vec3 dv = tc_state_read_vec3(in);
            b->solver.dv_prev[k] = b->fixed[k] || !tc_v3_is_finite(dv) ? tc_v3_zero() : dv;
        }
        for (int k = 0; k < b->n; ++k) {
            tc_vec3 dv = tc_state_read_vec3(in);
            b->solver.dv_prev2[k] = b->fixed[k] || !tc_v3_is_finite(dv) ? tc_v3_zero() : dv;
        }
        tc_tet_update_surface(b);
    }
    return in->failed ? tc_error_set(e, TC_RESULT_PARSE, file, "tet", "truncated tet state") : TC_RESULT_OK;
}

static tc_result set_pose(tc_world* w, int i, tc_transform to) {
    tc_tet_body* b = body(w, i);
    tc_nodal_move_rigidly(b->x, b->n, pose(w, i), to);
    tc_tet_update_surface(b); // the box and normals the contact culling reads
    return TC_RESULT_OK;
}

static tc_result set_velocity(tc_world* w, int i, tc_vec3 v, tc_vec3 omega) {
    tc_tet_body* b = body(w, i);
    tc_nodal_set_rigid_velocity(b->x, b->v, b->n, center_of_mass(w, i), v, omega);
    for (int k = 0; k < b->n; ++k)
        if (b->fixed[k]) b->v[k] = tc_v3_zero();
    return TC_RESULT_OK;
}

const tc_kind_ops tc_tet_kind_ops = {
    .name = "tet",
    .explicit_penalty = true,
    .destroy_store = destroy_store,
    .remove_body = remove_body,
    .apply_forces = apply_forces,
    .collide = tc_tet_collide,
    .integrate = integrate,
    .end_step = end_step,
    .body_aabb = body_aabb,
    .signed_distance = signed_distance,
    .surface_point_count = surface_point_count,
    .surface_point = surface_point,
    .velocity_at = velocity_at,
    .apply_point_force = apply_point_force,
    .static_contact = static_contact,
    .contact_mass = contact_mass,
    .material = material,
    .energy = energy,
    .hash = hash,
    .draw = draw,
    .check_finite = check_finite,
    .pose = pose,
    .linear_velocity = linear_velocity,
    .angular_velocity = angular_velocity,
    .center_of_mass = center_of_mass,
    .mass = mass,
    .ray_cast = ray_cast,
    .apply_user_force = apply_user_force,
    .set_pose = set_pose,
    .set_velocity = set_velocity,
    .write_state = write_state,
    .read_state = read_state,
};

static const tc_tet_body* resolve(const tc_world* w, tc_body_id id) {
    const tc_body_slot* s = tc_world_resolve(w, id);
    return s && s->kind == TC_BODY_TET ? tc_tet_body_at(w, s->index) : NULL;
}

int tc_tet_body_get_vertex_count(const tc_world* w, tc_body_id id) {
    const tc_tet_body* b = resolve(w, id);
    return b ? b->n : 0;
}

int tc_tet_body_get_vertices(const tc_world* w, tc_body_id id, tc_vec3* x, tc_vec3* v, int capacity) {
    const tc_tet_body* b = resolve(w, id);
    if (!b) return 0;
    for (int k = 0; k < b->n && k < capacity; ++k) {
        if (x) x[k] = b->x[k];
        if (v) v[k] = b->v[k];
    }
    return b->n;
}

tc_real tc_tet_body_get_volume(const tc_world* w, tc_body_id id, tc_real* rest, int* inverted) {
    const tc_tet_body* b = resolve(w, id);
    tc_real vol = 0, rv = 0;
    int inv = 0;
    for (int t = 0; b && t < b->tet_count; ++t) {
        tc_real v = tc_tet_signed_volume(b, t);
        vol += v, rv += b->volume[t], inv += v <= 0;
    }
    if (rest) *rest = rv;
    if (inverted) *inverted = inv;
    return vol;
}
