#include "geometry/hull.h"

#include "collision/support.h"
#include "core/core.h"

#include <libqhull_r/qhull_ra.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static void* take(size_t count, size_t size) { return count ? tc_calloc(count, size) : NULL; }

void tc_hull_prefetch_topology(const tc_hull* h) {
    __builtin_prefetch((const char*)h + 64); // the header's second line: offsets and topology pointers
    const char* p = (const char*)h->face_normals;
    for (int at = 0; at < h->topology_bytes; at += 256) { // 4 lines a step (past the end is harmless: a hint)
        __builtin_prefetch(p + at);
        __builtin_prefetch(p + at + 64);
        __builtin_prefetch(p + at + 128);
        __builtin_prefetch(p + at + 192);
    }
}

void tc_hull_free(tc_hull* h) {
    if (h) tc_free(h->block, h->bytes);
}

_Static_assert(offsetof(tc_hull, face_offsets) == 64, "the fields every query reads fill the hull's first cache line");

// The hull and all its arrays in one 64-byte aligned block: a query touches a few neighbouring
// cache lines instead of ten scattered allocations, starting with the header's first line. A
// closed polytope's sizes all follow from V, F and the loop length L: E = L/2 edges, and every
// vertex has as many incident faces as edges. The query's data come first, in the order it reads
// them: packed vertices, face planes, then (hulls of up to 255 vertices and faces) the compact
// topology; the int arrays the other readers use come after.
static tc_hull* hull_alloc(int V, int F, int L) {
    int V4 = tc_soa_stride(V);
    bool compact = V <= TC_HULL_COMPACT_MAX && F <= TC_HULL_COMPACT_MAX;
    size_t reals = 3 * (size_t)V + 3 * (size_t)F + (size_t)F + 3 * (size_t)V4;
    size_t ints = ((size_t)F + 1) + (size_t)L + 2 * (size_t)L + ((size_t)V + 1) + 2 * (size_t)L;
    size_t small = compact ? ((size_t)V + 1 + (size_t)F + 1) * sizeof(uint16_t) + (size_t)L * (sizeof(tc_hull_fan) + 1) : 0;
    size_t bytes = sizeof(tc_hull) + reals * sizeof(tc_real) + small + ints * sizeof(int) + 8 + 64; // + alignment
    char* block = tc_calloc(1, bytes);
    if (!block) return NULL;
    tc_hull* h = (tc_hull*)(block + (64 - (uintptr_t)block % 64) % 64);
    h->block = block, h->bytes = bytes;
    h->vertex_count = V, h->face_count = F, h->loop_length = L, h->edge_count = L / 2, h->soa_stride = V4;
    char* at = (char*)(h + 1);
#define TC_HULL_TAKE(field, n) (h->field = (void*)at, at += (size_t)(n) * sizeof *h->field)
    TC_HULL_TAKE(soa, 3 * V4); // reals before the small ints keeps them aligned
    TC_HULL_TAKE(face_normals, F);
    TC_HULL_TAKE(face_offsets, F);
    if (compact) {
        TC_HULL_TAKE(fan_start, V + 1);
        TC_HULL_TAKE(fans, L);
        TC_HULL_TAKE(loop_start, F + 1);
        TC_HULL_TAKE(loops, L);
    }
    h->topology_bytes = (int)(at - (char*)h->face_normals);
    at += (8 - (size_t)(at - (char*)h) % 8) % 8; // the reals below stay 8-byte aligned
    TC_HULL_TAKE(vertices, V);
    TC_HULL_TAKE(vert_start, V + 1);
    TC_HULL_TAKE(face_start, F + 1);
    TC_HULL_TAKE(face_verts, L);
    TC_HULL_TAKE(edge_verts, L);
    TC_HULL_TAKE(edge_faces, L);
    TC_HULL_TAKE(vert_faces, L);
    TC_HULL_TAKE(vert_edges, L);
#undef TC_HULL_TAKE
    return h;
}

