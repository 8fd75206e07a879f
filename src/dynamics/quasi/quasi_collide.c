// The quasi-rigid collide hook: LCP contacts of every quasi body against static and rigid bodies
// (their exact signed distance) and other quasi bodies (their MLS surface, per-object split), with
// the resulting tractions applied as forces and torques to the shared rigid dynamics.
#include <math.h>
#include "dynamics/quasi/quasi.h"

typedef struct mls_side {
    const tc_pointset* cloud;
    tc_transform pose;
} mls_side;

static tc_real rigid_sdf(const void* user, tc_vec3 p, tc_vec3* normal) {
    return tc_rigid_signed_distance((const tc_rigid_body*)user, p, normal);
}

static tc_real mls_sdf(const void* user, tc_vec3 p, tc_vec3* normal) {
    const mls_side* m = user;
    tc_vec3 nl;
    tc_real d = tc_pointset_signed_distance_any(m->cloud, tc_transform_inv_point(m->pose, p), &nl);
    *normal = tc_quat_rotate(m->pose.q, nl);
    return d;
}

static tc_quasi_surface surface_of(const tc_world* w, const tc_quasi_body* q) {
    tc_quasi_surface s = {&q->cloud, &q->tree, q->areas, tc_quasi_rigid(w, q)->pose, q->response};
    return s;
}

static tc_aabb quasi_box(const tc_world* w, const tc_quasi_body* q) {
    return tc_kind_ops_of(TC_BODY_QUASI)->body_aabb(w, w->slots.data[q->slot].index);
}

// 1 / effective mass of body b at point p along unit direction t (0 for static bodies).
static tc_real inv_mass_along(const tc_rigid_body* b, tc_vec3 p, tc_vec3 t) {
    if (!b || !tc_rigid_is_dynamic(b)) return 0;
    tc_vec3 rt = tc_v3_cross(tc_v3_sub(p, b->com), t);
    return b->inv_mass + tc_v3_dot(rt, tc_mat3_mul_v3(b->inv_inertia_world, rt));
}

typedef struct pair_ctx {
    tc_world* w;
    tc_quasi_body* qa;     // the side whose nodes the patch holds
    tc_rigid_body* a;
    tc_rigid_body* b;      // the other side's frame (static, rigid or quasi)
    tc_quasi_body* qb;     // the other side's record when quasi (else NULL)
    tc_real scale;         // share of the force this estimate contributes (per-object split: ½)
    tc_real h;
} pair_ctx;

static void spread_to_samples(tc_quasi_body* q, const tc_quasi_patch* pt, int i) {
    if (pt->level == 0) {
        int s = pt->nodes.data[i];
        q->traction[s] = fmax(q->traction[s], pt->pressure.data[i]);
        q->displacement[s] = fmax(q->displacement[s], pt->disp_a.data[i]);
        return;
    }
    const tc_sphere_node* nd = &q->tree.nodes[pt->nodes.data[i]];
    for (int k = nd->begin; k < nd->end; ++k) {
        int s = q->tree.order[k];
        q->traction[s] = fmax(q->traction[s], pt->pressure.data[i]);
        q->displacement[s] = fmax(q->displacement[s], pt->disp_a.data[i]);
    }
}

// The open ledger of qa's contact with body slot `other` (a new one when the contact begins;
// NULL if out of memory, which leaves the load uncapped).
static tc_quasi_ledger* ledger_of(tc_quasi_body* qa, int32_t other) {
    for (int i = 0; i < qa->ledgers.count; ++i)
        if (qa->ledgers.data[i].other_slot == other) return &qa->ledgers.data[i];
    tc_quasi_ledger fresh = {other, 0, 0};
    return tc_array_push(&qa->ledgers, fresh) ? &qa->ledgers.data[qa->ledgers.count - 1] : NULL;
}

static tc_vec3 velocity_of(const tc_rigid_body* b) { return tc_rigid_is_dynamic(b) ? b->v : tc_v3_zero(); }
static tc_vec3 spin_of(const tc_rigid_body* b) { return tc_rigid_is_dynamic(b) ? b->w : tc_v3_zero(); }

// The energy change -½ h² (|F_o|²/m + τ_o·I⁻¹τ_o) the other loads on a frame (gravity, user forces,
// the contacts gathered so far: F_o, τ_o) make alone in the explicit update, with -F_o·x, -τ_o·θ
// counted as their potential (constant over the sub-step).
static tc_real other_loads_share(const tc_world* w, const tc_rigid_body* b, tc_real h) {
    if (!tc_rigid_is_dynamic(b)) return 0;
    tc_vec3 Fo = tc_v3_madd(b->force, b->mass, w->def.gravity);
    return -0.5 * h * h * (tc_v3_len2(Fo) * b->inv_mass + tc_v3_dot(b->torque, tc_mat3_mul_v3(b->inv_inertia_world, b->torque)));
}

