#!/bin/sh
# tests/bench/replicas_ab.sh - the replica runs of run.sh (64 clients over
# BENCH_REPLICAS `hpod serve` on one database: a finite study of
# BENCH_FINITE candidates, then an open study), for two builds in turn on
# one throwaway cluster, A B A B ..., so a change is judged against its
# base under the same load.
#
#   sh tests/bench/replicas_ab.sh BUILD_A BUILD_B [ROUNDS]
#
# BUILD_A and BUILD_B are build roots holding hpod (B may be the same as
# A). bench_http is BUILD_A's for both. The cluster is migrated with
# BUILD_A's hpod: both must agree on the schema. Prints each run's
# bench_http lines with the load average at its start, tagged A or B.
# Knobs: BENCH_SECONDS (default 10), BENCH_REPLICAS (3), BENCH_FINITE
# (3000), BENCH_FINITE_STUDIES (8: fresh finite studies in turn, pooled,
# as in run.sh), BENCH_CLIENTS (64), HPOD_THREADS, HPOD_DB_POOL.
set -u
A=$(cd "${1:?usage: replicas_ab.sh BUILD_A BUILD_B [ROUNDS]}" && pwd)
Bb=$(cd "${2:?usage: replicas_ab.sh BUILD_A BUILD_B [ROUNDS]}" && pwd)
rounds=${3:-2}
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${BENCH_SECONDS:-10}
replicas=${BENCH_REPLICAS:-3}
finite_n=${BENCH_FINITE:-3000}
finite_k=${BENCH_FINITE_STUDIES:-8}
clients=${BENCH_CLIENTS:-64}
export OPENBLAS_NUM_THREADS=1
pgdir=""
pids=""
urls=""
status=0

stop_servers() {
    for p in $pids; do kill -TERM "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null || status=1; done
    pids=""
    urls=""
}
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    trap - EXIT INT TERM HUP
    stop_servers
    if [ -n "$pgdir" ]; then
        sh "$root/scripts/pg.sh" stop "$pgdir" 2>/dev/null
        rm -rf "$pgdir"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# free_port, start_servers N BUILD, finite_study N
# shellcheck source=tests/bench/servers.sh
. "$root/tests/bench/servers.sh"

# server_side: each route's server-side latency (hpod's /metrics histogram,
# summed over the replicas, both runs of the side): the share of each
# bucket, to set beside bench_http's client-side figures.
server_side() {
    for u in $(echo "$urls" | tr , ' '); do
        curl -fsS "$u/metrics"
    done | python3 -c '
import re, sys
b = {}
for line in sys.stdin:
    m = re.match(r"hpod_http_request_duration_seconds_bucket\{route=\"([^\"]+)\",le=\"([^\"]+)\"\} (\d+)", line)
    if m and ("report" in m.group(1) or "suggest" in m.group(1)):
        k = (m.group(1), m.group(2))
        b[k] = b.get(k, 0) + int(m.group(3))
for route in sorted({k[0] for k in b}):
    n = b[(route, "+Inf")]
    cells = ["<=%sms %.2f%%" % (float(le) * 1000, 100.0 * c / n)
             for (r, le), c in sorted(b.items(), key=lambda x: float(x[0][1]))
             if r == route and le != "+Inf" and 0.004 < float(le) < 0.3]
    print("server-side %s n=%d: %s" % (route, n, ", ".join(cells)))
'
}

pgdir=$(mktemp -d "$A/benchpg.XXXXXX") || exit 1
sh "$root/scripts/pg.sh" init "$pgdir" >/dev/null &&
    sh "$root/scripts/pg.sh" start "$pgdir" >/dev/null || exit 1
HPOD_DATABASE_URL=$(sh "$root/scripts/pg.sh" url "$pgdir")
export HPOD_DATABASE_URL
(cd "$root" && "$A/hpod" migrate) >"$pgdir/migrate.log" 2>&1 || exit 1
finite="$pgdir/finite.json"
finite_study "$finite_n" >"$finite"

r=1
while [ "$r" -le "$rounds" ]; do
    for side in A B; do
        if [ "$side" = A ]; then build=$A; else build=$Bb; fi
        start_servers "$replicas" "$build"
        for kind in finite open; do
            echo "== round $r $side $kind load $(cut -d' ' -f1-3 /proc/loadavg)"
            if [ "$kind" = finite ]; then
                sed "s/\"bench_http finite /\"bench_http finite r$r$side /" \
                    "$finite" >"$finite.run"
                "$A/tests/bench_http" "$urls" "$clients" "$seconds" \
                    "$finite.run" "$finite_k" || status=1
            else
                "$A/tests/bench_http" "$urls" "$clients" "$seconds" || status=1
            fi
        done
        server_side
        stop_servers
    done
    r=$((r + 1))
done
exit $status