// The compact topology (see tc_hull): the incidence arrays again, with 1- and 2-byte indices.
static void build_compact(tc_hull* h) {
    if (!h->fans) return;
    for (int v = 0; v <= h->vertex_count; ++v) h->fan_start[v] = (uint16_t)h->vert_start[v];
    for (int f = 0; f <= h->face_count; ++f) h->loop_start[f] = (uint16_t)h->face_start[f];
    for (int i = 0; i < h->loop_length; ++i) h->loops[i] = (uint8_t)h->face_verts[i];
    for (int v = 0; v < h->vertex_count; ++v)
        for (int k = h->vert_start[v]; k < h->vert_start[v + 1]; ++k) {
            int e = h->vert_edges[k];
            h->fans[k].face = (uint8_t)h->vert_faces[k];
            h->fans[k].neighbor = (uint8_t)(h->edge_verts[2 * e] == v ? h->edge_verts[2 * e + 1] : h->edge_verts[2 * e]);
        }
}

// Newell's method: robust normal of a (nearly) planar polygon.
static tc_vec3 loop_normal(const tc_vec3* v, const int* loop, int n) {
    tc_vec3 s = tc_v3_zero();
    for (int i = 0; i < n; ++i) {
        tc_vec3 a = v[loop[i]], b = v[loop[(i + 1) % n]];
        s.x += (a.y - b.y) * (a.z + b.z);
        s.y += (a.z - b.z) * (a.x + b.x);
        s.z += (a.x - b.x) * (a.y + b.y);
    }
    return s;
}

// Each directed edge u->v of a face loop must meet exactly one v->u of another face.
static bool build_edges(tc_hull* h) {
    int L = h->loop_length, count = 0, capacity = L / 2; // a closed 2-manifold has exactly L/2 edges
    if (L % 2) return false;
    int matched = 0;
    for (int f = 0; f < h->face_count; ++f) {
        int s = h->face_start[f], n = h->face_start[f + 1] - s;
        for (int i = 0; i < n; ++i) {
            int u = h->face_verts[s + i], v = h->face_verts[s + (i + 1) % n];
            int found = -1;
            for (int e = 0; e < count && found < 0; ++e)
                if (h->edge_verts[2 * e] == v && h->edge_verts[2 * e + 1] == u && h->edge_faces[2 * e + 1] < 0) found = e;
            if (found >= 0) {
                h->edge_faces[2 * found + 1] = f;
                matched++;
                continue;
            }
            if (count == capacity) return false; // more edges than a closed 2-manifold has
            h->edge_verts[2 * count] = u;
            h->edge_verts[2 * count + 1] = v;
            h->edge_faces[2 * count] = f;
            h->edge_faces[2 * count + 1] = -1;
            count++;
        }
    }
    return matched == count && 2 * count == L; // else not a closed 2-manifold
}

static bool build_vertex_incidence(tc_hull* h) {
    int V = h->vertex_count, L = h->loop_length;
    for (int i = 0; i < L; ++i) {
        if (h->face_verts[i] < 0 || h->face_verts[i] >= V) return false;
        h->vert_start[h->face_verts[i] + 1]++;
    }
    for (int v = 0; v < V; ++v) {
        if (h->vert_start[v + 1] < 3) return false; // every vertex of a closed polytope has >= 3 faces
        h->vert_start[v + 1] += h->vert_start[v];
    }
    int* fill_f = take((size_t)V, sizeof(int));
    int* fill_e = take((size_t)V, sizeof(int));
    if (!fill_f || !fill_e) {
        tc_free(fill_f, (size_t)V * sizeof(int));
        tc_free(fill_e, (size_t)V * sizeof(int));
        return false;
    }
    for (int f = 0; f < h->face_count; ++f)
        for (int i = h->face_start[f]; i < h->face_start[f + 1]; ++i) {
            int v = h->face_verts[i];
            h->vert_faces[h->vert_start[v] + fill_f[v]++] = f;
        }
    for (int e = 0; e < h->edge_count; ++e)
        for (int k = 0; k < 2; ++k) {
            int v = h->edge_verts[2 * e + k];
            h->vert_edges[h->vert_start[v] + fill_e[v]++] = e;
        }
    tc_free(fill_f, (size_t)V * sizeof(int));
    tc_free(fill_e, (size_t)V * sizeof(int));
    return true;
}

