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
    tc_real scale;         // share of the load this estimate contributes (per-object split: ½)
    tc_real h;
} pair_ctx;

// A load two frames exchange in one sub-step: the force on the first (the second takes -force)
// and the torques on both, about their centres of mass.
typedef struct pair_wrench {
    tc_vec3 force, torque_a, torque_b;
} pair_wrench;

static pair_wrench wrench_add(pair_wrench x, pair_wrench y) {
    pair_wrench r = {tc_v3_add(x.force, y.force), tc_v3_add(x.torque_a, y.torque_a), tc_v3_add(x.torque_b, y.torque_b)};
    return r;
}

static pair_wrench wrench_scale(pair_wrench x, tc_real s) {
    pair_wrench r = {tc_v3_scale(x.force, s), tc_v3_scale(x.torque_a, s), tc_v3_scale(x.torque_b, s)};
    return r;
}

// The same load seen from the second frame.
static pair_wrench wrench_swap(pair_wrench x) {
    pair_wrench r = {tc_v3_neg(x.force), x.torque_b, x.torque_a};
    return r;
}

// The wrench of force f at world point q on frame a (b takes -f).
static pair_wrench wrench_at(const tc_rigid_body* a, const tc_rigid_body* b, tc_vec3 q, tc_vec3 f) {
    pair_wrench r = {f, tc_v3_cross(tc_v3_sub(q, a->com), f), tc_v3_cross(tc_v3_sub(q, b->com), tc_v3_neg(f))};
    return r;
}

// One patch's load before the passivity cap, times the estimate's share, on the patch's side A,
// and what its contact record reports.
typedef struct patch_load {
    pair_wrench total;   // elastic pressure, layer damping and friction
    pair_wrench elastic; // the pressure alone
    tc_vec3 friction;    // the friction part of total.force
    tc_vec3 centroid;    // of the pressure
    tc_vec3 normal;      // mean push direction on A (B's outward normal)
    tc_real load;        // Σ p a times the share [N]
    tc_real min_s0;      // the deepest undeformed overlap [m]
} patch_load;

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
static tc_quasi_ledger* ledger_of(tc_quasi_body* qa, int32_t other);

// The pair's ledger; without one (out of memory) the contact goes uncapped this sub-step, said.
static tc_quasi_ledger* ledger_or_report(tc_world* w, tc_quasi_body* qa, int32_t other) {
    tc_quasi_ledger* led = ledger_of(qa, other);
    if (!led)
        tc_world_out_of_memory(w, "quasi-rigid body '%s': out of memory for a contact's energy ledger; its passivity cap skipped this sub-step",
                               tc_world_slot_name(w, qa->slot));
    return led;
}

static tc_quasi_ledger* ledger_of(tc_quasi_body* qa, int32_t other) {
    for (int i = 0; i < qa->ledgers.count; ++i)
        if (qa->ledgers.data[i].other_slot == other) return &qa->ledgers.data[i];
    tc_quasi_ledger fresh = {other, 0, 0};
    return tc_array_push(&qa->ledgers, fresh) ? &qa->ledgers.data[qa->ledgers.count - 1] : NULL;
}

// A frame's velocity and spin once the contact loads gathered so far this sub-step (its force and
// torque beyond the user's) act on it: the loads of one sub-step add up before the update, so a
// pair's energy change includes its cross terms with the others'.
static tc_vec3 velocity_with_gathered(const tc_rigid_body* b, tc_real h) {
    if (!tc_rigid_is_dynamic(b)) return tc_v3_zero();
    return tc_v3_madd(b->v, h * b->inv_mass, tc_v3_sub(b->force, b->user_force));
}

static tc_vec3 spin_with_gathered(const tc_rigid_body* b, tc_real h) {
    if (!tc_rigid_is_dynamic(b)) return tc_v3_zero();
    return tc_v3_madd(b->w, h, tc_mat3_mul_v3(b->inv_inertia_world, tc_v3_sub(b->torque, b->user_torque)));
}

