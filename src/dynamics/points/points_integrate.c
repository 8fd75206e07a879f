// Point body dynamics: surfel update (§7.5), explicit integration with a stability-bounded
// sub-step, damping, plasticity (§7.4), force distribution and fracture (§7.6).
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "dynamics/points/points.h"
#include "math/eigen.h"

bool tc_points_update_surfels(tc_points_body* b) {
    tc_points_compute_gradients(b);
    for (int k = 0; k < b->ns; ++k) {
        tc_vec3 u = tc_v3_zero(), v = tc_v3_zero();
        tc_mat3 G = tc_mat3_zero();
        for (int t = b->sp_start[k]; t < b->sp_start[k + 1]; ++t) {
            int i = b->sp[t];
            tc_real w = b->sp_w[t];
            tc_vec3 ui = tc_v3_sub(b->x[i], b->x0[i]);
            tc_vec3 first = tc_v3_add(ui, tc_mat3_mul_v3(b->grad_u[i], tc_v3_sub(b->s0[k], b->x0[i])));
            u = tc_v3_madd(u, w, first);
            v = tc_v3_madd(v, w, b->v[i]);
            G = tc_mat3_add(G, tc_mat3_scale(b->grad_u[i], w));
        }
        b->s[k] = tc_v3_add(b->s0[k], u);
        b->sv[k] = v;
        tc_mat3 F = tc_mat3_add(tc_mat3_identity(), G);
        tc_vec3 n = tc_mat3_det(F) > 1e-9 ? tc_mat3_mul_v3(tc_mat3_transpose(tc_mat3_inverse(F)), b->n0[k]) : b->n0[k];
        b->n[k] = tc_v3_normalize(n);
    }
    tc_aabb box = tc_aabb_empty();
    for (int i = 0; i < b->np; ++i) box = tc_aabb_add_point(box, b->x[i]);
    for (int k = 0; k < b->ns; ++k) box = tc_aabb_add_point(box, b->s[k]);
    b->aabb = box;
    return tc_points_build_surface(b);
}

bool tc_points_build_surface(tc_points_body* b) {
    b->surface_ok = tc_surfel_surface_build(&b->surface, b->s, b->n, b->ns, 1.5 * b->surfel_spacing);
    return b->surface_ok;
}

tc_real tc_points_stable_dt(const tc_points_body* b) {
    tc_real wave = sqrt((b->mat.lambda + 2 * b->mat.mu + b->mat.kv) / b->mat.density);
    tc_real rmin = INFINITY;
    for (int i = 0; i < b->np; ++i) rmin = fmin(rmin, b->rbar[i]);
    tc_real dt = 0.4 * rmin / wave; // CFL on the phyxel spacing (stricter than on the support)
    if (b->mat.damping > 0) dt = fmin(dt, 0.5 / b->mat.damping);
    return dt;
}

// Damping of the relative velocity along each neighbour pair: conserves linear and angular
// momentum and leaves rigid motion undamped.
static void pair_damping(const tc_points_body* b, tc_vec3* f) {
    tc_real c = b->mat.damping;
    if (c <= 0) return;
    for (int i = 0; i < b->np; ++i) {
        int n = b->nb_start[i + 1] - b->nb_start[i];
        for (int t = b->nb_start[i]; t < b->nb_start[i + 1]; ++t) {
            int j = b->nb[t];
            tc_vec3 e = tc_v3_sub(b->x[j], b->x[i]);
            tc_real len = tc_v3_len(e);
            if (len < 1e-12) continue;
            e = tc_v3_scale(e, 1 / len);
            tc_real mbar = b->m[i] * b->m[j] / (b->m[i] + b->m[j]);
            tc_vec3 fd = tc_v3_scale(e, c * mbar * tc_v3_dot(tc_v3_sub(b->v[j], b->v[i]), e) / n);
            f[i] = tc_v3_add(f[i], fd);
            f[j] = tc_v3_sub(f[j], fd);
        }
    }
}

// The St Venant-Kirchhoff tangent stiffness grows with stretch s as (3 s^2 - 1)/2 (uniaxial),
// so the wave speed of a stretched body exceeds the rest one: factor from the largest stretch.
// Broken pairs stiffen the discrete operator too (fewer neighbours, larger d vectors): the
// factor grows with the square root of its norm over the rest norm.
static tc_real stiffening_factor(const tc_points_body* b) {
    tc_real s2 = 1;
    for (int i = 0; i < b->np; ++i) {
        tc_mat3 F = tc_mat3_add(tc_mat3_identity(), b->grad_u[i]);
        tc_vec3 ev;
        tc_mat3 V;
        tc_eigen_sym3(tc_mat3_mul(tc_mat3_transpose(F), F), &ev, &V);
        s2 = fmax(s2, ev.z);
    }
    tc_real degraded = b->rest_operator_norm > 0 ? b->operator_norm / b->rest_operator_norm : 1;
    return sqrt(fmax(1, (3 * s2 - 1) / 2)) * sqrt(fmax(1, degraded)) * 1.2;
}

void tc_points_begin_substep(tc_points_body* b, tc_real h) {
    tc_points_compute_gradients(b);
    b->elastic_steps = (int)ceil(h * stiffening_factor(b) / tc_points_stable_dt(b));
}

// Steps within h: the elastic stability bound, and, with static contacts, w dt <= 0.5 at the
// world's penalty frequency at least (tc_points_static_contact_gains).
static int internal_steps(const tc_points_body* b, tc_real h) {
    int steps = b->elastic_steps;
    for (int i = 0; i < b->static_contacts.count; ++i) steps = (int)fmax(steps, ceil(h * b->static_contacts.data[i].omega / 0.5));
    return steps < 1 ? 1 : steps;
}

tc_real tc_points_internal_dt(const tc_points_body* b, tc_real h) { return h / internal_steps(b, h); }