// A sliver (thinnest width below 1e-6 of the size: e.g. three points a micrometre apart and a
// fourth a kilometre away) has face normals that rounding decides; the narrowphase could return a
// zero normal for it (found by fuzz_hull). Its width across each face is the face's offset minus
// the lowest vertex along the face normal (the support along its reverse).
static bool thick_enough(const tc_hull* h) {
    tc_real thinnest = 1e300;
    for (int f = 0; f < h->face_count; ++f) {
        tc_vec3 n = h->face_normals[f];
        tc_real low = tc_v3_dot(n, h->vertices[tc_hull_support_index(h, tc_v3_scale(n, -1))]);
        thinnest = fmin(thinnest, h->face_offsets[f] - low);
    }
    return thinnest > 1e-6 * h->extent;
}

static bool build_planes_and_centroid(tc_hull* h) {
    for (int f = 0; f < h->face_count; ++f) {
        int s = h->face_start[f], n = h->face_start[f + 1] - s;
        tc_vec3 nn = loop_normal(h->vertices, h->face_verts + s, n);
        tc_real len = tc_v3_len(nn);
        if (!(len > 0)) return false;
        nn = tc_v3_scale(nn, 1.0 / len);
        tc_real off = -1e300; // the outermost vertex defines the plane: every vertex stays inside
        for (int i = 0; i < n; ++i) off = fmax(off, tc_v3_dot(nn, h->vertices[h->face_verts[s + i]]));
        h->face_normals[f] = nn;
        h->face_offsets[f] = off;
    }
    tc_mass_props m = tc_hull_mass(h, 1.0);
    if (!(m.volume > 0)) return false;
    h->centroid = m.center;
    h->extent = 0;
    for (int v = 0; v < h->vertex_count; ++v) h->extent = fmax(h->extent, tc_v3_dist(h->vertices[v], h->centroid));
    return thick_enough(h);
}

tc_hull* tc_hull_from_faces(const tc_vec3* vertices, int vertex_count, const int* loop_start, const int* loops, int face_count) {
    if (vertex_count < 1 || face_count < 1 || loop_start[face_count] < 1) return NULL;
    tc_hull* h = hull_alloc(vertex_count, face_count, loop_start[face_count]);
    if (!h) return NULL;
    memcpy(h->vertices, vertices, (size_t)vertex_count * sizeof(tc_vec3));
    tc_soa_pack(h->vertices, vertex_count, h->soa);
    memcpy(h->face_start, loop_start, ((size_t)face_count + 1) * sizeof(int));
    memcpy(h->face_verts, loops, (size_t)h->loop_length * sizeof(int));
    if (!(build_edges(h) && build_vertex_incidence(h) && build_planes_and_centroid(h))) {
        tc_hull_free(h);
        return NULL;
    }
    build_compact(h);
    return h;
}

tc_hull* tc_hull_box(tc_vec3 e) {
    tc_vec3 v[8];
    for (int i = 0; i < 8; ++i) v[i] = tc_v3(i & 1 ? e.x : -e.x, i & 2 ? e.y : -e.y, i & 4 ? e.z : -e.z);
    // vertex i has bits (x, y, z); loops are CCW seen from outside
    static const int loops[24] = {0, 4, 6, 2, /* -x */ 1, 3, 7, 5, /* +x */ 0, 1, 5, 4, /* -y */
                                  2, 6, 7, 3, /* +y */ 0, 2, 3, 1, /* -z */ 4, 5, 7, 6 /* +z */};
    static const int start[7] = {0, 4, 8, 12, 16, 20, 24};
    return tc_hull_from_faces(v, 8, start, loops, 6);
}

