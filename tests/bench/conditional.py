#!/usr/bin/python3
"""tests/bench/conditional.py URL [--seeds N] [--budgets 30,60] [--json FILE]
- hpod's default beside Optuna's TPE and random on the conditional
problems (what `make bench` prints; issue 29).

The problems are the development suite's (tests/bench/suite/problems.py
CONDITIONALS): a two-branch optimizer choice with branch-specific
parameters, and a depth that switches on per-layer widths. hpod gets each
as a space with `condition`s and its default algorithm (auto, seeded with
the run's seed) through a real `hpod serve` at URL; Optuna's samplers ask
the same parameters define-by-run (tests/bench/suite/peers.py), seeded
with the same seeds. Every run spends the largest budget; its best value
after each budget of --budgets gives its log10 regret (the problem's
minimum is known). Prints the mean over the seeds per problem, budget and
method, and whether hpod's mean is below both peers' everywhere (the
issue's goal). Needs python3-optuna (scripts/deps.sh bench) for the peers.
"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "suite"))
import hpod_client  # noqa: E402
import problems  # noqa: E402

PEERS = ["tpe", "random"]
LABELS = {"hpod": "hpod (auto)", "tpe": "Optuna TPE", "random": "Optuna random"}


def hpod_run(url, pb, seed, budget):
    h = hpod_client.Hpod(url)
    space = problems.conditional_space(pb)
    ys, _ = h.run_study("conditional %s %d %s" % (pb.key, seed, os.urandom(3).hex()),
                        space, {"name": "auto", "seed": seed}, budget,
                        lambda p: pb.evaluate(lambda name, d: p[name]))
    return ys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--budgets", default="30,60")
    ap.add_argument("--json", help="write every run's values here")
    a = ap.parse_args()
    budgets = [int(b) for b in a.budgets.split(",")]
    top = max(budgets)
    import peers  # noqa: E402  (Optuna)
    peers.quiet()
    runs = {}
    for pb in problems.CONDITIONALS:
        for seed in range(a.seeds):
            runs[(pb.key, "hpod", seed)] = hpod_run(a.url, pb, seed, top)
            for m in PEERS:
                runs[(pb.key, m, seed)] = peers.conditional_run(pb, m, seed, top)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump([{"problem": k[0], "method": k[1], "seed": k[2], "values": v}
                       for k, v in runs.items()], f)
    print("mean log10 regret over %d seeds (lower is better); every run spends %d "
          "evaluations" % (a.seeds, top))
    methods = ["hpod"] + PEERS
    print("%-18s %6s  %s" % ("problem", "budget",
                             "  ".join("%14s" % LABELS[m] for m in methods)))
    met, misses = True, []
    for pb in problems.CONDITIONALS:
        for b in budgets:
            mean = {}
            for m in methods:
                rs = []
                for seed in range(a.seeds):
                    ys = runs[(pb.key, m, seed)][:b]
                    if len(ys) < b:
                        raise SystemExit("conditional: %s %s seed %d made %d of %d "
                                         "evaluations" % (pb.key, m, seed, len(ys), b))
                    rs.append(pb.regret(min(ys)))
                mean[m] = statistics.mean(rs)
            print("%-18s %6d  %s" % (pb.key, b, "  ".join("%14.3f" % mean[m]
                                                       for m in methods)))
            beaten = [m for m in PEERS if not mean["hpod"] < mean[m]]
            if beaten:
                met = False
                misses.append("%s at %d: not below %s" % (pb.key, b, ", ".join(
                    LABELS[m] for m in beaten)))
    print("goal: hpod's default below Optuna TPE and random at budgets %s: %s%s"
          % (a.budgets, "met" if met else "not met", "" if met else " (" + "; ".join(misses) + ")"))


if __name__ == "__main__":
    main()
