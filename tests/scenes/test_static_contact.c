// Deformable bodies against immovable geometry: point bodies integrate these contacts within their
// own sub-steps (dynamics/points/points_contact.c), tet bodies in their implicit step
// (tet_ops.c). A soft sphere of either kind thrown at 6 or 12 m/s at a static ball of its size
// used to sink 4 cm into it and pass through (the penalty force was held over each 1/240 s world
// sub-step, so its stiffness was bounded by that step); a rigid box dropped on a point slab lying
// on the ground squashed the slab into the ground and ended on the ground.
#include "points_scene_util.h"
#include "rigid_scene_util.h"

static tc_body_id static_ball(tc_world* w, tc_vec3 p, tc_real r) {
    return rs_moving(w, rs_sphere(r), p, tc_v3_zero(), true);
}

// A free rigid box of these half extents and density (kg/m^3) resting at p.
static tc_body_id free_box(tc_world* w, tc_vec3 half, tc_real density, tc_vec3 p) {
    tc_shape_def s = rs_box(half);
    s.density = density;
    return rs_moving(w, s, p, tc_v3_zero(), false);
}

// A soft point slab (E = 1e5 Pa) of these half extents centred at p.
static tc_body_id point_slab(tc_world* w, tc_vec3 half, tc_vec3 p) {
    tc_points_body_def d = tc_points_body_def_default();
    d.half_extents = half;
    d.phyxel_spacing = 0.03;
    d.surfel_spacing = 0.015;
    d.youngs_modulus = 1e5;
    d.base.pose.p = p;
    return points_add(w, &d);
}

static tc_body_id soft_sphere(tc_world* w, bool tet, tc_real speed, tc_real youngs) {
    if (tet) {
        tc_tet_body_def d = tc_tet_body_def_default();
        d.shape = TC_TET_SPHERE;
        d.radius = 0.05;
        d.resolution = 6;
        d.youngs_modulus = youngs;
        d.base.linear_velocity = tc_v3(0, 0, speed);
        tc_body_id id;
        tc_error e;
        assert_int_equal(tc_tet_body_create(w, &d, &id, &e), TC_RESULT_OK);
        return id;
    }
    tc_points_body_def d = tc_points_body_def_default();
    d.shape = TC_POINTS_SPHERE;
    d.radius = 0.05;
    d.phyxel_spacing = 0.02;
    d.surfel_spacing = 0.004;
    d.youngs_modulus = youngs;
    d.jitter = 0;
    d.base.linear_velocity = tc_v3(0, 0, speed);
    return points_add(w, &d);
}

// A world without gravity stepped at the default sub-step, 1/240 s, one sub-step per step (so
// that the tests see every sub-step).
static tc_world* fine_world(void) {
    tc_world_def wd = tc_world_def_default();
    wd.gravity = tc_v3_zero();
    wd.time_step = 1.0 / 240;
    wd.sub_steps = 1;
    return tc_world_create(&wd, NULL);
}

// A 5 cm soft sphere at `speed` towards a static 5 cm ball, 0.5 s.
static void throw_at_ball(bool tet, tc_real speed, tc_real youngs) {
    tc_world* w = fine_world();
    tc_body_id a = soft_sphere(w, tet, speed, youngs);
    tc_vec3 ball = tc_v3(0, 0, 0.101 + 0.04 * speed); // contact after ~10 sub-steps
    static_ball(w, ball, 0.05);
    tc_real ke0 = 0.5 * tc_body_get_mass(w, a) * speed * speed, peak = 0, closest = INFINITY;
    for (int i = 0; i < 120; ++i) {
        points_step(w);
        peak = fmax(peak, tc_world_get_stats(w).kinetic_energy);
        closest = fmin(closest, ball.z - tc_body_get_center_of_mass(w, a).z);
    }
    tc_real v_after = tc_body_get_linear_velocity(w, a).z;
    print_message("%s %4.0f m/s, E %.0e Pa: closest centre distance %.4f m (touching at 0.1), leaves at %.2f m/s, peak KE %.4f of %.4f J\n",
                  tet ? "tet   " : "points", speed, youngs, closest, v_after, peak, ke0);
    assert_true(closest > 0.5 * 0.1);      // never more than half a radius deep into the ball
    assert_true(v_after < -0.1 * speed);   // bounced back
    assert_true(peak <= ke0 * (1 + 1e-9)); // no energy made
    tc_world_destroy(w);
}

static void test_fast_sphere_does_not_pass_through_static_ball(void** state) {
    (void)state;
    for (int tet = 0; tet < 2; ++tet) {
        throw_at_ball(tet, 6, 1e5);
        throw_at_ball(tet, 6, 1e6);
        throw_at_ball(tet, 12, 1e6);
    }
}

