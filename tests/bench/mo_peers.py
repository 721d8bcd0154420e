#!/usr/bin/python3
"""tests/bench/mo_peers.py - Optuna's samplers on the nmthpo tables with
hpod-bench's protocol, so that Table 4 (max BLEU, min GPU time) and Table 3
(max BLEU) print peers measured the same way (`make bench-peers`).

  mo_peers.py [--dir DIR] [--tables zh-en,...] [--runs 100] [--runs-big 10]
              [--seed 0] [--init 3] [--jobs 1] [--methods motpe,nsga2,tpe]
              [--runs-file FILE [--summarize 1]] [--out docs/peers_mo.json]

--runs-file keeps every run (one JSON line: table, method, seed, init,
sequence, CPU seconds) as it ends, and a later invocation with the same
file runs only what it lacks; runs go seed by seed across all cells, so a
run stopped early leaves every cell with about as many seeds. A cell's
figures use seeds seed.. as far as they are contiguous ("runs" says how
many). --summarize 1 runs nothing: the JSON from the file alone.

Methods (Debian's python3-optuna 3.1.0, in-memory storage, sampler seeded
with the run's seed):
  motpe  TPESampler on both objectives (Optuna 3.1's multi-objective TPE,
         i.e. MOTPE; the MOTPESampler class is its deprecated alias)
  nsga2  NSGAIISampler(population_size=10)
  tpe    TPESampler on BLEU alone: its runs give the Table 4 row "TPE on
         BLEU alone" and the Table 3 peer row (ftb, ftc, fb)
TPE's n_startup_trials is the protocol's init (3): as for hpod's methods,
the model chooses from the 4th evaluation on.

Protocol (tools/mo.c, tools/table3.c): a run samples rows without
replacement; its first `init` rows are hpod's (simulate_init_rows: the
k-th free row, k = rng_below(free) of xoshiro256** stream (seed, i)),
given to Optuna with enqueue_trial; it stops once every metric is final
(the positions of the Pareto rows, the oracle-best row and the first row
within tol of it; the fbp and fb budgets), or the table is exhausted.

The search space is the table's six parameters in the papers' scaled
encoding (`.hyps_scaled`, the [0,1] values hpod's GP, graph and greedy
measure distances in), each a FloatDistribution(0, 1). Rule for a
proposal that is not an unevaluated row: the row evaluated is the
unevaluated one nearest to it (squared Euclidean in that space, ties to
the lowest row id), and the sampler is told the truth: the asked trial
is told FAIL and the evaluated row is added (add_trial) as a COMPLETE
trial with its own parameters and values and the asked trial's system
attributes (NSGA-II's generation), so no value is ever attached to a
configuration that was not evaluated. Why not one categorical "row"
parameter: each row is evaluated once, so a categorical TPE learns
nothing it can use about the rows left (no notion of neighbours), and
NSGA-II's crossover of two row ids means nothing. Why not a categorical
per parameter: it hides the order of the grids (num_layers 1 < 2 < 4 < 6)
that hpod's models see. The scaled space gives Optuna what hpod's
samplers get.

Output: one JSON document (--out), shaped like hpod-bench --mo's cells:
{"report": "peers", "command", "date", "optuna", "runs", "runs_big",
 "seed", "init", "mapping", "tables": [{"name", "rows", "pareto_rows",
 "fbp_budget", "methods": [{"label", "runs", "failed", "fto", "fta",
 "fbp", "seconds"}]}], "table3": [{"name", "rows", "tol", "methods":
 [{"label", "runs", "ftb", "ftc", "fb", "seconds"}]}]}, every statistic
{"mean", "std", "runs", "missed"} (population std, as metric_mean_std).
"""
import datetime
import json
import math
import multiprocessing
import os
import sys
import time
import warnings

import numpy as np
import optuna
from optuna.distributions import FloatDistribution
from optuna.trial import TrialState, create_trial

PARAMS = ["bpe", "num_layers", "num_embed", "num_hidden", "num_heads",
          "init_lr"]
DATASETS = ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"]
LABELS = {"motpe": "Optuna MOTPE (TPESampler, 2 objectives)",
          "nsga2": "Optuna NSGA-II (population 10)",
          "tpe": "Optuna TPE on BLEU alone"}
FB_BUDGET = 20
M64 = (1 << 64) - 1


# ---- hpod's random streams (core/rng.c), for the same initial rows ----

