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

export OPENBLAS_NUM_THREADS=1
log=$(mktemp "$B/suite-hpod.XXXXXX")
pid=""
stop() {
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        pid=""
    fi
    rm -f "$log"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

(cd "$root" && "$B/hpod" migrate) >"$log" 2>&1 ||
    { tail -20 "$log" >&2; echo "suite: hpod migrate failed" >&2; exit 1; }
port=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
(cd "$root" && HPOD_PORT="$port" HPOD_SIM_WORKERS=2 exec "$B/hpod" serve) \
    >>"$log" 2>&1 &
pid=$!
i=0
until curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null; do
    i=$((i + 1))
    if [ "$i" -gt 300 ] || ! kill -0 "$pid" 2>/dev/null; then
        tail -20 "$log" >&2
        echo "suite: hpod serve did not answer /healthz within 30 s" >&2
        exit 1
    fi
    sleep 0.1
done
cd "$root"
"${SUITE_PYTHON:-/usr/bin/python3}" tests/bench/suite/suite.py \
    --build "$B" --url "http://127.0.0.1:$port" "$@"
