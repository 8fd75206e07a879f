// Contact rows: preparation, warm start, PGS with friction, relax and restitution.
#include "solver/solver.h"

#include <string.h>

static tc_rigid_body* body(tc_rigid_store* s, int i) { return &s->bodies.data[i]; }

// Effective mass along u from c = r x u and w = I^-1 c of each body.
static tc_real row_mass(tc_real inv_masses, tc_vec3 ca, tc_vec3 wa, tc_vec3 cb, tc_vec3 wb) {
    tc_real k = inv_masses + tc_v3_dot(ca, wa) + tc_v3_dot(cb, wb);
    return k > 0 ? 1.0 / k : 0;
}

static void tangents(tc_vec3 n, tc_vec3* t1, tc_vec3* t2) {
    *t1 = tc_v3_normalize(fabs(n.x) < 0.57 ? tc_v3_cross(n, tc_v3(1, 0, 0)) : tc_v3_cross(n, tc_v3(0, 1, 0)));
    *t2 = tc_v3_cross(n, *t1);
}

static tc_vec3 relative_velocity(const tc_rigid_body* A, const tc_rigid_body* B, tc_vec3 ra, tc_vec3 rb) {
    tc_vec3 va = tc_v3_add(A->v, tc_v3_cross(A->w, ra)), vb = tc_v3_add(B->v, tc_v3_cross(B->w, rb));
    return tc_v3_sub(vb, va);
}

static void prepare_row(tc_rigid_store* s, tc_solver* sv, int pair, int point, tc_real dt) {
    (void)dt;
    tc_pair_manifold* pm = &sv->pairs.data[pair];
    const tc_manifold_point* mp = &pm->m.points[point];
    tc_rigid_body *A = body(s, pm->body_a), *B = body(s, pm->body_b);
    tc_contact_row* r = &sv->rows.data[sv->rows.count++]; // reserved by tc_solver_prepare; filled in place (rows are large)
    memset(r, 0, sizeof *r);
    r->a = pm->body_a, r->b = pm->body_b, r->pair = pair, r->point = point;
    r->n = mp->normal;
    tangents(r->n, &r->t1, &r->t2);
    r->anchor_a = mp->anchor_a;
    r->anchor_b = mp->anchor_b;
    r->ra = tc_v3_sub(mp->point, A->com);
    r->rb = tc_v3_sub(mp->point, B->com);
    r->friction = pm->friction;
    r->restitution = pm->restitution;
    r->pre_vn = tc_v3_dot(relative_velocity(A, B, r->ra, r->rb), r->n);
    r->ln = mp->normal_impulse;
    r->lt1 = mp->tangent_impulse[0];
    r->lt2 = mp->tangent_impulse[1];
    r->static_contact = !tc_rigid_is_dynamic(A) || !tc_rigid_is_dynamic(B);
    r->inv_ma = A->inv_mass;
    r->inv_mb = B->inv_mass;
    tc_vec3 dirs[3] = {r->n, r->t1, r->t2};
    tc_real* masses[3] = {&r->mass_n, &r->mass_t1, &r->mass_t2};
    for (int k = 0; k < 3; ++k) {
        tc_vec3 ca = tc_v3_cross(r->ra, dirs[k]), cb = tc_v3_cross(r->rb, dirs[k]);
        r->wa[k] = tc_mat3_mul_v3(A->inv_inertia_world, ca);
        r->wb[k] = tc_mat3_mul_v3(B->inv_inertia_world, cb);
        *masses[k] = row_mass(A->inv_mass + B->inv_mass, ca, r->wa[k], cb, r->wb[k]);
    }
    // change of the relative velocity per unit normal impulse
    r->k_n = tc_v3_add(tc_v3_scale(r->n, A->inv_mass + B->inv_mass), tc_v3_add(tc_v3_cross(r->wa[0], r->ra), tc_v3_cross(r->wb[0], r->rb)));
    r->base = mp->separation; // the separation then moves with the bodies' displacements
}

