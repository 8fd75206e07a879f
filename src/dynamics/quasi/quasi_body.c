// Quasi-rigid bodies: def, validation, creation (rigid frame + point-cloud layer), getters.
#include <math.h>
#include <stdio.h>
#include "dynamics/quasi/quasi.h"

tc_quasi_body_def tc_quasi_body_def_default(void) {
    tc_quasi_body_def d;
    memset(&d, 0, sizeof d);
    d.base = tc_body_def_default();
    d.shape = TC_QUASI_SPHERE;
    d.radius = 0.1;
    d.half_extents = tc_v3(0.1, 0.1, 0.1);
    d.sample_count = 2000;
    d.density = 1000;
    d.shear_modulus = 1e6;
    d.poisson = 0.3;
    d.response = TC_QUASI_BOUSSINESQ;
    d.max_iterations = 3;
    d.internal_value = TC_DEF_COOKIE;
    return d;
}

tc_quasi_body* tc_quasi_record(const tc_world* w, int rigid_index) {
    tc_quasi_store* s = tc_quasi_store_of(w);
    int slot = tc_rigid_store_of(w)->bodies.data[rigid_index].slot;
    return &s->bodies.data[s->record_of_slot.data[slot]];
}

tc_rigid_body* tc_quasi_rigid(const tc_world* w, const tc_quasi_body* q) {
    return &tc_rigid_store_of(w)->bodies.data[w->slots.data[q->slot].index];
}

#define FAIL(code, field, ...) tc_error_set(e, code, NULL, field, __VA_ARGS__)

static bool finite_positive(tc_real x) { return isfinite(x) && x > 0; }

