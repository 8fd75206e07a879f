// System response of the quasi-rigid layer (ALGORITHMS.md §9.1–9.3, seed 002): the normal surface
// displacement of an elastic half-space per unit pressure carried by a Gaussian kernel.
#ifndef TC_QUASI_RESPONSE_H
#define TC_QUASI_RESPONSE_H
#include "tactus/base.h"

/// Which point-load response function the layer uses.
typedef enum tc_response_kind {
    TC_RESPONSE_BOUSSINESQ = 0,      ///< g(r) = (1−ν)/(2πG r)
    TC_RESPONSE_VOLUME_PRESERVING,   ///< g_vp(r) = (1−ν)/(2πG)(1/r − β) exp(−r²/2s²), β = √(π/2)/s
} tc_response_kind;

/// Layer material and response parameters.
typedef struct tc_response_params {
    tc_response_kind kind;
    tc_real shear_modulus; ///< G [Pa] > 0
    tc_real poisson;       ///< ν in [0, 0.5)
    tc_real vp_reach;      ///< s [m] of the volume-preserving response (ignored for Boussinesq)
} tc_response_params;

/// e^{−z} I₀(z) for z >= 0 (Abramowitz–Stegun 9.8.1–9.8.2 fits, ~2e−7 relative).
tc_real tc_bessel_i0_scaled(tc_real z);
/// Below this z the far-field series is not used (its truncation error there is < 5e−8).
#define TC_BESSEL_FAR_Z 16.0
/// e^{−z} I₀(z) for z >= TC_BESSEL_FAR_Z by the asymptotic series (2πz)^{−1/2} Σ_{k<=5} a_k z^{−k},
/// a_k = ((2k−1)!!)² / (k! 8^k): no exp, relative error < 5e−8 (measured 4.2e−8 at z = 16), ten times
/// tighter than the fit of tc_bessel_i0_scaled there (2e−7 absolute on √z e^{−z}I₀ ≈ 0.4: 4.7e−7).
tc_real tc_bessel_i0_scaled_far(tc_real z);
/// The far-field series S(t) = Σ_{k<=5} a_k t^k at t = 1/z, so e^{−z} I₀(z) ≈ S(1/z)/√(2πz).
static inline tc_real tc_bessel_far_series(tc_real t) {
    return 1 + t * (0.125 + t * (0.0703125 + t * (0.0732421875 + t * (0.112152099609375 + t * 0.227108001708984375))));
}
/// Point-load response g(r) [m/N] (r > 0).
tc_real tc_response_point(const tc_response_params* p, tc_real r);
/// Displacement [m] at distance r from the centre of a Gaussian kernel of width sigma carrying unit
/// pressure amplitude: R = ∫ g(|y − x|) exp(−|x − q|²/2σ²) dA. Boussinesq: the closed form
/// (1−ν)/G σ√(π/2) e^{−z}I₀(z), z = r²/4σ² (bounded self term at r = 0). Volume-preserving:
/// 16×32 Gauss–Legendre polar quadrature centred on the receiving point.
tc_real tc_response_kernel(const tc_response_params* p, tc_real sigma, tc_real r);
/// The same integral by numerical polar quadrature for any response (used to check the closed form).
tc_real tc_response_kernel_quadrature(const tc_response_params* p, tc_real sigma, tc_real r);

#endif
