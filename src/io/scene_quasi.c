// Scene bodies of type "quasi" (quasi-rigid bodies, seed 002).
#include "io/scene_internal.h"

#include "tactus/quasi.h"

#include <stdio.h>
#include <string.h>

static tc_result parse_cloud(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_quasi_body_def* d, tc_mesh* mesh) {
    const char* file = NULL;
    tc_result r = tc_json_string(&ctx->json, body, path, "cloud", d->shape == TC_QUASI_POINTS, &file);
    if (!r && file && d->shape != TC_QUASI_POINTS)
        r = tc_json_fail(&ctx->json, TC_RESULT_INVALID_ARGUMENT, path, "cloud", "only a \"points\" shape takes a point cloud");
    if (r || !file) return r;
    r = tc_scene_load_mesh(ctx, file, path, mesh);
    d->points = mesh->vertices;
    d->normals = mesh->normals;
    d->point_count = mesh->vertex_count;
    return r;
}

tc_result tc_scene_parse_quasi(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
tc_result tc_scene_parse_quasi(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error) {
    (void)error;
    static const char* const fields[] = {"type", "name", "position", "orientation", "velocity", "angular_velocity", "friction",
                                         "restitution", "shape", "radius", "half_extents", "sample_count", "cloud", "density",
                                         "mass", "shear_modulus", "poisson", "response", "vp_reach", "layer_damping",
                                         "coarse_level", "fine_level", "tolerance", "max_iterations", "solver",
                                         "linear_damping", "angular_damping", NULL};
    static const char* const shapes[] = {"sphere", "ellipsoid", "box", "points", NULL};
    static const char* const responses[] = {"boussinesq", "volume_preserving", NULL};
    static const char* const solvers[] = {"auto", "lemke", "pk", "mprgp", NULL}; // tc_quasi_solver order
    const tc_json* j = &ctx->json;
    tc_quasi_body_def d = tc_quasi_body_def_default();
    tc_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    int shape = 0, response = 0, solver = 0;
    tc_result r = tc_json_check_object(j, body, path, fields);
    if (!r) r = tc_scene_parse_body_base(ctx, body, path, &d.base);
    if (!r) r = tc_json_enum(j, body, path, "shape", false, shapes, &shape);
    d.shape = (tc_quasi_shape)shape;
    if (!r) r = tc_json_real(j, body, path, "radius", false, TC_JSON_POSITIVE, &d.radius);
    if (!r) r = tc_json_vec3(j, body, path, "half_extents", false, &d.half_extents);
    if (!r) r = tc_json_int(j, body, path, "sample_count", false, 20, 1000000, &d.sample_count);
    if (!r) r = parse_cloud(ctx, body, path, &d, &mesh);
    if (!r) r = tc_json_real(j, body, path, "density", false, TC_JSON_POSITIVE, &d.density);
    if (!r) r = tc_json_real(j, body, path, "mass", false, TC_JSON_NON_NEGATIVE, &d.mass);
    if (!r) r = tc_json_real(j, body, path, "shear_modulus", false, TC_JSON_POSITIVE, &d.shear_modulus);
    if (!r) r = tc_json_real(j, body, path, "poisson", false, TC_JSON_NON_NEGATIVE, &d.poisson);
    if (!r) r = tc_json_enum(j, body, path, "response", false, responses, &response);
    d.response = (tc_quasi_response)response;
    if (!r) r = tc_json_real(j, body, path, "vp_reach", false, TC_JSON_NON_NEGATIVE, &d.vp_reach);
    if (!r) r = tc_json_real(j, body, path, "layer_damping", false, TC_JSON_NON_NEGATIVE, &d.layer_damping);
    if (!r) r = tc_json_int(j, body, path, "coarse_level", false, 0, 16, &d.coarse_level);
    if (!r) r = tc_json_int(j, body, path, "fine_level", false, 0, 16, &d.fine_level);
    if (!r) r = tc_json_real(j, body, path, "tolerance", false, TC_JSON_NON_NEGATIVE, &d.tolerance);
    if (!r) r = tc_json_int(j, body, path, "max_iterations", false, 1, 100, &d.max_iterations);
    if (!r) r = tc_json_enum(j, body, path, "solver", false, solvers, &solver);
    d.solver = (tc_quasi_solver)solver;
    if (!r) r = tc_json_real(j, body, path, "linear_damping", false, TC_JSON_NON_NEGATIVE, &d.linear_damping);
    if (!r) r = tc_json_real(j, body, path, "angular_damping", false, TC_JSON_NON_NEGATIVE, &d.angular_damping);
    if (!r) {
        tc_body_id id;
        tc_error e;
        r = tc_quasi_body_create(ctx->world, &d, &id, &e);
        static const tc_scene_field_rename renames[] = {
            {"body.points", "cloud"}, {"body.areas", "cloud"}, {"body.pose", "position"}, {"body.damping", "linear_damping"},
            {"body", ""},             {NULL, NULL}};
        if (r) tc_scene_fail_create_as(ctx, r, path, &e, renames);
    }
    tc_mesh_free(&mesh);
    return r;
}
