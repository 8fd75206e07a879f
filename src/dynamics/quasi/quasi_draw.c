// Drawing a quasi-rigid body: each sample as a small oriented splat (two triangles), coloured by
// the normal traction (tc_color_map, scaled to the body's peak) when draw_tractions is on.
#include <math.h>
#include "dynamics/quasi/quasi.h"

static void draw_splat(const tc_debug_draw* d, tc_vec3 p, tc_vec3 n, tc_real r, tc_color col) {
    tc_vec3 t1, t2;
    tc_v3_basis(n, &t1, &t2);
    tc_vec3 c0 = tc_v3_madd(p, r, t1), c1 = tc_v3_madd(p, r, t2), c2 = tc_v3_madd(p, -r, t1), c3 = tc_v3_madd(p, -r, t2);
    tc_vec3 nn[3] = {n, n, n};
    tc_color cc[3] = {col, col, col};
    tc_vec3 a[3] = {c0, c1, c2}, b[3] = {c0, c2, c3};
    d->draw_triangle(a, nn, cc, d->context);
    d->draw_triangle(b, nn, cc, d->context);
}

void tc_quasi_draw_body(const tc_world* w, int index, const tc_debug_draw* d) {
    const tc_quasi_body* q = tc_quasi_record(w, index);
    tc_transform pose = tc_rigid_store_of(w)->bodies.data[index].pose;
    tc_real peak = 0;
    for (int k = 0; k < q->cloud.count; ++k) peak = fmax(peak, q->traction[k]);
    tc_color base = {0.85f, 0.55f, 0.35f, 1};
    for (int k = 0; k < q->cloud.count; ++k) {
        tc_vec3 p = tc_transform_point(pose, q->cloud.points[k]);
        tc_vec3 n = tc_quat_rotate(pose.q, q->cloud.normals[k]);
        tc_color col = base;
        if (d->draw_tractions && peak > 0) col = tc_color_map(q->traction[k] / peak);
        if (d->draw_shapes && d->draw_triangle) draw_splat(d, p, n, 0.75 * q->spacing, col);
        if (d->draw_points && d->draw_point) d->draw_point(p, 3, col, d->context);
    }
}
