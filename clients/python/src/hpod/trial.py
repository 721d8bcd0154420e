"""hpod.trial - what an objective function receives (Trial: suggest_*,
report, should_prune, user attributes, where to resume from) and what
the study answers about finished trials (FrozenTrial).

A parameter the trial already has (a declared space, or one asked for
before) is answered locally; a new one is asked of the server
(POST /v1/trials/{id}/params: define-by-run), which adds it to the
study's space the first time any trial asks and chooses the trial's
value with the study's model.
"""

import math
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from .client import JSON

if TYPE_CHECKING:
    from .study import Study

__all__ = ["FrozenTrial", "Trial", "TrialDiverged", "TrialPruned"]

Value = Union[int, float, Sequence[Union[int, float]], Mapping[str, Union[int, float]]]
Choice = Union[None, bool, int, float, str]

# suggest_float/suggest_int with a step send the grid as "values": at most
# this many of them.
MAX_GRID = 10000


class TrialPruned(Exception):
    """Raised by Trial.report when hpod answers "stop" to an intermediate
    report: the server has already paused (ASHA promotion mode, multistage)
    or pruned (ASHA stopping mode) the trial, so the worker loop sends no
    final report for it. fn may let it propagate (or raise it itself)."""


class TrialDiverged(ValueError):
    """Raised by Trial.report for a NaN or infinite value, which hpod
    cannot store: Study.optimize fails the trial with this message as its
    reason ("objective reported nan at step 3") and goes on."""


class _Preempted(BaseException):
    """Raised by Trial.report once the trial was preempted (SIGTERM): the
    server has handed it back, nothing more is to be sent for it. A
    BaseException, so that fn's own `except Exception` lets it through."""


def finite_or_reason(values: Mapping[str, float], what: str) -> Optional[str]:
    """None when every value is finite, else the failure reason, e.g.
    "objective returned nan" (one metric) or "objective returned inf for
    gpu_time"."""
    for name, v in values.items():
        if not math.isfinite(v):
            text = "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
            return ("objective %s %s" % (what, text) if len(values) == 1
                    else "objective %s %s for %s" % (what, text, name))
    return None


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _same_choice(v: Any, c: Any) -> bool:
    """v (from the server) is choice c: equal, and both booleans, both
    numbers or both strings (True is not 1 here)."""
    if isinstance(c, bool) or isinstance(v, bool):
        return isinstance(c, bool) and isinstance(v, bool) and v == c
    if _number(c):
        return _number(v) and bool(v == c)
    return type(v) is type(c) and bool(v == c)


def _grid(low: float, high: float, step: float) -> List[float]:
    n = int(math.floor((high - low) / step + 1e-9))
    if n + 1 > MAX_GRID:
        raise ValueError("step %r makes %d values between %r and %r, more than %d"
                         % (step, n + 1, low, high, MAX_GRID))
    # Rounded to 12 significant digits so that 0.1 + 2 * 0.1 reads 0.3.
    return [float("%.12g" % (low + i * step)) for i in range(n + 1)]


class _TrialData:
    """What Trial and FrozenTrial read alike from the trial's JSON."""

    data: JSON

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
        return dict(self.data.get("params") or {})

    @property
    def user_attrs(self) -> Dict[str, Any]:
        """The trial's metadata."""
        return dict(self.data.get("metadata") or {})


