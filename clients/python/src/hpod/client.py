"""hpod.client - the low-level client: one method per endpoint of the hpod
HTTP API (openapi/openapi.json, which the server also serves at
/openapi.json). Standard library only.

Every method returns the decoded JSON answer and raises HpodError for an
error answer. Connection errors and 503 answers are retried with
exponential backoff, so a trainer survives a server restart; 429 (a limit
of the shared server: rate, queue, model memory) and 503 answers wait at
least their Retry-After. That is safe
for the calls the server makes idempotent (suggest per worker, report,
heartbeat, fail, reads, deletes, create with load_if_exists). The others
(creating a study without load_if_exists, enqueueing or adding a trial,
importing a table, simulating, creating a token) could be applied twice if
an answer were lost, so for them only errors where nothing reached the
server (connection refused), 429 and 503 (the server wrote nothing) are
retried.
"""

import http.client
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Mapping, Optional, Union

__all__ = ["DEFAULT_URL", "HpodClient", "HpodError", "JSON"]

DEFAULT_URL = "http://127.0.0.1:8080"

JSON = Dict[str, Any]
Number = Union[int, float]



def _retry_after(e: urllib.error.HTTPError) -> float:
    """The Retry-After of an answer in seconds (0 when absent or not a
    number of seconds), at most 60."""
    try:
        return min(max(float(e.headers.get("Retry-After") or 0), 0.0), 60.0)
    except ValueError:
        return 0.0

