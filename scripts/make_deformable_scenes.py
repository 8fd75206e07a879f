#!/usr/bin/env python3
"""Writes the seed-002 (quasi-rigid) and seed-000 (point-based) scenes into scenes/ (the socket
cloud of qr_ball_socket, scenes/qr_socket_cup.ply, comes from make_quasi_cup.py). Rerun after
changing a scene here."""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = os.path.join(HERE, "..", "scenes")
GROUND = {"type": "static", "name": "ground", "friction": 0.6,
          "shapes": [{"type": "plane", "normal": [0, 0, 1], "offset": 0}]}


def write(name, scene):
    with open(os.path.join(SCENES, name + ".json"), "w") as f:
        json.dump(scene, f, indent=1)
        f.write("\n")


def quasi_scenes():
    write("qr_press", {
        "name": "qr_press",
        "description": "Seed 002: a soft foot-like ellipsoid pressed on the ground by a load; the traction over the contact patch sums to the load.",
        "world": {"time_step": 1 / 60, "sub_steps": 4},
        "run": {"time": 2.0, "every": 6},
        "camera": {"eye": [0.5, -0.6, 0.3], "target": [0, 0, 0.05]},
        "metrics": ["quasi_force_z:foot", "body_height:foot"],
        "bodies": [GROUND, {"type": "quasi", "name": "foot", "shape": "ellipsoid", "half_extents": [0.12, 0.05, 0.04],
                            "sample_count": 6000, "shear_modulus": 2e5, "layer_damping": 3e5, "position": [0, 0, 0.04]}],
        "events": [{"time": 0.5, "action": "force", "body": "foot", "force": [0, 0, -10], "duration": 10}],
    })
    planes = [([0, 0, 1], 0), ([0, 0, -1], -1), ([-1, 0, 0], -0.5), ([1, 0, 0], -0.5), ([0, -1, 0], -0.5), ([0, 1, 0], -0.5)]
    shapes = [{"type": "plane", "normal": n, "offset": o} for n, o in planes]
    for k, (n, o) in enumerate(planes):  # two half-embedded bumps per wall: the walls are not planar
        t = [1, 0, 0] if abs(n[0]) < 0.5 else [0, 1, 0]
        base = [c * o for c in n]
        if k >= 2:
            base[2] += 0.5
        for side in (-0.2, 0.2):
            shapes.append({"type": "sphere", "radius": 0.15, "position": [base[i] + side * t[i] for i in range(3)]})
    write("qr_room", {
        "name": "qr_room",
        "description": "Seed 002: a quasi-rigid ellipsoid bouncing inside a closed room whose walls carry bumps.",
        # 4 sub-steps: a bounce spans two or three of them (ωh ≈ 1.7); the passivity cap keeps it from gaining energy
        "world": {"time_step": 1 / 60, "sub_steps": 4},
        "run": {"time": 3.0, "every": 3},
        "camera": {"eye": [0.3, -1.6, 0.9], "target": [0, 0, 0.4]},
        "metrics": ["kinetic_energy", "body_height:egg"],
        "bodies": [{"type": "static", "name": "room", "friction": 0.2, "shapes": shapes},
                   {"type": "quasi", "name": "egg", "shape": "ellipsoid", "half_extents": [0.08, 0.06, 0.05], "sample_count": 1500,
                    "shear_modulus": 1e6, "friction": 0.2, "position": [0, 0, 0.5], "velocity": [2.0, 1.3, 1.0],
                    "angular_velocity": [3, -2, 1]}],
    })
    slope = math.radians(15)
    write("qr_spinning_ball", {
        "name": "qr_spinning_ball",
        "description": "Seed 002: a ball spinning about the slope normal dropped on an inclined plane: friction curves its path sideways.",
        "world": {"time_step": 1 / 60, "sub_steps": 4},
        "run": {"time": 2.0, "every": 3},
        "camera": {"eye": [1.5, -2.5, 1.2], "target": [0.5, 0, 0]},
        "metrics": ["body_height:ball"],
        "bodies": [{"type": "static", "name": "slope", "friction": 0.5,
                    "shapes": [{"type": "plane", "normal": [-math.sin(slope), 0, math.cos(slope)], "offset": 0}]},
                   {"type": "quasi", "name": "ball", "radius": 0.1, "sample_count": 2000, "shear_modulus": 1e6, "friction": 0.5,
                    "layer_damping": 1e5, "position": [0, 0, 0.15], "angular_velocity": [0, 0, 30]}],
    })


