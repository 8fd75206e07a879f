// A spring body hitting a dynamic rigid body fast: the inelastic projection may only take
// kinetic energy away (docs/springs.md, Contacts), and the pair's momentum is conserved.
#include "tc_test.h"

#include "dynamics/springs/springs.h"

#include <stdio.h>

static tc_world* make_world_threads(tc_vec3 gravity, int threads) {
    tc_world_def wd = tc_world_def_default();
    wd.gravity = gravity, wd.thread_count = threads;
    tc_error e;
    tc_world* w = tc_world_create(&wd, &e);
    assert_non_null(w);
    return w;
}

static tc_world* make_world(tc_vec3 gravity) { return make_world_threads(gravity, 1); }

static tc_body_id add_rigid(tc_world* w, tc_shape_def shape, tc_vec3 p, tc_vec3 v, bool is_static) {
    tc_rigid_body_def d = tc_rigid_body_def_default();
    d.base.pose.p = p, d.base.linear_velocity = v, d.is_static = is_static;
    d.shapes = &shape, d.shape_count = 1;
    tc_body_id id;
    tc_error e;
    assert_int_equal(tc_rigid_body_create(w, &d, &id, &e), TC_RESULT_OK);
    return id;
}

static tc_body_id add_ball(tc_world* w, tc_vec3 p, tc_vec3 v, int resolution) {
    tc_springs_body_def d = tc_springs_body_def_default();
    d.shape = TC_SPRINGS_SPHERE, d.radius = 0.05, d.resolution = resolution;
    d.base.pose.p = p, d.base.linear_velocity = v;
    tc_body_id id;
    tc_error e;
    assert_int_equal(tc_springs_body_create(w, &d, &id, &e), TC_RESULT_OK);
    return id;
}

static tc_vec3 momentum(const tc_world* w, tc_body_id a, tc_body_id b) {
    return tc_v3_add(tc_v3_scale(tc_body_get_linear_velocity(w, a), tc_body_get_mass(w, a)),
                     tc_v3_scale(tc_body_get_linear_velocity(w, b), tc_body_get_mass(w, b)));
}

// Head-on at a closing speed: a rigid sphere (5 cm, 0.52 kg) and a spring icosphere (5 cm, 1 kg,
// stiffness 2000) 1 cm apart, no gravity. Neither the kinetic energy nor kinetic + spring
// energy may rise above their value before the impact (1 % for the explicit integrator's
// round-off), and the momentum of the pair stays what it was.
static void head_on(tc_real closing, int resolution, int steps) {
    tc_world* w = make_world(tc_v3_zero());
    tc_shape_def sphere = tc_shape_def_default(TC_SHAPE_SPHERE);
    sphere.radius = 0.05;
    tc_body_id a = add_rigid(w, sphere, tc_v3_zero(), tc_v3(0, 0, closing / 2), false);
    tc_body_id b = add_ball(w, tc_v3(0, 0, 0.11), tc_v3(0, 0, -closing / 2), resolution);
    tc_vec3 p0 = momentum(w, a, b);
    tc_real ma = tc_body_get_mass(w, a), ke0 = 0.5 * (ma + 1) * closing * closing / 4, ke_max = 0, e_max = 0, ke = 0;
    tc_error e;
    for (int k = 0; k < steps; ++k) {
        assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
        tc_world_stats s = tc_world_get_stats(w);
        ke = s.kinetic_energy;
        ke_max = fmax(ke_max, ke), e_max = fmax(e_max, ke + s.potential_energy);
        assert_vec3_near(momentum(w, a, b), p0, 1e-9 * (1 + closing));
    }
    tc_real va = tc_body_get_linear_velocity(w, a).z, vb = tc_body_get_linear_velocity(w, b).z;
    printf("head-on %4.1f m/s: KE %.4g J before, max %.4g J (KE + PE max %.4g J), %.4g J after; v %.3f / %.3f m/s\n", closing,
           ke0, ke_max, e_max, ke, va, vb);
    assert_true(ke_max <= 1.01 * ke0);
    assert_true(e_max <= 1.01 * ke0);
    assert_true(va <= vb); // apart or moving together: no pass-through, no overtaking
    tc_world_destroy(w);
}

static void test_head_on_1(void** state) {
    (void)state;
    head_on(1, 3, 12);
}

static void test_head_on_6(void** state) {
    (void)state;
    head_on(6, 3, 10);
}

static void test_head_on_12(void** state) {
    (void)state;
    head_on(12, 3, 8);
}

