"""hpod.study - the high-level API: a Study object and an Optuna-like
worker loop, Study.optimize(fn).

    import hpod

    def objective(trial: hpod.Trial) -> float:
        x = trial.params["x"]
        for step in range(1, 11):
            trial.report(step, (x - 2) ** 2 / step)  # may raise TrialPruned
        return (x - 2) ** 2

    study = hpod.create_study({"name": "demo", "space": [...],
                               "objectives": [{"name": "loss", "goal": "minimize"}],
                               "budget": 20}, load_if_exists=True)
    print(study.optimize(objective, n_workers=2))
    print(study.best_trial())

Each worker thread asks for one trial at a time (suggest, count 1) under
its own worker name, runs fn(trial) while a heartbeat thread renews the
trial's lease every lease_seconds/3, and reports what fn returned as the
trial's final values.
"""

import os
import socket
import threading
from typing import (Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Type,
                    Union)

from .client import JSON, HpodClient, HpodError

__all__ = ["OptimizeSummary", "Study", "Trial", "TrialPruned", "create_study", "load_study"]

Value = Union[int, float, Mapping[str, Union[int, float]]]


class TrialPruned(Exception):
    """Raised by Trial.report when hpod answers "stop" to an intermediate
    report: the server has already paused (ASHA promotion mode, multistage)
    or pruned (ASHA stopping mode) the trial, so the worker loop sends no
    final report for it. fn may let it propagate (or raise it itself)."""


class Trial:
    """One trial handed to fn by Study.optimize: its id, number, params,
    and where to train from (resume_from_step) and to (train_to)."""

    def __init__(self, study: "Study", data: JSON) -> None:
        self.study = study
        self.data = data
        self._action: Optional[str] = None
        self.stopped = False  # the server answered "stop"

    @property
    def id(self) -> int:
        return int(self.data["id"])

    @property
    def number(self) -> Optional[int]:
        """0, 1, 2, ... within the study (None from a server that does not
        send it)."""
        n = self.data.get("number")
        return None if n is None else int(n)

    @property
    def params(self) -> Dict[str, Any]:
        return dict(self.data["params"])

    @property
    def train_to(self) -> Optional[int]:
        """Multistage studies: the step to train to (updated by the answers
        to intermediate reports); None otherwise."""
        t = self.data.get("train_to")
        return None if t is None else int(t)

    @property
    def resume_from_step(self) -> int:
        """A promoted trial continues from this checkpoint; 0 for a new one."""
        return int(self.data.get("resume_from_step") or 0)

    @property
    def worker(self) -> str:
        return str(self.data.get("worker", ""))

    def report(self, step: int, value: Value, prune: bool = True) -> str:
        """Sends an intermediate report at step (a number for the study's
        first objective, or a dict of metric values) and returns the
        server's action, "continue" or "stop". On "stop" raises
        TrialPruned, unless prune is False (then should_prune() says so)."""
        ans = self.study.client.report(self.id, self.study.values(value), step=step)
        self._action = str(ans.get("action") or "continue")
        if ans.get("train_to") is not None:
            self.data["train_to"] = ans["train_to"]
        if self._action == "stop":
            self.stopped = True
            if prune:
                raise TrialPruned("trial %d: the server answered stop at step %d"
                                  % (self.id, step))
        return self._action

    def should_prune(self) -> bool:
        """True when the last intermediate report was answered "stop"."""
        return self._action == "stop"

    def __repr__(self) -> str:
        return "Trial(id=%d, number=%r, params=%r)" % (self.id, self.number, self.params)


class OptimizeSummary:
    """What one Study.optimize call did: trials completed, pruned (the
    server answered stop, or fn raised TrialPruned) and failed."""

    def __init__(self) -> None:
        self.completed = 0
        self.pruned = 0
        self.failed = 0
        self.trial_ids: List[int] = []

    @property
    def n_trials(self) -> int:
        return self.completed + self.pruned + self.failed

    def as_dict(self) -> Dict[str, int]:
        return {"completed": self.completed, "pruned": self.pruned, "failed": self.failed}

    def __repr__(self) -> str:
        return "OptimizeSummary(completed=%d, pruned=%d, failed=%d)" % (
            self.completed, self.pruned, self.failed)


