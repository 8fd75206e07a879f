// The rigid contact pipeline behind the rigid store's hooks: broadphase (sort and sweep),
// narrowphase per shape pair with persistent manifolds, the solver, sleeping, checkpoints.
#include "solver/solver.h"
#include "core/parallel.h"
#include "world/state_io.h"

#include <stdlib.h>
#include <string.h>

#define TC_SPECULATIVE_DISTANCE 0.02 // m, 4 x the linear slop (Box2D v3)
#define TC_AABB_MARGIN 0.05          // m

static tc_solver* solver_of(tc_rigid_store* s) {
    if (!s->solver) {
        s->solver = tc_calloc(1, sizeof(tc_solver));
        if (s->solver) ((tc_solver*)s->solver)->margin = TC_SPECULATIVE_DISTANCE;
    }
    return s->solver;
}

uint64_t tc_pair_key(int32_t slot_a, int shape_a, int32_t slot_b, int shape_b) {
    return ((uint64_t)(uint32_t)slot_a << 40) | ((uint64_t)(shape_a & 0xff) << 32) | ((uint64_t)((uint32_t)slot_b & 0xffffff) << 8) |
           (uint64_t)(shape_b & 0xff);
}

// ---- broadphase ------------------------------------------------------------------------------

typedef struct sweep_item {
    tc_real lo;
    int index;
} sweep_item;

static int compare_sweep(const void* a, const void* b) {
    const sweep_item *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return x->index - y->index;
}

// How far a body can travel this step (m): contacts are speculative within that distance, so
// fast bodies are stopped at the surface instead of tunnelling or landing deep inside.
static tc_real reach(const tc_rigid_body* b, tc_real dt) {
    if (!tc_rigid_is_dynamic(b) || !b->awake) return 0;
    tc_real radius = 0.5 * tc_v3_len(tc_v3_sub(b->aabb.hi, b->aabb.lo));
    return dt * (tc_v3_len(b->v) + tc_v3_len(b->w) * radius);
}

// The cached reach of store index i (computed when the cache could not be allocated).
static tc_real reach_of(const tc_rigid_store* s, const tc_solver* sv, int i, tc_real dt) {
    return i < sv->reach.count ? sv->reach.data[i] : reach(&s->bodies.data[i], dt);
}

static bool wants_pair(const tc_rigid_body* a, const tc_rigid_body* b) {
    if (a->kind == TC_BODY_QUASI || b->kind == TC_BODY_QUASI) return false; // their own LCP (seed 002)
    bool a_moves = tc_rigid_is_dynamic(a) && a->awake, b_moves = tc_rigid_is_dynamic(b) && b->awake;
    return a_moves || b_moves;
}

