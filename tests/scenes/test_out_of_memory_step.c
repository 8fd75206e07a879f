// Out of memory during a world step: small worlds that reach every stage of a step (rigid
// solver, manifolds and islands, hulls, point, tet, spring and quasi-rigid contacts, the generic
// penalty coupling, fracture) are stepped normally, then the n-th allocation of the next step is
// made to fail, for every n of that step (or an even, deterministic sample of them when the step
// makes many). The step must not crash, must return TC_RESULT_OK (the stage degraded and logged)
// or TC_RESULT_OUT_OF_MEMORY with a message, leave every body finite, step normally afterwards
// and leak nothing. Set TC_OOM_ALL=1 to try every allocation of every world (slow), TC_OOM_TRACE=1
// to print each allocation tried (to find the one that crashes).
#include "tc_test.h"

#include "tc_failing_alloc.h"

// The library logs the stages it degrades; those messages are expected here, not test failures.
static int s_logged_errors;
static void quiet_log(tc_log_level level, tc_result code, const char* message, void* user) {
    (void)code;
    (void)message;
    (void)user;
    s_logged_errors += level >= TC_LOG_ERROR;
}

// ---- world builders -----------------------------------------------------------------------

static tc_world* new_world(void) {
    tc_world_def wd = tc_world_def_default();
    wd.sub_steps = 2;
    tc_error e;
    tc_world* w = tc_world_create(&wd, &e);
    assert_non_null(w);
    return w;
}

static void check_created(tc_result r, const tc_error* e) {
    if (r != TC_RESULT_OK) fail_msg("creation failed: %s", e->message);
}

static void add_ground(tc_world* w) {
    tc_shape_def plane = tc_shape_def_default(TC_SHAPE_PLANE);
    tc_rigid_body_def d = tc_rigid_body_def_default();
    d.is_static = true;
    d.shapes = &plane;
    d.shape_count = 1;
    d.base.name = "ground";
    tc_body_id id;
    tc_error e;
    check_created(tc_rigid_body_create(w, &d, &id, &e), &e);
}

static void add_box(tc_world* w, tc_vec3 at, tc_real half) {
    tc_shape_def box = tc_shape_def_default(TC_SHAPE_BOX);
    box.half_extents = tc_v3(half, half, half);
    tc_rigid_body_def d = tc_rigid_body_def_default();
    d.shapes = &box;
    d.shape_count = 1;
    d.base.pose.p = at;
    d.base.name = "box";
    tc_body_id id;
    tc_error e;
    check_created(tc_rigid_body_create(w, &d, &id, &e), &e);
}

static void add_points(tc_world* w, tc_vec3 at, const char* name) {
    tc_points_body_def d = tc_points_body_def_default();
    d.half_extents = tc_v3(0.1, 0.1, 0.1);
    d.phyxel_spacing = 0.05;
    d.surfel_spacing = 0.05;
    d.base.pose.p = at;
    d.base.name = name;
    tc_body_id id;
    tc_error e;
    check_created(tc_points_body_create(w, &d, &id, &e), &e);
}

static void add_tet(tc_world* w, tc_vec3 at) {
    tc_tet_body_def d = tc_tet_body_def_default();
    d.shape = TC_TET_SPHERE;
    d.radius = 0.1;
    d.resolution = 3;
    d.base.pose.p = at;
    d.base.name = "tet";
    tc_body_id id;
    tc_error e;
    check_created(tc_tet_body_create(w, &d, &id, &e), &e);
}

static void add_springs(tc_world* w, tc_vec3 at) {
    tc_springs_body_def d = tc_springs_body_def_default();
    d.shape = TC_SPRINGS_SPHERE;
    d.radius = 0.1;
    d.resolution = 1;
    d.base.pose.p = at;
    d.base.name = "springs";
    tc_body_id id;
    tc_error e;
    check_created(tc_springs_body_create(w, &d, &id, &e), &e);
}

static void add_quasi(tc_world* w, tc_vec3 at) {
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.radius = 0.1;
    d.sample_count = 200;
    d.base.pose.p = at;
    d.base.name = "quasi";
    tc_body_id id;
    tc_error e;
    check_created(tc_quasi_body_create(w, &d, &id, &e), &e);
}