class Study:
    """A study on an hpod server. data is the study JSON as last read."""

    def __init__(self, client: HpodClient, data: JSON) -> None:
        self.client = client
        self.data = data

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

    def refresh(self) -> JSON:
        self.data = self.client.get_study(self.id)
        return self.data

    def values(self, value: Value) -> Dict[str, Union[int, float]]:
        """fn's result as report values: a number is the study's first
        objective (single-objective studies only), a dict is taken as is."""
        if isinstance(value, Mapping):
            return dict(value)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError("expected a number or a dict of metric values, got %r"
                            % type(value).__name__)
        objs = self.objectives
        if len(objs) != 1:
            raise TypeError("study %d has %d objectives: return a dict of metric values"
                            % (self.id, len(objs)))
        return {str(objs[0]["name"]): value}

    def trials(self, state: Optional[str] = None) -> List[JSON]:
        return self.client.list_trials(self.id, state)

    def best_trial(self) -> Optional[JSON]:
        t = self.client.best(self.id).get("trial")
        return None if t is None else dict(t)

    def optimize(self, fn: Callable[[Trial], Value], n_trials: Optional[int] = None,
                 n_workers: int = 1, worker: Optional[str] = None,
                 catch: Union[Type[BaseException], Sequence[Type[BaseException]]] = (),
                 max_wait: float = 60.0) -> OptimizeSummary:
        """Runs fn on trials of this study in n_workers threads until the
        study is done or n_trials calls of fn were made (None: no limit).
        Worker names: `<worker>-<i>` (just worker when n_workers is 1),
        default `<host>-<pid>-<i>`. An exception from fn fails its trial;
        one not in catch also stops every worker after its current trial
        and is re-raised here. retry_after answers are slept (at most
        max_wait seconds at a time) before asking again."""
        if n_workers < 1:
            raise ValueError("n_workers must be >= 1")
        if n_trials is not None and n_trials < 0:
            raise ValueError("n_trials must be >= 0")
        catches = tuple(catch) if isinstance(catch, Sequence) else (catch,)
        if worker is None:
            base = "%s-%d" % (socket.gethostname() or "worker", os.getpid())
            names = ["%s-%d" % (base, i) for i in range(n_workers)]
        else:
            names = [worker] if n_workers == 1 else ["%s-%d" % (worker, i)
                                                     for i in range(n_workers)]
        run = _Run(self, fn, n_trials, catches, max_wait)
        threads = [threading.Thread(target=run.worker, args=(nm,), name="hpod-" + nm,
                                    daemon=True) for nm in names]
        for th in threads:
            th.start()
        try:
            for th in threads:
                while th.is_alive():
                    th.join(0.2)
        except KeyboardInterrupt:
            run.interrupt()
            raise
        if run.errors:
            raise run.errors[0]
        return run.summary


class _Heartbeat:
    """Renews one trial's lease every lease_seconds/3 until stopped."""

    def __init__(self, client: HpodClient, trial_id: int, interval: float) -> None:
        self.client = client
        self.trial_id = trial_id
        self.interval = interval
        self.beats = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True,
                                        name="hpod-heartbeat-%d" % trial_id)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.client.heartbeat(self.trial_id)
                self.beats += 1
            except HpodError as e:
                if e.status in (404, 409):
                    return  # the trial is no longer live (stopped, expired)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


