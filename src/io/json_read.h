// JSON reading helpers for scene files: typed getters with range checks, dotted-path tracking
// and unknown-field detection. Every error reads "file: path.to.field: problem".
#ifndef TC_JSON_READ_H
#define TC_JSON_READ_H

#include <cjson/cJSON.h>
#include "tactus/base.h"
#include "tactus/math.h"

/// Longest dotted path a field can have ("bodies[12].shapes[3].half_extents").
#define TC_JSON_PATH_MAX 256

/// Where errors go: the file name used in messages and the error to fill (may be NULL).
typedef struct tc_json {
    const char* file;
    tc_error* error;
} tc_json;

/// An allowed interval for a number. Use the TC_JSON_* ranges below or build one.
typedef struct tc_json_range {
    double lo, hi;
    bool lo_open, hi_open;
} tc_json_range;

extern const tc_json_range TC_JSON_ANY;          ///< any finite number
extern const tc_json_range TC_JSON_POSITIVE;     ///< > 0
extern const tc_json_range TC_JSON_NON_NEGATIVE; ///< >= 0
extern const tc_json_range TC_JSON_UNIT;         ///< [0, 1]

/// path = parent + "." + key (or key when parent is empty).
void tc_json_path_key(char out[TC_JSON_PATH_MAX], const char* parent, const char* key);
/// path = parent + "[" index "]".
void tc_json_path_index(char out[TC_JSON_PATH_MAX], const char* parent, int index);

/// Sets an error at parent.key; returns code.
tc_result tc_json_fail(const tc_json* j, tc_result code, const char* parent, const char* key, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/// Name of a cJSON value's type for messages: "a number", "a string", "an array", ...
const char* tc_json_type_name(const cJSON* v);

/// Fails unless obj is an object whose every key is in allowed (NULL-terminated list).
tc_result tc_json_check_object(const tc_json* j, const cJSON* obj, const char* path, const char* const* allowed);

/// The member key of obj, or NULL. Matching is case-sensitive.
const cJSON* tc_json_member(const cJSON* obj, const char* key);

/// Optional getters leave *out unchanged when the key is absent; required ones fail with MISSING_FIELD.
tc_result tc_json_real(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                       tc_json_range range, tc_real* out);
tc_result tc_json_int(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                      int lo, int hi, int* out);
tc_result tc_json_bool(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required, bool* out);
/// *out points into the cJSON tree (valid while the tree lives).
tc_result tc_json_string(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                         const char** out);
/// One of names (NULL-terminated); *out gets its index.
tc_result tc_json_enum(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                       const char* const* names, int* out);
/// An array of 3 finite numbers.
tc_result tc_json_vec3(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                       tc_vec3* out);
/// A vec3 from a value (for arrays of points); path names the value itself.
tc_result tc_json_vec3_value(const tc_json* j, const cJSON* v, const char* path, tc_vec3* out);
/// {"x","y","z","w"} with non-zero length; normalised on output.
tc_result tc_json_quat(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                       tc_quat* out);
/// An array member; *out NULL when absent and optional.
tc_result tc_json_array(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                        const cJSON** out);
/// An object member; *out NULL when absent and optional.
tc_result tc_json_object(const tc_json* j, const cJSON* obj, const char* path, const char* key, bool required,
                         const cJSON** out);

/// Parses text; on a syntax error fills "file: line N: JSON syntax error near '...'" and returns NULL.
cJSON* tc_json_parse(const tc_json* j, const char* text);

#endif
