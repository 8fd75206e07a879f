// Fuzz target: the convex narrowphase on raw point sets. The bytes become two point sets
// (doubles, up to 32 points each) and two poses; the hulls may be rejected (a clear error), and
// otherwise tc_collide with both contact methods must return finite points with unit normals.
#include "fuzz_util.h"

#include "collision/collide.h"
#include "geometry/hull.h"

#include <math.h>

static int read_points(const uint8_t** data, size_t* size, tc_vec3* out, int max) {
    if (*size < 1) return 0;
    int n = 4 + (*data)[0] % (max - 3);
    (*data)++, (*size)--;
    int k = 0;
    for (; k < n && *size >= 3 * sizeof(double); ++k) {
        double v[3];
        memcpy(v, *data, sizeof v);
        *data += sizeof v, *size -= sizeof v;
        out[k] = tc_v3(v[0], v[1], v[2]);
    }
    return k;
}

static bool finite_manifold(const tc_manifold* m) {
    if (m->count < 0 || m->count > TC_MAX_MANIFOLD_POINTS) return false;
    for (int i = 0; i < m->count; ++i) {
        const tc_manifold_point* p = &m->points[i];
        if (!tc_v3_is_finite(p->point) || !isfinite(p->separation) || fabs(tc_v3_len(p->normal) - 1) > 1e-6) return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    tc_vec3 a[32], b[32];
    int na = read_points(&data, &size, a, 32), nb = read_points(&data, &size, b, 32);
    tc_shape_def d = tc_shape_def_default(TC_SHAPE_HULL);
    tc_shape sa, sb;
    d.points = a, d.point_count = na;
    if (tc_shape_init(&sa, &d, false, "a", NULL) != TC_RESULT_OK) return 0;
    d.points = b, d.point_count = nb;
    if (tc_shape_init(&sb, &d, false, "b", NULL) != TC_RESULT_OK) {
        tc_shape_free(&sa);
        return 0;
    }
    tc_transform pb = tc_transform_identity();
    if (size >= 3 * sizeof(double)) {
        double off[3];
        memcpy(off, data, sizeof off);
        if (isfinite(off[0]) && isfinite(off[1]) && isfinite(off[2])) pb.p = tc_v3(fmod(off[0], 10), fmod(off[1], 10), fmod(off[2], 10));
    }
    for (int method = 0; method < 2; ++method) {
        tc_manifold m;
        tc_collide(&sa, tc_transform_identity(), &sb, pb, (tc_contact_method)method, 0.02, NULL, &m);
        if (!finite_manifold(&m)) abort();
    }
    tc_shape_free(&sa);
    tc_shape_free(&sb);
    return 0;
}
