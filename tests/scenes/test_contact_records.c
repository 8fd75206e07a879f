// Every contact method records a tc_contact with the same meaning: friction_force is the
// tangential force on B (no component along the normal), normal_force its normal magnitude.
#include "tc_test.h"

#include <stdio.h>

typedef struct pair_seen {
    int count[TC_BODY_KIND_COUNT][TC_BODY_KIND_COUNT]; ///< contacts by (kind of A, kind of B)
} pair_seen;

static int kind_index(tc_body_kind k) { return (int)k; }

// Steps the scene and checks every recorded contact of every step.
static void check_scene(const char* name, int steps, pair_seen* seen) {
    tc_scene* s = tc_test_load_scene(name);
    tc_world* w = tc_scene_world(s);
    tc_real worst = 0, largest_friction = 0;
    int total = 0;
    for (int i = 0; i < steps; ++i) {
        tc_error e;
        if (tc_scene_step(s, &e) != TC_RESULT_OK) fail_msg("%s: %s", name, e.message);
        int n = 0;
        const tc_contact* c = tc_world_get_contacts(w, &n);
        for (int k = 0; k < n; ++k) {
            tc_real along = fabs(tc_v3_dot(c[k].friction_force, c[k].normal));
            tc_real bound = 1e-9 * fabs(c[k].normal_force) + 1e-12;
            worst = fmax(worst, along - bound);
            largest_friction = fmax(largest_friction, tc_v3_len(c[k].friction_force));
            if (!(along <= bound))
                fail_msg("%s step %d contact %d: |friction . n| = %g N, normal force %g N", name, i, k, along, c[k].normal_force);
            assert_near(tc_v3_len(c[k].normal), 1, 1e-9);
            seen->count[kind_index(tc_body_get_kind(w, c[k].body_a))][kind_index(tc_body_get_kind(w, c[k].body_b))]++;
        }
        total += n;
    }
    printf("%s: %d contacts over %d steps, largest tangential force %.4g N\n", name, total, steps, largest_friction);
    assert_true(total > 0);
    tc_scene_destroy(s);
}

static int seen_with(const pair_seen* seen, tc_body_kind a, tc_body_kind b) {
    return a == b ? seen->count[a][b] : seen->count[a][b] + seen->count[b][a];
}

static void test_friction_force_is_tangential(void** state) {
    (void)state;
    pair_seen seen;
    memset(&seen, 0, sizeof seen);
    check_scene("box_drop", 60, &seen);        // rigid solver rows
    check_scene("tet_on_rigid", 60, &seen);    // penalty coupling of tet samples
    check_scene("tet_cubes", 60, &seen);       // tet-tet penetration
    check_scene("points_press", 60, &seen);    // points against static geometry
    check_scene("points_cradle", 30, &seen);   // surfel contact between point bodies
    check_scene("springs_fall", 60, &seen);    // spring vertices against the ground
    check_scene("springs_box_flip", 60, &seen);
    check_scene("qr_press", 30, &seen);        // quasi-rigid patches
    // The scenes above must have exercised every contact method the fix touched.
    assert_true(seen_with(&seen, TC_BODY_STATIC, TC_BODY_RIGID) > 0);
    assert_true(seen_with(&seen, TC_BODY_STATIC, TC_BODY_TET) + seen_with(&seen, TC_BODY_RIGID, TC_BODY_TET) > 0);
    assert_true(seen_with(&seen, TC_BODY_TET, TC_BODY_TET) > 0);
    assert_true(seen_with(&seen, TC_BODY_STATIC, TC_BODY_POINTS) > 0);
    assert_true(seen_with(&seen, TC_BODY_POINTS, TC_BODY_POINTS) > 0);
    assert_true(seen_with(&seen, TC_BODY_STATIC, TC_BODY_SPRINGS) > 0);
    assert_true(seen_with(&seen, TC_BODY_SPRINGS, TC_BODY_SPRINGS) > 0);
    assert_true(seen_with(&seen, TC_BODY_QUASI, TC_BODY_STATIC) + seen_with(&seen, TC_BODY_QUASI, TC_BODY_RIGID) > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_friction_force_is_tangential, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
