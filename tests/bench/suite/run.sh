#!/bin/sh
# tests/bench/suite/run.sh BUILD [SUITE ARGS...] - what `make bench-suite`
# runs: the development suite (docs/suite.md) against a release `hpod
# serve` of BUILD on a throwaway PostgreSQL cluster (tests/api/pg_tmp.sh
# makes it under BUILD and removes it on every exit path).
#   BUILD       a release build directory holding hpod and hpod-bench
#   SUITE ARGS  passed to suite.py (e.g. --runs 20 --seeds 3, --sections
#               functions); results and runs under --out (default
#               build/suite), reused by the next invocation
# The server gets OPENBLAS_NUM_THREADS=1 and HPOD_SIM_WORKERS=2.
set -eu
B=${1:?usage: tests/bench/suite/run.sh BUILD [SUITE ARGS...]}
shift
root=$(cd "$(dirname "$0")/../../.." && pwd)
B=$(cd "$B" && pwd)
if [ ! -x "$B/hpod" ] || [ ! -x "$B/hpod-bench" ]; then
    echo "suite: $B/hpod or $B/hpod-bench not built" >&2
    exit 1
fi
if [ "${SUITE_INNER:-}" != 1 ]; then
    SUITE_INNER=1 exec sh "$root/tests/api/pg_tmp.sh" "$B" sh "$0" "$B" "$@"
fi

export OPENBLAS_NUM_THREADS=1 HPOD_SIM_WORKERS=2
pgdir=$(mktemp -d "$B/suite.XXXXXX") # the server's log: $pgdir/hpod-0.log
pids=""
urls=""
stop() {
    for p in $pids; do
        kill -TERM "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    pids=""
    rm -rf "$pgdir"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

(cd "$root" && "$B/hpod" migrate) >"$pgdir/migrate.log" 2>&1 || {
    tail -20 "$pgdir/migrate.log" >&2
    echo "suite: hpod migrate failed" >&2
    exit 1
}
# free_port, start_servers N BUILD (appends to pids and urls)
# shellcheck source=tests/bench/servers.sh
. "$root/tests/bench/servers.sh"
start_servers 1 "$B"
cd "$root"
"${SUITE_PYTHON:-/usr/bin/python3}" tests/bench/suite/suite.py \
    --build "$B" --url "$urls" "$@"
