#!/usr/bin/env python3
"""Render a quasi-rigid traction map as a PNG seen from below the ground, with a colour scale.
Input: the tractions.csv that `tactus run` writes for scenes with quasi-rigid bodies (columns
body,x,y,z,traction,...), or `quasi_bench --traction-map` (x,y,z,traction). Standard library only.

Usage: traction_map.py tractions.csv out.png [pixels] [body]
"""
import csv
import struct
import sys
import zlib

# Blue-to-yellow ramp (close to the library's tc_color_map: perceptual, dark blue -> yellow).
RAMP = [(0.0, (48, 18, 59)), (0.25, (70, 107, 227)), (0.5, (40, 188, 235)),
        (0.75, (164, 252, 60)), (1.0, (250, 235, 40))]


def colour(t):
    t = min(max(t, 0.0), 1.0)
    for (t0, c0), (t1, c1) in zip(RAMP, RAMP[1:]):
        if t <= t1:
            f = (t - t0) / (t1 - t0)
            return tuple(int(round(a + f * (b - a))) for a, b in zip(c0, c1))
    return RAMP[-1][1]


# 3x5 digits for the scale labels.
DIGITS = {
    '0': "111101101101111", '1': "010110010010111", '2': "111001111100111", '3': "111001111001111",
    '4': "101101111001001", '5': "111100111001111", '6': "111100111101111", '7': "111001001001001",
    '8': "111101111101111", '9': "111101111001111", '.': "000000000000010", 'k': "100101110101101",
    'P': "111101111100100", 'a': "000011101101011", ' ': "000000000000000",
}


def text(img, x, y, s, scale=2):
    for ch in s:
        glyph = DIGITS.get(ch, DIGITS[' '])
        for i, bit in enumerate(glyph):
            if bit == '1':
                for dy in range(scale):
                    for dx in range(scale):
                        px, py = x + (i % 3) * scale + dx, y + (i // 3) * scale + dy
                        if 0 <= py < len(img) and 0 <= px < len(img[0]):
                            img[py][px] = (0, 0, 0)
        x += 4 * scale


def write_png(path, img):
    h, w = len(img), len(img[0])
    raw = b''.join(b'\x00' + bytes(v for px in row for v in px) for row in img)

    def chunk(tag, data):
        return struct.pack('>I', len(data)) + tag + data + struct.pack('>I', zlib.crc32(tag + data) & 0xffffffff)

    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n')
        f.write(chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b'IDAT', zlib.compress(raw, 9)))
        f.write(chunk(b'IEND', b''))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    with open(sys.argv[1]) as f:
        body = sys.argv[4] if len(sys.argv) > 4 else None
        rows = [(float(r['x']), float(r['y']), float(r['z']), float(r['traction'])) for r in csv.DictReader(f)
                if body is None or r.get('body') == body]
    if not rows:
        sys.exit("%s: no samples%s" % (sys.argv[1], " of body " + body if body else ""))
    zmin = min(r[2] for r in rows)
    lower = [r for r in rows if r[2] < zmin + 0.5 * (max(r[2] for r in rows) - zmin)]  # the side facing the ground
    peak = max(r[3] for r in rows) or 1.0
    xs, ys = [r[0] for r in lower], [r[1] for r in lower]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    half = 0.55 * max(max(xs) - min(xs), max(ys) - min(ys))
    bar = 80
    img = [[(255, 255, 255)] * (size + bar) for _ in range(size)]
    acc = [[(0.0, 0.0)] * size for _ in range(size)]  # (sum of tractions, count) per pixel
    splat = max(1, int(size / 120))
    for x, y, _, t in lower:
        px = int((x - cx + half) / (2 * half) * (size - 1))
        py = int((cy + half - y) / (2 * half) * (size - 1))
        for dy in range(-splat, splat + 1):
            for dx in range(-splat, splat + 1):
                qx, qy = px + dx, py + dy
                if 0 <= qx < size and 0 <= qy < size:
                    s, n = acc[qy][qx]
                    acc[qy][qx] = (max(s, t), n + 1)
    for py in range(size):
        for px in range(size):
            s, n = acc[py][px]
            if n:
                img[py][px] = colour(s / peak) if s > 0 else (200, 200, 200)
    # colour scale with labels (kPa)
    for py in range(20, size - 20):
        t = 1 - (py - 20) / (size - 41)
        for px in range(size + 10, size + 30):
            img[py][px] = colour(t)
    text(img, size + 34, 18, "%.1f" % (peak / 1e3))
    text(img, size + 34, size // 2 - 4, "%.1f" % (peak / 2e3))
    text(img, size + 34, size - 26, "0")
    text(img, size + 34, size - 12, "kPa")
    write_png(sys.argv[2], img)
    print("wrote %s: peak traction %.1f kPa over %d samples in contact" % (sys.argv[2], peak / 1e3, sum(1 for r in rows if r[3] > 0)))


if __name__ == '__main__':
    main()
