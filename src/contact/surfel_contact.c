// Contact surface between two point bodies (seed 000 §6-7): colliding surfels are moved onto
// F(x) = E_A f_A(x) - E_B f_B(x) = 0 by Brent's method along the segment to their projection on
// the other surface, the samples are relaxed and resampled, and penalty forces per sample,
// scaled by area share, are distributed to the phyxels with the poly6 kernel.
#include "contact/surfel_contact.h"
#include "contact/brent.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

// fmin and fmax (a NaN argument ignored) without the libm call on the baseline target.
static inline tc_real real_min(tc_real a, tc_real b) { return a < b || b != b ? a : b; }
static inline tc_real real_max(tc_real a, tc_real b) { return a > b || b != b ? a : b; }

// tc_array_push without its call while there is room (most pushes here are in per-sample loops).
#define array_push(a, value) ((a)->count < (a)->capacity ? ((a)->data[(a)->count++] = (value), true) : tc_array_push((a), (value)))
// tc_array_reserve(a, a->count + 1) without its call while there is room.
#define array_room(a) ((a)->count < (a)->capacity || tc_array_reserve((a), (a)->count + 1))

void tc_surfel_contact_free(tc_surfel_contact* c) {
    tc_array_free(&c->points);
    tc_array_free(&c->normals);
    tc_array_free(&c->forces);
    tc_array_free(&c->nearest_a);
    tc_array_free(&c->nearest_b);
    tc_array_free(&c->depth);
    tc_array_free(&c->surface_dist_a);
    tc_array_free(&c->surface_dist_b);
}

static tc_real eval_f(const tc_points_body* b, tc_vec3 x, tc_vec3* n) { return tc_surfel_surface_eval(&b->surface, x, n); }

tc_real tc_contact_surface_function(const tc_points_body* A, const tc_points_body* B, tc_vec3 x) {
    tc_real fa = eval_f(A, x, NULL), fb = eval_f(B, x, NULL);
    if (fa >= 1e299 || fb >= 1e299) return NAN;
    return A->mat.youngs * fa - B->mat.youngs * fb;
}

typedef struct segment_ctx {
    const tc_points_body *A, *B;
    tc_vec3 from, to;                 ///< self's surfel, its projection on other
    bool from_is_a;                   ///< the segment starts on A
    tc_real last_t, last_fa, last_fb; ///< the latest evaluation, reused for the inside test
    bool last_modelled;               ///< an f of the latest evaluation came from the linear model
} segment_ctx;

// f of A or B at x(t); beyond the body's MLS reach (a segment longer than 3h) the linear
// model along the segment, which the seed was classified with: 0 at the body's own end,
// -len at the other end (it only guides Brent there: a root where it was used is no sample).
static tc_real segment_f(segment_ctx* s, bool of_a, tc_real t, tc_vec3 x) {
    tc_real f = eval_f(of_a ? s->A : s->B, x, NULL);
    if (f < 1e299) return f;
    s->last_modelled = true;
    tc_real len = tc_v3_dist(s->from, s->to);
    return of_a == s->from_is_a ? -t * len : -(1 - t) * len;
}

static tc_real segment_g(tc_real t, void* ctx) {
    segment_ctx* s = ctx;
    tc_vec3 x = tc_v3_lerp(s->from, s->to, t);
    s->last_t = t;
    s->last_modelled = false;
    s->last_fa = segment_f(s, true, t, x);
    s->last_fb = segment_f(s, false, t, x);
    return s->A->mat.youngs * s->last_fa - s->B->mat.youngs * s->last_fb;
}

// Both surfaces within a small tolerance of containing x (on Phi both f are <= 0).
static bool inside_both(const tc_points_body* A, const tc_points_body* B, tc_vec3 x) {
    tc_real fa = eval_f(A, x, NULL), fb = eval_f(B, x, NULL);
    tc_real tol = 1e-3 * fmin(A->surface.h, B->surface.h);
    return fa <= tol && fb <= tol;
}

// Projection on `other` starting from s where f_other(s) = f, n_other(s) = n are known;
// returns the residual f at the projection through *f_end.
static bool project_from(const tc_points_body* other, tc_vec3 s, tc_real f, tc_vec3 n, tc_vec3* proj, tc_real* f_end) {
    for (int it = 0; it < 20; ++it) {
        s = tc_v3_madd(s, -f, n);
        f = eval_f(other, s, &n);
        if (f >= 1e299) return false;
        if (fabs(f) < 1e-6 * other->surface.h) break;
    }
    *proj = s;
    *f_end = f;
    return true;
}

// Surfel k of `self` inside `other` (f_other(s) = f < 0, normal n): root of F on
// [s, projection of s on other's surface] by Brent.
static bool seed_sample(const tc_points_body* A, const tc_points_body* B, const tc_points_body* self, const tc_points_body* other,
                        int k, tc_real f, tc_vec3 n, tc_vec3* out) {
    tc_vec3 s = self->s[k], proj;
    tc_real f_proj;
    if (!project_from(other, s, f, n, &proj, &f_proj)) return false;
    tc_real len = tc_v3_dist(s, proj);
    if (len < 1e-12) { *out = s; return true; }
    bool self_is_a = self == A;
    segment_ctx ctx = {A, B, s, proj, self_is_a, -1, 0, 0, false};
    tc_real fs_self = segment_f(&ctx, self_is_a, 0, s), fp_self = segment_f(&ctx, self_is_a, 1, proj);
    tc_real e_self = self->mat.youngs, e_other = other->mat.youngs, sign = self_is_a ? 1 : -1;
    tc_real g0 = sign * (e_self * fs_self - e_other * f), g1 = sign * (e_self * fp_self - e_other * f_proj);
    tc_real t, h = fmin(A->surface.h, B->surface.h);
    if (!tc_brent_known(segment_g, &ctx, 0, 1, g0, g1, 1e-6 * h / len, 50, &t, NULL)) return false;
    *out = tc_v3_lerp(s, proj, t);
    if (ctx.last_t != t) segment_g(t, &ctx);
    if (ctx.last_modelled) return false; // beyond a surface's reach: F is not defined there
    tc_real tol = 1e-3 * h; // non-convex overlap: drop samples that left the overlap
    return ctx.last_fa <= tol && ctx.last_fb <= tol;
}

// ---- seeding on local fits ----------------------------------------------------------------
// The exact root search above fits both MLS surfaces ~20 times per sample. Here the root is
// taken on the two local fits (tc_surfel_fit) made at one point of the segment, which are
// analytic: F along the segment is then a quadratic, solved in closed form (quadratic_root).
// The fits are exact at their point and within ~1.5e-4 h of the MLS surfaces at h/4 from it,
// ~6.5e-4 h at h/2 and ~9e-4 h at 0.75 h on a sphere of 10 h radius (the quadratic patches of
// smooth surfaces). Off its surface a fit keeps the surface's curvature kappa while the level
// set |f| away bends by ~kappa^2 |f| more (inside) or less (outside): at r from the fit point
// its f is off by ~r^2/2 kappa^2 |f| more (at 0.75 h on that sphere: 2.9e-3 h 1 h off it,
// 6.4e-3 h 2 h off). A root within a fit's reach is accepted on the fits; the reach (fit_reach)
// is 0.75 h where the surfels around the fit's foot all face within 25 degrees of its normal
// (tc_surfel_surface_flat_at) and that bias stays within 2e-3 h, h/2 where flat but more biased
// (as before), h/4 elsewhere (edges, corners), and never further than 2.75 h - |f| (every point
// of the reach within ~2.75 h of the surface, where the MLS f is defined, 3 h: 0.75 h without
// these bounds accepted 3 seeds where F is undefined at 7 cm of overlap). On the bench's
// spheres (R = 19 h) the bias allows 0.75 h up to 2.5 h off, the depth bound up to 2 h: 21.20 ->
// 19.95 M instructions at 20 mm (more seeds share an earlier seed's fits, fewer roots are
// refitted); |F| at the seeds 1.4e-4 h at 3 cm (test_seeds_on_fits_match_exact_roots; 1.3e-4 h
// with h/2, 4.4e-4 h with 0.75 h regardless of the bias, 6.9e-4 h with h everywhere; h with the
// bias bound: more instructions, cells of 2 h). Samples at 20 mm moved by <= 2.7e-4 h.
// Otherwise both surfaces are fitted again at the root; if F there is within 1e-4 h of zero (as
// a distance) it is accepted, else the search repeats from the new fits. The samples keep their
// fits for the re-projections (reproject below). (h/2 everywhere, edges too: 40 mm on the bench
// 6% fewer instructions again, but |F| at box edges 0.06 h instead of 0.025 h.)

#define FLAT_COS 0.9063    // cos 25 degrees (a block of cells on the bench's spheres: ~14 degrees)
#define FIT_REACH_FLAT 0.75 // the largest reach (h)
#define FIT_BIAS 2e-3      // the curvature bias allowed at that reach (h)
#define FIT_DEPTH 2.75     // |f| + reach at most (h): within the MLS reach, 3 h

// The two local fits a sample was last placed with (made at at_a and at_b, trusted within ra
// and rb of there, m), reused when it moves.
typedef struct sample_fits { bool valid; tc_vec3 at_a, at_b; tc_real ra, rb; tc_surfel_fit fa, fb; } sample_fits;

// The reach of fit f of S made at `at` (above): 0.75 h, h/2 or h/4, within 2.75 h - |f|, h the
// pair's. (kappa: the largest curvature of the fit's patch, as in cover_skip_radius.)
static tc_real fit_reach(const tc_surfel_surface* S, tc_vec3 at, const tc_surfel_fit* f, tc_real h) {
    tc_real depth = fabs(f->f), r = 0.25 * h;
    if (tc_surfel_surface_flat_at(S, tc_v3_madd(at, -f->f, f->n), f->n, FLAT_COS)) {
        const tc_real* c = f->c;
        tc_real kappa = 2 * (real_max(fabs(c[3]), fabs(c[5])) + 0.5 * fabs(c[4])) * f->inv_h * f->inv_h;
        r = 0.5 * FIT_REACH_FLAT * FIT_REACH_FLAT * h * kappa * kappa * depth <= FIT_BIAS ? FIT_REACH_FLAT * h : 0.5 * h;
    }
    return real_min(r, FIT_DEPTH * h - depth);
}

// |x - at| < r (tc_v3_dist's test) from the squared distance where it is clear by a margin of
// 1e-9 (sqrt is correctly rounded: the same answers), the square root taken only in between
// (for r > 1e-100: its square is a normal number). reproject tests both reaches before and
// after its Newton steps: four square roots a call, most of them gone (relaxation's
// re-projections 0.092 -> 0.085 M TSC ticks a call at 20 mm, minima of probed runs).
static inline bool within(tc_vec3 x, tc_vec3 at, tc_real r) {
    tc_real d2 = tc_v3_len2(tc_v3_sub(x, at)), r2 = r * r;
    if (r > 1e-100 && d2 < r2 * (1 - 1e-9)) return true;
    if (r > 1e-100 && d2 > r2 * (1 + 1e-9)) return false;
    return sqrt(d2) < r;
}

// x within the reach of both fits.
static inline bool fits_reach(const sample_fits* sf, tc_vec3 x) { return within(x, sf->at_a, sf->ra) && within(x, sf->at_b, sf->rb); }
typedef TC_ARRAY(sample_fits) fits_array;

// Settled fit pairs of the seeds so far, found by the point of their A fit (cells of 1.5 h).
// Seeds of both bodies land on the same contact surface, about 0.5 h apart: a pair made for
// one is often within the reach of the next one's first point and serves as its first
// model (the root is then accepted or refitted exactly as with a fresh pair). The search
// reads only the entries (the fits' points and reaches, 112 bytes); the pairs (392 bytes) are
// kept apart at the same index.
// (ra2, rb2: the squared reaches a little widened, which pass every point in reach before its
// square root is taken.)
enum { FIT_BUCKETS = 4096 };
typedef struct fit_entry { tc_vec3 at_a, at_b; tc_real ra, rb, ra2, rb2; int64_t key[3]; int next; } fit_entry;
typedef TC_ARRAY(fit_entry) fit_entry_array;
typedef struct fit_table {
    tc_real cell, inv_cell;
    int head[FIT_BUCKETS]; ///< first entry of each bucket, -1 when empty
    fit_entry_array entries;
    fits_array fits; ///< the pair of each entry
} fit_table;

static void fit_table_init(fit_table* t, tc_real h) {
    t->cell = 2 * FIT_REACH_FLAT * h; // twice the largest reach: a ball of the reach meets 2 cells per axis, not 3
    t->inv_cell = 1 / t->cell;
    for (int b = 0; b < FIT_BUCKETS; ++b) t->head[b] = -1;
    t->entries = (fit_entry_array){0};
    t->fits = (fits_array){0};
}

// Cell coordinates of x, floor(x / cell) taken as floor(x * inv_cell) without the libm call
// (a cast truncates toward zero: one less below zero when it rounded up); false when they would
// not fit (far or non-finite x). Monotone in x, as a cell range needs: a point between x - r and
// x + r is keyed between their keys.
static bool cell_key(tc_real inv_cell, tc_vec3 x, int64_t key[3]) {
    for (int k = 0; k < 3; ++k) {
        tc_real v = tc_v3_get(x, k) * inv_cell;
        if (!(fabs(v) < 1e15)) return false;
        int64_t c = (int64_t)v;
        key[k] = c - (v < (tc_real)c);
    }
    return true;
}

static bool fit_cell(const fit_table* t, tc_vec3 x, int64_t key[3]) { return cell_key(t->inv_cell, x, key); }

// The hash of a cell, the sum of one term per axis (hashed once per row in the walks below),
// its top bits the bucket. (The terms xor-ed and bits 40-51 taken: the 107 cells of the fit
// table at 20 mm fell in 72 buckets, a walk met ~1 entry of another cell per cell, 43% of the
// entries it read; summed, none: fit_table_find and cover_within 0.73 -> 0.54 M TSC ticks per
// call at 20 mm, 0.13 M instructions less.)
static uint64_t hash_x(int64_t k) { return (uint64_t)k * 0x9E3779B97F4A7C15ull; }
static uint64_t hash_y(int64_t k) { return (uint64_t)k * 0xC2B2AE3D27D4EB4Full; }
static uint64_t hash_z(int64_t k) { return (uint64_t)k * 0x165667B19E3779F9ull; }
static int bucket_of(uint64_t v) { return (int)(v >> 52); } // (the top 12 bits: FIT_BUCKETS)
static int fit_bucket(const int64_t key[3]) { return bucket_of(hash_x(key[0]) + hash_y(key[1]) + hash_z(key[2])); }

// A bound on the squared distances within reach r: sqrt(d2) < r implies d2 < r^2 (1 + 1e-9)
// (sqrt is correctly rounded). Tested first, it leaves the square roots to the entries that
// pass: at 20 mm a find meets 5.3 entries of its cells, 1.0 of them passes (seed stage ~1%
// faster, within the noise).
static tc_real reach_bound2(tc_real r) { return r * r * (1 + 1e-9); }

static void fit_table_add(fit_table* t, const sample_fits* sf) {
    if (!sf->valid) return; // (the rest of an invalid pair may be unset: made in place)
    fit_entry e = {sf->at_a, sf->at_b, sf->ra, sf->rb, reach_bound2(sf->ra), reach_bound2(sf->rb), {0, 0, 0}, -1};
    if (!fit_cell(t, sf->at_a, e.key)) return;
    int b = fit_bucket(e.key);
    e.next = t->head[b];
    if (!array_push(&t->fits, *sf)) return; // (out of memory: not shared)
    if (!array_push(&t->entries, e)) {
        t->fits.count--;
        return;
    }
    t->head[b] = t->entries.count - 1;
}

// A seed that settled on entry i's pair (unchanged): i moves to the head of its bucket's list,
// where a copy of the pair would have been added. The walks then meet the distinct pairs in the
// same order as with the copy (a copy wins every tie with its original, which comes later in
// the same list), so every later find returns the same pair, ties included, from a table of
// ~240 entries instead of 653 at 20 mm (64% of the seeds settle on a shared pair).
static void fit_table_renew(fit_table* t, int i) {
    int b = fit_bucket(t->entries.data[i].key), *link = &t->head[b];
    while (*link != i) link = &t->entries.data[*link].next; // (i is in this list)
    *link = t->entries.data[i].next;
    t->entries.data[i].next = t->head[b];
    t->head[b] = i;
}

// The entry whose fits both reach x and whose A point is closest to it, or -1.
static int fit_table_find(const fit_table* t, tc_vec3 x, tc_real h) {
    int64_t lo[3], hi[3];
    tc_real w = FIT_REACH_FLAT * 1.000001 * h; // the reach (fits_reach), a little wider: no rounding at its edge drops a cell
    if (!fit_cell(t, tc_v3_sub(x, tc_v3(w, w, w)), lo) || !fit_cell(t, tc_v3_add(x, tc_v3(w, w, w)), hi)) return -1;
    int best = -1;
    tc_real best_d = INFINITY;
    for (int64_t cz = lo[2]; cz <= hi[2]; ++cz)
        for (int64_t cy = lo[1]; cy <= hi[1]; ++cy) {
            uint64_t row = hash_y(cy) + hash_z(cz);
            for (int64_t cx = lo[0]; cx <= hi[0]; ++cx)
                for (int i = t->head[bucket_of(hash_x(cx) + row)]; i >= 0; i = t->entries.data[i].next) {
                    const fit_entry* e = &t->entries.data[i];
                    if (e->key[0] != cx || e->key[1] != cy || e->key[2] != cz) continue;
                    tc_real da2 = tc_v3_len2(tc_v3_sub(x, e->at_a)), db2 = tc_v3_len2(tc_v3_sub(x, e->at_b));
                    if (!(da2 < e->ra2) || !(db2 < e->rb2)) continue; // (beyond a reach, no square root)
                    tc_real d = sqrt(da2); // (fits_reach's test, its distance kept)
                    if (!(d < e->ra) || !(sqrt(db2) < e->rb)) continue;
                    if (d < best_d) { best_d = d; best = i; }
                }
        }
    return best;
}

// The samples the resampling keeps, in seed order: a sample closer than half a spacing to an
// earlier kept one is deleted there (resample below). Seeding applies the same rule as it goes
// (cells of one spacing, hashed as the fit table's), so a seed whose sample is predicted
// well inside a kept one's half spacing is not root-found at all.
typedef struct cover_entry { tc_vec3 p; int next; } cover_entry;
typedef TC_ARRAY(cover_entry) cover_entry_array;
// The buckets' heads are read only where the bitmap marks the bucket occupied: a test of 8
// cells (2 per axis) reads a 512-byte bitmap that stays in L1 instead of 8 heads scattered over
// 16 KB (at 20 mm a quarter of the 11,700 cells tested a call hold a sample; the head's load
// took a fifth of cover_within's time), and the heads need no clearing.
typedef struct cover_set {
    tc_real inv_cell;
    uint64_t occupied[FIT_BUCKETS / 64]; ///< bit b: bucket b holds an entry (its head is set)
    int head[FIT_BUCKETS];               ///< first entry of each occupied bucket
    cover_entry_array entries;
    bool lost; ///< a point fell outside the cells (far or non-finite) or out of memory: the set no longer decides exactly
} cover_set;

static void cover_init(cover_set* c, tc_real cell, int room) {
    c->inv_cell = 1 / cell;
    memset(c->occupied, 0, sizeof c->occupied);
    c->entries = (cover_entry_array){0};
    c->lost = false;
    tc_array_reserve(&c->entries, room); // (out of memory: cover_add tries again)
}

static bool cover_occupied(const cover_set* c, int b) { return (c->occupied[b >> 6] >> (b & 63)) & 1; }

static void cover_add(cover_set* c, tc_vec3 x) {
    cover_entry e = {x, -1};
    int64_t key[3];
    if (!cell_key(c->inv_cell, x, key)) {
        c->lost = true;
        return;
    }
    int b = fit_bucket(key);
    e.next = cover_occupied(c, b) ? c->head[b] : -1;
    if (!array_push(&c->entries, e)) { // (not kept here: the resampling thins the samples instead)
        c->lost = true;
        return;
    }
    c->head[b] = c->entries.count - 1;
    c->occupied[b >> 6] |= (uint64_t)1 << (b & 63);
}