static tc_result check_def(const tc_quasi_body_def* d, tc_error* e) {
    if (!d || d->internal_value != TC_DEF_COOKIE)
        return FAIL(TC_RESULT_INVALID_ARGUMENT, "body", "def not from tc_quasi_body_def_default()");
    if (!tc_v3_is_finite(d->base.pose.p) || !(tc_quat_len(d->base.pose.q) > 1e-12) || !isfinite(tc_quat_len(d->base.pose.q)))
        return FAIL(TC_RESULT_NOT_FINITE, "body.pose", "pose is not finite or its quaternion is zero");
    if (!tc_v3_is_finite(d->base.linear_velocity) || !tc_v3_is_finite(d->base.angular_velocity))
        return FAIL(TC_RESULT_NOT_FINITE, "body.velocity", "velocity is not finite");
    if (!(d->base.material.friction >= 0) || !isfinite(d->base.material.friction))
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.friction", "friction must be finite and >= 0");
    switch (d->shape) {
    case TC_QUASI_SPHERE:
        if (!finite_positive(d->radius)) return FAIL(TC_RESULT_OUT_OF_RANGE, "body.radius", "radius must be > 0 (got %g m)", d->radius);
        break;
    case TC_QUASI_ELLIPSOID:
    case TC_QUASI_BOX:
        if (!finite_positive(d->half_extents.x) || !finite_positive(d->half_extents.y) || !finite_positive(d->half_extents.z))
            return FAIL(TC_RESULT_OUT_OF_RANGE, "body.half_extents", "half extents must be > 0");
        break;
    case TC_QUASI_POINTS:
        if (!d->points || d->point_count < 4)
            return FAIL(TC_RESULT_INVALID_ARGUMENT, "body.points", "a point-cloud body needs at least 4 points");
        if (!finite_positive(d->mass)) return FAIL(TC_RESULT_OUT_OF_RANGE, "body.mass", "a point-cloud body needs mass > 0");
        for (int i = 0; d->areas && i < d->point_count; ++i)
            if (!finite_positive(d->areas[i]))
                return FAIL(TC_RESULT_OUT_OF_RANGE, "body.areas", "areas[%d] must be > 0", i);
        break;
    default: return FAIL(TC_RESULT_OUT_OF_RANGE, "body.shape", "unknown shape %d", (int)d->shape);
    }
    if (d->shape != TC_QUASI_POINTS && (d->sample_count < 20 || d->sample_count > 1000000))
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.sample_count", "sample_count must be in [20, 1e6] (got %d)", d->sample_count);
    tc_real box_samples = d->shape == TC_QUASI_BOX ? tc_quasi_box_sample_count(d->half_extents, d->sample_count) : 0;
    if (box_samples > TC_QUASI_MAX_BOX_SAMPLES)
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.half_extents", "a box this thin would take %.3g samples (limit %d)", box_samples,
                    TC_QUASI_MAX_BOX_SAMPLES);
    if (d->shape != TC_QUASI_POINTS && !(d->mass > 0) && !finite_positive(d->density))
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.density", "density must be > 0 (got %g)", d->density);
    if (!(d->mass >= 0) || !isfinite(d->mass)) return FAIL(TC_RESULT_OUT_OF_RANGE, "body.mass", "mass must be >= 0");
    if (!finite_positive(d->shear_modulus))
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.shear_modulus", "shear modulus must be > 0 (got %g Pa)", d->shear_modulus);
    if (!(d->poisson >= 0 && d->poisson < 0.5))
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.poisson", "Poisson ratio must be in [0, 0.5) (got %g)", d->poisson);
    if (d->response != TC_QUASI_BOUSSINESQ && d->response != TC_QUASI_VOLUME_PRESERVING)
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.response", "unknown response %d", (int)d->response);
    if (!(d->vp_reach >= 0) || !isfinite(d->vp_reach)) return FAIL(TC_RESULT_OUT_OF_RANGE, "body.vp_reach", "vp_reach must be >= 0");
    if (!(d->layer_damping >= 0) || !isfinite(d->layer_damping))
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.layer_damping", "layer damping must be >= 0");
    if (d->fine_level < 0 || d->coarse_level < d->fine_level || d->coarse_level > 16)
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.coarse_level", "need 0 <= fine_level <= coarse_level <= 16");
    if (!(d->tolerance >= 0) || !isfinite(d->tolerance)) return FAIL(TC_RESULT_OUT_OF_RANGE, "body.tolerance", "tolerance must be >= 0");
    if (d->max_iterations < 1 || d->max_iterations > 50)
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.max_iterations", "max_iterations must be in [1, 50]");
    if ((int)d->solver < (int)TC_QUASI_SOLVER_AUTO || (int)d->solver > (int)TC_QUASI_SOLVER_MPRGP)
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.solver", "unknown solver %d", (int)d->solver);
    if (!(d->linear_damping >= 0) || !(d->angular_damping >= 0))
        return FAIL(TC_RESULT_OUT_OF_RANGE, "body.damping", "damping must be >= 0");
    return TC_RESULT_OK;
}

// The rigid frame's shape carries the mass properties: the exact sphere or box; an ellipsoid by
// the box of equal mass and inertia (half extents a√(3/5)); a point cloud by its bounding box.
static tc_shape_def mass_shape(const tc_quasi_body_def* d, tc_aabb box, tc_real* mass) {
    tc_shape_def s = tc_shape_def_default(d->shape == TC_QUASI_SPHERE ? TC_SHAPE_SPHERE : TC_SHAPE_BOX);
    s.density = d->density > 0 ? d->density : 1000;
    *mass = d->mass;
    if (d->shape == TC_QUASI_SPHERE) {
        s.radius = d->radius;
    } else if (d->shape == TC_QUASI_BOX) {
        s.half_extents = d->half_extents;
    } else if (d->shape == TC_QUASI_ELLIPSOID) {
        s.half_extents = tc_v3_scale(d->half_extents, sqrt(3.0 / 5.0));
        if (*mass <= 0) *mass = s.density * 4.0 / 3.0 * TC_PI * d->half_extents.x * d->half_extents.y * d->half_extents.z;
    } else {
        s.local.p = tc_v3_scale(tc_v3_add(box.lo, box.hi), 0.5);
        s.half_extents = tc_v3_max(tc_v3_scale(tc_v3_sub(box.hi, box.lo), 0.5), tc_v3(1e-6, 1e-6, 1e-6));
    }
    return s;
}

