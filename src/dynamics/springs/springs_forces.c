// Forces and time integration of spring bodies (ALGORITHMS §10.1-10.2).
#include "dynamics/springs/springs.h"

#include <string.h>

tc_real tc_springs_volume(const tc_springs_body* b) {
    tc_real vol = 0;
    for (int t = 0; t < b->tri_count; ++t) {
        const int* v = b->tris + 3 * t;
        vol += tc_v3_dot(b->x[v[0]], tc_v3_cross(b->x[v[1]], b->x[v[2]]));
    }
    return vol / 6;
}

void tc_springs_update_aabb(tc_springs_body* b) {
    b->aabb = tc_aabb_empty();
    for (int i = 0; i < b->n; ++i) b->aabb = tc_aabb_add_point(b->aabb, b->x[i]);
}

static void spring_forces(tc_springs_body* b) {
    for (int k = 0; k < b->springs.count; ++k) {
        const tc_spring* s = &b->springs.data[k];
        tc_vec3 l = tc_v3_sub(b->x[s->i], b->x[s->j]);
        tc_real len = tc_v3_len(l);
        if (!(len > 1e-12)) continue;
        tc_vec3 dir = tc_v3_scale(l, 1 / len);
        tc_real vrel = tc_v3_dot(tc_v3_sub(b->v[s->i], b->v[s->j]), dir);
        tc_vec3 f = tc_v3_scale(dir, -s->k * (len - s->rest) - s->kd * vrel);
        b->f[s->i] = tc_v3_add(b->f[s->i], f);
        b->f[s->j] = tc_v3_sub(b->f[s->j], f);
    }
}

// f = -pressure (V - V0) / V0 dV/dx_i, dV/dx_i = sum over incident triangles of (x_j x x_k) / 6.
static void volume_forces(tc_springs_body* b) {
    if (b->pressure <= 0 || !(b->rest_volume > 0)) return;
    tc_real s = -b->pressure * (tc_springs_volume(b) - b->rest_volume) / b->rest_volume / 6;
    for (int t = 0; t < b->tri_count; ++t) {
        const int* v = b->tris + 3 * t;
        tc_vec3 a = b->x[v[0]], c1 = b->x[v[1]], c2 = b->x[v[2]];
        b->f[v[0]] = tc_v3_madd(b->f[v[0]], s, tc_v3_cross(c1, c2));
        b->f[v[1]] = tc_v3_madd(b->f[v[1]], s, tc_v3_cross(c2, a));
        b->f[v[2]] = tc_v3_madd(b->f[v[2]], s, tc_v3_cross(a, c1));
    }
}

void tc_springs_forces(tc_springs_body* b, tc_vec3 g) {
    tc_vec3 user = tc_v3_scale(b->user_force, 1 / b->total_mass);
    for (int i = 0; i < b->n; ++i) b->f[i] = tc_v3_add(b->f[i], tc_v3_scale(tc_v3_sub(tc_v3_add(g, user), tc_v3_scale(b->v[i], b->drag)), b->m[i]));
    spring_forces(b);
    volume_forces(b);
}

tc_real tc_springs_stable_step(const tc_springs_body* b) {
    tc_real* ksum = tc_calloc((size_t)b->n, sizeof(tc_real));
    tc_real* csum = tc_calloc((size_t)b->n, sizeof(tc_real));
    if (!ksum || !csum) {
        tc_free(ksum, (size_t)b->n * sizeof(tc_real));
        tc_free(csum, (size_t)b->n * sizeof(tc_real));
        return 1e-5;
    }
    for (int k = 0; k < b->springs.count; ++k) {
        const tc_spring* s = &b->springs.data[k];
        ksum[s->i] += s->k, ksum[s->j] += s->k, csum[s->i] += s->kd, csum[s->j] += s->kd;
    }
    tc_real h = 1e300;
    for (int i = 0; i < b->n; ++i) {
        if (!(ksum[i] > 0)) continue;
        tc_real omega = sqrt(2 * ksum[i] / b->m[i]), zeta = csum[i] / (2 * sqrt(2 * ksum[i] * b->m[i]));
        h = fmin(h, 2 / omega * (sqrt(1 + zeta * zeta) - zeta)); // explicit damping shrinks the limit
    }
    tc_free(ksum, (size_t)b->n * sizeof(tc_real));
    tc_free(csum, (size_t)b->n * sizeof(tc_real));
    return 0.9 * h;
}

