// Uniform point grid and the MLS point-set surface (Alexa & Adamson form, seed 000 §4.1).
#include "contact/surfel_surface.h"
#include "math/eigen.h"

// Cell coordinate of a real offset, clamped to [0, n - 1]; NaN maps to 0 (no UB cast).
static int cell_of_real(tc_real v, int n) {
    if (!(v >= 0)) return 0;
    if (v >= n - 1) return n - 1;
    return (int)v;
}

// [lo, hi] grown to hold v; a NaN v changes neither (as with fmin/fmax).
static inline void widen(tc_real* lo, tc_real* hi, tc_real v) {
    if (v < *lo) *lo = v;
    if (v > *hi) *hi = v;
}

void tc_point_grid_layout(tc_point_grid* g, const tc_vec3* p, int count, tc_real cell) {
    tc_aabb box = tc_aabb_empty();
    for (int i = 0; i < count; ++i) { // (not tc_aabb_add_point: fmin/fmax are libm calls on the baseline target)
        widen(&box.lo.x, &box.hi.x, p[i].x);
        widen(&box.lo.y, &box.hi.y, p[i].y);
        widen(&box.lo.z, &box.hi.z, p[i].z);
    }
    if (count == 0) box.lo = box.hi = tc_v3_zero();
    tc_vec3 ext = tc_v3_sub(box.hi, box.lo);
    // A zero cell (e.g. from a mean spacing of coincident points) would never grow below: one
    // cell over the whole box instead.
    if (!(cell > 0)) cell = fmax(fmax(ext.x, ext.y), fmax(ext.z, 1e-300));
    // Keep the cell count proportional to the point count (bounded memory for sparse sets).
    for (;;) {
        double cells = 1;
        for (int k = 0; k < 3; ++k) cells *= floor(tc_v3_get(ext, k) / cell) + 1;
        if (!(cells > 4.0 * count + 64)) break; // also stops on a non-finite extent
        cell *= 1.5;
    }
    g->origin = box.lo;
    g->cell = cell;
    g->inv_cell = 1 / cell;
    g->cell_count = 1;
    for (int k = 0; k < 3; ++k) {
        tc_real n = floor(tc_v3_get(ext, k) / cell) + 1;
        g->dims[k] = n >= 1 && n < 1e6 ? (int)n : 1;
        g->cell_count *= g->dims[k];
    }
}

int tc_point_grid_cell_index(const tc_point_grid* g, tc_vec3 x) {
    int c[3];
    // cell_of_real(v) is cell_of_real(floor(v)): floor(v) >= 0 iff v >= 0, floor(v) >= n - 1 iff
    // v >= n - 1, and in between the cast truncates to the floor (no libm floor call).
    for (int k = 0; k < 3; ++k) c[k] = cell_of_real((tc_v3_get(x, k) - tc_v3_get(g->origin, k)) / g->cell, g->dims[k]);
    return (c[2] * g->dims[1] + c[1]) * g->dims[0] + c[0];
}

static _Thread_local bool s_out_of_memory;

void tc_surfel_note_out_of_memory(void) { s_out_of_memory = true; }

bool tc_surfel_take_out_of_memory(void) {
    bool was = s_out_of_memory;
    s_out_of_memory = false;
    return was;
}

// The cells of p[0..count) (tc_point_grid_cell_index of each) into cell_of, their counts into
// start[c + 1]. The AVX2 path divides a point's three offsets in one vdivpd: the same quotients
// (an IEEE division per lane), clamped and truncated as cell_of_real does; the scalar path's
// three divsd a point held the grid builds on the divider (~10 grids a hook call; all grid
// builds at 20 mm 0.52 -> 0.37 M instructions with the counting sort below; time not measured
// apart: ~1% of the hook by perf).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(TC_NO_VECTOR_CLONES) && !defined(TC_PLAIN_LANES)
#define GRID_AVX2 1
#include <immintrin.h>
__attribute__((target("avx2"))) static void grid_cells_avx2(const tc_point_grid* g, const tc_vec3* p, int count, int* cell_of, int* start) {
    __m256d o = _mm256_setr_pd(g->origin.x, g->origin.y, g->origin.z, 0), cell = _mm256_set1_pd(g->cell), zero = _mm256_setzero_pd();
    __m256d top = _mm256_setr_pd(g->dims[0] - 1, g->dims[1] - 1, g->dims[2] - 1, 0);
    int d0 = g->dims[0], d01 = g->dims[0] * g->dims[1];
    for (int i = 0; i < count; ++i) {
        __m256d x = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&p[i].x)), _mm_load_sd(&p[i].z), 1);
        __m256d v = _mm256_div_pd(_mm256_sub_pd(x, o), cell);
        // cell_of_real: NaN or negative 0, from n - 1 on n - 1, else the truncation
        __m256d c = _mm256_blendv_pd(_mm256_round_pd(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), top, _mm256_cmp_pd(v, top, _CMP_GE_OQ));
        c = _mm256_and_pd(c, _mm256_cmp_pd(v, zero, _CMP_GE_OQ));
        __m128i k = _mm256_cvttpd_epi32(c);
        int at = (_mm_extract_epi32(k, 2) * d01 + _mm_extract_epi32(k, 1) * d0) + _mm_extract_epi32(k, 0);
        cell_of[i] = at;
        start[at + 1]++;
    }
}
#endif

static void grid_cells(const tc_point_grid* g, const tc_vec3* p, int count, int* cell_of, int* start) {
#ifdef GRID_AVX2
    if (__builtin_cpu_supports("avx2")) {
        grid_cells_avx2(g, p, count, cell_of, start);
        return;
    }
#endif
    for (int i = 0; i < count; ++i) {
        cell_of[i] = tc_point_grid_cell_index(g, p[i]);
        start[cell_of[i] + 1]++;
    }
}

bool tc_point_grid_build(tc_point_grid* g, const tc_vec3* p, int count, tc_real cell) {
    tc_point_grid_free(g);
    tc_point_grid_layout(g, p, count, cell);
    g->item_count = count;
    g->start = tc_calloc((size_t)g->cell_count + 1, sizeof(int));
    g->items = tc_alloc((size_t)(count > 0 ? count : 1) * sizeof(int));
    int* cell_of = tc_alloc((size_t)(count > 0 ? count : 1) * sizeof(int));
    if (!g->start || !g->items || !cell_of) { // an empty grid (no start): every query finds nothing
        tc_free(cell_of, (size_t)(count > 0 ? count : 1) * sizeof(int));
        tc_point_grid_free(g);
        tc_surfel_note_out_of_memory();
        return false;
    }
    grid_cells(g, p, count, cell_of, g->start);
    // Counting sort without a copy of the starts: start[c + 1] first counts cell c, then (the
    // running sum of the cells before) is its fill position, which ends at cell c + 1's start.
    int* start = g->start;
    for (int c = 0, sum = 0; c < g->cell_count; ++c) {
        int n = start[c + 1];
        start[c + 1] = sum;
        sum += n;
    }
    for (int i = 0; i < count; ++i) g->items[start[cell_of[i] + 1]++] = i; // index order within a cell
    tc_free(cell_of, (size_t)(count > 0 ? count : 1) * sizeof(int));
    return true;
}

void tc_point_grid_free(tc_point_grid* g) {
    if (g->start) tc_free(g->start, ((size_t)g->cell_count + 1) * sizeof(int));
    if (g->items) tc_free(g->items, (size_t)(g->item_count > 0 ? g->item_count : 1) * sizeof(int));
    g->start = g->items = NULL;
    g->cell_count = g->item_count = 0;
}

int tc_point_grid_query(const tc_point_grid* g, const tc_vec3* p, tc_vec3 x, tc_real r, int** out, int* capacity) {
    int lo[3], hi[3], n = 0;
    if (!tc_point_grid_range(g, x, r, lo, hi)) return 0;
    tc_real r2 = r * r;
    // Row by row: the cells along x of a row are contiguous in items (the same points in the
    // same order as cell by cell, without the per-cell bookkeeping).
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * g->dims[1] + cy) * g->dims[0], begin = g->start[row + lo[0]], end = g->start[row + hi[0] + 1];
            if (n + (end - begin) > *capacity) { // room for the whole row: the append below is branch-free
                int nc = *capacity ? *capacity : 64;
                while (nc < n + (end - begin)) nc *= 2;
                int* grown = tc_realloc(*out, (size_t)*capacity * sizeof(int), (size_t)nc * sizeof(int));
                if (!grown) { // the points found so far
                    tc_surfel_note_out_of_memory();
                    return n;
                }
                *out = grown;
                *capacity = nc;
            }
            int* o = *out;
            for (int t = begin; t < end; ++t) {
                int i = g->items[t];
                o[n] = i;
                n += tc_v3_len2(tc_v3_sub(p[i], x)) <= r2;
            }
        }
    return n;
}

int tc_point_grid_nearest(const tc_point_grid* g, const tc_vec3* p, tc_vec3 x, tc_real max_r) {
    return tc_point_grid_nearest_from(g, p, x, 0.5 * g->cell, max_r);
}

// tc_point_grid_nearest_from on p[items[t]] or, when sorted is not NULL, on sorted[t] (the
// points copied in grid order: one stream, no indirection).
static inline int nearest_walk(const tc_point_grid* g, const tc_vec3* p, const tc_vec3* sorted, tc_vec3 x, tc_real r0, tc_real max_r) {
    if (!(r0 > 0)) r0 = 0.5 * g->cell;
    // (fmin without the libm call: r0 is a number here, a NaN max_r is ignored as by fmin)
    for (tc_real r = r0 < max_r || max_r != max_r ? r0 : max_r;; r = 2 * r < max_r || max_r != max_r ? 2 * r : max_r) {
        int lo[3], hi[3], best = -1;
        tc_real best_d2 = r * r;
        if (tc_point_grid_range(g, x, r, lo, hi)) {
            for (int cz = lo[2]; cz <= hi[2]; ++cz)
                for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                    int row = (cz * g->dims[1] + cy) * g->dims[0];
                    for (int t = g->start[row + lo[0]], end = g->start[row + hi[0] + 1]; t < end; ++t) {
                        tc_real d2 = tc_v3_len2(tc_v3_sub(sorted ? sorted[t] : p[g->items[t]], x));
                        if (d2 <= best_d2 && (d2 < best_d2 || (best >= 0 && g->items[t] < best))) { // (one test for the far ones)
                            best_d2 = d2;
                            best = g->items[t];
                        }
                    }
                }
        }
        if (best >= 0 || r >= max_r) return best;
    }
}

// Squared lower bounds on the distance along one axis to the points binned in the slabs
// lo..hi of cells w wide, from an offset of t cells from the grid's origin (a query point's):
// w max(c - t, t - c - 1, 0), the distance to slab c, less 1e-6 w (0 if negative), far beyond
// the rounding of t (relative ~1e-16, under 1e6 cells an axis) and that with which a point may
// sit outside its cell's slab. Branch-free (maxsd): the slab tests' branches mispredicted.
static inline void slab_table(tc_real t, tc_real w, int lo, int hi, tc_real* d2) {
    tc_real below = lo - t; // (c - t, stepped by 1: exact to ~1e-14 cell over the table's < 64 cells)
    for (int c = 0; c <= hi - lo; ++c, below += 1) {
        tc_real above = -1 - below, gap = below > above ? below : above, d = (gap - 1e-6) * w;
        d = d > 0 ? d : 0;
        d2[c] = d * d;
    }
}

// The cell at an offset of t cells clamped to [lo, hi] (the slab distances grow away from it;
// where t is within rounding of a cell's bound it may be the neighbour of the point's own cell).
static inline int near_cell(tc_real t, int lo, int hi) {
    tc_real c = t > lo ? t : lo;
    return c < hi ? (int)c : hi;
}

// The search state of nearest_clipped: the least squared distance so far and its point.
typedef struct near_best { tc_real d2; int i; } near_best;

// The points of grid positions [t, end) into *b (least distance, ties to the least index).
static inline void near_scan(const tc_point_grid* g, const tc_vec3* sorted, tc_vec3 x, int t, int end, near_best* b) {
    for (; t < end; ++t) {
        tc_real d2 = tc_v3_len2(tc_v3_sub(sorted[t], x));
        if (d2 <= b->d2 && (d2 < b->d2 || (b->i >= 0 && g->items[t] < b->i))) { // (one test for the far ones)
            b->d2 = d2;
            b->i = g->items[t];
        }
    }
}

// Plane cz of the ball's cells into *b, the ball's part of each row scanned whole: its rows
// from x's outwards (the nearest are found first and shrink the best distance), each side's up
// to the first whose squared slab distances, the plane's dz2 and the row's (dy2, indexed by
// row), pass the best so far.
static inline void near_plane(const tc_point_grid* g, const tc_vec3* sorted, tc_vec3 x, int cz, tc_real dz2, const tc_real* dy2, int cy0,
                              const int lo[3], const int hi[3], near_best* b) {
    const int* start = g->start + cz * g->dims[1] * g->dims[0];
    int nx = g->dims[0];
    for (int cy = cy0; cy <= hi[1]; ++cy) {
        if (dz2 + dy2[cy] > b->d2) {
            if (cy == cy0) continue; // (x may sit in the next cell within rounding: farther rows only from it on)
            break;
        }
        near_scan(g, sorted, x, start[cy * nx + lo[0]], start[cy * nx + hi[0] + 1], b);
    }
    for (int cy = cy0 - 1; cy >= lo[1] && !(dz2 + dy2[cy] > b->d2); --cy)
        near_scan(g, sorted, x, start[cy * nx + lo[0]], start[cy * nx + hi[0] + 1], b);
}

// The cells of nearest_clipped's ball: ranges, the squared slab distances of its rows (dy2)
// and planes (dz2), indexed by cell, and the row and plane of x (clamped to the ball's).
enum { NEAR_AXIS_CELLS = 64 };
typedef struct near_ball {
    int lo[3], hi[3], cy0, cz0;
    tc_real table[2][NEAR_AXIS_CELLS];
    const tc_real *dy2, *dz2;
} near_ball;

// Sets up *nb for the ball (x, r); false when it holds no cell or too many along an axis.
static bool near_ball_setup(const tc_point_grid* g, tc_vec3 x, tc_real r, near_ball* nb) {
    if (!tc_point_grid_range(g, x, r, nb->lo, nb->hi)) return false;
    if (nb->hi[1] - nb->lo[1] >= NEAR_AXIS_CELLS || nb->hi[2] - nb->lo[2] >= NEAR_AXIS_CELLS) return false;
    tc_real ty = (x.y - g->origin.y) * g->inv_cell, tz = (x.z - g->origin.z) * g->inv_cell;
    slab_table(ty, g->cell, nb->lo[1], nb->hi[1], nb->table[0]);
    slab_table(tz, g->cell, nb->lo[2], nb->hi[2], nb->table[1]);
    nb->dy2 = nb->table[0] - nb->lo[1];
    nb->dz2 = nb->table[1] - nb->lo[2];
    nb->cy0 = near_cell(ty, nb->lo[1], nb->hi[1]);
    nb->cz0 = near_cell(tz, nb->lo[2], nb->hi[2]);
    return true;
}

// nearest_walk on sorted points for one large ball (r0 = max_r), cut to the planes (z) and rows
// (y) of cells that can hold a point within the best distance found so far: from x's cell
// outwards, so that the nearest come first and shrink it early (the classification's balls
// through the previous candidate's nearest are ~1.35 times the distance), each side up to the
// first whose squared slab distances (lower bounds taken once per axis, no square root) pass
// it. Every point at most the best distance away is scanned, and the least distance with ties
// to the least index does not depend on the order of the scan. A row's cells are not trimmed
// to the best distance: on the bench the trimming loops' exits, mispredicted, took more time
// than the surfels they skip (20 mm: 0.88 -> 0.68 M ticks a hook call without them, though
// +0.06 M instructions; 40 mm faster too, +0.5 M instructions).
static int nearest_clipped(const tc_point_grid* g, const tc_vec3* sorted, tc_vec3 x, tc_real r) {
    near_ball nb;
    if (!near_ball_setup(g, x, r, &nb)) return tc_point_grid_range(g, x, r, nb.lo, nb.hi) ? nearest_walk(g, NULL, sorted, x, r, r) : -1;
    near_best b = {r * r, -1};
    for (int cz = nb.cz0; cz <= nb.hi[2]; ++cz) {
        if (nb.dz2[cz] > b.d2) {
            if (cz == nb.cz0) continue; // (as near_plane's rows)
            break;
        }
        near_plane(g, sorted, x, cz, nb.dz2[cz], nb.dy2, nb.cy0, nb.lo, nb.hi, &b);
    }
    for (int cz = nb.cz0 - 1; cz >= nb.lo[2] && !(nb.dz2[cz] > b.d2); --cz) near_plane(g, sorted, x, cz, nb.dz2[cz], nb.dy2, nb.cy0, nb.lo, nb.hi, &b);
    return b.i;
}