// Area shares of a cloud without given areas: π r_k²/k over the k = 10 nearest.
static void estimate_areas(const tc_pointset* ps, tc_real* areas) {
    enum { k = 10 };
    int idx[k + 1];
    tc_real d2[k + 1];
    for (int i = 0; i < ps->count; ++i) {
        int n = tc_pointset_query_knn(ps, ps->points[i], k + 1, idx, d2);
        areas[i] = n > 1 ? TC_PI * d2[n - 1] / (n - 1) : 1e-6;
    }
    // Stacks of coincident samples get zero: give them a small share of the mean so every node
    // keeps a kernel width (a zero one makes the response matrix singular).
    tc_real mean = 0;
    int positive = 0;
    for (int i = 0; i < ps->count; ++i)
        if (areas[i] > 0) mean += areas[i], ++positive;
    tc_real floor_area = positive ? 1e-3 * mean / positive : 1e-6;
    for (int i = 0; i < ps->count; ++i)
        if (!(areas[i] > 0)) areas[i] = floor_area;
}

static void free_record(tc_quasi_body* q) {
    int n = q->cloud.count;
    if (q->areas) tc_free(q->areas, (size_t)n * sizeof(tc_real));
    if (q->traction) tc_free(q->traction, (size_t)n * sizeof(tc_real));
    if (q->displacement) tc_free(q->displacement, (size_t)n * sizeof(tc_real));
    tc_sphere_tree_destroy(&q->tree);
    tc_pointset_destroy(&q->cloud);
    tc_array_free(&q->ledgers);
    memset(q, 0, sizeof *q);
}

static tc_result build_surface(tc_quasi_body* q, const tc_quasi_body_def* d, tc_error* e) {
    tc_vec3 *pts = NULL, *nrm = NULL;
    tc_real* areas = NULL;
    int n = d->point_count;
    if (d->shape != TC_QUASI_POINTS) {
        n = tc_quasi_sample_shape(d, &pts, &nrm, &areas);
        if (n == 0) return FAIL(TC_RESULT_OUT_OF_MEMORY, "body", "out of memory sampling the surface");
    }
    tc_result r = tc_pointset_init(&q->cloud, pts ? pts : d->points, pts ? nrm : d->normals, n, 0, "body.points", e);
    if (pts) {
        tc_free(pts, (size_t)n * sizeof(tc_vec3));
        tc_free(nrm, (size_t)n * sizeof(tc_vec3));
    }
    if (r != TC_RESULT_OK) {
        if (areas) tc_free(areas, (size_t)n * sizeof(tc_real));
        return r;
    }
    if (d->shape == TC_QUASI_POINTS && !d->normals) tc_pointset_estimate_normals(&q->cloud, 12);
    q->areas = areas ? areas : tc_alloc((size_t)n * sizeof(tc_real));
    q->traction = tc_calloc((size_t)n, sizeof(tc_real));
    q->displacement = tc_calloc((size_t)n, sizeof(tc_real));
    if (!q->areas || !q->traction || !q->displacement || !tc_sphere_tree_build(&q->tree, q->cloud.points, n, 8))
        return FAIL(TC_RESULT_OUT_OF_MEMORY, "body", "out of memory building the surface");
    if (!areas) {
        if (d->areas) memcpy(q->areas, d->areas, (size_t)n * sizeof(tc_real));
        else estimate_areas(&q->cloud, q->areas);
    }
    q->spacing = tc_pointset_mean_spacing(&q->cloud);
    q->local_box = tc_aabb_empty();
    for (int i = 0; i < n; ++i) q->local_box = tc_aabb_add_point(q->local_box, q->cloud.points[i]);
    return TC_RESULT_OK;
}

