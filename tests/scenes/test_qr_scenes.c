// Quasi-rigid scenarios through the C API: a soft ball pressed on the ground by gravity (qr_press:
// total traction equals the load, indentation as Hertz), a spinning ball on an incline
// (qr_spinning_ball: friction curves the path to the predicted side), two quasi bodies colliding
// (momentum is exchanged reciprocally), and the def validation.
#include "tc_test.h"

static tc_world* make_world(int sub_steps) {
    tc_world_def wd = tc_world_def_default();
    wd.sub_steps = sub_steps;
    wd.enable_sleep = false;
    tc_world* w = tc_world_create(&wd, NULL);
    assert_non_null(w);
    return w;
}

static tc_body_id add_plane(tc_world* w, tc_vec3 normal, tc_real friction) {
    tc_shape_def sd = tc_shape_def_default(TC_SHAPE_PLANE);
    sd.plane_normal = normal;
    sd.plane_offset = 0;
    tc_rigid_body_def rd = tc_rigid_body_def_default();
    rd.is_static = true;
    rd.shapes = &sd;
    rd.shape_count = 1;
    rd.base.material.friction = friction;
    tc_body_id id;
    tc_error err;
    assert_int_equal(tc_rigid_body_create(w, &rd, &id, &err), TC_RESULT_OK);
    return id;
}

static void test_press_total_force_equals_load(void** state) {
    (void)state;
    tc_world* w = make_world(4);
    add_plane(w, tc_v3(0, 0, 1), 0.6);
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.radius = 0.1;
    d.sample_count = 8000;
    d.shear_modulus = 2e5;
    d.layer_damping = 3e5;
    d.base.pose.p = tc_v3(0, 0, 0.1);
    tc_body_id ball;
    tc_error err;
    assert_int_equal(tc_quasi_body_create(w, &d, &ball, &err), TC_RESULT_OK);
    assert_int_equal(tc_body_get_kind(w, ball), TC_BODY_QUASI);
    for (int i = 0; i < 90; ++i) assert_int_equal(tc_world_step(w, &err), TC_RESULT_OK);
    tc_real m = tc_body_get_mass(w, ball), load = m * 9.81;
    assert_near(m, 1000 * 4.0 / 3 * TC_PI * 1e-3, 1e-9);
    tc_vec3 F, T;
    tc_quasi_body_get_contact_wrench(w, ball, &F, &T);
    printf("press: load %.4g N, contact force (%.3g, %.3g, %.4g) N, |v| %.2e\n", load, F.x, F.y, F.z,
           tc_v3_len(tc_body_get_linear_velocity(w, ball)));
    assert_near(F.z / load, 1, 0.02);
    // sum of the per-sample tractions times their areas is the same force
    int n = tc_quasi_body_get_sample_count(w, ball);
    tc_real* p = calloc((size_t)n, sizeof(tc_real));
    tc_real* u = calloc((size_t)n, sizeof(tc_real));
    assert_int_equal(tc_quasi_body_get_tractions(w, ball, p, u, n), n);
    tc_real sum = 0, area = 4 * TC_PI * 0.01 / n, umax = 0;
    int touching = 0;
    for (int i = 0; i < n; ++i) {
        sum += p[i] * area;
        touching += p[i] > 0;
        umax = fmax(umax, u[i]);
    }
    assert_true(touching > 20);
    assert_near(sum / load, 1, 0.05);
    // indentation as Hertz: delta = a^2/R with a = (3PR/4E*)^(1/3)
    tc_real Es = 2 * 2e5 * 1.3 / (1 - 0.09), a = cbrt(3 * load * 0.1 / (4 * Es)), delta = a * a / 0.1;
    tc_real z = tc_body_get_pose(w, ball).p.z;
    printf("press: indentation %.4g m (Hertz %.4g), max layer displacement %.4g\n", 0.1 - z, delta, umax);
    assert_near((0.1 - z) / delta, 1, 0.15);
    int count = 0;
    const tc_contact* c = tc_world_get_contacts(w, &count);
    assert_int_equal(count, 1);
    assert_near(c[0].normal_force / load, 1, 0.05);
    assert_true(c[0].normal.z < -0.99); // from the ball (A) to the ground (B)
    free(p);
    free(u);
    tc_world_destroy(w);
}

