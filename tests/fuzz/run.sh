#!/bin/sh
# tests/fuzz/run.sh BUILD SECONDS JOBS TARGET... - runs each libFuzzer
# harness BUILD/fuzz/fuzz_TARGET for SECONDS with JOBS processes side by
# side, on the repository corpus tests/fuzz/corpus/TARGET (read only) and
# BUILD/fuzz/corpus/TARGET (where new inputs go), with tests/fuzz/json.dict.
# Prints per target: executions, exec/s and crashes (0, or the artifacts
# under BUILD/fuzz/artifacts/TARGET); exits 1 if anything crashed.
set -u
B=${1:?usage: tests/fuzz/run.sh BUILD SECONDS JOBS TARGET...}
secs=${2:?seconds}
jobs=${3:?jobs}
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export OPENBLAS_NUM_THREADS=1
status=0
total=0
for t in "$@"; do
    bin="$B/fuzz/fuzz_$t"
    if [ ! -x "$bin" ]; then
        echo "fuzz $t: no harness $bin"
        status=1
        continue
    fi
    corpus="$B/fuzz/corpus/$t"
    art="$B/fuzz/artifacts/$t"
    logs="$B/fuzz/logs/$t"
    mkdir -p "$corpus" "$art" "$logs"
    rm -f "$logs"/*.log "$art"/*
    j=0
    while [ "$j" -lt "$jobs" ]; do
        "$bin" "$corpus" "$root/tests/fuzz/corpus/$t" \
            -dict="$root/tests/fuzz/json.dict" -max_total_time="$secs" \
            -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$art/" >"$logs/$j.log" 2>&1 &
        j=$((j + 1))
    done
    wait
    execs=0
    rate=0
    for log in "$logs"/*.log; do
        n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
        r=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$log" | tail -1)
        # A crashed run prints no stats: its last status line has the count.
        [ -n "$n" ] || n=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -1)
        execs=$((execs + ${n:-0}))
        rate=$((rate + ${r:-0}))
    done
    total=$((total + execs))
    crashes=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' \
        -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
    if [ -n "$crashes" ]; then
        status=1
        echo "fuzz $t: $execs executions, $rate exec/s, crashes:"
        echo "$crashes" | sed 's/^/    /'
        for log in "$logs"/*.log; do
            grep -E 'ERROR|runtime error|property failed' "$log" | head -3 |
                sed 's/^/    /'
        done
    else
        echo "fuzz $t: $execs executions, $rate exec/s, 0 crashes"
    fi
done
echo "fuzz: $total executions in total"
exit $status