int tc_point_grid_nearest_from(const tc_point_grid* g, const tc_vec3* p, tc_vec3 x, tc_real r0, tc_real max_r) {
    // Grow the search ball ring by ring so the common case touches few cells; each row of
    // cells is one contiguous run of items. The first ball holding a point holds the nearest
    // one (and all at its distance): the answer does not depend on r0.
    return nearest_walk(g, p, NULL, x, r0, max_r);
}

int tc_point_grid_nearest_sorted(const tc_point_grid* g, const tc_vec3* sorted, tc_vec3 x, tc_real r0, tc_real max_r) {
    if (r0 >= max_r) return nearest_clipped(g, sorted, x, max_r); // one large ball: clip its rows
    return nearest_walk(g, NULL, sorted, x, r0, max_r);
}

bool tc_point_grid_any_within(const tc_point_grid* g, const tc_vec3* p, tc_vec3 x, tc_real r) {
    int lo[3], hi[3];
    tc_real r2 = r * r;
    if (!tc_point_grid_range(g, x, r, lo, hi)) return false;
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * g->dims[1] + cy) * g->dims[0];
            for (int t = g->start[row + lo[0]], end = g->start[row + hi[0] + 1]; t < end; ++t)
                if (tc_v3_len2(tc_v3_sub(p[g->items[t]], x)) < r2) return true;
        }
    return false;
}

static void tiles_clear(struct tc_surfel_tiles* c);
static void tiles_free(struct tc_surfel_tiles* c);

// The sorted copies.
static void free_copies(tc_surfel_surface* S) {
    if (S->cs) tc_free(S->cs, (size_t)S->sorted_count * sizeof(tc_vec3));
    if (S->rec) tc_free(S->rec, 6 * (size_t)S->sorted_count * sizeof(tc_real));
    if (S->soa) tc_free(S->soa, 6 * ((size_t)S->sorted_count + 4) * sizeof(tc_real));
    S->cs = NULL;
    S->rec = NULL;
    S->soa = NULL;
    S->sorted_count = 0;
}

// The grid and the sorted copies (not the tile cache, which a rebuild empties and keeps).
static void free_snapshot(tc_surfel_surface* S) {
    tc_point_grid_free(&S->grid);
    free_copies(S);
}

void tc_surfel_surface_free(tc_surfel_surface* S) {
    free_snapshot(S);
    tiles_free(S->tiles);
    S->tiles = NULL;
}

bool tc_surfel_surface_build(tc_surfel_surface* S, const tc_vec3* s, const tc_vec3* n, int count, tc_real h) {
    free_snapshot(S);
    tiles_clear(S->tiles);
    S->s = s;
    S->n = n;
    S->count = count;
    S->h = h;
    // Cells of 1.5h: cells of h scan fewer surfels but visit twice the rows (most of them
    // empty on a surface), more instructions in all (with the 2h cut-off too: cells of h,
    // 1.25h or 2h took 1.5-3 % more instructions in the bench).
    if (!tc_point_grid_build(&S->grid, s, count, 1.5 * h)) return false;
    // Copies in grid order: a gather reads a row of cells as one contiguous run (position and
    // normal side by side: one stream of cache lines; six arrays missed L1 a third more often).
    S->sorted_count = count > 0 ? count : 1;
    S->cs = tc_alloc((size_t)S->sorted_count * sizeof(tc_vec3));
    S->rec = tc_alloc(6 * (size_t)S->sorted_count * sizeof(tc_real));
    size_t stride = (size_t)S->sorted_count + 4; // (the tiles read whole groups of 4 past a row's end)
    S->soa = tc_calloc(6 * stride, sizeof(tc_real));
    if (!S->cs || !S->rec || !S->soa) { // none kept: a copy that exists is a filled one (the grid stays, on s)
        free_copies(S);
        return false;
    }
    for (int t = 0; t < count; ++t) {
        tc_vec3 st = s[S->grid.items[t]], nt = n[S->grid.items[t]];
        S->cs[t] = st;
        tc_real* c = S->rec + 6 * (size_t)t;
        c[0] = st.x, c[1] = st.y, c[2] = st.z, c[3] = nt.x, c[4] = nt.y, c[5] = nt.z;
        for (int k = 0; k < 6; ++k) S->soa[k * stride + (size_t)t] = c[k];
    }
    return true;
}

// exp(-k/8) for k = 0..73 (printed by Python's math.exp, correctly rounded).
static const tc_real exp_eighths[74] = {
    1.0, 0.8824969025845955, 0.7788007830714049, 0.6872892787909722, 0.6065306597126334, 0.5352614285189903,
    0.4723665527410147, 0.4168620196785084, 0.36787944117144233, 0.32465246735834974, 0.2865047968601901, 0.25283959580474646,
    0.22313016014842982, 0.19691167520419406, 0.17377394345044514, 0.15335496684492847, 0.1353352832366127, 0.11943296826671962,
    0.10539922456186433, 0.09301448921066349, 0.0820849986238988, 0.07243975703425146, 0.06392786120670757, 0.05641613950377735,
    0.049787068367863944, 0.04393693362340742, 0.03877420783172201, 0.03421811831166603, 0.0301973834223185, 0.026649097336355485,
    0.023517745856009107, 0.020754337873699742, 0.01831563888873418, 0.016163494588165874, 0.014264233908999256, 0.012588142242433998,
    0.011108996538242306, 0.009803655035821828, 0.008651695203120634, 0.007635094218859962, 0.006737946999085467, 0.005946217356472094,
    0.005247518399181385, 0.004630918733533246, 0.004086771438464067, 0.0036065631360157305, 0.003182780796509667, 0.0028087941945255128,
    0.0024787521766663585, 0.002187491118182885, 0.0019304541362277093, 0.001703619795802574, 0.0015034391929775724, 0.0013267804310269915,
    0.0011708796207911744, 0.001033297638647637, 0.0009118819655545162, 0.0008047330101246132, 0.000710174388842549, 0.0006267266984484576,
    0.0005530843701478336, 0.000488095243523415, 0.00043074254057568753, 0.0003801289578694637, 0.00033546262790251185, 0.0002960447300568554,
    0.00026125855730166754, 0.00023055986759244163, 0.00020346836901064417, 0.00017956020542583297, 0.00015846132511575126, 0.00013984162859410104,
    0.00012340980408667956, 0.00010890876985506645
};

// exp(-s) for 0 <= s <= 9 (the Gaussian weights within the 3h reach): exp(-k/8) from the
// table times the Taylor series of exp(-r), 0 <= r < 1/8, to degree 9 (truncation < 3e-16).
static inline tc_real exp_neg_inline(tc_real s) {
    int k = (int)(s * 8);
    tc_real r = s - k * 0.125, p = 1.0 / 362880;
    static const tc_real inv_fact[9] = {1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 1.0 / 2, 1.0, 1.0};
    for (int i = 0; i < 9; ++i) p = inv_fact[i] - r * p;
    return exp_eighths[k] * p;
}

tc_real tc_exp_neg(tc_real s) { return s >= 0 && s <= 9 ? exp_neg_inline(s) : exp(-s); }

enum { GATHER_MAX = 512, LANES = 4, GATHER_WIDEN = 8 }; // (8: the quadratic height fit's minimum)

// The surfels within r of x (at most GATHER_MAX, the first in grid order; 2h holds ~28
// surfels at h = 1.5 spacing) as offsets e = s - x, their normals and Gaussian weights, in
// arrays (one per component) padded with zeros to a multiple of LANES: the sums of the fit
// run LANES at a time (u, v, z: scratch of the height fit).
// The arrays are GATHER_STRIDE apart, 4.5 KiB: at 4 KiB (+ a little) the first entries of all
// ten would share the same few L1 cache sets (and evict each other there).
enum { GATHER_STRIDE = GATHER_MAX + 64 };
typedef struct gather {
    int count, padded;
    tc_real ex[GATHER_STRIDE], ey[GATHER_STRIDE], ez[GATHER_STRIDE];
    tc_real nx[GATHER_STRIDE], ny[GATHER_STRIDE], nz[GATHER_STRIDE];
    tc_real w[GATHER_STRIDE], u[GATHER_STRIDE], v[GATHER_STRIDE], z[GATHER_STRIDE];
} gather;

// Sums over the gathered surfels keep LANES partial sums, lane l taking the surfels q = l mod
// LANES in order, added up as (l0 + l1) + (l2 + l3): a fixed order, so the results are bitwise
// the same whether the lanes run as AVX2, SSE2 or scalar code (the build has -ffp-contract=off:
// separate multiplies and adds, no fused multiply-add). `lanes` is a GNU C vector (the compiler
// picks the instructions of each clone, TC_VECTOR_CLONES) or, elsewhere (or built with
// -DTC_PLAIN_LANES, to check that path), a plain array.
#if defined(__GNUC__) && !defined(TC_PLAIN_LANES)
// The helpers below are always inlined (even at -O0: a Debug build called them out of line and
// the AVX2 clone passed vectors in registers to baseline-ABI code that read them from memory,
// a crash): no vector crosses a call, so the note that the AVX calling convention differs from
// the baseline one does not apply.
#include "core/psabi.h"
#define LV_INLINE static inline __attribute__((always_inline))
typedef tc_real lanes __attribute__((vector_size(LANES * sizeof(tc_real))));
LV_INLINE lanes lv_add(lanes a, lanes b) { return a + b; }
LV_INLINE lanes lv_sub(lanes a, lanes b) { return a - b; }
LV_INLINE lanes lv_mul(lanes a, lanes b) { return a * b; }
LV_INLINE lanes lv_splat(tc_real v) { return (lanes){v, v, v, v}; }
#else
#define LV_INLINE static inline
typedef struct lanes { tc_real l[LANES]; } lanes;
LV_INLINE lanes lv_add(lanes a, lanes b) { for (int i = 0; i < LANES; ++i) a.l[i] += b.l[i]; return a; }
LV_INLINE lanes lv_sub(lanes a, lanes b) { for (int i = 0; i < LANES; ++i) a.l[i] -= b.l[i]; return a; }
LV_INLINE lanes lv_mul(lanes a, lanes b) { for (int i = 0; i < LANES; ++i) a.l[i] *= b.l[i]; return a; }
LV_INLINE lanes lv_splat(tc_real v) { return (lanes){{v, v, v, v}}; }
#endif
LV_INLINE lanes lv_load(const tc_real* p) { lanes v; memcpy(&v, p, sizeof v); return v; }
LV_INLINE void lv_store(tc_real* p, lanes v) { memcpy(p, &v, sizeof v); }
LV_INLINE tc_real lv_total(lanes a) {
    tc_real l[LANES];
    memcpy(l, &a, sizeof l);
    return (l[0] + l[1]) + (l[2] + l[3]);
}
// acc += a * b
LV_INLINE lanes lv_madd(lanes acc, lanes a, lanes b) { return lv_add(acc, lv_mul(a, b)); }
// The totals of four accumulators at once, each (l0 + l1) + (l2 + l3) as lv_total: the lanes
// transposed by shuffles (10 instructions for the four; ~6 each one by one).
LV_INLINE void lv_total4(lanes a, lanes b, lanes c, lanes d, tc_real out[4]) {
#if defined(__GNUC__) && !defined(TC_PLAIN_LANES) && (defined(__clang__) || __GNUC__ >= 12)
    lanes ab = __builtin_shufflevector(a, b, 0, 4, 2, 6) + __builtin_shufflevector(a, b, 1, 5, 3, 7); // a0+a1 b0+b1 a2+a3 b2+b3
    lanes cd = __builtin_shufflevector(c, d, 0, 4, 2, 6) + __builtin_shufflevector(c, d, 1, 5, 3, 7);
    lv_store(out, __builtin_shufflevector(ab, cd, 0, 1, 4, 5) + __builtin_shufflevector(ab, cd, 2, 3, 6, 7));
#else
    out[0] = lv_total(a), out[1] = lv_total(b), out[2] = lv_total(c), out[3] = lv_total(d);
#endif
}

// Zero offsets, normals and weights after the last surfel up to the next multiple of LANES:
// they add exact zeros to every sum.
// (A fixed LANES entries are zeroed, inline stores; the arrays have room past GATHER_MAX.)
static void gather_pad(gather* g) {
    int n = g->count;
    g->padded = (n + LANES - 1) / LANES * LANES;
    for (int l = 0; l < LANES; ++l) g->ex[n + l] = g->ey[n + l] = g->ez[n + l] = g->nx[n + l] = g->ny[n + l] = g->nz[n + l] = 0;
}

// exp(-s) of LANES values at once, 0 <= s <= 9: exp_neg_inline lane by lane (the same
// operations in the same order: the same bits).
// (The series' coefficients as vector constants: gcc splatted scalar ones anew in every
// iteration of the weights loop, two instructions each.)
#if defined(__GNUC__) && !defined(TC_PLAIN_LANES)
#define LV_CONST(v) {v, v, v, v}
#else
#define LV_CONST(v) {{v, v, v, v}}
#endif
static const lanes exp_series[10] = {LV_CONST(1.0 / 362880), LV_CONST(1.0 / 40320), LV_CONST(1.0 / 5040), LV_CONST(1.0 / 720),
                                     LV_CONST(1.0 / 120),    LV_CONST(1.0 / 24),    LV_CONST(1.0 / 6),    LV_CONST(1.0 / 2),
                                     LV_CONST(1.0),          LV_CONST(1.0)};
LV_INLINE lanes exp_neg_lanes(lanes s) {
    tc_real sl[LANES], t[LANES];
    lv_store(sl, s);
    int k[LANES];
    for (int l = 0; l < LANES; ++l) k[l] = (int)(sl[l] * 8), t[l] = k[l] * 0.125;
    lanes r = lv_sub(s, lv_load(t)), p = exp_series[0];
    for (int i = 0; i < 9; ++i) p = lv_sub(exp_series[i + 1], lv_mul(r, p));
    for (int l = 0; l < LANES; ++l) t[l] = exp_eighths[k[l]];
    return lv_mul(lv_load(t), p);
}

// The Gaussian weights of the gathered surfels (zero on the padding).
TC_VECTOR_CLONES static void gather_weights_soa(gather* g, tc_real inv_h2) {
    lanes scale = lv_splat(inv_h2);
    for (int q = 0; q < g->padded; q += LANES) {
        lanes x = lv_load(g->ex + q), y = lv_load(g->ey + q), z = lv_load(g->ez + q);
        lanes d2 = lv_add(lv_add(lv_mul(x, x), lv_mul(y, y)), lv_mul(z, z));
        lv_store(g->w + q, exp_neg_lanes(lv_mul(d2, scale)));
    }
    for (int l = 0; l < LANES; ++l) g->w[g->count + l] = 0;
}

// Distance from v to the interval [a, a + w] (0 inside).
static tc_real interval_dist(tc_real v, tc_real a, tc_real w) { return v < a ? a - v : (v > a + w ? v - a - w : 0); }

// Walks the grid rows (cells along x are contiguous in the sorted copies) that the ball
// (x, r) reaches: the same surfels in the same order as a cell-by-cell walk, one run per row.
// (Clipping each row to the ball's extent scanned fewer surfels but its sqrt cost more.)
// Two passes: the sorted indices of the surfels within r, then their offsets and normals
// (about half the scanned surfels are outside: the first pass writes one index for each).
static void gather_from_grid(const tc_surfel_surface* S, tc_vec3 x, tc_real r, gather* g) {
    int lo[3], hi[3], n = 0;
    const tc_point_grid* grid = &S->grid;
    tc_real cut2 = r * r, cell = grid->cell;
    int idx[GATHER_MAX + 1];
    const tc_real* sn = S->rec;
    if (grid->start && tc_point_grid_range(grid, x, r, lo, hi)) {
        for (int cz = lo[2]; cz <= hi[2]; ++cz) {
            tc_real dz = interval_dist(x.z, grid->origin.z + cz * cell, cell), rest_z = cut2 - dz * dz;
            for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                int row = (cz * grid->dims[1] + cy) * grid->dims[0];
                int t = grid->start[row + lo[0]], end = grid->start[row + hi[0] + 1];
                if (t == end) continue; // most rows of a surface's grid are empty: first the cheap test
                tc_real dy = interval_dist(x.y, grid->origin.y + cy * cell, cell);
                if (rest_z < dy * dy) continue;
                // Branch-free: every index is written to the next slot, which only advances when
                // the surfel is within r (a branch would mispredict on about half of them).
                // (The run is cut where GATHER_MAX could be reached, checked once per row.)
                int row_end = end;
                if (end - t > GATHER_MAX - n) end = t + (GATHER_MAX - n);
                for (; t < end; ++t) {
                    const tc_real* c = sn + 6 * (size_t)t;
                    tc_real ex = c[0] - x.x, ey = c[1] - x.y, ez = c[2] - x.z;
                    idx[n] = t;
                    n += ex * ex + ey * ey + ez * ez <= cut2;
                }
                for (; t < row_end && n < GATHER_MAX; ++t) { // full so far: the rest of the row one by one
                    const tc_real* c = sn + 6 * (size_t)t;
                    tc_real ex = c[0] - x.x, ey = c[1] - x.y, ez = c[2] - x.z;
                    idx[n] = t;
                    n += ex * ex + ey * ey + ez * ez <= cut2;
                }
            }
        }
    }
    g->count = n;
    for (int q = 0; q < n; ++q) {
        const tc_real* c = sn + 6 * (size_t)idx[q];
        g->ex[q] = c[0] - x.x, g->ey[q] = c[1] - x.y, g->ez[q] = c[2] - x.z;
        g->nx[q] = c[3], g->ny[q] = c[4], g->nz[q] = c[5];
    }
    gather_pad(g);
}

