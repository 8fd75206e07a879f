// world.threads: the parallel loops (core/parallel.h) give bit-identical states for every thread
// count, and with OpenMP they really run on more than one thread.
#include "tc_test.h"

#include <pthread.h>
#include "core/parallel.h"

#define MAX_STEPS 100

// The state hash after every step of `steps` steps of scenes/<name>.json run on `threads` threads.
static void run_hashes(const char* name, int threads, int steps, uint64_t* hashes) {
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/%s.json", TACTUS_SOURCE_DIR, name);
    tc_error e;
    tc_scene* s = tc_scene_load_threads(path, threads, &e);
    if (!s) fail_msg("%s", e.message);
    assert_int_equal(tc_world_get_def(tc_scene_world(s)).thread_count, threads);
    for (int i = 0; i < steps; ++i) {
        if (tc_scene_step(s, &e) != TC_RESULT_OK) fail_msg("%s, %d threads, step %d: %s", name, threads, i, e.message);
        hashes[i] = tc_world_hash(tc_scene_world(s));
    }
    tc_scene_destroy(s);
}

// Runs the scene on 1, 2 and 3 threads: every step's hash must agree with the 1-thread run's.
static void check_scene(const char* name, int steps) {
    assert_true(steps <= MAX_STEPS);
    uint64_t one[MAX_STEPS], many[MAX_STEPS];
    run_hashes(name, 1, steps, one);
    assert_true(one[0] != one[steps - 1]); // the scene moves: a frozen state would prove nothing
    for (int threads = 2; threads <= 3; ++threads) {
        run_hashes(name, threads, steps, many);
        for (int i = 0; i < steps; ++i)
            if (many[i] != one[i])
                fail_msg("%s: step %d on %d threads hashes %016llx, on 1 thread %016llx", name, i + 1, threads,
                         (unsigned long long)many[i], (unsigned long long)one[i]);
    }
    printf("%-18s %3d steps: the same %016llx on 1, 2 and 3 threads\n", name, steps, (unsigned long long)one[steps - 1]);
}

// Two tet bodies (implicit FEM, one per thread), then a stack of seven spheres in contact.
static void test_tet_scenes_do_not_depend_on_threads(void** state) {
    (void)state;
    check_scene("tet_cubes", 90);
    check_scene("tet_sphere_stack", 60);
    check_scene("tet_mixed", 40);
}

// Point bodies: a pile (plasticity), a cradle, and fracture (bodies created in end_step).
static void test_points_scenes_do_not_depend_on_threads(void** state) {
    (void)state;
    check_scene("points_pile", 40);
    check_scene("points_cradle", 60);
    check_scene("points_fracture", 60);
}

// Mass-spring bodies: explicit and implicit integrators against the ground and each other.
static void test_springs_scenes_do_not_depend_on_threads(void** state) {
    (void)state;
    check_scene("springs_fall", 40);
    check_scene("springs_box_flip", 60);
}

// Rigid hulls raining on a floor (the narrowphase over pairs), and the quasi-rigid press.
static void test_rigid_scenes_do_not_depend_on_threads(void** state) {
    (void)state;
    check_scene("convex_rain", 60);
    check_scene("qr_press", 20);
}

// ---- the loops really are parallel ----------------------------------------------------------

#define MAX_SEEN 16
static pthread_mutex_t s_seen_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t s_seen[MAX_SEEN];
static int s_seen_count;

// An allocator that notes every thread calling it (the point bodies' integrator allocates its
// force buffer in the parallel loop).
static void* noting_alloc(size_t size, size_t align, void* user) {
    (void)align;
    (void)user;
    pthread_t self = pthread_self();
    pthread_mutex_lock(&s_seen_lock);
    bool known = false;
    for (int i = 0; i < s_seen_count; ++i) known = known || pthread_equal(s_seen[i], self);
    if (!known && s_seen_count < MAX_SEEN) s_seen[s_seen_count++] = self;
    pthread_mutex_unlock(&s_seen_lock);
    return malloc(size);
}

static void noting_free(void* p, size_t size, void* user) {
    (void)size;
    (void)user;
    free(p);
}

static int threads_seen_running(const char* name, int threads, int steps) {
    uint64_t hashes[MAX_STEPS];
    s_seen_count = 0;
    tc_set_allocator(noting_alloc, noting_free, NULL);
    run_hashes(name, threads, steps, hashes);
    tc_set_allocator(NULL, NULL, NULL);
    return s_seen_count;
}

static void test_two_threads_really_run(void** state) {
    (void)state;
    int one = threads_seen_running("points_pile", 1, 10);
    assert_int_equal(one, 1); // the world never starts a thread of its own
    // 3 bodies in each of 120 loops, the next body to the next free thread: both take some,
    // unless a loaded machine keeps the second thread from waking through all 120 (seen once,
    // niced under a load of 15 on 2 cores): up to 5 runs, one of them must show both.
    int two = 0;
    for (int attempt = 0; attempt < 5 && two < 2; ++attempt) two = threads_seen_running("points_pile", 2, 30);
    printf("points_pile: %d thread(s) allocated with world.threads = 2 (OpenMP %s)\n", two, tc_parallel_enabled() ? "on" : "off");
    if (tc_parallel_enabled()) assert_int_equal(two, 2);
    else assert_int_equal(two, 1);
}

static void test_parallel_width(void** state) {
    (void)state;
    assert_int_equal(tc_parallel_width(4, 2), 2); // never more threads than items
    assert_int_equal(tc_parallel_width(2, 7), 2);
    assert_int_equal(tc_parallel_width(3, 0), 1); // nothing to do: the calling thread alone
    assert_int_equal(tc_parallel_width(1, 9), 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallel_width),
        cmocka_unit_test(test_two_threads_really_run),
        cmocka_unit_test(test_tet_scenes_do_not_depend_on_threads),
        cmocka_unit_test(test_points_scenes_do_not_depend_on_threads),
        cmocka_unit_test(test_springs_scenes_do_not_depend_on_threads),
        cmocka_unit_test(test_rigid_scenes_do_not_depend_on_threads),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
