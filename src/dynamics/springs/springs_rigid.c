// Spring vertices against dynamic rigid bodies (docs/springs.md, Contacts). A stiff spring body
// crosses a world sub-step in many explicit pieces; a contact resolved once per sub-step lets
// the vertices behind the contact run into the rigid body for the whole sub-step, and pushing
// them out by that depth in one jump stores spring energy the impact never had (an energy pump:
// a 6 m/s head-on impact went from 4.9 J to 942 J). So the rigid body is met in every piece, as
// a proxy: a copy that moves along the sub-step and takes each vertex's impulse immediately,
// with the effective mass at the contact point. Every impulse is then an inelastic (or
// friction-bounded) exchange between two bodies with the right masses, which can only lower
// their kinetic energy; the summed changes go to the real body after the pieces.
//
// Timing: the rigid bodies integrate before the spring bodies in the sub-step, so the proxy is
// placed back along the real body's own motion, com(t) = com_end - (h - t) v1 (+ the extra
// motion dx the impulses caused), and after the pieces the real body gets the velocity change
// and that extra motion: as if it had been integrated with the pieces.
#include "dynamics/springs/springs.h"

#include <string.h>

static tc_rigid_body* rigid_at(const tc_world* w, int index) { return &tc_rigid_store_of(w)->bodies.data[index]; }

static tc_real max_speed(const tc_springs_body* b) {
    tc_real v2 = 0;
    for (int i = 0; i < b->n; ++i) v2 = fmax(v2, tc_v3_len2(b->v[i]));
    return sqrt(v2);
}

static void touch_free(tc_springs_proxy* p, int n) {
    tc_free(p->touch, (size_t)n * sizeof(tc_springs_touch));
    p->touch = NULL;
}

void tc_springs_rigid_begin(tc_world* w, tc_springs_body* b, tc_real h, bool record) {
    tc_array_clear(&b->proxies);
    tc_springs_update_aabb(b);
    tc_real reach = 2 * h * max_speed(b) + 1e-3; // the vertices may speed up within the sub-step
    for (int s = 0; s < w->slots.count; ++s) {
        const tc_body_slot* slot = &w->slots.data[s];
        if (!slot->alive || slot->kind != TC_BODY_RIGID) continue;
        const tc_rigid_body* r = rigid_at(w, slot->index);
        if (!tc_rigid_is_dynamic(r)) continue;
        tc_vec3 half = tc_v3_scale(tc_v3_sub(r->aabb.hi, r->aabb.lo), 0.5);
        tc_real travel = h * (tc_v3_len(r->v) + tc_v3_len(r->w) * tc_v3_len(half)); // it moved this far in the sub-step
        if (!tc_aabb_overlap(tc_aabb_inflate(r->aabb, travel + reach), b->aabb)) continue;
        tc_springs_proxy p;
        memset(&p, 0, sizeof p);
        p.index = slot->index, p.body = *r, p.end_pose = r->pose, p.end_com = r->com, p.v1 = r->v, p.w1 = r->w, p.end_aabb = r->aabb;
        if (record) {
            p.touch = tc_alloc((size_t)b->n * sizeof(tc_springs_touch));
            if (p.touch) memset(p.touch, 0, (size_t)b->n * sizeof(tc_springs_touch));
            else // the contacts with this body are resolved but not recorded
                tc_world_out_of_memory(w, "springs body '%s': out of memory for contact records with '%s'", tc_world_slot_name(w, b->slot),
                                       tc_world_slot_name(w, s));
        }
        if (tc_array_push(&b->proxies, p)) continue;
        touch_free(&p, b->n);
        tc_world_out_of_memory(w, "springs body '%s': out of memory for its contact with rigid body '%s'; skipped this sub-step",
                               tc_world_slot_name(w, b->slot), tc_world_slot_name(w, s));
    }
}

// The proxy `back` seconds before the end of the sub-step: the real body's end state moved back
// along its own velocities, plus the extra motion of the impulses so far.
static void place(tc_springs_proxy* p, tc_real back) {
    tc_rigid_body* r = &p->body;
    tc_vec3 turn = tc_v3_madd(p->dtheta, -back, p->w1);
    r->com = tc_v3_add(tc_v3_madd(p->end_com, -back, p->v1), p->dx);
    r->pose.q = tc_quat_integrate(p->end_pose.q, turn, 1);
    r->pose.p = tc_v3_sub(r->com, tc_quat_rotate(r->pose.q, r->com_local));
    tc_vec3 shift = tc_v3_sub(r->com, p->end_com), half = tc_v3_scale(tc_v3_sub(p->end_aabb.hi, p->end_aabb.lo), 0.5);
    tc_aabb moved = {tc_v3_add(p->end_aabb.lo, shift), tc_v3_add(p->end_aabb.hi, shift)};
    r->aabb = tc_aabb_inflate(moved, tc_v3_len(turn) * tc_v3_len(half) + 1e-3);
}

// Inverse mass of the rigid body at the arm along d: 1/m + (arm x d) . I^-1 (arm x d).
static tc_real inv_mass_along(const tc_rigid_body* r, tc_vec3 arm, tc_vec3 d) {
    tc_vec3 ad = tc_v3_cross(arm, d);
    return r->inv_mass + tc_v3_dot(ad, tc_mat3_mul_v3(r->inv_inertia_world, ad));
}

