// Winding number of a closed spring mesh along a +z ray (the inside test of the spring-spring
// contact): against the analytic inside of a sphere and a box, including rays that run exactly
// through mesh vertices and edges and along vertical faces, where each crossing must count once.
#include "tc_test.h"

#include "dynamics/springs/springs.h"

static const tc_springs_body* make_body(tc_world* w, tc_springs_shape shape, tc_vec3 centre) {
    tc_springs_body_def d = tc_springs_body_def_default();
    d.shape = shape;
    d.radius = 0.2;
    d.resolution = 3;
    d.half_extents = tc_v3(0.2, 0.2, 0.2);
    d.base.pose.p = centre;
    tc_body_id id;
    assert_int_equal(tc_springs_body_create(w, &d, &id, NULL), TC_RESULT_OK);
    return tc_springs_body_at(w, w->slots.data[id.index1 - 1].index);
}

// A lattice through the sphere's centre (its rays hit the poles and symmetric vertices exactly):
// 1 well inside the inscribed mesh, 0 outside the sphere.
static void test_sphere_lattice(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    const tc_springs_body* b = make_body(w, TC_SPRINGS_SPHERE, tc_v3_zero());
    tc_springs_winding g;
    memset(&g, 0, sizeof g);
    assert_true(tc_springs_winding_build(&g, b));
    int inside = 0, outside = 0;
    for (int i = -15; i <= 15; ++i)
        for (int j = -15; j <= 15; ++j)
            for (int k = -15; k <= 15; ++k) {
                tc_vec3 p = tc_v3(0.02 * i, 0.02 * j, 0.02 * k);
                tc_real r = tc_v3_len(p);
                if (r > 0.97 * 0.2 && r <= 0.2) continue; // between the mesh and its circumscribed sphere (vertices on it)
                int n = tc_springs_winding_number(&g, b, p);
                if (n != (r < 0.2)) fail_msg("(%g, %g, %g), r %g: winding %d", p.x, p.y, p.z, r, n);
                inside += n == 1, outside += n == 0;
            }
    assert_true(inside > 3000 && outside > 20000);
    tc_springs_winding_free(&g);
    tc_world_destroy(w);
}

// Rays exactly through every vertex and every edge's midpoint of the mesh: from the centre's
// height the ray leaves once (1), from below the mesh it enters and leaves (0), from above it
// meets nothing (0). On the box's vertical faces the ray runs in the face: a point there counts
// as moved by (+e, +e^2) in xy, inside on the faces at -x and -y, outside at +x and +y.
static void test_rays_through_vertices_and_edges(void** state) {
    (void)state;
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    const tc_springs_body* shapes[2] = {make_body(w, TC_SPRINGS_SPHERE, tc_v3(0.013, -0.021, 0.007)),
                                        make_body(w, TC_SPRINGS_BOX, tc_v3(2, 0, 0))};
    for (int s = 0; s < 2; ++s) {
        const tc_springs_body* b = shapes[s];
        tc_vec3 c = tc_v3_scale(tc_v3_add(b->aabb.lo, b->aabb.hi), 0.5);
        tc_springs_winding g;
        memset(&g, 0, sizeof g);
        assert_true(tc_springs_winding_build(&g, b));
        int checked = 0;
        for (int e = 0; e < b->edge_count; ++e) {
            const tc_spring* sp = &b->springs.data[e];
            tc_vec3 q[2] = {b->x[sp->i], tc_v3_lerp(b->x[sp->i], b->x[sp->j], 0.5)};
            for (int k = 0; k < 2; ++k) {
                if (s == 0 && hypot(q[k].x - c.x, q[k].y - c.y) > 0.19) continue; // off the sphere's silhouette
                int in = s == 0 || (q[k].x >= b->aabb.lo.x && q[k].x < b->aabb.hi.x && q[k].y >= b->aabb.lo.y && q[k].y < b->aabb.hi.y);
                int mid = tc_springs_winding_number(&g, b, tc_v3(q[k].x, q[k].y, c.z));
                int below = tc_springs_winding_number(&g, b, tc_v3(q[k].x, q[k].y, c.z - 1));
                int above = tc_springs_winding_number(&g, b, tc_v3(q[k].x, q[k].y, c.z + 1));
                if (mid != in || below != 0 || above != 0)
                    fail_msg("shape %d edge %d point %d: windings %d %d %d (%d 0 0 expected)", s, e, k, mid, below, above, in);
                checked++;
            }
        }
        print_message("shape %d: %d rays through vertices and edge midpoints\n", s, checked);
        assert_true(checked > (s == 0 ? 2000 : 300));
        tc_springs_winding_free(&g);
    }
    tc_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_sphere_lattice), cmocka_unit_test(test_rays_through_vertices_and_edges)};
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
