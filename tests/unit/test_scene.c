// Scene loader: good scenes build the right world; every bad input gets its exact message.
#include "tc_test.h"
#include "io/scene_internal.h"


static char tmp_dir[256];

static int make_tmp_dir(void** state) {
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "%s/test_scene_tmp", TACTUS_BINARY_DIR);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/// Writes text to tmp_dir/name and returns the path in buf.
static const char* write_tmp(const char* name, const char* text, char* buf, size_t n) {
    snprintf(buf, n, "%s/%s", tmp_dir, name);
    FILE* f = fopen(buf, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return buf;
}

/// Loads text as scene "bad.json" and checks the error message is exactly "<path>: expected".
static void expect_error(const char* text, const char* expected, tc_result code) {
    char path[512], want[1400];
    write_tmp("bad.json", text, path, sizeof path);
    tc_error e;
    int64_t bytes = tc_get_byte_count();
    tc_scene* s = tc_scene_load(path, &e);
    if (s) {
        tc_scene_destroy(s);
        print_error("scene loaded but should fail with: %s\n", expected);
        fail();
    }
    snprintf(want, sizeof want, "%s: %s", path, expected);
    if (strcmp(e.message, want) != 0) {
        print_error("got      '%s'\nexpected '%s'\n", e.message, want);
        fail();
    }
    assert_int_equal(e.code, code);
    assert_int_equal(tc_get_byte_count(), bytes); // nothing half-built is left behind
}

#define GROUND "{\"type\":\"static\",\"name\":\"ground\",\"shapes\":[{\"type\":\"plane\"}]}"
#define BOX(name, z) "{\"type\":\"rigid\",\"name\":\"" name "\",\"position\":[0,0," #z "],\"shapes\":[{\"type\":\"box\",\"half_extents\":[0.5,0.5,0.5]}]}"

static void test_bad_inputs(void** state) {
    (void)state;
    expect_error("{\"bodies\": [\n" GROUND ",\n {\"type\": \"rigid\" \"name\": 1}]}",
                 "line 3: JSON syntax error near '\"name\": 1}]}'", TC_RESULT_PARSE);
    expect_error("{\"bodies\":[" GROUND "," BOX("a", 1) ",{\"type\":\"rigid\",\"mass\":-1,\"shapes\":[{\"type\":\"sphere\",\"radius\":1}]}]}",
                 "bodies[2].mass: must be positive (got -1); 0 derives it from densities", TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"shapes\":[{\"type\":\"sphere\",\"radius\":1},{\"type\":\"sphere\",\"radus\":1}]}]}",
                 "bodies[0].shapes[1]: unknown field \"radus\"", TC_RESULT_UNKNOWN_FIELD);
    expect_error("{\"world\":{\"time_step\":\"fast\"}}", "world.time_step: expected a number, got a string",
                 TC_RESULT_WRONG_TYPE);
    expect_error("{\"world\":{\"time_step\":1e999}}", "world.time_step: number is not finite (overflows a double)",
                 TC_RESULT_NOT_FINITE);
    expect_error("{\"bodies\":[{\"type\":\"jelly\"}]}", "bodies[0].type: unknown body type \"jelly\"", TC_RESULT_UNSUPPORTED);
    expect_error("{\"bodies\":[{\"name\":\"x\"}]}", "bodies[0].type: missing required field", TC_RESULT_MISSING_FIELD);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"shapes\":[{\"type\":\"sphere\",\"radius\":0}]}]}",
                 "bodies[0].shapes[0].radius: must be positive (got 0)", TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"shapes\":[{\"type\":\"box\",\"half_extents\":[1,-1,1]}]}]}",
                 "bodies[0].shapes[0].half_extents: must be positive (got [1, -1, 1])", TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"shapes\":[{\"type\":\"box\",\"half_extents\":[1,1]}]}]}",
                 "bodies[0].shapes[0].half_extents: expected an array of 3 numbers, got 2 elements", TC_RESULT_WRONG_TYPE);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"shapes\":[{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0]]}]}]}",
                 "bodies[0].shapes[0].points: a hull needs at least 4 points (got 3)", TC_RESULT_DEGENERATE);
}