bool tc_points_integrate(tc_points_body* b, tc_vec3 gravity, tc_real h) {
    int steps = internal_steps(b, h), contacts = b->static_contacts.count;
    tc_real dt = h / steps;
    tc_vec3* f = b->work_f;
    tc_vec3* x_start = contacts > 0 ? b->work_x : NULL;
    if (x_start) memcpy(x_start, b->x, (size_t)b->np * sizeof(tc_vec3));
    for (int s = 0; s < steps; ++s) {
        for (int i = 0; i < b->np; ++i) f[i] = tc_v3_madd(b->f_ext[i], b->m[i], gravity);
        tc_points_compute_gradients(b);
        tc_points_elastic_forces(b, f);
        pair_damping(b, f);
        if (x_start) tc_points_static_contacts_apply(b, x_start, s * dt, dt, f);
        for (int i = 0; i < b->np; ++i) {
            if (b->pinned[i]) { b->v[i] = tc_v3_zero(); continue; }
            b->v[i] = tc_v3_madd(b->v[i], dt / b->m[i], f[i]);
            b->x[i] = tc_v3_madd(b->x[i], dt, b->v[i]);
        }
    }
    tc_array_clear(&b->static_contacts); // registered again by the next sub-step's coupling
    return tc_points_update_surfels(b);
}

static tc_real frobenius(tc_mat3 a) {
    tc_real s = 0;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) s += a.m[r][c] * a.m[r][c];
    return sqrt(s);
}

// The plastic rest metric I + 2 eps_p must stay positive definite, otherwise the strain-free
// state is an inverted one and the material turns itself inside out: eigenvalues >= -0.4.
static tc_mat3 keep_metric_positive(tc_mat3 ep) {
    tc_vec3 ev;
    tc_mat3 V;
    tc_eigen_sym3(ep, &ev, &V);
    if (ev.x >= -0.4) return ep;
    ev.x = fmax(ev.x, -0.4);
    ev.y = fmax(ev.y, -0.4);
    ev.z = fmax(ev.z, -0.4);
    return tc_mat3_mul(tc_mat3_mul(V, tc_mat3_diag(ev)), tc_mat3_transpose(V));
}

void tc_points_plasticity(tc_points_body* b, tc_real dt) {
    if (b->mat.creep <= 0) return;
    tc_real rate = fmin(1, dt * b->mat.creep);
    tc_points_compute_gradients(b);
    for (int i = 0; i < b->np; ++i) {
        tc_mat3 F = tc_mat3_add(tc_mat3_identity(), b->grad_u[i]);
        tc_mat3 ee = tc_mat3_add(tc_points_green_strain(F), tc_mat3_scale(b->eps_p[i], -1));
        if (frobenius(ee) > b->mat.yield) b->eps_p[i] = tc_mat3_add(b->eps_p[i], tc_mat3_scale(ee, rate));
        tc_real p = frobenius(b->eps_p[i]);
        if (p > b->mat.max_plastic) b->eps_p[i] = tc_mat3_scale(b->eps_p[i], b->mat.max_plastic / p);
        b->eps_p[i] = keep_metric_positive(b->eps_p[i]);
    }
}

// One phyxel's share of one sample's force (the samples whose support was grown).
typedef struct distribute_entry {
    int phyxel;
    tc_real coeff; ///< its weight over the sample's weight sum
} distribute_entry;

// Where one sample's weights are kept until its force is applied: its lane of its group's
// weights (lane_weights' W and bits, left in place) and its cell's candidates, or (n < 0) a
// range of grown entries. Applying from the lanes spares writing ~47 entries of 16 bytes per
// sample and reading them back.
typedef struct sample_share {
    int list;     ///< offset of its cell's candidates in lists (n < 0: of its first grown entry)
    int n;        ///< candidates of its cell (n < 0: -1 - its count of grown entries)
    int weights;  ///< offset of its lane's first weight in lane_w (stride SAMPLE_LANES)
    int bits;     ///< offset of its lane's bits in lane_bits
    tc_real wsum; ///< its weight sum (nothing applied unless > 0)
} sample_share;

// Scratch of a batch of distributions: a grid over the phyxels and index lists.
typedef struct distribute_scratch {
    tc_point_grid grid;
    int* all;
    tc_real* weight; ///< np entries: the poly6 weight of each near phyxel
    uint64_t* mark;  ///< one bit per phyxel: within the support (all clear between calls)
    int words;       ///< entries of mark
    tc_real h;   ///< default support (twice the mean phyxel radius)
    tc_real* soa; ///< x, y, z of every phyxel (stride soa_stride) when the cells scan them all (else NULL)
    int soa_stride;
    sample_share* share;      ///< per sample: where its weights are
    TC_ARRAY(int) lists;      ///< the candidates of every cell, cell after cell
    TC_ARRAY(tc_real) lane_w; ///< the weights of every group of samples (lane_weights' W), group after group
    TC_ARRAY(uint64_t) lane_bits; ///< per group and lane, a bit per candidate with a positive weight
    TC_ARRAY(distribute_entry) grown; ///< (phyxel, weight / wsum) of the samples with a grown support
} distribute_scratch;

// Marks the phyxels strictly within h of p (the grid's cells of the ball, row by row; a bit
// per phyxel, so that reading the bits word by word lists them in index order without a
// sort); returns their count.
static int mark_within(const tc_points_body* b, distribute_scratch* w, tc_vec3 p, tc_real h) {
    const tc_point_grid* g = &w->grid;
    int lo[3], hi[3], count = 0;
    tc_real h2 = h * h;
    if (!tc_point_grid_range(g, p, h, lo, hi)) return 0;
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
        for (int cy = lo[1]; cy <= hi[1]; ++cy) {
            int row = (cz * g->dims[1] + cy) * g->dims[0];
            for (int t = g->start[row + lo[0]], end = g->start[row + hi[0] + 1]; t < end; ++t) {
                int i = g->items[t];
                tc_real d2 = tc_v3_len2(tc_v3_sub(b->x[i], p));
                int in = d2 < h2; // branch-free: about half of the scanned phyxels are outside
                w->mark[i >> 6] |= (uint64_t)in << (i & 63);
                count += in;
            }
        }
    return count;
}

