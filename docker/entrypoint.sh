#!/bin/sh
# docker/entrypoint.sh - how the hpod container starts (docs/docker.md).
#
# With no arguments:
#   1. hpod migrate: waits for PostgreSQL (HPOD_DB_WAIT_SECONDS, default
#      60 s), then applies pending migrations under an advisory lock, so
#      replicas starting together are safe;
#   2. hpod token create --role admin --if-none: on the first start of the
#      database only, creates an admin token and prints its secret, once,
#      as the last line of stdout (the container log); when any token
#      exists it prints nothing. Race-free when two replicas start at once.
#      hpod serve refuses a non-loopback listen address (0.0.0.0 here)
#      while no token exists, unless HPOD_AUTH=off;
#   3. exec hpod serve (PID 1 under tini; SIGTERM stops it cleanly).
# With arguments, runs them instead (one-off commands:
#   docker compose run --rm hpod1 hpod token create --role write --lab mt).
#
# HPOD_BIN names the hpod binary (default: hpod on PATH), so the API tests
# run this script outside Docker (tests/api/test_docker.py).
set -eu

hpod=${HPOD_BIN:-hpod}

if [ "$#" -gt 0 ]; then
    exec "$@"
fi

"$hpod" migrate

if ! secret=$("$hpod" token create --role admin --if-none); then
    echo "entrypoint: hpod token create --role admin --if-none failed" >&2
    exit 1
fi
if [ -n "$secret" ]; then
    echo "entrypoint: first start: created an admin token; it is on the" \
        "next line of stdout and is not shown again" >&2
    printf '%s\n' "$secret"
fi

exec "$hpod" serve
