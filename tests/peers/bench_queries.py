#!/usr/bin/env python3
"""bench_queries.py — `make bench-queries`: crumple's rays and sphere overlaps
next to Bullet's rayTest / contactTest on the same bodies in the same run.

    bench_queries.py CRUMPLE BULLET_PEER OUTDIR [ROUNDS]

`crumple bench queries --export OUTDIR/queries` steps the peer pile and rings
300 times, times its queries and writes the bodies where its run left them
with every ray and sphere; bullet_peer --queries casts the same rays and
spheres into the same bodies. Prints one table (docs/queries.md)."""
import json
import subprocess
import sys


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    crumple, bullet, out = sys.argv[1:4]
    rounds = sys.argv[4] if len(sys.argv) == 5 else "3"
    prefix = out + "/queries"
    ours = subprocess.run([crumple, "bench", "queries", "--rounds", rounds, "--export", prefix],
                          check=True, capture_output=True, text=True).stdout.splitlines()
    rows = []
    for line in ours:
        c = json.loads(line)
        # Bullet's GImpact rays take 25 s a round in the rings: one round there
        b_rounds = rounds if c["scene"] == "pile" else "1"
        b = json.loads(subprocess.run([bullet, "--queries", "%s_%s.txt" % (prefix, c["scene"]), b_rounds],
                                      check=True, capture_output=True, text=True).stdout)
        rows.append((c, b))
    print("| scene | bodies | rays/s crumple | rays/s Bullet | ratio | hits crumple / Bullet "
          "| overlaps/s crumple | overlaps/s Bullet | ratio | bodies found crumple / Bullet |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c, b in rows:
        print("| %s | %d | %.0f | %.0f | %.1fx | %d / %d | %.0f | %.0f | %.1fx | %d / %d |" % (
            c["scene"], c["bodies"], c["rays_per_s"], b["rays_per_s"], c["rays_per_s"] / b["rays_per_s"],
            c["ray_hits"], b["ray_hits"], c["overlaps_per_s"], b["overlaps_per_s"],
            c["overlaps_per_s"] / b["overlaps_per_s"], c["bodies_found"], b["bodies_found"]))
    for c, _ in rows:
        if not c["state_unchanged"]:
            print("%s: the queries changed the state hash" % c["scene"])
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
