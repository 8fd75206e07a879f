// Tet contact benchmark (seed 001), side by side with Bullet's classic soft bodies: two tet
// boxes collide head-on; Tactus (corotational FEM, spatial hash, consistent penetration depth)
// and Bullet (btSoftBody links + vertex-face soft-soft contacts) step the SAME mesh (Tactus'
// box generator, exported as TetGen .node/.ele text for btSoftBodyHelpers::CreateFromTetGenData)
// at 1/60 s per step. Tactus' collide hook is timed through the linker (--wrap, see
// bench/CMakeLists.txt), so the library is measured unchanged. Contact quality is measured the
// same way for both engines from the vertex positions: the deepest vertex inside the other box
// (distance to its boundary), inverted tets, and whether the boxes come apart.
// usage: tet_peers_bench [--quick | --cubes n] [--threads N]
//                        [--sweep [--reduced | --bullet sub:piter:viter:kvc,... | --bullet none] [--tactus sub] [--tolerance t,...] [--out prefix]]
//   n: boxes of (n+1) x n x n cubes; --sweep: every engine at several settings (Tactus 1-4
//   sub-steps, Bullet sub-steps x iterations x volume conservation), written to
//   <prefix>_<tets>.csv, and per Tactus row the cheapest Bullet row of equal or better quality
//   (<prefix>_<tets>_match.csv); bench/tet_sweep.gp plots the first. --threads N: Tactus' world
//   gets N threads (world.threads; its two bodies integrate in parallel) and the Tactus rows
//   report wall-clock ms/step too (the thread CPU time counts the main thread only).
#define _POSIX_C_SOURCE 200809L
#include "peers/soft_peers.h"

#include "dynamics/tet/tet.h"
#include "geometry/trimesh.h"
#include "tactus/tactus.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// CPU time of this thread: both engines run single-threaded by default, and the build machine is
// shared (wall time would count other people's jobs).
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// Wall-clock time: the only meaningful figure once Tactus runs on several threads (take the
// minimum of several runs on a shared machine).
static double wall_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int s_threads = 1;       ///< --threads N: Tactus' world.threads
static bool s_report_wall;      ///< --threads given: Tactus' wall-clock ms/step too (to compare thread counts)

// ---- timing of the tet collide hook: every reference to tc_tet_collide (the kind table in
// tet_ops.c) is redirected here by -Wl,--wrap=tc_tet_collide
void __real_tc_tet_collide(tc_world* w, tc_real h);
void __wrap_tc_tet_collide(tc_world* w, tc_real h);
static double s_collide_seconds;
static double s_probe_seconds; ///< the time of the check below, taken off the step's time
static double s_probe_wall;    ///< the same in wall-clock time
static bool s_touched;         ///< some sub-step of the current step had a pushing contact

// A vertex with a pushing contact has a nonzero contact term (the kind's force pass zeroes them
// before every sub-step's collide): this sees contacts in any sub-step, where the world's contact
// list holds the last sub-step's only.
static bool any_contact_term(const tc_world* w) {
    const tc_tet_store* s = tc_tet_store_of(w);
    for (int i = 0; i < s->bodies.count; ++i)
        for (int p = 0; p < s->bodies.data[i].n; ++p)
            if (s->bodies.data[i].contact_jac[p].m[0][0] + s->bodies.data[i].contact_jac[p].m[1][1] + s->bodies.data[i].contact_jac[p].m[2][2] > 0)
                return true;
    return false;
}

void __wrap_tc_tet_collide(tc_world* w, tc_real h) {
    double t0 = now();
    __real_tc_tet_collide(w, h);
    double t1 = now();
    s_collide_seconds += t1 - t0;
    double wall1 = wall_now();
    if (!s_touched) s_touched = any_contact_term(w);
    s_probe_seconds += now() - t1;
    s_probe_wall += wall_now() - wall1;
}

// ---- the shared mesh

typedef struct box_mesh {
    int n, tet_count, face_count, edge_count;
    double* rest;  ///< 3 per vertex, body frame
    int* tets;     ///< 4 per tet
    int* faces;    ///< 3 per boundary triangle
    int* edges;    ///< 2 per unique edge
} box_mesh;

typedef struct scene {
    tc_vec3 half;
    int resolution, sub_steps, steps;
    double cell;          ///< m, lattice spacing
    double density, youngs_modulus, poisson_ratio, damping, friction;
    tc_vec3 offset[2], velocity[2];
    box_mesh mesh;
} scene;

static void* copy_of(const void* src, size_t bytes) {
    void* p = malloc(bytes);
    if (p) memcpy(p, src, bytes);
    return p;
}

static tc_tet_body_def box_def(const scene* s) {
    tc_tet_body_def d = tc_tet_body_def_default();
    d.shape = TC_TET_BOX;
    d.half_extents = s->half;
    d.resolution = s->resolution;
    d.density = s->density;
    d.youngs_modulus = s->youngs_modulus;
    d.poisson_ratio = s->poisson_ratio;
    d.damping = s->damping;
    d.base.material.friction = s->friction;
    return d;
}

