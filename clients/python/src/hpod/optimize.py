"""hpod.optimize - the worker loop behind Study.optimize.

Each worker thread asks for one trial at a time (suggest, count 1) under
its own worker name, runs fn(trial) while a heartbeat thread renews the
trial's lease every lease_seconds/3, and reports what fn returned as the
trial's final values. What fn does decides the trial's end:

- a finite result: reported, the trial completes;
- NaN or infinity (returned, or reported at a step: TrialDiverged): the
  trial fails with the reason ("objective returned nan") and the loop
  goes on;
- TrialPruned after a "stop" answer: the server already paused or pruned
  the trial; raised without one: the trial fails ("pruned by the
  objective function"), as the API has no call that prunes;
- an exception in catch: the trial fails with the exception as its
  reason and the loop goes on; any other: the trial fails, every worker
  stops after its current trial and optimize raises the exception.

In the main thread optimize also handles SIGTERM (what SLURM and spot
instances send before they kill a job): every trial in flight is handed
back with POST /v1/trials/{id}/preempt, so that the next worker resumes
it from its last checkpoint; then the previous handler runs (the default
one ends the process).
"""

import logging
import os
import signal
import socket
import threading
import time
from types import FrameType
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple,
                    Type, Union)

from .client import JSON, HpodClient, HpodError
from .trial import (FrozenTrial, Trial, TrialDiverged, TrialPruned, Value, _Preempted,
                    finite_or_reason)

if TYPE_CHECKING:
    from .study import Study

__all__ = ["OptimizeSummary", "run_optimize"]

log = logging.getLogger("hpod")

Callback = Callable[["Study", FrozenTrial], None]
Handler = Union[Callable[[int, Optional[FrameType]], Any], int, None]

OUTCOMES = ("completed", "pruned", "paused", "failed", "preempted")


class OptimizeSummary:
    """What one Study.optimize call did, one count per trial it ran, by
    the trial's last outcome in this call: completed, pruned (ASHA ended
    it: in stopping mode, or a pause that no promotion can follow any
    more), paused (ASHA or multistage stopped it for now: a promotion
    may resume it; one in this call counts as what the trial ends as),
    failed, preempted (handed back on SIGTERM). trial_ids lists
    the trials in the order they were first run."""

    def __init__(self) -> None:
        self.outcome: Dict[int, str] = {}
        self.trial_ids: List[int] = []

    def _count(self, what: str) -> int:
        return sum(1 for o in self.outcome.values() if o == what)

    @property
    def completed(self) -> int:
        return self._count("completed")

    @property
    def pruned(self) -> int:
        return self._count("pruned")

    @property
    def paused(self) -> int:
        return self._count("paused")

    @property
    def failed(self) -> int:
        return self._count("failed")

    @property
    def preempted(self) -> int:
        return self._count("preempted")

    @property
    def n_trials(self) -> int:
        return len(self.outcome)

    def as_dict(self) -> Dict[str, int]:
        return {o: self._count(o) for o in OUTCOMES}

    def __repr__(self) -> str:
        return "OptimizeSummary(%s)" % ", ".join("%s=%d" % kv for kv in self.as_dict().items())


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

    def halt(self) -> None:
        """Stops without waiting (from a signal handler)."""
        self._stop.set()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def worker_names(n_workers: int, worker: Optional[str]) -> List[str]:
    """`<worker>-<i>` (just worker when n_workers is 1), default
    `<host>-<pid>-<i>`."""
    if worker is None:
        base = "%s-%d" % (socket.gethostname() or "worker", os.getpid())
        return ["%s-%d" % (base, i) for i in range(n_workers)]
    if n_workers == 1:
        return [worker]
    return ["%s-%d" % (worker, i) for i in range(n_workers)]


