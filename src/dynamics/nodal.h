// Queries shared by the kinds whose state is a set of nodes with positions, velocities and
// lumped masses (mass-spring and tetrahedral bodies; the placement check also serves the
// point-based kind, whose phyxels and surfels are stored in world coordinates too).
#ifndef TC_NODAL_H
#define TC_NODAL_H

#include "geometry/trimesh.h"
#include "world/state_io.h"

/// Refuses a body whose body-space points p[0..n) placed at `position` (m) would lose their
/// shape: nodes are stored in world coordinates, and at 1e9 sizes from the origin a double
/// moves a node by 2e-7 of the body's size, so elements collapse (springs' explicit limit step
/// goes to zero, tets invert, phyxels lose their neighbours). Error field "position".
static inline tc_result tc_nodal_check_placement(const tc_vec3* p, int n, tc_vec3 position, tc_error* e) {
    tc_real radius = 0;
    for (int i = 0; i < n; ++i) radius = fmax(radius, tc_v3_len(p[i]));
    tc_real distance = tc_v3_len(position);
    if (!(distance <= 1e9 * radius))
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "position",
                            "%g m from the origin is too far for a body of radius %g m (keep it within 1e9 radii: "
                            "coordinates would lose the body's shape)",
                            distance, radius);
    return TC_RESULT_OK;
}

static inline tc_vec3 tc_nodal_mean(const tc_vec3* q, const tc_real* m, int n, tc_real total_mass) {
    tc_vec3 c = tc_v3_zero();
    for (int k = 0; k < n; ++k) c = tc_v3_madd(c, m[k] / total_mass, q[k]);
    return c;
}

/// Kinetic energy and gravitational potential relative to z = 0 (added to *ke, *pe).
static inline void tc_nodal_energy(const tc_vec3* x, const tc_vec3* v, const tc_real* m, int n, tc_vec3 g, tc_real* ke, tc_real* pe) {
    for (int k = 0; k < n; ++k) {
        *ke += 0.5 * m[k] * tc_v3_len2(v[k]);
        *pe -= m[k] * tc_v3_dot(g, x[k]);
    }
}

static inline uint64_t tc_nodal_hash(const tc_vec3* x, const tc_vec3* v, int n, uint64_t h) {
    for (int k = 0; k < n; ++k) h = tc_hash_vec3(tc_hash_vec3(h, x[k]), v[k]);
    return h;
}

/// The first node whose position or velocity is not finite, or -1.
static inline int tc_nodal_first_non_finite(const tc_vec3* x, const tc_vec3* v, int n) {
    for (int k = 0; k < n; ++k)
        if (!tc_v3_is_finite(x[k]) || !tc_v3_is_finite(v[k])) return k;
    return -1;
}

/// Nearest hit of the segment o + t d, t in [0, max_t], with a surface of count triangles
/// (node indices tris[3k..3k+2]) over the nodes x: *t and the unit face normal *n. Scans every
/// triangle: rays are rare (picking).
static inline bool tc_nodal_ray_cast(const tc_vec3* x, const int* tris, int count, tc_vec3 o, tc_vec3 d, tc_real max_t, tc_real* t,
                                     tc_vec3* n) {
    bool hit = false;
    for (int k = 0; k < count; ++k) {
        const int* v = tris + 3 * k;
        tc_real s;
        if (!tc_segment_triangle(o, tc_v3_madd(o, max_t, d), x[v[0]], x[v[1]], x[v[2]], &s, NULL) || (hit && s * max_t >= *t)) continue;
        *t = s * max_t;
        *n = tc_v3_normalize(tc_v3_cross(tc_v3_sub(x[v[1]], x[v[0]]), tc_v3_sub(x[v[2]], x[v[0]])));
        hit = true;
    }
    return hit;
}

/// tc_body_set_pose for node-based kinds: moves the nodes x[0..n) by the rigid motion that takes
/// frame `from` (the kind's current pose) to frame `to`: x' = to.p + R (x - from.p), with
/// R = to.q from.q^-1. Velocities are left as they are (as for rigid bodies).
static inline void tc_nodal_move_rigidly(tc_vec3* x, int n, tc_transform from, tc_transform to) {
    tc_quat r = tc_quat_normalize(tc_quat_mul(to.q, tc_quat_conj(from.q)));
    for (int k = 0; k < n; ++k) x[k] = tc_v3_add(to.p, tc_quat_rotate(r, tc_v3_sub(x[k], from.p)));
}

/// tc_body_set_velocity for node-based kinds: the rigid velocity field v + omega x (x - c) about
/// the centre of mass c, m/s. The caller zeroes its fixed nodes afterwards.
static inline void tc_nodal_set_rigid_velocity(const tc_vec3* x, tc_vec3* v, int n, tc_vec3 c, tc_vec3 linear, tc_vec3 omega) {
    for (int k = 0; k < n; ++k) v[k] = tc_v3_add(linear, tc_v3_cross(omega, tc_v3_sub(x[k], c)));
}

/// Angular velocity (rad/s) of the rigid motion closest to the node velocities: I^-1 L, with L
/// and I the angular momentum and inertia about the centre of mass c. Zero when I is singular
/// (all nodes on a line).
static inline tc_vec3 tc_nodal_angular_velocity(const tc_vec3* x, const tc_vec3* v, const tc_real* m, int n, tc_vec3 c) {
    tc_vec3 L = tc_v3_zero();
    tc_mat3 I = tc_mat3_zero();
    for (int k = 0; k < n; ++k) {
        tc_vec3 r = tc_v3_sub(x[k], c);
        L = tc_v3_madd(L, m[k], tc_v3_cross(r, v[k]));
        I = tc_mat3_add(I, tc_mat3_scale(tc_mat3_add(tc_mat3_scale(tc_mat3_identity(), tc_v3_len2(r)), tc_mat3_scale(tc_mat3_outer(r, r), -1)), m[k]));
    }
    return tc_mat3_mul_v3(tc_mat3_inverse(I), L);
}

/// Checkpoint of the nodes: their count, positions and velocities.
static inline void tc_nodal_write(struct tc_state_writer* out, const tc_vec3* x, const tc_vec3* v, int n) {
    tc_state_write_i64(out, n);
    tc_state_write(out, x, (size_t)n * sizeof(tc_vec3));
    tc_state_write(out, v, (size_t)n * sizeof(tc_vec3));
}

/// Reads what tc_nodal_write wrote; false when the count differs from n.
static inline bool tc_nodal_read(struct tc_state_reader* in, tc_vec3* x, tc_vec3* v, int n) {
    if (tc_state_read_i64(in) != n) return false;
    tc_state_read(in, x, (size_t)n * sizeof(tc_vec3));
    tc_state_read(in, v, (size_t)n * sizeof(tc_vec3));
    return !in->failed;
}
#endif