// Tactus' own box generator, read back through the internal store (rest shape, tets, faces).
static bool make_mesh(scene* s) {
    tc_world_def wd = tc_world_def_default();
    tc_world* w = tc_world_create(&wd, NULL);
    tc_tet_body_def d = box_def(s);
    tc_body_id id;
    if (!w || tc_tet_body_create(w, &d, &id, NULL) != TC_RESULT_OK) return false;
    const tc_tet_body* b = tc_tet_body_at(w, tc_world_resolve(w, id)->index);
    box_mesh* m = &s->mesh;
    m->n = b->n, m->tet_count = b->tet_count, m->face_count = b->face_count, m->edge_count = b->edge_count;
    m->rest = malloc((size_t)m->n * 3 * sizeof(double));
    for (int i = 0; m->rest && i < m->n; ++i) m->rest[3 * i] = b->rest[i].x, m->rest[3 * i + 1] = b->rest[i].y, m->rest[3 * i + 2] = b->rest[i].z;
    m->tets = copy_of(b->tets, (size_t)m->tet_count * 4 * sizeof(int));
    m->faces = copy_of(b->faces, (size_t)m->face_count * 3 * sizeof(int));
    m->edges = copy_of(b->edges, (size_t)m->edge_count * 2 * sizeof(int));
    tc_world_destroy(w);
    return m->rest && m->tets && m->faces && m->edges;
}

static void free_mesh(box_mesh* m) {
    free(m->rest), free(m->tets), free(m->faces), free(m->edges);
    memset(m, 0, sizeof *m);
}

// TetGen text (0-based indices; every line ends in '\n', which Bullet's line reader needs).
static char* tetgen_node(const box_mesh* m, double scale) {
    size_t cap = 32 + (size_t)m->n * 96, len = 0;
    char* t = malloc(cap);
    if (!t) return NULL;
    len += (size_t)snprintf(t + len, cap - len, "%d 3 0 0\n", m->n);
    for (int i = 0; i < m->n; ++i)
        len += (size_t)snprintf(t + len, cap - len, "%d %.9g %.9g %.9g\n", i, scale * m->rest[3 * i], scale * m->rest[3 * i + 1], scale * m->rest[3 * i + 2]);
    return t;
}

static char* tetgen_ele(const box_mesh* m) {
    size_t cap = 32 + (size_t)m->tet_count * 64, len = 0;
    char* t = malloc(cap);
    if (!t) return NULL;
    len += (size_t)snprintf(t + len, cap - len, "%d 4 0\n", m->tet_count);
    for (int k = 0; k < m->tet_count; ++k) {
        const int* q = m->tets + 4 * k;
        len += (size_t)snprintf(t + len, cap - len, "%d %d %d %d %d\n", k, q[0], q[1], q[2], q[3]);
    }
    return t;
}

// ---- contact quality, engine-independent: from vertex positions only

static tc_vec3 vertex(const double* x, int i) { return tc_v3(x[3 * i], x[3 * i + 1], x[3 * i + 2]); }

static double tet_volume6(const box_mesh* m, const double* x, int t) {
    const int* q = m->tets + 4 * t;
    tc_vec3 a = vertex(x, q[0]);
    return tc_v3_dot(tc_v3_sub(vertex(x, q[1]), a), tc_v3_cross(tc_v3_sub(vertex(x, q[2]), a), tc_v3_sub(vertex(x, q[3]), a)));
}

static int inverted_tets(const box_mesh* m, const double* x) {
    int count = 0;
    for (int t = 0; t < m->tet_count; ++t) count += tet_volume6(m, x, t) <= 0;
    return count;
}

// Uniform grid over the tets of one deformed box (counting sort by cell): point-in-body queries.
typedef struct tet_grid {
    tc_vec3 lo;
    double cell;
    int dims[3];
    int *start, *items;
} tet_grid;

static void grid_range(const tet_grid* g, tc_vec3 p, int c[3]) {
    double q[3] = {p.x - g->lo.x, p.y - g->lo.y, p.z - g->lo.z};
    for (int k = 0; k < 3; ++k) {
        int v = (int)floor(q[k] / g->cell);
        c[k] = v < 0 ? 0 : v >= g->dims[k] ? g->dims[k] - 1 : v;
    }
}

static tc_aabb tet_box(const box_mesh* m, const double* x, int t) {
    tc_aabb b = tc_aabb_empty();
    for (int k = 0; k < 4; ++k) b = tc_aabb_add_point(b, vertex(x, m->tets[4 * t + k]));
    return b;
}

// Visits the grid cells of tet t: counts them (fill = false) or files t in them.
static void grid_visit(tet_grid* g, const box_mesh* m, const double* x, int t, bool fill) {
    tc_aabb b = tet_box(m, x, t);
    int lo[3], hi[3];
    grid_range(g, b.lo, lo);
    grid_range(g, b.hi, hi);
    for (int k = lo[2]; k <= hi[2]; ++k)
        for (int j = lo[1]; j <= hi[1]; ++j)
            for (int i = lo[0]; i <= hi[0]; ++i) {
                int c = (k * g->dims[1] + j) * g->dims[0] + i;
                if (fill) g->items[--g->start[c]] = t;
                else g->start[c]++;
            }
}

static bool grid_build(tet_grid* g, const box_mesh* m, const double* x, double cell) {
    tc_aabb box = tc_aabb_empty();
    for (int i = 0; i < m->n; ++i) box = tc_aabb_add_point(box, vertex(x, i));
    tc_vec3 size = tc_v3_sub(box.hi, box.lo);
    g->lo = box.lo;
    g->cell = fmax(cell, fmax(size.x, fmax(size.y, size.z)) / 128); // a blown-up body: coarser
    int cells = 1;
    for (int k = 0; k < 3; ++k) g->dims[k] = (int)((&size.x)[k] / g->cell) + 1, cells *= g->dims[k];
    g->start = calloc((size_t)cells + 1, sizeof(int));
    if (!g->start) return false;
    for (int t = 0; t < m->tet_count; ++t) grid_visit(g, m, x, t, false);
    for (int c = 1; c <= cells; ++c) g->start[c] += g->start[c - 1];
    g->items = malloc((size_t)g->start[cells] * sizeof(int) + 1);
    if (!g->items) return false;
    for (int t = m->tet_count - 1; t >= 0; --t) grid_visit(g, m, x, t, true);
    return true;
}

