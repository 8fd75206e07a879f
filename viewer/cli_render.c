// tactus render: steps a scene headless and writes PNG frames (or one final frame) drawn by
// the viewer's renderer in an offscreen OSMesa context; --video makes an MP4 with ffmpeg.
#define _POSIX_C_SOURCE 200809L
#include "cli_util.h"
#include "commands.h"
#include "layers.h"
#include "viewer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct render_options {
    const char* scene;
    const char* out;
    double time;
    int every, width, height;
    bool video;
    tc_debug_draw layers;
} render_options;

static void usage(FILE* f) {
    fprintf(f, "usage: tactus render SCENE --out FILE.png|DIR [--time T] [--every K] [--width W] [--height H]\n"
               "                     [--layers L1,L2,...] [--video]\n\n"
               "  --out FILE.png  run the scene for --time (default: its run.time) and render the last frame\n"
               "  --out DIR       write DIR/frame_NNNNN.png every K steps (default: the scene's run.every)\n"
               "  --video         with DIR: also DIR/<scene>.mp4 through ffmpeg (30 frames/s)\n"
               "  --layers        debug layers: shapes contacts penetration tractions points tets springs aabbs\n"
               "  --width/--height image size in pixels (default 960 x 640)\n"
               "Needs no display: OpenGL runs in OSMesa (Debian package libosmesa6).\n");
}

static bool ends_with(const char* s, const char* suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int parse(int argc, char** argv, render_options* o) {
    memset(o, 0, sizeof *o);
    o->width = 960, o->height = 640;
    o->layers = tc_debug_draw_default();
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (cli_is_help(a)) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--out") == 0) o->out = v, ok = v != NULL, ++i;
        else if (strcmp(a, "--time") == 0) ok = cli_parse_real(a, v, &o->time), ++i;
        else if (strcmp(a, "--every") == 0) ok = cli_parse_int(a, v, &o->every), ++i;
        else if (strcmp(a, "--width") == 0) ok = cli_parse_int(a, v, &o->width), ++i;
        else if (strcmp(a, "--height") == 0) ok = cli_parse_int(a, v, &o->height), ++i;
        else if (strcmp(a, "--layers") == 0) ok = v && tc_layers_parse(v, &o->layers), ++i;
        else if (strcmp(a, "--video") == 0) o->video = true;
        else if (a[0] == '-' || o->scene) {
            fprintf(stderr, "tactus render: unexpected argument '%s'\n", a);
            ok = false;
        } else o->scene = a;
        if (!ok) return 2;
    }
    if (!o->scene || !o->out) {
        usage(stderr);
        return 2;
    }
    if (o->video && ends_with(o->out, ".png")) {
        fprintf(stderr, "tactus render: --video needs --out DIR (frames and the video), not a .png file\n");
        return 2;
    }
    if (o->width > 8192 || o->height > 8192) {
        fprintf(stderr, "tactus render: images are at most 8192 x 8192\n");
        return 2;
    }
    return -1;
}

static bool frame(const tc_gl* gl, tc_offscreen* off, tc_scene* s, const render_options* o, const char* path) {
    tc_scene_camera sc = tc_scene_get_camera(s);
    tc_view_camera cam = tc_view_camera_look(sc.eye, sc.target);
    char text[160], err[1200];
    tc_view_overlay_text(tc_scene_world(s), text, sizeof text);
    tc_view_draw(gl, tc_scene_world(s), &cam, o->width, o->height, &o->layers, text);
    gl->Finish();
    if (tc_png_write(path, tc_offscreen_pixels(off), o->width, o->height, err, sizeof err)) return true;
    fprintf(stderr, "tactus: %s\n", err);
    return false;
}

static bool make_video(const char* dir, const char* scene) {
    const char* base = strrchr(scene, '/');
    char stem[256], cmd[4096];
    snprintf(stem, sizeof stem, "%s", base ? base + 1 : scene);
    char* dot = strrchr(stem, '.');
    if (dot) *dot = '\0';
    snprintf(cmd, sizeof cmd, "ffmpeg -y -loglevel error -framerate 30 -i '%s/frame_%%05d.png' -pix_fmt yuv420p "
                              "-vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' '%s/%s.mp4'", dir, dir, stem);
    if (system(cmd) != 0) {
        fprintf(stderr, "tactus: ffmpeg failed (is the Debian package ffmpeg installed?)\n");
        return false;
    }
    printf("video: %s/%s.mp4\n", dir, stem);
    return true;
}

static int run(const render_options* o, tc_scene* s, const tc_gl* gl, tc_offscreen* off) {
    tc_world* w = tc_scene_world(s);
    tc_scene_run settings = tc_scene_run_settings(s);
    int64_t total = 0;
    char what[64];
    if (o->time > 0) snprintf(what, sizeof what, "--time %g", o->time);
    else snprintf(what, sizeof what, "run.time");
    if (!cli_steps_for_time(what, o->time > 0 ? o->time : settings.time, tc_world_get_def(w).time_step, &total)) return 2;
    bool single = ends_with(o->out, ".png");
    int every = o->every > 0 ? o->every : settings.every;
    if (!single && !cli_make_dirs(o->out)) return 1;
    char path[1400];
    int frames = 0;
    for (int64_t step = 0; step <= total; ++step) {
        if (step > 0) {
            tc_error e;
            if (tc_scene_step(s, &e) != TC_RESULT_OK) {
                fprintf(stderr, "tactus: step %lld: %s\n", (long long)step, e.message);
                return 1;
            }
        }
        if (single ? step != total : step % every != 0) continue;
        if (single) snprintf(path, sizeof path, "%s", o->out);
        else snprintf(path, sizeof path, "%s/frame_%05d.png", o->out, frames);
        if (!frame(gl, off, s, o, path)) return 1;
        frames++;
    }
    printf("rendered %d frame%s to %s\n", frames, frames == 1 ? "" : "s", o->out);
    return (!single && o->video && !make_video(o->out, o->scene)) ? 1 : 0;
}

int tactus_cmd_render(int argc, char** argv) {
    render_options o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    tc_error e;
    tc_scene* s = tc_scene_load(o.scene, &e);
    if (!s) {
        fprintf(stderr, "%s\n", e.message);
        return 1;
    }
    tc_gl gl;
    char err[512];
    tc_offscreen* off = tc_offscreen_create(o.width, o.height, &gl, err, sizeof err);
    if (!off) {
        fprintf(stderr, "tactus render: %s\n", err);
        tc_scene_destroy(s);
        return 1;
    }
    rc = run(&o, s, &gl, off);
    tc_offscreen_destroy(off);
    tc_scene_destroy(s);
    return rc;
}
