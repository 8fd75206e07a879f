// Quasi-rigid contact resolution time against the number of active nodes and hierarchy levels:
// a Fibonacci-sampled elastic sphere pressed into a rigid plane (ALGORITHMS.md §9, seed 002).
// Usage: quasi_bench [repeats] [auto|lemke|pk|mprgp] [sphere|ellipsoid] [overlap mm, sample level only].
//        Prints a Markdown table
//        (one core, wall time
//        per contact solve, best of `repeats`) for the LCP method given. The ellipsoid (semi-axes
//        0.14, 0.1, 0.07 m, the same 40,000 mapped samples with their exact unequal areas) takes
//        the non-symmetric path; (default auto: Polonsky–Keer
//        CG above 48 nodes, split for the unequal cluster areas of coarse cuts; Lemke below).
//        quasi_bench --traction-map out.csv: runs the qr_press set-up (a soft ellipsoid settling on
//        the ground under gravity) and writes x,y,z,traction per sample for tools/quasi/traction_map.py.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "contact/quasi_contact.h"
#include "tactus/tactus.h"

static tc_real ground_sdf(const void* user, tc_vec3 p, tc_vec3* normal) {
    (void)user;
    *normal = tc_v3(0, 0, 1);
    return p.z;
}

static int traction_map(const char* path) {
    tc_world_def wd = tc_world_def_default();
    wd.enable_sleep = false;
    tc_world* w = tc_world_create(&wd, NULL);
    tc_shape_def sd = tc_shape_def_default(TC_SHAPE_PLANE);
    tc_rigid_body_def rd = tc_rigid_body_def_default();
    rd.is_static = true;
    rd.shapes = &sd;
    rd.shape_count = 1;
    tc_body_id ground, body;
    tc_error err;
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.shape = TC_QUASI_ELLIPSOID;
    d.half_extents = tc_v3(0.12, 0.05, 0.04);
    d.sample_count = 12000;
    d.shear_modulus = 1e5;
    d.layer_damping = 2e5;
    d.base.pose.p = tc_v3(0, 0, 0.04);
    if (tc_rigid_body_create(w, &rd, &ground, &err) != TC_RESULT_OK || tc_quasi_body_create(w, &d, &body, &err) != TC_RESULT_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    for (int i = 0; i < 120; ++i)
        if (tc_world_step(w, &err) != TC_RESULT_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
    int n = tc_quasi_body_get_sample_count(w, body);
    tc_vec3* p = malloc((size_t)n * sizeof(tc_vec3));
    tc_real* t = malloc((size_t)n * sizeof(tc_real));
    tc_quasi_body_get_samples(w, body, p, NULL, n);
    tc_quasi_body_get_tractions(w, body, t, NULL, n);
    tc_vec3 F;
    tc_quasi_body_get_contact_wrench(w, body, &F, NULL);
    FILE* f = fopen(path, "w");
    if (!f) return 1;
    fprintf(f, "x,y,z,traction\n");
    for (int i = 0; i < n; ++i) fprintf(f, "%.6g,%.6g,%.6g,%.6g\n", p[i].x, p[i].y, p[i].z, t[i]);
    fclose(f);
    printf("qr_press: load %.3f N, total contact force %.3f N, %d samples written to %s\n", tc_body_get_mass(w, body) * 9.81, F.z, n,
           path);
    free(p);
    free(t);
    tc_world_destroy(w);
    return 0;
}

int main(int argc, char** argv) {
    if (argc > 2 && strcmp(argv[1], "--traction-map") == 0) return traction_map(argv[2]);
    int repeats = argc > 1 ? atoi(argv[1]) : 5;
    const char* names[4] = {"auto", "lemke", "pk", "mprgp"};
    tc_lcp_method method = TC_LCP_AUTO;
    for (int m = 0; argc > 2 && m < 4; ++m)
        if (strcmp(argv[2], names[m]) == 0) method = (tc_lcp_method)m;
    bool ellipsoid = argc > 3 && strcmp(argv[3], "ellipsoid") == 0;
    double only_mm = argc > 4 ? atof(argv[4]) : 0; // one overlap, the 0->0 row only (for profiling)
    if (repeats < 1 || (argc > 2 && strcmp(argv[2], names[method]) != 0) ||
        (argc > 3 && !ellipsoid && strcmp(argv[3], "sphere") != 0) || (argc > 4 && !(only_mm > 0))) {
        fprintf(stderr, "usage: quasi_bench [repeats >= 1] [auto|lemke|pk|mprgp] [sphere|ellipsoid] [overlap mm > 0]\n");
        return 2;
    }
    enum { N = 40000 };
    tc_real R = 0.1;
    tc_vec3 axes = ellipsoid ? tc_v3(0.14, 0.1, 0.07) : tc_v3(R, R, R);
    tc_vec3* pts = malloc(N * sizeof(tc_vec3));
    tc_vec3* nrm = malloc(N * sizeof(tc_vec3));
    tc_real* areas = malloc(N * sizeof(tc_real));
    const tc_real golden = TC_PI * (3 - sqrt(5.0));
    for (int i = 0; i < N; ++i) {
        tc_real z = 1 - (2 * i + 1.0) / N, r = sqrt(1 - z * z), phi = golden * i;
        tc_vec3 u = tc_v3(r * cos(phi), r * sin(phi), z); // on the unit sphere, mapped to the axes
        pts[i] = tc_v3(axes.x * u.x, axes.y * u.y, axes.z * u.z);
        nrm[i] = tc_v3_normalize(tc_v3(u.x / axes.x, u.y / axes.y, u.z / axes.z));
        // the map's area Jacobian: abc · |(u_x/a, u_y/b, u_z/c)|
        tc_real jac = tc_v3_len(tc_v3(u.x / axes.x, u.y / axes.y, u.z / axes.z)) * axes.x * axes.y * axes.z;
        areas[i] = 4 * TC_PI / N * jac;
    }
    tc_pointset cloud;
    tc_sphere_tree tree;
    if (tc_pointset_init(&cloud, pts, nrm, N, 0, "bench", NULL) != TC_RESULT_OK || !tc_sphere_tree_build(&tree, pts, N, 8)) return 1;
    tc_response_params resp = {TC_RESPONSE_BOUSSINESQ, 1e6, 0.3, 0};
    printf("| overlap (mm) | levels (coarse->fine) | LCP nodes (fine) | pivots | CG steps | load (N) | time per contact (ms) |\n");
    printf("|---|---|---|---|---|---|---|\n");
    tc_real depths[6] = {0.4e-3, 1e-3, 2e-3, 2.5e-3, 3e-3, 4e-3}; // 2.5 mm: the ellipsoid at ≈ 1,000 nodes
    int levels[4][2] = {{0, 0}, {2, 0}, {1, 1}, {2, 2}};
    int depth_count = 6, level_count = 4;
    if (only_mm > 0) depths[0] = only_mm * 1e-3, depth_count = 1, level_count = 1;
    tc_quasi_patch pt = {0};
    pt.solver = method;
    for (int di = 0; di < depth_count; ++di)
        for (int li = 0; li < level_count; ++li) {
            tc_quasi_surface s = {&cloud, &tree, areas, {{0, 0, axes.z - depths[di]}, {0, 0, 0, 1}}, resp};
            tc_quasi_contact_params params = {levels[li][0], levels[li][1], 1e-6, 3};
            double best = 1e30;
            tc_result r = TC_RESULT_OK;
            for (int k = 0; k < repeats; ++k) {
                double t0 = tc_wall_time();
                r = tc_quasi_collide(&s, NULL, ground_sdf, NULL, &params, &pt);
                best = fmin(best, tc_wall_time() - t0);
            }
            tc_real load = 0;
            for (int i = 0; i < pt.nodes.count; ++i) load += pt.pressure.data[i] * pt.area.data[i];
            printf("| %.1f | %d->%d | %d | %d | %d | %.1f | %.2f%s |\n", depths[di] * 1e3, levels[li][0], levels[li][1],
                   pt.nodes.count, pt.pivots, pt.lcp_iterations, load, best * 1e3, r == TC_RESULT_OK ? "" : " (failed)");
            fflush(stdout);
        }
    tc_quasi_patch_free(&pt);
    tc_sphere_tree_destroy(&tree);
    tc_pointset_destroy(&cloud);
    free(pts);
    free(nrm);
    free(areas);
    return 0;
}
