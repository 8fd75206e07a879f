// Creating and destroying rigid and static bodies.
#include <stdio.h>
#include "dynamics/rigid/rigid.h"

static tc_result check_def(const tc_rigid_body_def* d, tc_error* e) {
    if (!d) return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "body", "def is NULL");
    if (d->internal_value != TC_DEF_COOKIE)
        return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "body", "def was not made by tc_rigid_body_def_default()");
    const tc_body_def* b = &d->base;
    if (!tc_v3_is_finite(b->pose.p) || !isfinite(tc_quat_len(b->pose.q)))
        return tc_error_set(e, TC_RESULT_NOT_FINITE, NULL, "body.pose", "pose is not finite");
    if (tc_quat_len(b->pose.q) < 1e-12) return tc_error_set(e, TC_RESULT_DEGENERATE, NULL, "body.pose.orientation", "orientation quaternion is zero");
    if (!tc_v3_is_finite(b->linear_velocity) || !tc_v3_is_finite(b->angular_velocity))
        return tc_error_set(e, TC_RESULT_NOT_FINITE, NULL, "body.velocity", "velocity is not finite");
    if (d->shape_count < 1 || !d->shapes) return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "body.shapes", "a body needs at least one shape");
    if (!isfinite(d->mass) || d->mass < 0) return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "body.mass", "mass must be >= 0 and finite (got %g)", d->mass);
    if (!(b->material.friction >= 0) || !isfinite(b->material.friction))
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "body.friction", "friction must be >= 0 and finite");
    if (!(b->material.restitution >= 0 && b->material.restitution <= 1))
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "body.restitution", "restitution must be in [0, 1]");
    if (!(d->linear_damping >= 0) || !(d->angular_damping >= 0))
        return tc_error_set(e, TC_RESULT_OUT_OF_RANGE, NULL, "body.damping", "damping must be >= 0");
    return TC_RESULT_OK;
}

static void free_shapes(tc_shape* shapes, int count) {
    for (int i = 0; i < count; ++i) tc_shape_free(&shapes[i]);
    tc_free(shapes, sizeof(tc_shape) * (size_t)count);
}

static tc_result build_shapes(const tc_rigid_body_def* d, tc_shape** out, tc_error* e) {
    tc_shape* shapes = tc_calloc((size_t)d->shape_count, sizeof *shapes);
    if (!shapes) return tc_error_set(e, TC_RESULT_OUT_OF_MEMORY, NULL, "body.shapes", "out of memory");
    for (int i = 0; i < d->shape_count; ++i) {
        char path[64];
        snprintf(path, sizeof path, "body.shapes[%d]", i);
        tc_result r = tc_shape_init(&shapes[i], &d->shapes[i], d->is_static, path, e);
        if (r != TC_RESULT_OK) {
            for (int k = 0; k < i; ++k) tc_shape_free(&shapes[k]);
            tc_free(shapes, sizeof(tc_shape) * (size_t)d->shape_count); // the size allocated, not the i built
            return r;
        }
    }
    *out = shapes;
    return TC_RESULT_OK;
}

static tc_result set_mass(tc_rigid_body* b, const tc_rigid_body_def* d, tc_error* e) {
    if (d->is_static) {
        b->com_local = tc_v3_zero();
        return TC_RESULT_OK;
    }
    tc_mass_props parts[64] = {{0}}, total;
    tc_mass_props* p = d->shape_count <= 64 ? parts : tc_calloc((size_t)d->shape_count, sizeof *p);
    if (!p) return tc_error_set(e, TC_RESULT_OUT_OF_MEMORY, NULL, "body", "out of memory");
    for (int i = 0; i < d->shape_count; ++i) p[i] = tc_shape_mass(&b->shapes[i]);
    total = tc_mass_combine(p, d->shape_count);
    if (p != parts) tc_free(p, sizeof *p * (size_t)d->shape_count);
    if (d->mass > 0) total = tc_mass_with_total(total, d->mass);
    if (!(total.mass > 0) || !isfinite(total.mass) || !(tc_mat3_det(total.inertia) > 0))
        return tc_error_set(e, TC_RESULT_DEGENERATE, NULL, "body.mass", "a dynamic body needs a positive mass and inertia (got %g kg)", total.mass);
    b->mass = total.mass;
    b->inv_mass = 1.0 / total.mass;
    b->com_local = total.center;
    b->inertia_local = total.inertia;
    b->inv_inertia_local = tc_mat3_inverse(total.inertia);
    return TC_RESULT_OK;
}

