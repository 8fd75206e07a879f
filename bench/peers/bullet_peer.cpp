// Bullet versions of the benchmark scenes (btDiscreteDynamicsWorld, sequential impulse solver).
#include "peers.h"

#include <btBulletDynamicsCommon.h>
#include <cmath>
#include <vector>

namespace {
struct World {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
    std::vector<btCollisionShape*> shapes;
    std::vector<btRigidBody*> bodies;
    std::vector<btDefaultMotionState*> states;

    explicit World(int iterations) {
        world.setGravity(btVector3(0, 0, -9.81));
        world.getSolverInfo().m_numIterations = iterations;
    }
    ~World() {
        for (auto* b : bodies) world.removeRigidBody(b), delete b;
        for (auto* s : states) delete s;
        for (auto* s : shapes) delete s;
    }
    btRigidBody* add(btCollisionShape* shape, double mass, btVector3 p) {
        btVector3 inertia(0, 0, 0);
        if (mass > 0) shape->calculateLocalInertia(mass, inertia);
        btTransform t;
        t.setIdentity();
        t.setOrigin(p);
        auto* state = new btDefaultMotionState(t);
        btRigidBody::btRigidBodyConstructionInfo info(mass, state, shape, inertia);
        info.m_friction = 0.6;
        auto* body = new btRigidBody(info);
        body->setActivationState(DISABLE_DEACTIVATION);
        world.addRigidBody(body);
        bodies.push_back(body);
        states.push_back(state);
        return body;
    }
    void ground() {
        auto* plane = new btStaticPlaneShape(btVector3(0, 0, 1), 0);
        shapes.push_back(plane);
        add(plane, 0, btVector3(0, 0, 0));
    }
    peer_result run(int steps, int settle) {
        std::vector<btVector3> p0(bodies.size());
        peer_result r = {0, 0, 0};
        double t0 = 0;
        for (int s = 0; s < steps; ++s) {
            if (s == settle) {
                for (size_t i = 0; i < bodies.size(); ++i) p0[i] = bodies[i]->getCenterOfMassPosition();
                t0 = bench_now();
            }
            world.stepSimulation(1.0 / 60, 4, 1.0 / 240);
        }
        r.seconds = bench_now() - t0;
        for (size_t i = 0; i < bodies.size(); ++i) {
            if (bodies[i]->getInvMass() == 0) continue;
            r.max_drift = std::fmax(r.max_drift, (bodies[i]->getCenterOfMassPosition() - p0[i]).length());
            double m = 1 / bodies[i]->getInvMass();
            r.final_ke += 0.5 * m * bodies[i]->getLinearVelocity().length2();
        }
        return r;
    }
};
} // namespace

extern "C" peer_result bullet_pyramid(int base, int steps, int settle, int iterations) {
    World w(iterations);
    w.ground();
    auto* box = new btBoxShape(btVector3(0.5, 0.5, 0.5));
    box->setMargin(0.01);
    w.shapes.push_back(box);
    for (int row = 0; row < base; ++row)
        for (int i = 0; i < base - row; ++i) w.add(box, 1000, btVector3((i - 0.5 * (base - row - 1)) * 1.0, 0, 0.5 + row));
    return w.run(steps, settle);
}

extern "C" peer_result bullet_convex_rain(const double* pts, int npts, const double* centers, int count, int steps, int iterations) {
    World w(iterations);
    w.ground();
    const double walls[4][6] = {{-6.5, 0, 3, 0.5, 7, 3}, {6.5, 0, 3, 0.5, 7, 3}, {0, -6.5, 3, 6, 0.5, 3}, {0, 6.5, 3, 6, 0.5, 3}};
    for (auto& wl : walls) {
        auto* box = new btBoxShape(btVector3(wl[3], wl[4], wl[5]));
        w.shapes.push_back(box);
        w.add(box, 0, btVector3(wl[0], wl[1], wl[2]));
    }
    for (int b = 0; b < count; ++b) {
        auto* hull = new btConvexHullShape();
        for (int k = 0; k < npts; ++k) {
            const double* p = pts + 3 * (b * npts + k);
            hull->addPoint(btVector3(p[0], p[1], p[2]), false);
        }
        hull->recalcLocalAabb();
        hull->optimizeConvexHull();
        w.shapes.push_back(hull);
        w.add(hull, 100, btVector3(centers[3 * b], centers[3 * b + 1], centers[3 * b + 2]));
    }
    return w.run(steps, 0);
}
