// JSON reading helpers: typed getters, ranges, paths and unknown-field detection.
#include "tc_test.h"
#include "io/json_read.h"

static cJSON* parse(const char* text) {
    cJSON* root = cJSON_Parse(text);
    assert_non_null(root);
    return root;
}

static void test_paths(void** state) {
    (void)state;
    char p[TC_JSON_PATH_MAX], q[TC_JSON_PATH_MAX];
    tc_json_path_key(p, "", "bodies");
    assert_string_equal(p, "bodies");
    tc_json_path_index(q, p, 3);
    tc_json_path_key(p, q, "shapes");
    tc_json_path_index(q, p, 0);
    assert_string_equal(q, "bodies[3].shapes[0]");
}

static void test_reals_and_ranges(void** state) {
    (void)state;
    tc_error e;
    tc_json j = {"f.json", &e};
    cJSON* o = parse("{\"a\": 2.5, \"neg\": -1, \"zero\": 0, \"s\": \"x\", \"big\": 1e999, \"i\": 7, \"f\": 7.5}");
    tc_real x = 42;
    assert_int_equal(tc_json_real(&j, o, "w", "a", true, TC_JSON_POSITIVE, &x), TC_RESULT_OK);
    assert_near(x, 2.5, 0);
    x = 42;
    assert_int_equal(tc_json_real(&j, o, "w", "absent", false, TC_JSON_ANY, &x), TC_RESULT_OK);
    assert_near(x, 42, 0); // optional and absent: unchanged
    assert_int_equal(tc_json_real(&j, o, "w", "absent", true, TC_JSON_ANY, &x), TC_RESULT_MISSING_FIELD);
    assert_string_equal(e.message, "f.json: w.absent: missing required field");
    assert_int_equal(tc_json_real(&j, o, "w", "zero", true, TC_JSON_POSITIVE, &x), TC_RESULT_OUT_OF_RANGE);
    assert_string_equal(e.message, "f.json: w.zero: must be positive (got 0)");
    assert_int_equal(tc_json_real(&j, o, "w", "zero", true, TC_JSON_NON_NEGATIVE, &x), TC_RESULT_OK);
    assert_int_equal(tc_json_real(&j, o, "w", "neg", true, TC_JSON_UNIT, &x), TC_RESULT_OUT_OF_RANGE);
    assert_string_equal(e.message, "f.json: w.neg: must be in [0, 1] (got -1)");
    tc_json_range open = {0, 1, true, true};
    assert_int_equal(tc_json_real(&j, o, "w", "zero", true, open, &x), TC_RESULT_OUT_OF_RANGE);
    assert_string_equal(e.message, "f.json: w.zero: must be in (0, 1) (got 0)");
    assert_int_equal(tc_json_real(&j, o, "w", "s", true, TC_JSON_ANY, &x), TC_RESULT_WRONG_TYPE);
    assert_string_equal(e.message, "f.json: w.s: expected a number, got a string");
    assert_int_equal(tc_json_real(&j, o, "w", "big", true, TC_JSON_ANY, &x), TC_RESULT_NOT_FINITE);
    int i = 0;
    assert_int_equal(tc_json_int(&j, o, "w", "i", true, 0, 10, &i), TC_RESULT_OK);
    assert_int_equal(i, 7);
    assert_int_equal(tc_json_int(&j, o, "w", "i", true, 8, 10, &i), TC_RESULT_OUT_OF_RANGE);
    assert_string_equal(e.message, "f.json: w.i: must be in [8, 10] (got 7)");
    assert_int_equal(tc_json_int(&j, o, "w", "f", true, 0, 10, &i), TC_RESULT_WRONG_TYPE);
    cJSON_Delete(o);
}