tc_mass_props tc_hull_mass(const tc_hull* h, tc_real density) {
    tc_mass_props m = {0};
    int tri_count = h->loop_length - 2 * h->face_count;
    int* tris = take(3 * (size_t)tri_count, sizeof(int));
    if (!tris) return m;
    int k = 0;
    for (int f = 0; f < h->face_count; ++f) { // fan triangulation of each convex face
        int s = h->face_start[f], n = h->face_start[f + 1] - s;
        for (int i = 1; i + 1 < n; ++i) {
            tris[k++] = h->face_verts[s];
            tris[k++] = h->face_verts[s + i];
            tris[k++] = h->face_verts[s + i + 1];
        }
    }
    if (tc_mass_from_mesh(h->vertices, tris, tri_count, density, &m) != TC_RESULT_OK) memset(&m, 0, sizeof m);
    tc_free(tris, 3 * (size_t)tri_count * sizeof(int));
    return m;
}

int tc_hull_support_index(const tc_hull* h, tc_vec3 d) {
    int best = 0;
    tc_real best_dot = tc_v3_dot(h->vertices[0], d);
    for (int i = 1; i < h->vertex_count; ++i) {
        tc_real x = tc_v3_dot(h->vertices[i], d);
        if (x > best_dot) {
            best_dot = x;
            best = i;
        }
    }
    return best;
}

tc_real tc_hull_plane_distance(const tc_hull* h, tc_vec3 p, tc_vec3* normal) {
    tc_real best = -1e300;
    int face = 0;
    for (int f = 0; f < h->face_count; ++f) {
        tc_real d = tc_v3_dot(h->face_normals[f], p) - h->face_offsets[f];
        if (d > best) {
            best = d;
            face = f;
        }
    }
    if (normal) *normal = h->face_normals[face];
    return best;
}

// Hulls live between these sizes (docs/reliability.md): qhull's arithmetic and the contact
// tolerances are relative, but absurd magnitudes overflow or vanish in its normalisation.
#define TC_HULL_MAX_COORD 1e6
#define TC_HULL_MIN_SIZE 1e-7

// ---- qhull -------------------------------------------------------------------------------------

static tc_result check_points(const tc_vec3* p, int n, const char* path, tc_error* error) {
    if (!p || n < 4)
        return tc_error_set(error, TC_RESULT_DEGENERATE, NULL, path, "a convex hull needs at least 4 points (got %d)", n);
    tc_aabb box = tc_aabb_empty();
    for (int i = 0; i < n; ++i) {
        if (!tc_v3_is_finite(p[i]))
            return tc_error_set(error, TC_RESULT_NOT_FINITE, NULL, path, "point %d is not finite", i);
        if (fabs(p[i].x) > TC_HULL_MAX_COORD || fabs(p[i].y) > TC_HULL_MAX_COORD || fabs(p[i].z) > TC_HULL_MAX_COORD)
            return tc_error_set(error, TC_RESULT_OUT_OF_RANGE, NULL, path, "point %d lies beyond %g m of the body origin", i, TC_HULL_MAX_COORD);
        box = tc_aabb_add_point(box, p[i]);
    }
    tc_real size = tc_v3_len(tc_v3_sub(box.hi, box.lo));
    if (!(size > 0)) return tc_error_set(error, TC_RESULT_DEGENERATE, NULL, path, "all %d points coincide", n);
    if (size < TC_HULL_MIN_SIZE)
        return tc_error_set(error, TC_RESULT_DEGENERATE, NULL, path, "the points span %g m: below the %g m a hull needs", size, TC_HULL_MIN_SIZE);
    return TC_RESULT_OK;
}

typedef struct qhull_out {
    TC_ARRAY(int) start;
    TC_ARRAY(int) loops;
    int* remap; ///< input point id -> compact vertex index, -1 if not a vertex
} qhull_out;