static void test_spinning_ball_curves_to_friction_side(void** state) {
    (void)state;
    tc_world* w = make_world(4);
    tc_real slope = 0.25;
    tc_vec3 n = tc_v3(0, sin(slope), cos(slope)); // incline rising towards -y: downhill is +y... along d
    tc_vec3 down = tc_v3_normalize(tc_v3_cross(tc_v3_cross(n, tc_v3(0, 0, -1)), n));
    add_plane(w, n, 0.5);
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.radius = 0.05;
    d.sample_count = 3000;
    d.shear_modulus = 5e5;
    d.layer_damping = 2e5;
    d.base.pose.p = tc_v3_scale(n, 0.06);
    d.base.angular_velocity = tc_v3_scale(down, 40); // spin about the downhill axis
    d.base.material.friction = 0.5;
    tc_body_id ball;
    tc_error err;
    assert_int_equal(tc_quasi_body_create(w, &d, &ball, &err), TC_RESULT_OK);
    tc_vec3 start = tc_body_get_pose(w, ball).p;
    for (int i = 0; i < 60; ++i) assert_int_equal(tc_world_step(w, &err), TC_RESULT_OK);
    tc_vec3 moved = tc_v3_sub(tc_body_get_pose(w, ball).p, start);
    // friction opposes the contact point's slip v_c = w x (-R n): the force is along w x n
    tc_vec3 side = tc_v3_normalize(tc_v3_cross(down, n));
    tc_real lateral = tc_v3_dot(moved, side), downhill = tc_v3_dot(moved, down);
    printf("spinning ball: downhill %.4f m, lateral %.4f m, spin now %.2f rad/s\n", downhill, lateral,
           tc_v3_len(tc_quasi_body_get_angular_velocity(w, ball)));
    assert_true(downhill > 0.05);
    assert_true(lateral > 0.02);
    // with the spin reversed, the path curves the other way
    tc_world_destroy(w);
    w = make_world(4);
    add_plane(w, n, 0.5);
    d.base.angular_velocity = tc_v3_scale(down, -40);
    assert_int_equal(tc_quasi_body_create(w, &d, &ball, &err), TC_RESULT_OK);
    for (int i = 0; i < 60; ++i) assert_int_equal(tc_world_step(w, &err), TC_RESULT_OK);
    moved = tc_v3_sub(tc_body_get_pose(w, ball).p, start);
    assert_true(tc_v3_dot(moved, side) < -0.02);
    tc_world_destroy(w);
}

static void test_two_quasi_bodies_exchange_momentum(void** state) {
    (void)state;
    tc_world* w = make_world(8);
    assert_int_equal(tc_world_set_gravity(w, tc_v3(0, 0, 0)), TC_RESULT_OK);
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.radius = 0.05;
    d.sample_count = 1500;
    d.shear_modulus = 2e5;
    d.base.material.friction = 0;
    d.base.pose.p = tc_v3(-0.06, 0, 0);
    d.base.linear_velocity = tc_v3(0.5, 0, 0);
    tc_body_id a, b;
    tc_error err;
    assert_int_equal(tc_quasi_body_create(w, &d, &a, &err), TC_RESULT_OK);
    d.base.pose.p = tc_v3(0.06, 0.01, 0);
    d.base.linear_velocity = tc_v3(-0.5, 0, 0);
    d.density = 2000;
    assert_int_equal(tc_quasi_body_create(w, &d, &b, &err), TC_RESULT_OK);
    tc_real ma = tc_body_get_mass(w, a), mb = tc_body_get_mass(w, b);
    tc_vec3 p0 = tc_v3_add(tc_v3_scale(tc_body_get_linear_velocity(w, a), ma), tc_v3_scale(tc_body_get_linear_velocity(w, b), mb));
    tc_real max_force = 0;
    for (int i = 0; i < 30; ++i) {
        assert_int_equal(tc_world_step(w, &err), TC_RESULT_OK);
        tc_vec3 F;
        tc_quasi_body_get_contact_wrench(w, a, &F, NULL);
        max_force = fmax(max_force, tc_v3_len(F));
    }
    tc_vec3 p1 = tc_v3_add(tc_v3_scale(tc_body_get_linear_velocity(w, a), ma), tc_v3_scale(tc_body_get_linear_velocity(w, b), mb));
    printf("quasi-quasi: peak force %.3g N, momentum before (%.4f, %.4f) after (%.4f, %.4f)\n", max_force, p0.x, p0.y, p1.x, p1.y);
    assert_true(max_force > 1);
    assert_vec3_near(p1, p0, 1e-9 * (1 + tc_v3_len(p0)));
    // the bodies bounced apart (elastic layer, no damping): A now moves in -x
    assert_true(tc_body_get_linear_velocity(w, a).x < 0);
    tc_world_destroy(w);
}

