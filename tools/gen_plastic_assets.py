#!/usr/bin/env python3
"""gen_plastic_assets.py — the two authored plastic assets of issue 13 (seed 001).

Writes, for a barrel and a car-like body, what an artist would hand the
cooker (the data rule of the Makefile cooks them, docs/example-plasticity.md):

  data/meshes/NAME.obj   the closed surface, metres, y up
  data/rigs/NAME.rig     bones placed by hand-picked rules (below), parents first
  data/poses/NAME.pose   example deformations, each moving some bones
  data/meshes/NAME.cook  the cook options (grid, geodesic lists out to gamma)

barrel: a bulged cylinder 0.9 m tall, 0.34 m radius at the waist; 12 bones
(three levels of four around the axis); 3 examples besides the rest pose
(the seed's Table 1 barrel row): a side dent, a squash, a bend.

car: a 4 m x 1.8 m x 1.4 m car silhouette (body and cabin) extruded across
its width; 30 bones (a 6 x 3 grid in the body, a 4 x 3 grid in the cabin);
6 examples: front and rear crashes, a dent in each side, a crushed roof and a
flattened car.

Run from the repository root: python3 tools/gen_plastic_assets.py. The output
is plain text with fixed formatting, so running it again gives the same bytes.
"""
import math
import os


def fmt(x):
    s = "%.6f" % x
    if s == "-0.000000":
        s = "0.000000"
    return s


def write_obj(path, header, verts, faces):
    with open(path, "w") as f:
        for line in header:
            f.write("# " + line + "\n")
        for v in verts:
            f.write("v %s %s %s\n" % (fmt(v[0]), fmt(v[1]), fmt(v[2])))
        for t in faces:
            f.write("f " + " ".join(str(i + 1) for i in t) + "\n")


def quat_axis(axis, deg):
    n = math.sqrt(sum(a * a for a in axis))
    h = math.radians(deg) / 2
    s = math.sin(h) / n
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(h))


def barrel():
    h, rings, seg = 0.9, 18, 32
    verts, faces = [], []

    def radius(y):
        t = 2 * y / h
        return 0.30 + 0.04 * (1 - t * t)

    for i in range(rings + 1):
        y = -h / 2 + h * i / rings
        r = radius(y)
        for j in range(seg):
            a = 2 * math.pi * j / seg
            verts.append((r * math.cos(a), y, -r * math.sin(a)))
    # caps: concentric rings to a centre, so the lid has vertices to dent
    cap_rings = 4
    for top in (0, 1):
        y = h / 2 if top else -h / 2
        r0 = radius(y)
        ring_start = []
        outer = rings * seg if top else 0
        prev = outer
        for k in range(1, cap_rings):
            s = 1 - k / cap_rings
            start = len(verts)
            for j in range(seg):
                a = 2 * math.pi * j / seg
                verts.append((r0 * s * math.cos(a), y, -r0 * s * math.sin(a)))
            ring_start.append((prev, start))
            prev = start
        centre = len(verts)
        verts.append((0.0, y, 0.0))
        for (a0, b0) in ring_start:
            for j in range(seg):
                a, b = a0 + j, a0 + (j + 1) % seg
                c, d = b0 + j, b0 + (j + 1) % seg
                faces += [(a, b, d), (a, d, c)] if top else [(a, d, b), (a, c, d)]
        for j in range(seg):
            a, b = prev + j, prev + (j + 1) % seg
            faces.append((a, b, centre) if top else (a, centre, b))
    for i in range(rings):
        for j in range(seg):
            a, b = i * seg + j, i * seg + (j + 1) % seg
            c, d = a + seg, b + seg
            faces += [(a, b, d), (a, d, c)]
    write_obj("data/meshes/barrel.obj", [
        "barrel.obj — a bulged barrel, 0.9 m tall, 0.34 m radius at the waist (tools/gen_plastic_assets.py).",
        "Rig: data/rigs/barrel.rig, examples: data/poses/barrel.pose (issue 13, seed 001 Table 1)."], verts, faces)

    # bones: levels low/mid/top, four around (east, north, west, south) at 0.16 m
    names = []
    with open("data/rigs/barrel.rig", "w") as f:
        f.write("# barrel.rig — 12 bones for data/meshes/barrel.obj (OBJ coordinates, metres).\n")
        f.write("#   bone NAME PARENT|- X Y Z   (parents first). Three levels of four bones around\n")
        f.write("#   the axis; each column is a chain up the staves, the low east bone is the root.\n")
        levels = (("low", -0.3), ("mid", 0.0), ("top", 0.3))
        sides = (("e", 1, 0), ("n", 0, -1), ("w", -1, 0), ("s", 0, 1))
        for li, (lv, y) in enumerate(levels):
            for si, (sd, cx, cz) in enumerate(sides):
                name = lv + "_" + sd
                if li == 0:
                    parent = "-" if si == 0 else "low_e"
                else:
                    parent = levels[li - 1][0] + "_" + sd
                f.write("bone %-6s %-6s %s %s %s\n" % (name, parent, fmt(0.16 * cx), fmt(y), fmt(0.16 * cz)))
                names.append(name)
    with open("data/poses/barrel.pose", "w") as f:
        f.write("# barrel.pose — example deformations of data/meshes/barrel.obj (seed 001).\n")
        f.write("# Example 0 is the rest pose. Each line: BONE TX TY TZ [QX QY QZ QW], a rotation\n")
        f.write("# about the bone's rest position, then a translation (OBJ coordinates, metres).\n\n")
        f.write("# a stave pushed in on the east side, deepest at the waist\n")
        f.write("example dent\n")
        f.write("mid_e  -0.140000 0.000000 0.000000\n")
        f.write("low_e  -0.050000 0.020000 0.000000\n")
        f.write("top_e  -0.050000 -0.020000 0.000000\n\n")
        f.write("# squashed from above: the top comes down, the waist bulges out\n")
        f.write("example squash\n")
        for sd, cx, cz in (("e", 1, 0), ("n", 0, -1), ("w", -1, 0), ("s", 0, 1)):
            f.write("top_%s  %s -0.180000 %s\n" % (sd, fmt(0.05 * cx), fmt(0.05 * cz)))
            f.write("mid_%s  %s -0.080000 %s\n" % (sd, fmt(0.08 * cx), fmt(0.08 * cz)))
        f.write("\n# bent over to the east: the top leans 25 degrees about z\n")
        f.write("example bend\n")
        q = quat_axis((0, 0, 1), -25)
        for sd in ("e", "n", "w", "s"):
            f.write("top_%s  0.140000 -0.020000 0.000000 %s %s %s %s\n" % (sd, fmt(q[0]), fmt(q[1]), fmt(q[2]), fmt(q[3])))
            f.write("mid_%s  0.040000 0.000000 0.000000\n" % sd)
    with open("data/meshes/barrel.cook", "w") as f:
        f.write("--sdf-res 32 --geodesic-radius 0.6 --geodesic-max 1024\n")
    return len(verts)


