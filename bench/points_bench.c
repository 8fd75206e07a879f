// Point-based contact benchmark: two spheres of ~10,000 surfels and ~400 phyxels each,
// overlapping by a growing depth; time of the contact handling of one sub-step (contact
// surface + forces + distribution, i.e. the points collide hook) against the number of
// colliding surfels. Writes CSV to stdout (or to argv[1]): time_ms the least of 41 calls,
// median_ms their median; one core.
// `points_bench --once MM`: one collide hook call at an overlap of MM millimetres (for
// callgrind instruction counts; it prints a hash of the phyxel forces, to compare builds); `--points MM`: the contact points and normals there (%.17g,
// to compare two builds' contact surfaces); `--time MM N`: the least and the median time of N
// hook calls at MM mm (to compare two builds, run alternately, on a shared machine).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "tactus/tactus.h"
#include "contact/surfel_contact.h"
#include "dynamics/points/points.h"

static tc_world* make_pair(tc_real overlap, tc_error* e) {
    tc_world_def wd = tc_world_def_default();
    wd.gravity = tc_v3_zero();
    tc_world* w = tc_world_create(&wd, e);
    tc_real R = 0.1;
    for (int i = 0; i < 2; ++i) {
        tc_points_body_def d = tc_points_body_def_default();
        d.shape = TC_POINTS_SPHERE;
        d.radius = R;
        d.phyxel_spacing = 0.022;                       // ~400 phyxels
        d.surfel_spacing = sqrt(4 * TC_PI * R * R / 1e4); // 10,000 surfels
        d.base.pose.p = tc_v3(i * (2 * R - overlap), 0, 0);
        tc_body_id id;
        if (tc_points_body_create(w, &d, &id, e) != TC_RESULT_OK) return NULL;
    }
    return w;
}

static void sort_times(double* t, int n) { // insertion sort: a few hundred values
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && t[j] < t[j - 1]; --j) { double v = t[j]; t[j] = t[j - 1]; t[j - 1] = v; }
}

