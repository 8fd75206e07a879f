#!/usr/bin/env python3
"""Writes the seed-001 scenes (tetrahedral bodies) into scenes/. Rerun after changing one here."""
import itertools
import json
import math
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


def ring_mesh(R=0.2, a=0.05, segments=24, cells=2):
    """A ring of square cross-section (side 2a, centre-line radius R): a structured grid of
    cubes periodic around the axis, 6 tets per cube around its diagonal (conforming), every tet
    positively oriented. Returns (nodes, tets)."""
    m = cells + 1
    node = lambda i, j, k: (i % segments) * m * m + j * m + k
    nodes = []
    for i in range(segments):
        t = 2 * math.pi * i / segments
        for j in range(m):
            for k in range(m):
                r = R - a + 2 * a * j / cells
                nodes.append((r * math.cos(t), r * math.sin(t), -a + 2 * a * k / cells))
    tets = []
    for i, j, k in itertools.product(range(segments), range(cells), range(cells)):
        for perm in itertools.permutations(range(3)):
            c = [0, 0, 0]
            q = [node(i, j, k)]
            for axis in perm:
                c[axis] += 1
                q.append(node(i + c[0], j + c[1], k + c[2]))
            if volume6(*(nodes[v] for v in q)) < 0:
                q[1], q[2] = q[2], q[1]
            tets.append(q)
    return nodes, tets


def volume6(a, b, c, d):
    u, v, w = ([p[i] - a[i] for i in range(3)] for p in (b, c, d))
    return (u[1] * v[2] - u[2] * v[1]) * w[0] + (u[2] * v[0] - u[0] * v[2]) * w[1] + (u[0] * v[1] - u[1] * v[0]) * w[2]


def write_msh41(path, nodes, tets):
    """Gmsh ASCII 4.1: one volume entity holding every node and the linear tets (type 4)."""
    with open(path, "w") as f:
        f.write("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n")
        f.write("$Nodes\n1 %d 1 %d\n3 1 0 %d\n" % (len(nodes), len(nodes), len(nodes)))
        f.writelines("%d\n" % (i + 1) for i in range(len(nodes)))
        f.writelines("%.9g %.9g %.9g\n" % p for p in nodes)
        f.write("$EndNodes\n$Elements\n1 %d 1 %d\n3 1 4 %d\n" % (len(tets), len(tets), len(tets)))
        f.writelines("%d %d %d %d %d\n" % (t + 1, *(v + 1 for v in q)) for t, q in enumerate(tets))
        f.write("$EndElements\n")


def ring_on_peg():
    """A concave body read from Gmsh: the ring (scenes/meshes/ring.msh, written here) drops over
    a static peg and comes to rest on the ground around it."""
    write_msh41(os.path.join(SCENES, "meshes", "ring.msh"), *ring_mesh())
    return {"name": "tet_ring_peg", "description": "Seed 001: a deformable ring (a Gmsh .msh tet mesh) drops over a static peg and rests around it.",
            "world": {"time_step": 1 / 60, "sub_steps": 4}, "run": {"time": 2.5, "every": 4},
            "camera": {"eye": [1.0, -1.4, 0.9], "target": [0, 0, 0.15]}, "metrics": ["kinetic_energy"],
            "bodies": [GROUND, {"type": "static", "name": "peg", "position": [0, 0, 0.2], "shapes": [{"type": "box", "half_extents": [0.05, 0.05, 0.2]}]},
                       {"type": "tet", "name": "ring", "shape": "mesh", "mesh": "meshes/ring.msh", "position": [0.03, 0, 0.6],
                        "orientation": {"x": 0.0872, "y": 0, "z": 0, "w": 0.9962}, "youngs_modulus": 2e5, "damping": 0.02}]}


write("tet_mixed", mixed())
write("tet_cubes", cubes("consistent"))
write("tet_cubes_closest", cubes("closest"))
write("tet_sphere_stack", sphere_stack())
write("tet_on_rigid", on_rigid())
write("tet_ring_peg", ring_on_peg())
