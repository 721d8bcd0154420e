"""hpod_client - a small Python client for the hpod HTTP API (stdlib only).

Usage:

    from hpod_client import HpodClient, HpodError

    c = HpodClient("http://127.0.0.1:8080")
    study = c.create_study({
        "name": "demo",
        "space": [{"name": "lr", "type": "float", "low": 1e-4, "high": 1e-1, "log": True}],
        "objectives": [{"name": "loss", "goal": "minimize"}],
        "budget": 20,
    })
    while True:
        trials = c.next_trials(study["id"], worker="node-3")
        if not trials:              # the study is done
            break
        for t in trials:
            c.report(t["id"], {"loss": train(**t["params"])})
    print(c.best(study["id"])["trial"])

Every method returns the decoded JSON answer (dict) and raises HpodError
for a 4xx/5xx answer. Connection errors and 503 answers are retried a few
times with exponential backoff, so a trainer survives a server restart:
this is safe because suggest (per worker) and report are idempotent on the
server side (openapi/openapi.json: POST /v1/studies/{id}/suggest and
POST /v1/trials/{id}/report).
"""

import json
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["HpodClient", "HpodError"]


class HpodError(Exception):
    """An error answer from hpod: HTTP status plus the error body's fields."""

    def __init__(self, status, code, message, field=""):
        super().__init__("%s %s: %s%s" % (status, code, message,
                                           " (field %s)" % field if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field


class HpodClient:
    """Client for one hpod server (or a load balancer in front of several)."""

    def __init__(self, base_url="http://127.0.0.1:8080", timeout=30,
                 retries=6, backoff=0.25):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    # -- transport ---------------------------------------------------------

    def _request(self, method, path, body=None, query=None, text=False):
        """One call; returns the decoded JSON answer (or, with text=True,
        the body as a str). Retries connection errors and 503s: every call
        is safe to repeat except POST /v1/benchmarks (a lost answer makes
        the repeat a 409) and POST .../simulate (it may store the run
        twice)."""
        url = self.base_url + path
        if query:
            q = {k: v for k, v in query.items() if v is not None}
            if q:
                url += "?" + urllib.parse.urlencode(q)
        data = None
        headers = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        delay = self.backoff
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            req = urllib.request.Request(url, data=data, method=method,
                                         headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as r:
                    raw = r.read()
                    if text:
                        return raw.decode("utf-8")
                    return json.loads(raw) if raw else None
            except urllib.error.HTTPError as e:
                raw = e.read()
                if e.code == 503 and not last:
                    time.sleep(delay)
                    delay = min(delay * 2, 8.0)
                    continue
                raise _error_from(e.code, raw) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError,
                    OSError) as e:
                if last:
                    raise HpodError(0, "unavailable",
                                    "could not reach %s: %s" % (url, e)) from None
                time.sleep(delay)
                delay = min(delay * 2, 8.0)
        raise AssertionError("unreachable")

    # -- studies -----------------------------------------------------------

    def create_study(self, definition):
        """POST /v1/studies: returns the stored study (with its "id")."""
        return self._request("POST", "/v1/studies", definition)

    def get_study(self, study_id):
        return self._request("GET", "/v1/studies/%d" % study_id)

    def list_studies(self, limit=None, offset=None):
        """One page of studies, newest first: {"studies", "total", ...}."""
        return self._request("GET", "/v1/studies",
                             query={"limit": limit, "offset": offset})

    def delete_study(self, study_id):
        self._request("DELETE", "/v1/studies/%d" % study_id)

    # -- trials ------------------------------------------------------------

    def suggest(self, study_id, worker, count=1):
        """{"trials": [...], "done": bool, "retry_after"?: seconds}."""
        return self._request("POST", "/v1/studies/%d/suggest" % study_id,
                             {"worker": worker, "count": count})

    def next_trials(self, study_id, worker, count=1, max_wait=None):
        """Ask until there is work: returns a non-empty list of trials, or
        [] once the study is done. Waits retry_after seconds between asks;
        with max_wait (seconds) gives up and returns None after that long."""
        start = time.monotonic()
        while True:
            r = self.suggest(study_id, worker, count)
            if r["trials"]:
                return r["trials"]
            if r["done"]:
                return []
            wait = max(1, int(r.get("retry_after") or 1))
            if max_wait is not None and time.monotonic() - start + wait > max_wait:
                return None
            time.sleep(wait)

    def report(self, trial_id, values, step=None):
        """Final report (step None) or intermediate report at step.
        Returns {"trial": ...} (plus "action" for intermediate reports)."""
        body = {"values": values}
        if step is not None:
            body["step"] = step
        return self._request("POST", "/v1/trials/%d/report" % trial_id, body)

    def heartbeat(self, trial_id):
        return self._request("POST", "/v1/trials/%d/heartbeat" % trial_id, {})

    def fail(self, trial_id, reason=None):
        body = {} if reason is None else {"reason": reason}
        return self._request("POST", "/v1/trials/%d/fail" % trial_id, body)

    def get_trial(self, trial_id):
        return self._request("GET", "/v1/trials/%d" % trial_id)

    def trials(self, study_id, state=None, limit=None, offset=None):
        """One page of a study's trials in id order: {"trials", "total", ...}."""
        return self._request("GET", "/v1/studies/%d/trials" % study_id,
                             query={"state": state, "limit": limit,
                                    "offset": offset})

    def best(self, study_id):
        """{"trial": the best completed trial (single objective) or None}."""
        return self._request("GET", "/v1/studies/%d/best" % study_id)

    def pareto(self, study_id):
        return self._request("GET", "/v1/studies/%d/pareto" % study_id)

    # -- benchmarks (lookup tables) and simulations -------------------------

    def list_benchmarks(self):
        """{"benchmarks": [summary, ...]} sorted by name."""
        return self._request("GET", "/v1/benchmarks")

    def get_benchmark(self, name):
        """One table ("nmthpo/zh-en"): parameters and their values, oracle
        extremes per metric, Pareto rows."""
        return self._request("GET", "/v1/benchmarks/" + _bench_path(name))

    def import_benchmark(self, table):
        """POST /v1/benchmarks {"name", "params", "metrics", "rows"}:
        returns the stored table (201)."""
        return self._request("POST", "/v1/benchmarks", table)

    def evaluate(self, name, params, step=None):
        """What the table says for one configuration: {"values": {...},
        "row": id} (plus "step" for learning curves, where step is
        required)."""
        body = {"params": params}
        if step is not None:
            body["step"] = step
        return self._request("POST", "/v1/benchmarks/%s/evaluate" % _bench_path(name),
                             body)

    def simulate(self, name, **options):
        """Seeded simulated studies on a table: options are the request's
        fields (algorithm, repeats, init, seed, objective, tolerance,
        budget, pareto_budget). Returns the stored simulation (201)."""
        return self._request("POST", "/v1/benchmarks/%s/simulate" % _bench_path(name),
                             options)

    def list_simulations(self, benchmark=None, limit=None, offset=None):
        """{"simulations": [...], "total": n}, newest first, without sequences."""
        return self._request("GET", "/v1/simulations",
                             query={"benchmark": benchmark, "limit": limit,
                                    "offset": offset})

    def get_simulation(self, sim_id):
        return self._request("GET", "/v1/simulations/%d" % sim_id)

    def get_simulation_ss(self, sim_id):
        """The sequences in the public .ss format (text: one line per run,
        space-separated 0-based row ids)."""
        return self._request("GET", "/v1/simulations/%d" % sim_id,
                             query={"format": "ss"}, text=True)


def _bench_path(name):
    """A benchmark name in a path keeps its slash: nmthpo/zh-en."""
    return urllib.parse.quote(name, safe="/")


def _error_from(status, raw):
    try:
        e = json.loads(raw)["error"]
        return HpodError(status, e.get("code", ""), e.get("message", ""),
                         e.get("field", ""))
    except (ValueError, KeyError, TypeError):
        text = raw.decode("utf-8", "replace")[:200] if raw else ""
        return HpodError(status, "http_%d" % status, text)