// A 5 cm soft sphere (E = 1e6 Pa) at a static wall 2 cm thick, starting at three phases of a
// sub-step: it must not reach the wall and must be sent back. Surface samples that will only
// reach the wall within a sub-step are registered too; before they were, a tet sphere at 12 m/s
// crossed this wall in two of five phases without any contact. Points at 12 m/s (5 cm per
// sub-step), tet at 6: at 12 m/s a tet sphere, whose surface vertices are 1.7 cm apart, can still
// end straddling so thin a wall (vertices past its middle are pushed out of its far side).
static void test_fast_sphere_does_not_cross_thin_wall(void** state) {
    (void)state;
    for (int tet = 0; tet < 2; ++tet)
        for (int phase = 0; phase < 5; phase += 2) {
            tc_world* w = fine_world();
            tc_real speed = tet ? 6 : 12;
            tc_body_id a = soft_sphere(w, tet, speed, 1e6);
            tc_real wall = 0.3 + speed / 1200 * phase;
            rs_moving(w, rs_box(tc_v3(0.2, 0.2, 0.01)), tc_v3(0, 0, wall), tc_v3_zero(), true);
            tc_real furthest = -INFINITY;
            for (int i = 0; i < 120; ++i) {
                points_step(w);
                furthest = fmax(furthest, tc_body_get_center_of_mass(w, a).z);
            }
            tc_real v_after = tc_body_get_linear_velocity(w, a).z;
            print_message("%s phase %d: centre reached %.4f m (wall from %.3f to %.3f), leaves at %.2f m/s\n", tet ? "tet   " : "points", phase,
                          furthest, wall - 0.01, wall + 0.01, v_after);
            assert_true(furthest < wall - 0.01); // the centre never inside the wall
            assert_true(v_after < 0);             // sent back
            tc_world_destroy(w);
        }
}

// A 5 cm point sphere and a free rigid ball of its size closing at `closing` m/s: the point body
// meets the rigid one through a proxy within its internal steps (points_contact.c). They must
// not pass through each other, the total momentum must stay, and no energy may be made. (Held
// over the sub-step the penalty was soft: at 12 m/s the sphere ended inside the ball.)
static void hit_free_ball(tc_real closing, tc_real youngs) {
    tc_world* w = fine_world();
    tc_body_id a = soft_sphere(w, false, 0.5 * closing, youngs);
    tc_body_id b = rs_moving(w, rs_sphere(0.05), tc_v3(0.01, 0, 0.101 + 0.02 * closing), tc_v3(0, 0, -0.5 * closing), false);
    tc_real ma = tc_body_get_mass(w, a), mb = tc_body_get_mass(w, b);
    tc_vec3 p0 = tc_v3_add(tc_v3_scale(tc_body_get_linear_velocity(w, a), ma), tc_v3_scale(tc_body_get_linear_velocity(w, b), mb));
    tc_real ke0 = 0.125 * (ma + mb) * closing * closing, peak = 0, closest = INFINITY;
    for (int i = 0; i < 120; ++i) {
        points_step(w);
        peak = fmax(peak, tc_world_get_stats(w).kinetic_energy);
        closest = fmin(closest, tc_body_get_center_of_mass(w, b).z - tc_body_get_center_of_mass(w, a).z);
    }
    tc_vec3 p1 = tc_v3_add(tc_v3_scale(tc_body_get_linear_velocity(w, a), ma), tc_v3_scale(tc_body_get_linear_velocity(w, b), mb));
    tc_real separating = tc_body_get_linear_velocity(w, b).z - tc_body_get_linear_velocity(w, a).z;
    print_message("points vs free ball %4.0f m/s, E %.0e Pa: closest centres %.4f m along z (touching at ~0.1), separating at %.2f m/s, "
                  "momentum change %.2g of %.2g kg m/s, peak KE %.4f of %.4f J\n",
                  closing, youngs, closest, separating, tc_v3_len(tc_v3_sub(p1, p0)), 0.5 * closing * (ma + mb), peak, ke0);
    assert_true(closest > 0.5 * 0.1);                                      // never more than half a radius deep
    assert_true(separating > 0.1 * closing);                               // bounced apart
    assert_true(tc_v3_len(tc_v3_sub(p1, p0)) < 1e-9 * closing * (ma + mb)); // impulses in equal and opposite pairs
    assert_true(peak <= ke0 * (1 + 1e-9));                                 // no energy made
    tc_world_destroy(w);
}

static void test_fast_sphere_against_free_rigid_ball(void** state) {
    (void)state;
    hit_free_ball(6, 1e5);
    hit_free_ball(12, 1e6);
}

