// Narrowphase only: the workload of rigid_peers' bench_narrowphase (1000 random overlapping or
// nearly touching 16-point hull pairs, full Gauss-map contact generation with tc_collide), without
// the peers, so a profiler sees nothing else. Usage: narrowphase_bench [repeats [pairs]] (defaults
// 100 and 1000). Prints CPU time, us/query, the touching count and a hash of the manifolds (to spot
// changed results). Environment: NP_DUMP=file writes every manifold (%.17g) for comparing versions;
// NP_TRACK=1 times the tracking method (the contact normal without the features); NP_INNER=k
// repeats each pair k times in a row (warm caches and branch predictors). NP_FRAMES=k: the
// frame-coherent variant: every pair moves for k frames of 1/60 s (the same motions as
// rigid_peers_bench), each query warm-started from the pair's previous manifold; prints its time
// and how the warm answers differ from cold ones on the same frames. NP_CHECK=1 compares the
// normal of every overlapping pair with a brute force (the face of qhull(A - B) the line through the
// centroids enters by).
#define _POSIX_C_SOURCE 200809L // clock_gettime
#include "collision/collide.h"
#include "geometry/hull.h"
#include "bench_random.h"
#include "tactus/tactus.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


static void random_rock(tc_vec3* out, int npts, double radius) {
    for (int i = 0; i < npts; ++i) {
        double u = 2 * urand() - 1, phi = 2 * TC_PI * urand(), s = sqrt(1 - u * u), r = radius * (0.5 + 0.5 * urand());
        out[i] = tc_v3(r * s * cos(phi), r * s * sin(phi), r * u);
    }
}

static uint64_t hash_bytes(uint64_t h, const void* p, size_t n) {
    const unsigned char* b = p;
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001B3ull;
    return h;
}

static uint64_t hash_manifold(uint64_t h, const tc_manifold* m) {
    h = hash_bytes(h, &m->count, sizeof m->count);
    if (m->count == 0) return h;
    h = hash_bytes(h, &m->normal, sizeof m->normal);
    for (int i = 0; i < m->count; ++i) {
        const tc_manifold_point* p = &m->points[i];
        h = hash_bytes(h, &p->point, sizeof p->point);
        h = hash_bytes(h, &p->separation, sizeof p->separation);
        h = hash_bytes(h, &p->feature, sizeof p->feature);
    }
    return h;
}

// Pose of body c at frame f of the frame-coherent variant: linear and angular velocities drawn
// once per body (up to 0.5 m/s and 2 rad/s), frames centred on the cold pose.
typedef struct motion {
    tc_vec3 v, w;
} motion;

static motion random_motion(void) {
    motion m;
    m.v = urand_vec3(1);
    m.w = urand_vec3(4);
    return m;
}

static tc_transform pose_at(tc_transform p0, motion m, int frame, int frames) {
    double t = (frame - frames / 2) / 60.0, wl = tc_v3_len(m.w);
    tc_transform p = p0;
    p.p = tc_v3_madd(p0.p, t, m.v);
    if (wl > 0) p.q = tc_quat_normalize(tc_quat_mul(tc_quat_from_axis_angle(m.w, wl * t), p0.q));
    return p;
}

// Brute force (debug): the normal of the face of hull(A - B) where the line t (cA - cB) enters it.
static tc_vec3 brute_normal(const tc_shape* a, tc_transform pa, const tc_shape* b, tc_transform pb, double* tmin_out) {
    tc_vec3 d[256];
    int n = 0;
    for (int i = 0; i < a->hull->vertex_count; ++i)
        for (int j = 0; j < b->hull->vertex_count; ++j)
            d[n++] = tc_v3_sub(tc_transform_point(pa, a->hull->vertices[i]), tc_transform_point(pb, b->hull->vertices[j]));
    tc_hull* h = tc_hull_from_points(d, n, "D", NULL);
    tc_vec3 c = tc_v3_sub(tc_transform_point(pa, a->hull->centroid), tc_transform_point(pb, b->hull->centroid)), best = tc_v3_zero();
    double tmin = -1e300;
    for (int f = 0; h && f < h->face_count; ++f) {
        double nc = tc_v3_dot(h->face_normals[f], c);
        if (nc < 0 && h->face_offsets[f] / nc > tmin) tmin = h->face_offsets[f] / nc, best = h->face_normals[f];
    }
    *tmin_out = tmin;
    if (h) tc_hull_free(h);
    return best;
}

