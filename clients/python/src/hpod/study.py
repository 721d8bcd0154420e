"""hpod.study - the high-level API, Optuna-style: create_study /
load_study return a Study; Study.optimize(fn) runs the worker loop
(hpod.optimize), Study.ask/tell drive trials by hand, and best_*,
trials_dataframe read the results.

    import hpod

    def objective(trial: hpod.Trial) -> float:
        x = trial.suggest_float("x", -5, 5)
        for step in range(trial.resume_from_step + 1, 11):
            trial.report((x - 2) ** 2 / step, step)  # may raise TrialPruned
        return (x - 2) ** 2

    study = hpod.create_study(name="demo", direction="minimize", budget=20,
                              load_if_exists=True)
    print(study.optimize(objective, n_workers=2))
    print(study.best_params, study.best_value)
"""

import importlib
import itertools
import os
import socket
import threading
import time
from typing import (Any, Callable, Dict, List, Mapping, Optional, Sequence, Type,
                    Union)

from .client import JSON, HpodClient, HpodError
from .optimize import Callback, OptimizeSummary, run_optimize
from .trial import FrozenTrial, Trial, Value, finite_or_reason

__all__ = ["Study", "StudyDone", "create_study", "load_study"]


# Study.ask's worker names: one counter for the process, so that two Study
# objects of one study never ask under the same name.
_asks = itertools.count(1)
_ask_lock = threading.Lock()


class StudyDone(Exception):
    """Raised by Study.ask when the study will issue no more trials
    (budget spent, candidates used up, or finished)."""


