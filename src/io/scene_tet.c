// Scene bodies of type "tet" (tetrahedral FEM bodies, seed 001).
#include "io/scene_internal.h"

#include "tactus/tet.h"

#include <stdio.h>
#include <string.h>

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
    if (!r) r = tc_scene_parse_body_base(ctx, body, path, &d.base);
    if (!r) r = tc_json_enum(j, body, path, "shape", false, shapes, &shape);
    d.shape = (tc_tet_shape)shape;
    if (!r) r = tc_json_vec3(j, body, path, "half_extents", false, &d.half_extents);
    if (!r) r = tc_json_real(j, body, path, "radius", false, TC_JSON_POSITIVE, &d.radius);
    if (!r) r = tc_json_int(j, body, path, "resolution", false, 1, 64, &d.resolution);
    if (!r) r = tc_json_real(j, body, path, "density", false, TC_JSON_POSITIVE, &d.density);
    if (!r) r = tc_json_real(j, body, path, "youngs_modulus", false, TC_JSON_POSITIVE, &d.youngs_modulus);
    if (!r) r = tc_json_real(j, body, path, "poisson_ratio", false, TC_JSON_NON_NEGATIVE, &d.poisson_ratio);
    if (!r) r = tc_json_real(j, body, path, "damping", false, TC_JSON_NON_NEGATIVE, &d.damping);
    if (!r) r = tc_scene_parse_box_field(ctx, body, path, "fixed_box", &d.fixed_box);
    if (!r) r = tc_json_enum(j, body, path, "depth_method", false, methods, &method);
    d.depth_method = (tc_tet_depth_method)method;
    if (!r) {
        tc_body_id id;
        tc_error e;
        r = tc_tet_body_create(ctx->world, &d, &id, &e);
        if (r) tc_scene_fail_create(ctx, r, path, &e);
    }
    return r;
}
