// Scene bodies of type "points" (point-based deformables, seed 000).
#include "io/scene_internal.h"

#include "tactus/points.h"

#include <stdio.h>
#include <string.h>

static tc_result parse_mesh(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_points_body_def* d, tc_mesh* mesh) {
    const char* file = NULL;
    tc_result r = tc_json_string(&ctx->json, body, path, "mesh", d->shape == TC_POINTS_MESH, &file);
    if (!r && file && d->shape != TC_POINTS_MESH)
        r = tc_json_fail(&ctx->json, TC_RESULT_INVALID_ARGUMENT, path, "mesh", "only a \"mesh\" shape takes a mesh file");
    if (r || !file) return r;
    r = tc_scene_load_mesh(ctx, file, path, mesh);
    d->mesh_vertices = mesh->vertices;
    d->mesh_vertex_count = mesh->vertex_count;
    d->mesh_triangles = mesh->triangles;
    d->mesh_triangle_count = mesh->triangle_count;
    return r;
}

tc_result tc_scene_parse_points(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
tc_result tc_scene_parse_points(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error) {
    (void)error;
    static const char* const fields[] = {"type", "name", "position", "orientation", "velocity", "angular_velocity", "friction",
                                         "restitution", "shape", "half_extents", "radius", "mesh", "phyxel_spacing",
                                         "surfel_spacing", "jitter", "seed", "support_scale", "density", "youngs_modulus",
                                         "poisson_ratio", "volume_stiffness", "damping", "yield_strain", "creep",
                                         "max_plastic_strain", "fracture", "fracture_stretch", "contact_stiffness",
                                         "pinned_box", NULL};
    static const char* const shapes[] = {"box", "sphere", "mesh", NULL};
    const tc_json* j = &ctx->json;
    tc_points_body_def d = tc_points_body_def_default();
    tc_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    int shape = 0, seed = (int)d.seed;
    tc_result r = tc_json_check_object(j, body, path, fields);
    if (!r) r = tc_scene_parse_body_base(ctx, body, path, &d.base);
    if (!r) r = tc_json_enum(j, body, path, "shape", false, shapes, &shape);
    d.shape = (tc_points_shape)shape;
    if (!r) r = tc_json_vec3(j, body, path, "half_extents", false, &d.half_extents);
    if (!r) r = tc_json_real(j, body, path, "radius", false, TC_JSON_POSITIVE, &d.radius);
    if (!r) r = parse_mesh(ctx, body, path, &d, &mesh);
    if (!r) r = tc_json_real(j, body, path, "phyxel_spacing", false, TC_JSON_POSITIVE, &d.phyxel_spacing);
    if (!r) r = tc_json_real(j, body, path, "surfel_spacing", false, TC_JSON_POSITIVE, &d.surfel_spacing);
    if (!r) r = tc_json_real(j, body, path, "jitter", false, TC_JSON_NON_NEGATIVE, &d.jitter);
    if (!r) r = tc_json_int(j, body, path, "seed", false, 0, 2147483647, &seed);
    d.seed = (uint32_t)seed;
    if (!r) r = tc_json_real(j, body, path, "support_scale", false, TC_JSON_POSITIVE, &d.support_scale);
    if (!r) r = tc_json_real(j, body, path, "density", false, TC_JSON_POSITIVE, &d.density);
    if (!r) r = tc_json_real(j, body, path, "youngs_modulus", false, TC_JSON_POSITIVE, &d.youngs_modulus);
    if (!r) r = tc_json_real(j, body, path, "poisson_ratio", false, TC_JSON_NON_NEGATIVE, &d.poisson_ratio);
    if (!r) r = tc_json_real(j, body, path, "volume_stiffness", false, TC_JSON_NON_NEGATIVE, &d.volume_stiffness);
    if (!r) r = tc_json_real(j, body, path, "damping", false, TC_JSON_NON_NEGATIVE, &d.damping);
    if (!r) r = tc_json_real(j, body, path, "yield_strain", false, TC_JSON_NON_NEGATIVE, &d.yield_strain);
    if (!r) r = tc_json_real(j, body, path, "creep", false, TC_JSON_NON_NEGATIVE, &d.creep);
    if (!r) r = tc_json_real(j, body, path, "max_plastic_strain", false, TC_JSON_NON_NEGATIVE, &d.max_plastic_strain);
    if (!r) r = tc_json_bool(j, body, path, "fracture", false, &d.fracture);
    if (!r) r = tc_json_real(j, body, path, "fracture_stretch", false, TC_JSON_POSITIVE, &d.fracture_stretch);
    if (!r) r = tc_json_real(j, body, path, "contact_stiffness", false, TC_JSON_NON_NEGATIVE, &d.contact_stiffness);
    if (!r) r = tc_scene_parse_box_field(ctx, body, path, "pinned_box", &d.pinned_box);
    if (!r) {
        tc_body_id id;
        tc_error e;
        r = tc_points_body_create(ctx->world, &d, &id, &e);
        static const tc_scene_field_rename renames[] = {
            {"pose", "position"},      {"linear_velocity", "velocity"}, {"material.friction", "friction"},
            {"mesh_vertices", "mesh"}, {"mesh_triangles", "mesh"},      {"points", ""},
            {NULL, NULL}};
        if (r) tc_scene_fail_create_as(ctx, r, path, &e, renames);
    }
    tc_mesh_free(&mesh);
    return r;
}
