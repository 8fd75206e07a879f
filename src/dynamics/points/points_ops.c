// The point-based kind's entry in the registry (hooks of tc_kind_ops) and its drawing.
#include "dynamics/points/points.h"
#include "contact/surfel_contact.h"
#include "core/parallel.h"
#include "dynamics/nodal.h"
#include "dynamics/rigid/rigid.h"

void tc_points_remove_body(tc_world* w, int index);
void tc_points_destroy_store(tc_world* w);

static tc_points_body* body(const tc_world* w, int i) { return tc_points_body_at(w, i); }
static tc_vec3 linear_velocity(const tc_world* w, int i);

// One body per thread, as integrate.
static void apply_forces(tc_world* w, tc_real h) {
    tc_points_store* s = tc_points_store_of(w);
    int count = s->bodies.count, threads = tc_parallel_width(w->def.thread_count, count);
    TC_PARALLEL_FOR(threads)
    for (int b = 0; b < count; ++b) {
        tc_points_body* pb = s->bodies.data[b];
        for (int i = 0; i < pb->np; ++i) pb->f_ext[i] = tc_v3_scale(pb->user_force, pb->m[i] / pb->total_mass);
        tc_points_begin_substep(pb, h);
    }
}

// Bodies are independent here (each reads and writes only its own phyxels, surfels and MLS
// surface): one body per thread.
static void integrate(tc_world* w, tc_real h) {
    tc_points_store* s = tc_points_store_of(w);
    int count = s->bodies.count, threads = tc_parallel_width(w->def.thread_count, count);
    tc_vec3 g = w->def.gravity;
    tc_rigid_store* rs = tc_rigid_store_of(w);
    for (int b = 0; b < count; ++b) // the rigid bodies have integrated: the proxies start from them
        for (int k = 0; k < s->bodies.data[b]->proxies.count; ++k) {
            tc_points_proxy* p = &s->bodies.data[b]->proxies.data[k];
            const tc_rigid_body* r = &rs->bodies.data[p->rigid];
            p->v1 = p->v = r->v, p->w1 = p->w = r->w;
        }
    TC_PARALLEL_FOR(threads)
    for (int b = 0; b < count; ++b) tc_points_integrate(s->bodies.data[b], g, h);
    for (int b = 0; b < count; ++b) { // in body order: the same sums on any thread count
        tc_points_body* pb = s->bodies.data[b];
        for (int k = 0; k < pb->proxies.count; ++k) {
            const tc_points_proxy* p = &pb->proxies.data[k];
            if (!p->touched) continue;
            // Over the next sub-step, with the body's other contacts: applied to it at once, after
            // the rigid solver's sub-step, the reaction pushed a box carrying a point slab into the
            // ground (1.5 mm, jittering) before the solver could meet it.
            tc_rigid_body* r = &rs->bodies.data[p->rigid];
            r->lag_force = tc_v3_madd(r->lag_force, 1 / h, p->impulse);
            r->lag_torque = tc_v3_madd(r->lag_torque, 1 / h, p->angular_impulse);
            r->sleep_time = 0;
        }
        tc_array_clear(&pb->proxies);
    }
    for (int b = 0; b < count; ++b)
        if (!s->bodies.data[b]->surface_ok)
            tc_world_out_of_memory(w, "points body '%s': out of memory for its MLS surface; its contacts are skipped until it is rebuilt",
                                   tc_world_slot_name(w, s->bodies.data[b]->slot));
}

static void end_step(tc_world* w, tc_real dt) {
    tc_points_store* s = tc_points_store_of(w);
    int count = s->bodies.count; // fracture appends new bodies: they start next step
    for (int b = 0; b < count; ++b) {
        tc_points_body* pb = s->bodies.data[b];
        pb->user_force = tc_v3_zero();
        tc_points_plasticity(pb, dt);
        tc_points_fracture(w, b);
    }
}

static tc_aabb body_aabb(const tc_world* w, int i) { return tc_aabb_inflate(body(w, i)->aabb, body(w, i)->surfel_radius); }

static tc_real signed_distance(const tc_world* w, int i, tc_vec3 p, tc_vec3* n) {
    const tc_points_body* b = body(w, i);
    if (!b->surface_ok) return 1e300; // out of memory when it was built: no inside this sub-step
    if (!tc_aabb_contains_point(tc_aabb_inflate(b->aabb, TC_SURFEL_REACH * b->surface.h), p)) return 1e300;
    tc_vec3 nn;
    tc_real f = tc_surfel_surface_eval(&b->surface, p, &nn);
    if (f >= 1e299) return 1e300;
    *n = nn;
    return f;
}

