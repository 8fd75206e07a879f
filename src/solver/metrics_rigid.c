// The box-drop metrics of seed 004 figure 9 (ALGORITHMS §3.5), computed from the exact
// geometry so they do not depend on the contact generator being measured.
#include "solver/metrics_rigid.h"

#include "dynamics/rigid/rigid.h"

// The first static plane (world frame): n . x = e.
static bool ground_plane(const tc_rigid_store* s, tc_vec3* n, tc_real* e) {
    for (int i = 0; i < s->bodies.count; ++i) {
        const tc_rigid_body* b = &s->bodies.data[i];
        for (int k = 0; k < b->shape_count; ++k) {
            const tc_shape* sh = &b->shapes[k];
            if (sh->type != TC_SHAPE_PLANE) continue;
            tc_transform t = tc_transform_mul(b->pose, sh->local);
            *n = tc_quat_rotate(t.q, sh->plane_normal);
            *e = sh->plane_offset + tc_v3_dot(*n, t.p);
            return true;
        }
    }
    return false;
}

static const tc_rigid_body* named_box(const tc_world* w, const char* name, const tc_shape** box) {
    tc_body_id id = tc_world_find_body(w, name);
    const tc_body_slot* slot = tc_body_is_valid(w, id) ? &w->slots.data[id.index1 - 1] : NULL;
    if (!slot || (slot->kind != TC_BODY_RIGID && slot->kind != TC_BODY_STATIC)) return NULL;
    const tc_rigid_body* b = &tc_rigid_store_of(w)->bodies.data[slot->index];
    if (b->shape_count < 1 || b->shapes[0].type != TC_SHAPE_BOX) return NULL;
    *box = &b->shapes[0];
    return b;
}

bool tc_metric_is_box(const tc_world* w, const char* name) {
    const tc_shape* box;
    return named_box(w, name, &box) != NULL;
}

tc_real tc_metric_box_penetration(const tc_world* w, const char* name) {
    const tc_shape* box;
    const tc_rigid_body* b = named_box(w, name, &box);
    tc_vec3 n;
    tc_real e;
    if (!b || !ground_plane(tc_rigid_store_of(w), &n, &e)) return 0;
    tc_transform t = tc_transform_mul(b->pose, box->local);
    tc_real lowest = 1e300;
    for (int k = 0; k < 8; ++k) {
        tc_vec3 h = box->half_extents;
        tc_vec3 c = tc_transform_point(t, tc_v3(k & 1 ? h.x : -h.x, k & 2 ? h.y : -h.y, k & 4 ? h.z : -h.z));
        lowest = fmin(lowest, tc_v3_dot(n, c) - e);
    }
    return fmax(0, -lowest);
}

tc_real tc_metric_box_alignment(const tc_world* w, const char* name) {
    const tc_shape* box;
    const tc_rigid_body* b = named_box(w, name, &box);
    tc_vec3 n;
    tc_real e;
    if (!b || !ground_plane(tc_rigid_store_of(w), &n, &e)) return 0;
    tc_quat q = tc_quat_mul(b->pose.q, box->local.q);
    tc_real best = 0;
    tc_vec3 axes[3] = {tc_v3(1, 0, 0), tc_v3(0, 1, 0), tc_v3(0, 0, 1)};
    for (int k = 0; k < 3; ++k) best = fmax(best, fabs(tc_v3_dot(n, tc_quat_rotate(q, axes[k]))));
    return acos(fmin(1, best)); // rad: tilt of the face nearest the plane
}
