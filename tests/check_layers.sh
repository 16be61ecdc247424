#!/bin/sh
# check_layers.sh — the runtime's folders are layers of the frame, in this
# order: base < geometry < solver < soft < damage < query < world. A file may include
# headers of its own folder and of the folders below it, never above it, so
# a reader never has to look upward and the layers have no include cycle.
# Prints every offending include as file:line and exits non-zero if any.
set -u
rank() {
    case "$1" in
        base) echo 0 ;; geometry) echo 1 ;; solver) echo 2 ;; soft) echo 3 ;; damage) echo 4 ;; query) echo 5 ;; world) echo 6 ;; *) echo -1 ;;
    esac
}
bad=0
for f in runtime/src/*/*.c runtime/src/*/*.h; do
    own=$(basename "$(dirname "$f")")
    r=$(rank "$own")
    if [ "$r" -lt 0 ]; then echo "$f: folder '$own' is not a layer (base geometry solver soft damage query world)"; bad=$((bad + 1)); continue; fi
    # '#include "folder/name.h"' lines, with their line numbers
    for hit in $(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*/' "$f" | sed 's/^\([0-9]*\):.*"\([a-z_]*\)\/.*$/\1:\2/'); do
        line=${hit%%:*}
        dir=${hit#*:}
        [ "$dir" = crumple ] && continue # the public headers are below every layer
        d=$(rank "$dir")
        if [ "$d" -gt "$r" ]; then
            echo "$f:$line: includes $dir/ (a layer above $own/)"
            bad=$((bad + 1))
        fi
    done
done
# The tools (the crumple command, the cooker) and the platform layer are
# built without runtime/src on their include path and reach the runtime
# through its public headers only. The shared internal headers are the
# cooked asset's byte layout, forwarded by tools/asset_format.h, and the
# squishy skin's field the SQSK section means (tools/implicit_skeleton.h), and
# bending's segmentation the BNDT/BNDN/BNDM sections hold (tools/segmentation.h); any other
# include that names a runtime folder or climbs out of tools/ is an error.
for f in tools/*.c tools/*.h platform/*.c platform/*.h; do
    [ -f "$f" ] || continue
    for hit in $(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' "$f" | sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*$/\1:\2/'); do
        line=${hit%%:*}
        inc=${hit#*:}
        if [ "$f" = tools/asset_format.h ] && [ "$inc" = ../runtime/src/geometry/asset_format.h ]; then continue; fi
        if [ "$f" = tools/implicit_skeleton.h ] && [ "$inc" = ../runtime/src/geometry/implicit_skeleton.h ]; then continue; fi
        if [ "$f" = tools/segmentation.h ] && [ "$inc" = ../runtime/src/damage/sub_body.h ]; then continue; fi
        case "$inc" in
            base/* | geometry/* | solver/* | damage/* | world/* | ../* | */../* | runtime/*)
                echo "$f:$line: includes \"$inc\": tools reach the runtime through crumple/*.h and asset_format.h, implicit_skeleton.h, segmentation.h only"
                bad=$((bad + 1)) ;;
        esac
    done
done
if [ $bad -gt 0 ]; then
    echo "layers: $bad bad include(s)"
    exit 1
fi
echo "layers: ok (base < geometry < solver < soft < damage < query < world; tools see crumple/*.h and asset_format.h, implicit_skeleton.h, segmentation.h only)"
