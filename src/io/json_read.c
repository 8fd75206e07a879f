// JSON helpers: typed getters that report "file: path.to.field: problem".
#include "io/json_read.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/core.h"

const tc_json_range TC_JSON_ANY = {-INFINITY, INFINITY, false, false};
const tc_json_range TC_JSON_POSITIVE = {0.0, INFINITY, true, false};
const tc_json_range TC_JSON_NON_NEGATIVE = {0.0, INFINITY, false, false};
const tc_json_range TC_JSON_UNIT = {0.0, 1.0, false, false};

void tc_json_path_key(char out[TC_JSON_PATH_MAX], const char* parent, const char* key) {
    if (!parent || !parent[0]) snprintf(out, TC_JSON_PATH_MAX, "%s", key ? key : "");
    else if (!key || !key[0]) snprintf(out, TC_JSON_PATH_MAX, "%s", parent);
    else snprintf(out, TC_JSON_PATH_MAX, "%s.%s", parent, key);
}

void tc_json_path_index(char out[TC_JSON_PATH_MAX], const char* parent, int index) {
    snprintf(out, TC_JSON_PATH_MAX, "%s[%d]", parent ? parent : "", index);
}

tc_result tc_json_fail(const tc_json* j, tc_result code, const char* parent, const char* key, const char* fmt, ...) {
    char path[TC_JSON_PATH_MAX];
    tc_json_path_key(path, parent, key);
    char problem[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    return tc_error_set(j->error, code, j->file, path, "%s", problem);
}

const char* tc_json_type_name(const cJSON* v) {
    if (!v) return "nothing";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    return "an invalid value";
}

static bool name_in_list(const char* name, const char* const* list) {
    for (int i = 0; list && list[i]; ++i)
        if (strcmp(list[i], name) == 0) return true;
    return false;
}

tc_result tc_json_check_object(const tc_json* j, const cJSON* obj, const char* path, const char* const* allowed) {
    if (!cJSON_IsObject(obj))
        return tc_json_fail(j, TC_RESULT_WRONG_TYPE, path, NULL, "expected an object, got %s", tc_json_type_name(obj));
    for (const cJSON* c = obj->child; c; c = c->next) {
        if (!name_in_list(c->string, allowed))
            return tc_json_fail(j, TC_RESULT_UNKNOWN_FIELD, path, NULL, "unknown field \"%s\"", c->string);
        for (const cJSON* d = c->next; d; d = d->next)
            if (strcmp(c->string, d->string) == 0)
                return tc_json_fail(j, TC_RESULT_PARSE, path, c->string, "field given twice");
    }
    return TC_RESULT_OK;
}

const cJSON* tc_json_member(const cJSON* obj, const char* key) {
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/// Looks up key; MISSING_FIELD if required and absent, OK with *out NULL if optional and absent.
static tc_result lookup(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                        const cJSON** out) {
    *out = tc_json_member(obj, key);
    if (!*out && required) return tc_json_fail(j, TC_RESULT_MISSING_FIELD, path, key, "missing required field");
    return TC_RESULT_OK;
}

static bool in_range(double x, tc_json_range r) {
    if (r.lo_open ? !(x > r.lo) : !(x >= r.lo)) return false;
    if (r.hi_open ? !(x < r.hi) : !(x <= r.hi)) return false;
    return true;
}

static void describe_range(char* out, size_t n, tc_json_range r) {
    if (r.lo == 0.0 && isinf(r.hi)) snprintf(out, n, r.lo_open ? "must be positive" : "must not be negative");
    else if (isinf(r.hi)) snprintf(out, n, "must be %s %g", r.lo_open ? ">" : ">=", r.lo);
    else if (isinf(r.lo)) snprintf(out, n, "must be %s %g", r.hi_open ? "<" : "<=", r.hi);
    else snprintf(out, n, "must be in %c%g, %g%c", r.lo_open ? '(' : '[', r.lo, r.hi, r.hi_open ? ')' : ']');
}

static tc_result number_value(const tc_json* j, const cJSON* v, const char* path, const char* key, double* out) {
    if (!cJSON_IsNumber(v))
        return tc_json_fail(j, TC_RESULT_WRONG_TYPE, path, key, "expected a number, got %s", tc_json_type_name(v));
    if (!isfinite(v->valuedouble))
        return tc_json_fail(j, TC_RESULT_NOT_FINITE, path, key, "number is not finite (overflows a double)");
    *out = v->valuedouble;
    return TC_RESULT_OK;
}

tc_result tc_json_real(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                       tc_json_range range, tc_real* out) {
    const cJSON* v;
    tc_result r = lookup(j, obj, path, key, required, &v);
    if (r != TC_RESULT_OK || !v) return r;
    double x = 0;
    r = number_value(j, v, path, key, &x);
    if (r != TC_RESULT_OK) return r;
    if (!in_range(x, range)) {
        char what[96];
        describe_range(what, sizeof what, range);
        return tc_json_fail(j, TC_RESULT_OUT_OF_RANGE, path, key, "%s (got %g)", what, x);
    }
    *out = x;
    return TC_RESULT_OK;
}

tc_result tc_json_int(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                      int lo, int hi, int* out) {
    const cJSON* v;
    tc_result r = lookup(j, obj, path, key, required, &v);
    if (r != TC_RESULT_OK || !v) return r;
    double x = 0;
    r = number_value(j, v, path, key, &x);
    if (r != TC_RESULT_OK) return r;
    if (x != floor(x)) return tc_json_fail(j, TC_RESULT_WRONG_TYPE, path, key, "expected an integer, got %g", x);
    if (x < lo || x > hi)
        return tc_json_fail(j, TC_RESULT_OUT_OF_RANGE, path, key, "must be in [%d, %d] (got %g)", lo, hi, x);
    *out = (int)x;
    return TC_RESULT_OK;
}

tc_result tc_json_bool(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required, bool* out) {
    const cJSON* v;
    tc_result r = lookup(j, obj, path, key, required, &v);
    if (r != TC_RESULT_OK || !v) return r;
    if (!cJSON_IsBool(v))
        return tc_json_fail(j, TC_RESULT_WRONG_TYPE, path, key, "expected a boolean, got %s", tc_json_type_name(v));
    *out = cJSON_IsTrue(v);
    return TC_RESULT_OK;
}

tc_result tc_json_string(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                         const char** out) {
    const cJSON* v;
    tc_result r = lookup(j, obj, path, key, required, &v);
    if (r != TC_RESULT_OK || !v) return r;
    if (!cJSON_IsString(v))
        return tc_json_fail(j, TC_RESULT_WRONG_TYPE, path, key, "expected a string, got %s", tc_json_type_name(v));
    *out = v->valuestring;
    return TC_RESULT_OK;
}

tc_result tc_json_enum(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                       const char* const* names, int* out) {
    const char* s = NULL;
    tc_result r = tc_json_string(j, obj, path, key, required, &s);
    if (r != TC_RESULT_OK || !s) return r;
    for (int i = 0; names[i]; ++i) {
        if (strcmp(names[i], s) == 0) {
            *out = i;
            return TC_RESULT_OK;
        }
    }
    char choices[400] = "";
    size_t n = 0;
    for (int i = 0; names[i] && n < sizeof choices; ++i)
        n += (size_t)snprintf(choices + n, sizeof choices - n, "%s%s", i ? ", " : "", names[i]);
    return tc_json_fail(j, TC_RESULT_OUT_OF_RANGE, path, key, "unknown value \"%s\" (expected one of: %s)", s, choices);
}

tc_result tc_json_vec3_value(const tc_json* j, const cJSON* v, const char* path, tc_vec3* out) {
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) {
        if (cJSON_IsArray(v))
            return tc_json_fail(j, TC_RESULT_WRONG_TYPE, path, NULL, "expected an array of 3 numbers, got %d elements",
                                cJSON_GetArraySize(v));
        return tc_json_fail(j, TC_RESULT_WRONG_TYPE, path, NULL, "expected an array of 3 numbers, got %s",
                            tc_json_type_name(v));
    }
    double c[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        char p[TC_JSON_PATH_MAX];
        tc_json_path_index(p, path, i);
        tc_result r = number_value(j, cJSON_GetArrayItem(v, i), p, NULL, &c[i]);
        if (r != TC_RESULT_OK) return r;
    }
    *out = tc_v3(c[0], c[1], c[2]);
    return TC_RESULT_OK;
}

tc_result tc_json_vec3(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                       tc_vec3* out) {
    const cJSON* v;
    tc_result r = lookup(j, obj, path, key, required, &v);
    if (r != TC_RESULT_OK || !v) return r;
    char p[TC_JSON_PATH_MAX];
    tc_json_path_key(p, path, key);
    return tc_json_vec3_value(j, v, p, out);
}

tc_result tc_json_quat(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                       tc_quat* out) {
    const cJSON* v;
    tc_result r = lookup(j, obj, path, key, required, &v);
    if (r != TC_RESULT_OK || !v) return r;
    char p[TC_JSON_PATH_MAX];
    tc_json_path_key(p, path, key);
    static const char* const names[] = {"x", "y", "z", "w", NULL};
    r = tc_json_check_object(j, v, p, names);
    if (r != TC_RESULT_OK) return r;
    tc_real c[4];
    for (int i = 0; i < 4; ++i) {
        r = tc_json_real(j, v, p, names[i], true, TC_JSON_ANY, &c[i]);
        if (r != TC_RESULT_OK) return r;
    }
    tc_quat q = tc_quat_make(c[0], c[1], c[2], c[3]);
    tc_real len = tc_quat_len(q);
    if (!(len > 1e-9)) return tc_json_fail(j, TC_RESULT_DEGENERATE, p, NULL, "quaternion has zero length");
    *out = tc_quat_make(q.x / len, q.y / len, q.z / len, q.w / len);
    return TC_RESULT_OK;
}

tc_result tc_json_array(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                        const cJSON** out) {
    tc_result r = lookup(j, obj, path, key, required, out);
    if (r != TC_RESULT_OK || !*out) return r;
    if (!cJSON_IsArray(*out))
        return tc_json_fail(j, TC_RESULT_WRONG_TYPE, path, key, "expected an array, got %s", tc_json_type_name(*out));
    return TC_RESULT_OK;
}

tc_result tc_json_object(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                         const cJSON** out) {
    tc_result r = lookup(j, obj, path, key, required, out);
    if (r != TC_RESULT_OK || !*out) return r;
    if (!cJSON_IsObject(*out))
        return tc_json_fail(j, TC_RESULT_WRONG_TYPE, path, key, "expected an object, got %s", tc_json_type_name(*out));
    return TC_RESULT_OK;
}

cJSON* tc_json_parse(const tc_json* j, const char* text) {
    const char* end = NULL;
    cJSON* root = cJSON_ParseWithOpts(text, &end, true);
    if (root) return root;
    const char* at = end ? end : text;
    int line = 1;
    for (const char* c = text; c < at && *c; ++c)
        if (*c == '\n') line++;
    char near[24] = "";
    size_t k = 0;
    for (const char* c = at; *c && *c != '\n' && k + 1 < sizeof near; ++c) near[k++] = *c;
    near[k] = '\0';
    char where[32];
    snprintf(where, sizeof where, "line %d", line);
    tc_error_set(j->error, TC_RESULT_PARSE, j->file, where, "JSON syntax error near '%s'", near);
    if (j->error) j->error->line = line;
    return NULL;
}