// True when a kept sample is within r (at most half the cell size) of x: the cells the ball
// meets, 2 along each axis (3 where it ends within rounding of a cell boundary). (The same test as the resampling's: |p - x|^2 <= r^2.)
static bool cover_within(cover_set* c, tc_vec3 x, tc_real r) {
    int64_t lo[3], hi[3];
    tc_real w = 1.000001 * r; // the cell range a little wider than the ball: no rounding at its edge drops a cell
    if (!cell_key(c->inv_cell, tc_v3_sub(x, tc_v3(w, w, w)), lo) || !cell_key(c->inv_cell, tc_v3_add(x, tc_v3(w, w, w)), hi)) {
        c->lost = true;
        return false;
    }
    tc_real r2 = r * r;
    for (int64_t cz = lo[2]; cz <= hi[2]; ++cz)
        for (int64_t cy = lo[1]; cy <= hi[1]; ++cy) {
            uint64_t row = hash_y(cy) + hash_z(cz);
            for (int64_t cx = lo[0]; cx <= hi[0]; ++cx) {
                int b = bucket_of(hash_x(cx) + row);
                if (!cover_occupied(c, b)) continue;
                for (int i = c->head[b]; i >= 0; i = c->entries.data[i].next) {
                    const cover_entry* e = &c->entries.data[i];
                    if (tc_v3_len2(tc_v3_sub(e->p, x)) <= r2) return true;
                }
            }
        }
    return false;
}

// How close to a kept sample the prediction for surfel k must be for its seed to be skipped:
// half a spacing less a margin for the prediction's error. That error comes from the curvature
// the two linear models miss over the segment (length len = |f_other|): on the bench's spheres
// up to 0.31 len^2 kappa / 2 (kappa: the largest curvature of other's fit) + 1e-3 spacing; the
// margin is 2.5 times that. (Where self's surfel normal is far from opposite to other's, at box
// edges, the error can be larger: 0.24 spacing seen at a right angle. A seed skipped there on a
// wrong prediction still lands within ~0.75 spacing of a kept sample, which covers it.)
static tc_real cover_skip_radius(const tc_surfel_fit* fo, tc_real spacing) {
    const tc_real* c = fo->c;
    tc_real kappa = 2 * (real_max(fabs(c[3]), fabs(c[5])) + 0.5 * fabs(c[4])) * fo->inv_h * fo->inv_h, len = fabs(fo->f);
    return 0.5 * spacing - (0.025 * spacing + 0.4 * kappa * len * len);
}

// F of the prediction at x(t) = s + t (x2 - s) for 4 values of t at once (the same operations
// as tc_v3_lerp, tc_v3_dot and tc_surfel_fit_value, lane by lane: the same bits).
typedef struct predict_line { tc_vec3 s, d, nk; tc_real es, eo; const tc_surfel_fit* fo; } predict_line;
#if defined(__GNUC__) && !defined(TC_PLAIN_LANES)
#include "core/psabi.h"
typedef tc_real predict_lanes __attribute__((vector_size(4 * sizeof(tc_real))));
static inline __attribute__((always_inline)) void predict_g4(const predict_line* p, const tc_real t[4], tc_real g[4]) {
    const tc_surfel_fit* fo = p->fo;
    const tc_real* c = fo->c;
    predict_lanes T = {t[0], t[1], t[2], t[3]};
    predict_lanes X = p->s.x + T * p->d.x, Y = p->s.y + T * p->d.y, Z = p->s.z + T * p->d.z;
    predict_lanes along = p->nk.x * (X - p->s.x) + p->nk.y * (Y - p->s.y) + p->nk.z * (Z - p->s.z);
    predict_lanes ex = X - fo->a.x, ey = Y - fo->a.y, ez = Z - fo->a.z;
    predict_lanes u = (ex * fo->t1.x + ey * fo->t1.y + ez * fo->t1.z) * fo->inv_h;
    predict_lanes v = (ex * fo->t2.x + ey * fo->t2.y + ez * fo->t2.z) * fo->inv_h;
    predict_lanes f = (ex * fo->n.x + ey * fo->n.y + ez * fo->n.z) - (c[0] + c[1] * u + c[2] * v + c[3] * u * u + c[4] * u * v + c[5] * v * v);
    predict_lanes G = p->es * along - p->eo * f;
    for (int l = 0; l < 4; ++l) g[l] = G[l];
}
#else
static void predict_g4(const predict_line* p, const tc_real t[4], tc_real g[4]) {
    for (int l = 0; l < 4; ++l) {
        tc_vec3 x = tc_v3_madd(p->s, t[l], p->d);
        g[l] = p->es * tc_v3_dot(p->nk, tc_v3_sub(x, p->s)) - p->eo * tc_surfel_fit_value(p->fo, x);
    }
}
#endif

// Where the seed of surfel k of self will land, from the data at hand: F on the segment from
// the surfel to its projection on other's fit fo, with other's f from fo and self's from the
// surfel's tangent plane (E_self n_k.(x - s) - E_other fo(x) = 0, bisection; where fo is a plane
// too, as the classification's tangent planes are, F is linear along the segment). Within ~0.02
// spacing of the root at 20 mm of overlap, ~0.1 at 40 mm (the bench, spheres of 10,000 surfels).
// The bisection takes two steps at a time: the middle and both quarter points at once, in
// lanes, then the step's two choices (the values a step-by-step bisection would take, the same
// bits; its 12 evaluations in a chain of 12 took ~0.1 M TSC ticks more per call at 20 mm).
TC_VECTOR_CLONES static tc_vec3 predict_seed(const tc_points_body* self, const tc_points_body* other, int k, const tc_surfel_fit* fo) {
    tc_vec3 s = self->s[k], x2 = tc_v3_madd(s, -fo->f, fo->n), nk = self->n[k];
    tc_real es = self->mat.youngs, eo = other->mat.youngs, ta = 0, tb = 1;
    tc_real ga = -eo * fo->f, gb = es * tc_v3_dot(nk, tc_v3_sub(x2, s)) - eo * tc_surfel_fit_value(fo, x2);
    if (!(ga * gb < 0)) return tc_v3_lerp(s, x2, eo / (es + eo));
    if (fo->c[3] == 0 && fo->c[4] == 0 && fo->c[5] == 0) return tc_v3_lerp(s, x2, ga / (ga - gb)); // two planes: F is linear
    predict_line line = {s, tc_v3_sub(x2, s), nk, es, eo, fo};
    for (int it = 0; it < 12; it += 2) { // the segment is at most ~3h: 2^-12 of it is ~1e-3 h
        tc_real tm = 0.5 * (ta + tb), t[4] = {tm, 0.5 * (ta + tm), 0.5 * (tm + tb), tm}, g[4];
        predict_g4(&line, t, g);
        bool right = (g[0] < 0) == (ga < 0); // the first step: [tm, tb] or [ta, tm]
        tc_real ta1 = right ? tm : ta, tb1 = right ? tb : tm, ga1 = right ? g[0] : ga;
        tc_real tq = right ? t[2] : t[1], gq = right ? g[2] : g[1]; // its middle
        bool right2 = (gq < 0) == (ga1 < 0);
        ta = right2 ? tq : ta1;
        tb = right2 ? tb1 : tq;
        ga = right2 ? gq : ga1;
    }
    return tc_v3_lerp(s, x2, 0.5 * (ta + tb));
}

// Both bodies' fits (at x(t) of the segment unless made elsewhere: at_a, at_b) and F there.
// (fa, fb: the fits, made here (made_a, made_b) or an earlier seed's pair in the fit table or
// the classification's fit, read where they are: a 392-byte copy per shared pair, whose
// string-move stores the first model's reads then waited for, is gone. entry: the fit table's
// entry the pair was loaded from, -1 when made here.)
typedef struct seg_node {
    tc_real t, g;
    const tc_surfel_fit *fa, *fb;
    tc_vec3 at_a, at_b;
    tc_real ra, rb;
    int entry;
    tc_surfel_fit made_a, made_b;
} seg_node;

typedef struct seg_model {
    const tc_points_body *A, *B;
    tc_vec3 from, to;
    const seg_node* at;
} seg_model;

static bool fit_node(const seg_model* m, tc_real t, seg_node* node) {
    tc_vec3 x = tc_v3_lerp(m->from, m->to, t);
    node->t = t;
    node->entry = -1;
    node->at_a = node->at_b = x;
    node->fa = &node->made_a;
    node->fb = &node->made_b;
    if (!tc_surfel_surface_fit(&m->A->surface, x, &node->made_a) || !tc_surfel_surface_fit(&m->B->surface, x, &node->made_b))
        return false;
    tc_real h = real_min(m->A->surface.h, m->B->surface.h);
    node->ra = fit_reach(&m->A->surface, x, &node->made_a, h);
    node->rb = fit_reach(&m->B->surface, x, &node->made_b, h);
    node->g = m->A->mat.youngs * node->made_a.f - m->B->mat.youngs * node->made_b.f;
    return true;
}

// F on the segment from the fits of one node.
static tc_real model_g(tc_real t, void* ctx) {
    const seg_model* m = ctx;
    tc_vec3 x = tc_v3_lerp(m->from, m->to, t);
    return m->A->mat.youngs * tc_surfel_fit_value(m->at->fa, x) - m->B->mat.youngs * tc_surfel_fit_value(m->at->fb, x);
}

static void keep_fits(const seg_node* node, sample_fits* sf) {
    sf->valid = true;
    sf->at_a = node->at_a;
    sf->at_b = node->at_b;
    sf->ra = node->ra;
    sf->rb = node->rb;
    sf->fa = *node->fa;
    sf->fb = *node->fb;
}

// The other way: entry i's settled pair as the node's model, read in place (t and g left as they are).
static void load_fits(const fit_table* table, int i, seg_node* node) {
    const sample_fits* sf = &table->fits.data[i];
    node->entry = i;
    node->at_a = sf->at_a;
    node->at_b = sf->at_b;
    node->ra = sf->ra;
    node->rb = sf->rb;
    node->fa = &sf->fa;
    node->fb = &sf->fb;
}

// The root in [0, 1] of the quadratic through (0, g0), (1/2, gm), (1, g1), where g0 and g1
// differ in sign; false when rounding put both roots outside (the caller then takes Brent).
// F on the segment from two fits is such a quadratic: the models are quadratic in x, x linear in t.
static bool quadratic_root(tc_real g0, tc_real gm, tc_real g1, tc_real* t) {
    if (g0 == 0 || g1 == 0) {
        *t = g0 == 0 ? 0 : 1;
        return true;
    }
    tc_real a = 2 * (g0 + g1) - 4 * gm, b = 4 * gm - 3 * g0 - g1, c = g0;
    tc_real disc = b * b - 4 * a * c, r;
    if (fabs(a) <= 1e-12 * (fabs(b) + fabs(c))) r = -c / b; // (linear)
    else {
        tc_real q = -0.5 * (b + (b < 0 ? -1 : 1) * sqrt(disc > 0 ? disc : 0)), r1 = q / a, r2 = c / q; // (no cancellation)
        r = r1 >= 0 && r1 <= 1 ? r1 : r2;
    }
    if (!(r >= 0 && r <= 1)) return false;
    *t = r;
    return true;
}

// Root of F on the segment, starting from the fits of `node`: *t, the two f values there and
// the fits the root was settled with (*entry: the table entry they are, -1 when new). A root
// beyond the fits' reach takes an earlier seed's fits that reach it as the next model (first
// round only), else both surfaces are fitted there.
// (node is the caller's and is changed; a refitted root's node and it take turns as the model.)
static bool root_on_fits(seg_model* m, const fit_table* table, seg_node* node, tc_real len, tc_real h, tc_real* t, tc_real* fa, tc_real* fb,
                         sample_fits* sf, int* entry) {
    seg_node other_node, *root = &other_node;
    for (int round = 0; round < 4; ++round) {
        m->at = node;
        tc_real g0 = model_g(0, m), g1 = model_g(1, m);
        if (!(g0 * g1 <= 0)) return false;
        if (!quadratic_root(g0, model_g(0.5, m), g1, t) && !tc_brent_known(model_g, m, 0, 1, g0, g1, 1e-6 * h / len, 50, t, NULL))
            return false;
        tc_vec3 x = tc_v3_lerp(m->from, m->to, *t);
        if (tc_v3_dist(x, node->at_a) < node->ra && tc_v3_dist(x, node->at_b) < node->rb) { // within the fits' reach (fits_reach)
            *fa = tc_surfel_fit_value(node->fa, x);
            *fb = tc_surfel_fit_value(node->fb, x);
            keep_fits(node, sf);
            *entry = node->entry;
            return true;
        }
        int shared = round == 0 ? fit_table_find(table, x, h) : -1;
        if (shared >= 0) { // an earlier seed's fits reach the root: they are the next model (once)
            load_fits(table, shared, node);
            continue;
        }
        if (!fit_node(m, *t, root)) return false;
        *fa = root->made_a.f;
        *fb = root->made_b.f;
        keep_fits(root, sf);
        *entry = -1;
        tc_real slope = fabs(g1 - g0) / len; // |dF/dx| along the segment: |F| as a distance
        if (root->g == 0 || fabs(root->g) <= 1e-4 * h * slope) return true;
        seg_node* last = node; // (the root's node is the next model; the last one's room takes the next root)
        node = root;
        root = last;
    }
    return false;
}

// Surfel k of `self` inside `other` (fo: other's fit at the surfel, or with approx a model of
// other near it): the segment to the surfel's projection on fo and the root of F on it. False
// when the root search on the fits does not settle (the caller then takes the exact path).
// *entry: the fit table's entry whose pair the root settled with, -1 when a new pair (sf).
static bool seed_sample_on_fits(const tc_points_body* A, const tc_points_body* B, const tc_points_body* self, const tc_points_body* other,
                                int k, const tc_surfel_fit* fo, bool approx, const fit_table* table, tc_vec3* out, bool* inside,
                                sample_fits* sf, int* entry) {
    tc_vec3 s = self->s[k], x2 = tc_v3_madd(s, -fo->f, fo->n);
    tc_real h = real_min(A->surface.h, B->surface.h), len = fabs(fo->f);
    *inside = true;
    sf->valid = false;
    *entry = -1;
    if (len < 1e-12) { *out = s; return true; }
    // Along the segment f_self falls from 0 to about -len and f_other rises from -len to 0,
    // so F vanishes near t = E_other / (E_self + E_other): the first models are made there.
    tc_real t0 = other->mat.youngs / (self->mat.youngs + other->mat.youngs);
    seg_model m = {A, B, s, x2, NULL};
    seg_node node;
    tc_vec3 x0 = tc_v3_lerp(s, x2, t0);
    int shared = fit_table_find(table, x0, h);
    if (shared >= 0) { // an earlier seed's fits reach x0: no new fit
        load_fits(table, shared, &node);
        node.t = t0;
        node.g = 0; // not used: the first round works on the fits alone
    } else if (!approx && t0 * len < 0.25 * h) { // other's fit at the surfel reaches t0: fit only self there
        const tc_surfel_surface* S = &self->surface;
        tc_surfel_fit* f_self = &node.made_a;
        if (!tc_surfel_surface_fit(S, x0, f_self)) return false;
        tc_real r_self = fit_reach(S, x0, f_self, h), r_other = fit_reach(&other->surface, s, fo, h);
        if (self == A) { node.fa = f_self; node.fb = fo; node.at_a = x0; node.at_b = s; node.ra = r_self; node.rb = r_other; }
        else { node.fb = f_self; node.fa = fo; node.at_b = x0; node.at_a = s; node.rb = r_self; node.ra = r_other; }
        node.t = t0;
        node.entry = -1;
        node.g = 0; // not used: the first round works on the fits alone
    } else if (!fit_node(&m, t0, &node))
        return false;
    tc_real t, fa, fb;
    if (!root_on_fits(&m, table, &node, len, h, &t, &fa, &fb, sf, entry)) return false;
    *out = tc_v3_lerp(s, x2, t);
    tc_real tol = 1e-3 * h; // non-convex overlap: drop samples that left the overlap
    *inside = fa <= tol && fb <= tol;
    return true;
}

// Newton steps along grad F ~ E_A n_A - E_B n_B back onto F = 0, taken on two local fits:
// the sample's own (sf, may be NULL) while x is within their reach, else new ones at x. Within
// it the fits are within ~3e-3 h of the MLS surfaces (above), so a point that lands within the
// reach is accepted on them (their values answer the inside test); one that lands further is
// fitted again there. ref (may be NULL): orientation n_A - n_B of the fits. (|g| is taken once,
// not per step.)
// (An AVX2 clone: three-operand scalar code, the same operations, the same bits.)
TC_VECTOR_CLONES static bool reproject(const tc_points_body* A, const tc_points_body* B, tc_vec3* x, sample_fits* sf, tc_vec3* ref) {
    tc_real h = real_min(A->surface.h, B->surface.h), tol = 1e-3 * h, ea = A->mat.youngs, eb = B->mat.youngs;
    sample_fits local; // (zeroed only when used: 400 bytes, ~50 instructions a call)
    if (!sf) {
        local = (sample_fits){0};
        sf = &local;
    }
    for (int round = 0; round < 4; ++round) {
        if (!sf->valid || !fits_reach(sf, *x)) {
            sf->valid = false;
            if (!tc_surfel_surface_fit(&A->surface, *x, &sf->fa) || !tc_surfel_surface_fit(&B->surface, *x, &sf->fb)) return false;
            sf->valid = true;
            sf->at_a = sf->at_b = *x;
            sf->ra = fit_reach(&A->surface, *x, &sf->fa, h);
            sf->rb = fit_reach(&B->surface, *x, &sf->fb, h);
        }
        tc_vec3 g = tc_v3_sub(tc_v3_scale(sf->fa.n, ea), tc_v3_scale(sf->fb.n, eb));
        tc_real g2 = tc_v3_len2(g);
        if (!(g2 > 0)) return false;
        if (ref) *ref = tc_v3_normalize(tc_v3_sub(sf->fa.n, sf->fb.n));
        tc_vec3 y = *x;
        tc_real va = tc_surfel_fit_value(&sf->fa, y), vb = tc_surfel_fit_value(&sf->fb, y), g_len = sqrt(g2), stop = 1e-6 * h;
        for (int it = 0; it < 8; ++it) {
            tc_real step = (ea * va - eb * vb) / g2;
            y = tc_v3_madd(y, -step, g);
            va = tc_surfel_fit_value(&sf->fa, y);
            vb = tc_surfel_fit_value(&sf->fb, y);
            if (fabs(step) * g_len < stop) break;
        }
        *x = y;
        if (fits_reach(sf, y)) return va <= tol && vb <= tol;
        sf->valid = false; // landed beyond the fits' reach: fit again there
    }
    return inside_both(A, B, *x);
}

typedef tc_surfel_points vec3_array;

// The samples of items[t..end) within one spacing of x = p[i] (r2 its square), other than i,
// appended to near from n on (the count returned): branch-free, each written and kept by its
// test (the test as a branch mispredicted ~3,500 times a call at 20 mm, about half pass).
static inline int repel_near(const tc_vec3* p, const int* items, int t, int end, int i, tc_real r2, int* near, int n) {
    tc_vec3 x = p[i];
    for (; t < end; ++t) {
        int j = items[t];
        near[n] = j;
        n += (tc_v3_len2(tc_v3_sub(x, p[j])) <= r2) & (j != i); // (that of p[j] - x, the query's test: the same squares)
    }
    return n;
}

