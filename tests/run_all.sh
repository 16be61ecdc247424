#!/bin/sh
# run_all.sh — what `make test` runs: every suite, then the promises nm can see.
#   0. tests/toolchains.sh: every compiler and emulator used below works, or stop
#   1. the full suite, float build (build/) and fixed build (build-fixed/)
#   2. the determinism tests again at -O0 and with clang (same golden hashes)
#   3. the determinism matrix (tests/matrix.sh): the reference and fracture_wall scenes' per-frame
#      hashes on gcc/clang -O0/-O2/-O3, 32-bit x86, aarch64, armhf, Cortex-M4F
#   4. promises on the libraries: no heap, no writable globals, no libm transcendentals
#   5. a C++ file that includes crumple/crumple.h compiles, links and runs (both modes)
#   6. make install into a temporary prefix, a game and the docs/examples/
#      built with pkg-config alone, mode mismatches fail to link
#      (tests/check_install.sh); every command's --help and exit codes
#      (tests/check_cli_help.sh); the stage benchmarks and the soak build; the
#      runtime's folders include only downward and the tools see only the
#      public API (tests/check_layers.sh)
#   7. the libFuzzer harnesses (tests/fuzz/), both scalar modes: each over its
#      seed corpus (the regression inputs) plus a fixed-seed burst (FUZZ_FIXED)
# Ends with one line "total: N passed, M failed"; exits non-zero on any failure.
set -u
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
# BUILD_PREFIX lets several checkouts or engineers share a tree without sharing build folders.
P=${BUILD_PREFIX:-build}
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Runs one suite and adds its "N passed, M failed" line to the totals.
suite() {
    label=$1; shift
    echo "== $label"
    if ! make -s -j"$JOBS" "$@" tests cli >"$log" 2>&1; then
        cat "$log"
        echo "$label: build failed"
        failed=$((failed + 1))
        return
    fi
    bin=$(make -s "$@" print-tests)
    "$bin" $FILTER_ARGS >"$log" 2>&1
    cat "$log"
    line=$(tail -n 1 "$log")
    p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then
        echo "$label: the suite did not finish (crash?)"
        failed=$((failed + 1))
        return
    fi
    passed=$((passed + p))
    failed=$((failed + f))
}

if ! sh tests/toolchains.sh; then
    echo "total: 0 passed, 1 failed"
    exit 1
fi

FILTER_ARGS=""
suite "float -O2" FIXED=0 BUILD=$P
suite "fixed -O2" FIXED=1 BUILD=$P-fixed
FILTER_ARGS="determinism"
suite "float -O0 (determinism)" FIXED=0 OPT=-O0 BUILD=$P-O0
suite "fixed -O0 (determinism)" FIXED=1 OPT=-O0 BUILD=$P-fixed-O0
if command -v clang >/dev/null 2>&1; then
    suite "float clang -O2 (determinism)" FIXED=0 CC=clang BUILD=$P-clang
    suite "fixed clang -O2 (determinism)" FIXED=1 CC=clang BUILD=$P-clang-fixed
fi

echo "== determinism matrix"
sh tests/matrix.sh >"$log" 2>&1
cat "$log"
line=$(tail -n 1 "$log")
p=$(echo "$line" | sed -n 's/^matrix: \([0-9]*\) passed, \([0-9]*\) failed.*$/\1/p')
f=$(echo "$line" | sed -n 's/^matrix: \([0-9]*\) passed, \([0-9]*\) failed.*$/\2/p')
if [ -z "$p" ]; then
    echo "matrix: did not finish"
    failed=$((failed + 1))
else
    passed=$((passed + p))
    failed=$((failed + f))
fi

echo "== promises (nm)"
for lib in $P/libcrumple.a $P-fixed/libcrumple.a; do
    if sh tests/check_promises.sh "$lib"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done

echo "== C++ include (tests/cpp_include.cpp)"
CXX=${CXX:-g++}
for fixed in 0 1; do
    lib=$P/libcrumple.a; [ $fixed = 1 ] && lib=$P-fixed/libcrumple.a
    exe=$(mktemp)
    if $CXX -std=c++17 -Wall -Wextra -Werror -pedantic -Iruntime/include -DCR_FIXED=$fixed tests/cpp_include.cpp "$lib" \
           -o "$exe" && "$exe"; then
        passed=$((passed + 1))
    else
        echo "C++ include (CR_FIXED=$fixed): failed"
        failed=$((failed + 1))
    fi
    rm -f "$exe"
done
for h in runtime/include/crumple/*.h; do
    # each public header alone, in C++: its own includes and extern "C" guard
    if ! echo "#include \"crumple/${h##*/}\"" | $CXX -std=c++17 -Wall -Wextra -Werror -pedantic -Iruntime/include \
             -x c++ -fsyntax-only -; then
        echo "C++ include of ${h##*/} alone: failed"
        failed=$((failed + 1))
    fi
done

echo "== install + pkg-config + docs/examples (tests/check_install.sh)"
sh tests/check_install.sh $P $P-fixed >"$log" 2>&1
cat "$log"
line=$(tail -n 1 "$log")
p=$(echo "$line" | sed -n 's/^install: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$line" | sed -n 's/^install: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ -z "$p" ]; then
    echo "install: did not finish"
    failed=$((failed + 1))
else
    passed=$((passed + p))
    failed=$((failed + f))
fi

echo "== crumple --help of every command (tests/check_cli_help.sh)"
sh tests/check_cli_help.sh $P/bin/crumple >"$log" 2>&1
cat "$log"
line=$(tail -n 1 "$log")
p=$(echo "$line" | sed -n 's/^cli: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$line" | sed -n 's/^cli: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ -z "$p" ]; then
    echo "cli help: did not finish"
    failed=$((failed + 1))
else
    passed=$((passed + p))
    failed=$((failed + f))
fi

echo "== programs outside the suite build (tests/bench/, tests/soak/), both modes"
for fixed in 0 1; do
    b=$P; [ $fixed = 1 ] && b=$P-fixed
    if make -s -j"$JOBS" FIXED=$fixed BUILD=$b bench-stages-bin soak-bin >"$log" 2>&1 && "$b/bin/crumple_stage_bench" --help >/dev/null; then
        passed=$((passed + 1))
    else
        cat "$log"
        echo "stage benchmarks / soak (CR_FIXED=$fixed): do not build"
        failed=$((failed + 1))
    fi
done

echo "== layers (tests/check_layers.sh)"
if sh tests/check_layers.sh; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

echo "== fuzz (tests/fuzz/: corpus + a fixed-seed burst of each harness)"
if ! command -v clang >/dev/null 2>&1; then
    echo "fuzz: clang is missing (sh tools/setup-debian.sh installs clang and libclang-rt-14-dev)"
    failed=$((failed + 1))
elif ! make -s -j"$JOBS" fuzz-bins >"$log" 2>&1; then
    cat "$log"
    echo "fuzz: the harnesses did not build (libFuzzer is in libclang-rt-14-dev)"
    failed=$((failed + 1))
else
    FUZZ_FRESH=1 FUZZ_FIXED=1 sh tests/fuzz/run.sh 0 build-fuzz build-fuzz-fixed >"$log" 2>&1
    cat "$log"
    line=$(tail -n 1 "$log")
    p=$(echo "$line" | sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$line" | sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then
        echo "fuzz: did not finish"
        failed=$((failed + 1))
    else
        passed=$((passed + p))
        failed=$((failed + f))
    fi
fi

echo "total: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
