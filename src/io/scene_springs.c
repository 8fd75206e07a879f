// Scene bodies of type "springs" (mass-spring meshes, seed 003).
#include "io/scene_internal.h"

#include "tactus/springs.h"

#include <stdio.h>
#include <string.h>

static tc_result parse_shape(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_springs_body_def* d, tc_mesh* mesh) {
    static const char* const shapes[] = {"box", "sphere", "torus", "mesh", NULL};
    const tc_json* j = &ctx->json;
    int shape = 0;
    const char* file = NULL;
    tc_result r = tc_json_enum(j, body, path, "shape", true, shapes, &shape);
    if (!r) r = tc_json_vec3(j, body, path, "half_extents", false, &d->half_extents);
    if (!r) r = tc_json_real(j, body, path, "radius", false, TC_JSON_POSITIVE, &d->radius);
    if (!r) r = tc_json_real(j, body, path, "tube_radius", false, TC_JSON_POSITIVE, &d->tube_radius);
    if (!r && shape == TC_SPRINGS_SPHERE) d->resolution = 2;
    if (!r) r = tc_json_int(j, body, path, "resolution", false, 0, 64, &d->resolution);
    if (!r) r = tc_json_string(j, body, path, "mesh", shape == TC_SPRINGS_MESH, &file);
    if (!r && file && shape != TC_SPRINGS_MESH)
        r = tc_json_fail(j, TC_RESULT_INVALID_ARGUMENT, path, "mesh", "only a \"mesh\" shape takes a mesh file");
    d->shape = (tc_springs_shape)shape;
    if (!r && file) {
        char p[TC_JSON_PATH_MAX];
        snprintf(p, sizeof p, "%s", path);
        r = tc_scene_load_mesh(ctx, file, p, mesh);
        d->mesh_vertices = mesh->vertices;
        d->mesh_vertex_count = mesh->vertex_count;
        d->mesh_triangles = mesh->triangles;
        d->mesh_triangle_count = mesh->triangle_count;
    }
    return r;
}

tc_result tc_scene_parse_springs(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
tc_result tc_scene_parse_springs(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error) {
    (void)error;
    static const char* const fields[] = {"type", "name", "position", "orientation", "velocity", "angular_velocity", "friction",
                                         "restitution", "shape", "half_extents", "radius", "tube_radius", "resolution", "mesh",
                                         "mass", "stiffness", "damping", "bending", "pressure", "drag", "integrator", NULL};
    static const char* const integrators[] = {"explicit", "implicit", NULL};
    const tc_json* j = &ctx->json;
    tc_springs_body_def d = tc_springs_body_def_default();
    tc_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    int integrator = 0;
    tc_result r = tc_json_check_object(j, body, path, fields);
    if (!r) r = tc_scene_parse_body_base(ctx, body, path, &d.base);
    if (!r) r = parse_shape(ctx, body, path, &d, &mesh);
    if (!r) r = tc_json_real(j, body, path, "mass", false, TC_JSON_POSITIVE, &d.mass);
    if (!r) r = tc_json_real(j, body, path, "stiffness", false, TC_JSON_POSITIVE, &d.stiffness);
    if (!r) r = tc_json_real(j, body, path, "damping", false, TC_JSON_NON_NEGATIVE, &d.damping);
    if (!r) r = tc_json_real(j, body, path, "bending", false, TC_JSON_NON_NEGATIVE, &d.bending);
    if (!r) r = tc_json_real(j, body, path, "pressure", false, TC_JSON_NON_NEGATIVE, &d.pressure);
    if (!r) r = tc_json_real(j, body, path, "drag", false, TC_JSON_NON_NEGATIVE, &d.drag);
    if (!r) r = tc_json_enum(j, body, path, "integrator", false, integrators, &integrator);
    d.integrator = (tc_springs_integrator)integrator;
    if (!r) {
        tc_body_id id;
        tc_error e;
        r = tc_springs_body_create(ctx->world, &d, &id, &e);
        static const tc_scene_field_rename renames[] = {{"springs", ""}, {NULL, NULL}};
        if (r) tc_scene_fail_create_as(ctx, r, path, &e, renames);
    }
    tc_mesh_free(&mesh);
    return r;
}
