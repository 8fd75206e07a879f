// Scene bodies of type "tet" (tetrahedral FEM bodies, seed 001).
#include "io/scene_internal.h"

#include "tactus/tet.h"

#include <stdio.h>
#include <string.h>

static tc_result parse_fixed(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_tet_body_def* d) {
    const cJSON* box = NULL;
    tc_result r = tc_json_array(&ctx->json, body, path, "fixed_box", false, &box);
    if (r || !box) return r;
    if (cJSON_GetArraySize(box) != 2)
        return tc_json_fail(&ctx->json, TC_RESULT_WRONG_TYPE, path, "fixed_box", "expected [[lo x, y, z], [hi x, y, z]]");
    char p[TC_JSON_PATH_MAX];
    tc_json_path_key(p, path, "fixed_box");
    r = tc_json_vec3_value(&ctx->json, box->child, p, &d->fixed_box.lo);
    if (!r) r = tc_json_vec3_value(&ctx->json, box->child->next, p, &d->fixed_box.hi);
    return r;
}

tc_result tc_scene_parse_tet(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
tc_result tc_scene_parse_tet(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error) {
    (void)error;
    static const char* const fields[] = {"type", "name", "position", "orientation", "velocity", "angular_velocity", "friction",
                                         "restitution", "shape", "half_extents", "radius", "resolution", "density",
                                         "youngs_modulus", "poisson_ratio", "damping", "fixed_box", "depth_method", NULL};
    static const char* const shapes[] = {"box", "sphere", NULL};
    static const char* const methods[] = {"consistent", "closest", NULL};
    const tc_json* j = &ctx->json;
    tc_tet_body_def d = tc_tet_body_def_default();
    int shape = 0, method = 0;
    tc_result r = tc_json_check_object(j, body, path, fields);
    if (!r) r = tc_json_string(j, body, path, "name", false, &d.base.name);
    if (!r) r = tc_scene_check_unique_name(ctx, d.base.name, path);
    if (!r) r = tc_json_vec3(j, body, path, "position", false, &d.base.pose.p);
    if (!r) r = tc_json_quat(j, body, path, "orientation", false, &d.base.pose.q);
    if (!r) r = tc_json_vec3(j, body, path, "velocity", false, &d.base.linear_velocity);
    if (!r) r = tc_json_vec3(j, body, path, "angular_velocity", false, &d.base.angular_velocity);
    if (!r) r = tc_json_real(j, body, path, "friction", false, TC_JSON_NON_NEGATIVE, &d.base.material.friction);
    if (!r) r = tc_json_real(j, body, path, "restitution", false, TC_JSON_UNIT, &d.base.material.restitution);
    if (!r) r = tc_json_enum(j, body, path, "shape", false, shapes, &shape);
    d.shape = (tc_tet_shape)shape;
    if (!r) r = tc_json_vec3(j, body, path, "half_extents", false, &d.half_extents);
    if (!r) r = tc_json_real(j, body, path, "radius", false, TC_JSON_POSITIVE, &d.radius);
    if (!r) r = tc_json_int(j, body, path, "resolution", false, 1, 64, &d.resolution);
    if (!r) r = tc_json_real(j, body, path, "density", false, TC_JSON_POSITIVE, &d.density);
    if (!r) r = tc_json_real(j, body, path, "youngs_modulus", false, TC_JSON_POSITIVE, &d.youngs_modulus);
    if (!r) r = tc_json_real(j, body, path, "poisson_ratio", false, TC_JSON_NON_NEGATIVE, &d.poisson_ratio);
    if (!r) r = tc_json_real(j, body, path, "damping", false, TC_JSON_NON_NEGATIVE, &d.damping);
    if (!r) r = parse_fixed(ctx, body, path, &d);
    if (!r) r = tc_json_enum(j, body, path, "depth_method", false, methods, &method);
    d.depth_method = (tc_tet_depth_method)method;
    if (!r) {
        tc_body_id id;
        tc_error e;
        r = tc_tet_body_create(ctx->world, &d, &id, &e);
        size_t n = strlen(e.path);
        const char* problem = n && strncmp(e.message, e.path, n) == 0 && e.message[n] == ':' ? e.message + n + 2 : e.message;
        if (r) tc_json_fail(j, r, path, n ? e.path : NULL, "%s", problem);
    }
    return r;
}
