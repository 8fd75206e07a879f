// Contacts between tet bodies (seed 001, ALGORITHMS §4-5): the spatial hash finds the same
// colliding vertices as brute force, the hashed edge-face walk the same crossings as a scan of
// every triangle; depth near a face equals the face distance with both methods; the consistent
// depth stays continuous where the closest-feature baseline flips; propagated directions agree
// with their neighbours'.
#include "tc_test.h"

#include "contact/tet_penetration.h"

#include <stdio.h>

static tc_world* empty_world(void) {
    tc_world_def d = tc_world_def_default();
    d.gravity = tc_v3_zero();
    tc_world* w = tc_world_create(&d, NULL);
    assert_non_null(w);
    return w;
}

static tc_body_id add_box(tc_world* w, tc_vec3 half, int res, tc_vec3 p, tc_quat q) {
    tc_tet_body_def d = tc_tet_body_def_default();
    d.half_extents = half, d.resolution = res, d.base.pose.p = p, d.base.pose.q = q;
    tc_body_id id;
    assert_int_equal(tc_tet_body_create(w, &d, &id, NULL), TC_RESULT_OK);
    return id;
}

static tc_tet_hit** alloc_hits(const tc_tet_store* s) {
    tc_tet_hit** h = calloc((size_t)s->bodies.count, sizeof *h);
    for (int i = 0; i < s->bodies.count; ++i) h[i] = calloc((size_t)s->bodies.data[i].n, sizeof **h);
    return h;
}

static void free_hits(const tc_tet_store* s, tc_tet_hit** h) {
    for (int i = 0; i < s->bodies.count; ++i) free(h[i]);
    free(h);
}

static uint32_t rng_state = 12345u;
static tc_real uniform(tc_real lo, tc_real hi) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return lo + (hi - lo) * (rng_state >> 8) / (tc_real)(1u << 24);
}

static tc_vec3 random_vec(tc_real r) { return tc_v3(uniform(-r, r), uniform(-r, r), uniform(-r, r)); }

// Random piles of boxes and spheres around the origin (negative coordinates included), one body
// jittered so that its own surface vertices enter its own tets (self-collision on).
static tc_world* random_scene(int bodies) {
    tc_world* w = empty_world();
    for (int i = 0; i < bodies; ++i) {
        tc_tet_body_def d = tc_tet_body_def_default();
        d.shape = i % 3 == 2 ? TC_TET_SPHERE : TC_TET_BOX;
        d.half_extents = tc_v3(uniform(0.05, 0.2), uniform(0.05, 0.2), uniform(0.05, 0.2));
        d.radius = uniform(0.08, 0.2);
        d.resolution = 2 + i % 3;
        d.base.pose.p = random_vec(0.2);
        d.base.pose.q = tc_quat_from_axis_angle(tc_v3_normalize(tc_v3_add(random_vec(1), tc_v3(0.01, 0, 0))), uniform(0, 3));
        d.self_collision = i == 0;
        tc_body_id id;
        assert_int_equal(tc_tet_body_create(w, &d, &id, NULL), TC_RESULT_OK);
    }
    tc_tet_body* b = tc_tet_body_at(w, 0);
    for (int v = 0; v < b->n; ++v) b->x[v] = tc_v3_add(b->x[v], random_vec(0.6 * b->mean_edge));
    tc_tet_store* s = tc_tet_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i) tc_tet_update_surface(&s->bodies.data[i]);
    return w;
}

// ALGORITHMS §4.4: the colliding (vertex, tet) pairs equal a brute-force barycentric check,
// self-collisions included.
static void test_hash_matches_brute_force(void** state) {
    (void)state;
    int colliding = 0, self = 0;
    for (int trial = 0; trial < 20; ++trial) {
        tc_world* w = random_scene(3 + trial % 6);
        const tc_tet_store* s = tc_tet_store_of(w);
        tc_tet_hit **hashed = alloc_hits(s), **brute = alloc_hits(s);
        assert_true(tc_tet_find_colliding(s, hashed));
        tc_tet_find_colliding_brute(s, brute);
        for (int bi = 0; bi < s->bodies.count; ++bi)
            for (int v = 0; v < s->bodies.data[bi].n; ++v) {
                assert_int_equal(hashed[bi][v].tet_body, brute[bi][v].tet_body);
                assert_int_equal(hashed[bi][v].tet, brute[bi][v].tet);
                colliding += hashed[bi][v].tet_body >= 0;
                self += hashed[bi][v].tet_body == bi;
            }
        free_hits(s, hashed);
        free_hits(s, brute);
        tc_world_destroy(w);
    }
    printf("spatial hash = brute force on 20 random scenes: %d colliding vertices, %d of them self-collisions\n", colliding, self);
    assert_true(colliding > 100 && self > 0); // the scenes do collide, and with themselves
}

