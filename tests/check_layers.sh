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
# The same order at the symbol level: an object file of the float build may
# reference a runtime symbol (cr_*, cri_*) only if it is defined in its own
# folder or one below. Includes alone do not show it: base/block.h and
# base/check.h declare functions that world/ defines. The upward references
# that remain are listed below, each with what removes it; any other fails
# (the list is debt: it only shrinks).
# Each line: the users | the definers (shell patterns) | the symbols | what removes it.
allowed_up='
damage/* | world/body.o | cri_world_body cri_world_body_c | handle lookup: moves to base/ (issue 25)
damage/* | world/body.o | cr_body_create cr_body_destroy cr_default_body_def cr_body_apply_impulse | models change bodies: commands (issue 25)
damage/* | world/validate.o | cri_refuse | refusal bookkeeping: moves to base/check.c (issue 25)
damage/* | world/world.o | cri_world_log | the host log hook: moves to base/ (issue 25)
solver/joint.o | world/* | cri_world_body cri_world_body_c cri_refuse cri_joint_def_refuse cri_world_log | the same moves
geometry/shape.o soft/* solver/interference.o | damage/surfaces.o | cri_damage_surface_view | a flagged slot to its surface copy: moves to geometry/ with the copies (issue 26)
soft/mass_spring.o | world/validate.o | cri_refuse cri_check_position | refusal bookkeeping: moves to base/check.c (issue 25)
query/* | world/* | cri_refuse cri_world_body_c | the same moves
solver/sensors.o solver/contact_events.o | world/body.o | cri_world_body_c | handle lookup: moves to base/ (issue 25)
solver/sensors.o | damage/surfaces.o | cri_damage_surface_view | a flagged slot to its surface copy (issue 26)
'
O=${BUILD_PREFIX:-build}/obj/runtime/src
if [ -d "$O" ]; then
    defs=$(mktemp); refs=$(mktemp)
    for o in "$O"/*/*.o; do nm --defined-only -g "$o" | awk -v f="${o#$O/}" '$2 ~ /[TDRB]/ {print $3, f}'; done | sort >"$defs"
    for o in "$O"/*/*.o; do nm -u "$o" | awk -v f="${o#$O/}" '$2 ~ /^cri?_/ {print $2, f}'; done | sort >"$refs"
    # "user definer symbol" for every reference to a folder above the user's
    up=$(join "$refs" "$defs" | awk '
        function rank(p) { sub(/\/.*/, "", p); return p == "base" ? 0 : p == "geometry" ? 1 : p == "solver" ? 2 : p == "soft" ? 3 : p == "damage" ? 4 : p == "query" ? 5 : p == "world" ? 6 : 9 }
        rank($3) > rank($2) { print $2, $3, $1 }') || { echo "layers: the symbol check failed to run"; bad=$((bad + 1)); }
    left=$(echo "$up" | while read -r user def sym; do
        [ -n "$user" ] || continue
        name=${sym%_float32}; name=${name%_fixed_q32} # the list names public functions without their mode suffix (crumple/real.h)
        listed=$(echo "$allowed_up" | while IFS='|' read -r users definers syms why; do
            for u in $users; do for d in $definers; do
                # shellcheck disable=SC2254
                case "$user" in $u) case "$def" in $d) case " $syms " in *" $name "*) echo yes; break 3 ;; esac ;; esac ;; esac
            done; done
        done)
        [ -n "$listed" ] || echo "$user: references $sym, defined in $def (a layer above)"
    done)
    if [ -n "$left" ]; then echo "$left"; bad=$((bad + $(echo "$left" | wc -l))); fi
    rm -f "$defs" "$refs"
else
    echo "layers: $O is not built: the symbol check reads the float build's objects"; bad=$((bad + 1))
fi
if [ $bad -gt 0 ]; then
    echo "layers: $bad bad include(s) or upward reference(s)"
    exit 1
fi
echo "layers: ok (base < geometry < solver < soft < damage < query < world, in includes and in symbols but the listed debts; tools see crumple/*.h and asset_format.h, implicit_skeleton.h, segmentation.h only)"
