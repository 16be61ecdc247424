#!/usr/bin/env python3
"""peer_scenes.py — the five peer scenes of ../shared/peer-scenes.md, written once
for every engine.

    python3 tests/peers/peer_scenes.py SCENE_DIR MESH_DIR LAYOUT_DIR

writes SCENE_DIR/peer_{pile,stack,incline,rings,terrain,bounce,dominoes}.scene (crumple's scene
format, docs/scene-format.md), MESH_DIR/peer_terrain{0..3}.obj (the terrain's
four quarters as the closed slabs crumple cooks into signed distance grids) and
LAYOUT_DIR/{scene}.txt, the same bodies for the Bullet and ODE programs
(tests/peers/bullet_peer.cpp, ode_peer.c), one body per line:

    sphere R  x y z  qx qy qz qw
    box HX HY HZ  x y z  qx qy qz qw
    torus R r  x y z  qx qy qz qw
    velocity vx vy vz  wx wy wz      (optional, the previous body's start)

after a header line `scene NAME friction MU restitution E` holding the
*combined* coefficients (each peer sets each body's own to what its product
rule turns into these; crumple's pair rule is the smaller of the two, so both
of its materials get the combined value directly).

Random layouts use the one LCG of the spec, so every engine gets identical
poses; numbers are printed with 9 significant digits, which a float reads back
exactly, and crumple's scene loader rounds them once (docs/scene-format.md).
Every body has mass 1 kg: crumple takes density = 1 / volume (the torus's
volume is its 20 x 10 polyhedron's, which is what crumple's cooker measures).
"""
import math
import os
import sys


class Lcg:
    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def rand01(self):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return (self.state >> 8) / float(1 << 24)

    def rand_sym(self, a):
        return (2.0 * self.rand01() - 1.0) * a


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def qaxis(axis, angle):
    s = math.sin(0.5 * angle)
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(0.5 * angle))


def g(v):
    return "%.9g" % v


TORUS_R, TORUS_r, TORUS_U, TORUS_W = 1.0, 0.25, 20, 10
SPHERE_VOLUME = 4.0 / 3.0 * math.pi * 0.5 ** 3


def torus_mesh():
    """Vertices and outward triangles of the spec's torus (and of `crumple gen torus`)."""
    v = []
    for i in range(TORUS_U):
        u = 2 * math.pi * i / TORUS_U
        for j in range(TORUS_W):
            w = 2 * math.pi * j / TORUS_W
            ring = TORUS_R + TORUS_r * math.cos(w)
            v.append((ring * math.cos(u), TORUS_r * math.sin(w), ring * math.sin(u)))
    t = []
    for i in range(TORUS_U):
        for j in range(TORUS_W):
            a = i * TORUS_W + j
            b = i * TORUS_W + (j + 1) % TORUS_W
            c = ((i + 1) % TORUS_U) * TORUS_W + (j + 1) % TORUS_W
            d = ((i + 1) % TORUS_U) * TORUS_W + j
            t += [(a, b, c), (a, c, d)]
    return v, t


def mesh_volume(v, t):
    vol = 0.0
    for a, b, c in t:
        pa, pb, pc = v[a], v[b], v[c]
        vol += (pa[0] * (pb[1] * pc[2] - pb[2] * pc[1]) - pa[1] * (pb[0] * pc[2] - pb[2] * pc[0]) +
                pa[2] * (pb[0] * pc[1] - pb[1] * pc[0])) / 6.0
    return abs(vol)


TERRAIN_QUARTERS = [(-32, -32), (0, -32), (-32, 0), (0, 0)]
BOUNCE_SPEED, BOUNCE_GAP = 4.4294, 0.01  # m/s at impact (a 1 m drop), m between the sphere and the ground at the start
DOMINO_SPIN = 1.5  # rad/s: the first domino's top starts at 0.75 m/s


def terrain_height(x, z):
    return 0.8 * math.sin(0.45 * x) * math.cos(0.45 * z) + 0.25 * math.sin(1.3 * x + 0.5) * math.sin(1.1 * z + 0.2)