// A stiff ball dropped on the ground at one sub-step per 1/60 s: the contact stiffness gives
// ωh ≈ 3, beyond the explicit update's limit of 2, where the load held over a sub-step would throw
// the ball back faster than it came. The passivity cap lets no bounce leave with more energy than
// it met the ground with, and the ball still bounces (it is not held in the layer).
static void test_coarse_bounce_gains_no_energy(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    wd.sub_steps = 1;
    wd.enable_sleep = false;
    tc_world* w = tc_world_create(&wd, NULL);
    assert_non_null(w);
    add_plane(w, tc_v3(0, 0, 1), 0.2);
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.radius = 0.06;
    d.sample_count = 1000;
    d.shear_modulus = 1e6;
    d.base.pose.p = tc_v3(0, 0, 0.2);
    d.base.linear_velocity = tc_v3(0.5, 0, -3);
    tc_body_id ball;
    tc_error err;
    assert_int_equal(tc_quasi_body_create(w, &d, &ball, &err), TC_RESULT_OK);
    tc_real e_before = -1, e_max_after = 0, vz_max = -1e9;
    int bounces = 0;
    bool touching = false;
    for (int i = 0; i < 120; ++i) {
        assert_int_equal(tc_world_step(w, &err), TC_RESULT_OK);
        tc_world_stats st = tc_world_get_stats(w);
        tc_real e = st.kinetic_energy + st.potential_energy;
        int n = 0;
        tc_world_get_contacts(w, &n);
        if (n > 0 && !touching) {
            bounces++;
            if (e_before < 0) e_before = e_max_after > 0 ? e_max_after : e;
        }
        touching = n > 0;
        if (e_before < 0) e_max_after = e; // the last energy in free flight before the first touch
        else if (!touching) {
            e_max_after = fmax(e_max_after, e);
            vz_max = fmax(vz_max, tc_body_get_linear_velocity(w, ball).z);
        }
    }
    printf("coarse bounce: %d contacts begun, energy before the first %.4f J, max after %.4f J, max rebound vz %.3f m/s\n",
           bounces, e_before, e_max_after, vz_max);
    assert_true(bounces >= 1);
    assert_true(e_max_after <= e_before * (1 + 1e-9));
    assert_true(vz_max > 0.5);
    tc_world_destroy(w);
}

// Steps the room world: the body never leaves the box |x|, |y| < 0.5, 0 < z < 1, meets at least
// three walls (contact-normal changes) and never gains more than 5% energy.
static void check_room(tc_world* w, tc_body_id body, int steps, const char* label) {
    tc_error err;
    tc_world_stats st;
    tc_real e0 = 0, emax = 0;
    int contact_steps = 0;
    tc_vec3 last_normal = tc_v3_zero();
    int distinct = 0;
    for (int i = 0; i < steps; ++i) {
        assert_int_equal(tc_world_step(w, &err), TC_RESULT_OK);
        st = tc_world_get_stats(w);
        if (i == 0) e0 = st.kinetic_energy + st.potential_energy;
        emax = fmax(emax, st.kinetic_energy + st.potential_energy);
        tc_vec3 p = tc_body_get_pose(w, body).p;
        assert_true(fabs(p.x) < 0.5 && fabs(p.y) < 0.5 && p.z > 0 && p.z < 1); // never escapes
        int n = 0;
        const tc_contact* c = tc_world_get_contacts(w, &n);
        if (n > 0) {
            contact_steps++;
            if (tc_v3_dot(c[0].normal, last_normal) < 0.5) distinct++;
            last_normal = c[0].normal;
        }
    }
    printf("%s: %d steps in contact, %d contact-normal changes, energy %.3f J -> max %.3f J\n", label, contact_steps, distinct, e0, emax);
    assert_true(distinct >= 3);
    assert_true(emax <= e0 * 1.05);
}

