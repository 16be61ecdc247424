#!/bin/sh
# run.sh SECONDS BUILD_DIR... — run every harness of every build for SECONDS
# (or, with FUZZ_FIXED=1, a fixed count of executions from a fixed seed).
#
# Each run starts from the seed corpus in tests/fuzz/corpus/NAME (read only:
# new inputs go to BUILD/fuzz/work-NAME, crashes to BUILD/fuzz/crash-NAME-*).
# Every seed runs first, so the regression inputs in the corpus are checked
# even with SECONDS=0; FUZZ_FRESH=1 forgets what earlier runs collected.
# Prints one line per run with its executions, and
# "fuzz: N passed, M failed" last (the line tests/run_all.sh counts).
set -u
seconds=$1
shift
passed=0
failed=0
# executions per harness for FUZZ_FIXED: about 10 s each here (the harnesses'
# speeds differ by 50x: a scene builds a world and steps it, a replay decodes)
burst_runs() {
    case $1 in
        asset) echo 150000 ;;
        obj) echo 30000 ;;
        scene) echo 15000 ;;
        *) echo 600000 ;;
    esac
}
for build in "$@"; do
    for name in asset obj scene replay; do
        bin=$build/fuzz/fuzz_$name
        work=$build/fuzz/work-$name
        # FUZZ_FRESH=1 (make test's burst): start from the seeds alone, so the
        # run's length does not grow with what earlier runs collected
        [ "${FUZZ_FRESH:-0}" = 1 ] && rm -rf "$work"
        mkdir -p "$work"
        log=$build/fuzz/log-$name.txt
        # rss limit: a harness that wants more memory than this is a bug (the
        # parsers must not allocate more than the input describes)
        # libFuzzer reads -max_total_time=0 as "no limit": 0 s means the corpus alone
        limit=-max_total_time=$seconds
        [ "$seconds" = 0 ] && limit=-runs=0
        seed=-seed=0
        # FUZZ_FIXED=1 (make test's burst): a fixed count of executions from a
        # fixed seed instead of SECONDS, the same mutations on every machine, so
        # a burst that passes here passes in CI; `make fuzz` explores by time
        if [ "${FUZZ_FIXED:-0}" = 1 ]; then
            limit=-runs=$(burst_runs "$name")
            seed=-seed=1
        fi
        if "$bin" "$limit" "$seed" -print_final_stats=1 -rss_limit_mb=1024 -timeout=20 \
            -artifact_prefix="$build/fuzz/crash-$name-" "$work" "tests/fuzz/corpus/$name" >"$log" 2>&1; then
            runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
            echo "fuzz $name ($build): ${runs:-?} executions, no crash"
            passed=$((passed + 1))
        else
            tail -n 40 "$log"
            echo "fuzz $name ($build): FAILED (log $log, input in $build/fuzz/crash-$name-*)"
            failed=$((failed + 1))
        fi
    done
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