static tc_real inv_inertia_quad(const tc_rigid_body* b, tc_vec3 tau) {
    return tc_rigid_is_dynamic(b) ? tc_v3_dot(tau, tc_mat3_mul_v3(b->inv_inertia_world, tau)) : 0;
}

// Passivity cap of the layer load. The load is solved at the sub-step's start pose and held for
// the whole sub-step (symplectic Euler), so a contact spanning few sub-steps (ωh near 2) takes
// too little energy out on the way in and gives too much back on the way out (docs/quasi.md).
// In the explicit update (v' = v + h(F_o + sF)/m, x' = x + h v') the frames' kinetic energy plus
// the other loads' potential -F_o·x changes by W0 + s W1 + ½ s² W2 when the load (F on A, -F on B,
// torques ta, tb) is scaled by s (the cross terms cancel): W1 = h F·(v_a - v_b) + h(ta·w_a +
// tb·w_b), W2 = h²(|F|²/m + τ·I⁻¹τ terms), W0 the other loads' own share (other_loads_share).
// The ledger holds what the contact has taken from the frames' energy so far, and s ≤ 1 is the
// largest scale whose change it covers: the frames leave a contact with no more energy than they
// brought. A resolved contact gives back about what it took and is barely touched; resting
// contact (v ≈ 0, F = -F_o) costs W0 + ½W2 = 0.
static tc_real passivity_scale(const pair_ctx* c, tc_vec3 F, tc_vec3 ta, tc_vec3 tb) {
    tc_quasi_ledger* led = ledger_of(c->qa, c->b->slot);
    if (!led) return 1;
    led->touched = 1;
    tc_real h = c->h;
    tc_real ia = tc_rigid_is_dynamic(c->a) ? c->a->inv_mass : 0, ib = tc_rigid_is_dynamic(c->b) ? c->b->inv_mass : 0;
    tc_vec3 va = velocity_of(c->a), vb = velocity_of(c->b), wa = spin_of(c->a), wb = spin_of(c->b);
    tc_real W0 = other_loads_share(c->w, c->a, h) + other_loads_share(c->w, c->b, h);
    tc_real W1 = h * (tc_v3_dot(F, tc_v3_sub(va, vb)) + tc_v3_dot(ta, wa) + tc_v3_dot(tb, wb));
    tc_real W2 = h * h * (tc_v3_len2(F) * (ia + ib) + inv_inertia_quad(c->a, ta) + inv_inertia_quad(c->b, tb));
    tc_real s = 1, L = led->absorbed - W0; // the budget for s W1 + ½ s² W2 (W0 <= 0, so L >= 0)
    if (W1 + 0.5 * W2 > L) s = W2 > 0 ? (-W1 + sqrt(W1 * W1 + 2 * W2 * L)) / W2 : (W1 > 0 ? L / W1 : 1);
    s = fmin(1, fmax(0, s));
    led->absorbed = fmax(0, L - (s * W1 + 0.5 * s * s * W2));
    return s;
}