// The repulsion on sample i from the samples within one spacing, summed in the order
// tc_point_grid_query lists them (by cell, then by index): the same sum, the same bits; each
// pushes by 0.25 (spacing - len) / len along its offset (a soft repulsion). The grid is walked
// in place (no room check per row) into near (room for every sample); where the query spans
// whole rows (a patch thin across x), the rows of a plane follow one another in items and are
// walked as one run.
TC_VECTOR_CLONES static tc_vec3 repulsion(const tc_point_grid* grid, const tc_vec3* p, int i, tc_real spacing, int* near) {
    tc_vec3 push = tc_v3_zero();
    int lo[3], hi[3], n = 0;
    if (!tc_point_grid_range(grid, p[i], spacing, lo, hi)) return push;
    const int* start = grid->start;
    int d0 = grid->dims[0], d1 = grid->dims[1];
    tc_real r2 = spacing * spacing;
    for (int cz = lo[2]; cz <= hi[2]; ++cz) {
        if (lo[0] == 0 && hi[0] == d0 - 1) {
            n = repel_near(p, grid->items, start[(cz * d1 + lo[1]) * d0], start[(cz * d1 + hi[1] + 1) * d0], i, r2, near, n);
            continue;
        }
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * d1 + cy) * d0;
            n = repel_near(p, grid->items, start[row + lo[0]], start[row + hi[0] + 1], i, r2, near, n);
        }
    }
    tc_vec3 x = p[i];
    for (int k = 0; k < n; ++k) {
        tc_vec3 d = tc_v3_sub(x, p[near[k]]);
        tc_real len = sqrt(tc_v3_len2(d));
        if (len < 1e-12) continue;
        push = tc_v3_madd(push, 0.25 * (spacing - len) / len, d);
    }
    return push;
}

// Repulsion among the samples with re-projection; refs receives the orientation of both
// surfaces at each sample kept by the last iteration (for the PCA normals).
static void relax(const tc_points_body* A, const tc_points_body* B, vec3_array* pts, fits_array* fits, tc_real spacing, int iterations,
                  vec3_array* refs) {
    tc_point_grid grid = {0};
    size_t count = (size_t)(pts->count > 0 ? pts->count : 1);
    tc_vec3* moved = tc_alloc(count * sizeof(tc_vec3));
    int* near = tc_alloc(count * sizeof(int));
    if (!moved || !near) { // the samples stay as placed
        tc_surfel_note_out_of_memory();
        if (moved) tc_free(moved, count * sizeof(tc_vec3));
        if (near) tc_free(near, count * sizeof(int));
        return;
    }
    for (int it = 0; it < iterations; ++it) {
        tc_point_grid_build(&grid, pts->data, pts->count, spacing); // (out of memory: no grid, no push)
        for (int i = 0; i < pts->count; ++i) moved[i] = tc_v3_add(pts->data[i], repulsion(&grid, pts->data, i, spacing, near));
        int w = 0;
        refs->count = 0;
        for (int i = 0; i < pts->count; ++i) {
            tc_vec3 ref;
            if (!reproject(A, B, &moved[i], &fits->data[i], &ref)) continue;
            if (w != i) fits->data[w] = fits->data[i]; // (400 bytes: not onto itself)
            pts->data[w++] = moved[i];
            if (it == iterations - 1) array_push(refs, ref);
        }
        pts->count = fits->count = w;
    }
    tc_point_grid_free(&grid);
    tc_free(moved, count * sizeof(tc_vec3));
    tc_free(near, count * sizeof(int));
}

// Deletes samples closer than half a spacing to an earlier kept one (in order).
static void thin_samples(vec3_array* pts, fits_array* fits, tc_real spacing, int** near, int* cap) {
    tc_point_grid grid = {0};
    tc_point_grid_build(&grid, pts->data, pts->count, spacing);
    uint8_t* keep = tc_calloc((size_t)(pts->count > 0 ? pts->count : 1), 1);
    for (int i = 0; i < pts->count; ++i) {
        keep[i] = 1;
        int n = tc_point_grid_query(&grid, pts->data, pts->data[i], 0.5 * spacing, near, cap);
        for (int q = 0; q < n; ++q)
            if ((*near)[q] < i && keep[(*near)[q]]) { keep[i] = 0; break; }
    }
    int w = 0, old_count = pts->count;
    for (int i = 0; i < pts->count; ++i)
        if (keep[i]) {
            fits->data[w] = fits->data[i];
            pts->data[w++] = pts->data[i];
        }
    pts->count = fits->count = w;
    tc_free(keep, (size_t)(old_count > 0 ? old_count : 1));
    tc_point_grid_free(&grid);
}

// The samples within r of x (|p_j - x|^2 <= r^2, as tc_point_grid_query), in no particular
// order, from a grid over the samples with their axes permuted (sx: x's coordinates permuted).
static int near_point(const vec3_array* pts, const tc_point_grid* grid, tc_vec3 sx, tc_vec3 x, tc_real r, int* out) {
    int lo[3], hi[3], n = 0;
    if (!tc_point_grid_range(grid, sx, r, lo, hi)) return 0;
    tc_real r2 = r * r;
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * grid->dims[1] + cy) * grid->dims[0];
            for (int t = grid->start[row + lo[0]], end = grid->start[row + hi[0] + 1]; t < end; ++t) {
                int j = grid->items[t];
                out[n] = j;
                n += tc_v3_len2(tc_v3_sub(pts->data[j], x)) <= r2;
            }
        }
    return n;
}

typedef struct gap { int i, key, j; tc_vec3 mid; } gap;
typedef TC_ARRAY(gap) gap_array;

// Inserts g into found, kept sorted by (key, j).
static void gap_insert(gap_array* found, gap g) {
    if (!array_push(found, g)) { // (a gap not found: fewer midpoints, never a write through NULL)
        tc_surfel_note_out_of_memory();
        return;
    }
    int pos = found->count - 1;
    gap* f = found->data;
    while (pos > 0 && (f[pos - 1].key > g.key || (f[pos - 1].key == g.key && f[pos - 1].j > g.j))) {
        f[pos] = f[pos - 1];
        pos--;
    }
    f[pos] = g;
}

// The samples' coordinates (the original axes) and indices in the order of the gap search's
// grid (over the permuted axes), GAP_LANES entries of padding: the AVX2 split reads a row of
// cells as one run of them (no index per sample to follow).
// nx, ny, nz: room for the coordinates of the samples near one (near_rows_avx2's list).
enum { GAP_LANES = 4 };
typedef struct gap_sorted { tc_real *x, *y, *z; int* j; tc_real *nx, *ny, *nz; } gap_sorted;

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(TC_NO_VECTOR_CLONES) && !defined(TC_PLAIN_LANES)
#define GAP_AVX2 1
#include <immintrin.h>
#include "core/lanes_compact.h" // (the kept lanes' tables, shared with the tiles and the distribution)

// The kept indices of j (mask m) stored to out in order (4 written; the kept ones count).
__attribute__((target("avx2"), always_inline)) static inline void gap_store(int* out, __m128i j, unsigned m) {
    __m128i perm = _mm_loadu_si128((const __m128i*)tc_compact_perm_epi32[m]);
    _mm_storeu_si128((__m128i*)out, _mm_castps_si128(_mm_permutevar_ps(_mm_castsi128_ps(j), perm)));
}

// split_near's row walk 4 samples at a time (the same differences, squares, sums and tests: |d| <
// c decided by the square root, lane by lane, in a group with a squared distance within 1e-12 of
// the boundary), kept as gaps_of needs them: the coordinates of the samples that may cover a
// midpoint (nx, ny, nz, then 4 far points of padding) and the indices j > i of split_near's
// outer list (pair). Returns the count of the former; n_pair the pairs'. (Room for GAP_LANES
// past the counts.) A sample covering a midpoint (within 0.75 spacing of it, the midpoint within
// 1.1 of i) is within 1.85 spacings of i: those within cover2 = (1.9 spacings)^2 are kept (the
// others are beyond 0.8 spacing of every midpoint, far past rounding), ~3/4 of the 2.2 list.
__attribute__((target("avx2"))) static int near_rows_avx2(const gap_sorted* s, const tc_point_grid* grid, const int lo[3], const int hi[3],
                                                          tc_vec3 pi, int i, tc_real r2, tc_real below, tc_real above, tc_real c,
                                                          tc_real cover2, int* pair, int* n_pair) {
    __m256d px = _mm256_set1_pd(pi.x), py = _mm256_set1_pd(pi.y), pz = _mm256_set1_pd(pi.z), vcover = _mm256_set1_pd(cover2);
    __m256d vr2 = _mm256_set1_pd(r2), vbelow = _mm256_set1_pd(below), vabove = _mm256_set1_pd(above);
    __m128i vi = _mm_set1_epi32(i);
    const tc_real *X = s->x, *Y = s->y, *Z = s->z; // (in locals: gcc reloaded them from s after every store)
    tc_real *NX = s->nx, *NY = s->ny, *NZ = s->nz;
    const int* J = s->j;
    int nn = 0, np = 0;
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * grid->dims[1] + cy) * grid->dims[0];
            for (int t = grid->start[row + lo[0]], end = grid->start[row + hi[0] + 1]; t < end; t += GAP_LANES) {
                __m256d x = _mm256_loadu_pd(X + t), y = _mm256_loadu_pd(Y + t), z = _mm256_loadu_pd(Z + t);
                __m256d ex = _mm256_sub_pd(x, px), ey = _mm256_sub_pd(y, py), ez = _mm256_sub_pd(z, pz);
                __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey)), _mm256_mul_pd(ez, ez));
                int left = end - t;
                unsigned valid = (1u << (left < GAP_LANES ? left : GAP_LANES)) - 1; // (a select: the branch mispredicted)
                unsigned within = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, vr2, _CMP_LE_OQ)) & valid;
                unsigned closer = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, vbelow, _CMP_LT_OQ)) & valid;
                unsigned band = (unsigned)_mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(d2, vbelow, _CMP_NLT_UQ),
                                                                           _mm256_cmp_pd(d2, vabove, _CMP_LE_OQ))) & valid;
                if (band) { // (rare) the scalar test, lane by lane
                    tc_real d[GAP_LANES];
                    _mm256_storeu_pd(d, d2);
                    for (int l = 0; l < GAP_LANES; ++l)
                        if (band >> l & 1) closer |= (unsigned)(d[l] < below || (d[l] <= above && sqrt(d[l]) < c)) << l;
                }
                __m128i j = _mm_loadu_si128((const __m128i*)(J + t));
                unsigned later = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(j, vi)));
                unsigned kept = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, vcover, _CMP_LE_OQ)) & valid;
                unsigned paired = within & ~closer & later;
                __m256i perm = _mm256_loadu_si256((const __m256i*)tc_compact_perm_pd[kept]);
                tc_compact_store_pd(NX + nn, x, perm), tc_compact_store_pd(NY + nn, y, perm), tc_compact_store_pd(NZ + nn, z, perm);
                gap_store(pair + np, j, paired);
                nn += __builtin_popcount(kept);
                np += __builtin_popcount(paired);
            }
        }
    __m256d far = _mm256_set1_pd(1e300); // (squares to infinity: never within)
    _mm256_storeu_pd(NX + nn, far), _mm256_storeu_pd(NY + nn, far), _mm256_storeu_pd(NZ + nn, far);
    *n_pair = np;
    return nn;
}

// Whether a sample of the list (count n, padded) is closer than sqrt(r2) to mid: gaps_of's test,
// |p - mid|^2 < r2 on the same differences, squares and sums, 4 samples at a time over the whole
// list (the scalar scan's exit at the first mispredicted).
__attribute__((target("avx2"))) static bool covered_avx2(const gap_sorted* s, int n, tc_vec3 mid, tc_real r2) {
    __m256d mx = _mm256_set1_pd(mid.x), my = _mm256_set1_pd(mid.y), mz = _mm256_set1_pd(mid.z), vr2 = _mm256_set1_pd(r2);
    __m256d any = _mm256_setzero_pd();
    for (int t = 0; t < n; t += GAP_LANES) {
        __m256d ex = _mm256_sub_pd(_mm256_loadu_pd(s->nx + t), mx), ey = _mm256_sub_pd(_mm256_loadu_pd(s->ny + t), my);
        __m256d ez = _mm256_sub_pd(_mm256_loadu_pd(s->nz + t), mz);
        __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey)), _mm256_mul_pd(ez, ez));
        any = _mm256_or_pd(any, _mm256_cmp_pd(d2, vr2, _CMP_LT_OQ));
    }
    return _mm256_movemask_pd(any) != 0;
}
#endif

// The samples within 2.2 spacings of sample i (as near_point) split while walking the grid:
// those closer than 1.5 spacings into inner, the others into outer (each in no particular
// order; the caller's results do not depend on it; room for GAP_LANES past every sample). |d| <
// 1.5 spacings is decided on the squared distance except within 1e-12 of the boundary, where
// the square root answers (the same test as tc_v3_dist's). Branch-free (about half are closer):
// every sample is written to both lists, whose ends advance by its tests. (The portable walk:
// gaps_of's AVX2 path walks the sorted copies, near_rows_avx2.)
static void split_near(const vec3_array* pts, const tc_vec3* swapped, const tc_point_grid* grid, int i, tc_real spacing, int* inner,
                       int* n_inner, int* outer, int* n_outer) {
    int lo[3], hi[3], ni = 0, no = 0;
    *n_inner = *n_outer = 0;
    tc_real r = 2.2 * spacing;
    if (!tc_point_grid_range(grid, swapped[i], r, lo, hi)) return;
    tc_real r2 = r * r, c = 1.5 * spacing, below = c * c * (1 - 1e-12), above = c * c * (1 + 1e-12);
    tc_vec3 pi = pts->data[i];
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * grid->dims[1] + cy) * grid->dims[0];
            for (int t = grid->start[row + lo[0]], end = grid->start[row + hi[0] + 1]; t < end; ++t) {
                int j = grid->items[t];
                tc_real d2 = tc_v3_len2(tc_v3_sub(pts->data[j], pi)); // (pi - p_j squares to the same bits)
                int within = d2 <= r2, closer = d2 < below || (d2 <= above && sqrt(d2) < c);
                inner[ni] = j, outer[no] = j;
                ni += closer; // (closer implies within: below < r2)
                no += within - closer;
            }
        }
    *n_inner = ni, *n_outer = no;
}

// The gaps of sample i (the pairs i < j), searched afresh, into found (inner, outer: room for
// every sample). The samples closer than 1.5 spacings pair with none, and a midpoint's covering
// sample is most often among them: they are tested first (the scan stops at the first). With
// AVX2 (sorted), every midpoint is tested against all the samples within 1.9 spacings of i, 4 at
// a time (near_rows_avx2, covered_avx2): the scan's exit and the j <= i skip mispredicted ~6,800
// times a call at 20 mm (~3,700 pairs, ~3 samples scanned each); the same "any" answer.
static void gaps_of(const vec3_array* pts, tc_real spacing, const tc_point_grid* order, const tc_vec3* swapped, const tc_point_grid* grid,
                    const gap_sorted* sorted, int* inner, int* outer, int i, gap_array* found) {
    tc_real r2 = (0.75 * spacing) * (0.75 * spacing);
    tc_vec3 pi = pts->data[i];
#ifdef GAP_AVX2
    if (sorted && __builtin_cpu_supports("avx2")) {
        int lo[3], hi[3], np;
        tc_real r = 2.2 * spacing, c = 1.5 * spacing; // (split_near's tests)
        if (!tc_point_grid_range(grid, swapped[i], r, lo, hi)) return;
        tc_real cover = 1.9 * spacing;
        int nn = near_rows_avx2(sorted, grid, lo, hi, pi, i, r * r, c * c * (1 - 1e-12), c * c * (1 + 1e-12), c, cover * cover, outer, &np);
        for (int q = 0; q < np; ++q) {
            int j = outer[q];
            tc_vec3 mid = tc_v3_lerp(pi, pts->data[j], 0.5);
            if (!covered_avx2(sorted, nn, mid, r2)) gap_insert(found, (gap){i, tc_point_grid_cell_index(order, pts->data[j]), j, mid});
        }
        return;
    }
#else
    (void)sorted;
#endif
    int ni, no;
    split_near(pts, swapped, grid, i, spacing, inner, &ni, outer, &no);
    for (int q = 0; q < no; ++q) {
        int j = outer[q];
        if (j <= i) continue;
        tc_vec3 mid = tc_v3_lerp(pi, pts->data[j], 0.5);
        bool covered = false;
        for (int t = 0; t < ni && !covered; ++t) covered = tc_v3_len2(tc_v3_sub(pts->data[inner[t]], mid)) < r2;
        for (int t = 0; t < no && !covered; ++t) covered = tc_v3_len2(tc_v3_sub(pts->data[outer[t]], mid)) < r2;
        if (!covered) gap_insert(found, (gap){i, tc_point_grid_cell_index(order, pts->data[j]), j, mid});
    }
}

enum { GAP_AGAIN_MAX = 64 }; // (19 added at 20 mm)
// The grid of the gap search's first pass over its samples (count), their axes permuted by ax;
// the second pass finds the earlier samples on it.
typedef struct gap_grid { tc_point_grid grid; int ax[3], count; } gap_grid;

static tc_vec3 gap_swap(const gap_grid* g, tc_vec3 p) { return tc_v3(tc_v3_get(p, g->ax[0]), tc_v3_get(p, g->ax[1]), tc_v3_get(p, g->ax[2])); }

// gap_candidates' first search (swapped, nb, far: room for every sample, the last two
// GAP_LANES more; sorted, may be NULL: the copies for gaps_of's AVX2 walk, filled here).
static void pair_gaps(const vec3_array* pts, tc_real spacing, const tc_point_grid* order, gap_grid* gg, tc_vec3* swapped, int* nb, int* far,
                      gap_sorted* sorted, gap_array* found, gap_array* all) {
    for (int i = 0; i < pts->count; ++i) swapped[i] = gap_swap(gg, pts->data[i]);
    gg->count = pts->count;
    tc_point_grid* grid = &gg->grid;
    if (!tc_point_grid_build(grid, swapped, pts->count, spacing)) sorted = NULL;
    for (int t = 0; sorted && t < pts->count; ++t) {
        int j = grid->items[t];
        sorted->x[t] = pts->data[j].x, sorted->y[t] = pts->data[j].y, sorted->z[t] = pts->data[j].z, sorted->j[t] = j;
    }
    all->count = 0;
    for (int i = 0; i < pts->count; ++i) {
        found->count = 0;
        gaps_of(pts, spacing, order, swapped, grid, sorted, nb, far, i, found);
        for (int f = 0; f < found->count; ++f) if (!array_push(all, found->data[f])) tc_surfel_note_out_of_memory();
    }
}

// Whether a sample lies closer than sqrt(r2) to mid (|p - mid|^2 < r2, gaps_of's test): the
// earlier samples on the first pass's grid, the added ones (from first_new on) one by one.
static bool gap_covered(const vec3_array* pts, const gap_grid* gg, int first_new, tc_vec3 mid, tc_real r2) {
    int lo[3], hi[3];
    const tc_point_grid* grid = &gg->grid;
    if (tc_point_grid_range(grid, gap_swap(gg, mid), sqrt(r2), lo, hi))
        for (int cz = lo[2]; cz <= hi[2]; ++cz)
            for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                int row = (cz * grid->dims[1] + cy) * grid->dims[0];
                for (int t = grid->start[row + lo[0]], end = grid->start[row + hi[0] + 1]; t < end; ++t)
                    if (tc_v3_len2(tc_v3_sub(pts->data[grid->items[t]], mid)) < r2) return true;
            }
    for (int k = first_new; k < pts->count; ++k) // (the earlier samples cover most midpoints: tested first)
        if (tc_v3_len2(tc_v3_sub(pts->data[k], mid)) < r2) return true;
    return false;
}

// Whether samples i < j pair (split_near's tests on i's side: 1.5-2.2 spacings apart), and
// their gap: a pair with no sample closer than 0.75 spacing to its midpoint.
static bool gap_pair(const vec3_array* pts, tc_real spacing, const gap_grid* gg, int first_new, int i, int j, tc_vec3* mid) {
    tc_real r = 2.2 * spacing, c = 1.5 * spacing, below = c * c * (1 - 1e-12), above = c * c * (1 + 1e-12);
    tc_real d2 = tc_v3_len2(tc_v3_sub(pts->data[j], pts->data[i]));
    if (!(d2 <= r * r) || d2 < below || (d2 <= above && sqrt(d2) < c)) return false;
    *mid = tc_v3_lerp(pts->data[i], pts->data[j], 0.5);
    return !gap_covered(pts, gg, first_new, *mid, (0.75 * spacing) * (0.75 * spacing));
}

// An earlier sample i (before first_new) and an added sample k within 2.2 spacings of it: k
// may cover one of i's gaps of the first pass, and (i, k) may be a new gap (its midpoint mid).
typedef struct gap_link { int i, k; bool gap; tc_vec3 mid; } gap_link;
typedef TC_ARRAY(gap_link) gap_link_array;

