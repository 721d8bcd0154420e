#!/usr/bin/env python3
"""tests/bench/summary.py RESULTS [CLIENTS...] - the last part of `make
bench`: every hpod figure next to the peer (Optuna) figure it is compared
with and their ratio, then the goals of issue 14 marked met / not met.

RESULTS holds the "result KEY VALUE" lines run.sh collected from
bench_http (keys prefixed http_1s_w<N>_ for one server and N clients,
http_<R>r_finite_ / http_<R>r_open_ for 64 clients over R replicas; the
finite run pools several fresh studies and adds http_<R>r_finite_first_study_*,
the first study alone),
bench_models.py (http_gp_ei_<N>_mean_ms, ...: the mean of the warm calls, refits amortized), bench_gp (core_gp_ei_<N>_ms),
bench_fairness.py (fair_suggest_p99_*, fair_rss_*)
and bench_optuna.py (optuna_rdb_w<N>_..., optuna_tpe_<N>_ask_ms).
CLIENTS are the worker counts run (default 1 4 16 64).

A ratio is always "how many times hpod is better": hpod/peer for a rate,
peer/hpod for a latency, so > 1x means hpod is ahead. A figure that is
missing (a step skipped or failed) prints as n/a. Speed is never asserted:
the exit status is 0 whatever the figures say.
"""
import math
import os
import sys


def load(path):
    r = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0] == "result":
                try:
                    r[parts[1]] = float(parts[2])
                except ValueError:
                    pass
    return r


def fmt(v, unit):
    if v is None or math.isnan(v):
        return "n/a"
    if unit == "ms":
        return "%.1f ms" % v if v >= 10 else "%.2f ms" % v
    return "%.0f %s" % (v, unit) if v >= 100 else "%.1f %s" % (v, unit)


def ratio(hpod, peer, higher_is_better):
    if hpod is None or peer is None or not (hpod > 0 and peer > 0):
        return "n/a"  # also NaN: a run with no measured call
    x = hpod / peer if higher_is_better else peer / hpod
    return "%.1fx" % x if x >= 1 else "%.2fx" % x