class Trial(_TrialData):
    """One trial handed to fn by Study.optimize (or by Study.ask): its id,
    number and params (the declared space's, inactive conditional
    parameters absent, and those suggest_* asked for), the suggest_* calls of a define-by-run objective,
    report/should_prune, and where to train from (resume_from_step,
    checkpoint) and to (train_to)."""

    def __init__(self, study: "Study", data: JSON) -> None:
        self.study = study
        self.data = data
        self.data.setdefault("params", {})
        self._action: Optional[str] = None
        self.stopped = False  # the server answered "stop"
        self.stop_state: Optional[str] = None  # then: "paused" or "pruned"
        self.preempted = False  # the SIGTERM handler handed it back

    @property
    def train_to(self) -> Optional[int]:
        """Multistage studies: the step to train to (updated by the answers
        to intermediate reports); None otherwise."""
        t = self.data.get("train_to")
        return None if t is None else int(t)

    @property
    def resume_from_step(self) -> int:
        """A promoted or preempted trial continues from this step (its last
        reported one); 0 for a new trial."""
        return int(self.data.get("resume_from_step") or 0)

    @property
    def checkpoint(self) -> Optional[str]:
        """The checkpoint URI last reported for this trial (by this worker
        or, for a resumed trial, by the one before it); None when none."""
        c = self.data.get("checkpoint")
        return None if c is None else str(c)

    @property
    def worker(self) -> str:
        return str(self.data.get("worker", ""))

    def set_user_attr(self, key: str, value: Any) -> None:
        """Sets one key of the trial's metadata (PATCH /v1/trials/{id});
        value must be JSON (a number, string, bool, None, list or dict)."""
        md = self.user_attrs
        md[key] = value
        t = self.study.client.patch_trial(self.id, md)
        self.data["metadata"] = t.get("metadata", md)

    # -- define-by-run ------------------------------------------------------

    def suggest_float(self, name: str, low: float, high: float, *, step: Optional[float] = None,
                      log: bool = False) -> float:
        """A float in [low, high] (on a log scale with log=True; on the
        grid low, low + step, ... <= high with step)."""
        low, high = float(low), float(high)
        _check_range(name, low, high, step, log)
        entry: JSON = {"name": name, "type": "float"}
        if step is not None:
            entry["values"] = _grid(low, high, float(step))
        elif low == high:
            entry["values"] = [low]
        else:
            entry.update(low=low, high=high, log=bool(log))

        def fits(v: Any) -> bool:
            return _number(v) and low <= v <= high
        return float(self._suggest(name, entry, fits, "in [%r, %r]" % (low, high)))

    def suggest_int(self, name: str, low: int, high: int, step: int = 1,
                    log: bool = False) -> int:
        """An integer in [low, high] (on a log scale with log=True; only
        low, low + step, ... with step > 1)."""
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (low, high, step)):
            raise TypeError("suggest_int(%r): low, high and step must be integers" % name)
        _check_range(name, low, high, None if step == 1 else step, log)
        entry: JSON = {"name": name, "type": "int"}
        if step != 1 or low == high:
            if (high - low) // step + 1 > MAX_GRID:
                raise ValueError("suggest_int(%r): step %d makes more than %d values"
                                 % (name, step, MAX_GRID))
            entry["values"] = list(range(low, high + 1, step))
        else:
            entry.update(low=low, high=high, log=bool(log))

        def fits(v: Any) -> bool:
            return _number(v) and float(v).is_integer() and low <= v <= high
        return int(self._suggest(name, entry, fits, "an integer in [%d, %d]" % (low, high)))

    def suggest_categorical(self, name: str, choices: Sequence[Choice]) -> Choice:
        """One of choices: strings, numbers or booleans (one kind per
        parameter); the value comes back as the choice itself."""
        cs = list(choices)
        if not cs:
            raise ValueError("suggest_categorical(%r): no choices" % name)
        kinds = {"bool" if isinstance(c, bool) else "number" if _number(c)
                 else "string" if isinstance(c, str) else "other" for c in cs}
        if len(kinds) != 1 or "other" in kinds:
            raise ValueError("suggest_categorical(%r): choices must be all strings, all "
                             "numbers or all booleans, got %r" % (name, cs))
        for c in cs:
            if isinstance(c, float) and not math.isfinite(c):
                raise ValueError("suggest_categorical(%r): choice %r is not finite" % (name, c))
        entry: JSON = {"name": name, "type": "categorical", "choices": cs}
        v = self._suggest(name, entry, lambda v: any(_same_choice(v, c) for c in cs),
                          "one of %r" % (cs,))
        return next(c for c in cs if _same_choice(v, c))

    def _suggest(self, name: str, entry: JSON, fits: Callable[[Any], bool], what: str) -> Any:
        params = self.data["params"]
        if name in params:
            v = params[name]
        else:
            v = self.study.client.trial_param(self.id, entry)["value"]
            params[name] = v
        if not fits(v):
            raise ValueError("trial %d has %s=%r, not %s as asked: the study's space defines "
                             "%r otherwise" % (self.id, name, v, what, name))
        return v

    # -- reports ------------------------------------------------------------

    def report(self, value: Value, step: int, checkpoint: Optional[str] = None,
               prune: bool = True) -> str:
        """Sends an intermediate report of value (a number for the study's
        first objective, a list in the objectives' order, or a dict of
        metric values) at step, with the URI of the checkpoint saved
        there, and returns the server's action, "continue" or "stop". On
        "stop" raises TrialPruned, unless prune is False (then
        should_prune() says so). A NaN or infinite value raises
        TrialDiverged."""
        if self.preempted:
            raise _Preempted()
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError("report(value, step): step must be an integer, got %r (the "
                            "order is Optuna's: value first)" % (step,))
        values = self.study.values(value)
        bad = finite_or_reason(values, "reported")
        if bad is not None:
            raise TrialDiverged("%s at step %d" % (bad, step))
        ans = self.study.client.report(self.id, values, step=step, checkpoint=checkpoint)
        if self.preempted:
            raise _Preempted()
        self._action = str(ans.get("action") or "continue")
        if ans.get("train_to") is not None:
            self.data["train_to"] = ans["train_to"]
        if checkpoint is not None:
            self.data["checkpoint"] = checkpoint
        if self._action == "stop":
            self.stopped = True
            state = (ans.get("trial") or {}).get("state")
            self.stop_state = "paused" if state == "paused" else "pruned"
            if prune:
                raise TrialPruned("trial %d: the server answered stop at step %d"
                                  % (self.id, step))
        return self._action

    def should_prune(self) -> bool:
        """True when the last intermediate report was answered "stop"."""
        return self._action == "stop"

    def heartbeat(self) -> None:
        """Renews the trial's lease (Study.optimize does it by itself)."""
        self.study.client.heartbeat(self.id)

    def preempt(self, reason: str = "preempted") -> None:
        """Hands the trial back (POST /v1/trials/{id}/preempt): the next
        worker gets it with resume_from_step and checkpoint. Study.optimize
        does it by itself on SIGTERM."""
        self.preempted = True
        self.study.client.preempt(self.id, reason)

    def __repr__(self) -> str:
        return "Trial(id=%d, number=%r, params=%r)" % (self.id, self.number, self.params)