static void set_layer(tc_quasi_body* q, const tc_quasi_body_def* d) {
    q->response.kind = d->response == TC_QUASI_VOLUME_PRESERVING ? TC_RESPONSE_VOLUME_PRESERVING : TC_RESPONSE_BOUSSINESQ;
    q->response.shear_modulus = d->shear_modulus;
    q->response.poisson = d->poisson;
    q->response.vp_reach = d->vp_reach > 0 ? d->vp_reach : 3 * q->spacing;
    q->contact.coarse_level = d->coarse_level;
    q->contact.fine_level = d->fine_level;
    q->contact.tolerance = d->tolerance > 0 ? d->tolerance : 1e-3 * q->spacing;
    q->contact.max_iterations = d->max_iterations;
    q->solver = (tc_lcp_method)d->solver; // the enums are in the same order (checked in quasi.h)
    q->layer_damping = d->layer_damping;
}

static tc_result add_record(tc_world* w, tc_quasi_body* q) {
    tc_quasi_store* s = tc_world_store(w, TC_BODY_QUASI, sizeof(tc_quasi_store));
    if (!s || !tc_array_reserve(&s->bodies, s->bodies.count + 1) || !tc_array_reserve(&s->record_of_slot, q->slot + 1))
        return TC_RESULT_OUT_OF_MEMORY;
    while (s->record_of_slot.count <= q->slot) s->record_of_slot.data[s->record_of_slot.count++] = -1;
    s->record_of_slot.data[q->slot] = s->bodies.count;
    s->bodies.data[s->bodies.count++] = *q;
    return TC_RESULT_OK;
}

tc_result tc_quasi_body_create(tc_world* w, const tc_quasi_body_def* d, tc_body_id* id, tc_error* e) {
    if (!w || !id) return FAIL(TC_RESULT_INVALID_ARGUMENT, "body", "world or out id is NULL");
    tc_result r = tc_world_check_unlocked(w);
    if (r != TC_RESULT_OK) return FAIL(r, "body", "cannot create a body during a step");
    r = check_def(d, e);
    if (r != TC_RESULT_OK) return r;
    tc_quasi_body q;
    memset(&q, 0, sizeof q);
    r = build_surface(&q, d, e);
    if (r != TC_RESULT_OK) {
        free_record(&q);
        return r;
    }
    set_layer(&q, d);
    tc_real mass = 0;
    tc_shape_def shape = mass_shape(d, q.local_box, &mass);
    tc_rigid_body_def rd = tc_rigid_body_def_default();
    rd.base = d->base;
    rd.shapes = &shape;
    rd.shape_count = 1;
    rd.mass = mass;
    rd.linear_damping = d->linear_damping;
    rd.angular_damping = d->angular_damping;
    rd.allow_sleep = false; // contact forces are recomputed from the layer every sub-step
    q.slot = w->free_head >= 0 ? w->free_head : w->slots.count;
    int index = 0;
    r = tc_rigid_store_add(w, &rd, TC_BODY_QUASI, q.slot, &index, e);
    if (r == TC_RESULT_OK) {
        r = tc_world_alloc_body(w, TC_BODY_QUASI, index, d->base.name, d->base.user_data, id);
        if (r != TC_RESULT_OK) {
            tc_rigid_store* rs = tc_rigid_store_of(w);
            tc_shape_free(&rs->bodies.data[index].shapes[0]);
            tc_free(rs->bodies.data[index].shapes, sizeof(tc_shape));
            rs->bodies.count--;
        } else {
            r = add_record(w, &q);
            if (r != TC_RESULT_OK) tc_body_destroy(w, *id);
        }
    }
    if (r != TC_RESULT_OK) {
        free_record(&q);
        return tc_error_set(e, r, NULL, "body", "could not add the body (%s)", tc_result_string(r));
    }
    return TC_RESULT_OK;
}

void tc_rigid_remove_body(tc_world* w, int index);