static bool collect_faces(qhT* qh, int n, qhull_out* out) {
    facetT* facet;
    vertexT *vertex, **vertexp;
    if (!tc_array_push(&out->start, 0)) return false;
    FORALLfacets {
        setT* verts = qh_facet3vertex(qh, facet); // ordered around the facet
        int first = out->loops.count;
        FOREACHvertex_(verts) {
            int id = qh_pointid(qh, vertex->point);
            if (id < 0 || id >= n || !tc_array_push(&out->loops, id)) {
                qh_settempfree(qh, &verts);
                return false;
            }
        }
        qh_settempfree(qh, &verts);
        // qhull's order may be clockwise: make it CCW seen along the outward normal
        int* loop = out->loops.data + first;
        int m = out->loops.count - first;
        tc_vec3 nn = tc_v3_zero();
        for (int i = 0; i < m; ++i) {
            const coordT* a = qh_point(qh, loop[i]);
            const coordT* b = qh_point(qh, loop[(i + 1) % m]);
            nn.x += (a[1] - b[1]) * (a[2] + b[2]);
            nn.y += (a[2] - b[2]) * (a[0] + b[0]);
            nn.z += (a[0] - b[0]) * (a[1] + b[1]);
        }
        if (nn.x * facet->normal[0] + nn.y * facet->normal[1] + nn.z * facet->normal[2] < 0)
            for (int i = 0, j = m - 1; i < j; ++i, --j) {
                int t = loop[i];
                loop[i] = loop[j];
                loop[j] = t;
            }
        if (!tc_array_push(&out->start, out->loops.count)) return false;
    }
    return true;
}

static tc_hull* hull_from_qhull(const tc_vec3* p, int n, qhull_out* out) {
    out->remap = take((size_t)n, sizeof(int));
    if (!out->remap) return NULL;
    for (int i = 0; i < n; ++i) out->remap[i] = -1;
    int count = 0;
    for (int i = 0; i < out->loops.count; ++i) {
        int id = out->loops.data[i];
        if (out->remap[id] < 0) out->remap[id] = count++;
        out->loops.data[i] = out->remap[id];
    }
    tc_vec3* verts = take((size_t)count, sizeof(tc_vec3));
    if (!verts) return NULL;
    for (int i = 0; i < n; ++i)
        if (out->remap[i] >= 0) verts[out->remap[i]] = p[i];
    tc_hull* h = tc_hull_from_faces(verts, count, out->start.data, out->loops.data, out->start.count - 1);
    tc_free(verts, (size_t)count * sizeof(tc_vec3));
    return h;
}

tc_hull* tc_hull_from_points(const tc_vec3* p, int n, const char* path, tc_error* error) {
    if (check_points(p, n, path, error) != TC_RESULT_OK) return NULL;
    coordT* coords = take(3 * (size_t)n, sizeof(coordT));
    FILE* sink = tmpfile(); // qhull reports problems to a stream; ours go into tc_error
    if (!coords || !sink) {
        if (sink) fclose(sink);
        tc_free(coords, 3 * (size_t)n * sizeof(coordT));
        tc_error_set(error, TC_RESULT_OUT_OF_MEMORY, NULL, path, "out of memory");
        return NULL;
    }
    for (int i = 0; i < n; ++i) {
        coords[3 * i] = p[i].x;
        coords[3 * i + 1] = p[i].y;
        coords[3 * i + 2] = p[i].z;
    }
    qhT qh_storage;
    qhT* qh = &qh_storage;
    qh_zero(qh, sink);
    char options[] = "qhull Qs C-0"; // merge coplanar facets into polygons
    int exit_code = qh_new_qhull(qh, 3, n, coords, False, options, NULL, sink);
    qhull_out out = {0};
    tc_hull* h = NULL;
    if (exit_code == 0 && collect_faces(qh, n, &out)) h = hull_from_qhull(p, n, &out);
    qh_freeqhull(qh, !qh_ALL);
    int cur_long, tot_long;
    qh_memfreeshort(qh, &cur_long, &tot_long);
    fclose(sink);
    tc_free(coords, 3 * (size_t)n * sizeof(coordT));
    tc_free(out.remap, (size_t)n * sizeof(int));
    tc_array_free(&out.start);
    tc_array_free(&out.loops);
    if (!h)
        tc_error_set(error, TC_RESULT_DEGENERATE, NULL, path,
                     exit_code ? "the %d points are coplanar, collinear or otherwise span no volume"
                               : "the hull of the %d points is degenerate",
                     n);
    return h;
}