// Normal traction, layer damping and Coulomb friction of every node; applied to both frames.
static void apply_patch(const pair_ctx* c, const tc_quasi_patch* pt) {
    tc_real mu = sqrt(c->a->material.friction * c->b->material.friction);
    tc_vec3 F = tc_v3_zero(), Ft = tc_v3_zero(), centroid = tc_v3_zero(), navg = tc_v3_zero();
    tc_vec3 tau_a = tc_v3_zero(), tau_b = tc_v3_zero();
    tc_real load = 0, min_s0 = 0;
    tc_vec3 Fe = tc_v3_zero(), tea = tc_v3_zero(), teb = tc_v3_zero(); // the layer load alone
    for (int i = 0; i < pt->nodes.count; ++i) {
        tc_real p = pt->pressure.data[i];
        if (p <= 0) continue;
        tc_vec3 q = pt->points.data[i], f = tc_v3_scale(pt->normals.data[i], p * pt->area.data[i] * c->scale);
        Fe = tc_v3_add(Fe, f);
        tea = tc_v3_add(tea, tc_v3_cross(tc_v3_sub(q, c->a->com), f));
        teb = tc_v3_sub(teb, tc_v3_cross(tc_v3_sub(q, c->b->com), f));
    }
    if (tc_v3_len2(Fe) <= 0 && tc_v3_len2(tea) <= 0) return;
    tc_real cap = passivity_scale(c, Fe, tea, teb);
    for (int i = 0; i < pt->nodes.count; ++i) {
        min_s0 = fmin(min_s0, pt->s0.data[i]);
        tc_real p = cap * pt->pressure.data[i];
        if (p <= 0) continue;
        spread_to_samples(c->qa, pt, i);
        tc_vec3 q = pt->points.data[i], n = pt->normals.data[i];
        tc_real a = pt->area.data[i];
        tc_vec3 vrel = tc_v3_sub(tc_rigid_velocity_at(c->a, q), tc_rigid_velocity_at(c->b, q));
        tc_real vn = tc_v3_dot(vrel, n);
        tc_real fn = fmax(0, p * a - c->qa->layer_damping * a * vn); // damping never pulls
        tc_vec3 vt = tc_v3_madd(vrel, -vn, n);
        tc_vec3 ft = tc_v3_scale(vt, -mu * p * a / fmax(tc_v3_len(vt), 1e-4));
        tc_vec3 f = tc_v3_madd(ft, fn, n);
        F = tc_v3_add(F, f);
        Ft = tc_v3_add(Ft, ft);
        tau_a = tc_v3_add(tau_a, tc_v3_cross(tc_v3_sub(q, c->a->com), f));
        tau_b = tc_v3_add(tau_b, tc_v3_cross(tc_v3_sub(q, c->b->com), tc_v3_neg(f)));
        centroid = tc_v3_madd(centroid, p * a, q);
        navg = tc_v3_madd(navg, p * a, n);
        load += p * a;
    }
    if (load <= 0) return;
    centroid = tc_v3_scale(centroid, 1 / load);
    navg = tc_v3_normalize(navg);
    // Explicit friction must not reverse the sliding velocity within a sub-step: cap the total
    // at what stops the contact point (effective mass of both frames along the slip).
    tc_real ft_len = tc_v3_len(Ft);
    if (ft_len > 0) {
        tc_vec3 t = tc_v3_scale(Ft, 1 / ft_len);
        tc_vec3 vrel = tc_v3_sub(tc_rigid_velocity_at(c->a, centroid), tc_rigid_velocity_at(c->b, centroid));
        tc_real inv_m = inv_mass_along(c->a, centroid, t) + inv_mass_along(c->b, centroid, t);
        tc_real stop = inv_m > 0 ? fabs(tc_v3_dot(vrel, t)) / (inv_m * c->h) : ft_len;
        if (ft_len > stop) {
            tc_vec3 cut = tc_v3_scale(Ft, stop / ft_len - 1); // the friction removed
            F = tc_v3_add(F, cut);
            tau_a = tc_v3_add(tau_a, tc_v3_cross(tc_v3_sub(centroid, c->a->com), cut));
            tau_b = tc_v3_sub(tau_b, tc_v3_cross(tc_v3_sub(centroid, c->b->com), cut));
            Ft = tc_v3_add(Ft, cut);
        }
    }
    F = tc_v3_scale(F, c->scale);
    tau_a = tc_v3_scale(tau_a, c->scale);
    tau_b = tc_v3_scale(tau_b, c->scale);
    c->a->force = tc_v3_add(c->a->force, F);
    c->a->torque = tc_v3_add(c->a->torque, tau_a);
    c->qa->force = tc_v3_add(c->qa->force, F);
    c->qa->torque = tc_v3_add(c->qa->torque, tau_a);
    if (tc_rigid_is_dynamic(c->b)) {
        c->b->force = tc_v3_sub(c->b->force, F);
        c->b->torque = tc_v3_add(c->b->torque, tau_b);
        c->b->awake = true;
        c->b->sleep_time = 0;
    }
    if (c->qb) {
        c->qb->force = tc_v3_sub(c->qb->force, F);
        c->qb->torque = tc_v3_add(c->qb->torque, tau_b);
    }
    tc_world* w = c->w;
    if ((w->substep_index % w->def.sub_steps) == w->def.sub_steps - 1) {
        tc_contact ct;
        memset(&ct, 0, sizeof ct);
        ct.body_a = tc_world_slot_id(w, c->a->slot);
        ct.body_b = tc_world_slot_id(w, c->b->slot);
        ct.element_a = pt->nodes.data[0];
        ct.element_b = -1;
        ct.point = centroid;
        ct.normal = tc_v3_neg(navg); // from A to B
        ct.separation = min_s0;      // the undeformed overlap the layer absorbs
        ct.normal_force = load * c->scale;
        ct.friction_force = tc_v3_scale(Ft, -c->scale);
        ct.feature = (uint32_t)pt->level;
        tc_world_add_contact(w, &ct);
    }
}

