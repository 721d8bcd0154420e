#!/usr/bin/env python3
"""tests/bench/bench_simload.py URL [TABLE] - does a simulation starve a
trainer? (issue 14: "suggest p99 while 4 simulations of 100 repeats run
stays within 2x of its idle value").

One trainer (a sequential client, like a training script) runs suggest ->
report cycles on a plain random study: first on an idle server, then
while 4 simulations of 100 repeats (GP-EI, the costliest sampler, on the
table TABLE, default nmthpo/sw-en), posted with `Prefer: respond-async`,
run on the server's job pool. Prints p50/p99 of the suggest latency in
both phases and "result sim_suggest_p99_idle_ms / _busy_ms / _ratio"
lines for run.sh's summary. The busy phase ends when every simulation is
done (or after BENCH_SIM_SECONDS, default 60 s, when the jobs are left to
finish and the figure says so). Standard library only; never asserts a
speed: the exit status says only whether the calls worked.
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
    cycles(sid, 30)  # warm-up: connections, caches
    idle = cycles(sid, 400)
    body = {"algorithm": {"name": "gp"}, "objectives": [{"name": "bleu", "goal": "maximize"}],
            "repeats": 100}
    jobs = []
    for k in range(4):
        body["seed"] = k
        jobs.append(call("POST", "/v1/benchmarks/%s/simulate" % TABLE, body,
                         {"Prefer": "respond-async"})["id"])

    def all_done():
        return all(call("GET", "/v1/simulations/%d" % j)["state"] in ("done", "failed")
                   for j in jobs)

    t0 = time.monotonic()
    busy = cycles(sid, 10 ** 6, until=lambda: all_done() or time.monotonic() - t0 > LIMIT)
    took = time.monotonic() - t0
    finished = all_done()
    i99, b99 = pct(idle, 0.99), pct(busy, 0.99)
    print("suggest latency of one trainer, idle: p50 %.2f ms, p99 %.2f ms (n=%d)"
          % (pct(idle, 0.5), i99, len(idle)))
    print("while 4 simulations of 100 repeats (gp, %s) ran for %.1f s%s: p50 %.2f ms, "
          "p99 %.2f ms (n=%d); p99 ratio %.2fx (goal <= 2x)"
          % (TABLE, took, "" if finished else " (cut at %.0f s, jobs still running)" % LIMIT,
             pct(busy, 0.5), b99, len(busy), b99 / i99))
    print("result sim_suggest_p99_idle_ms %.3f" % i99)
    print("result sim_suggest_p99_busy_ms %.3f" % b99)
    print("result sim_suggest_p99_ratio %.3f" % (b99 / i99))
    # Leave nothing running behind the next bench step.
    end = time.monotonic() + 600
    while not all_done() and time.monotonic() < end:
        time.sleep(0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
