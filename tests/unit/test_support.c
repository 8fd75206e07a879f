// Packed support scans (collision/support.h) against the point-by-point scan they replace: the
// same index for every direction, including exact ties (duplicated points, the padding, axis
// directions on lattice points) and hull sizes on both sides of the unrolled 16-point case; the
// packed placement bitwise equal to the matrix placement.
#include "tc_test.h"

#include "collision/support.h"

#include <stdlib.h>

static uint64_t s_seed = 0x2545F4914F6CDD1Dull;
static double rnd(void) { // xorshift64*, fixed seed
    s_seed ^= s_seed >> 12, s_seed ^= s_seed << 25, s_seed ^= s_seed >> 27;
    return (double)((s_seed * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0 - 0.5;
}

// The reference: the first point with the largest tc_v3_dot (strict >, as gjk.c's scan).
static int first_max(const tc_vec3* p, int n, tc_vec3 d) {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (tc_v3_dot(p[i], d) > tc_v3_dot(p[best], d)) best = i;
    return best;
}

static void check_sets(int n, bool lattice, int* ties) {
    tc_vec3 p[80], q[80];
    tc_real soa[3 * 80], soq[3 * 80];
    for (int i = 0; i < n; ++i) {
        p[i] = lattice ? tc_v3(floor(4 * rnd()), floor(4 * rnd()), floor(4 * rnd())) : tc_v3(rnd(), rnd(), rnd());
        q[i] = tc_v3(rnd(), rnd(), rnd());
    }
    if (n > 3) p[n - 1] = p[1], q[n - 2] = q[0]; // exact duplicates: the first copy must win
    tc_soa_pack(p, n, soa);
    tc_soa_pack(q, n, soq);
    int stride = tc_soa_stride(n);
    assert_true(stride >= n && stride % 4 == 0);
    for (int k = 0; k < 200; ++k) {
        tc_vec3 d = k < 6 ? tc_v3(k == 0 ? 1 : k == 1 ? -1 : 0, k == 2 ? 1 : k == 3 ? -1 : 0, k == 4 ? 1 : k == 5 ? -1 : 0)
                          : tc_v3(rnd(), rnd(), rnd());
        int want = first_max(p, n, d);
        for (int i = 0; i < want; ++i) *ties += tc_v3_dot(p[i], d) == tc_v3_dot(p[want], d);
        assert_int_equal(tc_soa_support(soa, stride, d), want);
        int ia = -1, ib = -1;
        tc_soa_support_pair(soa, stride, soq, stride, d, &ia, &ib);
        assert_int_equal(ia, want);
        assert_int_equal(ib, first_max(q, n, tc_v3_neg(d)));
        if (stride == 16) { // the direct pair scan of small hulls
            int r = tc_soa_pair16()(soa, soq, d.x, d.y, d.z);
            assert_int_equal(r & 0xFFFF, want);
            assert_int_equal(r >> 16, ib);
        }
    }
}

static void test_scan_matches_point_by_point(void** state) {
    (void)state;
    int ties = 0;
    for (int n = 1; n <= 72; ++n)
        for (int rep = 0; rep < 6; ++rep) check_sets(n, rep & 1, &ties);
    // lattice points and duplicates give exact ties where a later point equals the maximum
    int lattice_ties = 0;
    for (int rep = 0; rep < 50; ++rep) {
        tc_vec3 p[16];
        for (int i = 0; i < 16; ++i) p[i] = tc_v3(floor(3 * rnd()), floor(3 * rnd()), 0);
        tc_real soa[48];
        tc_soa_pack(p, 16, soa);
        tc_vec3 d = tc_v3(1, 0, 0);
        int want = first_max(p, 16, d);
        for (int i = want + 1; i < 16; ++i) lattice_ties += tc_v3_dot(p[i], d) == tc_v3_dot(p[want], d);
        assert_int_equal(tc_soa_support(soa, 16, d), want);
    }
    assert_true(lattice_ties > 50); // the tie rule was exercised
    (void)ties;
}

static void test_padding_never_wins_alone(void** state) {
    (void)state;
    tc_vec3 p[5] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}, {0, -1, 0}};
    tc_real soa[3 * 16];
    tc_soa_pack(p, 5, soa);
    int stride = tc_soa_stride(5);
    for (int i = 5; i < stride; ++i) assert_true(soa[i] == 1 && soa[stride + i] == 0 && soa[2 * stride + i] == 0);
    assert_int_equal(tc_soa_support(soa, stride, tc_v3(1, 0, 0)), 0);    // point 0 and its copies tie: 0
    assert_int_equal(tc_soa_support(soa, stride, tc_v3(0, 0, -1)), 0);   // all of 0, 1, 3, 4 and copies tie at 0
    assert_int_equal(tc_soa_support(soa, stride, tc_v3(0, -1, 0)), 4);
}

