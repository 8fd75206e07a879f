// Checkpoints: a resumed scene is bit-identical to an uninterrupted one; damaged files and
// body kinds without checkpoint support give clear errors, never a crash.
#include "tc_test.h"

#include <stdio.h>
#include <string.h>

#include "core/core.h"

static const char* scene_path(void) { return TACTUS_SOURCE_DIR "/scenes/events.json"; }
static const char* ck_path(void) { return TACTUS_BINARY_DIR "/test_checkpoint.tcck"; }

static void step_n(tc_scene* s, int n) {
    tc_error e;
    for (int i = 0; i < n; ++i) assert_int_equal(tc_scene_step(s, &e), TC_RESULT_OK);
}

static void test_resume_is_bit_identical(void** state) {
    (void)state;
    tc_error e;
    tc_scene* a = tc_scene_load(scene_path(), &e);
    assert_non_null(a);
    step_n(a, 70); // past the removal event at 1 s
    const char extra[] = "application data";
    assert_int_equal(tc_scene_write_checkpoint(a, ck_path(), extra, sizeof extra, &e), TC_RESULT_OK);
    step_n(a, 50);
    void* got = NULL;
    size_t got_size = 0;
    tc_scene* b = tc_scene_resume(ck_path(), &got, &got_size, &e);
    assert_non_null(b);
    assert_int_equal(got_size, sizeof extra);
    assert_memory_equal(got, extra, sizeof extra);
    tc_checkpoint_free_extra(got, got_size);
    assert_int_equal(tc_world_get_body_count(tc_scene_world(b)), tc_world_get_body_count(tc_scene_world(a)));
    assert_near(tc_world_get_stats(tc_scene_world(b)).time, 70 * 0.016667, 1e-9);
    step_n(b, 50);
    assert_true(tc_world_hash(tc_scene_world(a)) == tc_world_hash(tc_scene_world(b)));
    tc_scene_destroy(a);
    tc_scene_destroy(b);
}