static bool in_tet(const box_mesh* m, const double* x, int t, tc_vec3 p) {
    const int* q = m->tets + 4 * t;
    tc_vec3 a = vertex(x, q[0]);
    tc_mat3 D = tc_mat3_from_cols(tc_v3_sub(vertex(x, q[1]), a), tc_v3_sub(vertex(x, q[2]), a), tc_v3_sub(vertex(x, q[3]), a));
    if (fabs(tc_mat3_det(D)) < 1e-24) return false;
    tc_vec3 l = tc_mat3_mul_v3(tc_mat3_inverse(D), tc_v3_sub(p, a));
    return l.x >= 0 && l.y >= 0 && l.z >= 0 && l.x + l.y + l.z <= 1;
}

static bool grid_inside(const tet_grid* g, const box_mesh* m, const double* x, tc_vec3 p) {
    tc_vec3 rel = tc_v3_sub(p, g->lo);
    if (rel.x < 0 || rel.y < 0 || rel.z < 0 || rel.x > g->dims[0] * g->cell || rel.y > g->dims[1] * g->cell || rel.z > g->dims[2] * g->cell)
        return false;
    int c[3];
    grid_range(g, p, c);
    int cell = (c[2] * g->dims[1] + c[1]) * g->dims[0] + c[0];
    for (int k = g->start[cell]; k < g->start[cell + 1]; ++k)
        if (in_tet(m, x, g->items[k], p)) return true;
    return false;
}

static double surface_distance(const box_mesh* m, const double* x, tc_vec3 p) {
    double best = 1e300;
    for (int f = 0; f < m->face_count; ++f) {
        const int* v = m->faces + 3 * f;
        best = fmin(best, tc_v3_len2(tc_v3_sub(p, tc_closest_point_triangle(p, vertex(x, v[0]), vertex(x, v[1]), vertex(x, v[2])))));
    }
    return sqrt(best);
}

// Vertices of the box at xa inside the box at xb: their count and the deepest one's distance
// to xb's boundary (m).
static int penetration(const box_mesh* m, const double* xa, const double* xb, double cell, double* depth) {
    tet_grid g = {0};
    int count = 0;
    if (grid_build(&g, m, xb, cell))
        for (int i = 0; i < m->n; ++i) {
            tc_vec3 p = vertex(xa, i);
            if (!grid_inside(&g, m, xb, p)) continue;
            count++;
            *depth = fmax(*depth, surface_distance(m, xb, p));
        }
    free(g.start);
    free(g.items);
    return count;
}

// ---- one engine's run

typedef struct run_result {
    int steps, contact_steps;
    double seconds, contact_seconds;   ///< CPU time of all steps / of the steps with contacts
    double wall, contact_wall;         ///< wall-clock time of the same (Tactus only)
    bool threaded;                     ///< Tactus on several threads: the sweep compares its wall time
    double points;                     ///< sum of the engine's colliding vertices over contact steps
    double pairs;                      ///< Bullet: sum of node-face contacts over contact steps
    double collide_contact, collide_free; ///< Tactus collide hook: s over contact / contact-free steps
    double max_depth;                  ///< m
    int max_inside, max_inverted, final_inside;
    double final_closing_speed;        ///< m/s, > 0: the boxes still approach
    uint64_t state_hash;               ///< Tactus: tc_world_hash at the end (bit-identity checks across builds)
    double cg_contact, cg_free;        ///< Tactus: CG iterations of each step's last sub-step (mean of the bodies), summed over contact / free steps
} run_result;

typedef struct positions {
    double *a, *b;
    double prev_gap;
} positions;

static double mean_x(const double* x, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += x[3 * i];
    return s / n;
}

// contact: the engine had contacts in some sub-step of this step (points: in its last one).
static void record(run_result* r, const scene* s, positions* p, double dt, bool contact, int points, double collide) {
    r->steps++;
    r->seconds += dt;
    if (contact) r->contact_steps++, r->contact_seconds += dt, r->points += points, r->collide_contact += collide;
    else r->collide_free += collide;
    const box_mesh* m = &s->mesh;
    int inside = penetration(m, p->a, p->b, s->cell, &r->max_depth) + penetration(m, p->b, p->a, s->cell, &r->max_depth);
    int inverted = inverted_tets(m, p->a) + inverted_tets(m, p->b);
    r->max_inside = inside > r->max_inside ? inside : r->max_inside;
    r->max_inverted = inverted > r->max_inverted ? inverted : r->max_inverted;
    r->final_inside = inside;
    double gap = mean_x(p->b, m->n) - mean_x(p->a, m->n);
    r->final_closing_speed = (p->prev_gap - gap) * 60; // one step is 1/60 s
    p->prev_gap = gap;
}

static double initial_gap(const scene* s) { return s->offset[1].x - s->offset[0].x; }

