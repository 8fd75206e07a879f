// Narrowphase only: the workload of rigid_peers' bench_narrowphase (1000 random overlapping or
// nearly touching 16-point hull pairs, full Gauss-map contact generation with tc_collide), without
// the peers, so a profiler sees nothing else. Usage: narrowphase_bench [repeats [pairs]] (defaults
// 100 and 1000). Prints CPU time, us/query, the touching count and a hash of the manifolds (to spot
// changed results). Environment: NP_DUMP=file writes every manifold (%.17g) for comparing versions;
// NP_TRACK=1 times the tracking method (the contact normal without the features); NP_INNER=k
// repeats each pair k times in a row (warm caches and branch predictors).
#include "collision/collide.h"
#include "geometry/hull.h"
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

static uint64_t s_rng = 0x9E3779B97F4A7C15ull;
static double urand(void) { // splitmix64, as in rigid_peers.c
    uint64_t z = (s_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
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
        if (c & 1) poses[c].p = tc_v3(0.3 + 0.6 * urand(), 0.4 * urand() - 0.2, 0.4 * urand() - 0.2);
        poses[c].q = tc_quat_normalize(tc_quat_make(urand() - 0.5, urand() - 0.5, urand() - 0.5, urand() - 0.5));
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
