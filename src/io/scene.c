// Scene loading: top-level object, world settings, run/camera, then bodies, generators,
// events and metrics. Any error destroys what was built, so callers never see half a scene.
#include "io/scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char* read_text_file(const char* path, tc_error* error) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        tc_error_set(error, TC_RESULT_IO, path, NULL, "cannot open file");
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size < 0) {
        fclose(f);
        tc_error_set(error, TC_RESULT_IO, path, NULL, "cannot read file");
        return NULL;
    }
    char* text = malloc((size_t)size + 1);
    size_t got = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!text || got != (size_t)size) {
        free(text);
        tc_error_set(error, TC_RESULT_IO, path, NULL, "cannot read file");
        return NULL;
    }
    text[size] = '\0';
    return text;
}

static char* dir_of(const char* path) {
    const char* slash = strrchr(path, '/');
    if (!slash) return tc_strdup(".");
    if (slash == path) return tc_strdup("/");
    size_t n = (size_t)(slash - path);
    char* d = tc_alloc(n + 1);
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

static tc_result parse_world_def(const tc_json* j, const cJSON* w, tc_world_def* def) {
    static const char* const fields[] = {"gravity", "time_step", "sub_steps", "solver_iterations", "threads",
                                         "position_correction", "contact_hertz", "contact_damping_ratio",
                                         "contact_push_max_velocity", "restitution_threshold", "linear_slop",
                                         "baumgarte", "penalty_hertz", "penalty_damping_ratio", "enable_sleep",
                                         "sleep_time", "energy_limit", NULL};
    static const char* const corrections[] = {"soft_step", "baumgarte", "split_impulse", NULL};
    const char* p = "world";
    tc_result r = tc_json_check_object(j, w, p, fields);
    int corr = (int)def->position_correction;
    if (!r) r = tc_json_vec3(j, w, p, "gravity", false, &def->gravity);
    if (!r) r = tc_json_real(j, w, p, "time_step", false, TC_JSON_POSITIVE, &def->time_step);
    if (!r) r = tc_json_int(j, w, p, "sub_steps", false, 1, 1000, &def->sub_steps);
    if (!r) r = tc_json_int(j, w, p, "solver_iterations", false, 1, 10000, &def->solver_iterations);
    if (!r) r = tc_json_int(j, w, p, "threads", false, 1, 256, &def->thread_count);
    if (!r) r = tc_json_enum(j, w, p, "position_correction", false, corrections, &corr);
    if (!r) r = tc_json_real(j, w, p, "contact_hertz", false, TC_JSON_POSITIVE, &def->contact_hertz);
    if (!r) r = tc_json_real(j, w, p, "contact_damping_ratio", false, TC_JSON_NON_NEGATIVE, &def->contact_damping_ratio);
    if (!r) r = tc_json_real(j, w, p, "contact_push_max_velocity", false, TC_JSON_POSITIVE, &def->contact_push_max_velocity);
    if (!r) r = tc_json_real(j, w, p, "restitution_threshold", false, TC_JSON_NON_NEGATIVE, &def->restitution_threshold);
    if (!r) r = tc_json_real(j, w, p, "linear_slop", false, TC_JSON_NON_NEGATIVE, &def->linear_slop);
    if (!r) r = tc_json_real(j, w, p, "baumgarte", false, TC_JSON_UNIT, &def->baumgarte);
    if (!r) r = tc_json_real(j, w, p, "penalty_hertz", false, TC_JSON_POSITIVE, &def->penalty_hertz);
    if (!r) r = tc_json_real(j, w, p, "penalty_damping_ratio", false, TC_JSON_NON_NEGATIVE, &def->penalty_damping_ratio);
    if (!r) r = tc_json_bool(j, w, p, "enable_sleep", false, &def->enable_sleep);
    if (!r) r = tc_json_real(j, w, p, "sleep_time", false, TC_JSON_NON_NEGATIVE, &def->sleep_time);
    if (!r) r = tc_json_real(j, w, p, "energy_limit", false, TC_JSON_NON_NEGATIVE, &def->energy_limit);
    def->position_correction = (tc_position_correction)corr;
    return r;
}

static tc_result parse_run(const tc_json* j, const cJSON* run, tc_scene_run* out) {
    static const char* const fields[] = {"time", "every", NULL};
    tc_result r = tc_json_check_object(j, run, "run", fields);
    if (!r) r = tc_json_real(j, run, "run", "time", false, TC_JSON_POSITIVE, &out->time);
    if (!r) r = tc_json_int(j, run, "run", "every", false, 1, 1000000, &out->every);
    return r;
}

static tc_result parse_camera(const tc_json* j, const cJSON* cam, tc_scene_camera* out) {
    static const char* const fields[] = {"eye", "target", NULL};
    tc_result r = tc_json_check_object(j, cam, "camera", fields);
    if (!r) r = tc_json_vec3(j, cam, "camera", "eye", true, &out->eye);
    if (!r) r = tc_json_vec3(j, cam, "camera", "target", true, &out->target);
    if (!r && tc_v3_dist(out->eye, out->target) < 1e-9)
        r = tc_json_fail(j, TC_RESULT_DEGENERATE, "camera", NULL, "eye and target coincide");
    return r;
}

static tc_result parse_metrics(tc_scene_ctx* ctx, const cJSON* arr) {
    int i = 0;
    for (const cJSON* m = arr->child; m; m = m->next, ++i) {
        char p[TC_JSON_PATH_MAX];
        tc_json_path_index(p, "metrics", i);
        if (!cJSON_IsString(m))
            return tc_json_fail(&ctx->json, TC_RESULT_WRONG_TYPE, p, NULL, "expected a string, got %s",
                                tc_json_type_name(m));
        char name[128];
        const char* colon = strchr(m->valuestring, ':');
        size_t n = colon ? (size_t)(colon - m->valuestring) : strlen(m->valuestring);
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), m->valuestring);
        char problem[512];
        tc_result r = tc_metric_check(ctx->world, name, colon ? colon + 1 : NULL, problem, sizeof problem);
        if (r) return tc_json_fail(&ctx->json, r, p, NULL, "%s", problem);
        tc_metric_fn* fn = tc_metric_find(name);
        tc_scene_metric sm = {tc_strdup(m->valuestring), tc_strdup(colon ? colon + 1 : ""), fn};
        if (!tc_array_push(&ctx->scene->metrics, sm)) return TC_RESULT_OUT_OF_MEMORY;
    }
    return TC_RESULT_OK;
}

