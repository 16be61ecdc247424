#!/bin/sh
# check_install.sh [FLOAT_BUILD FIXED_BUILD] — what a game's build sees:
#   1. `make install PREFIX=tmp` puts headers, both libraries, the tool and the
#      pkg-config files there; a C program built with pkg-config alone (no
#      path into this tree) links and runs, in both scalar modes
#   2. the examples of docs/examples/ (C and C++) build the same way and run
#   3. a scalar-mode mismatch (fixed cflags, float library and the reverse;
#      one file of a fixed program compiled -DCR_FIXED=0) fails at link time
#      naming the mode; -ffast-math fails at compile time
#   4. DESTDIR stages the same files under DESTDIR/PREFIX; `make uninstall`
#      removes every file install wrote
# Prints "install: N passed, M failed" last; exits non-zero on a failure.
set -u
FB=${1:-build}
XB=${2:-build-fixed}
CC=${CC:-cc}
CXX=${CXX:-g++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -f "$tmp/err" ] && head -n 20 "$tmp/err"; }

prefix=$tmp/usr
if make -s install PREFIX="$prefix" INSTALL_FLOAT="$FB" INSTALL_FIXED="$XB" >"$tmp/err" 2>&1; then
    ok "make install PREFIX=$prefix"
else
    bad "make install"
    echo "install: $passed passed, $failed failed"
    exit 1
fi
for f in include/crumple/crumple.h lib/libcrumple.a lib/libcrumple-fixed.a bin/crumple \
         lib/pkgconfig/crumple.pc lib/pkgconfig/crumple-fixed.pc; do
    [ -f "$prefix/$f" ] || bad "installed $f is missing"
done
"$prefix/bin/crumple" version | grep -q float32 && ok "installed crumple tool runs" || bad "installed crumple tool"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cat >"$tmp/game.c" <<'EOC'
/* a game's first program: create a world, drop a sphere, step */
#include <crumple/crumple.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 4;
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN);
    cr_world *w = NULL;
    if (cr_world_create(&def, block, size, &w) != CR_OK) return 1;
    cr_body_def bd = cr_default_body_def();
    bd.position = cr_v3(0, CR_R(5), 0);
    cr_body_id ball;
    if (cr_body_create(w, &bd, &ball) != CR_OK) return 1;
    for (int i = 0; i < 60; ++i) cr_world_step(w, CR_R(1.0 / 60.0));
    printf("%s %016llx\n", cr_version_string(), (unsigned long long)cr_world_state_hash(w));
    free(block);
    return 0;
}
EOC
for pc in crumple crumple-fixed; do
    mode=float32; [ $pc = crumple-fixed ] && mode=fixed
    # shellcheck disable=SC2046
    if $CC -std=c11 -Wall -Wextra -Werror "$tmp/game.c" -o "$tmp/game_$pc" $(pkg-config --cflags --libs $pc) 2>"$tmp/err" &&
       "$tmp/game_$pc" >"$tmp/out" && grep -q "$mode" "$tmp/out"; then
        ok "cc game.c \$(pkg-config --cflags --libs $pc): $(cat "$tmp/out")"
    else
        bad "a game built with pkg-config $pc"
    fi
done