/// The missing-mesh message embeds the resolved path; check its pieces.
static void test_missing_mesh_message(void** state) {
    (void)state;
    char path[512];
    write_tmp("mesh_missing.json",
              "{\"bodies\":[{\"type\":\"static\",\"shapes\":[{\"type\":\"trimesh\",\"mesh\":\"nope.obj\"}]}]}", path,
              sizeof path);
    tc_error e;
    assert_null(tc_scene_load(path, &e));
    assert_int_equal(e.code, TC_RESULT_IO);
    assert_non_null(strstr(e.message, "bodies[0].shapes[0].mesh: mesh \"nope.obj\": "));
    assert_non_null(strstr(e.message, "test_scene_tmp/nope.obj: cannot open file"));
}

static void test_mesh_parse_error(void** state) {
    (void)state;
    char mesh[512], path[512];
    write_tmp("broken.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", mesh, sizeof mesh);
    write_tmp("broken.json", "{\"bodies\":[{\"type\":\"static\",\"shapes\":[{\"type\":\"trimesh\",\"mesh\":\"broken.obj\"}]}]}",
              path, sizeof path);
    tc_error e;
    assert_null(tc_scene_load(path, &e));
    char want[1400];
    snprintf(want, sizeof want, "%s: bodies[0].shapes[0].mesh: mesh \"broken.obj\": %s: line 4: vertex index 9 out of range (3 vertices)",
             path, mesh);
    assert_string_equal(e.message, want);
}

static void test_bad_inputs_2(void** state) {
    (void)state;
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"orientation\":{\"x\":0,\"y\":0,\"z\":0,\"w\":0},\"shapes\":[{\"type\":\"sphere\",\"radius\":1}]}]}",
                 "bodies[0].orientation: quaternion has zero length", TC_RESULT_DEGENERATE);
    expect_error("{\"bodies\":[" BOX("a", 1) "," BOX("a", 3) "]}", "bodies[1].name: duplicate body name \"a\"",
                 TC_RESULT_INVALID_ARGUMENT);
    expect_error("{\"colour\": 1}", "unknown field \"colour\"", TC_RESULT_UNKNOWN_FIELD);
    expect_error("{\"world\":{\"position_correction\":\"magic\"}}",
                 "world.position_correction: unknown value \"magic\" (expected one of: soft_step, baumgarte, split_impulse)",
                 TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"world\":{\"sub_steps\":2.5}}", "world.sub_steps: expected an integer, got 2.5", TC_RESULT_WRONG_TYPE);
    expect_error("{\"bodies\":[{\"type\":\"tet\",\"solver_tolerance\":0.5}]}",
                 "bodies[0].solver_tolerance: must be in (0, 0.1] (got 0.5)", TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"world\":{\"threads\":0}}", "world.threads: must be in [1, 256] (got 0)", TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"bodies\":[" BOX("a", 1) "],\"events\":[{\"time\":1,\"action\":\"remove\",\"body\":\"b\"}]}",
                 "events[0].body: no body named \"b\"", TC_RESULT_INVALID_ARGUMENT);
    expect_error("{\"bodies\":[" BOX("a", 1) "],\"events\":[{\"time\":-1,\"action\":\"remove\",\"body\":\"a\"}]}",
                 "events[0].time: must not be negative (got -1)", TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"metrics\":[\"fun:a\"]}", "metrics[0]: unknown metric \"fun\"", TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"shapes\":[{\"type\":\"plane\"}]}]}",
                 "bodies[0].shapes[0].type: a plane can only belong to a static body", TC_RESULT_INVALID_ARGUMENT);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"shapes\":[]}]}", "bodies[0].shapes: needs 1 to 256 shapes (got 0)",
                 TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"camera\":{\"eye\":[1,1,1],\"target\":[1,1,1]}}", "camera: eye and target coincide", TC_RESULT_DEGENERATE);
    expect_error("{\"generators\":[{\"pattern\":\"pyramid\",\"base\":0}]}", "generators[0].base: must be in [1, 200] (got 0)",
                 TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"generators\":[{\"pattern\":\"spiral\"}]}",
                 "generators[0].pattern: unknown value \"spiral\" (expected one of: pyramid, wall, grid, random_hulls)",
                 TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"bodies\":[" BOX("a", 1) "],\"events\":[{\"time\":1,\"action\":\"force\",\"body\":\"a\"}]}",
                 "events[0].force: missing required field", TC_RESULT_MISSING_FIELD);
    expect_error("{\"bodies\": {}}", "bodies: expected an array, got an object", TC_RESULT_WRONG_TYPE);
    expect_error("[1, 2]", "expected an object, got an array", TC_RESULT_WRONG_TYPE);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"friction\":-0.1,\"shapes\":[{\"type\":\"sphere\",\"radius\":1}]}]}",
                 "bodies[0].friction: must not be negative (got -0.1)", TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"restitution\":1.5,\"shapes\":[{\"type\":\"sphere\",\"radius\":1}]}]}",
                 "bodies[0].restitution: must be in [0, 1] (got 1.5)", TC_RESULT_OUT_OF_RANGE);
}