static tc_result parse_bodies(tc_scene_ctx* ctx, const cJSON* arr) {
    int i = 0;
    for (const cJSON* b = arr->child; b; b = b->next, ++i) {
        char p[TC_JSON_PATH_MAX];
        tc_json_path_index(p, "bodies", i);
        if (!cJSON_IsObject(b))
            return tc_json_fail(&ctx->json, TC_RESULT_WRONG_TYPE, p, NULL, "expected an object, got %s",
                                tc_json_type_name(b));
        const char* type = NULL;
        tc_result r = tc_json_string(&ctx->json, b, p, "type", true, &type);
        if (r) return r;
        const tc_scene_body_parser* parser = tc_scene_find_body_parser(type);
        if (!parser) return tc_json_fail(&ctx->json, TC_RESULT_UNSUPPORTED, p, "type", "unknown body type \"%s\"", type);
        r = parser->parse(ctx, b, p, ctx->json.error);
        if (r) return r;
    }
    return TC_RESULT_OK;
}

static tc_result parse_generators(tc_scene_ctx* ctx, const cJSON* arr) {
    int i = 0;
    for (const cJSON* g = arr->child; g; g = g->next, ++i) {
        char p[TC_JSON_PATH_MAX];
        tc_json_path_index(p, "generators", i);
        tc_result r = tc_scene_run_generator(ctx, g, p);
        if (r) return r;
    }
    return TC_RESULT_OK;
}

