// Sleeping: islands of dynamic bodies joined by contacts (union-find over this step's
// manifolds); an island whose every body stayed below the velocity thresholds for
// world_def.sleep_time falls asleep together and wakes together.
#include "solver/solver.h"

#define TC_SLEEP_LINEAR 0.05   // m/s (Box2D v3's b2_linearSleepTolerance)
#define TC_SLEEP_ANGULAR 0.035 // rad/s, 2 degrees per second

static int find_root(int* parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void unite(int* parent, int a, int b) {
    int ra = find_root(parent, a), rb = find_root(parent, b);
    if (ra == rb) return;
    if (ra < rb) parent[rb] = ra; // the smaller index is the root: deterministic
    else parent[ra] = rb;
}

static bool build_islands(tc_rigid_store* s, tc_solver* sv) {
    int n = s->bodies.count;
    if (!tc_array_reserve(&sv->island, n) || !tc_array_reserve(&sv->island_sleep, n)) return false;
    sv->island.count = sv->island_sleep.count = n;
    for (int i = 0; i < n; ++i) sv->island.data[i] = i;
    for (int p = 0; p < sv->pairs.count; ++p) {
        const tc_pair_manifold* pm = &sv->pairs.data[p];
        if (tc_rigid_is_dynamic(&s->bodies.data[pm->body_a]) && tc_rigid_is_dynamic(&s->bodies.data[pm->body_b]))
            unite(sv->island.data, pm->body_a, pm->body_b);
    }
    for (int i = 0; i < n; ++i) sv->island.data[i] = find_root(sv->island.data, i);
    return true;
}

void tc_solver_update_sleep(tc_world* w, tc_rigid_store* s, tc_solver* sv, tc_real dt) {
    if (!build_islands(s, sv)) {
        tc_world_out_of_memory(w, "rigid solver: out of memory for the islands; sleep not updated this step");
        return;
    }
    int n = s->bodies.count;
    for (int i = 0; i < n; ++i) sv->island_sleep.data[i] = 1e300;
    for (int i = 0; i < n; ++i) {
        tc_rigid_body* b = &s->bodies.data[i];
        if (!tc_rigid_is_dynamic(b) || !b->awake) continue;
        bool resting = tc_v3_len2(b->v) < TC_SLEEP_LINEAR * TC_SLEEP_LINEAR && tc_v3_len2(b->w) < TC_SLEEP_ANGULAR * TC_SLEEP_ANGULAR;
        b->sleep_time = resting && b->allow_sleep && w->def.enable_sleep ? b->sleep_time + dt : 0;
        int root = sv->island.data[i];
        if (b->sleep_time < sv->island_sleep.data[root]) sv->island_sleep.data[root] = b->sleep_time;
    }
    for (int i = 0; i < n; ++i) {
        tc_rigid_body* b = &s->bodies.data[i];
        if (!tc_rigid_is_dynamic(b) || !b->awake || sv->island_sleep.data[sv->island.data[i]] < w->def.sleep_time) continue;
        b->awake = false;
        b->v = tc_v3_zero();
        b->w = tc_v3_zero();
    }
}

void tc_solver_wake_island(tc_rigid_store* s, tc_solver* sv, int index) {
    int root = index < sv->island.count ? sv->island.data[index] : -1;
    for (int i = 0; i < s->bodies.count; ++i) {
        tc_rigid_body* b = &s->bodies.data[i];
        bool member = i == index || (root >= 0 && i < sv->island.count && sv->island.data[i] == root);
        if (member && tc_rigid_is_dynamic(b)) b->awake = true, b->sleep_time = 0;
    }
}