// All or nothing: without room for every row and the packed velocities (out of memory) the
// step solves no contacts (the bodies move freely for it) and says so.
void tc_solver_prepare(tc_world* w, tc_rigid_store* s, tc_solver* sv, tc_real dt) {
    tc_array_clear(&sv->rows);
    sv->delta.count = sv->vel.count = 0;
    int rows = 0;
    for (int p = 0; p < sv->pairs.count; ++p) rows += sv->pairs.data[p].m.count;
    int n = 2 * s->bodies.count;
    bool split = w->def.position_correction == TC_CORRECTION_SPLIT_IMPULSE;
    if (!tc_array_reserve(&sv->delta, n) || !tc_array_reserve(&sv->vel, n) || !tc_array_reserve(&sv->rows, rows) ||
        (split && !tc_array_reserve(&sv->pseudo, n))) {
        tc_world_out_of_memory(w, "rigid solver: out of memory for %d contact rows; this step's rigid contacts are not solved", rows);
        return;
    }
    sv->delta.count = sv->vel.count = n;
    memset(sv->delta.data, 0, (size_t)n * sizeof(tc_vec3));
    for (int p = 0; p < sv->pairs.count; ++p)
        for (int k = 0; k < sv->pairs.data[p].m.count; ++k) prepare_row(s, sv, p, k, dt);
}

// First order in the rotation within one step, as Box2D v3 does: s = s0 + n . (dB - dA), with
// each anchor's displacement d = dp + dtheta x r.
static tc_real current_separation(const tc_solver* sv, const tc_contact_row* r) {
    const tc_vec3 *da = &sv->delta.data[2 * r->a], *db = &sv->delta.data[2 * r->b];
    tc_vec3 ma = tc_v3_add(da[0], tc_v3_cross(da[1], r->ra)), mb = tc_v3_add(db[0], tc_v3_cross(db[1], r->rb));
    return r->base + tc_v3_dot(tc_v3_sub(mb, ma), r->n);
}

// The solver works on a packed copy of the bodies' velocities (v, w per store index): the rows
// touch 48 contiguous bytes per body instead of two fields of the large body record.
static void gather_velocities(tc_rigid_store* s, tc_solver* sv) {
    for (int i = 0; i < s->bodies.count; ++i) {
        sv->vel.data[2 * i] = s->bodies.data[i].v;
        sv->vel.data[2 * i + 1] = s->bodies.data[i].w;
    }
}

static void scatter_velocities(tc_rigid_store* s, const tc_solver* sv) {
    for (int i = 0; i < s->bodies.count; ++i) {
        s->bodies.data[i].v = sv->vel.data[2 * i];
        s->bodies.data[i].w = sv->vel.data[2 * i + 1];
    }
}

static tc_vec3 packed_relative_velocity(const tc_vec3* va, const tc_vec3* vb, tc_vec3 ra, tc_vec3 rb) {
    tc_vec3 a = tc_v3_add(va[0], tc_v3_cross(va[1], ra)), b = tc_v3_add(vb[0], tc_v3_cross(vb[1], rb));
    return tc_v3_sub(b, a);
}

static void apply_packed(tc_vec3* va, tc_vec3* vb, const tc_contact_row* r, int k, tc_vec3 u, tc_real l) {
    va[0] = tc_v3_madd(va[0], -l * r->inv_ma, u);
    va[1] = tc_v3_madd(va[1], -l, r->wa[k]);
    vb[0] = tc_v3_madd(vb[0], l * r->inv_mb, u);
    vb[1] = tc_v3_madd(vb[1], l, r->wb[k]);
}

static void apply_row(tc_rigid_body* A, tc_rigid_body* B, const tc_contact_row* r, int k, tc_vec3 u, tc_real l) {
    A->v = tc_v3_madd(A->v, -l * r->inv_ma, u);
    A->w = tc_v3_madd(A->w, -l, r->wa[k]);
    B->v = tc_v3_madd(B->v, l * r->inv_mb, u);
    B->w = tc_v3_madd(B->w, l, r->wb[k]);
}

static void warm_start(tc_solver* sv) {
    for (int i = 0; i < sv->rows.count; ++i) {
        const tc_contact_row* r = &sv->rows.data[i];
        tc_vec3 *va = &sv->vel.data[2 * r->a], *vb = &sv->vel.data[2 * r->b];
        apply_packed(va, vb, r, 0, r->n, r->ln);
        apply_packed(va, vb, r, 1, r->t1, r->lt1);
        apply_packed(va, vb, r, 2, r->t2, r->lt2);
    }
}

/// The position term of the normal row: bias velocity and the soft-constraint scales.
typedef struct normal_terms {
    tc_real bias, mass_scale, impulse_scale;
} normal_terms;