// The links of the added samples, by i (those of i: by_i[start[i] .. start[i + 1]); start:
// room for first_new + 1; nb: for the earlier samples). False when out of memory.
static bool gap_links(const vec3_array* pts, tc_real spacing, const gap_grid* gg, int first_new, int* nb, gap_link_array* links,
                      gap_link_array* by_i, int* start) {
    for (int k = first_new; k < pts->count; ++k) {
        int n = near_point(pts, &gg->grid, gap_swap(gg, pts->data[k]), pts->data[k], 2.2 * spacing, nb);
        for (int q = 0; q < n; ++q) {
            gap_link l = {nb[q], k, false, tc_v3_zero()};
            l.gap = gap_pair(pts, spacing, gg, first_new, l.i, k, &l.mid);
            if (!array_push(links, l)) return false;
        }
    }
    if (!tc_array_reserve(by_i, links->count)) return false;
    memset(start, 0, (size_t)(first_new + 1) * sizeof(int));
    for (int l = 0; l < links->count; ++l) start[links->data[l].i + 1]++;
    for (int i = 0; i < first_new; ++i) start[i + 1] += start[i];
    for (int l = 0; l < links->count; ++l) by_i->data[start[links->data[l].i]++] = links->data[l];
    for (int i = first_new; i > 0; --i) start[i] = start[i - 1]; // (the fill moved each start to the next)
    start[0] = 0;
    by_i->count = links->count;
    return true;
}

// The gaps of sample i < first_new in the second pass: its gaps of prev (from *p on, prev in
// order of i) but those an added sample covers, and its gaps with the added samples
// (links[lb..le)); the same set as a fresh search (a pair of earlier samples is the same pair,
// with the same midpoint, covered by an earlier sample in neither pass or in both).
static void gaps_kept(const vec3_array* pts, tc_real spacing, const tc_point_grid* order, const gap_array* prev, int* p, int i,
                      const gap_link* links, int lb, int le, gap_array* found) {
    tc_real r2 = (0.75 * spacing) * (0.75 * spacing);
    for (; *p < prev->count && prev->data[*p].i < i; ++*p) {}
    for (; *p < prev->count && prev->data[*p].i == i; ++*p) {
        gap g = prev->data[*p];
        bool covered = false;
        for (int l = lb; l < le && !covered; ++l) covered = tc_v3_len2(tc_v3_sub(pts->data[links[l].k], g.mid)) < r2;
        if (covered) continue;
        g.key = tc_point_grid_cell_index(order, pts->data[g.j]); // this pass's cells
        gap_insert(found, g);
    }
    for (int l = lb; l < le; ++l)
        if (links[l].gap) gap_insert(found, (gap){i, tc_point_grid_cell_index(order, pts->data[links[l].k]), links[l].k, links[l].mid});
}

// The second search, after samples were added from first_new on (prev: the first's gaps, on
// gg's grid of the first_new earlier samples; nb: room for them; start: first_new + 1). An
// earlier sample keeps its gaps but those an added sample covers (one within 0.75 spacing of a
// midpoint within 1.1 spacings of i is within 2.2 spacings of i: the links of the added
// samples) and gains its gaps with the added samples; an added sample pairs with the later
// added ones only, each tested one by one. No grid over all the samples, no fresh search of the
// earlier samples near an added one (at 20 mm 19 samples added, 198 earlier ones near them):
// second pass 0.095 -> 0.064 M TSC ticks a call. False when out of memory.
static bool pair_gaps_again(const vec3_array* pts, tc_real spacing, const tc_point_grid* order, const gap_grid* gg, int* nb, int* start,
                            const gap_array* prev, int first_new, gap_array* found, gap_array* all) {
    gap_link_array links = {0}, by_i = {0};
    bool ok = gap_links(pts, spacing, gg, first_new, nb, &links, &by_i, start);
    all->count = 0;
    int p = 0; // prev is in order of i
    for (int i = 0; ok && i < pts->count; ++i) {
        found->count = 0;
        if (i < first_new) gaps_kept(pts, spacing, order, prev, &p, i, by_i.data, start[i], start[i + 1], found);
        else
            for (int j = i + 1; j < pts->count; ++j) {
                tc_vec3 mid;
                if (gap_pair(pts, spacing, gg, first_new, i, j, &mid)) gap_insert(found, (gap){i, tc_point_grid_cell_index(order, pts->data[j]), j, mid});
            }
        for (int f = 0; f < found->count; ++f) if (!array_push(all, found->data[f])) tc_surfel_note_out_of_memory();
    }
    tc_array_free(&links);
    tc_array_free(&by_i);
    return ok;
}

// The midpoints of the pairs i < j of samples 1.5-2.2 spacings apart with no sample closer
// than 0.75 spacing (all, also kept with their pairs), by i, then in the order a query on a grid
// of one spacing lists the j (by that grid's cell, then by index). The pairs are found on a grid
// whose rows run along the samples' longest extent (the axes permuted: on a patch across x, 5
// rows of 5 cells per query instead of 25 rows of one cell), the samples near a midpoint in i's
// list (one within 0.75 spacing of it is within 1.85 of i); the distances are those of the
// original coordinates. prev (may be NULL): the gaps of the samples before first_new, found
// on gg, whose search is then updated for the newer samples (pair_gaps_again).
static void gap_candidates(const vec3_array* pts, tc_real spacing, gap_grid* gg, const gap_array* prev, int first_new, gap_array* found,
                           gap_array* all, vec3_array* cand) {
    tc_point_grid order = {0}; // the layout of the one-spacing grid: its cells order the j
    tc_point_grid_layout(&order, pts->data, pts->count, spacing);
    cand->count = all->count = 0;
    size_t count = (size_t)(pts->count > 0 ? pts->count : 1), padded = count + GAP_LANES;
    // (More than GAP_AGAIN_MAX added samples: a fresh search, the added ones being tested pair by pair.)
    if (prev && first_new < pts->count && pts->count - first_new <= GAP_AGAIN_MAX && gg->grid.start && gg->count == first_new) {
        int* nb = tc_alloc(padded * sizeof(int));
        int* start = tc_alloc((count + 1) * sizeof(int));
        bool done = nb && start && pair_gaps_again(pts, spacing, &order, gg, nb, start, prev, first_new, found, all);
        if (nb) tc_free(nb, padded * sizeof(int));
        if (start) tc_free(start, (count + 1) * sizeof(int));
        if (done) {
            for (int g = 0; g < all->count; ++g) if (!array_push(cand, all->data[g].mid)) tc_surfel_note_out_of_memory();
            return;
        }
        all->count = 0; // (out of memory: a fresh search)
    }
    int* ax = gg->ax; // axes by decreasing extent (in cells)
    ax[0] = 0, ax[1] = 1, ax[2] = 2;
    for (int a = 1; a < 3; ++a)
        for (int b = a; b > 0 && order.dims[ax[b]] > order.dims[ax[b - 1]]; --b) { int t = ax[b]; ax[b] = ax[b - 1]; ax[b - 1] = t; }
    tc_vec3* swapped = tc_alloc(count * sizeof(tc_vec3));
    int* nb = tc_alloc(padded * sizeof(int));
    int* far = tc_alloc(padded * sizeof(int));
    tc_real* coords = tc_alloc(6 * padded * sizeof(tc_real));
    int* index = tc_alloc(padded * sizeof(int));
    gap_sorted sorted = {coords, coords + padded, coords + 2 * padded, index, coords + 3 * padded, coords + 4 * padded, coords + 5 * padded};
    for (size_t t = (size_t)pts->count; coords && index && t < padded; ++t) // the padding (read, then masked off)
        sorted.x[t] = sorted.y[t] = sorted.z[t] = 0, sorted.j[t] = 0;
    gg->count = -1; // (no grid for a second pass unless built below)
    if (swapped && nb && far) { // (else no candidates: the gaps stay)
        pair_gaps(pts, spacing, &order, gg, swapped, nb, far, coords && index ? &sorted : NULL, found, all);
        for (int g = 0; g < all->count; ++g) if (!array_push(cand, all->data[g].mid)) tc_surfel_note_out_of_memory();
    }
    tc_free(swapped, count * sizeof(tc_vec3));
    tc_free(nb, padded * sizeof(int));
    tc_free(far, padded * sizeof(int));
    if (coords) tc_free(coords, 6 * padded * sizeof(tc_real));
    if (index) tc_free(index, padded * sizeof(int));
}

void tc_surfel_contact_gap_candidates(const tc_surfel_points* pts, tc_real spacing, int first_new, tc_surfel_points* out) {
    gap_grid gg = {0};
    gap_array found = {0}, prev = {0}, all = {0};
    vec3_array cand = {0};
    bool reuse = first_new >= 0 && first_new < pts->count;
    if (reuse) {
        vec3_array head = {pts->data, first_new, first_new};
        gap_candidates(&head, spacing, &gg, NULL, first_new, &found, &prev, &cand);
    }
    gap_candidates(pts, spacing, &gg, reuse ? &prev : NULL, reuse ? first_new : pts->count, &found, &all, &cand);
    for (int c = 0; c < cand.count; ++c) array_push(out, cand.data[c]);
    tc_point_grid_free(&gg.grid);
    tc_array_free(&found);
    tc_array_free(&prev);
    tc_array_free(&all);
    tc_array_free(&cand);
}

// Deletes samples closer than half a spacing to an earlier kept one (unless thinned: the
// seeding applied that rule already, so nothing would be deleted), then fills gaps with
// midpoints of neighbours 1.5-2.2 spacings apart, re-projected on the contact surface.
static void resample(const tc_points_body* A, const tc_points_body* B, vec3_array* pts, fits_array* fits, tc_real spacing, bool thinned) {
    gap_grid gg = {0};
    int* near = NULL;
    int cap = 0;
    if (!thinned) thin_samples(pts, fits, spacing, &near, &cap);
    vec3_array cand = {0};
    gap_array found = {0}, gaps[2] = {{0}, {0}};
    tc_point_grid cgrid = {0};
    int first_new = pts->count;
    for (int pass = 0; pass < 2; ++pass) {
        int added = 0;
        gap_candidates(pts, spacing, &gg, pass > 0 ? &gaps[0] : NULL, first_new, &found, &gaps[pass], &cand);
        first_new = pts->count;
        // Candidates closer than 0.75 spacing to an earlier kept candidate are dropped.
        tc_point_grid_build(&cgrid, cand.data, cand.count, spacing);
        uint8_t* taken = tc_calloc((size_t)(cand.count > 0 ? cand.count : 1), 1);
        if (!taken) { // (no midpoints added: holes stay, noted)
            tc_surfel_note_out_of_memory();
            break;
        }
        for (int c = 0; c < cand.count; ++c) {
            int n = tc_point_grid_query(&cgrid, cand.data, cand.data[c], 0.75 * spacing, &near, &cap);
            bool clash = false;
            for (int q = 0; q < n && !clash; ++q) clash = near[q] < c && taken[near[q]];
            if (clash) continue;
            taken[c] = 1;
            tc_vec3 mid = cand.data[c];
            sample_fits sf = {0};
            if (!reproject(A, B, &mid, &sf, NULL)) continue;
            if (!tc_array_reserve(pts, pts->count + 1) || !tc_array_reserve(fits, fits->count + 1)) {
                tc_surfel_note_out_of_memory(); // (a sample and its fits, or neither)
                continue;
            }
            array_push(pts, mid);
            array_push(fits, sf);
            added++;
        }
        tc_free(taken, (size_t)(cand.count > 0 ? cand.count : 1));
        // Nothing added: a second pass would find the same candidates, which fail again.
        if (added == 0) break;
    }
    tc_point_grid_free(&cgrid);
    tc_array_free(&cand);
    tc_array_free(&found);
    tc_array_free(&gaps[0]);
    tc_array_free(&gaps[1]);
    tc_point_grid_free(&gg.grid);
    if (near) tc_free(near, (size_t)cap * sizeof(int));
}

// The phyxel balls of a body for the deep-inside test: a grid over the phyxels (cells of the
// largest radius, built at the first test), and the ball that held the previous candidate.
typedef struct phyxel_balls {
    tc_point_grid grid;
    tc_real rmax;  ///< largest phyxel radius
    bool built;    ///< grid and rmax set (else every phyxel is tested)
    bool tried;    ///< the build was attempted
    int hint;      ///< the phyxel whose ball held the previous candidate, -1 none
} phyxel_balls;

static void phyxel_balls_build(const tc_points_body* b, phyxel_balls* p) {
    p->tried = true;
    p->rmax = 0;
    for (int i = 0; i < b->np; ++i) p->rmax = b->rbar[i] > p->rmax ? b->rbar[i] : p->rmax;
    p->built = p->rmax > 0 && p->rmax < 1e300 && tc_point_grid_build(&p->grid, b->x, b->np, p->rmax);
}

// A point more than 3h from every surfel of b (beyond the MLS surface's reach) is deep inside
// b when it is within a phyxel radius of one of b's phyxels and behind b's nearest surfel p
// (eq. 2 with p for the projection: the phyxels' balls stick out of the surface). The ball of
// the previous deep candidate is tested first (consecutive candidates are neighbours, mostly
// in the same ball), then the phyxels within the largest radius: the answer is whether any
// ball holds x, whichever is found.
static bool within_phyxels(const tc_points_body* b, tc_vec3 x, phyxel_balls* balls) {
    int h = balls->hint;
    if (h >= 0 && tc_v3_len2(tc_v3_sub(b->x[h], x)) < b->rbar[h] * b->rbar[h]) return true;
    if (!balls->tried) phyxel_balls_build(b, balls);
    if (balls->built) {
        const tc_point_grid* g = &balls->grid;
        int lo[3], hi[3];
        if (!tc_point_grid_range(g, x, balls->rmax, lo, hi)) return false;
        for (int cz = lo[2]; cz <= hi[2]; ++cz)
            for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                int row = (cz * g->dims[1] + cy) * g->dims[0];
                for (int t = g->start[row + lo[0]]; t < g->start[row + hi[0] + 1]; ++t) {
                    int i = g->items[t];
                    if (tc_v3_len2(tc_v3_sub(b->x[i], x)) < b->rbar[i] * b->rbar[i]) {
                        balls->hint = i;
                        return true;
                    }
                }
            }
        return false;
    }
    for (int i = 0; i < b->np; ++i)
        if (tc_v3_len2(tc_v3_sub(b->x[i], x)) < b->rbar[i] * b->rbar[i]) {
            balls->hint = i;
            return true;
        }
    return false;
}

// b's surfel nearest to x (tc_point_grid_nearest_from on b->s), read from the surface's copies
// in grid order when they are b's current surfels.
static int nearest_surfel(const tc_points_body* b, tc_vec3 x, tc_real r0, tc_real max_r) {
    const tc_surfel_surface* S = &b->surface;
    if (S->cs && S->s == b->s && S->grid.item_count == b->ns && S->sorted_count >= b->ns)
        return tc_surfel_surface_nearest(S, x, r0, max_r);
    return tc_point_grid_nearest_from(&S->grid, b->s, x, r0, max_r);
}

// Far from b's surface the MLS fit does not exist; the seed's segment then runs from x to b's
// nearest surfel p (within DEEP_REACH h), which the model below stands for: the plane through
// p facing away from x, f = -|p - x| at x (its projection is p). known: b's surfel nearest to x
// when the caller found it, else -1 (then searched). through: when known is -1, a surfel of b
// (else -1) the caller would have searched the nearest through (the ball about x holding it,
// any distance), left to here where the phyxels ask for it. hint: a surfel of b (the previous
// deep candidate's nearest, or -1); the nearest is within |x - hint| of x, so one search of
// that radius finds it (the same surfel as growing balls).
#define DEEP_REACH 10
static bool deep_inside(const tc_points_body* b, tc_vec3 x, int known, int through, int* hint, phyxel_balls* balls, tc_surfel_fit* model) {
    if (!within_phyxels(b, x, balls)) return false;
    int p = known;
    if (p < 0 && through >= 0) { // one ball, through `through` or the hint if nearer (either holds the nearest)
        tc_real r = tc_v3_dist(x, b->s[through]);
        if (*hint >= 0) r = real_min(r, tc_v3_dist(x, b->s[*hint]));
        r *= 1 + 1e-9;
        p = nearest_surfel(b, x, r, r);
    } else if (p < 0) {
        tc_real h = b->surface.h, r0 = 1.5 * TC_SURFEL_REACH * h, r_max = DEEP_REACH * h; // (none within the reach)
        if (*hint >= 0) {
            tc_real r = tc_v3_dist(b->s[*hint], x) * (1 + 1e-9);
            if (r < r_max) r0 = r_max = r;
        }
        // The first ball alone (one ball: its rows clipped to the chord), then the doubling walk:
        // the first ball holding a surfel holds the nearest.
        p = nearest_surfel(b, x, r0, r0);
        if (p < 0 && r0 < r_max) p = nearest_surfel(b, x, 2 * r0, r_max);
    }
    if (p < 0) { model->f = 1e300; return true; }
    *hint = p;
    tc_vec3 d = tc_v3_sub(b->s[p], x);
    tc_real len = tc_v3_len(d);
    if (tc_v3_dot(d, b->n[p]) <= 0 || !(len > 0)) return false; // in front of the surface there
    *model = (tc_surfel_fit){0};
    model->a = b->s[p];
    model->n = tc_v3_scale(d, 1 / len);
    tc_v3_basis(model->n, &model->t1, &model->t2);
    model->inv_h = 1 / b->surface.h;
    model->f = -len;
    return true;
}

// ---- classification ------------------------------------------------------------------------
// A surfel of self collides when f_other < 0 at it. Most candidates (self's surfels in other's
// box) are outside, many of them by more than h, and a full fit each is the largest cost. f
// changes by at most ~1.16 |dx| between surfels within h of each other (measured on spheres and
// boxes with sharp edges, pairs 0.3-1.2 h apart), so f(p) - LIP |y - p| <= f(y) <=
// f(p) + LIP |y - p| with LIP = 1.5 bounds f at y from a classified neighbour p (its exact f,
// or its own bounds; upper bounds only where other is flat about p's foot: between the faces of
// a plate up to ~3h thick f rises back towards 0, slopes up to 2.5 seen). Candidates are
// visited in self's grid order (neighbours come early); one whose lower bound exceeds
// BOUND_MARGIN is outside without a fit, unless it may be deep inside (beyond the MLS reach),
// which the fit would have decided; one whose upper bound is below -BOUND_MARGIN is inside,
// other's model at that neighbour standing for its fit (the seed only takes a segment from it).
// Most of the others are decided by the tangent plane of other's nearest surfel
// (classify_on_plane); the rest are fitted. The result is that of a fit per surfel, except
// where other is so thin or so deeply entered that a fit at the surfel weighs in its far face
// too: there the fitted f rises back towards 0 inside it, and a few surfels inside other's
// shape that a fit would call outside collide (test_surfel_contact.c: spheres, boxes aligned
// and rotated, plates, a slab; on 3,000 random pairs of spheres, boxes and plates every
// difference was such a surfel).
enum { CLASS_OUT = 0, CLASS_SEED, CLASS_HIDDEN };
#define CLASS_LIP 1.5
#define CLASS_BOUND_MARGIN 0.1 // of h: the steps of the 2h truncation, the widening to 3h and the 8-surfel quadratic switch
enum { BOUND_LANES = 4 }; // (lower_at and upper_at: room for a group of 4 read from the last position)

