#!/usr/bin/env python3
"""Writes the seed-004 experiment scenes (box_drop, brick_wall, tower, pyramid, convex_rain)
into scenes/. The JSON files are committed; rerun this after changing a scene here."""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = os.path.join(HERE, "..", "scenes")
GROUND = {"type": "static", "name": "ground", "friction": 0.6,
          "shapes": [{"type": "plane", "normal": [0, 0, 1], "offset": 0}]}


def quat(axis, angle):
    n = math.sqrt(sum(a * a for a in axis))
    s = math.sin(angle / 2) / n
    return {"x": axis[0] * s, "y": axis[1] * s, "z": axis[2] * s, "w": math.cos(angle / 2)}


def write(name, scene):
    with open(os.path.join(SCENES, name + ".json"), "w") as f:
        json.dump(scene, f, indent=1)
        f.write("\n")


def box_drop(method):
    return {
        "name": "box_drop" + ("" if method == "gauss_map" else "_tracking"),
        "description": "Seed 004 figure 9: a box dropped on a plane, contacts by "
                       + ("GJK-GD + Gauss-map feature intersection" if method == "gauss_map" else "contact tracking (baseline)"),
        "world": {"time_step": 1 / 60, "sub_steps": 4, "solver_iterations": 4, "enable_sleep": False},
        "run": {"time": 4.0, "every": 6},
        "camera": {"eye": [3, -4, 2], "target": [0, 0, 0.4]},
        "metrics": ["box_penetration:box", "box_alignment:box", "kinetic_energy"],
        "bodies": [GROUND, {"type": "rigid", "name": "box", "position": [0, 0, 1.2], "contact_method": method,
                            "orientation": quat([1, 0.5, 0], 0.35), "angular_velocity": [0.5, -1.0, 0.3],
                            "shapes": [{"type": "box", "half_extents": [0.5, 0.5, 0.5]}]}],
    }


def brick_wall():
    rows, cols = 8, 6
    events = []
    t = 1.0
    sizes = [cols + 1 if r % 2 else cols for r in range(rows)]  # odd courses: cols - 1 bricks + 2 halves
    total = sum(sizes)
    top = total - sizes[-1]
    for k in range(sizes[-1]):  # the top course, one brick at a time
        events.append({"time": t, "action": "remove", "body": "brick_%d" % (top + k)})
        t += 0.6
    below = top - sizes[-2]
    for k in (0, sizes[-2] - 1):  # then the two end bricks of the course below
        events.append({"time": t, "action": "remove", "body": "brick_%d" % (below + k)})
        t += 0.6
    return {
        "name": "brick_wall",
        "description": "A running-bond wall of 52 bricks (half bricks at the ends of odd courses); nine are removed one by one from the top, the rest stands.",
        "world": {"time_step": 1 / 60, "sub_steps": 4, "solver_iterations": 4},
        "run": {"time": 8.0, "every": 6},
        "camera": {"eye": [2, -7, 2.5], "target": [0, 0, 1.1]},
        "metrics": ["body_count", "kinetic_energy"],
        "bodies": [GROUND],
        "generators": [{"pattern": "wall", "name": "brick", "rows": rows, "columns": cols,
                        "half_extents": [0.2, 0.1, 0.075], "origin": [0, 0, 0], "friction": 0.7, "gap": 0.004}],
        "events": events,
    }


def gear(name, z, radius, teeth, thickness, rot):
    shapes = []
    n = 12  # hub: a 12-sided prism
    pts = []
    for k in range(n):
        a = 2 * math.pi * k / n
        for h in (-thickness / 2, thickness / 2):
            pts.append([round(radius * math.cos(a), 6), round(radius * math.sin(a), 6), h])
    shapes.append({"type": "hull", "points": pts})
    tooth = radius * math.sin(math.pi / teeth) * 0.9
    for k in range(teeth):
        a = 2 * math.pi * k / teeth
        r = radius + tooth * 0.9
        shapes.append({"type": "box", "half_extents": [tooth, tooth * 0.7, thickness / 2],
                       "position": [round(r * math.cos(a), 6), round(r * math.sin(a), 6), 0],
                       "orientation": quat([0, 0, 1], a)})
    return {"type": "rigid", "name": name, "position": [0, 0, z], "orientation": quat([0, 0, 1], rot), "shapes": shapes}


