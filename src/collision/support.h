// Support scans over packed coordinates (x[], y[], z[], structure of arrays): the index of the
// point furthest along a direction, 4 points at a time. The hot loop of the convex queries
// (MPR calls it ~20 times per pair), so it is vectorised explicitly: a lane-wise running maximum
// with its index, reduced with the scalar scan's tie rule (the first index wins), so the answer is
// bitwise that of `tc_v3_dot` compared point by point, on every machine, with or without AVX2.
#ifndef TC_SUPPORT_H
#define TC_SUPPORT_H

#include "tactus/types.h"

/// Padded length of a packed array for n points: at least 16 (the unrolled scan's size), a multiple
/// of 4 (padding = copies of point 0, which tie with point 0 and so never win alone).
static inline int tc_soa_stride(int n) { return n <= 16 ? 16 : (n + 3) & ~3; }

/// Packs n points into soa (3 * tc_soa_stride(n) reals: x[], then y[], then z[]), padded.
void tc_soa_pack(const tc_vec3* points, int n, tc_real* soa);

/// Places packed points: out = t + R p for every packed entry (padding included), with the same
/// operation order as tc_v3_add(t, tc_mat3_mul_v3(R, p)) (bitwise equal results). Also writes the
/// n placed points to `aos` when it is not NULL. r and t by address: passed by value they went
/// through the stack as 8-byte stores read back by 16-byte loads (a failed store forward).
void tc_soa_place(const tc_real* soa, int stride, int n, const tc_mat3* r, const tc_vec3* t, tc_real* out, tc_vec3* aos);

/// Index of the first packed point with the largest d . p (stride >= 4, a multiple of 4).
int tc_soa_support(const tc_real* soa, int stride, tc_vec3 d);

/// Both supports of one Minkowski-difference step: a's along d into *ia, b's along -d into *ib.
void tc_soa_support_pair(const tc_real* a, int stride_a, const tc_real* b, int stride_b, tc_vec3 d, int* ia, int* ib);

/// Both supports of one step for two sets packed with stride 16 (hulls of up to 16 vertices):
/// returns ia | ib << 16 (a's along (dx, dy, dz), b's against it).
typedef int (*tc_soa_pair16_fn)(const tc_real* a, const tc_real* b, tc_real dx, tc_real dy, tc_real dz);
/// The fastest tc_soa_pair16_fn this machine runs (AVX2 or SSE2 on x86-64; all give the same answers).
tc_soa_pair16_fn tc_soa_pair16(void);
/// Both supports along a direction d' when each winner is clear: no other of a's first points
/// (bits of valid_a: the real ones, not the padding) has a height within tau_a of the largest, the
/// same for b (against d'); then returns ia | ib << 16, else -1. With tau above the heights'
/// rounding error for every positive multiple of d' (see mpr.c), the answer is that of
/// tc_soa_pair16_fn along any such multiple: the scan can start before d' is normalised.
typedef int (*tc_soa_pair16_clear_fn)(const tc_real* a, const tc_real* b, tc_real dx, tc_real dy, tc_real dz, tc_real tau_a, tc_real tau_b,
                                      unsigned valid_a, unsigned valid_b);
/// The AVX2 version, or NULL on machines (and builds) without it.
tc_soa_pair16_clear_fn tc_soa_pair16_clear(void);
#endif
