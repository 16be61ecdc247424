#!/bin/sh
# matrix.sh — the determinism matrix (docs/determinism.md, "The matrix"):
# a few scenes (SCENES below: the reference scene first), many builds, the
# same per-frame state hashes.
#
#   sh tests/matrix.sh                  run the matrix (what `make matrix` and `make test` run)
#   sh tests/matrix.sh --update-golden  re-record tests/golden/ from this machine's host build
#   sh tests/matrix.sh --update-golden fracture_wall   the same for one scene only
#
# 1. On the host (x86-64, gcc -O2, the normal build folders) `crumple run
#    data/scenes/SCENE.scene --record` writes one replay per scene and scalar mode
#    (float, fixed): the scene text, every input, and the state hash and the
#    per-body hashes after every frame.
# 2. Every target builds only the runtime and the tools files the verifier
#    links (the archive members the host linker pulls in, from its map
#    file, so the list never goes stale), links tests/matrix/verify_main.c, and runs
#    `replay REC --verify --golden tests/golden/SCENE-MODE.hashes`:
#    the recorded hashes must equal the golden ones, and re-simulating must
#    give them again, frame by frame. Cross targets are static binaries run
#    under qemu-user.
#      x86-64        gcc and clang, the runtime at -O0, -O2, -O3
#      x86 32-bit    gcc -O2 -m32 -msse2 -mfpmath=sse (x87 is not supported)
#      aarch64       aarch64-linux-gnu-gcc -O2, qemu-aarch64
#      armhf         arm-linux-gnueabihf-gcc -O2 (VFP, hard float), qemu-arm
#      cortex-m4     arm-none-eabi-gcc -O2 (FPv4-SP), bare metal on qemu-system-arm's
#                    mps2-an386 board with semihosting (tests/m4/); run when
#                    qemu-system-arm is installed, MATRIX_M4=0 leaves it out
#    each in float and in fixed mode.
# The verifier's tools part (scene parser, replay reader; never linked into a
# game) is built at -O2 once per compiler and CPU; folders that
# tests/run_all.sh already built are reused, so inside `make test` the
# matrix only builds what is new.
# Builds run one after another; each target's verification runs in the
# background while the next one builds. Prints one row per target, mode and scene
# (target, compiler, optimisation, mode, frames, result, build and run
# seconds; run seconds overlap other work) and ends with "matrix: N passed, M failed"; exits non-zero
# when anything failed. A missing compiler or qemu is a failure, not a skip:
# tools/setup-debian.sh installs them all.
set -u
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
P=${BUILD_PREFIX:-build}
M=$P-matrix
# The scenes the matrix checks, each data/scenes/NAME.scene against
# tests/golden/NAME-MODE.hashes. M4_SCENES: the ones the Cortex-M4 board runs
# (bend_field's world, 14 MB float and 27 MB fixed, does not fit its 16 MB).
SCENES=${MATRIX_SCENES:-"reference fracture_wall bend_field"}
M4_SCENES=${MATRIX_M4_SCENES:-"reference fracture_wall"}
UPDATE=0
case "${1:-}" in
    "") ;;
    --update-golden) UPDATE=1; [ -n "${2:-}" ] && SCENES=$2 ;; # one scene's golden files only
    *) echo "usage: sh tests/matrix.sh [--update-golden [SCENE]]" >&2; exit 2 ;;
esac
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

row() { # target cc opt mode frames result build-seconds run-seconds [scene]
    printf '%-9s %-6s %-4s %-6s %6s  %-10s %7s %6s  %s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "${9:-}"
}

mode_name() { [ "$1" = 1 ] && echo fixed || echo float; }