void tc_springs_step_raw(tc_springs_body* b, tc_vec3 g, tc_real h) {
    tc_springs_forces(b, g);
    for (int i = 0; i < b->n; ++i) {
        b->v[i] = tc_v3_madd(b->v[i], h * b->inv_m[i], b->f[i]);
        b->x[i] = tc_v3_madd(b->x[i], h, b->v[i]);
        b->f[i] = tc_v3_zero();
    }
}

int tc_springs_explicit_pieces(const tc_springs_body* b, tc_real h) {
    tc_real pieces = ceil(h / b->stable_step - 1e-9);
    return pieces >= 1 && pieces <= TC_SPRINGS_MAX_EXPLICIT_PIECES ? (int)pieces
         : pieces > TC_SPRINGS_MAX_EXPLICIT_PIECES                ? TC_SPRINGS_MAX_EXPLICIT_PIECES
                                                                  : 1;
}

void tc_springs_note_explicit_pieces(tc_springs_body* b, tc_real h) {
    int n = tc_springs_explicit_pieces(b, h);
    if (n > 1 && !b->warned) {
        tc_log(TC_LOG_INFO, TC_RESULT_OK, "spring body: sub-step %.3g s exceeds the explicit limit %.3g s; taking %d sub-steps", h,
               b->stable_step, n);
        b->warned = true;
    }
}

void tc_springs_step_explicit(tc_world* w, tc_springs_body* b, tc_real h) {
    tc_vec3 g = w->def.gravity;
    int n = tc_springs_explicit_pieces(b, h);
    // contact forces already in b->f act over the whole sub-step; keep them for each piece
    tc_vec3* external = b->work;
    if (n > 1) memcpy(external, b->f, (size_t)b->n * sizeof(tc_vec3));
    for (int k = 0; k < n; ++k) {
        if (k > 0) memcpy(b->f, external, (size_t)b->n * sizeof(tc_vec3));
        tc_springs_step_raw(b, g, h / n);
        tc_springs_project_rigid(w, b, h, k, n);
    }
}

// ---- implicit Euler ----------------------------------------------------------------------------

typedef struct implicit_ctx {
    const tc_springs_body* b;
    tc_real h;
} implicit_ctx;

// y = (M - h df/dv - h^2 df/dx) x, spring blocks only (ALGORITHMS §10.2; compression clamped: SPD).
static void apply_system(const implicit_ctx* c, const tc_vec3* x, tc_vec3* y) {
    const tc_springs_body* b = c->b;
    tc_real h = c->h;
    for (int i = 0; i < b->n; ++i) y[i] = tc_v3_scale(x[i], b->m[i]);
    for (int k = 0; k < b->springs.count; ++k) {
        const tc_spring* s = &b->springs.data[k];
        tc_vec3 l = tc_v3_sub(b->x[s->i], b->x[s->j]);
        tc_real len = tc_v3_len(l);
        if (!(len > 1e-12)) continue;
        tc_vec3 u = tc_v3_scale(l, 1 / len), d = tc_v3_sub(x[s->i], x[s->j]);
        tc_real along = tc_v3_dot(u, d), lateral = fmax(0, 1 - s->rest / len);
        // K d = k [u u^T + lateral (I - u u^T)] d ; D d = kd u u^T d
        tc_vec3 kd = tc_v3_add(tc_v3_scale(u, s->k * along * (1 - lateral)), tc_v3_scale(d, s->k * lateral));
        tc_vec3 dd = tc_v3_scale(u, s->kd * along);
        tc_vec3 block = tc_v3_add(tc_v3_scale(kd, h * h), tc_v3_scale(dd, h));
        y[s->i] = tc_v3_add(y[s->i], block);
        y[s->j] = tc_v3_sub(y[s->j], block);
    }
}

