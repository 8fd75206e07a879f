/// @file math.h
/// Inline 3D math: vectors, quaternions {x,y,z,w}, 3x3 matrices (row-major), rigid transforms.
#ifndef TACTUS_MATH_H
#define TACTUS_MATH_H

#include <math.h>
#include "tactus/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tc_vec3 { tc_real x, y, z; } tc_vec3;
/// Unit quaternion for rotations; w is the scalar part.
typedef struct tc_quat { tc_real x, y, z, w; } tc_quat;
/// Row-major 3x3 matrix: m[row][col].
typedef struct tc_mat3 { tc_real m[3][3]; } tc_mat3;
/// Rigid transform: x_world = p + rotate(q, x_local).
typedef struct tc_transform { tc_vec3 p; tc_quat q; } tc_transform;
/// Axis-aligned bounding box.
typedef struct tc_aabb { tc_vec3 lo, hi; } tc_aabb;

#define TC_PI 3.14159265358979323846

/// The vector (x, y, z).
static inline tc_vec3 tc_v3(tc_real x, tc_real y, tc_real z) { tc_vec3 r = {x, y, z}; return r; }
/// The zero vector.
static inline tc_vec3 tc_v3_zero(void) { return tc_v3(0, 0, 0); }
/// a + b.
static inline tc_vec3 tc_v3_add(tc_vec3 a, tc_vec3 b) { return tc_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
/// a - b.
static inline tc_vec3 tc_v3_sub(tc_vec3 a, tc_vec3 b) { return tc_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
/// -a.
static inline tc_vec3 tc_v3_neg(tc_vec3 a) { return tc_v3(-a.x, -a.y, -a.z); }
/// s a.
static inline tc_vec3 tc_v3_scale(tc_vec3 a, tc_real s) { return tc_v3(a.x * s, a.y * s, a.z * s); }
/// a + s*b
static inline tc_vec3 tc_v3_madd(tc_vec3 a, tc_real s, tc_vec3 b) { return tc_v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z); }
/// Component-wise product.
static inline tc_vec3 tc_v3_mul(tc_vec3 a, tc_vec3 b) { return tc_v3(a.x * b.x, a.y * b.y, a.z * b.z); }
/// Dot product a . b.
static inline tc_real tc_v3_dot(tc_vec3 a, tc_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
/// Cross product a x b (right-handed).
static inline tc_vec3 tc_v3_cross(tc_vec3 a, tc_vec3 b) {
    return tc_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
/// Squared length |a|^2.
static inline tc_real tc_v3_len2(tc_vec3 a) { return tc_v3_dot(a, a); }
/// Length |a|.
static inline tc_real tc_v3_len(tc_vec3 a) { return sqrt(tc_v3_dot(a, a)); }
/// Distance |a - b|.
static inline tc_real tc_v3_dist(tc_vec3 a, tc_vec3 b) { return tc_v3_len(tc_v3_sub(a, b)); }
/// Component-wise minimum.
static inline tc_vec3 tc_v3_min(tc_vec3 a, tc_vec3 b) { return tc_v3(fmin(a.x, b.x), fmin(a.y, b.y), fmin(a.z, b.z)); }
/// Component-wise maximum.
static inline tc_vec3 tc_v3_max(tc_vec3 a, tc_vec3 b) { return tc_v3(fmax(a.x, b.x), fmax(a.y, b.y), fmax(a.z, b.z)); }
/// a + t (b - a): a at t = 0, b at t = 1.
static inline tc_vec3 tc_v3_lerp(tc_vec3 a, tc_vec3 b, tc_real t) { return tc_v3_madd(a, t, tc_v3_sub(b, a)); }
/// Component i (0 = x, 1 = y, else z).
static inline tc_real tc_v3_get(tc_vec3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }
/// True when no component is infinite or NaN.
static inline bool tc_v3_is_finite(tc_vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
/// Unit vector along a; returns the zero vector when |a| is below 1e-300.
static inline tc_vec3 tc_v3_normalize(tc_vec3 a) {
    tc_real l = tc_v3_len(a);
    return l > 1e-300 ? tc_v3_scale(a, 1.0 / l) : tc_v3_zero();
}
/// Two unit vectors t1, t2 completing n (unit) to a right-handed orthonormal basis (t1, t2, n).
static inline void tc_v3_basis(tc_vec3 n, tc_vec3* t1, tc_vec3* t2) {
    tc_vec3 a = fabs(n.x) < 0.57735 ? tc_v3(1, 0, 0) : tc_v3(0, 1, 0);
    *t1 = tc_v3_normalize(tc_v3_cross(a, n));
    *t2 = tc_v3_cross(n, *t1);
}

/// The identity rotation {0, 0, 0, 1}.
static inline tc_quat tc_quat_identity(void) { tc_quat q = {0, 0, 0, 1}; return q; }
/// The quaternion {x, y, z, w} (w scalar), not normalised.
static inline tc_quat tc_quat_make(tc_real x, tc_real y, tc_real z, tc_real w) { tc_quat q = {x, y, z, w}; return q; }
/// Hamilton product a b: rotation b, then a.
static inline tc_quat tc_quat_mul(tc_quat a, tc_quat b) {
    return tc_quat_make(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
/// Conjugate: the inverse rotation of a unit quaternion.
static inline tc_quat tc_quat_conj(tc_quat q) { return tc_quat_make(-q.x, -q.y, -q.z, q.w); }
/// Norm of q (1 for a rotation).
static inline tc_real tc_quat_len(tc_quat q) { return sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w); }
/// Normalised q; the identity when |q| is zero or not finite.
static inline tc_quat tc_quat_normalize(tc_quat q) {
    tc_real l = tc_quat_len(q);
    if (!(l > 1e-300) || !isfinite(l)) return tc_quat_identity();
    return tc_quat_make(q.x / l, q.y / l, q.z / l, q.w / l);
}
/// Rotation of angle (radians) about a unit axis.
static inline tc_quat tc_quat_from_axis_angle(tc_vec3 axis, tc_real angle) {
    tc_vec3 a = tc_v3_normalize(axis);
    tc_real s = sin(0.5 * angle);
    return tc_quat_make(a.x * s, a.y * s, a.z * s, cos(0.5 * angle));
}
/// v rotated by the unit quaternion q.
static inline tc_vec3 tc_quat_rotate(tc_quat q, tc_vec3 v) {
    tc_vec3 u = tc_v3(q.x, q.y, q.z);
    tc_vec3 t = tc_v3_scale(tc_v3_cross(u, v), 2.0);
    return tc_v3_add(tc_v3_add(v, tc_v3_scale(t, q.w)), tc_v3_cross(u, t));
}
/// v rotated by the inverse of the unit quaternion q.
static inline tc_vec3 tc_quat_inv_rotate(tc_quat q, tc_vec3 v) { return tc_quat_rotate(tc_quat_conj(q), v); }
/// q advanced by angular velocity w (rad/s, world frame) over h seconds, normalised.
static inline tc_quat tc_quat_integrate(tc_quat q, tc_vec3 w, tc_real h) {
    tc_quat dq = tc_quat_mul(tc_quat_make(w.x, w.y, w.z, 0), q);
    tc_real s = 0.5 * h;
    return tc_quat_normalize(tc_quat_make(q.x + s * dq.x, q.y + s * dq.y, q.z + s * dq.z, q.w + s * dq.w));
}

/// The zero matrix.
static inline tc_mat3 tc_mat3_zero(void) { tc_mat3 r = {{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}}; return r; }
/// The identity matrix.
static inline tc_mat3 tc_mat3_identity(void) { tc_mat3 r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}; return r; }
/// Diagonal matrix with d on the diagonal.
static inline tc_mat3 tc_mat3_diag(tc_vec3 d) { tc_mat3 r = {{{d.x, 0, 0}, {0, d.y, 0}, {0, 0, d.z}}}; return r; }
/// Matrix with columns a, b, c.
static inline tc_mat3 tc_mat3_from_cols(tc_vec3 a, tc_vec3 b, tc_vec3 c) {
    tc_mat3 r = {{{a.x, b.x, c.x}, {a.y, b.y, c.y}, {a.z, b.z, c.z}}};
    return r;
}
/// Column j of a.
static inline tc_vec3 tc_mat3_col(tc_mat3 a, int j) { return tc_v3(a.m[0][j], a.m[1][j], a.m[2][j]); }
/// Matrix-vector product a v.
static inline tc_vec3 tc_mat3_mul_v3(tc_mat3 a, tc_vec3 v) {
    return tc_v3(a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
                 a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
                 a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z);
}
/// Matrix product a b.
static inline tc_mat3 tc_mat3_mul(tc_mat3 a, tc_mat3 b) {
    tc_mat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return r;
}
/// Transpose of a.
static inline tc_mat3 tc_mat3_transpose(tc_mat3 a) {
    tc_mat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[j][i];
    return r;
}
/// a + b.
static inline tc_mat3 tc_mat3_add(tc_mat3 a, tc_mat3 b) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] += b.m[i][j];
    return a;
}
/// s a.
static inline tc_mat3 tc_mat3_scale(tc_mat3 a, tc_real s) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] *= s;
    return a;
}
/// Determinant of a.
static inline tc_real tc_mat3_det(tc_mat3 a) {
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
/// Inverse of a; the zero matrix when |det| is below 1e-300 (singular).
static inline tc_mat3 tc_mat3_inverse(tc_mat3 a) {
    tc_real d = tc_mat3_det(a);
    if (fabs(d) < 1e-300) return tc_mat3_zero();
    tc_real s = 1.0 / d;
    tc_mat3 r;
    r.m[0][0] = (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) * s;
    r.m[0][1] = (a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2]) * s;
    r.m[0][2] = (a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1]) * s;
    r.m[1][0] = (a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2]) * s;
    r.m[1][1] = (a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0]) * s;
    r.m[1][2] = (a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2]) * s;
    r.m[2][0] = (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]) * s;
    r.m[2][1] = (a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1]) * s;
    r.m[2][2] = (a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0]) * s;
    return r;
}
/// Outer product a b^T.
static inline tc_mat3 tc_mat3_outer(tc_vec3 a, tc_vec3 b) {
    tc_mat3 r = {{{a.x * b.x, a.x * b.y, a.x * b.z}, {a.y * b.x, a.y * b.y, a.y * b.z}, {a.z * b.x, a.z * b.y, a.z * b.z}}};
    return r;
}
/// Cross-product matrix [a]x such that [a]x v = a x v.
static inline tc_mat3 tc_mat3_skew(tc_vec3 a) {
    tc_mat3 r = {{{0, -a.z, a.y}, {a.z, 0, -a.x}, {-a.y, a.x, 0}}};
    return r;
}
/// Rotation matrix of the unit quaternion q.
static inline tc_mat3 tc_quat_to_mat3(tc_quat q) {
    tc_real xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    tc_real xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    tc_real wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    tc_mat3 r = {{{1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)},
                  {2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)},
                  {2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)}}};
    return r;
}
/// Quaternion of a proper rotation matrix (Shepperd's method).
static inline tc_quat tc_mat3_to_quat(tc_mat3 m) {
    tc_real tr = m.m[0][0] + m.m[1][1] + m.m[2][2];
    tc_quat q;
    if (tr > 0) {
        tc_real s = sqrt(tr + 1.0) * 2;
        q = tc_quat_make((m.m[2][1] - m.m[1][2]) / s, (m.m[0][2] - m.m[2][0]) / s, (m.m[1][0] - m.m[0][1]) / s, 0.25 * s);
    } else if (m.m[0][0] > m.m[1][1] && m.m[0][0] > m.m[2][2]) {
        tc_real s = sqrt(1.0 + m.m[0][0] - m.m[1][1] - m.m[2][2]) * 2;
        q = tc_quat_make(0.25 * s, (m.m[0][1] + m.m[1][0]) / s, (m.m[0][2] + m.m[2][0]) / s, (m.m[2][1] - m.m[1][2]) / s);
    } else if (m.m[1][1] > m.m[2][2]) {
        tc_real s = sqrt(1.0 + m.m[1][1] - m.m[0][0] - m.m[2][2]) * 2;
        q = tc_quat_make((m.m[0][1] + m.m[1][0]) / s, 0.25 * s, (m.m[1][2] + m.m[2][1]) / s, (m.m[0][2] - m.m[2][0]) / s);
    } else {
        tc_real s = sqrt(1.0 + m.m[2][2] - m.m[0][0] - m.m[1][1]) * 2;
        q = tc_quat_make((m.m[0][2] + m.m[2][0]) / s, (m.m[1][2] + m.m[2][1]) / s, 0.25 * s, (m.m[1][0] - m.m[0][1]) / s);
    }
    return tc_quat_normalize(q);
}

