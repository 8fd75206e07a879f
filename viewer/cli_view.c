// tactus view: the interactive viewer in a GLFW window. --frames/--screenshot/--drag-test run
// it unattended (under Xvfb in the tests) through the same input functions as the mouse.
#define _POSIX_C_SOURCE 200809L
#include "cli_util.h"
#include "commands.h"
#include "window.h"

#include <GLFW/glfw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct view_options {
    const char* scene;
    int frames;             ///< 0 = until the window closes
    const char* screenshot; ///< PNG of the last frame
    const char* drag_body;  ///< scripted drag of this body
} view_options;

static void usage(FILE* f) {
    fprintf(f, "usage: tactus view SCENE [--frames N] [--screenshot FILE.png] [--drag-test BODY]\n\n"
               "mouse: left drag = pull a body on a spring; shift+left = remove it; ctrl+left = push it;\n"
               "       right drag = orbit; middle drag = pan; wheel = zoom\n"
               "keys:  space = play/pause, n = single step, r = reset, s = slow motion, q/esc = quit,\n"
               "       1..8 = layers: shapes contacts penetration tractions points tets springs aabbs\n"
               "--frames N stops after N frames; --screenshot saves the last one; --drag-test BODY drags\n"
               "BODY upwards with synthetic mouse input and reports how far it moved.\n");
}

static int parse(int argc, char** argv, view_options* o) {
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (cli_is_help(a)) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--frames") == 0) ok = cli_parse_int(a, v, &o->frames), ++i;
        else if (strcmp(a, "--screenshot") == 0) o->screenshot = v, ok = v != NULL, ++i;
        else if (strcmp(a, "--drag-test") == 0) o->drag_body = v, ok = v != NULL, ++i;
        else if (a[0] == '-' || o->scene) {
            fprintf(stderr, "tactus view: unexpected argument '%s'\n", a);
            ok = false;
        } else o->scene = a;
        if (!ok) return 2;
    }
    if (!o->scene) {
        usage(stderr);
        return 2;
    }
    return -1;
}

static tc_viewer_app* app_of(GLFWwindow* w) { return glfwGetWindowUserPointer(w); }
static int mods_of(int m) { return ((m & GLFW_MOD_SHIFT) ? TC_MOD_SHIFT : 0) | ((m & GLFW_MOD_CONTROL) ? TC_MOD_CTRL : 0); }

static void on_button(GLFWwindow* w, int button, int action, int mods) {
    int b = button == GLFW_MOUSE_BUTTON_LEFT ? 0 : button == GLFW_MOUSE_BUTTON_RIGHT ? 1 : 2;
    tc_viewer_mouse_button(app_of(w), b, action == GLFW_PRESS, mods_of(mods));
}
static void on_move(GLFWwindow* w, double x, double y) { tc_viewer_mouse_move(app_of(w), x, y); }
static void on_scroll(GLFWwindow* w, double dx, double dy) {
    (void)dx;
    tc_viewer_scroll(app_of(w), dy);
}
static void on_char(GLFWwindow* w, unsigned int c) {
    if (c < 128) tc_viewer_key(app_of(w), (int)c);
}
static void on_key(GLFWwindow* w, int key, int scancode, int action, int mods) {
    (void)scancode, (void)mods;
    if (key == GLFW_KEY_ESCAPE && action == GLFW_PRESS) tc_viewer_key(app_of(w), 27);
}

static void* gl_loader(const char* name) {
    GLFWglproc p = glfwGetProcAddress(name);
    void* v;
    memcpy(&v, &p, sizeof v);
    return v;
}

static bool screenshot(tc_viewer_app* app, const char* path) {
    unsigned char* px = malloc((size_t)app->width * (size_t)app->height * 4);
    char err[1200];
    bool ok = px != NULL;
    if (ok) {
        app->gl.ReadPixels(0, 0, app->width, app->height, GL_RGBA, GL_UNSIGNED_BYTE, px);
        ok = tc_png_write(path, px, app->width, app->height, err, sizeof err);
        if (!ok) fprintf(stderr, "tactus: %s\n", err);
    }
    free(px);
    if (ok) printf("screenshot: %s\n", path);
    return ok;
}

/// Scripted drag: press on the body's centre, move the cursor 150 px up over 40 frames, release.
static int drag_script(tc_viewer_app* app, GLFWwindow* win, const char* name) {
    tc_world* w = tc_scene_world(app->scene);
    tc_body_id id = tc_world_find_body(w, name);
    if (tc_body_id_is_null(id)) {
        fprintf(stderr, "tactus view: no body named \"%s\"\n", name);
        return 2;
    }
    tc_vec3 start = tc_body_get_pose(w, id).p;
    double px, py;
    if (!tc_view_project(&app->camera, app->width, app->height, start, &px, &py)) return 2;
    app->playing = true;
    tc_viewer_mouse_move(app, px, py);
    tc_viewer_mouse_button(app, 0, true, 0);
    for (int f = 0; f < 60 && !glfwWindowShouldClose(win); ++f) {
        if (f < 40) tc_viewer_mouse_move(app, px, py - 150.0 * (f + 1) / 40);
        tc_viewer_frame(app);
        glfwSwapBuffers(win);
        glfwPollEvents();
    }
    tc_vec3 end = tc_body_get_pose(w, id).p;
    tc_viewer_mouse_button(app, 0, false, 0);
    printf("drag moved %s by %.3f m (dz %.3f m)\n", name, tc_v3_dist(start, end), end.z - start.z);
    return end.z - start.z > 0.05 ? 0 : 3;
}

static GLFWwindow* open_window(tc_viewer_app* app) {
    if (!glfwInit()) {
        fprintf(stderr, "tactus view: no display (use tactus render for offscreen images)\n");
        return NULL;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 2);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 1);
    GLFWwindow* win = glfwCreateWindow(app->width, app->height, "Tactus", NULL, NULL);
    if (!win) {
        fprintf(stderr, "tactus view: cannot open an OpenGL 2.1 window\n");
        glfwTerminate();
        return NULL;
    }
    glfwMakeContextCurrent(win);
    glfwSwapInterval(1);
    glfwSetWindowUserPointer(win, app);
    glfwSetMouseButtonCallback(win, on_button);
    glfwSetCursorPosCallback(win, on_move);
    glfwSetScrollCallback(win, on_scroll);
    glfwSetCharCallback(win, on_char);
    glfwSetKeyCallback(win, on_key);
    return win;
}

int tactus_cmd_view(int argc, char** argv) {
    view_options o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    static tc_viewer_app app;
    memset(&app, 0, sizeof app);
    app.width = 1024, app.height = 700;
    app.layers = tc_debug_draw_default();
    app.playing = true;
    if (!tc_viewer_open_scene(&app, o.scene)) return 1;
    GLFWwindow* win = open_window(&app);
    if (!win || !tc_gl_load(&app.gl, gl_loader)) {
        tc_viewer_close(&app);
        return 1;
    }
    rc = 0;
    if (o.drag_body) rc = drag_script(&app, win, o.drag_body);
    for (long f = 0; !o.drag_body && !glfwWindowShouldClose(win) && !app.quit && (o.frames == 0 || f < o.frames); ++f) {
        glfwGetFramebufferSize(win, &app.width, &app.height);
        tc_viewer_frame(&app);
        if (o.screenshot && o.frames && f == o.frames - 1 && !screenshot(&app, o.screenshot)) rc = 1;
        glfwSwapBuffers(win);
        glfwPollEvents();
    }
    glfwDestroyWindow(win);
    glfwTerminate();
    tc_viewer_close(&app);
    return rc;
}