static tc_scene_camera default_camera(const tc_world* world) {
    tc_aabb b = tc_world_get_bounds(world);
    tc_scene_camera cam = {tc_v3(6, -8, 4), tc_v3(0, 0, 1)};
    if (!(b.lo.x <= b.hi.x) || !tc_v3_is_finite(b.lo) || !tc_v3_is_finite(b.hi)) return cam;
    tc_vec3 c = tc_v3_scale(tc_v3_add(b.lo, b.hi), 0.5);
    tc_real r = fmax(1.0, 0.5 * tc_v3_dist(b.lo, b.hi));
    cam.target = c;
    // Look from the front-right, slightly above, far enough to frame the bounding sphere.
    cam.eye = tc_v3_add(c, tc_v3_scale(tc_v3_normalize(tc_v3(0.6, -0.8, 0.45)), 2.5 * r));
    return cam;
}

static tc_result parse_root(tc_scene_ctx* ctx, const cJSON* root, int thread_count) {
    static const char* const fields[] = {"name", "description", "world", "run", "camera", "metrics",
                                         "bodies", "generators", "events", NULL};
    const tc_json* j = &ctx->json;
    tc_scene* s = ctx->scene;
    tc_result r = tc_json_check_object(j, root, "", fields);
    const char *name = "", *desc = "";
    const cJSON *world = NULL, *run = NULL, *cam = NULL, *metrics = NULL, *bodies = NULL, *gens = NULL, *events = NULL;
    if (!r) r = tc_json_string(j, root, "", "name", false, &name);
    if (!r) r = tc_json_string(j, root, "", "description", false, &desc);
    if (!r) r = tc_json_object(j, root, "", "world", false, &world);
    if (!r) r = tc_json_object(j, root, "", "run", false, &run);
    if (!r) r = tc_json_object(j, root, "", "camera", false, &cam);
    if (!r) r = tc_json_array(j, root, "", "metrics", false, &metrics);
    if (!r) r = tc_json_array(j, root, "", "bodies", false, &bodies);
    if (!r) r = tc_json_array(j, root, "", "generators", false, &gens);
    if (!r) r = tc_json_array(j, root, "", "events", false, &events);
    if (r) return r;
    s->name = tc_strdup(name);
    s->description = tc_strdup(desc);
    tc_world_def def = tc_world_def_default();
    if (world && (r = parse_world_def(j, world, &def))) return r;
    if (thread_count > 0) def.thread_count = thread_count;
    if (run && (r = parse_run(j, run, &s->run))) return r;
    if (cam && (r = parse_camera(j, cam, &s->camera))) return r;
    s->has_camera = cam != NULL;
    s->world = tc_world_create(&def, j->error);
    if (!s->world) return j->error ? j->error->code : TC_RESULT_INVALID_ARGUMENT;
    ctx->world = s->world;
    if (bodies && (r = parse_bodies(ctx, bodies))) return r;
    if (gens && (r = parse_generators(ctx, gens))) return r;
    if (events && (r = tc_scene_parse_events(ctx, events, "events"))) return r;
    if (metrics && (r = parse_metrics(ctx, metrics))) return r;
    if (!s->has_camera) s->camera = default_camera(s->world);
    return TC_RESULT_OK;
}

tc_scene* tc_scene_load(const char* path, tc_error* error) { return tc_scene_load_threads(path, 0, error); }

