// Named metrics a scene can ask for ("metrics": ["body_height:box"]): a built-in table that
// other modules extend with one line, plus a small runtime registry (tc_metric_register).
#include "solver/metrics_rigid.h"
#include "tactus/quasi.h"
#include "io/scene_internal.h"

#include <math.h>
#include <string.h>

/// Height (z, m) of the named body's centre of mass; NaN when the body does not exist.
static tc_real metric_body_height(const tc_world* world, const tc_scene* scene, const char* arg) {
    (void)scene;
    tc_body_id id = tc_world_find_body(world, arg);
    return tc_body_id_is_null(id) ? NAN : tc_body_get_center_of_mass(world, id).z;
}

/// Speed (m/s) of the named body's centre of mass; NaN when the body does not exist.
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

typedef struct metric_entry {
    const char* name;
    tc_metric_fn* fn;
} metric_entry;

/// Built-in metrics. Modules add theirs here, one line each.
static tc_real metric_box_penetration(const tc_world* world, const tc_scene* scene, const char* arg) {
    (void)scene;
    return tc_metric_box_penetration(world, arg);
}

static tc_real metric_box_alignment(const tc_world* world, const tc_scene* scene, const char* arg) {
    (void)scene;
    return tc_metric_box_alignment(world, arg);
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
    if (tc_body_get_kind(world, id) == TC_BODY_QUASI) tc_quasi_body_get_contact_wrench(world, id, &f, NULL);
    return f.z;
}

static const metric_entry builtin_metrics[] = {
    {"quasi_force_z", metric_quasi_force_z},
    {"box_penetration", metric_box_penetration},
    {"box_alignment", metric_box_alignment},
    {"kinetic_energy", metric_kinetic_energy},
    {"body_height", metric_body_height},
    {"body_speed", metric_body_speed},
    {"body_count", metric_body_count},
};

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
    for (size_t i = 0; i < sizeof builtin_metrics / sizeof builtin_metrics[0]; ++i)
        if (strcmp(builtin_metrics[i].name, name) == 0) return builtin_metrics[i].fn;
    return NULL;
}