// A 0.5 kg rigid box dropped 0.3 m onto a 8 cm point slab on the ground: it must come to rest
// on the slab, not squash it into the ground, and bounce back less than half its drop (the
// box-slab penalty's damper, held over the sub-step, was 1.6 times its discrete critical value
// and threw the box 1 m up once the slab stood firm on the ground). Met through the proxy the
// box sinks 1.2 cm into the soft slab and rises 8 cm (26% of the drop's energy; the penalty
// held over the sub-step, damped per surfel, let it sink 0.4 cm and rise 2 cm).
static void test_box_rests_on_point_slab(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    points_add_ground(w);
    tc_body_id slab = point_slab(w, tc_v3(0.2, 0.2, 0.04), tc_v3(0, 0, 0.0405));
    tc_body_id box = free_box(w, tc_v3(0.05, 0.05, 0.05), 500, tc_v3(0, 0, 0.08 + 0.05 + 0.3));
    tc_real lowest = INFINITY, slab_low = INFINITY, rebound = 0;
    for (int i = 0; i < 180; ++i) {
        points_step(w);
        tc_real zb = tc_body_get_center_of_mass(w, box).z;
        lowest = fmin(lowest, zb);
        if (lowest < 0.15) rebound = fmax(rebound, zb); // after the first contact
        slab_low = fmin(slab_low, tc_body_get_center_of_mass(w, slab).z);
    }
    tc_real z = tc_body_get_center_of_mass(w, box).z;
    print_message("box centre: lowest %.4f m, highest after landing %.4f m (dropped from 0.43), after 3 s %.4f m (on the slab: 0.13); "
                  "slab centre lowest %.4f m (0.04)\n", lowest, rebound, z, slab_low);
    assert_true(lowest > 0.11);          // at most 2 cm into the 8 cm slab
    assert_true(rebound < 0.13 + 0.5 * 0.3); // returns less than half the drop's energy
    assert_near(z, 0.13, 0.01);          // resting on it
    assert_true(slab_low > 0.04 - 0.01); // the slab is not squashed into the ground
    assert_true(tc_v3_len(tc_body_get_linear_velocity(w, box)) < 0.05);
    tc_world_destroy(w);
}

// A point slab resting on a free rigid box that rests on the ground: the box takes the slab's
// weight through the proxy after the rigid solver's sub-step; both must come to rest in place.
static void test_point_slab_rests_on_rigid_box(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    points_add_ground(w);
    tc_body_id box = free_box(w, tc_v3(0.15, 0.15, 0.05), 500, tc_v3(0, 0, 0.05));
    tc_body_id slab = point_slab(w, tc_v3(0.1, 0.1, 0.04), tc_v3(0, 0, 0.1405));
    tc_real box_low = INFINITY;
    for (int i = 0; i < 120; ++i) {
        points_step(w);
        box_low = fmin(box_low, tc_body_get_center_of_mass(w, box).z);
    }
    tc_real zb = tc_body_get_center_of_mass(w, box).z, zs = tc_body_get_center_of_mass(w, slab).z;
    tc_real vb = tc_v3_len(tc_body_get_linear_velocity(w, box)), vs = tc_v3_len(tc_body_get_linear_velocity(w, slab));
    print_message("box centre %.4f m (lowest %.4f, rest 0.05), slab centre %.4f m (rest 0.14); speeds %.3g and %.3g m/s\n", zb, box_low, zs,
                  vb, vs);
    assert_near(zb, 0.05, 2e-3);
    assert_true(box_low > 0.05 - 5e-3);
    assert_near(zs, 0.14, 0.01);
    assert_true(vb < 0.02 && vs < 0.02);
    tc_world_destroy(w);
}

// A point sphere thrown at 8 m/s at a box asleep on the ground: the solver built the step's
// contact pairs without the sleeping box, so the box is met as immovable for that step and
// wakes at the next (woken at once and pushed, it fell through the ground: centre at -7 cm).
static void test_point_sphere_hits_sleeping_box(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    points_add_ground(w);
    tc_body_id box = free_box(w, tc_v3(0.05, 0.05, 0.05), 800, tc_v3(0, 0, 0.05));
    int steps = 0;
    do points_step(w); // asleep once its contacts are no longer made (tc_world_stats)
    while (tc_world_get_stats(w).contact_count > 0 && ++steps < 120);
    assert_int_equal(tc_world_get_stats(w).contact_count, 0);
    tc_points_body_def d = tc_points_body_def_default();
    d.shape = TC_POINTS_SPHERE;
    d.radius = 0.05;
    d.phyxel_spacing = 0.02;
    d.surfel_spacing = 0.006;
    d.youngs_modulus = 1e6;
    d.base.pose.p = tc_v3(-0.2, 0, 0.06);
    d.base.linear_velocity = tc_v3(8, 0, 0);
    points_add(w, &d);
    tc_real lowest = INFINITY;
    for (int i = 0; i < 60; ++i) {
        points_step(w);
        lowest = fmin(lowest, tc_body_get_center_of_mass(w, box).z);
    }
    tc_vec3 c = tc_body_get_center_of_mass(w, box);
    print_message("sleeping box hit at 8 m/s: lowest centre %.4f m (rest 0.05), now at (%.3f, %.3f, %.4f) m\n", lowest, c.x, c.y, c.z);
    assert_true(lowest > 0.05 - 0.01); // never through the ground (a few mm into its soft contact)
    assert_true(c.x > 0.02);            // pushed
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_fast_sphere_does_not_pass_through_static_ball, tc_test_setup_log),
        cmocka_unit_test_setup(test_fast_sphere_does_not_cross_thin_wall, tc_test_setup_log),
        cmocka_unit_test_setup(test_fast_sphere_against_free_rigid_ball, tc_test_setup_log),
        cmocka_unit_test_setup(test_point_slab_rests_on_rigid_box, tc_test_setup_log),
        cmocka_unit_test_setup(test_point_sphere_hits_sleeping_box, tc_test_setup_log),
        cmocka_unit_test_setup(test_box_rests_on_point_slab, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