// The external load ext plus the part of a frame's rigid-solver reaction that opposes the pair's
// load on it (`load`), up to cancelling that load: the frame is at most held in place along it.
static tc_vec3 with_support(tc_vec3 ext, tc_vec3 reaction, tc_vec3 load) {
    tc_real len = tc_v3_len(load);
    if (!(len > 0)) return ext;
    tc_vec3 u = tc_v3_scale(load, 1 / len);
    tc_real r = fmin(fmax(0, -tc_v3_dot(reaction, u)), fmax(0, len + tc_v3_dot(ext, u)));
    return tc_v3_madd(ext, -r, u);
}

// The energy change -½ h² (|F_o|²/m + τ_o·I⁻¹τ_o) the external loads on a frame (gravity, user
// force and torque: F_o, τ_o) make alone in the explicit update, with -F_o·x, -τ_o·θ counted as
// their potential (constant over the sub-step). Contact loads of this stage are not external: their
// cross terms enter through velocity_with_gathered. A rigid body held by the rigid solver (a box on
// the ground under a quasi ball) does not move under the pair's load (force, torque on it) as the
// explicit update predicts: the solver, which runs after this stage, takes that motion away again.
// So the solver's last reaction on it counts among its external loads as far as it opposes the
// pair's load and no further than cancelling it (with_support); a free body has none.
static tc_real other_loads_share(const tc_world* w, const tc_rigid_body* b, tc_real h, tc_vec3 force, tc_vec3 torque) {
    if (!tc_rigid_is_dynamic(b)) return 0;
    tc_vec3 Fo = tc_v3_madd(b->user_force, b->mass, w->def.gravity), To = b->user_torque;
    const tc_quasi_store* s = tc_quasi_store_of(w);
    const tc_rigid_store* rs = tc_rigid_store_of(w);
    if (s->reaction.count == 2 * rs->bodies.count) {
        int i = (int)(b - rs->bodies.data);
        Fo = with_support(Fo, s->reaction.data[i], force);
        To = with_support(To, s->reaction.data[rs->bodies.count + i], torque);
    }
    return -0.5 * h * h * (tc_v3_len2(Fo) * b->inv_mass + tc_v3_dot(To, tc_mat3_mul_v3(b->inv_inertia_world, To)));
}

static tc_real inv_inertia_quad(const tc_rigid_body* b, tc_vec3 tau) {
    return tc_rigid_is_dynamic(b) ? tc_v3_dot(tau, tc_mat3_mul_v3(b->inv_inertia_world, tau)) : 0;
}

// The change W0 + s W1 + ½ s² W2 of the frames' energy the load G scaled by s makes in the explicit
// update (see passivity_scale).
typedef struct energy_change {
    tc_real W0, W1, W2;
} energy_change;

static energy_change energy_change_of(const tc_rigid_body* a, const tc_rigid_body* b, tc_real h, pair_wrench G, tc_real W0) {
    tc_real ia = tc_rigid_is_dynamic(a) ? a->inv_mass : 0, ib = tc_rigid_is_dynamic(b) ? b->inv_mass : 0;
    tc_vec3 dv = tc_v3_sub(velocity_with_gathered(a, h), velocity_with_gathered(b, h));
    energy_change e;
    e.W0 = W0;
    e.W1 = h * (tc_v3_dot(G.force, dv) + tc_v3_dot(G.torque_a, spin_with_gathered(a, h)) + tc_v3_dot(G.torque_b, spin_with_gathered(b, h)));
    e.W2 = h * h * (tc_v3_len2(G.force) * (ia + ib) + inv_inertia_quad(a, G.torque_a) + inv_inertia_quad(b, G.torque_b));
    return e;
}

static tc_real energy_at(energy_change e, tc_real s) { return e.W0 + s * e.W1 + 0.5 * s * s * e.W2; }