static void test_strings_enums_bools(void** state) {
    (void)state;
    tc_error e;
    tc_json j = {"f.json", &e};
    cJSON* o = parse("{\"m\": \"tracking\", \"b\": true, \"n\": 1, \"bad\": \"other\"}");
    static const char* const names[] = {"gauss_map", "tracking", NULL};
    int k = -1;
    assert_int_equal(tc_json_enum(&j, o, "", "m", true, names, &k), TC_RESULT_OK);
    assert_int_equal(k, 1);
    assert_int_equal(tc_json_enum(&j, o, "", "bad", true, names, &k), TC_RESULT_OUT_OF_RANGE);
    assert_string_equal(e.message, "f.json: bad: unknown value \"other\" (expected one of: gauss_map, tracking)");
    bool b = false;
    assert_int_equal(tc_json_bool(&j, o, "", "b", true, &b), TC_RESULT_OK);
    assert_true(b);
    assert_int_equal(tc_json_bool(&j, o, "", "n", true, &b), TC_RESULT_WRONG_TYPE);
    assert_string_equal(e.message, "f.json: n: expected a boolean, got a number");
    const char* s = NULL;
    assert_int_equal(tc_json_string(&j, o, "", "n", true, &s), TC_RESULT_WRONG_TYPE);
    cJSON_Delete(o);
}

static void test_vec3_quat_objects(void** state) {
    (void)state;
    tc_error e;
    tc_json j = {"f.json", &e};
    cJSON* o = parse("{\"v\": [1, 2, 3], \"v2\": [1, 2], \"q\": {\"x\": 0, \"y\": 0, \"z\": 3, \"w\": 4},"
                     "\"q2\": {\"x\": 0, \"y\": 0, \"z\": 0}, \"obj\": {\"a\": 1, \"zz\": 2}}");
    tc_vec3 v;
    assert_int_equal(tc_json_vec3(&j, o, "p", "v", true, &v), TC_RESULT_OK);
    assert_vec3_near(v, tc_v3(1, 2, 3), 0);
    assert_int_equal(tc_json_vec3(&j, o, "p", "v2", true, &v), TC_RESULT_WRONG_TYPE);
    assert_string_equal(e.message, "f.json: p.v2: expected an array of 3 numbers, got 2 elements");
    tc_quat q;
    assert_int_equal(tc_json_quat(&j, o, "p", "q", true, &q), TC_RESULT_OK);
    assert_near(q.z, 0.6, 1e-15);
    assert_near(q.w, 0.8, 1e-15); // normalised
    assert_int_equal(tc_json_quat(&j, o, "p", "q2", true, &q), TC_RESULT_MISSING_FIELD);
    assert_string_equal(e.message, "f.json: p.q2.w: missing required field");
    static const char* const allowed[] = {"a", NULL};
    const cJSON* obj = NULL;
    assert_int_equal(tc_json_object(&j, o, "p", "obj", true, &obj), TC_RESULT_OK);
    assert_int_equal(tc_json_check_object(&j, obj, "p.obj", allowed), TC_RESULT_UNKNOWN_FIELD);
    assert_string_equal(e.message, "f.json: p.obj: unknown field \"zz\"");
    const cJSON* arr = NULL;
    assert_int_equal(tc_json_array(&j, o, "p", "obj", true, &arr), TC_RESULT_WRONG_TYPE);
    assert_string_equal(e.message, "f.json: p.obj: expected an array, got an object");
    cJSON_Delete(o);
}

static void test_parse_errors_and_duplicates(void** state) {
    (void)state;
    tc_error e;
    tc_json j = {"f.json", &e};
    assert_null(tc_json_parse(&j, "{\n\"a\": 1,\n\"b\": [1, 2,, 3]\n}"));
    assert_string_equal(e.message, "f.json: line 3: JSON syntax error near ', 3]'");
    assert_int_equal(e.line, 3);
    cJSON* o = tc_json_parse(&j, "{\"a\": 1, \"a\": 2}");
    assert_non_null(o);
    static const char* const allowed[] = {"a", NULL};
    assert_int_equal(tc_json_check_object(&j, o, "", allowed), TC_RESULT_PARSE);
    assert_string_equal(e.message, "f.json: a: field given twice");
    cJSON_Delete(o);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_reals_and_ranges),
        cmocka_unit_test(test_strings_enums_bools),
        cmocka_unit_test(test_vec3_quat_objects),
        cmocka_unit_test(test_parse_errors_and_duplicates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
