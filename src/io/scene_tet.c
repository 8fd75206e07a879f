// Scene bodies of type "tet" (tetrahedral FEM bodies, seed 001).
#include "io/scene_internal.h"

#include "geometry/tetmesh.h"
#include "tactus/tet.h"

#include <stdio.h>
#include <string.h>

// "mesh", relative to the scene file: a Gmsh "name.msh", or the base of a TetGen pair
// (base.node + base.ele).
static tc_result load_mesh(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_tet_body_def* d, tc_tetmesh* mesh) {
    const char* base = NULL;
    tc_result r = tc_json_string(&ctx->json, body, path, "mesh", d->shape == TC_TET_MESH, &base);
    if (!r && base && d->shape != TC_TET_MESH)
        r = tc_json_fail(&ctx->json, TC_RESULT_INVALID_ARGUMENT, path, "mesh", "only a \"mesh\" shape takes a mesh file");
    if (r || !base) return r;
    char full[1024];
    tc_scene_resolve_path(ctx, base, full, sizeof full);
    tc_error e;
    r = tc_tetmesh_read(mesh, full, &e);
    if (r) return tc_json_fail(&ctx->json, r, path, "mesh", "mesh \"%s\": %s", base, e.message);
    d->vertices = mesh->nodes;
    d->vertex_count = mesh->node_count;
    d->tets = &mesh->tets[0][0];
    d->tet_count = mesh->tet_count;
    return TC_RESULT_OK;
}

tc_result tc_scene_parse_tet(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
tc_result tc_scene_parse_tet(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error) {
    (void)error;
    static const char* const fields[] = {"type", "name", "position", "orientation", "velocity", "angular_velocity", "friction",
                                         "restitution", "shape", "half_extents", "radius", "resolution", "mesh", "density",
                                         "youngs_modulus", "poisson_ratio", "damping", "solver_tolerance", "fixed_box", "depth_method", "self_collision", NULL};
    static const char* const shapes[] = {"box", "sphere", "mesh", NULL};
    static const char* const methods[] = {"consistent", "closest", NULL};
    const tc_json* j = &ctx->json;
    tc_tet_body_def d = tc_tet_body_def_default();
    int shape = 0, method = 0;
    tc_result r = tc_json_check_object(j, body, path, fields);
    if (!r) r = tc_scene_parse_body_base(ctx, body, path, &d.base);
    if (!r) r = tc_json_enum(j, body, path, "shape", false, shapes, &shape);
    d.shape = (tc_tet_shape)shape;
    tc_tetmesh mesh;
    memset(&mesh, 0, sizeof mesh);
    if (!r) r = load_mesh(ctx, body, path, &d, &mesh);
    if (!r) r = tc_json_vec3(j, body, path, "half_extents", false, &d.half_extents);
    if (!r) r = tc_json_real(j, body, path, "radius", false, TC_JSON_POSITIVE, &d.radius);
    if (!r) r = tc_json_int(j, body, path, "resolution", false, 1, 64, &d.resolution);
    if (!r) r = tc_json_real(j, body, path, "density", false, TC_JSON_POSITIVE, &d.density);
    if (!r) r = tc_json_real(j, body, path, "youngs_modulus", false, TC_JSON_POSITIVE, &d.youngs_modulus);
    if (!r) r = tc_json_real(j, body, path, "poisson_ratio", false, TC_JSON_NON_NEGATIVE, &d.poisson_ratio);
    if (!r) r = tc_json_real(j, body, path, "damping", false, TC_JSON_NON_NEGATIVE, &d.damping);
    if (!r) r = tc_json_real(j, body, path, "solver_tolerance", false, TC_JSON_POSITIVE, &d.solver_tolerance);
    if (!r) r = tc_scene_parse_box_field(ctx, body, path, "fixed_box", &d.fixed_box);
    if (!r) r = tc_json_enum(j, body, path, "depth_method", false, methods, &method);
    d.depth_method = (tc_tet_depth_method)method;
    if (!r) r = tc_json_bool(j, body, path, "self_collision", false, &d.self_collision);
    if (!r) {
        tc_body_id id;
        tc_error e;
        r = tc_tet_body_create(ctx->world, &d, &id, &e);
        if (r) tc_scene_fail_create(ctx, r, path, &e);
    }
    tc_tetmesh_free(&mesh);
    return r;
}
