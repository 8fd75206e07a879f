// Out of memory while creating bodies (points, tet, quasi, springs, a rigid box + hull): every allocation in turn is made to fail;
// creation must then return an error (never crash or leak a half-built body) and succeed once
// the failing allocation lies past the last one it makes.
#include "tc_test.h"

#include "tc_failing_alloc.h"

typedef tc_result create_fn(tc_world* w, tc_body_id* id, tc_error* e);

static tc_result create_points(tc_world* w, tc_body_id* id, tc_error* e) {
    tc_points_body_def d = tc_points_body_def_default();
    d.half_extents = tc_v3(0.1, 0.1, 0.1);
    d.phyxel_spacing = 0.05; // 64 phyxels
    d.surfel_spacing = 0.05; // 96 surfels
    return tc_points_body_create(w, &d, id, e);
}

static tc_result create_tet(tc_world* w, tc_body_id* id, tc_error* e) {
    tc_tet_body_def d = tc_tet_body_def_default();
    d.shape = TC_TET_SPHERE;
    d.radius = 0.1;
    d.resolution = 3;
    return tc_tet_body_create(w, &d, id, e);
}

static tc_result create_quasi(tc_world* w, tc_body_id* id, tc_error* e) {
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.shape = TC_QUASI_BOX;
    d.sample_count = 60;
    return tc_quasi_body_create(w, &d, id, e);
}

static tc_result create_springs(tc_world* w, tc_body_id* id, tc_error* e) {
    tc_springs_body_def d = tc_springs_body_def_default();
    d.shape = TC_SPRINGS_SPHERE;
    d.resolution = 1;
    return tc_springs_body_create(w, &d, id, e);
}

static tc_result create_rigid_hull(tc_world* w, tc_body_id* id, tc_error* e) {
    const tc_vec3 points[6] = {tc_v3(1, 0, 0), tc_v3(-1, 0, 0), tc_v3(0, 1, 0), tc_v3(0, -1, 0), tc_v3(0, 0, 1), tc_v3(0, 0, -1)};
    tc_shape_def shapes[2] = {tc_shape_def_default(TC_SHAPE_BOX), tc_shape_def_default(TC_SHAPE_HULL)};
    shapes[1].points = points;
    shapes[1].point_count = 6;
    tc_rigid_body_def d = tc_rigid_body_def_default();
    d.shapes = shapes;
    d.shape_count = 2;
    return tc_rigid_body_create(w, &d, id, e);
}

// Fails allocation k = 0, 1, 2, ... of the creation (each in a fresh world) until one run makes
// no failing allocation; after each, destroying the world must free every byte.
static void sweep(create_fn* create, const char* what) {
    tc_set_allocator(failing_alloc, plain_free, NULL);
    int64_t bytes = tc_get_byte_count();
    int failures = 0;
    for (int k = 0;; ++k) {
        tc_world_def wd = tc_world_def_default();
        tc_error e;
        tc_world* w = tc_world_create(&wd, &e);
        assert_non_null(w);
        arm(k);
        tc_body_id id;
        tc_result r = create(w, &id, &e);
        bool failed_alloc = s_alloc_count > k;
        arm(-1);
        if (r != TC_RESULT_OK && (e.code != r || !e.message[0])) fail_msg("%s: allocation %d failed without a message", what, k);
        if (r != TC_RESULT_OK && !failed_alloc) fail_msg("%s: %s", what, e.message);
        assert_int_equal(tc_world_get_body_count(w), r == TC_RESULT_OK ? 1 : 0);
        failures += r != TC_RESULT_OK;
        tc_world_destroy(w);
        if (tc_get_byte_count() != bytes)
            fail_msg("%s: %lld bytes leaked when allocation %d failed", what, (long long)(tc_get_byte_count() - bytes), k);
        if (!failed_alloc) break; // the creation made fewer than k + 1 allocations, and succeeded
    }
    assert_true(failures > 10);
    tc_set_allocator(NULL, NULL, NULL);
}

static void test_points_creation_out_of_memory(void** state) {
    (void)state;
    sweep(create_points, "points");
}

static void test_tet_creation_out_of_memory(void** state) {
    (void)state;
    sweep(create_tet, "tet");
}

static void test_quasi_creation_out_of_memory(void** state) {
    (void)state;
    sweep(create_quasi, "quasi");
}

static void test_springs_creation_out_of_memory(void** state) {
    (void)state;
    sweep(create_springs, "springs");
}

static void test_rigid_creation_out_of_memory(void** state) {
    (void)state;
    sweep(create_rigid_hull, "rigid");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points_creation_out_of_memory),
        cmocka_unit_test(test_tet_creation_out_of_memory),
        cmocka_unit_test(test_quasi_creation_out_of_memory),
        cmocka_unit_test(test_springs_creation_out_of_memory),
        cmocka_unit_test(test_rigid_creation_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