class Study:
    """A study on an hpod server. data is the study JSON as last read."""

    def __init__(self, client: HpodClient, data: JSON) -> None:
        self.client = client
        self.data = data
        self._runs: List[threading.Event] = []  # the stop events of running optimize calls

    @property
    def id(self) -> int:
        return int(self.data["id"])

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def lab(self) -> Optional[str]:
        lab = self.data.get("lab")
        return None if lab is None else str(lab)

    @property
    def lease_seconds(self) -> int:
        return int(self.data.get("lease_seconds") or 3600)

    @property
    def objectives(self) -> List[JSON]:
        return list(self.data["objectives"])

    @property
    def metric_names(self) -> List[str]:
        """The objectives' metric names, in order."""
        return [str(o["name"]) for o in self.objectives]

    @property
    def directions(self) -> List[str]:
        """"minimize" or "maximize" per objective, in order."""
        return [str(o["goal"]) for o in self.objectives]

    def refresh(self) -> JSON:
        self.data = self.client.get_study(self.id)
        return self.data

    def values(self, value: Value) -> Dict[str, Union[int, float]]:
        """fn's result as report values: a number is the study's objective
        (single-objective studies), a list or tuple the objectives' values
        in order, a dict is taken as is."""
        if isinstance(value, Mapping):
            return dict(value)
        names = self.metric_names
        if isinstance(value, (list, tuple)):
            if len(value) != len(names):
                raise TypeError("study %d has %d objectives (%s), got %d values"
                                % (self.id, len(names), ", ".join(names), len(value)))
            vals = list(value)
        else:
            if len(names) != 1:
                raise TypeError("study %d has %d objectives: return a list or a dict of "
                                "metric values" % (self.id, len(names)))
            vals = [value]
        for v in vals:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError("expected a number, a list of numbers or a dict of metric "
                                "values, got %r" % (value,))
        return dict(zip(names, vals))

    # -- trials -------------------------------------------------------------

    def trials(self, state: Optional[str] = None) -> List[JSON]:
        """Every trial's JSON (in the given state), in id order."""
        return self.client.list_trials(self.id, state)

    def get_trials(self, state: Optional[str] = None) -> List[FrozenTrial]:
        """Every trial (in the given state) as a FrozenTrial, in id order."""
        names = self.metric_names
        return [FrozenTrial(t, names) for t in self.trials(state)]

    def enqueue_trial(self, params: Mapping[str, Any],
                      metadata: Optional[Mapping[str, Any]] = None) -> FrozenTrial:
        """A configuration the next suggest issues before any other."""
        t = self.client.enqueue_trial(self.id, params, metadata)
        return FrozenTrial(t.get("trial", t), self.metric_names)

    @property
    def best_trial(self) -> FrozenTrial:
        """The best completed trial (single objective; excluded trials
        left out). ValueError when there is none yet, RuntimeError for a
        study of several objectives (use best_trials)."""
        if len(self.objectives) != 1:
            raise RuntimeError("study %d has %d objectives: use best_trials"
                               % (self.id, len(self.objectives)))
        t = self.client.best(self.id).get("trial")
        if t is None:
            raise ValueError("study %d has no completed trial yet" % self.id)
        return FrozenTrial(dict(t), self.metric_names)

    @property
    def best_value(self) -> float:
        v = self.best_trial.value
        assert v is not None  # a completed trial holds its objective
        return v

    @property
    def best_params(self) -> Dict[str, Any]:
        return self.best_trial.params

    @property
    def best_trials(self) -> List[FrozenTrial]:
        """The Pareto front's trials (several objectives), or the best
        trial (one objective; [] when none completed yet)."""
        if len(self.objectives) == 1:
            try:
                return [self.best_trial]
            except ValueError:
                return []
        ids = {int(p["trial"]) for p in self.client.pareto(self.id)["front"]}
        return [t for t in self.get_trials("completed") if t.id in ids]

    def trials_dataframe(self) -> Any:
        """One row per trial, Optuna's columns: number, id, state, value
        (or values_<metric>), params_<name>, user_attrs_<key>, reason,
        worker, datetime_start, datetime_complete, excluded. A pandas
        DataFrame when pandas is installed, else a list of dicts."""
        rows = [_row(t, self.metric_names) for t in self.get_trials()]
        cols: List[str] = []
        for r in rows:
            cols.extend(k for k in r if k not in cols)
        rows = [{k: r.get(k) for k in cols} for r in rows]
        try:
            pandas = importlib.import_module("pandas")
        except ImportError:
            return rows
        return pandas.DataFrame(rows, columns=cols)

    # -- ask and tell -----------------------------------------------------------

    def ask(self, worker: Optional[str] = None, timeout: Optional[float] = None) -> Trial:
        """A new trial to run, asked under a fresh worker name each call
        (`<worker or host-pid>-ask-<n>`: the server hands a worker that
        asks again its live trials back, so one name per trial). Waits
        while the study has nothing to issue now (at most timeout
        seconds, then TimeoutError); StudyDone once it never will. No
        heartbeat: report, heartbeat() or tell before lease_seconds."""
        with _ask_lock:
            n = next(_asks)
        base = worker or "%s-%d" % (socket.gethostname() or "worker", os.getpid())
        name = "%s-ask-%d" % (base, n)
        start = time.monotonic()
        while True:
            ans = self.client.suggest(self.id, name, 1)
            if ans["trials"]:
                return Trial(self, dict(ans["trials"][0]))
            if ans.get("done"):
                raise StudyDone("study %d issues no more trials" % self.id)
            wait = max(float(ans.get("retry_after") or 1), 0.05)
            if timeout is not None and time.monotonic() - start + wait > timeout:
                raise TimeoutError("study %d had no trial to issue for %.0f s"
                                   % (self.id, timeout))
            time.sleep(wait)

    def tell(self, trial: Trial, value: Optional[Value] = None,
             values: Optional[Value] = None, state: Optional[str] = None,
             reason: Optional[str] = None) -> FrozenTrial:
        """Ends a trial from ask(): value (one objective) or values (a list
        in the objectives' order, or a dict) completes it; NaN or infinity
        fails it ("objective returned nan"); state "failed" (with reason)
        or "pruned" ends it without values. Answers the trial as stored."""
        if not isinstance(trial, Trial):
            raise TypeError("tell(trial, ...): expected a Trial from ask(), got %r"
                            % type(trial).__name__)
        if value is not None and values is not None:
            raise ValueError("tell: give value or values, not both")
        result = value if value is not None else values
        state = _state(state, result)
        if state == "pruned":
            if trial.stopped:  # the server paused or pruned it already
                return FrozenTrial(self.client.get_trial(trial.id), self.metric_names)
            state, reason = "failed", reason or "pruned by the objective function"
        if state == "failed":
            t = self.client.fail(trial.id, reason or "failed")["trial"]
            return FrozenTrial(t, self.metric_names)
        assert result is not None
        vals = self.values(result)
        bad = finite_or_reason(vals, "returned")
        if bad is not None:
            return FrozenTrial(self.client.fail(trial.id, bad)["trial"], self.metric_names)
        return FrozenTrial(self.client.report(trial.id, vals)["trial"], self.metric_names)

    # -- the worker loop ------------------------------------------------------

    def optimize(self, fn: Callable[[Trial], Value], n_trials: Optional[int] = None,
                 timeout: Optional[float] = None, n_workers: int = 1,
                 catch: Union[Type[BaseException], Sequence[Type[BaseException]]] = (),
                 callbacks: Optional[Sequence[Callback]] = None,
                 worker: Optional[str] = None, max_wait: float = 60.0,
                 handle_sigterm: bool = True) -> OptimizeSummary:
        """Runs fn on trials of this study in n_workers threads until the
        study is done, n_trials calls of fn were made, timeout seconds
        passed (no trial starts after it; running ones finish), or
        study.stop() was called. callbacks are called as cb(study,
        frozen_trial) after each trial, one at a time. Worker names:
        `<worker>-<i>` (just worker when n_workers is 1), default
        `<host>-<pid>-<i>`. retry_after answers are slept (at most
        max_wait seconds at a time). In the main thread, SIGTERM hands the
        trials in flight back to the server (preempt) before the previous
        handler runs; handle_sigterm=False leaves SIGTERM alone. See
        hpod.optimize for how fn's result or exception ends its trial."""
        if n_workers < 1:
            raise ValueError("n_workers must be >= 1")
        if n_trials is not None and n_trials < 0:
            raise ValueError("n_trials must be >= 0")
        if timeout is not None and not timeout >= 0:
            raise ValueError("timeout must be >= 0")
        catches = tuple(catch) if isinstance(catch, Sequence) else (catch,)
        return run_optimize(self, fn, n_trials, timeout, n_workers, worker, catches,
                            list(callbacks or ()), max_wait, handle_sigterm)

    def stop(self) -> None:
        """Stops the running optimize calls: no new trial starts, the
        running ones finish (e.g. from a callback)."""
        for ev in list(self._runs):
            ev.set()

    def __repr__(self) -> str:
        return "Study(id=%d, name=%r)" % (self.id, self.name)