static int surface_point_count(const tc_world* w, int i) { return body(w, i)->ns; }

static void surface_point(const tc_world* w, int i, int k, tc_vec3* p, tc_vec3* v, tc_real* m) {
    const tc_points_body* b = body(w, i);
    *p = b->s[k];
    *v = b->sv[k];
    *m = b->surfel_mass[k];
}

static tc_vec3 velocity_at(const tc_world* w, int i, int k, tc_vec3 p) {
    const tc_points_body* b = body(w, i);
    if (k >= 0 && k < b->ns) return b->sv[k];
    if (!b->surface_ok) return linear_velocity(w, i);
    int s = tc_point_grid_nearest(&b->surface.grid, b->s, p, 1e3);
    return s >= 0 ? b->sv[s] : tc_v3_zero();
}

static void apply_point_force(tc_world* w, int i, int k, tc_vec3 p, tc_vec3 f) {
    tc_points_body* b = body(w, i);
    if (k >= 0 && k < b->ns) { // along the surfel's own interpolation weights
        for (int t = b->sp_start[k]; t < b->sp_start[k + 1]; ++t)
            b->f_ext[b->sp[t]] = tc_v3_madd(b->f_ext[b->sp[t]], b->sp_w[t], f);
        return;
    }
    tc_points_distribute_force(b, p, f);
}

static tc_real static_contact(tc_world* w, int i, int k, int32_t other_slot, tc_vec3 n, tc_real d, tc_real mu, tc_real h,
                              tc_vec3* friction) {
    tc_points_body* b = body(w, i);
    tc_points_static_contact c = {k, n, d, mu, 2 * TC_PI * w->def.penalty_hertz, w->def.penalty_damping_ratio,
                                  w->def.contact_push_max_velocity, -1, tc_v3_zero(), tc_v3_zero()};
    tc_real fn = NAN;
    *friction = tc_v3_zero();
    bool immovable = other_slot < 0;
    if (!immovable) { // a dynamic rigid body: met through its proxy
        int index = w->slots.data[other_slot].index;
        tc_rigid_body* r = &tc_rigid_store_of(w)->bodies.data[index];
        if (!r->awake) { // the solver made its pairs without it: immovable until the next step
            r->wake_next = true;
            immovable = true;
        } else {
            c.proxy = tc_points_proxy_for(b, index, r->inv_mass, r->inv_inertia_world, b->surfel_mass[k]);
            c.arm = tc_v3_sub(b->s[k], r->com);
            c.v_other = tc_rigid_velocity_at(r, b->s[k]);
        }
    }
    if (c.proxy >= 0 || immovable) fn = tc_points_add_static_contact(b, &c, h, friction);
    if (!isnan(fn)) return fn;
    tc_world_out_of_memory(w, "points body '%s': out of memory for its contacts with rigid or static bodies; some skipped",
                           tc_world_slot_name(w, b->slot));
    return 0;}

static tc_real contact_mass(const tc_world* w, int i, int k) {
    const tc_points_body* b = body(w, i);
    return k >= 0 ? b->surfel_mass[k] : b->total_mass;
}

static tc_material material(const tc_world* w, int i) { return body(w, i)->surface_material; }

static void energy(const tc_world* w, int i, tc_real* ke, tc_real* pe) {
    tc_points_body* b = body(w, i);
    tc_real k = 0, g = 0;
    for (int p = 0; p < b->np; ++p) {
        k += 0.5 * b->m[p] * tc_v3_len2(b->v[p]);
        g -= b->m[p] * tc_v3_dot(w->def.gravity, b->x[p]);
    }
    *ke = k;
    *pe = g + tc_points_elastic_energy(b); // grad_u is current after integrate
}

static uint64_t hash(const tc_world* w, int i, uint64_t h) {
    const tc_points_body* b = body(w, i);
    for (int p = 0; p < b->np; ++p) {
        h = tc_hash_vec3(h, b->x[p]);
        h = tc_hash_vec3(h, b->v[p]);
        h = tc_hash_bytes(h, &b->eps_p[p], sizeof(tc_mat3));
    }
    return tc_hash_bytes(h, &b->mark, sizeof b->mark);
}

static bool check_finite(const tc_world* w, int i, tc_error* e) {
    const tc_points_body* b = body(w, i);
    for (int p = 0; p < b->np; ++p)
        if (!tc_v3_is_finite(b->x[p]) || !tc_v3_is_finite(b->v[p])) {
            tc_error_set(e, TC_RESULT_UNSTABLE, NULL, tc_world_slot_name(w, b->slot),
                         "step %lld: phyxel %d of point body became non-finite", (long long)w->step_index, p);
            return false;
        }
    return true;
}