static normal_terms soft_terms(const tc_world_def* d, tc_real sep, bool static_contact, tc_real h, bool use_bias) {
    normal_terms t = {0, 1, 0};
    if (sep > 0) {
        t.bias = sep / h; // speculative: close the gap within this sub-step and no further
        return t;
    }
    if (!use_bias) return t;
    if (d->position_correction == TC_CORRECTION_BAUMGARTE) {
        t.bias = -fmin(d->baumgarte / h * fmax(-sep - d->linear_slop, 0), d->contact_push_max_velocity);
        return t;
    }
    if (d->position_correction == TC_CORRECTION_SPLIT_IMPULSE) return t; // positions fixed by the pseudo pass
    tc_real hz = fmin(d->contact_hertz * (static_contact ? 2 : 1), 0.25 / h);
    tc_real omega = 2 * TC_PI * hz, zeta = d->contact_damping_ratio;
    tc_real a1 = 2 * zeta + h * omega, a2 = h * omega * a1, a3 = 1 / (1 + a2);
    t.bias = fmax(omega / a1 * sep, -d->contact_push_max_velocity);
    t.mass_scale = a2 * a3;
    t.impulse_scale = a3;
    return t;
}

/// One pass's constants: the soft-step coefficients depend only on the sub-step and on whether
/// the contact is with a static body, so they are computed once per pass, not per row.
typedef struct pass_terms {
    const tc_world_def* def;
    tc_real h;
    bool use_bias, soft;
    tc_real rate[2], mass_scale[2], impulse_scale[2]; ///< bias = max(rate sep, -push); [static_contact]
} pass_terms;

static pass_terms make_pass(const tc_world_def* d, tc_real h, bool use_bias) {
    pass_terms p = {d, h, use_bias, d->position_correction == TC_CORRECTION_SOFT_STEP, {0, 0}, {1, 1}, {0, 0}};
    for (int k = 0; k < 2 && p.soft && use_bias; ++k) {
        tc_real hz = fmin(d->contact_hertz * (k ? 2 : 1), 0.25 / h);
        tc_real omega = 2 * TC_PI * hz, zeta = d->contact_damping_ratio;
        tc_real a1 = 2 * zeta + h * omega, a2 = h * omega * a1, a3 = 1 / (1 + a2);
        p.rate[k] = omega / a1;
        p.mass_scale[k] = a2 * a3;
        p.impulse_scale[k] = a3;
    }
    return p;
}

// Same values as soft_terms, from the pass's precomputed coefficients.
static normal_terms row_terms(const pass_terms* p, tc_real sep, bool static_contact) {
    if (sep > 0 || !p->soft || !p->use_bias) return soft_terms(p->def, sep, static_contact, p->h, p->use_bias);
    int k = static_contact ? 1 : 0;
    tc_real bias = p->rate[k] * sep, floor = -p->def->contact_push_max_velocity;
    normal_terms t = {bias > floor ? bias : floor, p->mass_scale[k], p->impulse_scale[k]};
    return t;
}

// The separation and so the normal row's bias and soft scales change only when the positions
// move: once per sub-step for the biased passes, once more for the relax pass.
static void update_row_terms(const tc_world_def* d, tc_solver* sv, tc_real h, bool use_bias) {
    pass_terms p = make_pass(d, h, use_bias);
    for (int i = 0; i < sv->rows.count; ++i) {
        tc_contact_row* r = &sv->rows.data[i];
        normal_terms t = row_terms(&p, current_separation(sv, r), r->static_contact);
        r->bias = t.bias;
        r->mass_scale = t.mass_scale;
        r->impulse_scale = t.impulse_scale;
    }
}