// One overlap only: a single hook call, or the contact surface printed.
static int run_one(const char* mode, const char* mm, int reps) {
    char* end;
    double overlap = strtod(mm, &end) * 1e-3;
    if (end == mm || *end || !(overlap > 0 && overlap < 0.2)) {
        fprintf(stderr, "points_bench: %s needs an overlap in mm (0-200), got '%s'\n", mode, mm);
        return 2;
    }
    tc_error e;
    tc_world* w = make_pair(overlap, &e);
    if (!w) { fprintf(stderr, "%s\n", e.message); return 1; }
    tc_points_store* s = tc_points_store_of(w);
    tc_points_body *A = s->bodies.data[0], *B = s->bodies.data[1];
    if (reps > 0) {
        double t[1000];
        tc_surfel_contact_collide(w, 1.0 / 240); // (the first call's faults: the caches' first allocations)
        struct rusage before, after;
        getrusage(RUSAGE_SELF, &before);
        for (int r = 0; r < reps; ++r) {
            double t0 = tc_wall_time();
            tc_surfel_contact_collide(w, 1.0 / 240);
            t[r] = tc_wall_time() - t0;
        }
        getrusage(RUSAGE_SELF, &after);
        sort_times(t, reps);
        // Page faults per call: a large scratch array that glibc maps afresh (or trims off the heap's
        // top and grows back) each call faults its pages in again, ~2-3 us each in a VM: an
        // allocation pattern can cost more than the work (150 a call made one variant 12% slower).
        printf("%s mm: min %.3f ms, median %.3f ms (%d calls; %.1f page faults a call)\n", mm, t[0] * 1e3, t[reps / 2] * 1e3, reps,
               (double)(after.ru_minflt - before.ru_minflt + after.ru_majflt - before.ru_majflt) / reps);
    } else if (strcmp(mode, "--once") == 0) {
        tc_surfel_contact_collide(w, 1.0 / 240);
        uint64_t hash = tc_hash_bytes(TC_HASH_SEED, A->f_ext, (size_t)A->np * sizeof(tc_vec3));
        hash = tc_hash_bytes(hash, B->f_ext, (size_t)B->np * sizeof(tc_vec3));
        printf("contact samples: %d, phyxel forces hash %016llx\n", A->contact_points.count, (unsigned long long)hash);
    } else {
        tc_surfel_contact c = {0};
        tc_surfel_contact_params p = tc_surfel_contact_params_for(w, A, B, 1.0 / 240);
        int samples = tc_surfel_contact_surface(A, B, &p, &c);
        printf("# colliding %d + %d, samples %d\n", c.colliding_a, c.colliding_b, samples);
        for (int i = 0; i < samples; ++i) {
            tc_vec3 x = c.points.data[i], n = c.normals.data[i];
            printf("%.17g %.17g %.17g %.17g %.17g %.17g\n", x.x, x.y, x.z, n.x, n.y, n.z);
        }
        tc_surfel_contact_free(&c);
    }
    tc_world_destroy(w);
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && (strcmp(argv[1], "--once") == 0 || strcmp(argv[1], "--points") == 0)) return run_one(argv[1], argv[2], 0);
    if (argc == 4 && strcmp(argv[1], "--time") == 0) {
        int reps = atoi(argv[3]);
        if (reps < 1 || reps > 1000) {
            fprintf(stderr, "points_bench: --time needs a call count of 1-1000, got '%s'\n", argv[3]);
            return 2;
        }
        return run_one(argv[1], argv[2], reps);
    }
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) { // an option is never an output file
        fprintf(stderr, "usage: points_bench [OUT.csv]   (CSV to stdout without OUT.csv)\n"
                        "       points_bench --once MM | --points MM   (one hook call / the contact points at MM mm)\n"
                        "       points_bench --time MM N   (least and median time of N hook calls at MM mm)\n");
        return argc == 2 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    FILE* out = argc > 1 ? fopen(argv[1], "w") : stdout;
    if (!out) {
        fprintf(stderr, "points_bench: cannot write %s\n", argv[1]);
        return 1;
    }
    fprintf(out, "overlap_m,colliding_surfels,contact_samples,time_ms,median_ms\n");
    const tc_real overlaps[] = {0.001, 0.002, 0.004, 0.006, 0.009, 0.012, 0.016, 0.02, 0.025, 0.03, 0.04};
    for (size_t k = 0; k < sizeof overlaps / sizeof overlaps[0]; ++k) {
        tc_error e;
        tc_world* w = make_pair(overlaps[k], &e);
        if (!w) { fprintf(stderr, "%s\n", e.message); return 1; }
        tc_points_store* s = tc_points_store_of(w);
        tc_points_body *A = s->bodies.data[0], *B = s->bodies.data[1];
        if (k == 0) fprintf(stderr, "bodies: %d phyxels, %d surfels each\n", A->np, A->ns);
        tc_surfel_contact c = {0};
        tc_surfel_contact_params p = tc_surfel_contact_params_for(w, A, B, 1.0 / 240);
        int samples = tc_surfel_contact_surface(A, B, &p, &c);
        int colliding = c.colliding_a + c.colliding_b;
        tc_surfel_contact_free(&c);
        // The least and the median of REPS repetitions of the whole collide hook (what a sub-step
        // pays). On a shared VM a few calls in a row can all run ~1.5x slow (a neighbour's load):
        // 7 calls left whole rows of the table slow; 41 take ~1 s in all.
        enum { REPS = 41 };
        double t[REPS];
        for (int r = 0; r < REPS; ++r) {
            double t0 = tc_wall_time();
            tc_surfel_contact_collide(w, 1.0 / 240);
            t[r] = tc_wall_time() - t0;
        }
        sort_times(t, REPS);
        fprintf(out, "%.4f,%d,%d,%.3f,%.3f\n", overlaps[k], colliding, samples, t[0] * 1e3, t[REPS / 2] * 1e3);
        tc_world_destroy(w);
    }
    if (out != stdout) fclose(out);
    return 0;
}