static void test_hull_sources(void** state) {
    (void)state;
    char mesh[512];
    write_tmp("tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", mesh, sizeof mesh);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"shapes\":[{\"type\":\"hull\",\"mesh\":\"tri.obj\"}]}]}",
                 "bodies[0].shapes[0].mesh: a hull needs at least 4 points (got 3)", TC_RESULT_DEGENERATE);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"shapes\":[{\"type\":\"hull\"}]}]}",
                 "bodies[0].shapes[0]: give exactly one of \"points\" or \"mesh\"", TC_RESULT_MISSING_FIELD);
    expect_error("{\"bodies\":[{\"type\":\"rigid\",\"shapes\":[{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],[0,0,\"z\"]]}]}]}",
                 "bodies[0].shapes[0].points[3][2]: expected a number, got a string", TC_RESULT_WRONG_TYPE);
    expect_error("{\"bodies\":[{\"type\":\"static\",\"shapes\":[{\"type\":\"trimesh\",\"points\":[]}]}]}",
                 "bodies[0].shapes[0]: unknown field \"points\"", TC_RESULT_UNKNOWN_FIELD);
    // A valid hull is parsed fully; creating it needs the collision module (UNSUPPORTED until it lands).
    char path[512];
    write_tmp("hull.json",
              "{\"bodies\":[{\"type\":\"rigid\",\"name\":\"h\",\"shapes\":[{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}]}]}",
              path, sizeof path);
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    if (s) {
        tc_world* w = tc_scene_world(s);
        assert_near(tc_body_get_mass(w, tc_world_find_body(w, "h")), 1000.0 / 6.0, 1e-9); // density * tet volume
        tc_scene_destroy(s);
    } else {
        assert_int_equal(e.code, TC_RESULT_UNSUPPORTED);
    }
}

static void test_generator_errors(void** state) {
    (void)state;
    expect_error("{\"generators\":[{\"pattern\":\"random_hulls\",\"points\":3}]}",
                 "generators[0].points: must be in [4, 1000] (got 3)", TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"generators\":[{\"pattern\":\"wall\",\"colums\":3}]}", "generators[0]: unknown field \"colums\"",
                 TC_RESULT_UNKNOWN_FIELD);
    expect_error("{\"generators\":[{\"pattern\":\"grid\",\"count\":[2,2.5,2]}]}",
                 "generators[0].count: must hold 3 integers in [1, 1000]", TC_RESULT_OUT_OF_RANGE);
    expect_error("{\"generators\":[{\"pattern\":\"pyramid\",\"base\":1},{\"pattern\":\"pyramid\",\"base\":1}]}",
                 "generators[1].name: duplicate body name \"pyramid_0\"", TC_RESULT_INVALID_ARGUMENT);
    // random_hulls is deterministic: two loads give the same world (or, until the collision
    // module provides hulls, the same UNSUPPORTED error).
    char path[512];
    write_tmp("rain.json", "{\"generators\":[{\"pattern\":\"random_hulls\",\"count\":20,\"seed\":7}]}", path, sizeof path);
    tc_error e1, e2;
    tc_scene* a = tc_scene_load(path, &e1);
    tc_scene* b = tc_scene_load(path, &e2);
    assert_true((a == NULL) == (b == NULL));
    if (a) {
        assert_int_equal(tc_world_get_body_count(tc_scene_world(a)), 20);
        assert_true(tc_world_hash(tc_scene_world(a)) == tc_world_hash(tc_scene_world(b)));
    } else {
        assert_string_equal(e1.message, e2.message);
    }
    tc_scene_destroy(a);
    tc_scene_destroy(b);
}