// Normal row, then the friction cone, as one Gauss-Seidel step; the three impulses go to the
// bodies in one update. The relative velocity after the normal impulse follows from k_n
// instead of being recomputed from the bodies.
static void solve_row(tc_solver* sv, tc_contact_row* r) {
    tc_vec3 *va = &sv->vel.data[2 * r->a], *vb = &sv->vel.data[2 * r->b];
    tc_vec3 dv = packed_relative_velocity(va, vb, r->ra, r->rb);
    tc_real vn = tc_v3_dot(dv, r->n);
    tc_real ln = r->ln - r->mass_n * r->mass_scale * (vn + r->bias) - r->impulse_scale * r->ln;
    ln = ln > 0 ? ln : 0;
    if (ln == 0 && r->ln == 0 && r->lt1 == 0 && r->lt2 == 0) return; // inactive (a speculative gap): nothing changes
    tc_real dn = ln - r->ln;
    r->ln = ln;
    if (ln > r->max_ln) r->max_ln = ln;
    dv = tc_v3_madd(dv, dn, r->k_n);
    // friction: a cone of radius mu * ln (the root only when it binds)
    tc_real l1 = r->lt1 - r->mass_t1 * tc_v3_dot(dv, r->t1), l2 = r->lt2 - r->mass_t2 * tc_v3_dot(dv, r->t2);
    tc_real cap = r->friction * ln, len2 = l1 * l1 + l2 * l2;
    if (len2 > cap * cap) {
        tc_real len = sqrt(len2);
        if (len > cap && len > 0) l1 *= cap / len, l2 *= cap / len;
    }
    tc_real d1 = l1 - r->lt1, d2 = l2 - r->lt2;
    r->lt1 = l1;
    r->lt2 = l2;
    tc_vec3 P = tc_v3_madd(tc_v3_madd(tc_v3_scale(r->n, dn), d1, r->t1), d2, r->t2);
    tc_vec3 La = tc_v3_madd(tc_v3_madd(tc_v3_scale(r->wa[0], dn), d1, r->wa[1]), d2, r->wa[2]);
    tc_vec3 Lb = tc_v3_madd(tc_v3_madd(tc_v3_scale(r->wb[0], dn), d1, r->wb[1]), d2, r->wb[2]);
    va[0] = tc_v3_madd(va[0], -r->inv_ma, P);
    va[1] = tc_v3_sub(va[1], La);
    vb[0] = tc_v3_madd(vb[0], r->inv_mb, P);
    vb[1] = tc_v3_add(vb[1], Lb);
}

static void solve_rows(tc_solver* sv) {
    for (int i = 0; i < sv->rows.count; ++i) solve_row(sv, &sv->rows.data[i]);
}

// Split impulse: push penetrating bodies apart with pseudo velocities that move positions only.
static void solve_pseudo(const tc_world_def* d, tc_rigid_store* s, tc_solver* sv, tc_real h) {
    if (!tc_array_reserve(&sv->pseudo, 2 * s->bodies.count)) return; // reserved in tc_solver_prepare
    sv->pseudo.count = 2 * s->bodies.count;
    memset(sv->pseudo.data, 0, (size_t)sv->pseudo.count * sizeof(tc_vec3));
    for (int it = 0; it < d->solver_iterations; ++it)
        for (int i = 0; i < sv->rows.count; ++i) {
            tc_contact_row* r = &sv->rows.data[i];
            if (it == 0) r->lp = 0;
            tc_rigid_body *A = body(s, r->a), *B = body(s, r->b);
            tc_vec3 *va = &sv->pseudo.data[2 * r->a], *vb = &sv->pseudo.data[2 * r->b];
            tc_real target = d->baumgarte / h * fmax(-current_separation(sv, r) - d->linear_slop, 0);
            tc_vec3 rel = tc_v3_sub(tc_v3_add(vb[0], tc_v3_cross(vb[1], r->rb)), tc_v3_add(va[0], tc_v3_cross(va[1], r->ra)));
            tc_real lp = fmax(r->lp + r->mass_n * (target - tc_v3_dot(rel, r->n)), 0), dl = lp - r->lp;
            r->lp = lp;
            tc_vec3 P = tc_v3_scale(r->n, dl);
            va[0] = tc_v3_madd(va[0], -A->inv_mass, P);
            va[1] = tc_v3_sub(va[1], tc_mat3_mul_v3(A->inv_inertia_world, tc_v3_cross(r->ra, P)));
            vb[0] = tc_v3_madd(vb[0], B->inv_mass, P);
            vb[1] = tc_v3_add(vb[1], tc_mat3_mul_v3(B->inv_inertia_world, tc_v3_cross(r->rb, P)));
        }
}

static void integrate_positions(tc_rigid_store* s, tc_solver* sv, tc_real h, bool pseudo) {
    for (int i = 0; i < s->bodies.count; ++i) {
        tc_rigid_body* b = body(s, i);
        if (sv->delta.count == 2 * s->bodies.count && tc_rigid_is_dynamic(b) && b->awake) {
            tc_vec3 v = b->v, w = b->w;
            if (pseudo) v = tc_v3_add(v, sv->pseudo.data[2 * i]), w = tc_v3_add(w, sv->pseudo.data[2 * i + 1]);
            sv->delta.data[2 * i] = tc_v3_madd(sv->delta.data[2 * i], h, v);
            sv->delta.data[2 * i + 1] = tc_v3_madd(sv->delta.data[2 * i + 1], h, w);
        }
        if (!pseudo) {
            tc_rigid_integrate_position(b, h);
            continue;
        }
        tc_vec3 v = b->v, w = b->w; // move with v + v_pseudo, then forget the pseudo part
        b->v = tc_v3_add(v, sv->pseudo.data[2 * i]);
        b->w = tc_v3_add(w, sv->pseudo.data[2 * i + 1]);
        tc_rigid_integrate_position(b, h);
        b->v = v;
        b->w = w;
    }
}