// floor without the libm call (the baseline x86-64 target has no rounding instruction).
static inline tc_real floor_fast(tc_real v) {
    if (!(fabs(v) < 1e15)) return floor(v); // also NaN
    tc_real t = (tc_real)(int64_t)v;
    return t > v ? t - 1 : t;
}

// ---- shared neighbour lists (tiles) -------------------------------------------------------
// The fits of a contact are made at points close to one another (a body's candidates in grid
// order, the seeds on the contact surface), and each gather walks the same ~25 rows of cells
// and tests the same ~100 surfels as its neighbours' did. A tile is the list of the surfels
// within the cut-off 2h of one grid cell (the cell's box), in the same grid order as the gather's walk,
// made once; a fit at a point x of that cell filters it by |s - x| <= 2h. Every surfel within 2h
// of x is in the list (the box holds x, with a margin for rounding), and the filter keeps the
// list's order, which is the walk's: the same neighbours in the same order, the same bits.
// Fits far off the surface (fewer than 8 surfels within 2h) take the surfels within the reach
// 3h: from a second tile of the cell, its reach tile (the surfels within 3h of the box). At 40 mm
// on the bench most fits are such (seeds deep in the other body; ~2.6 per reach tile): from
// the grid walk they cost 23% of the hook.
// The tiles of a surface are kept (found by cell in a small hash table, their lists packed in
// blocks) until it is rebuilt or they are dropped, or until TILE_MAX of them are made (then
// all are dropped; 384 were refilled several times at 40 mm). The blocks stay allocated
// (reused after a drop): ~7 KB per list (~20 KB a reach tile), a few MB for a surface queried
// all over (TILE_BLOCKS of TILE_BLOCK_REALS bound it: 16 MB).
// A normal cone: unit axis and least cosine of a normal to it (v). Which cones are made is kept
// in two bitmaps apart (a bit per grid cell, zeroed when the cache is cleared: ~2 KB each a
// surface at 20 mm, they stay cached through a call), so a lookup reads a cone only when it was
// made in this call (lines written since). The stamps they replace sat beside the cones over
// the whole grid (1.4 MB a surface) and were read by every lookup: the first per cell in a
// call missed the cache on a stamp from an earlier call, over half of block_cone's time (perf
// at 20 mm: 0.20 -> 0.17 M ticks a call for the block cones made).
struct cone_entry { tc_real v[4]; };

enum { TILE_HASH = 2048, TILE_MAX = 1024, TILE_BLOCKS = 64, TILE_BLOCK_REALS = 32768, TILE_REACH_CELLS = 8, TILE_WARM_REALS = 384 };

/// A tile's list: 6 arrays (x y z nx ny nz) of `stride` entries, count used, the rest (at
/// least LANES) padded far away from every query point.
typedef struct tile_view { const tc_real* d; int count, stride; } tile_view;

struct tc_surfel_tiles {
    int cell[TILE_HASH];      ///< grid cell of each hash entry, -1 empty
    tc_real* at[TILE_HASH];   ///< its list (6 * (count + LANES) reals in a block)
    int count[TILE_HASH];     ///< its list's length
    int stride[TILE_HASH];    ///< entries per array of its list (count + LANES at least)
    int tiles;                ///< entries used
    tc_real* block[TILE_BLOCKS]; ///< the lists' storage (kept when the tiles are dropped)
    size_t block_cap[TILE_BLOCKS];
    int blocks, cur;          ///< blocks allocated, the one being filled
    size_t used;              ///< reals used in block cur
    /// The x half-width (cells; -1: none) of each row d_z, d_y cells from a tile's cell, for the
    /// cut-off [0] and the reach [1]: it depends on the cell size and radius alone (kept with them).
    tc_real half_cs[2], half_r2[2];
    signed char half[2][TILE_REACH_CELLS + 1][TILE_REACH_CELLS + 1];
    /// Normal cones (tc_surfel_surface_flat_at) made when first asked for, one per grid cell:
    /// of the cell's surfels (cone) and of its 3x3x3 block's (bcone, from the cells' cones),
    /// valid where their bit in cone_made (bcone_made) is set (a clear zeroes the bitmaps).
    struct cone_entry *cone, *bcone;
    uint64_t *cone_made, *bcone_made;
    int cone_cap;
};

static size_t cone_words(int cells) { return ((size_t)cells + 63) / 64; }

static void cones_free(struct tc_surfel_tiles* c) {
    if (!c->cone_cap) return;
    tc_free(c->cone, (size_t)c->cone_cap * sizeof *c->cone);
    tc_free(c->bcone, (size_t)c->cone_cap * sizeof *c->bcone);
    tc_free(c->cone_made, cone_words(c->cone_cap) * sizeof(uint64_t));
    tc_free(c->bcone_made, cone_words(c->cone_cap) * sizeof(uint64_t));
    c->cone_cap = 0;
}

static void tiles_clear(struct tc_surfel_tiles* c) {
    if (!c) return;
    if (c->cone_cap) { // (every cone unmade; the cones themselves are not touched)
        memset(c->cone_made, 0, cone_words(c->cone_cap) * sizeof(uint64_t));
        memset(c->bcone_made, 0, cone_words(c->cone_cap) * sizeof(uint64_t));
    }
    for (int i = 0; i < TILE_HASH; ++i) c->cell[i] = -1;
    c->tiles = 0;
    c->cur = 0;
    c->used = 0;
}

static void tiles_free(struct tc_surfel_tiles* c) {
    if (!c) return;
    for (int b = 0; b < c->blocks; ++b) tc_free(c->block[b], c->block_cap[b] * sizeof(tc_real));
    cones_free(c);
    tc_free(c, sizeof *c);
}

void tc_surfel_surface_drop_tiles(tc_surfel_surface* S) { tiles_clear(S->tiles); }

// S's cache (made when first needed; NULL when out of memory). The cache is not part of the
// surface's value: a const surface's queries write to it.
static struct tc_surfel_tiles* tiles_of(const tc_surfel_surface* S) {
    tc_surfel_surface* mut = (tc_surfel_surface*)S;
    if (!mut->tiles) {
        mut->tiles = tc_alloc(sizeof *mut->tiles);
        if (!mut->tiles) return NULL;
        // (Not zeroed as a whole, 40 KB: an entry's list is only read once its cell is set,
        // a block only below `blocks`.)
        mut->tiles->blocks = 0;
        mut->tiles->half_cs[0] = mut->tiles->half_cs[1] = -1; // (no row table yet)
        mut->tiles->cone_cap = 0;
        mut->tiles->cone = mut->tiles->bcone = NULL;
        mut->tiles->cone_made = mut->tiles->bcone_made = NULL;
        tiles_clear(mut->tiles);
    }
    return mut->tiles;
}

// Room for n reals in a block (blocks are added, never moved: no list is copied), at a multiple
// of 32 bytes (with strides of whole groups, the lists' groups of 4 do not straddle lines);
// NULL when out of memory.
static tc_real* tile_space(struct tc_surfel_tiles* tc, size_t n) {
    n += LANES - 1; // (room to align)
    while (tc->cur < tc->blocks && tc->used + n > tc->block_cap[tc->cur]) tc->cur++, tc->used = 0;
    if (tc->cur == tc->blocks) {
        if (tc->blocks == TILE_BLOCKS) return NULL;
        size_t cap = n > TILE_BLOCK_REALS ? n : TILE_BLOCK_REALS;
        tc->block[tc->blocks] = tc_alloc(cap * sizeof(tc_real));
        if (!tc->block[tc->blocks]) return NULL;
        tc->block_cap[tc->blocks++] = cap;
    }
    tc_real* d = tc->block[tc->cur] + tc->used;
    size_t skip = ((size_t)-(uintptr_t)d / sizeof(tc_real)) & (LANES - 1); // (blocks are 8-byte aligned at least)
    tc->used += skip + n - (LANES - 1);
    return d + skip;
}

// The next TILE_WARM_REALS reals of the block being filled (~a list at 20 mm), fetched for
// writing after each fill, for the next (unrolled: 48 prefetches). The blocks are reused from
// their start every call, and ~1 MB of lists a call at 20 mm (301 lists; 1.75 MB when laid out
// for every scanned surfel) with the other stages' data leave them out of L2 by the next call:
// the fill's stores waited on every line (perf: most of tile_rows_avx2's time). Fetched at the
// start of the next fill instead (only the runs' search to hide them) it paid less: least fill
// ticks a call at 20 mm 0.42 M against 0.33 M.
static void tile_space_warm(const struct tc_surfel_tiles* tc) {
    if (tc->cur >= tc->blocks || tc->block_cap[tc->cur] - tc->used < TILE_WARM_REALS) return; // (near a block's end: not worth it)
    const char* p = (const char*)(tc->block[tc->cur] + tc->used);
#pragma GCC unroll 48
    for (int b = 0; b < TILE_WARM_REALS * (int)sizeof(tc_real); b += 64) __builtin_prefetch(p + b, 1, 3);
}

// Distance from v to the interval [a, b] (0 inside).
static tc_real span_dist(tc_real v, tc_real a, tc_real b) { return v < a ? a - v : (v > b ? v - b : 0); }

// The surfels of the sorted position runs [run[i][0], run[i][1]) within sqrt(r2) of the box
// [blo, bhi], into the 6 arrays out (stride `stride`, room reserved); returns their count.
static int tile_rows_scalar(const tc_surfel_surface* S, int (*run)[2], int rows, const tc_real blo[3], const tc_real bhi[3],
                            tc_real r2, tc_real* out, int stride) {
    size_t ss = (size_t)S->sorted_count + 4;
    const tc_real* src = S->soa;
    tc_real *X = out, *Y = X + stride, *Z = Y + stride, *NX = Z + stride, *NY = NX + stride, *NZ = NY + stride;
    int n = 0;
    for (int i = 0; i < rows; ++i)
    for (int q = run[i][0], end = run[i][1]; q < end; ++q) { // branch-free, as the gather
        tc_real x = src[q], y = src[ss + q], z = src[2 * ss + q];
        tc_real dx = span_dist(x, blo[0], bhi[0]), dy = span_dist(y, blo[1], bhi[1]), dz = span_dist(z, blo[2], bhi[2]);
        X[n] = x, Y[n] = y, Z[n] = z, NX[n] = src[3 * ss + q], NY[n] = src[4 * ss + q], NZ[n] = src[5 * ss + q];
        n += dx * dx + dy * dy + dz * dz <= r2;
    }
    return n;
}

// The gather from a tile: its surfels within the cut-off of x, in its order, from entry q on (portable code).
static int tile_filter_scalar(tile_view t, tc_vec3 x, tc_real cut2, gather* g, int q, int n) {
    const tc_real *X = t.d, *Y = X + t.stride, *Z = Y + t.stride, *NX = Z + t.stride, *NY = NX + t.stride, *NZ = NY + t.stride;
    for (; q < t.count && n < GATHER_MAX; ++q) {
        tc_real ex = X[q] - x.x, ey = Y[q] - x.y, ez = Z[q] - x.z;
        g->ex[n] = ex, g->ey[n] = ey, g->ez[n] = ez, g->nx[n] = NX[q], g->ny[n] = NY[q], g->nz[n] = NZ[q];
        n += ex * ex + ey * ey + ez * ez <= cut2;
    }
    return n;
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(TC_NO_VECTOR_CLONES) && !defined(TC_PLAIN_LANES)
#define TILE_AVX2 1
#include <immintrin.h>
#include "core/lanes_compact.h"

// tile_rows_scalar in two passes, 4 surfels at a time (the same test; the lanes past `end`
// masked off). The first tests the positions alone and lists the groups that keep a surfel
// (branch-free: the index written always, advanced when the mask is not 0) and counts the kept
// ones; the list is then laid out for those (stride: count + LANES up to whole groups), and the
// second pass moves the listed groups' kept lanes into it in order (4 entries written per
// group, of which the kept ones count). Against one pass storing all 6 arrays of every group into a list laid out for
// every scanned surfel (perf: the normals' loads and the stores into cold tile memory waited):
// at 20 mm a tile scans ~113 surfels in ~21 rows of ~5 (40 groups, a third keep nothing) and
// keeps ~60 (301 tiles a call), so the normals of a third of the groups are not read and the
// lists take ~55% of the memory (denser for the filters too).
enum { TILE_SCAN_GROUPS = 512 }; // (more groups than this: the plain fill; ~40 a tile at 20 mm)
typedef struct tile_scan { int count, groups; int q[TILE_SCAN_GROUPS]; unsigned char m[TILE_SCAN_GROUPS]; } tile_scan;

// The tile's cell box (blo, bhi) and squared radius r2 in lanes, and the lanes of 4 surfels
// (x, y, z; `left` of them in the run) within the radius of the box: both fills' test.
typedef struct tile_box4 { __m256d lx, ly, lz, hx, hy, hz, c2; } tile_box4;
__attribute__((target("avx2"), always_inline)) static inline tile_box4 tile_box4_of(const tc_real blo[3], const tc_real bhi[3], tc_real r2) {
    return (tile_box4){_mm256_set1_pd(blo[0]), _mm256_set1_pd(blo[1]), _mm256_set1_pd(blo[2]), _mm256_set1_pd(bhi[0]),
                       _mm256_set1_pd(bhi[1]), _mm256_set1_pd(bhi[2]), _mm256_set1_pd(r2)};
}
__attribute__((target("avx2"), always_inline)) static inline unsigned tile_box_mask(const tile_box4* b, __m256d x, __m256d y, __m256d z, int left) {
    __m256d zero = _mm256_setzero_pd();
    __m256d dx = _mm256_max_pd(_mm256_max_pd(_mm256_sub_pd(b->lx, x), _mm256_sub_pd(x, b->hx)), zero);
    __m256d dy = _mm256_max_pd(_mm256_max_pd(_mm256_sub_pd(b->ly, y), _mm256_sub_pd(y, b->hy)), zero);
    __m256d dz = _mm256_max_pd(_mm256_max_pd(_mm256_sub_pd(b->lz, z), _mm256_sub_pd(z, b->hz)), zero);
    __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
    unsigned m = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, b->c2, _CMP_LE_OQ));
    return left < LANES ? m & ((1u << left) - 1) : m;
}

// The first pass: false (nothing listed) when the runs hold more than TILE_SCAN_GROUPS groups.
__attribute__((target("avx2"))) static bool tile_scan_avx2(const tc_surfel_surface* S, int (*run)[2], int rows, const tc_real blo[3],
                                                           const tc_real bhi[3], tc_real r2, tile_scan* ts) {
    size_t ss = (size_t)S->sorted_count + 4;
    const tc_real* src = S->soa;
    tile_box4 box = tile_box4_of(blo, bhi, r2);
    int n = 0, k = 0, groups = 0;
    for (int i = 0; i < rows; ++i) groups += (run[i][1] - run[i][0] + LANES - 1) / LANES;
    if (groups > TILE_SCAN_GROUPS) return false;
    for (int i = 0; i < rows; ++i)
    for (int q = run[i][0], end = run[i][1]; q < end; q += LANES) {
        __m256d x = _mm256_loadu_pd(src + q), y = _mm256_loadu_pd(src + ss + q), z = _mm256_loadu_pd(src + 2 * ss + q);
        unsigned m = tile_box_mask(&box, x, y, z, end - q);
        ts->q[k] = q, ts->m[k] = (unsigned char)m;
        k += m != 0;
        n += __builtin_popcount(m);
    }
    ts->count = n, ts->groups = k;
    return true;
}