# ---- 1. host builds (the same folders `make test` uses), recordings, golden
start_all=$(now)
echo "== determinism matrix: $(for sc in $SCENES; do printf 'data/scenes/%s.scene ' "$sc"; done)"
for fixed in 0 1; do
    mode=$(mode_name $fixed)
    dir=$P; [ $fixed = 1 ] && dir=$P-fixed
    for sc in $SCENES; do rm -f "$M/$sc-$mode.crr"; done # never verify against a recording of an older build
    if ! make -s -j"$JOBS" FIXED=$fixed BUILD=$dir cli "$dir/libcrumple_tools.a" >"$log" 2>&1; then
        cat "$log"; echo "matrix: host $mode build failed"; failed=$((failed + 1)); continue
    fi
    mkdir -p "$M"
    for sc in $SCENES; do
        rec=$M/$sc-$mode.crr
        if ! "$dir/bin/crumple" run "data/scenes/$sc.scene" --record "$rec" >"$log" 2>&1; then
            cat "$log"; echo "matrix: recording $sc $mode failed"; failed=$((failed + 1)); continue
        fi
        if [ $UPDATE = 1 ]; then
            "$dir/bin/crumple" replay "$rec" --hashes "tests/golden/$sc-$mode.hashes" || failed=$((failed + 1))
            echo "   wrote tests/golden/$sc-$mode.hashes"
        fi
    done
done
[ $UPDATE = 1 ] && { [ $failed = 0 ] && echo "golden hashes updated" ; exit $failed; }

# The tools objects the verifier really links, asked of the host linker.
if ! make -s -j"$JOBS" FIXED=0 BUILD=$P "$P/obj/tests/matrix/verify_main.o" >"$log" 2>&1; then
    cat "$log"; echo "matrix: verify_main does not build"; exit 1
fi
if cc -o "$M/verify-probe" "$P/obj/tests/matrix/verify_main.o" "$P/libcrumple_tools.a" "$P/libcrumple.a" -lm \
      -Wl,-Map="$M/verify-probe.map" >"$log" 2>&1; then
    members=$(sed -n 's/^[^ ]*libcrumple_tools\.a(\([^)]*\)\.o)$/\1/p' "$M/verify-probe.map" | sort -u)
else
    cat "$log"; members=""
fi
if [ -z "$members" ]; then
    echo "matrix: could not find which tools files the verifier links"; exit 1
fi
TOOLS_OBJS=""
for m in $members; do
    if [ -f "tools/$m.c" ]; then TOOLS_OBJS="$TOOLS_OBJS obj/tools/$m.o"
    elif [ -f "platform/$m.c" ]; then TOOLS_OBJS="$TOOLS_OBJS obj/platform/$m.o"
    else echo "matrix: linked member $m.o has no source in tools/ or platform/"; exit 1; fi
done
echo "   verifier links the runtime and:$(echo $members | sed 's/\([^ ]*\)/ \1.c/g')"

# ---- 2. every target
# Builds run one after another (each with make -j$JOBS); each verification
# runs in the background while the next target builds, so the emulated runs
# overlap the compiles. Rows are printed in order once all have finished.
ROWS=$M/rows
rm -rf "$ROWS"
mkdir -p "$ROWS"
nrow=0

# record_row N target cc opt mode frames result build-s run-s [scene]: the row's line and a pass/fail mark
record_row() {
    n=$1; shift
    row "$@" >"$ROWS/$n.row"
    [ "$6" = pass ] && : >"$ROWS/$n.pass"
}

# verify_async N target cc opt mode build-s scene command...: runs the verifier, then records the row
verify_async() {
    n=$1 vlabel=$2 vcc=$3 vopt=$4 vmode=$5 vbuild=$6 vscene=$7
    shift 7
    (
        t1=$(now)
        result=FAIL frames=-
        if "$@" >>"$ROWS/$n.log" 2>&1; then
            result=pass
            frames=$(sed -n 's/.*: \([0-9]*\) frames verified.*/\1/p' "$ROWS/$n.log" | tail -n 1)
        fi
        record_row "$n" "$vlabel" "$vcc" "$vopt" "$vmode" "$frames" "$result" "$vbuild" "$(elapsed "$t1")" "$vscene"
    ) &
}

