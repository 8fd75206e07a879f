// Three plastic point objects falling on each other and the ground (scenes/points_pile.json):
// they touch through contact surfaces and pile up without passing through each other or the
// ground (the top box bounces off and the pile comes apart).
#include "points_scene_util.h"

static tc_points_body_def plastic(tc_points_shape shape, tc_vec3 p) {
    tc_points_body_def d = tc_points_body_def_default();
    d.shape = shape;
    d.half_extents = tc_v3(0.1, 0.1, 0.06);
    d.radius = 0.08;
    d.phyxel_spacing = 0.035;
    d.surfel_spacing = 0.018;
    d.youngs_modulus = 5e4;
    d.yield_strain = 0.02;
    d.creep = 5;
    d.max_plastic_strain = 0.3;
    d.base.pose.p = p;
    return d;
}

static void test_pile_settles_without_interpenetration(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_body_id ground = points_add_ground(w);
    tc_points_body_def d0 = plastic(TC_POINTS_BOX, tc_v3(0, 0, 0.08));
    tc_points_body_def d1 = plastic(TC_POINTS_SPHERE, tc_v3(0.02, 0, 0.30));
    tc_points_body_def d2 = plastic(TC_POINTS_BOX, tc_v3(-0.02, 0.01, 0.50));
    tc_body_id b[3] = {points_add(w, &d0), points_add(w, &d1), points_add(w, &d2)};
    int touch01 = 0, touch12 = 0;
    tc_real min01 = 1, min12 = 1;
    for (int s = 0; s < 120; ++s) {
        points_step(w);
        touch01 += points_contacts_between(w, b[0], b[1]) > 0;
        touch12 += points_contacts_between(w, b[1], b[2]) > 0;
        min01 = fmin(min01, tc_v3_dist(tc_body_get_center_of_mass(w, b[0]), tc_body_get_center_of_mass(w, b[1])));
        min12 = fmin(min12, tc_v3_dist(tc_body_get_center_of_mass(w, b[1]), tc_body_get_center_of_mass(w, b[2])));
    }
    tc_real z[3];
    for (int i = 0; i < 3; ++i) z[i] = tc_body_get_center_of_mass(w, b[i]).z;
    print_message("final heights %.3f %.3f %.3f; contacts 0-1 in %d steps, 1-2 in %d steps; closest centres %.3f %.3f\n", z[0],
                  z[1], z[2], touch01, touch12, min01, min12);
    assert_true(touch01 > 10 && touch12 > 5);   // the pile formed through contact surfaces
    // Box half height 0.06 + sphere radius 0.08 = 0.14 m apart when just touching; the putty
    // flattens, but the objects never pass through each other.
    assert_true(min01 > 0.08 && min12 > 0.08);
    assert_true(points_contacts_between(w, ground, b[0]) > 0);
    // Whether the sphere stays on the box or rolls off is sensitive to the last bit; the
    // invariants are that nothing sinks into the ground and the top box came down.
    for (int i = 0; i < 3; ++i) assert_true(tc_body_get_aabb(w, b[i]).lo.z > -0.03);
    assert_true(z[2] < 0.3);
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test_setup(test_pile_settles_without_interpenetration, tc_test_setup_log)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
