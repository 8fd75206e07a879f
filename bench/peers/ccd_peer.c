// libccd's MPR penetration query over point-set pairs (the narrowphase speed anchor), in two
// set-ups: "placed" (the points already in world space, placed once outside the timing) and
// "pose" (body-space points + a pose per body, as a simulation has them: the support callback
// rotates the direction into body space, scans, and places only the winner; the usual FCL way).
#include "peers.h"

#include <ccd/ccd.h>
#include <ccd/quat.h>
#include <stdlib.h>

typedef struct point_set {
    const double* p;
    int n;
} point_set;

static void support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
    const point_set* s = obj;
    int best = 0;
    double bd = -1e300;
    for (int i = 0; i < s->n; ++i) {
        double d = s->p[3 * i] * dir->v[0] + s->p[3 * i + 1] * dir->v[1] + s->p[3 * i + 2] * dir->v[2];
        if (d > bd) bd = d, best = i;
    }
    ccdVec3Set(out, s->p[3 * best], s->p[3 * best + 1], s->p[3 * best + 2]);
}

static void center(const void* obj, ccd_vec3_t* out) {
    const point_set* s = obj;
    double c[3] = {0, 0, 0};
    for (int i = 0; i < s->n; ++i)
        for (int k = 0; k < 3; ++k) c[k] += s->p[3 * i + k] / s->n;
    ccdVec3Set(out, c[0], c[1], c[2]);
}

// A body-space point set and its pose: rotation matrix (row-major, from the quaternion once per
// query, inside the timing) and translation; `c` is the body-space centre (stored with the shape).
typedef struct posed_set {
    const double* p;
    int n;
    double r[9], t[3], c[3];
} posed_set;

// The pose: rotation matrix from the quaternion {x,y,z,w} (pose = p.xyz, q.xyzw), per query.
static void posed_set_pose(posed_set* s, const double* pose) {
    double x = pose[3], y = pose[4], z = pose[5], w = pose[6];
    s->r[0] = 1 - 2 * (y * y + z * z), s->r[1] = 2 * (x * y - z * w), s->r[2] = 2 * (x * z + y * w);
    s->r[3] = 2 * (x * y + z * w), s->r[4] = 1 - 2 * (x * x + z * z), s->r[5] = 2 * (y * z - x * w);
    s->r[6] = 2 * (x * z - y * w), s->r[7] = 2 * (y * z + x * w), s->r[8] = 1 - 2 * (x * x + y * y);
    for (int k = 0; k < 3; ++k) s->t[k] = pose[k];
}

// The shape: body-space points and their centre (computed once, as Tactus stores its centroid).
static void posed_set_shape(posed_set* s, const double* pts, int n) {
    s->p = pts, s->n = n;
    for (int k = 0; k < 3; ++k) s->c[k] = 0;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) s->c[k] += pts[3 * i + k] / n;
}

static void posed_place(const posed_set* s, const double* b, ccd_vec3_t* out) {
    for (int k = 0; k < 3; ++k) out->v[k] = s->r[3 * k] * b[0] + s->r[3 * k + 1] * b[1] + s->r[3 * k + 2] * b[2] + s->t[k];
}

static void posed_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
    const posed_set* s = obj;
    double d[3]; // R^T dir: the direction in body space
    for (int k = 0; k < 3; ++k) d[k] = s->r[k] * dir->v[0] + s->r[3 + k] * dir->v[1] + s->r[6 + k] * dir->v[2];
    int best = 0;
    double bd = -1e300;
    for (int i = 0; i < s->n; ++i) {
        double v = s->p[3 * i] * d[0] + s->p[3 * i + 1] * d[1] + s->p[3 * i + 2] * d[2];
        if (v > bd) bd = v, best = i;
    }
    posed_place(s, s->p + 3 * best, out);
}

static void posed_center(const void* obj, ccd_vec3_t* out) {
    const posed_set* s = obj;
    posed_place(s, s->c, out);
}

int ccd_mpr_queries(const double* a, const double* b, int pairs, int npts, double* seconds) {
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = support;
    ccd.support2 = support;
    ccd.center1 = center;
    ccd.center2 = center;
    ccd.mpr_tolerance = 1e-6;
    int hits = 0;
    double t0 = bench_now();
    for (int i = 0; i < pairs; ++i) {
        point_set A = {a + 3 * npts * i, npts}, B = {b + 3 * npts * i, npts};
        ccd_real_t depth;
        ccd_vec3_t dir, pos;
        if (ccdMPRPenetration(&A, &B, &ccd, &depth, &dir, &pos) == 0) hits++;
    }
    *seconds = bench_now() - t0;
    return hits;
}

int ccd_mpr_queries_posed(const double* a, const double* b, const double* pose_a, const double* pose_b, int pairs, int npts,
                          double* seconds) {
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = posed_support;
    ccd.support2 = posed_support;
    ccd.center1 = posed_center;
    ccd.center2 = posed_center;
    ccd.mpr_tolerance = 1e-6;
    // body-space centres once per shape, outside the timing (Tactus stores its hull centroid too)
    posed_set* sa = malloc((size_t)pairs * sizeof *sa);
    posed_set* sb = malloc((size_t)pairs * sizeof *sb);
    if (!sa || !sb) return -1;
    for (int i = 0; i < pairs; ++i) {
        posed_set_shape(&sa[i], a + 3 * npts * i, npts);
        posed_set_shape(&sb[i], b + 3 * npts * i, npts);
    }
    int hits = 0;
    double t0 = bench_now();
    for (int i = 0; i < pairs; ++i) {
        posed_set A = sa[i], B = sb[i];
        posed_set_pose(&A, pose_a + 7 * i);
        posed_set_pose(&B, pose_b + 7 * i);
        ccd_real_t depth;
        ccd_vec3_t dir, pos;
        if (ccdMPRPenetration(&A, &B, &ccd, &depth, &dir, &pos) == 0) hits++;
    }
    *seconds = bench_now() - t0;
    free(sa), free(sb);
    return hits;
}