typedef struct side_class {
    int* slot_of;       ///< per surfel of self: its candidate slot once classified (set only then)
    uint64_t* classified; ///< one bit per surfel of self: classified (its slot_of is set)
    int count;          ///< candidates classified
    tc_real* lower;     ///< per slot: lower bound on f_other (exact f when fitted; -inf unknown)
    uint8_t* state;     ///< per slot: CLASS_*
    tc_surfel_fit* fit; ///< per slot: other's fit at the surfel (CLASS_SEED only)
    uint8_t* approx;    ///< per slot: fit is a model of other near the surfel (a tangent plane, a neighbour's model), not its MLS fit there
    tc_real* upper;     ///< per slot: upper bound on f_other where other is flat about the foot (f fitted, g + margin on a plane), else +inf
    tc_real* upper_at;  ///< per grid position of self's sorted surfels: upper (+inf unclassified), or NULL
    int* slot_at;       ///< per grid position: the slot classified there (read where upper_at is finite)
    tc_real* lower_at;  ///< per grid position of self's sorted surfels: lower (-inf unclassified), or NULL
    int walk_lo[3], walk_hi[3]; ///< the cells walked (lower_at and upper_at are set on their rows' runs, and read only there)
    bool avx2;          ///< neighbour_bound's AVX2 walk runs on this CPU
    int deep_hint;      ///< other's surfel nearest to the last candidate beyond the MLS reach, -1 none
    int plane_hint;     ///< other's surfel nearest to the last candidate the tangent-plane test saw, -1 none
    int plane_hint_at;  ///< plane_hint's grid position in other's surface copies, -1 unknown
    int reach_hint;     ///< other's surfel (grid position) within the reach of the last candidate that had one, -1 none
    tc_vec3 near_at;    ///< the last candidate the tangent-plane test searched other's nearest surfel for
    tc_real beyond2;    ///< (d - reach)^2 with d that distance (less margins) when it was beyond the reach, else -1
    tc_vec3 last_fit_at; ///< the last fitted candidate and its f (last_fit_f = inf: none yet)
    tc_real last_fit_f;
    phyxel_balls balls; ///< other's phyxel balls (for candidates beyond the MLS reach)
    int ns, cap;
} side_class;

static void side_class_free(side_class* c) {
    tc_point_grid_free(&c->balls.grid);
    tc_free(c->slot_of, (size_t)c->ns * sizeof(int));
    tc_free(c->classified, (size_t)(c->ns + 63) / 64 * sizeof(uint64_t));
    if (c->lower_at) tc_free(c->lower_at, ((size_t)c->ns + BOUND_LANES) * sizeof(tc_real));
    if (c->upper_at) tc_free(c->upper_at, ((size_t)c->ns + BOUND_LANES) * sizeof(tc_real));
    if (c->slot_at) tc_free(c->slot_at, (size_t)c->ns * sizeof(int));
    if (c->cap) {
        tc_free(c->lower, (size_t)c->cap * sizeof(tc_real));
        tc_free(c->state, (size_t)c->cap);
        tc_free(c->fit, (size_t)c->cap * sizeof(tc_surfel_fit));
        tc_free(c->approx, (size_t)c->cap);
        tc_free(c->upper, (size_t)c->cap * sizeof(tc_real));
    }
}

// Room for nc candidates; false (nothing changed, out of memory noted) when it cannot grow.
static bool side_class_reserve(side_class* c, int nc) {
    if (nc <= c->cap) return true;
    tc_real *lower = tc_alloc((size_t)nc * sizeof(tc_real)), *upper = tc_alloc((size_t)nc * sizeof(tc_real));
    uint8_t *state = tc_alloc((size_t)nc), *approx = tc_alloc((size_t)nc);
    tc_surfel_fit* fit = tc_alloc((size_t)nc * sizeof(tc_surfel_fit));
    if (!lower || !upper || !state || !fit || !approx) {
        tc_free(lower, (size_t)nc * sizeof(tc_real));
        tc_free(upper, (size_t)nc * sizeof(tc_real));
        tc_free(state, (size_t)nc);
        tc_free(approx, (size_t)nc);
        tc_free(fit, (size_t)nc * sizeof(tc_surfel_fit));
        tc_surfel_note_out_of_memory();
        return false;
    }
    if (c->cap) {
        memcpy(lower, c->lower, (size_t)c->count * sizeof(tc_real));
        memcpy(state, c->state, (size_t)c->count);
        memcpy(fit, c->fit, (size_t)c->count * sizeof(tc_surfel_fit));
        memcpy(approx, c->approx, (size_t)c->count);
        memcpy(upper, c->upper, (size_t)c->count * sizeof(tc_real));
        tc_free(c->lower, (size_t)c->cap * sizeof(tc_real));
        tc_free(c->upper, (size_t)c->cap * sizeof(tc_real));
        tc_free(c->state, (size_t)c->cap);
        tc_free(c->fit, (size_t)c->cap * sizeof(tc_surfel_fit));
        tc_free(c->approx, (size_t)c->cap);
    }
    c->lower = lower, c->upper = upper, c->state = state, c->fit = fit, c->approx = approx, c->cap = nc;
    return true;
}

// The distance from a point to other's surfels is 1-Lipschitz: where it is d > reach at the
// last candidate searched (near_at), every point y with |y - near_at| < d - reach is beyond
// the reach. Relative margins of 1e-9 (far beyond the rounding of the distances and squares);
// no square root per test, and one comparison where d is within the reach (most candidates).
static void beyond_from(side_class* c, tc_vec3 at, tc_real d, tc_real reach) {
    tc_real room = d * (1 - 1e-9) - reach * (1 + 1e-9);
    c->near_at = at;
    c->beyond2 = room > 0 ? room * room : -1; // (NaN d: -1)
}

static bool beyond_reach(const side_class* c, tc_vec3 y) {
    return c->beyond2 > 0 && tc_v3_len2(tc_v3_sub(y, c->near_at)) * (1 + 3e-9) < c->beyond2;
}

// The best lower bound on f_other at surfel k from its classified neighbours within h; *upper
// the best upper bound and *upper_slot the neighbour's slot giving it (-1 none). at: k's grid
// position. The candidates are classified in grid order, so only the positions before it can
// hold a bound: the walk stops there (and starts at the first walked position). The bounds are
// the max of lower - 1.5 |d| over the neighbours whose lower exceeds the margin and the min of
// upper + 1.5 |d| over those whose upper is below minus the margin (the others cannot bound
// anything), the upper one's slot that of the first in walk order giving the min: exact values
// whatever the order they are compared in, so the AVX2 walk gives the same bits.
static tc_real neighbour_bound_scalar(const tc_surfel_surface* S, const side_class* c, tc_vec3 y, int at, tc_real h, const int lo[3],
                                      const int hi[3], tc_real* upper, int* upper_slot) {
    const tc_point_grid* g = &S->grid;
    tc_real best = -INFINITY, r2 = h * h, useful = CLASS_BOUND_MARGIN * h, useful_up = -CLASS_BOUND_MARGIN * h;
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * g->dims[1] + cy) * g->dims[0], t = g->start[row + lo[0]], end = g->start[row + hi[0] + 1];
            if (t >= at) return best; // this row and the later ones are not classified yet
            if (end > at) end = at;
            for (; t < end; ++t) {
                tc_real lower = c->lower_at[t], up = c->upper_at[t]; // (by grid position: in order along the row)
                // Unclassified, too low (high) to bound anything, or not above (below) the best
                // so far (its bound is lower - 1.5 |d| <= lower): no distance needed.
                bool lo_use = lower > useful, up_use = up < useful_up;
                if (!lo_use && !up_use) continue;
                tc_real d2 = tc_v3_len2(tc_v3_sub(S->cs[t], y));
                if (!(d2 <= r2)) continue;
                tc_real d = CLASS_LIP * sqrt(d2);
                if (lo_use && lower - d > best) {
                    best = lower - d;
                    useful = best > CLASS_BOUND_MARGIN * h ? best : CLASS_BOUND_MARGIN * h;
                }
                if (up_use && up + d < *upper) {
                    *upper = up + d;
                    *upper_slot = c->slot_at[t];
                    useful_up = *upper < -CLASS_BOUND_MARGIN * h ? *upper : -CLASS_BOUND_MARGIN * h;
                }
            }
        }
    return best;
}

#ifdef GAP_AVX2 // (the builds with the gap split's AVX2 walk)
#define BOUND_AVX2 1
// neighbour_bound_scalar 4 grid positions at a time without a branch per position (the scalar
// walk's tests mispredicted: ~500 TSC ticks a call for ~15 positions scanned at 20 mm): per
// lane the max of the lower bounds and the min of the upper ones with the first position giving
// it; the lanes past the row's end masked off (their loads read the marks set past each walked
// run, or the padding of lower_at, upper_at and S->soa). The same differences, squares, sums,
// square roots and products as the scalar walk: the same bits.
__attribute__((target("avx2"))) static tc_real neighbour_bound_avx2(const tc_surfel_surface* S, const side_class* c, tc_vec3 y, int at,
                                                                    tc_real h, const int lo[3], const int hi[3], tc_real* upper,
                                                                    int* upper_slot) {
    const tc_point_grid* g = &S->grid;
    size_t ss = (size_t)S->sorted_count + 4;
    const tc_real *X = S->soa, *Y = X + ss, *Z = Y + ss, *lower_at = c->lower_at, *upper_at = c->upper_at;
    __m256d px = _mm256_set1_pd(y.x), py = _mm256_set1_pd(y.y), pz = _mm256_set1_pd(y.z), r2 = _mm256_set1_pd(h * h);
    __m256d useful = _mm256_set1_pd(CLASS_BOUND_MARGIN * h), useful_up = _mm256_set1_pd(-CLASS_BOUND_MARGIN * h);
    __m256d lip = _mm256_set1_pd(CLASS_LIP), none = _mm256_set1_pd(-INFINITY), lane = _mm256_set_pd(3, 2, 1, 0);
    __m256d step = _mm256_set1_pd(BOUND_LANES);
    __m256d best = none, up = _mm256_set1_pd(INFINITY), up_pos = _mm256_set1_pd(-1); // (positions as doubles: exact)
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * g->dims[1] + cy) * g->dims[0], t = g->start[row + lo[0]], end = g->start[row + hi[0] + 1];
            if (t >= at) goto done; // this row and the later ones are not classified yet
            if (end > at) end = at;
            __m256d last = _mm256_set1_pd(end), pos = _mm256_add_pd(_mm256_set1_pd(t), lane);
            for (; t < end; t += BOUND_LANES, pos = _mm256_add_pd(pos, step)) {
                __m256d ex = _mm256_sub_pd(_mm256_loadu_pd(X + t), px), ey = _mm256_sub_pd(_mm256_loadu_pd(Y + t), py);
                __m256d ez = _mm256_sub_pd(_mm256_loadu_pd(Z + t), pz);
                __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey)), _mm256_mul_pd(ez, ez));
                __m256d near = _mm256_and_pd(_mm256_cmp_pd(pos, last, _CMP_LT_OQ), _mm256_cmp_pd(d2, r2, _CMP_LE_OQ));
                __m256d d = _mm256_mul_pd(lip, _mm256_sqrt_pd(d2));
                __m256d lower = _mm256_loadu_pd(lower_at + t), upper_t = _mm256_loadu_pd(upper_at + t);
                __m256d lo_use = _mm256_and_pd(near, _mm256_cmp_pd(lower, useful, _CMP_GT_OQ));
                best = _mm256_max_pd(best, _mm256_blendv_pd(none, _mm256_sub_pd(lower, d), lo_use));
                __m256d bound_up = _mm256_add_pd(upper_t, d);
                __m256d better = _mm256_and_pd(_mm256_and_pd(near, _mm256_cmp_pd(upper_t, useful_up, _CMP_LT_OQ)),
                                               _mm256_cmp_pd(bound_up, up, _CMP_LT_OQ)); // (strict: a lane keeps its first)
                up = _mm256_blendv_pd(up, bound_up, better);
                up_pos = _mm256_blendv_pd(up_pos, pos, better);
            }
        }
done:;
    // Across the lanes: the max lower bound, the min upper one and, among the lanes holding it,
    // the first position (all in every lane after the two steps).
    best = _mm256_max_pd(best, _mm256_permute2f128_pd(best, best, 1));
    best = _mm256_max_pd(best, _mm256_permute_pd(best, 5));
    __m256d least = _mm256_min_pd(up, _mm256_permute2f128_pd(up, up, 1));
    least = _mm256_min_pd(least, _mm256_permute_pd(least, 5));
    __m256d first = _mm256_blendv_pd(_mm256_set1_pd(INFINITY), up_pos, _mm256_cmp_pd(up, least, _CMP_EQ_OQ));
    first = _mm256_min_pd(first, _mm256_permute2f128_pd(first, first, 1));
    first = _mm256_min_pd(first, _mm256_permute_pd(first, 5));
    tc_real least_up = _mm256_cvtsd_f64(least);
    if (least_up < INFINITY) {
        *upper = least_up;
        *upper_slot = c->slot_at[(int)_mm256_cvtsd_f64(first)];
    }
    return _mm256_cvtsd_f64(best);
}
#endif

static tc_real neighbour_bound(const tc_points_body* self, const side_class* c, tc_vec3 y, int at, tc_real h, tc_real* upper, int* upper_slot) {
    const tc_surfel_surface* S = &self->surface;
    *upper = INFINITY;
    *upper_slot = -1;
    int lo[3], hi[3];
    if (!tc_point_grid_range(&S->grid, y, h, lo, hi)) return -INFINITY;
    for (int a = 0; a < 3; ++a) { // (no cell outside the walked ones holds a classified surfel)
        lo[a] = lo[a] > c->walk_lo[a] ? lo[a] : c->walk_lo[a];
        hi[a] = hi[a] < c->walk_hi[a] ? hi[a] : c->walk_hi[a];
    }
#ifdef BOUND_AVX2
    if (c->avx2) return neighbour_bound_avx2(S, c, y, at, h, lo, hi, upper, upper_slot);
#endif
    return neighbour_bound_scalar(S, c, y, at, h, lo, hi, upper, upper_slot);
}

// A candidate beyond other's MLS reach: deep inside (a seed along the segment to other's
// nearest surfel, or hidden without a sample when none is near) or outside. nearest, through:
// as deep_inside's known and through.
static void classify_deep(const tc_points_body* other, side_class* c, int slot, tc_vec3 y, int nearest, int through) {
    tc_surfel_fit* fo = &c->fit[slot];
    if (!deep_inside(other, y, nearest, through, &c->deep_hint, &c->balls, fo)) return;
    c->state[slot] = fo->f < 1e299 ? CLASS_SEED : CLASS_HIDDEN;
}

// nearest_surfel, and *at the surfel's grid position in b's surface copies where the search knew
// it and the copies hold b's current surfels and normals, else -1.
static int nearest_surfel_at(const tc_points_body* b, tc_vec3 x, tc_real r0, tc_real max_r, int* at) {
    const tc_surfel_surface* S = &b->surface;
    *at = -1;
    if (!(S->cs && S->s == b->s && S->grid.item_count == b->ns && S->sorted_count >= b->ns))
        return tc_point_grid_nearest_from(&S->grid, b->s, x, r0, max_r);
    int p = tc_surfel_surface_nearest_at(S, x, r0, max_r, at);
    if (S->n != b->n) *at = -1;
    return p;
}

// b's surfel p (at: its grid position, or -1) read from the surface's copies where known: the
// same values (copied), from the lines the search just scanned (the SoA coordinates) or that
// nearby candidates' searches read, where s[p] and n[p] by index missed the cache for most
// candidates (p jumps about in index order).
static inline tc_vec3 surfel_position(const tc_points_body* b, int p, int at) {
    if (at < 0) return b->s[p];
    const tc_real* X = b->surface.soa;
    size_t ss = (size_t)b->surface.sorted_count + 4;
    return tc_v3(X[at], X[ss + (size_t)at], X[2 * ss + (size_t)at]);
}

static inline tc_vec3 surfel_normal(const tc_points_body* b, int p, int at) {
    if (at < 0) return b->n[p];
    const tc_real* r = b->surface.rec + 6 * (size_t)at;
    return tc_v3(r[3], r[4], r[5]);
}

// Most candidates lie clearly on one side of other's surface, where the tangent plane of
// other's surfel p nearest to y tells the side: g = (y - p).n_p is within CLASS_PLANE_MARGIN of
// the MLS f wherever the surfels that weigh in a fit at y (0.1 or more of the nearest's weight:
// within 1.5 h of y's foot) all face within 25 degrees of n_p (worst 0.006 h off on the bench's
// spheres). Where they do not (edges, corners, plates ~h thick) the MLS surface rounds away from
// p's plane by up to 0.82 h (seen on rotated boxes): there |g| must exceed CLASS_PLANE_FAR h.
// Otherwise, or with |g| within the margin, a fit decides (see the classification's notes
// above for thin bodies). p is found in one ball about y, through the previous candidate's
// nearest (a neighbour's: the ball through the surfel nearest to y's foot on its plane,
// searched first, took 1% more instructions in all). A colliding candidate keeps p's plane as
// its model of other (approx: the seeding fits other at the segment's point instead); g - margin
// (h where not flat) bounds f from below for the neighbours, g + margin from above where flat.
// PLANE_BEYOND: no surfel within the reach 3h (no fit exists at y), *nearest the nearest (for
// classify_deep).
#define CLASS_PLANE_MARGIN 0.5
#define CLASS_PLANE_FAR 1.5
enum { PLANE_UNDECIDED, PLANE_DECIDED, PLANE_BEYOND };
static int classify_on_plane(const tc_points_body* other, side_class* c, int slot, tc_vec3 y, int* nearest) {
    tc_real h = other->surface.h, margin = CLASS_PLANE_MARGIN * h, reach = TC_SURFEL_REACH * h;
    int p = -1, at = -1, hint = c->plane_hint;
    // Beyond the reach for sure (beyond_from): the search is left to deep_inside,
    // through the hint as here, made only where the phyxels hold y (the same nearest; *nearest
    // stays -1).
    if (hint >= 0 && beyond_reach(c, y)) return PLANE_BEYOND;
    if (hint >= 0) { // the nearest to y is within |y - hint|: one ball
        tc_real r = tc_v3_dist(y, surfel_position(other, hint, c->plane_hint_at)) * (1 + 1e-9);
        p = nearest_surfel_at(other, y, r, r, &at);
    }
    if (p < 0) p = nearest_surfel_at(other, y, 1.5 * h, DEEP_REACH * h, &at);
    if (p < 0) return PLANE_UNDECIDED; // (nothing near: the fit path decides)
    c->plane_hint = p;
    c->plane_hint_at = at;
    tc_vec3 sp = surfel_position(other, p, at), np = surfel_normal(other, p, at);
    tc_vec3 e = tc_v3_sub(y, sp);
    tc_real g = tc_v3_dot(e, np);
    c->beyond2 = -1;
    if (!(tc_v3_len2(e) <= reach * reach)) { // (the gather's test: no fit exists at y)
        beyond_from(c, y, tc_v3_len(e), reach);
        *nearest = p;
        return PLANE_BEYOND;
    }
    if (!(fabs(g) > margin)) return PLANE_UNDECIDED;
    // (tc_surfel_surface_flat_at: the 3x3x3 cells of 1.5 h around the foot's). Where it is not
    // flat, g bounds f within h.
    bool flat = tc_surfel_surface_flat_at(&other->surface, tc_v3_madd(y, -g, np), np, FLAT_COS);
    if (!flat && fabs(g) < CLASS_PLANE_FAR * h) return PLANE_UNDECIDED;
    tc_real slack = flat ? margin : h;
    c->lower[slot] = g - slack;
    c->upper[slot] = flat ? g + slack : INFINITY; // (no inside bounds from thin or sharp parts, below)
    if (g > 0) return PLANE_DECIDED;
    tc_surfel_fit* fo = &c->fit[slot];
    *fo = (tc_surfel_fit){0};
    fo->a = sp;
    fo->n = np;
    tc_v3_basis(fo->n, &fo->t1, &fo->t2);
    fo->inv_h = 1 / h;
    fo->f = g;
    c->state[slot] = CLASS_SEED;
    c->approx[slot] = 1;
    return PLANE_DECIDED;
}

// Classifies candidate k (in other's box) of self, at y (its position).
static void classify_one(const tc_points_body* self, const tc_points_body* other, side_class* c, int k, int at, tc_vec3 y);

// classify_one for the surfel at grid position t, its result kept by position for the bounds.
// Its position is read from the grid-order copy (the same value: the walk just read it there);
// self->s[k] in index order, k jumping about, missed the cache for most candidates (~40% of
// classify_one's own time at 20 mm, perf).
static void classify_at(const tc_points_body* self, const tc_points_body* other, side_class* c, int t) {
    int before = c->count;
    classify_one(self, other, c, self->surface.grid.items[t], t, self->surface.cs[t]);
    if (c->count > before) {
        c->lower_at[t] = c->lower[c->count - 1];
        c->upper_at[t] = c->upper[c->count - 1];
        c->slot_at[t] = c->count - 1;
    }
}

