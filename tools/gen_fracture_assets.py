#!/usr/bin/env python3
"""gen_fracture_assets.py — the artist-style prescored assets of the fracture
scenes (issue 14, docs/fracture.md): brick grids whose `o` groups are the
pieces, cooked with `--pieces groups` (data/meshes/NAME.cook) by `make data`
and by a scene that names the .obj.

  fracture_wall   4 x 3 x 1 bricks of 0.25 x 0.25 x 0.2 m  (seed 000 Fig. 3)
  fracture_beam   6 x 1 x 1 bricks of 0.25 x 0.2 x 0.2 m
  fracture_tower  2 x 4 x 1 bricks of 0.25 x 0.25 x 0.25 m
  fracture_post   2 x 3 x 1 bricks of 0.15 x 0.2 x 0.15 m (the demo's)

The bricks' corner at the origin, metres, y up. Every brick face is split
into n x n quads so that dents have corners to move; all corners lie on one
lattice and are written once, so two neighbouring bricks share their face's
corners exactly, and each quad is split along the diagonal through its
lexicographically smallest corner, so the shared face's triangles have the
same corners seen from both bricks (which is how the cooker finds the bonds).

Run from the repository root: python3 tools/gen_fracture_assets.py. Running
it again gives the same bytes.
"""

ASSETS = {
    # name: (bricks along x y z, brick edges (m), quads per brick edge, cook options)
    "fracture_wall": ((4, 3, 1), (0.25, 0.25, 0.2), 3, "--pieces groups --sdf-res 24"),
    "fracture_beam": ((6, 1, 1), (0.25, 0.2, 0.2), 2, "--pieces groups --sdf-res 24"),
    "fracture_tower": ((2, 4, 1), (0.25, 0.25, 0.25), 2, "--pieces groups --sdf-res 24"),
    "fracture_post": ((2, 3, 1), (0.15, 0.2, 0.15), 2, "--pieces groups --sdf-res 24"),
}


def fmt(x):
    s = "%.9g" % x
    return "0" if s == "-0" else s


def write(name, counts, size, n, cook):
    step = [size[k] / n for k in range(3)]
    verts = {}
    order = []

    def vid(g):
        if g not in verts:
            verts[g] = len(order) + 1
            order.append(g)
        return verts[g]

    pieces = []
    nx, ny, nz = counts
    for z in range(nz):
        for y in range(ny):
            for x in range(nx):
                lo = (x * n, y * n, z * n)
                faces = []
                # six faces: (fixed axis, at lo or hi, u axis, v axis) with u x v outward
                for axis in range(3):
                    u, v = (axis + 1) % 3, (axis + 2) % 3
                    for side in (0, 1):
                        c = lo[axis] + side * n
                        for j in range(n):
                            for i in range(n):
                                def corner(a, b):
                                    g = [0, 0, 0]
                                    g[axis], g[u], g[v] = c, lo[u] + a, lo[v] + b
                                    return tuple(g)
                                q = [corner(i, j), corner(i + 1, j), corner(i + 1, j + 1), corner(i, j + 1)]
                                if side == 0:
                                    q.reverse()  # the low face looks down its axis
                                pos = [tuple(g[k] * step[k] for k in range(3)) for g in q]
                                m = min(range(4), key=lambda k: pos[k])
                                if m in (0, 2):
                                    tris = [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
                                else:
                                    tris = [(q[1], q[2], q[3]), (q[1], q[3], q[0])]
                                faces.extend(tuple(vid(g) for g in t) for t in tris)
                pieces.append(("brick_%d_%d_%d" % (x, y, z), faces))
    lines = ["# %s: %d x %d x %d bricks of %s m, one `o` group per brick (tools/gen_fracture_assets.py)"
             % (name, nx, ny, nz, " x ".join(fmt(s) for s in size))]
    for g in order:
        lines.append("v %s %s %s" % tuple(fmt(g[k] * step[k]) for k in range(3)))
    for pname, faces in pieces:
        lines.append("o " + pname)
        for f in faces:
            lines.append("f %d %d %d" % f)
    with open("data/meshes/%s.obj" % name, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    with open("data/meshes/%s.cook" % name, "w") as fh:
        fh.write(cook + "\n")


for name, (counts, size, n, cook) in ASSETS.items():
    write(name, counts, size, n, cook)