enum { SAMPLE_LANES = 4 };

// The poly6 weights of up to SAMPLE_LANES samples of one cell (one per lane, coordinates
// p[SAMPLE_LANES axis + lane]) against the phyxels of `list` (the cell's candidates in index order, a
// superset of the phyxels within h of every point of the cell): W[SAMPLE_LANES q + l] the weight
// of list[q] for sample l (+0 outside the support), sums[l] their sum in list order and
// inside[l] how many lie strictly within h. Each lane does the same operations in the same
// order as tc_poly6_with(tc_v3_len2(x_i - p), h2, factor) summed phyxel by phyxel: the same
// bits as one sample at a time, four samples per vector operation. Branch-free: about half of
// the candidates are outside.
#if defined(__GNUC__) && !defined(TC_PLAIN_LANES)
// No vector crosses a call (the helpers are the operators), so the note that the AVX calling
// convention differs from the baseline one does not apply.
#include "core/psabi.h"
typedef tc_real real_lanes __attribute__((vector_size(SAMPLE_LANES * sizeof(tc_real))));
typedef int64_t mask_lanes __attribute__((vector_size(SAMPLE_LANES * sizeof(int64_t))));
typedef uint64_t bit_lanes __attribute__((vector_size(SAMPLE_LANES * sizeof(uint64_t))));

TC_VECTOR_CLONES static void lane_weights(const tc_vec3* x, const int* list, int n, const tc_real* p, tc_real h2, tc_real factor,
                                          tc_real* W, uint64_t* bits, tc_real sums[SAMPLE_LANES], int inside[SAMPLE_LANES]) {
    real_lanes px, py, pz, sum = {0, 0, 0, 0};
    mask_lanes count = {0, 0, 0, 0};
    real_lanes zero = {0, 0, 0, 0};
    int words = (n + 63) / 64;
    memcpy(&px, p, sizeof px);
    memcpy(&py, p + SAMPLE_LANES, sizeof py);
    memcpy(&pz, p + 2 * SAMPLE_LANES, sizeof pz);
    real_lanes hh = {h2, h2, h2, h2}, f = {factor, factor, factor, factor};
    for (int q0 = 0; q0 < n; q0 += 64) { // a word of bits per lane for each 64 candidates
        int q1 = n - q0 < 64 ? n : q0 + 64;
        bit_lanes word = {0, 0, 0, 0}, bit = {1, 1, 1, 1};
        for (int q = q0; q < q1; ++q) {
            tc_vec3 xi = x[list[q]];
            real_lanes dx = (real_lanes){xi.x, xi.x, xi.x, xi.x} - px, dy = (real_lanes){xi.y, xi.y, xi.y, xi.y} - py;
            real_lanes dz = (real_lanes){xi.z, xi.z, xi.z, xi.z} - pz;
            real_lanes d2 = dx * dx + dy * dy + dz * dz, d = hh - d2, w = f * d * d * d;
            w = (real_lanes)((mask_lanes)w & ~(mask_lanes)(d2 >= hh)); // +0 outside (kept for a NaN d2, as tc_poly6_with)
            sum += w;
            count -= (mask_lanes)(d2 < hh); // (a true comparison is all ones: -1)
            memcpy(W + SAMPLE_LANES * q, &w, sizeof w);
            word |= (bit_lanes)(w > zero) & bit;
            bit += bit; // (1 << (q - q0))
        }
        for (int l = 0; l < SAMPLE_LANES; ++l) bits[l * words + q0 / 64] = word[l];
    }
    for (int l = 0; l < SAMPLE_LANES; ++l) {
        sums[l] = sum[l];
        inside[l] = (int)count[l];
    }
}
#else
static void lane_weights(const tc_vec3* x, const int* list, int n, const tc_real* p, tc_real h2, tc_real factor, tc_real* W,
                         uint64_t* bits, tc_real sums[SAMPLE_LANES], int inside[SAMPLE_LANES]) {
    int words = (n + 63) / 64;
    memset(bits, 0, (size_t)(SAMPLE_LANES * words) * sizeof(uint64_t));
    for (int l = 0; l < SAMPLE_LANES; ++l) {
        tc_vec3 pl = tc_v3(p[l], p[SAMPLE_LANES + l], p[2 * SAMPLE_LANES + l]);
        tc_real sum = 0;
        int count = 0;
        for (int q = 0; q < n; ++q) {
            tc_real d2 = tc_v3_len2(tc_v3_sub(x[list[q]], pl)), w = tc_poly6_with(d2, h2, factor);
            sum += w;
            count += d2 < h2;
            W[SAMPLE_LANES * q + l] = w;
            bits[l * words + (q >> 6)] |= (uint64_t)(w > 0) << (q & 63);
        }
        sums[l] = sum;
        inside[l] = count;
    }
}
#endif

// The weights of a sample with fewer than K phyxels within the support: the support grown to
// the K-th nearest phyxel (all phyxels scanned; rare). Leaves them in w->all and w->weight.
static int weights_grown(const tc_points_body* b, distribute_scratch* w, tc_vec3 p, tc_real* wsum) {
    enum { K = 6 };
    tc_real h = w->h, best[K], sum = 0;
    int n = 0, count = 0;
    for (int i = 0; i < b->np; ++i) {
        tc_real d = tc_v3_len2(tc_v3_sub(b->x[i], p));
        int pos = n < K ? n++ : K;
        if (pos == K && d >= best[K - 1]) continue;
        if (pos == K) pos = K - 1;
        while (pos > 0 && best[pos - 1] > d) { best[pos] = best[pos - 1]; pos--; }
        best[pos] = d;
    }
    if (n > 0 && best[n - 1] >= h * h) h = sqrt(best[n - 1]) * 1.0001;
    for (int i = 0; i < b->np; ++i)
        if (tc_v3_len2(tc_v3_sub(b->x[i], p)) < h * h) w->all[count++] = i;
    for (int q = 0; q < count; ++q) {
        w->weight[q] = tc_poly6(tc_v3_len2(tc_v3_sub(b->x[w->all[q]], p)), h);
        sum += w->weight[q];
    }
    *wsum = sum;
    return count;
}