static void record_stats(tc_quasi_body* q, const tc_quasi_patch* pt, double t0) {
    q->stats.active_nodes += pt->nodes.count;
    q->stats.pivots += pt->pivots;
    q->stats.cg_steps += pt->lcp_iterations;
    q->stats.fallbacks += pt->fallbacks;
    q->stats.contacts += pt->nodes.count > 0;
    q->stats.solve_time += tc_wall_time() - t0;
}

static bool is_power_of_ten(long n) {
    while (n >= 10 && n % 10 == 0) n /= 10;
    return n == 1;
}

static void solve_and_apply(pair_ctx* c, tc_quasi_patch* pt, const tc_response_params* rb, tc_quasi_sdf_fn* sdf,
                            const void* user) {
    double t0 = tc_wall_time();
    tc_quasi_surface sa = surface_of(c->w, c->qa);
    pt->solver = c->qa->solver;
    tc_result r = tc_quasi_collide(&sa, rb, sdf, user, &c->qa->contact, pt);
    record_stats(c->qa, pt, t0);
    if (r != TC_RESULT_OK) {
        long n = ++c->qa->lcp_failures;
        if (is_power_of_ten(n)) // a deep overlap fails every sub-step: say so, not a thousand times
            tc_log(TC_LOG_WARNING, r, "quasi-rigid body '%s': contact LCP failed (%s, %d nodes); contact skipped this sub-step (%ld so far)",
                   tc_world_slot_name(c->w, c->qa->slot), tc_result_string(r), pt->nodes.count, n);
        return;
    }
    apply_patch(c, pt);
}

static void collide_with_rigid(tc_world* w, tc_quasi_body* qa, tc_rigid_body* b, tc_real h) {
    tc_quasi_store* s = tc_quasi_store_of(w);
    pair_ctx c = {w, qa, tc_quasi_rigid(w, qa), b, NULL, 1.0, h};
    solve_and_apply(&c, &s->patch, NULL, rigid_sdf, b);
}

// Per-object split: A's nodes against B's MLS surface and B's nodes against A's, compliance
// R_A + R_B each time; each estimate contributes half of the exchanged wrench.
static void collide_quasi_pair(tc_world* w, tc_quasi_body* qa, tc_quasi_body* qb, tc_real h) {
    tc_quasi_store* s = tc_quasi_store_of(w);
    tc_rigid_body* a = tc_quasi_rigid(w, qa);
    tc_rigid_body* b = tc_quasi_rigid(w, qb);
    mls_side side_b = {&qb->cloud, b->pose}, side_a = {&qa->cloud, a->pose};
    pair_ctx ab = {w, qa, a, b, qb, 0.5, h};
    solve_and_apply(&ab, &s->patch, &qb->response, mls_sdf, &side_b);
    pair_ctx ba = {w, qb, b, a, qa, 0.5, h};
    solve_and_apply(&ba, &s->patch_back, &qa->response, mls_sdf, &side_a);
}

// A contact that carried no load this sub-step has ended: its ledger goes (order kept).
static void close_ended_contacts(tc_quasi_body* q) {
    int kept = 0;
    for (int k = 0; k < q->ledgers.count; ++k)
        if (q->ledgers.data[k].touched) q->ledgers.data[kept++] = q->ledgers.data[k];
    q->ledgers.count = kept;
}

void tc_quasi_collide_all(tc_world* w, tc_real h) {
    tc_quasi_store* s = tc_quasi_store_of(w);
    tc_rigid_store* rs = tc_rigid_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i) {
        tc_quasi_body* q = &s->bodies.data[i];
        for (int k = 0; k < q->ledgers.count; ++k) q->ledgers.data[k].touched = 0;
        memset(q->traction, 0, (size_t)q->cloud.count * sizeof(tc_real));
        memset(q->displacement, 0, (size_t)q->cloud.count * sizeof(tc_real));
        q->force = q->torque = tc_v3_zero();
        memset(&q->stats, 0, sizeof q->stats);
    }
    for (int i = 0; i < s->bodies.count; ++i) {
        tc_quasi_body* qa = &s->bodies.data[i];
        tc_aabb box = tc_aabb_inflate(quasi_box(w, qa), qa->spacing);
        for (int j = 0; j < rs->bodies.count; ++j) {
            tc_rigid_body* b = &rs->bodies.data[j];
            if (b->kind == TC_BODY_QUASI || !tc_aabb_overlap(box, b->aabb)) continue;
            collide_with_rigid(w, qa, b, h);
        }
        for (int j = i + 1; j < s->bodies.count; ++j) {
            tc_quasi_body* qb = &s->bodies.data[j];
            if (tc_aabb_overlap(box, quasi_box(w, qb))) collide_quasi_pair(w, qa, qb, h);
        }
    }
    for (int i = 0; i < s->bodies.count; ++i) close_ended_contacts(&s->bodies.data[i]);
}