def terrain_obj(x0, z0):
    """One quarter of the spec's 64 x 64 one-metre cells (32 x 32 cells from
    corner x0, z0), closed into a slab (sides and a bottom at y = -1.5) because
    crumple turns a static mesh into a signed distance grid. Quarters, because a
    whole 64 m slab's inertia per unit density (1.5e6 m^5) is beyond what a
    cooked asset may store (2^20); the four meet edge to edge."""
    n, base = 32, -1.5
    row = n + 1
    v = []
    for k in range(row):
        for i in range(row):
            x, z = x0 + i, z0 + k
            v.append((x, terrain_height(x, z), z))
    tris = []  # (a, b, c, outward direction)
    for k in range(n):
        for i in range(n):
            a, b, c, d = i + k * row, i + (k + 1) * row, i + 1 + (k + 1) * row, i + 1 + k * row
            tris += [(a, b, c, (0, 1, 0)), (a, c, d, (0, 1, 0))]
    ring = [i for i in range(n)] + [n + k * row for k in range(n)] + \
           [i + n * row for i in range(n, 0, -1)] + [k * row for k in range(n, 0, -1)]
    first = len(v)
    for r in ring:
        v.append((v[r][0], base, v[r][2]))
    for j in range(len(ring)):
        j1 = (j + 1) % len(ring)
        ta, tb, ba, bb = ring[j], ring[j1], first + j, first + j1
        mx, mz = (v[ta][0] + v[tb][0]) * 0.5 - (x0 + 16), (v[ta][2] + v[tb][2]) * 0.5 - (z0 + 16)
        out = (1 if mx > 0 else -1, 0, 0) if abs(mx) > abs(mz) else (0, 0, 1 if mz > 0 else -1)
        tris += [(ta, tb, bb, out), (ta, bb, ba, out)]
    centre = len(v)
    v.append((x0 + 16.0, base, z0 + 16.0))
    for j in range(len(ring)):
        tris.append((centre, first + j, first + (j + 1) % len(ring), (0, -1, 0)))
    lines = ["# a quarter of the peer scenes' terrain (../shared/peer-scenes.md): 32 x 32 one-metre cells from",
             "# x = %g, z = %g; h(x, z) = 0.8 sin(0.45x) cos(0.45z) + 0.25 sin(1.3x + 0.5) sin(1.1z + 0.2);" % (x0, z0),
             "# closed down to y = -1.5",
             "# (written by tests/peers/peer_scenes.py)"]
    for p in v:
        lines.append("v %s %s %s" % (g(p[0]), g(p[1]), g(p[2])))
    for a, b, c, out in tris:
        pa, pb, pc = v[a], v[b], v[c]
        e1 = [pb[i] - pa[i] for i in range(3)]
        e2 = [pc[i] - pa[i] for i in range(3)]
        nrm = (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0])
        if nrm[0] * out[0] + nrm[1] * out[1] + nrm[2] * out[2] < 0:
            b, c = c, b
        lines.append("f %d %d %d" % (a + 1, b + 1, c + 1))
    return "\n".join(lines) + "\n"


def scene_header(name, what, mu, e):
    return ["crumple-scene 1",
            "# %s.scene — written by tests/peers/peer_scenes.py: %s" % (name, what),
            "# The peers' scene (../shared/peer-scenes.md), run by `make bench-peers` side by side with",
            "# Bullet and ODE. Combined friction %s, restitution %s: crumple's pair takes the smaller" % (g(mu), g(e)),
            "# of its two materials, so every material here has the combined value. Mass 1 kg each.",
            "frames 600",
            ""]


