// Quasi-rigid contact: response matrix, LCP iterations, active nodes, coarse-to-fine (§9.4–9.6).
#include "contact/quasi_contact.h"
#include <limits.h>
#include <math.h>
#include "contact/quasi_matrix.h"

#define VP_TABLE_SIZE 257

void tc_quasi_patch_clear(tc_quasi_patch* pt) {
    tc_array_clear(&pt->nodes);
    tc_array_clear(&pt->points);
    tc_array_clear(&pt->normals);
    tc_array_clear(&pt->area);
    tc_array_clear(&pt->s0);
    tc_array_clear(&pt->pressure);
    tc_array_clear(&pt->disp_a);
    tc_array_clear(&pt->disp_b);
    pt->level = pt->iterations = pt->pivots = pt->lcp_iterations = pt->fallbacks = 0;
    pt->residual_penetration = 0;
}

void tc_quasi_patch_free(tc_quasi_patch* pt) {
    tc_array_free(&pt->nodes);
    tc_array_free(&pt->points);
    tc_array_free(&pt->normals);
    tc_array_free(&pt->area);
    tc_array_free(&pt->s0);
    tc_array_free(&pt->pressure);
    tc_array_free(&pt->disp_a);
    tc_array_free(&pt->disp_b);
    tc_array_free(&pt->matrix);
    tc_array_free(&pt->skew);
    tc_array_free(&pt->scratch);
    tc_lcp_workspace_free(&pt->lcp);
}

bool tc_quasi_patch_add(tc_quasi_patch* pt, int node, tc_vec3 p, tc_real area) {
    return tc_array_push(&pt->nodes, node) && tc_array_push(&pt->points, p) && tc_array_push(&pt->area, area) &&
           tc_array_push(&pt->normals, tc_v3(0, 0, 1)) && tc_array_push(&pt->s0, 0.0) &&
           tc_array_push(&pt->pressure, 0.0) && tc_array_push(&pt->disp_a, 0.0) && tc_array_push(&pt->disp_b, 0.0);
}

tc_real tc_quasi_response_reach(const tc_response_params* r, tc_real spacing) {
    // Boussinesq displacements are inward everywhere, so only overlapping nodes can touch; keep a
    // small margin for curvature. The volume-preserving bulge can lift nearby nodes into contact:
    // tc_quasi_collide then doubles this reach while loaded nodes sit near the edge of the set.
    (void)r;
    return 0.5 * spacing;
}

// Volume-preserving kernels by table over r at the patch's mean σ, scaled by (σ_k/σ̄)² (exact in
// the far field, where the kernel acts as a point load of area 2πσ²); Boussinesq is closed form.
typedef struct kernel_eval {
    const tc_response_params* r;
    tc_real sigma_mean, r_max;
    tc_real table[VP_TABLE_SIZE];
} kernel_eval;

static void kernel_init(kernel_eval* k, const tc_response_params* r, tc_real sigma_mean, tc_real r_max) {
    k->r = r;
    k->sigma_mean = sigma_mean;
    k->r_max = fmax(r_max, 1e-12);
    if (r->kind != TC_RESPONSE_VOLUME_PRESERVING) return;
    for (int i = 0; i < VP_TABLE_SIZE; ++i)
        k->table[i] = tc_response_kernel(r, sigma_mean, k->r_max * i / (VP_TABLE_SIZE - 1));
}

static tc_real kernel_value(const kernel_eval* k, tc_real sigma, tc_real dist) {
    if (k->r->kind != TC_RESPONSE_VOLUME_PRESERVING) return tc_response_kernel(k->r, sigma, dist);
    tc_real x = fmin(dist / k->r_max, 1) * (VP_TABLE_SIZE - 1);
    int i = (int)x;
    if (i >= VP_TABLE_SIZE - 1) i = VP_TABLE_SIZE - 2;
    tc_real t = x - i, v = k->table[i] * (1 - t) + k->table[i + 1] * t;
    tc_real ratio = sigma / k->sigma_mean;
    return v * ratio * ratio;
}

static tc_real node_sigma(tc_real area) { return sqrt(area / (2 * TC_PI)); }

static tc_real layer_compliance(const tc_response_params* r) { return (1 - r->poisson) / r->shear_modulus; }

// How the patch's matrix was built: both layers Boussinesq share one kernel, M = (c_A + c_B) K,
// so u_A = c_A / (c_A + c_B) · M p; otherwise the tabulated kernels of each side.
typedef struct patch_model {
    kernel_eval ka, kb;
    bool has_b, shared_kernel;
    tc_real share_a;
} patch_model;

