#include "geometry/mesh_gen.h"

typedef TC_ARRAY(int) int_array;

static bool tri(tc_tri_mesh* m, int a, int b, int c) {
    return tc_array_push(&m->triangles, a) && tc_array_push(&m->triangles, b) && tc_array_push(&m->triangles, c);
}

void tc_tri_mesh_free(tc_tri_mesh* m) {
    tc_array_free(&m->vertices);
    tc_array_free(&m->triangles);
}

// Vertex on the box surface grid: shared between faces through a lookup by lattice position.
static int box_vertex(tc_tri_mesh* m, int* index, int n, int i, int j, int k, tc_vec3 h) {
    int key = (k * (n + 1) + j) * (n + 1) + i;
    if (index[key] < 0) {
        if (!tc_array_push(&m->vertices, tc_v3(h.x * (2.0 * i / n - 1), h.y * (2.0 * j / n - 1), h.z * (2.0 * k / n - 1))))
            return -1; // out of memory
        index[key] = m->vertices.count - 1;
    }
    return index[key];
}

bool tc_mesh_gen_box(tc_tri_mesh* m, tc_vec3 h, int n) {
    int count = (n + 1) * (n + 1) * (n + 1);
    int* index = tc_alloc((size_t)count * sizeof(int));
    if (!index) return false;
    for (int i = 0; i < count; ++i) index[i] = -1;
    // each face: axis, side, and the two in-face axes ordered so the quad is CCW from outside
    bool ok = true;
    for (int axis = 0; axis < 3 && ok; ++axis)
        for (int side = 0; side < 2 && ok; ++side) {
            int u = (axis + 1) % 3, v = (axis + 2) % 3;
            if (side == 0) { int t = u; u = v; v = t; }
            for (int a = 0; a < n && ok; ++a)
                for (int b = 0; b < n && ok; ++b) {
                    int q[4];
                    for (int c = 0; c < 4 && ok; ++c) {
                        int g[3];
                        g[axis] = side * n;
                        g[u] = a + (c == 1 || c == 2);
                        g[v] = b + (c >= 2);
                        q[c] = box_vertex(m, index, n, g[0], g[1], g[2], h);
                        ok = q[c] >= 0;
                    }
                    ok = ok && tri(m, q[0], q[1], q[2]) && tri(m, q[0], q[2], q[3]);
                }
        }
    tc_free(index, (size_t)count * sizeof(int));
    return ok && m->triangles.count == 36 * n * n;
}

static int midpoint(tc_tri_mesh* m, int a, int b, int_array* keys, int_array* mids, tc_real r) {
    int lo = a < b ? a : b, hi = a ^ b ^ lo;
    for (int i = 0; i < keys->count; i += 2)
        if (keys->data[i] == lo && keys->data[i + 1] == hi) return mids->data[i / 2];
    tc_vec3 p = tc_v3_scale(tc_v3_normalize(tc_v3_add(m->vertices.data[a], m->vertices.data[b])), r);
    if (!tc_array_push(&m->vertices, p) || !tc_array_push(keys, lo) || !tc_array_push(keys, hi) ||
        !tc_array_push(mids, m->vertices.count - 1))
        return -1; // out of memory
    return m->vertices.count - 1;
}

bool tc_mesh_gen_sphere(tc_tri_mesh* m, tc_real r, int levels) {
    const tc_real t = (1 + sqrt(5.0)) / 2;
    const tc_real base[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                                 {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    static const int faces[60] = {0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,
                                  3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1};
    bool ok = true;
    for (int i = 0; i < 12 && ok; ++i)
        ok = tc_array_push(&m->vertices, tc_v3_scale(tc_v3_normalize(tc_v3(base[i][0], base[i][1], base[i][2])), r));
    for (int i = 0; i < 60 && ok; ++i) ok = tc_array_push(&m->triangles, faces[i]);
    for (int l = 0; l < levels && ok; ++l) {
        int_array old = {m->triangles.data, m->triangles.count, m->triangles.capacity};
        m->triangles.data = NULL, m->triangles.count = m->triangles.capacity = 0;
        int_array keys = {0}, mids = {0};
        for (int f = 0; f < old.count && ok; f += 3) {
            int a = old.data[f], b = old.data[f + 1], c = old.data[f + 2];
            int ab = midpoint(m, a, b, &keys, &mids, r), bc = ab < 0 ? -1 : midpoint(m, b, c, &keys, &mids, r),
                ca = bc < 0 ? -1 : midpoint(m, c, a, &keys, &mids, r);
            ok = ca >= 0 && tri(m, a, ab, ca) && tri(m, b, bc, ab) && tri(m, c, ca, bc) && tri(m, ab, bc, ca);
        }
        tc_array_free(&old);
        tc_array_free(&keys);
        tc_array_free(&mids);
    }
    return ok && m->triangles.count == 60 * (1 << (2 * levels));
}

bool tc_mesh_gen_torus(tc_tri_mesh* m, tc_real R, tc_real r, int nr, int nt) {
    bool ok = true;
    for (int i = 0; i < nr && ok; ++i)
        for (int j = 0; j < nt && ok; ++j) {
            tc_real u = 2 * TC_PI * i / nr, v = 2 * TC_PI * j / nt;
            ok = tc_array_push(&m->vertices, tc_v3((R + r * cos(v)) * cos(u), (R + r * cos(v)) * sin(u), r * sin(v)));
        }
    for (int i = 0; i < nr && ok; ++i)
        for (int j = 0; j < nt && ok; ++j) {
            int a = i * nt + j, b = ((i + 1) % nr) * nt + j, c = ((i + 1) % nr) * nt + (j + 1) % nt, d = i * nt + (j + 1) % nt;
            ok = tri(m, a, b, c) && tri(m, a, c, d);
        }
    return ok && m->triangles.count == 6 * nr * nt;
}

tc_real tc_tri_mesh_volume(const tc_vec3* v, const int* t, int n) {
    tc_real vol = 0;
    for (int i = 0; i < n; ++i) vol += tc_v3_dot(v[t[3 * i]], tc_v3_cross(v[t[3 * i + 1]], v[t[3 * i + 2]]));
    return vol / 6;
}