// Boxes resting on the plane, one on another: manifolds, the solver, islands and sleep.
static void build_rigid(tc_world* w) {
    add_ground(w);
    add_box(w, tc_v3(0, 0, 0.1), 0.1);
    add_box(w, tc_v3(0, 0, 0.3), 0.1);
    add_box(w, tc_v3(0.5, 0, 0.1), 0.1);
}

// A hull (octahedron) on a box on the plane: the hull narrowphase.
static void build_hull(tc_world* w) {
    add_ground(w);
    add_box(w, tc_v3(0, 0, 0.1), 0.1);
    const tc_vec3 pts[6] = {tc_v3(0.1, 0, 0), tc_v3(-0.1, 0, 0), tc_v3(0, 0.1, 0), tc_v3(0, -0.1, 0), tc_v3(0, 0, 0.1), tc_v3(0, 0, -0.1)};
    tc_shape_def hull = tc_shape_def_default(TC_SHAPE_HULL);
    hull.points = pts;
    hull.point_count = 6;
    tc_rigid_body_def d = tc_rigid_body_def_default();
    d.shapes = &hull;
    d.shape_count = 1;
    d.base.pose.p = tc_v3(0, 0, 0.3);
    d.base.name = "hull";
    tc_body_id id;
    tc_error e;
    check_created(tc_rigid_body_create(w, &d, &id, &e), &e);
}

// Two point bodies in contact (contact surfaces) plus one on the ground.
static void build_points(tc_world* w) {
    add_ground(w);
    add_points(w, tc_v3(0, 0, 0.1), "low");
    add_points(w, tc_v3(0, 0, 0.3), "high");
    add_points(w, tc_v3(0.5, 0, 0.1), "alone");
}

// Two tet spheres, one resting on the other, the lower on the ground.
static void build_tet(tc_world* w) {
    add_ground(w);
    add_tet(w, tc_v3(0, 0, 0.1));
    add_tet(w, tc_v3(0.02, 0, 0.29));
}

// Two spring balls in contact, a rigid box under one of them, the ground.
static void build_springs(tc_world* w) {
    add_ground(w);
    add_box(w, tc_v3(0.5, 0, 0.05), 0.05);
    add_springs(w, tc_v3(0, 0, 0.1));
    add_springs(w, tc_v3(0.02, 0, 0.29));
    add_springs(w, tc_v3(0.5, 0, 0.2));
}

// Quasi-rigid balls on the ground and on each other, one on a rigid box.
static void build_quasi(tc_world* w) {
    add_ground(w);
    add_quasi(w, tc_v3(0, 0, 0.0995));
    add_quasi(w, tc_v3(0, 0, 0.299));
    add_box(w, tc_v3(0.5, 0, 0.05), 0.05);
    add_quasi(w, tc_v3(0.5, 0, 0.199));
}

// Different kinds touching: the generic penalty coupling (tet on a box, points on a tet,
// springs on points, quasi on a tet).
static void build_mixed(tc_world* w) {
    add_ground(w);
    add_box(w, tc_v3(0, 0, 0.05), 0.05);
    add_tet(w, tc_v3(0, 0, 0.2));
    add_points(w, tc_v3(0.5, 0, 0.1), "points");
    add_springs(w, tc_v3(0.5, 0, 0.299));
    add_tet(w, tc_v3(-0.5, 0, 0.1));
    add_quasi(w, tc_v3(-0.5, 0, 0.299));
}

// A plastic bar pinned at its top (as tests/scenes/test_points_fracture.c) under 40 g, so that
// it tears within a few steps.
static void build_fracture(tc_world* w) {
    add_ground(w);
    assert_int_equal(tc_world_set_gravity(w, tc_v3(0, 0, -400)), TC_RESULT_OK);
    tc_points_body_def d = tc_points_body_def_default();
    d.half_extents = tc_v3(0.05, 0.05, 0.2);
    d.phyxel_spacing = 0.033;
    d.surfel_spacing = 0.03;
    d.support_scale = 2.5;
    d.youngs_modulus = 3e4;
    d.volume_stiffness = 3e4;
    d.creep = 40;
    d.max_plastic_strain = 3;
    d.fracture = true;
    d.pinned_box.lo = tc_v3(-0.06, -0.06, 0.16);
    d.pinned_box.hi = tc_v3(0.06, 0.06, 0.21);
    d.base.pose.p = tc_v3(0, 0, 0.45);
    d.base.name = "putty";
    tc_body_id id;
    tc_error e;
    check_created(tc_points_body_create(w, &d, &id, &e), &e);
}

