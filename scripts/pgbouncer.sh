#!/bin/sh
# scripts/pgbouncer.sh - a private PgBouncer (Debian's pgbouncer) in
# transaction mode in front of a private cluster of scripts/pg.sh, for the
# tests and `make bench` (docs/DEPLOY.md, "PgBouncer").
#
#   sh scripts/pgbouncer.sh start DIR PGHOST PORT [POOL]
#       writes DIR/pgbouncer.ini and starts PgBouncer as a daemon on
#       ${PGBOUNCER_LISTEN:-127.0.0.1}:PORT in front of the cluster whose
#       socket directory is PGHOST: any database name, user postgres, no
#       password (auth_type any: the cluster trusts local connections),
#       POOL (default 20) server connections per database; its pid in
#       DIR/pgbouncer.pid, its log in DIR/pgbouncer.log
#   sh scripts/pgbouncer.sh stop DIR    stops it (no-op if not running)
#   sh scripts/pgbouncer.sh url DIR     the libpq URL of database "hpod"
#
# PgBouncer refuses to run as root, so when we are root it runs as the
# "postgres" user (created by the Debian package), as scripts/pg.sh does.
set -eu

cmd=${1:?usage: pgbouncer.sh start|stop|url DIR ...}
dir=${2:?usage: pgbouncer.sh start|stop|url DIR ...}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

case "$cmd" in
start)
    host=${3:?usage: pgbouncer.sh start DIR PGHOST PORT [POOL]}
    port=${4:?usage: pgbouncer.sh start DIR PGHOST PORT [POOL]}
    pool=${5:-20}
    command -v pgbouncer >/dev/null 2>&1 ||
        [ -x /usr/sbin/pgbouncer ] ||
        { echo "pgbouncer.sh: pgbouncer is not installed" >&2; exit 1; }
    cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$host user=postgres

[pgbouncer]
listen_addr = ${PGBOUNCER_LISTEN:-127.0.0.1}
listen_port = $port
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 2000
default_pool_size = $pool
max_db_connections = $pool
server_reset_query =
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
log_connections = 0
log_disconnections = 0
INI
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres "$dir"
        p=$dir
        while [ "$p" != "/" ]; do chmod o+x "$p" 2>/dev/null || true; p=$(dirname "$p"); done
    fi
    as_owner "$(command -v pgbouncer || echo /usr/sbin/pgbouncer)" -d -q \
        "$dir/pgbouncer.ini" || { tail -5 "$dir/pgbouncer.log" >&2; exit 1; }
    i=0
    until [ -s "$dir/pgbouncer.pid" ] &&
        psql -X -q "postgresql://postgres@${PGBOUNCER_LISTEN:-127.0.0.1}:$port/hpod" \
            -c 'SELECT 1' >/dev/null 2>&1; do
        i=$((i + 1))
        if [ "$i" -gt 100 ]; then
            echo "pgbouncer.sh: PgBouncer did not answer within 10 s" >&2
            tail -5 "$dir/pgbouncer.log" >&2
            exit 1
        fi
        sleep 0.1
    done
    ;;
stop)
    if [ -s "$dir/pgbouncer.pid" ]; then
        pid=$(cat "$dir/pgbouncer.pid")
        kill -TERM "$pid" 2>/dev/null || true
        i=0
        while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -KILL "$pid" 2>/dev/null || true
        rm -f "$dir/pgbouncer.pid"
    fi
    ;;
url)
    port=$(sed -n 's/^listen_port = //p' "$dir/pgbouncer.ini")
    addr=$(sed -n 's/^listen_addr = //p' "$dir/pgbouncer.ini")
    echo "postgresql://postgres@$addr:$port/hpod"
    ;;
*)
    echo "pgbouncer.sh: unknown command $cmd" >&2
    exit 2
    ;;
esac
