#!/usr/bin/python3
"""tests/bench/bench_optuna.py - the peer run of `make bench`: Optuna
(Debian's python3-optuna, 3.1.0) on the same machine and PostgreSQL, so
that every hpod figure can be printed next to a peer figure.

  bench_optuna.py rdb SQLALCHEMY_URL SECONDS WORKERS...
      Optuna's RDB storage on SQLALCHEMY_URL (a second database in the
      cluster run.sh starts). For each worker count W: one study with the
      random sampler (seeded), W worker *processes* (not threads: the GIL
      would serialize threads and measure nothing), each with its own
      storage and engine, loading the shared study from the database,
      doing one untimed ask+tell (a warm process: connection, imports,
      caches) before the start, then looping study.ask(space) -> study.tell(trial, value) for 1 s of
      warm-up plus SECONDS. The space is bench_http's default one (lr float
      log, layers int, batch 4 values, opt 3 choices), passed to ask() as
      fixed distributions, so one ask samples and stores every parameter as
      one hpod suggest does. Prints trials/s (measured asks+tells divided by
      the time from the end of the warm-up to the last worker's last tell)
      and ask/tell p50/p99 (nearest rank, ms).
  bench_optuna.py tpe
      TPE ask latency (TPESampler defaults, seed 0, in-memory storage) at
      50, 200 and 500 completed trials of a 6-dimensional float space (the
      dimension bench_gp uses), pre-populated with add_trial; times ask()
      alone, median of 9 asks (each asked trial is then told FAIL, which
      TPE ignores, so every ask sees the same history).

Every figure also goes out as a line "result KEY VALUE" that run.sh
collects for tests/bench/summary.py. Not a test: nothing is asserted; the
exit status is 1 when a worker raised.
"""
import math
import multiprocessing
import queue
import random
import statistics
import sys
import threading
import time
import warnings

import optuna
from optuna.distributions import (CategoricalDistribution, FloatDistribution,
                                  IntDistribution)
from optuna.trial import TrialState, create_trial

WARMUP_S = 1.0
START_TIMEOUT_S = 300  # a worker that never reaches the start breaks it
TPE_REPS = 9

SPACE = {
    "lr": FloatDistribution(1e-5, 0.1, log=True),
    "layers": IntDistribution(1, 12),
    "batch": CategoricalDistribution([16, 32, 64, 128]),
    "opt": CategoricalDistribution(["adam", "adamw", "sgd"]),
}


def percentile(sorted_v, p):
    """Nearest-rank percentile of a sorted list, as bench_http computes it."""
    if not sorted_v:
        return float("nan")
    k = math.ceil(p / 100.0 * len(sorted_v))
    return sorted_v[max(k, 1) - 1]


def result(key, value):
    print("result %s %.6g" % (key, value), flush=True)


def synthetic(params):
    return (math.log10(params["lr"]) + 3) ** 2 + 0.01 * params["layers"]


def rdb_worker(url, study_name, ready, go, t0, seconds, out):
    """One worker process: its own engine, the shared study, ask -> tell."""
    asks, tells, n, last, err = [], [], 0, 0.0, None
    try:
        storage = optuna.storages.RDBStorage(url, skip_table_creation=True)
        study = optuna.load_study(study_name=study_name, storage=storage)
        # One untimed ask+tell: the process's connection, imports and caches
        # are warm before the clock starts, as a long-running worker's are.
        trial = study.ask(SPACE)
        study.tell(trial, synthetic(trial.params))
    except Exception as e:  # reported by the parent
        err = "load_study: %r" % (e,)
    try:
        ready.wait(START_TIMEOUT_S)
        go.wait(START_TIMEOUT_S)
    except threading.BrokenBarrierError:
        out.put((0, 0.0, [], [], err or "the start barrier broke"))
        return
    warm_end = t0.value + WARMUP_S
    end = warm_end + seconds
    while err is None:
        ta = time.monotonic()
        if ta >= end:
            break
        try:
            trial = study.ask(SPACE)
            tb = time.monotonic()
            study.tell(trial, synthetic(trial.params))
        except Exception as e:
            err = "ask/tell: %r" % (e,)
            break
        tc = time.monotonic()
        if ta >= warm_end:
            asks.append((tb - ta) * 1e3)
            tells.append((tc - tb) * 1e3)
            n += 1
            last = tc
    out.put((n, last, asks, tells, err))