static tc_real dot_all(const tc_vec3* a, const tc_vec3* b, int n) {
    tc_real s = 0;
    for (int i = 0; i < n; ++i) s += tc_v3_dot(a[i], b[i]);
    return s;
}

// Conjugate gradients, Jacobi preconditioner (the mass plus the diagonal stiffness estimate).
static void conjugate_gradient(const implicit_ctx* c, const tc_vec3* rhs, tc_vec3* x, tc_vec3* work, const tc_real* diag) {
    int n = c->b->n;
    tc_vec3 *r = work, *z = work + n, *p = work + 2 * n, *q = work + 3 * n;
    for (int i = 0; i < n; ++i) x[i] = tc_v3_zero(), r[i] = rhs[i], z[i] = tc_v3_scale(r[i], 1 / diag[i]), p[i] = z[i];
    tc_real rz = dot_all(r, z, n), r0 = dot_all(r, r, n);
    for (int it = 0; it < 200 && dot_all(r, r, n) > 1e-20 * r0; ++it) {
        apply_system(c, p, q);
        tc_real alpha = rz / dot_all(p, q, n);
        for (int i = 0; i < n; ++i) x[i] = tc_v3_madd(x[i], alpha, p[i]), r[i] = tc_v3_madd(r[i], -alpha, q[i]);
        for (int i = 0; i < n; ++i) z[i] = tc_v3_scale(r[i], 1 / diag[i]);
        tc_real rz_new = dot_all(r, z, n);
        for (int i = 0; i < n; ++i) p[i] = tc_v3_madd(z[i], rz_new / rz, p[i]);
        rz = rz_new;
    }
}

void tc_springs_step_implicit(tc_springs_body* b, tc_vec3 g, tc_real h) {
    int n = b->n;
    tc_vec3* buf = b->work;
    tc_real* diag = b->work_diag;
    tc_vec3 *rhs = buf, *dv = buf + n, *kv = buf + 2 * n, *work = buf + 3 * n;
    tc_springs_forces(b, g);
    implicit_ctx c = {b, h};
    // rhs = h (f0 + h df/dx v0): df/dx v0 = -(K v0); K v0 from the system with M and D removed
    for (int i = 0; i < n; ++i) diag[i] = b->m[i];
    for (int k = 0; k < b->springs.count; ++k) {
        const tc_spring* s = &b->springs.data[k];
        diag[s->i] += h * h * s->k + h * s->kd, diag[s->j] += h * h * s->k + h * s->kd;
    }
    implicit_ctx stiff = {b, 1}; // with h = 1 the operator is M + D + K; subtract M and D below
    apply_system(&stiff, b->v, kv);
    implicit_ctx damp = {b, 0}; // M only
    apply_system(&damp, b->v, dv);
    // K v0 + D v0 = kv - M v0; the damping part is already in f0, so isolate K v0 by a second
    // evaluation with kd weights: cheaper to recompute explicitly
    for (int i = 0; i < n; ++i) kv[i] = tc_v3_sub(kv[i], dv[i]);
    for (int k = 0; k < b->springs.count; ++k) { // remove D v0 (the h = 1 operator included it)
        const tc_spring* s = &b->springs.data[k];
        tc_vec3 l = tc_v3_sub(b->x[s->i], b->x[s->j]);
        tc_real len = tc_v3_len(l);
        if (!(len > 1e-12)) continue;
        tc_vec3 u = tc_v3_scale(l, 1 / len);
        tc_vec3 dd = tc_v3_scale(u, s->kd * tc_v3_dot(u, tc_v3_sub(b->v[s->i], b->v[s->j])));
        kv[s->i] = tc_v3_sub(kv[s->i], dd);
        kv[s->j] = tc_v3_add(kv[s->j], dd);
    }
    for (int i = 0; i < n; ++i) rhs[i] = tc_v3_scale(tc_v3_madd(b->f[i], -h, kv[i]), h);
    conjugate_gradient(&c, rhs, dv, work, diag);
    for (int i = 0; i < n; ++i) {
        b->v[i] = tc_v3_add(b->v[i], dv[i]);
        b->x[i] = tc_v3_madd(b->x[i], h, b->v[i]);
        b->f[i] = tc_v3_zero();
    }
}
