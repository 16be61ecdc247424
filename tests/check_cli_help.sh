#!/bin/sh
# check_cli_help.sh CRUMPLE — every command of the crumple tool answers --help
# the same way (issue 18):
#   - `crumple --help` lists the commands and documents the exit codes 0/1/2
#   - `crumple CMD --help` (and each sub-benchmark / generator) prints its help
#     on stdout, nothing on stderr, exit 0, starting "usage: crumple CMD"
#   - the usage line(s) name every option the help text describes, and the
#     help describes every option the command's source accepts (tools/cmd_CMD.c)
#   - an unknown option is bad usage: exit 2, a message on stderr, nothing on stdout
#   - a missing input file is a failed work: exit 1, a message on stderr
#   - `crumple version --help` is help; `crumple replay --verify` run in a
#     folder without build/cache leaves nothing there
#   - `crumple bench frames` on one 5-step scene prints its table's columns
#     and, with --json, one line with its fields (docs/frame-budget.md)
#   - `crumple bench calibrate` on one short scene prints its table's header
#     and a C initializer with one number per damage operation
# The commands are read from `crumple --help`, so a new one is walked too.
# Prints "cli: N passed, M failed" last.
set -u
cli=${1:-build/bin/crumple}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

"$cli" --help >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && ok || bad "crumple --help: exit $rc or stderr"
for code in 0 1 2; do
    grep -Eq "^ +$code +" "$tmp/out" && ok || bad "crumple --help does not document exit code $code"
done
commands=$(sed -n '/^commands:/,/^$/p' "$tmp/out" | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$commands" ] && ok || bad "no commands listed by crumple --help"

# check_help "CMD [SUB]" SOURCE...: the help of one command
check_help() {
    words=$1; shift
    # shellcheck disable=SC2086
    "$cli" $words --help >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -ne 0 ] || [ -s "$tmp/err" ] || ! head -n 1 "$tmp/out" | grep -q "^usage: crumple $words"; then
        bad "crumple $words --help: exit $rc, stderr $(wc -c <"$tmp/err") bytes, first line '$(head -n 1 "$tmp/out")'"
        return
    fi
    ok
    # the usage block: the first line and the lines that continue it
    awk 'NR == 1 || (go && /^       /) {print; go = 1; next} {go = 0; exit}' "$tmp/out" >"$tmp/usage"
    missing=""
    # (an alias the text introduces with "also --x" need not be in the usage line)
    for opt in $(sed 's/also --[a-z0-9-]*//g' "$tmp/out" | grep -oE '(^|[ [,|])--[a-z][a-z0-9-]*' |
                 grep -oE -- '--[a-z][a-z0-9-]*' | grep -vx -- '--help' | sort -u); do
        grep -qe "$opt\b" "$tmp/usage" || missing="$missing $opt"
    done
    [ -z "$missing" ] && ok || bad "crumple $words: usage line lacks$missing"
    # options the source accepts must be in the help
    undocumented=""
    for src in "$@"; do
        [ -f "$src" ] || continue
        for opt in $(grep -oE '"--[a-z][a-z0-9-]*"' "$src" | tr -d '"' | sort -u); do
            [ "$opt" = "--help" ] && continue
            grep -qe "$opt\b" "$tmp/out" || undocumented="$undocumented $opt"
        done
    done
    [ -z "$undocumented" ] && ok || bad "crumple $words --help does not describe$undocumented (accepted by $*)"
    # shellcheck disable=SC2086
    "$cli" $words --no-such-option >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
    [ $rc -eq 2 ] && [ -s "$tmp/err" ] && [ ! -s "$tmp/out" ] && ok ||
        bad "crumple $words --no-such-option: exit $rc (want 2), stdout $(wc -c <"$tmp/out") bytes, stderr $(wc -c <"$tmp/err") bytes"
}

for c in $commands; do
    case $c in
        version) check_help version
                 "$cli" version >"$tmp/out" 2>"$tmp/err"; rc=$?
                 [ $rc -eq 0 ] && grep -q '^crumple [0-9][0-9.]* (\(float32\|fixed-q32.32\))$' "$tmp/out" && [ ! -s "$tmp/err" ] &&
                     ok || bad "crumple version: exit $rc, '$(cat "$tmp/out")'" ;;
        bench) check_help bench tools/cmd_bench.c
               check_help "bench cook" tools/bench_cook.c
               check_help "bench frames" tools/bench_frames.c
               check_help "bench calibrate" tools/bench_calibrate.c ;;
        gen) check_help gen
             for g in torus terrain box sphere; do check_help "gen $g"; done ;;
        *) check_help "$c" "tools/cmd_$c.c" ;;
    esac
done

# bench frames on one short scene: the table's columns and the JSON's fields are there, exit 0
"$cli" bench frames dent_ball_block --steps 5 --repeat 1 >"$tmp/out" 2>"$tmp/err"; rc=$?
missing=""
for col in "p50 ms" "p99 ms" "worst ms" "worst/p50" "dmg@worst ms" "dmg worst ms" "dmg max units" "latency worst/mean"; do
    grep -qF "$col" "$tmp/out" || missing="$missing '$col'"
done
[ $rc -eq 0 ] && [ -z "$missing" ] && grep -q '^dent_ball_block  *5 ' "$tmp/out" && ok ||
    bad "crumple bench frames dent_ball_block --steps 5 --repeat 1: exit $rc, columns missing:$missing, or no row"
