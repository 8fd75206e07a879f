// Scene generators: patterns that create many named rigid bodies (pyramid, wall, grid,
// random_hulls). All deterministic: positions depend only on the parameters and the seed.
#include "io/scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

uint64_t tc_rng_next(tc_rng* rng) {
    // splitmix64: tiny, full-period, good enough for placing bodies.
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double tc_rng_uniform(tc_rng* rng) { return (double)(tc_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0); }

/// Parameters shared by all patterns.
typedef struct gen_common {
    const char* prefix;   ///< body names are prefix_<index>
    tc_vec3 origin;       ///< m
    tc_real density;      ///< kg/m^3
    tc_real friction;
    tc_real restitution;
    tc_real gap;          ///< m, space between neighbours
    int index;            ///< next body index
} gen_common;

static tc_result read_common(tc_scene_ctx* ctx, const cJSON* g, const char* path, const char* pattern, gen_common* c) {
    const tc_json* j = &ctx->json;
    c->prefix = pattern;
    c->origin = tc_v3_zero();
    c->density = 1000;
    c->friction = 0.6;
    c->restitution = 0;
    c->gap = 0;
    c->index = 0;
    tc_result r = tc_json_string(j, g, path, "name", false, &c->prefix);
    if (!r) r = tc_json_vec3(j, g, path, "origin", false, &c->origin);
    if (!r) r = tc_json_real(j, g, path, "density", false, TC_JSON_POSITIVE, &c->density);
    if (!r) r = tc_json_real(j, g, path, "friction", false, TC_JSON_NON_NEGATIVE, &c->friction);
    if (!r) r = tc_json_real(j, g, path, "restitution", false, TC_JSON_UNIT, &c->restitution);
    if (!r) r = tc_json_real(j, g, path, "gap", false, TC_JSON_NON_NEGATIVE, &c->gap);
    return r;
}

static tc_result read_half_extents(tc_scene_ctx* ctx, const cJSON* g, const char* path, tc_vec3* h) {
    *h = tc_v3(0.5, 0.5, 0.5);
    tc_result r = tc_json_vec3(&ctx->json, g, path, "half_extents", false, h);
    if (!r && !(h->x > 0 && h->y > 0 && h->z > 0))
        r = tc_json_fail(&ctx->json, TC_RESULT_OUT_OF_RANGE, path, "half_extents", "must be positive (got [%g, %g, %g])",
                         h->x, h->y, h->z);
    return r;
}

/// Creates one rigid body of one shape at p; its name is prefix_<index>.
static tc_result add_body(tc_scene_ctx* ctx, gen_common* c, const char* path, tc_shape_def shape, tc_vec3 p) {
    char name[160];
    snprintf(name, sizeof name, "%s_%d", c->prefix, c->index++);
    tc_result r = tc_scene_check_unique_name(ctx, name, path);
    if (r) return r;
    shape.density = c->density;
    tc_rigid_body_def def = tc_rigid_body_def_default();
    def.base.name = name;
    def.base.pose.p = p;
    def.base.material.friction = c->friction;
    def.base.material.restitution = c->restitution;
    def.shapes = &shape;
    def.shape_count = 1;
    tc_body_id id;
    tc_error e;
    r = tc_rigid_body_create(ctx->world, &def, &id, &e);
    if (r) return tc_json_fail(&ctx->json, r, path, NULL, "cannot create body \"%s\": %s", name, e.message);
    return TC_RESULT_OK;
}

static tc_shape_def box_shape(tc_vec3 h) {
    tc_shape_def s = tc_shape_def_default(TC_SHAPE_BOX);
    s.half_extents = h;
    return s;
}

/// A pyramid of boxes in the x-z plane: `base` boxes on the bottom row, one fewer per row.
static tc_result gen_pyramid(tc_scene_ctx* ctx, const cJSON* g, const char* path) {
    static const char* const f[] = {"pattern", "name", "origin", "density", "friction", "restitution", "gap",
                                    "base", "half_extents", NULL};
    gen_common c;
    tc_vec3 h;
    int base = 10;
    tc_result r = tc_json_check_object(&ctx->json, g, path, f);
    if (!r) r = read_common(ctx, g, path, "pyramid", &c);
    if (!r) r = read_half_extents(ctx, g, path, &h);
    if (!r) r = tc_json_int(&ctx->json, g, path, "base", false, 1, 200, &base);
    tc_real dx = 2 * h.x + c.gap;
    for (int row = 0; row < base && !r; ++row) {
        int n = base - row;
        for (int i = 0; i < n && !r; ++i) {
            tc_real x = (i - 0.5 * (n - 1)) * dx;
            tc_real z = h.z + row * 2 * h.z;
            r = add_body(ctx, &c, path, box_shape(h), tc_v3_add(c.origin, tc_v3(x, 0, z)));
        }
    }
    return r;
}

/// A brick wall in the x-z plane; odd rows shifted by half a brick when staggered.
static tc_result gen_wall(tc_scene_ctx* ctx, const cJSON* g, const char* path) {
    static const char* const f[] = {"pattern", "name", "origin", "density", "friction", "restitution", "gap",
                                    "rows", "columns", "half_extents", "staggered", NULL};
    gen_common c;
    tc_vec3 h;
    int rows = 5, cols = 5;
    bool staggered = true;
    tc_result r = tc_json_check_object(&ctx->json, g, path, f);
    if (!r) r = read_common(ctx, g, path, "wall", &c);
    if (!r) r = read_half_extents(ctx, g, path, &h);
    if (!r) r = tc_json_int(&ctx->json, g, path, "rows", false, 1, 500, &rows);
    if (!r) r = tc_json_int(&ctx->json, g, path, "columns", false, 1, 500, &cols);
    if (!r) r = tc_json_bool(&ctx->json, g, path, "staggered", false, &staggered);
    tc_real dx = 2 * h.x + c.gap;
    for (int row = 0; row < rows && !r; ++row) {
        tc_real z = h.z + row * 2 * h.z;
        bool odd = staggered && (row & 1) && cols > 1;
        // running bond: odd courses sit over the joints below, with half bricks closing the ends
        // so that no brick overhangs the course beneath it
        tc_vec3 half = tc_v3(0.5 * h.x - 0.25 * c.gap, h.y, h.z);
        tc_real end = 0.5 * cols * dx - 0.5 * c.gap - half.x;
        if (odd) r = add_body(ctx, &c, path, box_shape(half), tc_v3_add(c.origin, tc_v3(-end, 0, z)));
        int n = odd ? cols - 1 : cols;
        for (int i = 0; i < n && !r; ++i)
            r = add_body(ctx, &c, path, box_shape(h), tc_v3_add(c.origin, tc_v3((i - 0.5 * (n - 1)) * dx, 0, z)));
        if (odd && !r) r = add_body(ctx, &c, path, box_shape(half), tc_v3_add(c.origin, tc_v3(end, 0, z)));
    }
    return r;
}

/// Most bodies one grid generator may create (about 1 kB each).
#define TC_GRID_MAX_BODIES 1000000

/// A 3-D grid of boxes or spheres, spaced by `spacing`, starting at origin.
static tc_result gen_grid(tc_scene_ctx* ctx, const cJSON* g, const char* path) {
    static const char* const f[] = {"pattern", "name", "origin", "density", "friction", "restitution", "gap",
                                    "count", "spacing", "shape", "half_extents", "radius", NULL};
    static const char* const shapes[] = {"box", "sphere", NULL};
    gen_common c;
    tc_vec3 h, count = tc_v3(3, 3, 3), spacing = tc_v3(1.5, 1.5, 1.5);
    tc_real radius = 0.5;
    int shape = 0;
    const tc_json* j = &ctx->json;
    tc_result r = tc_json_check_object(j, g, path, f);
    if (!r) r = read_common(ctx, g, path, "grid", &c);
    if (!r) r = read_half_extents(ctx, g, path, &h);
    if (!r) r = tc_json_real(j, g, path, "radius", false, TC_JSON_POSITIVE, &radius);
    if (!r) r = tc_json_enum(j, g, path, "shape", false, shapes, &shape);
    if (!r) r = tc_json_vec3(j, g, path, "count", false, &count);
    if (!r) r = tc_json_vec3(j, g, path, "spacing", false, &spacing);
    if (r) return r;
    int n[3];
    for (int a = 0; a < 3; ++a) {
        tc_real v = tc_v3_get(count, a); // range first: casting 1e84 to int is undefined
        if (!(v >= 1 && v <= 1000) || v != floor(v))
            return tc_json_fail(j, TC_RESULT_OUT_OF_RANGE, path, "count", "must hold 3 integers in [1, 1000]");
        n[a] = (int)v;
    }
    double total = (double)n[0] * n[1] * n[2]; // 1000^3 rigid bodies would need ~1 TB
    if (total > TC_GRID_MAX_BODIES)
        return tc_json_fail(j, TC_RESULT_OUT_OF_RANGE, path, "count", "would create %.0f bodies (limit %d)", total,
                            TC_GRID_MAX_BODIES);
    tc_shape_def s = box_shape(h);
    if (shape == 1) {
        s = tc_shape_def_default(TC_SHAPE_SPHERE);
        s.radius = radius;
    }
    for (int k = 0; k < n[2] && !r; ++k)
        for (int jy = 0; jy < n[1] && !r; ++jy)
            for (int i = 0; i < n[0] && !r; ++i)
                r = add_body(ctx, &c, path, s, tc_v3_add(c.origin, tc_v3(i * spacing.x, jy * spacing.y, k * spacing.z)));
    return r;
}

/// Centres drawn at random in a box, kept 2 * radius apart (rejection with a cell grid) so
/// the rocks start without overlaps; after 64 failed draws a rock takes the last one.
typedef struct spaced_sampler {
    tc_vec3 extent;
    tc_real spacing;
    int dims[3];
    int* head;          ///< per cell: first centre index, -1 if none
    int* next;          ///< per centre: next in its cell
    tc_vec3* centers;
    int count, capacity, cells;
} spaced_sampler;

static void sampler_init(spaced_sampler* s, tc_vec3 extent, tc_real spacing, int capacity) {
    memset(s, 0, sizeof *s);
    s->extent = extent;
    s->spacing = spacing;
    double cells = 1;
    for (int k = 0; k < 3; ++k) {
        s->dims[k] = (int)fmin(1e6, fmax(1, ceil(tc_v3_get(extent, k) / spacing)));
        cells *= s->dims[k];
    }
    if (cells > 1e7) return; // too fine a grid: no spacing check
    s->cells = (int)cells;
    s->capacity = capacity;
    s->head = tc_alloc((size_t)s->cells * sizeof(int));
    s->next = tc_alloc((size_t)capacity * sizeof(int));
    s->centers = tc_alloc((size_t)capacity * sizeof(tc_vec3));
    if (!s->head || !s->next || !s->centers) s->cells = 0;
    else memset(s->head, 0xff, (size_t)s->cells * sizeof(int));
}

static int cell_coord(const spaced_sampler* s, tc_vec3 p, int k) {
    tc_real c = floor(tc_v3_get(p, k) / s->spacing); // clamped before the cast (no int overflow)
    return c >= 1 ? (c < s->dims[k] ? (int)c : s->dims[k] - 1) : 0;
}

static bool too_close(const spaced_sampler* s, tc_vec3 p) {
    int c[3] = {cell_coord(s, p, 0), cell_coord(s, p, 1), cell_coord(s, p, 2)};
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                int x = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
                if (x < 0 || y < 0 || z < 0 || x >= s->dims[0] || y >= s->dims[1] || z >= s->dims[2]) continue;
                for (int i = s->head[(z * s->dims[1] + y) * s->dims[0] + x]; i >= 0; i = s->next[i])
                    if (tc_v3_dist(s->centers[i], p) < s->spacing) return true;
            }
    return false;
}