// Passivity cap of a pair's whole load (pressure, layer damping, friction). The load is solved at
// the sub-step's start pose and velocities and held for the whole sub-step (symplectic Euler), so a
// contact spanning few sub-steps (ωh near 2) takes too little energy out on the way in and gives
// too much back on the way out, and a load that opposes the approach velocity (damping; friction
// on the radial slip of a curved patch, whose sum points along the normal) keeps pushing after the
// sub-step has reversed that velocity (docs/quasi.md). In the explicit update
// (v' = v + h(F_o + C + sG)/m, x' = x + h v'; F_o the external loads, C the contacts gathered
// earlier this sub-step) the frames' kinetic energy plus the external loads' potential -F_o·x
// changes, beyond what C alone makes, by W0 + s W1 + ½ s² W2 when the pair's load (G on A, -G on
// B, torques ta, tb) is scaled by s: W1 = h G·(v_a - v_b) + h(ta·w_a + tb·w_b) with the velocities
// after C, W2 = h²(|G|²/m + τ·I⁻¹τ terms), W0 the external loads' own share (other_loads_share).
// The ledger holds what the contact has taken from the frames' energy so far, and s ≤ 1 is the
// largest scale whose change it covers: the frames leave a contact with no more energy than they
// brought. The ledger is credited only with what the pressure alone would have taken (E, the
// elastic part of G): what damping and friction take is gone, not stored to be given back. A
// resolved contact gives back about what it took and is barely touched; resting contact
// (v ≈ 0, G = -F_o) costs W0 + ½W2 = 0.
static tc_real passivity_scale(const tc_world* w, tc_quasi_ledger* led, const tc_rigid_body* a, const tc_rigid_body* b,
                               tc_real h, pair_wrench G, pair_wrench E) {
    if (!led) return 1;
    led->touched = 1;
    tc_real W0 = other_loads_share(w, a, h, G.force, G.torque_a) + other_loads_share(w, b, h, tc_v3_neg(G.force), G.torque_b);
    energy_change t = energy_change_of(a, b, h, G, W0);
    tc_real s = 1, L = led->absorbed - t.W0; // the budget for s W1 + ½ s² W2 (W0 <= 0, so L >= 0)
    if (t.W1 + 0.5 * t.W2 > L) s = t.W2 > 0 ? (-t.W1 + sqrt(t.W1 * t.W1 + 2 * t.W2 * L)) / t.W2 : (t.W1 > 0 ? L / t.W1 : 1);
    s = fmin(1, fmax(0, s));
    // the frames lose at least -max(...): the ledger never exceeds what they have lost
    led->absorbed = fmax(0, led->absorbed - fmax(energy_at(t, s), energy_at(energy_change_of(a, b, h, E, W0), s)));
    return s;
}

// Explicit friction must not reverse the sliding velocity within a sub-step: cap the patch's total
// at what stops the contact point (effective mass of both frames along the slip).
static void cap_friction(const pair_ctx* c, patch_load* L) {
    tc_real ft_len = tc_v3_len(L->friction);
    if (!(ft_len > 0)) return;
    tc_vec3 t = tc_v3_scale(L->friction, 1 / ft_len);
    tc_vec3 vrel = tc_v3_sub(tc_rigid_velocity_at(c->a, L->centroid), tc_rigid_velocity_at(c->b, L->centroid));
    tc_real inv_m = inv_mass_along(c->a, L->centroid, t) + inv_mass_along(c->b, L->centroid, t);
    tc_real stop = inv_m > 0 ? fabs(tc_v3_dot(vrel, t)) / (inv_m * c->h) : ft_len;
    if (ft_len <= stop) return;
    tc_vec3 cut = tc_v3_scale(L->friction, stop / ft_len - 1); // the friction removed
    L->total = wrench_add(L->total, wrench_at(c->a, c->b, L->centroid, cut));
    L->friction = tc_v3_add(L->friction, cut);
}