// ---- the sweep ----------------------------------------------------------------------------

typedef void build_fn(tc_world* w);

typedef struct oom_case {
    const char* name;
    build_fn* build;
    int warm_steps;  ///< normal steps before the failing one (-1: until the body count changes)
    int max_tries;   ///< failing allocations tried (sampled evenly when the step makes more; an eighth under ASan)
    /// Allocations whose failure is known to crash in code this test's branch could not change,
    /// "step:n,step:n" (see the comments at the cases); skipped. NULL = none.
    const char* known_crashes;
} oom_case;

static void step_ok(tc_world* w, const char* what, int step) {
    tc_error e;
    tc_result r = tc_world_step(w, &e);
    if (r != TC_RESULT_OK) fail_msg("%s: normal step %d: %s", what, step, e.message);
}

// A fresh world of the case stepped `warm` times.
static tc_world* warm_world(const oom_case* c, int warm) {
    tc_world* w = new_world();
    c->build(w);
    for (int s = 0; s < warm; ++s) step_ok(w, c->name, s);
    return w;
}

// The case's warm-up steps; for -1, the steps before the one that changes the body count.
static int warm_steps(const oom_case* c) {
    if (c->warm_steps >= 0) return c->warm_steps;
    tc_world* w = new_world();
    c->build(w);
    int bodies = tc_world_get_body_count(w), s = 0;
    for (;; ++s) {
        if (s == 80) fail_msg("%s: the body count did not change in 80 steps", c->name);
        step_ok(w, c->name, s);
        if (tc_world_get_body_count(w) != bodies) break;
    }
    tc_world_destroy(w);
    return s;
}

// True when list ("a:b,c:d") holds the entry "<prefix>:<n>".
static bool listed(const char* list, const char* prefix, int n) {
    char key[128];
    snprintf(key, sizeof key, "%s:%d", prefix, n);
    for (const char* p = list ? strstr(list, key) : NULL; p; p = strstr(p + 1, key)) {
        char after = p[strlen(key)];
        if ((p == list || p[-1] == ',') && (after == ',' || after == '\0')) return true;
    }
    return false;
}

// Allocation n of step `warm` is left out: a known crash (unless TC_OOM_IGNORE_KNOWN is set), or
// by the environment:
// TC_OOM_SKIP="points@0:22,mixed@3:7" leaves those out too, TC_OOM_N=22 tries that allocation
// only (both to map crashes, e.g. under gdb).
static bool skipped(const oom_case* c, int warm, int n) {
    char step[16], named[96];
    snprintf(step, sizeof step, "%d", warm);
    snprintf(named, sizeof named, "%s@%d", c->name, warm);
    const char* only = getenv("TC_OOM_N");
    const char* known = getenv("TC_OOM_IGNORE_KNOWN") ? NULL : c->known_crashes; // to check a fix
    return listed(known, step, n) || listed(getenv("TC_OOM_SKIP"), named, n) || (only && atoi(only) != n);
}

// The sanitizer build runs each try about 10x slower: it samples fewer allocations per step.
#if defined(__SANITIZE_ADDRESS__)
enum { k_sanitizer_slowdown = 8 };
#else
enum { k_sanitizer_slowdown = 1 };
#endif

static bool all_allocations(void) {
    const char* s = getenv("TC_OOM_ALL");
    return s && s[0] == '1';
}