// Impulse j on vertex i, -j on the rigid body at the arm.
static void exchange(tc_springs_body* b, int i, tc_rigid_body* r, tc_vec3 arm, tc_vec3 j) {
    b->v[i] = tc_v3_madd(b->v[i], b->inv_m[i], j);
    r->v = tc_v3_madd(r->v, -r->inv_mass, j);
    r->w = tc_v3_sub(r->w, tc_mat3_mul_v3(r->inv_inertia_world, tc_v3_cross(arm, j)));
}

// Inelastic projection of vertex i out of the proxy: pushed out by its share of the depth, the
// approach velocity removed with the pair's effective mass along n, then Coulomb friction bounded
// by the effective mass along the sliding direction (both impulses can only lower the kinetic
// energy: an impulse j along d changes it by j (v_rel . d) + j^2 w_d / 2).
static void project_vertex(tc_springs_body* b, int i, tc_springs_proxy* p, tc_vec3 n, tc_real depth, tc_real mu) {
    tc_rigid_body* r = &p->body;
    tc_vec3 x = b->x[i], arm = tc_v3_sub(x, r->com);
    tc_real wn = b->inv_m[i] + inv_mass_along(r, arm, n);
    if (!(wn > 0)) return;
    b->x[i] = tc_v3_madd(x, depth * b->inv_m[i] / wn, n);
    tc_real vn = tc_v3_dot(tc_v3_sub(b->v[i], tc_rigid_velocity_at(r, x)), n), jn = vn < 0 ? -vn / wn : 0, jt = 0;
    if (jn > 0) exchange(b, i, r, arm, tc_v3_scale(n, jn));
    tc_vec3 vrel = tc_v3_sub(b->v[i], tc_rigid_velocity_at(r, x)), vt = tc_v3_madd(vrel, -tc_v3_dot(vrel, n), n), t = tc_v3_zero();
    tc_real vtl = tc_v3_len(vt);
    if (vtl > 1e-12 && mu * jn > 0) {
        t = tc_v3_scale(vt, 1 / vtl);
        jt = fmin(mu * jn, vtl / (b->inv_m[i] + inv_mass_along(r, arm, t)));
        exchange(b, i, r, arm, tc_v3_scale(t, -jt));
    }
    p->touched = p->touched || jn > 0;
    if (!p->touch) return;
    tc_springs_touch* c = &p->touch[i];
    c->jn += jn, c->depth = fmax(c->depth, depth), c->n = n, c->p = x, c->jt = tc_v3_madd(c->jt, -jt, t);
}

void tc_springs_project_rigid(tc_world* w, tc_springs_body* b, tc_real h, int piece, int pieces) {
    tc_real dt = h / pieces, back = h - (piece + 1) * dt;
    tc_springs_project_static(w, b, dt); // also refreshes b->aabb
    for (int k = 0; k < b->proxies.count; ++k) {
        tc_springs_proxy* p = &b->proxies.data[k];
        place(p, back);
        if (tc_aabb_overlap(p->body.aabb, b->aabb)) {
            tc_real mu = sqrt(b->material.friction * p->body.material.friction);
            for (int i = 0; i < b->n; ++i) {
                if (!tc_aabb_contains_point(p->body.aabb, b->x[i])) continue;
                tc_vec3 n;
                tc_real d = tc_rigid_signed_distance(&p->body, b->x[i], &n);
                if (d < 0) project_vertex(b, i, p, n, -d, mu);
            }
        }
        if (piece < pieces - 1) { // the changed velocities carry the proxy through the next piece
            p->dx = tc_v3_madd(p->dx, dt, tc_v3_sub(p->body.v, p->v1));
            p->dtheta = tc_v3_madd(p->dtheta, dt, tc_v3_sub(p->body.w, p->w1));
        }
    }
}

static void record(tc_world* w, const tc_springs_body* b, const tc_springs_proxy* p, tc_real h) {
    for (int i = 0; i < b->n; ++i) {
        const tc_springs_touch* t = &p->touch[i];
        if (!(t->depth > 0)) continue;
        tc_contact c = {tc_world_slot_id(w, p->body.slot), tc_world_slot_id(w, b->slot), -1, i, t->p, t->n, -t->depth, t->jn / h,
                        tc_v3_scale(t->jt, 1 / h), 0};
        tc_world_add_contact(w, &c);
    }
}

void tc_springs_rigid_end(tc_world* w, tc_springs_body* b, tc_real h) {
    for (int k = 0; k < b->proxies.count; ++k) {
        tc_springs_proxy* p = &b->proxies.data[k];
        if (p->touched) {
            tc_rigid_body* r = rigid_at(w, p->index);
            r->v = tc_v3_add(r->v, tc_v3_sub(p->body.v, p->v1));
            r->w = tc_v3_add(r->w, tc_v3_sub(p->body.w, p->w1));
            r->pose.q = tc_quat_integrate(r->pose.q, p->dtheta, 1);
            r->pose.p = tc_v3_sub(tc_v3_add(r->com, p->dx), tc_quat_rotate(r->pose.q, r->com_local));
            tc_rigid_update_derived(r);
            r->awake = true, r->sleep_time = 0;
        }
        if (p->touch) record(w, b, p, h), touch_free(p, b->n);
    }
    tc_array_clear(&b->proxies);
}