static run_result run_tactus(const scene* s, int sub_steps, double tolerance) {
    run_result r = {0};
    tc_world_def wd = tc_world_def_default();
    wd.gravity = tc_v3_zero();
    wd.sub_steps = sub_steps;
    wd.enable_sleep = false;
    wd.thread_count = s_threads;
    tc_world* w = tc_world_create(&wd, NULL);
    tc_body_id ids[2];
    for (int k = 0; k < 2 && w; ++k) {
        tc_tet_body_def d = box_def(s);
        d.solver_tolerance = tolerance;
        d.base.pose.p = s->offset[k];
        d.base.linear_velocity = s->velocity[k];
        if (tc_tet_body_create(w, &d, &ids[k], NULL) != TC_RESULT_OK) return r;
    }
    int n = s->mesh.n;
    tc_vec3* x = malloc((size_t)n * sizeof *x);
    positions p = {malloc((size_t)n * 3 * sizeof(double)), malloc((size_t)n * 3 * sizeof(double)), initial_gap(s)};
    for (int step = 0; step < s->steps && x && p.a && p.b; ++step) {
        s_collide_seconds = s_probe_seconds = s_probe_wall = 0;
        s_touched = false;
        double wall0 = wall_now(), t0 = now();
        tc_world_step(w, NULL);
        double dt = now() - t0 - s_probe_seconds, wall = wall_now() - wall0 - s_probe_wall;
        int points = 0;
        tc_world_get_contacts(w, &points);
        for (int k = 0; k < 2; ++k) {
            tc_tet_body_get_vertices(w, ids[k], x, NULL, n);
            double* dst = k ? p.b : p.a;
            for (int i = 0; i < n; ++i) dst[3 * i] = x[i].x, dst[3 * i + 1] = x[i].y, dst[3 * i + 2] = x[i].z;
        }
        bool contact = s_touched || points > 0;
        record(&r, s, &p, dt, contact, points, s_collide_seconds);
        r.wall += wall;
        if (contact) r.contact_wall += wall;
        double iterations = 0;
        for (int k = 0; k < 2; ++k) iterations += 0.5 * tc_tet_body_at(w, tc_world_resolve(w, ids[k])->index)->solver.iterations;
        *(contact ? &r.cg_contact : &r.cg_free) += iterations;
    }
    r.threaded = s_threads > 1;
    r.state_hash = tc_world_hash(w);
    free(x), free(p.a), free(p.b);
    tc_world_destroy(w);
    return r;
}

// Bullet's scene is built 10 times larger (lengths and speeds; positions are scaled back for
// the quality figures): its float vertex-face test skips every triangle whose |cross|^2 is
// below FLT_EPSILON, i.e. lattice edges under ~1.9 cm at 1:1, which loses every contact of the
// 100,000-tet boxes. Links, contacts and the mass-ratio contact split are scale-free.
enum { BULLET_SCALE = 10 };

// Bullet's knobs that the sweep varies (the material stays kLST = 1, the margin and friction fixed).
typedef struct bullet_setting {
    int sub_steps, piterations, viterations;
    double kvc; ///< volume conservation, 0: off
} bullet_setting;

static run_result run_bullet(const scene* s, bullet_setting set) {
    run_result r = {0};
    double k_len = BULLET_SCALE;
    char *node = tetgen_node(&s->mesh, k_len), *ele = tetgen_ele(&s->mesh);
    double mass = s->density * 8 * s->half.x * s->half.y * s->half.z * k_len * k_len * k_len;
    soft_peer_body bodies[2];
    for (int k = 0; k < 2; ++k)
        bodies[k] = (soft_peer_body){node, ele, s->mesh.edges, s->mesh.edge_count,
                                     {k_len * s->offset[k].x, k_len * s->offset[k].y, k_len * s->offset[k].z},
                                     {k_len * s->velocity[k].x, k_len * s->velocity[k].y, k_len * s->velocity[k].z}, mass};
    soft_peer_scene sc = {.bodies = bodies,
                          .body_count = 2,
                          .time_step = 1.0 / 60,
                          .sub_steps = set.sub_steps,
                          .piterations = set.piterations,
                          .viterations = set.viterations,
                          .kvc = set.kvc,
                          .margin = 0.25 * s->cell * k_len,
                          .friction = s->friction};
    soft_peer* peer = node && ele ? soft_peer_create(&sc) : NULL;
    int n = s->mesh.n;
    positions p = {malloc((size_t)n * 3 * sizeof(double)), malloc((size_t)n * 3 * sizeof(double)), initial_gap(s)};
    for (int step = 0; step < s->steps && peer && p.a && p.b; ++step) {
        double t0 = now();
        soft_peer_step(peer);
        double dt = now() - t0;
        soft_peer_positions(peer, 0, p.a);
        soft_peer_positions(peer, 1, p.b);
        for (int i = 0; i < 3 * n; ++i) p.a[i] /= k_len, p.b[i] /= k_len;
        int pairs = 0, points = soft_peer_contact_count(peer, &pairs);
        record(&r, s, &p, dt, soft_peer_step_had_contacts(peer) || points > 0, points, 0);
        if (points > 0) r.pairs += pairs;
    }
    if (peer) soft_peer_destroy(peer);
    free(node), free(ele), free(p.a), free(p.b);
    return r;
}

// ---- the table

