/// @file scene.h
/// JSON scene files: load a world with its bodies, run settings, camera, events and metrics.
/// The format is documented in docs/scene-format.md.
#ifndef TACTUS_SCENE_H
#define TACTUS_SCENE_H

#include "tactus/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tc_scene tc_scene;

/// Default run length and output cadence of a scene ("run" object).
typedef struct tc_scene_run {
    tc_real time; ///< s of simulated time, default 5
    int every;    ///< write a frame every this many steps, default 6
} tc_scene_run;

/// Camera of a scene, m, world. Default: looks at the centre of the world bounds from the -y side.
typedef struct tc_scene_camera {
    tc_vec3 eye;
    tc_vec3 target;
} tc_scene_camera;

/// Loads a scene file and creates its world. Returns NULL and fills error (may be NULL) on any
/// problem: the message reads "file: path.to.field: problem". Never returns a half-built scene.
/// The caller owns the scene; free it with tc_scene_destroy.
TC_API tc_scene* tc_scene_load(const char* path, tc_error* error);
/// As tc_scene_load, but thread_count > 0 overrides the file's world.threads.
TC_API tc_scene* tc_scene_load_threads(const char* path, int thread_count, tc_error* error);
/// Destroys the scene and its world. Accepts NULL.
TC_API void tc_scene_destroy(tc_scene* scene);
/// The scene's world (owned by the scene).
TC_API tc_world* tc_scene_world(const tc_scene* scene);
/// Applies the events due at the current time, then steps the world once.
TC_API tc_result tc_scene_step(tc_scene* scene, tc_error* error);
/// The scene's "run" object (defaults filled in): simulated time (s) and output cadence (steps).
TC_API tc_scene_run tc_scene_run_settings(const tc_scene* scene);
/// The scene's camera, m, world: the file's "camera" or the default framing of the world bounds.
TC_API tc_scene_camera tc_scene_get_camera(const tc_scene* scene);
/// Scene name ("" if none), description ("" if none), the file it came from and its directory.
TC_API const char* tc_scene_name(const tc_scene* scene);
TC_API const char* tc_scene_description(const tc_scene* scene);
TC_API const char* tc_scene_file(const tc_scene* scene);
TC_API const char* tc_scene_dir(const tc_scene* scene);

/// A named metric: value of some quantity of the world (e.g. a body's height) given the text
/// after ':' in the scene's "metrics" entry ("body_height:box" -> arg "box").
typedef tc_real tc_metric_fn(const tc_world* world, const tc_scene* scene, const char* arg);
/// Registers a metric under name (copied; replaces one of the same name). Register before loading
/// scenes that use it. Returns TC_RESULT_LIMIT when the registry is full.
TC_API tc_result tc_metric_register(const char* name, tc_metric_fn* fn);
/// Number of metrics the scene asks for, their labels ("name:arg") and current values.
TC_API int tc_scene_metric_count(const tc_scene* scene);
TC_API const char* tc_scene_metric_label(const tc_scene* scene, int index);
TC_API tc_real tc_scene_metric_value(const tc_scene* scene, int index);

#ifdef __cplusplus
}
#endif
#endif
