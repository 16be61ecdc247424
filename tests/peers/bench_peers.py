#!/usr/bin/env python3
"""bench_peers.py — `make bench-peers`: crumple, Bullet and ODE on the five peer
scenes of ../shared/peer-scenes.md, interleaved in one run, in one table.

    python3 tests/peers/bench_peers.py CRUMPLE BULLET_PEER ODE_PEER LAYOUT_DIR SCENE_DIR [ROUNDS] [SCENES...]

Each round runs every scene once per engine and setting, one after the other
(crumple sleeping on and off, Bullet sleeping on and off, ODE with auto-disable
off), so the machine's load falls on all of them alike; the tables give, per
engine and scene, the median over rounds of each run's median ms/step and the
largest single step seen, first in CPU time (this process's, which on a
shared machine leaves out the waits for a core: the one to quote), then in
wall time. Ratios compare the same setting: crumple/Bullet with
sleeping on and with sleeping off, crumple (off)/ODE. Every engine times its
step call only (crumple: `crumple bench --poses`, tools/cmd_bench.c).

Quality is computed here, the same way for every engine, from the final poses
each program prints (and the largest rise each one tracked per step):
  pile     fell through (a centre below 0.4 m: sunk > 0.1 m), flung (|x| or |z|
           > 50 m), not finite, and the pile's top height
  stack    the top cube's x/z drift from the axis after 10 s, and its height
  incline  the largest rise of the cube's centre above its start (m)
  rings    rings below ground (the tube's lowest point deeper than 5 cm) and the
           deepest ring-ring penetration: 2r minus the smallest distance between
           two rings' centre circles (the analytic torus; the 20 x 10 mesh is
           inscribed in it, so meshes that just touch read up to ~0.02 m)
  terrain  spheres below the surface (centre less than 0.25 m above h(x, z)) or
           off the terrain (|x| or |z| > 32 m)
  bounce   the rebound speed over the impact speed, from the largest rise (the
           rebound's apex) and the impact speed of the flight every engine draws
           (its first step takes the start velocity as half a step old), against e = 0.5
  dominoes dominoes turned past 45 degrees after 10 s (of 10)
"""
import json
import math
import os
import statistics
import subprocess
import sys

SCENES = ["pile", "stack", "incline", "rings", "terrain", "bounce", "dominoes"]
BOUNCE_SPEED, BOUNCE_GAP, BOUNCE_E = 4.4294, 0.01, 0.5  # tests/peers/peer_scenes.py
R, r = 1.0, 0.25


def run(cmd):
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def layout_count(path):
    with open(path) as f:
        return sum(1 for line in f if not line.startswith("velocity")) - 1


def rotate(q, v):
    x, y, z, w = q
    tx = 2 * (y * v[2] - z * v[1])
    ty = 2 * (z * v[0] - x * v[2])
    tz = 2 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx))


def finite(p):
    return all(math.isfinite(c) for c in p)


def circle_distance(ca, na, cb, nb):
    """Smallest distance between circle A (centre ca, axis na, radius R) and circle B."""
    u = rotate_basis(na)
    best = float("inf")
    n = 360
    for i in range(n):
        t = 2 * math.pi * i / n
        p = [ca[k] + R * (math.cos(t) * u[0][k] + math.sin(t) * u[1][k]) for k in range(3)]
        d = [p[k] - cb[k] for k in range(3)]
        h = d[0] * nb[0] + d[1] * nb[1] + d[2] * nb[2]
        radial = math.sqrt(max(0.0, d[0] ** 2 + d[1] ** 2 + d[2] ** 2 - h * h))
        best = min(best, math.hypot(radial - R, h))
    return best


def rotate_basis(n):
    a = (1.0, 0.0, 0.0) if abs(n[0]) < 0.9 else (0.0, 1.0, 0.0)
    u = (n[1] * a[2] - n[2] * a[1], n[2] * a[0] - n[0] * a[2], n[0] * a[1] - n[1] * a[0])
    l = math.sqrt(sum(c * c for c in u))
    u = tuple(c / l for c in u)
    v = (n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0])
    return u, v


def terrain_height(x, z):
    return 0.8 * math.sin(0.45 * x) * math.cos(0.45 * z) + 0.25 * math.sin(1.3 * x + 0.5) * math.sin(1.1 * z + 0.2)