def main(argv):
    if len(argv) < 2:
        print("usage: summary.py RESULTS [CLIENTS...]", file=sys.stderr)
        return 2
    r = load(argv[1])
    clients = [int(c) for c in argv[2:]] or [1, 4, 16, 64]
    replicas = int(os.environ.get("BENCH_REPLICAS", "3"))
    g = r.get
    lines = []

    def row(label, h, hu, peer_label, p, pu, higher):
        lines.append("%-40s hpod %-12s | %-22s %-12s | %s" % (
            label + ":", fmt(h, hu), peer_label, fmt(p, pu),
            ratio(h, p, higher)))

    for w in clients:
        opt = "optuna_rdb_w%d_" % w
        hp = "http_1s_w%d_" % w
        row("%d workers / 1 server" % w, g(hp + "cycles_per_s"), "cycles/s",
            "Optuna RDB", g(opt + "trials_per_s"), "trials/s", True)
        row("  suggest p50 vs ask p50", g(hp + "suggest_p50_ms"), "ms",
            "Optuna ask p50", g(opt + "ask_p50_ms"), "ms", False)
        row("  suggest p99 vs ask p99", g(hp + "suggest_p99_ms"), "ms",
            "Optuna ask p99", g(opt + "ask_p99_ms"), "ms", False)
        row("  report p99 vs tell p99", g(hp + "report_p99_ms"), "ms",
            "Optuna tell p99", g(opt + "tell_p99_ms"), "ms", False)
    opt = "optuna_rdb_w64_"
    # The peer's best rate over its worker counts: 64 Python processes on a
    # small machine measure mostly the processes, so "20x Optuna RDB" is
    # judged against the peer at its best, not at its 64-worker collapse.
    best_w, best = None, None
    for k, v in r.items():
        if (k.startswith("optuna_rdb_w") and k.endswith("_trials_per_s")
                and v > 0 and (best is None or v > best)):
            best_w, best = int(k[len("optuna_rdb_w"):-len("_trials_per_s")]), v
    best_label = "Optuna RDB best (%s w)" % (best_w if best_w else "?")
    finite = "finite %s" % os.environ.get("BENCH_FINITE", "3000")
    for kind, what in (("finite", finite), ("open", "open study")):
        hp = "http_%dr_%s_" % (replicas, kind)
        row("64 workers / %d replicas, %s" % (replicas, what),
            g(hp + "cycles_per_s"), "cycles/s", "Optuna RDB 64 workers",
            g(opt + "trials_per_s"), "trials/s", True)
        row("  the same vs the peer at its best", g(hp + "cycles_per_s"),
            "cycles/s", best_label, best, "trials/s", True)
        row("  suggest p99 vs ask p99", g(hp + "suggest_p99_ms"), "ms",
            "Optuna ask p99", g(opt + "ask_p99_ms"), "ms", False)
        row("  report p99 vs tell p99", g(hp + "report_p99_ms"), "ms",
            "Optuna tell p99", g(opt + "tell_p99_ms"), "ms", False)
        if g(hp + "first_study_cycles_per_s") is not None:
            # The finite figures above pool the steady windows of several
            # fresh studies; the first study alone is the figure of one
            # study (a fraction of a second), as measured before.
            row("  first study alone: cycles/s", g(hp + "first_study_cycles_per_s"),
                "cycles/s", "Optuna RDB 64 workers", g(opt + "trials_per_s"),
                "trials/s", True)
            row("  first study alone: suggest p99", g(hp + "first_study_suggest_p99_ms"),
                "ms", "Optuna ask p99", g(opt + "ask_p99_ms"), "ms", False)
            row("  first study alone: report p99", g(hp + "first_study_report_p99_ms"),
                "ms", "Optuna tell p99", g(opt + "tell_p99_ms"), "ms", False)
    for n in (50, 200, 500):
        tpe = g("optuna_tpe_%d_ask_ms" % n)
        row("GP-EI @%d, core (cold refit)" % n, g("core_gp_ei_%d_ms" % n),
            "ms", "TPE ask @%d" % n, tpe, "ms", False)
        if g("core_gp_ei_warm_%d_ms" % n) is not None:
            row("GP-EI @%d, core (warm+refits)" % n,
                g("core_gp_ei_warm_%d_ms" % n), "ms", "TPE ask @%d" % n, tpe,
                "ms", False)
        row("GP-EI @%d, HTTP (warm, mean)" % n, g("http_gp_ei_%d_mean_ms" % n),
            "ms", "TPE ask @%d" % n, tpe, "ms", False)
        row("graph EIF @%d, HTTP (warm, mean)" % n,
            g("http_graph_eif_%d_mean_ms" % n), "ms", "TPE ask @%d" % n, tpe,
            "ms", False)

    lines.append("suggest p99, 4 simulations running:      hpod %-12s | "
                 "%-22s %-12s |" % (fmt(g("sim_suggest_p99_busy_ms"), "ms"),
                                    "idle", fmt(g("sim_suggest_p99_idle_ms"),
                                                "ms")))
    print("== hpod vs the peer (ratio > 1x: hpod ahead; rates hpod/peer, "
          "latencies peer/hpod)")
    print("load:    %s (1, 5, 15 min) now" % " ".join(
        open("/proc/loadavg").read().split()[:3]))
    for line in lines:
        print(line)

    def goal(label, v, unit, limit, at_least):
        if v is None or math.isnan(v):
            verdict = "not measured"
        elif (v >= limit) if at_least else (v <= limit):
            verdict = "met"
        else:
            verdict = "not met"
        want = ("≥ " if at_least else "≤ ") + fmt(limit, unit)
        print("%-52s %-16s %-14s %s" % (label, want, fmt(v, unit), verdict))

    print()
    print("== issue 14 goals (printed, never asserted)")
    print("%-52s %-16s %-14s %s" % ("goal", "target", "measured", "verdict"))
    for kind in ("finite", "open"):
        hp = "http_%dr_%s_" % (replicas, kind)
        name = "64 workers / %d replicas, %s" % (replicas, kind)
        goal(name + ": cycles/s", g(hp + "cycles_per_s"), "cycles/s", 1300,
             True)
        rate = g(hp + "cycles_per_s")
        x = rate / best if rate and best else None
        goal(name + ": vs Optuna RDB best", x, "x", 20, True)
        goal(name + ": suggest p99", g(hp + "suggest_p99_ms"), "ms", 50,
             False)
        goal(name + ": report p99", g(hp + "report_p99_ms"), "ms", 20, False)
        if g(hp + "first_study_suggest_p99_ms") is not None:
            print("  (%s: pooled over the fresh studies' steady windows; the first"
                  " study alone: %s, suggest p99 %s, report p99 %s)" % (
                      kind, fmt(g(hp + "first_study_cycles_per_s"), "cycles/s"),
                      fmt(g(hp + "first_study_suggest_p99_ms"), "ms"),
                      fmt(g(hp + "first_study_report_p99_ms"), "ms")))
    if best:
        print("(Optuna RDB best: %.1f trials/s with %d workers; with 64 "
              "workers: %s)" % (best, best_w,
                                fmt(g(opt + "trials_per_s"), "trials/s")))
    goal("GP-EI @500 over HTTP (warm, mean)", g("http_gp_ei_500_mean_ms"), "ms", 15,
         False)
    goal("GP-EI @500 in the core (warm, refits amortized)",
         g("core_gp_ei_warm_500_ms"), "ms", 15, False)
    goal("graph EIF @200 over HTTP (warm, mean)", g("http_graph_eif_200_mean_ms"),
         "ms", 2, False)
    goal("suggest p99 with 4 simulations / idle p99", g("sim_suggest_p99_ratio"),
         "x", 2, False)
    print()
    print("== issue 27 goals (printed, never asserted)")
    goal("lab B's suggest p99 while lab A saturates / idle", g("fair_suggest_p99_ratio"),
         "x", 2, False)
    budget = g("fair_rss_budget_mib")
    goal("RSS after 16 graph studies of 4,000 candidates",
         g("fair_rss_after_graphs_mib"), "MiB", (budget or float("nan")) + 100, False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
