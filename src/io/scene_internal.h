// Internal interface of the scene loader: the parse context handed to body parsers,
// the body-type registry, generators, events and metrics.
//
// Adding a body kind: write src/io/scene_<kind>.c with
//   tc_result tc_scene_parse_<kind>(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
// declare it below, and add ONE line to the table in scene_bodies.c.
#ifndef TC_SCENE_INTERNAL_H
#define TC_SCENE_INTERNAL_H

#include <cjson/cJSON.h>
#include "core/core.h"
#include "io/json_read.h"
#include "tactus/io.h"
#include "tactus/scene.h"
#include "tactus/world.h"

/// What a body parser gets: the world to create into, the file (for messages), the scene
/// directory (to resolve relative mesh paths) and the JSON helpers bound to the error.
typedef struct tc_scene_ctx {
    tc_world* world;
    tc_scene* scene;
    const char* file; ///< scene file as given, used in messages
    const char* dir;  ///< directory of the scene file ("." when none)
    tc_json json;     ///< json.file == file, json.error == the loader's error
} tc_scene_ctx;

/// Parses one body object (already known to have this "type") and creates it in ctx->world.
/// path is e.g. "bodies[3]". Must check for unknown fields ("type" and "name" included in its list).
typedef tc_result tc_scene_body_parse_fn(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);

typedef struct tc_scene_body_parser {
    const char* type;             ///< value of the "type" field
    tc_scene_body_parse_fn* parse;
} tc_scene_body_parser;

/// The registry (scene_bodies.c), terminated by {NULL, NULL}.
extern const tc_scene_body_parser tc_scene_body_parsers[];
const tc_scene_body_parser* tc_scene_find_body_parser(const char* type);

/// Built-in parsers (scene_rigid.c).
tc_result tc_scene_parse_static(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
tc_result tc_scene_parse_rigid(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
tc_result tc_scene_parse_springs(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
tc_result tc_scene_parse_quasi(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
tc_result tc_scene_parse_points(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
tc_result tc_scene_parse_tet(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_error* error);
/// The fields every dynamic body shares: name (unique), position, orientation, velocity,
/// angular_velocity, friction, restitution.
tc_result tc_scene_parse_body_base(tc_scene_ctx* ctx, const cJSON* body, const char* path, tc_body_def* base);
/// An optional box field written [[lo x, y, z], [hi x, y, z]].
tc_result tc_scene_parse_box_field(tc_scene_ctx* ctx, const cJSON* body, const char* path, const char* key, tc_aabb* out);
/// Reports a body-creation error under the body's path ("bodies[2].mass: must be positive").
tc_result tc_scene_fail_create(tc_scene_ctx* ctx, tc_result code, const char* path, const tc_error* error);
/// A def field the scene spells differently ("mesh_triangles" is read from "mesh"); a scene
/// field "" reports the error on the body itself.
typedef struct tc_scene_field_rename {
    const char* def_field;
    const char* scene_field;
} tc_scene_field_rename;
/// tc_scene_fail_create with def fields renamed to the scene's (list ends with {NULL, NULL}).
tc_result tc_scene_fail_create_as(tc_scene_ctx* ctx, tc_result code, const char* path, const tc_error* error,
                                  const tc_scene_field_rename* renames);

/// Resolves a mesh path relative to the scene directory into out (absolute paths kept).
void tc_scene_resolve_path(const tc_scene_ctx* ctx, const char* rel, char* out, size_t size);
/// Loads a mesh referenced at path.key; errors name the field and the mesh file.
tc_result tc_scene_load_mesh(tc_scene_ctx* ctx, const char* rel, const char* path, tc_mesh* out);
/// Fails when a body of that name already exists in the world.
tc_result tc_scene_check_unique_name(tc_scene_ctx* ctx, const char* name, const char* path);

/// Parses a rigid shape object at path ("bodies[0].shapes[1]"). Arrays referenced by def
/// (hull points, trimesh vertices) are owned by *mesh, free it with tc_mesh_free after creation.
tc_result tc_scene_parse_shape(tc_scene_ctx* ctx, const cJSON* shape, const char* path, bool is_static,
                               tc_shape_def* def, tc_mesh* mesh);

/// Runs one generator object (scene_generators.c); path "generators[i]".
tc_result tc_scene_run_generator(tc_scene_ctx* ctx, const cJSON* gen, const char* path);

/// Deterministic PRNG (splitmix64), independent of rand().
typedef struct tc_rng { uint64_t state; } tc_rng;
uint64_t tc_rng_next(tc_rng* rng);
/// Uniform in [0, 1).
double tc_rng_uniform(tc_rng* rng);

/// A scheduled event (scene_events.c).
typedef enum tc_event_action { TC_EVENT_REMOVE, TC_EVENT_FORCE, TC_EVENT_IMPULSE, TC_EVENT_SET_VELOCITY } tc_event_action;

typedef struct tc_scene_event {
    tc_real time;        ///< s
    tc_event_action action;
    char* body;          ///< owned name
    tc_vec3 vector;      ///< force (N), impulse (N s) or linear velocity (m/s)
    tc_vec3 angular;     ///< angular velocity (set_velocity)
    tc_vec3 point;       ///< world point for force/impulse
    bool has_point;
    tc_real duration;    ///< s, force only
} tc_scene_event;

tc_result tc_scene_parse_events(tc_scene_ctx* ctx, const cJSON* events, const char* path);
/// Applies every event due at the current world time; returns an error for a vanished body.
tc_result tc_scene_apply_events(tc_scene* scene, tc_error* error);

/// Removes the bodies the scene's "remove" events removed during the first `steps` steps, in
/// the same order, so a rebuilt world's body table matches the original run's (checkpoints).
tc_result tc_scene_replay_removals(tc_scene* scene, int64_t steps, tc_error* error);
/// Translates a seed-003 text scene (docs/springs-scene-text.md) to JSON (tc_free_string it);
/// NULL with "file: line N: problem" on error.
char* tc_springs_text_to_json(const char* text, const char* file, tc_error* error);
/// Builds a scene from JSON text; `file` and `dir` name it in errors and resolve mesh paths.
tc_scene* tc_scene_load_text(const char* text, const char* file, const char* dir, int thread_count, tc_error* error);

/// A requested named metric "name:arg".
typedef struct tc_scene_metric {
    char* label;        ///< owned, as written in the scene ("box_penetration:box")
    char* arg;          ///< owned, the part after ':' ("" if none)
    tc_metric_fn* fn;
} tc_scene_metric;

/// The metric function registered under name, or NULL (metrics.c).
tc_metric_fn* tc_metric_find(const char* name);
/// Checks a scene's metric "name" or "name:arg" (arg NULL without ':') against the loaded world:
/// a known name, and for the built-ins the argument they need (a body of the right kind, or
/// none). Metrics an application registered are not checked. On failure writes the problem.
tc_result tc_metric_check(const tc_world* world, const char* name, const char* arg, char* problem, size_t size);

struct tc_scene {
    tc_world* world;
    char* text;         ///< the JSON it was loaded from (checkpoints carry it)
    int thread_count;   ///< the override it was loaded with, 0 = the scene's own
    char* file;
    char* dir;
    char* name;
    char* description;
    tc_scene_run run;
    tc_scene_camera camera;
    bool has_camera;
    TC_ARRAY(tc_scene_event) events;
    TC_ARRAY(tc_scene_metric) metrics;
};

#endif
