#!/usr/bin/env python3
"""fake_trainer - N concurrent fake trainers drive a benchmark-backed study.

Usage (with a server running, e.g. `make run`):

    python3 clients/python/fake_trainer.py --url URL --benchmark nmthpo/zh-en
        [--workers N] [--algorithm random|gp|graph|greedy] [--budget B]
        [--seed S] [--objective NAME[:maximize|minimize]]
    python3 clients/python/fake_trainer.py --url URL --benchmark nmtlc/ted-zh-en
        --algorithm-json '{"name": "asha", "r": 5, "u": 2, "R": 20}' [...]

Creates a study backed by a lookup table (`"benchmark": NAME`: the space
and the candidates are the table's; openapi/openapi.json), then runs N
worker threads that each loop

    suggest -> POST /v1/benchmarks/NAME/evaluate (the trial's params)
            -> report the returned values as the trial's result

until the study is done, waiting `retry_after` seconds whenever nothing can
be issued yet. That is the real HTTP path of a trainer, with the table
standing in for the GPU: a demo, and an end-to-end test (tests/api).

On a learning-curve set (nmtlc/...) each trial is trained checkpoint by
checkpoint: checkpoint k (1-based) is `evaluate` with step k-1, sent as an
intermediate report with step k, from the trial's `resume_from_step` (a
promoted trial) up to its `train_to` (multistage), the algorithm's R
(asha), or the end of the curve; a "stop" answer ends the trial (it is
paused or pruned by the server), otherwise a final report with the best
perplexity so far completes it. It prints the checkpoints trained and the
stops answered.

At the end it prints the best trial and how many evaluations (trials in
issue order) it took to reach the table's best row, the first row holding
the best value (oracle `max_row`/`min_row` of GET /v1/benchmarks/NAME), as
the ftb metric of Zhang & Duh (TACL 2020) counts them.

The objective is the server's default for nmthpo tables (bleu, maximize)
unless --objective is given (required for imported tables). Exit status:
0 when the study finished, 1 on an error answer from hpod.

Uses the hpod package (clients/python: pip install ./clients/python,
or run from the source tree); Python 3 standard library only.
"""

import argparse
import json
import os
import sys
import threading
import time
from typing import Any, Collection, Dict, List, Optional, Tuple

try:
    from hpod import HpodClient, HpodError
except ImportError:  # not installed: the package beside this script
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))
    from hpod import HpodClient, HpodError

ALGORITHMS = ("random", "gp", "graph", "greedy")


def parse_objective(text: str) -> Dict[str, str]:
    name, _, goal = text.partition(":")
    goal = goal or "maximize"
    if not name or goal not in ("maximize", "minimize"):
        raise argparse.ArgumentTypeError("expected NAME[:maximize|minimize], got %r" % text)
    return {"name": name, "goal": goal}