static void test_missing_file(void** state) {
    (void)state;
    tc_error e;
    assert_null(tc_scene_load("/nonexistent/dir/scene.json", &e));
    assert_string_equal(e.message, "/nonexistent/dir/scene.json: cannot open file");
    assert_int_equal(e.code, TC_RESULT_IO);
    assert_null(tc_scene_load("/nonexistent/dir/scene.json", NULL)); // a NULL error is allowed
    char path[512];
    write_tmp("bad_null.json", "{\"world\": 3}", path, sizeof path);
    assert_null(tc_scene_load(path, NULL));
}

static void test_good_scene(void** state) {
    (void)state;
    char path[512];
    write_tmp("good.json",
              "{\"name\":\"t\",\"description\":\"d\",\"world\":{\"gravity\":[0,0,-2],\"time_step\":0.01,\"sub_steps\":2,"
              "\"position_correction\":\"baumgarte\",\"enable_sleep\":false},"
              "\"run\":{\"time\":2,\"every\":3},\"metrics\":[\"body_height:a\",\"body_count\"],"
              "\"bodies\":[" GROUND ",{\"type\":\"rigid\",\"name\":\"a\",\"position\":[1,2,3],\"mass\":4,"
              "\"velocity\":[1,0,0],\"orientation\":{\"x\":0,\"y\":0,\"z\":2,\"w\":0},"
              "\"shapes\":[{\"type\":\"box\",\"half_extents\":[0.5,0.5,0.5]}]},"
              "{\"type\":\"rigid\",\"name\":\"b\",\"shapes\":[{\"type\":\"sphere\",\"radius\":0.5,\"density\":2}]}]}",
              path, sizeof path);
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    if (!s) fail_msg("%s", e.message);
    tc_world* w = tc_scene_world(s);
    assert_string_equal(tc_scene_name(s), "t");
    assert_string_equal(tc_scene_description(s), "d");
    assert_string_equal(tc_scene_dir(s), tmp_dir);
    assert_int_equal(tc_world_get_body_count(w), 3);
    tc_world_def def = tc_world_get_def(w);
    assert_near(def.time_step, 0.01, 0);
    assert_near(def.gravity.z, -2, 0);
    assert_int_equal(def.sub_steps, 2);
    assert_int_equal(def.position_correction, TC_CORRECTION_BAUMGARTE);
    assert_false(def.enable_sleep);
    assert_near(tc_scene_run_settings(s).time, 2, 0);
    assert_int_equal(tc_scene_run_settings(s).every, 3);
    tc_body_id a = tc_world_find_body(w, "a"), b = tc_world_find_body(w, "b");
    assert_near(tc_body_get_mass(w, a), 4, 1e-12);
    assert_near(tc_body_get_mass(w, b), 2 * 4.0 / 3.0 * 3.14159265358979 * 0.125, 1e-9); // density * sphere volume
    tc_transform pa = tc_body_get_pose(w, a);
    assert_vec3_near(pa.p, tc_v3(1, 2, 3), 1e-12);
    assert_near(fabs(pa.q.z), 1, 1e-12); // orientation was normalised
    assert_int_equal(tc_scene_metric_count(s), 2);
    assert_string_equal(tc_scene_metric_label(s, 0), "body_height:a");
    assert_near(tc_scene_metric_value(s, 0), 3, 1e-12);
    assert_near(tc_scene_metric_value(s, 1), 3, 0);
    // Default camera looks at the bounds' centre.
    tc_scene_camera cam = tc_scene_get_camera(s);
    tc_aabb bb = tc_world_get_bounds(w);
    assert_vec3_near(cam.target, tc_v3_scale(tc_v3_add(bb.lo, bb.hi), 0.5), 1e-12);
    // Free fall of "a" under g = -2 for 10 steps matches the integrator's stepping of the world.
    for (int i = 0; i < 10; ++i) assert_int_equal(tc_scene_step(s, &e), TC_RESULT_OK);
    assert_near(tc_body_get_linear_velocity(w, a).z, -2 * 0.1, 1e-9);
    assert_near(tc_body_get_linear_velocity(w, a).x, 1, 1e-12);
    tc_scene_destroy(s);
}

