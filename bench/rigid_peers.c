// Rigid benchmark, side by side in one run: the pyramid (Tactus, Bullet, ODE), convex rain
// (Tactus, Bullet) and a 100,000-query narrowphase workload (Tactus tc_collide vs libccd MPR).
// Same time step (1/60 s, 4 sub-steps), same iteration count, sleeping off everywhere; times are
// process CPU time.
// usage: rigid_peers_bench [--quick | --narrowphase] (--narrowphase: only the narrowphase rows)
#define _POSIX_C_SOURCE 200809L
#include "peers/peers.h"

#include "collision/collide.h"
#include "geometry/hull.h"
#include "bench_random.h"
#include "tactus/tactus.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// CPU time of the process: every engine here runs on one thread, and on a shared machine wall
// time also counts the time other processes held the core.
double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


static tc_world* tactus_world(int iterations) {
    tc_world_def d = tc_world_def_default();
    d.solver_iterations = iterations;
    d.enable_sleep = false;
    return tc_world_create(&d, NULL);
}

static void tactus_add(tc_world* w, tc_shape_def s, bool is_static, tc_vec3 p, tc_real mass) {
    tc_rigid_body_def d = tc_rigid_body_def_default();
    d.shapes = &s;
    d.shape_count = 1;
    d.is_static = is_static;
    d.mass = mass;
    d.base.pose.p = p;
    tc_body_id id;
    tc_rigid_body_create(w, &d, &id, NULL);
}

static peer_result tactus_run(tc_world* w, int steps, int settle) {
    int n = tc_world_get_body_count(w);
    tc_body_id* ids = malloc((size_t)n * sizeof *ids);
    tc_vec3* p0 = malloc((size_t)n * sizeof *p0);
    tc_world_get_bodies(w, ids, n);
    peer_result r = {0, 0, 0};
    double t0 = bench_now();
    for (int s = 0; s < steps; ++s) {
        if (s == settle) {
            for (int i = 0; i < n; ++i) p0[i] = tc_body_get_pose(w, ids[i]).p;
            t0 = bench_now();
        }
        tc_world_step(w, NULL);
    }
    r.seconds = bench_now() - t0;
    for (int i = 0; i < n; ++i) r.max_drift = fmax(r.max_drift, tc_v3_dist(p0[i], tc_body_get_pose(w, ids[i]).p));
    r.final_ke = tc_world_get_stats(w).kinetic_energy;
    free(ids);
    free(p0);
    return r;
}

static peer_result tactus_pyramid(int base, int steps, int settle, int iterations) {
    tc_world* w = tactus_world(iterations);
    tc_shape_def plane = tc_shape_def_default(TC_SHAPE_PLANE), box = tc_shape_def_default(TC_SHAPE_BOX);
    box.half_extents = tc_v3(0.5, 0.5, 0.5);
    tactus_add(w, plane, true, tc_v3_zero(), 0);
    for (int row = 0; row < base; ++row)
        for (int i = 0; i < base - row; ++i) tactus_add(w, box, false, tc_v3((i - 0.5 * (base - row - 1)), 0, 0.5 + row), 1000);
    peer_result r = tactus_run(w, steps, settle);
    tc_world_destroy(w);
    return r;
}

static peer_result tactus_convex_rain(const double* pts, int npts, const double* centers, int count, int steps, int iterations) {
    tc_world* w = tactus_world(iterations);
    tc_shape_def plane = tc_shape_def_default(TC_SHAPE_PLANE), box = tc_shape_def_default(TC_SHAPE_BOX);
    tactus_add(w, plane, true, tc_v3_zero(), 0);
    const double walls[4][6] = {{-6.5, 0, 3, 0.5, 7, 3}, {6.5, 0, 3, 0.5, 7, 3}, {0, -6.5, 3, 6, 0.5, 3}, {0, 6.5, 3, 6, 0.5, 3}};
    for (int k = 0; k < 4; ++k) {
        box.half_extents = tc_v3(walls[k][3], walls[k][4], walls[k][5]);
        tactus_add(w, box, true, tc_v3(walls[k][0], walls[k][1], walls[k][2]), 0);
    }
    tc_vec3* p = malloc((size_t)npts * sizeof *p);
    for (int b = 0; b < count; ++b) {
        for (int k = 0; k < npts; ++k) p[k] = tc_v3(pts[3 * (b * npts + k)], pts[3 * (b * npts + k) + 1], pts[3 * (b * npts + k) + 2]);
        tc_shape_def hull = tc_shape_def_default(TC_SHAPE_HULL);
        hull.points = p;
        hull.point_count = npts;
        tactus_add(w, hull, false, tc_v3(centers[3 * b], centers[3 * b + 1], centers[3 * b + 2]), 100);
    }
    free(p);
    peer_result r = tactus_run(w, steps, 0);
    tc_world_destroy(w);
    return r;
}

