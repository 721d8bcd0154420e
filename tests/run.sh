#!/bin/sh
# tests/run.sh BUILD [unit] - runs every test program of a build and ends
# with one line "tests: N passed, N failed, N skipped" (counted per test
# case; a skipped case is not a pass).
#   BUILD   a build directory such as build/asan (unit tests in BUILD/tests)
#   unit    run only the unit tests (no PostgreSQL)
# Unit tests run under the sanitizers the build was made with (or valgrind
# when VALGRIND=1); API tests start their own throwaway PostgreSQL cluster
# under the build tree (tests/api/pg_tmp.sh) and the real server.
set -u
B=${1:?usage: tests/run.sh BUILD [unit]}
only=${2:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
passed=0
failed=0
skipped=0
logdir="$B/test-logs"
mkdir -p "$logdir"

export OPENBLAS_NUM_THREADS=1
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

count_line() { # file -> "passed failed skipped" from cmocka's summary lines
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$1" | tail -1)
    echo "${p:-0} ${f:-0} ${s:-0}"
}

for t in "$B"/tests/test_*; do
    case "$t" in *.o|*.d) continue ;; esac
    [ -x "$t" ] || continue
    name=$(basename "$t")
    log="$logdir/$name.log"
    if [ "${VALGRIND:-0}" = 1 ]; then
        valgrind -q --error-exitcode=99 --leak-check=full \
            --errors-for-leak-kinds=definite,indirect \
            --suppressions="$root/tests/support/valgrind.supp" "$t" >"$log" 2>&1
    else
        "$t" >"$log" 2>&1
    fi
    rc=$?
    set -- $(count_line "$log")
    p=$1
    f=$2
    s=$3
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1 # crashed, leaked or sanitizer report: count the program once
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
    if [ "$rc" -eq 0 ]; then
        if [ "$s" -gt 0 ]; then
            echo "unit $name: $p passed, $s skipped"
        else
            echo "unit $name: $p passed"
        fi
    else
        echo "unit $name: FAILED (exit $rc), log follows"
        tail -40 "$log"
    fi
done

if [ "$only" != unit ] && [ -f "$root/tests/api/test_api.py" ]; then
    log="$logdir/api.log"
    sh "$root/tests/api/pg_tmp.sh" "$B" python3 "$root/tests/api/test_api.py" \
        --hpod "$B/hpod" >"$log" 2>&1
    rc=$?
    grep -E '^(ok|not ok|skip) ' "$log" | sed 's/^/api: /'
    line=$(grep -E '^api: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
    p=$(echo "$line" | sed -n 's/^api: \([0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
    s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
    p=${p:-0}
    f=${f:-0}
    s=${s:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
        echo "api: suite failed (exit $rc); last lines:"
        tail -30 "$log"
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
fi

echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