def rdb(url, seconds, workers_list):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    ctx = multiprocessing.get_context("fork")
    status = 0
    storage = optuna.storages.RDBStorage(url)  # creates the schema once
    print("Optuna %s RDB storage (SQLAlchemy, psycopg2) on %s; random "
          "sampler; one process per worker; %.0f s measured after %.0f s "
          "warm-up" % (optuna.__version__, url, seconds, WARMUP_S))
    for w in workers_list:
        name = "peer-rdb-%d-%d" % (w, int(time.time()))
        optuna.create_study(study_name=name, storage=storage,
                            sampler=optuna.samplers.RandomSampler(seed=1))
        storage.engine.dispose()  # no pooled connection crosses the fork
        ready = ctx.Barrier(w + 1)
        go = ctx.Barrier(w + 1)
        t0 = ctx.Value("d", 0.0)
        out = ctx.Queue()
        procs = [ctx.Process(target=rdb_worker,
                             args=(url, name, ready, go, t0, seconds, out))
                 for _ in range(w)]
        for p in procs:
            p.start()
        try:
            ready.wait(START_TIMEOUT_S)  # every worker has loaded the study
            t0.value = time.monotonic()
            go.wait(START_TIMEOUT_S)
            rows = [out.get(timeout=START_TIMEOUT_S + seconds + 60)
                    for _ in procs]
        except (threading.BrokenBarrierError, queue.Empty):
            print("bench_optuna: %d workers did not start or finish; "
                  "stopped" % w, file=sys.stderr)
            for p in procs:
                p.terminate()
                p.join()
            status = 1
            continue
        for p in procs:
            p.join()
        n = sum(r[0] for r in rows)
        last = max(r[1] for r in rows)
        asks = sorted(x for r in rows for x in r[2])
        tells = sorted(x for r in rows for x in r[3])
        errs = [r[4] for r in rows if r[4]]
        wall = last - (t0.value + WARMUP_S) if last > 0 else seconds
        # No measured trial (a window shorter than one ask): no figure.
        rate = n / wall if n > 0 and wall > 0 else float("nan")
        print("optuna-rdb workers=%-3d trials/s=%-8.1f ask p50=%.2f ms "
              "p99=%.2f ms  tell p50=%.2f ms p99=%.2f ms  trials=%d  "
              "errors=%d" % (w, rate, percentile(asks, 50),
                             percentile(asks, 99), percentile(tells, 50),
                             percentile(tells, 99), n, len(errs)), flush=True)
        for e in errs[:3]:
            print("bench_optuna: worker failed: %s" % e, file=sys.stderr)
        if errs:
            status = 1
        result("optuna_rdb_w%d_trials_per_s" % w, rate)
        result("optuna_rdb_w%d_ask_p50_ms" % w, percentile(asks, 50))
        result("optuna_rdb_w%d_ask_p99_ms" % w, percentile(asks, 99))
        result("optuna_rdb_w%d_tell_p99_ms" % w, percentile(tells, 99))
    return status


def tpe():
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.simplefilter("ignore")
    dists = {"x%d" % i: FloatDistribution(0.0, 1.0) for i in range(6)}
    print("Optuna %s TPESampler ask() latency, in-memory storage, 6 float "
          "parameters, median of %d asks" % (optuna.__version__, TPE_REPS))
    for n in (50, 200, 500):
        rng = random.Random(n)
        study = optuna.create_study(
            direction="maximize", sampler=optuna.samplers.TPESampler(seed=0))
        for _ in range(n):
            x = {k: rng.random() for k in dists}
            v = math.sin(3 * x["x0"]) - 4 * (x["x1"] - 0.4) ** 2 + x["x4"]
            study.add_trial(create_trial(params=x, distributions=dists,
                                         value=v))
        times = []
        for _ in range(TPE_REPS):
            t = time.perf_counter()
            trial = study.ask(dists)
            times.append((time.perf_counter() - t) * 1e3)
            study.tell(trial, state=TrialState.FAIL)
        med = statistics.median(times)
        print("optuna-tpe completed=%-3d ask median=%.2f ms (min %.2f, max "
              "%.2f)" % (n, med, min(times), max(times)), flush=True)
        result("optuna_tpe_%d_ask_ms" % n, med)
    return 0


def main(argv):
    if len(argv) >= 5 and argv[1] == "rdb":
        return rdb(argv[2], float(argv[3]), [int(w) for w in argv[4:]])
    if len(argv) == 2 and argv[1] == "tpe":
        return tpe()
    print("usage: bench_optuna.py rdb SQLALCHEMY_URL SECONDS WORKERS... | "
          "bench_optuna.py tpe", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