tc_scene* tc_scene_load_threads(const char* path, int thread_count, tc_error* error) {
    tc_error local;
    if (!error) error = &local;
    tc_error_clear(error);
    if (!path) {
        tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, NULL, NULL, "scene path is NULL");
        return NULL;
    }
    char* text = read_text_file(path, error);
    if (!text) return NULL;
    char* dir = dir_of(path);
    size_t len = strlen(path);
    if (len > 8 && strcmp(path + len - 8, ".springs") == 0) { // the seed-003 text format
        char* json = tc_springs_text_to_json(text, path, error);
        free(text);
        if (!json) {
            tc_free_string(dir);
            return NULL;
        }
        text = malloc(strlen(json) + 1);
        if (text) memcpy(text, json, strlen(json) + 1);
        tc_free_string(json);
        if (!text) {
            tc_free_string(dir);
            tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, path, NULL, "out of memory");
            return NULL;
        }
    }
    tc_scene* s = tc_scene_load_text(text, path, dir, thread_count, error);
    tc_free_string(dir);
    free(text);
    return s;
}

tc_scene* tc_scene_load_text(const char* text, const char* file, const char* dir, int thread_count, tc_error* error) {
    tc_error local;
    if (!error) error = &local; // the loader reads back the code it set
    tc_error_clear(error);
    tc_scene* s = tc_calloc(1, sizeof *s);
    s->text = tc_strdup(text);
    s->thread_count = thread_count;
    s->file = tc_strdup(file);
    s->dir = tc_strdup(dir);
    s->run = (tc_scene_run){5.0, 6};
    tc_scene_ctx ctx = {NULL, s, s->file, s->dir, {s->file, error}};
    cJSON* root = tc_json_parse(&ctx.json, text);
    tc_result r = root ? parse_root(&ctx, root, thread_count) : TC_RESULT_PARSE;
    cJSON_Delete(root);
    if (r != TC_RESULT_OK) {
        if (ctx.json.error->code == TC_RESULT_OK)
            tc_error_set(ctx.json.error, r, s->file, NULL, "%s", tc_result_string(r));
        tc_scene_destroy(s);
        return NULL;
    }
    return s;
}

void tc_scene_destroy(tc_scene* scene) {
    if (!scene) return;
    tc_world_destroy(scene->world);
    for (int i = 0; i < scene->events.count; ++i) tc_free_string(scene->events.data[i].body);
    for (int i = 0; i < scene->metrics.count; ++i) {
        tc_free_string(scene->metrics.data[i].label);
        tc_free_string(scene->metrics.data[i].arg);
    }
    tc_array_free(&scene->events);
    tc_array_free(&scene->metrics);
    tc_free_string(scene->text);
    tc_free_string(scene->file);
    tc_free_string(scene->dir);
    tc_free_string(scene->name);
    tc_free_string(scene->description);
    tc_free(scene, sizeof *scene);
}

tc_world* tc_scene_world(const tc_scene* scene) { return scene ? scene->world : NULL; }

tc_result tc_scene_step(tc_scene* scene, tc_error* error) {
    if (!scene) return tc_error_set(error, TC_RESULT_INVALID_ARGUMENT, NULL, NULL, "scene is NULL");
    tc_result r = tc_scene_apply_events(scene, error);
    if (r != TC_RESULT_OK) return r;
    return tc_world_step(scene->world, error);
}

tc_scene_run tc_scene_run_settings(const tc_scene* scene) { return scene->run; }
tc_scene_camera tc_scene_get_camera(const tc_scene* scene) { return scene->camera; }
const char* tc_scene_name(const tc_scene* scene) { return scene->name ? scene->name : ""; }
const char* tc_scene_description(const tc_scene* scene) { return scene->description ? scene->description : ""; }
const char* tc_scene_file(const tc_scene* scene) { return scene->file; }
const char* tc_scene_dir(const tc_scene* scene) { return scene->dir; }

int tc_scene_metric_count(const tc_scene* scene) { return scene ? scene->metrics.count : 0; }

const char* tc_scene_metric_label(const tc_scene* scene, int index) {
    if (!scene || index < 0 || index >= scene->metrics.count) return "";
    return scene->metrics.data[index].label;
}

tc_real tc_scene_metric_value(const tc_scene* scene, int index) {
    if (!scene || index < 0 || index >= scene->metrics.count) return 0;
    const tc_scene_metric* m = &scene->metrics.data[index];
    return m->fn(scene->world, scene, m->arg);
}
