// tc_body_set_velocity and tc_body_set_pose for every kind, the awake count of the stats,
// and the wake-ups of gravity changes and moved static bodies.
#include "tc_test.h"

#include <stdio.h>

static tc_world* make_world(tc_vec3 gravity) {
    tc_world_def d = tc_world_def_default();
    d.gravity = gravity;
    tc_error e;
    tc_world* w = tc_world_create(&d, &e);
    if (!w) fail_msg("%s", e.message);
    return w;
}

static void check_ok(tc_result r, const tc_error* e) {
    if (r != TC_RESULT_OK) fail_msg("%s", e->message);
}

static tc_body_id make_body(tc_world* w, tc_body_kind kind, tc_vec3 at) {
    tc_body_id id = TC_NULL_BODY;
    tc_error e;
    if (kind == TC_BODY_RIGID || kind == TC_BODY_STATIC) {
        tc_shape_def box = tc_shape_def_default(TC_SHAPE_BOX);
        box.half_extents = tc_v3(0.2, 0.3, 0.1);
        tc_rigid_body_def d = tc_rigid_body_def_default();
        d.base.pose.p = at;
        d.is_static = kind == TC_BODY_STATIC;
        d.shapes = &box;
        d.shape_count = 1;
        check_ok(tc_rigid_body_create(w, &d, &id, &e), &e);
    } else if (kind == TC_BODY_QUASI) {
        tc_quasi_body_def d = tc_quasi_body_def_default();
        d.base.pose.p = at;
        d.sample_count = 200;
        check_ok(tc_quasi_body_create(w, &d, &id, &e), &e);
    } else if (kind == TC_BODY_TET) {
        tc_tet_body_def d = tc_tet_body_def_default();
        d.base.pose.p = at;
        d.half_extents = tc_v3(0.2, 0.15, 0.1);
        d.resolution = 3;
        check_ok(tc_tet_body_create(w, &d, &id, &e), &e);
    } else if (kind == TC_BODY_SPRINGS) {
        tc_springs_body_def d = tc_springs_body_def_default();
        d.base.pose.p = at;
        d.half_extents = tc_v3(0.2, 0.15, 0.1);
        d.resolution = 3;
        check_ok(tc_springs_body_create(w, &d, &id, &e), &e);
    } else {
        tc_points_body_def d = tc_points_body_def_default();
        d.base.pose.p = at;
        d.half_extents = tc_v3(0.1, 0.08, 0.06);
        check_ok(tc_points_body_create(w, &d, &id, &e), &e);
    }
    return id;
}

/// Node positions and velocities of a node-based body; returns the count (0 for other kinds).
static int nodes(const tc_world* w, tc_body_id id, tc_vec3* x, tc_vec3* v, int capacity) {
    switch (tc_body_get_kind(w, id)) {
    case TC_BODY_TET: return tc_tet_body_get_vertices(w, id, x, v, capacity);
    case TC_BODY_SPRINGS: return tc_springs_body_get_vertices(w, id, x, v, capacity);
    case TC_BODY_POINTS:
        tc_points_body_get_velocities(w, id, v, capacity);
        return tc_points_body_get_phyxels(w, id, x, capacity);
    default: return 0;
    }
}

#define MAX_NODES 4096
static tc_vec3 g_x[MAX_NODES], g_v[MAX_NODES], g_x0[MAX_NODES];

static const tc_body_kind k_moving[] = {TC_BODY_RIGID, TC_BODY_QUASI, TC_BODY_TET, TC_BODY_SPRINGS, TC_BODY_POINTS};
#define MOVING_COUNT ((int)(sizeof k_moving / sizeof k_moving[0]))

static void test_set_velocity_every_kind(void** state) {
    (void)state;
    tc_vec3 v = tc_v3(1, -2, 0.5), omega = tc_v3(0.3, 0.2, -1);
    for (int k = 0; k < MOVING_COUNT; ++k) {
        tc_world* w = make_world(tc_v3_zero());
        tc_body_id id = make_body(w, k_moving[k], tc_v3(0, 0, 1));
        assert_int_equal(tc_body_set_velocity(w, id, v, omega), TC_RESULT_OK);
        assert_vec3_near(tc_body_get_linear_velocity(w, id), v, 1e-12); // momentum = mass v
        tc_vec3 c = tc_body_get_center_of_mass(w, id);
        int n = nodes(w, id, g_x, g_v, MAX_NODES);
        assert_true(n < MAX_NODES);
        assert_vec3_near(tc_body_get_angular_velocity(w, id), omega, 1e-12); // angular momentum I omega
        for (int i = 0; i < n; ++i) // the rigid field
            assert_vec3_near(g_v[i], tc_v3_add(v, tc_v3_cross(omega, tc_v3_sub(g_x[i], c))), 1e-12);
        // No gravity and no contact: internal forces keep the momentum.
        tc_error e;
        for (int s = 0; s < 3; ++s) check_ok(tc_world_step(w, &e), &e);
        assert_vec3_near(tc_body_get_linear_velocity(w, id), v, 1e-9);
        printf("%s: set_velocity kept over 3 steps\n", k == 0 ? "rigid" : k == 1 ? "quasi" : k == 2 ? "tet" : k == 3 ? "springs" : "points");
        tc_world_destroy(w);
    }
}

