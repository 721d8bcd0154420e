#!/bin/sh
# docker/pgbouncer-entrypoint.sh - writes PgBouncer's auth file from
# HPOD_DB_PASSWORD (the role hpod's password, as compose gives it to the
# database) and runs PgBouncer in the foreground.
set -eu
umask 077
printf '"hpod" "%s"\n' "${HPOD_DB_PASSWORD:?HPOD_DB_PASSWORD is not set}" \
    >/tmp/userlist.txt
exec pgbouncer /etc/pgbouncer/pgbouncer.ini