def quality(scene, res):
    poses = res["poses"]
    if not all(finite(p) for p in poses):
        return {"text": "%d not finite" % sum(1 for p in poses if not finite(p))}
    if scene == "pile":
        through = sum(1 for p in poses if p[1] < 0.4)
        flung = sum(1 for p in poses if abs(p[0]) > 50 or abs(p[2]) > 50)
        top = max(p[1] for p in poses)
        return {"fell_through": through, "flung": flung, "top_m": top,
                "text": "through %d, rolled > 50 m %d, top %.2f m" % (through, flung, top)}
    if scene == "stack":
        p = poses[-1]
        drift = math.hypot(p[0], p[2])
        return {"top_drift_m": drift, "top_y_m": p[1], "text": "drift %.3g m, top at %.2f m" % (drift, p[1])}
    if scene == "incline":
        return {"max_rise_m": res["max_rise"], "text": "rise %.3g m" % res["max_rise"]}
    if scene == "rings":
        axes = [rotate(p[3:7], (0.0, 1.0, 0.0)) for p in poses]
        below = 0
        for p, a in zip(poses, axes):
            lowest = p[1] - R * math.sqrt(max(0.0, 1 - a[1] * a[1])) - r
            if lowest < -0.05:
                below += 1
        deepest, over10 = 0.0, 0
        for i in range(len(poses)):
            for j in range(i + 1, len(poses)):
                pi, pj = poses[i], poses[j]
                if sum((pi[k] - pj[k]) ** 2 for k in range(3)) > (2 * R + 2 * r) ** 2:
                    continue
                pen = 2 * r - circle_distance(pi[:3], axes[i], pj[:3], axes[j])
                deepest = max(deepest, pen)
                over10 += pen > 0.1
        return {"below_ground": below, "deepest_penetration_m": deepest, "pairs_over_10cm": over10,
                "text": "below %d, deepest %.3f m, %d pairs > 0.1 m" % (below, deepest, over10)}
    if scene == "terrain":
        off = sum(1 for p in poses if abs(p[0]) > 32 or abs(p[2]) > 32)
        below = sum(1 for p in poses if abs(p[0]) <= 32 and abs(p[2]) <= 32 and p[1] - terrain_height(p[0], p[2]) < 0.25)
        return {"below_surface": below, "off_terrain": off, "text": "below %d, off %d" % (below, off)}
    if scene == "bounce":
        # the impact speed of the flight the engines draw: each integrates v += g dt, then x += dt v, so its
        # positions fly as if the start velocity were half a step old
        v0 = math.sqrt(BOUNCE_SPEED ** 2 - 2 * 9.81 * BOUNCE_GAP) + 9.81 / 120
        impact = math.sqrt(v0 * v0 + 2 * 9.81 * BOUNCE_GAP)
        ratio = math.sqrt(2 * 9.81 * (res["max_rise"] + BOUNCE_GAP)) / impact
        return {"rebound_ratio": ratio, "text": "rebound %.4f of the impact speed (e %.2f: %+.2f %%)" % (
            ratio, BOUNCE_E, 100 * (ratio / BOUNCE_E - 1))}
    if scene == "dominoes":
        fallen = sum(1 for p in poses if rotate(p[3:7], (0.0, 1.0, 0.0))[1] < math.cos(math.radians(45)))
        return {"fallen": fallen, "text": "%d of %d dominoes past 45 deg" % (fallen, len(poses))}
    return {"text": ""}


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    crumple, bullet, ode, layout_dir, scene_dir = sys.argv[1:6]
    rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 3
    scenes = sys.argv[7:] or SCENES
    engines = [("crumple", "on"), ("crumple", "off"), ("bullet", "on"), ("bullet", "off"), ("ode", "off")]
    runs = {}
    for rnd in range(rounds):
        for scene in scenes:
            layout = os.path.join(layout_dir, scene + ".txt")
            for eng, sleep in engines:
                if eng == "crumple":
                    res = run([crumple, "bench", os.path.join(scene_dir, "peer_%s.scene" % scene), "--steps", "600",
                               "--poses", "--sleep", sleep])
                    res["poses"] = res["poses"][len(res["poses"]) - layout_count(layout):]  # statics come first
                elif eng == "bullet":
                    res = run([bullet, layout, sleep])
                else:
                    res = run([ode, layout])
                runs.setdefault((scene, eng, sleep), []).append(res)
                print("round %d/%d %-8s %-7s sleep %-3s %8.4f ms/step" % (rnd + 1, rounds, scene, eng, sleep,
                                                                          res["median_ms"]), file=sys.stderr, flush=True)
    summary = {}
    for key, rs in runs.items():
        summary[key] = {"median_ms": statistics.median(x["median_ms"] for x in rs),
                        "max_ms": max(x["max_ms"] for x in rs),
                        "cpu_median_ms": statistics.median(x["cpu_median_ms"] for x in rs),
                        "cpu_max_ms": max(x["cpu_max_ms"] for x in rs), "quality": quality(key[0], rs[-1])}
    mode = runs[(scenes[0], "crumple", "on")][-1].get("mode", "?")
    for clock, med, mx in (("CPU time", "cpu_median_ms", "cpu_max_ms"), ("wall time", "median_ms", "max_ms")):
        print("peer table, %s: %d round(s) of 600 steps at 1/60 s, ms/step = median over rounds of each run's "
              "median (max = largest step); crumple %s" % (clock, rounds, mode))
        print("%-8s %-16s %-16s %-16s %-16s %-16s %-14s %-9s" % (
            "scene", "crumple sleep", "crumple awake", "Bullet sleep", "Bullet awake", "ODE", "crumple/Bullet",
            "crumple/ODE"))
        print("%-8s %s" % ("", "   (median / max ms per step; ratios of medians, sleeping on / awake)"))
        for scene in scenes:
            cells = []
            for eng, sleep in engines:
                sm = summary[(scene, eng, sleep)]
                cells.append("%.4f / %.2f" % (sm[med], sm[mx]))
            c_on, c_off = summary[(scene, "crumple", "on")][med], summary[(scene, "crumple", "off")][med]
            b_on, b_off = summary[(scene, "bullet", "on")][med], summary[(scene, "bullet", "off")][med]
            o = summary[(scene, "ode", "off")][med]
            ratio = lambda a, b: "%.2f" % (a / b) if b > 0 else "-"
            print("%-8s %-16s %-16s %-16s %-16s %-16s %-14s %-9s" % (
                scene, cells[0], cells[1], cells[2], cells[3], cells[4],
                "%s / %s" % (ratio(c_on, b_on), ratio(c_off, b_off)), ratio(c_off, o)))
        print()
    print("quality (final state after 10 s, computed alike for every engine; see tests/peers/bench_peers.py)")
    for scene in scenes:
        print("%-8s" % scene)
        for eng, sleep in engines:
            print("    %-7s %-6s %s" % (eng, "sleep" if sleep == "on" else "awake",
                                      summary[(scene, eng, sleep)]["quality"]["text"]))
    out = {"%s/%s/%s" % k: v for k, v in summary.items()}
    with open(os.path.join(os.path.dirname(layout_dir.rstrip("/")), "results.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