class _Run:
    """What the worker threads of one optimize call share."""

    def __init__(self, study: "Study", fn: Callable[[Trial], Value], n_trials: Optional[int],
                 timeout: Optional[float], catch: Tuple[Type[BaseException], ...],
                 callbacks: Sequence[Callback], max_wait: float) -> None:
        self.study = study
        self.client = study.client
        self.fn = fn
        self.n_trials = n_trials
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.catch = catch
        self.callbacks = list(callbacks)
        self.max_wait = max_wait
        self.lock = threading.Lock()
        self.callback_lock = threading.Lock()
        self.stop = threading.Event()  # set by study.stop() too
        self.started = 0  # fn calls begun or reserved
        self.summary = OptimizeSummary()
        self.errors: List[BaseException] = []
        self.running: Dict[int, Tuple[Trial, _Heartbeat]] = {}

    def _reserve(self) -> bool:
        with self.lock:
            if self.stop.is_set() or (self.n_trials is not None
                                      and self.started >= self.n_trials):
                return False
            if self.deadline is not None and time.monotonic() >= self.deadline:
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
                    wait = min(max(float(ans.get("retry_after") or 1), 0.05), self.max_wait)
                    if self.deadline is not None:
                        wait = min(wait, max(self.deadline - time.monotonic(), 0.0))
                    self.stop.wait(wait)
                    continue
                self._run_trial(Trial(self.study, dict(ans["trials"][0])))
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            with self.lock:
                self.errors.append(e)
            self.stop.set()

    def _run_trial(self, trial: Trial) -> None:
        hb = _Heartbeat(self.client, trial.id, max(self.study.lease_seconds / 3.0, 0.1))
        with self.lock:
            self.running[trial.id] = (trial, hb)
            if trial.id not in self.summary.outcome:
                self.summary.trial_ids.append(trial.id)
        data: Optional[JSON] = None
        try:
            try:
                result = self.fn(trial)
            except _Preempted:
                self._end(trial, "preempted", None)
                return
            except TrialPruned:
                if trial.stopped:
                    self._end(trial, trial.stop_state or "pruned", None)
                elif trial.preempted:
                    self._end(trial, "preempted", None)
                else:
                    # No call prunes a trial: it ends failed with this reason.
                    self._end(trial, "failed", self._fail(trial, "pruned by the objective function"))
                return
            except BaseException as e:
                if trial.preempted:  # fn broke because its trial was taken away
                    self._end(trial, "preempted", None)
                    return
                if isinstance(e, TrialDiverged):
                    self._end(trial, "failed", self._fail(trial, str(e)))
                    return
                caught = isinstance(e, self.catch) and isinstance(e, Exception)
                self._end(trial, "failed", self._fail(trial, _reason(e)), callbacks=caught)
                if caught:
                    return
                raise
            if trial.preempted:
                self._end(trial, "preempted", None)
                return
            try:
                values = self.study.values(result)
            except (TypeError, ValueError) as e:
                self._end(trial, "failed", self._fail(trial, _reason(e)), callbacks=False)
                raise
            bad = finite_or_reason(values, "returned")
            if bad is not None:
                self._end(trial, "failed", self._fail(trial, bad))
                return
            hb.stop()
            data = self.client.report(trial.id, values).get("trial")
            self._end(trial, "completed", data)
        finally:
            hb.stop()
            with self.lock:
                self.running.pop(trial.id, None)

    def _fail(self, trial: Trial, reason: str) -> Optional[JSON]:
        """Marks a trial failed and answers it; a trial that is no longer
        live (its lease expired, 409) keeps its state."""
        try:
            return self.client.fail(trial.id, reason).get("trial")
        except HpodError as e:
            if e.status not in (404, 409):
                raise
            return None

    def _end(self, trial: Trial, outcome: str, data: Optional[JSON],
             callbacks: bool = True) -> None:
        """Records a trial's outcome and runs the callbacks with it (not
        for an exception that stops the loop: it is raised instead)."""
        with self.lock:
            self.summary.outcome[trial.id] = outcome
        if not self.callbacks or not callbacks:
            return
        if data is None:
            data = dict(trial.data, state=outcome)
        frozen = FrozenTrial(data, self.study.metric_names)
        with self.callback_lock:
            for cb in self.callbacks:
                cb(self.study, frozen)

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

    def settle_paused(self) -> None:
        """A trial paused by ASHA is pruned by the server once no
        promotion can come (the study is done): such trials count as
        pruned, as the server counts them."""
        paused = {tid for tid, o in self.summary.outcome.items() if o == "paused"}
        if not paused:
            return
        try:
            pruned = self.client.list_trials(self.study.id, "pruned")
        except HpodError as e:
            log.warning("hpod: could not read the pruned trials: %s", e)
            return
        for t in pruned:
            if int(t["id"]) in paused:
                self.summary.outcome[int(t["id"])] = "pruned"

    def preempt_all(self, reason: str) -> None:
        """SIGTERM: no new trials; each one in flight handed back to the
        server. Best effort, with one quick attempt per trial: the
        machine is going away."""
        self.stop.set()
        with self.lock:
            running = list(self.running.values())
        quick = HpodClient(self.client.url, self.client.token, timeout=5.0, retries=1,
                           backoff=0.1)
        for trial, hb in running:
            trial.preempted = True
            hb.halt()
            try:
                quick.preempt(trial.id, reason)
                log.warning("hpod: %s: trial %d handed back (preempt)", reason, trial.id)
            except HpodError as e:
                log.warning("hpod: %s: could not preempt trial %d: %s", reason, trial.id, e)


def _reason(e: BaseException) -> str:
    text = "%s: %s" % (type(e).__name__, e)
    return text[:1000]


def _on_sigterm(run: _Run, previous: Handler) -> Callable[[int, Optional[FrameType]], None]:
    def handler(signum: int, frame: Optional[FrameType]) -> None:
        run.preempt_all("SIGTERM")
        if callable(previous):
            previous(signum, frame)
            return
        # The default action: end the process as the signal would have.
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    return handler


def run_optimize(study: "Study", fn: Callable[[Trial], Value], n_trials: Optional[int],
                 timeout: Optional[float], n_workers: int, worker: Optional[str],
                 catch: Tuple[Type[BaseException], ...], callbacks: Sequence[Callback],
                 max_wait: float, handle_sigterm: bool) -> OptimizeSummary:
    """Study.optimize's body: the threads, the SIGTERM handler, the join."""
    run = _Run(study, fn, n_trials, timeout, catch, callbacks, max_wait)
    study._runs.append(run.stop)
    threads = [threading.Thread(target=run.worker, args=(nm,), name="hpod-" + nm, daemon=True)
               for nm in worker_names(n_workers, worker)]
    previous: Handler = None
    installed = False
    if handle_sigterm and threading.current_thread() is threading.main_thread():
        previous = signal.getsignal(signal.SIGTERM)
        if previous is not signal.SIG_IGN:
            signal.signal(signal.SIGTERM, _on_sigterm(run, previous))
            installed = True
    try:
        for th in threads:
            th.start()
        for th in threads:
            while th.is_alive():
                th.join(0.2)
    except KeyboardInterrupt:
        run.interrupt()
        raise
    finally:
        study._runs.remove(run.stop)
        if installed:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
    if run.errors:
        raise run.errors[0]
    run.settle_paused()
    return run.summary