// The second pass: the listed groups' kept surfels into the 6 arrays out (stride `stride`).
__attribute__((target("avx2"))) static void tile_store_avx2(const tc_surfel_surface* S, const tile_scan* ts, tc_real* out, int stride) {
    size_t ss = (size_t)S->sorted_count + 4;
    const tc_real* src = S->soa;
    tc_real *X = out, *Y = X + stride, *Z = Y + stride, *NX = Z + stride, *NY = NX + stride, *NZ = NY + stride;
    int n = 0;
    for (int k = 0; k < ts->groups; ++k) {
        const tc_real* p = src + ts->q[k];
        unsigned m = ts->m[k];
        __m256i perm = _mm256_loadu_si256((const __m256i*)tc_compact_perm_pd[m]);
        tc_compact_store_pd(X + n, _mm256_loadu_pd(p), perm), tc_compact_store_pd(Y + n, _mm256_loadu_pd(p + ss), perm);
        tc_compact_store_pd(Z + n, _mm256_loadu_pd(p + 2 * ss), perm), tc_compact_store_pd(NX + n, _mm256_loadu_pd(p + 3 * ss), perm);
        tc_compact_store_pd(NY + n, _mm256_loadu_pd(p + 4 * ss), perm), tc_compact_store_pd(NZ + n, _mm256_loadu_pd(p + 5 * ss), perm);
        n += __builtin_popcount(m);
    }
}

// The one-pass fill (runs of more than TILE_SCAN_GROUPS groups): tile_rows_scalar 4 surfels at a
// time (the same test; 4 entries written per step, of which the kept ones count).
__attribute__((target("avx2"))) static int tile_rows_avx2(const tc_surfel_surface* S, int (*run)[2], int rows, const tc_real blo[3],
                                                          const tc_real bhi[3], tc_real r2, tc_real* out, int stride) {
    size_t ss = (size_t)S->sorted_count + 4;
    const tc_real* src = S->soa;
    tc_real *X = out, *Y = X + stride, *Z = Y + stride, *NX = Z + stride, *NY = NX + stride, *NZ = NY + stride;
    tile_box4 box = tile_box4_of(blo, bhi, r2);
    int n = 0;
    for (int i = 0; i < rows; ++i)
    for (int q = run[i][0], end = run[i][1]; q < end; q += LANES) {
        __m256d x = _mm256_loadu_pd(src + q), y = _mm256_loadu_pd(src + ss + q), z = _mm256_loadu_pd(src + 2 * ss + q);
        unsigned m = tile_box_mask(&box, x, y, z, end - q);
        __m256i perm = _mm256_loadu_si256((const __m256i*)tc_compact_perm_pd[m]);
        tc_compact_store_pd(X + n, x, perm), tc_compact_store_pd(Y + n, y, perm), tc_compact_store_pd(Z + n, z, perm);
        tc_compact_store_pd(NX + n, _mm256_loadu_pd(src + 3 * ss + q), perm), tc_compact_store_pd(NY + n, _mm256_loadu_pd(src + 4 * ss + q), perm);
        tc_compact_store_pd(NZ + n, _mm256_loadu_pd(src + 5 * ss + q), perm);
        n += __builtin_popcount(m);
    }
    return n;
}

// One group of 4 list entries (from entry q) filtered into g at n; returns the new count. The
// outputs addressed from one byte pointer into g (fixed offsets between its arrays): gcc kept
// six array pointers on the stack and reloaded them in every group otherwise.
__attribute__((target("avx2"), always_inline)) static inline int filter_group(const tc_real* X, size_t stride, int q, __m256d px,
                                                                             __m256d py, __m256d pz, __m256d c2, gather* g, int n) {
    const tc_real* P = X + q;
    __m256d ex = _mm256_sub_pd(_mm256_loadu_pd(P), px), ey = _mm256_sub_pd(_mm256_loadu_pd(P + stride), py);
    __m256d ez = _mm256_sub_pd(_mm256_loadu_pd(P + 2 * stride), pz);
    __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey)), _mm256_mul_pd(ez, ez));
    int m = _mm256_movemask_pd(_mm256_cmp_pd(d2, c2, _CMP_LE_OQ));
    __m256i perm = _mm256_loadu_si256((const __m256i*)tc_compact_perm_pd[m]);
    char* o = (char*)g + offsetof(gather, ex) + (size_t)n * sizeof(tc_real);
    enum { A = GATHER_STRIDE * sizeof(tc_real) }; // (ex ey ez nx ny nz follow one another in gather)
    tc_compact_store_pd((tc_real*)o, ex, perm), tc_compact_store_pd((tc_real*)(o + A), ey, perm), tc_compact_store_pd((tc_real*)(o + 2 * A), ez, perm);
    tc_compact_store_pd((tc_real*)(o + 3 * A), _mm256_loadu_pd(P + 3 * stride), perm);
    tc_compact_store_pd((tc_real*)(o + 4 * A), _mm256_loadu_pd(P + 4 * stride), perm);
    tc_compact_store_pd((tc_real*)(o + 5 * A), _mm256_loadu_pd(P + 5 * stride), perm);
    return n + __builtin_popcount((unsigned)m);
}

// tile_filter_scalar 4 surfels at a time: the same differences and squared distances (no FMA),
// the kept ones stored in order by a permutation (4 entries written, the next count kept).
__attribute__((target("avx2"))) static int tile_filter_avx2(tile_view t, tc_vec3 x, tc_real cut2, gather* g) {
    __m256d px = _mm256_set1_pd(x.x), py = _mm256_set1_pd(x.y), pz = _mm256_set1_pd(x.z), c2 = _mm256_set1_pd(cut2);
    size_t stride = (size_t)t.stride;
    int n = 0, q = 0;
    // A list of at most GATHER_MAX entries cannot fill the gather: no room check per group (the
    // 4 entries written at n <= q < GATHER_MAX fit: the arrays have room past GATHER_MAX).
    if (t.count <= GATHER_MAX)
        for (; q < t.count; q += LANES) n = filter_group(t.d, stride, q, px, py, pz, c2, g, n);
    for (; q < t.count && n <= GATHER_MAX - LANES; q += LANES) n = filter_group(t.d, stride, q, px, py, pz, c2, g, n);
    if (q >= t.count) return n; // (the usual case: no call)
    // Near GATHER_MAX: one by one. The upper halves of the vector registers are cleared first:
    // gcc compiled this call as a jump without its vzeroupper, and legacy SSE code run with them
    // dirty pays a transition on every instruction (the whole hook ran ~8% slower).
    _mm256_zeroupper();
    return tile_filter_scalar(t, x, cut2, g, q, n);
}

static bool tile_has_avx2(void) { return __builtin_cpu_supports("avx2"); }

// gather_weights_soa with the table entries of exp_neg_lanes fetched by one gather instruction
// (gcc extracted the 4 indices and loaded them one by one: ~14 instructions a group); the same
// operations otherwise (truncation, k / 8, the series, the product): the same bits.
__attribute__((target("avx2"))) static void gather_weights_avx2(gather* g, tc_real inv_h2) {
    __m256d scale = _mm256_set1_pd(inv_h2), eight = _mm256_set1_pd(8), eighth = _mm256_set1_pd(0.125);
    for (int q = 0; q < g->padded; q += LANES) {
        __m256d x = _mm256_loadu_pd(g->ex + q), y = _mm256_loadu_pd(g->ey + q), z = _mm256_loadu_pd(g->ez + q);
        __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(x, x), _mm256_mul_pd(y, y)), _mm256_mul_pd(z, z));
        __m256d sv = _mm256_mul_pd(d2, scale);
        __m128i k = _mm256_cvttpd_epi32(_mm256_mul_pd(sv, eight));
        __m256d r = _mm256_sub_pd(sv, _mm256_mul_pd(_mm256_cvtepi32_pd(k), eighth));
        __m256d p = _mm256_loadu_pd((const tc_real*)&exp_series[0]);
        for (int i = 0; i < 9; ++i) p = _mm256_sub_pd(_mm256_loadu_pd((const tc_real*)&exp_series[i + 1]), _mm256_mul_pd(r, p));
        _mm256_storeu_pd(g->w + q, _mm256_mul_pd(_mm256_i32gather_pd(exp_eighths, k, 8), p));
    }
    for (int l = 0; l < LANES; ++l) g->w[g->count + l] = 0;
}
#endif

// ---- nearest surfel -------------------------------------------------------------------------
#ifdef TILE_AVX2
// Lanes m of a group of 4 (squared distances d2, from grid position t) into *b, in order, by
// near_scan's rule (few: only those within the best distance so far).
static void near_lanes(const tc_point_grid* g, const tc_real d2[LANES], int t, unsigned m, near_best* b) {
    for (; m; m &= m - 1) {
        int l = __builtin_ctz(m), i = g->items[t + l];
        if (d2[l] <= b->d2 && (d2[l] < b->d2 || (b->i >= 0 && i < b->i))) {
            b->d2 = d2[l];
            b->i = i;
        }
    }
}

// near_scan on the surface's SoA copies (x, y, z arrays X, X + ss, X + 2 ss), 4 surfels at a
// time: the same squared distances (no FMA), one test for the 4 far ones; the lanes past `end`
// masked off (their reads stay within the arrays' padding of 4).
__attribute__((target("avx2"), always_inline)) static inline void near_scan_avx2(const tc_point_grid* g, const tc_real* X, size_t ss, __m256d px,
                                                                                __m256d py, __m256d pz, int t, int end, near_best* b) {
    for (; t < end; t += LANES) {
        __m256d ex = _mm256_sub_pd(_mm256_loadu_pd(X + t), px), ey = _mm256_sub_pd(_mm256_loadu_pd(X + ss + t), py);
        __m256d ez = _mm256_sub_pd(_mm256_loadu_pd(X + 2 * ss + t), pz);
        __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey)), _mm256_mul_pd(ez, ez));
        unsigned m = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, _mm256_set1_pd(b->d2), _CMP_LE_OQ));
        if (end - t < LANES) m &= (1u << (end - t)) - 1;
        if (m) {
            tc_real lanes[LANES];
            _mm256_storeu_pd(lanes, d2);
            near_lanes(g, lanes, t, m, b);
        }
    }
}

// nearest_clipped's walk of the ball nb (near_plane's order and cuts) with near_scan_avx2.
__attribute__((target("avx2"))) static int near_ball_avx2(const tc_point_grid* g, const tc_real* X, size_t ss, tc_vec3 x, tc_real r,
                                                         const near_ball* nb) {
    __m256d px = _mm256_set1_pd(x.x), py = _mm256_set1_pd(x.y), pz = _mm256_set1_pd(x.z);
    near_best b = {r * r, -1};
    int nx = g->dims[0], lo = nb->lo[0], hi = nb->hi[0];
    for (int side = 0; side < 2; ++side) // (planes from x's up, then down)
        for (int cz = side ? nb->cz0 - 1 : nb->cz0; side ? cz >= nb->lo[2] : cz <= nb->hi[2]; cz += side ? -1 : 1) {
            tc_real dz2 = nb->dz2[cz];
            if (dz2 > b.d2) {
                if (cz == nb->cz0) continue; // (as near_plane's rows)
                break;
            }
            const int* start = g->start + cz * g->dims[1] * nx;
            for (int cy = nb->cy0; cy <= nb->hi[1]; ++cy) {
                if (dz2 + nb->dy2[cy] > b.d2) {
                    if (cy == nb->cy0) continue;
                    break;
                }
                near_scan_avx2(g, X, ss, px, py, pz, start[cy * nx + lo], start[cy * nx + hi + 1], &b);
            }
            for (int cy = nb->cy0 - 1; cy >= nb->lo[1] && !(dz2 + nb->dy2[cy] > b.d2); --cy)
                near_scan_avx2(g, X, ss, px, py, pz, start[cy * nx + lo], start[cy * nx + hi + 1], &b);
        }
    return b.i;
}

// The surfels of a ball's rows in one flat list (their coordinates copied from the SoA copies,
// and their grid positions), scanned 4 at a time with a best distance and position per lane,
// branch-free but for exact ties. near_scan_avx2 scanned row by row: rows of ~5 surfels, 1-3
// groups each, one group in 5-9 within the best so far, and the row loops' exits, the group
// loops' exits and the lane tests mispredicted (callgrind's branch model: 25 k of the hook's
// 94 k mispredictions at 20 mm were the nearest searches'; 9.4 k of 77 k on flat lists). A row
// is copied 8 entries at a time (its reads past the row's end stay within the SoA block: x, y
// and z are 3 of its 6 arrays of sorted_count + 4), the next row written over the excess. At 20
// mm, least of 200 calls: the plane test's searches 0.52 -> 0.38 M TSC ticks a call, the
// forces' 0.25 -> 0.22-0.23 M (the same surfels; +0.09 M instructions in all, 40 mm +1.0 M).
enum { NEAR_FLAT_CAP = 256, NEAR_COPY = 8, NEAR_FEW_ROWS = 2 };
typedef struct near_flat {
    tc_real x[NEAR_FLAT_CAP + NEAR_COPY], y[NEAR_FLAT_CAP + NEAR_COPY], z[NEAR_FLAT_CAP + NEAR_COPY];
    int pos[NEAR_FLAT_CAP + NEAR_COPY];
    __m256d px, py, pz;
    __m256d best; ///< per lane: the least squared distance so far (r^2 at first)
    __m256i at;   ///< its grid position (-1: none yet)
} near_flat;

// Lanes m (exact ties with their best, d2[l] == best[l]) of positions p: the least surfel index
// wins (near_scan's rule; none at first).
__attribute__((target("avx2"))) static void near_flat_ties(const tc_point_grid* g, near_flat* f, const long long p[LANES], unsigned m) {
    long long at[LANES];
    _mm256_storeu_si256((__m256i*)at, f->at);
    for (; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if (at[l] >= 0 && g->items[p[l]] < g->items[at[l]]) at[l] = p[l];
    }
    f->at = _mm256_loadu_si256((const __m256i*)at);
}

// The list's n entries into the lanes' best (the last group padded with NaN: never taken).
__attribute__((target("avx2"))) static void near_flat_scan(const tc_point_grid* g, near_flat* f, int n) {
    __m256d nan = _mm256_set1_pd(NAN);
    _mm256_storeu_pd(f->x + n, nan), _mm256_storeu_pd(f->y + n, nan), _mm256_storeu_pd(f->z + n, nan);
    _mm_storeu_si128((__m128i*)(f->pos + n), _mm_setzero_si128());
    __m256d best = f->best;
    __m256i at = f->at;
    for (int q = 0; q < n; q += LANES) {
        __m256d ex = _mm256_sub_pd(_mm256_loadu_pd(f->x + q), f->px), ey = _mm256_sub_pd(_mm256_loadu_pd(f->y + q), f->py);
        __m256d ez = _mm256_sub_pd(_mm256_loadu_pd(f->z + q), f->pz);
        __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey)), _mm256_mul_pd(ez, ez));
        __m256i p = _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i*)(f->pos + q)));
        unsigned tie = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, best, _CMP_EQ_OQ));
        if (tie) {
            long long pl[LANES];
            _mm256_storeu_si256((__m256i*)pl, p);
            f->at = at;
            near_flat_ties(g, f, pl, tie);
            at = f->at;
        }
        __m256d lt = _mm256_cmp_pd(d2, best, _CMP_LT_OQ);
        best = _mm256_blendv_pd(best, d2, lt);
        at = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(at), _mm256_castsi256_pd(p), lt));
    }
    f->best = best, f->at = at;
}

// 8 entries from grid position t copied to the list at n.
__attribute__((target("avx2"), always_inline)) static inline void near_flat_copy(near_flat* f, const tc_real* X, size_t ss, int n, int t) {
    _mm256_storeu_pd(f->x + n, _mm256_loadu_pd(X + t)), _mm256_storeu_pd(f->x + n + 4, _mm256_loadu_pd(X + t + 4));
    _mm256_storeu_pd(f->y + n, _mm256_loadu_pd(X + ss + t)), _mm256_storeu_pd(f->y + n + 4, _mm256_loadu_pd(X + ss + t + 4));
    _mm256_storeu_pd(f->z + n, _mm256_loadu_pd(X + 2 * ss + t)), _mm256_storeu_pd(f->z + n + 4, _mm256_loadu_pd(X + 2 * ss + t + 4));
    _mm256_storeu_si256((__m256i*)(f->pos + n), _mm256_add_epi32(_mm256_set1_epi32(t), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}

// near_flat_append past the list's room: the list scanned and emptied, the row copied in pieces.
__attribute__((target("avx2"), noinline)) static int near_flat_spill(const tc_point_grid* g, near_flat* f, const tc_real* X, size_t ss, int n, int t,
                                                                     int len) {
    for (;;) {
        near_flat_scan(g, f, n);
        int piece = len < NEAR_FLAT_CAP ? len : NEAR_FLAT_CAP;
        for (int k = 0; k < piece; k += NEAR_COPY) near_flat_copy(f, X, ss, k, t + k);
        if (piece == len) return piece;
        n = piece, t += piece, len -= piece;
    }
}

// Grid positions [t, t + len) appended to the list of n entries; returns its new count.
__attribute__((target("avx2"), always_inline)) static inline int near_flat_append(const tc_point_grid* g, near_flat* f, const tc_real* X, size_t ss,
                                                                                  int n, int t, int len) {
    if (n + len > NEAR_FLAT_CAP) return near_flat_spill(g, f, X, ss, n, t, len);
    near_flat_copy(f, X, ss, n, t);
    for (int k = NEAR_COPY; k < len; k += NEAR_COPY) near_flat_copy(f, X, ss, n + k, t + k);
    return n + len;
}

// The lanes' least squared distance, in every lane.
__attribute__((target("avx2"), always_inline)) static inline __m256d near_flat_min(const near_flat* f) {
    __m256d m = _mm256_min_pd(f->best, _mm256_permute4x64_pd(f->best, 0x4e));
    return _mm256_min_pd(m, _mm256_permute_pd(m, 5));
}

// The lanes' answer: the least distance, ties to the least index; -1 when none found. *pos:
// its grid position (-1 when none).
__attribute__((target("avx2"), always_inline)) static inline int near_flat_best(const tc_point_grid* g, const near_flat* f, int* pos) {
    __m256d m = near_flat_min(f);
    __m256d found = _mm256_castsi256_pd(_mm256_cmpgt_epi64(f->at, _mm256_set1_epi64x(-1)));
    unsigned k = (unsigned)_mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(f->best, m, _CMP_EQ_OQ), found));
    *pos = -1;
    if (!k) return -1;
    long long at[LANES];
    _mm256_storeu_si256((__m256i*)at, f->at);
    int t = (int)at[__builtin_ctz(k)], i = g->items[t];
    for (k &= k - 1; k; k &= k - 1) {
        int u = (int)at[__builtin_ctz(k)], j = g->items[u];
        if (j < i) i = j, t = u;
    }
    *pos = t;
    return i;
}

