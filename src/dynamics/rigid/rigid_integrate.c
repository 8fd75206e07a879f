// Rigid body integration: symplectic Euler for translation, momentum-conserving implicit
// midpoint for rotation (the gyroscopic term).
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

static tc_mat3 world_inertia(const tc_rigid_body* b, tc_quat q, bool inverse) {
    tc_mat3 R = tc_quat_to_mat3(q);
    return tc_mat3_mul(tc_mat3_mul(R, inverse ? b->inv_inertia_local : b->inertia_local), tc_mat3_transpose(R));
}

// Implicit midpoint on the orientation with the world angular momentum L held fixed: the
// gyroscopic term is implied by w = I(q)^-1 L, L is conserved exactly without torque, and the
// energy stays bounded (no drift) even near the unstable intermediate axis.
static void rotate_conserving_momentum(tc_rigid_body* b, tc_real h) {
    tc_vec3 L = tc_mat3_mul_v3(world_inertia(b, b->pose.q, false), b->w);
    tc_quat q0 = b->pose.q, q1 = rotate_by(q0, b->w, h);
    for (int it = 0; it < 3; ++it) {
        tc_quat mid = tc_quat_normalize(tc_quat_make(q0.x + q1.x, q0.y + q1.y, q0.z + q1.z, q0.w + q1.w));
        q1 = rotate_by(q0, tc_mat3_mul_v3(world_inertia(b, mid, true), L), h);
    }
    b->pose.q = q1;
    b->w = tc_mat3_mul_v3(world_inertia(b, q1, true), L);
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