# Builds what a target needs and starts the verifier on both modes' replays.
#   label cclabel CC AR OPT EXTRA_CFLAGS LDFLAGS RUNNER RUNTIME_DIR TOOLS_DIR TOOLS_OPT
# RUNTIME_DIR/TOOLS_DIR contain MODE, replaced by the mode's folder suffix.
# The runtime is built at OPT; the tools part of the verifier (scene parser,
# replay reader: not linked into games) at TOOLS_OPT in TOOLS_DIR, which is
# shared by the rows of one compiler and CPU. Folders named like the ones
# tests/run_all.sh builds are reused as they are.
run_target() {
    label=$1 cclabel=$2 cc=$3 ar=$4 opt=$5 extra=$6 ldflags=$7 runner=$8 rt_pat=$9
    shift 9
    tools_pat=$1 tools_opt=$2
    for fixed in 0 1; do
        mode=$(mode_name $fixed)
        suffix=; [ $fixed = 1 ] && suffix=-fixed
        rt=$(echo "$rt_pat" | sed "s/MODE/$suffix/")
        td=$(echo "$tools_pat" | sed "s/MODE/$suffix/")
        t0=$(now)
        blog=$ROWS/build-$nrow.log # one build per target and mode, shared by its scenes' rows
        : >"$blog"
        bin=$rt/crumple-verify
        why=
        if ! command -v "$cc" >/dev/null 2>&1; then
            why=no-$cc
        elif [ "$runner" != - ] && ! command -v "$runner" >/dev/null 2>&1; then
            why=no-$runner
        else
            objs=""
            for o in $TOOLS_OBJS obj/tests/matrix/verify_main.o; do objs="$objs $td/$o"; done
            if make -s -j"$JOBS" FIXED=$fixed BUILD="$td" CC="$cc" AR="$ar" OPT="$tools_opt" EXTRA_CFLAGS="$extra" \
                   $objs >>"$blog" 2>&1 &&
               make -s -j"$JOBS" FIXED=$fixed BUILD="$rt" CC="$cc" AR="$ar" OPT="$opt" EXTRA_CFLAGS="$extra" \
                   "$rt/libcrumple.a" >>"$blog" 2>&1 &&
               $cc $opt $extra $objs "$rt/libcrumple.a" -lm $ldflags -o "$bin" >>"$blog" 2>&1; then
                :
            else
                why=build-fail
            fi
        fi
        bsec=$(elapsed "$t0")
        for sc in $SCENES; do
            nrow=$((nrow + 1))
            n=$(printf '%02d' $nrow)
            rec=$M/$sc-$mode.crr
            golden=tests/golden/$sc-$mode.hashes
            cp "$blog" "$ROWS/$n.log"
            if [ -n "$why" ]; then
                record_row "$n" "$label" "$cclabel" "$opt" "$mode" - "$why" "$bsec" - "$sc"
            elif [ ! -f "$rec" ]; then
                record_row "$n" "$label" "$cclabel" "$opt" "$mode" - no-record - - "$sc"
            else
                if [ "$runner" = - ]; then set -- "$bin"; else set -- "$runner" "$bin"; fi
                verify_async "$n" "$label" "$cclabel" "$opt" "$mode" "$bsec" "$sc" \
                    "$@" replay "$rec" --verify --golden "$golden"
            fi
        done
    done
}

M32="-m32 -msse2 -mfpmath=sse -idirafter /usr/include/x86_64-linux-gnu"
#          target  cc    CC    AR  OPT  EXTRA  LD  RUNNER  RUNTIME_DIR              TOOLS_DIR        TOOLS_OPT
run_target x86-64  gcc   cc    ar  -O2  ""     ""  -       "${P}MODE"               "${P}MODE"       -O2
run_target x86-64  gcc   cc    ar  -O0  ""     ""  -       "${P}MODE-O0"            "${P}MODE"       -O2
run_target x86-64  gcc   cc    ar  -O3  ""     ""  -       "$M/x86_64-gcc-O3MODE"   "${P}MODE"       -O2
run_target x86-64  clang clang ar  -O2  ""     ""  -       "$P-clangMODE"           "$P-clangMODE"   -O2
run_target x86-64  clang clang ar  -O0  ""     ""  -       "$M/x86_64-clang-O0MODE" "$P-clangMODE"   -O2
run_target x86-64  clang clang ar  -O3  ""     ""  -       "$M/x86_64-clang-O3MODE" "$P-clangMODE"   -O2
run_target x86-32  gcc   gcc   ar  -O2  "$M32" -m32 -      "$M/x86_32-gccMODE"      "$M/x86_32-gccMODE" -O2
run_target aarch64 gcc   aarch64-linux-gnu-gcc aarch64-linux-gnu-ar -O2 "" -static qemu-aarch64 \
                                                           "$M/aarch64-gccMODE"     "$M/aarch64-gccMODE" -O2