// ALGORITHMS §4.3: walking the edge's cells through the hashed triangles gives the very crossings
// (hence depths) of a scan of every surface triangle.
static void test_face_grid_matches_scan(void** state) {
    (void)state;
    int compared = 0;
    for (int trial = 0; trial < 10; ++trial) {
        tc_world* w = random_scene(3 + trial % 4);
        const tc_tet_store* s = tc_tet_store_of(w);
        tc_tet_hit** hits = alloc_hits(s);
        assert_true(tc_tet_find_colliding(s, hits));
        tc_tet_grid grid;
        assert_true(tc_tet_grid_build_faces(&grid, s));
        for (int a = 0; a < s->bodies.count; ++a) {
            int n = s->bodies.data[a].n;
            tc_tet_depth *walked = calloc((size_t)n, sizeof *walked), *scanned = calloc((size_t)n, sizeof *scanned);
            for (int b = 0; b < s->bodies.count; ++b) {
                tc_tet_depths(s, a, b, hits[a], &grid, TC_TET_CONSISTENT, walked);
                tc_tet_depths(s, a, b, hits[a], NULL, TC_TET_CONSISTENT, scanned);
                for (int v = 0; v < n; ++v) {
                    assert_int_equal(walked[v].known, scanned[v].known);
                    if (!walked[v].known) continue;
                    assert_true(walked[v].d == scanned[v].d);
                    assert_vec3_near(walked[v].r, scanned[v].r, 0);
                    compared++;
                }
            }
            free(walked);
            free(scanned);
        }
        tc_tet_grid_free(&grid);
        free_hits(s, hits);
        tc_world_destroy(w);
    }
    printf("hashed edge-face walk = full triangle scan: %d depths identical\n", compared);
    assert_true(compared > 50);
}

static tc_tet_depth* depths_of(const tc_tet_store* s, int a, int b, tc_tet_depth_method m, tc_tet_hit*** hits_out) {
    tc_tet_hit** hits = alloc_hits(s);
    assert_true(tc_tet_find_colliding(s, hits));
    tc_tet_grid grid;
    assert_true(tc_tet_grid_build_faces(&grid, s));
    tc_tet_depth* d = calloc((size_t)s->bodies.data[a].n, sizeof *d);
    tc_tet_depths(s, a, b, hits[a], &grid, m, d);
    tc_tet_grid_free(&grid);
    *hits_out = hits;
    return d;
}

// Issue 5 (a): a small cube pressed 13 mm into the middle of each face of a box: with both
// methods every colliding vertex's depth is its distance to the nearest face, along its normal.
static void test_depth_just_inside_is_face_distance(void** state) {
    (void)state;
    const tc_real half = 0.3, depth = 0.013, small = 0.05;
    for (int face = 0; face < 6; ++face) {
        int axis = face / 2;
        tc_real sign = face % 2 ? -1 : 1;
        tc_vec3 n = tc_v3_zero(), off = tc_v3(0.013, -0.021, 0.008);
        if (axis == 0) n.x = sign, off.x = 0;
        if (axis == 1) n.y = sign, off.y = 0;
        if (axis == 2) n.z = sign, off.z = 0;
        for (int m = 0; m < 2; ++m) {
            tc_world* w = empty_world();
            add_box(w, tc_v3(half, half, half), 6, tc_v3_zero(), tc_quat_identity());
            add_box(w, tc_v3(small, small, small), 2, tc_v3_madd(off, half + small - depth, n), tc_quat_identity());
            const tc_tet_store* s = tc_tet_store_of(w);
            tc_tet_hit** hits;
            tc_tet_depth* d = depths_of(s, 1, 0, m ? TC_TET_CLOSEST : TC_TET_CONSISTENT, &hits);
            const tc_tet_body* A = &s->bodies.data[1];
            int colliding = 0;
            for (int v = 0; v < A->n; ++v) {
                if (hits[1][v].tet_body != 0) continue;
                tc_vec3 x = A->x[v];
                tc_real to_face = half - fmax(fabs(x.x), fmax(fabs(x.y), fabs(x.z)));
                assert_true(d[v].known);
                assert_near(d[v].d, to_face, 1e-9);
                assert_near(d[v].d, depth, 1e-9);
                assert_vec3_near(d[v].r, n, 1e-9);
                colliding++;
            }
            assert_int_equal(colliding, 9); // the cube's inner layer of 3 x 3 vertices
            free(d);
            free_hits(s, hits);
            tc_world_destroy(w);
        }
    }
}