def car():
    # side silhouette (x forward, y up), counter-clockwise seen from +z
    profile = [(-2.0, 0.25), (2.0, 0.25), (2.0, 0.75), (1.3, 0.9), (0.6, 1.4), (-0.9, 1.4), (-1.6, 0.95), (-2.0, 0.85)]
    n = len(profile)
    cx = sum(p[0] for p in profile) / n
    cy = sum(p[1] for p in profile) / n
    for i in range(n):  # star-shaped about its centroid, so the caps can be concentric rings
        a, b = profile[i], profile[(i + 1) % n]
        assert (a[0] - cx) * (b[1] - cy) - (a[1] - cy) * (b[0] - cx) > 0, "car profile must be star-shaped"
    step = 0.2
    ring = []
    for i in range(n):
        a, b = profile[i], profile[(i + 1) % n]
        k = max(1, int(round(math.hypot(b[0] - a[0], b[1] - a[1]) / step)))
        for j in range(k):
            t = j / k
            ring.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
    m = len(ring)
    half_w, slices = 0.9, 9
    verts, faces = [], []
    for s in range(slices + 1):
        z = -half_w + 2 * half_w * s / slices
        for (x, y) in ring:
            verts.append((x, y, z))
    for s in range(slices):
        for j in range(m):
            a, b = s * m + j, s * m + (j + 1) % m
            c, d = a + m, b + m
            faces += [(a, b, d), (a, d, c)]
    cap_rings = 5
    for side in (0, 1):
        z = half_w if side else -half_w
        prev = slices * m if side else 0
        pairs = []
        for k in range(1, cap_rings):
            sc = 1 - k / cap_rings
            start = len(verts)
            for (x, y) in ring:
                verts.append((cx + sc * (x - cx), cy + sc * (y - cy), z))
            pairs.append((prev, start))
            prev = start
        centre = len(verts)
        verts.append((cx, cy, z))
        for (a0, b0) in pairs:
            for j in range(m):
                a, b = a0 + j, a0 + (j + 1) % m
                c, d = b0 + j, b0 + (j + 1) % m
                faces += [(a, b, d), (a, d, c)] if side else [(a, d, b), (a, c, d)]
        for j in range(m):
            a, b = prev + j, prev + (j + 1) % m
            faces.append((a, b, centre) if side else (a, centre, b))
    write_obj("data/meshes/car.obj", [
        "car.obj — a 4 m car-like body: a body and a cabin extruded 1.8 m across (tools/gen_plastic_assets.py).",
        "Rig: data/rigs/car.rig (30 bones), examples: data/poses/car.pose (6, a flattened one among them)."],
        verts, faces)

    xs_body = (-1.7, -1.0, -0.35, 0.35, 1.0, 1.7)
    xs_cabin = (-0.9, -0.3, 0.3, 0.9)
    zs = (("r", -0.55), ("c", 0.0), ("l", 0.55))
    body = [("b%d%s" % (i, zn), x, 0.55, z) for i, x in enumerate(xs_body) for zn, z in zs]
    cabin = [("c%d%s" % (i, zn), x, 1.1, 0.8 * z) for i, x in enumerate(xs_cabin) for zn, z in zs]
    with open("data/rigs/car.rig", "w") as f:
        f.write("# car.rig — 30 bones for data/meshes/car.obj (OBJ coordinates, metres; x forward, z left).\n")
        f.write("#   bone NAME PARENT|- X Y Z   (parents first). b<i><r|c|l>: a 6 x 3 grid in the body at\n")
        f.write("#   0.55 m; c<i><r|c|l>: a 4 x 3 grid in the cabin at 1.1 m. The body's centre line is a\n")
        f.write("#   chain from the rear; side bones hang off it, cabin bones off the body bone below.\n")
        for i, x in enumerate(xs_body):
            parent = "-" if i == 0 else "b%dc" % (i - 1)
            f.write("bone b%dc %-4s %s %s %s\n" % (i, parent, fmt(x), fmt(0.55), fmt(0.0)))
        for i, x in enumerate(xs_body):
            for zn, z in zs:
                if zn != "c":
                    f.write("bone b%d%s b%dc %s %s %s\n" % (i, zn, i, fmt(x), fmt(0.55), fmt(z)))
        for i, x in enumerate(xs_cabin):
            below = min(range(len(xs_body)), key=lambda k: abs(xs_body[k] - x))
            for zn, z in zs:
                f.write("bone c%d%s b%d%s %s %s %s\n" % (i, zn, below, zn, fmt(x), fmt(1.1), fmt(0.8 * z)))
    bones = body + cabin
    assert len(bones) == 30

    def pose(f, name, comment, move):
        for line in comment.split("\n"):
            f.write("# " + line + "\n")
        f.write("example " + name + "\n")
        for (bn, x, y, z) in bones:
            t = move(x, y, z)
            if t is None:
                continue
            if len(t) == 3:
                f.write("%-4s %s %s %s\n" % (bn, fmt(t[0]), fmt(t[1]), fmt(t[2])))
            else:
                f.write("%-4s %s %s %s %s %s %s %s\n" % ((bn,) + tuple(fmt(v) for v in t)))
        f.write("\n")

    with open("data/poses/car.pose", "w") as f:
        f.write("# car.pose — example deformations of data/meshes/car.obj (seed 001, Fig. 7).\n")
        f.write("# Example 0 is the rest pose. Each line: BONE TX TY TZ [QX QY QZ QW], a rotation\n")
        f.write("# about the bone's rest position, then a translation (OBJ coordinates, metres).\n\n")
        pose(f, "front_crash", "the nose pushed back 45 cm and buckled up",
             lambda x, y, z: (-0.45 * (x - 0.6) / 1.1, 0.08 * (x - 0.6) / 1.1, 0.0) if x > 0.6 else None)
        pose(f, "rear_crash", "the tail pushed in 35 cm",
             lambda x, y, z: (0.35 * (-0.6 - x) / 1.1, 0.05 * (-0.6 - x) / 1.1, 0.0) if x < -0.6 else None)
        pose(f, "side_left", "the left doors pushed in 30 cm, most at the middle",
             lambda x, y, z: (0.0, 0.0, -0.3 * max(0.0, 1 - abs(x) / 1.6)) if z > 0.1 else None)
        pose(f, "side_right", "the right doors pushed in 30 cm, most at the middle",
             lambda x, y, z: (0.0, 0.0, 0.3 * max(0.0, 1 - abs(x) / 1.6)) if z < -0.1 else None)
        pose(f, "roof_crush", "the front of the roof pushed down 35 cm (a hit on the windscreen pillar)",
             lambda x, y, z: (0.0, -0.35, 0.0) if y > 1.0 and x > 0 else None)
        # m: how far the shape below drops its centre of volume (cri_mesh_mass_of on the cooked
        # car, the pose applied whole); added back so the pose keeps the centre (why: its comment)
        rise = 0.188
        pose(f, "flattened", "flattened: the cabin down 55 cm onto the body, which spreads sideways on its floor.\n"
             "Authored about the body's centre of volume, as the runtime keeps it (example_model.c,\n"
             "follow_mass, seed 001 section 3.2): every bone is 18.8 cm higher than the shape alone needs,\n"
             "the drop of the flattened shape's centre. A uniform shift is invisible once the body is\n"
             "recentred, but it is what the Jacobian (eq. 5) sees: authored with the floor 5 cm down,\n"
             "the ground's push up on a crushed car's floor read as 'un-flatten' (docs/example-plasticity.md).",
             lambda x, y, z: (0.0, -0.55 + rise, 0.15 * z) if y > 1.0 else (0.0, -0.05 + rise, 0.3 * z))
    with open("data/meshes/car.cook", "w") as f:
        f.write("--sdf-res 48 --geodesic-radius 4 --geodesic-max 4096\n")
    return len(verts)


if __name__ == "__main__":
    for d in ("data/meshes", "data/rigs", "data/poses"):
        os.makedirs(d, exist_ok=True)
    print("barrel: %d vertices" % barrel())
    print("car: %d vertices" % car())
