// Bullet's classic soft bodies (btSoftBody in a btSoftRigidDynamicsWorld) behind a C interface,
// so the tet benchmark driver (C) can step the same TetGen mesh in Bullet next to Tactus.
#ifndef TACTUS_BENCH_SOFT_PEERS_H
#define TACTUS_BENCH_SOFT_PEERS_H
#ifdef __cplusplus
extern "C" {
#endif

/// One soft body of the scene: the mesh as TetGen .node/.ele text (0-based indices), its unique
/// edges (the links, 2 ints each), a rigid offset and an initial velocity of every node.
typedef struct soft_peer_body {
    const char* node_text;
    const char* ele_text;
    const int* edges;
    int edge_count;
    double offset[3]; ///< m, added to every node
    double velocity[3]; ///< m/s
    double mass;      ///< kg, spread over the nodes by tet volume
} soft_peer_body;

/// Scene settings shared by every body.
typedef struct soft_peer_scene {
    const soft_peer_body* bodies;
    int body_count;
    double time_step;  ///< s per soft_peer_step call
    int sub_steps;     ///< Bullet internal steps per call (fixed step time_step / sub_steps)
    int piterations;   ///< position solver iterations (links and soft-soft contacts)
    int viterations;   ///< velocity and drift solver iterations (Bullet's default Positions preset
                       ///< has empty sequences for both: > 0 only re-integrates x = q + v h)
    double kvc;        ///< volume conservation kVC (Pa per m^3 of lost body volume); > 0 also
                       ///< records the rest volume (setPose(true, false)); 0: off, Bullet's default
    double margin;     ///< m, collision margin of each body (vertex-face contacts within 2x)
    double friction;   ///< kDF
} soft_peer_scene;

typedef struct soft_peer soft_peer;

/// Builds the world: btSoftBodyHelpers::CreateFromTetGenData per body (no links from it: the
/// given edges are appended instead, see the .cpp), boundary faces, face tree, VF_SS contacts.
soft_peer* soft_peer_create(const soft_peer_scene* scene);
/// Advances by time_step (stepSimulation with sub_steps fixed steps).
void soft_peer_step(soft_peer* peer);
/// Whether some internal step of the last soft_peer_step had a soft-soft contact.
int soft_peer_step_had_contacts(const soft_peer* peer);
/// Distinct nodes in soft-soft contact during the last internal step (both bodies); *pairs
/// (may be NULL) gets the node-face contact count, which is larger: a node near several faces
/// has one contact per face.
int soft_peer_contact_count(const soft_peer* peer, int* pairs);
/// Copies body `body`'s node positions (3 doubles per node, TetGen order) into xyz.
void soft_peer_positions(const soft_peer* peer, int body, double* xyz);
void soft_peer_destroy(soft_peer* peer);

#ifdef __cplusplus
}
#endif
#endif