static void random_rock(double* out, int npts, double radius) {
    for (int i = 0; i < npts; ++i) {
        double u = 2 * urand() - 1, phi = 2 * TC_PI * urand(), s = sqrt(1 - u * u), r = radius * (0.5 + 0.5 * urand());
        out[3 * i] = r * s * cos(phi), out[3 * i + 1] = r * s * sin(phi), out[3 * i + 2] = r * u;
    }
}

static void print_row(const char* scene, const char* engine, peer_result r, int steps, double tactus_seconds) {
    printf("%-12s %-13s %10.3f %12.3f %12.4f %12.3g %8.2f\n", scene, engine, r.seconds, 1e3 * r.seconds / steps, r.max_drift,
           r.final_ke, r.seconds / tactus_seconds);
}

static void bench_pyramid(int steps) {
    int settle = 60, iterations = 4;
    peer_result t = tactus_pyramid(20, steps, settle, iterations);
    peer_result b = bullet_pyramid(20, steps, settle, iterations);
    peer_result o = ode_pyramid(20, steps, settle, iterations);
    print_row("pyramid", "tactus", t, steps - settle, t.seconds);
    print_row("pyramid", "bullet", b, steps - settle, t.seconds);
    print_row("pyramid", "ode", o, steps - settle, t.seconds);
}

static void bench_convex_rain(int count, int steps) {
    int npts = 16;
    double* pts = malloc((size_t)count * npts * 3 * sizeof *pts);
    double* centers = malloc((size_t)count * 3 * sizeof *centers);
    for (int b = 0; b < count; ++b) {
        random_rock(pts + 3 * npts * b, npts, 0.35);
        // a lattice with jitter: no initial overlaps in any engine
        int i = b % 14, j = (b / 14) % 14, k = b / 196;
        centers[3 * b] = -5.2 + 0.8 * i + 0.05 * urand(), centers[3 * b + 1] = -5.2 + 0.8 * j + 0.05 * urand();
        centers[3 * b + 2] = 1 + 0.8 * k;
    }
    peer_result t = tactus_convex_rain(pts, npts, centers, count, steps, 4);
    peer_result b = bullet_convex_rain(pts, npts, centers, count, steps, 4);
    print_row("convex_rain", "tactus", t, steps, t.seconds);
    print_row("convex_rain", "bullet", b, steps, t.seconds);
    free(pts);
    free(centers);
}

// A pose as libccd_pose gets it: position, then the quaternion {x,y,z,w}.
static void pack_pose(double* out, tc_transform t) {
    out[0] = t.p.x, out[1] = t.p.y, out[2] = t.p.z, out[3] = t.q.x, out[4] = t.q.y, out[5] = t.q.z, out[6] = t.q.w;
}

// The hull's vertices in body space, padded to npts with vertex 0 (the placed rows use the same).
static void pack_body_points(double* dst, const tc_hull* h, int npts) {
    for (int k = 0; k < npts; ++k) {
        tc_vec3 x = h->vertices[k < h->vertex_count ? k : 0];
        dst[3 * k] = x.x, dst[3 * k + 1] = x.y, dst[3 * k + 2] = x.z;
    }
}

// The libccd rows must find the pairs Tactus finds: otherwise the timings compare different work.
static void check_hits(const char* what, int tactus, int placed, int posed) {
    if (tactus == placed && placed == posed) return;
    fprintf(stderr, "%s: touching counts differ (tactus %d, libccd_placed %d, libccd_pose %d)\n", what, tactus, placed, posed);
    exit(1);
}

static void print_np_row(const char* scene, const char* engine, double sec, int q, double tactus_sec, const char* note, int hits) {
    printf("%-12s %-13s %10.3f %12.3f %12s %12s %8.2f   (%s%d of %d touching; queries/s %.3g)\n", scene, engine, sec, 1e6 * sec / q,
           "-", "-", sec / tactus_sec, note, hits, q, q / sec);
}