static tc_vec3 center_of_mass(const tc_world* w, int i) {
    const tc_points_body* b = body(w, i);
    tc_vec3 c = tc_v3_zero();
    for (int p = 0; p < b->np; ++p) c = tc_v3_madd(c, b->m[p], b->x[p]);
    return tc_v3_scale(c, 1 / b->total_mass);
}

static tc_vec3 linear_velocity(const tc_world* w, int i) {
    const tc_points_body* b = body(w, i);
    tc_vec3 c = tc_v3_zero();
    for (int p = 0; p < b->np; ++p) c = tc_v3_madd(c, b->m[p], b->v[p]);
    return tc_v3_scale(c, 1 / b->total_mass);
}

// A frame at the centre of mass, as tet and spring bodies report (the rest positions x0 are in
// world coordinates: the com minus theirs was the displacement, not a position).
static tc_transform pose(const tc_world* w, int i) {
    tc_transform t = tc_transform_identity();
    t.p = center_of_mass(w, i);
    return t;
}

static tc_vec3 angular_velocity(const tc_world* w, int i) {
    const tc_points_body* b = body(w, i);
    return tc_nodal_angular_velocity(b->x, b->v, b->m, b->np, center_of_mass(w, i));
}

static tc_real mass(const tc_world* w, int i) { return body(w, i)->total_mass; }

// Ray against the splats (discs of surfel_radius) of the drawn surface.
static tc_result apply_user_force(tc_world* w, int i, tc_vec3 f, tc_vec3 p) {
    (void)p; // spread over the phyxels by mass, like tc_points_body_apply_force
    tc_points_body* b = body(w, i);
    b->user_force = tc_v3_add(b->user_force, f);
    return TC_RESULT_OK;
}

static bool ray_cast(const tc_world* w, int i, tc_vec3 o, tc_vec3 d, tc_real max_t, tc_real* t, tc_vec3* n) {
    const tc_points_body* b = body(w, i);
    bool hit = false;
    for (int k = 0; k < b->ns; ++k) {
        tc_real dn = tc_v3_dot(d, b->n[k]);
        if (fabs(dn) < 1e-12) continue;
        tc_real tk = tc_v3_dot(tc_v3_sub(b->s[k], o), b->n[k]) / dn;
        if (tk < 0 || tk > max_t) continue;
        if (tc_v3_dist(tc_v3_madd(o, tk, d), b->s[k]) > b->surfel_radius) continue;
        max_t = tk;
        *t = tk;
        *n = b->n[k];
        hit = true;
    }
    return hit;
}

// A splat: a small hexagonal fan of triangles in the surfel's tangent plane.
static void draw_splat(const tc_debug_draw* d, tc_vec3 p, tc_vec3 n, tc_real r, tc_color col) {
    tc_vec3 t1, t2;
    tc_v3_basis(n, &t1, &t2);
    tc_vec3 nn[3] = {n, n, n};
    tc_color cc[3] = {col, col, col};
    for (int k = 0; k < 6; ++k) {
        tc_real a0 = TC_PI / 3 * k, a1 = TC_PI / 3 * (k + 1);
        tc_vec3 v[3] = {p, tc_v3_add(p, tc_v3_add(tc_v3_scale(t1, r * cos(a0)), tc_v3_scale(t2, r * sin(a0)))),
                        tc_v3_add(p, tc_v3_add(tc_v3_scale(t1, r * cos(a1)), tc_v3_scale(t2, r * sin(a1))))};
        d->draw_triangle(v, nn, cc, d->context);
    }
}

// A surfel inside a body of another kind is drawn on that body's surface: with a rigid (or
// much stiffer) partner the contact surface F = 0 is the partner's surface (w_other -> inf).
static tc_vec3 flatten_on_others(const tc_world* w, tc_vec3 p, tc_vec3* n) {
    for (int s = 0; s < w->slots.count; ++s) {
        const tc_body_slot* slot = &w->slots.data[s];
        if (!slot->alive || slot->kind == TC_BODY_POINTS) continue;
        const tc_kind_ops* ops = tc_kind_ops_of((tc_body_kind)slot->kind);
        if (!ops || !ops->signed_distance) continue;
        tc_vec3 on;
        tc_real dist = ops->signed_distance(w, slot->index, p, &on);
        if (dist < 0 && dist > -1e3) {
            *n = tc_v3_neg(on);
            return tc_v3_madd(p, -dist, on);
        }
    }
    return p;
}