static void test_scene_dir_and_relative_mesh(void** state) {
    (void)state;
    char mesh[512], path[512];
    write_tmp("tet.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n", mesh, sizeof mesh);
    write_tmp("tetmesh.json", "{\"bodies\":[{\"type\":\"static\",\"name\":\"t\",\"shapes\":[{\"type\":\"trimesh\",\"mesh\":\"tet.obj\"}]}]}",
              path, sizeof path);
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    // Trimesh creation needs the collision module; until it lands the body creation reports
    // UNSUPPORTED, which proves the mesh itself was found and parsed.
    if (s) {
        assert_int_equal(tc_world_get_body_count(tc_scene_world(s)), 1);
        tc_scene_destroy(s);
    } else {
        assert_int_equal(e.code, TC_RESULT_UNSUPPORTED);
        assert_non_null(strstr(e.message, "bodies[0]: cannot create body"));
    }
}

static void test_generators_deterministic(void** state) {
    (void)state;
    char path[512];
    write_tmp("gen.json",
              "{\"bodies\":[" GROUND "],\"generators\":[{\"pattern\":\"pyramid\",\"base\":4,\"half_extents\":[0.5,0.5,0.5]},"
              "{\"pattern\":\"wall\",\"name\":\"brick\",\"rows\":2,\"columns\":3,\"origin\":[0,5,0]},"
              "{\"pattern\":\"grid\",\"shape\":\"sphere\",\"radius\":0.2,\"count\":[2,2,2],\"origin\":[10,0,1]}]}",
              path, sizeof path);
    tc_error e;
    tc_scene* s1 = tc_scene_load(path, &e);
    if (!s1) fail_msg("%s", e.message);
    tc_scene* s2 = tc_scene_load(path, &e);
    tc_world* w = tc_scene_world(s1);
    assert_int_equal(tc_world_get_body_count(w), 1 + 10 + 7 + 8); // pyramid 4+3+2+1, wall 3 + (2 + 2 halves)
    assert_true(tc_body_is_valid(w, tc_world_find_body(w, "pyramid_9")));
    assert_true(tc_body_is_valid(w, tc_world_find_body(w, "brick_5")));
    assert_true(tc_body_is_valid(w, tc_world_find_body(w, "grid_7")));
    // Pyramid top sits at z = 7 * half height, centred in x; bottom row centred.
    assert_vec3_near(tc_body_get_pose(w, tc_world_find_body(w, "pyramid_9")).p, tc_v3(0, 0, 3.5), 1e-12);
    assert_vec3_near(tc_body_get_pose(w, tc_world_find_body(w, "pyramid_0")).p, tc_v3(-1.5, 0, 0.5), 1e-12);
    // Running bond: the second row starts with a half brick, then full bricks over the joints.
    assert_vec3_near(tc_body_get_pose(w, tc_world_find_body(w, "brick_3")).p, tc_v3(-1.25, 5, 1.5), 1e-12);
    assert_vec3_near(tc_body_get_pose(w, tc_world_find_body(w, "brick_4")).p, tc_v3(-0.5, 5, 1.5), 1e-12);
    assert_int_equal(tc_world_hash(w), tc_world_hash(tc_scene_world(s2)));
    tc_scene_destroy(s1);
    tc_scene_destroy(s2);
}

static void test_rng_deterministic(void** state) {
    (void)state;
    tc_rng a = {42}, b = {42};
    double sum = 0;
    for (int i = 0; i < 10000; ++i) {
        uint64_t x = tc_rng_next(&a);
        assert_true(x == tc_rng_next(&b));
        double u = tc_rng_uniform(&a);
        (void)tc_rng_uniform(&b);
        assert_true(u >= 0 && u < 1);
        sum += u;
    }
    assert_near(sum / 10000, 0.5, 0.02); // mean of U(0,1), 5 sigma ~ 0.015
}

