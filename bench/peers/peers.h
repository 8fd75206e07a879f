// Peer engines behind a C interface, so the benchmark driver (C) can run the same workloads in
// Bullet (C++), ODE and libccd side by side with Tactus.
#ifndef TACTUS_BENCH_PEERS_H
#define TACTUS_BENCH_PEERS_H
#ifdef __cplusplus
extern "C" {
#endif

/// What a rigid scene run reports.
typedef struct peer_result {
    double seconds;      ///< wall time of the stepping only
    double max_drift;    ///< m, largest displacement of any body between settle_steps and the end
    double final_ke;     ///< J
} peer_result;

/// A pyramid of boxes of half size 0.5 with `base` boxes on the bottom row, stepped `steps`
/// times at 1/60 s with 4 sub-steps of `iterations` solver iterations, sleeping off.
peer_result bullet_pyramid(int base, int steps, int settle_steps, int iterations);
peer_result ode_pyramid(int base, int steps, int settle_steps, int iterations);
/// `count` hulls of `npts` points each (points: count * npts * 3 doubles, centred on 0) dropped
/// at `centers` into a box of half size 6 x 6 with walls 6 high.
peer_result bullet_convex_rain(const double* points, int npts, const double* centers, int count, int steps, int iterations);
/// Penetration queries with libccd's MPR over `pairs` pairs of point sets (16 points each):
/// returns the number of pairs found intersecting; *seconds gets the wall time.
int ccd_mpr_queries(const double* a, const double* b, int pairs, int npts, double* seconds);
/// The same query on body-space point sets `a`, `b` with poses (7 doubles per body: position,
/// quaternion {x,y,z,w}): the support callback transforms the direction into body space and the
/// winning point back (what a simulation's libccd user does). Returns the hit count (-1: no memory).
int ccd_mpr_queries_posed(const double* a, const double* b, const double* pose_a, const double* pose_b, int pairs, int npts,
                          double* seconds);

double bench_now(void);
#ifdef __cplusplus
}
#endif
#endif