run_target armhf   gcc   arm-linux-gnueabihf-gcc arm-linux-gnueabihf-ar -O2 "" -static qemu-arm \
                                                           "$M/armhf-gccMODE"       "$M/armhf-gccMODE" -O2

# Cortex-M4F, bare metal: qemu-system-arm's MPS2 AN386 board, newlib with
# semihosting (the verifier reads the replay and golden files from the host
# through it), our own reset code and linker script (tests/m4/). The tools
# part is built with -Wno-format: on arm-none-eabi uint32_t is `long`, so
# printf("%u", u32) in tools warns although it prints the same.
run_m4() {
    m4flags="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
    for fixed in 0 1; do
        mode=$(mode_name $fixed)
        t0=$(now)
        dir=$M/cortex-m4-$mode
        blog=$ROWS/build-$nrow.log
        : >"$blog"
        objs=""
        for o in $TOOLS_OBJS obj/tests/matrix/verify_main.o obj/tests/m4/startup.o obj/tests/m4/platform_semihost.o; do
            case $o in obj/platform/*) continue ;; esac # the host file layer; tests/m4 has the semihosting one
            objs="$objs $dir/$o"
        done
        built=0
        if make -s -j"$JOBS" FIXED=$fixed BUILD="$dir" CC=arm-none-eabi-gcc AR=arm-none-eabi-ar OPT=-O2 \
                 EXTRA_CFLAGS="$m4flags -Wno-format" "$dir/libcrumple.a" $objs >>"$blog" 2>&1 &&
             arm-none-eabi-gcc $m4flags -O2 -nostartfiles -T tests/m4/mps2_an386.ld --specs=rdimon.specs \
                 $objs "$dir/libcrumple.a" -lm -o "$dir/crumple-verify.elf" >>"$blog" 2>&1; then
            built=1
        fi
        bsec=$(elapsed "$t0")
        for sc in $M4_SCENES; do
            nrow=$((nrow + 1))
            n=$(printf '%02d' $nrow)
            rec=$M/$sc-$mode.crr
            golden=tests/golden/$sc-$mode.hashes
            cp "$blog" "$ROWS/$n.log"
            if [ ! -f "$rec" ]; then
                record_row "$n" cortex-m4 gcc -O2 "$mode" - no-record - - "$sc"
            elif [ $built = 1 ]; then
                verify_async "$n" cortex-m4 gcc -O2 "$mode" "$bsec" "$sc" \
                    timeout 600 qemu-system-arm -M mps2-an386 -nographic -monitor none -serial none \
                    -semihosting-config "enable=on,target=native,arg=crumple-verify,arg=replay,arg=$rec,arg=--verify,arg=--golden,arg=$golden" \
                    -kernel "$dir/crumple-verify.elf"
            else
                record_row "$n" cortex-m4 gcc -O2 "$mode" - build-fail "$bsec" - "$sc"
            fi
        done
    done
}
m4_note=""
if [ "${MATRIX_M4:-1}" = 0 ]; then
    m4_note="   cortex-m4 rows not run (MATRIX_M4=0)"
elif command -v qemu-system-arm >/dev/null 2>&1 && command -v arm-none-eabi-gcc >/dev/null 2>&1; then
    run_m4
else
    m4_note="   cortex-m4 rows not run: needs arm-none-eabi-gcc and qemu-system-arm (apt-get install qemu-system-arm)"
fi

wait
row target cc opt mode frames result build-s run-s scene
for f in "$ROWS"/*.row; do
    cat "$f"
    n=$(basename "$f" .row)
    if [ -f "$ROWS/$n.pass" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        sed 's/^/      /' "$ROWS/$n.log" | tail -n 20
    fi
done
[ -n "$m4_note" ] && echo "$m4_note"
echo "matrix: $passed passed, $failed failed ($(elapsed "$start_all") s)"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