void tc_solver_substep(tc_world* w, tc_rigid_store* s, tc_solver* sv, tc_real h) {
    const tc_world_def* d = &w->def;
    for (int i = 0; i < s->bodies.count; ++i) tc_rigid_integrate_velocity(body(s, i), d->gravity, h);
    // the packed velocities are reserved in tc_solver_prepare: without them (out of memory) the
    // bodies move without contacts rather than crash
    bool packed = sv->vel.count == 2 * s->bodies.count;
    bool soft = d->position_correction == TC_CORRECTION_SOFT_STEP;
    if (packed) {
        gather_velocities(s, sv);
        warm_start(sv);
        // soft step: solver_iterations biased passes, then one relax pass after the positions
        update_row_terms(d, sv, h, true);
        for (int it = 0; it < d->solver_iterations; ++it) solve_rows(sv);
        scatter_velocities(s, sv);
    }
    bool split = d->position_correction == TC_CORRECTION_SPLIT_IMPULSE;
    if (split && packed) solve_pseudo(d, s, sv, h);
    integrate_positions(s, sv, h, split && packed);
    if (!soft || !packed) return;
    gather_velocities(s, sv); // the gyroscopic update may have changed w
    update_row_terms(d, sv, h, false);
    solve_rows(sv); // relax: remove the velocity the bias added
    scatter_velocities(s, sv);
}

static void restitution(const tc_world_def* d, tc_rigid_store* s, tc_solver* sv) {
    for (int i = 0; i < sv->rows.count; ++i) {
        tc_contact_row* r = &sv->rows.data[i];
        if (r->restitution == 0 || r->pre_vn > -d->restitution_threshold || r->max_ln == 0) continue;
        tc_rigid_body *A = body(s, r->a), *B = body(s, r->b);
        tc_real vn = tc_v3_dot(relative_velocity(A, B, r->ra, r->rb), r->n);
        tc_real ln = fmax(r->ln - r->mass_n * (vn + r->restitution * r->pre_vn), 0);
        apply_row(A, B, r, 0, r->n, ln - r->ln);
        r->ln = ln;
    }
}

void tc_solver_finish(tc_world* w, tc_rigid_store* s, tc_solver* sv, tc_real dt) {
    restitution(&w->def, s, sv);
    tc_real h = dt / w->def.sub_steps;
    tc_body_id ids[2]; // of the current pair: rows of a pair are consecutive
    memset(ids, 0, sizeof ids);
    for (int i = 0; i < sv->rows.count; ++i) {
        tc_contact_row* r = &sv->rows.data[i];
        tc_pair_manifold* pm = &sv->pairs.data[r->pair];
        tc_manifold_point* mp = &pm->m.points[r->point];
        mp->normal_impulse = r->ln;
        mp->tangent_impulse[0] = r->lt1;
        mp->tangent_impulse[1] = r->lt2;
        tc_rigid_body *A = body(s, r->a), *B = body(s, r->b);
        if (i == 0 || r->pair != sv->rows.data[i - 1].pair) ids[0] = tc_world_slot_id(w, A->slot), ids[1] = tc_world_slot_id(w, B->slot);
        tc_contact c;
        memset(&c, 0, sizeof c);
        c.body_a = ids[0];
        c.body_b = ids[1];
        c.element_a = pm->shape_a;
        c.element_b = pm->shape_b;
        tc_vec3 pa = tc_transform_point(A->pose, r->anchor_a), pb = tc_transform_point(B->pose, r->anchor_b);
        c.point = tc_v3_scale(tc_v3_add(pa, pb), 0.5);
        c.normal = r->n;
        c.separation = current_separation(sv, r);
        c.normal_force = r->ln / h; // the last sub-step's impulse over its length
        c.friction_force = tc_v3_scale(tc_v3_add(tc_v3_scale(r->t1, r->lt1), tc_v3_scale(r->t2, r->lt2)), 1.0 / h);
        c.feature = mp->feature;
        tc_world_add_contact(w, &c);
    }
}
