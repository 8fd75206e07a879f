// Body-name hash index: after random inserts and removals (with duplicate names and the
// wrap-around of probe chains), every lookup equals a brute-force scan for the lowest slot.
#include "tc_test.h"

#include "world/name_index.h"

#include <stdio.h>

enum { SLOTS = 3000, NAMES = 700 };
typedef struct { char names[SLOTS][16]; bool live[SLOTS]; } table;

static const char* name_of(const void* owner, int32_t slot) { return ((const table*)owner)->names[slot]; }

static int32_t brute_find(const table* t, const char* name) {
    for (int s = 0; s < SLOTS; ++s)
        if (t->live[s] && strcmp(t->names[s], name) == 0) return s;
    return -1;
}

static uint32_t next_random(uint32_t* x) {
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

static void check_all_names(const tc_name_index* idx, const table* t) {
    char name[16];
    for (int k = 0; k < NAMES + 5; ++k) { // a few names never used
        snprintf(name, sizeof name, "b%d", k);
        assert_int_equal(tc_name_index_find(idx, t, name_of, name), brute_find(t, name));
    }
}

static void test_matches_brute_force(void** state) {
    (void)state;
    static table t;
    memset(&t, 0, sizeof t);
    tc_name_index idx = {0};
    uint32_t rng = 12345;
    for (int round = 0; round < 20000; ++round) {
        int s = (int)(next_random(&rng) % SLOTS);
        if (t.live[s]) {
            tc_name_index_remove(&idx, &t, name_of, s);
            t.live[s] = false;
        } else {
            snprintf(t.names[s], sizeof t.names[s], "b%u", next_random(&rng) % NAMES); // duplicates on purpose
            assert_true(tc_name_index_insert(&idx, &t, name_of, s));
            t.live[s] = true;
        }
        if (round % 2000 == 0) check_all_names(&idx, &t);
    }
    check_all_names(&idx, &t);
    int live = 0;
    for (int s = 0; s < SLOTS; ++s) live += t.live[s];
    assert_int_equal(idx.count, live);
    assert_true(2 * idx.count <= idx.capacity);
    tc_name_index_free(&idx);
}

static void test_empty_names_are_not_indexed(void** state) {
    (void)state;
    static table t;
    memset(&t, 0, sizeof t);
    tc_name_index idx = {0};
    t.live[0] = true;
    assert_true(tc_name_index_insert(&idx, &t, name_of, 0));
    assert_int_equal(idx.count, 0);
    assert_int_equal(tc_name_index_find(&idx, &t, name_of, ""), -1);
    assert_int_equal(tc_name_index_find(&idx, &t, name_of, NULL), -1);
    tc_name_index_free(&idx);
}

static void test_world_find_after_destroy(void** state) {
    (void)state;
    tc_world_def d = tc_world_def_default();
    tc_world* w = tc_world_create(&d, NULL);
    tc_shape_def s = tc_shape_def_default(TC_SHAPE_SPHERE);
    tc_rigid_body_def def = tc_rigid_body_def_default();
    def.shapes = &s;
    def.shape_count = 1;
    tc_body_id ids[200];
    char name[16];
    for (int i = 0; i < 200; ++i) {
        snprintf(name, sizeof name, "ball%d", i);
        def.base.name = name;
        assert_int_equal(tc_rigid_body_create(w, &def, &ids[i], NULL), TC_RESULT_OK);
    }
    for (int i = 0; i < 200; i += 2) assert_int_equal(tc_body_destroy(w, ids[i]), TC_RESULT_OK);
    for (int i = 0; i < 200; ++i) {
        snprintf(name, sizeof name, "ball%d", i);
        tc_body_id found = tc_world_find_body(w, name);
        if (i % 2) assert_true(tc_body_id_equal(found, ids[i]));
        else assert_true(tc_body_id_is_null(found));
    }
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_brute_force),
        cmocka_unit_test(test_empty_names_are_not_indexed),
        cmocka_unit_test(test_world_find_after_destroy),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