// Issue 5 (b): a column pushed 0.25 m into the top of a box only 0.2 m wide slides 1 cm across the
// box's mid-plane x = 0. Below 0.1 m the nearest face of its middle vertices is a side face, so
// the baseline's direction flips from -x to +x; the consistent depth keeps pointing up and does
// not change.
static void slide_depths(tc_real x, tc_tet_depth_method m, tc_tet_depth* out, bool* colliding) {
    tc_world* w = empty_world();
    add_box(w, tc_v3(0.1, 0.5, 0.5), 20, tc_v3_zero(), tc_quat_identity());
    add_box(w, tc_v3(0.04, 0.04, 0.16), 8, tc_v3(x, 0.013, 0.5 - 0.25 + 0.16), tc_quat_identity());
    const tc_tet_store* s = tc_tet_store_of(w);
    tc_tet_hit** hits;
    tc_tet_depth* d = depths_of(s, 1, 0, m, &hits);
    for (int v = 0; v < s->bodies.data[1].n; ++v) out[v] = d[v], colliding[v] = hits[1][v].tet_body == 0;
    free(d);
    free_hits(s, hits);
    tc_world_destroy(w);
}

static tc_real angle_deg(tc_vec3 a, tc_vec3 b) { return acos(fmax(-1, fmin(1, tc_v3_dot(a, b)))) * 180 / TC_PI; }

static void test_consistent_depth_continuous_across_midplane(void** state) {
    (void)state;
    enum { N = 3 * 3 * 9 };
    tc_tet_depth before[N], after[N];
    bool in_before[N], in_after[N];
    tc_real jump[2] = {0, 0}, depth_jump[2] = {0, 0};
    int both = 0;
    for (int m = 0; m < 2; ++m) {
        tc_tet_depth_method method = m ? TC_TET_CLOSEST : TC_TET_CONSISTENT;
        slide_depths(-0.005, method, before, in_before);
        slide_depths(0.005, method, after, in_after);
        both = 0;
        for (int v = 0; v < N; ++v) {
            if (!in_before[v] || !in_after[v]) continue;
            assert_true(before[v].known && after[v].known);
            jump[m] = fmax(jump[m], angle_deg(before[v].r, after[v].r));
            depth_jump[m] = fmax(depth_jump[m], fabs(before[v].d - after[v].d));
            if (m == 0) assert_true(angle_deg(before[v].r, tc_v3(0, 0, 1)) < 1e-6);
            both++;
        }
    }
    printf("sliding 1 cm across the mid-plane: direction jump %.3g deg (consistent) vs %.3g deg (closest), depth jump %.3g m vs %.3g m, "
           "%d vertices\n",
           jump[0], jump[1], depth_jump[0], depth_jump[1], both);
    assert_int_equal(both, 3 * 3 * 7);
    assert_true(jump[0] < 1 && depth_jump[0] < 1e-9); // a 1 cm slide along a flat face changes nothing
    assert_true(jump[1] > 170);                       // the baseline turns round
}