"$cli" bench frames dent_ball_block --steps 5 --repeat 2 --json >"$tmp/out" 2>"$tmp/err"; rc=$?
missing=""
for key in scene mode steps repeat clock p50_ms p99_ms worst_ms worst_over_p50 cpu_p50_ms worst_step_damage_ms damage_worst_ms \
           damage_work_max state_hash models dent committed latency_max latency_mean work waiting_max; do
    grep -q "\"$key\":" "$tmp/out" || missing="$missing $key"
done
[ $rc -eq 0 ] && [ -z "$missing" ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] && ok ||
    bad "crumple bench frames dent_ball_block --steps 5 --repeat 2 --json: exit $rc, keys missing:$missing, or not one line"

# bench calibrate on one short scene: the table's header and a C initializer of CR_DAMAGE_OP_COUNT numbers
ops=$(sed -n '/^#define CR_DAMAGE_OP_LIST/,/^$/p' runtime/include/crumple/world.h | grep -c '^ *X(')
"$cli" bench calibrate dent_ball_block --steps 20 --repeat 1 >"$tmp/out" 2>"$tmp/err"; rc=$?
init=$(grep -E '^\{ [0-9]+(, [0-9]+)*, \}$' "$tmp/out" | tail -n 1)
n=$(printf '%s' "$init" | tr -cd ',' | wc -c)
[ $rc -eq 0 ] && grep -q '^op  *model  *items seen  *fitted ps/item  *default ps' "$tmp/out" && [ "$n" -eq "$ops" ] && ok ||
    bad "crumple bench calibrate dent_ball_block --steps 20 --repeat 1: exit $rc, no table header, or an initializer of $n numbers (want $ops)"
# bad usage of the scene benches: exit 2, their own prefix on stderr, nothing on stdout
for sub in frames calibrate; do
    for words in "--bogus" "--repeat 0" "--steps x" "--clock sun"; do
        # shellcheck disable=SC2086
        "$cli" bench $sub dent_ball_block $words >"$tmp/out" 2>"$tmp/err"; rc=$?
        [ $rc -eq 2 ] && grep -q "^crumple bench $sub: " "$tmp/err" && [ ! -s "$tmp/out" ] && ok ||
            bad "crumple bench $sub $words: exit $rc (want 2) or no 'crumple bench $sub:' message"
    done
done

# a missing input file is a failure of the work, not of usage: exit 1, said on stderr
for words in "info /nonexistent.crb" "query /nonexistent.crb --sdf" "render /nonexistent.crb -o $tmp/x.png" \
             "cook /nonexistent.obj -o $tmp/x.crb" "run /nonexistent.scene" "replay /nonexistent.crr --verify" \
             "bench /nonexistent.scene" "bench frames /nonexistent.scene --steps 1 --repeat 1" \
             "bench calibrate /nonexistent.scene --steps 1 --repeat 1"; do
    # shellcheck disable=SC2086
    "$cli" $words >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
    [ $rc -eq 1 ] && [ -s "$tmp/err" ] && ok || bad "crumple $words: exit $rc (want 1) or nothing on stderr"
done
# an option value out of range is bad usage like any other: exit 2, the command's prefix, no file written
for opts in "--sdf-res 1" "--sdf-pad 999" "--sdf-pad 0" "--sdf-res 4 --sdf-pad 2" "--geodesic-max 5000"; do
    rm -f "$tmp/x.crb"
    # shellcheck disable=SC2086
    "$cli" cook data/meshes/block.obj -o "$tmp/x.crb" $opts >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
    [ $rc -eq 2 ] && grep -q "^crumple cook: " "$tmp/err" && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/x.crb" ] && ok ||
        bad "crumple cook $opts: exit $rc (want 2), stderr '$(head -n 1 "$tmp/err")'"
done
# replay --verify run from a folder without build/cache cooks its meshes in a temporary folder and
# leaves nothing behind there (it used to make ./build/cache wherever it was run)
scene=$(pwd)/data/scenes/dent_ball_block.scene
mkdir "$tmp/elsewhere"
if "$cli" run "$scene" --frames 3 --record "$tmp/r.crr" >/dev/null 2>"$tmp/err"; then
    abs=$cli
    case $cli in /*) ;; */*) abs=$(pwd)/$cli ;; esac
    (cd "$tmp/elsewhere" && "$abs" replay "$tmp/r.crr" --verify >"$tmp/out" 2>"$tmp/err"); rc=$?
    left=$(ls -A "$tmp/elsewhere")
    [ $rc -eq 0 ] && [ -z "$left" ] && grep -q "3 frames verified" "$tmp/out" && ok ||
        bad "crumple replay --verify from an empty folder: exit $rc, left '$left' there, '$(cat "$tmp/out" "$tmp/err")'"
else
    bad "crumple run $scene --record: $(cat "$tmp/err")"
fi
# a stage benchmark's name says where that benchmark is built, rather than being looked up as a scene
for name in dent skin bend squash; do
    "$cli" bench $name >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
    [ $rc -eq 2 ] && grep -q "crumple_stage_bench $name" "$tmp/err" && ok ||
        bad "crumple bench $name: exit $rc (want 2) or stderr does not name crumple_stage_bench $name"
done
"$cli" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ -s "$tmp/err" ] && [ ! -s "$tmp/out" ] && ok || bad "crumple without a command: exit $rc (want 2, usage on stderr)"

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