def build(scene_dir, mesh_dir, layout_dir):
    scenes = {}
    unit_density = 1.0
    sphere_density = 1.0 / SPHERE_VOLUME

    # 1. pile
    mu, e = 0.25, 0.0
    sc = scene_header("peer_pile", "1000 bodies, 500 spheres r 0.5 and 500 unit cubes.", mu, e)
    sc += ["material cube   density %s restitution %s friction %s" % (g(unit_density), g(e), g(mu)),
           "material sphere density %s restitution %s friction %s" % (g(sphere_density), g(e), g(mu)),
           "body ground static plane material cube"]
    lay = ["scene pile friction %s restitution %s" % (g(mu), g(e))]
    rng = Lcg(12345)
    for i in range(10):
        for j in range(10):
            for k in range(10):
                x = (i - 4.5) * 1.5 + rng.rand_sym(0.05)
                z = (k - 4.5) * 1.5 + rng.rand_sym(0.05)
                y = 1.0 + 1.5 * j
                name = "b%d_%d_%d" % (i, j, k)
                if (i + j + k) % 2:
                    sc.append("body %s dynamic sphere 0.5 material sphere position %s %s %s" % (name, g(x), g(y), g(z)))
                    lay.append("sphere 0.5 %s %s %s 0 0 0 1" % (g(x), g(y), g(z)))
                else:
                    sc.append("body %s dynamic box 0.5 0.5 0.5 material cube position %s %s %s" % (name, g(x), g(y), g(z)))
                    lay.append("box 0.5 0.5 0.5 %s %s %s 0 0 0 1" % (g(x), g(y), g(z)))
    scenes["pile"] = (sc, lay)

    # 2. stack
    mu, e = 0.25, 0.0
    sc = scene_header("peer_stack", "10 unit cubes stacked on the ground.", mu, e)
    sc += ["material cube density 1 restitution %s friction %s" % (g(e), g(mu)),
           "body ground static plane material cube"]
    lay = ["scene stack friction %s restitution %s" % (g(mu), g(e))]
    for n in range(10):
        y = 0.5 + n
        sc.append("body cube%d dynamic box 0.5 0.5 0.5 material cube position 0 %s 0" % (n, g(y)))
        lay.append("box 0.5 0.5 0.5 0 %s 0 0 0 0 1" % g(y))
    scenes["stack"] = (sc, lay)

    # 3. incline: the slab's top face passes through the origin, the cube rests on it there
    mu, e = 1.0, 1.0
    a = math.radians(30.0)
    nrm = (-math.sin(a), math.cos(a), 0.0)
    q = qaxis((0, 0, 1), a)
    slab = tuple(-0.5 * c for c in nrm)
    cube = tuple(0.5 * c for c in nrm)
    sc = scene_header("peer_incline", "a unit cube at rest on a 30 degree slab.", mu, e)
    sc += ["material grippy density 1 restitution %s friction %s" % (g(e), g(mu)),
           "body slab static box 10 0.5 5 material grippy position %s %s %s quat %s %s %s %s" %
           (g(slab[0]), g(slab[1]), g(slab[2]), g(q[0]), g(q[1]), g(q[2]), g(q[3])),
           "body cube dynamic box 0.5 0.5 0.5 material grippy position %s %s %s quat %s %s %s %s" %
           (g(cube[0]), g(cube[1]), g(cube[2]), g(q[0]), g(q[1]), g(q[2]), g(q[3]))]
    lay = ["scene incline friction %s restitution %s" % (g(mu), g(e)),
           "box 0.5 0.5 0.5 %s %s %s %s %s %s %s" % (g(cube[0]), g(cube[1]), g(cube[2]), g(q[0]), g(q[1]), g(q[2]), g(q[3]))]
    scenes["incline"] = (sc, lay)

    # 4. rings
    mu, e = 0.25, 0.0
    tv, tt = torus_mesh()
    torus_density = 1.0 / mesh_volume(tv, tt)
    sc = scene_header("peer_rings", "200 tori (R 1, r 0.25, 20 x 10 segments) in a 2 x 2 column.", mu, e)
    sc += ["material ring density %s restitution %s friction %s" % (g(torus_density), g(e), g(mu)),
           "asset torus ../meshes/torus.obj",
           "body ground static plane material ring"]
    lay = ["scene rings friction %s restitution %s" % (g(mu), g(e))]
    rng = Lcg(777)
    for k in range(200):
        layer, corner = k // 4, k % 4
        x = (1.5 if corner & 1 else -1.5) + rng.rand_sym(0.1)
        z = (1.5 if corner & 2 else -1.5) + rng.rand_sym(0.1)
        y = 1.0 + 1.2 * layer
        phi = 2 * math.pi * rng.rand01()
        tilt = rng.rand_sym(math.radians(15.0))
        yaw = 2 * math.pi * rng.rand01()
        q = qmul(qaxis((math.cos(phi), 0.0, math.sin(phi)), tilt), qaxis((0, 1, 0), yaw))
        sc.append("body ring%d dynamic mesh torus material ring position %s %s %s quat %s %s %s %s" %
                  (k, g(x), g(y), g(z), g(q[0]), g(q[1]), g(q[2]), g(q[3])))
        lay.append("torus 1 0.25 %s %s %s %s %s %s %s" % (g(x), g(y), g(z), g(q[0]), g(q[1]), g(q[2]), g(q[3])))
    scenes["rings"] = (sc, lay)

    # 5. terrain
    mu, e = 0.25, 0.0
    sc = scene_header("peer_terrain", "100 spheres on a 64 x 64-cell static triangle-mesh terrain.", mu, e)
    sc += ["material ground density 1 restitution %s friction %s" % (g(e), g(mu)),
           "material ball density %s restitution %s friction %s" % (g(sphere_density), g(e), g(mu)),
           "# the terrain in four 32 x 32-cell quarters (one 64 m slab is beyond a cooked asset's range),",
           "# each placed in its file's own frame: the slab's top is y = h(x, z)"]
    for q, (x0, z0) in enumerate(TERRAIN_QUARTERS):
        sc += ["asset terrain%d ../meshes/peer_terrain%d.obj sdf 128" % (q, q),
               "body ground%d static mesh terrain%d material ground" % (q, q)]
    lay = ["scene terrain friction %s restitution %s" % (g(mu), g(e))]
    for i in range(10):
        for k in range(10):
            x, z = (i - 4.5) * 1.5, (k - 4.5) * 1.5
            sc.append("body ball%d_%d dynamic sphere 0.5 material ball position %s 3 %s" % (i, k, g(x), g(z)))
            lay.append("sphere 0.5 %s 3 %s 0 0 0 1" % (g(x), g(z)))
    scenes["terrain"] = (sc, lay)

    # 6. bounce (issue 28): a 0.1 m sphere reaching the ground at 4.4294 m/s (dropped from 1 m), restitution 0.5
    #    combined; 1 cm above the ground at the start, so the first step is the impact and the largest rise is the
    #    rebound's apex: rebound speed / impact speed = sqrt(2 g (rise + 0.01)) / 4.4294
    mu, e = 0.5, 0.5
    v0 = math.sqrt(BOUNCE_SPEED ** 2 - 2 * 9.81 * BOUNCE_GAP)
    y = 0.1 + BOUNCE_GAP
    sc = scene_header("peer_bounce", "a 0.1 m sphere hitting the ground at 4.43 m/s, restitution 0.5.", mu, e)
    sc += ["material ball density %s restitution %s friction %s" % (g(1.0 / (4.0 / 3.0 * math.pi * 0.1 ** 3)), g(e), g(mu)),
           "body ground static plane material ball",
           "body ball dynamic sphere 0.1 material ball position 0 %s 0 velocity 0 %s 0" % (g(y), g(-v0))]
    lay = ["scene bounce friction %s restitution %s" % (g(mu), g(e)),
           "sphere 0.1 0 %s 0 0 0 0 1" % g(y), "velocity 0 %s 0 0 0 0" % g(-v0)]
    scenes["bounce"] = (sc, lay)

    # 7. dominoes (issue 28): ten wooden dominoes 5 x 50 x 20 cm, 30 cm apart, friction 0.5, restitution 0.1, the
    #    first set tipping about its front edge at DOMINO_SPIN; the figure is how many turned past 45 degrees
    mu, e = 0.5, 0.1
    sc = scene_header("peer_dominoes", "ten dominoes 5 x 50 x 20 cm, 30 cm apart, the first tipped over.", mu, e)
    sc += ["material wood density %s restitution %s friction %s" % (g(1.0 / (0.05 * 0.5 * 0.2)), g(e), g(mu)),
           "body ground static plane material wood"]
    lay = ["scene dominoes friction %s restitution %s" % (g(mu), g(e))]
    for i in range(10):
        x = 0.3 * i
        tip = ""
        if i == 0:  # turning about its front bottom edge: v = w x (centre - edge)
            w = DOMINO_SPIN
            tip = " velocity %s %s 0 spin 0 0 %s" % (g(0.25 * w), g(0.025 * w), g(-w))
        sc.append("body domino%d dynamic box 0.025 0.25 0.1 material wood position %s 0.25 0%s" % (i, g(x), tip))
        lay.append("box 0.025 0.25 0.1 %s 0.25 0 0 0 0 1" % g(x))
        if i == 0:
            lay.append("velocity %s %s 0 0 0 %s" % (g(0.25 * DOMINO_SPIN), g(0.025 * DOMINO_SPIN), g(-DOMINO_SPIN)))
    scenes["dominoes"] = (sc, lay)

    for d in (scene_dir, mesh_dir, layout_dir):
        os.makedirs(d, exist_ok=True)
    writes = [(os.path.join(mesh_dir, "peer_terrain%d.obj" % q), terrain_obj(x0, z0))
              for q, (x0, z0) in enumerate(TERRAIN_QUARTERS)]
    for name, (sc, lay) in scenes.items():
        writes.append((os.path.join(scene_dir, "peer_%s.scene" % name), "\n".join(sc) + "\n"))
        writes.append((os.path.join(layout_dir, "%s.txt" % name), "\n".join(lay) + "\n"))
    for path, text in writes:  # unchanged files keep their time stamps (the cooker's cache keys on bytes anyway)
        if os.path.exists(path) and open(path).read() == text:
            continue
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: peer_scenes.py SCENE_DIR MESH_DIR LAYOUT_DIR")
    build(sys.argv[1], sys.argv[2], sys.argv[3])
