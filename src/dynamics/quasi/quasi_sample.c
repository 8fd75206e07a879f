// Surface samples of the analytic quasi-rigid shapes: points, exact outward normals, area shares.
#include <math.h>
#include "dynamics/quasi/quasi.h"

static void fibonacci_dir(int i, int n, tc_vec3* u) {
    const tc_real golden = TC_PI * (3 - sqrt(5.0));
    tc_real z = 1 - (2 * i + 1.0) / n, r = sqrt(fmax(0, 1 - z * z)), phi = golden * i;
    *u = tc_v3(r * cos(phi), r * sin(phi), z);
}

// Sphere samples mapped by the semi-axes: dA_ellipsoid = abc |(u_x/a, u_y/b, u_z/c)| dA_sphere.
static void sample_ellipsoid(tc_vec3 axes, int n, tc_vec3* p, tc_vec3* nrm, tc_real* area) {
    tc_real abc = axes.x * axes.y * axes.z;
    for (int i = 0; i < n; ++i) {
        tc_vec3 u;
        fibonacci_dir(i, n, &u);
        p[i] = tc_v3_mul(u, axes);
        tc_vec3 g = tc_v3(u.x / axes.x, u.y / axes.y, u.z / axes.z);
        nrm[i] = tc_v3_normalize(g);
        area[i] = 4 * TC_PI / n * abc * tc_v3_len(g);
    }
}

// Cells along a face side of half length e for the cell size of the budget.
static tc_real box_side_cells(tc_real e, tc_real cell) { return fmax(1, round(2 * e / cell)); }

static tc_real box_cell_size(tc_vec3 he, int budget) {
    tc_real total = 8 * (he.x * he.y + he.y * he.z + he.z * he.x);
    return sqrt(total / budget);
}

tc_real tc_quasi_box_sample_count(tc_vec3 he, int budget) {
    tc_real s = box_cell_size(he, budget), n = 0;
    for (int axis = 0; axis < 3; ++axis)
        n += 2 * box_side_cells(tc_v3_get(he, (axis + 1) % 3), s) * box_side_cells(tc_v3_get(he, (axis + 2) % 3), s);
    return n;
}

// A grid of cell centres on each face, cells as square as the sample budget allows. The
// caller checked tc_quasi_box_sample_count, so the int counts cannot overflow.
static void sample_box(tc_vec3 he, int budget, tc_vec3* p, tc_vec3* nrm, tc_real* area) {
    tc_real s = box_cell_size(he, budget);
    int n = 0;
    for (int axis = 0; axis < 3; ++axis)
        for (int side = -1; side <= 1; side += 2) {
            int a = (axis + 1) % 3, b = (axis + 2) % 3;
            tc_real ea = tc_v3_get(he, a), eb = tc_v3_get(he, b);
            int na = (int)box_side_cells(ea, s), nb = (int)box_side_cells(eb, s);
            for (int i = 0; i < na; ++i)
                for (int j = 0; j < nb; ++j, ++n) {
                    tc_real c[3];
                    c[axis] = side * tc_v3_get(he, axis);
                    c[a] = -ea + (i + 0.5) * 2 * ea / na;
                    c[b] = -eb + (j + 0.5) * 2 * eb / nb;
                    tc_real nv[3] = {0, 0, 0};
                    nv[axis] = side;
                    p[n] = tc_v3(c[0], c[1], c[2]);
                    nrm[n] = tc_v3(nv[0], nv[1], nv[2]);
                    area[n] = 4 * ea * eb / (na * nb);
                }
        }
}

int tc_quasi_sample_shape(const tc_quasi_body_def* d, tc_vec3** points, tc_vec3** normals, tc_real** areas) {
    int n = d->sample_count;
    if (d->shape == TC_QUASI_BOX) n = (int)tc_quasi_box_sample_count(d->half_extents, d->sample_count);
    *points = tc_alloc((size_t)n * sizeof(tc_vec3));
    *normals = tc_alloc((size_t)n * sizeof(tc_vec3));
    *areas = tc_alloc((size_t)n * sizeof(tc_real));
    if (!*points || !*normals || !*areas) {
        if (*points) tc_free(*points, (size_t)n * sizeof(tc_vec3));
        if (*normals) tc_free(*normals, (size_t)n * sizeof(tc_vec3));
        if (*areas) tc_free(*areas, (size_t)n * sizeof(tc_real));
        *points = *normals = NULL;
        *areas = NULL;
        return 0;
    }
    switch (d->shape) {
    case TC_QUASI_SPHERE: sample_ellipsoid(tc_v3(d->radius, d->radius, d->radius), n, *points, *normals, *areas); break;
    case TC_QUASI_ELLIPSOID: sample_ellipsoid(d->half_extents, n, *points, *normals, *areas); break;
    case TC_QUASI_BOX: sample_box(d->half_extents, d->sample_count, *points, *normals, *areas); break;
    default: return 0;
    }
    return n;
}
