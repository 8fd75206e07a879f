// Fast impacts on quasi-rigid bodies at the shipped scenes' step (1/60 s, 4 sub-steps): a rigid
// and a quasi-rigid sphere head-on, two quasi-rigid spheres head-on, and a quasi-rigid sphere
// dropped on a static plane. At 6 and 12 m/s the whole bounce happens within one or two
// sub-steps, far past the explicit update's limit; no contact may leave the bodies with more
// energy than they brought (a bounce is at most elastic), and momentum is exchanged exactly. And
// the cap that ensures it must not let a resting body sink: a quasi ball on a light rigid box on the
// ground stays on the box.
#include "tc_test.h"

#define RADIUS 0.05

static tc_world* make_world(tc_vec3 gravity) {
    tc_world_def wd = tc_world_def_default();
    wd.time_step = 1.0 / 60.0;
    wd.sub_steps = 4;
    wd.gravity = gravity;
    wd.enable_sleep = false;
    tc_world* w = tc_world_create(&wd, NULL);
    assert_non_null(w);
    return w;
}

static tc_body_id add_rigid_sphere(tc_world* w, tc_vec3 p, tc_vec3 v) {
    tc_shape_def sd = tc_shape_def_default(TC_SHAPE_SPHERE);
    sd.radius = RADIUS;
    tc_rigid_body_def rd = tc_rigid_body_def_default();
    rd.shapes = &sd;
    rd.shape_count = 1;
    rd.base.pose.p = p;
    rd.base.linear_velocity = v;
    tc_body_id id;
    tc_error err;
    assert_int_equal(tc_rigid_body_create(w, &rd, &id, &err), TC_RESULT_OK);
    return id;
}

static tc_body_id add_quasi_sphere(tc_world* w, tc_vec3 p, tc_vec3 v) {
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.radius = RADIUS;
    d.sample_count = 1000;
    d.base.pose.p = p;
    d.base.linear_velocity = v;
    tc_body_id id;
    tc_error err;
    assert_int_equal(tc_quasi_body_create(w, &d, &id, &err), TC_RESULT_OK);
    return id;
}

static tc_real kinetic_energy(const tc_world* w, tc_body_id a, tc_body_id b) {
    return 0.5 * tc_body_get_mass(w, a) * tc_v3_len2(tc_body_get_linear_velocity(w, a)) +
           0.5 * tc_body_get_mass(w, b) * tc_v3_len2(tc_body_get_linear_velocity(w, b));
}

static tc_vec3 momentum(const tc_world* w, tc_body_id a, tc_body_id b) {
    return tc_v3_add(tc_v3_scale(tc_body_get_linear_velocity(w, a), tc_body_get_mass(w, a)),
                     tc_v3_scale(tc_body_get_linear_velocity(w, b), tc_body_get_mass(w, b)));
}

static bool has_contacts(const tc_world* w) {
    int n = 0;
    tc_world_get_contacts(w, &n);
    return n > 0;
}

// Spheres of radius 5 cm, 1 cm apart along z, closing at `speed` (each at half of it), no
// gravity: over 0.25 s the kinetic energy out of contact never exceeds its start by more than 1 %,
// momentum is conserved at every step, and the bodies end apart and separating (they bounced).
static void head_on(bool a_is_quasi, tc_real speed) {
    tc_world* w = make_world(tc_v3(0, 0, 0));
    tc_vec3 va = tc_v3(0, 0, 0.5 * speed), vb = tc_v3(0, 0, -0.5 * speed);
    tc_body_id a = a_is_quasi ? add_quasi_sphere(w, tc_v3(0, 0, 0), va) : add_rigid_sphere(w, tc_v3(0, 0, 0), va);
    tc_body_id b = add_quasi_sphere(w, tc_v3(0, 0, 2 * RADIUS + 0.01), vb);
    tc_real ke0 = kinetic_energy(w, a, b), ke_max = 0;
    tc_vec3 p0 = momentum(w, a, b);
    tc_error err;
    for (int i = 0; i < 15; ++i) {
        assert_int_equal(tc_world_step(w, &err), TC_RESULT_OK);
        if (!has_contacts(w)) ke_max = fmax(ke_max, kinetic_energy(w, a, b));
        assert_vec3_near(momentum(w, a, b), p0, 1e-9 * (1 + tc_v3_len(p0)));
    }
    tc_real ke1 = kinetic_energy(w, a, b);
    tc_real gap = tc_body_get_pose(w, b).p.z - tc_body_get_pose(w, a).p.z - 2 * RADIUS;
    tc_real separating = tc_body_get_linear_velocity(w, b).z - tc_body_get_linear_velocity(w, a).z;
    printf("%s-quasi head-on at %4.1f m/s: kinetic energy %.5f J before, %.5f J after (max out of contact %.5f J), "
           "separating at %.3f m/s, gap %.3f m\n",
           a_is_quasi ? "quasi" : "rigid", speed, ke0, ke1, ke_max, separating, gap);
    assert_true(ke_max <= 1.01 * ke0);
    assert_true(gap > 0);
    assert_true(separating > 0);
    assert_int_equal(tc_test_warnings, 0);
    tc_world_destroy(w);
}

static void test_rigid_quasi_head_on_gains_no_energy(void** state) {
    (void)state;
    head_on(false, 1);
    head_on(false, 6);
    head_on(false, 12);
}