def _state(state: Optional[str], result: Optional[Value]) -> str:
    aliases = {"complete": "completed", "completed": "completed", "fail": "failed",
               "failed": "failed", "prune": "pruned", "pruned": "pruned"}
    if state is None:
        if result is None:
            raise ValueError("tell: give value, values or state")
        return "completed"
    s = aliases.get(str(state).lower())
    if s is None:
        raise ValueError("tell: state must be completed, failed or pruned, got %r" % state)
    if s == "completed" and result is None:
        raise ValueError("tell: a completed trial needs value or values")
    return s


def _row(t: FrozenTrial, names: Sequence[str]) -> Dict[str, Any]:
    r: Dict[str, Any] = {"number": t.number, "id": t.id, "state": t.state}
    m = t.metrics
    if len(names) == 1:
        r["value"] = m.get(names[0])
    else:
        for n in names:
            r["values_" + n] = m.get(n)
    for k, v in m.items():
        if k not in names:
            r["values_" + k] = v
    for k, v in sorted(t.params.items()):
        r["params_" + k] = v
    for k, v in sorted(t.user_attrs.items()):
        r["user_attrs_" + k] = v
    done = t.state in ("completed", "failed", "pruned")
    r.update(reason=t.reason, worker=t.data.get("worker"),
             datetime_start=t.data.get("created_at"),
             datetime_complete=t.data.get("updated_at") if done else None,
             excluded=t.excluded is not None)
    return r


