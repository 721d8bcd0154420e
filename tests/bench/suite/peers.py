"""tests/bench/suite/peers.py - Optuna's samplers on the suite's problems
(Debian's python3-optuna 3.1 and python3-cmaes), each with its defaults
and seeded with the run's seed, as a user runs them:

  tpe     TPESampler()                    tpe_mv  TPESampler(multivariate=True)
  cmaes   CmaEsSampler()                  random  RandomSampler()

On the test functions and the conditional problems the sampler sees the
problem's own space (floats, ints, the categorical) and every trial is
evaluated. On lookup tables (the nmthpo tables and the generated ones) the
protocol is tests/bench/mo_peers.py's, reused from there: the first
`init` rows are hpod's (enqueue_trial), the space is hpod's [0,1] encoding
(a categorical stays categorical), a proposal that is not a free row
evaluates the nearest free row (ties to the lowest id) and the sampler is
told that row. A single-objective run stops once ftb, ftc and fb are
known.
"""
import os
import sys
import warnings

import numpy as np
import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution
from optuna.trial import TrialState, create_trial

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import mo_peers  # noqa: E402  (tests/bench/mo_peers.py)

METHODS = ["tpe", "tpe_mv", "cmaes", "random"]
LABELS = {"tpe": "Optuna TPE", "tpe_mv": "Optuna TPE (multivariate)",
          "cmaes": "Optuna CMA-ES", "random": "Optuna random"}


def quiet():
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore")


def sampler(method, seed, n_startup=None):
    kw = {} if n_startup is None else {"n_startup_trials": n_startup}
    if method == "tpe":
        return optuna.samplers.TPESampler(seed=seed, **kw)
    if method == "tpe_mv":
        return optuna.samplers.TPESampler(seed=seed, multivariate=True, **kw)
    if method == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed, **kw)
    if method == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise ValueError("unknown peer %r" % method)


def suggest(trial, d):
    """One hpod space entry d asked of an Optuna trial."""
    if d["type"] == "categorical":
        return trial.suggest_categorical(d["name"], d["choices"])
    if d["type"] == "int":
        return trial.suggest_int(d["name"], d["low"], d["high"],
                                 log=d.get("log", False))
    return trial.suggest_float(d["name"], d["low"], d["high"],
                               log=d.get("log", False))


def function_run(problem, method, seed, budget):
    """The values of one run on a test function (problems.Function)."""
    quiet()
    space = problem.space()
    study = optuna.create_study(sampler=sampler(method, seed))
    ys = []
    for _ in range(budget):
        t = study.ask()
        y = problem({d["name"]: suggest(t, d) for d in space})
        study.tell(t, y)
        ys.append(y)
    return ys


def conditional_run(problem, method, seed, budget):
    """The values of one define-by-run run (problems.Conditional)."""
    quiet()
    study = optuna.create_study(sampler=sampler(method, seed))
    ys = []
    for _ in range(budget):
        t = study.ask()
        y = problem.evaluate(lambda name, d, t=t: suggest(t, d))
        study.tell(t, y)
        ys.append(y)
    return ys


class TableView:
    """A lookup table as mo_peers.metrics reads it (bleu, best, tol,
    pareto, fbp_budget), with each row's encoding: num (n x k, [0,1]) and
    cat (n x c strings)."""

    def __init__(self, name, values, num, num_names, cat=None, cat_names=(),
                 tol=0.5):
        self.name = name
        self.n = len(values)
        self.bleu = np.asarray(values, dtype=float)
        self.best = int(np.argmax(self.bleu))  # the first of tied maxima
        self.tol = tol
        self.pareto = [False] * self.n
        self.n_pareto = 0
        self.fbp_budget = min(50, self.n)
        self.num = np.asarray(num, dtype=float)
        self.num_names = list(num_names)
        self.cat = cat or [[] for _ in range(self.n)]
        self.cat_names = list(cat_names)
        self.cat_choices = [sorted(set(r[j] for r in self.cat))
                            for j in range(len(self.cat_names))]

    def params(self, r):
        p = {k: float(self.num[r, j]) for j, k in enumerate(self.num_names)}
        p.update({k: self.cat[r][j] for j, k in enumerate(self.cat_names)})
        return p


def nmthpo_view(root, ds):
    t = mo_peers.Table(root, ds)
    return TableView(ds, t.bleu, t.x, mo_peers.PARAMS, tol=t.tol)


def _so_done(t, seq, got):
    if len(seq) >= t.n:
        return True
    if len(seq) < min(mo_peers.FB_BUDGET, t.n) or t.best not in got:
        return False
    thr = t.bleu[t.best] - t.tol
    return any(t.bleu[r] >= thr for r in seq)


def table_run(t, method, seed, init):
    """The row sequence of one single-objective run on a TableView, the
    protocol of mo_peers.run_one (module docstring)."""
    quiet()
    dists = {k: FloatDistribution(0.0, 1.0) for k in t.num_names}
    for j, k in enumerate(t.cat_names):
        dists[k] = CategoricalDistribution(t.cat_choices[j])
    study = optuna.create_study(direction="maximize",
                                sampler=sampler(method, seed, init))
    for r in mo_peers.init_rows(seed, t.n, init):
        study.enqueue_trial(t.params(r))
    used = np.zeros(t.n, dtype=bool)
    seq, got = [], set()
    cat = np.array(t.cat, dtype=object) if t.cat_names else None
    while not _so_done(t, seq, got):
        trial = study.ask(dists)
        x = np.array([trial.params[k] for k in t.num_names])
        d = ((t.num - x) ** 2).sum(axis=1)
        for j, k in enumerate(t.cat_names):
            d = d + (cat[:, j] != trial.params[k]) * 1.0
        d[used] = np.inf
        r = int(np.argmin(d))
        used[r] = True
        seq.append(r)
        got.add(r)
        if d[r] == 0.0:
            study.tell(trial, float(t.bleu[r]))
            continue
        attrs = study._storage.get_trial(trial._trial_id).system_attrs
        study.tell(trial, state=TrialState.FAIL)
        study.add_trial(create_trial(
            params=t.params(r), distributions=dists,
            values=[float(t.bleu[r])],
            system_attrs={k: v for k, v in attrs.items()
                          if not k.startswith("fixed_params")}))
    return seq


def table_metrics(t, seq, init):
    m = mo_peers.metrics(t, seq, init)
    return {"ftb": m["ftb"], "ftc": m["ftc"], "fb": m["fb"]}