static void draw(const tc_world* w, int i, const tc_debug_draw* d) {
    const tc_points_body* b = body(w, i);
    tc_color surf = {0.85f, 0.55f, 0.3f, 1}, contact = {0.9f, 0.2f, 0.2f, 1}, phyx = {0.2f, 0.4f, 0.9f, 1};
    // The deformed surface S': surfels not replaced by a contact surface, plus the contact samples.
    if (d->draw_shapes) {
        for (int k = 0; k < b->ns; ++k) {
            if (b->surfel_colliding[k]) continue;
            tc_vec3 n = b->n[k], p = flatten_on_others(w, b->s[k], &n);
            if (d->draw_points && d->draw_point) d->draw_point(p, 3, surf, d->context);
            else if (d->draw_triangle) draw_splat(d, p, n, b->surfel_radius, surf);
        }
        for (int k = 0; k < b->contact_points.count; ++k) {
            if (d->draw_points && d->draw_point) d->draw_point(b->contact_points.data[k], 3, contact, d->context);
            else if (d->draw_triangle) draw_splat(d, b->contact_points.data[k], b->contact_normals.data[k], b->surfel_radius, contact);
        }
    }
    if (d->draw_points && d->draw_point)
        for (int p = 0; p < b->np; ++p) d->draw_point(b->x[p], 6, phyx, d->context);
    if (d->draw_aabbs && d->draw_line) {
        tc_aabb a = b->aabb;
        tc_color c = {0.5f, 0.5f, 0.5f, 1};
        for (int e = 0; e < 12; ++e) {
            int axis = e / 4, u = (axis + 1) % 3, v = (axis + 2) % 3;
            tc_real lo[3] = {a.lo.x, a.lo.y, a.lo.z}, hi[3] = {a.hi.x, a.hi.y, a.hi.z}, p0[3], p1[3];
            p0[axis] = lo[axis];
            p1[axis] = hi[axis];
            p0[u] = p1[u] = (e & 1) ? hi[u] : lo[u];
            p0[v] = p1[v] = (e & 2) ? hi[v] : lo[v];
            d->draw_line(tc_v3(p0[0], p0[1], p0[2]), tc_v3(p1[0], p1[1], p1[2]), c, d->context);
        }
    }
}

// The contact surfaces need every body's MLS surface: one that ran out of memory is rebuilt
// first; if it still cannot be, the point-point contacts of this sub-step are skipped.
static void collide(tc_world* w, tc_real h) {
    tc_points_store* s = tc_points_store_of(w);
    for (int b = 0; b < s->bodies.count; ++b) {
        tc_points_body* pb = s->bodies.data[b];
        if (pb->surface_ok || tc_points_build_surface(pb)) continue;
        tc_world_out_of_memory(w, "points body '%s': out of memory for its MLS surface; point-point contacts skipped",
                               tc_world_slot_name(w, pb->slot));
        return;
    }
    tc_surfel_contact_collide(w, h);
}

// The surfels, their normals, the box and the implicit surface follow the phyxels.
static tc_result set_pose(tc_world* w, int i, tc_transform to) {
    tc_points_body* b = body(w, i);
    tc_nodal_move_rigidly(b->x, b->np, pose(w, i), to);
    tc_points_update_surfels(b);
    return TC_RESULT_OK;
}

static tc_result set_velocity(tc_world* w, int i, tc_vec3 v, tc_vec3 omega) {
    tc_points_body* b = body(w, i);
    tc_nodal_set_rigid_velocity(b->x, b->v, b->np, center_of_mass(w, i), v, omega);
    for (int k = 0; k < b->np; ++k)
        if (b->pinned[k]) b->v[k] = tc_v3_zero();
    tc_points_update_surfels(b); // surfel velocities
    return TC_RESULT_OK;
}

const tc_kind_ops tc_points_kind_ops = {
    .name = "points",
    .explicit_penalty = true,
    .destroy_store = tc_points_destroy_store,
    .remove_body = tc_points_remove_body,
    .apply_forces = apply_forces,
    .collide = collide,
    .integrate = integrate,
    .end_step = end_step,
    .body_aabb = body_aabb,
    .signed_distance = signed_distance,
    .surface_point_count = surface_point_count,
    .surface_point = surface_point,
    .velocity_at = velocity_at,
    .apply_point_force = apply_point_force,
    .static_contact = static_contact,
    .rigid_contacts = true,
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
    .write_state = tc_points_write_state,
    .read_state = tc_points_read_state,
    .check_state = tc_points_check_state,
};