static void test_place_bitwise(void** state) {
    (void)state;
    for (int n = 4; n <= 40; n += 3) {
        tc_vec3 p[40];
        for (int i = 0; i < n; ++i) p[i] = tc_v3(rnd(), rnd(), rnd());
        tc_real soa[3 * 40], out[3 * 40];
        tc_vec3 aos[40];
        tc_soa_pack(p, n, soa);
        int s = tc_soa_stride(n);
        tc_mat3 r = tc_quat_to_mat3(tc_quat_normalize(tc_quat_make(rnd(), rnd(), rnd(), rnd())));
        tc_vec3 t = tc_v3(rnd(), rnd(), rnd());
        tc_soa_place(soa, s, n, &r, &t, out, aos);
        for (int i = 0; i < s; ++i) {
            tc_vec3 want = tc_v3_add(t, tc_mat3_mul_v3(r, p[i < n ? i : 0]));
            assert_true(out[i] == want.x && out[s + i] == want.y && out[2 * s + i] == want.z);
            if (i < n) assert_true(aos[i].x == want.x && aos[i].y == want.y && aos[i].z == want.z);
        }
    }
}

// The scan along an unnormalised direction d' (mpr.c's refinement): when it calls both winners
// clear they are the scan's answers along d = d' (1/|d'|) rounded, as mpr.c computes it; sets with
// a tie at the top (lattice points on axis directions, duplicates) must not be called clear. Scales
// of d' from 1e-3 to 1e3; padding lanes excluded by the valid masks.
static void test_clear_scan_agrees(void** state) {
    (void)state;
    tc_soa_pair16_clear_fn clear = tc_soa_pair16_clear();
    if (!clear) skip(); // machines without AVX2 never take this path
    int calls = 0, clear_calls = 0, tie_calls = 0;
    for (int n = 1; n <= 16; ++n)
        for (int rep = 0; rep < 8; ++rep) {
            bool lattice = rep & 1;
            tc_vec3 p[16], q[16];
            tc_real soa[48], soq[48], reach_p = 0, reach_q = 0;
            for (int i = 0; i < n; ++i) {
                p[i] = lattice ? tc_v3(floor(4 * rnd()), floor(4 * rnd()), floor(4 * rnd())) : tc_v3(rnd(), rnd(), rnd());
                q[i] = tc_v3(rnd() + 3, rnd(), rnd() - 2);
                reach_p = fmax(reach_p, 2 * tc_v3_len(p[i])), reach_q = fmax(reach_q, 2 * tc_v3_len(q[i]));
            }
            tc_soa_pack(p, n, soa);
            tc_soa_pack(q, n, soq);
            unsigned valid = (1u << n) - 1;
            for (int k = 0; k < 100; ++k) {
                tc_vec3 dp = k < 6 ? tc_v3(k == 0 ? 1 : k == 1 ? -1 : 0, k == 2 ? 1 : k == 3 ? -1 : 0, k == 4 ? 1 : k == 5 ? -1 : 0)
                                   : tc_v3(rnd(), rnd(), rnd());
                dp = tc_v3_scale(dp, pow(10, 6 * (rnd() + 0.5) - 3));
                tc_real l1 = fabs(dp.x) + fabs(dp.y) + fabs(dp.z);
                tc_vec3 d = tc_v3_scale(dp, 1.0 / tc_v3_len(dp));
                int want = tc_soa_pair16()(soa, soq, d.x, d.y, d.z), wa = want & 0xFFFF;
                bool tie = false;
                for (int i = 0; i < n; ++i) tie |= i != wa && tc_v3_dot(p[i], d) == tc_v3_dot(p[wa], d);
                int r = clear(soa, soq, dp.x, dp.y, dp.z, 1e-10 * l1 * reach_p, 1e-10 * l1 * reach_q, valid, valid);
                calls++;
                if (tie) tie_calls++, assert_int_equal(r, -1);
                if (r < 0) continue;
                clear_calls++;
                assert_int_equal(r, want);
            }
        }
    assert_true(tie_calls > 100);         // the lattice sets do test ties
    assert_true(clear_calls > calls / 2); // and most random directions are clear
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_matches_point_by_point),
        cmocka_unit_test(test_padding_never_wins_alone),
        cmocka_unit_test(test_place_bitwise),
        cmocka_unit_test(test_clear_scan_agrees),
    };
    return cmocka_run_group_tests(tests, tc_test_setup_log, NULL);
}