class HpodError(Exception):
    """An error answer from hpod: the HTTP status (0 when the server could
    not be reached) and the fields of the body {"error": {"code",
    "message", "field"}}."""

    def __init__(self, status: int, code: str, message: str, field: str = "") -> None:
        super().__init__("%s %s: %s%s" % (status, code, message,
                                           " (field %s)" % field if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field


class HpodClient:
    """Client for one hpod server (or a load balancer in front of several).

    url defaults to $HPOD_URL, else http://127.0.0.1:8080; token to
    $HPOD_TOKEN (sent as "Authorization: Bearer <token>"; none when unset
    or empty). A client holds no connection and may be shared by threads.
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None,
                 timeout: float = 30.0, retries: int = 6, backoff: float = 0.25) -> None:
        if url is None:
            url = os.environ.get("HPOD_URL") or DEFAULT_URL
        if token is None:
            token = os.environ.get("HPOD_TOKEN") or None
        self.url = url.rstrip("/")
        self.token = token or None
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    def __repr__(self) -> str:
        return "HpodClient(%r%s)" % (self.url, ", token=***" if self.token else "")

    # -- transport ---------------------------------------------------------

    def request(self, method: str, path: str, body: Optional[Any] = None,
                query: Optional[Mapping[str, Any]] = None,
                accept: str = "application/json", idempotent: bool = True) -> Any:
        """One call: the decoded JSON answer (None for an empty body), or
        the body as a str when accept is not JSON. Retries 429 and 503 answers
        (waiting at least their Retry-After) and
        connection errors (for a call that is not idempotent, only those
        where the request cannot have reached the server)."""
        url = self.url + path
        if query:
            q = {k: _query_value(v) for k, v in query.items() if v is not None}
            if q:
                url += "?" + urllib.parse.urlencode(q)
        data = None
        headers = {"Accept": accept}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        if body is not None:
            data = json.dumps(body, allow_nan=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        delay = self.backoff
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            req = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as r:
                    raw = r.read()
                    if accept != "application/json":
                        return raw.decode("utf-8")
                    return json.loads(raw) if raw else None
            except urllib.error.HTTPError as e:
                raw = e.read()
                if e.code in (429, 503) and not last:
                    time.sleep(max(delay, _retry_after(e)))
                    delay = min(delay * 2, 8.0)
                    continue
                raise _error_from(e.code, raw) from None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
                reason = getattr(e, "reason", e)
                unsent = isinstance(reason, ConnectionRefusedError)
                if last or not (idempotent or unsent):
                    raise HpodError(0, "unavailable",
                                    "could not reach %s: %s" % (url, reason)) from None
                time.sleep(delay)
                delay = min(delay * 2, 8.0)
        raise AssertionError("unreachable")

    def _json(self, method: str, path: str, body: Optional[Any] = None,
              query: Optional[Mapping[str, Any]] = None, idempotent: bool = True) -> JSON:
        """request() for the calls that answer a JSON object."""
        r = self.request(method, path, body, query, idempotent=idempotent)
        if not isinstance(r, dict):
            raise HpodError(0, "bad_answer", "%s %s answered %s, not a JSON object"
                            % (method, path, type(r).__name__))
        return r

    def _text(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None,
              accept: str = "text/plain") -> str:
        """request() for the calls that answer text."""
        r = self.request(method, path, query=query, accept=accept)
        if not isinstance(r, str):
            raise HpodError(0, "bad_answer", "%s %s answered no text" % (method, path))
        return r

    # -- studies -----------------------------------------------------------

    def create_study(self, definition: Mapping[str, Any], lab: Optional[str] = None,
                     load_if_exists: bool = False,
                     metadata: Optional[Mapping[str, Any]] = None) -> JSON:
        """POST /v1/studies: the stored study (with its "id"); 201 when
        created. With load_if_exists, the existing study of that (lab, name)
        with the same definition answers 200 (a different one is 409)."""
        body = dict(definition)
        if lab is not None:
            body["lab"] = lab
        if load_if_exists:
            body["load_if_exists"] = True
        if metadata is not None:
            body["metadata"] = dict(metadata)
        return self._json("POST", "/v1/studies", body, idempotent=load_if_exists)

    def get_study(self, study_id: int) -> JSON:
        return self._json("GET", "/v1/studies/%d" % study_id)

    def list_studies(self, name: Optional[str] = None, lab: Optional[str] = None,
                     limit: Optional[int] = None, offset: Optional[int] = None) -> JSON:
        """One page of studies, newest first: {"studies", "total", "limit",
        "offset"}, filtered by name and lab when given."""
        return self._json("GET", "/v1/studies",
                          query={"name": name, "lab": lab, "limit": limit,
                                 "offset": offset})

    def patch_study(self, study_id: int, state: Optional[str] = None,
                    metadata: Optional[Mapping[str, Any]] = None) -> JSON:
        """PATCH /v1/studies/{id}: state "active" | "paused" | "finished"
        (a finished study answers suggest with done), and/or metadata."""
        body: JSON = {}
        if state is not None:
            body["state"] = state
        if metadata is not None:
            body["metadata"] = dict(metadata)
        return self._json("PATCH", "/v1/studies/%d" % study_id, body)

    def delete_study(self, study_id: int) -> None:
        self.request("DELETE", "/v1/studies/%d" % study_id)

    # -- trials ------------------------------------------------------------

    def suggest(self, study_id: int, worker: str, count: int = 1) -> JSON:
        """{"trials": [...], "done": bool, "retry_after"?: seconds}. A worker
        asking again gets its live trials back first (idempotent)."""
        return self._json("POST", "/v1/studies/%d/suggest" % study_id,
                          {"worker": worker, "count": count})

    def next_trials(self, study_id: int, worker: str, count: int = 1,
                    max_wait: Optional[float] = None) -> Optional[List[JSON]]:
        """Asks until there is work: a non-empty list of trials, or [] once
        the study is done. Waits retry_after seconds between asks; with
        max_wait (seconds) gives up and returns None after that long."""
        start = time.monotonic()
        while True:
            r = self.suggest(study_id, worker, count)
            if r["trials"]:
                return list(r["trials"])
            if r["done"]:
                return []
            wait = max(1, int(r.get("retry_after") or 1))
            if max_wait is not None and time.monotonic() - start + wait > max_wait:
                return None
            time.sleep(wait)

    def report(self, trial_id: int, values: Mapping[str, Number], step: Optional[int] = None,
               metadata: Optional[Mapping[str, Any]] = None,
               checkpoint: Optional[str] = None) -> JSON:
        """Final report (step None) or intermediate report at step:
        {"trial": ...}, plus "action" ("continue" | "stop") for an
        intermediate report (and "train_to" in multistage studies). An
        intermediate report may carry the URI of the checkpoint it saved
        (at most 2,048 bytes; hpod stores it and hands it to the worker
        that resumes the trial, never reads it)."""
        body: JSON = {"values": dict(values)}
        if step is not None:
            body["step"] = step
        if metadata is not None:
            body["metadata"] = dict(metadata)
        if checkpoint is not None:
            body["checkpoint"] = checkpoint
        return self._json("POST", "/v1/trials/%d/report" % trial_id, body)

    def trial_param(self, trial_id: int, entry: Mapping[str, Any]) -> JSON:
        """POST /v1/trials/{id}/params (define-by-run): one space entry
        ({"name", "type", ...}) -> {"value": v}, the trial's value of that
        parameter. A parameter new to the study joins its space; the same
        name with another definition is 409; asking again answers the
        same value."""
        return self._json("POST", "/v1/trials/%d/params" % trial_id, dict(entry))

    def preempt(self, trial_id: int, reason: Optional[str] = None) -> JSON:
        """POST /v1/trials/{id}/preempt: the worker lost its machine. The
        trial (same id and params) waits for the next worker, whose
        suggest hands it out first with "resume_from_step" and
        "checkpoint" (the last ones reported)."""
        body = {} if reason is None else {"reason": reason}
        return self._json("POST", "/v1/trials/%d/preempt" % trial_id, body)

    def exclude(self, trial_id: int, reason: str) -> JSON:
        """POST /v1/trials/{id}/exclude: the trial keeps its values but
        leaves the model, best, pareto and importance."""
        return self._json("POST", "/v1/trials/%d/exclude" % trial_id, {"reason": reason})

    def restore(self, trial_id: int, reason: Optional[str] = None) -> JSON:
        """POST /v1/trials/{id}/restore: undoes exclude."""
        body = {} if reason is None else {"reason": reason}
        return self._json("POST", "/v1/trials/%d/restore" % trial_id, body)

    def patch_trial(self, trial_id: int, metadata: Mapping[str, Any]) -> JSON:
        """PATCH /v1/trials/{id}: replaces the trial's metadata; answers
        the trial as stored."""
        return self._json("PATCH", "/v1/trials/%d" % trial_id, {"metadata": dict(metadata)})

    def heartbeat(self, trial_id: int) -> JSON:
        """Renews a live trial's lease."""
        return self._json("POST", "/v1/trials/%d/heartbeat" % trial_id, {})

    def fail(self, trial_id: int, reason: Optional[str] = None) -> JSON:
        body = {} if reason is None else {"reason": reason}
        return self._json("POST", "/v1/trials/%d/fail" % trial_id, body)

    def get_trial(self, trial_id: int) -> JSON:
        return self._json("GET", "/v1/trials/%d" % trial_id)

    def trials_page(self, study_id: int, state: Optional[str] = None,
                    limit: Optional[int] = None, offset: Optional[int] = None) -> JSON:
        """One page of a study's trials in id order: {"trials", "total",
        "limit", "offset"}."""
        return self._json("GET", "/v1/studies/%d/trials" % study_id,
                          query={"state": state, "limit": limit, "offset": offset})

    def list_trials(self, study_id: int, state: Optional[str] = None,
                    page_size: int = 1000) -> List[JSON]:
        """Every trial of a study (in the given state), in id order,
        fetched page by page."""
        out: List[JSON] = []
        while True:
            page = self.trials_page(study_id, state, limit=page_size, offset=len(out))
            out.extend(page["trials"])
            if not page["trials"] or len(out) >= page["total"]:
                return out

    def trials_csv(self, study_id: int, state: Optional[str] = None) -> str:
        """The study's trials as CSV text (Accept: text/csv): one row per
        trial, one column per parameter and metric."""
        return self._text("GET", "/v1/studies/%d/trials" % study_id,
                          query={"state": state}, accept="text/csv")

    def enqueue_trial(self, study_id: int, params: Mapping[str, Any],
                      metadata: Optional[Mapping[str, Any]] = None) -> JSON:
        """POST /v1/studies/{id}/trials {"params"}: a configuration the next
        suggest issues before any other."""
        body: JSON = {"params": dict(params)}
        if metadata is not None:
            body["metadata"] = dict(metadata)
        return self._json("POST", "/v1/studies/%d/trials" % study_id, body,
                          idempotent=False)

    def add_trial(self, study_id: int, params: Mapping[str, Any],
                  values: Mapping[str, Number],
                  metadata: Optional[Mapping[str, Any]] = None) -> JSON:
        """POST /v1/studies/{id}/trials {"params", "values"}: a trial run
        elsewhere, recorded completed (it enters the model)."""
        body: JSON = {"params": dict(params), "values": dict(values)}
        if metadata is not None:
            body["metadata"] = dict(metadata)
        return self._json("POST", "/v1/studies/%d/trials" % study_id, body,
                          idempotent=False)

    def best(self, study_id: int) -> JSON:
        """{"trial": the best completed trial (single objective) or None}."""
        return self._json("GET", "/v1/studies/%d/best" % study_id)

    def pareto(self, study_id: int) -> JSON:
        """{"front": [...], "hypervolume": x, "reference": {...}}."""
        return self._json("GET", "/v1/studies/%d/pareto" % study_id)

    # -- benchmarks (lookup tables) and simulations -------------------------

    def list_benchmarks(self) -> JSON:
        """{"benchmarks": [summary, ...]} sorted by name."""
        return self._json("GET", "/v1/benchmarks")

    def get_benchmark(self, name: str) -> JSON:
        """One table ("nmthpo/zh-en"): parameters and their values, oracle
        extremes per metric, Pareto rows."""
        return self._json("GET", "/v1/benchmarks/" + _bench_path(name))

    def import_benchmark(self, table: Mapping[str, Any]) -> JSON:
        """POST /v1/benchmarks {"name", "params", "metrics", "rows"}: the
        stored table (201)."""
        return self._json("POST", "/v1/benchmarks", dict(table), idempotent=False)

    def evaluate(self, name: str, params: Mapping[str, Any], step: Optional[int] = None) -> JSON:
        """What the table says for one configuration: {"values": {...},
        "row": id} (step is required for learning curves)."""
        body: JSON = {"params": dict(params)}
        if step is not None:
            body["step"] = step
        return self._json("POST", "/v1/benchmarks/%s/evaluate" % _bench_path(name), body)

    def simulate(self, name: str, **options: Any) -> JSON:
        """Seeded simulated studies on a table: options are the request's
        fields (algorithm, repeats, init, seed, objectives, budget, ...).
        Returns the stored simulation once it has ended (done, failed or
        cancelled): a job the server answered before it was done (202) is
        polled."""
        sim = self._json("POST", "/v1/benchmarks/%s/simulate" % _bench_path(name),
                         options, idempotent=False)
        while sim.get("state") in ("queued", "running"):
            time.sleep(0.5)
            sim = self.get_simulation(sim["id"])
        return sim

    def cancel_simulation(self, sim_id: int) -> JSON:
        """DELETE /v1/simulations/{id}: a queued or running simulation
        cancelled (state "cancelled"); one that ended is a 409."""
        return self._json("DELETE", "/v1/simulations/%d" % sim_id)

    def list_simulations(self, benchmark: Optional[str] = None, limit: Optional[int] = None,
                         offset: Optional[int] = None) -> JSON:
        """{"simulations": [...], "total": n}, newest first, without sequences."""
        return self._json("GET", "/v1/simulations",
                          query={"benchmark": benchmark, "limit": limit, "offset": offset})

    def get_simulation(self, sim_id: int) -> JSON:
        return self._json("GET", "/v1/simulations/%d" % sim_id)

    def get_simulation_ss(self, sim_id: int) -> str:
        """The sequences in the public .ss format (one line per run,
        space-separated 0-based row ids)."""
        return self._text("GET", "/v1/simulations/%d" % sim_id,
                          query={"format": "ss"}, accept="text/plain")

    # -- tokens (admin) -------------------------------------------------------

    def create_token(self, role: str, lab: Optional[str] = None,
                     expires_in: Optional[int] = None) -> JSON:
        """POST /v1/tokens: {"id", "token" (the secret, shown once), "role",
        "lab", ...}. role "admin" | "write" | "read"; lab None: every lab."""
        body: JSON = {"role": role}
        if lab is not None:
            body["lab"] = lab
        if expires_in is not None:
            body["expires_in"] = expires_in
        return self._json("POST", "/v1/tokens", body, idempotent=False)

    def list_tokens(self) -> JSON:
        """GET /v1/tokens: the tokens, without their secrets."""
        return self._json("GET", "/v1/tokens")

    def revoke_token(self, token_id: int) -> None:
        """DELETE /v1/tokens/{id}."""
        self.request("DELETE", "/v1/tokens/%d" % token_id)


def _query_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _bench_path(name: str) -> str:
    """A benchmark name in a path keeps its slash: nmthpo/zh-en."""
    return urllib.parse.quote(name, safe="/")


def _error_from(status: int, raw: bytes) -> HpodError:
    try:
        e = json.loads(raw)["error"]
        return HpodError(status, str(e.get("code", "")), str(e.get("message", "")),
                         str(e.get("field", "")))
    except (ValueError, KeyError, TypeError, AttributeError):
        text = raw.decode("utf-8", "replace")[:200] if raw else ""
        return HpodError(status, "http_%d" % status, text)