static int compare_pairs(const void* a, const void* b) {
    const int *x = a, *y = b;
    return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

// The candidate body pairs; false when out of memory (then some or all are missing).
static bool broadphase(tc_rigid_store* s, tc_solver* sv, tc_real dt) {
    int n = s->bodies.count;
    tc_array_clear(&sv->body_pairs);
    sweep_item* items = tc_alloc((size_t)(n ? n : 1) * sizeof *items);
    if (!items) return false;
    bool ok = true;
    // each body's reach once per step (the sweep and the narrowphase margins read it many times)
    bool cached = tc_array_reserve(&sv->reach, n);
    sv->reach.count = cached ? n : 0;
    for (int i = 0; i < n; ++i) {
        const tc_rigid_body* b = &s->bodies.data[i];
        tc_real r = reach(b, dt);
        if (cached) sv->reach.data[i] = r;
        items[i] = (sweep_item){b->aabb.lo.x - TC_AABB_MARGIN - r, i};
    }
    qsort(items, (size_t)n, sizeof *items, compare_sweep);
    for (int i = 0; i < n; ++i) {
        const tc_rigid_body* a = &s->bodies.data[items[i].index];
        tc_aabb box_a = tc_aabb_inflate(a->aabb, TC_AABB_MARGIN + reach_of(s, sv, items[i].index, dt));
        for (int j = i + 1; j < n && items[j].lo <= box_a.hi.x; ++j) {
            const tc_rigid_body* b = &s->bodies.data[items[j].index];
            if (!wants_pair(a, b) || !tc_aabb_overlap(box_a, tc_aabb_inflate(b->aabb, TC_AABB_MARGIN + reach_of(s, sv, items[j].index, dt))))
                continue;
            int lo = items[i].index < items[j].index ? items[i].index : items[j].index;
            int hi = items[i].index ^ items[j].index ^ lo;
            if (!tc_array_reserve(&sv->body_pairs, sv->body_pairs.count + 2)) {
                ok = false;
                continue;
            }
            sv->body_pairs.data[sv->body_pairs.count++] = lo;
            sv->body_pairs.data[sv->body_pairs.count++] = hi;
        }
    }
    tc_free(items, (size_t)(n ? n : 1) * sizeof *items);
    if (sv->body_pairs.count) qsort(sv->body_pairs.data, (size_t)sv->body_pairs.count / 2, 2 * sizeof(int), compare_pairs);
    return ok;
}

// ---- narrowphase with persistent manifolds ----------------------------------------------------

static const tc_pair_manifold* find_previous(const tc_pair_manifold* old, int count, uint64_t key) {
    int lo = 0, hi = count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (old[mid].key == key) return &old[mid];
        if (old[mid].key < key) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

static int compare_keys(const void* a, const void* b) {
    uint64_t x = ((const tc_pair_manifold*)a)->key, y = ((const tc_pair_manifold*)b)->key;
    return x < y ? -1 : x > y;
}

// The manifolds of body pair (ia, ib), at most shape_count_a x shape_count_b, written to out;
// returns their count. Reads the bodies, the previous step's manifolds and the reach cache only.
static int collide_bodies(const tc_rigid_store* s, const tc_solver* sv, int ia, int ib, const tc_pair_manifold* old, int old_count, tc_real dt,
                          tc_pair_manifold* out) {
    const tc_rigid_body *A = &s->bodies.data[ia], *B = &s->bodies.data[ib];
    int count = 0;
    // the baseline runs when either body asks for it (static bodies keep the default)
    tc_contact_method method = A->contact_method == TC_CONTACT_TRACKING || B->contact_method == TC_CONTACT_TRACKING
                                   ? TC_CONTACT_TRACKING
                                   : TC_CONTACT_GAUSS_MAP;
    tc_real margin = sv->margin + reach_of(s, sv, ia, dt) + reach_of(s, sv, ib, dt);
    for (int i = 0; i < A->shape_count; ++i)
        for (int j = 0; j < B->shape_count; ++j) {
            // a single shape's box is the body's, refreshed at the start of the step
            tc_aabb ba = A->shape_count == 1 ? A->aabb : tc_shape_aabb(&A->shapes[i], A->pose);
            tc_aabb bb = B->shape_count == 1 ? B->aabb : tc_shape_aabb(&B->shapes[j], B->pose);
            if (!tc_aabb_overlap(tc_aabb_inflate(ba, margin), bb)) continue;
            tc_pair_manifold pm;
            memset(&pm, 0, sizeof pm);
            pm.key = tc_pair_key(A->slot, i, B->slot, j);
            const tc_pair_manifold* prev = sv->cache_invalid ? NULL : find_previous(old, old_count, pm.key);
            if (!tc_collide(&A->shapes[i], A->pose, &B->shapes[j], B->pose, method,
                            margin, prev ? &prev->m : NULL, &pm.m))
                continue;
            pm.body_a = ia, pm.body_b = ib, pm.shape_a = i, pm.shape_b = j;
            pm.friction = sqrt(A->material.friction * B->material.friction);
            pm.restitution = fmax(A->material.restitution, B->material.restitution);
            out[count++] = pm;
        }
    return count;
}

static int pair_capacity(const tc_rigid_store* s, const tc_solver* sv, int k) {
    return s->bodies.data[sv->body_pairs.data[k]].shape_count * s->bodies.data[sv->body_pairs.data[k + 1]].shape_count;
}

// One body pair after the other, appending to sv->pairs. False when out of memory (the pairs
// from there on are left out).
static bool narrowphase_serial(tc_rigid_store* s, tc_solver* sv, const tc_pair_manifold* old, int old_count, tc_real dt) {
    for (int k = 0; k + 1 < sv->body_pairs.count; k += 2) {
        int capacity = pair_capacity(s, sv, k);
        if (!tc_array_reserve(&sv->pairs, sv->pairs.count + capacity)) return false;
        sv->pairs.count += collide_bodies(s, sv, sv->body_pairs.data[k], sv->body_pairs.data[k + 1], old, old_count, dt, sv->pairs.data + sv->pairs.count);
    }
    return true;
}

// Body pairs on several threads: each pair writes its own block of a scratch array, and the
// blocks are appended in pair order afterwards: the same sv->pairs as the serial loop.
static bool narrowphase_parallel(tc_rigid_store* s, tc_solver* sv, const tc_pair_manifold* old, int old_count, tc_real dt, int threads) {
    int pairs = sv->body_pairs.count / 2;
    size_t offsets_size = ((size_t)pairs + 1) * sizeof(int), counts_size = (size_t)(pairs ? pairs : 1) * sizeof(int);
    int *offset = tc_alloc(offsets_size), *count = tc_alloc(counts_size);
    tc_pair_manifold* block = NULL;
    size_t block_size = 0;
    if (offset && count) {
        offset[0] = 0;
        for (int p = 0; p < pairs; ++p) offset[p + 1] = offset[p] + pair_capacity(s, sv, 2 * p);
        block_size = (size_t)(offset[pairs] ? offset[pairs] : 1) * sizeof *block;
        block = tc_alloc(block_size);
    }
    if (!block || !tc_array_reserve(&sv->pairs, offset[pairs])) { // out of memory: one pair at a time
        tc_free(offset, offsets_size), tc_free(count, counts_size), tc_free(block, block_size);
        return narrowphase_serial(s, sv, old, old_count, dt);
    }
    TC_PARALLEL_FOR_BLOCKS(threads)
    for (int p = 0; p < pairs; ++p)
        count[p] = collide_bodies(s, sv, sv->body_pairs.data[2 * p], sv->body_pairs.data[2 * p + 1], old, old_count, dt, block + offset[p]);
    for (int p = 0; p < pairs; ++p) {
        memcpy(sv->pairs.data + sv->pairs.count, block + offset[p], (size_t)count[p] * sizeof *block);
        sv->pairs.count += count[p];
    }
    tc_free(offset, offsets_size), tc_free(count, counts_size), tc_free(block, block_size);
    return true;
}

static void wake_touched(tc_rigid_store* s, tc_solver* sv) {
    for (int p = 0; p < sv->pairs.count; ++p) {
        tc_rigid_body *A = &s->bodies.data[sv->pairs.data[p].body_a], *B = &s->bodies.data[sv->pairs.data[p].body_b];
        if (tc_rigid_is_dynamic(A) && !A->awake && tc_rigid_is_dynamic(B) && B->awake) tc_solver_wake_island(s, sv, sv->pairs.data[p].body_a);
        if (tc_rigid_is_dynamic(B) && !B->awake && tc_rigid_is_dynamic(A) && A->awake) tc_solver_wake_island(s, sv, sv->pairs.data[p].body_b);
    }
}

// Bodies are independent in the first loop (each updates its own box and inertia), body pairs
// in the narrowphase (narrowphase_parallel).
void tc_rigid_contacts_begin_step(tc_world* w, tc_rigid_store* s, tc_real dt) {
    int threads = tc_parallel_width(w->def.thread_count, s->bodies.count / 64); // a body is cheap: threads for 64 or more each
    TC_PARALLEL_FOR_BLOCKS(threads)
    for (int i = 0; i < s->bodies.count; ++i) {
        tc_rigid_body* b = &s->bodies.data[i];
        if (tc_rigid_is_dynamic(b) && !b->awake &&
            (tc_v3_len2(b->user_force) > 0 || tc_v3_len2(b->user_torque) > 0 || b->wake_next || tc_v3_len2(b->lag_force) > 0))
            b->awake = true, b->sleep_time = 0;
        b->wake_next = false;
        tc_rigid_update_derived(b);
    }
    tc_solver* sv = solver_of(s);
    if (!sv) {
        tc_world_out_of_memory(w, "rigid solver: out of memory creating it; no rigid contacts this step");
        return;
    }
    if (!broadphase(s, sv, dt)) tc_world_out_of_memory(w, "rigid broadphase: out of memory; some body pairs are not collided this step");
    tc_pair_manifold* old = sv->pairs.data;
    int old_count = sv->pairs.count, old_capacity = sv->pairs.capacity;
    sv->pairs.data = NULL, sv->pairs.count = sv->pairs.capacity = 0;
    int pair_threads = tc_parallel_width(w->def.thread_count, sv->body_pairs.count / 2 / 16); // threads for 16 pairs or more each
    bool all = pair_threads > 1 ? narrowphase_parallel(s, sv, old, old_count, dt, pair_threads) : narrowphase_serial(s, sv, old, old_count, dt);
    if (!all) tc_world_out_of_memory(w, "rigid narrowphase: out of memory for the contact manifolds; some pairs have none this step");
    tc_free(old, (size_t)old_capacity * sizeof *old);
    if (sv->pairs.count) qsort(sv->pairs.data, (size_t)sv->pairs.count, sizeof *sv->pairs.data, compare_keys);
    sv->cache_invalid = false;
    wake_touched(s, sv);
    tc_solver_prepare(w, s, sv, dt);
}

void tc_rigid_contacts_substep(tc_world* w, tc_rigid_store* s, tc_real h) {
    tc_solver* sv = solver_of(s);
    if (sv) tc_solver_substep(w, s, sv, h);
}

void tc_rigid_contacts_end_step(tc_world* w, tc_rigid_store* s, tc_real dt) {
    tc_solver* sv = solver_of(s);
    if (!sv) return;
    tc_solver_finish(w, s, sv, dt);
    tc_solver_update_sleep(w, s, sv, dt);
}

void tc_rigid_contacts_reactions(const tc_rigid_store* s, tc_real h, tc_vec3* force, tc_vec3* torque) {
    for (int i = 0; i < s->bodies.count; ++i) force[i] = torque[i] = tc_v3_zero();
    const tc_solver* sv = s->solver;
    if (!sv || !(h > 0)) return;
    for (int i = 0; i < sv->rows.count; ++i) {
        const tc_contact_row* r = &sv->rows.data[i];
        // the impulse on B (A takes the opposite), as apply_row applies it
        tc_vec3 P = tc_v3_scale(tc_v3_add(tc_v3_add(tc_v3_scale(r->n, r->ln), tc_v3_scale(r->t1, r->lt1)), tc_v3_scale(r->t2, r->lt2)), 1 / h);
        force[r->a] = tc_v3_sub(force[r->a], P);
        torque[r->a] = tc_v3_sub(torque[r->a], tc_v3_cross(r->ra, P));
        force[r->b] = tc_v3_add(force[r->b], P);
        torque[r->b] = tc_v3_add(torque[r->b], tc_v3_cross(r->rb, P));
    }
}

void tc_rigid_contacts_destroy(tc_rigid_store* s) {
    tc_solver* sv = s->solver;
    if (!sv) return;
    tc_array_free(&sv->pairs);
    tc_array_free(&sv->rows);
    tc_array_free(&sv->body_pairs);
    tc_array_free(&sv->pseudo);
    tc_array_free(&sv->delta);
    tc_array_free(&sv->vel);
    tc_array_free(&sv->reach);
    tc_array_free(&sv->island);
    tc_array_free(&sv->island_sleep);
    tc_free(sv, sizeof *sv);
    s->solver = NULL;
}

void tc_rigid_contacts_body_removed(tc_rigid_store* s, int index, int moved_from) {
    (void)index;
    (void)moved_from;
    tc_solver* sv = s->solver;
    if (!sv) return;
    // Store indices moved and the slot may be reused: forget this step's manifolds and let
    // everything that rested on the removed body fall.
    tc_array_clear(&sv->pairs);
    tc_array_clear(&sv->rows);
    tc_array_clear(&sv->island);
    sv->cache_invalid = true;
    for (int i = 0; i < s->bodies.count; ++i)
        if (tc_rigid_is_dynamic(&s->bodies.data[i])) s->bodies.data[i].awake = true, s->bodies.data[i].sleep_time = 0;
}

// ---- checkpoints: the manifolds carry the warm-start impulses --------------------------------

void tc_rigid_contacts_write_state(const tc_rigid_store* s, struct tc_state_writer* out) {
    const tc_solver* sv = s->solver;
    int count = sv ? sv->pairs.count : 0;
    tc_state_write_i64(out, count);
    if (count) tc_state_write(out, sv->pairs.data, (size_t)count * sizeof *sv->pairs.data);
    int islands = sv ? sv->island.count : 0;
    tc_state_write_i64(out, islands);
    if (islands) tc_state_write(out, sv->island.data, (size_t)islands * sizeof(int));
}

tc_result tc_rigid_contacts_read_state(tc_rigid_store* s, struct tc_state_reader* in, const char* file, tc_error* error) {
    int64_t count = tc_state_read_count(in, 0, 1 << 26);
    tc_solver* sv = solver_of(s);
    if (!sv || !tc_array_reserve(&sv->pairs, (int)count))
        return tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, file, "rigid.contacts", "out of memory");
    sv->pairs.count = (int)count;
    if (count) tc_state_read(in, sv->pairs.data, (size_t)count * sizeof *sv->pairs.data);
    int64_t islands = tc_state_read_count(in, 0, s->bodies.count);
    if (!tc_array_reserve(&sv->island, (int)islands)) return tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, file, "rigid.contacts", "out of memory");
    sv->island.count = (int)islands;
    if (islands) tc_state_read(in, sv->island.data, (size_t)islands * sizeof(int));
    for (int i = 0; i < sv->pairs.count && !in->failed; ++i) {
        const tc_pair_manifold* pm = &sv->pairs.data[i];
        if (pm->body_a < 0 || pm->body_a >= s->bodies.count || pm->body_b < 0 || pm->body_b >= s->bodies.count || pm->m.count < 0 ||
            pm->m.count > TC_MAX_MANIFOLD_POINTS)
            in->failed = true;
    }
    for (int i = 0; i < sv->island.count && !in->failed; ++i)
        if (sv->island.data[i] < 0 || sv->island.data[i] >= s->bodies.count) in->failed = true;
    sv->cache_invalid = false;
    if (in->failed) return tc_error_set(error, TC_RESULT_PARSE, file, "rigid.contacts", "truncated or corrupt contact state");
    return TC_RESULT_OK;
}