# the examples, as a game would build them, on a plate cooked by the installed tool
"$prefix/bin/crumple" cook data/meshes/plate.obj -o "$tmp/plate.crb" --quiet || bad "crumple cook plate.obj"
for ex in docs/examples/*.c docs/examples/*.cpp; do
    [ -f "$ex" ] || continue
    name=$(basename "$ex")
    for pc in crumple crumple-fixed; do
        case $ex in
            *.cpp) build="$CXX -std=c++17 -Wall -Wextra -Werror -pedantic" ;;
            *) build="$CC -std=c11 -Wall -Wextra -Werror -pedantic" ;;
        esac
        # shellcheck disable=SC2046
        if $build "$ex" -o "$tmp/ex" $(pkg-config --cflags --libs $pc) 2>"$tmp/err" &&
           (cd "$tmp" && "$tmp/ex" "$tmp/plate.crb") >"$tmp/out" 2>"$tmp/err"; then
            ok "docs/examples/$name ($pc): $(tail -n 1 "$tmp/out")"
        else
            cat "$tmp/out"
            bad "docs/examples/$name ($pc)"
        fi
    done
done

# a mode mismatch is a link error that names the mode the game was compiled for
# shellcheck disable=SC2046
if $CC -std=c11 "$tmp/game.c" -o "$tmp/mix" $(pkg-config --cflags crumple-fixed) $(pkg-config --libs crumple) 2>"$tmp/err"; then
    bad "fixed-mode code linked against the float library"
elif grep -q "cr_world_create_fixed_q32" "$tmp/err"; then
    ok "fixed code + float library: link error naming cr_world_create_fixed_q32"
else
    bad "fixed code + float library failed without naming the mode"
fi
# shellcheck disable=SC2046
if $CC -std=c11 "$tmp/game.c" -o "$tmp/mix" $(pkg-config --cflags crumple) $(pkg-config --libs crumple-fixed) 2>"$tmp/err"; then
    bad "float-mode code linked against the fixed library"
elif grep -q "cr_world_create_float32" "$tmp/err"; then
    ok "float code + fixed library: link error naming cr_world_create_float32"
else
    bad "float code + fixed library failed without naming the mode"
fi
# two of a game's files compiled in different modes (the one a game is likeliest to get wrong:
# a file whose build line lost -DCR_FIXED=1) fail to link on the functions that file calls, not
# only on cr_world_create; the same two files in one mode link and run
cat >"$tmp/two_main.c" <<'EOC'
#include <crumple/crumple.h>
#include <stdlib.h>
int game_step(cr_world *w); /* two_step.c */
int main(void) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 4;
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN);
    cr_world *w = NULL;
    int rc = cr_world_create(&def, block, size, &w) != CR_OK || game_step(w);
    free(block);
    return rc;
}
EOC
cat >"$tmp/two_step.c" <<'EOC'
#include <crumple/crumple.h>
int game_step(cr_world *w) {
    cr_body_def bd = cr_default_body_def();
    bd.position = cr_v3(0, CR_R(2), 0);
    cr_body_id ball;
    if (cr_body_create(w, &bd, &ball) != CR_OK) return 1;
    return cr_world_step(w, CR_R(1.0 / 60.0)) != CR_OK;
}
EOC
for step_mode in 0 1; do
    if $CC -std=c11 -I"$prefix/include" -DCR_FIXED=1 -c "$tmp/two_main.c" -o "$tmp/two_main.o" 2>"$tmp/err" &&
       $CC -std=c11 -I"$prefix/include" -DCR_FIXED=$step_mode -c "$tmp/two_step.c" -o "$tmp/two_step.o" 2>"$tmp/err"; then
        $CC "$tmp/two_main.o" "$tmp/two_step.o" "$prefix/lib/libcrumple-fixed.a" -o "$tmp/two" 2>"$tmp/err"; rc=$?
        if [ $step_mode = 1 ]; then
            [ $rc -eq 0 ] && "$tmp/two" && ok "two files, both -DCR_FIXED=1, fixed library: link and run" ||
                bad "two files in fixed mode did not link or run"
        elif [ $rc -eq 0 ]; then
            bad "a -DCR_FIXED=0 file calling cr_body_create/cr_world_step linked into a fixed program"
        elif grep -q "cr_body_create_float32" "$tmp/err" && grep -q "cr_world_step_float32" "$tmp/err"; then
            ok "a -DCR_FIXED=0 file in a fixed program: link error naming cr_body_create_float32 and cr_world_step_float32"
        else
            bad "the mixed-mode link failed without naming cr_body_create_float32 and cr_world_step_float32"
        fi
    else
        bad "two_main.c / two_step.c (CR_FIXED=$step_mode) did not compile"
    fi
done
# shellcheck disable=SC2046
if $CC -std=c11 -ffast-math -c "$tmp/game.c" -o "$tmp/fm.o" $(pkg-config --cflags crumple) 2>"$tmp/err"; then
    bad "-ffast-math compiled"
elif grep -q "fast-math" "$tmp/err"; then
    ok "-ffast-math: compile error from crumple/real.h"
else
    bad "-ffast-math failed for another reason"
fi

# DESTDIR stages under DESTDIR/PREFIX; uninstall takes back every file
stage=$tmp/stage
if make -s install DESTDIR="$stage" PREFIX=/opt/crumple INSTALL_FLOAT="$FB" INSTALL_FIXED="$XB" >"$tmp/err" 2>&1 &&
   [ -f "$stage/opt/crumple/lib/libcrumple-fixed.a" ] &&
   grep -q '^prefix=/opt/crumple$' "$stage/opt/crumple/lib/pkgconfig/crumple.pc"; then
    ok "make install DESTDIR=... PREFIX=/opt/crumple"
else
    bad "make install DESTDIR"
fi
rm -f "$tmp/err"
make -s uninstall DESTDIR="$stage" PREFIX=/opt/crumple >/dev/null 2>&1
make -s uninstall PREFIX="$prefix" >/dev/null 2>&1
left=$(find "$stage" "$prefix" -type f | head -n 5)
[ -z "$left" ] && ok "make uninstall removes every installed file" || { bad "make uninstall left:"; echo "$left"; }

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
