#!/bin/sh
# scripts/pg.sh - a private PostgreSQL cluster in a directory, for `make run`
# (persistent, .pgdata/) and for tests (throwaway, under the build tree).
#
#   sh scripts/pg.sh init  DIR      initdb once (no-op if DIR holds a cluster)
#   sh scripts/pg.sh start DIR      start, listening on a unix socket in DIR only
#   sh scripts/pg.sh stop  DIR      fast shutdown (no-op if not running)
#   sh scripts/pg.sh url   DIR      print the libpq URL of database "hpod"
#
# PG_OPTS adds server options to start (e.g. "-c shared_preload_libraries=
# pg_stat_statements" for tests/bench/cycle_cost.py).
#
# PostgreSQL refuses to run as root, so when we are root every server-side
# command runs as the "postgres" user (created by the Debian package) with
# runuser. The cluster listens on no TCP port: only on DIR/.s.PGSQL.5432,
# so parallel clusters never collide on a port.
set -eu

cmd=${1:?usage: pg.sh init|start|stop|url DIR}
dir=${2:?usage: pg.sh init|start|stop|url DIR}

pg_bindir() {
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
        if [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
    done
    if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
    echo "pg.sh: could not find initdb; is postgresql installed?" >&2
    return 1
}

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
data="$dir/data"
sock="$dir"

case "$cmd" in
init)
    if [ -f "$data/PG_VERSION" ]; then exit 0; fi
    bin=$(pg_bindir)
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres "$dir"
        # The data directory's parents must be traversable by postgres.
        p=$dir
        while [ "$p" != "/" ]; do chmod o+x "$p" 2>/dev/null || true; p=$(dirname "$p"); done
    fi
    as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 \
        --no-instructions >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    ;;
start)
    bin=$(pg_bindir)
    if as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
        exit 0
    fi
    as_owner "$bin/pg_ctl" -D "$data" -l "$dir/postgres.log" -w -t 60 \
        -o "-c listen_addresses='' -k $sock -c max_connections=200 -c fsync=on ${PG_OPTS:-}" \
        start >/dev/null || { tail -20 "$dir/postgres.log" >&2; exit 1; }
    if ! as_owner "$bin/psql" -h "$sock" -U postgres -d postgres -Atq \
        -c "SELECT 1 FROM pg_database WHERE datname = 'hpod'" | grep -q 1; then
        as_owner "$bin/createdb" -h "$sock" -U postgres hpod
    fi
    ;;
stop)
    bin=$(pg_bindir)
    if [ -f "$data/postmaster.pid" ]; then
        as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    ;;
url)
    echo "postgresql:///hpod?host=$sock&user=postgres"
    ;;
*)
    echo "pg.sh: unknown command $cmd" >&2
    exit 2
    ;;
esac