static void print_header(void) {
    printf("%-7s %-12s %4s %10s %10s %10s %8s %10s %10s %10s %9s %7s %7s %5s %7s\n", "tets", "engine", "sub", "ms/step", "ms/step",
           "s/sim s", "points", "collide", "collide", "us/point", "max pen", "inside", "invert", "apart", "ratio");
    printf("%-7s %-12s %4s %10s %10s %10s %8s %10s %10s %10s %9s %7s %7s %5s %7s\n", "", "", "", "contact", "all", "", "/step",
           "ms/step", "ms/step", "/sub-step", "mm", "max", "max", "", "");
    printf("%-7s %-12s %4s %10s %10s %10s %8s %10s %10s %10s %9s %7s %7s %5s %7s\n", "", "", "", "", "", "", "", "contact", "no contact",
           "", "", "", "", "", "");
}

static double per_step(double seconds, int steps) { return steps > 0 ? 1e3 * seconds / steps : 0; }

static void print_row(const scene* s, const char* engine, int sub_steps, const run_result* r, const run_result* tactus, bool timed_collide) {
    double ms_contact = per_step(r->contact_seconds, r->contact_steps), ms_all = per_step(r->seconds, r->steps);
    double points = r->contact_steps ? r->points / r->contact_steps : 0;
    double ratio = ms_contact / fmax(per_step(tactus->contact_seconds, tactus->contact_steps), 1e-12);
    bool apart = r->final_inside == 0 && r->final_closing_speed < 0;
    printf("%-7d %-12s %4d %10.2f %10.2f %10.3f %8.0f ", 2 * s->mesh.tet_count, engine, sub_steps, ms_contact, ms_all, ms_all * 60 / 1e3, points);
    if (timed_collide) {
        double collide = per_step(r->collide_contact, r->contact_steps);
        double us_point = points > 0 ? 1e3 * collide / sub_steps / points : 0;
        printf("%10.3f %10.3f %10.2f ", collide, per_step(r->collide_free, r->steps - r->contact_steps), us_point);
    } else {
        printf("%10s %10s %10s ", "-", "-", "-");
    }
    printf("%9.2f %7d %7d %5s %7.2f\n", 1e3 * r->max_depth, r->max_inside, r->max_inverted, apart ? "yes" : "no", ratio);
}

// On several threads the main thread's CPU time misses the workers' share: the wall clock then
// (also on one thread when --threads was given, to compare like with like).
static void print_wall(const run_result* r, int sub_steps) {
    if (!s_report_wall && s_threads <= 1) return;
    printf("        (tactus at %d sub-steps on %d thread%s: wall ms/step %.2f over contact steps, %.2f over all%s)\n", sub_steps, s_threads,
           s_threads > 1 ? "s" : "", per_step(r->contact_wall, r->contact_steps), per_step(r->wall, r->steps),
           s_threads > 1 ? "; its CPU columns count the main thread only" : "");
}

// Two boxes of (n+1) x n x n lattice cubes (6 tets each), 2 cm apart, 2 m/s each, head-on,
// the second offset sideways so the lattices do not line up.
static bool make_scene(scene* s, int n, int steps) {
    double hx = 0.15;
    *s = (scene){0};
    s->half = tc_v3(hx, hx * n / (n + 1), hx * n / (n + 1));
    s->resolution = n + 1;
    s->cell = 2 * hx / (n + 1);
    s->sub_steps = 4;
    s->steps = steps;
    s->density = 1000, s->youngs_modulus = 2e5, s->poisson_ratio = 0.3, s->damping = 0.01, s->friction = 0.5;
    double gap = 0.02;
    s->offset[0] = tc_v3(-(hx + gap / 2), 0, 0);
    s->offset[1] = tc_v3(hx + gap / 2, 0.1 * hx, 0.05 * hx);
    s->velocity[0] = tc_v3(2, 0, 0);
    s->velocity[1] = tc_v3(-2, 0, 0);
    return make_mesh(s);
}

static void bench_size(int n, int steps) {
    scene s;
    if (!make_scene(&s, n, steps)) {
        fprintf(stderr, "tet_peers_bench: could not build the %d-cube box\n", n);
        return;
    }
    int piterations = 4;
    run_result t = run_tactus(&s, s.sub_steps, 1e-8), t1 = run_tactus(&s, 1, 1e-8);
    run_result b1 = run_bullet(&s, (bullet_setting){1, piterations, 0, 0});
    run_result bs = run_bullet(&s, (bullet_setting){s.sub_steps, piterations, 0, 0});
    print_row(&s, "tactus", s.sub_steps, &t, &t, true);
    print_row(&s, "bullet_sub", s.sub_steps, &bs, &t, false);
    print_row(&s, "tactus_1", 1, &t1, &t1, true);
    print_row(&s, "bullet", 1, &b1, &t1, false);
    printf("        (bullet node-face contacts per contact step: %.0f with 1 sub-step, %.0f with %d)\n", b1.contact_steps ? b1.pairs / b1.contact_steps : 0,
           bs.contact_steps ? bs.pairs / bs.contact_steps : 0, s.sub_steps);
    print_wall(&t, s.sub_steps);
    print_wall(&t1, 1);
    fflush(stdout);
    free_mesh(&s.mesh);
}

// ---- the quality sweep (--sweep): every engine at several settings, and for each Tactus row the
// cheapest Bullet row whose contact quality is equal or better on every metric

typedef struct sweep_row {
    bool tactus;
    bullet_setting set; ///< Tactus: sub_steps only
    double tolerance;   ///< Tactus: the bodies' solver_tolerance (Bullet: 0)
    run_result r;
} sweep_row;

