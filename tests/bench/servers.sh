# shellcheck shell=sh disable=SC2154 # root, pgdir: set by the caller
# tests/bench/servers.sh - sourced by run.sh and replicas_ab.sh: starting
# `hpod serve` processes on free ports, and the replica runs' finite study.
# The caller sets root (the repository), pgdir (each server's log goes to
# $pgdir/hpod-K.log) and HPOD_DATABASE_URL; start_servers appends to pids
# (the processes) and urls (their base URLs, comma-separated).

free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# start_servers N BUILD: N `hpod serve` of BUILD (a build root) on one
# database; exits when one does not answer /healthz within 30 s. Every
# client of the benchmark comes from 127.0.0.1 without a token, where the
# open server's rate limit counts them as one caller (HPOD_RATE_PER_TOKEN
# per client address): each stands for a trainer of its own, so the limit
# is off unless the caller sets it.
start_servers() {
    k=0
    while [ "$k" -lt "$1" ]; do
        port=$(free_port)
        (cd "$root" && HPOD_PORT="$port" \
            HPOD_RATE_PER_TOKEN="${HPOD_RATE_PER_TOKEN:-0}" exec "$2/hpod" serve) \
            >>"$pgdir/hpod-$k.log" 2>&1 &
        pids="$pids $!"
        u="http://127.0.0.1:$port"
        urls="${urls:+$urls,}$u"
        i=0
        until curl -fsS -o /dev/null "$u/healthz" 2>/dev/null; do
            i=$((i + 1))
            if [ "$i" -gt 300 ] || ! kill -0 "$!" 2>/dev/null; then
                tail -20 "$pgdir/hpod-$k.log" >&2
                echo "bench: hpod serve did not answer /healthz within 30 s" >&2
                exit 1
            fi
            sleep 0.1
        done
        k=$((k + 1))
    done
}

# finite_study N: the replica runs' finite study (bench_http's default
# space, N distinct candidates inside it, random sampler) as JSON.
finite_study() {
    python3 - "$1" <<'PY'
import json, sys
n = int(sys.argv[1])
space = [{"name": "lr", "type": "float", "low": 1e-5, "high": 0.1, "log": True},
         {"name": "layers", "type": "int", "low": 1, "high": 12},
         {"name": "batch", "type": "int", "values": [16, 32, 64, 128]},
         {"name": "opt", "type": "categorical", "choices": ["adam", "adamw", "sgd"]}]
cands = [{"lr": 10 ** (-5 + 4 * (i + 0.5) / n), "layers": 1 + i % 12,
          "batch": [16, 32, 64, 128][(i // 12) % 4],
          "opt": ["adam", "adamw", "sgd"][(i // 48) % 3]} for i in range(n)]
print(json.dumps({"name": "bench_http finite %d" % n, "space": space,
                  "candidates": cands,
                  "objectives": [{"name": "loss", "goal": "minimize"}],
                  "algorithm": {"name": "random", "seed": 1}}))
PY
}