// at: k's grid position when the candidates are walked in grid order (their bounds are used),
// else -1 (no bounds).
static void classify_one(const tc_points_body* self, const tc_points_body* other, side_class* c, int k, int at, tc_vec3 y) {
    tc_real h = other->surface.h;
    if (c->count == c->cap && !side_class_reserve(c, c->cap ? 2 * c->cap : 256)) return; // left unclassified
    int slot = c->count++;
    tc_real upper = INFINITY;
    int upper_slot = -1;
    tc_real bound = at >= 0 ? neighbour_bound(self, c, y, at, h, &upper, &upper_slot) : -INFINITY;
    c->slot_of[k] = slot;
    c->classified[k >> 6] |= (uint64_t)1 << (k & 63);
    c->state[slot] = CLASS_OUT;
    c->approx[slot] = 0;
    c->lower[slot] = bound;
    c->upper[slot] = INFINITY;
    if (upper < -CLASS_BOUND_MARGIN * h && upper_slot >= 0) { // inside: other's model at a neighbour stands for it at y
        tc_surfel_fit* fo = &c->fit[slot];
        *fo = c->fit[upper_slot];
        fo->f = tc_surfel_fit_value(fo, y);
        c->upper[slot] = upper;
        c->lower[slot] = -INFINITY;
        c->state[slot] = CLASS_SEED;
        c->approx[slot] = 1;
        return;
    }
    if (bound > CLASS_BOUND_MARGIN * h) {
        if (tc_surfel_surface_reaches_from(&other->surface, y, &c->reach_hint)) return; // a fit exists there, and it is > 0
        // No surfel within 3h: the fit would fail, the phyxels decide (as below); f is
        // not defined there, so it bounds no neighbour.
        c->lower[slot] = -INFINITY;
        classify_deep(other, c, slot, y, -1, -1);
        return;
    }
    tc_surfel_fit* fo = &c->fit[slot];
    // Within h of a candidate fitted within the margin of other's surface the plane seldom decides:
    // straight to the fit (shallow contacts, where nearly every candidate is fitted: 4 mm on the
    // bench took 4% more instructions with the plane tried first).
    bool shallow = fabs(c->last_fit_f) < CLASS_PLANE_MARGIN * h && tc_v3_len2(tc_v3_sub(y, c->last_fit_at)) < h * h;
    int nearest = -1, plane = at >= 0 && !shallow ? classify_on_plane(other, c, slot, y, &nearest) : PLANE_UNDECIDED;
    if (plane == PLANE_DECIDED) return;
    if (plane == PLANE_BEYOND) { // no surfel within 3h: the fit would fail
        c->lower[slot] = -INFINITY;
        classify_deep(other, c, slot, y, nearest, nearest < 0 ? c->plane_hint : -1);
        if (nearest < 0 && c->state[slot] == CLASS_SEED) c->plane_hint = c->deep_hint, c->plane_hint_at = -1; // (searched there: y's nearest, as the plane test keeps)
        return;
    }
    if (!tc_surfel_surface_fit(&other->surface, y, fo)) {
        c->lower[slot] = -INFINITY;
        classify_deep(other, c, slot, y, -1, -1); // beyond the MLS reach
        return;
    }
    c->lower[slot] = fo->f;
    // An upper bound only where other is flat about the fit's foot: inside plates up to ~3h thick
    // f is not 1.5-Lipschitz (it rises back towards 0 between the faces, slopes up to 2.5 seen).
    if (fo->f < 0 && tc_surfel_surface_flat_at(&other->surface, tc_v3_madd(y, -fo->f, fo->n), fo->n, FLAT_COS)) c->upper[slot] = fo->f;
    c->last_fit_at = y;
    c->last_fit_f = fo->f;
    if (fo->f < 0) c->state[slot] = CLASS_SEED;
}

// Classifies self's surfels in other's box (see above; exact: a fit for every one). With a
// current grid, only its cells that meet the box are walked, in grid order.
static void classify_side(const tc_points_body* self, const tc_points_body* other, bool exact, side_class* c) {
    *c = (side_class){0};
    c->deep_hint = c->balls.hint = c->plane_hint = c->plane_hint_at = c->reach_hint = -1;
    c->last_fit_f = INFINITY;
    c->beyond2 = -1;
    c->ns = self->ns > 0 ? self->ns : 1;
    c->slot_of = tc_alloc((size_t)c->ns * sizeof(int)); // (read only where classified is set: no fill)
    c->classified = tc_calloc((size_t)(c->ns + 63) / 64, sizeof(uint64_t));
    if (!c->slot_of || !c->classified) { // this side classifies nothing
        side_class_free(c);
        c->slot_of = NULL, c->classified = NULL;
        tc_surfel_note_out_of_memory();
        return;
    }
    const tc_surfel_surface* S = &self->surface;
    const tc_point_grid* g = &S->grid;
    tc_aabb box = other->aabb;
    if (exact || !g->start || !S->cs || g->item_count != self->ns || S->s != self->s) {
        for (int k = 0; k < self->ns; ++k)
            if (tc_aabb_contains_point(box, self->s[k])) classify_one(self, other, c, k, -1, self->s[k]);
        return;
    }
    tc_vec3 mid = tc_v3_scale(tc_v3_add(box.lo, box.hi), 0.5), ext = tc_v3_sub(box.hi, box.lo);
    tc_real half = 0.5 * fmax(ext.x, fmax(ext.y, ext.z)); // the range is per axis: a cube holding the box
    int lo[3], hi[3], most = 0;
    if (!tc_point_grid_range(g, mid, half, lo, hi)) return;
    for (int cz = lo[2]; cz <= hi[2]; ++cz) // the surfels of the walked rows: room for all at once
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * g->dims[1] + cy) * g->dims[0];
            most += g->start[row + hi[0] + 1] - g->start[row + lo[0]];
        }
    (void)side_class_reserve(c, most); // (else grown as it goes)
    c->lower_at = tc_alloc(((size_t)c->ns + BOUND_LANES) * sizeof(tc_real));
    c->upper_at = tc_alloc(((size_t)c->ns + BOUND_LANES) * sizeof(tc_real));
    c->slot_at = tc_alloc((size_t)c->ns * sizeof(int));
    if (!c->lower_at || !c->upper_at || !c->slot_at) { // without the bounds: a fit for every candidate
        tc_surfel_note_out_of_memory();
        for (int k = 0; k < self->ns; ++k)
            if (tc_aabb_contains_point(box, self->s[k])) classify_one(self, other, c, k, -1, self->s[k]);
        return;
    }
    // Unclassified marks on the walked rows' runs and BOUND_LANES past each (the AVX2 walk's
    // masked lanes), the only positions the bounds read: their ranges are clipped to the walked
    // cells. (From the first walked position to the last, as before, they were all of self's
    // 10,000 surfels at 20 mm, the walked cube's rows spanning the grid, for ~1,200 walked:
    // 160 kB written a side.)
    for (int a = 0; a < 3; ++a) c->walk_lo[a] = lo[a], c->walk_hi[a] = hi[a];
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * g->dims[1] + cy) * g->dims[0], t = g->start[row + lo[0]], end = g->start[row + hi[0] + 1];
            for (end += t < end ? BOUND_LANES : 0; t < end; ++t) c->lower_at[t] = -INFINITY, c->upper_at[t] = INFINITY;
        }
#ifdef BOUND_AVX2
    c->avx2 = S->soa && __builtin_cpu_supports("avx2");
#endif
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * g->dims[1] + cy) * g->dims[0];
            for (int t = g->start[row + lo[0]]; t < g->start[row + hi[0] + 1]; ++t)
                if (tc_aabb_contains_point(box, S->cs[t])) classify_at(self, other, c, t);
        }
}

// The cover test's inputs for one seed: where it is predicted to land and how close to a kept
// sample that must be for it to be skipped (skip_r <= 0: never skipped, at not set); the seed's
// surfel and slot (the prefetches of the loops below).
typedef struct seed_guess { tc_vec3 at; tc_real skip_r; int k, slot, side; } seed_guess;

// The lines of fit (160 bytes, at any offset: up to 4 lines) into the cache.
static void prefetch_fit(const tc_surfel_fit* fit) {
    const char* p = (const char*)fit;
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
    __builtin_prefetch(p + 128);
    __builtin_prefetch(p + sizeof *fit - 1);
}

enum { GUESS_AHEAD = 4 }; // the seeds prefetched ahead of the prediction

// The guesses of every seed of both sides, in the seeding's order (surfel index order, side A
// first), before any seed is root-found: the same calls on the same data (the same bits), but
// the predictions no longer wait in turn behind each seed's root search, and the seeds' fits
// (cls.fit, stored in grid order) and surfels (s, n) are fetched a few seeds ahead. (Inline,
// the load of fo->c[3] had 41% of collect_seeds' own samples and the surfel's loads 39% of
// predict_seed's.) *count: the seeds guessed (at most seeds). NULL when out of memory: the
// caller then predicts as it goes.
static seed_guess* guess_seeds(tc_points_body* const side[2], const side_class cls[2], int seeds, tc_real spacing, int* count) {
    seed_guess* guess = tc_alloc((size_t)(seeds > 0 ? seeds : 1) * sizeof(seed_guess));
    *count = 0;
    if (!guess) return NULL;
    int n = 0;
    for (int s = 0; s < 2; ++s) // the seeds in order: their surfels and slots
        for (int word = 0; cls[s].classified && word < (side[s]->ns + 63) / 64; ++word)
            for (uint64_t bits = cls[s].classified[word]; bits; bits &= bits - 1) {
                int k = word * 64 + __builtin_ctzll(bits), slot = cls[s].slot_of[k];
                if (cls[s].state[slot] != CLASS_SEED || n == seeds) continue;
                guess[n++] = (seed_guess){.k = k, .slot = slot, .side = s};
            }
    for (int i = 0; i < n; ++i) {
        if (i + GUESS_AHEAD < n) {
            const seed_guess* ahead = &guess[i + GUESS_AHEAD];
            prefetch_fit(&cls[ahead->side].fit[ahead->slot]);
            __builtin_prefetch(&side[ahead->side]->s[ahead->k]);
            __builtin_prefetch(&side[ahead->side]->n[ahead->k]);
        }
        seed_guess* g = &guess[i];
        const tc_surfel_fit* fo = &cls[g->side].fit[g->slot];
        g->skip_r = cover_skip_radius(fo, spacing);
        if (g->skip_r > 0) g->at = predict_seed(side[g->side], side[1 - g->side], g->k, fo);
    }
    *count = n;
    return guess;
}

// The seeds with the fits each was placed with (fits may be NULL), in surfel index order.
// spacing > 0: only the seeds the resampling keeps (none closer than spacing/2 to an earlier
// kept one); unless every_seed, a seed predicted well within half a spacing of a kept one is
// not root-found. *thinned (may be NULL): true when that rule was applied to every seed kept
// (false without a spacing, or when a far or non-finite point escaped the cover cells).
static void collect_seeds(tc_points_body* A, tc_points_body* B, bool exact_roots, tc_real spacing, bool every_seed,
                          tc_surfel_contact* counts, tc_surfel_points* out, fits_array* fits, bool* thinned) {
    tc_points_body* side[2] = {A, B};
    fit_table table;
    fit_table_init(&table, fmin(A->surface.h, B->surface.h));
    cover_set cover;
    // Both sides classified first: room for all seeds at once (the fit table's entries and the
    // samples' fit pairs are large: no regrowth copies). The classifications do not depend on
    // the seeding.
    side_class cls[2];
    int seeds = 0;
    for (int s = 0; s < 2; ++s) {
        classify_side(side[s], side[1 - s], exact_roots, &cls[s]);
        for (int slot = 0; slot < cls[s].count; ++slot) seeds += cls[s].state[slot] == CLASS_SEED;
    }
    cover_init(&cover, spacing > 0 ? spacing : 1, spacing > 0 ? seeds : 0); // cells of a spacing: the balls (radius up to half a spacing) meet 2 per axis
    tc_array_reserve(&table.entries, table.entries.count + seeds);
    tc_array_reserve(&table.fits, table.fits.count + seeds);
    tc_array_reserve(out, out->count + seeds);
    if (fits) tc_array_reserve(fits, fits->count + seeds);
    sample_fits spare; // (a seed's pair when fits is NULL or has no room)
    bool guessing = spacing > 0 && !every_seed;
    int guessed = 0, seed_index = 0; // (the seed's guess)
    seed_guess* guess = guessing ? guess_seeds(side, cls, seeds, spacing, &guessed) : NULL;
    for (int s = 0; s < 2; ++s) {
        tc_points_body *self = side[s], *other = side[1 - s];
        int* colliding = s == 0 ? &counts->colliding_a : &counts->colliding_b;
        for (int word = 0; cls[s].classified && word < (self->ns + 63) / 64; ++word)
            for (uint64_t bits = cls[s].classified[word]; bits; bits &= bits - 1) { // the classified surfels in index order
                int k = word * 64 + __builtin_ctzll(bits), slot = cls[s].slot_of[k];
                if (cls[s].state[slot] == CLASS_OUT) continue;
                self->surfel_colliding[k] = 1;
                (*colliding)++;
                if (cls[s].state[slot] == CLASS_HIDDEN) continue;
                const tc_surfel_fit* fo = &cls[s].fit[slot];
                if (guess && seed_index < guessed) {
                    const seed_guess* g = &guess[seed_index++];
                    if (g->skip_r > 0 && cover_within(&cover, g->at, g->skip_r)) continue;
                    if (seed_index < guessed) { // the next seed's fit and surfel, for its root search
                        const seed_guess* next = &guess[seed_index];
                        prefetch_fit(&cls[next->side].fit[next->slot]);
                        __builtin_prefetch(&side[next->side]->s[next->k]);
                    }
                } else if (guessing) { // (out of memory, or a seed not listed: the same test as it goes)
                    tc_real skip_r = cover_skip_radius(fo, spacing);
                    if (skip_r > 0 && cover_within(&cover, predict_seed(self, other, k, fo), skip_r)) continue;
                }
                tc_vec3 x;
                bool ok;
                // The seed's pair is made in place, as the next element of fits (no 392-byte
                // zeroing and copy per seed; only valid is read where it is false).
                sample_fits* sf = fits && array_room(fits) ? &fits->data[fits->count] : &spare;
                sf->valid = false;
                int entry = -1;
                bool settled =
                    !exact_roots && seed_sample_on_fits(A, B, self, other, k, fo, cls[s].approx[slot], &table, &x, &ok, sf, &entry);
                if (!settled) { // the fits did not settle (or exact roots asked for): the exact path
                    ok = seed_sample(A, B, self, other, k, fo->f, fo->n, &x);
                    sf->valid = false;
                    entry = -1;
                }
                if (entry >= 0) fit_table_renew(&table, entry); // (a shared pair, unchanged: not added again)
                else fit_table_add(&table, sf);
                if (!ok) continue;
                if (spacing > 0) {
                    if (cover_within(&cover, x, 0.5 * spacing)) continue; // the resampling would delete it
                    cover_add(&cover, x);
                }
                if (!array_room(out) || (fits && sf == &spare)) { // (fits had no room)
                    tc_surfel_note_out_of_memory(); // (a sample and its fits, or neither)
                    continue;
                }
                array_push(out, x);
                if (fits) fits->count++; // (sf, made in place)
            }
    }
    if (guess) tc_free(guess, (size_t)(seeds > 0 ? seeds : 1) * sizeof(seed_guess));
    for (int s = 0; s < 2; ++s) side_class_free(&cls[s]);
    tc_array_free(&table.entries);
    tc_array_free(&table.fits);
    tc_array_free(&cover.entries);
    if (thinned) *thinned = spacing > 0 && !cover.lost;
}

void tc_surfel_contact_seeds(tc_points_body* A, tc_points_body* B, bool exact_roots, tc_surfel_contact* counts, tc_surfel_points* out) {
    collect_seeds(A, B, exact_roots, 0, true, counts, out, NULL, NULL);
}

int tc_surfel_contact_surface(tc_points_body* A, tc_points_body* B, const tc_surfel_contact_params* p, tc_surfel_contact* out) {
    return tc_surfel_contact_surface_seeded(A, B, p, false, out);
}

int tc_surfel_contact_surface_seeded(tc_points_body* A, tc_points_body* B, const tc_surfel_contact_params* p, bool every_seed,
                                     tc_surfel_contact* out) {
    out->points.count = out->normals.count = out->forces.count = out->depth.count = 0;
    out->nearest_a.count = out->nearest_b.count = 0;
    out->surface_dist_a.count = out->surface_dist_b.count = 0;
    out->colliding_a = out->colliding_b = 0;
    out->total_a = tc_v3_zero();
    vec3_array pts = {0}, refs = {0};
    fits_array fits = {0};
    bool thinned;
    collect_seeds(A, B, false, p->spacing, every_seed, out, &pts, &fits, &thinned);
    if (pts.count > 0) {
        resample(A, B, &pts, &fits, p->spacing, thinned);
        relax(A, B, &pts, &fits, p->spacing, p->relax_iterations, &refs);
    }
    tc_surfel_surface phi = {0};
    bool phi_ok = tc_surfel_surface_build(&phi, pts.data, pts.data, pts.count, p->spacing);
    bool room = tc_array_reserve(&out->points, pts.count) && tc_array_reserve(&out->normals, pts.count) &&
                tc_array_reserve(&out->surface_dist_a, pts.count) && tc_array_reserve(&out->surface_dist_b, pts.count);
    if (!phi_ok || !room) tc_surfel_note_out_of_memory(); // (without phi: the normals of the fits)
    for (int i = 0; room && i < pts.count; ++i) {
        tc_vec3 na = tc_v3_zero(), nb = tc_v3_zero(), ref;
        if (refs.count == pts.count) ref = refs.data[i]; // from the relaxation's last fits
        else {
            tc_surfel_surface_normal(&A->surface, pts.data[i], &na);
            tc_surfel_surface_normal(&B->surface, pts.data[i], &nb);
            ref = tc_v3_normalize(tc_v3_sub(na, nb));
        }
        array_push(&out->points, pts.data[i]);
        array_push(&out->normals, ref); // (replaced by the PCA normals below, which it orients)
        const sample_fits* sf = &fits.data[i];
        array_push(&out->surface_dist_a, sf->valid ? fabs(tc_surfel_fit_value(&sf->fa, pts.data[i])) : 0);
        array_push(&out->surface_dist_b, sf->valid ? fabs(tc_surfel_fit_value(&sf->fb, pts.data[i])) : 0);
    }
    if (room && phi_ok) tc_surfel_surface_pca_normals(&phi, out->normals.data, out->normals.data);
    tc_surfel_surface_free(&phi);
    tc_array_free(&pts);
    tc_array_free(&refs);
    tc_array_free(&fits);
    return out->points.count;
}

// The centroid of the others within r2 (squared) of pts[i], summed in grid order: the walk the
// density does when the k-NN ball's list does not hold them all.
static tc_vec3 grid_centroid(const tc_vec3* pts, const tc_point_grid* grid, int i, tc_real r, tc_real r2, int* used) {
    tc_vec3 centroid = tc_v3_zero();
    int lo[3], hi[3];
    if (tc_point_grid_range(grid, pts[i], r, lo, hi))
        for (int cz = lo[2]; cz <= hi[2]; ++cz)
            for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                int row = (cz * grid->dims[1] + cy) * grid->dims[0];
                for (int t = grid->start[row + lo[0]]; t < grid->start[row + hi[0] + 1]; ++t) {
                    int j = grid->items[t];
                    if (j == i || tc_v3_len2(tc_v3_sub(pts[i], pts[j])) > r2) continue;
                    centroid = tc_v3_add(centroid, tc_v3_sub(pts[j], pts[i]));
                    (*used)++;
                }
            }
    return centroid;
}

// d into best[0..*n), the k smallest squared distances so far in increasing order.
static void knn_insert(tc_real* best, int* n, int k, tc_real d) {
    int pos = *n < k ? (*n)++ : k;
    if (pos == k && d >= best[k - 1]) return;
    if (pos == k) pos = k - 1;
    while (pos > 0 && best[pos - 1] > d) { best[pos] = best[pos - 1]; pos--; }
    best[pos] = d;
}