static void test_events(void** state) {
    (void)state;
    char path[512];
    // Zero gravity: a force F for T seconds gives v = F T / m; an impulse J gives J / m;
    // set_velocity sets it; remove destroys the body.
    write_tmp("events.json",
              "{\"world\":{\"gravity\":[0,0,0],\"time_step\":0.01,\"enable_sleep\":false},"
              "\"bodies\":[{\"type\":\"rigid\",\"name\":\"a\",\"mass\":2,\"shapes\":[{\"type\":\"sphere\",\"radius\":0.5}]},"
              "{\"type\":\"rigid\",\"name\":\"b\",\"mass\":4,\"position\":[5,0,0],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.5}]},"
              "{\"type\":\"rigid\",\"name\":\"c\",\"position\":[9,0,0],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.5}]}],"
              "\"events\":[{\"time\":0.1,\"action\":\"force\",\"body\":\"a\",\"force\":[4,0,0],\"duration\":0.5},"
              "{\"time\":0.2,\"action\":\"impulse\",\"body\":\"b\",\"impulse\":[0,8,0]},"
              "{\"time\":0.3,\"action\":\"set_velocity\",\"body\":\"c\",\"velocity\":[0,0,3]},"
              "{\"time\":0.4,\"action\":\"remove\",\"body\":\"c\"}]}",
              path, sizeof path);
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    if (!s) fail_msg("%s", e.message);
    tc_world* w = tc_scene_world(s);
    tc_body_id a = tc_world_find_body(w, "a"), b = tc_world_find_body(w, "b"), c = tc_world_find_body(w, "c");
    for (int i = 0; i < 35; ++i) assert_int_equal(tc_scene_step(s, &e), TC_RESULT_OK);
    assert_near(tc_body_get_linear_velocity(w, c).z, 3, 1e-12);
    assert_near(tc_body_get_linear_velocity(w, b).y, 8.0 / 4.0, 1e-9);
    for (int i = 0; i < 65; ++i) assert_int_equal(tc_scene_step(s, &e), TC_RESULT_OK);
    assert_near(tc_body_get_linear_velocity(w, a).x, 4 * 0.5 / 2, 1e-9);
    assert_false(tc_body_is_valid(w, c));
    assert_int_equal(tc_world_get_body_count(w), 2);
    tc_scene_destroy(s);
}

static void test_event_on_removed_body_fails(void** state) {
    (void)state;
    char path[512];
    write_tmp("gone.json",
              "{\"world\":{\"time_step\":0.1},\"bodies\":[" BOX("a", 1) "],"
              "\"events\":[{\"time\":0.1,\"action\":\"remove\",\"body\":\"a\"},"
              "{\"time\":0.2,\"action\":\"impulse\",\"body\":\"a\",\"impulse\":[1,0,0]}]}",
              path, sizeof path);
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    if (!s) fail_msg("%s", e.message);
    assert_int_equal(tc_scene_step(s, &e), TC_RESULT_OK);
    assert_int_equal(tc_scene_step(s, &e), TC_RESULT_OK); // removes "a"
    assert_int_equal(tc_scene_step(s, &e), TC_RESULT_STALE_ID);
    char want[700];
    snprintf(want, sizeof want, "%s: events[1]: body \"a\" no longer exists at t = 0.2 s", path);
    assert_string_equal(e.message, want);
    tc_scene_destroy(s);
}

static tc_real metric_seven(const tc_world* world, const tc_scene* scene, const char* arg) {
    (void)world;
    (void)scene;
    return 7 + (tc_real)strlen(arg);
}

static void test_metric_registry(void** state) {
    (void)state;
    assert_int_equal(tc_metric_register("seven", metric_seven), TC_RESULT_OK);
    assert_int_equal(tc_metric_register("bad:name", metric_seven), TC_RESULT_INVALID_ARGUMENT);
    char path[512];
    write_tmp("metric.json", "{\"metrics\":[\"seven:abc\"]}", path, sizeof path);
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    if (!s) fail_msg("%s", e.message);
    assert_near(tc_scene_metric_value(s, 0), 10, 0);
    tc_scene_destroy(s);
}

static void test_every_repo_scene_loads(void** state) {
    (void)state;
    char path[512];
    tc_error e;
    tc_scene* s = tc_scene_load(tc_test_source_path("scenes/default.json", path, sizeof path), &e);
    if (!s) fail_msg("%s", e.message);
    assert_true(tc_world_get_body_count(tc_scene_world(s)) >= 5);
    tc_scene_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_bad_inputs_2),
        cmocka_unit_test(test_missing_mesh_message),
        cmocka_unit_test(test_mesh_parse_error),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_generator_errors),
        cmocka_unit_test(test_hull_sources),
        cmocka_unit_test(test_good_scene),
        cmocka_unit_test(test_scene_dir_and_relative_mesh),
        cmocka_unit_test(test_generators_deterministic),
        cmocka_unit_test(test_rng_deterministic),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_event_on_removed_body_fails),
        cmocka_unit_test(test_metric_registry),
        cmocka_unit_test(test_every_repo_scene_loads),
    };
    return cmocka_run_group_tests(tests, make_tmp_dir, NULL);
}
