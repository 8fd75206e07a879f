// Bullet's classic soft bodies for the tet benchmark: position-based links from the tet edges,
// vertex-face soft-soft contacts (fCollision::VF_SS), btSoftRigidDynamicsWorld.
#include "soft_peers.h"

#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyInternals.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>
#include <btBulletDynamicsCommon.h>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

struct soft_peer {
    btSoftBodyRigidBodyCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btSoftRigidDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
    std::vector<btSoftBody*> bodies;
    double time_step = 1.0 / 60;
    int sub_steps = 1;
    bool had_contacts = false; ///< in some internal step of the last soft_peer_step

    ~soft_peer() {
        for (auto* b : bodies) world.removeSoftBody(b), delete b;
    }
};

namespace {
// CreateFromTetGenData prints node/link/face counts on stdout: keep the table clean.
btSoftBody* create_quietly(btSoftBodyWorldInfo& info, const soft_peer_body& d) {
    std::fflush(stdout);
    int saved = dup(1), null_fd = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null_fd >= 0) dup2(null_fd, 1);
    // btetralinks = false: Bullet checks every new link against all existing ones (quadratic
    // in the link count, minutes at 100,000 tets); the same unique edges are appended below.
    btSoftBody* psb = btSoftBodyHelpers::CreateFromTetGenData(info, d.ele_text, nullptr, d.node_text, false, false, false);
    std::fflush(stdout);
    if (saved >= 0 && null_fd >= 0) dup2(saved, 1);
    if (saved >= 0) close(saved);
    if (null_fd >= 0) close(null_fd);
    return psb;
}

btSoftBody* make_body(soft_peer* p, const soft_peer_scene& s, const soft_peer_body& d) {
    btSoftBody* psb = create_quietly(p->world.getWorldInfo(), d);
    for (int e = 0; e < d.edge_count; ++e) psb->appendLink(d.edges[2 * e], d.edges[2 * e + 1]);
    btSoftBodyHelpers::generateBoundaryFaces(psb); // the faces VF_SS tests nodes against
    psb->getCollisionShape()->setMargin((btScalar)s.margin);
    // the face tree, one leaf per face as btSoftBody keeps it up to date in predictMotion
    // (initializeFaceTree's bottom-up build lost every contact above ~40,000 tets here)
    for (int f = 0; f < psb->m_faces.size(); ++f)
        psb->m_faces[f].m_leaf = psb->m_fdbvt.insert(VolumeOf(psb->m_faces[f], 0), &psb->m_faces[f]);
    psb->setVolumeMass((btScalar)d.mass);
    psb->m_cfg.piterations = s.piterations;
    psb->m_cfg.viterations = s.viterations;
    psb->m_cfg.diterations = s.viterations;
    if (s.kvc > 0) { // the force restores the volume recorded by setPose (it is 0 without it)
        psb->m_cfg.kVC = (btScalar)s.kvc;
        psb->setPose(true, false);
    }
    psb->m_cfg.kDF = (btScalar)s.friction;
    psb->m_cfg.collisions = btSoftBody::fCollision::SDF_RS | btSoftBody::fCollision::VF_SS;
    psb->translate(btVector3((btScalar)d.offset[0], (btScalar)d.offset[1], (btScalar)d.offset[2]));
    psb->setVelocity(btVector3((btScalar)d.velocity[0], (btScalar)d.velocity[1], (btScalar)d.velocity[2]));
    psb->setActivationState(DISABLE_DEACTIVATION);
    return psb;
}
} // namespace

extern "C" soft_peer* soft_peer_create(const soft_peer_scene* s) {
    auto* p = new soft_peer;
    p->time_step = s->time_step;
    p->sub_steps = s->sub_steps;
    btSoftBodyWorldInfo& info = p->world.getWorldInfo();
    info.m_broadphase = &p->broadphase;
    info.m_dispatcher = &p->dispatcher;
    info.m_gravity.setValue(0, 0, 0);
    info.m_sparsesdf.Initialize();
    p->world.setGravity(btVector3(0, 0, 0));
    for (int i = 0; i < s->body_count; ++i) {
        btSoftBody* psb = make_body(p, *s, s->bodies[i]);
        p->world.addSoftBody(psb);
        p->bodies.push_back(psb);
    }
    return p;
}

extern "C" void soft_peer_step(soft_peer* p) {
    // maxSubSteps = 0: exactly one internal step of h per call (no float time accumulator that
    // could drop or add a sub-step)
    btScalar h = (btScalar)(p->time_step / p->sub_steps);
    p->had_contacts = false;
    for (int k = 0; k < p->sub_steps; ++k) {
        p->world.stepSimulation(h, 0);
        for (auto* b : p->bodies) p->had_contacts = p->had_contacts || b->m_scontacts.size() > 0; // kept until the next step
    }
}

extern "C" int soft_peer_step_had_contacts(const soft_peer* p) { return p->had_contacts; }

extern "C" int soft_peer_contact_count(const soft_peer* p, int* pairs) {
    int nodes = 0, total = 0;
    for (auto* b : p->bodies) { // a body's m_scontacts hold its own nodes against the other's faces
        std::vector<char> seen((size_t)b->m_nodes.size(), 0);
        for (int c = 0; c < b->m_scontacts.size(); ++c) {
            size_t i = (size_t)(b->m_scontacts[c].m_node - &b->m_nodes[0]);
            if (i < seen.size() && !seen[i]) seen[i] = 1, nodes++;
        }
        total += b->m_scontacts.size();
    }
    if (pairs) *pairs = total;
    return nodes;
}

extern "C" void soft_peer_positions(const soft_peer* p, int body, double* xyz) {
    const btSoftBody* b = p->bodies[(size_t)body];
    for (int i = 0; i < b->m_nodes.size(); ++i)
        for (int k = 0; k < 3; ++k) xyz[3 * i + k] = b->m_nodes[i].m_x[k];
}

extern "C" void soft_peer_destroy(soft_peer* p) { delete p; }
