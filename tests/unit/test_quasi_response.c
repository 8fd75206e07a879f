// Quasi-rigid response: Bessel fit, closed-form kernel vs quadrature, self term, far field,
// Hertz pressure through the response matrix, zero volume of the volume-preserving response.
#include "tc_test.h"
#include "contact/quasi_response.h"

static tc_response_params boussinesq(void) {
    tc_response_params p = {TC_RESPONSE_BOUSSINESQ, 1e6, 0.3, 0};
    return p;
}

static void test_bessel(void** state) {
    (void)state;
    // reference values of I0 (Abramowitz-Stegun table 9.8)
    assert_near(tc_bessel_i0_scaled(0), 1, 1e-7);
    assert_near(tc_bessel_i0_scaled(1) * exp(1.0), 1.266065878, 2e-7 * 1.27);
    assert_near(tc_bessel_i0_scaled(5) * exp(5.0), 27.23987182, 2e-7 * 27.3);
    // asymptote e^-z I0(z) -> 1/sqrt(2 pi z)
    assert_near(tc_bessel_i0_scaled(400) * sqrt(2 * TC_PI * 400), 1, 1e-3);
}

static void test_closed_form_matches_quadrature(void** state) {
    (void)state;
    tc_response_params p = boussinesq();
    tc_real sigma = 0.01;
    for (tc_real z = 0; z <= 50; z += 2.5) {
        tc_real r = 2 * sigma * sqrt(z);
        tc_real closed = tc_response_kernel(&p, sigma, r), quad = tc_response_kernel_quadrature(&p, sigma, r);
        assert_near(closed / quad, 1, 1e-5);
    }
    // bounded self term and far-field point-load limit
    assert_near(tc_response_kernel(&p, sigma, 0), (1 - 0.3) / 1e6 * sigma * sqrt(TC_PI / 2), 1e-18);
    tc_real r = 40 * sigma, far = tc_response_point(&p, r) * 2 * TC_PI * sigma * sigma;
    assert_near(tc_response_kernel(&p, sigma, r) / far, 1, 2e-3);
}

// Hertz pressure on a planar grid: u = R p matches pi p0 (2a^2 - r^2) / (4 a E*) inside the contact.
static void test_response_matrix_hertz_displacement(void** state) {
    (void)state;
    tc_response_params p = boussinesq();
    tc_real E = 2 * p.shear_modulus * (1 + p.poisson), Es = E / (1 - p.poisson * p.poisson);
    tc_real a = 0.01, p0 = 1e4, h = a / 12, sigma = h / sqrt(2 * TC_PI);
    int half = 14;
    tc_real worst = 0;
    for (int i = -10; i <= 10; i += 2)
        for (int j = -10; j <= 10; j += 3) {
            tc_real xi = i * h, yi = j * h, ri2 = xi * xi + yi * yi;
            if (ri2 >= 0.8 * a * a) continue;
            tc_real u = 0;
            for (int k = -half; k <= half; ++k)
                for (int l = -half; l <= half; ++l) {
                    tc_real xk = k * h, yk = l * h, rk2 = xk * xk + yk * yk;
                    if (rk2 >= a * a) continue;
                    tc_real pk = p0 * sqrt(1 - rk2 / (a * a));
                    u += tc_response_kernel(&p, sigma, sqrt((xi - xk) * (xi - xk) + (yi - yk) * (yi - yk))) * pk;
                }
            tc_real expect = TC_PI * p0 * (2 * a * a - ri2) / (4 * a * Es);
            worst = fmax(worst, fabs(u / expect - 1));
        }
    printf("Hertz displacement through R: worst relative error %.4f\n", worst);
    assert_true(worst < 0.05);
}

// The volume-preserving response displaces zero net volume: sum of u over a wide grid ~ 0.
static void test_volume_preserving_zero_volume(void** state) {
    (void)state;
    tc_response_params p = {TC_RESPONSE_VOLUME_PRESERVING, 1e6, 0.3, 0.02};
    tc_real h = 0.002, sigma = h / sqrt(2 * TC_PI);
    // point of load at the origin; displacement field over a disc of radius 5 s
    tc_real net = 0, indented = 0;
    int n = (int)(5 * p.vp_reach / h);
    // tabulate R(r) once (radial symmetry), then sum over the grid
    for (int i = -n; i <= n; ++i)
        for (int j = -n; j <= n; ++j) {
            tc_real r = h * sqrt((tc_real)(i * i + j * j));
            if (r > 5 * p.vp_reach) continue;
            tc_real u = tc_response_kernel(&p, sigma, r) * h * h;
            net += u;
            if (u > 0) indented += u;
        }
    printf("volume-preserving: net %.3g, indented %.3g\n", net, indented);
    assert_true(indented > 0);
    assert_true(fabs(net) < 0.05 * indented);
    // and the plain Boussinesq response does not preserve volume
    tc_response_params b = boussinesq();
    tc_real net_b = 0;
    for (int i = -n; i <= n; ++i)
        for (int j = -n; j <= n; ++j) {
            tc_real r = h * sqrt((tc_real)(i * i + j * j));
            if (r <= 5 * p.vp_reach) net_b += tc_response_kernel(&b, sigma, r) * h * h;
        }
    assert_true(net_b > 0.5 * indented);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_bessel, tc_test_setup_log),
        cmocka_unit_test_setup(test_closed_form_matches_quadrature, tc_test_setup_log),
        cmocka_unit_test_setup(test_response_matrix_hertz_displacement, tc_test_setup_log),
        cmocka_unit_test_setup(test_volume_preserving_zero_volume, tc_test_setup_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
