#!/bin/sh
# scripts/run.sh HPOD_BINARY - what `make run` does after building:
# creates (once) and starts the project's private PostgreSQL cluster in
# .pgdata/ (git-ignored), then runs `hpod serve`, which applies migrations
# and serves on 127.0.0.1:${HPOD_PORT:-8080}. Ctrl-C or SIGTERM stops the
# server, then the cluster; the next `make run` reuses the data. Where it
# can (scripts/simcgroup.sh), the server's simulations run in an idle cpu
# cgroup made for this run and removed once the server has stopped.
set -eu
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
data="$root/.pgdata"

sh scripts/pg.sh init "$data"
sh scripts/pg.sh start "$data"
export HPOD_DATABASE_URL="${HPOD_DATABASE_URL:-$(sh scripts/pg.sh url "$data")}"

# shellcheck source=scripts/simcgroup.sh
. "$root/scripts/simcgroup.sh"

pid=""
stop() {
    trap - INT TERM EXIT
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    sim_cgroup_remove
    sh scripts/pg.sh stop "$data"
    echo "hpod and its PostgreSQL cluster stopped" >&2
}
trap stop INT TERM EXIT
sim_cgroup_make

# serve applies the migrations itself (once) and logs "hpod serving on
# ..." with the real port once it listens; Ctrl-C stops it.
"$bin" serve &
pid=$!
wait "$pid" || true