// Thread CPU time, except for Tactus on several threads, whose main thread's CPU time misses the
// workers' share: its wall-clock time then (on a quiet machine a single thread's wall time is its
// CPU time plus a little; measure there).
static double ms_contact(const run_result* r) { return per_step(r->threaded ? r->contact_wall : r->contact_seconds, r->contact_steps); }
static double ms_all(const run_result* r) { return per_step(r->threaded ? r->wall : r->seconds, r->steps); }
static bool came_apart(const run_result* r) { return r->final_inside == 0 && r->final_closing_speed < 0; }

// b's contact quality is equal to or better than t's on every metric: the deepest vertex, the
// vertices inside, the inverted tets (all maxima over the run) and, if t's boxes came apart, b's too.
static bool quality_at_least(const run_result* b, const run_result* t) {
    return b->max_depth <= t->max_depth && b->max_inside <= t->max_inside && b->max_inverted <= t->max_inverted && (came_apart(b) || !came_apart(t));
}

static const char* engine_name(const sweep_row* row) { return row->tactus ? "tactus" : "bullet"; }

static void print_sweep_row(int tets, const sweep_row* row) {
    const run_result* r = &row->r;
    printf("%-7d %-7s %4d %6d %6d %8.0f %6.0e %10.2f %10.2f %6d %9.2f %7d %7d %5s\n", tets, engine_name(row), row->set.sub_steps, row->set.piterations,
           row->set.viterations, row->set.kvc, row->tolerance, ms_contact(r), ms_all(r), r->contact_steps, 1e3 * r->max_depth, r->max_inside, r->max_inverted,
           came_apart(r) ? "yes" : "no");
    fflush(stdout);
}

static void write_sweep_csv(const char* path, int tets, const sweep_row* rows, int count) {
    FILE* f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tet_peers_bench: cannot write %s\n", path);
        return;
    }
    fprintf(f, "tets,engine,sub_steps,piterations,viterations,kvc,tolerance,ms_step_contact,ms_step_all,max_pen_mm,inside_max,inverted_max,apart,contact_steps,steps\n");
    for (int k = 0; k < count; ++k) {
        const sweep_row* row = rows + k;
        fprintf(f, "%d,%s,%d,%d,%d,%g,%g,%.4f,%.4f,%.4f,%d,%d,%d,%d,%d\n", tets, engine_name(row), row->set.sub_steps, row->set.piterations,
                row->set.viterations, row->set.kvc, row->tolerance, ms_contact(&row->r), ms_all(&row->r), 1e3 * row->r.max_depth, row->r.max_inside,
                row->r.max_inverted, came_apart(&row->r), row->r.contact_steps, row->r.steps);
    }
    fclose(f);
}

// The cheapest Bullet row of at least t's quality, or -1: by ms/step over its contact steps
// (by_contact) or over all steps.
static int cheapest_match(const sweep_row* rows, int count, const run_result* t, bool by_contact) {
    int best = -1;
    for (int k = 0; k < count; ++k) {
        if (rows[k].tactus || !quality_at_least(&rows[k].r, t)) continue;
        double cost = by_contact ? ms_contact(&rows[k].r) : ms_all(&rows[k].r);
        if (best < 0 || cost < (by_contact ? ms_contact(&rows[best].r) : ms_all(&rows[best].r))) best = k;
    }
    return best;
}

static void setting_name(const sweep_row* b, char* name, size_t size) {
    snprintf(name, size, "(%d, %d, %d, %g)", b->set.sub_steps, b->set.piterations, b->set.viterations, b->set.kvc);
}

// Per Tactus row, the cheapest Bullet row of equal or better quality by contact-step cost and by
// whole-run cost (they can differ: a setting with cheap free-flight steps but dear contact steps).
static void print_matches(const char* path, int tets, const sweep_row* rows, int count) {
    FILE* f = fopen(path, "w");
    if (f) fprintf(f, "tets,tactus_sub_steps,tactus_tolerance,tactus_ms_contact,tactus_ms_all,by,bullet_sub_steps,bullet_piterations,bullet_viterations,bullet_kvc,"
                      "bullet_ms_contact,bullet_ms_all,ratio_contact,ratio_all\n");
    printf("cheapest Bullet row of equal or better quality on every metric, by ms/step over contact steps and over all steps\n"
           "(ratio = Bullet ms/step / Tactus ms/step, > 1: Tactus is faster)\n");
    printf("%-7s %4s %6s %10s %10s   %-8s %-22s %10s %10s %8s %8s\n", "tets", "sub", "tol", "ms contact", "ms all", "by", "bullet (sub,it,vit,kVC)", "ms contact",
           "ms all", "ratio c", "ratio all");
    for (int k = 0; k < count; ++k) {
        if (!rows[k].tactus) continue;
        const run_result* t = &rows[k].r;
        for (int by = 0; by < 2; ++by) {
            const char* by_name = by == 0 ? "contact" : "all";
            int m = cheapest_match(rows, count, t, by == 0);
            printf("%-7d %4d %6.0e %10.2f %10.2f   %-8s ", tets, rows[k].set.sub_steps, rows[k].tolerance, ms_contact(t), ms_all(t), by_name);
            if (m < 0) {
                printf("%-22s\n", "none");
                if (f) fprintf(f, "%d,%d,%g,%.4f,%.4f,%s,,,,,,,,\n", tets, rows[k].set.sub_steps, rows[k].tolerance, ms_contact(t), ms_all(t), by_name);
                continue;
            }
            const sweep_row* b = rows + m;
            char name[64];
            setting_name(b, name, sizeof name);
            double rc = ms_contact(&b->r) / ms_contact(t), ra = ms_all(&b->r) / ms_all(t);
            printf("%-22s %10.2f %10.2f %8.2f %8.2f\n", name, ms_contact(&b->r), ms_all(&b->r), rc, ra);
            if (f)
                fprintf(f, "%d,%d,%g,%.4f,%.4f,%s,%d,%d,%d,%g,%.4f,%.4f,%.4f,%.4f\n", tets, rows[k].set.sub_steps, rows[k].tolerance, ms_contact(t), ms_all(t), by_name,
                        b->set.sub_steps, b->set.piterations, b->set.viterations, b->set.kvc, ms_contact(&b->r), ms_all(&b->r), rc, ra);
        }
    }
    if (f) fclose(f);
}

