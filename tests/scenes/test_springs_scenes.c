// The seed-003 scenes as shipped: a thrown soft box flips and rests; soft objects fall on the
// ground and on each other and come to rest without tangling or sinking.
#include "tc_test.h"

#include "dynamics/springs/springs.h"

#include <stdio.h>

static const tc_springs_body* body_named(tc_world* w, const char* name) {
    tc_body_id id = tc_world_find_body(w, name);
    assert_true(tc_body_is_valid(w, id));
    return tc_springs_body_at(w, w->slots.data[id.index1 - 1].index);
}

static tc_real lowest_vertex(const tc_springs_body* b) {
    tc_real z = 1e300;
    for (int i = 0; i < b->n; ++i) z = fmin(z, b->x[i].z);
    return z;
}

// Direction of the body's initial +z side: from the centre to the vertices that started on top.
static tc_vec3 top_direction(const tc_springs_body* b, const bool* top) {
    tc_vec3 c = tc_v3_zero(), t = tc_v3_zero();
    int n = 0;
    for (int i = 0; i < b->n; ++i) {
        c = tc_v3_add(c, b->x[i]);
        if (top[i]) t = tc_v3_add(t, b->x[i]), n++;
    }
    return tc_v3_normalize(tc_v3_sub(tc_v3_scale(t, 1.0 / n), tc_v3_scale(c, 1.0 / b->n)));
}

static void test_box_flips_and_rests(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("springs_box_flip");
    tc_world* w = tc_scene_world(s);
    const tc_springs_body* b = body_named(w, "box");
    static bool top[4096];
    tc_vec3 c0 = tc_body_get_center_of_mass(w, tc_world_find_body(w, "box"));
    tc_quat q = tc_quat_make(0, 0.3827, 0, 0.9239);
    for (int i = 0; i < b->n; ++i) top[i] = tc_quat_inv_rotate(q, tc_v3_sub(b->x[i], c0)).z > 0.2;
    tc_real up0 = top_direction(b, top).z, ke_max = 0, ke = 0;
    tc_error e;
    for (int k = 0; k < 240; ++k) {
        assert_int_equal(tc_scene_step(s, &e), TC_RESULT_OK);
        ke = tc_world_get_stats(w).kinetic_energy;
        ke_max = fmax(ke_max, ke);
        if (k > 30) assert_true(lowest_vertex(b) > -1e-3);
    }
    tc_real up1 = top_direction(b, top).z;
    printf("box flip: initial top side up %.2f -> %.2f, final KE %.3g J (max %.3g J), lowest vertex %.2g m\n", up0, up1, ke, ke_max,
           lowest_vertex(b));
    assert_true(up0 > 0.6 && fabs(up1) < 0.3); // from tilted-up to lying on a side: it flipped
    assert_true(ke < 1e-4 && ke_max < 50);
    tc_scene_destroy(s);
}

// No edge of one body passes through a triangle of another.
static bool tangled(const tc_springs_body* a, const tc_springs_body* b) {
    for (int e = 0; e < a->edge_count; ++e) {
        const tc_spring* s = &a->springs.data[e];
        for (int t = 0; t < b->tri_count; ++t) {
            const int* v = b->tris + 3 * t;
            tc_real param;
            if (tc_segment_triangle(a->x[s->i], a->x[s->j], b->x[v[0]], b->x[v[1]], b->x[v[2]], &param, NULL)) return true;
        }
    }
    return false;
}

static void test_fall_rests_untangled(void** state) {
    (void)state;
    tc_scene* s = tc_test_load_scene("springs_fall");
    tc_world* w = tc_scene_world(s);
    const char* names[3] = {"box", "sphere", "torus"};
    tc_error e;
    tc_real ke_max = 0, ke = 0;
    for (int k = 0; k < 360; ++k) {
        assert_int_equal(tc_scene_step(s, &e), TC_RESULT_OK);
        ke = tc_world_get_stats(w).kinetic_energy;
        ke_max = fmax(ke_max, ke);
    }
    for (int i = 0; i < 3; ++i) {
        const tc_springs_body* a = body_named(w, names[i]);
        assert_true(lowest_vertex(a) > -1e-3);
        for (int j = 0; j < 3; ++j)
            if (i != j && tangled(a, body_named(w, names[j]))) fail_msg("%s is tangled with %s", names[i], names[j]);
        tc_real rest, vol = tc_springs_body_get_volume(w, tc_world_find_body(w, names[i]), &rest);
        printf("%s: volume %.3g of %.3g m^3, lowest vertex %.2g m\n", names[i], vol, rest, lowest_vertex(a));
        assert_true(vol > 0.97 * rest && vol < 1.03 * rest); // keeps its volume (measured 99.3-100%)
    }
    printf("springs fall: final KE %.3g J (max %.3g J)\n", ke, ke_max);
    assert_true(ke < 0.03 * ke_max); // measured 2.85% (the sphere rolls off across the ground)
    tc_scene_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_box_flips_and_rests), cmocka_unit_test(test_fall_rests_untangled)};
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