static bool boussinesq_pair(const tc_response_params* ra, const tc_response_params* rb) {
    return ra->kind == TC_RESPONSE_BOUSSINESQ && (!rb || rb->kind == TC_RESPONSE_BOUSSINESQ);
}

// Scratch layout (SCRATCH_REALS · n): q, w, the assembly's σ and 8n, the column scale d.
enum { SCRATCH_Q = 0, SCRATCH_W = 1, SCRATCH_ASSEMBLY = 2, SCRATCH_SCALE = 11, SCRATCH_REALS = 12 };

static tc_real* scratch_at(const tc_quasi_patch* pt, int slot) { return pt->scratch.data + (size_t)slot * pt->nodes.count; }

// Unequal kernel widths: column k scales as σ_k² (the far field is area/r), the d of the split PK.
static tc_real* column_scale(const tc_quasi_patch* pt) {
    tc_real* d = scratch_at(pt, SCRATCH_SCALE);
    for (int k = 0; k < pt->nodes.count; ++k) d[k] = pt->area.data[k] / (2 * TC_PI);
    return d;
}

// The split PK takes the LCP when the dispatch would (tc_lcp_solve's rule for a scaled matrix).
static bool wants_split(const tc_quasi_patch* pt) {
    return pt->solver == TC_LCP_PK || (pt->solver == TC_LCP_AUTO && pt->nodes.count > TC_LCP_LEMKE_MAX_N);
}

// Boussinesq on both sides: the fast closed-form build; with unequal widths and the split PK to
// come, S and A directly (M is never formed).
static bool assemble_boussinesq(tc_quasi_patch* pt, const tc_response_params* ra, const tc_response_params* rb,
                                patch_model* m) {
    int n = pt->nodes.count;
    tc_real ca = layer_compliance(ra), cb = rb ? layer_compliance(rb) : 0;
    tc_real* sigma = scratch_at(pt, SCRATCH_ASSEMBLY);
    for (int k = 0; k < n; ++k) sigma[k] = node_sigma(pt->area.data[k]);
    m->shared_kernel = true;
    m->share_a = ca / (ca + cb);
    if (wants_split(pt) && !tc_quasi_sigma_uniform(n, sigma)) {
        if (!tc_array_reserve(&pt->skew, n * n)) return false;
        tc_quasi_matrix_boussinesq_split(n, pt->points.data, sigma, ca + cb, column_scale(pt), pt->matrix.data,
                                         pt->skew.data, sigma + n);
        pt->symmetric = false, pt->split = true;
        return true;
    }
    pt->symmetric = tc_quasi_matrix_boussinesq(n, pt->points.data, sigma, ca + cb, pt->matrix.data, sigma + n);
    return true;
}

// M = R_A + R_B over the patch nodes (row i receives, column k carries).
static bool assemble(tc_quasi_patch* pt, const tc_response_params* ra, const tc_response_params* rb, patch_model* m) {
    int n = pt->nodes.count;
    m->has_b = rb != NULL;
    m->shared_kernel = false;
    pt->split = false;
    if (boussinesq_pair(ra, rb)) return assemble_boussinesq(pt, ra, rb, m);
    tc_real sigma_mean = 0, r_max = 0;
    for (int i = 0; i < n; ++i) sigma_mean += node_sigma(pt->area.data[i]) / n;
    for (int i = 0; i < n; ++i) r_max = fmax(r_max, tc_v3_dist(pt->points.data[i], pt->points.data[0]));
    r_max *= 2;
    kernel_init(&m->ka, ra, sigma_mean, r_max);
    if (rb) kernel_init(&m->kb, rb, sigma_mean, r_max);
    tc_real* M = pt->matrix.data;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) {
            tc_real sigma = node_sigma(pt->area.data[k]);
            tc_real d = tc_v3_dist(pt->points.data[i], pt->points.data[k]);
            M[(size_t)i * n + k] = kernel_value(&m->ka, sigma, d) + (rb ? kernel_value(&m->kb, sigma, d) : 0);
        }
    pt->symmetric = false; // the tabulated kernels are scaled per column
    return true;
}

// total = M p, skipping unloaded nodes.
static void matrix_times_pressure(const tc_quasi_patch* pt, tc_real* total) {
    int n = pt->nodes.count;
    const tc_real *M = pt->matrix.data, *p = pt->pressure.data;
    if (pt->symmetric) {
        tc_sym_matvec(n, M, p, total);
        return;
    }
    for (int i = 0; i < n; ++i) {
        tc_real s = 0;
        for (int k = 0; k < n; ++k)
            if (p[k] != 0) s += M[(size_t)i * n + k] * p[k];
        total[i] = s;
    }
}