// Issue 5 (c): a sphere pushed 25 cm into a box whose top is warped into a dome (z -= x^2 + y^2),
// so the border points' normals fan out: every propagated point's direction is within 30 degrees
// of each neighbour it was propagated from, and every colliding point gets one. The baseline sends
// the deepest points out through the side faces instead.
static void test_propagation_agrees_with_neighbours(void** state) {
    (void)state;
    tc_world* w = empty_world();
    add_box(w, tc_v3(0.3, 0.3, 0.3), 12, tc_v3_zero(), tc_quat_identity());
    tc_tet_body_def d = tc_tet_body_def_default();
    d.shape = TC_TET_SPHERE, d.radius = 0.2, d.resolution = 10;
    d.base.pose.p = tc_v3(0.011, 0.023, 0.3 - 0.05);
    tc_body_id id;
    assert_int_equal(tc_tet_body_create(w, &d, &id, NULL), TC_RESULT_OK);
    tc_tet_store* s = tc_tet_store_of(w);
    tc_tet_body* B = &s->bodies.data[0];
    for (int v = 0; v < B->n; ++v) B->x[v].z -= (B->x[v].x * B->x[v].x + B->x[v].y * B->x[v].y);
    tc_tet_update_surface(B);
    const tc_tet_body* A = &s->bodies.data[1];
    tc_tet_hit** hits;
    tc_tet_depth* depth = depths_of(s, 1, 0, TC_TET_CONSISTENT, &hits);
    int* layer = malloc((size_t)A->n * sizeof(int)); // 0: border point, k: k-th propagation layer
    for (int v = 0; v < A->n; ++v) {
        layer[v] = -1;
        for (int k = A->adj_start[v]; k < A->adj_start[v + 1] && hits[1][v].tet_body == 0; ++k)
            if (hits[1][A->adj[k]].tet_body != 0) layer[v] = 0;
    }
    int inner = 0, deepest = 0;
    tc_real worst = 0;
    for (int l = 1, grew = 1; grew; ++l) {
        grew = 0;
        for (int v = 0; v < A->n; ++v) {
            if (hits[1][v].tet_body != 0 || layer[v] >= 0) continue;
            for (int k = A->adj_start[v]; k < A->adj_start[v + 1] && layer[v] < 0; ++k)
                if (layer[A->adj[k]] >= 0 && layer[A->adj[k]] < l) layer[v] = l, grew = 1, inner++, deepest = l;
        }
    }
    for (int v = 0; v < A->n; ++v) {
        if (hits[1][v].tet_body != 0) continue;
        assert_true(depth[v].known);
        for (int k = A->adj_start[v]; k < A->adj_start[v + 1] && layer[v] > 0; ++k) {
            int j = A->adj[k];
            if (layer[j] >= 0 && layer[j] < layer[v]) worst = fmax(worst, angle_deg(depth[v].r, depth[j].r));
        }
    }
    tc_tet_hit** hits_closest;
    tc_tet_depth* closest = depths_of(s, 1, 0, TC_TET_CLOSEST, &hits_closest);
    tc_real worst_closest = 0, fan = 0;
    for (int v = 0; v < A->n; ++v) {
        if (layer[v] == 0) fan = fmax(fan, angle_deg(depth[v].r, tc_v3(0, 0, 1)));
        for (int k = A->adj_start[v]; k < A->adj_start[v + 1] && layer[v] > 0; ++k) {
            int j = A->adj[k];
            if (layer[j] >= 0 && layer[j] < layer[v]) worst_closest = fmax(worst_closest, angle_deg(closest[v].r, closest[j].r));
        }
    }
    printf("deep penetration: border normals fan over %.3g deg, %d inner points in %d layers, worst angle to an earlier neighbour "
           "%.3g deg (closest feature: %.3g deg)\n",
           fan, inner, deepest, worst, worst_closest);
    assert_true(inner >= 20 && deepest >= 2 && fan > 20);
    assert_true(worst < 30);
    assert_true(worst_closest > 60);
    free(layer);
    free(depth);
    free(closest);
    free_hits(s, hits_closest);
    free_hits(s, hits);
    tc_world_destroy(w);
}

// A U of 5 x 2 x 6 cubes (5 cm): a base row and two arms 15 cm apart, six tets per cube.
enum { U_NX = 5, U_NY = 2, U_NZ = 6, U_VERTS = (U_NX + 1) * (U_NY + 1) * (U_NZ + 1) };
static const tc_real u_cell = 0.05;

static int u_vertex(int i, int j, int k) { return (k * (U_NY + 1) + j) * (U_NX + 1) + i; }

static int u_mesh(tc_vec3* verts, int* tets) {
    static const int paths[6][2] = {{1, 3}, {1, 5}, {2, 3}, {2, 6}, {4, 5}, {4, 6}};
    for (int k = 0; k <= U_NZ; ++k)
        for (int j = 0; j <= U_NY; ++j)
            for (int i = 0; i <= U_NX; ++i) verts[u_vertex(i, j, k)] = tc_v3(i * u_cell, j * u_cell, k * u_cell);
    int count = 0;
    for (int k = 0; k < U_NZ; ++k)
        for (int j = 0; j < U_NY; ++j)
            for (int i = 0; i < U_NX; ++i) {
                if (k > 0 && i > 0 && i < U_NX - 1) continue; // the gap between the arms
                int c[8];
                for (int q = 0; q < 8; ++q) c[q] = u_vertex(i + (q & 1), j + ((q >> 1) & 1), k + ((q >> 2) & 1));
                for (int p = 0; p < 6; ++p) {
                    int* t = tets + 4 * count++;
                    t[0] = c[0], t[1] = c[paths[p][0]], t[2] = c[paths[p][1]], t[3] = c[7];
                    tc_vec3 a = verts[t[0]];
                    if (tc_v3_dot(tc_v3_sub(verts[t[1]], a), tc_v3_cross(tc_v3_sub(verts[t[2]], a), tc_v3_sub(verts[t[3]], a))) < 0) {
                        int swap = t[1];
                        t[1] = t[2], t[2] = swap;
                    }
                }
            }
    return count;
}

