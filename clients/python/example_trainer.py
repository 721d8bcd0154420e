#!/usr/bin/env python3
"""example_trainer - N parallel fake trainers driving an hpod study.

Usage (with a server running, e.g. `make run`):

    clients/python/example_trainer.py [--url URL] [--workers N]
        [--budget B] [--algorithm random|gp]

Creates a study on a synthetic function of three parameters (the Branin
function of two floats, shifted by a categorical "variant"), runs N worker
threads that each loop suggest -> compute -> report until the study is
done, then prints the best trial. Branin's minimum is 0.397887 (at
(-pi, 12.275), (pi, 2.275) and (9.42478, 2.475)); variant "plain" keeps it,
the others add a penalty, so a good optimizer ends near 0.398 with
variant "plain".
"""

import argparse
import math
import os
import sys
import threading
import time
from typing import List, Optional, Tuple

try:
    from hpod import HpodClient, HpodError
except ImportError:  # not installed: the package beside this script
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))
    from hpod import HpodClient, HpodError

PENALTY = {"plain": 0.0, "noisy": 2.0, "tilted": 5.0}


def branin(x1: float, x2: float, variant: str) -> float:
    """Branin-Hoo on [-5, 10] x [0, 15] plus a per-variant penalty."""
    a, b, c = 1.0, 5.1 / (4 * math.pi ** 2), 5.0 / math.pi
    r, s, t = 6.0, 10.0, 1.0 / (8 * math.pi)
    y = a * (x2 - b * x1 ** 2 + c * x1 - r) ** 2 + s * (1 - t) * math.cos(x1) + s
    return y + PENALTY[variant]


def worker(client: HpodClient, study_id: int, name: str, log: List[Tuple[str, int]]) -> None:
    n = 0
    while True:
        trials = client.next_trials(study_id, name)
        if not trials:
            break
        for t in trials:
            p = t["params"]
            # A real trainer would train here, heartbeat every few minutes
            # and send intermediate reports; we compute in microseconds.
            loss = branin(p["x1"], p["x2"], p["variant"])
            client.report(t["id"], {"loss": loss})
            n += 1
    log.append((name, n))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default=None,
                    help="the server (default $HPOD_URL, else http://127.0.0.1:8080); "
                         "$HPOD_TOKEN is sent as a Bearer token")
    ap.add_argument("--name", default=None,
                    help="the study's name, unique in its lab (default: one with the time)")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--budget", type=int, default=40)
    ap.add_argument("--algorithm", default="random")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    client = HpodClient(args.url)
    study = client.create_study({
        "name": args.name or "example branin (%d workers), %s" % (
            args.workers, time.strftime("%Y-%m-%d %H:%M:%S")),
        "space": [
            {"name": "x1", "type": "float", "low": -5.0, "high": 10.0},
            {"name": "x2", "type": "float", "low": 0.0, "high": 15.0},
            {"name": "variant", "type": "categorical", "choices": sorted(PENALTY)},
        ],
        "objectives": [{"name": "loss", "goal": "minimize"}],
        "algorithm": {"name": args.algorithm, "seed": args.seed},
        "budget": args.budget,
    })
    sid = study["id"]
    print("study %d: %s, budget %d, %d workers" % (sid, study["algorithm"]["name"],
                                                   args.budget, args.workers))
    t0 = time.monotonic()
    log: List[Tuple[str, int]] = []
    threads = [threading.Thread(target=worker, args=(client, sid, "worker-%d" % i, log))
               for i in range(args.workers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    done = sum(n for _, n in log)
    print("%d trials in %.1f s (%s)" % (done, time.monotonic() - t0,
                                        ", ".join("%s: %d" % w for w in sorted(log))))
    best = client.best(sid)["trial"]
    if best is None:
        print("no completed trial")
        return 1
    print("best trial %d: loss %.6f at %s" % (best["id"], best["values"]["loss"],
                                              best["params"]))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except HpodError as e:
        print("example_trainer: %s" % e, file=sys.stderr)
        sys.exit(1)