static bool same_keys(const tc_manifold* a, const tc_manifold* b) {
    if (a->count != b->count) return false;
    for (int i = 0; i < a->count; ++i)
        if (a->points[i].feature != b->points[i].feature) return false;
    return true;
}

// Frame-coherent variant: cold answers first (untimed) for the comparison, then timed warm runs.
static int run_frames(const tc_shape* shapes, const tc_transform* poses, int configs, int frames, int repeat) {
    motion* mo = malloc((size_t)configs * 2 * sizeof *mo);
    tc_transform* fp = malloc((size_t)configs * 2 * (size_t)frames * sizeof *fp);
    tc_manifold* prev = calloc((size_t)configs, sizeof *prev);
    if (!mo || !fp || !prev) return 1;
    for (int c = 0; c < 2 * configs; ++c) mo[c] = random_motion();
    for (int f = 0; f < frames; ++f)
        for (int c = 0; c < 2 * configs; ++c) fp[(size_t)f * 2 * configs + c] = pose_at(poses[c], mo[c], f, frames);
    int hits = 0, differ = 0, count_differ = 0, wrong_cold = 0, wrong_warm = 0;
    bool check = getenv("NP_CHECK") != NULL;
    double max_dn = 0, max_ds = 0;
    for (int f = 0; f < frames; ++f)
        for (int c = 0; c < configs; ++c) {
            const tc_transform* P = fp + (size_t)f * 2 * configs + 2 * c;
            tc_manifold cold, warm;
            tc_collide(&shapes[2 * c], P[0], &shapes[2 * c + 1], P[1], TC_CONTACT_GAUSS_MAP, 0, NULL, &cold);
            tc_collide(&shapes[2 * c], P[0], &shapes[2 * c + 1], P[1], TC_CONTACT_GAUSS_MAP, 0, f ? &prev[c] : NULL, &warm);
            hits += warm.count > 0;
            count_differ += cold.count != warm.count;
            differ += !same_keys(&cold, &warm);
            if (check && cold.count) { // against the brute-force normal (qhull of A - B)
                double tm;
                tc_vec3 bn = brute_normal(&shapes[2 * c], P[0], &shapes[2 * c + 1], P[1], &tm);
                wrong_cold += tm < 1 && tc_v3_len(tc_v3_sub(cold.normal, bn)) > 1e-6;
                wrong_warm += tm < 1 && warm.count && tc_v3_len(tc_v3_sub(warm.normal, bn)) > 1e-6;
            }
            if (cold.count && warm.count) max_dn = fmax(max_dn, tc_v3_len(tc_v3_sub(cold.normal, warm.normal)));
            for (int i = 0; cold.count == warm.count && i < cold.count; ++i)
                max_ds = fmax(max_ds, fabs(cold.points[i].separation - warm.points[i].separation));
            prev[c] = warm;
        }
    double t_cold = 0, t = 0, q = (double)repeat * frames * configs;
    long sink = 0;
    for (int warm = 0; warm < 2; ++warm) { // the same frames cold (no previous manifold), then warm
        double t0 = cpu_now();
        for (int r = 0; r < repeat; ++r)
            for (int f = 0; f < frames; ++f)
                for (int c = 0; c < configs; ++c) {
                    const tc_transform* P = fp + (size_t)f * 2 * configs + 2 * c;
                    tc_manifold m;
                    const tc_manifold* last = warm && f ? &prev[c] : NULL;
                    sink += tc_collide(&shapes[2 * c], P[0], &shapes[2 * c + 1], P[1], TC_CONTACT_GAUSS_MAP, 0, last, &m) > 0;
                    prev[c] = m;
                }
        *(warm ? &t : &t_cold) = cpu_now() - t0;
    }
    printf("narrowphase tactus, %d coherent frames, cold: %.3f s CPU, %.3f us/query\n", frames, t_cold, 1e6 * t_cold / q);
    if (check) printf("overlapping queries whose normal is not the brute-force one (1e-6): cold %d, warm %d\n", wrong_cold, wrong_warm);
    printf("narrowphase tactus, %d coherent frames, warm: %.3f s CPU, %.3f us/query, %d of %d queries touching; warm vs cold: %d differ "
           "in count, %d in feature keys, max |dn| %.2g, max |d separation| %.2g m\n",
           frames, t, 1e6 * t / q, hits, frames * configs, count_differ, differ, max_dn, max_ds);
    free(mo), free(fp), free(prev);
    return sink == 2L * hits * repeat ? 0 : 2;
}

