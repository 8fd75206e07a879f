// ODE version of the pyramid (quickstep solver, box-box and box-plane colliders).
#define dDOUBLE
#include "peers.h"

#include <math.h>
#include <ode/ode.h>
#include <stdlib.h>

typedef struct ode_scene {
    dWorldID world;
    dSpaceID space;
    dJointGroupID contacts;
} ode_scene;

static void near_callback(void* data, dGeomID a, dGeomID b) {
    ode_scene* s = data;
    dContact c[8];
    int n = dCollide(a, b, 8, &c[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
        c[i].surface.mode = dContactSoftERP | dContactSoftCFM | dContactApprox1;
        c[i].surface.mu = 0.6;
        c[i].surface.soft_erp = 0.2;
        c[i].surface.soft_cfm = 1e-6;
        dJointID j = dJointCreateContact(s->world, s->contacts, &c[i]);
        dJointAttach(j, dGeomGetBody(a), dGeomGetBody(b));
    }
}

peer_result ode_pyramid(int base, int steps, int settle, int iterations) {
    dInitODE();
    ode_scene s = {dWorldCreate(), dHashSpaceCreate(0), dJointGroupCreate(0)};
    dWorldSetGravity(s.world, 0, 0, -9.81);
    dWorldSetQuickStepNumIterations(s.world, iterations);
    dCreatePlane(s.space, 0, 0, 1, 0);
    int n = base * (base + 1) / 2, k = 0;
    dBodyID* bodies = malloc((size_t)n * sizeof *bodies);
    double* p0 = malloc((size_t)n * 3 * sizeof *p0);
    for (int row = 0; row < base; ++row)
        for (int i = 0; i < base - row; ++i) {
            dBodyID b = dBodyCreate(s.world);
            dMass m;
            dMassSetBoxTotal(&m, 1000, 1, 1, 1);
            dBodySetMass(b, &m);
            dBodySetPosition(b, (i - 0.5 * (base - row - 1)) * 1.0, 0, 0.5 + row);
            dGeomSetBody(dCreateBox(s.space, 1, 1, 1), b);
            bodies[k++] = b;
        }
    peer_result r = {0, 0, 0};
    double t0 = 0;
    for (int step = 0; step < steps; ++step) {
        if (step == settle) {
            for (int i = 0; i < n; ++i) {
                const dReal* p = dBodyGetPosition(bodies[i]);
                p0[3 * i] = p[0], p0[3 * i + 1] = p[1], p0[3 * i + 2] = p[2];
            }
            t0 = bench_now();
        }
        for (int sub = 0; sub < 4; ++sub) {
            dSpaceCollide(s.space, &s, near_callback);
            dWorldQuickStep(s.world, 1.0 / 240);
            dJointGroupEmpty(s.contacts);
        }
    }
    r.seconds = bench_now() - t0;
    for (int i = 0; i < n; ++i) {
        const dReal* p = dBodyGetPosition(bodies[i]);
        const dReal* v = dBodyGetLinearVel(bodies[i]);
        double dx = p[0] - p0[3 * i], dy = p[1] - p0[3 * i + 1], dz = p[2] - p0[3 * i + 2];
        r.max_drift = fmax(r.max_drift, sqrt(dx * dx + dy * dy + dz * dz));
        r.final_ke += 0.5 * 1000 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    free(bodies);
    free(p0);
    dJointGroupDestroy(s.contacts);
    dSpaceDestroy(s.space);
    dWorldDestroy(s.world);
    dCloseODE();
    return r;
}
