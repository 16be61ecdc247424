#!/bin/sh
# pile_scaling.sh — cost per body of pile.scene's heap grown sideways: 250,
# 500, 1000, 2000 and 4000 bodies, always 10 layers high (the footprint grows,
# so the contact graph's depth stays the same), the same materials, spacing
# and alternation of balls and tilted cubes as data/scenes/pile.scene. Each
# scene runs through `crumple bench` (the public API: only the step is timed,
# CPU time, median ms per step), sleeping off so every step solves the whole
# heap, and the script prints microseconds per body.
#
#   sh tests/bench/pile_scaling.sh [build/bin/crumple] [STEPS]
set -eu
CRUMPLE=${1:-build/bin/crumple}
STEPS=${2:-600}
DIR=build/pile_scaling
mkdir -p "$DIR"
for size in "250 5 5" "500 5 10" "1000 10 10" "2000 10 20" "4000 20 20"; do
    set -- $size
    n=$1 nx=$2 nz=$3
    x0=$(awk "BEGIN { print -($nx - 1) * 0.75 }")
    z0=$(awk "BEGIN { print -($nz - 1) * 0.75 }")
    cat > "$DIR/pile_$n.scene" <<SCENE
crumple-scene 1
# written by tests/bench/pile_scaling.sh: pile.scene with a ${nx} x 10 x ${nz} grid
frames $STEPS
material pile density 1000 restitution 0.2 friction 0.5 rolling 0.03 spinning 0.03
body ground static plane material pile
grid pile dynamic sphere 0.5 material pile position $x0 1 $z0 count $nx 10 $nz spacing 1.5 1.5 1.5 alternate box 0.5 0.5 0.5 tilt 20 seed 4
SCENE
    out=$("$CRUMPLE" bench "$DIR/pile_$n.scene" --steps "$STEPS" --sleep off)
    med=$(printf '%s\n' "$out" | sed -n 's/.*"cpu_median_ms": *\([0-9.e+-]*\).*/\1/p' | head -1)
    awk "BEGIN { printf \"%5d bodies: %8.3f ms/step  %6.2f us/body\n\", $n, $med, $med * 1000 / $n }"
done