// A spring ball dropped at 6 m/s onto a rigid box resting on a static ground plane: the box stays
// on the ground, the ball stays above the box, the total energy (kinetic + gravity + springs)
// never exceeds its initial value.
static void test_drop_on_resting_box(void** state) {
    (void)state;
    tc_world* w = make_world(tc_v3(0, 0, -9.81));
    tc_shape_def plane = tc_shape_def_default(TC_SHAPE_PLANE), box = tc_shape_def_default(TC_SHAPE_BOX);
    box.half_extents = tc_v3(0.1, 0.1, 0.05);
    add_rigid(w, plane, tc_v3_zero(), tc_v3_zero(), true);
    tc_body_id a = add_rigid(w, box, tc_v3(0, 0, 0.05), tc_v3_zero(), false);
    tc_body_id b = add_ball(w, tc_v3(0, 0, 0.3), tc_v3(0, 0, -6), 3);
    const tc_springs_body* ball = tc_springs_body_at(w, w->slots.data[b.index1 - 1].index);
    tc_error e;
    tc_world_stats s0 = tc_world_get_stats(w);
    assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK); // stats are filled by a step: take the first as the reference
    s0 = tc_world_get_stats(w);
    tc_real e0 = s0.kinetic_energy + s0.potential_energy, e_max = e0, low = 1e300, box_low = 1e300, box_high = -1e300;
    for (int k = 0; k < 14; ++k) {
        assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
        tc_world_stats s = tc_world_get_stats(w);
        e_max = fmax(e_max, s.kinetic_energy + s.potential_energy);
        tc_real box_z = tc_body_get_pose(w, a).p.z;
        box_low = fmin(box_low, box_z), box_high = fmax(box_high, box_z);
        for (int i = 0; i < ball->n; ++i) low = fmin(low, ball->x[i].z);
    }
    printf("drop on box: energy %.4g J at the first step, max %.4g J; box centre %.4f..%.4f m; ball's lowest vertex %.4f m\n", e0,
           e_max, box_low, box_high, low);
    assert_true(e_max <= e0 + 0.01 * s0.kinetic_energy);
    assert_true(box_low > 0.04 && box_high < 0.06);
    assert_true(low > 0.09);
    tc_world_destroy(w);
}

// Two spring balls land on the same rigid box (each body's proxy takes its own impulses, the
// rigid box gets them after the parallel loop in body order): the state is the same, bit for
// bit, on 1 and 2 threads.
static void run_two_balls(int threads, uint64_t* hashes, int steps) {
    tc_world* w = make_world_threads(tc_v3(0, 0, -9.81), threads);
    tc_shape_def plane = tc_shape_def_default(TC_SHAPE_PLANE), box = tc_shape_def_default(TC_SHAPE_BOX);
    box.half_extents = tc_v3(0.1, 0.1, 0.05);
    add_rigid(w, plane, tc_v3_zero(), tc_v3_zero(), true);
    add_rigid(w, box, tc_v3(0, 0, 0.05), tc_v3_zero(), false);
    add_ball(w, tc_v3(-0.04, 0, 0.17), tc_v3(0, 0, -4), 2);
    add_ball(w, tc_v3(0.06, 0.01, 0.19), tc_v3(0, 0, -5), 2);
    tc_error e;
    int most = 0;
    for (int k = 0; k < steps; ++k) {
        assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
        hashes[k] = tc_world_hash(w);
        most = tc_world_get_stats(w).contact_count > most ? tc_world_get_stats(w).contact_count : most;
    }
    printf("two balls on a box, %d thread(s): at most %d contacts, hash %016llx\n", threads, most, (unsigned long long)hashes[steps - 1]);
    assert_true(most > 4); // the balls touched the box (besides its 4 contacts with the ground)
    tc_world_destroy(w);
}

static void test_two_balls_do_not_depend_on_threads(void** state) {
    (void)state;
    uint64_t one[6], two[6];
    run_two_balls(1, one, 6);
    run_two_balls(2, two, 6);
    for (int k = 0; k < 6; ++k) assert_true(one[k] == two[k]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_head_on_1, tc_test_setup_log),
        cmocka_unit_test_setup(test_head_on_6, tc_test_setup_log),
        cmocka_unit_test_setup(test_head_on_12, tc_test_setup_log),
        cmocka_unit_test_setup(test_drop_on_resting_box, tc_test_setup_log),
        cmocka_unit_test_setup(test_two_balls_do_not_depend_on_threads, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
