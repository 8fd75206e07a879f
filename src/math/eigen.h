// Symmetric 3x3 eigen-decomposition (cyclic Jacobi).
#ifndef TC_EIGEN_H
#define TC_EIGEN_H
#include "tactus/math.h"

/// Decomposes symmetric a = V diag(values) V^T. values ascending; columns of V are unit
/// eigenvectors forming a right-handed frame. Converges to machine precision in <= 50 sweeps.
void tc_eigen_sym3(tc_mat3 a, tc_vec3* values, tc_mat3* vectors);

#endif