static void test_set_velocity_refusals(void** state) {
    (void)state;
    tc_world* w = make_world(tc_v3(0, 0, -9.81));
    tc_body_id ground = make_body(w, TC_BODY_STATIC, tc_v3_zero());
    tc_body_id tet = make_body(w, TC_BODY_TET, tc_v3(0, 0, 1));
    assert_int_equal(tc_body_set_velocity(w, ground, tc_v3(1, 0, 0), tc_v3_zero()), TC_RESULT_UNSUPPORTED);
    assert_int_equal(tc_body_set_velocity(w, tet, tc_v3(NAN, 0, 0), tc_v3_zero()), TC_RESULT_NOT_FINITE);
    assert_int_equal(tc_body_set_velocity(w, tet, tc_v3_zero(), tc_v3(0, INFINITY, 0)), TC_RESULT_NOT_FINITE);
    assert_vec3_near(tc_body_get_linear_velocity(w, tet), tc_v3_zero(), 0);
    tc_transform bad = tc_transform_identity();
    bad.q = tc_quat_make(0, 0, 0, 0);
    assert_int_equal(tc_body_set_pose(w, tet, bad), TC_RESULT_INVALID_ARGUMENT);
    bad.q = tc_quat_identity(), bad.p.x = NAN;
    assert_int_equal(tc_body_set_pose(w, tet, bad), TC_RESULT_NOT_FINITE);
    assert_vec3_near(tc_body_get_center_of_mass(w, tet), tc_v3(0, 0, 1), 1e-12);
    tc_body_destroy(w, tet);
    tc_test_warnings = 0;
    assert_int_equal(tc_body_set_velocity(w, tet, tc_v3_zero(), tc_v3_zero()), TC_RESULT_STALE_ID);
    assert_int_equal(tc_body_set_pose(w, tet, tc_transform_identity()), TC_RESULT_STALE_ID);
    tc_test_warnings = 0; // the stale ids above log warnings on purpose
    tc_world_destroy(w);
}

static void test_set_pose_every_kind(void** state) {
    (void)state;
    tc_transform to = {tc_v3(2, -1, 3), tc_quat_from_axis_angle(tc_v3_normalize(tc_v3(1, 2, 0.5)), 1.1)};
    for (int k = 0; k < MOVING_COUNT; ++k) {
        tc_world* w = make_world(tc_v3_zero());
        tc_body_id id = make_body(w, k_moving[k], tc_v3(0.5, 0.2, 1));
        tc_transform from = tc_body_get_pose(w, id);
        tc_vec3 c0 = tc_body_get_center_of_mass(w, id);
        int n = nodes(w, id, g_x0, g_v, MAX_NODES);
        assert_int_equal(tc_body_set_pose(w, id, to), TC_RESULT_OK);
        // The rigid motion taking the old frame to the new one moved the centre of mass and every node.
        tc_quat r = tc_quat_mul(to.q, tc_quat_conj(from.q));
        tc_vec3 expect_c = tc_v3_add(to.p, tc_quat_rotate(r, tc_v3_sub(c0, from.p)));
        assert_vec3_near(tc_body_get_center_of_mass(w, id), expect_c, 1e-12);
        nodes(w, id, g_x, g_v, MAX_NODES);
        for (int i = 0; i < n; ++i) assert_vec3_near(g_x[i], tc_v3_add(to.p, tc_quat_rotate(r, tc_v3_sub(g_x0[i], from.p))), 1e-12);
        tc_transform now = tc_body_get_pose(w, id);
        assert_vec3_near(now.p, to.p, 1e-12);
        if (n > 0) assert_vec3_near(from.p, c0, 1e-12); // deformables: a frame at the centre of mass
        if (n == 0) assert_near(fabs(now.q.x * to.q.x + now.q.y * to.q.y + now.q.z * to.q.z + now.q.w * to.q.w), 1, 1e-12);
        // A rigid motion strains nothing: the body stays at rest.
        tc_error e;
        for (int s = 0; s < 5; ++s) check_ok(tc_world_step(w, &e), &e);
        tc_world_stats st = tc_world_get_stats(w);
        printf("kind %d: kinetic energy %.3g J after a turned set_pose and 5 steps\n", (int)k_moving[k], st.kinetic_energy);
        assert_true(st.kinetic_energy < 1e-12);
        tc_world_destroy(w);
    }
}