// The lanes' least squared distance.
__attribute__((target("avx2"))) static tc_real near_flat_least(const near_flat* f) { return _mm256_cvtsd_f64(near_flat_min(f)); }

__attribute__((target("avx2"), always_inline)) static inline void near_flat_start(near_flat* f, tc_vec3 x, tc_real r) {
    f->px = _mm256_set1_pd(x.x), f->py = _mm256_set1_pd(x.y), f->pz = _mm256_set1_pd(x.z);
    f->best = _mm256_set1_pd(r * r), f->at = _mm256_set1_epi64x(-1);
}

// nearest_walk's growing balls on flat lists: each ball's rows appended, then scanned; a ball
// of 1 or 2 rows scanned in place, where the list's fixed cost showed (the forces' first balls
// have 2.8 rows on average at 4 mm, 6.3 at 20 mm; 4 mm, least of 200: 0.022 M ticks a call in
// place, 0.033 M on lists, 0.027 M with up to 2 rows in place; up to 4 rows in place lost ~0.02 M
// at 20 mm). Its rows picked by slab masks, as near_ball_flat's, were slower (20 mm: 0.22 ->
// 0.26 M ticks a call).
__attribute__((target("avx2"))) static int near_walk_flat(const tc_point_grid* g, const tc_real* X, size_t ss, tc_vec3 x, tc_real r0, tc_real max_r,
                                                         int* pos) {
    near_flat f;
    for (tc_real r = r0 < max_r ? r0 : max_r;; r = 2 * r < max_r ? 2 * r : max_r) {
        int lo[3], hi[3], n = 0;
        near_flat_start(&f, x, r);
        bool any = tc_point_grid_range(g, x, r, lo, hi);
        if (any && (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1) <= NEAR_FEW_ROWS) {
            near_best b = {r * r, -1};
            for (int cz = lo[2]; cz <= hi[2]; ++cz)
                for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                    const int* row = g->start + (cz * g->dims[1] + cy) * g->dims[0];
                    near_scan_avx2(g, X, ss, f.px, f.py, f.pz, row[lo[0]], row[hi[0] + 1], &b);
                }
            *pos = -1; // (not kept by the row scans)
            if (b.i >= 0 || r >= max_r) return b.i;
            continue;
        }
        if (any)
            for (int cz = lo[2]; cz <= hi[2]; ++cz)
                for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                    const int* row = g->start + (cz * g->dims[1] + cy) * g->dims[0];
                    n = near_flat_append(g, &f, X, ss, n, row[lo[0]], row[hi[0] + 1] - row[lo[0]]);
                }
        near_flat_scan(g, &f, n);
        int i = near_flat_best(g, &f, pos);
        if (i >= 0 || r >= max_r) return i;
    }
}

// slab_table's squared slab distances of the cells lo + c, c = 0..7, from an offset of t cells
// (lo - t + c at once, not stepped: valid bounds all the same, the margin being 1e-6 cell), in
// two vectors.
__attribute__((target("avx2"), always_inline)) static inline void near_slabs8(tc_real t, tc_real w, int lo, __m256d d2[2]) {
    __m256d base = _mm256_set1_pd(lo - t), eps = _mm256_set1_pd(1e-6), width = _mm256_set1_pd(w), minus1 = _mm256_set1_pd(-1);
    for (int h = 0; h < 2; ++h) {
        __m256d below = _mm256_add_pd(base, _mm256_setr_pd(4 * h, 4 * h + 1, 4 * h + 2, 4 * h + 3));
        __m256d gap = _mm256_max_pd(below, _mm256_sub_pd(minus1, below));
        __m256d d = _mm256_max_pd(_mm256_mul_pd(_mm256_sub_pd(gap, eps), width), _mm256_setzero_pd());
        d2[h] = _mm256_mul_pd(d, d);
    }
}

// The rows (bit c: row lo + c) of a plane whose squared slab distances dz2 + dy2 pass not b.
__attribute__((target("avx2"), always_inline)) static inline unsigned near_rows_within(const __m256d dy2[2], tc_real dz2, tc_real b) {
    __m256d z = _mm256_set1_pd(dz2), bound = _mm256_set1_pd(b);
    unsigned m0 = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(_mm256_add_pd(z, dy2[0]), bound, _CMP_NGT_UQ));
    return m0 | (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(_mm256_add_pd(z, dy2[1]), bound, _CMP_NGT_UQ)) << 4;
}

// nearest_clipped's one ball on a flat list, for balls of at most 8 cells along y and z (-2
// otherwise: the caller takes near_ball_avx2): x's own row scanned first, then the other rows
// whose squared slab distances are within its best, picked by mask, appended and scanned. They
// are nearly the rows the nearest-first walk visited (20 mm: 11.1 a search against 10.75, 54
// surfels against 53; all 26 rows of the ball appended, the empty appends cost more than the
// branches they saved: 0.52 -> 0.62 M ticks a call).
__attribute__((target("avx2"))) static int near_ball_flat(const tc_point_grid* g, const tc_real* X, size_t ss, tc_vec3 x, tc_real r, int* pos) {
    int lo[3], hi[3];
    *pos = -1;
    if (!tc_point_grid_range(g, x, r, lo, hi)) return -1;
    if (hi[1] - lo[1] >= 8 || hi[2] - lo[2] >= 8) return -2;
    tc_real ty = (x.y - g->origin.y) * g->inv_cell, tz = (x.z - g->origin.z) * g->inv_cell;
    __m256d dy2[2], dz2v[2];
    near_slabs8(ty, g->cell, lo[1], dy2);
    near_slabs8(tz, g->cell, lo[2], dz2v);
    tc_real dz2[8];
    _mm256_storeu_pd(dz2, dz2v[0]), _mm256_storeu_pd(dz2 + 4, dz2v[1]);
    int cy0 = near_cell(ty, lo[1], hi[1]), cz0 = near_cell(tz, lo[2], hi[2]);
    near_flat f;
    near_flat_start(&f, x, r);
    int nx = g->dims[0], plane = g->dims[1] * nx, rows = (1 << (hi[1] - lo[1] + 1)) - 1;
    const int* own = g->start + cz0 * plane + cy0 * nx;
    near_flat_scan(g, &f, near_flat_append(g, &f, X, ss, 0, own[lo[0]], own[hi[0] + 1] - own[lo[0]]));
    tc_real b1 = near_flat_least(&f);
    // The rows kept, bit 8 (cz - lo[2]) + cy - lo[1]: one loop over them all (a loop a plane
    // mispredicted its exit in each).
    uint64_t keep = 0;
    for (int k = 0; k <= hi[2] - lo[2]; ++k) keep |= (uint64_t)(near_rows_within(dy2, dz2[k], b1) & rows) << 8 * k;
    keep &= ~((uint64_t)1 << (8 * (cz0 - lo[2]) + cy0 - lo[1]));
    const int* first = g->start + lo[2] * plane + lo[1] * nx;
    int n = 0;
    for (; keep; keep &= keep - 1) {
        int k = __builtin_ctzll(keep);
        const int* row = first + (k >> 3) * plane + (k & 7) * nx;
        n = near_flat_append(g, &f, X, ss, n, row[lo[0]], row[hi[0] + 1] - row[lo[0]]);
    }
    near_flat_scan(g, &f, n);
    return near_flat_best(g, &f, pos);
}
#endif

int tc_surfel_surface_nearest_at(const tc_surfel_surface* S, tc_vec3 x, tc_real r0, tc_real max_r, int* pos) {
    *pos = -1;
    if (max_r < 0) return -1; // (nothing within; the flat ball's ranges assume lo <= hi)
    bool copies = S->cs && S->rec && S->soa; // (all three made: filled; a failed build leaves them unfilled)
#ifdef TILE_AVX2
    if (r0 >= max_r && copies && tile_has_avx2()) {
        int i = near_ball_flat(&S->grid, S->soa, (size_t)S->sorted_count + 4, x, max_r, pos);
        if (i > -2) return i;
        near_ball nb;
        *pos = -1; // (not kept by the row scans: +0.28 M instructions at 40 mm when they did)
        if (near_ball_setup(&S->grid, x, max_r, &nb)) return near_ball_avx2(&S->grid, S->soa, (size_t)S->sorted_count + 4, x, max_r, &nb);
    }
    if (copies && tile_has_avx2() && r0 > 0 && max_r == max_r) return near_walk_flat(&S->grid, S->soa, (size_t)S->sorted_count + 4, x, r0, max_r, pos);
#endif
    return copies ? tc_point_grid_nearest_sorted(&S->grid, S->cs, x, r0, max_r) : tc_point_grid_nearest_from(&S->grid, S->s, x, r0, max_r);
}

int tc_surfel_surface_nearest(const tc_surfel_surface* S, tc_vec3 x, tc_real r0, tc_real max_r) {
    int pos;
    return tc_surfel_surface_nearest_at(S, x, r0, max_r, &pos);
}

// The Gaussian weights of the gathered surfels (zero on the padding).
static void gather_weights(const tc_surfel_surface* S, gather* g) {
#ifdef TILE_AVX2
    if (tile_has_avx2()) {
        gather_weights_avx2(g, 1.0 / (S->h * S->h));
        return;
    }
#endif
    gather_weights_soa(g, 1.0 / (S->h * S->h));
}

// Lists the surfels within the cut-off (2h) of cell c (= cx, cy, cz) in grid order as hash entry e's list,
// written in place in a block (arrays with room for every scanned surfel; only the kept ones'
// entries are touched); false when out of memory or the cells are far smaller than 2h.
static bool tile_fill(const tc_surfel_surface* S, struct tc_surfel_tiles* tc, const int c[3], int e, int key, bool reach) {
    tc_real radius = (reach ? TC_SURFEL_REACH : TC_SURFEL_CUTOFF) * S->h;
    const tc_point_grid* grid = &S->grid;
    // The cell's box widened by 1e-6 cell and the reach by 1e-9: x may sit just outside its
    // cell by rounding, and |s - x| <= 2h is tested in floating point.
    tc_real slack = 1e-6 * grid->cell, r = radius * (1 + 1e-9) + slack, r2 = r * r, cs = grid->cell;
    tc_real blo[3], bhi[3];
    int lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        tc_real o = tc_v3_get(grid->origin, k);
        blo[k] = o + c[k] * cs - slack;
        bhi[k] = o + (c[k] + 1) * cs + slack;
        tc_real a = floor_fast((blo[k] - r - o) * grid->inv_cell - 1e-7), b = floor_fast((bhi[k] + r - o) * grid->inv_cell + 1e-7);
        lo[k] = a > 0 ? (int)a : 0;
        hi[k] = b < grid->dims[k] - 1 ? (int)b : grid->dims[k] - 1;
    }
    // The rows whose cells (widened by 2 slack: a surfel binned there may lie just outside by
    // rounding) come within r of the box, and along each row the cells within reach: gap2[d]
    // is the squared gap between the box and a cell d cells away, (d - 1) cells less 2 slack.
    enum { MAX_REACH = TILE_REACH_CELLS, MAX_ROWS = (2 * MAX_REACH + 1) * (2 * MAX_REACH + 1) }; // (the reach is 3 for cells of 1.5h)
    int run[MAX_ROWS][2], rows = 0, most = 0;
    for (int k = 0; k < 3; ++k)
        if (c[k] - lo[k] > MAX_REACH || hi[k] - c[k] > MAX_REACH) return false; // (cells far smaller than 2h: the plain gather)
    // The half-width along x of the rows d_z, d_y cells from c (-1: none), from the table kept
    // for this cell size and radius (made anew when they change: a rebuild with another h).
    int which = reach ? 1 : 0;
    if (!(tc->half_cs[which] == cs && tc->half_r2[which] == r2)) {
        tc_real gap2[MAX_REACH + 1];
        for (int d = 0; d <= MAX_REACH; ++d) {
            tc_real gap = (d - 1) * cs - 2 * slack;
            gap2[d] = gap > 0 ? gap * gap : 0;
        }
        for (int dz = 0; dz <= MAX_REACH; ++dz) {
            tc_real rest_z = r2 - gap2[dz];
            for (int dy = 0; dy <= MAX_REACH; ++dy) {
                tc_real rest = rest_z - gap2[dy];
                int k = MAX_REACH;
                while (k > 1 && gap2[k] > rest) --k;
                tc->half[which][dz][dy] = (signed char)(rest < 0 ? -1 : k);
            }
        }
        tc->half_cs[which] = cs, tc->half_r2[which] = r2;
    }
    signed char (*half)[MAX_REACH + 1] = tc->half[which];
    for (int cz = lo[2]; cz <= hi[2]; ++cz) {
        const signed char* half_z = half[cz < c[2] ? c[2] - cz : cz - c[2]];
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int k = half_z[cy < c[1] ? c[1] - cy : cy - c[1]];
            if (k < 0) continue;
            int x0 = c[0] - k > lo[0] ? c[0] - k : lo[0], x1 = c[0] + k < hi[0] ? c[0] + k : hi[0];
            int row = (cz * grid->dims[1] + cy) * grid->dims[0];
            int q = grid->start[row + x0], end = grid->start[row + x1 + 1];
            if (q >= end) continue;
            run[rows][0] = q, run[rows][1] = end, rows++;
            most += end - q;
        }
    }
    int stride, n;
    tc_real* d;
#ifdef TILE_AVX2
    tile_scan ts;
    if (tile_has_avx2() && tile_scan_avx2(S, run, rows, blo, bhi, r2, &ts)) { // (the list laid out for the kept surfels)
        n = ts.count, stride = (n + 2 * LANES - 1) & -LANES;
        if (!(d = tile_space(tc, 6 * (size_t)stride))) return false;
        tile_store_avx2(S, &ts, d, stride);
    } else
#endif
    {
        stride = (most + 2 * LANES - 1) & -LANES; // (room for every scanned surfel)
        if (!(d = tile_space(tc, 6 * (size_t)stride))) return false;
#ifdef TILE_AVX2
        if (tile_has_avx2()) n = tile_rows_avx2(S, run, rows, blo, bhi, r2, d, stride);
        else
#endif
            n = tile_rows_scalar(S, run, rows, blo, bhi, r2, d, stride);
    }
    for (int k = 0; k < 6; ++k)
        for (int l = 0; l < LANES; ++l) d[k * (size_t)stride + (size_t)n + l] = 1e150; // far: d^2 ~ 1e300 > (2h)^2
    tc->cell[e] = key;
    tc->at[e] = d;
    tc->count[e] = n;
    tc->stride[e] = stride;
    tc->tiles++;
    tile_space_warm(tc);
    return true;
}