// lcp_w, q: the solve's w = M p + q and its q. The iterative methods hand back w of an exact
// product (PK and MPRGP recompute it on convergence, the split PK on S and A), so then
// u_A + u_B = w − q needs no further product; after Lemke (a tableau's w) M p is formed.
static void displacements(tc_quasi_patch* pt, const patch_model* m, const tc_real* lcp_w, const tc_real* q,
                          bool w_exact) {
    int n = pt->nodes.count;
    tc_real* total = pt->disp_b.data; // u_A + u_B first, split below
    if (w_exact)
        for (int i = 0; i < n; ++i) total[i] = lcp_w[i] - q[i];
    else
        matrix_times_pressure(pt, total);
    for (int i = 0; i < n; ++i) {
        tc_real ua = total[i];
        if (m->has_b && m->shared_kernel) {
            ua = m->share_a * total[i];
        } else if (m->has_b) { // u_A = R_A p, evaluated directly
            ua = 0;
            for (int k = 0; k < n; ++k) {
                tc_real p = pt->pressure.data[k];
                if (p == 0) continue;
                tc_real d = tc_v3_dist(pt->points.data[i], pt->points.data[k]);
                ua += kernel_value(&m->ka, node_sigma(pt->area.data[k]), d) * p;
            }
        }
        pt->disp_a.data[i] = ua;
        pt->disp_b.data[i] = m->has_b ? total[i] - ua : 0;
    }
}

// MPRGP's relative complementarity tolerance: a tenth of the penetration tolerance, in units of
// the largest separation.
static tc_real solver_tolerance(const tc_quasi_patch* pt, const tc_real* q, tc_real tolerance) {
    tc_real qmax = 0;
    for (int i = 0; i < pt->nodes.count; ++i) qmax = fmax(qmax, fabs(q[i]));
    tc_real rel = qmax > 0 ? 0.1 * tolerance / qmax : 1e-3;
    return fmin(1e-3, fmax(1e-12, rel));
}

// Gives up the split form: M = (S + A) diag(d) in place of S, for Lemke.
static void merge_split(tc_quasi_patch* pt, const tc_real* d) {
    int n = pt->nodes.count;
    tc_real *M = pt->matrix.data, *A = pt->skew.data;
    for (size_t i = 0; i < (size_t)n; ++i)
        for (size_t k = i + 1; k < (size_t)n; ++k) { // A_ki = −A_ik
            tc_real sym = M[i * n + k], skew = A[i * n + k];
            M[i * n + k] = (sym + skew) * d[k];
            M[k * n + i] = (sym - skew) * d[i];
        }
    for (size_t i = 0; i < (size_t)n; ++i) M[i * n + i] *= d[i];
    pt->split = false;
}

// One LCP solve of the patch: the split PK on S and A when the matrix is held split (Lemke on the
// merged M when it does not converge), tc_lcp_solve otherwise.
static tc_result solve_lcp(tc_quasi_patch* pt, const tc_real* d, const tc_real* q, tc_real tol, tc_real* w,
                           tc_lcp_solve_stats* st) {
    int n = pt->nodes.count;
    if (pt->split) {
        tc_lcp_iter_stats it;
        tc_result r = tc_lcp_pk_split_parts(n, pt->matrix.data, pt->skew.data, d, q, tol, 50 + n / 2, pt->pressure.data,
                                            w, &pt->lcp, &it);
        *st = (tc_lcp_solve_stats){0, it.iterations, it.matvecs, r == TC_RESULT_NOT_CONVERGED, it.residual};
        // a zero column scale (a node without area) is refused by the split: Lemke can take it
        if (r != TC_RESULT_NOT_CONVERGED && r != TC_RESULT_INVALID_ARGUMENT) return r;
        merge_split(pt, d);
        tc_lcp_solve_stats lemke;
        r = tc_lcp_solve(TC_LCP_LEMKE, n, pt->matrix.data, false, NULL, q, tol, pt->pressure.data, w, NULL, &lemke);
        st->pivots = lemke.pivots, st->residual = lemke.residual;
        return r;
    }
    return tc_lcp_solve(pt->solver, n, pt->matrix.data, pt->symmetric, pt->symmetric ? NULL : d, q, tol,
                        pt->pressure.data, w, &pt->lcp, st);
}