int main(int argc, char** argv) {
    int configs = argc > 2 ? atoi(argv[2]) : 1000, repeat = argc > 1 ? atoi(argv[1]) : 100, npts = 16;
    if (configs < 1) configs = 1;
    if (repeat < 1) repeat = 1;
    tc_shape* shapes = calloc((size_t)configs * 2, sizeof *shapes);
    tc_transform* poses = calloc((size_t)configs * 2, sizeof *poses);
    if (!shapes || !poses) return 1;
    for (int b = 0; b < 1000; ++b) { // rigid_peers.c draws its convex rain first: skip those draws
        tc_vec3 skip[16];
        random_rock(skip, npts, 0.35);
        (void)urand(), (void)urand();
    }
    for (int c = 0; c < 2 * configs; ++c) { // the same draws, in the same order, as rigid_peers.c
        tc_vec3 v[16];
        random_rock(v, npts, 0.5);
        tc_shape_def d = tc_shape_def_default(TC_SHAPE_HULL);
        d.points = v;
        d.point_count = npts;
        tc_shape_init(&shapes[c], &d, false, "rock", NULL);
        poses[c] = tc_transform_identity();
        if (c & 1) poses[c].p = urand_offset();
        poses[c].q = urand_rotation();
    }
    int hits = 0, points = 0;
    uint64_t h = 0xCBF29CE484222325ull;
    FILE* dump = getenv("NP_DUMP") ? fopen(getenv("NP_DUMP"), "w") : NULL; // every manifold, for comparing versions
    for (int c = 0; c < configs; ++c) { // results, once, untimed
        tc_manifold m;
        memset(&m, 0, sizeof m);
        tc_collide(&shapes[2 * c], poses[2 * c], &shapes[2 * c + 1], poses[2 * c + 1], TC_CONTACT_GAUSS_MAP, 0, NULL, &m);
        hits += m.count > 0;
        points += m.count;
        if (getenv("NP_CHECK") && m.count) { // overlapping pairs against the brute-force normal
            double tm;
            tc_vec3 bn = brute_normal(&shapes[2 * c], poses[2 * c], &shapes[2 * c + 1], poses[2 * c + 1], &tm);
            if (tm < 1 && tc_v3_len(tc_v3_sub(m.normal, bn)) > 1e-6) printf("pair %d: normal off the brute-force one by %.3g\n", c, tc_v3_len(tc_v3_sub(m.normal, bn)));
        }
        h = hash_manifold(h, &m);
        if (dump) {
            fprintf(dump, "%d %d %.17g %.17g %.17g", c, m.count, m.normal.x, m.normal.y, m.normal.z);
            for (int i = 0; i < m.count; ++i)
                fprintf(dump, " %.17g %.17g %.17g %.17g %u", m.points[i].point.x, m.points[i].point.y, m.points[i].point.z,
                        m.points[i].separation, m.points[i].feature);
            fprintf(dump, "\n");
        }
    }
    if (dump) fclose(dump);
    if (getenv("NP_FRAMES")) {
        int frames = atoi(getenv("NP_FRAMES")), rc = run_frames(shapes, poses, configs, frames > 1 ? frames : 2, repeat);
        for (int c = 0; c < 2 * configs; ++c) tc_shape_free(&shapes[c]);
        free(shapes), free(poses);
        return rc;
    }
    long sink = 0, calls = 0;
    int inner = getenv("NP_INNER") ? atoi(getenv("NP_INNER")) : 1;
    if (inner < 1) inner = 1;
    tc_contact_method method = getenv("NP_TRACK") ? TC_CONTACT_TRACKING : TC_CONTACT_GAUSS_MAP;
    double t0 = cpu_now();
    for (int r = 0; r < repeat; r += inner)
        for (int c = 0; c < configs; ++c) for (int k = 0; k < inner; ++k) {
            tc_manifold m;
            sink += tc_collide(&shapes[2 * c], poses[2 * c], &shapes[2 * c + 1], poses[2 * c + 1], method, 0, NULL, &m) > 0;
            calls++;
        }
    double t = cpu_now() - t0;
    double q = (double)calls;
    printf("narrowphase tactus: %.3f s CPU, %.3f us/query, %d of %d pairs touching, %d points, hash %016llx\n", t, 1e6 * t / q, hits,
           configs, points, (unsigned long long)h);
    for (int c = 0; c < 2 * configs; ++c) tc_shape_free(&shapes[c]);
    free(shapes), free(poses);
    return method != TC_CONTACT_GAUSS_MAP || sink * configs == (long)hits * calls ? 0 : 2; // same answers every time
}
