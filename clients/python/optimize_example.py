#!/usr/bin/env python3
"""optimize_example - Study.optimize on a small synthetic study.

Usage (with a server running, e.g. `make run`; HPOD_URL and HPOD_TOKEN
are read from the environment):

    clients/python/optimize_example.py [--n-trials 20] [--workers 2]
        [--algorithm gp|random] [--seed S] [--name NAME] [--lab LAB]

Creates a study of two float parameters x and y in [-5, 5] that minimizes
loss = (x - 1)^2 + (y + 2)^2 (minimum 0 at x = 1, y = -2), with a budget
of --n-trials, and runs study.optimize(objective, n_workers=--workers):
each worker thread asks for one trial at a time, and the objective
returns a float, reported as the study's objective "loss". Prints the
study, the summary of the run and the best trial.

Uses the hpod package (pip install ./clients/python, or run from the
source tree).
"""

import argparse
import os
import sys
import time
from typing import List, Optional

try:
    import hpod
except ImportError:  # not installed: the package beside this script
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))
    import hpod


def objective(trial: "hpod.Trial") -> float:
    # The study declares x and y: suggest_float answers from the trial's
    # params, without a request (a study without a space would ask the
    # server, define-by-run).
    x = trial.suggest_float("x", -5.0, 5.0)
    y = trial.suggest_float("y", -5.0, 5.0)
    return (x - 1.0) ** 2 + (y + 2.0) ** 2


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default=None,
                    help="the server (default $HPOD_URL, else http://127.0.0.1:8080)")
    ap.add_argument("--n-trials", type=int, default=20, help="the study's budget")
    ap.add_argument("--workers", type=int, default=2, help="worker threads")
    ap.add_argument("--algorithm", default="gp", help="gp (default) or random")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--name", default=None,
                    help="the study's name, unique in its lab (default: one with the time)")
    ap.add_argument("--lab", default=None, help="the study's lab (lab servers)")
    args = ap.parse_args(argv)
    if args.n_trials < 1 or args.workers < 1:
        ap.error("--n-trials and --workers must be >= 1")

    name = args.name or "optimize example %s" % time.strftime("%Y-%m-%d %H:%M:%S")
    study = hpod.create_study({
        "name": name,
        "space": [{"name": "x", "type": "float", "low": -5.0, "high": 5.0},
                  {"name": "y", "type": "float", "low": -5.0, "high": 5.0}],
        "objectives": [{"name": "loss", "goal": "minimize"}],
        "algorithm": {"name": args.algorithm, "seed": args.seed},
        "budget": args.n_trials,
    }, lab=args.lab, url=args.url)
    print("study %d: %s, %s, budget %d, %d workers"
          % (study.id, study.name, study.data["algorithm"]["name"], args.n_trials,
             args.workers), flush=True)
    t0 = time.monotonic()
    summary = study.optimize(objective, n_trials=args.n_trials, n_workers=args.workers)
    print("summary: %d completed, %d pruned, %d paused, %d failed in %.1f s"
          % (summary.completed, summary.pruned, summary.paused, summary.failed,
             time.monotonic() - t0),
          flush=True)
    try:
        best = study.best_trial
    except ValueError:
        print("no completed trial")
        return 1
    print("best trial %d (number %s): loss %.6g at x=%.4g, y=%.4g"
          % (best.id, best.number, best.metrics["loss"], best.params["x"], best.params["y"]))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except hpod.HpodError as e:
        print("optimize_example: %s" % e, file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
