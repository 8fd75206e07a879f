// Scene parsers of static and rigid bodies and of their shapes.
#include "io/scene_internal.h"

#include <stdio.h>
#include <string.h>

#define TC_SCENE_MAX_SHAPES 256

static tc_result parse_shape_pose(tc_scene_ctx* ctx, const cJSON* shape, const char* path, tc_shape_def* def) {
    tc_result r = tc_json_vec3(&ctx->json, shape, path, "position", false, &def->local.p);
    if (!r) r = tc_json_quat(&ctx->json, shape, path, "orientation", false, &def->local.q);
    return r;
}

/// Fills def->points from "points" or "mesh" (exactly one of them).
static tc_result parse_point_source(tc_scene_ctx* ctx, const cJSON* shape, const char* path, bool need_triangles,
                                    tc_shape_def* def, tc_mesh* mesh) {
    const tc_json* j = &ctx->json;
    const cJSON* pts = NULL;
    const char* file = NULL;
    tc_result r = tc_json_array(j, shape, path, "points", false, &pts);
    if (!r) r = tc_json_string(j, shape, path, "mesh", false, &file);
    if (r) return r;
    if (need_triangles && pts)
        return tc_json_fail(j, TC_RESULT_UNKNOWN_FIELD, path, NULL, "unknown field \"points\" (a trimesh needs \"mesh\")");
    if ((pts != NULL) == (file != NULL))
        return tc_json_fail(j, TC_RESULT_MISSING_FIELD, path, NULL,
                            need_triangles ? "missing required field \"mesh\"" : "give exactly one of \"points\" or \"mesh\"");
    if (file) {
        char p[TC_JSON_PATH_MAX];
        tc_json_path_key(p, path, "mesh");
        r = tc_scene_load_mesh(ctx, file, p, mesh);
        if (r) return r;
        if (need_triangles && mesh->triangle_count == 0)
            return tc_json_fail(j, TC_RESULT_DEGENERATE, path, "mesh", "mesh \"%s\" has no triangles", file);
    } else {
        int n = cJSON_GetArraySize(pts);
        if (n < 4)
            return tc_json_fail(j, TC_RESULT_DEGENERATE, path, "points", "a hull needs at least 4 points (got %d)", n);
        mesh->vertices = tc_calloc((size_t)n, sizeof(tc_vec3));
        mesh->vertex_count = n;
        int i = 0;
        for (const cJSON* v = pts->child; v; v = v->next, ++i) {
            char p[TC_JSON_PATH_MAX], q[TC_JSON_PATH_MAX];
            tc_json_path_key(q, path, "points");
            tc_json_path_index(p, q, i);
            if ((r = tc_json_vec3_value(j, v, p, &mesh->vertices[i]))) return r;
        }
    }
    if (mesh->vertex_count < 4)
        return tc_json_fail(j, TC_RESULT_DEGENERATE, path, file ? "mesh" : "points",
                            "a %s needs at least 4 points (got %d)", need_triangles ? "trimesh" : "hull",
                            mesh->vertex_count);
    def->points = mesh->vertices;
    def->point_count = mesh->vertex_count;
    def->triangles = mesh->triangles;
    def->triangle_count = need_triangles ? mesh->triangle_count : 0;
    return TC_RESULT_OK;
}

