// Half-space responses and their Gaussian-kernel integrals (ALGORITHMS.md §9.1–9.3).
#include "contact/quasi_response.h"
#include <math.h>
#include "tactus/math.h"

tc_real tc_bessel_i0_scaled(tc_real z) {
    tc_real ax = fabs(z);
    if (ax < 3.75) {
        tc_real y = (z / 3.75) * (z / 3.75);
        tc_real i0 = 1.0 + y * (3.5156229 + y * (3.0899424 + y * (1.2067492 + y * (0.2659732 + y * (0.360768e-1 + y * 0.45813e-2)))));
        return exp(-ax) * i0;
    }
    tc_real y = 3.75 / ax;
    tc_real poly = 0.39894228 + y * (0.1328592e-1 + y * (0.225319e-2 + y * (-0.157565e-2 + y * (0.916281e-2 +
                   y * (-0.2057706e-1 + y * (0.2635537e-1 + y * (-0.1647633e-1 + y * 0.392377e-2)))))));
    return poly / sqrt(ax); // e^{-x} I0(x) without forming e^{x}
}

tc_real tc_bessel_i0_scaled_far(tc_real z) { return tc_bessel_far_series(1 / z) / sqrt(2 * TC_PI * z); }

static tc_real layer_constant(const tc_response_params* p) { return (1 - p->poisson) / (2 * TC_PI * p->shear_modulus); }

tc_real tc_response_point(const tc_response_params* p, tc_real r) {
    tc_real c = layer_constant(p);
    if (p->kind == TC_RESPONSE_BOUSSINESQ) return c / r;
    tc_real s = p->vp_reach, beta = sqrt(TC_PI / 2) / s;
    return c * (1 / r - beta) * exp(-r * r / (2 * s * s));
}

// g(ρ)·ρ: the polar Jacobian cancels the 1/r singularity.
static tc_real response_times_r(const tc_response_params* p, tc_real rho) {
    tc_real c = layer_constant(p);
    if (p->kind == TC_RESPONSE_BOUSSINESQ) return c;
    tc_real s = p->vp_reach, beta = sqrt(TC_PI / 2) / s;
    return c * (1 - beta * rho) * exp(-rho * rho / (2 * s * s));
}

// Gauss–Legendre nodes and weights on [-1, 1] by Newton on P_n.
static void gauss_legendre(int n, tc_real* x, tc_real* w) {
    for (int i = 0; i < (n + 1) / 2; ++i) {
        tc_real t = cos(TC_PI * (i + 0.75) / (n + 0.5)), dp = 1;
        for (int it = 0; it < 100; ++it) {
            tc_real p0 = 1, p1 = t;
            for (int k = 2; k <= n; ++k) {
                tc_real p2 = ((2 * k - 1) * t * p1 - (k - 1) * p0) / k;
                p0 = p1;
                p1 = p2;
            }
            dp = n * (t * p1 - p0) / (t * t - 1);
            tc_real dt = p1 / dp;
            t -= dt;
            if (fabs(dt) < 1e-15) break;
        }
        x[i] = -t;
        x[n - 1 - i] = t;
        w[i] = w[n - 1 - i] = 2 / ((1 - t * t) * dp * dp);
    }
}

#define QUAD_PANELS_R 4
#define QUAD_NR 16
#define QUAD_NT 32

tc_real tc_response_kernel_quadrature(const tc_response_params* p, tc_real sigma, tc_real r) {
    tc_real xr[QUAD_NR], wr[QUAD_NR], xt[QUAD_NT], wt[QUAD_NT];
    gauss_legendre(QUAD_NR, xr, wr);
    gauss_legendre(QUAD_NT, xt, wt);
    const tc_real span = 7 * sigma; // exp(-24.5) ~ 2e-11 of the peak
    tc_real rho0 = fmax(0, r - span), rho1 = r + span;
    tc_real sum = 0, panel = (rho1 - rho0) / QUAD_PANELS_R;
    for (int pr = 0; pr < QUAD_PANELS_R; ++pr) {
        tc_real a = rho0 + pr * panel;
        for (int i = 0; i < QUAD_NR; ++i) {
            tc_real rho = a + 0.5 * panel * (xr[i] + 1);
            // the arc of the circle of radius rho inside the kernel's disc of radius span
            tc_real c = rho * r > 0 ? (rho * rho + r * r - span * span) / (2 * rho * r) : -1;
            tc_real theta_max = acos(fmax(-1, fmin(1, c)));
            tc_real g = response_times_r(p, rho), inner = 0;
            for (int j = 0; j < QUAD_NT; ++j) {
                tc_real th = theta_max * xt[j];
                tc_real d2 = rho * rho + r * r - 2 * rho * r * cos(th);
                inner += wt[j] * exp(-d2 / (2 * sigma * sigma));
            }
            sum += wr[i] * 0.5 * panel * g * inner * theta_max;
        }
    }
    return sum;
}

tc_real tc_response_kernel(const tc_response_params* p, tc_real sigma, tc_real r) {
    if (p->kind != TC_RESPONSE_BOUSSINESQ) return tc_response_kernel_quadrature(p, sigma, r);
    tc_real z = r * r / (4 * sigma * sigma);
    return (1 - p->poisson) / p->shear_modulus * sigma * sqrt(TC_PI / 2) * tc_bessel_i0_scaled(z);
}
