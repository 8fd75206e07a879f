// libccd's MPR penetration query over point-set pairs (the narrowphase speed anchor).
#include "peers.h"

#include <ccd/ccd.h>
#include <ccd/quat.h>

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