tc_result tc_scene_parse_shape(tc_scene_ctx* ctx, const cJSON* shape, const char* path, bool is_static,
                               tc_shape_def* def, tc_mesh* mesh) {
    static const char* const types[] = {"sphere", "box", "hull", "plane", "trimesh", NULL};
    static const char* const sphere_f[] = {"type", "radius", "position", "orientation", "density", NULL};
    static const char* const box_f[] = {"type", "half_extents", "position", "orientation", "density", NULL};
    static const char* const hull_f[] = {"type", "points", "mesh", "position", "orientation", "density", NULL};
    static const char* const plane_f[] = {"type", "normal", "offset", NULL};
    static const char* const mesh_f[] = {"type", "mesh", "position", "orientation", NULL};
    static const char* const* const fields[] = {sphere_f, box_f, hull_f, plane_f, mesh_f};
    const tc_json* j = &ctx->json;
    if (!cJSON_IsObject(shape))
        return tc_json_fail(j, TC_RESULT_WRONG_TYPE, path, NULL, "expected an object, got %s", tc_json_type_name(shape));
    int type = 0;
    tc_result r = tc_json_enum(j, shape, path, "type", true, types, &type);
    if (!r) r = tc_json_check_object(j, shape, path, fields[type]);
    if (r) return r;
    if (!is_static && (type == TC_SHAPE_PLANE || type == TC_SHAPE_TRIMESH))
        return tc_json_fail(j, TC_RESULT_INVALID_ARGUMENT, path, "type", "a %s can only belong to a static body",
                            types[type]);
    *def = tc_shape_def_default((tc_shape_type)type);
    if (!r) r = tc_json_real(j, shape, path, "density", false, TC_JSON_POSITIVE, &def->density);
    switch ((tc_shape_type)type) {
    case TC_SHAPE_SPHERE:
        if (!r) r = tc_json_real(j, shape, path, "radius", true, TC_JSON_POSITIVE, &def->radius);
        break;
    case TC_SHAPE_BOX:
        if (!r) r = tc_json_vec3(j, shape, path, "half_extents", true, &def->half_extents);
        if (!r && !(def->half_extents.x > 0 && def->half_extents.y > 0 && def->half_extents.z > 0))
            r = tc_json_fail(j, TC_RESULT_OUT_OF_RANGE, path, "half_extents", "must be positive (got [%g, %g, %g])",
                             def->half_extents.x, def->half_extents.y, def->half_extents.z);
        break;
    case TC_SHAPE_PLANE:
        if (!r) r = tc_json_vec3(j, shape, path, "normal", false, &def->plane_normal);
        if (!r) r = tc_json_real(j, shape, path, "offset", false, TC_JSON_ANY, &def->plane_offset);
        if (!r && tc_v3_len(def->plane_normal) < 1e-9)
            r = tc_json_fail(j, TC_RESULT_DEGENERATE, path, "normal", "must not be zero");
        if (!r) def->plane_normal = tc_v3_normalize(def->plane_normal);
        return r;
    case TC_SHAPE_HULL:
        if (!r) r = parse_point_source(ctx, shape, path, false, def, mesh);
        break;
    case TC_SHAPE_TRIMESH:
        if (!r) r = parse_point_source(ctx, shape, path, true, def, mesh);
        break;
    default:
        break;
    }
    if (!r) r = parse_shape_pose(ctx, shape, path, def);
    return r;
}

/// Reads the fields common to static and rigid bodies: name, pose, material.
static tc_result parse_body_base(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_body_def* base) {
    const tc_json* j = &ctx->json;
    tc_result r = tc_json_string(j, body, path, "name", false, &base->name);
    if (!r) r = tc_scene_check_unique_name(ctx, base->name, path);
    if (!r) r = tc_json_vec3(j, body, path, "position", false, &base->pose.p);
    if (!r) r = tc_json_quat(j, body, path, "orientation", false, &base->pose.q);
    if (!r) r = tc_json_real(j, body, path, "friction", false, TC_JSON_NON_NEGATIVE, &base->material.friction);
    if (!r) r = tc_json_real(j, body, path, "restitution", false, TC_JSON_UNIT, &base->material.restitution);
    return r;
}

