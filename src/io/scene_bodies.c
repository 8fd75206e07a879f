// The body-type registry of the scene loader and helpers shared by body parsers.
// A new body kind adds ONE line to tc_scene_body_parsers (see scene_internal.h).
#include "io/scene_internal.h"

#include <stdio.h>
#include <string.h>

const tc_scene_body_parser tc_scene_body_parsers[] = {
    {"static", tc_scene_parse_static},
    {"rigid", tc_scene_parse_rigid},
    {"springs", tc_scene_parse_springs},
    {"quasi", tc_scene_parse_quasi},
    {"points", tc_scene_parse_points},
    {NULL, NULL},
};

const tc_scene_body_parser* tc_scene_find_body_parser(const char* type) {
    for (int i = 0; tc_scene_body_parsers[i].type; ++i)
        if (strcmp(tc_scene_body_parsers[i].type, type) == 0) return &tc_scene_body_parsers[i];
    return NULL;
}

void tc_scene_resolve_path(const tc_scene_ctx* ctx, const char* rel, char* out, size_t size) {
    if (rel[0] == '/' || !ctx->dir || !ctx->dir[0]) snprintf(out, size, "%s", rel);
    else snprintf(out, size, "%s/%s", ctx->dir, rel);
}

tc_result tc_scene_load_mesh(tc_scene_ctx* ctx, const char* rel, const char* path, tc_mesh* out) {
    char full[1024];
    tc_scene_resolve_path(ctx, rel, full, sizeof full);
    tc_error mesh_error;
    tc_result r = tc_mesh_load(full, out, &mesh_error);
    if (r != TC_RESULT_OK)
        return tc_json_fail(&ctx->json, r, path, NULL, "mesh \"%s\": %s", rel, mesh_error.message);
    return TC_RESULT_OK;
}

tc_result tc_scene_check_unique_name(tc_scene_ctx* ctx, const char* name, const char* path) {
    if (name && name[0] && !tc_body_id_is_null(tc_world_find_body(ctx->world, name)))
        return tc_json_fail(&ctx->json, TC_RESULT_INVALID_ARGUMENT, path, "name", "duplicate body name \"%s\"", name);
    return TC_RESULT_OK;
}
