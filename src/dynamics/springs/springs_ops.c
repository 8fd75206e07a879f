// The springs store's entry in the kind registry, and the public getters.
#include "dynamics/springs/springs.h"

#include "geometry/trimesh.h"
#include "dynamics/nodal.h"
#include "core/parallel.h"

#include <string.h>

void tc_springs_free_body(tc_springs_body* b);

static tc_springs_body* body(const tc_world* w, int i) { return tc_springs_body_at(w, i); }

static void remove_body(tc_world* w, int index) {
    tc_springs_store* s = tc_springs_store_of(w);
    tc_springs_free_body(&s->bodies.data[index]);
    int last = s->bodies.count - 1;
    if (index != last) {
        s->bodies.data[index] = s->bodies.data[last];
        tc_world_body_moved(w, s->bodies.data[index].slot, index);
    }
    s->bodies.count--;
}

static void destroy_store(tc_world* w) {
    tc_springs_store* s = tc_springs_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i) tc_springs_free_body(&s->bodies.data[i]);
    tc_array_free(&s->bodies);
    tc_free(s, sizeof *s);
    w->stores[TC_BODY_SPRINGS] = NULL;
}

static void apply_forces(tc_world* w, tc_real h) {
    (void)h;
    tc_springs_store* s = tc_springs_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i) memset(s->bodies.data[i].f, 0, (size_t)s->bodies.data[i].n * sizeof(tc_vec3));
}

// Bodies are independent here: each step writes only its own body and its own proxies of the
// dynamic rigid bodies, and reads the static bodies. One body per thread; the log call of the
// explicit integrator and the proxies' allocation are made before the loop, their changes
// reach the rigid bodies after it, in body order (the result does not depend on the threads).
static void integrate(tc_world* w, tc_real h) {
    tc_springs_store* s = tc_springs_store_of(w);
    int count = s->bodies.count, threads = tc_parallel_width(w->def.thread_count, count);
    bool record = (w->substep_index % w->def.sub_steps) == w->def.sub_steps - 1;
    for (int i = 0; i < count; ++i) {
        if (s->bodies.data[i].integrator != TC_SPRINGS_IMPLICIT) tc_springs_note_explicit_pieces(&s->bodies.data[i], h);
        tc_springs_rigid_begin(w, &s->bodies.data[i], h, record);
    }
    TC_PARALLEL_FOR(threads)
    for (int i = 0; i < count; ++i) {
        tc_springs_body* b = &s->bodies.data[i];
        if (b->integrator == TC_SPRINGS_IMPLICIT) {
            tc_springs_step_implicit(b, w->def.gravity, h);
            tc_springs_project_rigid(w, b, h, 0, 1);
        } else {
            tc_springs_step_explicit(w, b, h);
        }
        tc_springs_update_aabb(b);
    }
    for (int i = 0; i < count; ++i) tc_springs_rigid_end(w, &s->bodies.data[i], h);
}

static void end_step(tc_world* w, tc_real dt) {
    (void)dt;
    tc_springs_store* s = tc_springs_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i) s->bodies.data[i].user_force = tc_v3_zero();
}

static tc_aabb body_aabb(const tc_world* w, int i) { return body(w, i)->aabb; }

static int nearest_triangle(const tc_springs_body* b, tc_vec3 p, tc_vec3* q_out) {
    tc_real best = 1e300;
    int tri = 0;
    for (int t = 0; t < b->tri_count; ++t) {
        const int* v = b->tris + 3 * t;
        tc_vec3 q = tc_closest_point_triangle(p, b->x[v[0]], b->x[v[1]], b->x[v[2]]);
        tc_real d = tc_v3_len2(tc_v3_sub(p, q));
        if (d < best) best = d, tri = t, *q_out = q;
    }
    return tri;
}

static tc_vec3 tri_normal(const tc_springs_body* b, int t) {
    const int* v = b->tris + 3 * t;
    return tc_v3_normalize(tc_v3_cross(tc_v3_sub(b->x[v[1]], b->x[v[0]]), tc_v3_sub(b->x[v[2]], b->x[v[0]])));
}

// Nearest triangle, sign from its normal: good for the smooth closed meshes this kind builds.
static tc_real signed_distance(const tc_world* w, int i, tc_vec3 p, tc_vec3* normal) {
    const tc_springs_body* b = body(w, i);
    if (!tc_aabb_contains_point(tc_aabb_inflate(b->aabb, 1e-3), p)) return 1e300;
    tc_vec3 q = p;
    int t = nearest_triangle(b, p, &q);
    tc_vec3 n = tri_normal(b, t), d = tc_v3_sub(p, q);
    tc_real dist = tc_v3_len(d);
    bool inside = tc_v3_dot(d, n) < 0;
    if (normal) *normal = dist > 1e-9 ? tc_v3_scale(d, (inside ? -1 : 1) / dist) : n;
    return inside ? -dist : dist;
}