static tc_result create_with_shapes(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_rigid_body_def* def) {
    const cJSON* arr = NULL;
    tc_result r = tc_json_array(&ctx->json, body, path, "shapes", true, &arr);
    if (r) return r;
    int n = cJSON_GetArraySize(arr);
    if (n < 1 || n > TC_SCENE_MAX_SHAPES)
        return tc_json_fail(&ctx->json, TC_RESULT_OUT_OF_RANGE, path, "shapes", "needs 1 to %d shapes (got %d)",
                            TC_SCENE_MAX_SHAPES, n);
    tc_shape_def* shapes = tc_calloc((size_t)n, sizeof *shapes);
    tc_mesh* meshes = tc_calloc((size_t)n, sizeof *meshes);
    int i = 0;
    for (const cJSON* s = arr->child; s && !r; s = s->next, ++i) {
        char p[TC_JSON_PATH_MAX], q[TC_JSON_PATH_MAX];
        tc_json_path_key(q, path, "shapes");
        tc_json_path_index(p, q, i);
        r = tc_scene_parse_shape(ctx, s, p, def->is_static, &shapes[i], &meshes[i]);
    }
    if (!r) {
        def->shapes = shapes;
        def->shape_count = n;
        tc_body_id id;
        tc_error create_error;
        r = tc_rigid_body_create(ctx->world, def, &id, &create_error);
        if (r) tc_json_fail(&ctx->json, r, path, NULL, "cannot create body: %s", create_error.message);
    }
    for (int k = 0; k < n; ++k) tc_mesh_free(&meshes[k]);
    tc_free(meshes, (size_t)n * sizeof *meshes);
    tc_free(shapes, (size_t)n * sizeof *shapes);
    return r;
}

tc_result tc_scene_parse_static(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error) {
    (void)error;
    static const char* const fields[] = {"type", "name", "position", "orientation", "friction", "restitution",
                                         "shapes", NULL};
    tc_result r = tc_json_check_object(&ctx->json, body, path, fields);
    tc_rigid_body_def def = tc_rigid_body_def_default();
    def.is_static = true;
    if (!r) r = parse_body_base(ctx, body, path, &def.base);
    if (!r) r = create_with_shapes(ctx, body, path, &def);
    return r;
}

tc_result tc_scene_parse_rigid(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error) {
    (void)error;
    static const char* const fields[] = {"type", "name", "position", "orientation", "velocity", "angular_velocity",
                                         "mass", "friction", "restitution", "contact_method", "linear_damping",
                                         "angular_damping", "allow_sleep", "gyroscopic", "shapes", NULL};
    static const char* const methods[] = {"gauss_map", "tracking", NULL};
    const tc_json* j = &ctx->json;
    tc_result r = tc_json_check_object(j, body, path, fields);
    tc_rigid_body_def def = tc_rigid_body_def_default();
    int method = (int)def.contact_method;
    if (!r) r = parse_body_base(ctx, body, path, &def.base);
    if (!r) r = tc_json_vec3(j, body, path, "velocity", false, &def.base.linear_velocity);
    if (!r) r = tc_json_vec3(j, body, path, "angular_velocity", false, &def.base.angular_velocity);
    if (!r) r = tc_json_real(j, body, path, "mass", false, TC_JSON_ANY, &def.mass);
    if (!r && def.mass < 0)
        r = tc_json_fail(j, TC_RESULT_OUT_OF_RANGE, path, "mass", "must be positive (got %g); 0 derives it from densities",
                         def.mass);
    if (!r) r = tc_json_enum(j, body, path, "contact_method", false, methods, &method);
    if (!r) r = tc_json_real(j, body, path, "linear_damping", false, TC_JSON_NON_NEGATIVE, &def.linear_damping);
    if (!r) r = tc_json_real(j, body, path, "angular_damping", false, TC_JSON_NON_NEGATIVE, &def.angular_damping);
    if (!r) r = tc_json_bool(j, body, path, "allow_sleep", false, &def.allow_sleep);
    if (!r) r = tc_json_bool(j, body, path, "gyroscopic", false, &def.gyroscopic);
    def.contact_method = (tc_contact_method)method;
    if (!r) r = create_with_shapes(ctx, body, path, &def);
    return r;
}