static long file_size(const char* path) {
    FILE* f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void write_prefix(const char* from, const char* to, long n, int flip_at) {
    FILE* in = fopen(from, "rb");
    FILE* out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    for (long i = 0; i < n; ++i) {
        int c = fgetc(in);
        fputc(i == flip_at ? c ^ 0x5a : c, out);
    }
    fclose(in);
    fclose(out);
}

// Every truncation and a flipped byte in each region must fail cleanly with a message naming the file.
static void test_damaged_files_are_refused(void** state) {
    (void)state;
    tc_error e;
    tc_scene* a = tc_scene_load(scene_path(), &e);
    assert_non_null(a);
    step_n(a, 10);
    assert_int_equal(tc_scene_write_checkpoint(a, ck_path(), NULL, 0, &e), TC_RESULT_OK);
    tc_scene_destroy(a);
    const char* cut = TACTUS_BINARY_DIR "/test_checkpoint_cut.tcck";
    long n = file_size(ck_path());
    for (long len = 0; len < n; len += len < 64 ? 1 : 97) {
        write_prefix(ck_path(), cut, len, -1);
        assert_null(tc_scene_resume(cut, NULL, NULL, &e));
        assert_non_null(strstr(e.message, "test_checkpoint_cut.tcck"));
    }
    for (int at = 0; at < 8; ++at) { // the magic
        write_prefix(ck_path(), cut, n, at);
        assert_null(tc_scene_resume(cut, NULL, NULL, &e));
        assert_non_null(strstr(e.message, "not a Tactus checkpoint"));
    }
    write_prefix(ck_path(), cut, n, (int)(n - 200)); // the body state: caught by the hash check
    assert_null(tc_scene_resume(cut, NULL, NULL, &e));
    assert_null(tc_scene_resume(TACTUS_BINARY_DIR "/no_such.tcck", NULL, NULL, &e));
    assert_int_equal(e.code, TC_RESULT_IO);
}

// Point bodies resume bit-identically, surfels included, even across a fracture that happens
// after the checkpoint; once a body has split the world cannot be written (the scene does not
// create the parts) and the error names the body, leaving no file.
static void test_points_resume_and_split_refused(void** state) {
    (void)state;
    tc_error e;
    tc_scene* a = tc_test_load_scene("points_fracture");
    // The split comes at step ~100-135 depending on the compiler's rounding (the stretch is
    // chaotic near the break): checkpoint well before it and step well past it.
    step_n(a, 60);
    assert_int_equal(tc_world_get_body_count(tc_scene_world(a)), 2);
    assert_int_equal(tc_scene_write_checkpoint(a, ck_path(), NULL, 0, &e), TC_RESULT_OK);
    step_n(a, 100);
    tc_scene* b = tc_scene_resume(ck_path(), NULL, NULL, &e);
    if (!b) fail_msg("%s", e.message);
    step_n(b, 100);
    tc_world *wa = tc_scene_world(a), *wb = tc_scene_world(b);
    assert_int_equal(tc_world_get_body_count(wa), 3); // the putty split in both runs
    assert_int_equal(tc_world_get_body_count(wb), 3);
    assert_true(tc_world_hash(wa) == tc_world_hash(wb));
    tc_body_id putty_a = tc_world_find_body(wa, "putty"), putty_b = tc_world_find_body(wb, "putty");
    int ns = tc_points_body_get_surfel_count(wa, putty_a);
    assert_int_equal(ns, tc_points_body_get_surfel_count(wb, putty_b));
    tc_vec3* sa = malloc(2 * (size_t)ns * sizeof(tc_vec3));
    assert_int_equal(tc_points_body_get_surfels(wa, putty_a, sa, NULL, ns), ns);
    assert_int_equal(tc_points_body_get_surfels(wb, putty_b, sa + ns, NULL, ns), ns);
    assert_memory_equal(sa, sa + ns, (size_t)ns * sizeof(tc_vec3));
    free(sa);
    const char* path = TACTUS_BINARY_DIR "/test_checkpoint_unsupported.tcck";
    remove(path);
    assert_int_equal(tc_scene_write_checkpoint(a, path, NULL, 0, &e), TC_RESULT_UNSUPPORTED);
    assert_non_null(strstr(e.message, "\"putty"));
    assert_non_null(strstr(e.message, "fracture"));
    assert_non_null(strstr(e.message, "test_checkpoint_unsupported.tcck"));
    FILE* f = fopen(path, "rb"); // nothing half-written
    assert_null(f);
    tc_scene_destroy(a);
    tc_scene_destroy(b);
}

// A body added through the API after loading is not in the scene: the resume names the slots.
static void test_body_outside_scene_refused(void** state) {
    (void)state;
    tc_error e;
    tc_scene* s = tc_scene_load(scene_path(), &e);
    assert_non_null(s);
    tc_points_body_def q = tc_points_body_def_default();
    q.base.pose.p = tc_v3(0, -3, 1);
    tc_body_id id;
    assert_int_equal(tc_points_body_create(tc_scene_world(s), &q, &id, &e), TC_RESULT_OK);
    assert_int_equal(tc_scene_write_checkpoint(s, ck_path(), NULL, 0, &e), TC_RESULT_OK);
    assert_null(tc_scene_resume(ck_path(), NULL, NULL, &e));
    assert_non_null(strstr(e.message, "body slots do not match"));
    tc_scene_destroy(s);
}

// The other checkpointed kinds: quasi-rigid (rigid frame + layer outputs), mass-spring, points,
// tet (whose CG starts from the last three steps' velocity changes, so they are in the state too).
static void test_resume_other_kinds(void** state) {
    (void)state;
    const char* scenes[4] = {"qr_room", "springs_box_flip", "points_press", "tet_cubes"};
    for (int k = 0; k < 4; ++k) {
        char path[512];
        snprintf(path, sizeof path, "%s/scenes/%s.json", TACTUS_SOURCE_DIR, scenes[k]);
        tc_error e;
        tc_scene* a = tc_scene_load(path, &e);
        assert_non_null(a);
        step_n(a, 30);
        assert_int_equal(tc_scene_write_checkpoint(a, ck_path(), NULL, 0, &e), TC_RESULT_OK);
        step_n(a, 20);
        tc_scene* b = tc_scene_resume(ck_path(), NULL, NULL, &e);
        if (!b) fail_msg("%s", e.message);
        step_n(b, 20);
        assert_true(tc_world_hash(tc_scene_world(a)) == tc_world_hash(tc_scene_world(b)));
        tc_scene_destroy(a);
        tc_scene_destroy(b);
    }
}

static tc_quasi_stats egg_stats(tc_scene* s) {
    tc_world* w = tc_scene_world(s);
    return tc_quasi_body_get_stats(w, tc_world_find_body(w, "egg"));
}

// A quasi-rigid body in contact round-trips its layer outputs and its whole stats record (the
// iterative solver's counters included) bit for bit.
static void test_quasi_state_round_trip(void** state) {
    (void)state;
    tc_error e;
    tc_scene* a = tc_test_load_scene("qr_room");
    int steps = 0;
    while (egg_stats(a).contacts == 0 && steps < 400) step_n(a, 1), ++steps;
    tc_quasi_stats before = egg_stats(a);
    assert_true(before.contacts > 0 && before.active_nodes > 0 && before.pivots + before.cg_steps > 0);
    assert_int_equal(tc_scene_write_checkpoint(a, ck_path(), NULL, 0, &e), TC_RESULT_OK);
    tc_scene* b = tc_scene_resume(ck_path(), NULL, NULL, &e);
    if (!b) fail_msg("%s", e.message);
    tc_quasi_stats after = egg_stats(b);
    assert_int_equal(after.active_nodes, before.active_nodes);
    assert_int_equal(after.contacts, before.contacts);
    assert_int_equal(after.pivots, before.pivots);
    assert_int_equal(after.cg_steps, before.cg_steps);
    assert_int_equal(after.fallbacks, before.fallbacks);
    assert_true(after.solve_time == before.solve_time);
    enum { cap = 4096 };
    static tc_real ta[cap], da[cap], tb[cap], db[cap];
    tc_world *wa = tc_scene_world(a), *wb = tc_scene_world(b);
    int na = tc_quasi_body_get_tractions(wa, tc_world_find_body(wa, "egg"), ta, da, cap);
    int nb = tc_quasi_body_get_tractions(wb, tc_world_find_body(wb, "egg"), tb, db, cap);
    assert_true(na > 0 && na <= cap);
    assert_int_equal(na, nb);
    assert_memory_equal(ta, tb, (size_t)na * sizeof(tc_real));
    assert_memory_equal(da, db, (size_t)na * sizeof(tc_real));
    tc_scene_destroy(a);
    tc_scene_destroy(b);
}

// A file of the previous format version (quasi stats without the solver counters) is refused by
// its version number, even with a valid checksum.
static void test_old_version_refused(void** state) {
    (void)state;
    tc_error e;
    tc_scene* a = tc_scene_load(scene_path(), &e);
    assert_non_null(a);
    step_n(a, 5);
    assert_int_equal(tc_scene_write_checkpoint(a, ck_path(), NULL, 0, &e), TC_RESULT_OK);
    tc_scene_destroy(a);
    long n = file_size(ck_path());
    uint8_t* data = malloc((size_t)n);
    FILE* f = fopen(ck_path(), "rb");
    assert_non_null(f);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    int64_t version = 1, sum;
    memcpy(data + 8, &version, sizeof version); // after the 8-byte magic
    sum = (int64_t)tc_hash_bytes(TC_HASH_SEED, data, (size_t)n - sizeof sum);
    memcpy(data + n - sizeof sum, &sum, sizeof sum);
    const char* old = TACTUS_BINARY_DIR "/test_checkpoint_v1.tcck";
    f = fopen(old, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    free(data);
    assert_null(tc_scene_resume(old, NULL, NULL, &e));
    assert_int_equal(e.code, TC_RESULT_UNSUPPORTED);
    assert_non_null(strstr(e.message, "version 1"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_is_bit_identical),
        cmocka_unit_test(test_damaged_files_are_refused),
        cmocka_unit_test(test_points_resume_and_split_refused),
        cmocka_unit_test(test_body_outside_scene_refused),
        cmocka_unit_test(test_resume_other_kinds),
        cmocka_unit_test(test_quasi_state_round_trip),
        cmocka_unit_test(test_old_version_refused),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