static tc_vec3 sampler_draw(spaced_sampler* s, tc_rng* rng) {
    tc_vec3 p = tc_v3_zero();
    for (int attempt = 0; attempt < 64; ++attempt) {
        // drawn z, y, x in sequence (unsequenced arguments differed between compilers; gcc's order kept)
        tc_real uz = tc_rng_uniform(rng), uy = tc_rng_uniform(rng), ux = tc_rng_uniform(rng);
        p = tc_v3(s->extent.x * ux, s->extent.y * uy, s->extent.z * uz);
        if (!s->cells || !too_close(s, p)) break;
    }
    if (s->cells && s->count < s->capacity) {
        int cell = (cell_coord(s, p, 2) * s->dims[1] + cell_coord(s, p, 1)) * s->dims[0] + cell_coord(s, p, 0);
        s->centers[s->count] = p;
        s->next[s->count] = s->head[cell];
        s->head[cell] = s->count++;
    }
    return p;
}

static void sampler_free(spaced_sampler* s) {
    tc_free(s->head, (size_t)s->cells * sizeof(int));
    tc_free(s->next, (size_t)s->capacity * sizeof(int));
    tc_free(s->centers, (size_t)s->capacity * sizeof(tc_vec3));
}

/// `count` convex hulls of `points` random points each, at non-overlapping places in a box.
static tc_result gen_random_hulls(tc_scene_ctx* ctx, const cJSON* g, const char* path) {
    static const char* const f[] = {"pattern", "name", "origin", "density", "friction", "restitution", "gap",
                                    "count", "points", "seed", "radius", "extent", NULL};
    gen_common c;
    int count = 10, npts = 16, seed = 1;
    tc_real radius = 0.5;
    tc_vec3 extent = tc_v3(5, 5, 5);
    const tc_json* j = &ctx->json;
    tc_result r = tc_json_check_object(j, g, path, f);
    if (!r) r = read_common(ctx, g, path, "hull", &c);
    if (!r) r = tc_json_int(j, g, path, "count", false, 1, 100000, &count);
    if (!r) r = tc_json_int(j, g, path, "points", false, 4, 1000, &npts);
    if (!r) r = tc_json_int(j, g, path, "seed", false, 0, 2147483647, &seed);
    if (!r) r = tc_json_real(j, g, path, "radius", false, TC_JSON_POSITIVE, &radius);
    if (!r) r = tc_json_vec3(j, g, path, "extent", false, &extent);
    if (!r && (extent.x < 0 || extent.y < 0 || extent.z < 0))
        r = tc_json_fail(j, TC_RESULT_OUT_OF_RANGE, path, "extent", "every component must be >= 0");
    if (r) return r;
    tc_rng rng = {(uint64_t)seed * 0x2545F4914F6CDD1Dull + 1};
    tc_vec3* pts = tc_alloc((size_t)npts * sizeof *pts);
    spaced_sampler sampler;
    sampler_init(&sampler, extent, 2 * radius, count);
    for (int b = 0; b < count && !r; ++b) {
        for (int i = 0; i < npts; ++i) {
            // Uniform direction, radius in [0.5, 1] * radius: a roughly round rock.
            tc_real u = 2 * tc_rng_uniform(&rng) - 1, phi = 6.283185307179586 * tc_rng_uniform(&rng);
            tc_real s = sqrt(fmax(0.0, 1 - u * u)), rr = radius * (0.5 + 0.5 * tc_rng_uniform(&rng));
            pts[i] = tc_v3(rr * s * cos(phi), rr * s * sin(phi), rr * u);
        }
        tc_vec3 p = sampler_draw(&sampler, &rng);
        tc_shape_def s = tc_shape_def_default(TC_SHAPE_HULL);
        s.points = pts;
        s.point_count = npts;
        r = add_body(ctx, &c, path, s, tc_v3_add(c.origin, p));
    }
    sampler_free(&sampler);
    tc_free(pts, (size_t)npts * sizeof *pts);
    return r;
}

typedef tc_result gen_fn(tc_scene_ctx* ctx, const cJSON* g, const char* path);

static const struct {
    const char* pattern;
    gen_fn* fn;
} generators[] = {
    {"pyramid", gen_pyramid},
    {"wall", gen_wall},
    {"grid", gen_grid},
    {"random_hulls", gen_random_hulls},
};

tc_result tc_scene_run_generator(tc_scene_ctx* ctx, const cJSON* gen, const char* path) {
    static const char* const names[] = {"pyramid", "wall", "grid", "random_hulls", NULL};
    if (!cJSON_IsObject(gen))
        return tc_json_fail(&ctx->json, TC_RESULT_WRONG_TYPE, path, NULL, "expected an object, got %s",
                            tc_json_type_name(gen));
    int which = 0;
    tc_result r = tc_json_enum(&ctx->json, gen, path, "pattern", true, names, &which);
    if (r) return r;
    return generators[which].fn(ctx, gen, path);
}
