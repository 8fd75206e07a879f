#define _POSIX_C_SOURCE 200809L
// The seed-003 scene idea as a text file (docs/springs-scene-text.md): one mesh per line with
// its initial velocity. It is translated to the JSON scene format, so everything else (CLI,
// checkpoints, metrics) treats it like any scene.
#include "io/scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text_state {
    const char* file;
    int line;
    tc_error* error;
    cJSON* root;
    cJSON* bodies;
    int mesh_count;
} text_state;

static tc_result fail(text_state* s, const char* fmt, const char* arg) {
    char field[32];
    snprintf(field, sizeof field, "line %d", s->line);
    return tc_error_set(s->error, TC_RESULT_PARSE, s->file, field, fmt, arg);
}

static bool read_numbers(char** save, double* out, int n) {
    for (int i = 0; i < n; ++i) {
        char* tok = strtok_r(NULL, " \t", save);
        char* end;
        if (!tok) return false;
        out[i] = strtod(tok, &end);
        if (*end || !isfinite(out[i])) return false;
    }
    return true;
}

static cJSON* vec3(const double* v) { return cJSON_CreateDoubleArray(v, 3); }

// "mesh <box|sphere|torus|file.obj> position x y z velocity vx vy vz [mass m] [stiffness k]
//  [damping c] [size s] [pressure p] [implicit]"
static tc_result parse_mesh(text_state* s, char** save) {
    char* what = strtok_r(NULL, " \t", save);
    if (!what) return fail(s, "mesh needs a shape (box, sphere, torus) or an OBJ file%s", "");
    cJSON* b = cJSON_CreateObject();
    char name[32];
    snprintf(name, sizeof name, "mesh_%d", s->mesh_count++);
    cJSON_AddStringToObject(b, "type", "springs");
    cJSON_AddStringToObject(b, "name", name);
    bool builtin = strcmp(what, "box") == 0 || strcmp(what, "sphere") == 0 || strcmp(what, "torus") == 0;
    cJSON_AddStringToObject(b, "shape", builtin ? what : "mesh");
    if (!builtin) cJSON_AddStringToObject(b, "mesh", what);
    cJSON_AddItemToArray(s->bodies, b);
    for (char* key; (key = strtok_r(NULL, " \t", save));) {
        double v[3];
        if (strcmp(key, "position") == 0 || strcmp(key, "velocity") == 0 || strcmp(key, "spin") == 0) {
            if (!read_numbers(save, v, 3)) return fail(s, "%s needs three finite numbers", key);
            cJSON_AddItemToObject(b, strcmp(key, "spin") == 0 ? "angular_velocity" : key, vec3(v));
        } else if (strcmp(key, "mass") == 0 || strcmp(key, "stiffness") == 0 || strcmp(key, "damping") == 0 ||
                   strcmp(key, "pressure") == 0) {
            if (!read_numbers(save, v, 1)) return fail(s, "%s needs a finite number", key);
            cJSON_AddNumberToObject(b, key, v[0]);
        } else if (strcmp(key, "size") == 0) { // box half size or sphere/torus radius
            if (!read_numbers(save, v, 1)) return fail(s, "size needs a finite number%s", "");
            if (strcmp(what, "box") == 0) cJSON_AddItemToObject(b, "half_extents", vec3((double[]){v[0], v[0], v[0]}));
            else cJSON_AddNumberToObject(b, "radius", v[0]);
        } else if (strcmp(key, "implicit") == 0) {
            cJSON_AddStringToObject(b, "integrator", "implicit");
        } else {
            return fail(s, "unknown word \"%s\" (position, velocity, spin, mass, stiffness, damping, size, pressure, implicit)", key);
        }
    }
    return TC_RESULT_OK;
}

static tc_result parse_line(text_state* s, char* line) {
    char* save = NULL;
    char* word = strtok_r(line, " \t\r", &save);
    if (!word || word[0] == '#') return TC_RESULT_OK;
    double v[3];
    if (strcmp(word, "mesh") == 0) return parse_mesh(s, &save);
    if (strcmp(word, "gravity") == 0) {
        if (!read_numbers(&save, v, 3)) return fail(s, "gravity needs three finite numbers%s", "");
        cJSON_AddItemToObject(cJSON_GetObjectItem(s->root, "world"), "gravity", vec3(v));
        return TC_RESULT_OK;
    }
    if (strcmp(word, "time") == 0) {
        if (!read_numbers(&save, v, 1) || !(v[0] > 0)) return fail(s, "time needs a positive number%s", "");
        cJSON_AddNumberToObject(cJSON_GetObjectItem(s->root, "run"), "time", v[0]);
        return TC_RESULT_OK;
    }
    if (strcmp(word, "ground") == 0) {
        if (!read_numbers(&save, v, 1)) return fail(s, "ground needs its height%s", "");
        cJSON* g = cJSON_CreateObject();
        cJSON_AddStringToObject(g, "type", "static");
        cJSON_AddStringToObject(g, "name", "ground");
        cJSON* shapes = cJSON_AddArrayToObject(g, "shapes");
        cJSON* plane = cJSON_CreateObject();
        cJSON_AddStringToObject(plane, "type", "plane");
        cJSON_AddNumberToObject(plane, "offset", v[0]);
        cJSON_AddItemToArray(shapes, plane);
        cJSON_AddItemToArray(s->bodies, g);
        return TC_RESULT_OK;
    }
    return fail(s, "unknown line \"%s\" (mesh, ground, gravity, time, # comment)", word);
}

char* tc_springs_text_to_json(const char* text, const char* file, tc_error* error) {
    text_state s = {file, 0, error, cJSON_CreateObject(), NULL, 0};
    cJSON_AddStringToObject(s.root, "description", "converted from a seed-003 text scene");
    cJSON_AddObjectToObject(s.root, "world");
    cJSON_AddObjectToObject(s.root, "run");
    s.bodies = cJSON_AddArrayToObject(s.root, "bodies");
    char* copy = tc_strdup(text);
    tc_result r = copy ? TC_RESULT_OK : TC_RESULT_OUT_OF_MEMORY;
    char* save = NULL;
    for (char* line = copy ? strtok_r(copy, "\n", &save) : NULL; line && !r; line = strtok_r(NULL, "\n", &save)) {
        s.line++;
        r = parse_line(&s, line);
    }
    if (!r && s.mesh_count == 0) r = tc_error_set(error, TC_RESULT_PARSE, file, NULL, "no mesh line");
    char* json = r ? NULL : cJSON_Print(s.root);
    cJSON_Delete(s.root);
    tc_free_string(copy);
    char* out = json ? tc_strdup(json) : NULL;
    free(json);
    return out;
}
