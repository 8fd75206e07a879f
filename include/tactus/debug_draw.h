/// @file debug_draw.h
/// One drawing interface for every body kind: the library calls these with world-space
/// geometry; a host (the Tactus viewer, the offscreen renderer, your application) draws it.
#ifndef TACTUS_DEBUG_DRAW_H
#define TACTUS_DEBUG_DRAW_H

#include "tactus/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tc_color { float r, g, b, a; } tc_color;

typedef struct tc_debug_draw {
    /// A line segment from a to b (m, world).
    void (*draw_line)(tc_vec3 a, tc_vec3 b, tc_color color, void* context);
    /// A point of the given size in pixels.
    void (*draw_point)(tc_vec3 p, float size, tc_color color, void* context);
    /// A filled triangle with per-vertex normals and colours (for shading and colour maps).
    void (*draw_triangle)(const tc_vec3 v[3], const tc_vec3 n[3], const tc_color c[3], void* context);
    /// Text anchored at a world point (may be NULL).
    void (*draw_text)(tc_vec3 p, const char* text, tc_color color, void* context);
    void* context;
    bool draw_shapes;      ///< body surfaces (default on)
    bool draw_contacts;    ///< contact points and normals
    bool draw_penetration; ///< penetration depth vectors
    bool draw_tractions;   ///< per-node tractions as a colour map (quasi-rigid)
    bool draw_points;      ///< surfels and phyxels (point-based)
    bool draw_tets;        ///< tetrahedra edges
    bool draw_springs;     ///< spring edges
    bool draw_aabbs;       ///< bounding boxes
} tc_debug_draw;

/// A debug draw with every callback NULL and only draw_shapes on.
TC_API tc_debug_draw tc_debug_draw_default(void);
/// Colour of a scalar in [0, 1] on a perceptual blue-to-yellow map (values are clamped).
TC_API tc_color tc_color_map(double t);

#ifdef __cplusplus
}
#endif
#endif