tc_result tc_quasi_solve_nodes(tc_quasi_patch* pt, const tc_response_params* ra, const tc_response_params* rb,
                               tc_quasi_sdf_fn* sdf, const void* user, const tc_quasi_contact_params* params) {
    int n = pt->nodes.count;
    pt->iterations = pt->pivots = 0;
    pt->residual_penetration = 0;
    if (n == 0) return TC_RESULT_OK;
    if ((size_t)n * (size_t)n > INT_MAX) return TC_RESULT_OUT_OF_MEMORY; // n² matrix entries in an int count
    pt->lcp_iterations = pt->fallbacks = 0;
    if (!tc_array_reserve(&pt->matrix, n * n) || !tc_array_reserve(&pt->scratch, SCRATCH_REALS * n))
        return TC_RESULT_OUT_OF_MEMORY;
    for (int i = 0; i < n; ++i) pt->s0.data[i] = sdf(user, pt->points.data[i], &pt->normals.data[i]);
    patch_model model = {0};
    if (!assemble(pt, ra, rb, &model)) return TC_RESULT_OUT_OF_MEMORY;
    tc_real* q = scratch_at(pt, SCRATCH_Q);
    tc_real* w = scratch_at(pt, SCRATCH_W);
    const tc_real* d = column_scale(pt);
    for (int i = 0; i < n; ++i) q[i] = pt->s0.data[i];
    int max_it = params->max_iterations > 0 ? params->max_iterations : 1;
    tc_result result = TC_RESULT_OK;
    for (int it = 0; it < max_it; ++it) {
        tc_lcp_solve_stats st;
        tc_real tol = solver_tolerance(pt, q, params->tolerance);
        // warm start: the caller's pressures, then the previous iteration's
        result = solve_lcp(pt, d, q, tol, w, &st);
        pt->pivots += st.pivots;
        pt->lcp_iterations += st.iterations;
        pt->fallbacks += st.fell_back;
        pt->iterations = it + 1;
        if (result != TC_RESULT_OK) break;
        displacements(pt, &model, w, q, st.pivots == 0);
        // Re-measure: A's node moves into A by u_A along B's normal; B's surface recedes by u_B.
        tc_real worst = 0;
        for (int i = 0; i < n; ++i) {
            tc_vec3 moved = tc_v3_madd(pt->points.data[i], pt->disp_a.data[i], pt->normals.data[i]);
            tc_vec3 nrm;
            tc_real s_true = sdf(user, moved, &nrm) + pt->disp_b.data[i];
            tc_real s_pred = w[i];
            q[i] += s_true - s_pred; // the linear model's error, corrected in the next solve
            worst = fmax(worst, -s_true);
        }
        pt->residual_penetration = worst;
        if (worst <= params->tolerance) break;
    }
    if (result != TC_RESULT_OK)
        for (int i = 0; i < n; ++i) pt->pressure.data[i] = pt->disp_a.data[i] = pt->disp_b.data[i] = 0;
    return result;
}

// ---- active nodes and coarse-to-fine ------------------------------------------------------

typedef struct collide_ctx {
    const tc_quasi_surface* a;
    tc_quasi_sdf_fn* sdf;
    const void* user;
    tc_real reach;
} collide_ctx;

static tc_vec3 world_point(const tc_quasi_surface* a, tc_vec3 local) { return tc_transform_point(a->pose, local); }

static bool add_sample(tc_quasi_patch* pt, const collide_ctx* c, int sample) {
    tc_vec3 p = world_point(c->a, c->a->cloud->points[sample]);
    tc_vec3 nrm;
    if (c->sdf(c->user, p, &nrm) >= c->reach) return true; // conservative test: not active
    return tc_quasi_patch_add(pt, sample, p, c->a->areas[sample]);
}

static bool add_cluster_samples(tc_quasi_patch* pt, const collide_ctx* c, int node) {
    const tc_sphere_node* nd = &c->a->tree->nodes[node];
    for (int i = nd->begin; i < nd->end; ++i)
        if (!add_sample(pt, c, c->a->tree->order[i])) return false;
    return true;
}