static int surface_point_count(const tc_world* w, int i) { return body(w, i)->n; }

static void surface_point(const tc_world* w, int i, int k, tc_vec3* p, tc_vec3* v, tc_real* m) {
    const tc_springs_body* b = body(w, i);
    *p = b->x[k], *v = b->v[k], *m = b->m[k];
}

static int nearest_vertex(const tc_springs_body* b, tc_vec3 p) {
    int best = 0;
    for (int k = 1; k < b->n; ++k)
        if (tc_v3_len2(tc_v3_sub(b->x[k], p)) < tc_v3_len2(tc_v3_sub(b->x[best], p))) best = k;
    return best;
}

static tc_vec3 velocity_at(const tc_world* w, int i, int k, tc_vec3 p) {
    const tc_springs_body* b = body(w, i);
    return b->v[k >= 0 ? k : nearest_vertex(b, p)];
}

static void apply_point_force(tc_world* w, int i, int k, tc_vec3 p, tc_vec3 f) {
    tc_springs_body* b = body(w, i);
    int v = k >= 0 ? k : nearest_vertex(b, p);
    b->f[v] = tc_v3_add(b->f[v], f);
}

static tc_real contact_mass(const tc_world* w, int i, int k) {
    const tc_springs_body* b = body(w, i);
    return k >= 0 ? b->m[k] : b->total_mass / b->n;
}

static tc_material material(const tc_world* w, int i) { return body(w, i)->material; }

static void energy(const tc_world* w, int i, tc_real* ke, tc_real* pe) {
    const tc_springs_body* b = body(w, i);
    tc_nodal_energy(b->x, b->v, b->m, b->n, w->def.gravity, ke, pe);
    for (int k = 0; k < b->springs.count; ++k) {
        const tc_spring* s = &b->springs.data[k];
        tc_real stretch = tc_v3_dist(b->x[s->i], b->x[s->j]) - s->rest;
        *pe += 0.5 * s->k * stretch * stretch;
    }
    if (b->pressure > 0 && b->rest_volume > 0) {
        tc_real dv = tc_springs_volume(b) - b->rest_volume;
        *pe += 0.5 * b->pressure * dv * dv / b->rest_volume;
    }
}

static uint64_t hash(const tc_world* w, int i, uint64_t h) {
    const tc_springs_body* b = body(w, i);
    return tc_nodal_hash(b->x, b->v, b->n, h);
}

static void draw(const tc_world* w, int i, const tc_debug_draw* d) {
    const tc_springs_body* b = body(w, i);
    tc_color col = {0.35f, 0.75f, 0.55f, 1};
    for (int t = 0; t < b->tri_count && d->draw_shapes && d->draw_triangle; ++t) {
        const int* v = b->tris + 3 * t;
        tc_vec3 p[3] = {b->x[v[0]], b->x[v[1]], b->x[v[2]]}, n = tri_normal(b, t), nn[3] = {n, n, n};
        tc_color c[3] = {col, col, col};
        d->draw_triangle(p, nn, c, d->context);
    }
    if (d->draw_springs && d->draw_line) {
        tc_color edge = {0.9f, 0.9f, 0.3f, 1}, bend = {0.3f, 0.6f, 0.9f, 1};
        for (int k = 0; k < b->springs.count; ++k)
            d->draw_line(b->x[b->springs.data[k].i], b->x[b->springs.data[k].j], k < b->edge_count ? edge : bend, d->context);
    }
}

static bool check_finite(const tc_world* w, int i, tc_error* e) {
    const tc_springs_body* b = body(w, i);
    int k = tc_nodal_first_non_finite(b->x, b->v, b->n);
    if (k < 0) return true;
    tc_error_set(e, TC_RESULT_UNSTABLE, NULL, tc_world_slot_name(w, b->slot), "step %lld: spring vertex %d became non-finite",
                         (long long)w->step_index, k);
    return false;
}

static tc_vec3 center_of_mass(const tc_world* w, int i) {
    const tc_springs_body* b = body(w, i);
    return tc_nodal_mean(b->x, b->m, b->n, b->total_mass);
}

static tc_transform pose(const tc_world* w, int i) {
    tc_transform t = tc_transform_identity();
    t.p = center_of_mass(w, i);
    return t;
}

static tc_vec3 linear_velocity(const tc_world* w, int i) {
    const tc_springs_body* b = body(w, i);
    return tc_nodal_mean(b->v, b->m, b->n, b->total_mass);
}

static tc_vec3 angular_velocity(const tc_world* w, int i) {
    const tc_springs_body* b = body(w, i);
    return tc_nodal_angular_velocity(b->x, b->v, b->m, b->n, center_of_mass(w, i));
}

static tc_real mass(const tc_world* w, int i) { return body(w, i)->total_mass; }