// A body of at most SCAN_ALL phyxels: each cell of samples tests all of them, 4 at a time, in
// index order (AVX2; their kept indices stored by core/lanes_compact.h's lane table), instead
// of walking the phyxel grid (~230 of ~400 phyxels scanned a cell at 20 mm, ~10 instructions each) and
// reading back a bitmap; no phyxel grid is built. The same candidates: the same squared
// distances ((dx dx + dy dy) + dz dz, no FMA) and the same strict test. Distribution 0.35 -> 0.31-0.32
// M ticks a call at 20 mm (least of 1000; 1.90 -> 1.74 M instructions), 40 mm 0.68 -> 0.55-0.61.
// The scan costs ~7 instructions a phyxel for every phyxel, the walk ~10 for the phyxels near
// the cell: SCAN_ALL is a bound for bodies whose cells' reach covers a fair share of them (the
// bench's 400 phyxels: ~57% scanned by the walk), not a measured crossover.
enum { SCAN_ALL = 1024 };
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(TC_NO_VECTOR_CLONES) && !defined(TC_PLAIN_LANES)
#define SCAN_AVX2 1
#include <immintrin.h>
#include "core/lanes_compact.h"

// The phyxels strictly within `reach` of centre into list (4 entries written past the count at
// most), in index order; returns their count. soa: x, y, z rows of stride `stride` (np rounded up
// to 4, the padding never kept).
__attribute__((target("avx2"))) static int scan_all_avx2(const tc_real* soa, int stride, int np, tc_vec3 centre, tc_real reach, int* list) {
    __m256d px = _mm256_set1_pd(centre.x), py = _mm256_set1_pd(centre.y), pz = _mm256_set1_pd(centre.z);
    __m256d rr = _mm256_set1_pd(reach * reach);
    const tc_real *X = soa, *Y = X + stride, *Z = Y + stride;
    int n = 0;
    for (int i = 0; i < np; i += 4) {
        __m256d dx = _mm256_sub_pd(_mm256_loadu_pd(X + i), px), dy = _mm256_sub_pd(_mm256_loadu_pd(Y + i), py);
        __m256d dz = _mm256_sub_pd(_mm256_loadu_pd(Z + i), pz);
        __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
        int m = _mm256_movemask_pd(_mm256_cmp_pd(d2, rr, _CMP_LT_OQ));
        if (np - i < 4) m &= (1 << (np - i)) - 1;
        __m128i kept = _mm_add_epi32(_mm_loadu_si128((const __m128i*)tc_compact_perm_epi32[m]), _mm_set1_epi32(i));
        _mm_storeu_si128((__m128i*)(list + n), kept);
        n += __builtin_popcount((unsigned)m);
    }
    return n;
}
#endif

// The phyxels' coordinates in rows for scan_all_avx2, when the body is small enough and the CPU
// has AVX2 (else w->soa stays NULL: the grid's walk). False when out of memory.
static bool scan_all_setup(const tc_points_body* b, distribute_scratch* w) {
#ifdef SCAN_AVX2
    if (b->np > SCAN_ALL || !__builtin_cpu_supports("avx2")) return true;
    w->soa_stride = (b->np + 3) / 4 * 4;
    w->soa = tc_alloc((size_t)(3 * w->soa_stride) * sizeof(tc_real));
    if (!w->soa) return false;
    for (int t = 0; t < w->soa_stride; ++t) {
        tc_vec3 x = t < b->np ? b->x[t] : tc_v3_zero();
        w->soa[t] = x.x, w->soa[w->soa_stride + t] = x.y, w->soa[2 * w->soa_stride + t] = x.z;
    }
#else
    (void)b, (void)w;
#endif
    return true;
}

// The candidates of a cell of samples: the phyxels strictly within `reach` of its centre,
// in index order (the bitmap read word by word; the marks cleared). Returns their count.
static int cell_candidates(const tc_points_body* b, distribute_scratch* w, tc_vec3 centre, tc_real reach, int* list) {
#ifdef SCAN_AVX2
    if (w->soa) return scan_all_avx2(w->soa, w->soa_stride, b->np, centre, reach, list);
#endif
    int count = 0;
    if (mark_within(b, w, centre, reach) == 0) return 0;
    for (int k = 0; k < w->words; ++k) {
        for (uint64_t m = w->mark[k]; m; m &= m - 1) list[count++] = k * 64 + __builtin_ctzll(m);
        w->mark[k] = 0;
    }
    return count;
}

// Sample k's share (lane l of the group whose weights start at lane_w[weights] and bits at
// lane_bits[bits], for the n candidates at lists[list]: wsum, count): where its weights are, or
// its grown entries (a force spread with poly6 weights over the phyxels within the support h,
// grown to the K-th nearest phyxel when fewer than K are within it; sums in index order).
static bool record_share(const tc_points_body* b, distribute_scratch* w, sample_share share, int l, int count, tc_vec3 p, int k) {
    enum { K = 6 };
    if (count < K && count < b->np) {
        tc_real wsum;
        count = weights_grown(b, w, p, &wsum);
        int first = w->grown.count;
        if (wsum > 0) {
            if (!tc_array_reserve(&w->grown, w->grown.count + count)) return false;
            for (int q = 0; q < count; ++q)
                if (w->weight[q] > 0) w->grown.data[w->grown.count++] = (distribute_entry){w->all[q], w->weight[q] / wsum};
        }
        w->share[k] = (sample_share){first, -1 - (w->grown.count - first), 0, 0, wsum};
        return true;
    }
    share.weights += l;
    share.bits += l * ((share.n + 63) / 64);
    w->share[k] = share;
    return true;
}

