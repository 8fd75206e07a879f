// tactus validate / tactus info.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_util.h"
#include "commands.h"
#include "tactus/tactus.h"

static tc_scene* load_or_report(const char* path) {
    tc_error error;
    tc_scene* scene = tc_scene_load(path, &error);
    if (!scene) fprintf(stderr, "%s\n", error.message);
    return scene;
}

int tactus_cmd_validate(int argc, char** argv) {
    if (argc == 2 && cli_is_help(argv[1])) {
        printf("usage: tactus validate SCENE\n\nLoads SCENE (creating its world) without stepping it. Prints OK or the\n"
               "error as file: path.to.field: problem. Exit status 0 when valid, 1 otherwise.\n");
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: tactus validate SCENE\n");
        return 2;
    }
    tc_scene* scene = load_or_report(argv[1]);
    if (!scene) return 1;
    printf("%s: OK (%d bodies)\n", argv[1], tc_world_get_body_count(tc_scene_world(scene)));
    tc_scene_destroy(scene);
    return 0;
}

static const char* kind_name(tc_body_kind k) {
    static const char* const names[] = {"static", "rigid", "quasi", "tet", "points", "springs"};
    return (unsigned)k < TC_BODY_KIND_COUNT ? names[k] : "?";
}

int tactus_cmd_info(int argc, char** argv) {
    if (argc == 2 && cli_is_help(argv[1])) {
        printf("usage: tactus info SCENE\n\nPrints the scene's world settings, every body (kind, name, mass, position)\n"
               "and totals per kind.\n");
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: tactus info SCENE\n");
        return 2;
    }
    tc_scene* scene = load_or_report(argv[1]);
    if (!scene) return 1;
    tc_world* world = tc_scene_world(scene);
    tc_world_def def = tc_world_get_def(world);
    tc_scene_run run = tc_scene_run_settings(scene);
    printf("scene     %s  %s\n", argv[1], tc_scene_name(scene));
    if (tc_scene_description(scene)[0]) printf("          %s\n", tc_scene_description(scene));
    printf("world     dt %.6g s, %d sub-steps, %d iterations, gravity (%g, %g, %g)\n", def.time_step, def.sub_steps,
           def.solver_iterations, def.gravity.x, def.gravity.y, def.gravity.z);
    printf("run       %.6g s, a frame every %d steps\n\n", run.time, run.every);
    int n = tc_world_get_body_count(world);
    tc_body_id* ids = malloc(sizeof(tc_body_id) * (size_t)(n > 0 ? n : 1));
    tc_world_get_bodies(world, ids, n);
    int count[TC_BODY_KIND_COUNT] = {0};
    double mass[TC_BODY_KIND_COUNT] = {0};
    printf("%-8s %-24s %12s   %s\n", "kind", "name", "mass (kg)", "position (m)");
    for (int i = 0; i < n; ++i) {
        tc_body_kind k = tc_body_get_kind(world, ids[i]);
        tc_real m = tc_body_get_mass(world, ids[i]);
        tc_vec3 p = tc_body_get_pose(world, ids[i]).p;
        count[k]++;
        mass[k] += m;
        if (n <= 200 || i < 100)
            printf("%-8s %-24s %12.6g   (%g, %g, %g)\n", kind_name(k), tc_body_get_name(world, ids[i]), m, p.x, p.y, p.z);
    }
    if (n > 200) printf("... (%d more)\n", n - 100);
    printf("\ntotals\n");
    double total = 0;
    for (int k = 0; k < TC_BODY_KIND_COUNT; ++k) {
        if (count[k]) printf("  %-8s %6d bodies %14.6g kg\n", kind_name((tc_body_kind)k), count[k], mass[k]);
        total += mass[k];
    }
    printf("  %-8s %6d bodies %14.6g kg\n", "all", n, total);
    free(ids);
    tc_scene_destroy(scene);
    return 0;
}