// The arms of the U are swung into each other (zero gravity); returns the smallest distance
// between the centres of their tips, negative when they passed through each other.
static tc_real fold_u(bool self_collision, int* contacts) {
    static tc_vec3 verts[U_VERTS];
    static int tets[4 * 6 * U_NX * U_NY * U_NZ];
    tc_world* w = empty_world();
    tc_tet_body_def d = tc_tet_body_def_default();
    d.shape = TC_TET_MESH, d.vertices = verts, d.vertex_count = U_VERTS, d.tets = tets, d.tet_count = u_mesh(verts, tets);
    d.self_collision = self_collision;
    tc_body_id id;
    assert_int_equal(tc_tet_body_create(w, &d, &id, NULL), TC_RESULT_OK);
    tc_tet_body* b = tc_tet_body_at(w, 0);
    tc_real height = U_NZ * u_cell, mid = U_NX * u_cell / 2;
    for (int v = 0; v < b->n; ++v) { // each arm turns about the base, tips at 2 m/s
        tc_real side = b->x[v].x < mid ? 1 : -1;
        b->v[v] = tc_v3(side * 2 * b->x[v].z / height, 0, 0);
    }
    tc_real gap = 1e9;
    *contacts = 0;
    tc_error e;
    for (int step = 0; step < 30; ++step) {
        assert_int_equal(tc_world_step(w, &e), TC_RESULT_OK);
        *contacts += tc_world_get_stats(w).contact_count;
        b = tc_tet_body_at(w, 0);
        tc_vec3 left = tc_v3_zero(), right = tc_v3_zero();
        for (int j = 0; j <= U_NY; ++j)
            for (int i = 0; i < 2; ++i) {
                left = tc_v3_add(left, b->x[u_vertex(i, j, U_NZ)]);
                right = tc_v3_add(right, b->x[u_vertex(U_NX - i, j, U_NZ)]);
            }
        gap = fmin(gap, (right.x - left.x) / (2 * (U_NY + 1)));
    }
    tc_real rest;
    int inverted;
    tc_tet_body_get_volume(w, id, &rest, &inverted);
    assert_int_equal(inverted, 0);
    tc_world_destroy(w);
    return gap;
}

// Issue 5 step 2: with self_collision the arms of a U swung into each other stop apart; without
// it they pass through each other.
static void test_self_collision_folds_without_passing(void** state) {
    (void)state;
    int contacts_on, contacts_off;
    tc_real on = fold_u(true, &contacts_on), off = fold_u(false, &contacts_off);
    printf("U arms swung together: closest tip centres %.3g m apart with self-collision (%d contacts), %.3g m without (%d contacts)\n", on,
           contacts_on, off, contacts_off);
    assert_true(on > 0.025); // the tips' centres stay over half an arm's width (5 cm) apart
    assert_true(off < 0);    // they crossed
    assert_true(contacts_on > 0 && contacts_off == 0);
}

// The scene field reaches the body; a wrong type is an error naming the field.
static void test_self_collision_scene_field(void** state) {
    (void)state;
    const char* texts[2] = {"{\"bodies\":[{\"type\":\"tet\",\"name\":\"u\",\"self_collision\":true}]}",
                            "{\"bodies\":[{\"type\":\"tet\",\"name\":\"u\",\"self_collision\":1}]}"};
    char path[512];
    snprintf(path, sizeof path, "%s/test_tet_contact_scene.json", TACTUS_BINARY_DIR);
    for (int k = 0; k < 2; ++k) {
        FILE* f = fopen(path, "w");
        assert_non_null(f);
        fputs(texts[k], f);
        fclose(f);
        tc_error e;
        tc_scene* s = tc_scene_load(path, &e);
        if (k == 0) {
            assert_non_null(s);
            assert_true(tc_tet_body_at(tc_scene_world(s), 0)->self_collision);
            tc_scene_destroy(s);
        } else {
            assert_null(s);
            assert_non_null(strstr(e.message, "self_collision"));
        }
    }
    remove(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_hash_matches_brute_force), cmocka_unit_test(test_face_grid_matches_scan),
                                       cmocka_unit_test(test_depth_just_inside_is_face_distance),
                                       cmocka_unit_test(test_consistent_depth_continuous_across_midplane),
                                       cmocka_unit_test(test_propagation_agrees_with_neighbours),
                                       cmocka_unit_test(test_self_collision_folds_without_passing),
                                       cmocka_unit_test(test_self_collision_scene_field)};
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