// The frame-coherent variant: every body of the narrowphase pairs moves for `frames` frames of
// 1/60 s (linear and angular velocities up to 0.5 m/s and 2 rad/s, drawn once, frames centred on
// the cold pose); Tactus warm-starts each query from the pair's previous manifold (what the world's
// pair cache holds), libccd has no such state. Both engines see the same frames.
static void bench_narrowphase_frames(const tc_shape* shapes, const tc_transform* poses, int configs, int frames, int repeat) {
    int npts = 16;
    size_t per_frame = (size_t)configs * npts * 3;
    double* wa = malloc(per_frame * (size_t)frames * sizeof *wa);
    double* wb = malloc(per_frame * (size_t)frames * sizeof *wb);
    tc_transform* fp = malloc((size_t)configs * 2 * (size_t)frames * sizeof *fp);
    tc_manifold* prev = calloc((size_t)configs, sizeof *prev);
    tc_vec3* vel = malloc((size_t)configs * 4 * sizeof *vel);
    double* ba = malloc((size_t)configs * npts * 3 * sizeof *ba);
    double* bb = malloc((size_t)configs * npts * 3 * sizeof *bb);
    double* pose = malloc((size_t)configs * 2 * (size_t)frames * 7 * sizeof *pose);
    for (int c = 0; c < 2 * configs; ++c) pack_body_points(((c & 1) ? bb : ba) + 3 * npts * (c / 2), shapes[c].hull, npts);
    for (int c = 0; c < 2 * configs; ++c) {
        vel[2 * c] = urand_vec3(1);
        vel[2 * c + 1] = urand_vec3(4);
    }
    for (int f = 0; f < frames; ++f)
        for (int c = 0; c < 2 * configs; ++c) {
            double t = (f - frames / 2) / 60.0, wl = tc_v3_len(vel[2 * c + 1]);
            tc_transform p = poses[c];
            p.p = tc_v3_madd(p.p, t, vel[2 * c]);
            if (wl > 0) p.q = tc_quat_normalize(tc_quat_mul(tc_quat_from_axis_angle(vel[2 * c + 1], wl * t), poses[c].q));
            fp[(size_t)f * 2 * configs + c] = p;
            // libccd_pose: A poses then B poses of frame f
            pack_pose(pose + 7 * ((size_t)f * 2 * configs + (size_t)(c & 1) * configs + (size_t)(c / 2)), p);
            const tc_hull* h = shapes[c].hull;
            double* dst = ((c & 1) ? wb : wa) + per_frame * f + 3 * npts * (c / 2);
            for (int k = 0; k < npts; ++k) {
                tc_vec3 x = tc_transform_point(p, h->vertices[k < h->vertex_count ? k : 0]);
                dst[3 * k] = x.x, dst[3 * k + 1] = x.y, dst[3 * k + 2] = x.z;
            }
        }
    int hits_t = 0, hits_c = 0, hits_p = 0;
    double t0 = bench_now();
    for (int r = 0; r < repeat; ++r)
        for (int f = 0; f < frames; ++f)
            for (int c = 0; c < configs; ++c) {
                const tc_transform* P = fp + (size_t)f * 2 * configs + 2 * c;
                tc_manifold m;
                hits_t += tc_collide(&shapes[2 * c], P[0], &shapes[2 * c + 1], P[1], TC_CONTACT_GAUSS_MAP, 0, f ? &prev[c] : NULL, &m) > 0;
                prev[c] = m;
            }
    double tt = bench_now() - t0, tc = 0, tp = 0;
    for (int r = 0; r < repeat; ++r)
        for (int f = 0; f < frames; ++f) {
            double sec;
            hits_c += ccd_mpr_queries(wa + per_frame * f, wb + per_frame * f, configs, npts, &sec);
            tc += sec;
            const double* pf = pose + 7 * (size_t)f * 2 * configs;
            hits_p += ccd_mpr_queries_posed(ba, bb, pf, pf + 7 * (size_t)configs, configs, npts, &sec);
            tp += sec;
        }
    check_hits("np_frames", hits_t, hits_c, hits_p);
    int q = configs * frames * repeat;
    char note[64];
    snprintf(note, sizeof note, "%d frames, warm-started; ", frames);
    print_np_row("np_frames", "tactus", tt, q, tt, note, hits_t);
    snprintf(note, sizeof note, "%d frames; ", frames);
    print_np_row("np_frames", "libccd_placed", tc, q, tt, note, hits_c);
    print_np_row("np_frames", "libccd_pose", tp, q, tt, note, hits_p);
    free(wa), free(wb), free(fp), free(prev), free(vel), free(ba), free(bb), free(pose);
}

