// Generic penalty coupling between bodies of different kinds (docs/pipeline.md):
// the surface samples of one body are tested against the other body's signed distance, and a
// spring-damper with regularised Coulomb friction acts on both. Stiffness comes from the
// pair's reduced mass and the world's penalty frequency, so it is stable whatever the scale.
#include "world/world_internal.h"

typedef struct pair_side {
    const tc_kind_ops* ops;
    int index;
    int32_t slot;
} pair_side;

static tc_real reduced_mass(tc_real m, tc_real mo) {
    if (!(mo > 0)) return m;
    if (!(m > 0)) return mo;
    return m * mo / (m + mo);
}

static tc_vec3 friction_force(tc_vec3 vt, tc_real fn, tc_real mu, tc_real mr, tc_real h) {
    tc_real vt_len = tc_v3_len(vt);
    if (vt_len < 1e-12) return tc_v3_zero();
    // No more than the force that stops the sliding within one sub-step (no overshoot).
    tc_real f = fmin(mu * fn, mr * vt_len / h);
    return tc_v3_scale(vt, -f / vt_len);
}

// Damping coefficient per unit mass. 2 zeta w is the continuous value; when the forces are
// integrated explicitly, v -> (1 - c h) v - w^2 h x is only stable for c h < 2 and w^2 h^2 < 4 - 2 c h,
// and c = 2 w - w^2 h is its critical damping (a double eigenvalue), so larger values only add
// overshoot.
static tc_real damping_rate(const tc_world* w, bool explicit_penalty, tc_real h) {
    tc_real omega = 2 * TC_PI * w->def.penalty_hertz, c = 2 * w->def.penalty_damping_ratio * omega;
    return explicit_penalty ? fmax(0, fmin(c, 2 * omega - omega * omega * h)) : c;
}

// How fast b's surface may move (m/s): 0 for static geometry.
static tc_real body_speed(tc_world* w, pair_side b) {
    if (w->slots.data[b.slot].kind == TC_BODY_STATIC || !b.ops->linear_velocity) return 0;
    tc_aabb box = b.ops->body_aabb(w, b.index);
    tc_real spin = b.ops->angular_velocity ? tc_v3_len(b.ops->angular_velocity(w, b.index)) : 0;
    return tc_v3_len(b.ops->linear_velocity(w, b.index)) + spin * 0.5 * tc_v3_len(tc_v3_sub(box.hi, box.lo));
}

// Samples of a against b (static geometry, or a dynamic rigid body) when a integrates such
// contacts itself: those inside b and those close enough to reach it within the sub-step (the
// kind's stiff contact must meet them before they are deep: a fast body would otherwise cross a
// thin wall between two sub-steps).
static void samples_against_own(tc_world* w, pair_side a, pair_side b, tc_real h, bool record, tc_real mu) {
    int n = a.ops->surface_point_count(w, a.index);
    bool is_static = w->slots.data[b.slot].kind == TC_BODY_STATIC;
    tc_aabb box_b = b.ops->body_aabb(w, b.index);
    tc_real speed_b = body_speed(w, b);
    for (int k = 0; k < n; ++k) {
        tc_vec3 p, v, normal, friction = tc_v3_zero();
        tc_real m;
        a.ops->surface_point(w, a.index, k, &p, &v, &m);
        tc_real reach = h * (tc_v3_len(v) + speed_b);
        if (!tc_aabb_contains_point(tc_aabb_inflate(box_b, reach), p)) continue;
        tc_real d = b.ops->signed_distance_near ? b.ops->signed_distance_near(w, b.index, p, reach, &normal)
                                                : b.ops->signed_distance(w, b.index, p, &normal);
        if (d >= 1e299) continue;
        tc_vec3 vrel = is_static ? v : tc_v3_sub(v, b.ops->velocity_at(w, b.index, -1, p));
        if (d >= 0 && d >= -h * tc_v3_dot(vrel, normal)) continue;
        tc_real fn = a.ops->static_contact(w, a.index, k, is_static ? -1 : b.slot, normal, d, mu, h, &friction);
        if (!record || d >= 0) continue;
        tc_contact c = {tc_world_slot_id(w, b.slot), tc_world_slot_id(w, a.slot), -1, k, p, normal, d, fn, friction, 0};
        tc_world_add_contact(w, &c);
    }
}

// True when a takes its contacts with b itself (static_contact).
static bool own_contact(const tc_world* w, pair_side a, pair_side b) {
    uint8_t kind = w->slots.data[b.slot].kind;
    return a.ops->static_contact && (kind == TC_BODY_STATIC || (kind == TC_BODY_RIGID && a.ops->rigid_contacts));
}

// The fastest surface sample of a body (m/s): how far outside a static body's box its samples
// may start and still reach it within a sub-step.
static tc_real max_sample_speed(tc_world* w, pair_side a) {
    tc_real v2 = 0;
    for (int k = 0, n = a.ops->surface_point_count(w, a.index); k < n; ++k) {
        tc_vec3 p, v;
        tc_real m;
        a.ops->surface_point(w, a.index, k, &p, &v, &m);
        v2 = fmax(v2, tc_v3_len2(v));
    }
    return sqrt(v2);
}

