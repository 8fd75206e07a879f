// Named metrics a scene can ask for ("metrics": ["body_height:box"]): a built-in table that
// other modules extend with one line, plus a small runtime registry (tc_metric_register).
#include "solver/metrics_rigid.h"
#include "tactus/quasi.h"
#include "io/scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/// Height (z, m) of the named body's centre of mass; NaN once the body is removed.
static tc_real metric_body_height(const tc_world* world, const tc_scene* scene, const char* arg) {
    (void)scene;
    tc_body_id id = tc_world_find_body(world, arg);
    return tc_body_id_is_null(id) ? NAN : tc_body_get_center_of_mass(world, id).z;
}

/// Speed (m/s) of the named body's centre of mass; NaN once the body is removed.
static tc_real metric_body_speed(const tc_world* world, const tc_scene* scene, const char* arg) {
    (void)scene;
    tc_body_id id = tc_world_find_body(world, arg);
    return tc_body_id_is_null(id) ? NAN : tc_v3_len(tc_body_get_linear_velocity(world, id));
}

/// Number of live bodies.
static tc_real metric_body_count(const tc_world* world, const tc_scene* scene, const char* arg) {
    (void)scene;
    (void)arg;
    return (tc_real)tc_world_get_body_count(world);
}

/// What a built-in metric's argument must name; checked when the scene loads.
typedef enum metric_arg {
    ARG_NONE,  ///< no argument
    ARG_BODY,  ///< any body
    ARG_BOX,   ///< a rigid or static body whose first shape is a box
    ARG_QUASI, ///< a quasi-rigid body
} metric_arg;

typedef struct metric_entry {
    const char* name;
    tc_metric_fn* fn;
    metric_arg arg;
} metric_entry;

// The box and quasi metrics give NaN, like the body ones, once their body is removed.
static tc_real metric_box_penetration(const tc_world* world, const tc_scene* scene, const char* arg) {
    (void)scene;
    return tc_metric_is_box(world, arg) ? tc_metric_box_penetration(world, arg) : NAN;
}

static tc_real metric_box_alignment(const tc_world* world, const tc_scene* scene, const char* arg) {
    (void)scene;
    return tc_metric_is_box(world, arg) ? tc_metric_box_alignment(world, arg) : NAN;
}

static tc_real metric_kinetic_energy(const tc_world* world, const tc_scene* scene, const char* arg) {
    (void)scene;
    (void)arg;
    return tc_world_get_stats(world).kinetic_energy;
}

static tc_real metric_quasi_force_z(const tc_world* world, const tc_scene* scene, const char* arg) {
    (void)scene;
    tc_vec3 f = tc_v3_zero();
    tc_body_id id = tc_world_find_body(world, arg);
    if (tc_body_id_is_null(id) || tc_body_get_kind(world, id) != TC_BODY_QUASI) return NAN;
    tc_quasi_body_get_contact_wrench(world, id, &f, NULL);
    return f.z;
}

/// Built-in metrics. Modules add theirs here, one line each.
static const metric_entry builtin_metrics[] = {
    {"quasi_force_z", metric_quasi_force_z, ARG_QUASI},
    {"box_penetration", metric_box_penetration, ARG_BOX},
    {"box_alignment", metric_box_alignment, ARG_BOX},
    {"kinetic_energy", metric_kinetic_energy, ARG_NONE},
    {"body_height", metric_body_height, ARG_BODY},
    {"body_speed", metric_body_speed, ARG_BODY},
    {"body_count", metric_body_count, ARG_NONE},
};

static const metric_entry* find_builtin(const char* name) {
    for (size_t i = 0; i < sizeof builtin_metrics / sizeof builtin_metrics[0]; ++i)
        if (strcmp(builtin_metrics[i].name, name) == 0) return &builtin_metrics[i];
    return NULL;
}

#define TC_METRIC_REGISTRY_MAX 64
static struct {
    char name[64];
    tc_metric_fn* fn;
} registered[TC_METRIC_REGISTRY_MAX];
static int registered_count;

tc_result tc_metric_register(const char* name, tc_metric_fn* fn) {
    if (!name || !name[0] || strlen(name) >= sizeof registered[0].name || !fn || strchr(name, ':'))
        return TC_RESULT_INVALID_ARGUMENT;
    for (int i = 0; i < registered_count; ++i) {
        if (strcmp(registered[i].name, name) == 0) {
            registered[i].fn = fn;
            return TC_RESULT_OK;
        }
    }
    if (registered_count == TC_METRIC_REGISTRY_MAX) return TC_RESULT_LIMIT;
    strcpy(registered[registered_count].name, name);
    registered[registered_count++].fn = fn;
    return TC_RESULT_OK;
}

tc_metric_fn* tc_metric_find(const char* name) {
    // Registered metrics take precedence so an application can override a built-in one.
    for (int i = 0; i < registered_count; ++i)
        if (strcmp(registered[i].name, name) == 0) return registered[i].fn;
    const metric_entry* m = find_builtin(name);
    return m ? m->fn : NULL;
}

static const char* kind_name(tc_body_kind kind) {
    static const char* const names[TC_BODY_KIND_COUNT] = {"a static", "a rigid", "a quasi-rigid", "a tet", "a points", "a springs"};
    return kind >= 0 && kind < TC_BODY_KIND_COUNT ? names[kind] : "an unknown";
}

tc_result tc_metric_check(const tc_world* world, const char* name, const char* arg, char* problem, size_t size) {
    for (int i = 0; i < registered_count; ++i)
        if (strcmp(registered[i].name, name) == 0) return TC_RESULT_OK; // the application's own: its argument is its business
    const metric_entry* m = find_builtin(name);
    if (!m) {
        snprintf(problem, size, "unknown metric \"%s\"", name);
        return TC_RESULT_OUT_OF_RANGE;
    }
    if (m->arg == ARG_NONE) {
        if (!arg) return TC_RESULT_OK;
        snprintf(problem, size, "metric \"%s\" takes no argument (got \"%s\")", name, arg);
        return TC_RESULT_INVALID_ARGUMENT;
    }
    if (!arg || !arg[0]) {
        snprintf(problem, size, "metric \"%s\" needs a body name: \"%s:NAME\"", name, name);
        return TC_RESULT_MISSING_FIELD;
    }
    tc_body_id id = tc_world_find_body(world, arg);
    if (tc_body_id_is_null(id)) {
        snprintf(problem, size, "metric \"%s\": no body named \"%s\"", name, arg);
        return TC_RESULT_INVALID_ARGUMENT;
    }
    tc_body_kind kind = tc_body_get_kind(world, id);
    if (m->arg == ARG_QUASI && kind != TC_BODY_QUASI) {
        snprintf(problem, size, "metric \"%s\" needs a quasi-rigid body; \"%s\" is %s body", name, arg, kind_name(kind));
        return TC_RESULT_INVALID_ARGUMENT;
    }
    if (m->arg == ARG_BOX && !tc_metric_is_box(world, arg)) {
        snprintf(problem, size, "metric \"%s\" needs a rigid or static body whose first shape is a box; \"%s\" is not",
                 name, arg);
        return TC_RESULT_INVALID_ARGUMENT;
    }
    return TC_RESULT_OK;
}