// 1000 random overlapping or nearly touching hull pairs, each queried `repeat` times.
static void bench_narrowphase(int configs, int repeat) {
    int npts = 16;
    tc_shape* shapes = malloc((size_t)configs * 2 * sizeof *shapes);
    tc_transform* poses = malloc((size_t)configs * 2 * sizeof *poses);
    double* wa = malloc((size_t)configs * npts * 3 * sizeof *wa);
    double* wb = malloc((size_t)configs * npts * 3 * sizeof *wb);
    int* counts = malloc((size_t)configs * 2 * sizeof *counts);
    double* ba = malloc((size_t)configs * npts * 3 * sizeof *ba);
    double* bb = malloc((size_t)configs * npts * 3 * sizeof *bb);
    double* pose = malloc((size_t)configs * 2 * 7 * sizeof *pose); // A poses, then B poses
    for (int c = 0; c < 2 * configs; ++c) {
        double p[48];
        random_rock(p, npts, 0.5);
        tc_vec3 v[16];
        for (int k = 0; k < npts; ++k) v[k] = tc_v3(p[3 * k], p[3 * k + 1], p[3 * k + 2]);
        tc_shape_def d = tc_shape_def_default(TC_SHAPE_HULL);
        d.points = v;
        d.point_count = npts;
        tc_shape_init(&shapes[c], &d, false, "rock", NULL);
        poses[c] = tc_transform_identity();
        if (c & 1) poses[c].p = urand_offset();
        poses[c].q = urand_rotation();
        double* dst = (c & 1) ? wb + 3 * npts * (c / 2) : wa + 3 * npts * (c / 2);
        const tc_hull* h = shapes[c].hull; // libccd sees the hull's vertices placed in the world
        counts[c] = h->vertex_count;
        pack_body_points(((c & 1) ? bb : ba) + 3 * npts * (c / 2), h, npts); // libccd_pose: body space + pose
        pack_pose(pose + 7 * ((size_t)(c & 1) * configs + (size_t)(c / 2)), poses[c]);
        for (int k = 0; k < npts; ++k) {
            tc_vec3 x = tc_transform_point(poses[c], h->vertices[k < h->vertex_count ? k : 0]);
            dst[3 * k] = x.x, dst[3 * k + 1] = x.y, dst[3 * k + 2] = x.z;
        }
    }
    int hits_t = 0, hits_c = 0;
    double t0 = bench_now();
    for (int r = 0; r < repeat; ++r)
        for (int c = 0; c < configs; ++c) {
            tc_manifold m;
            hits_t += tc_collide(&shapes[2 * c], poses[2 * c], &shapes[2 * c + 1], poses[2 * c + 1], TC_CONTACT_GAUSS_MAP, 0, NULL, &m) > 0;
        }
    double tt = bench_now() - t0, tc = 0, tp = 0;
    int hits_p = 0;
    for (int r = 0; r < repeat; ++r) {
        double s;
        hits_c += ccd_mpr_queries(wa, wb, configs, npts, &s);
        tc += s;
        hits_p += ccd_mpr_queries_posed(ba, bb, pose, pose + 7 * (size_t)configs, configs, npts, &s);
        tp += s;
    }
    check_hits("narrowphase", hits_t, hits_c, hits_p);
    int q = configs * repeat;
    print_np_row("narrowphase", "tactus", tt, q, tt, "", hits_t);
    print_np_row("narrowphase", "libccd_placed", tc, q, tt, "", hits_c);
    print_np_row("narrowphase", "libccd_pose", tp, q, tt, "", hits_p);
    bench_narrowphase_frames(shapes, poses, configs, 20, repeat / 20 > 0 ? repeat / 20 : 1);
    for (int c = 0; c < 2 * configs; ++c) tc_shape_free(&shapes[c]);
    free(shapes), free(poses), free(wa), free(wb), free(counts), free(ba), free(bb), free(pose);
}

int main(int argc, char** argv) {
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0, np_only = argc > 1 && strcmp(argv[1], "--narrowphase") == 0;
    printf("Tactus rigid benchmark: 1/60 s steps, 4 sub-steps, 4 iterations, sleeping off\n");
    printf("%-12s %-13s %10s %12s %12s %12s %8s\n", "scene", "engine", "seconds", "ms/step", "max drift m", "final KE J", "ratio");
    if (!np_only) bench_pyramid(quick ? 120 : 660);
    if (!np_only) bench_convex_rain(1000, quick ? 60 : 240);
    for (int b = 0; np_only && b < 1000; ++b) { // the rain's draws, so the narrowphase pairs are the same
        double skip[48];
        random_rock(skip, 16, 0.35);
        (void)urand(), (void)urand();
    }
    printf("%-12s %-13s %10s %12s\n", "", "", "seconds", "us/query");
    bench_narrowphase(1000, quick ? 10 : 100);
    printf("ratio = engine time / Tactus time (> 1: Tactus is faster)\n");
    return 0;
}
