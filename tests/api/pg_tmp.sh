#!/bin/sh
# tests/api/pg_tmp.sh BUILDROOT CMD ARGS... - run CMD against a throwaway
# PostgreSQL cluster.
#
# Makes a fresh directory BUILDROOT/pgtmp.XXXXXX, initializes and starts a
# private cluster there with scripts/pg.sh (unix socket only, so parallel
# runs never collide), exports HPOD_DATABASE_URL, runs CMD ARGS, then stops
# the cluster and removes the directory on every exit path (the EXIT trap
# also runs after INT/TERM/HUP). Exits with CMD's status. Never reuses a
# cluster left running by someone else.
set -eu

root=${1:?usage: pg_tmp.sh BUILDROOT CMD ARGS...}
shift
[ $# -ge 1 ] || { echo "usage: pg_tmp.sh BUILDROOT CMD ARGS..." >&2; exit 2; }

top=$(cd "$(dirname "$0")/../.." && pwd)
pg="$top/scripts/pg.sh"

mkdir -p "$root"
dir=$(mktemp -d "$root/pgtmp.XXXXXX")

cleanup() {
    rc=$?
    trap - EXIT INT TERM HUP
    # What tests started beside the cluster, in directories of it: a
    # PgBouncer (scripts/pgbouncer.sh), a standby's postmaster.
    for f in "$dir"/*/pgbouncer.pid; do
        [ -f "$f" ] && sh "$top/scripts/pgbouncer.sh" stop "$(dirname "$f")" >/dev/null 2>&1
    done
    for d in "$dir"/*/data; do
        [ -f "$d/postmaster.pid" ] && sh "$pg" stop "$(dirname "$d")" >/dev/null 2>&1
    done
    sh "$pg" stop "$dir" >/dev/null 2>&1 || true
    rm -rf "$dir"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

sh "$pg" init "$dir"
sh "$pg" start "$dir"
HPOD_DATABASE_URL=$(sh "$pg" url "$dir")
export HPOD_DATABASE_URL

set +e
"$@"
rc=$?
set -e
exit "$rc"
