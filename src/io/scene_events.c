// Scene events: remove a body, apply a force for a while, an impulse, or set a velocity.
#include "io/scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static tc_result parse_event(tc_scene_ctx* ctx, const cJSON* e, const char* path, tc_scene_event* out) {
    static const char* const actions[] = {"remove", "force", "impulse", "set_velocity", NULL};
    static const char* const remove_f[] = {"time", "action", "body", NULL};
    static const char* const force_f[] = {"time", "action", "body", "force", "point", "duration", NULL};
    static const char* const impulse_f[] = {"time", "action", "body", "impulse", "point", NULL};
    static const char* const velocity_f[] = {"time", "action", "body", "velocity", "angular_velocity", NULL};
    static const char* const* const fields[] = {remove_f, force_f, impulse_f, velocity_f};
    const tc_json* j = &ctx->json;
    if (!cJSON_IsObject(e))
        return tc_json_fail(j, TC_RESULT_WRONG_TYPE, path, NULL, "expected an object, got %s", tc_json_type_name(e));
    int action = 0;
    const char* body = NULL;
    memset(out, 0, sizeof *out);
    tc_result r = tc_json_enum(j, e, path, "action", true, actions, &action);
    if (!r) r = tc_json_check_object(j, e, path, fields[action]);
    if (!r) r = tc_json_real(j, e, path, "time", true, TC_JSON_NON_NEGATIVE, &out->time);
    if (!r) r = tc_json_string(j, e, path, "body", true, &body);
    if (!r && tc_body_id_is_null(tc_world_find_body(ctx->world, body)))
        r = tc_json_fail(j, TC_RESULT_INVALID_ARGUMENT, path, "body", "no body named \"%s\"", body);
    if (!r && action != TC_EVENT_REMOVE && tc_body_get_kind(ctx->world, tc_world_find_body(ctx->world, body)) == TC_BODY_STATIC)
        r = tc_json_fail(j, TC_RESULT_UNSUPPORTED, path, "body", "\"%s\" is static: it takes no forces, impulses or velocities", body);
    if (r) return r;
    out->action = (tc_event_action)action;
    out->has_point = tc_json_member(e, "point") != NULL;
    switch (out->action) {
    case TC_EVENT_FORCE:
        r = tc_json_vec3(j, e, path, "force", true, &out->vector);
        if (!r) r = tc_json_vec3(j, e, path, "point", false, &out->point);
        out->duration = 0;
        if (!r) r = tc_json_real(j, e, path, "duration", false, TC_JSON_NON_NEGATIVE, &out->duration);
        break;
    case TC_EVENT_IMPULSE:
        r = tc_json_vec3(j, e, path, "impulse", true, &out->vector);
        if (!r) r = tc_json_vec3(j, e, path, "point", false, &out->point);
        break;
    case TC_EVENT_SET_VELOCITY:
        r = tc_json_vec3(j, e, path, "velocity", false, &out->vector);
        if (!r) r = tc_json_vec3(j, e, path, "angular_velocity", false, &out->angular);
        break;
    case TC_EVENT_REMOVE:
        break;
    }
    if (!r) out->body = tc_strdup(body);
    return r;
}

tc_result tc_scene_parse_events(tc_scene_ctx* ctx, const cJSON* events, const char* path) {
    int i = 0;
    for (const cJSON* e = events->child; e; e = e->next, ++i) {
        char p[TC_JSON_PATH_MAX];
        tc_json_path_index(p, path, i);
        tc_scene_event ev;
        tc_result r = parse_event(ctx, e, p, &ev);
        if (r) return r;
        if (!tc_array_push(&ctx->scene->events, ev)) {
            tc_free_string(ev.body);
            return TC_RESULT_OUT_OF_MEMORY;
        }
    }
    return TC_RESULT_OK;
}

/// True when [t0, t0 + width) contains the step starting at time t (half-step tolerance so
/// round-off in the accumulated time does not skip or repeat an event).
static bool step_hits(tc_real t, tc_real h, tc_real t0, tc_real width) {
    return t >= t0 - 0.5 * h && t < t0 + fmax(width, h) - 0.5 * h;
}

static tc_result apply_event(tc_scene* s, const tc_scene_event* e, tc_body_id id, tc_real h) {
    tc_vec3 point = e->has_point ? e->point : tc_body_get_center_of_mass(s->world, id);
    switch (e->action) {
    case TC_EVENT_REMOVE:
        return tc_body_destroy(s->world, id);
    case TC_EVENT_FORCE:
        return tc_body_apply_force(s->world, id, e->vector, point);
    case TC_EVENT_IMPULSE:
        // A force J/h held for exactly one step delivers the impulse J (and its moment about the point).
        return tc_body_apply_force(s->world, id, tc_v3_scale(e->vector, 1.0 / h), point);
    case TC_EVENT_SET_VELOCITY:
        return tc_body_set_velocity(s->world, id, e->vector, e->angular);
    }
    return TC_RESULT_INVALID_ARGUMENT;
}

tc_result tc_scene_apply_events(tc_scene* s, tc_error* error) {
    tc_world_stats st = tc_world_get_stats(s->world);
    tc_real h = tc_world_get_def(s->world).time_step;
    for (int i = 0; i < s->events.count; ++i) {
        const tc_scene_event* e = &s->events.data[i];
        tc_real width = e->action == TC_EVENT_FORCE ? e->duration : 0;
        if (!step_hits(st.time, h, e->time, width)) continue;
        tc_body_id id = tc_world_find_body(s->world, e->body);
        char path[64];
        snprintf(path, sizeof path, "events[%d]", i);
        if (tc_body_id_is_null(id))
            return tc_error_set(error, TC_RESULT_STALE_ID, s->file, path, "body \"%s\" no longer exists at t = %g s",
                                e->body, st.time);
        tc_result r = apply_event(s, e, id, h);
        if (r) return tc_error_set(error, r, s->file, path, "cannot apply to \"%s\": %s", e->body, tc_result_string(r));
    }
    return TC_RESULT_OK;
}

tc_result tc_scene_replay_removals(tc_scene* s, int64_t steps, tc_error* error) {
    tc_real h = tc_world_get_def(s->world).time_step, t = 0;
    for (int64_t k = 0; k < steps; ++k, t += h) { // the world's clock advances by += h as well
        for (int i = 0; i < s->events.count; ++i) {
            const tc_scene_event* e = &s->events.data[i];
            if (e->action != TC_EVENT_REMOVE || !step_hits(t, h, e->time, 0)) continue;
            tc_body_id id = tc_world_find_body(s->world, e->body);
            if (tc_body_id_is_null(id) || tc_body_destroy(s->world, id) != TC_RESULT_OK)
                return tc_error_set(error, TC_RESULT_PARSE, s->file, "events", "cannot replay the removal of \"%s\"", e->body);
        }
    }
    return TC_RESULT_OK;
}
