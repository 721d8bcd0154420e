#!/usr/bin/env python3
"""tests/bench/bench_fairness.py URL PID [TABLE] - one lab cannot stall
another (issue 27): two figures of one `hpod serve` (process PID).

1. A trainer's suggest latency in lab "tb" (a sequential client: suggest
   -> report on a random study), in BENCH_FAIR_ROUNDS rounds (default 2; 0
   skips this figure)
   of an idle window (BENCH_FAIR_IDLE cycles, default 300) and a busy one
   of as many cycles while lab "ta" saturates the server from a process of
   its own: six threads each looping GP suggests (16 categoricals of 100
   choices, 30 completed trials) on a study of its own, a thread looping
   importance reads of a big study (64 parameters, 320 trials: a
   background fit) with a new trial before each, and, when TABLE (default
   nmthpo/sw-en) is served, two asynchronous GP simulations of 20 repeats
   kept queued. Prints each window's p50/p99 and the pooled ones, and
   "result fair_suggest_p99_idle_ms / _busy_ms / _ratio" (goal: ratio
   <= 2). Lab "ta"'s 429s (past HPOD_LAB_QUEUE) are counted, not errors.
2. Model memory: the RSS of PID (VmRSS; VmHWM the peak) after it served
   BENCH_FAIR_GRAPHS (default 16) graph studies of BENCH_FAIR_CANDS (default
   4,000) candidates, each with three completed trials and then one
   suggest (which builds the graph over its candidates), beside the
   server's model-memory budget from /metrics: "result
   fair_rss_after_graphs_mib" and "fair_rss_budget_mib" (goal: RSS <=
   budget + 100 MiB). BENCH_FAIR_GRAPHS=0 skips it.

Standard library only; never asserts a speed: the exit status says only
whether the calls worked.
"""
import json
import multiprocessing
import os
import random
import re
import sys
import threading
import time
import urllib.error
import urllib.request

URL = sys.argv[1].split(",")[0]
PID = int(sys.argv[2])
TABLE = sys.argv[3] if len(sys.argv) > 3 else "nmthpo/sw-en"
ROUNDS = int(os.environ.get("BENCH_FAIR_ROUNDS", "2"))
IDLE = int(os.environ.get("BENCH_FAIR_IDLE", "300"))
GRAPHS = int(os.environ.get("BENCH_FAIR_GRAPHS", "16"))
CANDS = int(os.environ.get("BENCH_FAIR_CANDS", "4000"))
HEAVY = [{"name": "c%d" % i, "type": "categorical",
          "choices": ["v%d" % j for j in range(100)]} for i in range(16)]
BIG = [{"name": "p%d" % i, "type": "float", "low": 0, "high": 1} for i in range(64)]
LOSS = [{"name": "loss", "goal": "minimize"}]
RUN = "%d-%d" % (os.getpid(), int(time.time()))