static void test_quasi_quasi_head_on_gains_no_energy(void** state) {
    (void)state;
    head_on(true, 1);
    head_on(true, 6);
    head_on(true, 12);
}

// A quasi-rigid sphere dropped on a static plane at 6 m/s under gravity: its energy (kinetic plus
// gravitational) in free flight after the bounce never exceeds the energy it arrived with, and it
// rebounds (a ball held in the layer would pass the first check).
static void test_drop_on_plane_gains_no_energy(void** state) {
    (void)state;
    tc_world* w = make_world(tc_v3(0, 0, -9.81));
    tc_shape_def sd = tc_shape_def_default(TC_SHAPE_PLANE);
    sd.plane_normal = tc_v3(0, 0, 1);
    sd.plane_offset = 0;
    tc_rigid_body_def rd = tc_rigid_body_def_default();
    rd.is_static = true;
    rd.shapes = &sd;
    rd.shape_count = 1;
    tc_body_id ground;
    tc_error err;
    assert_int_equal(tc_rigid_body_create(w, &rd, &ground, &err), TC_RESULT_OK);
    tc_body_id ball = add_quasi_sphere(w, tc_v3(0, 0, RADIUS + 0.01), tc_v3(0, 0, -6));
    tc_real m = tc_body_get_mass(w, ball), g = 9.81;
    tc_real e0 = 0.5 * m * 36 + m * g * (RADIUS + 0.01), e_max = 0, vz_max = -1e9;
    bool bounced = false;
    for (int i = 0; i < 30; ++i) {
        assert_int_equal(tc_world_step(w, &err), TC_RESULT_OK);
        tc_vec3 v = tc_body_get_linear_velocity(w, ball);
        bounced |= v.z > 0;
        if (!bounced || has_contacts(w)) continue;
        e_max = fmax(e_max, 0.5 * m * tc_v3_len2(v) + m * g * tc_body_get_pose(w, ball).p.z);
        vz_max = fmax(vz_max, v.z);
    }
    printf("quasi dropped on a plane at 6 m/s: energy %.5f J before, at most %.5f J after, rebound %.3f m/s\n", e0, e_max, vz_max);
    assert_true(bounced);
    assert_true(e_max <= 1.01 * e0);
    assert_true(vz_max > 1);
    assert_int_equal(tc_test_warnings, 0);
    tc_world_destroy(w);
}

// A quasi ball (0.9 kg) resting on a rigid box of 0.16 kg that rests on the ground: the box is held
// by the rigid solver, so the ball's weight does not throw it down as a free body's would. Counted as
// free, the passivity cap drained the contact's ledger and the ball sank through the box to the
// ground in half a second; it must stay on the box, pressed in by its layer's indentation only.
static void test_ball_rests_on_light_box(void** state) {
    (void)state;
    tc_world* w = make_world(tc_v3(0, 0, -9.81));
    tc_shape_def plane = tc_shape_def_default(TC_SHAPE_PLANE);
    plane.plane_normal = tc_v3(0, 0, 1);
    plane.plane_offset = 0;
    tc_rigid_body_def rd = tc_rigid_body_def_default();
    rd.is_static = true;
    rd.shapes = &plane;
    rd.shape_count = 1;
    tc_body_id ground, box;
    tc_error err;
    assert_int_equal(tc_rigid_body_create(w, &rd, &ground, &err), TC_RESULT_OK);
    tc_shape_def slab = tc_shape_def_default(TC_SHAPE_BOX);
    slab.half_extents = tc_v3(0.1, 0.1, 0.02);
    slab.density = 100;
    rd = tc_rigid_body_def_default();
    rd.shapes = &slab;
    rd.shape_count = 1;
    rd.base.pose.p = tc_v3(0, 0, 0.02);
    assert_int_equal(tc_rigid_body_create(w, &rd, &box, &err), TC_RESULT_OK);
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.radius = 0.06;
    d.sample_count = 1000;
    d.base.pose.p = tc_v3(0, 0, 0.04 + 0.06 + 0.001);
    tc_body_id ball;
    assert_int_equal(tc_quasi_body_create(w, &d, &ball, &err), TC_RESULT_OK);
    assert_true(tc_body_get_mass(w, ball) > 5 * tc_body_get_mass(w, box));
    tc_real lowest = 1;
    for (int i = 0; i < 60; ++i) {
        assert_int_equal(tc_world_step(w, &err), TC_RESULT_OK);
        lowest = fmin(lowest, tc_body_get_pose(w, ball).p.z - tc_body_get_pose(w, box).p.z);
    }
    tc_vec3 F;
    tc_quasi_body_get_contact_wrench(w, ball, &F, NULL);
    tc_real weight = 9.81 * tc_body_get_mass(w, ball);
    printf("ball on a light box: lowest centre %.5f m above the box's (resting: 0.08 less the indentation), "
           "contact force %.3f N for a weight of %.3f N\n", lowest, F.z, weight);
    assert_true(lowest > 0.08 - 0.003);
    assert_near(F.z, weight, 0.05 * weight);
    assert_int_equal(tc_test_warnings, 0);
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_rigid_quasi_head_on_gains_no_energy, tc_test_setup_log),
        cmocka_unit_test_setup(test_quasi_quasi_head_on_gains_no_energy, tc_test_setup_log),
        cmocka_unit_test_setup(test_drop_on_plane_gains_no_energy, tc_test_setup_log),
        cmocka_unit_test_setup(test_ball_rests_on_light_box, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