// A box resting on a static ground plane-like box, stepped until it sleeps.
typedef struct resting_box {
    tc_world* w;
    tc_body_id ground, box, tet;
} resting_box;

static resting_box rest_box_until_asleep(bool with_tet) {
    resting_box r;
    r.w = make_world(tc_v3(0, 0, -9.81));
    r.ground = make_body(r.w, TC_BODY_STATIC, tc_v3(0, 0, -0.1)); // top face at z = 0
    r.box = make_body(r.w, TC_BODY_RIGID, tc_v3(0, 0, 0.1));
    r.tet = with_tet ? make_body(r.w, TC_BODY_TET, tc_v3(3, 0, 1)) : TC_NULL_BODY; // far away, falling
    tc_error e;
    int steps = 0;
    do check_ok(tc_world_step(r.w, &e), &e);
    while (++steps < 240 && tc_world_get_stats(r.w).awake_body_count > (with_tet ? 1 : 0));
    assert_true(tc_world_get_stats(r.w).step > 30); // it rested a while (sleep_time 0.5 s) first
    return r;
}

static void test_awake_body_count(void** state) {
    (void)state;
    tc_world* w = make_world(tc_v3(0, 0, -9.81));
    make_body(w, TC_BODY_STATIC, tc_v3_zero());
    make_body(w, TC_BODY_RIGID, tc_v3(0, 0, 2));
    make_body(w, TC_BODY_QUASI, tc_v3(2, 0, 2));
    make_body(w, TC_BODY_SPRINGS, tc_v3(-2, 0, 2));
    tc_error e;
    check_ok(tc_world_step(w, &e), &e);
    assert_int_equal(tc_world_get_stats(w).body_count, 4);
    assert_int_equal(tc_world_get_stats(w).awake_body_count, 3); // the static body never counts
    tc_world_destroy(w);
    // A resting box falls asleep; the falling deformable stays counted.
    resting_box r = rest_box_until_asleep(true);
    tc_world_stats st = tc_world_get_stats(r.w);
    printf("asleep after %.3f s: %d of %d bodies awake\n", st.time, st.awake_body_count, st.body_count);
    assert_int_equal(st.awake_body_count, 1);
    assert_true(st.time < 4);
    tc_world_destroy(r.w);
}

static void test_gravity_change_wakes_sleepers(void** state) {
    (void)state;
    resting_box r = rest_box_until_asleep(false);
    assert_int_equal(tc_world_get_stats(r.w).awake_body_count, 0);
    assert_int_equal(tc_world_set_gravity(r.w, tc_v3(0, 0, NAN)), TC_RESULT_NOT_FINITE);
    assert_near(tc_world_get_def(r.w).gravity.z, -9.81, 0);
    assert_int_equal(tc_world_set_gravity(r.w, tc_v3(0, 0, 9.81)), TC_RESULT_OK);
    tc_error e;
    for (int i = 0; i < 30; ++i) check_ok(tc_world_step(r.w, &e), &e);
    tc_real z = tc_body_get_center_of_mass(r.w, r.box).z;
    printf("gravity flipped: box at z = %.3f m after 0.5 s (rested at 0.1)\n", z);
    assert_near(z, 0.1 + 0.5 * 9.81 * 0.25, 0.1); // falls upwards freely
    tc_world_destroy(r.w);
}

static void test_moving_static_ground_wakes_sleepers(void** state) {
    (void)state;
    resting_box r = rest_box_until_asleep(false);
    assert_int_equal(tc_world_get_stats(r.w).awake_body_count, 0);
    tc_transform away = tc_transform_identity();
    away.p = tc_v3(10, 0, -0.1);
    assert_int_equal(tc_body_set_pose(r.w, r.ground, away), TC_RESULT_OK);
    tc_error e;
    for (int i = 0; i < 30; ++i) check_ok(tc_world_step(r.w, &e), &e);
    tc_real z = tc_body_get_center_of_mass(r.w, r.box).z;
    printf("ground moved away: box at z = %.3f m after 0.5 s (rested at 0.1)\n", z);
    assert_near(z, 0.1 - 0.5 * 9.81 * 0.25, 0.1);
    tc_world_destroy(r.w);
}

