// The dense response matrix of Boussinesq layers over a contact patch (ALGORITHMS.md §9.3), built
// for speed: one kernel evaluation serves both bodies, the far field (z >= TC_BESSEL_FAR_Z, about
// 97 % of a 1,000-node patch) uses the exp-free asymptotic series in a vectorised loop, and with
// equal kernel widths only the upper half is computed and mirrored.
#ifndef TC_QUASI_MATRIX_H
#define TC_QUASI_MATRIX_H
#include "tactus/math.h"

/// Fills M (n×n, row-major; row i receives, column k carries) with
/// M_ik = compliance · σ_k √(π/2) e^{−z}I₀(z), z = |p_i − p_k|² / (4σ_k²), where compliance is
/// Σ (1−ν)/G over the layers involved [1/Pa]. Entries agree with tc_response_kernel within 5e−7
/// relative (that fit's own error; the far series is within 5e−8 of the exact value). scratch holds 7n reals. Returns true when every σ_k is equal (to 1e−12
/// relative), in which case M is exactly symmetric (σ_0 is used for all columns).
bool tc_quasi_matrix_boussinesq(int n, const tc_vec3* points, const tc_real* sigma, tc_real compliance, tc_real* M,
                                tc_real* scratch);

/// True when every σ_k equals σ_0 to 1e−12 relative (tc_quasi_matrix_boussinesq's symmetric case).
bool tc_quasi_sigma_uniform(int n, const tc_real* sigma);

/// The same matrix for unequal widths, handed over split for tc_lcp_pk_split_parts: with d > 0 a
/// column scale (the kernel areas, d_k ∝ σ_k²), B = M diag(d)⁻¹ is nearly symmetric; S receives its
/// symmetric part ½(B + Bᵀ) (n×n, row-major, exactly symmetric) and A the strict upper triangle
/// of its skew part ½(B − Bᵀ) (n×n row-major storage; the rest of A is not written). One pass over the pairs i < k evaluates M_ik and M_ki together from one distance, so
/// M itself is never stored; M = (S + A) diag(d) (to rounding). scratch holds 8n reals.
void tc_quasi_matrix_boussinesq_split(int n, const tc_vec3* points, const tc_real* sigma, tc_real compliance,
                                      const tc_real* d, tc_real* S, tc_real* A, tc_real* scratch);

#endif