class Run:
    """What the workers share: the row each trial evaluated, and errors."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rows: Dict[int, Tuple[Any, Dict[str, float]]] = {}  # trial id -> (row id, values)
        self.errors: List[str] = []
        self.steps = 0  # checkpoints trained (learning curves)
        self.stops = 0
        self.curve_len: Dict[int, int] = {}  # trial id -> checkpoints its curve has


def train_curve(client: HpodClient, benchmark: str, t: Dict[str, Any], run: Run,
                horizon: Optional[int]) -> None:
    """One trial on a learning-curve set, checkpoint by checkpoint."""
    start = t.get("resume_from_step") or 0
    target = t.get("train_to") or horizon
    # A promoted trial's best so far includes what it reported before.
    earlier = [iv["values"]["ppl"] for iv in t.get("intermediate") or []
               if "ppl" in iv.get("values", {})]
    best, k, row = (min(earlier) if earlier else None), start, None
    while target is None or k < target:
        try:
            ev = client.evaluate(benchmark, t["params"], step=k)
        except HpodError as e:
            if e.status == 422 and k > 0:
                break  # the model stopped training before this checkpoint
            raise
        row, ppl = ev["row"], ev["values"]["ppl"]
        k += 1
        r = client.report(t["id"], {"ppl": ppl}, step=k)
        with run.lock:
            run.steps += 1
        best = ppl if best is None else min(best, ppl)
        if r.get("action") == "stop":
            with run.lock:
                run.stops += 1
                run.rows[t["id"]] = (row, {"ppl": best})
            return
    if best is None:  # nothing reported (a curve that ends at once)
        return
    client.report(t["id"], {"ppl": best})
    with run.lock:
        run.rows[t["id"]] = (row, {"ppl": best})


def worker(client: HpodClient, benchmark: str, study_id: int, name: str, run: Run,
           max_sleep: float, curves: bool = False, horizon: Optional[int] = None,
           metrics: Collection[str] = ()) -> None:
    try:
        while True:
            r = client.suggest(study_id, name)
            if r["trials"]:
                for t in r["trials"]:
                    if curves:
                        train_curve(client, benchmark, t, run, horizon)
                        continue
                    ev = client.evaluate(benchmark, t["params"])
                    # A real trainer would train for hours here, heartbeat
                    # and send intermediate reports; the table answers now.
                    # The table answers every column; the trial reports
                    # what its study measures (anything else is refused).
                    client.report(t["id"], {k: v for k, v in ev["values"].items()
                                            if k in metrics})
                    with run.lock:
                        run.rows[t["id"]] = (ev["row"], ev["values"])
                continue
            if r["done"]:
                return
            # Nothing to issue until another worker finishes a trial.
            time.sleep(min(max(1, int(r.get("retry_after") or 1)), max_sleep))
    except HpodError as e:
        with run.lock:
            run.errors.append("%s: %s" % (name, e))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default=None,
                    help="the server (default $HPOD_URL, else http://127.0.0.1:8080); "
                         "$HPOD_TOKEN is sent as a Bearer token")
    ap.add_argument("--name", default=None,
                    help="the study's name, unique in its lab (default: one with the time)")
    ap.add_argument("--benchmark", required=True, help="table name, e.g. nmthpo/zh-en")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--algorithm", choices=ALGORITHMS, default="random")
    ap.add_argument("--algorithm-json", default=None,
                    help="the study's whole algorithm object, e.g. "
                         "'{\"name\": \"asha\", \"r\": 5, \"u\": 2, \"R\": 20}' "
                         "(overrides --algorithm and --seed)")
    ap.add_argument("--budget", type=int, default=None,
                    help="trials to run (default: every row of the table)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--objective", type=parse_objective, default=None,
                    help="NAME[:maximize|minimize] (default: the server's, bleu for nmthpo)")
    ap.add_argument("--max-sleep", type=float, default=60.0,
                    help="cap on a retry_after wait, seconds")
    args = ap.parse_args(argv)
    if args.workers < 1:
        ap.error("--workers must be >= 1")
    if args.budget is not None and args.budget < 1:
        ap.error("--budget must be >= 1")

    algorithm = {"name": args.algorithm, "seed": args.seed}
    if args.algorithm_json:
        try:
            algorithm = json.loads(args.algorithm_json)
        except ValueError as e:
            ap.error("--algorithm-json: %s" % e)

    client = HpodClient(args.url)
    table = client.get_benchmark(args.benchmark)
    curves = table.get("kind") == "curves"
    body = {
        "name": args.name or "fake trainer: %s, %s, %d workers, %s" % (
            args.benchmark, algorithm.get("name"), args.workers,
            time.strftime("%Y-%m-%d %H:%M:%S")),
        "benchmark": args.benchmark,
        "algorithm": algorithm,
    }
    if args.budget is not None:
        body["budget"] = args.budget
    if args.objective is not None:
        body["objectives"] = [args.objective]
    study = client.create_study(body)
    sid = study["id"]
    obj = study["objectives"][0]
    print("study %d: %s (%d rows), %s seed %d, budget %s, %d workers, objective %s %s"
          % (sid, args.benchmark, table["size"], study["algorithm"]["name"],
             study["algorithm"].get("seed", args.seed), study["budget"], args.workers,
             obj["goal"], obj["name"]), flush=True)
    # asha trains to R; multistage says train_to per trial; else the curve's end.
    horizon = study["algorithm"].get("R")

    metrics = {o["name"] for o in study["objectives"]}
    metrics |= {k["metric"] for k in study.get("constraints") or []}
    run = Run()
    t0 = time.monotonic()
    threads = [threading.Thread(target=worker,
                                args=(client, args.benchmark, sid, "fake-%d" % i, run,
                                      args.max_sleep, curves, horizon, metrics))
               for i in range(args.workers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if run.errors:
        for msg in run.errors:
            print("fake_trainer: %s" % msg, file=sys.stderr)
        return 1
    print("%d evaluations in %.1f s" % (len(run.rows), time.monotonic() - t0), flush=True)
    if curves:
        print("%d checkpoints trained, %d stops" % (run.steps, run.stops), flush=True)

    if len(study["objectives"]) == 1:
        best = client.best(sid)["trial"]
        if best is None:
            print("no completed trial")
        else:
            print("best trial %d: %s %s at %s (row %s)"
                  % (best["id"], obj["name"], best["values"].get(obj["name"]),
                     best["params"], run.rows.get(best["id"], ("?",))[0]))
    else:
        front = client.pareto(sid)["front"]
        print("Pareto front: %d trials" % len(front))

    # Evaluations to the table's best row: trials in issue (id) order.
    oracle = table["oracle"].get(obj["name"])
    if oracle is None:
        return 0
    maximize = obj["goal"] == "maximize"
    target_row = oracle["max_row"] if maximize else oracle["min_row"]
    target = oracle["max"] if maximize else oracle["min"]
    order = sorted(run.rows)
    found = [i + 1 for i, tid in enumerate(order) if run.rows[tid][0] == target_row]
    reached = [i + 1 for i, tid in enumerate(order)
               if run.rows[tid][1].get(obj["name"]) == target]
    if found:
        print("table's best row %d (%s %s) found after %d evaluations"
              % (target_row, obj["name"], target, found[0]))
    else:
        print("table's best row %d (%s %s) not found in %d evaluations%s"
              % (target_row, obj["name"], target, len(order),
                 "; a row tied with it after %d" % reached[0] if reached else ""))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except HpodError as e:
        print("fake_trainer: %s" % e, file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