// The tile of x's cell (made if not kept): the surfels within the cut-off 2h of the cell, or
// within the reach 3h (`reach`, for the fits far off the surface); false where x is outside
// the grid or memory ran out.
static bool tile_of(const tc_surfel_surface* S, tc_vec3 x, bool reach, tile_view* view) {
    const tc_point_grid* grid = &S->grid;
    if (!grid->start || !S->soa) return false;
    int c[3];
    for (int k = 0; k < 3; ++k) {
        // The cell floor(v) when inside the grid: floor(v) >= 0 iff v >= 0, floor(v) < n iff
        // v < n, and the cast truncates a v >= 0 to its floor (no floor_fast; also rejects NaN).
        tc_real v = (tc_v3_get(x, k) - tc_v3_get(grid->origin, k)) * grid->inv_cell;
        if (!(v >= 0 && v < grid->dims[k])) return false;
        c[k] = (int)v;
    }
    int cell = (c[2] * grid->dims[1] + c[1]) * grid->dims[0] + c[0], key = reach ? grid->cell_count + cell : cell;
    struct tc_surfel_tiles* tc = tiles_of(S);
    if (!tc) return false;
    int e = (int)(((uint32_t)key * 2654435761u) >> 21) & (TILE_HASH - 1);
    while (tc->cell[e] >= 0 && tc->cell[e] != key) e = (e + 1) & (TILE_HASH - 1);
    if (tc->cell[e] != key) {
        if (tc->tiles >= TILE_MAX) { // full: start over (a surface queried all over without a rebuild)
            tiles_clear(tc);
            return tile_of(S, x, reach, view);
        }
        if (!tile_fill(S, tc, c, e, key, reach)) return false;
    }
    view->d = tc->at[e];
    view->count = tc->count[e];
    view->stride = tc->stride[e];
    return true;
}

// The surfels of tile t within r of x into g, in the tile's order (as gather_from_grid).
static void tile_filter(tile_view t, tc_vec3 x, tc_real r, gather* g) {
    tc_real cut2 = r * r;
#ifdef TILE_AVX2
    if (tile_has_avx2()) g->count = tile_filter_avx2(t, x, cut2, g);
    else
#endif
        g->count = tile_filter_scalar(t, x, cut2, g, 0, 0);
    gather_pad(g);
}

// The surfels within the cut-off 2h of x into g (as gather_from_grid), from x's tile where
// there is one; fewer than GATHER_WIDEN there (x far off the surface): those within the reach 3h.
static void gather_near(const tc_surfel_surface* S, tc_vec3 x, gather* g) {
    tile_view t;
    if (!tile_of(S, x, false, &t)) {
        gather_from_grid(S, x, TC_SURFEL_CUTOFF * S->h, g);
        if (g->count < GATHER_WIDEN) gather_from_grid(S, x, TC_SURFEL_REACH * S->h, g);
        return;
    }
    if (t.count >= GATHER_WIDEN) { // (else no point of the cell has enough surfels within 2h)
        tile_filter(t, x, TC_SURFEL_CUTOFF * S->h, g);
        if (g->count >= GATHER_WIDEN) return;
    }
    // Far off the surface: the reach, from the cell's reach tile.
    if (tile_of(S, x, true, &t)) tile_filter(t, x, TC_SURFEL_REACH * S->h, g);
    else gather_from_grid(S, x, TC_SURFEL_REACH * S->h, g);
}

bool tc_surfel_surface_reaches(const tc_surfel_surface* S, tc_vec3 x) {
    int hint = -1;
    return tc_surfel_surface_reaches_from(S, x, &hint);
}

bool tc_surfel_surface_reaches_from(const tc_surfel_surface* S, tc_vec3 x, int* hint) {
    int lo[3], hi[3];
    const tc_point_grid* grid = &S->grid;
    tc_real r = TC_SURFEL_REACH * S->h, cut2 = r * r;
    if (!grid->start || !tc_point_grid_range(grid, x, r, lo, hi)) return false;
    // (The hint is one of the surfels the walk below tests, with the same test.)
    if (*hint >= 0 && *hint < grid->item_count && tc_v3_len2(tc_v3_sub(S->cs[*hint], x)) <= cut2) return true;
    // The rows from the middle of the ball out (z and y alternating about the middle row: a
    // surfel within r is usually found in the first few; in grid order the corner rows, far
    // from x, were scanned first). The answer does not depend on the order.
    int mid[2];
    for (int k = 0; k < 2; ++k) mid[k] = (lo[k + 1] + hi[k + 1]) / 2;
    for (int iz = 0; iz <= 2 * (hi[2] - lo[2]); ++iz) {
        int cz = mid[1] + (iz & 1 ? -(iz + 1) / 2 : iz / 2);
        if (cz < lo[2] || cz > hi[2]) continue;
        for (int iy = 0; iy <= 2 * (hi[1] - lo[1]); ++iy) {
            int cy = mid[0] + (iy & 1 ? -(iy + 1) / 2 : iy / 2);
            if (cy < lo[1] || cy > hi[1]) continue;
            int row = (cz * grid->dims[1] + cy) * grid->dims[0];
            for (int t = grid->start[row + lo[0]]; t < grid->start[row + hi[0] + 1]; ++t)
                if (tc_v3_len2(tc_v3_sub(S->cs[t], x)) <= cut2) {
                    *hint = t;
                    return true;
                }
        }
    }
    return false;
}

// Solves the symmetric positive definite 6x6 system M c = r by Cholesky; false if singular.
// The reciprocals of the diagonal are taken once: multiplies instead of 27 divisions on the
// dependent chain of the factorisation and the two substitutions.
// (L is not zeroed: only its lower triangle is read, each entry after it is written; zeroing
// the 36 entries compiled to a `rep stos`, slow to start, in every fit.)
static bool solve6(tc_real M[6][6], tc_real r[6], tc_real c[6]) {
    tc_real L[6][6], inv[6];
#pragma GCC unroll 6
    for (int i = 0; i < 6; ++i)
#pragma GCC unroll 6
        for (int j = 0; j <= i; ++j) {
            tc_real sum = M[i][j];
#pragma GCC unroll 6
            for (int k = 0; k < j; ++k) sum -= L[i][k] * L[j][k];
            if (i == j) {
                if (!(sum > 1e-14 * M[0][0])) return false;
                L[i][i] = sqrt(sum);
                inv[i] = 1 / L[i][i];
            } else
                L[i][j] = sum * inv[j];
        }
    tc_real y[6];
#pragma GCC unroll 6
    for (int i = 0; i < 6; ++i) {
        y[i] = r[i];
#pragma GCC unroll 6
        for (int k = 0; k < i; ++k) y[i] -= L[i][k] * y[k];
        y[i] *= inv[i];
    }
#pragma GCC unroll 6
    for (int i = 5; i >= 0; --i) {
        c[i] = y[i];
#pragma GCC unroll 6
        for (int k = i + 1; k < 6; ++k) c[i] -= L[k][i] * c[k];
        c[i] *= inv[i];
    }
    return true;
}

// The weight sum and the weighted sums of the offsets and normals: out = {sum w, sum w e, sum w n}.
TC_VECTOR_CLONES static void centroid_sums(const gather* g, tc_real out[7]) {
    lanes s[7];
    for (int i = 0; i < 7; ++i) s[i] = lv_splat(0);
    for (int q = 0; q < g->padded; q += LANES) {
        lanes w = lv_load(g->w + q);
        s[0] = lv_add(s[0], w);
        s[1] = lv_madd(s[1], w, lv_load(g->ex + q)), s[2] = lv_madd(s[2], w, lv_load(g->ey + q));
        s[3] = lv_madd(s[3], w, lv_load(g->ez + q)), s[4] = lv_madd(s[4], w, lv_load(g->nx + q));
        s[5] = lv_madd(s[5], w, lv_load(g->ny + q)), s[6] = lv_madd(s[6], w, lv_load(g->nz + q));
    }
    tc_real t[4];
    lv_total4(s[0], s[1], s[2], s[3], out);
    lv_total4(s[4], s[5], s[6], s[6], t);
    out[4] = t[0], out[5] = t[1], out[6] = t[2];
}

// Coordinates of the gathered surfels in the frame of the fit: u, v along t1, t2 (in units
// of h) and z = w n.(e - ca) (the weighted height).
TC_VECTOR_CLONES static void local_coordinates(gather* g, tc_vec3 ca, tc_vec3 t1, tc_vec3 t2, tc_vec3 n) {
    lanes cx = lv_splat(ca.x), cy = lv_splat(ca.y), cz = lv_splat(ca.z);
    for (int q = 0; q < g->padded; q += LANES) {
        lanes dx = lv_sub(lv_load(g->ex + q), cx), dy = lv_sub(lv_load(g->ey + q), cy), dz = lv_sub(lv_load(g->ez + q), cz);
        lanes u = lv_add(lv_add(lv_mul(dx, lv_splat(t1.x)), lv_mul(dy, lv_splat(t1.y))), lv_mul(dz, lv_splat(t1.z)));
        lanes v = lv_add(lv_add(lv_mul(dx, lv_splat(t2.x)), lv_mul(dy, lv_splat(t2.y))), lv_mul(dz, lv_splat(t2.z)));
        lanes h = lv_add(lv_add(lv_mul(dx, lv_splat(n.x)), lv_mul(dy, lv_splat(n.y))), lv_mul(dz, lv_splat(n.z)));
        lv_store(g->u + q, u);
        lv_store(g->v + q, v);
        lv_store(g->z + q, lv_mul(h, lv_load(g->w + q)));
    }
}

// The 15 weighted moments sum w u^i v^j (i + j <= 4) and the 6 moments of the weighted
// height sum z u^i v^j (i + j <= 2): mom = {m00 m10 m01 m20 m11 m02 m30 m21 m12 m03 m40 m31
// m22 m13 m04}, rz = {r0 .. r5}. Three loops of few accumulators each (they stay in registers).
TC_VECTOR_CLONES static void height_moments(const gather* g, tc_real mom[15], tc_real rz[6]) {
    // Named accumulators, not arrays: arrays of vectors were zeroed in memory by two `rep stos`
    // (slow to start) in every fit. The same operations in the same order.
    lanes z0 = lv_splat(0);
    lanes a0 = z0, a1 = z0, a2 = z0, a3 = z0, a4 = z0, a5 = z0, a6 = z0, a7 = z0, a8 = z0;
    for (int q = 0; q < g->padded; q += LANES) {
        lanes w = lv_load(g->w + q), u = lv_load(g->u + q), v = lv_load(g->v + q), z = lv_load(g->z + q);
        lanes wu = lv_mul(w, u), wv = lv_mul(w, v);
        a0 = lv_add(a0, w), a1 = lv_add(a1, wu), a2 = lv_add(a2, wv);
        a3 = lv_madd(a3, wu, u), a4 = lv_madd(a4, wu, v), a5 = lv_madd(a5, wv, v);
        a6 = lv_add(a6, z), a7 = lv_madd(a7, z, u), a8 = lv_madd(a8, z, v);
    }
    lv_total4(a0, a1, a2, a3, mom);
    tc_real t[4];
    lv_total4(a4, a5, a6, a7, t);
    mom[4] = t[0], mom[5] = t[1], rz[0] = t[2], rz[1] = t[3], rz[2] = lv_total(a8);
    lanes b0 = z0, b1 = z0, b2 = z0, b3 = z0, b4 = z0, b5 = z0, b6 = z0, b7 = z0, b8 = z0;
    for (int q = 0; q < g->padded; q += LANES) {
        lanes w = lv_load(g->w + q), u = lv_load(g->u + q), v = lv_load(g->v + q);
        lanes wuu = lv_mul(lv_mul(w, u), u), wuv = lv_mul(lv_mul(w, u), v), wvv = lv_mul(lv_mul(w, v), v);
        b0 = lv_madd(b0, wuu, u), b1 = lv_madd(b1, wuu, v), b2 = lv_madd(b2, wuv, v), b3 = lv_madd(b3, wvv, v);
        b4 = lv_madd(b4, lv_mul(wuu, u), u), b5 = lv_madd(b5, lv_mul(wuu, u), v), b6 = lv_madd(b6, lv_mul(wuu, v), v);
        b7 = lv_madd(b7, lv_mul(wuv, v), v), b8 = lv_madd(b8, lv_mul(wvv, v), v);
    }
    lv_total4(b0, b1, b2, b3, mom + 6);
    lv_total4(b4, b5, b6, b7, mom + 10);
    mom[14] = lv_total(b8);
    lanes c0 = z0, c1 = z0, c2 = z0;
    for (int q = 0; q < g->padded; q += LANES) {
        lanes u = lv_load(g->u + q), v = lv_load(g->v + q), z = lv_load(g->z + q), zu = lv_mul(z, u);
        c0 = lv_madd(c0, zu, u), c1 = lv_madd(c1, zu, v), c2 = lv_madd(c2, lv_mul(z, v), v);
    }
    lv_total4(c0, c1, c2, z0, t);
    rz[3] = t[0], rz[4] = t[1], rz[5] = t[2];
}

// Coefficients of the weighted quadratic height fit z = c0 + c1 u + c2 v + c3 u^2 + c4 uv +
// c5 v^2 over the frame (t1, t2, n) at the centroid (offset ca from x); false when degenerate.
// The plane through the centroid alone sits h^2/(2R) inside a surface of curvature radius R;
// the quadratic term removes that bias.
static bool quadratic_height(gather* g, tc_vec3 ca, const tc_surfel_fit* fit, tc_real c[6]) {
    if (g->count < 8) return false;
    // The normal matrix only holds the 15 weighted moments u^i v^j (i + j <= 4): accumulate
    // those and the 6 moments of z, then assemble M.
    local_coordinates(g, ca, tc_v3_scale(fit->t1, fit->inv_h), tc_v3_scale(fit->t2, fit->inv_h), fit->n);
    tc_real m[15], r[6];
    height_moments(g, m, r);
    tc_real m00 = m[0], m10 = m[1], m01 = m[2], m20 = m[3], m11 = m[4], m02 = m[5], m30 = m[6], m21 = m[7], m12 = m[8], m03 = m[9];
    tc_real m40 = m[10], m31 = m[11], m22 = m[12], m13 = m[13], m04 = m[14];
    // Basis b = 1, u, v, u², uv, v²: M_ij = sum w b_i b_j.
    tc_real M[6][6] = {{m00, m10, m01, m20, m11, m02}, {m10, m20, m11, m30, m21, m12}, {m01, m11, m02, m21, m12, m03},
                       {m20, m30, m21, m40, m31, m22}, {m11, m21, m12, m31, m22, m13}, {m02, m12, m03, m22, m13, m04}};
    if (!solve6(M, r, c)) return false;
    for (int i = 0; i < 6; ++i)
        if (!isfinite(c[i])) return false;
    return true;
}

// The local model at x from its gathered neighbours: centroid, weighted normal, height fit.
static bool fit_gather(const tc_surfel_surface* S, gather* g, tc_vec3 x, tc_surfel_fit* fit) {
    fit->f = 1e300;
    gather_weights(S, g);
    tc_real sums[7];
    centroid_sums(g, sums);
    tc_real wsum = sums[0];
    tc_vec3 ca = tc_v3(sums[1], sums[2], sums[3]), ns = tc_v3(sums[4], sums[5], sums[6]);
    tc_real len = tc_v3_len(ns);
    if (!(wsum > 1e-300) || !(len > 1e-300)) return false;
    ca = tc_v3_scale(ca, 1.0 / wsum);
    fit->a = tc_v3_add(x, ca);
    fit->n = tc_v3_scale(ns, 1.0 / len);
    tc_v3_basis(fit->n, &fit->t1, &fit->t2);
    fit->inv_h = 1.0 / S->h;
    if (!quadratic_height(g, ca, fit, fit->c)) // plane fit through the centroid
        for (int i = 0; i < 6; ++i) fit->c[i] = 0;
    fit->f = tc_surfel_fit_value(fit, x);
    return true;
}

bool tc_surfel_surface_fit(const tc_surfel_surface* S, tc_vec3 x, tc_surfel_fit* fit) {
    gather g;
    gather_near(S, x, &g);
    return fit_gather(S, &g, x, fit);
}

bool tc_surfel_surface_fit_direct(const tc_surfel_surface* S, tc_vec3 x, tc_surfel_fit* fit) {
    gather g;
    gather_from_grid(S, x, TC_SURFEL_CUTOFF * S->h, &g);
    if (g.count < GATHER_WIDEN) gather_from_grid(S, x, TC_SURFEL_REACH * S->h, &g);
    return fit_gather(S, &g, x, fit);
}

tc_real tc_surfel_surface_eval(const tc_surfel_surface* S, tc_vec3 x, tc_vec3* normal) {
    tc_surfel_fit fit;
    if (!tc_surfel_surface_fit(S, x, &fit)) return 1e300;
    if (normal) *normal = fit.n;
    return fit.f;
}

// Weighted centroid and normal sums around x; returns the weight sum.
static tc_real weighted_sums(const tc_surfel_surface* S, tc_vec3 x, tc_vec3* a, tc_vec3* nsum) {
    gather g;
    gather_near(S, x, &g);
    gather_weights(S, &g);
    tc_real sums[7];
    centroid_sums(&g, sums);
    tc_real wsum = sums[0];
    *a = tc_v3(sums[1], sums[2], sums[3]);
    *nsum = tc_v3(sums[4], sums[5], sums[6]);
    if (wsum > 0) *a = tc_v3_add(x, tc_v3_scale(*a, 1.0 / wsum));
    return wsum;
}

