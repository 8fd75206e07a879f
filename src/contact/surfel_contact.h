// Contact between two point bodies through a contact surface (seed 000 §6-7, ALGORITHMS.md §8.2-8.4).
#ifndef TC_SURFEL_CONTACT_H
#define TC_SURFEL_CONTACT_H

#include "dynamics/points/points.h"

typedef struct tc_surfel_contact_params {
    tc_real stiffness;      ///< N/m^3, pressure per metre of surface displacement
    tc_real damping;        ///< N s/m^3
    tc_real friction;       ///< Coulomb coefficient
    tc_real spacing;        ///< m, target spacing of the contact surface samples
    int relax_iterations;   ///< repulsion + re-projection rounds, default 2
    bool seed_density_scaling; ///< the seed's rho * f instead of the area share f / rho
} tc_surfel_contact_params;

typedef TC_ARRAY(tc_vec3) tc_surfel_points;

typedef struct tc_surfel_contact {
    TC_ARRAY(tc_vec3) points;   ///< contact surface samples on F = 0
    TC_ARRAY(tc_vec3) normals;  ///< PCA normals, from A to B
    TC_ARRAY(tc_vec3) forces;   ///< force on A of each sample, already scaled by its area share (N)
    TC_ARRAY(int) nearest_a, nearest_b;
    TC_ARRAY(tc_real) depth;    ///< |d1| + |d2| per sample (m)
    /// m, per sample: |f_A|, |f_B| there from the samples' last local fits (where to start the
    /// nearest-surfel searches of tc_surfel_contact_forces; 0 or missing: no estimate).
    TC_ARRAY(tc_real) surface_dist_a, surface_dist_b;
    int colliding_a, colliding_b;   ///< surfels of A inside B and of B inside A
    tc_vec3 total_a;                ///< sum of forces on A (N)
} tc_surfel_contact;

void tc_surfel_contact_free(tc_surfel_contact* c);
/// F(x) = E_A f_A(x) - E_B f_B(x) (the corrected stiffness weights w_i = E_i).
tc_real tc_contact_surface_function(const tc_points_body* A, const tc_points_body* B, tc_vec3 x);
/// Builds the contact surface samples (classification, Brent, relaxation, resampling, PCA
/// normals). Marks colliding surfels in A and B. Returns the sample count.
int tc_surfel_contact_surface(tc_points_body* A, tc_points_body* B, const tc_surfel_contact_params* p, tc_surfel_contact* out);
/// The same; every_seed (the reference, for tests): root-find every seed, also those predicted
/// to land well within half a spacing of a kept sample (which the resampling deletes).
int tc_surfel_contact_surface_seeded(tc_points_body* A, tc_points_body* B, const tc_surfel_contact_params* p, bool every_seed,
                                     tc_surfel_contact* out);
/// The resampling's gap candidates: the midpoints of the pairs of samples 1.5-2.2 spacings apart
/// with no sample within 0.75 spacing, appended to out in the resampling's order. With first_new
/// < count they are found as in its second pass (the gaps of pts[0, first_new) searched first,
/// and kept for the samples with no later one within 2.2 spacings): the same list (for tests).
void tc_surfel_contact_gap_candidates(const tc_surfel_points* pts, tc_real spacing, int first_new, tc_surfel_points* out);
/// Step 2 alone: the raw samples on F = 0 seeded by the colliding surfels (before resampling
/// and relaxation), appended to out; marks colliding surfels and counts them in `counts` like
/// tc_surfel_contact_surface. exact_roots: the reference root search, a full MLS fit at every
/// evaluation of F and a fit per classified surfel (slow; the default searches on local fits and
/// skips the fits of surfels bounded clearly outside, see surfel_contact.c).
void tc_surfel_contact_seeds(tc_points_body* A, tc_points_body* B, bool exact_roots, tc_surfel_contact* counts, tc_surfel_points* out);
/// Penalty + damping + friction per sample, symmetrised and scaled by area share (or density).
void tc_surfel_contact_forces(const tc_points_body* A, const tc_points_body* B, const tc_surfel_contact_params* p, tc_surfel_contact* c);
/// Surface density k / (pi r_k^2) of sample i among the samples (k = 6 nearest others).
tc_real tc_surfel_contact_density(const tc_vec3* pts, int count, const tc_point_grid* grid, int i, int k);
/// tc_surfel_contact_density(pts, count, grid, i, 6) of every sample i into rho[0..count), bit
/// for bit (grid: the plain grid over pts; 0 where it was not built). Its scratch: 4 ints and 4
/// reals a sample; without them it walks per sample (the same values).
void tc_surfel_contact_densities(const tc_vec3* pts, int count, const tc_point_grid* grid, tc_real* rho);
/// Default parameters for a pair with sub-step h (stiffness from the world's penalty frequency,
/// damping ratio capped for the explicit sub-step, see docs/points.md).
tc_surfel_contact_params tc_surfel_contact_params_for(const tc_world* w, const tc_points_body* A, const tc_points_body* B, tc_real h);
/// The collide hook body: every overlapping pair of point bodies (forces into f_ext, records).
void tc_surfel_contact_collide(tc_world* w, tc_real h);

#endif