def _check_range(name: str, low: float, high: float, step: Optional[float], log: bool) -> None:
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError("suggest(%r): low and high must be finite" % name)
    if low > high:
        raise ValueError("suggest(%r): low %r > high %r" % (name, low, high))
    if log and low <= 0:
        raise ValueError("suggest(%r): log needs low > 0, got %r" % (name, low))
    if step is not None:
        if log:
            raise ValueError("suggest(%r): step and log cannot be used together" % name)
        if not step > 0:
            raise ValueError("suggest(%r): step must be > 0, got %r" % (name, step))


class FrozenTrial(_TrialData):
    """A trial as the server holds it (what best_trial, best_trials, tell
    and the optimize callbacks hand out). values lists the objectives'
    values in the study's order (None until completed); metrics holds
    every reported metric by name; data is the trial's JSON."""

    def __init__(self, data: JSON, objectives: Sequence[str]) -> None:
        self.data = data
        self.objectives = list(objectives)

    @property
    def state(self) -> str:
        return str(self.data.get("state", ""))

    @property
    def metrics(self) -> Dict[str, float]:
        return dict(self.data.get("values") or {})

    @property
    def values(self) -> Optional[List[float]]:
        m = self.metrics
        if not self.objectives or any(o not in m for o in self.objectives):
            return None
        return [m[o] for o in self.objectives]

    @property
    def value(self) -> Optional[float]:
        """The objective's value (single-objective studies; None until
        completed)."""
        if len(self.objectives) != 1:
            raise RuntimeError("the study has %d objectives: use values"
                               % len(self.objectives))
        return self.metrics.get(self.objectives[0])

    @property
    def intermediate_values(self) -> Dict[int, float]:
        """step -> the first objective's intermediate value."""
        out: Dict[int, float] = {}
        first = self.objectives[0] if self.objectives else None
        for iv in self.data.get("intermediate") or []:
            v = (iv.get("values") or {}).get(first)
            if v is not None:
                out[int(iv["step"])] = v
        return out

    @property
    def reason(self) -> Optional[str]:
        r = self.data.get("reason")
        return None if r is None else str(r)

    @property
    def excluded(self) -> Optional[Dict[str, Any]]:
        """{"reason", "by", "at"} for an excluded trial, else None."""
        e = self.data.get("excluded")
        return None if e is None else dict(e)

    def __repr__(self) -> str:
        return "FrozenTrial(id=%d, number=%r, state=%r, values=%r, params=%r)" % (
            self.id, self.number, self.state, self.values, self.params)