// The samples of one cell (items[begin, end) of the sample grid), SAMPLE_LANES at a time, against
// its n candidates at lists[list]: their weights left in lane_w and lane_bits.
static bool record_cell(const tc_points_body* b, distribute_scratch* w, int list, int n, const tc_vec3* p, const int* items, int begin,
                        int end) {
    tc_real h2 = w->h * w->h, factor = tc_poly6_factor(w->h);
    int words = (n + 63) / 64;
    for (int t = begin; t < end; t += SAMPLE_LANES) {
        int m = end - t < SAMPLE_LANES ? end - t : SAMPLE_LANES;
        tc_real lanes[3 * SAMPLE_LANES], sums[SAMPLE_LANES];
        int inside[SAMPLE_LANES];
        for (int l = 0; l < SAMPLE_LANES; ++l) { // (unused lanes repeat the last sample)
            tc_vec3 pl = p[items[t + (l < m ? l : m - 1)]];
            lanes[l] = pl.x, lanes[SAMPLE_LANES + l] = pl.y, lanes[2 * SAMPLE_LANES + l] = pl.z;
        }
        if (n > (INT_MAX - w->lane_w.count) / SAMPLE_LANES || words > (INT_MAX - w->lane_bits.count) / SAMPLE_LANES) return false;
        if (!tc_array_reserve(&w->lane_w, w->lane_w.count + SAMPLE_LANES * n)) return false;
        if (!tc_array_reserve(&w->lane_bits, w->lane_bits.count + SAMPLE_LANES * words)) return false;
        if (n == 0) // (no candidates: lane_weights' zero sums and counts, without its pointers into arrays maybe never allocated)
            for (int l = 0; l < SAMPLE_LANES; ++l) sums[l] = 0, inside[l] = 0;
        else
            lane_weights(b->x, w->lists.data + list, n, lanes, h2, factor, w->lane_w.data + w->lane_w.count,
                         w->lane_bits.data + w->lane_bits.count, sums, inside);
        for (int l = 0; l < m; ++l) {
            sample_share share = {list, n, w->lane_w.count, w->lane_bits.count, sums[l]};
            if (!record_share(b, w, share, l, inside[l], p[items[t + l]], items[t + l])) return false;
        }
        w->lane_w.count += SAMPLE_LANES * n;
        w->lane_bits.count += SAMPLE_LANES * words;
    }
    return true;
}

// The phyxels of one word of a sample's bits (list[q] for each set bit q, weight W[SAMPLE_LANES q])
// given their share of fk, in bit order (each phyxel once a sample: any order within the word
// gives the same sums). Two quotients per divpd where GNU C vectors exist: an IEEE division
// per lane, the same bits as divsd, for half the divider's issues (~23 entries a sample; perf put
// the loop's samples behind its divsd): distribution 0.38-0.40 -> 0.35-0.37 M ticks a call at 20
// mm. Four per vdivpd (an AVX2 clone of the apply) ran slower (0.38-0.52); with the pairs, a
// multiplication by 1 / wsum in their place (other bits, a probe only) gained nothing more.
#if defined(__GNUC__) && !defined(TC_PLAIN_LANES)
typedef tc_real quotient_pair __attribute__((vector_size(2 * sizeof(tc_real))));
static inline void apply_word(tc_vec3* f_ext, const int* list, const tc_real* W, uint64_t m, tc_real wsum, tc_vec3 fk) {
    quotient_pair by = {wsum, wsum};
    for (; m & (m - 1); m &= m - 1) {
        int q1 = __builtin_ctzll(m);
        m &= m - 1;
        int q2 = __builtin_ctzll(m), i1 = list[q1], i2 = list[q2];
        quotient_pair c = (quotient_pair){W[SAMPLE_LANES * q1], W[SAMPLE_LANES * q2]} / by;
        f_ext[i1] = tc_v3_madd(f_ext[i1], c[0], fk);
        f_ext[i2] = tc_v3_madd(f_ext[i2], c[1], fk);
    }
    if (m) {
        int q = __builtin_ctzll(m), i = list[q];
        f_ext[i] = tc_v3_madd(f_ext[i], W[SAMPLE_LANES * q] / wsum, fk);
    }
}
#else
static inline void apply_word(tc_vec3* f_ext, const int* list, const tc_real* W, uint64_t m, tc_real wsum, tc_vec3 fk) {
    for (; m; m &= m - 1) {
        int q = __builtin_ctzll(m), i = list[q];
        f_ext[i] = tc_v3_madd(f_ext[i], W[SAMPLE_LANES * q] / wsum, fk);
    }
}
#endif

// Sample k's force fk applied to its phyxels (each's weight over wsum): the same sums in the
// same order as one sample at a time.
static void apply_share(tc_vec3* f_ext, const distribute_scratch* w, const sample_share* share, tc_vec3 fk) {
    if (!(share->wsum > 0)) return;
    if (share->n < 0) {
        const distribute_entry* e = w->grown.data + share->list;
        for (int q = 0; q < -1 - share->n; ++q) f_ext[e[q].phyxel] = tc_v3_madd(f_ext[e[q].phyxel], e[q].coeff, fk);
        return;
    }
    // The candidates with a positive weight, in list order: the lane's bits read word by word.
    const int* list = w->lists.data + share->list;
    const tc_real* W = w->lane_w.data + share->weights;
    const uint64_t* bits = w->lane_bits.data + share->bits;
    for (int word = 0, words = (share->n + 63) / 64; word < words; ++word)
        apply_word(f_ext, list + 64 * word, W + SAMPLE_LANES * 64 * word, bits[word], share->wsum, fk);
}