class _Run:
    """What the worker threads of one optimize call share."""

    def __init__(self, study: Study, fn: Callable[[Trial], Value], n_trials: Optional[int],
                 catch: Tuple[Type[BaseException], ...], max_wait: float) -> None:
        self.study = study
        self.client = study.client
        self.fn = fn
        self.n_trials = n_trials
        self.catch = catch
        self.max_wait = max_wait
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.started = 0  # fn calls begun or reserved
        self.summary = OptimizeSummary()
        self.errors: List[BaseException] = []
        self.running: Dict[int, Trial] = {}

    def _reserve(self) -> bool:
        with self.lock:
            if self.stop.is_set() or (self.n_trials is not None
                                      and self.started >= self.n_trials):
                return False
            self.started += 1
            return True

    def _unreserve(self) -> None:
        with self.lock:
            self.started -= 1

    def worker(self, name: str) -> None:
        try:
            while self._reserve():
                ans = self.client.suggest(self.study.id, name, 1)
                if not ans["trials"]:
                    self._unreserve()
                    if ans.get("done"):
                        self.stop.set()
                        return
                    wait = float(ans.get("retry_after") or 1)
                    self.stop.wait(min(max(wait, 0.05), self.max_wait))
                    continue
                self._run_trial(Trial(self.study, dict(ans["trials"][0])))
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            with self.lock:
                self.errors.append(e)
            self.stop.set()

    def _run_trial(self, trial: Trial) -> None:
        with self.lock:
            self.running[trial.id] = trial
            self.summary.trial_ids.append(trial.id)
        hb = _Heartbeat(self.client, trial.id, max(self.study.lease_seconds / 3.0, 0.1))
        try:
            try:
                values = self.study.values(self.fn(trial))
            except TrialPruned:
                if not trial.stopped:
                    # fn pruned it on its own: there is no "pruned" call,
                    # so the trial ends failed with this reason.
                    self._fail(trial.id, "pruned by the objective function")
                self._count("pruned")
                return
            except BaseException as e:
                self._fail(trial.id, _reason(e))
                self._count("failed")
                if isinstance(e, self.catch) and isinstance(e, Exception):
                    return
                raise
            hb.stop()
            self.client.report(trial.id, values)
            self._count("completed")
        finally:
            hb.stop()
            with self.lock:
                self.running.pop(trial.id, None)

    def _fail(self, trial_id: int, reason: str) -> None:
        """Marks a trial failed; a trial that is no longer live (its lease
        expired, 409) keeps its state, and fn's exception stays the one
        reported."""
        try:
            self.client.fail(trial_id, reason)
        except HpodError as e:
            if e.status not in (404, 409):
                raise

    def _count(self, what: str) -> None:
        with self.lock:
            setattr(self.summary, what, getattr(self.summary, what) + 1)

    def interrupt(self) -> None:
        """Ctrl-C in the caller: no new trials, the running ones failed."""
        self.stop.set()
        with self.lock:
            running = list(self.running)
        for tid in running:
            try:
                self.client.fail(tid, "interrupted")
            except HpodError:
                pass  # best effort: the lease expires anyway


def _reason(e: BaseException) -> str:
    text = "%s: %s" % (type(e).__name__, e)
    return text[:1000]


def create_study(definition: Mapping[str, Any], lab: Optional[str] = None,
                 load_if_exists: bool = False, metadata: Optional[Mapping[str, Any]] = None,
                 url: Optional[str] = None, token: Optional[str] = None,
                 client: Optional[HpodClient] = None) -> Study:
    """Creates a study (POST /v1/studies) and returns it as a Study. With
    load_if_exists, the study of the same (lab, name) and definition is
    loaded instead (several machines can run the same script)."""
    c = client or HpodClient(url, token)
    return Study(c, c.create_study(definition, lab=lab, load_if_exists=load_if_exists,
                                   metadata=metadata))


def load_study(name: str, lab: Optional[str] = None, url: Optional[str] = None,
               token: Optional[str] = None, client: Optional[HpodClient] = None) -> Study:
    """The study named name (in lab, when given) as a Study; HpodError 404
    when there is none, 409 when the name is in several labs and no lab was
    given."""
    c = client or HpodClient(url, token)
    found: List[JSON] = c.list_studies(name=name, lab=lab, limit=1000)["studies"]
    if not found:
        raise HpodError(404, "not_found", "no study named %r%s" % (
            name, " in lab %r" % lab if lab is not None else ""), "name")
    if len(found) > 1:
        raise HpodError(409, "conflict", "%d studies are named %r: give the lab"
                        % (len(found), name), "lab")
    return Study(c, found[0])
