#!/usr/bin/env python3
"""tests/bench/bench_simload.py URL [TABLE] - does a simulation starve a
trainer? (issue 14: "suggest p99 while 4 simulations of 100 repeats run
stays within 2x of its idle value").

One trainer (a sequential client, like a training script) runs suggest ->
report cycles on a plain random study, in BENCH_SIM_ROUNDS rounds
(default 3) of two windows each, on the same study: an idle window of
BENCH_SIM_IDLE cycles (default 400), then a busy window while 4
simulations of 100 repeats (GP-EI, the costliest sampler, on the table
TABLE, default nmthpo/sw-en), posted with `Prefer: respond-async`, run on
the server's job pool. The busy window ends when every simulation of the
round is done (or after BENCH_SIM_SECONDS, default 60 s, when the jobs
are left to finish and the figure says so); the next idle window starts
once they are. Every 10 cycles both windows make the same 4 status reads
(GET /v1/simulations/{id} of the round's jobs; GET /v1/studies/{id} before
the first jobs exist), so the windows differ by the simulations only.

Why rounds: a window of ~400 calls has as p99 its 4th or 5th slowest
call, and one idle window measured before one busy window lets any drift
of the machine (other work on the cores, the disk's flush time) fall on
one side only. Alternating the windows and pooling the rounds puts drift
on both sides and gives each p99 about 3 times the calls. Prints each
round's p50/p99 of both windows, then the pooled ones, and "result
sim_suggest_p99_idle_ms / _busy_ms / _ratio" (pooled) for run.sh's
summary. Round 1 alone is the protocol before rounds existed (30 warm-up
cycles, 400 idle, one busy window): "result sim_suggest_p99_ratio_round1".
Standard library only; never asserts a speed: the exit status says only
whether the calls worked.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

URL = sys.argv[1].split(",")[0]
TABLE = sys.argv[2] if len(sys.argv) > 2 else "nmthpo/sw-en"
LIMIT = float(os.environ.get("BENCH_SIM_SECONDS", "60"))
ROUNDS = int(os.environ.get("BENCH_SIM_ROUNDS", "3"))
IDLE = int(os.environ.get("BENCH_SIM_IDLE", "400"))
SPACE = [{"name": "lr", "type": "float", "low": 1e-5, "high": 0.1, "log": True},
         {"name": "layers", "type": "int", "low": 1, "high": 12}]


def call(method, path, body=None, headers=None):
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    req = urllib.request.Request(URL + path, method=method, headers=h,
                                 data=json.dumps(body).encode() if body is not None else None)
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read() or b"null")


def cycles(sid, n, until=None):
    """n suggest -> report cycles (fewer once until() is true, asked every
    10 cycles); the suggest latencies in ms."""
    out = []
    for i in range(n):
        t0 = time.monotonic()
        a = call("POST", "/v1/studies/%d/suggest" % sid, {"worker": "trainer"})
        out.append((time.monotonic() - t0) * 1e3)
        call("POST", "/v1/trials/%d/report" % a["trials"][0]["id"],
             {"values": {"loss": (i % 17) / 17.0}})
        if until is not None and i % 10 == 9 and until():
            break
    return out


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main():
    try:
        call("GET", "/v1/benchmarks/" + TABLE)
    except urllib.error.HTTPError as e:
        print("bench_simload: table %s not served (%d); skipped" % (TABLE, e.code))
        return 0
    sid = call("POST", "/v1/studies", {
        "name": "simload %d" % os.getpid(), "space": SPACE,
        "objectives": [{"name": "loss", "goal": "minimize"}],
        "algorithm": {"name": "random", "seed": 1}})["id"]
    body = {"algorithm": {"name": "gp"}, "objectives": [{"name": "bleu", "goal": "maximize"}],
            "repeats": 100}
    jobs = []

    def all_done():
        """The 4 status reads both windows make every 10 cycles."""
        if not jobs:
            for _ in range(4):
                call("GET", "/v1/studies/%d" % sid)
            return True
        return all([call("GET", "/v1/simulations/%d" % j)["state"] in ("done", "failed")
                    for j in jobs])

    cycles(sid, 30)  # warm-up: connections, caches
    idle_all, busy_all, ratio1, cut = [], [], None, False
    for rnd in range(1, ROUNDS + 1):
        idle = cycles(sid, IDLE, until=lambda: all_done() and False)
        jobs = []
        for k in range(4):
            body["seed"] = 4 * (rnd - 1) + k
            jobs.append(call("POST", "/v1/benchmarks/%s/simulate" % TABLE, body,
                             {"Prefer": "respond-async"})["id"])
        t0 = time.monotonic()
        busy = cycles(sid, 10 ** 6, until=lambda: all_done() or time.monotonic() - t0 > LIMIT)
        took = time.monotonic() - t0
        finished = all_done()
        cut = cut or not finished
        i99, b99 = pct(idle, 0.99), pct(busy, 0.99)
        print("round %d: idle p50 %.2f ms, p99 %.2f ms (n=%d); while 4 simulations of 100"
              " repeats (gp, %s) ran for %.1f s%s: p50 %.2f ms, p99 %.2f ms (n=%d);"
              " p99 ratio %.2fx"
              % (rnd, pct(idle, 0.5), i99, len(idle), TABLE, took,
                 "" if finished else " (cut at %.0f s, jobs still running)" % LIMIT,
                 pct(busy, 0.5), b99, len(busy), b99 / i99), flush=True)
        if ratio1 is None:
            ratio1 = b99 / i99
        idle_all += idle
        busy_all += busy
        # Leave nothing running behind the next window or bench step.
        end = time.monotonic() + 600
        while not all_done() and time.monotonic() < end:
            time.sleep(0.5)
    i99, b99 = pct(idle_all, 0.99), pct(busy_all, 0.99)
    print("pooled over %d rounds: idle p50 %.2f ms, p99 %.2f ms (n=%d); busy p50 %.2f ms,"
          " p99 %.2f ms (n=%d)%s; p99 ratio %.2fx (goal <= 2x)"
          % (ROUNDS, pct(idle_all, 0.5), i99, len(idle_all), pct(busy_all, 0.5), b99,
             len(busy_all), " (some busy windows cut)" if cut else "", b99 / i99))
    print("result sim_suggest_p99_idle_ms %.3f" % i99)
    print("result sim_suggest_p99_busy_ms %.3f" % b99)
    print("result sim_suggest_p99_ratio %.3f" % (b99 / i99))
    print("result sim_suggest_p99_ratio_round1 %.3f" % ratio1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
