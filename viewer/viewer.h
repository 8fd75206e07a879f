// The Tactus viewer: one renderer drawing a world through the library's debug-draw interface,
// hosted by a GLFW window (tactus view) or an offscreen OSMesa context (tactus render).
#ifndef TACTUS_VIEWER_H
#define TACTUS_VIEWER_H

#include "gl_api.h"
#include "tactus/tactus.h"

/// Orbit camera: looks at `target` from `distance` m, yaw about +Z, pitch above the horizon (rad).
typedef struct tc_view_camera {
    tc_vec3 target;
    double yaw, pitch, distance;
    double fovy; ///< rad, vertical field of view
} tc_view_camera;

tc_view_camera tc_view_camera_look(tc_vec3 eye, tc_vec3 target);
tc_vec3 tc_view_camera_eye(const tc_view_camera* c);
/// Column-major view and projection matrices for an image of w x h pixels.
void tc_view_matrices(const tc_view_camera* c, int w, int h, double view[16], double proj[16]);
/// Pixel position (origin top-left) of world point p; false if behind the camera.
bool tc_view_project(const tc_view_camera* c, int w, int h, tc_vec3 p, double* px, double* py);
/// World ray through pixel (px, py).
void tc_view_ray(const tc_view_camera* c, int w, int h, double px, double py, tc_vec3* origin, tc_vec3* dir);

/// Draws the world (surfaces shaded, debug layers per `layers`' toggles, a ground grid) and an
/// overlay text in the top-left corner (may be NULL) into the current GL context.
void tc_view_draw(const tc_gl* gl, const tc_world* world, const tc_view_camera* cam, int w, int h, const tc_debug_draw* layers,
                  const char* overlay);

/// Writes rgba (w x h, rows bottom-up as GL reads them) to a PNG file atomically.
bool tc_png_write(const char* path, const unsigned char* rgba, int w, int h, char* error, size_t error_size);

/// An offscreen GL context (OSMesa, loaded at run time: no display needed).
typedef struct tc_offscreen tc_offscreen;
tc_offscreen* tc_offscreen_create(int w, int h, tc_gl* gl, char* error, size_t error_size);
/// The pixels of the last frame (RGBA, bottom-up).
const unsigned char* tc_offscreen_pixels(const tc_offscreen* o);
void tc_offscreen_destroy(tc_offscreen* o);

/// The overlay line: time, step wall time, bodies, contacts.
void tc_view_overlay_text(const tc_world* w, char* out, size_t size);
#endif
