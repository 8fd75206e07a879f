#include "viewer.h"

#include <math.h>

tc_view_camera tc_view_camera_look(tc_vec3 eye, tc_vec3 target) {
    tc_view_camera c;
    tc_vec3 d = tc_v3_sub(eye, target);
    c.target = target;
    c.distance = fmax(tc_v3_len(d), 1e-3);
    c.yaw = atan2(d.y, d.x);
    c.pitch = asin(fmax(-1, fmin(1, d.z / c.distance)));
    c.fovy = 45 * TC_PI / 180;
    return c;
}

tc_vec3 tc_view_camera_eye(const tc_view_camera* c) {
    tc_vec3 d = tc_v3(cos(c->pitch) * cos(c->yaw), cos(c->pitch) * sin(c->yaw), sin(c->pitch));
    return tc_v3_madd(c->target, c->distance, d);
}

// Right-handed camera basis with +Z up: forward f, right r, up u.
static void basis(const tc_view_camera* c, tc_vec3* f, tc_vec3* r, tc_vec3* u) {
    *f = tc_v3_normalize(tc_v3_sub(c->target, tc_view_camera_eye(c)));
    tc_vec3 up = fabs(f->z) > 0.999 ? tc_v3(0, 1, 0) : tc_v3(0, 0, 1);
    *r = tc_v3_normalize(tc_v3_cross(*f, up));
    *u = tc_v3_cross(*r, *f);
}

static void clip_range(const tc_view_camera* c, double* n, double* f) {
    *n = fmax(0.01, 0.01 * c->distance);
    *f = 200 + 20 * c->distance;
}

void tc_view_matrices(const tc_view_camera* c, int w, int h, double view[16], double proj[16]) {
    tc_vec3 f, r, u, e = tc_view_camera_eye(c);
    basis(c, &f, &r, &u);
    double v[16] = {r.x, u.x, -f.x, 0, r.y, u.y, -f.y, 0, r.z, u.z, -f.z, 0, -tc_v3_dot(r, e), -tc_v3_dot(u, e), tc_v3_dot(f, e), 1};
    double n, fa, t = 1 / tan(0.5 * c->fovy), aspect = (double)w / (h > 0 ? h : 1);
    clip_range(c, &n, &fa);
    double p[16] = {t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, (fa + n) / (n - fa), -1, 0, 0, 2 * fa * n / (n - fa), 0};
    for (int i = 0; i < 16; ++i) view[i] = v[i], proj[i] = p[i];
}

bool tc_view_project(const tc_view_camera* c, int w, int h, tc_vec3 p, double* px, double* py) {
    tc_vec3 f, r, u, e = tc_view_camera_eye(c);
    basis(c, &f, &r, &u);
    tc_vec3 d = tc_v3_sub(p, e);
    double z = tc_v3_dot(d, f);
    if (z <= 0) return false;
    double t = 1 / tan(0.5 * c->fovy), aspect = (double)w / h;
    double x = tc_v3_dot(d, r) * t / (aspect * z), y = tc_v3_dot(d, u) * t / z; // normalised device coordinates
    *px = 0.5 * (x + 1) * w;
    *py = 0.5 * (1 - y) * h;
    return true;
}

void tc_view_ray(const tc_view_camera* c, int w, int h, double px, double py, tc_vec3* origin, tc_vec3* dir) {
    tc_vec3 f, r, u;
    basis(c, &f, &r, &u);
    double t = tan(0.5 * c->fovy), aspect = (double)w / h;
    double x = (2 * px / w - 1) * t * aspect, y = (1 - 2 * py / h) * t;
    *origin = tc_view_camera_eye(c);
    *dir = tc_v3_normalize(tc_v3_add(f, tc_v3_add(tc_v3_scale(r, x), tc_v3_scale(u, y))));
}