def tower():
    bodies = [GROUND]
    z = 0.0
    parts = [("base", {"type": "box", "half_extents": [0.6, 0.6, 0.15]}),
             ("prism", {"type": "hull", "points": [[-0.5, -0.4, -0.15], [0.5, -0.4, -0.15], [0, 0.5, -0.15],
                                                   [-0.5, -0.4, 0.15], [0.5, -0.4, 0.15], [0, 0.5, 0.15]]}),
             ("gear_a", None),
             ("slab", {"type": "box", "half_extents": [0.45, 0.3, 0.1]}),
             ("octagon", {"type": "hull", "points": [[round(0.4 * math.cos(k * math.pi / 4), 6), round(0.4 * math.sin(k * math.pi / 4), 6), h]
                                                     for k in range(8) for h in (-0.12, 0.12)]}),
             ("cube", {"type": "box", "half_extents": [0.25, 0.25, 0.25]}),
             ("gear_b", None),
             ("hexagon", {"type": "hull", "points": [[round(0.38 * math.cos(k * math.pi / 3), 6), round(0.38 * math.sin(k * math.pi / 3), 6), h]
                                                     for k in range(6) for h in (-0.12, 0.12)]}),
             ("cap", {"type": "box", "half_extents": [0.2, 0.2, 0.15]}),
             ("block", {"type": "box", "half_extents": [0.3, 0.3, 0.2]}),
             ("top", {"type": "box", "half_extents": [0.5, 0.15, 0.08]})]
    for name, shape in parts:
        if shape is None:
            z += 0.1
            bodies.append(gear(name, z + 0.001, 0.35, 10, 0.2, 0.1 if name == "gear_a" else 0.4))
            z += 0.1
            continue
        half = shape["half_extents"][2] if shape["type"] == "box" else max(p[2] for p in shape["points"])
        low = shape["half_extents"][2] if shape["type"] == "box" else -min(p[2] for p in shape["points"])
        z += low
        bodies.append({"type": "rigid", "name": name, "position": [0, 0, round(z + 0.001, 6)], "shapes": [shape]})
        z += half
    return {
        "name": "tower",
        "description": "Nine convex objects and two gears (composites of a 12-sided hub and 10 box teeth) stacked; "
                       "at 2 s a downward force on the overhanging end of the top plank tilts it.",
        "world": {"time_step": 1 / 60, "sub_steps": 4, "solver_iterations": 6},
        "run": {"time": 5.0, "every": 6},
        "camera": {"eye": [3, -4.5, 2.5], "target": [0, 0, 1.2]},
        "metrics": ["body_height:top", "box_alignment:top", "kinetic_energy"],
        "bodies": bodies,
        "events": [{"time": 2.0, "action": "force", "body": "top", "force": [0, 0, -1500], "point": [0.48, 0, round(z, 6)],
                    "duration": 0.3}],
    }


def pyramid():
    return {
        "name": "pyramid",
        "description": "A pyramid of 210 boxes with a 20-box base (seed 004 stability and speed scene).",
        "world": {"time_step": 1 / 60, "sub_steps": 4, "solver_iterations": 4},
        "run": {"time": 10.0, "every": 30},
        "camera": {"eye": [0, -30, 10], "target": [0, 0, 5]},
        "metrics": ["kinetic_energy", "body_height:box_209"],
        "bodies": [GROUND],
        "generators": [{"pattern": "pyramid", "name": "box", "base": 20, "half_extents": [0.5, 0.5, 0.5]}],
    }


def convex_rain():
    wall = lambda name, p, h: {"type": "static", "name": name, "position": p, "friction": 0.5,
                               "shapes": [{"type": "box", "half_extents": h}]}
    return {
        "name": "convex_rain",
        "description": "1000 random 16-point hulls fall into a box (seed 004 speed scene).",
        "world": {"time_step": 1 / 60, "sub_steps": 4, "solver_iterations": 4},
        "run": {"time": 6.0, "every": 30},
        "camera": {"eye": [0, -25, 18], "target": [0, 0, 4]},
        "metrics": ["kinetic_energy"],
        "bodies": [GROUND, wall("wall_x0", [-6.5, 0, 3], [0.5, 7, 3]), wall("wall_x1", [6.5, 0, 3], [0.5, 7, 3]),
                   wall("wall_y0", [0, -6.5, 3], [6, 0.5, 3]), wall("wall_y1", [0, 6.5, 3], [6, 0.5, 3])],
        "generators": [{"pattern": "random_hulls", "name": "rock", "count": 1000, "points": 16, "seed": 7, "radius": 0.35,
                        "extent": [11, 11, 14], "origin": [-5.5, -5.5, 1]}],
    }


write("box_drop", box_drop("gauss_map"))
write("box_drop_tracking", box_drop("tracking"))
write("brick_wall", brick_wall())
write("tower", tower())
write("pyramid", pyramid())
write("convex_rain", convex_rain())