void tc_quasi_remove_body(tc_world* w, int rigid_index);
void tc_quasi_remove_body(tc_world* w, int rigid_index) {
    tc_quasi_store* s = tc_quasi_store_of(w);
    int slot = tc_rigid_store_of(w)->bodies.data[rigid_index].slot;
    if (s && slot < s->record_of_slot.count && s->record_of_slot.data[slot] >= 0) {
        int rec = s->record_of_slot.data[slot], last = s->bodies.count - 1;
        free_record(&s->bodies.data[rec]);
        if (rec != last) {
            s->bodies.data[rec] = s->bodies.data[last];
            s->record_of_slot.data[s->bodies.data[rec].slot] = rec;
        }
        s->bodies.count--;
        s->record_of_slot.data[slot] = -1;
    }
    tc_rigid_remove_body(w, rigid_index);
}

void tc_quasi_destroy_store(tc_world* w);
void tc_quasi_destroy_store(tc_world* w) {
    tc_quasi_store* s = tc_quasi_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i) free_record(&s->bodies.data[i]);
    tc_array_free(&s->bodies);
    tc_array_free(&s->record_of_slot);
    tc_quasi_patch_free(&s->patch);
    tc_quasi_patch_free(&s->patch_back);
    tc_array_free(&s->reaction);
    tc_free(s, sizeof *s);
    w->stores[TC_BODY_QUASI] = NULL;
}

// ---- getters ----------------------------------------------------------------------------------

static tc_quasi_body* resolve(const tc_world* w, tc_body_id id) {
    const tc_body_slot* s = w ? tc_world_resolve(w, id) : NULL;
    if (!s || s->kind != TC_BODY_QUASI) return NULL;
    return tc_quasi_record(w, s->index);
}

int tc_quasi_body_get_sample_count(const tc_world* w, tc_body_id id) {
    const tc_quasi_body* q = resolve(w, id);
    return q ? q->cloud.count : 0;
}

int tc_quasi_body_get_samples(const tc_world* w, tc_body_id id, tc_vec3* pos, tc_vec3* nrm, int cap) {
    const tc_quasi_body* q = resolve(w, id);
    if (!q) return 0;
    tc_transform pose = tc_quasi_rigid(w, q)->pose;
    int n = q->cloud.count < cap ? q->cloud.count : cap;
    for (int i = 0; i < n; ++i) {
        if (pos) pos[i] = tc_transform_point(pose, q->cloud.points[i]);
        if (nrm) nrm[i] = tc_quat_rotate(pose.q, q->cloud.normals[i]);
    }
    return n;
}

int tc_quasi_body_get_tractions(const tc_world* w, tc_body_id id, tc_real* traction, tc_real* disp, int cap) {
    const tc_quasi_body* q = resolve(w, id);
    if (!q) return 0;
    int n = q->cloud.count < cap ? q->cloud.count : cap;
    if (traction) memcpy(traction, q->traction, (size_t)n * sizeof(tc_real));
    if (disp) memcpy(disp, q->displacement, (size_t)n * sizeof(tc_real));
    return n;
}

void tc_quasi_body_get_contact_wrench(const tc_world* w, tc_body_id id, tc_vec3* force, tc_vec3* torque) {
    const tc_quasi_body* q = resolve(w, id);
    if (force) *force = q ? q->force : tc_v3_zero();
    if (torque) *torque = q ? q->torque : tc_v3_zero();
}

tc_vec3 tc_quasi_body_get_angular_velocity(const tc_world* w, tc_body_id id) {
    const tc_quasi_body* q = resolve(w, id);
    return q ? tc_quasi_rigid(w, q)->w : tc_v3_zero();
}

tc_result tc_quasi_body_set_velocity(tc_world* w, tc_body_id id, tc_vec3 v, tc_vec3 omega) {
    tc_quasi_body* q = resolve(w, id);
    if (!q) return TC_RESULT_STALE_ID;
    if (!tc_v3_is_finite(v) || !tc_v3_is_finite(omega)) return TC_RESULT_NOT_FINITE;
    tc_rigid_body* b = tc_quasi_rigid(w, q);
    b->v = v;
    b->w = omega;
    b->awake = true;
    return TC_RESULT_OK;
}

tc_quasi_stats tc_quasi_body_get_stats(const tc_world* w, tc_body_id id) {
    const tc_quasi_body* q = resolve(w, id);
    tc_quasi_stats none = {0};
    return q ? q->stats : none;
}
