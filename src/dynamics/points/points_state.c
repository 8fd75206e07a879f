// Checkpoints of point-based bodies: phyxel motion, plastic strain, the neighbour pairs still
// unbroken (fracture removes pairs without splitting), and the surfels as they were drawn and
// collided (they are not recomputed after a pair breaks, so they are state, not derived).
#include "dynamics/points/points.h"
#include "world/state_io.h"

// A body split off by fracture is not in the scene a checkpoint is rebuilt from.
tc_result tc_points_check_state(const tc_world* w, tc_error* error) {
    const tc_points_store* s = tc_points_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i)
        if (s->bodies.data[i]->mark != 0)
            return tc_error_set(error, TC_RESULT_UNSUPPORTED, NULL, "world",
                                "points body \"%s\" has split by fracture: a world whose bodies have split cannot be checkpointed yet",
                                tc_world_slot_name(w, s->bodies.data[i]->slot));
    return TC_RESULT_OK;
}

static void write_body(const tc_points_body* b, struct tc_state_writer* out) {
    int pairs = b->nb_start[b->np];
    tc_state_write_i64(out, b->np);
    tc_state_write_i64(out, b->ns);
    tc_state_write_i64(out, pairs);
    tc_state_write(out, b->x, (size_t)b->np * sizeof(tc_vec3));
    tc_state_write(out, b->v, (size_t)b->np * sizeof(tc_vec3));
    tc_state_write(out, b->grad_u, (size_t)b->np * sizeof(tc_mat3));
    tc_state_write(out, b->eps_p, (size_t)b->np * sizeof(tc_mat3));
    tc_state_write(out, b->nb_start, ((size_t)b->np + 1) * sizeof(int));
    tc_state_write(out, b->nb, (size_t)pairs * sizeof(int));
    tc_state_write(out, b->nb_len0, (size_t)pairs * sizeof(tc_real));
    tc_state_write(out, b->nb_d, (size_t)pairs * sizeof(tc_vec3));
    tc_state_write(out, b->dii, (size_t)b->np * sizeof(tc_vec3));
    tc_state_write(out, b->s, (size_t)b->ns * sizeof(tc_vec3));
    tc_state_write(out, b->n, (size_t)b->ns * sizeof(tc_vec3));
    tc_state_write(out, b->sv, (size_t)b->ns * sizeof(tc_vec3));
    tc_state_write(out, &b->aabb, sizeof b->aabb);
    tc_state_write_vec3(out, b->user_force);
    tc_state_write_i64(out, b->split_pending);
}

void tc_points_write_state(const tc_world* w, struct tc_state_writer* out) {
    const tc_points_store* s = tc_points_store_of(w);
    tc_state_write_i64(out, s->bodies.count);
    tc_state_write_i64(out, s->next_mark);
    for (int i = 0; i < s->bodies.count; ++i) write_body(s->bodies.data[i], out);
}

// The neighbour lists must be a valid CSR over this body: fracture only removes pairs, so the
// stored count cannot exceed the scene's, and every index must name a phyxel.
static bool valid_pairs(const tc_points_body* b, int pairs) {
    if (b->nb_start[0] != 0 || b->nb_start[b->np] != pairs) return false;
    for (int i = 0; i < b->np; ++i)
        if (b->nb_start[i + 1] < b->nb_start[i]) return false;
    for (int t = 0; t < pairs; ++t)
        if (b->nb[t] < 0 || b->nb[t] >= b->np) return false;
    return true;
}

static tc_result read_body(tc_points_body* b, struct tc_state_reader* in, const char* file, tc_error* e) {
    int64_t np = tc_state_read_i64(in), ns = tc_state_read_i64(in), pairs = tc_state_read_i64(in);
    if (in->failed || np != b->np || ns != b->ns || pairs < 0 || pairs > b->nb_count)
        return tc_error_set(e, TC_RESULT_PARSE, file, "points", "phyxel, surfel or pair counts differ from the scene");
    tc_state_read(in, b->x, (size_t)np * sizeof(tc_vec3));
    tc_state_read(in, b->v, (size_t)np * sizeof(tc_vec3));
    tc_state_read(in, b->grad_u, (size_t)np * sizeof(tc_mat3));
    tc_state_read(in, b->eps_p, (size_t)np * sizeof(tc_mat3));
    tc_state_read(in, b->nb_start, ((size_t)np + 1) * sizeof(int));
    tc_state_read(in, b->nb, (size_t)pairs * sizeof(int));
    tc_state_read(in, b->nb_len0, (size_t)pairs * sizeof(tc_real));
    tc_state_read(in, b->nb_d, (size_t)pairs * sizeof(tc_vec3));
    tc_state_read(in, b->dii, (size_t)np * sizeof(tc_vec3));
    tc_state_read(in, b->s, (size_t)ns * sizeof(tc_vec3));
    tc_state_read(in, b->n, (size_t)ns * sizeof(tc_vec3));
    tc_state_read(in, b->sv, (size_t)ns * sizeof(tc_vec3));
    tc_state_read(in, &b->aabb, sizeof b->aabb);
    b->user_force = tc_state_read_vec3(in);
    b->split_pending = tc_state_read_i64(in) != 0;
    if (in->failed || !valid_pairs(b, (int)pairs))
        return tc_error_set(e, TC_RESULT_PARSE, file, "points", "truncated or corrupt point-body state");
    tc_points_build_surface(b);
    b->operator_norm = tc_points_operator_norm(b);
    return TC_RESULT_OK;
}

tc_result tc_points_read_state(tc_world* w, struct tc_state_reader* in, const char* file, tc_error* error) {
    tc_points_store* s = tc_points_store_of(w);
    if (tc_state_read_i64(in) != s->bodies.count) return tc_error_set(error, TC_RESULT_PARSE, file, "points", "body count differs from the scene");
    int64_t mark = tc_state_read_i64(in);
    if (in->failed || mark < 0 || mark > UINT32_MAX) return tc_error_set(error, TC_RESULT_PARSE, file, "points", "truncated point state");
    s->next_mark = (uint32_t)mark;
    for (int i = 0; i < s->bodies.count; ++i) {
        tc_result r = read_body(s->bodies.data[i], in, file, error);
        if (r) return r;
    }
    return TC_RESULT_OK;
}
