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

#endif
