// Contacts of point bodies with immovable geometry, integrated within the body's own explicit
// sub-steps. The generic coupling (world/coupling.c) holds a penalty force over a whole world
// sub-step, so its stiffness is bounded by that sub-step: a soft sphere thrown at 6 m/s sank
// 4 cm into a static 5 cm ball and went through it. Linearised over the sub-step (the plane at
// the surfel's start), a contact is re-evaluated at every internal step instead, and can be as
// stiff as those steps allow (~10x the world's penalty frequency for E = 1e5 Pa).
#include "dynamics/points/points.h"

void tc_points_static_contact_gains(const tc_points_static_contact* c, tc_real dt, tc_real* omega, tc_real* zeta) {
    // w dt = 0.5 keeps symplectic Euler stable (it needs w dt < 2) with room for the contacts of
    // neighbouring surfels adding up on a phyxel; the damper stays below its discrete critical
    // value 2 w - w^2 dt (as a ratio 1 - w dt / 2), above which it reverses velocities.
    *omega = fmax(c->omega, 0.5 / dt);
    *zeta = fmin(c->zeta, 1 - 0.5 * *omega * dt);
}

tc_real tc_points_add_static_contact(tc_points_body* b, const tc_points_static_contact* c, tc_real h, tc_vec3* friction) {
    *friction = tc_v3_zero();
    if (!tc_array_push(&b->static_contacts, *c)) return NAN; // out of memory: this surfel goes without
    if (b->static_contacts.count == 1) b->static_dt = tc_points_internal_dt(b, h); // (all share the world's omega)
    if (!(c->d < 0)) return 0;
    tc_real omega, zeta, m = b->surfel_mass[c->k];
    tc_points_static_contact_gains(c, b->static_dt, &omega, &zeta);
    tc_vec3 v = tc_v3_sub(b->sv[c->k], c->v_other);
    tc_real fn = tc_points_static_contact_normal_force(c, m, omega, zeta, c->d, tc_v3_dot(v, c->n));
    *friction = tc_points_static_contact_friction(c, m, fn, v, b->static_dt);
    return fn;
}

tc_vec3 tc_points_static_contact_friction(const tc_points_static_contact* c, tc_real m, tc_real fn, tc_vec3 v, tc_real dt) {
    tc_vec3 vt = tc_v3_madd(v, -tc_v3_dot(v, c->n), c->n);
    tc_real vt_len = tc_v3_len(vt);
    if (!(fn > 0) || vt_len <= 1e-12) return tc_v3_zero();
    return tc_v3_scale(vt, -fmin(c->mu * fn, m * vt_len / dt) / vt_len);
}

tc_real tc_points_static_contact_normal_force(const tc_points_static_contact* c, tc_real m, tc_real omega, tc_real zeta, tc_real d,
                                              tc_real vn) {
    if (!(d < 0)) return 0;
    // A deep overlap (a body created in the ground) would be pushed out at ~w |d|: the spring
    // rests while the surfel already leaves faster than push_max, the damper still acts.
    tc_real spring = vn < c->push_max ? -omega * d : 0;
    return fmax(0, m * omega * (spring - 2 * zeta * vn));
}

int tc_points_proxy_for(tc_points_body* b, int rigid, tc_real inv_mass, tc_mat3 inv_inertia, tc_real m) {
    for (int i = 0; i < b->proxies.count; ++i)
        if (b->proxies.data[i].rigid == rigid) {
            b->proxies.data[i].msum += m;
            return i;
        }
    tc_points_proxy p = {.rigid = rigid, .inv_mass = inv_mass, .inv_inertia = inv_inertia, .msum = m};
    return tc_array_push(&b->proxies, p) ? b->proxies.count - 1 : -1;
}

// The mass the contact at `arm` along n pushes on the proxy's side: the rigid body's effective
// mass there, shared among the surfels registered against it in proportion to their masses (so
// that all of them together are no stiffer than the body: stable at w dt <= 0.5), in series
// with the surfel's own.
static tc_real contact_mass(const tc_points_proxy* p, tc_vec3 arm, tc_vec3 n, tc_real m) {
    tc_vec3 an = tc_v3_cross(arm, n);
    tc_real inv = p->inv_mass + tc_v3_dot(an, tc_mat3_mul_v3(p->inv_inertia, an));
    if (!(inv > 0)) return m;
    tc_real share = m / (inv * p->msum);
    return m * share / (m + share);
}

void tc_points_static_contacts_apply(tc_points_body* b, const tc_vec3* x_start, tc_real tau, tc_real dt, tc_vec3* f) {
    for (int i = 0; i < b->static_contacts.count; ++i) {
        const tc_points_static_contact* c = &b->static_contacts.data[i];
        tc_vec3 moved = tc_v3_zero(), v = tc_v3_zero();
        for (int t = b->sp_start[c->k]; t < b->sp_start[c->k + 1]; ++t) {
            int p = b->sp[t];
            moved = tc_v3_madd(moved, b->sp_w[t], tc_v3_sub(b->x[p], x_start[p]));
            v = tc_v3_madd(v, b->sp_w[t], b->v[p]);
        }
        tc_points_proxy* px = c->proxy >= 0 ? &b->proxies.data[c->proxy] : NULL;
        tc_real m = b->surfel_mass[c->k];
        if (px) { // relative to the proxy: its motion so far and its velocity at the surfel
            tc_vec3 turn = tc_v3_madd(px->dtheta, tau, px->w1);
            moved = tc_v3_sub(moved, tc_v3_add(tc_v3_madd(px->dx, tau, px->v1), tc_v3_cross(turn, c->arm)));
            v = tc_v3_sub(v, tc_v3_add(px->v, tc_v3_cross(px->w, c->arm)));
            m = contact_mass(px, c->arm, c->n, m);
        }
        tc_real omega, zeta, vn = tc_v3_dot(v, c->n);
        tc_points_static_contact_gains(c, dt, &omega, &zeta);
        tc_real fn = tc_points_static_contact_normal_force(c, m, omega, zeta, c->d + tc_v3_dot(moved, c->n), vn);
        if (fn <= 0) continue;
        tc_vec3 force = tc_v3_madd(tc_points_static_contact_friction(c, m, fn, v, dt), fn, c->n);
        for (int t = b->sp_start[c->k]; t < b->sp_start[c->k + 1]; ++t) f[b->sp[t]] = tc_v3_madd(f[b->sp[t]], b->sp_w[t], force);
        if (!px) continue;
        tc_vec3 j = tc_v3_scale(force, -dt), jw = tc_v3_cross(c->arm, j); // the reaction, at once
        px->v = tc_v3_madd(px->v, px->inv_mass, j);
        px->w = tc_v3_add(px->w, tc_mat3_mul_v3(px->inv_inertia, jw));
        px->impulse = tc_v3_add(px->impulse, j);
        px->angular_impulse = tc_v3_add(px->angular_impulse, jw);
        px->touched = true;
    }
    for (int i = 0; i < b->proxies.count; ++i) { // the proxies move on by the step
        tc_points_proxy* px = &b->proxies.data[i];
        px->dx = tc_v3_madd(px->dx, dt, tc_v3_sub(px->v, px->v1));
        px->dtheta = tc_v3_madd(px->dtheta, dt, tc_v3_sub(px->w, px->w1));
    }
}