static bool ray_cast(const tc_world* w, int i, tc_vec3 o, tc_vec3 d, tc_real max_t, tc_real* t, tc_vec3* n) {
    const tc_springs_body* b = body(w, i);
    return tc_nodal_ray_cast(b->x, b->tris, b->tri_count, o, d, max_t, t, n);
}

static tc_result apply_user_force(tc_world* w, int i, tc_vec3 f, tc_vec3 p) {
    (void)p; // spread over the nodes by mass: the whole body is pushed
    body(w, i)->user_force = tc_v3_add(body(w, i)->user_force, f);
    return TC_RESULT_OK;
}

static void write_state(const tc_world* w, struct tc_state_writer* out) {
    const tc_springs_store* s = tc_springs_store_of(w);
    tc_state_write_i64(out, s->bodies.count);
    for (int i = 0; i < s->bodies.count; ++i) {
        const tc_springs_body* b = &s->bodies.data[i];
        tc_nodal_write(out, b->x, b->v, b->n);
        tc_state_write_vec3(out, b->user_force);
        tc_state_write_i64(out, b->warned);
    }
}

static tc_result read_state(tc_world* w, struct tc_state_reader* in, const char* file, tc_error* e) {
    tc_springs_store* s = tc_springs_store_of(w);
    if (tc_state_read_i64(in) != s->bodies.count) return tc_error_set(e, TC_RESULT_PARSE, file, "springs", "body count differs from the scene");
    for (int i = 0; i < s->bodies.count; ++i) {
        tc_springs_body* b = &s->bodies.data[i];
        if (!tc_nodal_read(in, b->x, b->v, b->n)) return tc_error_set(e, TC_RESULT_PARSE, file, "springs", "vertex count differs from the scene");
        b->user_force = tc_state_read_vec3(in);
        b->warned = tc_state_read_i64(in) != 0;
        tc_springs_update_aabb(b);
    }
    return in->failed ? tc_error_set(e, TC_RESULT_PARSE, file, "springs", "truncated spring state") : TC_RESULT_OK;
}

static tc_result set_pose(tc_world* w, int i, tc_transform to) {
    tc_springs_body* b = body(w, i);
    tc_nodal_move_rigidly(b->x, b->n, pose(w, i), to);
    tc_springs_update_aabb(b);
    return TC_RESULT_OK;
}

static tc_result set_velocity(tc_world* w, int i, tc_vec3 v, tc_vec3 omega) {
    tc_springs_body* b = body(w, i);
    tc_nodal_set_rigid_velocity(b->x, b->v, b->n, center_of_mass(w, i), v, omega);
    return TC_RESULT_OK;
}

const tc_kind_ops tc_springs_kind_ops = {
    .name = "springs",
    .destroy_store = destroy_store,
    .remove_body = remove_body,
    .apply_forces = apply_forces,
    .collide = tc_springs_collide,
    .integrate = integrate,
    .end_step = end_step,
    .body_aabb = body_aabb,
    .signed_distance = signed_distance,
    .surface_point_count = surface_point_count,
    .surface_point = surface_point,
    .velocity_at = velocity_at,
    .apply_point_force = apply_point_force,
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

static const tc_springs_body* resolve(const tc_world* w, tc_body_id id) {
    const tc_body_slot* s = tc_world_resolve(w, id);
    return s && s->kind == TC_BODY_SPRINGS ? tc_springs_body_at(w, s->index) : NULL;
}

int tc_springs_body_get_vertex_count(const tc_world* w, tc_body_id id) {
    const tc_springs_body* b = resolve(w, id);
    return b ? b->n : 0;
}

int tc_springs_body_get_vertices(const tc_world* w, tc_body_id id, tc_vec3* x, tc_vec3* v, int capacity) {
    const tc_springs_body* b = resolve(w, id);
    if (!b) return 0;
    for (int k = 0; k < b->n && k < capacity; ++k) {
        if (x) x[k] = b->x[k];
        if (v) v[k] = b->v[k];
    }
    return b->n;
}

tc_real tc_springs_body_get_stable_step(const tc_world* w, tc_body_id id) {
    const tc_springs_body* b = resolve(w, id);
    return b ? b->stable_step : 0;
}

tc_real tc_springs_body_get_volume(const tc_world* w, tc_body_id id, tc_real* rest) {
    const tc_springs_body* b = resolve(w, id);
    if (rest) *rest = b ? b->rest_volume : 0;
    return b ? tc_springs_volume(b) : 0;
}

tc_result tc_springs_body_set_velocity(tc_world* w, tc_body_id id, tc_vec3 v) {
    tc_springs_body* b = (tc_springs_body*)resolve(w, id);
    if (!b) return TC_RESULT_STALE_ID;
    if (!tc_v3_is_finite(v)) return TC_RESULT_NOT_FINITE;
    for (int k = 0; k < b->n; ++k) b->v[k] = v;
    return TC_RESULT_OK;
}
