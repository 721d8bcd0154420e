#!/usr/bin/env python3
"""tests/bench/suggest_path.py URL [PGLOG] - what one suggest costs on a GP
study at n = 20 and n = 500 completed trials: wall time per suggest
(median and p90 of BENCH_PATH_CALLS calls, default 40), and, with PGLOG
(the cluster's log file; log_statement is set to "all" for the run and
reset after, through psql on HPOD_DATABASE_URL), the SQL statements
PostgreSQL received per suggest.

The study: four parameters (float, log float, int, categorical), one
objective, algorithm gp (EI), n trials added with values (they enter the
model as completed trials). Each measured call is a suggest of a fresh
worker followed by a fail of its trial, so the model sees the same n
completed trials at every call (a failed trial leaves it) and the GP's
kept hyperparameters stay as fitted. Before the measured calls, 5
warm-up calls (the first builds the caches). Statements are counted on 5
more calls, each between two marker statements sent through psql.
Standard library and psql only; prints, never asserts.
"""
import json
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.request

URL = sys.argv[1].split(",")[0]
PGLOG = sys.argv[2] if len(sys.argv) > 2 else None
CALLS = int(os.environ.get("BENCH_PATH_CALLS", "40"))
SIZES = [int(x) for x in os.environ.get("BENCH_PATH_N", "20,500").split(",")]
SPACE = [{"name": "lr", "type": "float", "low": 1e-5, "high": 0.1, "log": True},
         {"name": "dropout", "type": "float", "low": 0.0, "high": 0.5},
         {"name": "layers", "type": "int", "low": 1, "high": 12},
         {"name": "opt", "type": "categorical", "choices": ["adam", "adamw", "sgd"]}]


def call(method, path, body=None):
    req = urllib.request.Request(URL + path, method=method,
                                 headers={"Content-Type": "application/json"},
                                 data=json.dumps(body).encode() if body is not None else None)
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read() or b"null")


def psql(sql):
    subprocess.run(["psql", "-X", "-q", "-A", "-t", os.environ["HPOD_DATABASE_URL"], "-c", sql],
                   check=True, stdout=subprocess.DEVNULL)


def study(n):
    s = call("POST", "/v1/studies", {
        "name": "suggest path n=%d %d" % (n, os.getpid()), "space": SPACE,
        "objectives": [{"name": "loss", "goal": "minimize"}],
        "algorithm": {"name": "gp", "seed": 3}})
    rnd = random.Random(n)
    for i in range(n):
        p = {"lr": 10 ** rnd.uniform(-5, -1), "dropout": rnd.uniform(0, 0.5),
             "layers": rnd.randint(1, 12), "opt": rnd.choice(["adam", "adamw", "sgd"])}
        loss = (p["layers"] - 6) ** 2 / 36 + abs(p["dropout"] - 0.2) + rnd.gauss(0, 0.05)
        call("POST", "/v1/studies/%d/trials" % s["id"], {"params": p, "values": {"loss": loss}})
    return s["id"]


def one(sid, k):
    t0 = time.monotonic()
    a = call("POST", "/v1/studies/%d/suggest" % sid, {"worker": "w%d" % k})
    ms = (time.monotonic() - t0) * 1e3
    return ms, a["trials"][0]["id"]


def fail(tid):
    call("POST", "/v1/trials/%d/fail" % tid, {"reason": "bench"})


# What the server's background threads send on their own (the lease
# reaper, the simulation workers' claim), whenever it falls in a window.
BACKGROUND = ("UPDATE simulations",
              "UPDATE trials SET state = 'failed', reason = 'lease expired'")


def suggest_statement(line):
    if "LOG:  statement:" not in line and "LOG:  execute" not in line:
        return False
    text = line.split(": ", 2)[-1]
    return not any(text.startswith(b) for b in BACKGROUND)


def statements(sid, base):
    """Statements per suggest, counted in PGLOG between markers."""
    psql("ALTER SYSTEM SET log_statement = 'all'")
    psql("SELECT pg_reload_conf()")
    time.sleep(0.5)
    marks = []
    for k in range(5):
        tag = "suggest_path_mark_%d_%d" % (os.getpid(), base + k)
        psql("SELECT '%s_a'" % tag)
        _, tid = one(sid, base + k)
        psql("SELECT '%s_b'" % tag)
        fail(tid)
        marks.append(tag)
    psql("ALTER SYSTEM RESET log_statement")
    psql("SELECT pg_reload_conf()")
    with open(PGLOG, errors="replace") as f:
        lines = f.read().splitlines()
    counts = []
    for tag in marks:
        a = next(i for i, x in enumerate(lines) if tag + "_a" in x)
        b = next(i for i, x in enumerate(lines) if tag + "_b" in x)
        counts.append(sum(1 for x in lines[a + 1:b] if suggest_statement(x)))
    return counts


def main():
    for n in SIZES:
        sid = study(n)
        for k in range(5):
            fail(one(sid, k)[1])
        times = []
        for k in range(CALLS):
            ms, tid = one(sid, 100 + k)
            times.append(ms)
            fail(tid)
        times.sort()
        med = statistics.median(times)
        p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
        print("suggest_path n=%d calls=%d median_ms=%.2f p90_ms=%.2f min_ms=%.2f"
              % (n, CALLS, med, p90, times[0]))
        print("result suggest_path_n%d_median_ms %.2f" % (n, med))
        if PGLOG:
            c = statements(sid, 1000)
            print("suggest_path n=%d statements_per_suggest=%s" % (n, c))
            print("result suggest_path_n%d_statements %d" % (n, statistics.median(c)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
