#!/usr/bin/env python3
"""Writes the seed-001 scenes (tetrahedral bodies) into scenes/. Rerun after changing one here."""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = os.path.join(HERE, "..", "scenes")
GROUND = {"type": "static", "name": "ground", "friction": 0.5, "shapes": [{"type": "plane", "normal": [0, 0, 1], "offset": 0}]}


def write(name, scene):
    with open(os.path.join(SCENES, name + ".json"), "w") as f:
        json.dump(scene, f, indent=1)
        f.write("\n")


def cubes(method):
    cube = {"type": "tet", "shape": "box", "half_extents": [0.15, 0.15, 0.15], "resolution": 4, "youngs_modulus": 2e5,
            "poisson_ratio": 0.3, "damping": 0.01, "depth_method": method}
    a = dict(cube, name="cube_a", position=[-0.4, 0, 0.5], velocity=[8, 0, 0])
    b = dict(cube, name="cube_b", position=[0.4, 0.05, 0.52], velocity=[-8, 0, 0])
    return {
        "name": "tet_cubes" + ("" if method == "consistent" else "_closest"),
        "description": "Seed 001: two deformable cubes collide at 16 m/s relative speed (deep penetration in one step), "
                       "depth by the " + ("consistent method" if method == "consistent" else "closest-feature baseline") + ".",
        "world": {"time_step": 1 / 60, "sub_steps": 8, "gravity": [0, 0, 0]},
        "run": {"time": 1.0, "every": 2},
        "camera": {"eye": [0, -2.5, 1], "target": [0, 0, 0.5]},
        "metrics": ["body_speed:cube_a", "body_speed:cube_b"],
        "bodies": [a, b],
    }


def sphere_stack():
    random.seed(11)
    walls = [{"type": "box", "half_extents": h, "position": p} for h, p in
             (([0.05, 0.4, 0.6], [-0.3, 0, 0.6]), ([0.05, 0.4, 0.6], [0.3, 0, 0.6]),
              ([0.4, 0.05, 0.6], [0, -0.3, 0.6]), ([0.4, 0.05, 0.6], [0, 0.3, 0.6]))]
    bodies = [GROUND, {"type": "static", "name": "pit", "friction": 0.3, "shapes": walls}]
    for i in range(4):
        bodies.append({"type": "tet", "name": "ball_%d" % i, "shape": "sphere", "radius": 0.15, "resolution": 4,
                       "youngs_modulus": 1e5, "damping": 0.02,
                       "position": [round(random.uniform(-0.08, 0.08), 3), round(random.uniform(-0.08, 0.08), 3), 0.2 + 0.35 * i]})
    return {"name": "tet_sphere_stack", "description": "Seed 001: deformable spheres dropped from jittered positions into a pit pile up without sticking.",
            "world": {"time_step": 1 / 60, "sub_steps": 4}, "run": {"time": 3.0, "every": 4},
            "camera": {"eye": [1.2, -1.8, 1.6], "target": [0, 0, 0.4]}, "metrics": ["kinetic_energy"], "bodies": bodies}


def on_rigid():
    return {"name": "tet_on_rigid", "description": "Seed 001: a tet box falls on a static rigid box, slides off onto the ground plane.",
            "world": {"time_step": 1 / 60, "sub_steps": 4}, "run": {"time": 3.0, "every": 4},
            "camera": {"eye": [1.5, -2, 1.2], "target": [0, 0, 0.3]}, "metrics": ["kinetic_energy"],
            "bodies": [GROUND, {"type": "static", "name": "step", "position": [0, 0, 0.15], "orientation": {"x": 0, "y": 0.13, "z": 0, "w": 0.9915},
                                "shapes": [{"type": "box", "half_extents": [0.4, 0.4, 0.15]}]},
                       {"type": "tet", "name": "jelly", "shape": "box", "half_extents": [0.15, 0.15, 0.1], "resolution": 4,
                        "youngs_modulus": 1e5, "position": [0, 0, 0.7]}]}


def mixed():
    """Convex and concave tet bodies of different sizes: an L-shape (a TetGen mesh made by
    scripts/obj2tet.sh from an L-shaped prism, shipped in scenes/meshes/), a sphere and boxes."""
    tet = lambda name, p, **kw: dict({"type": "tet", "name": name, "position": p, "youngs_modulus": 2e5, "damping": 0.02}, **kw)
    return {"name": "tet_mixed", "description": "Seed 001: an L-shaped TetGen mesh, a sphere and two boxes of different sizes fall on each other and on the ground.",
            "world": {"time_step": 1 / 60, "sub_steps": 4}, "run": {"time": 3.0, "every": 4},
            "camera": {"eye": [1.2, -1.6, 1.0], "target": [0, 0, 0.2]}, "metrics": ["kinetic_energy"],
            "bodies": [GROUND, tet("ell", [0, 0, 0.3], shape="mesh", mesh="meshes/lshape"),
                       tet("ball", [0.05, 0.02, 0.7], shape="sphere", radius=0.12, resolution=4),
                       tet("small_box", [-0.05, 0.05, 1.0], shape="box", half_extents=[0.06, 0.06, 0.06], resolution=2),
                       tet("big_box", [0.4, 0, 0.25], shape="box", half_extents=[0.15, 0.1, 0.1], resolution=3)]}


write("tet_mixed", mixed())
write("tet_cubes", cubes("consistent"))
write("tet_cubes_closest", cubes("closest"))
write("tet_sphere_stack", sphere_stack())
write("tet_on_rigid", on_rigid())
