// Rigid body integration: symplectic Euler for translation; for rotation the body-frame
// implicit midpoint rule with a Cayley update (the gyroscopic term), which conserves the
// angular momentum and the kinetic energy of a torque-free body exactly.
#include "dynamics/rigid/rigid.h"

void tc_rigid_update_derived(tc_rigid_body* b) {
    b->com = tc_transform_point(b->pose, b->com_local);
    tc_mat3 R = tc_quat_to_mat3(b->pose.q);
    b->inv_inertia_world = tc_mat3_mul(tc_mat3_mul(R, b->inv_inertia_local), tc_mat3_transpose(R));
    tc_aabb box = tc_aabb_empty();
    for (int i = 0; i < b->shape_count; ++i) box = tc_aabb_union(box, tc_shape_aabb(&b->shapes[i], b->pose));
    b->aabb = box;
}

void tc_rigid_add_force_at(tc_rigid_body* b, tc_vec3 f, tc_vec3 p) {
    b->force = tc_v3_add(b->force, f);
    b->torque = tc_v3_add(b->torque, tc_v3_cross(tc_v3_sub(p, b->com), f));
}

// Rotation by the exact exponential map of w over h.
static tc_quat rotate_by(tc_quat q, tc_vec3 w, tc_real h) {
    tc_real angle = tc_v3_len(w) * h;
    if (angle < 1e-300) return q;
    return tc_quat_normalize(tc_quat_mul(tc_quat_from_axis_angle(w, angle), q));
}

// The rotation of the Cayley map of the skew matrix of v: angle 2 atan(|v|/2) about v.
static tc_quat cayley(tc_vec3 v) { return tc_quat_normalize(tc_quat_make(0.5 * v.x, 0.5 * v.y, 0.5 * v.z, 1)); }

// Euler's equations in the body frame, pi' = pi x I^-1 pi, by the implicit midpoint rule:
// pi1 - pi0 = h pi_m x w_m (pi_m the mean, w_m = I^-1 pi_m), i.e. pi1 = C^T pi0 with
// C = cay(h w_m). Both |pi|^2 and pi.I^-1 pi are quadratic, so the midpoint rule keeps them
// (|L| and the energy) exactly, and R1 = R0 C keeps the world L = R pi (Simo and Wong 1991).
// The fixed point contracts by ~h|w| times the inertia's anisotropy: the caller keeps h|w| small.
static tc_quat cayley_step(const tc_rigid_body* b, tc_vec3 pi0, tc_real h, tc_vec3* pi1) {
    tc_quat c = tc_quat_make(0, 0, 0, 1);
    tc_vec3 p1 = pi0;
    tc_real tol2 = 1e-30 * tc_v3_len2(pi0);
    for (int it = 0; it < 64; ++it) {
        tc_vec3 wm = tc_mat3_mul_v3(b->inv_inertia_local, tc_v3_scale(tc_v3_add(pi0, p1), 0.5));
        c = cayley(tc_v3_scale(wm, h));
        tc_vec3 next = tc_quat_inv_rotate(c, pi0);
        tc_real change2 = tc_v3_len2(tc_v3_sub(next, p1));
        p1 = next;
        if (change2 <= tol2) break;
    }
    *pi1 = p1;
    return c;
}

// The rotation over h conserving L (world) and the energy. A body turning more than
// MAX_ANGLE per step (a box spinning at ~230 rad/s turns ~1 rad per 1/240 s sub-step) takes
// several midpoint steps: the fixed point converges fast and the Cayley map's phase error
// (angle 2 atan(h|w|/2) for h|w|) stays small.
static void rotate_conserving_momentum(tc_rigid_body* b, tc_real h) {
    enum { MAX_PARTS = 64 };
    const tc_real MAX_ANGLE = 0.25;
    tc_quat q = b->pose.q;
    tc_vec3 pi = tc_mat3_mul_v3(b->inertia_local, tc_quat_inv_rotate(q, b->w)); // body-frame momentum
    tc_real angle = tc_v3_len(b->w) * h;
    int parts = angle > MAX_ANGLE ? (int)fmin(ceil(angle / MAX_ANGLE), MAX_PARTS) : 1;
    for (int k = 0; k < parts; ++k) q = tc_quat_normalize(tc_quat_mul(q, cayley_step(b, pi, h / parts, &pi)));
    b->pose.q = q;
    b->w = tc_quat_rotate(q, tc_mat3_mul_v3(b->inv_inertia_local, pi));
}

void tc_rigid_integrate_velocity(tc_rigid_body* b, tc_vec3 gravity, tc_real h) {
    if (!tc_rigid_is_dynamic(b) || !b->awake) return;
    tc_vec3 acc = tc_v3_madd(gravity, b->inv_mass, b->force);
    b->v = tc_v3_madd(b->v, h, acc);
    b->w = tc_v3_madd(b->w, h, tc_mat3_mul_v3(b->inv_inertia_world, b->torque));
    // Exact exponential decay keeps damping stable for any h.
    if (b->linear_damping > 0) b->v = tc_v3_scale(b->v, 1.0 / (1.0 + h * b->linear_damping));
    if (b->angular_damping > 0) b->w = tc_v3_scale(b->w, 1.0 / (1.0 + h * b->angular_damping));
}

// I = c 1 (spheres, cubes, regular polyhedra): w x I w vanishes and L = I w stays parallel to w,
// so the momentum-conserving solve would return w itself (to round-off).
static bool isotropic(const tc_mat3* I) {
    tc_real d = fabs(I->m[0][0]), tol = 1e-12 * d;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            if (fabs(I->m[r][c] - (r == c ? I->m[0][0] : 0)) > tol) return false;
    return d > 0;
}

void tc_rigid_integrate_position(tc_rigid_body* b, tc_real h) {
    if (!tc_rigid_is_dynamic(b) || !b->awake) return;
    tc_vec3 com = tc_v3_madd(b->com, h, b->v);
    if (b->gyroscopic && !isotropic(&b->inertia_local)) rotate_conserving_momentum(b, h);
    else b->pose.q = rotate_by(b->pose.q, b->w, h);
    b->pose.p = tc_v3_sub(com, tc_quat_rotate(b->pose.q, b->com_local));
    tc_rigid_update_derived(b);
}

tc_real tc_rigid_signed_distance(const tc_rigid_body* b, tc_vec3 p, tc_vec3* normal) {
    tc_real best = 1e300;
    for (int i = 0; i < b->shape_count; ++i) {
        tc_vec3 n;
        tc_real d = tc_shape_signed_distance(&b->shapes[i], b->pose, p, &n);
        if (d < best) {
            best = d;
            if (normal) *normal = n;
        }
    }
    return best;
}
