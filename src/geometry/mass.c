#include "geometry/mass.h"

tc_mass_props tc_mass_box(tc_vec3 h, tc_real density) {
    tc_mass_props r;
    r.volume = 8 * h.x * h.y * h.z;
    r.mass = density * r.volume;
    r.center = tc_v3_zero();
    tc_real k = r.mass / 3; // (m/12)*(2a)^2 = m a^2 / 3
    r.inertia = tc_mat3_diag(tc_v3(k * (h.y * h.y + h.z * h.z), k * (h.x * h.x + h.z * h.z), k * (h.x * h.x + h.y * h.y)));
    return r;
}

tc_mass_props tc_mass_sphere(tc_real radius, tc_real density) {
    tc_mass_props r;
    r.volume = 4.0 / 3.0 * TC_PI * radius * radius * radius;
    r.mass = density * r.volume;
    r.center = tc_v3_zero();
    tc_real i = 0.4 * r.mass * radius * radius;
    r.inertia = tc_mat3_diag(tc_v3(i, i, i));
    return r;
}

// Second moments of the tetrahedron (0, a, b, c): integral of x_i x_j over it, times 1/det.
// Uses the closed form  int x_i x_j = det/120 * (sum_k p_k,i p_k,j + (sum p_i)(sum p_j)).
static void tet_second_moment(tc_vec3 a, tc_vec3 b, tc_vec3 c, tc_real det, tc_real out[3][3]) {
    tc_vec3 p[3] = {a, b, c};
    tc_vec3 s = tc_v3_add(tc_v3_add(a, b), c);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            tc_real acc = tc_v3_get(s, i) * tc_v3_get(s, j);
            for (int k = 0; k < 3; ++k) acc += tc_v3_get(p[k], i) * tc_v3_get(p[k], j);
            out[i][j] += det / 120.0 * acc;
        }
}

tc_result tc_mass_from_mesh(const tc_vec3* v, const int* tri, int n, tc_real density, tc_mass_props* out) {
    tc_real vol6 = 0;
    tc_vec3 c = tc_v3_zero();
    tc_real cov[3][3] = {{0}};
    for (int t = 0; t < n; ++t) {
        tc_vec3 a = v[tri[3 * t]], b = v[tri[3 * t + 1]], d = v[tri[3 * t + 2]];
        tc_real det = tc_v3_dot(a, tc_v3_cross(b, d));
        vol6 += det;
        c = tc_v3_madd(c, det, tc_v3_add(tc_v3_add(a, b), d));
        tet_second_moment(a, b, d, det, cov);
    }
    tc_real volume = vol6 / 6;
    if (!(volume > 0) || !isfinite(volume)) return TC_RESULT_DEGENERATE;
    out->volume = volume;
    out->mass = density * volume;
    out->center = tc_v3_scale(c, 1.0 / (4 * vol6));
    // inertia about origin from covariance C: I = tr(C) 1 - C, then shift to the centre.
    tc_mat3 C;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) C.m[i][j] = density * cov[i][j];
    tc_real tr = C.m[0][0] + C.m[1][1] + C.m[2][2];
    tc_mat3 I = tc_mat3_add(tc_mat3_scale(tc_mat3_identity(), tr), tc_mat3_scale(C, -1));
    tc_vec3 r = out->center;
    tc_mat3 shift = tc_mat3_add(tc_mat3_scale(tc_mat3_identity(), tc_v3_dot(r, r)), tc_mat3_scale(tc_mat3_outer(r, r), -1));
    out->inertia = tc_mat3_add(I, tc_mat3_scale(shift, -out->mass));
    return TC_RESULT_OK;
}

tc_mass_props tc_mass_transform(tc_mass_props p, tc_transform t) {
    tc_mat3 R = tc_quat_to_mat3(t.q);
    p.inertia = tc_mat3_mul(tc_mat3_mul(R, p.inertia), tc_mat3_transpose(R));
    p.center = tc_transform_point(t, p.center);
    return p;
}

tc_mass_props tc_mass_combine(const tc_mass_props* parts, int count) {
    tc_mass_props r = {0};
    r.inertia = tc_mat3_zero();
    for (int i = 0; i < count; ++i) {
        r.mass += parts[i].mass;
        r.volume += parts[i].volume;
        r.center = tc_v3_madd(r.center, parts[i].mass, parts[i].center);
    }
    if (r.mass > 0) r.center = tc_v3_scale(r.center, 1.0 / r.mass);
    for (int i = 0; i < count; ++i) {
        tc_vec3 d = tc_v3_sub(parts[i].center, r.center);
        tc_mat3 shift = tc_mat3_add(tc_mat3_scale(tc_mat3_identity(), tc_v3_dot(d, d)), tc_mat3_scale(tc_mat3_outer(d, d), -1));
        r.inertia = tc_mat3_add(r.inertia, tc_mat3_add(parts[i].inertia, tc_mat3_scale(shift, parts[i].mass)));
    }
    return r;
}

tc_mass_props tc_mass_with_total(tc_mass_props p, tc_real mass) {
    if (p.mass > 0) {
        p.inertia = tc_mat3_scale(p.inertia, mass / p.mass);
        p.mass = mass;
    }
    return p;
}