// The density from the k-NN radius rk (n found) and the sum of p_j - p_i over the `used` others
// within rk: the walks below and the batch (tc_surfel_contact_densities) end here alike.
static tc_real density_of(int n, tc_real rk, tc_vec3 centroid, int used) {
    // Boundary correction: at the rim of the patch the k neighbours fill only part of the disc
    // of radius r_k (half of it on a straight edge, where their centroid sits 4 r_k / (3 pi)
    // inside). Estimating the covered fraction from the centroid offset keeps the rim samples
    // from claiming area outside the patch, so the total area is sampling independent.
    tc_real offset = used ? tc_v3_len(centroid) / used : 0;
    tc_real covered = real_max(0.5, real_min(1, 1 - 0.5 * offset / (4 * rk / (3 * TC_PI))));
    return n / (covered * TC_PI * rk * rk);
}

tc_real tc_surfel_contact_density(const tc_vec3* pts, int count, const tc_point_grid* grid, int i, int k) {
    enum { KMAX = 16, LISTED = 64 };
    tc_real best[KMAX];
    int n = 0;
    if (k > KMAX) k = KMAX;
    if (k < 1) return 0;
    // Search a growing ball until k others are found (or the set is exhausted); squared
    // distances. The first ball (1.5 cells, ~7 samples at the target spacing) usually holds k;
    // the k nearest do not depend on it (2 cells: +0.07 M instructions at 20 mm, 1.25: +0.45 M).
    // The others within the last ball are listed in grid order (up to LISTED): the centroid below
    // sums a subset of them in that order, without a second walk.
    int list[LISTED], listed = 0;
    tc_real list_d[LISTED], r = 1.5 * grid->cell;
    for (;; r *= 2) {
        int lo[3], hi[3];
        tc_real r2 = r * r;
        n = listed = 0;
        bool in_grid = tc_point_grid_range(grid, pts[i], r, lo, hi);
        if (in_grid)
            for (int cz = lo[2]; cz <= hi[2]; ++cz)
                for (int cy = lo[1]; cy <= hi[1]; ++cy) {
                    int row = (cz * grid->dims[1] + cy) * grid->dims[0]; // a row of cells is one run of items
                    for (int t = grid->start[row + lo[0]]; t < grid->start[row + hi[0] + 1]; ++t) {
                        int j = grid->items[t];
                        tc_real d = tc_v3_len2(tc_v3_sub(pts[i], pts[j]));
                        if (j == i || d > r2) continue;
                        if (listed < LISTED) list[listed] = j, list_d[listed] = d;
                        listed++;
                        knn_insert(best, &n, k, d);
                    }
                }
        // (A non-finite sample, or a grid whose extent overflowed (coordinates near DBL_MAX),
        // is in no cell at any radius: no density, not a growing ball forever.)
        if (!in_grid || n >= k || n >= count - 1) break;
    }
    if (n == 0) return 0;
    tc_real rk = sqrt(best[n - 1]);
    // (The rim correction: density_of.)
    tc_vec3 centroid = tc_v3_zero();
    int used = 0;
    tc_real rk2 = (rk * 1.000001) * (rk * 1.000001);
    if (listed <= LISTED && rk2 <= r * r) { // every other within rk2 is listed, in the same grid order
        for (int q = 0; q < listed; ++q)
            if (!(list_d[q] > rk2)) { // (the grid walk's test)
                centroid = tc_v3_add(centroid, tc_v3_sub(pts[list[q]], pts[i]));
                used++;
            }
    } else
        centroid = grid_centroid(pts, grid, i, rk * 1.000001, rk2, &used);
    return density_of(n, rk, centroid, used);
}

// ---- the densities of all samples at once -------------------------------------------------

// The batch below takes the samples of a block of 2x2x2 plain cells DENSITY_LANES at a time
// against one candidate list: the samples of the union of their first balls' cell ranges, in
// the plain grid's order (so the centroid needs no sort), one lane per sample, branch-free
// (~4.8 samples and ~37 candidates a block at 20 mm). The walk's knn_insert, short row loops
// and the centroid's insertion sort mispredicted: the forces stage 0.75 -> 0.65 M ticks a call
// at 20 mm (least of 200; density and its grid 1.01 -> 0.98 M instructions). Blocks of 1 or 3
// cells: 1.28 and 0.94 M instructions; only the block's x extent changes nothing (patch thin
// across x). Lanes with fewer than DENSITY_K others within the first ball (46 of 604 at 20 mm,
// the rim) and NaN lanes take the walk.
enum { DENSITY_K = 6, DENSITY_LANES = 4, DENSITY_BLOCK = 2 };

// Lane l of the results (samples idx[l]; candidates cand[0..n) in grid order): kth[l], the
// DENSITY_K-th smallest squared distance |p_i - p_j|^2 to the others (a min/max network: the
// value knn_insert keeps), within[l] how many are not above r2 (the first ball), nan[l] whether
// one is a NaN (the network would not keep knn_insert's values: the lane goes to the walk).
typedef struct density_lane_out {
    tc_real kth[DENSITY_LANES];
    int within[DENSITY_LANES], nan[DENSITY_LANES];
} density_lane_out;
// distance_lanes also keeps, in candidate order, the candidates within r2c (not above) of some
// lane in near[] with their distances in d[DENSITY_LANES m + l] (+inf for the sample itself, which
// never counts), and returns their count m: r2c covers the centroid's radius, so the network and
// the centroid (centroid_lanes: the sum of p_j - p_i over the kept with d not above rk2[l], in
// their order, and their count; rk2 < 0: none) read only those (~15 of ~37 candidates).
#if defined(__GNUC__) && !defined(TC_PLAIN_LANES)
typedef tc_real dens_lanes __attribute__((vector_size(DENSITY_LANES * sizeof(tc_real))));
typedef int64_t dens_mask __attribute__((vector_size(DENSITY_LANES * sizeof(int64_t))));

static inline __attribute__((always_inline)) dens_lanes dens_pick(dens_mask m, dens_lanes a, dens_lanes b) {
    return (dens_lanes)((m & (dens_mask)a) | (~m & (dens_mask)b)); // m ? a : b, lane by lane
}

TC_VECTOR_CLONES static int distance_lanes(const tc_vec3* pts, const int* cand, int n, const int idx[DENSITY_LANES], tc_real r2, tc_real r2c,
                                           int* near, tc_real* d, density_lane_out* out) {
    dens_lanes px, py, pz, best[DENSITY_K];
    dens_mask self = {idx[0], idx[1], idx[2], idx[3]}, within = {0, 0, 0, 0}, nan = {0, 0, 0, 0};
    for (int l = 0; l < DENSITY_LANES; ++l) px[l] = pts[idx[l]].x, py[l] = pts[idx[l]].y, pz[l] = pts[idx[l]].z;
    dens_lanes rr = {r2, r2, r2, r2}, rc = {r2c, r2c, r2c, r2c}, inf = {INFINITY, INFINITY, INFINITY, INFINITY};
    int m = 0;
    for (int q = 0; q < n; ++q) {
        int j = cand[q];
        tc_vec3 pj = pts[j];
        dens_lanes dx = px - pj.x, dy = py - pj.y, dz = pz - pj.z;
        dens_lanes dd = dx * dx + dy * dy + dz * dz;
        dens_mask is_self = (dens_mask)(self == (int64_t)j);
        nan |= (dens_mask)(dd != dd);
        within -= ~is_self & (dens_mask)(dd <= rr); // (a true comparison is all ones: -1)
        dens_lanes t = dens_pick(is_self, inf, dd);
        dens_mask close = (dens_mask)(t <= rc);
        memcpy(d + DENSITY_LANES * m, &t, sizeof t);
        near[m] = j;
#if defined(__clang__) || __GNUC__ >= 12
        // (branch-free: kept when some lane is close; the lanes or-ed by two shuffles: 6
        // instructions instead of gcc's 10 extracting each lane)
        dens_mask any = close | __builtin_shufflevector(close, close, 2, 3, 0, 1);
        any |= __builtin_shufflevector(any, any, 1, 0, 3, 2);
        m -= (int)any[0];
#else
        m += (close[0] | close[1] | close[2] | close[3]) != 0; // (branch-free: kept when some lane is close)
#endif
    }
    for (int s = 0; s < DENSITY_K; ++s) best[s] = inf;
    for (int q = 0; q < m; ++q) {
        dens_lanes t;
        memcpy(&t, d + DENSITY_LANES * q, sizeof t);
        for (int s = 0; s < DENSITY_K; ++s) { // t into the sorted best: the smaller stays
            dens_mask lt = (dens_mask)(t < best[s]);
            dens_lanes lo = dens_pick(lt, t, best[s]);
            t = dens_pick(lt, best[s], t);
            best[s] = lo;
        }
    }
    for (int l = 0; l < DENSITY_LANES; ++l) out->kth[l] = best[DENSITY_K - 1][l], out->within[l] = (int)within[l], out->nan[l] = nan[l] != 0;
    return m;
}

TC_VECTOR_CLONES static void centroid_lanes(const tc_vec3* pts, const int* near, int m, const int idx[DENSITY_LANES], const tc_real* d,
                                            const tc_real rk2[DENSITY_LANES], tc_vec3 centroid[DENSITY_LANES], int used[DENSITY_LANES]) {
    dens_lanes px, py, pz, cx = {0, 0, 0, 0}, cy = {0, 0, 0, 0}, cz = {0, 0, 0, 0}, rr;
    dens_mask count = {0, 0, 0, 0};
    for (int l = 0; l < DENSITY_LANES; ++l) px[l] = pts[idx[l]].x, py[l] = pts[idx[l]].y, pz[l] = pts[idx[l]].z, rr[l] = rk2[l];
    for (int q = 0; q < m; ++q) {
        tc_vec3 pj = pts[near[q]];
        dens_lanes dq;
        memcpy(&dq, d + DENSITY_LANES * q, sizeof dq);
        dens_mask in = (dens_mask)(dq <= rr);
        // +0 for the others: adding it leaves the sum's bits (the sum starts at +0 and never is -0)
        cx += (dens_lanes)(in & (dens_mask)(pj.x - px));
        cy += (dens_lanes)(in & (dens_mask)(pj.y - py));
        cz += (dens_lanes)(in & (dens_mask)(pj.z - pz));
        count -= in;
    }
    for (int l = 0; l < DENSITY_LANES; ++l) centroid[l] = tc_v3(cx[l], cy[l], cz[l]), used[l] = (int)count[l];
}
#else
// (Every candidate kept: the far ones change neither a lane's DENSITY_K smallest nor its centroid.)
static int distance_lanes(const tc_vec3* pts, const int* cand, int n, const int idx[DENSITY_LANES], tc_real r2, tc_real r2c, int* near,
                          tc_real* d, density_lane_out* out) {
    (void)r2c;
    for (int l = 0; l < DENSITY_LANES; ++l) {
        tc_real best[DENSITY_K];
        int within = 0, nan = 0;
        for (int s = 0; s < DENSITY_K; ++s) best[s] = INFINITY;
        tc_vec3 pi = pts[idx[l]];
        for (int q = 0; q < n; ++q) {
            tc_real dd = tc_v3_len2(tc_v3_sub(pi, pts[cand[q]])), t = cand[q] == idx[l] ? INFINITY : dd;
            nan |= dd != dd;
            within += cand[q] != idx[l] && dd <= r2;
            d[DENSITY_LANES * q + l] = t;
            near[q] = cand[q];
            for (int s = 0; s < DENSITY_K; ++s) {
                tc_real lo = t < best[s] ? t : best[s];
                t = t < best[s] ? best[s] : t;
                best[s] = lo;
            }
        }
        out->kth[l] = best[DENSITY_K - 1], out->within[l] = within, out->nan[l] = nan;
    }
    return n;
}

static void centroid_lanes(const tc_vec3* pts, const int* near, int m, const int idx[DENSITY_LANES], const tc_real* d,
                           const tc_real rk2[DENSITY_LANES], tc_vec3 centroid[DENSITY_LANES], int used[DENSITY_LANES]) {
    for (int l = 0; l < DENSITY_LANES; ++l) {
        tc_vec3 c = tc_v3_zero();
        int count = 0;
        for (int q = 0; q < m; ++q)
            if (d[DENSITY_LANES * q + l] <= rk2[l]) {
                c = tc_v3_add(c, tc_v3_sub(pts[near[q]], pts[idx[l]]));
                count++;
            }
        centroid[l] = c, used[l] = count;
    }
}
#endif

// The samples of the block of plain cells at b (block coordinates) into members; returns
// their count.
static int block_members(const tc_point_grid* g, const int b[3], int* members) {
    int lo[3], hi[3], m = 0;
    for (int a = 0; a < 3; ++a) {
        lo[a] = DENSITY_BLOCK * b[a];
        hi[a] = lo[a] + DENSITY_BLOCK - 1 < g->dims[a] - 1 ? lo[a] + DENSITY_BLOCK - 1 : g->dims[a] - 1;
    }
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * g->dims[1] + cy) * g->dims[0];
            for (int t = g->start[row + lo[0]]; t < g->start[row + hi[0] + 1]; ++t) members[m++] = g->items[t];
        }
    return m;
}

// The samples of the cells within [lo, hi] in grid order (cell, then index) into cand. Where
// the range spans whole rows (a patch thin across x: rows of a cell or two), the rows of a plane
// follow one another in items and are copied as one run.
static int range_items(const tc_point_grid* g, const int lo[3], const int hi[3], int* cand) {
    int n = 0, d0 = g->dims[0], d1 = g->dims[1];
    bool whole = lo[0] == 0 && hi[0] == d0 - 1;
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * d1 + cy) * d0;
            int begin = g->start[row + lo[0]], end = g->start[row + hi[0] + 1];
            if (whole) end = g->start[(cz * d1 + hi[1] + 1) * d0], cy = hi[1]; // (the plane's rows lo[1]..hi[1] at once)
            for (int t = begin; t < end; ++t) cand[n++] = g->items[t];
        }
    return n;
}

// The members of one block against the candidates cand[0..n) (every sample within 1.00001 r of
// a member), DENSITY_LANES at a time, r the walk's ball: its first (1.5 cells) or its second (3
// cells). A lane with fewer than DENSITY_K others within r of its sample is undecided: from the
// first ball it goes to `pending` (when given) for the second, else (and a NaN lane) to the walk.
static void block_densities(const tc_vec3* pts, int count, const tc_point_grid* g, const int* members, int m, const int* cand, int n,
                            tc_real r, int* near, tc_real* d, tc_real* rho, int* pending, int* n_pending) {
    tc_real rc = r * 1.00001;
    for (int t = 0; t < m; t += DENSITY_LANES) {
        int idx[DENSITY_LANES], lanes = m - t < DENSITY_LANES ? m - t : DENSITY_LANES;
        for (int l = 0; l < DENSITY_LANES; ++l) idx[l] = members[t + (l < lanes ? l : lanes - 1)]; // (unused lanes repeat the last)
        density_lane_out o;
        int kept = distance_lanes(pts, cand, n, idx, r * r, rc * rc, near, d, &o);
        tc_real rk[DENSITY_LANES], rk2[DENSITY_LANES];
        for (int l = 0; l < DENSITY_LANES; ++l) {
            bool decided = o.within[l] >= DENSITY_K && !o.nan[l];
            rk[l] = sqrt(o.kth[l]);
            rk2[l] = decided ? (rk[l] * 1.000001) * (rk[l] * 1.000001) : -1;
        }
        tc_vec3 centroid[DENSITY_LANES];
        int used[DENSITY_LANES];
        centroid_lanes(pts, near, kept, idx, d, rk2, centroid, used);
        for (int l = 0; l < lanes; ++l)
            if (rk2[l] >= 0)
                rho[idx[l]] = density_of(DENSITY_K, rk[l], centroid[l], used[l]);
            else if (pending && !o.nan[l])
                pending[(*n_pending)++] = idx[l];
            else
                rho[idx[l]] = tc_surfel_contact_density(pts, count, g, idx[l], DENSITY_K);
    }
}

// The samples of the cells within reach of members[0..m) (their ranges' union; false if a
// member's range is empty: non-finite) into cand in grid order; *n their count.
static bool members_range(const tc_vec3* pts, const tc_point_grid* g, const int* members, int m, tc_real reach, int* cand, int* n) {
    int lo[3] = {INT_MAX, INT_MAX, INT_MAX}, hi[3] = {-1, -1, -1};
    for (int q = 0; q < m; ++q) {
        int l3[3], h3[3];
        if (!tc_point_grid_range(g, pts[members[q]], reach, l3, h3)) return false;
        for (int a = 0; a < 3; ++a) lo[a] = l3[a] < lo[a] ? l3[a] : lo[a], hi[a] = h3[a] > hi[a] ? h3[a] : hi[a];
    }
    *n = range_items(g, lo, hi, cand);
    return true;
}

// The undecided members of a block (pending[0..m), their first balls short of DENSITY_K others)
// against the second ball's candidates: the walk's second ball, branch-free. The walk took
// ~3,300 instructions a sample and, by perf, as much time for its 46 rim samples at 20 mm as the
// batch for the other ~560 (its knn_insert and short rows mispredicting): the densities and
// their grid 0.29-0.30 -> 0.22-0.23 M ticks a call (least of 1000), 40 mm 0.48 -> 0.38, for +15 k
// instructions (41 extra groups, mostly of one or two lanes). Those short even there take the walk.
static void second_ball_densities(const tc_vec3* pts, int count, const tc_point_grid* g, const int* pending, int m, int* cand, int* near,
                                  tc_real* d, tc_real* rho) {
    tc_real r = 1.5 * g->cell * 2; // (the walk's doubled ball: the same value)
    int n;
    if (members_range(pts, g, pending, m, r * 1.00001, cand, &n))
        block_densities(pts, count, g, pending, m, cand, n, r, near, d, rho, NULL, NULL);
    else
        for (int q = 0; q < m; ++q) rho[pending[q]] = tc_surfel_contact_density(pts, count, g, pending[q], DENSITY_K);
}

void tc_surfel_contact_densities(const tc_vec3* pts, int count, const tc_point_grid* g, tc_real* rho) {
    if (count <= 0) return;
    if (!g->start) {
        for (int i = 0; i < count; ++i) rho[i] = 0;
        return;
    }
    size_t n = (size_t)count;
    int* members = tc_alloc(n * sizeof(int));
    int* cand = tc_alloc(n * sizeof(int));
    int* near = tc_alloc(n * sizeof(int));
    int* pending = tc_alloc(n * sizeof(int));
    tc_real* d = tc_alloc(n * DENSITY_LANES * sizeof(tc_real));
    bool ok = members && cand && near && pending && d;
    // Each member's walk over the cells of its first ball widened to cover rk * 1.000001 (rk is
    // at most that ball's radius here): every other within the centroid's radius is a candidate.
    tc_real r = 1.5 * g->cell, reach = r * 1.00001;
    int blocks[3];
    for (int a = 0; a < 3; ++a) blocks[a] = (g->dims[a] + DENSITY_BLOCK - 1) / DENSITY_BLOCK;
    int b[3];
    for (b[2] = 0; ok && b[2] < blocks[2]; ++b[2])
        for (b[1] = 0; b[1] < blocks[1]; ++b[1])
            for (b[0] = 0; b[0] < blocks[0]; ++b[0]) {
                int m = block_members(g, b, members);
                if (m == 0) continue;
                int lo[3] = {INT_MAX, INT_MAX, INT_MAX}, hi[3] = {-1, -1, -1}, kept = 0;
                for (int q = 0; q < m; ++q) {
                    int l3[3], h3[3], i = members[q];
                    if (!tc_point_grid_range(g, pts[i], reach, l3, h3)) { // (non-finite: the walk gives 0)
                        rho[i] = tc_surfel_contact_density(pts, count, g, i, DENSITY_K);
                        continue;
                    }
                    members[kept++] = i;
                    for (int a = 0; a < 3; ++a) lo[a] = l3[a] < lo[a] ? l3[a] : lo[a], hi[a] = h3[a] > hi[a] ? h3[a] : hi[a];
                }
                if (kept == 0) continue;
                int nc = range_items(g, lo, hi, cand), n_pending = 0;
                block_densities(pts, count, g, members, kept, cand, nc, r, near, d, rho, pending, &n_pending);
                if (n_pending > 0) second_ball_densities(pts, count, g, pending, n_pending, cand, near, d, rho);
            }
    if (members) tc_free(members, n * sizeof(int));
    if (cand) tc_free(cand, n * sizeof(int));
    if (near) tc_free(near, n * sizeof(int));
    if (pending) tc_free(pending, n * sizeof(int));
    if (d) tc_free(d, n * DENSITY_LANES * sizeof(tc_real));
    if (!ok) // (no room for the batch's scratch: the walk per sample, the same values)
        for (int i = 0; i < count; ++i) rho[i] = tc_surfel_contact_density(pts, count, g, i, DENSITY_K);
}

