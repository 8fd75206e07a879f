// A soft point sphere pressed into a rigid plane by its weight (scenes/points_press.json):
// it comes to rest, and the drawn surface is flattened on the plane over a contact patch.
#include "points_scene_util.h"

typedef struct drawn { int count, on_plane; tc_real min_z, patch_radius; } drawn;

static void collect_point(tc_vec3 p, float size, tc_color c, void* ctx) {
    (void)c;
    drawn* d = ctx;
    if (size > 4) return; // phyxels
    d->count++;
    d->min_z = fmin(d->min_z, p.z);
    if (fabs(p.z) < 1e-6) {
        d->on_plane++;
        d->patch_radius = fmax(d->patch_radius, sqrt(p.x * p.x + p.y * p.y));
    }
}

static void test_press_rests_and_flattens(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    points_add_ground(w);
    tc_points_body_def d = tc_points_body_def_default();
    d.shape = TC_POINTS_SPHERE;
    d.radius = 0.1;
    d.phyxel_spacing = 0.035;
    d.surfel_spacing = 0.016;
    d.youngs_modulus = 2e4;
    d.base.pose.p = tc_v3(0, 0, 0.105);
    tc_body_id id = points_add(w, &d);
    tc_real e0 = 0;
    for (int s = 0; s < 120; ++s) {
        points_step(w);
        tc_world_stats st = tc_world_get_stats(w);
        if (s == 0) e0 = st.kinetic_energy + st.potential_energy;
        assert_true(st.kinetic_energy + st.potential_energy < e0 + 0.05 * fabs(e0)); // no energy gain
    }
    tc_world_stats st = tc_world_get_stats(w);
    // A sphere may keep rocking on its patch (rolling is undamped); it must not bounce away.
    print_message("kinetic energy after 2 s: %.3g J (mass %.3g kg)\n", st.kinetic_energy, tc_body_get_mass(w, id));
    assert_true(st.kinetic_energy < 0.01 * tc_body_get_mass(w, id) * 9.81 * d.radius);
    assert_true(st.contact_count > 0);
    tc_debug_draw dd = tc_debug_draw_default();
    drawn out = {0, 0, 1e9, 0};
    dd.draw_points = true;
    dd.draw_point = collect_point;
    dd.context = &out;
    tc_world_draw(w, &dd);
    print_message("drawn %d surface points, %d on the plane, patch radius %.4f m\n", out.count, out.on_plane, out.patch_radius);
    assert_true(out.min_z > -1e-6);        // nothing drawn below the plane
    assert_true(out.on_plane > 10);        // a flat patch ...
    assert_true(out.patch_radius > 0.02);  // ... of visible size
    tc_world_destroy(w);
}

static void test_resting_box_kinetic_energy_decays(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    points_add_ground(w);
    tc_points_body_def d = tc_points_body_def_default();
    d.base.pose.p = tc_v3(0, 0, 0.12); // dropped from 2 cm
    tc_body_id id = points_add(w, &d);
    for (int s = 0; s < 150; ++s) points_step(w);
    tc_world_stats st = tc_world_get_stats(w);
    tc_vec3 c = tc_body_get_center_of_mass(w, id);
    print_message("box at rest: kinetic energy %.3g J, centre height %.4f m\n", st.kinetic_energy, c.z);
    assert_true(st.kinetic_energy < 1e-5);
    assert_near(c.z, 0.1, 0.005); // resting on its face, little penetration
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_press_rests_and_flattens, tc_test_setup_log),
        cmocka_unit_test_setup(test_resting_box_kinetic_energy_decays, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