bool tc_surfel_surface_normal(const tc_surfel_surface* S, tc_vec3 x, tc_vec3* normal) {
    tc_vec3 a, ns;
    if (!(weighted_sums(S, x, &a, &ns) > 1e-300) || !(tc_v3_len(ns) > 1e-300)) return false;
    *normal = tc_v3_normalize(ns);
    return true;
}

bool tc_surfel_surface_project(const tc_surfel_surface* S, tc_vec3 x, tc_vec3* proj, tc_vec3* normal) {
    tc_vec3 n = tc_v3_zero();
    for (int it = 0; it < 20; ++it) {
        tc_real f = tc_surfel_surface_eval(S, x, &n);
        if (f >= 1e299) return false;
        x = tc_v3_madd(x, -f, n);
        if (fabs(f) < 1e-6 * S->h) break;
    }
    *proj = x;
    if (normal) *normal = n;
    return true;
}

bool tc_surfel_surface_inside(const tc_surfel_surface* S, tc_vec3 x) {
    tc_vec3 p, n;
    if (!tc_surfel_surface_project(S, x, &p, &n)) return false;
    tc_vec3 np;
    if (tc_surfel_surface_eval(S, p, &np) >= 1e299) return false;
    return tc_v3_dot(tc_v3_sub(x, p), np) < 0;
}

// The weighted covariance of the offsets about ca: {xx, xy, xz, yy, yz, zz}.
TC_VECTOR_CLONES static void weighted_covariance(const gather* g, tc_vec3 ca, tc_real cov[6]) {
    lanes a[6];
    for (int i = 0; i < 6; ++i) a[i] = lv_splat(0);
    for (int q = 0; q < g->padded; q += LANES) {
        lanes w = lv_load(g->w + q), dx = lv_sub(lv_load(g->ex + q), lv_splat(ca.x));
        lanes dy = lv_sub(lv_load(g->ey + q), lv_splat(ca.y)), dz = lv_sub(lv_load(g->ez + q), lv_splat(ca.z));
        lanes wx = lv_mul(w, dx), wy = lv_mul(w, dy);
        a[0] = lv_madd(a[0], wx, dx), a[1] = lv_madd(a[1], wx, dy), a[2] = lv_madd(a[2], wx, dz);
        a[3] = lv_madd(a[3], wy, dy), a[4] = lv_madd(a[4], wy, dz), a[5] = lv_madd(a[5], lv_mul(w, dz), dz);
    }
    tc_real t[4];
    lv_total4(a[0], a[1], a[2], a[3], cov);
    lv_total4(a[4], a[5], a[5], a[5], t);
    cov[4] = t[0], cov[5] = t[1];
}

// The weight sum and the weighted offset sums of the gathered points: centroid_sums' first four
// (the same lanes and totals: the same bits), without the normals' sums, which the PCA normal
// does not read.
TC_VECTOR_CLONES static void weight_sums(const gather* g, tc_real out[4]) {
    lanes s[4];
    for (int i = 0; i < 4; ++i) s[i] = lv_splat(0);
    for (int q = 0; q < g->padded; q += LANES) {
        lanes w = lv_load(g->w + q);
        s[0] = lv_add(s[0], w);
        s[1] = lv_madd(s[1], w, lv_load(g->ex + q)), s[2] = lv_madd(s[2], w, lv_load(g->ey + q));
        s[3] = lv_madd(s[3], w, lv_load(g->ez + q));
    }
    lv_total4(s[0], s[1], s[2], s[3], out);
}

// The eigenvector of the least eigenvalue of the symmetric 3x3 matrix a = {a00 a01 a02 a11 a12
// a22} by inverse iteration from ref: x <- adj(a) x, normalised (adj(a) = det(a) a^-1 has the
// same eigenvectors, the least one's eigenvalue the largest; no division, no singular pivot).
// The error falls by r = l_least / l_middle per step, measured from the steps' changes d_k (r ~
// d_k / d_(k-1)); it stops once r d_k, the error left, is below 1e-15. The contact surface's
// samples lie on a smooth surface: r ~ 1e-4 or less, 2-3 steps of ~30 instructions where the
// Jacobi decomposition took ~1,100. False (the caller decomposes) when it does not settle within
// 8 steps (l_least and l_middle close: a rim, few or collinear points) or when it settled on
// another eigenvector (ref with no component along the least one, or ref itself a larger one's:
// the iteration never leaves that plane), told by least_checked. The result is that eigenvector
// to within rounding (Jacobi's own bits differ at ~1e-16).
// x (unit) is the least eigenvector of a when no direction across it has a smaller Rayleigh
// quotient: the least eigenvalue of a restricted to the plane across x (2x2, closed form) is not
// below x's quotient (to 1e-12 of the trace: equal eigenvalues are either's).
static bool least_checked(const tc_real a[6], tc_vec3 x) {
    tc_vec3 t1, t2;
    tc_v3_basis(x, &t1, &t2);
    tc_vec3 ax[3];
    const tc_vec3 v[3] = {x, t1, t2};
    for (int i = 0; i < 3; ++i)
        ax[i] = tc_v3(a[0] * v[i].x + a[1] * v[i].y + a[2] * v[i].z, a[1] * v[i].x + a[3] * v[i].y + a[4] * v[i].z,
                      a[2] * v[i].x + a[4] * v[i].y + a[5] * v[i].z);
    tc_real mu = tc_v3_dot(x, ax[0]), p = tc_v3_dot(t1, ax[1]), q = tc_v3_dot(t2, ax[2]), b = tc_v3_dot(t1, ax[2]);
    tc_real half = 0.5 * (p - q), across = 0.5 * (p + q) - sqrt(half * half + b * b);
    return across >= mu - 1e-12 * fabs(a[0] + a[3] + a[5]);
}

// (least_iterate: the iteration, true when it settled, its vector in *out; least_checked then
// tells whether that is the least one.)
static bool least_iterate(const tc_real a[6], tc_vec3 ref, tc_vec3* out) {
    tc_real c00 = a[3] * a[5] - a[4] * a[4], c01 = a[2] * a[4] - a[1] * a[5], c02 = a[1] * a[4] - a[2] * a[3];
    tc_real c11 = a[0] * a[5] - a[2] * a[2], c12 = a[1] * a[2] - a[0] * a[4], c22 = a[0] * a[3] - a[1] * a[1];
    tc_vec3 x = tc_v3_normalize(ref);
    tc_real last = INFINITY;
    for (int k = 0; k < 8; ++k) {
        tc_vec3 y = tc_v3(c00 * x.x + c01 * x.y + c02 * x.z, c01 * x.x + c11 * x.y + c12 * x.z, c02 * x.x + c12 * x.y + c22 * x.z);
        tc_real len = tc_v3_len(y);
        if (!(len > 1e-300) || !isfinite(len)) return false;
        y = tc_v3_scale(y, 1 / len);
        tc_real d = tc_v3_len(tc_v3_sub(y, x));
        x = y;
        if (d == 0 || (k > 0 && d < last && d * d < 1e-15 * last)) { // r d_k = d_k^2 / d_(k-1)
            *out = x;
            return true;
        }
        last = d;
    }
    return false;
}

// The weighted covariance of the points gathered about x (offsets set, weights not yet) about
// their weighted centroid; false when too few or weightless for a PCA normal.
static bool pca_covariance(const tc_surfel_surface* S, gather* g, tc_real cov[6]) {
    gather_weights(S, g);
    tc_real sums[4];
    weight_sums(g, sums);
    tc_real wsum = sums[0];
    if (g->count < 3 || !(wsum > 1e-300)) return false;
    tc_vec3 ca = tc_v3_scale(tc_v3(sums[1], sums[2], sums[3]), 1.0 / wsum);
    weighted_covariance(g, ca, cov);
    return true;
}

// The PCA normal of covariance cov, oriented along ref: x where the inverse iteration from ref
// settled on the least eigenvector (least: least_iterate's answer and least_checked's), else
// Jacobi's.
static tc_vec3 pca_finish(const tc_real cov[6], tc_vec3 ref, bool least, tc_vec3 x) {
    tc_vec3 n = x;
    if (!least) {
        tc_mat3 C = {{{cov[0], cov[1], cov[2]}, {cov[1], cov[3], cov[4]}, {cov[2], cov[4], cov[5]}}};
        tc_vec3 values;
        tc_mat3 V;
        tc_eigen_sym3(C, &values, &V);
        n = tc_mat3_col(V, 0);
    }
    if (tc_v3_dot(n, ref) < 0) n = tc_v3_neg(n);
    return n;
}

static tc_vec3 pca_solve(const tc_real cov[6], tc_vec3 ref) {
    tc_vec3 x = tc_v3_zero();
    bool settled = least_iterate(cov, ref, &x);
    return pca_finish(cov, ref, settled && least_checked(cov, x), x);
}

#ifdef TILE_AVX2
// least_iterate for 4 covariances at once (lane l: entries a[k] lane l, reference r[0..2] lane
// l): the same operations lane by lane, the same bits; a lane that settled or failed keeps its
// result while the others go on. Returns the lanes that settled (their vectors in out, by
// component), in a fraction of the time of 4 solves one by one (each a latency chain of square
// roots and divisions: ~200 TSC ticks).
__attribute__((target("avx2"))) static unsigned least_iterate4(const __m256d a[6], const __m256d r[3], __m256d out[3]) {
    __m256d c00 = _mm256_sub_pd(_mm256_mul_pd(a[3], a[5]), _mm256_mul_pd(a[4], a[4]));
    __m256d c01 = _mm256_sub_pd(_mm256_mul_pd(a[2], a[4]), _mm256_mul_pd(a[1], a[5]));
    __m256d c02 = _mm256_sub_pd(_mm256_mul_pd(a[1], a[4]), _mm256_mul_pd(a[2], a[3]));
    __m256d c11 = _mm256_sub_pd(_mm256_mul_pd(a[0], a[5]), _mm256_mul_pd(a[2], a[2]));
    __m256d c12 = _mm256_sub_pd(_mm256_mul_pd(a[1], a[2]), _mm256_mul_pd(a[0], a[4]));
    __m256d c22 = _mm256_sub_pd(_mm256_mul_pd(a[0], a[3]), _mm256_mul_pd(a[1], a[1]));
    __m256d one = _mm256_set1_pd(1.0), tiny = _mm256_set1_pd(1e-300), inf = _mm256_set1_pd(INFINITY), eps = _mm256_set1_pd(1e-15);
    // x = tc_v3_normalize(r): r / |r|, zero where |r| <= 1e-300
    __m256d l = _mm256_sqrt_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(r[0], r[0]), _mm256_mul_pd(r[1], r[1])), _mm256_mul_pd(r[2], r[2])));
    __m256d s = _mm256_div_pd(one, l), unit = _mm256_cmp_pd(l, tiny, _CMP_GT_OQ);
    __m256d x0 = _mm256_and_pd(_mm256_mul_pd(r[0], s), unit), x1 = _mm256_and_pd(_mm256_mul_pd(r[1], s), unit);
    __m256d x2 = _mm256_and_pd(_mm256_mul_pd(r[2], s), unit);
    __m256d last = inf, active = _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), settled = _mm256_setzero_pd();
    __m256d o0 = x0, o1 = x1, o2 = x2;
    for (int k = 0; k < 8 && _mm256_movemask_pd(active); ++k) {
        __m256d y0 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c00, x0), _mm256_mul_pd(c01, x1)), _mm256_mul_pd(c02, x2));
        __m256d y1 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c01, x0), _mm256_mul_pd(c11, x1)), _mm256_mul_pd(c12, x2));
        __m256d y2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c02, x0), _mm256_mul_pd(c12, x1)), _mm256_mul_pd(c22, x2));
        __m256d len = _mm256_sqrt_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(y0, y0), _mm256_mul_pd(y1, y1)), _mm256_mul_pd(y2, y2)));
        __m256d bad = _mm256_or_pd(_mm256_cmp_pd(len, tiny, _CMP_NGT_UQ), _mm256_cmp_pd(len, inf, _CMP_EQ_OQ)); // (len >= 0 or NaN)
        __m256d inv = _mm256_div_pd(one, len);
        y0 = _mm256_mul_pd(y0, inv), y1 = _mm256_mul_pd(y1, inv), y2 = _mm256_mul_pd(y2, inv);
        __m256d e0 = _mm256_sub_pd(y0, x0), e1 = _mm256_sub_pd(y1, x1), e2 = _mm256_sub_pd(y2, x2);
        __m256d d = _mm256_sqrt_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(e0, e0), _mm256_mul_pd(e1, e1)), _mm256_mul_pd(e2, e2)));
        x0 = y0, x1 = y1, x2 = y2;
        __m256d done = _mm256_cmp_pd(d, _mm256_setzero_pd(), _CMP_EQ_OQ);
        if (k > 0)
            done = _mm256_or_pd(done, _mm256_and_pd(_mm256_cmp_pd(d, last, _CMP_LT_OQ),
                                                    _mm256_cmp_pd(_mm256_mul_pd(d, d), _mm256_mul_pd(eps, last), _CMP_LT_OQ)));
        __m256d now = _mm256_andnot_pd(bad, _mm256_and_pd(active, done));
        o0 = _mm256_blendv_pd(o0, x0, now), o1 = _mm256_blendv_pd(o1, x1, now), o2 = _mm256_blendv_pd(o2, x2, now);
        settled = _mm256_or_pd(settled, now);
        active = _mm256_andnot_pd(_mm256_or_pd(bad, done), active);
        last = d;
    }
    out[0] = o0, out[1] = o1, out[2] = o2;
    return (unsigned)_mm256_movemask_pd(settled);
}

// a (by entry) times v, lane by lane (least_checked's products and sums).
__attribute__((target("avx2"), always_inline)) static inline void sym_times4(const __m256d a[6], const __m256d v[3], __m256d out[3]) {
    out[0] = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[0], v[0]), _mm256_mul_pd(a[1], v[1])), _mm256_mul_pd(a[2], v[2]));
    out[1] = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[1], v[0]), _mm256_mul_pd(a[3], v[1])), _mm256_mul_pd(a[4], v[2]));
    out[2] = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[2], v[0]), _mm256_mul_pd(a[4], v[1])), _mm256_mul_pd(a[5], v[2]));
}

__attribute__((target("avx2"), always_inline)) static inline __m256d dot4(const __m256d a[3], const __m256d b[3]) {
    return _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[0], b[0]), _mm256_mul_pd(a[1], b[1])), _mm256_mul_pd(a[2], b[2]));
}

// a x b, lane by lane (tc_v3_cross's operations).
__attribute__((target("avx2"), always_inline)) static inline void cross4(const __m256d a[3], const __m256d b[3], __m256d out[3]) {
    out[0] = _mm256_sub_pd(_mm256_mul_pd(a[1], b[2]), _mm256_mul_pd(a[2], b[1]));
    out[1] = _mm256_sub_pd(_mm256_mul_pd(a[2], b[0]), _mm256_mul_pd(a[0], b[2]));
    out[2] = _mm256_sub_pd(_mm256_mul_pd(a[0], b[1]), _mm256_mul_pd(a[1], b[0]));
}

// least_checked for 4 lanes (tc_v3_basis's choice of axis by a select, then the same
// operations lane by lane): the lanes where it holds.
__attribute__((target("avx2"))) static unsigned least_checked4(const __m256d a[6], const __m256d x[3]) {
    __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0), sign = _mm256_set1_pd(-0.0);
    __m256d along_x = _mm256_cmp_pd(_mm256_andnot_pd(sign, x[0]), _mm256_set1_pd(0.57735), _CMP_LT_OQ); // (fabs(x) < 0.57735)
    __m256d axis[3] = {_mm256_blendv_pd(zero, one, along_x), _mm256_blendv_pd(one, zero, along_x), zero}, c[3], t1[3], t2[3];
    cross4(axis, x, c);
    __m256d l = _mm256_sqrt_pd(dot4(c, c)), s = _mm256_div_pd(one, l), unit = _mm256_cmp_pd(l, _mm256_set1_pd(1e-300), _CMP_GT_OQ);
    for (int k = 0; k < 3; ++k) t1[k] = _mm256_and_pd(_mm256_mul_pd(c[k], s), unit); // (tc_v3_normalize)
    cross4(x, t1, t2);
    __m256d ax0[3], ax1[3], ax2[3];
    sym_times4(a, x, ax0), sym_times4(a, t1, ax1), sym_times4(a, t2, ax2);
    __m256d mu = dot4(x, ax0), p = dot4(t1, ax1), q = dot4(t2, ax2), b = dot4(t1, ax2), half = _mm256_set1_pd(0.5);
    __m256d h = _mm256_mul_pd(half, _mm256_sub_pd(p, q));
    __m256d across = _mm256_sub_pd(_mm256_mul_pd(half, _mm256_add_pd(p, q)), _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(h, h), _mm256_mul_pd(b, b))));
    __m256d trace = _mm256_andnot_pd(sign, _mm256_add_pd(_mm256_add_pd(a[0], a[3]), a[5]));
    __m256d bound = _mm256_sub_pd(mu, _mm256_mul_pd(_mm256_set1_pd(1e-12), trace));
    return (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(across, bound, _CMP_GE_OQ));
}