void tc_points_distribute_forces(tc_points_body* b, const tc_vec3* p, const tc_vec3* f, int count, tc_real sign) {
    if (count <= 0 || b->np <= 0) return;
    distribute_scratch w = {0};
    tc_point_grid cells = {0};
    tc_real rmean = 0;
    for (int i = 0; i < b->np; ++i) rmean += b->rbar[i];
    w.h = 2 * rmean / b->np; // twice the phyxel radius, grown to the K-th nearest if needed
    // (Past SCAN_ALL phyxels or without AVX2:) phyxel cells of 0.7 h: a cell's candidate search
    // (reach ~1.22 h) scans fewer phyxels outside it than with cells of h, for a few more rows
    // (per-call minima at 4/20/40 mm ~2-5% lower; 0.5 h scans too many rows).
    bool ok = scan_all_setup(b, &w) && (w.soa || tc_point_grid_build(&w.grid, b->x, b->np, 0.7 * w.h));
    // Samples grouped by cells of h/4: one candidate list per cell (the phyxels within h plus
    // the cell's half-diagonal of its centre, with a margin for points just outside their
    // cell by rounding), filtered per sample.
    ok = tc_point_grid_build(&cells, p, count, 0.25 * w.h) && ok;
    w.all = tc_alloc((size_t)b->np * sizeof(int));
    w.weight = tc_alloc((size_t)b->np * sizeof(tc_real));
    w.words = (b->np + 63) / 64;
    w.mark = tc_calloc((size_t)w.words, sizeof(uint64_t));
    w.share = tc_alloc((size_t)count * sizeof(sample_share));
    // Room for 128 weights per sample (a group holds SAMPLE_LANES weights per candidate, ~93
    // candidates, for ~3.6 samples at 20 mm: ~103 a sample): few regrowth copies. Only a hint:
    // without it the weights grow as needed. (A ~0.6 MB block a body at 20 mm, as the entries
    // were: its free keeps glibc's raised mmap threshold, so no page faults a call.)
    if (ok && count < (1 << 20)) (void)tc_array_reserve(&w.lane_w, count * (b->np < 32 ? SAMPLE_LANES * b->np : 128));
    ok = ok && w.all && w.weight && w.mark && w.share;
    tc_real reach = w.h * (1 + 1e-9) + cells.cell * (0.5 * sqrt(3.0) + 1e-6);
    for (int c = 0; ok && c < cells.cell_count; ++c) {
        int begin = cells.start[c], end = cells.start[c + 1];
        if (begin == end) continue;
        int ix = c % cells.dims[0], iy = (c / cells.dims[0]) % cells.dims[1], iz = c / (cells.dims[0] * cells.dims[1]);
        tc_vec3 centre = tc_v3_add(cells.origin, tc_v3_scale(tc_v3(ix + 0.5, iy + 0.5, iz + 0.5), cells.cell));
        ok = w.lists.count <= INT_MAX - b->np - 4 && tc_array_reserve(&w.lists, w.lists.count + b->np + 4); // (+4: scan_all_avx2's stores)
        int list = w.lists.count, n = ok ? cell_candidates(b, &w, centre, reach, w.lists.data + list) : 0;
        w.lists.count += n;
        ok = ok && record_cell(b, &w, list, n, p, cells.items, begin, end);
    }
    // Applied in sample order: the same sums in the same order as one sample at a time.
    for (int k = 0; ok && k < count; ++k) apply_share(b->f_ext, &w, &w.share[k], tc_v3_scale(f[k], sign));
    if (!ok) tc_log(TC_LOG_ERROR, TC_RESULT_OUT_OF_MEMORY, "points body: out of memory distributing %d contact forces; none applied", count);
    tc_free(w.share, (size_t)count * sizeof(sample_share));
    tc_array_free(&w.lists);
    tc_array_free(&w.lane_w);
    tc_array_free(&w.lane_bits);
    tc_array_free(&w.grown);
    tc_free(w.all, (size_t)b->np * sizeof(int));
    tc_free(w.weight, (size_t)b->np * sizeof(tc_real));
    tc_free(w.mark, (size_t)w.words * sizeof(uint64_t));
    tc_point_grid_free(&cells);
    tc_point_grid_free(&w.grid);
    if (w.soa) tc_free(w.soa, (size_t)(3 * w.soa_stride) * sizeof(tc_real));
}

void tc_points_distribute_force(tc_points_body* b, tc_vec3 p, tc_vec3 f) { tc_points_distribute_forces(b, &p, &f, 1, 1); }

tc_vec3 tc_points_surfel_velocity(const tc_points_body* b, int k) { return b->sv[k]; }

// ---- fracture ------------------------------------------------------------------------------