// Bullet's settings. The full grid: sub-steps 1-16 x position iterations 1-8 (and a few rows in
// between near the cheapest rows without inverted tets), volume conservation
// kVC at 4 position iterations (measured at 9,720 tets, 4 sub-steps: 1e2-1e4 change little, 1e5-1e6
// take the inverted tets from 663 to 387-224, 1e7 blows up), and one row with 8 velocity and drift
// iterations (Bullet's default Positions preset has empty sequences for both, so the velocity pass
// solves nothing and only re-integrates x = q + v h before the position iterations).
static const double k_sweep_kvc[] = {1e4, 1e5, 1e6};

enum { MAX_SWEEP_ROWS = 80, MAX_TOLERANCES = 4 };

// --bullet "sub:piter:viter:kvc,...": the Bullet rows given on the command line instead.
static int parse_bullet_rows(const char* text, bullet_setting* out) {
    int count = 0;
    for (const char* c = text; c && *c && count < MAX_SWEEP_ROWS - 4;) {
        bullet_setting b = {0};
        if (sscanf(c, "%d:%d:%d:%lf", &b.sub_steps, &b.piterations, &b.viterations, &b.kvc) != 4 || b.sub_steps < 1 || b.piterations < 0 ||
            b.viterations < 0 || b.kvc < 0)
            return -1;
        out[count++] = b;
        c = strchr(c, ',');
        if (c) c++;
    }
    return count;
}

static int bullet_grid(bullet_setting* out, bool reduced, const char* rows_text) {
    int count = 0;
    if (rows_text && strcmp(rows_text, "none") == 0) return 0; // Tactus rows only (timing runs)
    if (rows_text) return parse_bullet_rows(rows_text, out);
    if (reduced) { // 100,800 tets: around the rows that decided the 9,720-tet matches (no inverted tet)
        static const bullet_setting rows[] = {{4, 4, 0, 0},  {4, 8, 0, 0},  {8, 2, 0, 0},  {8, 4, 0, 0},  {8, 8, 0, 0},  {12, 4, 0, 0},
                                              {16, 2, 0, 0}, {16, 3, 0, 0}, {16, 4, 0, 0}, {16, 8, 0, 0}, {24, 2, 0, 0}, {32, 2, 0, 0}};
        for (size_t k = 0; k < sizeof rows / sizeof rows[0]; ++k) out[count++] = rows[k];
        return count;
    }
    static const int subs[] = {1, 2, 4, 8, 16}, piters[] = {1, 2, 4, 8};
    for (int a = 0; a < 5; ++a)
        for (int c = 0; c < 4; ++c) out[count++] = (bullet_setting){subs[a], piters[c], 0, 0};
    for (int a = 0; a < 5; ++a)
        for (size_t c = 0; c < sizeof k_sweep_kvc / sizeof k_sweep_kvc[0]; ++c) out[count++] = (bullet_setting){subs[a], 4, 0, k_sweep_kvc[c]};
    out[count++] = (bullet_setting){4, 4, 8, 0};
    static const bullet_setting between[] = {{6, 2, 0, 0}, {6, 4, 0, 0}, {12, 2, 0, 0}}; // near the cheapest clean rows
    for (size_t k = 0; k < sizeof between / sizeof between[0]; ++k) out[count++] = between[k];
    return count;
}

static int s_tactus_only = 0; ///< --tactus k: the sweep's Tactus rows at k sub-steps only (profiling)
static double s_tolerances[MAX_TOLERANCES] = {1e-8}; ///< --tolerance a,b,...: the Tactus rows' CG tolerances
static int s_tolerance_count = 1;

static bool parse_tolerances(const char* text) {
    s_tolerance_count = 0;
    for (const char* c = text; c && *c;) {
        double t;
        if (s_tolerance_count == MAX_TOLERANCES || sscanf(c, "%lf", &t) != 1 || !(t > 0 && t <= 0.1)) return false;
        s_tolerances[s_tolerance_count++] = t;
        c = strchr(c, ',');
        if (c) c++;
    }
    return s_tolerance_count > 0;
}