def _objectives(direction: Optional[str], directions: Optional[Sequence[str]],
                metric_names: Optional[Sequence[str]]) -> List[JSON]:
    if direction is not None and directions is not None:
        raise ValueError("give direction or directions, not both")
    goals = list(directions) if directions is not None else [direction or "minimize"]
    if not goals:
        raise ValueError("directions is empty")
    for g in goals:
        if g not in ("minimize", "maximize"):
            raise ValueError("a direction is \"minimize\" or \"maximize\", got %r" % (g,))
    if metric_names is not None:
        names = list(metric_names)
        if len(names) != len(goals):
            raise ValueError("%d metric_names for %d directions" % (len(names), len(goals)))
    elif len(goals) == 1:
        names = ["value"]
    else:
        names = ["value_%d" % i for i in range(len(goals))]
    return [{"name": n, "goal": g} for n, g in zip(names, goals)]


def create_study(definition: Optional[Mapping[str, Any]] = None, *, name: Optional[str] = None,
                 direction: Optional[str] = None, directions: Optional[Sequence[str]] = None,
                 metric_names: Optional[Sequence[str]] = None,
                 space: Optional[Sequence[Mapping[str, Any]]] = None,
                 algorithm: Union[None, str, Mapping[str, Any]] = None,
                 budget: Optional[int] = None, lease_seconds: Optional[int] = None,
                 lab: Optional[str] = None, load_if_exists: bool = False,
                 metadata: Optional[Mapping[str, Any]] = None, url: Optional[str] = None,
                 token: Optional[str] = None, client: Optional[HpodClient] = None) -> Study:
    """Creates a study (POST /v1/studies) and returns it as a Study.

    Optuna-style: create_study(name="x", direction="minimize" (default) or
    directions=["maximize", "minimize"], metric_names=["bleu", "gpu_time"]
    (default "value", or "value_0", "value_1", ...), algorithm="gp" or a
    dict (default: hpod picks), budget=n, space=[...] (default none: the
    objective's suggest_* calls define it). Or a whole definition dict,
    as the API takes it: create_study({"name": ..., "space": [...],
    "objectives": [...], ...}).

    With load_if_exists, the study of the same (lab, name) and definition
    is loaded instead (several machines can run the same script)."""
    if definition is not None:
        given = [k for k, v in (("name", name), ("direction", direction),
                                ("directions", directions), ("metric_names", metric_names),
                                ("space", space), ("algorithm", algorithm),
                                ("budget", budget), ("lease_seconds", lease_seconds))
                 if v is not None]
        if given:
            raise TypeError("create_study: give a definition or %s, not both" % ", ".join(given))
        body = dict(definition)
    else:
        if not name:
            raise TypeError("create_study: name is required")
        body = {"name": name, "space": [dict(p) for p in space or ()],
                "objectives": _objectives(direction, directions, metric_names)}
        if algorithm is not None:
            body["algorithm"] = {"name": algorithm} if isinstance(algorithm, str) \
                else dict(algorithm)
        if budget is not None:
            body["budget"] = budget
        if lease_seconds is not None:
            body["lease_seconds"] = lease_seconds
    c = client or HpodClient(url, token)
    return Study(c, c.create_study(body, lab=lab, load_if_exists=load_if_exists,
                                   metadata=metadata))


def load_study(name: Optional[str] = None, lab: Optional[str] = None, *,
               study_name: Optional[str] = None, url: Optional[str] = None,
               token: Optional[str] = None, client: Optional[HpodClient] = None) -> Study:
    """The study named name (or study_name, Optuna's spelling; in lab,
    when given) as a Study; HpodError 404 when there is none, 409 when
    the name is in several labs and no lab was given."""
    name = name if name is not None else study_name
    if not name:
        raise TypeError("load_study: name is required")
    c = client or HpodClient(url, token)
    found: List[JSON] = c.list_studies(name=name, lab=lab, limit=1000)["studies"]
    if not found:
        raise HpodError(404, "not_found", "no study named %r%s" % (
            name, " in lab %r" % lab if lab is not None else ""), "name")
    if len(found) > 1:
        raise HpodError(409, "conflict", "%d studies are named %r: give the lab"
                        % (len(found), name), "lab")
    return Study(c, found[0])
