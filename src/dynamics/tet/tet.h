// Internal store of tetrahedral bodies (seed 001).
#ifndef TC_TET_INTERNAL_H
#define TC_TET_INTERNAL_H

#include "tactus/tet.h"
#include "world/world_internal.h"

/// The implicit step's linear system, a symmetric block sparse matrix with one 3x3 block per
/// vertex pair sharing an edge: rows are vertices, the blocks of row i are those of the edge
/// adjacency (adj[adj_start[i]..adj_start[i+1]) are their columns). Assembly adds into one block
/// per edge (u, v), u < v; the CG solve scales them in place and walks the rows through
/// row_col / row_edge (lower columns first), reading a lower entry's block transposed: one copy of
/// the matrix. Everything is allocated at creation: a step allocates nothing.
struct tc_tet_rest_lanes; ///< the rest-state inputs of the assembly, 16 tets per entry (tet_assemble.c)

typedef struct tc_tet_solver {
    tc_mat3* diag;       ///< n: diagonal blocks (of K after assembly, of the system after form_system, their Cholesky factors L during CG)
    tc_mat3* off;        ///< edge_count: block (u, v) of edge (u, v), u < v (of K after assembly, of the scaled system G_u A_uv G_v^T during CG)
    int* adj_edge;       ///< adj_start[n]: the edge of each adjacency entry
    struct tc_tet_rest_lanes* rest_lanes; ///< one per 16 tets: rest shape inverse, gradients, volume, edge orientation, in lane arrays
    int* tet_edges;      ///< 6 per tet: the edge of each local vertex pair (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
    int* row_col;        ///< adj_start[n]: column of each entry of the rows (lower columns first, then upper, each ascending)
    int* row_edge;       ///< adj_start[n]: the edge (block in off) of each entry
    int* row_split;      ///< n: first entry of each row whose column is above the row
    tc_mat3* inv_diag;   ///< n: inverse Cholesky factors G = L^-1 of the system's diagonal blocks (0 for fixed vertices)
    tc_vec3* work;       ///< 7 n vectors of scratch
    tc_vec3* dv;         ///< n: the last step's velocity change, the next CG's first guess
    tc_vec3* dv_prev;    ///< n: the velocity change of the step before
    tc_vec3* dv_prev2;   ///< n: the velocity change two steps before (the warm start combines all three)
    int iterations;      ///< CG iterations of the last step (diagnostics)
} tc_tet_solver;

typedef struct tc_tet_body {
    int32_t slot;
    int n, tet_count, face_count;
    tc_vec3 *x, *v, *f, *rest;
    tc_mat3* contact_jac;       ///< per vertex: tet-tet contact terms of the implicit step (h c + h^2 k) n n^T
    tc_real* m;                 ///< kg, lumped
    bool* fixed;
    int* tets;                  ///< 4 per tet
    tc_mat3* inv_dm;            ///< rest shape inverse per tet
    tc_vec3* grads;             ///< 4 per tet: rest-frame gradients of the shape functions
    tc_real* volume;            ///< rest volume per tet
    int* faces;                 ///< boundary triangles, 3 each, counter-clockwise from outside
    tc_vec3* vertex_normals;    ///< per vertex (surface vertices only; refreshed each step)
    bool* on_surface;
    int* surf;                  ///< indices of the surface vertices (the coupling's samples)
    int surf_count;
    int* edges;                 ///< unique edges, 2 each
    int edge_count;
    int* adj_start;             ///< vertex adjacency through edges
    int* adj;
    tc_tet_solver solver;       ///< assembled stiffness and CG buffers, sized at creation
    tc_real mu, lambda, beta, total_mass, mean_edge;
    tc_real cg_tolerance;       ///< relative residual ending the CG solve (def.solver_tolerance)
    tc_tet_depth_method depth_method;
    bool self_collision;
    tc_vec3 user_force;
    tc_material material;
    tc_aabb aabb;               ///< exact box of x: tc_tet_update_surface after every change of x (the contact culling relies on it)
} tc_tet_body;

typedef struct tc_tet_store {
    TC_ARRAY(tc_tet_body) bodies;
} tc_tet_store;

static inline tc_tet_store* tc_tet_store_of(const tc_world* w) { return (tc_tet_store*)w->stores[TC_BODY_TET]; }
static inline tc_tet_body* tc_tet_body_at(const tc_world* w, int i) { return &tc_tet_store_of(w)->bodies.data[i]; }

/// Elastic forces (corotational linear, QR rotations) added to b->f.
void tc_tet_elastic_forces(tc_tet_body* b);
/// The rotation of the Gram-Schmidt QR of deformation gradient F (identity when its first column
/// vanishes, any perpendicular second column when the first two are parallel).
tc_mat3 tc_tet_qr_rotation(tc_mat3 F);
/// Elastic forces added to b->f and the warped stiffness K (the force's negative Jacobian with
/// the rotations held) assembled into b->solver.diag / off, replacing what they held (valid
/// until the step's solve, which reuses both). The forces equal tc_tet_elastic_forces' bit for
/// bit (tet_assemble.c).
void tc_tet_assemble(tc_tet_body* b);
/// y = K d for the assembled blocks (rows of fixed vertices give 0).
void tc_tet_multiply(const tc_tet_body* b, const tc_vec3* d, tc_vec3* y);
/// One implicit Euler step (Newton step, CG) with gravity and the forces already in b->f.
void tc_tet_step_implicit(tc_tet_body* b, tc_vec3 gravity, tc_real h);
void tc_tet_update_surface(tc_tet_body* b);
/// Precomputes the shape-function gradients and allocates the solver; needs tets, inv_dm and the
/// edge adjacency. Returns false when out of memory.
bool tc_tet_solver_init(tc_tet_body* b);
void tc_tet_solver_free(tc_tet_body* b);
/// The assembly's per-chunk copy of the rest-state data (tet_assemble.c), made by
/// tc_tet_solver_init after the gradients and edge slots; false when out of memory.
bool tc_tet_rest_lanes_init(tc_tet_body* b);
void tc_tet_rest_lanes_free(tc_tet_body* b);
tc_real tc_tet_signed_volume(const tc_tet_body* b, int t);
/// Contacts between tet bodies (collide hook): spatial hash, depth, penalty response.
void tc_tet_collide(tc_world* w, tc_real h);
#endif
