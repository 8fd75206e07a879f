// Offscreen rendering of a known scene: the image has the requested size, the box covers the
// pixels its projected corners enclose, and the sky above it keeps the clear colour.
#include "tc_test.h"

#include "viewer.h"

#include <stdio.h>

static tc_world* box_world(tc_vec3 center) {
    tc_world_def d = tc_world_def_default();
    tc_world* w = tc_world_create(&d, NULL);
    tc_shape_def s = tc_shape_def_default(TC_SHAPE_BOX);
    s.half_extents = tc_v3(0.5, 0.5, 0.5);
    tc_rigid_body_def b = tc_rigid_body_def_default();
    b.shapes = &s;
    b.shape_count = 1;
    b.base.pose.p = center;
    tc_body_id id;
    assert_int_equal(tc_rigid_body_create(w, &b, &id, NULL), TC_RESULT_OK);
    return w;
}

static const unsigned char* pixel(const unsigned char* px, int w, int h, int x, int y) {
    return px + 4 * ((size_t)(h - 1 - y) * (size_t)w + (size_t)x); // GL rows are bottom-up
}

static bool is_clear(const unsigned char* p) { // tc_view_draw clears to (0.16, 0.18, 0.22)
    return abs(p[0] - 41) <= 2 && abs(p[1] - 46) <= 2 && abs(p[2] - 56) <= 2;
}

static void test_box_silhouette(void** state) {
    (void)state;
    enum { W = 320, H = 240 };
    tc_gl gl;
    char err[512];
    tc_offscreen* off = tc_offscreen_create(W, H, &gl, err, sizeof err);
    if (!off) fail_msg("%s", err);
    tc_vec3 c = tc_v3(0.3, 0.2, 2.0); // floating box, no ground: background everywhere else
    tc_world* w = box_world(c);
    tc_view_camera cam = tc_view_camera_look(tc_v3(4, -5, 3), c);
    tc_debug_draw layers = tc_debug_draw_default();
    tc_view_draw(&gl, w, &cam, W, H, &layers, NULL);
    gl.Finish();
    const unsigned char* px = tc_offscreen_pixels(off);
    double lo_x = 1e9, hi_x = -1e9, lo_y = 1e9, hi_y = -1e9;
    for (int k = 0; k < 8; ++k) {
        tc_vec3 p = tc_v3_add(c, tc_v3(k & 1 ? 0.5 : -0.5, k & 2 ? 0.5 : -0.5, k & 4 ? 0.5 : -0.5));
        double x, y;
        assert_true(tc_view_project(&cam, W, H, p, &x, &y));
        lo_x = fmin(lo_x, x), hi_x = fmax(hi_x, x), lo_y = fmin(lo_y, y), hi_y = fmax(hi_y, y);
    }
    double cx, cy;
    assert_true(tc_view_project(&cam, W, H, c, &cx, &cy));
    assert_false(is_clear(pixel(px, W, H, (int)cx, (int)cy)));      // the box's centre is drawn
    assert_true(is_clear(pixel(px, W, H, (int)cx, (int)lo_y - 6))); // above its silhouette: background
    assert_true(is_clear(pixel(px, W, H, (int)hi_x + 6, (int)cy))); // right of it
    int covered = 0, inside = 0;
    for (int y = (int)lo_y + 2; y < (int)hi_y - 2; ++y)
        for (int x = (int)lo_x + 2; x < (int)hi_x - 2; ++x, ++inside) covered += !is_clear(pixel(px, W, H, x, y));
    printf("box silhouette: %d of %d pixels in its projected bounds drawn\n", covered, inside);
    assert_true(covered > inside / 2); // a cube's hexagonal silhouette fills most of its bounds
    char path[512];
    snprintf(path, sizeof path, "%s/test_render.png", TACTUS_BINARY_DIR);
    assert_true(tc_png_write(path, px, W, H, err, sizeof err));
    FILE* f = fopen(path, "rb"); // IHDR: width and height big-endian at bytes 16 and 20
    unsigned char head[24];
    assert_int_equal(fread(head, 1, 24, f), 24);
    fclose(f);
    assert_int_equal((head[16] << 24) | (head[17] << 16) | (head[18] << 8) | head[19], W);
    assert_int_equal((head[20] << 24) | (head[21] << 16) | (head[22] << 8) | head[23], H);
    tc_world_destroy(w);
    tc_offscreen_destroy(off);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_box_silhouette)};
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