// qr_room: a closed room of non-planar walls (six planes with embedded spherical bumps, one static
// body); an elastic ellipsoid thrown inside bounces off several walls, never escapes, and the
// elastic layer does not add energy.
static void test_room_bounces_stay_inside(void** state) {
    (void)state;
    tc_world* w = make_world(8);
    enum { planes = 6, bumps = 12 };
    tc_shape_def shapes[planes + bumps];
    tc_vec3 normals[planes] = {{0, 0, 1}, {0, 0, -1}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
    tc_real offsets[planes] = {0, -1, -0.5, -0.5, -0.5, -0.5}; // solid below z=0, above z=1, beyond |x|,|y| = 0.5
    for (int i = 0; i < planes; ++i) {
        shapes[i] = tc_shape_def_default(TC_SHAPE_PLANE);
        shapes[i].plane_normal = normals[i];
        shapes[i].plane_offset = offsets[i];
    }
    for (int i = 0; i < bumps; ++i) { // two bumps per wall, half embedded
        tc_vec3 n = normals[i / 2];
        tc_vec3 t1, t2;
        tc_v3_basis(n, &t1, &t2);
        tc_vec3 on_wall = tc_v3_scale(n, offsets[i / 2]);
        if (i / 2 >= 2) on_wall = tc_v3_add(on_wall, tc_v3(0, 0, 0.5));
        shapes[planes + i] = tc_shape_def_default(TC_SHAPE_SPHERE);
        shapes[planes + i].radius = 0.15;
        shapes[planes + i].local.p = tc_v3_madd(on_wall, (i % 2 ? 0.2 : -0.2), t1);
    }
    tc_rigid_body_def rd = tc_rigid_body_def_default();
    rd.is_static = true;
    rd.shapes = shapes;
    rd.shape_count = planes + bumps;
    tc_body_id room, body;
    tc_error err;
    assert_int_equal(tc_rigid_body_create(w, &rd, &room, &err), TC_RESULT_OK);
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.shape = TC_QUASI_ELLIPSOID;
    d.half_extents = tc_v3(0.08, 0.06, 0.05);
    d.sample_count = 1500;
    d.shear_modulus = 1e6;
    d.base.material.friction = 0.2;
    d.base.pose.p = tc_v3(0, 0, 0.5);
    d.base.linear_velocity = tc_v3(2.0, 1.3, 1.0);
    d.base.angular_velocity = tc_v3(3, -2, 1);
    assert_int_equal(tc_quasi_body_create(w, &d, &body, &err), TC_RESULT_OK);
    check_room(w, body, 150, "room (API, 8 sub-steps)");
    tc_world_destroy(w);
}

// The shipped scenes/qr_room.json (the same room and throw at the scene's 4 sub-steps, its 3 s).
static void test_shipped_room(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("qr_room");
    tc_world* w = tc_scene_world(s);
    check_room(w, tc_world_find_body(w, "egg"), 180, "room (scenes/qr_room.json)");
    tc_scene_destroy(s);
}

static void test_bad_defs_are_reported(void** state) {
    (void)state;
    tc_world* w = make_world(1);
    tc_body_id id;
    tc_error err;
    tc_quasi_body_def d = tc_quasi_body_def_default();
    d.poisson = 0.5;
    assert_int_equal(tc_quasi_body_create(w, &d, &id, &err), TC_RESULT_OUT_OF_RANGE);
    assert_non_null(strstr(err.message, "body.poisson"));
    d = tc_quasi_body_def_default();
    d.radius = NAN;
    assert_int_equal(tc_quasi_body_create(w, &d, &id, &err), TC_RESULT_OUT_OF_RANGE);
    assert_non_null(strstr(err.message, "body.radius"));
    d = tc_quasi_body_def_default();
    d.shear_modulus = -1;
    assert_int_equal(tc_quasi_body_create(w, &d, &id, &err), TC_RESULT_OUT_OF_RANGE);
    d = tc_quasi_body_def_default();
    d.shape = TC_QUASI_POINTS;
    assert_int_equal(tc_quasi_body_create(w, &d, &id, &err), TC_RESULT_INVALID_ARGUMENT);
    tc_vec3 pts[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, INFINITY}};
    d.points = pts;
    d.point_count = 4;
    d.mass = 1;
    assert_int_equal(tc_quasi_body_create(w, &d, &id, &err), TC_RESULT_NOT_FINITE);
    assert_non_null(strstr(err.message, "points[3]"));
    d = tc_quasi_body_def_default();
    d.internal_value = 0;
    assert_int_equal(tc_quasi_body_create(w, &d, &id, &err), TC_RESULT_INVALID_ARGUMENT);
    assert_int_equal(tc_world_get_body_count(w), 0);
    // create, destroy, create again: slots and records stay consistent
    d = tc_quasi_body_def_default();
    d.sample_count = 200;
    d.shape = TC_QUASI_BOX;
    tc_body_id a, b;
    assert_int_equal(tc_quasi_body_create(w, &d, &a, &err), TC_RESULT_OK);
    d.shape = TC_QUASI_ELLIPSOID;
    d.half_extents = tc_v3(0.2, 0.1, 0.05);
    assert_int_equal(tc_quasi_body_create(w, &d, &b, &err), TC_RESULT_OK);
    assert_int_equal(tc_body_destroy(w, a), TC_RESULT_OK);
    assert_true(tc_quasi_body_get_sample_count(w, b) >= 200);
    tc_real m = tc_body_get_mass(w, b);
    assert_near(m, 1000 * 4.0 / 3 * TC_PI * 0.2 * 0.1 * 0.05, 1e-9);
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_press_total_force_equals_load, tc_test_setup_log),
        cmocka_unit_test_setup(test_spinning_ball_curves_to_friction_side, tc_test_setup_log),
        cmocka_unit_test_setup(test_two_quasi_bodies_exchange_momentum, tc_test_setup_log),
        cmocka_unit_test_setup(test_coarse_bounce_gains_no_energy, tc_test_setup_log),
        cmocka_unit_test_setup(test_room_bounces_stay_inside, tc_test_setup_log),
        cmocka_unit_test_setup(test_shipped_room, tc_test_setup_log),
        cmocka_unit_test_setup(test_bad_defs_are_reported, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