static tc_vec3 unit_or_zero(tc_vec3 v) {
    tc_real l = tc_v3_len(v);
    return l > 1e-15 ? tc_v3_scale(v, 1 / l) : tc_v3_zero();
}

// Penalty + damping + Coulomb friction on one side (seed 000 §7), d from the sample to the
// nearest original surfel, vrel = velocity of this side minus the other side.
static tc_vec3 side_force(tc_vec3 d, tc_vec3 vrel, const tc_surfel_contact_params* p) {
    tc_vec3 dh = unit_or_zero(d);
    tc_vec3 pen = tc_v3_neg(tc_v3_add(tc_v3_scale(d, p->stiffness), tc_v3_scale(dh, p->damping * tc_v3_dot(vrel, dh))));
    tc_vec3 vper = tc_v3_madd(vrel, -tc_v3_dot(vrel, dh), dh);
    tc_real vl = tc_v3_len(vper);
    tc_vec3 vhat = tc_v3_scale(vper, 1 / fmax(vl, 1e-4)); // regularised below 1e-4 m/s
    return tc_v3_madd(pen, -p->friction * tc_v3_len(pen), vhat);
}

// Where the nearest-surfel search of b starts for a sample at distance f from b's surface:
// the nearest surfel is within about sqrt(f^2 + (0.7 spacing)^2) (the surfels cover the surface
// within ~0.6 spacing; on the bench no sample at 4, 20 or 40 mm had it farther). Only a start:
// a farther one is found by the next, doubled ball.
static tc_real nearest_start(const tc_points_body* b, tc_real f) {
    tc_real t = 0.7 * b->surfel_spacing;
    return sqrt(f * f + t * t);
}

// The forces of 4 samples whose nearest surfels are known on both sides: side_force on each
// side, their half difference, the pull dropped, the density's scale and the depth, with the
// same operations lane by lane as the scalar loop below (the same bits): its square roots and
// divisions, a chain of five per side, run 4 at a time (the forces stage 0.68 -> 0.64 M ticks a
// call at 20 mm, least of 200).
#ifdef GAP_AVX2
#define FORCE_AVX2 1
typedef struct force_v3 { __m256d x, y, z; } force_v3;
typedef struct force_group { // lane l: sample i0 + l
    tc_real sx[4], sy[4], sz[4];     ///< its nearest surfel of A minus the sample
    tc_real tx[4], ty[4], tz[4];     ///< of B minus the sample
    tc_real vx[4], vy[4], vz[4];     ///< the relative velocity (A's surfel minus B's)
    tc_real nx[4], ny[4], nz[4], scale[4];
} force_group;

__attribute__((target("avx2"), always_inline)) static inline __m256d fv_dot(force_v3 a, force_v3 b) {
    return _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a.x, b.x), _mm256_mul_pd(a.y, b.y)), _mm256_mul_pd(a.z, b.z));
}
__attribute__((target("avx2"), always_inline)) static inline force_v3 fv_scale(force_v3 a, __m256d s) {
    return (force_v3){_mm256_mul_pd(a.x, s), _mm256_mul_pd(a.y, s), _mm256_mul_pd(a.z, s)};
}
__attribute__((target("avx2"), always_inline)) static inline force_v3 fv_madd(force_v3 a, __m256d s, force_v3 b) { // a + s b
    return (force_v3){_mm256_add_pd(a.x, _mm256_mul_pd(s, b.x)), _mm256_add_pd(a.y, _mm256_mul_pd(s, b.y)), _mm256_add_pd(a.z, _mm256_mul_pd(s, b.z))};
}
__attribute__((target("avx2"), always_inline)) static inline force_v3 fv_and(force_v3 a, __m256d m) {
    return (force_v3){_mm256_and_pd(a.x, m), _mm256_and_pd(a.y, m), _mm256_and_pd(a.z, m)};
}
__attribute__((target("avx2"), always_inline)) static inline __m256d fv_neg(__m256d a) { return _mm256_xor_pd(a, _mm256_set1_pd(-0.0)); }

// side_force(d, v, p), 4 at a time.
__attribute__((target("avx2"), always_inline)) static inline force_v3 side_force4(force_v3 d, force_v3 v, const tc_surfel_contact_params* p) {
    __m256d l = _mm256_sqrt_pd(fv_dot(d, d));
    force_v3 dh = fv_and(fv_scale(d, _mm256_div_pd(_mm256_set1_pd(1), l)), _mm256_cmp_pd(l, _mm256_set1_pd(1e-15), _CMP_GT_OQ)); // unit_or_zero
    __m256d dv = fv_dot(v, dh);
    force_v3 t1 = fv_scale(d, _mm256_set1_pd(p->stiffness)), t2 = fv_scale(dh, _mm256_mul_pd(_mm256_set1_pd(p->damping), dv));
    force_v3 pen = {fv_neg(_mm256_add_pd(t1.x, t2.x)), fv_neg(_mm256_add_pd(t1.y, t2.y)), fv_neg(_mm256_add_pd(t1.z, t2.z))};
    force_v3 vper = fv_madd(v, fv_neg(dv), dh);
    __m256d vl = _mm256_sqrt_pd(fv_dot(vper, vper)), lo = _mm256_set1_pd(1e-4);
    __m256d vmax = _mm256_blendv_pd(lo, vl, _mm256_cmp_pd(vl, lo, _CMP_GT_OQ)); // fmax(vl, 1e-4) (a NaN: 1e-4)
    force_v3 vhat = fv_scale(vper, _mm256_div_pd(_mm256_set1_pd(1), vmax));
    __m256d lp = _mm256_sqrt_pd(fv_dot(pen, pen));
    return fv_madd(pen, _mm256_mul_pd(_mm256_set1_pd(-p->friction), lp), vhat);
}

__attribute__((target("avx2"))) static void group_forces_avx2(const force_group* g, const tc_surfel_contact_params* p, tc_vec3 f[4], tc_real depth[4]) {
    force_v3 d1 = {_mm256_loadu_pd(g->sx), _mm256_loadu_pd(g->sy), _mm256_loadu_pd(g->sz)};
    force_v3 d2 = {_mm256_loadu_pd(g->tx), _mm256_loadu_pd(g->ty), _mm256_loadu_pd(g->tz)};
    force_v3 v = {_mm256_loadu_pd(g->vx), _mm256_loadu_pd(g->vy), _mm256_loadu_pd(g->vz)};
    force_v3 n = {_mm256_loadu_pd(g->nx), _mm256_loadu_pd(g->ny), _mm256_loadu_pd(g->nz)};
    force_v3 f1 = side_force4(d1, v, p), f2 = side_force4(d2, (force_v3){fv_neg(v.x), fv_neg(v.y), fv_neg(v.z)}, p);
    __m256d half = _mm256_set1_pd(0.5);
    force_v3 fs = {_mm256_mul_pd(_mm256_sub_pd(f1.x, f2.x), half), _mm256_mul_pd(_mm256_sub_pd(f1.y, f2.y), half),
                   _mm256_mul_pd(_mm256_sub_pd(f1.z, f2.z), half)};
    __m256d push = _mm256_cmp_pd(fv_dot(fs, n), _mm256_setzero_pd(), _CMP_NGT_UQ); // (a pull: zero)
    fs = fv_scale(fv_and(fs, push), _mm256_loadu_pd(g->scale));
    __m256d dep = _mm256_add_pd(_mm256_sqrt_pd(fv_dot(d1, d1)), _mm256_sqrt_pd(fv_dot(d2, d2)));
    tc_real x[4], y[4], z[4];
    _mm256_storeu_pd(x, fs.x), _mm256_storeu_pd(y, fs.y), _mm256_storeu_pd(z, fs.z), _mm256_storeu_pd(depth, dep);
    for (int l = 0; l < 4; ++l) f[l] = tc_v3(x[l], y[l], z[l]);
}

static tc_real density_scale(const tc_surfel_contact_params* p, const tc_real* rho_of, bool grid_ok, int i);

// Samples i..i+3 by group_forces_avx2 when each has a nearest surfel on both sides: their
// forces, depths and the total pushed in order. False (nothing done) otherwise.
static bool group_of(const tc_points_body* A, const tc_points_body* B, const tc_surfel_contact_params* p, tc_surfel_contact* c,
                     const tc_real* rho_of, bool grid_ok, int i) {
    force_group g;
    for (int l = 0; l < 4; ++l) {
        int sa = c->nearest_a.data[i + l], sb = c->nearest_b.data[i + l];
        if (sa < 0 || sb < 0) return false;
        tc_vec3 x = c->points.data[i + l], n = c->normals.data[i + l];
        tc_vec3 d1 = tc_v3_sub(A->s[sa], x), d2 = tc_v3_sub(B->s[sb], x), v = tc_v3_sub(A->sv[sa], B->sv[sb]);
        g.sx[l] = d1.x, g.sy[l] = d1.y, g.sz[l] = d1.z, g.tx[l] = d2.x, g.ty[l] = d2.y, g.tz[l] = d2.z;
        g.vx[l] = v.x, g.vy[l] = v.y, g.vz[l] = v.z, g.nx[l] = n.x, g.ny[l] = n.y, g.nz[l] = n.z;
        g.scale[l] = density_scale(p, rho_of, grid_ok, i + l);
    }
    tc_vec3 f[4];
    tc_real depth[4];
    group_forces_avx2(&g, p, f, depth);
    for (int l = 0; l < 4; ++l) {
        array_push(&c->forces, f[l]);
        array_push(&c->depth, depth[l]);
        c->total_a = tc_v3_add(c->total_a, f[l]);
    }
    return true;
}
#endif

// A sparse patch (a few samples) would claim the area of the whole k-NN disc: no sample
// represents more than (2 spacing)^2. The factor of sample i's force.
static tc_real density_scale(const tc_surfel_contact_params* p, const tc_real* rho_of, bool grid_ok, int i) {
    tc_real rho = real_max(grid_ok ? rho_of[i] : 0, 0.25 / (p->spacing * p->spacing));
    return p->seed_density_scaling ? rho : 1 / rho;
}

void tc_surfel_contact_forces(const tc_points_body* A, const tc_points_body* B, const tc_surfel_contact_params* p, tc_surfel_contact* c) {
    c->forces.count = c->depth.count = c->nearest_a.count = c->nearest_b.count = 0;
    c->total_a = tc_v3_zero();
    int n_points = c->points.count;
    // The sample densities of all samples first (the batch: the plain grid's walk's values).
    tc_point_grid grid = {0};
    bool grid_ok = tc_point_grid_build(&grid, c->points.data, n_points, p->spacing);
    tc_real* rho_of = tc_alloc((size_t)(n_points > 0 ? n_points : 1) * sizeof(tc_real));
    if (!rho_of || !tc_array_reserve(&c->forces, n_points) || !tc_array_reserve(&c->depth, n_points) ||
        !tc_array_reserve(&c->nearest_a, n_points) || !tc_array_reserve(&c->nearest_b, n_points)) {
        tc_surfel_note_out_of_memory(); // no forces: the caller skips the pair
        if (rho_of) tc_free(rho_of, (size_t)(n_points > 0 ? n_points : 1) * sizeof(tc_real));
        tc_point_grid_free(&grid);
        return;
    }
    if (grid_ok) tc_surfel_contact_densities(c->points.data, n_points, &grid, rho_of);
    tc_real reach = 10 * fmax(A->surface.h, B->surface.h);
    bool hints = c->surface_dist_a.count == c->points.count && c->surface_dist_b.count == c->points.count;
    // In the sample grid's order: consecutive searches walk the same cells of the surfaces.
    c->nearest_a.count = c->nearest_b.count = n_points;
    for (int t = 0; t < n_points; ++t) {
        int i = grid_ok ? grid.items[t] : t;
        tc_vec3 x = c->points.data[i];
        c->nearest_a.data[i] = nearest_surfel(A, x, nearest_start(A, hints ? c->surface_dist_a.data[i] : 0), reach);
        c->nearest_b.data[i] = nearest_surfel(B, x, nearest_start(B, hints ? c->surface_dist_b.data[i] : 0), reach);
    }
    // The forces from the nearest surfels, whose positions and velocities are fetched ahead: the
    // surfels were last read by the classification, and a search per sample between two reads
    // kept the out-of-order window from overlapping their misses.
    enum { FETCH_AHEAD = 12 };
#ifdef FORCE_AVX2
    bool lanes = __builtin_cpu_supports("avx2");
#endif
    for (int i = 0, fetched = 0; i < n_points; ++i) {
#if defined(__GNUC__)
        for (; fetched < n_points && fetched < i + FETCH_AHEAD; ++fetched) {
            int fa = c->nearest_a.data[fetched], fb = c->nearest_b.data[fetched];
            if (fa >= 0) __builtin_prefetch(&A->s[fa]), __builtin_prefetch(&A->sv[fa]);
            if (fb >= 0) __builtin_prefetch(&B->s[fb]), __builtin_prefetch(&B->sv[fb]);
        }
#endif
#ifdef FORCE_AVX2
        if (lanes && i + 4 <= n_points && group_of(A, B, p, c, rho_of, grid_ok, i)) {
            i += 3;
            continue;
        }
#endif
        tc_vec3 x = c->points.data[i], n = c->normals.data[i];
        int sa = c->nearest_a.data[i], sb = c->nearest_b.data[i];
        tc_vec3 f = tc_v3_zero();
        tc_real depth = 0;
        if (sa >= 0 && sb >= 0) {
            tc_vec3 d1 = tc_v3_sub(A->s[sa], x), d2 = tc_v3_sub(B->s[sb], x);
            tc_vec3 vrel = tc_v3_sub(A->sv[sa], B->sv[sb]);
            tc_vec3 f1 = side_force(d1, vrel, p), f2 = side_force(d2, tc_v3_neg(vrel), p);
            f = tc_v3_scale(tc_v3_sub(f1, f2), 0.5);
            // Contacts push apart: a net pull (damping overshoot) is dropped with its friction.
            if (tc_v3_dot(f, n) > 0) f = tc_v3_zero();
            depth = tc_v3_len(d1) + tc_v3_len(d2);
            f = tc_v3_scale(f, density_scale(p, rho_of, grid_ok, i));
        }
        array_push(&c->forces, f);
        array_push(&c->depth, depth);
        c->total_a = tc_v3_add(c->total_a, f);
    }
    tc_free(rho_of, (size_t)(n_points > 0 ? n_points : 1) * sizeof(tc_real));
    tc_point_grid_free(&grid);
}

// Mean phyxel spacing (m): the thickness of the layer of phyxels that first feels a contact.
static tc_real layer_thickness(const tc_points_body* b) {
    tc_real s = 0;
    for (int i = 0; i < b->np; ++i) s += b->rbar[i];
    return s / b->np;
}

tc_surfel_contact_params tc_surfel_contact_params_for(const tc_world* w, const tc_points_body* A, const tc_points_body* B, tc_real h) {
    tc_surfel_contact_params p;
    tc_real omega = 2 * TC_PI * w->def.penalty_hertz, zeta = w->def.penalty_damping_ratio;
    // k = rho L omega^2 makes the layer of phyxels (thickness L) under the contact oscillate at
    // penalty_hertz: stable with the world's sub-step and independent of the surfel sampling.
    tc_real rl = fmin(A->mat.density * layer_thickness(A), B->mat.density * layer_thickness(B));
    p.stiffness = rl * omega * omega;
    if (A->contact_stiffness > 0) p.stiffness = A->contact_stiffness;
    if (B->contact_stiffness > 0) p.stiffness = fmin(p.stiffness, B->contact_stiffness);
    // The forces stay constant over a sub-step h: an explicit damper overshoots (reverses the
    // approach velocity) when 2 zeta omega h > 1, so the ratio is capped there.
    tc_real omega_eff = sqrt(p.stiffness / rl);
    if (h > 0) zeta = fmin(zeta, 0.5 / (omega_eff * h));
    p.damping = 2 * zeta * sqrt(p.stiffness * rl);
    p.friction = sqrt(A->surface_material.friction * B->surface_material.friction);
    p.spacing = fmin(A->resample_spacing, B->resample_spacing);
    p.relax_iterations = 1;
    p.seed_density_scaling = A->seed_density_scaling || B->seed_density_scaling;
    return p;
}

static void record(tc_world* w, tc_points_body* A, tc_points_body* B, const tc_surfel_contact* c) {
    for (int i = 0; i < c->points.count; ++i) {
        tc_vec3 n = c->normals.data[i], fb = tc_v3_neg(c->forces.data[i]);
        tc_real fn = tc_v3_dot(fb, n);
        tc_contact rec = {tc_world_slot_id(w, A->slot), tc_world_slot_id(w, B->slot), c->nearest_a.data[i], c->nearest_b.data[i],
                          c->points.data[i], n, -c->depth.data[i], fn, tc_v3_madd(fb, -fn, n), 0};
        tc_world_add_contact(w, &rec);
    }
}

static void store_drawn_surface(tc_points_body* b, const tc_surfel_contact* c, bool flip) {
    int n = b->contact_points.count + c->points.count;
    if (!tc_array_reserve(&b->contact_points, n) || !tc_array_reserve(&b->contact_normals, n)) return; // (drawing only)
    for (int i = 0; i < c->points.count; ++i) {
        array_push(&b->contact_points, c->points.data[i]);
        array_push(&b->contact_normals, flip ? tc_v3_neg(c->normals.data[i]) : c->normals.data[i]);
    }
}

void tc_surfel_contact_collide(tc_world* w, tc_real h) {
    tc_points_store* s = tc_points_store_of(w);
    bool last = (w->substep_index % w->def.sub_steps) == w->def.sub_steps - 1;
    for (int i = 0; i < s->bodies.count; ++i) {
        tc_points_body* b = s->bodies.data[i];
        b->contact_points.count = b->contact_normals.count = 0;
        memset(b->surfel_colliding, 0, (size_t)b->ns);
        // The neighbour lists of an earlier call on the same surfaces are still valid, but a
        // simulation rebuilds the surfaces before every call: each call starts without them
        // (so that the bench, which repeats calls, measures what a sub-step pays).
        tc_surfel_surface_drop_tiles(&b->surface);
    }
    tc_surfel_contact c = {0};
    for (int i = 0; i < s->bodies.count; ++i)
        for (int j = i + 1; j < s->bodies.count; ++j) {
            tc_points_body *A = s->bodies.data[i], *B = s->bodies.data[j];
            if (!tc_aabb_overlap(A->aabb, B->aabb)) continue;
            tc_surfel_contact_params p = tc_surfel_contact_params_for(w, A, B, h);
            (void)tc_surfel_take_out_of_memory();
            int samples = tc_surfel_contact_surface(A, B, &p, &c);
            if (samples > 0) tc_surfel_contact_forces(A, B, &p, &c);
            if (tc_surfel_take_out_of_memory()) { // a partial contact surface or forces: none applied
                tc_world_out_of_memory(w, "points bodies '%s' and '%s': out of memory in their contact; skipped this sub-step",
                                       tc_world_slot_name(w, A->slot), tc_world_slot_name(w, B->slot));
                continue;
            }
            if (samples == 0) continue;
            tc_points_distribute_forces(A, c.points.data, c.forces.data, c.points.count, 1);
            tc_points_distribute_forces(B, c.points.data, c.forces.data, c.points.count, -1);
            store_drawn_surface(A, &c, false);
            store_drawn_surface(B, &c, true);
            if (last) record(w, A, B, &c);
        }
    tc_surfel_contact_free(&c);
}