// Normal traction, layer damping and Coulomb friction of every node, summed over the patch.
static patch_load patch_load_of(const pair_ctx* c, const tc_quasi_patch* pt) {
    patch_load L;
    memset(&L, 0, sizeof L);
    tc_real mu = sqrt(c->a->material.friction * c->b->material.friction);
    for (int i = 0; i < pt->nodes.count; ++i) {
        L.min_s0 = fmin(L.min_s0, pt->s0.data[i]);
        tc_real p = pt->pressure.data[i];
        if (p <= 0) continue;
        tc_vec3 q = pt->points.data[i], n = pt->normals.data[i];
        tc_real a = pt->area.data[i];
        tc_vec3 vrel = tc_v3_sub(tc_rigid_velocity_at(c->a, q), tc_rigid_velocity_at(c->b, q));
        tc_real vn = tc_v3_dot(vrel, n);
        tc_real fn = fmax(0, p * a - c->qa->layer_damping * a * vn); // damping never pulls
        tc_vec3 vt = tc_v3_madd(vrel, -vn, n);
        tc_vec3 ft = tc_v3_scale(vt, -mu * p * a / fmax(tc_v3_len(vt), 1e-4));
        L.total = wrench_add(L.total, wrench_at(c->a, c->b, q, tc_v3_madd(ft, fn, n)));
        L.elastic = wrench_add(L.elastic, wrench_at(c->a, c->b, q, tc_v3_scale(n, p * a)));
        L.friction = tc_v3_add(L.friction, ft);
        L.centroid = tc_v3_madd(L.centroid, p * a, q);
        L.normal = tc_v3_madd(L.normal, p * a, n);
        L.load += p * a;
    }
    if (L.load <= 0) return L;
    L.centroid = tc_v3_scale(L.centroid, 1 / L.load);
    L.normal = tc_v3_normalize(L.normal);
    cap_friction(c, &L);
    L.total = wrench_scale(L.total, c->scale);
    L.elastic = wrench_scale(L.elastic, c->scale);
    L.friction = tc_v3_scale(L.friction, c->scale);
    L.load *= c->scale;
    return L;
}

// The capped load s·G on both frames (and the quasi records' wrench outputs; qb NULL when the
// second frame is not quasi).
static void apply_pair(tc_quasi_body* qa, tc_quasi_body* qb, tc_rigid_body* a, tc_rigid_body* b, tc_real s, pair_wrench G) {
    tc_vec3 F = tc_v3_scale(G.force, s), ta = tc_v3_scale(G.torque_a, s), tb = tc_v3_scale(G.torque_b, s);
    a->force = tc_v3_add(a->force, F);
    a->torque = tc_v3_add(a->torque, ta);
    qa->force = tc_v3_add(qa->force, F);
    qa->torque = tc_v3_add(qa->torque, ta);
    if (tc_rigid_is_dynamic(b)) {
        b->force = tc_v3_sub(b->force, F);
        b->torque = tc_v3_add(b->torque, tb);
        b->awake = true;
        b->sleep_time = 0;
    }
    if (qb) {
        qb->force = tc_v3_sub(qb->force, F);
        qb->torque = tc_v3_add(qb->torque, tb);
    }
}

