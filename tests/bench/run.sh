#!/bin/sh
# tests/bench/run.sh BUILD - what `make bench` runs after building: speed
# figures for the server and the numeric core. Not a test (nothing about
# speed is asserted), but it fails when a benchmark reports an error.
#   BUILD   a release build directory holding hpod and tests/bench_* (e.g.
#           build/release)
# Steps: a throwaway PostgreSQL cluster under BUILD (mktemp -d
# BUILD/benchpg.XXXXXX), `hpod migrate`, `hpod serve` on a free port with
# OPENBLAS_NUM_THREADS=1, bench_http with 1, 4 and 16 clients (10 s each,
# after 1 s of warm-up), BUILD/tests/bench_gp and bench_graph when built,
# then tests/bench/cold_run.sh (a cold `make run` from a clean clone).
# The server and the cluster are stopped and removed on every exit path.
# Environment: BENCH_SECONDS (default 10), BENCH_CLIENTS (default "1 4 16"),
# BENCH_COLD=0 skips the cold run.
set -u
B=${1:?usage: tests/bench/run.sh BUILD}
root=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "$B" && pwd)
seconds=${BENCH_SECONDS:-10}
clients_list=${BENCH_CLIENTS:-1 4 16}
export OPENBLAS_NUM_THREADS=1

pgdir=""
pid=""
status=0

cleanup() {
    trap - EXIT INT TERM HUP
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        pid=""
    fi
    if [ -n "$pgdir" ]; then
        sh "$root/scripts/pg.sh" stop "$pgdir" 2>/dev/null
        rm -rf "$pgdir"
        pgdir=""
    fi
}
trap cleanup EXIT
trap 'echo "bench: interrupted" >&2; exit 130' INT TERM HUP
trap 'exit 141' PIPE # stdout closed (| head): still clean up

free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

fail() {
    echo "bench: $*" >&2
    status=1
}

# --- header: enough to reproduce the figures ------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
echo "== hpod bench $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
echo "machine: $(nproc) cpus, ${cpu:-unknown cpu}, $mem RAM, $(uname -sr)"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at start;" \
    "other work on these cores lowers every figure below"
echo "source:  $(git -C "$root" describe --always --dirty --tags 2>/dev/null ||
    echo 'not a git checkout'), binary $B/hpod"
echo "server:  HPOD_THREADS=${HPOD_THREADS:-8 (default)}" \
    "HPOD_DB_POOL=${HPOD_DB_POOL:-8 (default)} OPENBLAS_NUM_THREADS=1," \
    "PostgreSQL $(sh -c 'for d in /usr/lib/postgresql/*/bin; do
        "$d/postgres" --version; done' 2>/dev/null |
        sed -n 's/.*(PostgreSQL) \([0-9.]*\).*/\1/p' | sort -V | tail -1)" \
    "on a unix socket (fsync on), client and server on this machine"

[ -x "$B/hpod" ] || { echo "bench: $B/hpod not built" >&2; exit 1; }

# --- server on a throwaway cluster ----------------------------------------
echo
echo "== HTTP: suggest -> report round trips (tests/bench/bench_http.c)"
pgdir=$(mktemp -d "$B/benchpg.XXXXXX")
if ! sh "$root/scripts/pg.sh" init "$pgdir" ||
    ! sh "$root/scripts/pg.sh" start "$pgdir"; then
    echo "bench: could not start PostgreSQL" >&2
    exit 1
fi
HPOD_DATABASE_URL=$(sh "$root/scripts/pg.sh" url "$pgdir")
export HPOD_DATABASE_URL
port=$(free_port)
export HPOD_PORT="$port"
log="$pgdir/hpod.log"
(cd "$root" && "$B/hpod" migrate) >"$log" 2>&1 ||
    { tail -20 "$log" >&2; echo "bench: hpod migrate failed" >&2; exit 1; }
(cd "$root" && exec "$B/hpod" serve) >>"$log" 2>&1 &
pid=$!
url="http://127.0.0.1:$port"
i=0
until curl -fsS -o /dev/null "$url/healthz" 2>/dev/null; do
    i=$((i + 1))
    if [ "$i" -gt 300 ] || ! kill -0 "$pid" 2>/dev/null; then
        tail -20 "$log" >&2
        echo "bench: hpod serve did not answer /healthz within 30 s" >&2
        exit 1
    fi
    sleep 0.1
done

if [ -x "$B/tests/bench_http" ]; then
    for c in $clients_list; do
        "$B/tests/bench_http" "$url" "$c" "$seconds" ||
            fail "bench_http with $c clients reported errors"
    done
else
    fail "$B/tests/bench_http not built"
fi

if [ -f "$root/tests/bench/bench_models.py" ]; then
    echo
    echo "== HTTP: model samplers on a real table (tests/bench/bench_models.py)"
    python3 "$root/tests/bench/bench_models.py" "$url" ||
        fail "bench_models.py failed"
fi

kill -TERM "$pid" 2>/dev/null
if wait "$pid"; then
    echo "server: clean shutdown after the load (exit 0)"
else
    fail "hpod serve exited with status $? on SIGTERM; log: $log"
    tail -20 "$log" >&2
fi
pid=""
grep -E 'ERROR|FATAL|PANIC' "$pgdir/postgres.log" 2>/dev/null | head -5 |
    sed 's/^/postgres: /'
sh "$root/scripts/pg.sh" stop "$pgdir"
rm -rf "$pgdir"
pgdir=""
unset HPOD_DATABASE_URL HPOD_PORT

# --- numeric core -----------------------------------------------------------
for name in bench_sampler bench_gp bench_graph; do
    if [ -x "$B/tests/$name" ]; then
        echo
        echo "== core: $name (tests/bench/$name.c)"
        "$B/tests/$name" || fail "$name exited with status $?"
    else
        echo
        echo "== core: $name not built (tests/bench/$name.c absent); skipped"
    fi
done

# --- cold start -------------------------------------------------------------
echo
if [ "${BENCH_COLD:-1}" = 0 ]; then
    echo "== cold make run: skipped (BENCH_COLD=0)"
else
    echo "== cold make run (tests/bench/cold_run.sh)"
    sh "$root/tests/bench/cold_run.sh" "$root" || fail "cold run failed"
fi

echo
if [ "$status" -eq 0 ]; then
    echo "bench: done"
else
    echo "bench: done, with errors (see above)"
fi
exit "$status"