static void sweep_size(int n, int steps, bool reduced, const char* rows_text, const char* prefix) {
    scene s;
    if (!make_scene(&s, n, steps)) {
        fprintf(stderr, "tet_peers_bench: could not build the %d-cube box\n", n);
        return;
    }
    int tets = 2 * s.mesh.tet_count, count = 0;
    sweep_row rows[MAX_SWEEP_ROWS];
    bullet_setting grid[MAX_SWEEP_ROWS];
    int grid_count = bullet_grid(grid, reduced, rows_text);
    if (grid_count < 0) {
        fprintf(stderr, "tet_peers_bench: --bullet wants sub:piter:viter:kvc[,...]\n");
        free_mesh(&s.mesh);
        return;
    }
    printf("%-7s %-7s %4s %6s %6s %8s %6s %10s %10s %6s %9s %7s %7s %5s\n", "tets", "engine", "sub", "piter", "viter", "kVC", "tol", "ms/step", "ms/step",
           "steps", "max pen", "inside", "invert", "apart");
    printf("%-7s %-7s %4s %6s %6s %8s %6s %10s %10s %6s %9s %7s %7s %5s\n", "", "", "", "", "", "", "", "contact", "all", "contact", "mm", "max", "max", "");
    for (int sub = 1; sub <= 4; ++sub) {
        if (s_tactus_only > 0 && sub != s_tactus_only) continue;
        for (int k = 0; k < s_tolerance_count; ++k) {
            rows[count] = (sweep_row){true, {sub, 0, 0, 0}, s_tolerances[k], run_tactus(&s, sub, s_tolerances[k])};
            print_sweep_row(tets, &rows[count++]);
        }
    }
    for (int k = 0; k < grid_count && count < MAX_SWEEP_ROWS; ++k) {
        rows[count] = (sweep_row){false, grid[k], 0, run_bullet(&s, grid[k])};
        print_sweep_row(tets, &rows[count++]);
    }
    for (int k = 0; k < count; ++k) {
        const run_result* r = &rows[k].r;
        if (rows[k].tactus)
            printf("(tactus at %d sub-steps, tolerance %g: %d contact steps of %d, CG iterations per sub-step %.1f with contact, %.1f without (each step's last); "
                   "state hash %016llx after the run)\n",
                   rows[k].set.sub_steps, rows[k].tolerance, r->contact_steps, r->steps, r->contact_steps ? r->cg_contact / r->contact_steps : 0,
                   r->steps > r->contact_steps ? r->cg_free / (r->steps - r->contact_steps) : 0, (unsigned long long)r->state_hash);
        if (rows[k].tactus) print_wall(r, rows[k].set.sub_steps);
    }
    char path[512];
    snprintf(path, sizeof path, "%s_%d.csv", prefix, tets);
    write_sweep_csv(path, tets, rows, count);
    printf("(rows written to %s)\n", path);
    snprintf(path, sizeof path, "%s_%d_match.csv", prefix, tets);
    print_matches(path, tets, rows, count);
    fflush(stdout);
    free_mesh(&s.mesh);
}

static void usage(void) {
    fprintf(stderr, "usage: tet_peers_bench [--quick | --cubes n] [--threads N]\n"
                    "                       [--sweep [--reduced | --bullet sub:piter:viter:kvc,... | --bullet none] [--tactus sub] [--tolerance t,...] [--out prefix]]\n");
}

int main(int argc, char** argv) {
    bool quick = false, sweep = false, reduced = false;
    int cubes = 0; // 0: both sizes
    const char* prefix = "tet_sweep";
    const char* rows_text = NULL;
    for (int k = 1; k < argc; ++k) {
        if (strcmp(argv[k], "--quick") == 0) quick = true;
        else if (strcmp(argv[k], "--sweep") == 0) sweep = true;
        else if (strcmp(argv[k], "--reduced") == 0) reduced = true;
        else if (strcmp(argv[k], "--cubes") == 0 && k + 1 < argc) cubes = atoi(argv[++k]);
        else if (strcmp(argv[k], "--out") == 0 && k + 1 < argc) prefix = argv[++k];
        else if (strcmp(argv[k], "--bullet") == 0 && k + 1 < argc) rows_text = argv[++k];
        else if (strcmp(argv[k], "--tactus") == 0 && k + 1 < argc) s_tactus_only = atoi(argv[++k]);
        else if (strcmp(argv[k], "--threads") == 0 && k + 1 < argc) s_threads = atoi(argv[++k]), s_report_wall = true;
        else if (strcmp(argv[k], "--tolerance") == 0 && k + 1 < argc) {
            if (!parse_tolerances(argv[++k])) return usage(), 2;
        }
        else return usage(), 2;
    }
    if (cubes < 0 || cubes > 40 || s_threads < 1 || s_threads > 256) return usage(), 2;
    if (s_threads > 1) printf("Tactus runs on %d threads (world.threads); Bullet on one\n", s_threads);
    printf("Tactus tet contact benchmark: two boxes head-on at 2 m/s each, 1/60 s steps, no gravity, E = 200 kPa\n");
    if (sweep) { // 9,720 tets with the full Bullet grid, 100,800 with the reduced one
        if (cubes > 0) sweep_size(cubes, 40, reduced, rows_text, prefix);
        else if (quick) sweep_size(4, 20, reduced, rows_text, prefix);
        else sweep_size(9, 40, false, NULL, prefix), sweep_size(20, 40, true, NULL, prefix);
        printf("times are thread CPU time%s; quality maxima over the run; apart: no vertex inside at the end and the boxes separating\n", s_threads > 1 ? " (Tactus on several threads: wall-clock time)" : "");
        return 0;
    }
    print_header();
    if (quick) {
        bench_size(4, 20);
    } else if (cubes > 0) {
        bench_size(cubes, 40);
    } else {
        bench_size(9, 40);  // 2 x 4,860 tets
        bench_size(20, 40); // 2 x 50,400 tets
    }
    printf("ratio = engine ms/step / Tactus ms/step at the same sub-step count, over the steps with contacts (> 1: Tactus is faster)\n");
    printf("times are thread CPU time; points = distinct colliding vertices per contact step (Tactus: last sub-step)\n");
    return 0;
}