// Makes allocation n of the step after the warm-up fail; checks the result, the state and the
// step that follows, and that destroying the world returns every byte.
static bool try_failing(const oom_case* c, int warm, int n, int64_t bytes, int* oom_results) {
    if (getenv("TC_OOM_TRACE")) fprintf(stderr, "%s: failing allocation %d of step %d\n", c->name, n, warm);
    tc_world* w = warm_world(c, warm);
    tc_error e;
    tc_error_clear(&e);
    int logged = s_logged_errors;
    arm(n);
    tc_result r = tc_world_step(w, &e);
    bool failed = s_alloc_count > n;
    arm(-1);
    if (r != TC_RESULT_OK && r != TC_RESULT_OUT_OF_MEMORY)
        fail_msg("%s: allocation %d of step %d failed: %s (%s)", c->name, n, warm, tc_result_string(r), e.message);
    if (r == TC_RESULT_OUT_OF_MEMORY && (e.code != r || !e.message[0]))
        fail_msg("%s: allocation %d: out of memory without a message", c->name, n);
    if (r == TC_RESULT_OUT_OF_MEMORY && !failed) fail_msg("%s: out of memory but no allocation failed: %s", c->name, e.message);
    *oom_results += r == TC_RESULT_OUT_OF_MEMORY;
    if (getenv("TC_OOM_TRACE") && failed && r == TC_RESULT_OK && s_logged_errors == logged)
        fprintf(stderr, "%s: allocation %d of step %d failed silently\n", c->name, n, warm);
    step_ok(w, c->name, warm + 1); // checks every body is finite and that stepping goes on
    tc_world_destroy(w);
    if (tc_get_byte_count() != bytes)
        fail_msg("%s: %lld bytes leaked when allocation %d of the step failed", c->name, (long long)(tc_get_byte_count() - bytes), n);
    return failed;
}

// Every allocation (or an even sample) of step `warm` of the case's world made to fail in turn.
static void sweep_step(const oom_case* c, int warm) {
    s_logged_errors = 0;
    int64_t bytes = tc_get_byte_count();
    tc_world* w = warm_world(c, warm);
    arm(-1);
    step_ok(w, c->name, warm);
    int count = s_alloc_count;
    tc_world_destroy(w);
    assert_true(count > 0);
    int cap = c->max_tries / k_sanitizer_slowdown;
    int tries = all_allocations() || count <= cap ? count : cap;
    int failed = 0, oom_results = 0, left_out = 0;
    for (int i = 0; i < tries; ++i) {
        int n = (int)((int64_t)i * count / tries); // even and deterministic; every n when tries == count
        if (skipped(c, warm, n)) {
            left_out++;
            continue;
        }
        failed += try_failing(c, warm, n, bytes, &oom_results);
    }
    print_message("%s: step %d makes %d allocations; %d made to fail (%d left out): %d returned out of memory, %d degraded; %d errors logged\n",
                  c->name, warm, count, failed, left_out, oom_results, failed - oom_results, s_logged_errors);
    assert_int_equal(failed, tries - left_out); // every tried allocation lay within the step
}

// The first step (where the growable scratch is first sized) and a later one.
static void sweep(const oom_case* c) {
    tc_set_log(quiet_log, NULL);
    tc_set_allocator(failing_alloc, plain_free, NULL);
    int warm = warm_steps(c);
    if (c->warm_steps >= 0) sweep_step(c, 0);
    sweep_step(c, warm);
    tc_set_allocator(NULL, NULL, NULL);
    tc_set_log(NULL, NULL);
}

#define OOM_TEST(fn, ...)                        \
    static void fn(void** state) {               \
        (void)state;                             \
        static const oom_case c = {__VA_ARGS__}; \
        sweep(&c);                               \
    }

OOM_TEST(test_rigid_step_out_of_memory, "rigid", build_rigid, 3, 120, NULL)
OOM_TEST(test_hull_step_out_of_memory, "hull", build_hull, 3, 120, NULL)
OOM_TEST(test_points_step_out_of_memory, "points", build_points, 3, 120, NULL)
OOM_TEST(test_tet_step_out_of_memory, "tet", build_tet, 3, 120, NULL)
OOM_TEST(test_springs_step_out_of_memory, "springs", build_springs, 3, 120, NULL)
OOM_TEST(test_quasi_step_out_of_memory, "quasi", build_quasi, 3, 120, NULL)
OOM_TEST(test_mixed_step_out_of_memory, "mixed", build_mixed, 3, 120, NULL)
OOM_TEST(test_fracture_step_out_of_memory, "fracture", build_fracture, -1, 60, NULL)

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rigid_step_out_of_memory),   cmocka_unit_test(test_hull_step_out_of_memory),
        cmocka_unit_test(test_points_step_out_of_memory),  cmocka_unit_test(test_tet_step_out_of_memory),
        cmocka_unit_test(test_springs_step_out_of_memory), cmocka_unit_test(test_quasi_step_out_of_memory),
        cmocka_unit_test(test_mixed_step_out_of_memory),   cmocka_unit_test(test_fracture_step_out_of_memory),
    };
    if (getenv("TC_OOM_FILTER")) cmocka_set_test_filter(getenv("TC_OOM_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
