// The interactive viewer's state and input handling. GLFW callbacks and the scripted tests
// call the same functions, so synthetic input exercises the real code path.
#ifndef TACTUS_VIEWER_WINDOW_H
#define TACTUS_VIEWER_WINDOW_H
#include "viewer.h"

typedef struct tc_viewer_app {
    char scene_path[1024];
    tc_scene* scene;
    tc_view_camera camera;
    tc_debug_draw layers;
    tc_gl gl;
    int width, height;
    bool playing, slow, quit;
    long frame;
    double mouse_x, mouse_y;
    int orbit_button;          ///< 1 = orbit, 2 = pan, 0 = none
    tc_body_id picked;         ///< body held by the mouse spring
    tc_vec3 anchor;            ///< picked point in the body frame
    double pick_depth;         ///< m along the view ray
    tc_body_id pushed;         ///< body receiving a push force
    tc_vec3 push_force, push_point;
    int push_steps;
} tc_viewer_app;

enum { TC_MOD_SHIFT = 1, TC_MOD_CTRL = 2 };

bool tc_viewer_open_scene(tc_viewer_app* app, const char* path);
/// Left button: pick and drag (no modifier), remove (shift), push (ctrl). Right: orbit; middle: pan.
void tc_viewer_mouse_button(tc_viewer_app* app, int button, bool press, int mods);
void tc_viewer_mouse_move(tc_viewer_app* app, double x, double y);
void tc_viewer_scroll(tc_viewer_app* app, double dy);
/// Keys: space play/pause, n or . single step, r reset, s slow motion, 1-8 debug layers, q quit.
void tc_viewer_key(tc_viewer_app* app, int key);
/// One frame: mouse spring and push forces, a step when playing, then drawing.
void tc_viewer_frame(tc_viewer_app* app);
void tc_viewer_close(tc_viewer_app* app);
#endif