def points_scenes():
    def body(name, shape, p, **kw):
        b = {"type": "points", "name": name, "shape": shape, "position": p}
        b.update(kw)
        return b
    plastic = {"phyxel_spacing": 0.035, "surfel_spacing": 0.018, "youngs_modulus": 5e4, "yield_strain": 0.02, "creep": 5,
               "max_plastic_strain": 0.3}
    write("points_pile", {
        "name": "points_pile",
        "description": "Seed 000: three plastic point-based objects fall on each other, form a pile, then slump apart.",
        "world": {"time_step": 1 / 60, "sub_steps": 4},
        "run": {"time": 2.0, "every": 4},
        "camera": {"eye": [0.6, -0.8, 0.5], "target": [0, 0, 0.1]},
        "metrics": ["kinetic_energy"],
        "bodies": [GROUND, body("slab", "box", [0, 0, 0.07], half_extents=[0.1, 0.1, 0.06], **plastic),
                   body("ball", "sphere", [0.02, 0.0, 0.25], radius=0.08, **plastic),
                   body("brick", "box", [-0.02, 0.01, 0.45], half_extents=[0.1, 0.1, 0.06], **plastic)],
    })
    write("points_cradle", {
        "name": "points_cradle",
        "description": "Seed 000: Newton's cradle of three stiff elastic point-based spheres (free row, no strings): momentum passes through.",
        "world": {"time_step": 1 / 60, "sub_steps": 4, "gravity": [0, 0, 0], "penalty_damping_ratio": 0},
        "run": {"time": 1.0, "every": 2},
        "camera": {"eye": [0.2, -0.7, 0.15], "target": [0.2, 0, 0]},
        "metrics": ["body_speed:ball_0", "body_speed:ball_2"],
        "bodies": [body("ball_%d" % i, "sphere", [i * 0.102, 0, 0], radius=0.05, phyxel_spacing=0.025, surfel_spacing=0.01,
                        youngs_modulus=1e6, damping=2, jitter=0, **({"velocity": [1, 0, 0]} if i == 0 else {})) for i in range(3)],
    })
    write("points_fracture", {
        "name": "points_fracture",
        "description": "Seed 000: a highly plastic bar pinned at its top stretches under gravity, fractures, and the parts fall and collide.",
        "world": {"time_step": 1 / 60, "sub_steps": 4},
        "run": {"time": 3.0, "every": 4},
        "camera": {"eye": [0.5, -0.8, 0.4], "target": [0, 0, 0.25]},
        "metrics": ["body_count", "kinetic_energy"],
        "bodies": [GROUND, body("putty", "box", [0, 0, 0.45], half_extents=[0.05, 0.05, 0.2], phyxel_spacing=0.033, surfel_spacing=0.015,
                                support_scale=2.5, youngs_modulus=3e4, volume_stiffness=3e4, creep=40, max_plastic_strain=3,
                                fracture=True, pinned_box=[[-0.06, -0.06, 0.16], [0.06, 0.06, 0.21]])],
    })
    write("points_press", {
        "name": "points_press",
        "description": "Seed 000: a soft point-based ball pressed into the ground: the contact surface flattens.",
        "world": {"time_step": 1 / 60, "sub_steps": 4},
        "run": {"time": 1.5, "every": 4},
        "camera": {"eye": [0.3, -0.4, 0.15], "target": [0, 0, 0.05]},
        "metrics": ["body_height:ball"],
        "bodies": [GROUND, body("ball", "sphere", [0, 0, 0.08], radius=0.08, phyxel_spacing=0.03, surfel_spacing=0.012,
                                youngs_modulus=3e4, volume_stiffness=3e4)],
    })


quasi_scenes()
points_scenes()