// Adds the cut-`level` descendants of `node` whose bounding sphere reaches B (level 0: samples).
static bool gather(tc_quasi_patch* pt, const collide_ctx* c, int node, int level) {
    const tc_sphere_node* nd = &c->a->tree->nodes[node];
    tc_vec3 nrm;
    tc_real d = c->sdf(c->user, world_point(c->a, nd->centroid), &nrm);
    if (d > nd->radius + c->reach) return true; // sphere culling
    if (level <= 0) {
        if (nd->child[0] < 0) return add_cluster_samples(pt, c, node);
    } else if (tc_sphere_tree_in_cut(c->a->tree, node, level)) {
        tc_vec3 p = world_point(c->a, c->a->cloud->points[nd->representative]);
        tc_real s = c->sdf(c->user, p, &nrm);
        if (s >= c->reach + nd->radius) return true;
        return tc_quasi_patch_add(pt, node, p, TC_PI * nd->radius * nd->radius);
    }
    return gather(pt, c, nd->child[0], level) && gather(pt, c, nd->child[1], level);
}

typedef TC_ARRAY(int) int_array;
typedef TC_ARRAY(tc_real) real_array;

// Adds the cut-`level` nodes under the kept clusters; each starts from its cluster's pressure, the
// coarse-to-fine warm start of §9.6 (the iterative LCP solvers begin there; Lemke ignores it).
static bool gather_kept(tc_quasi_patch* pt, const collide_ctx* c, const int_array* keep, const real_array* keep_p,
                        int level) {
    for (int i = 0; i < keep->count; ++i) {
        int first = pt->nodes.count;
        if (!gather(pt, c, keep->data[i], level)) return false;
        for (int j = first; j < pt->nodes.count; ++j) pt->pressure.data[j] = keep_p->data[i];
    }
    return true;
}

static bool loaded_near_edge(const tc_quasi_patch* pt, tc_real reach) {
    for (int i = 0; i < pt->nodes.count; ++i)
        if (pt->pressure.data[i] > 0 && pt->s0.data[i] > 0.5 * reach) return true;
    return false;
}

tc_result tc_quasi_collide(const tc_quasi_surface* a, const tc_response_params* rb, tc_quasi_sdf_fn* sdf,
                           const void* user, const tc_quasi_contact_params* params, tc_quasi_patch* pt) {
    tc_quasi_patch_clear(pt);
    collide_ctx c = {a, sdf, user, tc_quasi_response_reach(&a->response, a->tree->leaf_radius)};
    int coarse = params->coarse_level > params->fine_level ? params->coarse_level : params->fine_level;
    // Coarse levels: solve on cluster nodes and keep the clusters that carry traction (or overlap).
    int_array keep = {0};
    real_array keep_p = {0};
    bool have_keep = false;
    tc_result result = TC_RESULT_OK;
    for (int level = coarse; level >= params->fine_level; --level) {
        tc_quasi_patch_clear(pt);
        bool ok = true;
        if (!have_keep) {
            ok = gather(pt, &c, 0, level);
        } else {
            ok = gather_kept(pt, &c, &keep, &keep_p, level);
        }
        if (!ok) {
            result = TC_RESULT_OUT_OF_MEMORY;
            break;
        }
        pt->level = level;
        if (level > 0) {
            // keep only nodes that actually overlap within the cluster radius
            result = tc_quasi_solve_nodes(pt, &a->response, rb, sdf, user, params);
            if (result != TC_RESULT_OK) break;
            if (level == params->fine_level) break;
            tc_array_clear(&keep);
            tc_array_clear(&keep_p);
            for (int i = 0; i < pt->nodes.count; ++i) {
                tc_real r = a->tree->nodes[pt->nodes.data[i]].radius;
                if (pt->pressure.data[i] > 0 || pt->s0.data[i] < r)
                    if (!tc_array_push(&keep, pt->nodes.data[i]) || !tc_array_push(&keep_p, pt->pressure.data[i]))
                        result = TC_RESULT_OUT_OF_MEMORY;
            }
            have_keep = true;
            if (keep.count == 0) {
                tc_quasi_patch_clear(pt);
                break;
            }
        } else {
            // Enlarge the active set while loaded nodes sit near its edge (the paper's rule; only
            // the volume-preserving bulge can load a node that did not overlap).
            for (int grow = 0;; ++grow) {
                result = tc_quasi_solve_nodes(pt, &a->response, rb, sdf, user, params);
                pt->level = 0;
                if (result != TC_RESULT_OK || grow == 2 || !loaded_near_edge(pt, c.reach)) break;
                c.reach *= 2;
                tc_quasi_patch_clear(pt);
                ok = true;
                if (!have_keep) ok = gather(pt, &c, 0, 0);
                if (have_keep) ok = gather_kept(pt, &c, &keep, &keep_p, 0);
                if (!ok) {
                    result = TC_RESULT_OUT_OF_MEMORY;
                    break;
                }
            }
        }
    }
    tc_array_free(&keep);
    tc_array_free(&keep_p);
    return result;
}