static int find_root(int* parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

// Removes over-stretched pairs from both lists; returns 1 if any pair broke, 0 if none, -1 when
// out of memory (nothing changed).
static int break_pairs(tc_points_body* b) {
    uint8_t* broken = tc_calloc((size_t)(b->nb_count > 0 ? b->nb_count : 1), 1);
    if (!broken) return -1;
    bool any = false;
    for (int i = 0; i < b->np; ++i)
        for (int t = b->nb_start[i]; t < b->nb_start[i + 1]; ++t)
            if (tc_v3_dist(b->x[i], b->x[b->nb[t]]) > b->fracture_stretch * b->h[i]) {
                broken[t] = 1;
                any = true;
                int j = b->nb[t]; // the reverse pair breaks too
                for (int q = b->nb_start[j]; q < b->nb_start[j + 1]; ++q)
                    if (b->nb[q] == i) broken[q] = 1;
            }
    if (any) {
        int w = 0, begin = b->nb_start[0];
        for (int i = 0; i < b->np; ++i) {
            int end = b->nb_start[i + 1];
            b->nb_start[i] = w;
            for (int t = begin; t < end; ++t)
                if (!broken[t]) { b->nb[w] = b->nb[t]; b->nb_len0[w] = b->nb_len0[t]; w++; }
            begin = end;
        }
        b->nb_start[b->np] = w;
        for (int i = 0; i < b->np; ++i) tc_points_compute_d(b, i);
        b->operator_norm = tc_points_operator_norm(b);
    }
    tc_free(broken, (size_t)(b->nb_count > 0 ? b->nb_count : 1));
    return any;
}

// A new body with the phyxels of component `comp` and the surfels whose strongest phyxel is in it.
// Direction (rest frame) from phyxel i toward its former neighbours now in other parts; zero if none.
static tc_vec3 crack_direction(const tc_points_body* b, const int* comp_of, int i) {
    tc_vec3 d = tc_v3_zero();
    for (int j = 0; j < b->np; ++j) {
        tc_vec3 xij = tc_v3_sub(b->x0[j], b->x0[i]);
        if (comp_of[j] != comp_of[i] && tc_v3_len2(xij) < b->h[i] * b->h[i]) d = tc_v3_madd(d, tc_poly6(tc_v3_len2(xij), b->h[i]), xij);
    }
    return d;
}

// A new body with the phyxels of component `comp`, the surfels whose strongest phyxel is in it,
// and new surfels on the crack: half a phyxel radius from each phyxel that lost neighbours,
// facing them, so the parts see each other's crack faces in contact.
static tc_points_body* extract_component(const tc_points_body* b, const int* comp_of, int comp, const int* surfel_comp) {
    int np = 0, ns = 0;
    for (int i = 0; i < b->np; ++i) np += comp_of[i] == comp;
    for (int k = 0; k < b->ns; ++k) ns += surfel_comp[k] == comp;
    tc_vec3* crack = tc_calloc((size_t)b->np, sizeof(tc_vec3));
    if (!crack) return NULL;
    for (int i = 0; i < b->np; ++i)
        if (comp_of[i] == comp) {
            crack[i] = crack_direction(b, comp_of, i);
            ns += tc_v3_len2(crack[i]) > 0;
        }
    tc_points_body* c = tc_points_body_alloc(np, ns);
    int* map = c ? tc_alloc((size_t)b->np * sizeof(int)) : NULL;
    if (!map) {
        tc_points_body_free(c);
        tc_free(crack, (size_t)b->np * sizeof(tc_vec3));
        return NULL;
    }
    c->mat = b->mat;
    c->surface_material = b->surface_material;
    c->fracture = b->fracture;
    c->fracture_stretch = b->fracture_stretch;
    c->contact_stiffness = b->contact_stiffness;
    c->resample_spacing = b->resample_spacing;
    c->seed_density_scaling = b->seed_density_scaling;
    c->surfel_spacing = b->surfel_spacing;
    c->surfel_radius = b->surfel_radius;
    int q = 0, pairs = 0;
    for (int i = 0; i < b->np; ++i) {
        map[i] = comp_of[i] == comp ? q : -1;
        if (comp_of[i] != comp) continue;
        c->x0[q] = b->x0[i]; c->x[q] = b->x[i]; c->v[q] = b->v[i]; c->m[q] = b->m[i]; c->vol[q] = b->vol[i];
        c->h[q] = b->h[i]; c->rbar[q] = b->rbar[i]; c->pinned[q] = b->pinned[i]; c->eps_p[q] = b->eps_p[i];
        c->total_mass += b->m[i];
        pairs += b->nb_start[i + 1] - b->nb_start[i];
        q++;
    }
    c->nb_count = pairs;
    c->nb_start = tc_alloc(((size_t)np + 1) * sizeof(int));
    c->nb = tc_alloc((size_t)(pairs > 0 ? pairs : 1) * sizeof(int));
    c->nb_d = tc_alloc((size_t)(pairs > 0 ? pairs : 1) * sizeof(tc_vec3));
    c->nb_len0 = tc_alloc((size_t)(pairs > 0 ? pairs : 1) * sizeof(tc_real));
    if (!c->nb_start || !c->nb || !c->nb_d || !c->nb_len0) {
        tc_points_body_free(c); // frees each neighbour array on its own
        tc_free(map, (size_t)b->np * sizeof(int));
        tc_free(crack, (size_t)b->np * sizeof(tc_vec3));
        return NULL;
    }
    int t = 0;
    for (int i = 0; i < b->np; ++i) {
        if (map[i] < 0) continue;
        c->nb_start[map[i]] = t;
        for (int p = b->nb_start[i]; p < b->nb_start[i + 1]; ++p) {
            c->nb[t] = map[b->nb[p]]; // same component by construction
            c->nb_len0[t++] = b->nb_len0[p];
        }
    }
    c->nb_start[np] = t;
    for (int i = 0; i < np; ++i) tc_points_compute_d(c, i);
    int s = 0;
    for (int k = 0; k < b->ns; ++k)
        if (surfel_comp[k] == comp) { c->s0[s] = b->s0[k]; c->n0[s] = b->n0[k]; s++; }
    for (int i = 0; i < b->np; ++i) {
        if (comp_of[i] != comp || !(tc_v3_len2(crack[i]) > 0)) continue;
        c->n0[s] = tc_v3_normalize(crack[i]);
        c->s0[s] = tc_v3_madd(b->x0[i], 0.5 * b->rbar[i], c->n0[s]);
        s++;
    }
    tc_free(crack, (size_t)b->np * sizeof(tc_vec3));
    c->min_support = INFINITY;
    for (int i = 0; i < np; ++i) c->min_support = fmin(c->min_support, c->h[i]);
    c->operator_norm = tc_points_operator_norm(c);
    c->rest_operator_norm = b->rest_operator_norm; // the parent's rest state is the reference
    tc_free(map, (size_t)b->np * sizeof(int));
    if (!tc_points_build_surfel_weights(c) || !tc_points_build_surfel_masses(c) || !tc_points_update_surfels(c)) {
        tc_points_body_free(c);
        return NULL;
    }
    return c;
}

// Component labels (in order of first phyxel); fragments under 5 phyxels join the largest part.
// Returns the number of parts, -1 when out of memory.
static int label_components(const tc_points_body* b, int* comp_of) {
    size_t bytes = (size_t)b->np * sizeof(int);
    int* parent = tc_alloc(bytes);
    int* label = tc_alloc(bytes);
    int* size = tc_calloc((size_t)b->np, sizeof(int));
    int* renum = tc_alloc(bytes);
    int kept = -1;
    if (parent && label && size && renum) {
        for (int i = 0; i < b->np; ++i) parent[i] = i;
        for (int i = 0; i < b->np; ++i)
            for (int t = b->nb_start[i]; t < b->nb_start[i + 1]; ++t) {
                int ri = find_root(parent, i), rj = find_root(parent, b->nb[t]);
                if (ri != rj) parent[ri > rj ? ri : rj] = ri < rj ? ri : rj;
            }
        int count = 0;
        for (int i = 0; i < b->np; ++i) label[i] = -1;
        for (int i = 0; i < b->np; ++i) {
            int r = find_root(parent, i);
            if (label[r] < 0) label[r] = count++;
            comp_of[i] = label[r];
            size[comp_of[i]]++;
        }
        int largest = 0;
        for (int c = 1; c < count; ++c) if (size[c] > size[largest]) largest = c;
        kept = 0;
        for (int c = 0; c < count; ++c) renum[c] = size[c] >= 5 ? kept++ : -1;
        for (int i = 0; i < b->np; ++i) comp_of[i] = renum[comp_of[i]] >= 0 ? renum[comp_of[i]] : renum[largest];
    }
    tc_free(renum, bytes);
    tc_free(size, bytes);
    tc_free(label, bytes);
    tc_free(parent, bytes);
    return kept;
}

// Builds every part of the split (all or none): parts[0..count). False when out of memory.
static bool build_parts(const tc_points_body* b, const int* comp_of, int count, tc_points_body** parts) {
    int* surfel_comp = tc_alloc((size_t)(b->ns > 0 ? b->ns : 1) * sizeof(int));
    if (!surfel_comp) return false;
    for (int k = 0; k < b->ns; ++k) {
        int best = b->sp_start[k];
        for (int t = b->sp_start[k]; t < b->sp_start[k + 1]; ++t) if (b->sp_w[t] > b->sp_w[best]) best = t;
        surfel_comp[k] = comp_of[b->sp[best]];
    }
    int built = 0;
    while (built < count && (parts[built] = extract_component(b, comp_of, built, surfel_comp))) built++;
    tc_free(surfel_comp, (size_t)(b->ns > 0 ? b->ns : 1) * sizeof(int));
    if (built == count) return true;
    while (built > 0) tc_points_body_free(parts[--built]);
    return false;
}

// Adds parts 1.. as new bodies named "<name>#<mark>"; the first part replaces b under its id.
// All or nothing: when a body cannot be added, those already added are removed again.
static bool insert_parts(tc_world* w, int index, tc_points_body** parts, int count) {
    tc_points_store* store = tc_points_store_of(w);
    tc_points_body* b = store->bodies.data[index];
    char base_name[256];
    snprintf(base_name, sizeof base_name, "%s", tc_world_slot_name(w, b->slot));
    uint32_t first_mark = store->next_mark;
    int added = 1;
    for (; added < count; ++added) {
        char part_name[300];
        snprintf(part_name, sizeof part_name, "%s#%u", base_name, first_mark + 1 + (uint32_t)added);
        tc_body_id id;
        if (tc_points_store_insert(w, parts[added], part_name, NULL, &id) != TC_RESULT_OK) break;
    }
    if (added < count) {
        for (int k = added - 1; k >= 1; --k) {
            tc_points_body* part = parts[k];
            parts[k] = NULL;
            tc_world_release_body(w, tc_world_slot_id(w, part->slot)); // frees the part
        }
        return false;
    }
    for (int c = 0; c < count; ++c) parts[c]->mark = ++store->next_mark; // distinct: they never share neighbours again
    parts[0]->slot = b->slot; // the first part keeps the original id
    store->bodies.data[index] = parts[0];
    tc_points_body_free(b);
    return true;
}

// Splits body `index` into its connected parts. Returns false when out of memory: the body is
// then left whole (with its broken pairs) and the split is retried at the next step.
static bool split(tc_world* w, int index) {
    tc_points_body* b = tc_points_store_of(w)->bodies.data[index];
    size_t comp_bytes = (size_t)b->np * sizeof(int); // b is freed when the split succeeds
    int* comp_of = tc_alloc(comp_bytes);
    int parts = comp_of ? label_components(b, comp_of) : -1;
    bool ok = parts >= 0;
    if (parts > 1) {
        tc_points_body** built = tc_calloc((size_t)parts, sizeof *built);
        ok = built && build_parts(b, comp_of, parts, built);
        if (ok && !insert_parts(w, index, built, parts)) {
            for (int c = 0; c < parts; ++c) tc_points_body_free(built[c]);
            ok = false;
        }
        tc_free(built, (size_t)parts * sizeof *built);
    }
    tc_free(comp_of, comp_bytes);
    return ok;
}

void tc_points_fracture(tc_world* w, int index) {
    tc_points_body* b = tc_points_store_of(w)->bodies.data[index];
    if (!b->fracture) return;
    int broke = break_pairs(b);
    if (broke < 0) {
        tc_world_out_of_memory(w, "points body '%s': out of memory checking its pairs for fracture (retried next step)",
                               tc_world_slot_name(w, b->slot));
        return;
    }
    if (!broke && !b->split_pending) return;
    b->split_pending = false;
    if (split(w, index)) return; // b was replaced by its first part (or had one part)
    b->split_pending = true;
    tc_world_out_of_memory(w, "points body '%s': out of memory splitting it (retried next step)", tc_world_slot_name(w, b->slot));
}