tc_result tc_rigid_store_add(tc_world* w, const tc_rigid_body_def* d, uint8_t kind, int32_t slot, int* index, tc_error* e) {
    tc_result r = check_def(d, e);
    if (r != TC_RESULT_OK) return r;
    tc_rigid_store* store = tc_world_store(w, TC_BODY_RIGID, sizeof(tc_rigid_store));
    if (!store || !tc_array_reserve(&store->bodies, store->bodies.count + 1))
        return tc_error_set(e, TC_RESULT_OUT_OF_MEMORY, NULL, "body", "out of memory");
    tc_rigid_body b;
    memset(&b, 0, sizeof b);
    r = build_shapes(d, &b.shapes, e);
    if (r != TC_RESULT_OK) return r;
    b.shape_count = d->shape_count;
    r = set_mass(&b, d, e);
    if (r != TC_RESULT_OK) {
        free_shapes(b.shapes, b.shape_count);
        return r;
    }
    b.slot = slot;
    b.kind = kind;
    b.pose = d->base.pose;
    b.pose.q = tc_quat_normalize(b.pose.q);
    b.v = d->is_static ? tc_v3_zero() : d->base.linear_velocity;
    b.w = d->is_static ? tc_v3_zero() : d->base.angular_velocity;
    b.material = d->base.material;
    b.linear_damping = d->linear_damping;
    b.angular_damping = d->angular_damping;
    b.contact_method = d->contact_method;
    b.allow_sleep = d->allow_sleep;
    b.gyroscopic = d->gyroscopic;
    b.awake = !d->is_static;
    tc_rigid_update_derived(&b);
    *index = store->bodies.count;
    store->bodies.data[store->bodies.count++] = b;
    return TC_RESULT_OK;
}

tc_result tc_rigid_body_create(tc_world* w, const tc_rigid_body_def* d, tc_body_id* out, tc_error* e) {
    if (!w || !out) return tc_error_set(e, TC_RESULT_INVALID_ARGUMENT, NULL, "body", "world or out id is NULL");
    tc_result r = tc_world_check_unlocked(w);
    if (r != TC_RESULT_OK) return tc_error_set(e, r, NULL, "body", "cannot create a body during a step");
    int index = 0;
    int32_t slot = w->free_head >= 0 ? w->free_head : w->slots.count;
    r = tc_rigid_store_add(w, d, d && d->is_static ? TC_BODY_STATIC : TC_BODY_RIGID, slot, &index, e);
    if (r != TC_RESULT_OK) return r;
    r = tc_world_alloc_body(w, d->is_static ? TC_BODY_STATIC : TC_BODY_RIGID, index, d->base.name, d->base.user_data, out);
    if (r != TC_RESULT_OK) {
        tc_rigid_store* store = tc_rigid_store_of(w);
        store->bodies.count--;
        free_shapes(store->bodies.data[index].shapes, store->bodies.data[index].shape_count);
        return tc_error_set(e, r, NULL, "body", "out of memory");
    }
    return TC_RESULT_OK;
}

void tc_rigid_remove_body(tc_world* w, int index);
void tc_rigid_remove_body(tc_world* w, int index) {
    tc_rigid_store* store = tc_rigid_store_of(w);
    tc_rigid_body* b = &store->bodies.data[index];
    free_shapes(b->shapes, b->shape_count);
    int last = store->bodies.count - 1;
    if (index != last) {
        store->bodies.data[index] = store->bodies.data[last];
        tc_world_body_moved(w, store->bodies.data[index].slot, index);
    }
    store->bodies.count--;
    tc_rigid_contacts_body_removed(store, index, last);
}

void tc_rigid_destroy_store(tc_world* w);
void tc_rigid_destroy_store(tc_world* w) {
    tc_rigid_store* store = tc_rigid_store_of(w);
    for (int i = 0; i < store->bodies.count; ++i) free_shapes(store->bodies.data[i].shapes, store->bodies.data[i].shape_count);
    tc_rigid_contacts_destroy(store);
    tc_array_free(&store->bodies);
    tc_free(store, sizeof *store);
    w->stores[TC_BODY_RIGID] = NULL;
}