def call(method, path, body=None, headers=None):
    """(status, body) of one request; HTTP errors are answers too."""
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    req = urllib.request.Request(URL + path, method=method, headers=h,
                                 data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def ok(st, what):
    if st >= 300:
        raise SystemExit("bench_fairness: %s answered %d" % (what, st))


def create(body):
    st, s = call("POST", "/v1/studies", body)
    ok(st, "create " + body["name"])
    return s["id"]


def add(sid, params, loss):
    st, _ = call("POST", "/v1/studies/%d/trials" % sid, {"params": params, "values": {"loss": loss}})
    ok(st, "add a trial")


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def trainer(sid, n):
    out = []
    for i in range(n):
        t0 = time.monotonic()
        st, a = call("POST", "/v1/studies/%d/suggest" % sid, {"worker": "trainer"})
        out.append((time.monotonic() - t0) * 1e3)
        ok(st, "the trainer's suggest")
        st, _ = call("POST", "/v1/trials/%d/report" % a["trials"][0]["id"],
                     {"values": {"loss": (i % 13) / 13.0}})
        ok(st, "the trainer's report")
    return out


class Saturator:
    """Lab ta's load, in threads, until stop()."""

    def __init__(self, heavy, big, table):
        self.stopping = threading.Event()
        self.counts = {"heavy": 0, "refused": 0, "importance": 0, "sims": 0}
        self.mu = threading.Lock()
        self.threads = [threading.Thread(target=self.heavy, args=(s, k)) for k, s in enumerate(heavy)]
        self.threads.append(threading.Thread(target=self.importance, args=(big,)))
        if table:
            self.threads.append(threading.Thread(target=self.sims, args=(table,)))
        for t in self.threads:
            t.start()

    def count(self, k):
        with self.mu:
            self.counts[k] += 1

    def heavy(self, sid, k):
        rnd = random.Random(k)
        while not self.stopping.is_set():
            st, a = call("POST", "/v1/studies/%d/suggest" % sid, {"worker": "h%d" % k})
            if st == 429:
                self.count("refused")
                time.sleep(0.2)
                continue
            ok(st, "a heavy suggest")
            self.count("heavy")
            call("POST", "/v1/trials/%d/report" % a["trials"][0]["id"], {"values": {"loss": rnd.random()}})

    def importance(self, sid):
        rnd = random.Random(3)
        while not self.stopping.is_set():
            add(sid, {q["name"]: rnd.random() for q in BIG}, rnd.random())
            st, _ = call("GET", "/v1/studies/%d/importance" % sid)
            if st == 429:
                self.count("refused")
            elif st in (200, 202):
                self.count("importance")
            else:
                ok(st, "an importance read")
            time.sleep(0.5)

    def sims(self, table):
        live = []
        while not self.stopping.is_set():
            live = [j for j in live if call("GET", "/v1/simulations/%d" % j)[1].get("state")
                    in ("queued", "running")]
            while len(live) < 2 and not self.stopping.is_set():
                st, a = call("POST", "/v1/benchmarks/%s/simulate" % table,
                             {"algorithm": {"name": "gp"}, "repeats": 20, "seed": len(live)},
                             {"Prefer": "respond-async"})
                if st == 429:
                    self.count("refused")
                    break
                ok(st, "a simulation")
                live.append(a["id"])
                self.count("sims")
            self.stopping.wait(1.0)

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join()


def saturate(heavy, big, table, stop, out):
    """Lab ta's load in a process of its own (another lab is another
    client: in the trainer's process its threads would hold the trainer
    behind Python's global interpreter lock, a wait the server never
    sees) until stop is set; its counts go to out."""
    # BENCH_FAIR_LOAD_NICE (default 0): the load's own CPU priority, to
    # tell the server's share of the trainer's tail from that of a load
    # generator sharing the trainer's cores (another lab's client would
    # run on its own machine).
    os.nice(int(os.environ.get("BENCH_FAIR_LOAD_NICE", "0")))
    sat = Saturator(heavy, big, table)
    stop.wait()
    sat.stop()
    out.put(sat.counts)


class SaturatorProcess:
    def __init__(self, heavy, big, table):
        ctx = multiprocessing.get_context("fork")
        self.stopping, self.out = ctx.Event(), ctx.Queue()
        self.proc = ctx.Process(target=saturate,
                                args=(heavy, big, table, self.stopping, self.out))
        self.proc.start()
        self.counts = None

    def stop(self):
        self.stopping.set()
        self.counts = self.out.get(timeout=600)
        self.proc.join()
        if self.proc.exitcode != 0:
            raise SystemExit("bench_fairness: lab ta's load failed (exit %r)"
                             % self.proc.exitcode)


def fairness():
    heavy = []
    for k in range(6):
        sid = create({"name": "fair heavy %s %d" % (RUN, k), "lab": "ta", "space": HEAVY,
                      "objectives": LOSS, "algorithm": {"name": "gp", "seed": k, "init": 3}})
        rnd = random.Random(k)
        for _ in range(30):
            add(sid, {q["name"]: rnd.choice(q["choices"]) for q in HEAVY}, rnd.random())
        heavy.append(sid)
    big = create({"name": "fair big %s" % RUN, "lab": "ta", "space": BIG, "objectives": LOSS})
    rnd = random.Random(9)
    for _ in range(320):
        add(big, {q["name"]: rnd.random() for q in BIG}, rnd.random())
    table = TABLE if call("GET", "/v1/benchmarks/" + TABLE)[0] == 200 else None
    light = create({"name": "fair trainer %s" % RUN, "lab": "tb",
                    "space": [{"name": "lr", "type": "float", "low": 1e-5, "high": 0.1, "log": True},
                              {"name": "layers", "type": "int", "low": 1, "high": 12}],
                    "objectives": LOSS, "algorithm": {"name": "random", "seed": 1}})
    trainer(light, 30)  # warm-up
    idle, busy = [], []
    for r in range(ROUNDS):
        i = trainer(light, IDLE)
        sat = SaturatorProcess(heavy, big, table)
        time.sleep(2.0)  # lab ta's units taken, its queue filled
        b = trainer(light, IDLE)
        sat.stop()
        idle += i
        busy += b
        print("round %d: idle p50=%.2f p99=%.2f ms, busy p50=%.2f p99=%.2f ms;"
              " lab ta meanwhile: %r" % (r + 1, pct(i, .5), pct(i, .99), pct(b, .5),
                                         pct(b, .99), sat.counts), flush=True)
    pi, pb = pct(idle, .99), pct(busy, .99)
    print("pooled: idle p50=%.2f p99=%.2f ms, busy p50=%.2f p99=%.2f ms, p99 ratio %.2f"
          " (goal <= 2)%s" % (pct(idle, .5), pi, pct(busy, .5), pb, pb / pi,
                               "" if table else "; no table: no simulations"))
    print("result fair_suggest_p99_idle_ms %.3f" % pi)
    print("result fair_suggest_p99_busy_ms %.3f" % pb)
    print("result fair_suggest_p99_ratio %.3f" % (pb / pi))


def status_kib(key):
    with open("/proc/%d/status" % PID) as f:
        return int(re.search(key + r":\s+(\d+)", f.read()).group(1))


def budget_bytes():
    req = urllib.request.Request(URL + "/metrics")
    with urllib.request.urlopen(req, timeout=60) as r:
        text = r.read().decode()
    m = re.search(r"^hpod_model_cache_budget_bytes (\d+)$", text, re.M)
    n = re.search(r"^hpod_model_cache_bytes (\d+)$", text, re.M)
    # A server without the budget (an older build) says nothing: NaN.
    return (int(m.group(1)) if m else float("nan"), int(n.group(1)) if n else float("nan"))


def memory():
    rss0 = status_kib("VmRSS")
    t0 = time.monotonic()
    for k in range(GRAPHS):
        rnd = random.Random(100 + k)
        cands = [{"x": rnd.random(), "y": rnd.random(), "z": rnd.random()} for _ in range(CANDS)]
        sid = create({"name": "fair graph %s %d" % (RUN, k),
                      "space": [{"name": v, "type": "float", "low": 0, "high": 1} for v in "xyz"],
                      "candidates": cands, "objectives": LOSS,
                      "algorithm": {"name": "graph", "seed": k, "init": 2}})
        for c in cands[:3]:
            add(sid, c, c["x"] + c["y"])
        st, a = call("POST", "/v1/studies/%d/suggest" % sid, {"worker": "g"})
        ok(st, "a graph study's suggest")
    budget, held = budget_bytes()
    rss, hwm = status_kib("VmRSS") / 1024.0, status_kib("VmHWM") / 1024.0
    print("memory: %d graph studies of %d candidates in %.0f s: RSS %.0f MiB (%.0f before),"
          " peak %.0f MiB, model cache %.0f MiB of a %.0f MiB budget; goal RSS <= budget + 100 MiB"
          % (GRAPHS, CANDS, time.monotonic() - t0, rss, rss0 / 1024.0, hwm, held / 1048576.0,
             budget / 1048576.0))
    print("result fair_rss_after_graphs_mib %.1f" % rss)
    print("result fair_rss_peak_mib %.1f" % hwm)
    print("result fair_rss_budget_mib %.1f" % (budget / 1048576.0))


def main():
    if ROUNDS > 0:
        fairness()
    if GRAPHS > 0:
        memory()
    return 0


if __name__ == "__main__":
    sys.exit(main())