def _splitmix64(x):
    x = (x + 0x9e3779b97f4a7c15) & M64
    z = x
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return x, z ^ (z >> 31)


class Xoshiro:
    """rng_seed2(seed, stream), rng_next and rng_below of core/rng.c."""

    def __init__(self, seed, stream):
        _, z = _splitmix64(seed & M64)
        x = z ^ ((stream * 0xd1b54a32d192ed03) & M64)
        self.s = []
        for _ in range(4):
            x, z = _splitmix64(x)
            self.s.append(z)

    @staticmethod
    def _rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    def next(self):
        s = self.s
        result = (self._rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self._rotl(s[3], 45)
        return result

    def below(self, n):
        limit = M64 - M64 % n
        while True:
            x = self.next()
            if x < limit:
                return x % n


def init_rows(seed, n, count):
    """core/simulate.c simulate_init_rows."""
    used = [False] * n
    out = []
    free_n = n
    for d in range(min(count, n)):
        k = Xoshiro(seed, d).below(free_n)
        for i in range(n):
            if used[i]:
                continue
            if k == 0:
                used[i] = True
                out.append(i)
                break
            k -= 1
        free_n -= 1
    return out


# ---- tables and metrics (core/metrics.c) ----

class Table:
    def __init__(self, root, ds):
        path = os.path.join(root, "nmthpo", ds + ".tsv")
        with open(path, encoding="utf-8") as f:
            head = f.readline().rstrip("\r\n").split("\t")
            rows = [ln.rstrip("\r\n").split("\t") for ln in f if ln.strip()]
        col = {h: i for i, h in enumerate(head)}
        self.name = ds
        self.n = len(rows)
        self.bleu = np.array([float(r[col["bleu"]]) for r in rows])
        self.gpu = np.array([float(r[col["gpu_time"]]) for r in rows])
        self.pareto = [int(r[col["pareto"]]) != 0 for r in rows]
        with open(os.path.join(root, "nmthpo", ds + ".hyps_scaled"),
                  encoding="utf-8") as f:
            self.x = np.array([[float(v) for v in ln.split()]
                               for ln in f if ln.strip()])
        if self.x.shape != (self.n, len(PARAMS)):
            raise SystemExit("mo_peers: %s: .hyps_scaled has %r, the table "
                             "%d rows" % (ds, self.x.shape, self.n))
        self.n_pareto = sum(self.pareto)
        self.big = self.n > 400
        self.fbp_budget = 200 if self.big else 50
        self.tol = 1.0 if ds == "en-ja" else 0.5
        self.best = int(np.argmax(self.bleu))  # the first of tied maxima


def at_least(pos, ninit):
    return pos if pos == 0 or pos >= ninit else ninit


def metrics(t, seq, ninit):
    """fto, fta, fbp, ftb, ftc, fb of one sequence, as core/metrics.c."""
    fto = fta = ftb = ftc = 0
    found = 0
    thr = t.bleu[t.best] - t.tol
    for i, r in enumerate(seq):
        if t.pareto[r]:
            found += 1
            if fto == 0:
                fto = i + 1
            if found == t.n_pareto and fta == 0:
                fta = i + 1
        if r == t.best and ftb == 0:
            ftb = i + 1
        if ftc == 0 and t.bleu[r] >= thr:
            ftc = i + 1
    fbp = sum(1 for r in seq[:t.fbp_budget] if t.pareto[r])
    fb = float(t.bleu[t.best] - max(t.bleu[r] for r in seq[:FB_BUDGET]))
    return {"fto": at_least(fto, ninit), "fta": at_least(fta, ninit),
            "fbp": fbp, "ftb": at_least(ftb, ninit),
            "ftc": at_least(ftc, ninit), "fb": fb}


def done(t, seq, single):
    """1 when every metric of the run is final (metric_needed_length)."""
    k = len(seq)
    if k >= t.n:
        return True
    if k < min(t.fbp_budget, t.n):
        return False
    got = set(seq)
    if not all(r in got for r in range(t.n) if t.pareto[r]):
        return False
    if single:
        thr = t.bleu[t.best] - t.tol
        if k < FB_BUDGET or t.best not in got or \
                not any(t.bleu[r] >= thr for r in seq):
            return False
    return True


# ---- one run ----

def make_study(method, seed, init):
    if method == "motpe":
        s = optuna.samplers.TPESampler(seed=seed, n_startup_trials=init)
        return optuna.create_study(directions=["maximize", "minimize"],
                                   sampler=s)
    if method == "nsga2":
        s = optuna.samplers.NSGAIISampler(population_size=10, seed=seed)
        return optuna.create_study(directions=["maximize", "minimize"],
                                   sampler=s)
    s = optuna.samplers.TPESampler(seed=seed, n_startup_trials=init)
    return optuna.create_study(direction="maximize", sampler=s)


def run_one(t, method, seed, init):
    """The sequence of row ids of one seeded run."""
    dists = {p: FloatDistribution(0.0, 1.0) for p in PARAMS}
    study = make_study(method, seed, init)
    used = np.zeros(t.n, dtype=bool)
    for r in init_rows(seed, t.n, init):
        study.enqueue_trial({p: float(t.x[r, j]) for j, p in
                             enumerate(PARAMS)})
    seq = []
    while not done(t, seq, method == "tpe"):
        trial = study.ask(dists)
        x = np.array([trial.params[p] for p in PARAMS])
        d = ((t.x - x) ** 2).sum(axis=1)
        d[used] = np.inf
        r = int(np.argmin(d))  # ties: the lowest row id
        used[r] = True
        seq.append(r)
        vals = ([float(t.bleu[r])] if method == "tpe"
                else [float(t.bleu[r]), float(t.gpu[r])])
        if d[r] == 0.0:
            study.tell(trial, vals)
            continue
        attrs = study._storage.get_trial(trial._trial_id).system_attrs
        study.tell(trial, state=TrialState.FAIL)
        study.add_trial(create_trial(
            params={p: float(t.x[r, j]) for j, p in enumerate(PARAMS)},
            distributions=dists, values=vals,
            system_attrs={k: v for k, v in attrs.items()
                          if not k.startswith("fixed_params")}))
    return seq


_TABLES = {}


def _worker(args):
    root, ds, method, seed, init = args
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore")
    if ds not in _TABLES:
        _TABLES[ds] = Table(root, ds)
    t0 = time.process_time()
    seq = run_one(_TABLES[ds], method, seed, init)
    return ds, method, seed, init, seq, time.process_time() - t0


def stat(v):
    """{mean, std, runs, missed} over the runs that reached (v > 0)."""
    got = [float(x) for x in v if x > 0]
    k = len(got)
    if k == 0:
        return {"mean": None, "std": None, "runs": 0, "missed": len(v)}
    mu = sum(got) / k
    sd = math.sqrt(sum((x - mu) ** 2 for x in got) / k)
    return {"mean": mu, "std": sd, "runs": k, "missed": len(v) - k}


def stat_all(v):
    """fb and fbp are always reached."""
    k = len(v)
    mu = sum(v) / k
    return {"mean": mu, "std": math.sqrt(sum((x - mu) ** 2 for x in v) / k),
            "runs": k, "missed": 0}


def parse(argv):
    o = {"dir": os.environ.get("HPOD_BENCHMARKS", "../shared/benchmarks"),
         "tables": DATASETS, "runs": 100, "runs_big": 10, "seed": 0,
         "init": 3, "jobs": 1, "methods": ["motpe", "nsga2", "tpe"],
         "out": "-", "runs_file": None, "summarize": 0}
    i = 0
    while i < len(argv):
        a = argv[i]
        if i + 1 >= len(argv) or not a.startswith("--") or \
                a[2:].replace("-", "_") not in o:
            sys.stderr.write(__doc__)
            raise SystemExit(2)
        k, v = a[2:].replace("-", "_"), argv[i + 1]
        if k in ("tables", "methods"):
            o[k] = v.split(",")
        elif k in ("runs", "runs_big", "seed", "init", "jobs", "summarize"):
            o[k] = int(v)
        else:
            o[k] = v
        i += 2
    for m in o["methods"]:
        if m not in LABELS:
            raise SystemExit("mo_peers: unknown method %r" % m)
    return o


def read_runs(path):
    """{(table, method, seed, init): (seq, cpu)} from a --runs-file."""
    done_runs = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for ln in f:
                try:
                    x = json.loads(ln)
                except ValueError:
                    continue  # a line cut short by a kill
                done_runs[(x["table"], x["method"], x["seed"], x["init"])] = (
                    x["seq"], x["cpu"])
    return done_runs


def run_all(o, tables):
    """Runs what the runs file lacks, seed by seed across every cell (so a
    run stopped early leaves every cell with about as many runs), appending
    each run to the file as it ends."""
    have = read_runs(o["runs_file"])
    jobs = []
    for k in range(max(o["runs"], o["runs_big"])):
        for t in tables:
            if k >= (o["runs_big"] if t.big else o["runs"]):
                continue
            for m in o["methods"]:
                if (t.name, m, o["seed"] + k, o["init"]) not in have:
                    jobs.append((o["dir"], t.name, m, o["seed"] + k, o["init"]))
    sys.stderr.write("peers: %d runs to go\n" % len(jobs))
    out = open(o["runs_file"], "a", encoding="utf-8") if o["runs_file"] \
        else None
    pool = multiprocessing.Pool(o["jobs"]) if o["jobs"] > 1 else None
    it = pool.imap_unordered(_worker, jobs) if pool else map(_worker, jobs)
    for ds, m, seed, init, seq, cpu in it:
        have[(ds, m, seed, init)] = (seq, cpu)
        if out:
            out.write(json.dumps({"table": ds, "method": m, "seed": seed,
                                  "init": init, "seq": seq, "cpu": cpu})
                      + "\n")
            out.flush()
    if pool:
        pool.close()
    return have


def main(argv):
    o = parse(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    start = time.time()
    tables = [Table(o["dir"], ds) for ds in o["tables"]]
    have = read_runs(o["runs_file"]) if o["summarize"] else run_all(o, tables)
    rep = {"report": "peers",
           "command": "tests/bench/mo_peers.py " + " ".join(argv),
           "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
           "optuna": optuna.__version__, "runs": o["runs"],
           "runs_big": o["runs_big"], "seed": o["seed"], "init": o["init"],
           "mapping": "scaled [0,1] space; a proposal that is not a free row "
                      "evaluates the nearest free row (ties: lowest id), told "
                      "as that row (asked trial FAIL + add_trial)",
           "tables": [], "table3": []}
    for t in tables:
        want = o["runs_big"] if t.big else o["runs"]
        mt = {"name": t.name, "rows": t.n, "pareto_rows": t.n_pareto,
              "fbp_budget": t.fbp_budget, "methods": []}
        t3 = {"name": t.name, "rows": t.n, "tol": t.tol, "methods": []}
        for m in o["methods"]:
            # Seeds seed.. in order, as far as they are contiguous.
            res = []
            while len(res) < want and (t.name, m, o["seed"] + len(res),
                                       o["init"]) in have:
                res.append(have[(t.name, m, o["seed"] + len(res), o["init"])])
            runs = len(res)
            if runs == 0:
                continue
            ms = [metrics(t, seq, o["init"]) for seq, _ in res]
            cpu = sum(c for _, c in res)
            cell = {"label": LABELS[m], "runs": runs, "failed": 0,
                    "fto": stat([x["fto"] for x in ms]),
                    "fta": stat([x["fta"] for x in ms]),
                    "fbp": stat_all([x["fbp"] for x in ms]),
                    "seconds": cpu,
                    "mean_length": sum(len(s) for s, _ in res) / runs}
            mt["methods"].append(cell)
            sys.stderr.write("peers: %s %s: %d runs, %.1f CPU s, fto %.1f "
                             "fta %.1f fbp %.2f\n"
                             % (t.name, m, runs, cpu, cell["fto"]["mean"] or 0,
                                cell["fta"]["mean"] or 0,
                                cell["fbp"]["mean"]))
            if m == "tpe":
                c3 = {"label": "Optuna TPE", "runs": runs,
                      "ftb": stat([x["ftb"] for x in ms]),
                      "ftc": stat([x["ftc"] for x in ms]),
                      "fb": stat_all([x["fb"] for x in ms]),
                      "seconds": cpu}
                t3["methods"].append(c3)
                sys.stderr.write("peers: %s TPE ftb %.1f ftc %.1f fb %.2f\n"
                                 % (t.name, c3["ftb"]["mean"] or 0,
                                    c3["ftc"]["mean"] or 0,
                                    c3["fb"]["mean"]))
        if mt["methods"]:
            rep["tables"].append(mt)
        if t3["methods"]:
            rep["table3"].append(t3)
    rep["seconds"] = time.time() - start
    text = json.dumps(rep, indent=1) + "\n"
    if o["out"] == "-":
        sys.stdout.write(text)
    else:
        with open(o["out"] + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(o["out"] + ".tmp", o["out"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