// The normals of samples [i, i + 4) (those before count) from the covariances by entry (cov + k
// stride, has[] where one was made), least_iterate4 for the iterations.
__attribute__((target("avx2"))) static void pca_solve4(const tc_real* cov, size_t stride, const uint8_t* has, int i, int count,
                                                       const tc_vec3* ref, tc_vec3* normal) {
    __m256d a[6], r[3];
    for (int k = 0; k < 6; ++k) a[k] = _mm256_loadu_pd(cov + (size_t)k * stride + i);
    tc_real rl[3][4];
    for (int q = 0; q < 4; ++q) {
        tc_vec3 v = i + q < count ? ref[i + q] : tc_v3_zero();
        rl[0][q] = v.x, rl[1][q] = v.y, rl[2][q] = v.z;
    }
    for (int k = 0; k < 3; ++k) r[k] = _mm256_loadu_pd(rl[k]);
    __m256d x[3];
    unsigned least = least_iterate4(a, r, x);
    least &= least_checked4(a, x);
    tc_real xl[3][4];
    for (int k = 0; k < 3; ++k) _mm256_storeu_pd(xl[k], x[k]);
    for (int q = 0; q < 4 && i + q < count; ++q) {
        if (!has[i + q]) { normal[i + q] = ref[i + q]; continue; }
        tc_real c[6];
        for (int k = 0; k < 6; ++k) c[k] = cov[(size_t)k * stride + i + q];
        normal[i + q] = pca_finish(c, ref[i + q], least >> q & 1, tc_v3(xl[0][q], xl[1][q], xl[2][q]));
    }
}
#endif

// The PCA normal from the points gathered about x (offsets set, weights not yet).
static bool pca_of_gather(const tc_surfel_surface* S, gather* g, tc_vec3 ref, tc_vec3* normal) {
    tc_real cov[6];
    if (!pca_covariance(S, g, cov)) return false;
    *normal = pca_solve(cov, ref);
    return true;
}

bool tc_surfel_surface_pca_normal(const tc_surfel_surface* S, tc_vec3 x, tc_vec3 ref, tc_vec3* normal) {
    gather g;
    gather_near(S, x, &g);
    return pca_of_gather(S, &g, ref, normal);
}

// The offsets of the points of the sorted runs [run[i][0], run[i][1]) within sqrt(cut2) of x
// into g (ex ey ez only), in order; returns their count (portable code).
static int pca_rows_scalar(const tc_surfel_surface* S, int (*run)[2], int runs, tc_vec3 x, tc_real cut2, gather* g) {
    const tc_vec3* cs = S->cs;
    int n = 0;
    for (int i = 0; i < runs; ++i)
        for (int t = run[i][0], end = run[i][1]; t < end; ++t) { // branch-free, as the gather
            tc_real ex = cs[t].x - x.x, ey = cs[t].y - x.y, ez = cs[t].z - x.z;
            g->ex[n] = ex, g->ey[n] = ey, g->ez[n] = ez;
            n += ex * ex + ey * ey + ez * ez <= cut2;
        }
    return n;
}

#ifdef TILE_AVX2
// pca_rows_scalar 4 points at a time from the SoA copies (the tile filter's operations: the
// same differences, squares, sums and test; the lanes past a run's end masked off).
__attribute__((target("avx2"))) static int pca_rows_avx2(const tc_surfel_surface* S, int (*run)[2], int runs, tc_vec3 x, tc_real cut2,
                                                         gather* g) {
    size_t ss = (size_t)S->sorted_count + 4;
    const tc_real* src = S->soa;
    __m256d px = _mm256_set1_pd(x.x), py = _mm256_set1_pd(x.y), pz = _mm256_set1_pd(x.z), c2 = _mm256_set1_pd(cut2);
    int n = 0;
    for (int i = 0; i < runs; ++i)
        for (int q = run[i][0], end = run[i][1]; q < end; q += LANES) {
            __m256d ex = _mm256_sub_pd(_mm256_loadu_pd(src + q), px), ey = _mm256_sub_pd(_mm256_loadu_pd(src + ss + q), py);
            __m256d ez = _mm256_sub_pd(_mm256_loadu_pd(src + 2 * ss + q), pz);
            __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey)), _mm256_mul_pd(ez, ez));
            int left = end - q; // (the lanes within the run by a select: the tail's branch mispredicted ~1,000 times a call at 20 mm)
            unsigned m = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, c2, _CMP_LE_OQ)) & ((1u << (left < LANES ? left : LANES)) - 1);
            __m256i perm = _mm256_loadu_si256((const __m256i*)tc_compact_perm_pd[m]);
            tc_compact_store_pd(g->ex + n, ex, perm), tc_compact_store_pd(g->ey + n, ey, perm), tc_compact_store_pd(g->ez + n, ez, perm);
            n += __builtin_popcount(m);
        }
    return n;
}
#endif

// Appends the sorted run [t, end) to run (joined to the last one where it continues it).
static void add_run(int (*run)[2], int* runs, int t, int end) {
    if (t == end) return;
    if (*runs > 0 && run[*runs - 1][1] == t) run[*runs - 1][1] = end;
    else run[*runs][0] = t, run[*runs][1] = end, ++*runs;
}

// The offsets of the points within the cut-off 2h of x (gather_near's: the same offsets, test
// and grid order) for the PCA normal, which reads no normals: the grid rows within reach, walked
// once (a tile served ~2 of these gathers on a surface of samples and cost more to fill than
// the walk), as runs of the sorted copies: rows that follow one another there are one run (on a
// thin patch across x a query spans whole rows, and then those of a plane are one run, found
// without visiting them). false when that would not be gather_near's gather (fewer than
// GATHER_WIDEN points: it takes the reach; room for GATHER_MAX or more), or the rows are too
// many for the run list.
static bool pca_gather(const tc_surfel_surface* S, tc_vec3 x, gather* g) {
    enum { MAX_RUNS = 64 }; // (at most 4 x 4 rows for cells of 1.5h)
    int lo[3], hi[3], run[MAX_RUNS][2], runs = 0;
    const tc_point_grid* grid = &S->grid;
    tc_real r = TC_SURFEL_CUTOFF * S->h, cut2 = r * r;
    if (!grid->start || !S->cs || !S->soa || !tc_point_grid_range(grid, x, r, lo, hi)) return false;
    if ((hi[2] - lo[2] + 1) * (hi[1] - lo[1] + 1) > MAX_RUNS) return false;
    const int* start = grid->start;
    int d0 = grid->dims[0], d1 = grid->dims[1];
    if (lo[0] == 0 && hi[0] == d0 - 1) // whole rows
        for (int cz = lo[2]; cz <= hi[2]; ++cz) add_run(run, &runs, start[(cz * d1 + lo[1]) * d0], start[(cz * d1 + hi[1] + 1) * d0]);
    else
        for (int cz = lo[2]; cz <= hi[2]; ++cz)
            for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                int row = (cz * d1 + cy) * d0;
                add_run(run, &runs, start[row + lo[0]], start[row + hi[0] + 1]);
            }
    int most = 0;
    for (int i = 0; i < runs; ++i) most += run[i][1] - run[i][0];
    if (most > GATHER_MAX - LANES) return false; // (the filters write LANES entries past the count)
    int n;
#ifdef TILE_AVX2
    if (tile_has_avx2()) n = pca_rows_avx2(S, run, runs, x, cut2, g);
    else
#endif
        n = pca_rows_scalar(S, run, runs, x, cut2, g);
    if (n < GATHER_WIDEN) return false;
    g->count = n;
    g->padded = (n + LANES - 1) / LANES * LANES;
    for (int l = 0; l < LANES; ++l) g->ex[n + l] = g->ey[n + l] = g->ez[n + l] = 0; // (as gather_pad)
    return true;
}

// Two passes: the covariances of all samples, then their eigenvectors, with AVX2 4 samples at
// a time (each solve is a latency chain of square roots and divisions). The covariances by
// entry (6 rows of count + 4, zero where a sample has none: has[i] 0, its normal is ref's).
void tc_surfel_surface_pca_normals(const tc_surfel_surface* S, const tc_vec3* ref, tc_vec3* normal) {
    gather g;
    size_t stride = (size_t)(S->count > 0 ? S->count : 0) + 4, size = 6 * stride * sizeof(tc_real);
    tc_real* cov = tc_alloc(size);
    uint8_t* has = tc_alloc(stride);
    if (!cov || !has) { // (out of memory: one pass)
        if (cov) tc_free(cov, size);
        if (has) tc_free(has, stride);
        for (int i = 0; i < S->count; ++i) {
            if (!pca_gather(S, S->s[i], &g)) gather_near(S, S->s[i], &g);
            if (!pca_of_gather(S, &g, ref[i], &normal[i])) normal[i] = ref[i];
        }
        return;
    }
    for (int i = 0; i < S->count; ++i) {
        if (!pca_gather(S, S->s[i], &g)) gather_near(S, S->s[i], &g);
        tc_real c[6] = {0};
        has[i] = pca_covariance(S, &g, c);
        for (int k = 0; k < 6; ++k) cov[(size_t)k * stride + i] = has[i] ? c[k] : 0;
    }
    for (size_t t = (size_t)S->count; t < stride; ++t) // (the padding, read by the last lanes)
        for (int k = 0; k < 6; ++k) cov[(size_t)k * stride + t] = 0;
    int i = 0;
#ifdef TILE_AVX2
    if (tile_has_avx2())
        for (; i < S->count; i += 4) pca_solve4(cov, stride, has, i, S->count, ref, normal);
#endif
    for (; i < S->count; ++i) {
        tc_real c[6];
        for (int k = 0; k < 6; ++k) c[k] = cov[(size_t)k * stride + i];
        normal[i] = has[i] ? pca_solve(c, ref[i]) : ref[i];
    }
    tc_free(cov, size);
    tc_free(has, stride);
}

// ---- normal cones ----------------------------------------------------------------------------
// Cones holding normals: a unit axis and the least cosine of a normal to it (-1: none, the
// normals cancel or spread over a half space). Two cones' normals are within the sum of the
// half angles plus the axes' angle: cos(a + b) = ca cb - sa sb, without acos (libm-free bits).
static tc_real cone_cos_sum(tc_real ca, tc_real cb) {
    if (!(ca > 0 && cb > 0)) return -1;
    tc_real c = ca * cb - sqrt((1 - ca * ca) * (1 - cb * cb));
    return c > 0 ? c : -1;
}

// The normal of the surfel at grid position t: from the copies in grid order when the build
// made them (the same values, read in a row; S->n[items[t]] jumps about: those loads, mostly
// missed, were a sixth of flat_at's time), else from S->n.
static inline tc_vec3 grid_normal(const tc_surfel_surface* S, const tc_real* rec, int t) {
    if (rec) {
        const tc_real* c = rec + 6 * (size_t)t;
        return tc_v3(c[3], c[4], c[5]);
    }
    return S->n[S->grid.items[t]];
}

static inline bool cone_made(const uint64_t* made, int cell) { return made[cell >> 6] >> (cell & 63) & 1; }
static inline void cone_mark(uint64_t* made, int cell) { made[cell >> 6] |= (uint64_t)1 << (cell & 63); }

// The cone of cell's surfels' normals (its axis their normalised sum), made once per cache clear.
static const tc_real* cell_cone(const tc_surfel_surface* S, struct tc_surfel_tiles* tc, int cell) {
    tc_real* cone = tc->cone[cell].v;
    if (cone_made(tc->cone_made, cell)) return cone;
    const tc_point_grid* g = &S->grid;
    const tc_real* rec = S->cs && S->rec && S->soa ? S->rec : NULL; // (all three made: filled)
    tc_vec3 sum = tc_v3_zero();
    for (int t = g->start[cell]; t < g->start[cell + 1]; ++t) sum = tc_v3_add(sum, grid_normal(S, rec, t));
    tc_real len = tc_v3_len(sum), least = -1;
    tc_vec3 axis = tc_v3_zero();
    if (len > 1e-12) {
        axis = tc_v3_scale(sum, 1 / len);
        least = 1;
        for (int t = g->start[cell]; t < g->start[cell + 1]; ++t) {
            tc_real c = tc_v3_dot(grid_normal(S, rec, t), axis);
            least = c < least ? c : least;
        }
    }
    cone[0] = axis.x, cone[1] = axis.y, cone[2] = axis.z, cone[3] = least;
    cone_mark(tc->cone_made, cell);
    return cone;
}

// Room for the cones of n cells (none made: the cones are not filled, only the bitmaps
// zeroed); false when out of memory (the old ones are kept).
static bool cones_reserve(struct tc_surfel_tiles* tc, int n) {
    if (tc->cone_cap >= n) return true;
    size_t words = cone_words(n);
    struct cone_entry *cone = tc_alloc((size_t)n * sizeof *cone), *bcone = tc_alloc((size_t)n * sizeof *bcone);
    uint64_t *made = tc_calloc(words, sizeof(uint64_t)), *bmade = tc_calloc(words, sizeof(uint64_t));
    if (!cone || !bcone || !made || !bmade) {
        tc_free(cone, (size_t)n * sizeof *cone), tc_free(bcone, (size_t)n * sizeof *bcone);
        tc_free(made, words * sizeof(uint64_t)), tc_free(bmade, words * sizeof(uint64_t));
        return false;
    }
    cones_free(tc);
    tc->cone = cone, tc->bcone = bcone, tc->cone_made = made, tc->bcone_made = bmade, tc->cone_cap = n;
    return true;
}

// The cone of the normals of the 3x3x3 cells around cell c = (cx, cy, cz), from theirs: the axis
// is their count-weighted mean axis, the half angle the largest of a cell's axis-to-axis angle
// plus its own.
static const tc_real* block_cone(const tc_surfel_surface* S, struct tc_surfel_tiles* tc, const int c[3]) {
    const tc_point_grid* g = &S->grid;
    int self = (c[2] * g->dims[1] + c[1]) * g->dims[0] + c[0], lo[3], hi[3];
    tc_real* out = tc->bcone[self].v;
    if (cone_made(tc->bcone_made, self)) return out;
    for (int k = 0; k < 3; ++k) {
        lo[k] = c[k] > 0 ? c[k] - 1 : 0;
        hi[k] = c[k] < g->dims[k] - 1 ? c[k] + 1 : g->dims[k] - 1;
    }
    const tc_real* cones[27];
    int n = 0;
    tc_vec3 sum = tc_v3_zero();
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * g->dims[1] + cy) * g->dims[0];
            if (g->start[row + lo[0]] == g->start[row + hi[0] + 1]) continue; // (most rows of a surface are empty)
            for (int cell = row + lo[0]; cell <= row + hi[0]; ++cell) {
                int count = g->start[cell + 1] - g->start[cell];
                if (!count) continue;
                const tc_real* cone = cones[n++] = cell_cone(S, tc, cell);
                sum = tc_v3_madd(sum, (tc_real)count, tc_v3(cone[0], cone[1], cone[2]));
            }
        }
    tc_real len = tc_v3_len(sum), least = len > 1e-12 ? 1 : -1;
    tc_vec3 axis = len > 1e-12 ? tc_v3_scale(sum, 1 / len) : tc_v3_zero();
    for (int i = 0; i < n && least > 0; ++i) {
        tc_real ci = cone_cos_sum(cones[i][3], cones[i][0] * axis.x + cones[i][1] * axis.y + cones[i][2] * axis.z);
        least = ci < least ? ci : least;
    }
    out[0] = axis.x, out[1] = axis.y, out[2] = axis.z, out[3] = least;
    cone_mark(tc->bcone_made, self);
    return out;
}

bool tc_surfel_surface_flat_at(const tc_surfel_surface* S, tc_vec3 x, tc_vec3 n, tc_real cos_max) {
    const tc_point_grid* g = &S->grid;
    struct tc_surfel_tiles* tc = tiles_of(S);
    if (!tc || !g->start || !S->n || !cones_reserve(tc, g->cell_count)) return false;
    int c[3];
    for (int k = 0; k < 3; ++k) { // (as tile_of: x's cell, false outside the grid)
        tc_real v = (tc_v3_get(x, k) - tc_v3_get(g->origin, k)) * g->inv_cell;
        if (!(v >= 0 && v < g->dims[k])) return false;
        c[k] = (int)v;
    }
    const tc_real* cone = block_cone(S, tc, c);
    return cone_cos_sum(cone[3], cone[0] * n.x + cone[1] * n.y + cone[2] * n.z) >= cos_max;
}
