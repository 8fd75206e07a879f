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
    {"tet", tc_scene_parse_tet},
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

tc_result tc_scene_parse_body_base(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_body_def* base) {
    const tc_json* j = &ctx->json;
    tc_result r = tc_json_string(j, body, path, "name", false, &base->name);
    if (!r) r = tc_scene_check_unique_name(ctx, base->name, path);
    if (!r) r = tc_json_vec3(j, body, path, "position", false, &base->pose.p);
    if (!r) r = tc_json_quat(j, body, path, "orientation", false, &base->pose.q);
    if (!r) r = tc_json_vec3(j, body, path, "velocity", false, &base->linear_velocity);
    if (!r) r = tc_json_vec3(j, body, path, "angular_velocity", false, &base->angular_velocity);
    if (!r) r = tc_json_real(j, body, path, "friction", false, TC_JSON_NON_NEGATIVE, &base->material.friction);
    if (!r) r = tc_json_real(j, body, path, "restitution", false, TC_JSON_UNIT, &base->material.restitution);
    // Only the rigid solver bounces; the kinds parsed here meet contacts with penalty forces or
    // their own LCP, where rebound comes from the contact damping. Accepted, but say so.
    if (!r && base->material.restitution > 0)
        tc_log(TC_LOG_WARNING, TC_RESULT_OK,
               "%s: %s.restitution: %g has no effect on this kind (only the rigid solver has restitution; deformable "
               "and quasi-rigid contacts rebound through their damping: world.penalty_damping_ratio, layer_damping)",
               j->file, path, base->material.restitution);
    return r;
}

tc_result tc_scene_parse_box_field(tc_scene_ctx* ctx, const cJSON* body, const char* path, const char* key, tc_aabb* out) {
    const cJSON* box = NULL;
    tc_result r = tc_json_array(&ctx->json, body, path, key, false, &box);
    if (r || !box) return r;
    if (cJSON_GetArraySize(box) != 2)
        return tc_json_fail(&ctx->json, TC_RESULT_WRONG_TYPE, path, key, "expected [[lo x, y, z], [hi x, y, z]]");
    char p[TC_JSON_PATH_MAX];
    tc_json_path_key(p, path, key);
    r = tc_json_vec3_value(&ctx->json, box->child, p, &out->lo);
    if (!r) r = tc_json_vec3_value(&ctx->json, box->child->next, p, &out->hi);
    return r;
}

// The scene field a library def field is read from: renames (pairs {def field, scene field},
// ending with {NULL, NULL}) first, then the def field without quasi's "body." prefix.
static const char* scene_field(const char* field, const tc_scene_field_rename* renames) {
    for (int i = 0; renames && renames[i].def_field; ++i)
        if (strcmp(field, renames[i].def_field) == 0) return renames[i].scene_field;
    return strncmp(field, "body.", 5) == 0 ? field + 5 : field;
}

tc_result tc_scene_fail_create_as(tc_scene_ctx* ctx, tc_result code, const char* path, const tc_error* e,
                                  const tc_scene_field_rename* renames) {
    // the library names the def field ("mass: ..."): report it under this body's path instead
    size_t n = strlen(e->path);
    const char* problem = n && strncmp(e->message, e->path, n) == 0 && e->message[n] == ':' ? e->message + n + 2 : e->message;
    const char* field = n ? scene_field(e->path, renames) : NULL;
    return tc_json_fail(&ctx->json, code, path, field && field[0] ? field : NULL, "%s", problem);
}

tc_result tc_scene_fail_create(tc_scene_ctx* ctx, tc_result code, const char* path, const tc_error* e) {
    return tc_scene_fail_create_as(ctx, code, path, e, NULL);
}
