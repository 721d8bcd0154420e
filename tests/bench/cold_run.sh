#!/bin/sh
# tests/bench/cold_run.sh [REPO_ROOT] - wall time of a cold `make run`.
# Clones the committed HEAD of REPO_ROOT (default: this checkout) into a
# fresh temporary directory outside the tree (so nothing there, not even
# ../shared, is reachable: benchmarks data are simply absent), starts
# `HPOD_PORT=<free port> make -C CLONE run` in its own process group and
# measures the time until `GET /healthz` answers 200: build from nothing
# (release), initdb of CLONE/.pgdata, migrate, serve. Then it sends SIGINT
# to the make process group (as Ctrl-C would), checks that make exited and
# that the PostgreSQL cluster stopped, and removes the clone on every exit
# path. Prints
#   cold make run: N.N s (build + initdb + migrate + serve)
# and whether the Debian packages of scripts/deps.sh were already installed
# (then the apt step of `make run` is a no-op and not in the figure).
# Uncommitted changes are not measured: the clone holds HEAD only.
set -u
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
timeout_s=${COLD_TIMEOUT:-900}

# A cold run must not inherit the caller's make or hpod settings: under
# `make bench O=x`, MAKEFLAGS carries O=x into every sub-make, and an
# exported HPOD_DATABASE_URL would point scripts/run.sh at another cluster.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES O MODE
for v in $(env | sed -n 's/^\(HPOD_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hpod-cold.XXXXXX")
clone="$tmp/clone"
log="$tmp/make-run.log"
pgid=""

now() { date +%s.%N; }

cluster_running() { # the clone's postmaster is up
    [ -f "$clone/.pgdata/data/postmaster.pid" ] &&
        kill -0 "$(head -1 "$clone/.pgdata/data/postmaster.pid")" 2>/dev/null
}

make_alive() { [ -n "$pgid" ] && kill -0 "$pgid" 2>/dev/null; }

cleanup() {
    trap - EXIT INT TERM HUP
    if make_alive; then
        kill -TERM "-$pgid" 2>/dev/null
        sleep 2
        kill -KILL "-$pgid" 2>/dev/null
    fi
    if cluster_running; then
        sh "$clone/scripts/pg.sh" stop "$clone/.pgdata" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "cold_run: interrupted" >&2; exit 130' INT TERM HUP
trap 'exit 141' PIPE # stdout closed (| head): still clean up

# Were the packages already there? Same check as scripts/deps.sh.
pkgs=$(sed -n '/^PKGS="/,/"$/p' "$root/scripts/deps.sh" | tr -d '"' |
    sed 's/^PKGS=//')
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
        grep -q 'install ok installed' || missing="$missing $p"
done
if [ -z "$pkgs" ]; then
    deps_note="could not read the package list of scripts/deps.sh"
elif [ -z "$missing" ]; then
    deps_note="all $(echo "$pkgs" | wc -w) Debian packages were already installed: the apt step was a no-op"
else
    deps_note="packages missing before the run (installed by make run, inside the figure):$missing"
fi

port=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')

git clone -q "$root" "$clone" || { echo "cold_run: git clone failed" >&2; exit 1; }
head=$(git -C "$clone" rev-parse --short HEAD)

# make runs as the leader of a new session (so its process group id is the
# pid written to $tmp/pgid) with SIGINT and SIGQUIT back to their defaults:
# a shell starts background commands with both ignored, and an ignored
# signal stays ignored across exec, so neither make nor scripts/run.sh nor
# hpod would ever see the Ctrl-C sent below. Python does the reset; sh
# cannot un-ignore a signal it was started with.
t0=$(now)
HPOD_PORT=$port python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGQUIT, signal.SIG_DFL)
os.setsid()
with open(sys.argv[1], "w") as f:
    f.write(str(os.getpid()))
os.execvp("make", ["make", "-C", sys.argv[2], "run"])' \
    "$tmp/pgid" "$clone" >"$log" 2>&1 </dev/null &
i=0
while [ ! -s "$tmp/pgid" ] && [ "$i" -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
pgid=$(cat "$tmp/pgid" 2>/dev/null)
[ -n "$pgid" ] || { echo "cold_run: make did not start" >&2; exit 1; }

# Phase marks from the make run log, polled with /healthz: the build ends
# when make starts scripts/run.sh; the cluster is up and migrated when
# scripts/run.sh announces the server.
ok=0
t_build=""
t_pg=""
while :; do
    if [ -z "$t_build" ] && grep -q '^sh scripts/run.sh' "$log"; then
        t_build=$(now)
    fi
    if [ -z "$t_pg" ] && grep -q '^hpod: serving' "$log"; then
        t_pg=$(now)
    fi
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null; then
        ok=1
        break
    fi
    make_alive || break
    if awk -v a="$(now)" -v b="$t0" -v t="$timeout_s" \
        'BEGIN { exit !(a - b > t) }'; then break; fi
    sleep 0.1
done
t1=$(now)
if [ "$ok" -ne 1 ]; then
    echo "cold_run: /healthz never answered 200 (clone of $head); make run log:" >&2
    tail -30 "$log" >&2
    exit 1
fi
secs=$(awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }')
phases=$(awk -v t0="$t0" -v b="${t_build:-$t1}" -v p="${t_pg:-$t1}" \
    -v t1="$t1" 'BEGIN { printf "build %.1f s, initdb + start + migrate " \
    "%.1f s, serve until /healthz 200 %.1f s", b - t0, p - b, t1 - p }')

# Stop it as a user would: Ctrl-C reaches the whole foreground group.
# (dash's kill takes "-PGID" but not "-- -PGID".)
kill -INT "-$pgid" 2>/dev/null
i=0
while make_alive && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
rc=0
if make_alive; then
    echo "cold_run: make run still running 30 s after SIGINT" >&2
    rc=1
fi
if cluster_running; then
    echo "cold_run: the PostgreSQL cluster of the clone did not stop" >&2
    rc=1
fi
if ! grep -q 'stopped' "$log"; then
    echo "cold_run: make run did not report its shutdown; log tail:" >&2
    tail -10 "$log" >&2
fi

printf 'cold make run: %.1f s (build + initdb + migrate + serve)\n' "$secs"
echo "  $phases (phase marks polled every 0.1 s)"
echo "  clone of HEAD $head in $tmp (uncommitted changes not included);" \
    "$(nproc) cpus, make without -j, as \`make run\` does"
echo "  $deps_note"
if [ -n "${CFLAGS:-}" ]; then
    echo "  note: CFLAGS from the environment were in effect: $CFLAGS"
fi
if [ "$rc" -eq 0 ]; then
    echo "  after SIGINT to the make process group: make exited, cluster stopped"
fi
exit "$rc"