// The patch's outputs once its load is applied at scale s: the per-sample tractions and, on the
// step's last sub-step, one tc_contact.
static void record_patch(const pair_ctx* c, const tc_quasi_patch* pt, const patch_load* L, tc_real s) {
    if (!(s > 0) || !(L->load > 0)) return;
    for (int i = 0; i < pt->nodes.count; ++i)
        if (pt->pressure.data[i] > 0) spread_to_samples(c->qa, pt, i);
    tc_world* w = c->w;
    if ((w->substep_index % w->def.sub_steps) != w->def.sub_steps - 1) return;
    tc_contact ct;
    memset(&ct, 0, sizeof ct);
    ct.body_a = tc_world_slot_id(w, c->a->slot);
    ct.body_b = tc_world_slot_id(w, c->b->slot);
    ct.element_a = pt->nodes.data[0];
    ct.element_b = -1;
    ct.point = L->centroid;
    ct.normal = tc_v3_neg(L->normal); // from A to B
    ct.separation = L->min_s0;        // the undeformed overlap the layer absorbs
    ct.normal_force = s * L->load;
    ct.friction_force = tc_v3_scale(L->friction, -s);
    ct.feature = (uint32_t)pt->level;
    tc_world_add_contact(w, &ct);
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

// Solves c's patch and returns its load (zero when the LCP fails: the contact is skipped).
static patch_load solve_patch(const pair_ctx* c, tc_quasi_patch* pt, const tc_response_params* rb, tc_quasi_sdf_fn* sdf,
                              const void* user) {
    double t0 = tc_wall_time();
    tc_quasi_surface sa = surface_of(c->w, c->qa);
    pt->solver = c->qa->solver;
    tc_result r = tc_quasi_collide(&sa, rb, sdf, user, &c->qa->contact, pt);
    record_stats(c->qa, pt, t0);
    if (r == TC_RESULT_OK) return patch_load_of(c, pt);
    patch_load none;
    memset(&none, 0, sizeof none);
    if (r == TC_RESULT_OUT_OF_MEMORY) {
        tc_world_out_of_memory(c->w, "quasi-rigid body '%s': out of memory for a contact LCP of %d nodes; contact skipped this sub-step",
                               tc_world_slot_name(c->w, c->qa->slot), pt->nodes.count);
        return none;
    }
    long n = ++c->qa->lcp_failures;
    if (is_power_of_ten(n)) // a deep overlap fails every sub-step: say so, not a thousand times
        tc_log(TC_LOG_WARNING, r, "quasi-rigid body '%s': contact LCP failed (%s, %d nodes); contact skipped this sub-step (%ld so far)",
               tc_world_slot_name(c->w, c->qa->slot), tc_result_string(r), pt->nodes.count, n);
    return none;
}

static void collide_with_rigid(tc_world* w, tc_quasi_body* qa, tc_rigid_body* b, tc_real h) {
    tc_quasi_store* s = tc_quasi_store_of(w);
    pair_ctx c = {w, qa, tc_quasi_rigid(w, qa), b, 1.0, h};
    patch_load L = solve_patch(&c, &s->patch, NULL, rigid_sdf, b);
    if (!(L.load > 0)) return;
    tc_real cap = passivity_scale(w, ledger_or_report(w, qa, b->slot), c.a, b, h, L.total, L.elastic);
    apply_pair(qa, NULL, c.a, b, cap, L.total);
    record_patch(&c, &s->patch, &L, cap);
}

// Per-object split: A's nodes against B's MLS surface and B's against A's, compliance R_A + R_B
// each time; each estimate contributes half of the exchanged wrench, and the pair's sum is capped
// once (one ledger, on A).
static void collide_quasi_pair(tc_world* w, tc_quasi_body* qa, tc_quasi_body* qb, tc_real h) {
    tc_quasi_store* s = tc_quasi_store_of(w);
    tc_rigid_body* a = tc_quasi_rigid(w, qa);
    tc_rigid_body* b = tc_quasi_rigid(w, qb);
    mls_side side_b = {&qb->cloud, b->pose}, side_a = {&qa->cloud, a->pose};
    pair_ctx ab = {w, qa, a, b, 0.5, h}, ba = {w, qb, b, a, 0.5, h};
    patch_load Lab = solve_patch(&ab, &s->patch, &qb->response, mls_sdf, &side_b);
    patch_load Lba = solve_patch(&ba, &s->patch_back, &qa->response, mls_sdf, &side_a);
    if (!(Lab.load > 0) && !(Lba.load > 0)) return;
    pair_wrench G = wrench_add(Lab.total, wrench_swap(Lba.total)), E = wrench_add(Lab.elastic, wrench_swap(Lba.elastic));
    tc_real cap = passivity_scale(w, ledger_or_report(w, qa, b->slot), a, b, h, G, E);
    apply_pair(qa, qb, a, b, cap, G);
    record_patch(&ab, &s->patch, &Lab, cap);
    record_patch(&ba, &s->patch_back, &Lba, cap);
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
    // the rigid solver's reactions of the last sub-step (without room: every partner counts as free)
    if (tc_array_reserve(&s->reaction, 2 * rs->bodies.count)) {
        s->reaction.count = 2 * rs->bodies.count;
        tc_rigid_contacts_reactions(rs, h, s->reaction.data, s->reaction.data + rs->bodies.count);
    } else {
        s->reaction.count = 0;
        tc_world_out_of_memory(w, "quasi-rigid contacts: out of memory for the rigid reactions; partners count as free this sub-step");
    }
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
