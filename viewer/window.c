#define _POSIX_C_SOURCE 200809L
#include "window.h"

#include "layers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool tc_viewer_open_scene(tc_viewer_app* app, const char* path) {
    tc_error e;
    tc_scene* s = tc_scene_load(path, &e);
    if (!s) {
        fprintf(stderr, "%s\n", e.message);
        return false;
    }
    tc_scene_destroy(app->scene);
    app->scene = s;
    snprintf(app->scene_path, sizeof app->scene_path, "%s", path);
    tc_scene_camera c = tc_scene_get_camera(s);
    app->camera = tc_view_camera_look(c.eye, c.target);
    app->picked = app->pushed = TC_NULL_BODY;
    app->push_steps = 0;
    return true;
}

static tc_world* world(tc_viewer_app* app) { return tc_scene_world(app->scene); }

static tc_body_id pick(tc_viewer_app* app, tc_vec3* hit, double* depth) {
    tc_vec3 o, d, n;
    tc_view_ray(&app->camera, app->width, app->height, app->mouse_x, app->mouse_y, &o, &d);
    tc_real t = 0;
    tc_body_id id = tc_world_ray_cast(world(app), o, d, 1e4, &t, &n);
    *hit = tc_v3_madd(o, t, d);
    *depth = t;
    return id;
}

static bool dynamic(tc_viewer_app* app, tc_body_id id) {
    return tc_body_is_valid(world(app), id) && tc_body_get_kind(world(app), id) != TC_BODY_STATIC && tc_body_get_mass(world(app), id) > 0;
}

static void left_press(tc_viewer_app* app, int mods) {
    tc_vec3 hit;
    double depth;
    tc_body_id id = pick(app, &hit, &depth);
    if (!dynamic(app, id)) return;
    if (mods & TC_MOD_SHIFT) { // the brick-wall task: pull a body out
        tc_body_destroy(world(app), id);
        return;
    }
    if (mods & TC_MOD_CTRL) { // the tower task: push along the view ray for a fifth of a second
        tc_vec3 o, d;
        tc_view_ray(&app->camera, app->width, app->height, app->mouse_x, app->mouse_y, &o, &d);
        app->pushed = id;
        app->push_force = tc_v3_scale(d, 30 * tc_body_get_mass(world(app), id));
        app->push_point = hit;
        app->push_steps = 12;
        return;
    }
    app->picked = id;
    app->anchor = tc_transform_inv_point(tc_body_get_pose(world(app), id), hit);
    app->pick_depth = depth;
}

void tc_viewer_mouse_button(tc_viewer_app* app, int button, bool press, int mods) {
    if (button == 0 && press) left_press(app, mods);
    if (button == 0 && !press) app->picked = TC_NULL_BODY;
    if (button == 1) app->orbit_button = press ? 1 : 0;
    if (button == 2) app->orbit_button = press ? 2 : 0;
}

void tc_viewer_mouse_move(tc_viewer_app* app, double x, double y) {
    double dx = x - app->mouse_x, dy = y - app->mouse_y;
    app->mouse_x = x, app->mouse_y = y;
    tc_view_camera* c = &app->camera;
    if (app->orbit_button == 1) {
        c->yaw -= 0.008 * dx;
        c->pitch = fmax(-1.5, fmin(1.5, c->pitch + 0.008 * dy));
    } else if (app->orbit_button == 2) {
        tc_vec3 o, d0, d1;
        tc_view_ray(c, app->width, app->height, x - dx, y - dy, &o, &d0);
        tc_view_ray(c, app->width, app->height, x, y, &o, &d1);
        c->target = tc_v3_madd(c->target, -c->distance, tc_v3_sub(d1, d0));
    }
}

void tc_viewer_scroll(tc_viewer_app* app, double dy) { app->camera.distance = fmax(0.2, app->camera.distance * pow(0.9, dy)); }

void tc_viewer_key(tc_viewer_app* app, int key) {
    if (key == ' ') app->playing = !app->playing;
    else if (key == 'n' || key == '.') {
        tc_error e;
        if (tc_scene_step(app->scene, &e) != TC_RESULT_OK) fprintf(stderr, "%s\n", e.message);
    } else if (key == 'r') {
        char path[1024];
        snprintf(path, sizeof path, "%s", app->scene_path);
        tc_viewer_open_scene(app, path);
    } else if (key == 's') app->slow = !app->slow;
    else if (key >= '1' && key <= '8' && key - '1' < tc_layer_count()) {
        bool* flag = tc_layer_flag(&app->layers, key - '1');
        *flag = !*flag;
    } else if (key == 'q' || key == 27) app->quit = true;
}

// A spring from the picked point to the cursor ray, 3 Hz for the body's mass, critically damped.
static void mouse_spring(tc_viewer_app* app) {
    tc_world* w = world(app);
    if (tc_body_id_is_null(app->picked) || !tc_body_is_valid(w, app->picked)) return;
    tc_vec3 o, d;
    tc_view_ray(&app->camera, app->width, app->height, app->mouse_x, app->mouse_y, &o, &d);
    tc_vec3 target = tc_v3_madd(o, app->pick_depth, d), p = tc_transform_point(tc_body_get_pose(w, app->picked), app->anchor);
    tc_real m = tc_body_get_mass(w, app->picked), omega = 2 * TC_PI * 3;
    tc_vec3 f = tc_v3_sub(tc_v3_scale(tc_v3_sub(target, p), m * omega * omega),
                          tc_v3_scale(tc_body_get_linear_velocity(w, app->picked), 2 * m * omega));
    f = tc_v3_sub(f, tc_v3_scale(tc_world_get_def(w).gravity, m)); // hold the body's weight too
    tc_body_apply_force(w, app->picked, f, p);
}

void tc_viewer_frame(tc_viewer_app* app) {
    bool step = app->playing && (!app->slow || app->frame % 4 == 0);
    if (step) {
        mouse_spring(app);
        if (app->push_steps > 0 && tc_body_is_valid(world(app), app->pushed)) {
            tc_body_apply_force(world(app), app->pushed, app->push_force, app->push_point);
            app->push_steps--;
        }
        tc_error e;
        if (tc_scene_step(app->scene, &e) != TC_RESULT_OK) {
            fprintf(stderr, "%s\n", e.message);
            app->playing = false;
        }
    }
    char text[200], status[240];
    tc_view_overlay_text(world(app), text, sizeof text);
    snprintf(status, sizeof status, "%s%s%s", text, app->playing ? "" : "   PAUSED", app->slow ? "   SLOW" : "");
    tc_view_draw(&app->gl, world(app), &app->camera, app->width, app->height, &app->layers, status);
    app->frame++;
}

void tc_viewer_close(tc_viewer_app* app) {
    tc_scene_destroy(app->scene);
    app->scene = NULL;
}
