#!/usr/bin/env python3
"""Writes scenes/qr_socket_cup.ply, the socket of qr_ball_socket: a thick hemispherical cup as a
point cloud with normals. Inner surface: 1,200 samples on the lower hemisphere of radius 5 cm
with normals into the cavity; outer surface: 600 samples of radius 7 cm facing out. Samples are
equal-area (uniform in z) with golden-angle azimuths, so the file is reproducible byte for byte."""
import math
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenes", "qr_socket_cup.ply")
GOLDEN = math.pi * (3 - math.sqrt(5))


def hemisphere(count, radius, facing):
    for k in range(count):
        z = -(k + 0.5) / count
        r = math.sqrt(1 - z * z)
        c, s = r * math.cos(GOLDEN * k), r * math.sin(GOLDEN * k)
        yield (radius * c, radius * s, radius * z, facing * c, facing * s, facing * z)


rows = list(hemisphere(1200, 0.05, -1)) + list(hemisphere(600, 0.07, 1))
with open(OUT, "w") as f:
    f.write("ply\nformat ascii 1.0\n"
            "comment qr_ball_socket: a thick hemispherical cup (inner radius 5 cm, normals into the cavity; outer 7 cm)\n"
            "element vertex %d\n" % len(rows))
    f.writelines("property float %s\n" % p for p in ("x", "y", "z", "nx", "ny", "nz"))
    f.write("end_header\n")
    f.writelines(" ".join("%.6f" % v for v in row) + "\n" for row in rows)