static const char* write_scene(const char* name, const char* text, char* path, size_t n) {
    snprintf(path, n, "%s/%s", TACTUS_BINARY_DIR, name);
    FILE* f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

// A set_velocity event on deformables used to stop the run with "unsupported".
static void test_set_velocity_event_on_deformables(void** state) {
    (void)state;
    char path[512];
    write_scene("body_state_events.json",
                "{\"world\": {\"gravity\": [0, 0, 0]},\n"
                " \"bodies\": [{\"type\": \"tet\", \"name\": \"jelly\", \"half_extents\": [0.1, 0.1, 0.1], \"resolution\": 2},\n"
                "            {\"type\": \"springs\", \"name\": \"ball\", \"shape\": \"sphere\", \"radius\": 0.1, \"position\": [1, 0, 0]}],\n"
                " \"events\": [{\"time\": 0.05, \"action\": \"set_velocity\", \"body\": \"jelly\", \"velocity\": [0, 0, 2]},\n"
                "            {\"time\": 0.05, \"action\": \"set_velocity\", \"body\": \"ball\", \"velocity\": [1, 0, 0]}]}\n",
                path, sizeof path);
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    if (!s) fail_msg("%s", e.message);
    for (int i = 0; i < 6; ++i) check_ok(tc_scene_step(s, &e), &e);
    tc_world* w = tc_scene_world(s);
    assert_vec3_near(tc_body_get_linear_velocity(w, tc_world_find_body(w, "jelly")), tc_v3(0, 0, 2), 1e-9);
    assert_vec3_near(tc_body_get_linear_velocity(w, tc_world_find_body(w, "ball")), tc_v3(1, 0, 0), 1e-9);
    tc_scene_destroy(s);
}

// Events that a static body cannot take are load errors, not a failure in the middle of the run.
static void test_event_on_static_body_is_a_load_error(void** state) {
    (void)state;
    char path[512];
    write_scene("body_state_static_event.json",
                "{\"bodies\": [{\"type\": \"static\", \"name\": \"ground\", \"shapes\": [{\"type\": \"plane\"}]}],\n"
                " \"events\": [{\"time\": 0, \"action\": \"set_velocity\", \"body\": \"ground\", \"velocity\": [1, 0, 0]}]}\n",
                path, sizeof path);
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    assert_null(s);
    printf("%s\n", e.message);
    assert_non_null(strstr(e.message, "events[0]"));
    assert_non_null(strstr(e.message, "static"));
    tc_test_warnings = 0;
}

// Penalty kinds accept restitution but cannot use it: the loader says so.
static void test_restitution_on_penalty_kinds_warns(void** state) {
    (void)state;
    char path[512];
    write_scene("body_state_restitution.json",
                "{\"bodies\": [{\"type\": \"rigid\", \"name\": \"ball\", \"restitution\": 0.5, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.3}]},\n"
                "            {\"type\": \"tet\", \"name\": \"jelly\", \"restitution\": 0, \"position\": [2, 0, 0]}]}\n",
                path, sizeof path);
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    if (!s) fail_msg("%s", e.message);
    assert_int_equal(tc_test_warnings, 0); // rigid bodies bounce; zero is the default
    tc_scene_destroy(s);
    write_scene("body_state_restitution.json",
                "{\"bodies\": [{\"type\": \"tet\", \"name\": \"jelly\", \"restitution\": 0.5}]}\n", path, sizeof path);
    tc_test_log_clear();
    s = tc_scene_load(path, &e);
    if (!s) fail_msg("%s", e.message);
    assert_int_equal(tc_test_warnings, 1);
    assert_non_null(strstr(tc_test_log_text(), "bodies[0].restitution: 0.5 has no effect"));
    tc_test_warnings = 0;
    tc_scene_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_set_velocity_every_kind, tc_test_setup_log),
        cmocka_unit_test_setup(test_set_velocity_refusals, tc_test_setup_log),
        cmocka_unit_test_setup(test_set_pose_every_kind, tc_test_setup_log),
        cmocka_unit_test_setup(test_set_velocity_event_on_deformables, tc_test_setup_log),
        cmocka_unit_test_setup(test_awake_body_count, tc_test_setup_log),
        cmocka_unit_test_setup(test_gravity_change_wakes_sleepers, tc_test_setup_log),
        cmocka_unit_test_setup(test_moving_static_ground_wakes_sleepers, tc_test_setup_log),
        cmocka_unit_test_setup(test_event_on_static_body_is_a_load_error, tc_test_setup_log),
        cmocka_unit_test_setup(test_restitution_on_penalty_kinds_warns, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
