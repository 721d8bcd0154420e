#!/usr/bin/env python3
"""tests/bench/bench_models.py URL [TSV] - suggest latency of the model
samplers through HTTP on a real lookup table (default sw-en, 767 rows).

For each algorithm and each observation count N in 50, 200, 500 it creates
a study whose candidates are the table's rows and whose "init" is N, so the
first N suggestions are random (cheap); each is reported with the row's
real bleu. Then it times 1 + WARM model-based suggest calls (each followed
by its report) over one keep-alive connection: the first is cold for the
process (graph built, factor computed; for the GP, the study's first fit),
the rest warm (the per-process caches extend what they hold; the GP
refits on its schedule, about once in 50 calls at N = 500). Prints the
median, the mean (refits amortized) and the max of the warm calls, and
"result http_<algo>_<N>_warm_ms V" (median) and "..._mean_ms V" lines
(algo gp_ei, graph_ei, graph_eif) for run.sh's summary, whose goals read
the mean. Standard library only.

Environment: BENCH_MODELS, the rows to run as a comma-separated list of
keys (graph_eif, graph_ei, gp_ei; default all); BENCH_MODELS_OBS, the
observation counts (default "50,200,500"); BENCH_MODELS_WARM, the warm
calls per row (default 50; more make the mean more precise, none of them
changes what one call measures).
"""
import http.client
import json
import os
import statistics
import sys
import time
import urllib.parse

URL = sys.argv[1]
TSV = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared", "benchmarks",
    "nmthpo", "sw-en.tsv")
# Warm calls per row: at 500 observations the GP refits when n has grown
# 10% (core/gp.h, gp_refit_due), so 50 calls hold one scheduled refit.
WARM = int(os.environ.get("BENCH_MODELS_WARM", "50"))
ONLY = [k for k in os.environ.get("BENCH_MODELS", "").split(",") if k]
OBS = [int(k) for k in os.environ.get("BENCH_MODELS_OBS", "50,200,500").split(",") if k]
PARAMS = ["bpe", "num_layers", "num_embed", "num_hidden", "num_heads", "init_lr"]


class Conn:
    """One keep-alive HTTP/1.1 connection, as bench_http's clients and a
    trainer that keeps its connection use: the figures are the server's
    suggest, not a TCP handshake and a new server thread per call."""

    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        self.c = http.client.HTTPConnection(u.hostname, u.port, timeout=120)

    def call(self, method, path, body=None):
        self.c.request(method, path, body=json.dumps(body).encode() if body is not None else None,
                       headers={"Content-Type": "application/json"})
        r = self.c.getresponse()
        data = r.read()
        if r.status >= 300:
            raise RuntimeError("%s %s: %d %s" % (method, path, r.status, data[:200]))
        return json.loads(data or b"null")


CONN = None


def call(method, path, body=None):
    return CONN.call(method, path, body)


def main():
    global CONN
    CONN = Conn(URL)
    if not os.path.exists(TSV):
        print("bench_models: %s not found; skipped" % TSV)
        return 0
    with open(TSV) as f:
        head = f.readline().split()
        rows = [dict(zip(head, line.split())) for line in f if line.strip()]
    cands, bleu = [], {}
    for r in rows:
        c = {p: (float(r[p]) if p == "init_lr" else int(float(r[p]))) for p in PARAMS}
        cands.append(c)
        bleu[json.dumps(c, sort_keys=True)] = float(r["bleu"])
    space = []
    for p in PARAMS:
        vals = sorted({c[p] for c in cands})
        space.append({"name": p, "type": "float" if p == "init_lr" else "int",
                      "values": vals, "log": p != "num_layers"})
    key_of = {"graph/eif": "graph_eif", "graph/ei": "graph_ei",
              "gp/ei (refit)": "gp_ei"}
    print("HTTP suggest latency on %s (%d rows), median ms" % (TSV, len(rows)))
    print("one keep-alive connection; cold: the first model-based suggest of the process;"
          " then %d warm ones (median, mean with the GP's scheduled refits, max)" % WARM)
    print("%-14s %5s %10s %10s %10s %10s" % ("algorithm", "obs", "cold", "warm", "mean", "max"))
    for label, algo in [("graph/eif", {"name": "graph", "acquisition": "eif"}),
                        ("graph/ei", {"name": "graph", "acquisition": "ei"}),
                        ("gp/ei (refit)", {"name": "gp", "acquisition": "ei"})]:
        if ONLY and key_of[label] not in ONLY:
            continue
        for n_obs in OBS:
            s = call("POST", "/v1/studies", {
                "name": "bench %s %d" % (label, n_obs), "space": space,
                "candidates": cands,
                "objectives": [{"name": "bleu", "goal": "maximize"}],
                "algorithm": dict(algo, seed=0, init=n_obs)})
            times = []
            for i in range(n_obs + 1 + WARM):
                t0 = time.perf_counter()
                r = call("POST", "/v1/studies/%d/suggest" % s["id"], {"worker": "b"})
                dt = (time.perf_counter() - t0) * 1000
                t = r["trials"][0]
                key = json.dumps(t["params"], sort_keys=True)
                call("POST", "/v1/trials/%d/report" % t["id"], {"values": {"bleu": bleu[key]}})
                if i >= n_obs:
                    times.append(dt)
            warm = statistics.median(times[1:])
            mean = statistics.mean(times[1:])
            print("%-14s %5d %10.2f %10.2f %10.2f %10.2f" % (label, n_obs, times[0], warm, mean,
                                                         max(times[1:])))
            print("result http_%s_%d_warm_ms %.6g" % (key_of[label], n_obs, warm))
            print("result http_%s_%d_mean_ms %.6g" % (key_of[label], n_obs, mean), flush=True)
            call("DELETE", "/v1/studies/%d" % s["id"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