/// The identity transform.
static inline tc_transform tc_transform_identity(void) { tc_transform t = {{0, 0, 0}, {0, 0, 0, 1}}; return t; }
/// Local point v to world: p + rotate(q, v).
static inline tc_vec3 tc_transform_point(tc_transform t, tc_vec3 v) { return tc_v3_add(t.p, tc_quat_rotate(t.q, v)); }
/// World point v to local: rotate(q^-1, v - p).
static inline tc_vec3 tc_transform_inv_point(tc_transform t, tc_vec3 v) { return tc_quat_inv_rotate(t.q, tc_v3_sub(v, t.p)); }
/// a * b: first b, then a.
static inline tc_transform tc_transform_mul(tc_transform a, tc_transform b) {
    tc_transform r;
    r.q = tc_quat_normalize(tc_quat_mul(a.q, b.q));
    r.p = tc_transform_point(a, b.p);
    return r;
}
/// The inverse transform: t^-1 * t = identity.
static inline tc_transform tc_transform_inverse(tc_transform t) {
    tc_transform r;
    r.q = tc_quat_conj(t.q);
    r.p = tc_quat_rotate(r.q, tc_v3_neg(t.p));
    return r;
}

/// The empty box (lo = +inf, hi = -inf): the neutral element of add_point and union.
static inline tc_aabb tc_aabb_empty(void) {
    tc_aabb b = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    return b;
}
/// The smallest box holding b and p.
static inline tc_aabb tc_aabb_add_point(tc_aabb b, tc_vec3 p) { b.lo = tc_v3_min(b.lo, p); b.hi = tc_v3_max(b.hi, p); return b; }
/// The smallest box holding a and b.
static inline tc_aabb tc_aabb_union(tc_aabb a, tc_aabb b) { a.lo = tc_v3_min(a.lo, b.lo); a.hi = tc_v3_max(a.hi, b.hi); return a; }
/// b grown by r (m) on every side.
static inline tc_aabb tc_aabb_inflate(tc_aabb b, tc_real r) {
    b.lo = tc_v3_sub(b.lo, tc_v3(r, r, r));
    b.hi = tc_v3_add(b.hi, tc_v3(r, r, r));
    return b;
}
/// True when the closed boxes a and b intersect.
static inline bool tc_aabb_overlap(tc_aabb a, tc_aabb b) {
    return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y && a.lo.z <= b.hi.z && b.lo.z <= a.hi.z;
}
/// True when p lies in the closed box a.
static inline bool tc_aabb_contains_point(tc_aabb a, tc_vec3 p) {
    return p.x >= a.lo.x && p.x <= a.hi.x && p.y >= a.lo.y && p.y <= a.hi.y && p.z >= a.lo.z && p.z <= a.hi.z;
}

#ifdef __cplusplus
}
#endif
#endif
