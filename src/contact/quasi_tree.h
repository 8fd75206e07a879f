// Bounding-sphere clustering hierarchy of a point cloud (ALGORITHMS.md §9.6): clusters split
// through their centroid perpendicular to the largest covariance eigenvector down to <= leaf_size
// points. Levels are tree cuts by cluster radius; level 0 is the samples themselves.
#ifndef TC_QUASI_TREE_H
#define TC_QUASI_TREE_H
#include "tactus/math.h"

typedef struct tc_sphere_node {
    tc_vec3 centroid;    ///< of the cluster's points [m]
    tc_real radius;      ///< max |p − centroid| [m]
    int representative;  ///< sample nearest the centroid
    int begin, end;      ///< range in tc_sphere_tree.order
    int child[2];        ///< -1 for a leaf
} tc_sphere_node;

typedef struct tc_sphere_tree {
    tc_sphere_node* nodes; ///< nodes[0] is the root
    int node_count, node_capacity;
    int* order;            ///< point indices grouped by cluster
    int point_count;
    tc_real leaf_radius;   ///< median leaf radius [m]; cut k keeps clusters of radius <= leaf_radius·2^(k−1)
} tc_sphere_tree;

/// Builds the tree over count points (count >= 1). Returns false on allocation failure.
bool tc_sphere_tree_build(tc_sphere_tree* tree, const tc_vec3* points, int count, int leaf_size);
void tc_sphere_tree_destroy(tc_sphere_tree* tree);
/// Whether node belongs to the cut of level k >= 1 (its radius fits, or it is a leaf), given its
/// parent did not.
bool tc_sphere_tree_in_cut(const tc_sphere_tree* tree, int node, int level);
/// Number of nodes in the cut of level k (k = 0: the points).
int tc_sphere_tree_cut_size(const tc_sphere_tree* tree, int level);

#endif