static void samples_against(tc_world* w, pair_side a, pair_side b, tc_real h, bool record) {
    if (own_contact(w, a, b)) {
        tc_material ma = a.ops->material ? a.ops->material(w, a.index) : (tc_material){0.6, 0};
        tc_material mb = b.ops->material ? b.ops->material(w, b.index) : (tc_material){0.6, 0};
        samples_against_own(w, a, b, h, record, sqrt(ma.friction * mb.friction));
        return;
    }
    int n = a.ops->surface_point_count(w, a.index);
    tc_aabb box_b = b.ops->body_aabb(w, b.index);
    tc_material ma = a.ops->material ? a.ops->material(w, a.index) : (tc_material){0.6, 0};
    tc_material mb = b.ops->material ? b.ops->material(w, b.index) : (tc_material){0.6, 0};
    tc_real mu = sqrt(ma.friction * mb.friction);
    tc_real omega = 2 * TC_PI * w->def.penalty_hertz, rate = damping_rate(w, a.ops->explicit_penalty || b.ops->explicit_penalty, h);
    for (int k = 0; k < n; ++k) {
        tc_vec3 p, v, normal;
        tc_real m;
        a.ops->surface_point(w, a.index, k, &p, &v, &m);
        if (!tc_aabb_contains_point(box_b, p)) continue;
        tc_real d = b.ops->signed_distance(w, b.index, p, &normal);
        if (d >= 0) continue;
        tc_real mo = b.ops->contact_mass ? b.ops->contact_mass(w, b.index, -1) : 0;
        tc_real mr = reduced_mass(m, mo);
        tc_vec3 vrel = tc_v3_sub(v, b.ops->velocity_at(w, b.index, -1, p));
        tc_real vn = tc_v3_dot(vrel, normal);
        tc_real fn = fmax(0, mr * omega * omega * (-d) - rate * mr * vn);
        tc_vec3 f = tc_v3_add(tc_v3_scale(normal, fn), friction_force(tc_v3_madd(vrel, -vn, normal), fn, mu, mr, h));
        a.ops->apply_point_force(w, a.index, k, p, f);
        b.ops->apply_point_force(w, b.index, -1, p, tc_v3_neg(f));
        if (!record) continue;
        tc_contact c = {tc_world_slot_id(w, b.slot), tc_world_slot_id(w, a.slot), -1, k, p, normal, d, fn, tc_v3_madd(f, -tc_v3_dot(f, normal), normal), 0};
        tc_world_add_contact(w, &c);
    }
}

static bool is_penalty_kind(uint8_t kind) { return kind == TC_BODY_TET || kind == TC_BODY_POINTS || kind == TC_BODY_SPRINGS; }

// Pairs are visited from their deformable side, so the cost is (deformable bodies) x (bodies).
void tc_coupling_penalty_sdf(tc_world* w, tc_real h) {
    bool record = (w->substep_index % w->def.sub_steps) == w->def.sub_steps - 1;
    for (int i = 0; i < w->slots.count; ++i) {
        const tc_body_slot* si = &w->slots.data[i];
        if (!si->alive || !is_penalty_kind(si->kind)) continue;
        tc_real reach = -1; // how far a's samples travel in the sub-step (m), found when first needed
        for (int j = 0; j < w->slots.count; ++j) {
            const tc_body_slot* sj = &w->slots.data[j];
            if (j == i || !sj->alive || (is_penalty_kind(sj->kind) && j < i)) continue;
            if (tc_coupling_of((tc_body_kind)si->kind, (tc_body_kind)sj->kind) != TC_COUPLE_PENALTY_SDF) continue;
            pair_side a = {tc_kind_ops_of((tc_body_kind)si->kind), si->index, i};
            pair_side b = {tc_kind_ops_of((tc_body_kind)sj->kind), sj->index, j};
            if (!a.ops || !b.ops) continue;
            tc_aabb box_a = a.ops->body_aabb(w, a.index);
            if (own_contact(w, a, b)) { // samples may reach b within the sub-step
                if (reach < 0) reach = h * max_sample_speed(w, a);
                box_a = tc_aabb_inflate(box_a, reach + h * body_speed(w, b));
            }
            if (!tc_aabb_overlap(box_a, b.ops->body_aabb(w, b.index))) continue;
            if (a.ops->surface_point_count && b.ops->signed_distance) samples_against(w, a, b, h, record);
            if (b.ops->surface_point_count && a.ops->signed_distance) samples_against(w, b, a, h, record);
        }
    }
}

// A sleeping rigid body is left out of the rigid solver's pairs for the step: if a point body met
// it through a proxy it would be pushed through what it rests on. Woken here, before the pairs
// are made, when a moving body may reach it; one that is reached anyway (the body sped up) is met
// as immovable for the step and wakes at the next (wake_next, points_ops.c).
void tc_coupling_wake_near(tc_world* w, tc_real dt) {
    const tc_real moving = 0.05; // m/s, the rigid bodies' sleep threshold (docs/rigid.md)
    for (int i = 0; i < w->slots.count; ++i) {
        const tc_body_slot* si = &w->slots.data[i];
        const tc_kind_ops* ops = si->alive ? tc_kind_ops_of((tc_body_kind)si->kind) : NULL;
        if (!ops || !ops->rigid_contacts || !ops->surface_point_count) continue;
        pair_side a = {ops, si->index, i};
        tc_real speed = max_sample_speed(w, a);
        if (!(speed > moving)) continue;
        tc_aabb reach = tc_aabb_inflate(ops->body_aabb(w, si->index), speed * dt);
        for (int j = 0; j < w->slots.count; ++j) {
            const tc_body_slot* sj = &w->slots.data[j];
            const tc_kind_ops* other = sj->alive && sj->kind == TC_BODY_RIGID ? tc_kind_ops_of(TC_BODY_RIGID) : NULL;
            if (!other || !other->wake || !other->is_awake || other->is_awake(w, sj->index)) continue;
            if (tc_aabb_overlap(reach, other->body_aabb(w, sj->index))) other->wake(w, sj->index);
        }
    }
}
