"""tests/api/test_client.py - the Python client package (clients/python):
`pip install` offline into a fresh virtual environment in the build tree,
then, with that environment's python, its configuration and retries
against a stub server, optimize_example.py and Study.optimize against this
suite's server: heartbeats keep a trial longer than its lease alive, ASHA
stops raise TrialPruned, an exception in fn fails its trial.

The install recipe is the one README.md gives: Debian's python3 (with
python3-venv, python3-pip, python3-setuptools, python3-wheel from
scripts/deps.sh), `python3 -m venv --system-site-packages` (the build
backend, setuptools and wheel, comes from the system: there is no index),
`pip install --no-build-isolation --no-index`. The package is copied into
the build tree first, because pip builds in the source directory.
"""

import atexit
import glob
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
import tempfile

from harness import TOP, Server, Skip, call, check, expect, fixture, short, test
from client import all_trials

PKG = os.path.join(TOP, "clients", "python")
# OptimizeSummary.as_dict() of a run that ran no trial.
NONE = {"completed": 0, "pruned": 0, "paused": 0, "failed": 0, "preempted": 0}
# Debian's interpreter first: the packages of scripts/deps.sh are its.
BASE_PYTHONS = ["/usr/bin/python3", sys.executable]


def run(argv, env=None, timeout=300):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, timeout=timeout,
                       env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout.decode("utf-8", "replace")


def base_python():
    """An interpreter that can make a venv and build the package offline."""
    probe = "import venv, ensurepip, setuptools, wheel"
    for py in BASE_PYTHONS:
        if os.path.exists(py) and run([py, "-c", probe], timeout=60)[0] == 0:
            return py
    raise Skip("no python3 with venv, ensurepip, setuptools and wheel "
               "(scripts/deps.sh installs python3-venv python3-setuptools python3-wheel)")


@fixture
def client_venv(c):
    """{"python": the venv's interpreter, "dir": a scratch directory}, with
    the package pip-installed offline; removed when the suite ends."""
    root = tempfile.mkdtemp(prefix="pyclient-", dir=os.path.dirname(c.args.hpod))
    atexit.register(shutil.rmtree, root, True)
    src, venv = os.path.join(root, "src"), os.path.join(root, "venv")
    shutil.copytree(PKG, src, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__"))
    py = base_python()
    rc, out = run([py, "-m", "venv", "--system-site-packages", venv], timeout=120)
    check(rc == 0, "%s -m venv exited %d:\n%s" % (py, rc, out[-2000:]))
    vpy = os.path.join(venv, "bin", "python")
    rc, out = run([vpy, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                   "--disable-pip-version-check", src], timeout=300)
    check(rc == 0, "pip install exited %d:\n%s" % (rc, out[-3000:]))
    return {"python": vpy, "dir": root, "venv": venv}


def venv_script(c, v, name, code, timeout=300):
    """Runs code with the venv's python, from the scratch directory (not
    the source tree: the installed package is the one imported), against
    the main server; returns the JSON its last output line holds."""
    path = os.path.join(v["dir"], name + ".py")
    with open(path, "w") as f:
        f.write(code)
    rc, out = run([v["python"], path], timeout=timeout,
                  env={"HPOD_URL": "http://127.0.0.1:%d" % c.port, "PYTHONPATH": ""})
    check(rc == 0, "%s exited %d:\n%s" % (name, rc, out[-3000:]))
    lines = out.strip().splitlines()
    check(lines, "%s printed nothing" % name)
    try:
        return json.loads(lines[-1])
    except ValueError:
        check(False, "%s did not end with a JSON line:\n%s" % (name, out[-2000:]))


@test("client: clients/python installs offline into a fresh venv (pip --no-index); hpod imports there with its version and py.typed; every file compiles (examples too); mypy --strict where mypy is")
def t_client_install(c):
    v = c.fixture("client_venv")
    rc, out = run([v["python"], "-c", "import hpod, os; print(hpod.__version__); "
                   "print(hpod.__file__); "
                   "print(os.path.isfile(os.path.join(os.path.dirname(hpod.__file__), 'py.typed')))"],
                  env={"PYTHONPATH": ""}, timeout=60)
    check(rc == 0, "import hpod in the venv exited %d:\n%s" % (rc, out[-2000:]))
    version, where, typed = out.split()
    src_init = open(os.path.join(PKG, "src", "hpod", "__init__.py")).read()
    m = re.search(r'^__version__ = "([^"]+)"$', src_init, re.M)
    check(m and version == m.group(1) == "0.2.0", "version %r, source says %r"
          % (version, m and m.group(1)))
    check(where.startswith(v["venv"] + os.sep), "hpod imported from %s, not the venv" % where)
    check(typed == "True", "py.typed was not installed")
    files = (glob.glob(os.path.join(PKG, "*.py")) + glob.glob(os.path.join(PKG, "src", "hpod", "*.py"))
             + glob.glob(os.path.join(PKG, "examples", "*.py")))
    check(len(files) >= 10, "clients/python files: %r" % files)
    for f in files:
        try:
            py_compile.compile(f, cfile=os.path.join(v["dir"], "pyc", os.path.basename(f) + "c"),
                               doraise=True)
        except py_compile.PyCompileError as e:
            check(False, "%s does not compile: %s" % (f, e))
    for f in glob.glob(os.path.join(PKG, "*.py")):
        check(os.access(f, os.X_OK) and open(f).readline().startswith("#!/usr/bin/env python3"),
              "%s is not an executable script" % f)
        rc, out = run([v["python"], f, "--help"], timeout=60)
        check(rc == 0 and "usage:" in out, "%s --help exited %d:\n%s" % (f, rc, out[-1000:]))
    # The type check: Debian's python3-mypy (scripts/deps.sh), seen through
    # --system-site-packages; skipped where there is no mypy.
    if run([v["python"], "-m", "mypy", "--version"], timeout=60)[0] == 0:
        rc, out = run([v["python"], "-m", "mypy", "--strict", "--python-version", "3.9",
                       "--cache-dir", os.path.join(v["dir"], "mypy-cache"),
                       os.path.join(PKG, "src", "hpod"), os.path.join(PKG, "examples", "preempt_demo.py")]
                      + sorted(glob.glob(os.path.join(PKG, "*.py"))),
                      timeout=300)
        check(rc == 0, "mypy --strict:\n%s" % out[-3000:])
    else:
        print("# client: no mypy here, type check not run", flush=True)


STUB = r'''
import http.server, json, os, threading
import hpod

seen = []
answers = [(503, b""), (503, b""), (200, b'{"studies": [], "total": 0, "limit": 5, "offset": 0}'),
           (422, b'{"error": {"code": "invalid_argument", "message": "bad lr", "field": "space[0].low"}}'),
           (404, b"<html>not json</html>")]

class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        seen.append([self.path, self.headers.get("Authorization")])
        status, body = answers.pop(0)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass

srv = http.server.HTTPServer(("127.0.0.1", 0), H)
threading.Thread(target=srv.serve_forever, daemon=True).start()
os.environ["HPOD_URL"] = "http://127.0.0.1:%d/" % srv.server_address[1]
os.environ["HPOD_TOKEN"] = "s3cret"
c = hpod.HpodClient(backoff=0.01)
out = {"url": c.url, "page": c.list_studies(name="a b", lab="mt", limit=5)}
errs = []
for _ in range(2):
    try:
        c.get_study(7)
    except hpod.HpodError as e:
        errs.append([e.status, e.code, e.message, e.field])
out["errors"] = errs
out["seen"] = seen
out["explicit"] = [hpod.HpodClient("http://h:1", token="").token,
                   hpod.HpodClient(token="t2").token]
os.environ.pop("HPOD_URL")
os.environ.pop("HPOD_TOKEN")
out["defaults"] = [hpod.HpodClient().url, hpod.HpodClient().token]
try:
    hpod.HpodClient("http://127.0.0.1:1", retries=1, backoff=0.01).get_study(1)
except hpod.HpodError as e:
    out["unreachable"] = [e.status, e.code]
print(json.dumps(out))
'''


@test("client: HPOD_URL and HPOD_TOKEN from the environment (Bearer header), arguments override; 503 retried; error JSON as HpodError(status, code, message, field)")
def t_client_config(c):
    v = c.fixture("client_venv")
    out = venv_script(c, v, "stub", STUB, timeout=120)
    check(out["page"]["total"] == 0, "answer %r" % short(out))
    check(out["url"].startswith("http://127.0.0.1:") and not out["url"].endswith("/"),
          "url %r" % out["url"])
    seen = out["seen"]
    check(len(seen) == 5, "requests %r (2 answers 503 retried, then 200, 422, 404)" % seen)
    check(all(a == "Bearer s3cret" for _, a in seen), "Authorization headers %r" % seen)
    q = seen[0][0]
    check(q.startswith("/v1/studies?") and sorted(q.split("?")[1].split("&")) ==
          ["lab=mt", "limit=5", "name=a+b"], "query %r" % q)
    check(seen[3][0] == "/v1/studies/7", "path %r" % seen[3][0])
    check(out["errors"] == [[422, "invalid_argument", "bad lr", "space[0].low"],
                            [404, "http_404", "<html>not json</html>", ""]],
          "errors %r" % out["errors"])
    check(out["explicit"] == [None, "t2"], "explicit %r" % out["explicit"])
    check(out["defaults"] == ["http://127.0.0.1:8080", None], "defaults %r" % out["defaults"])
    check(out["unreachable"] == [0, "unavailable"], "unreachable %r" % out.get("unreachable"))


RATE = r'''
import json, time, hpod
c = hpod.HpodClient(backoff=0.01, retries=8)
t0 = time.monotonic()
pages = [c.list_studies(limit=1)["total"] >= 0 for _ in range(6)]
print(json.dumps({"ok": pages, "seconds": time.monotonic() - t0}))
'''


@test("client: a 429 of the server's rate limit is retried after its Retry-After: 6 reads at 1/s (burst 2) all answer")
def t_client_rate_limited(c):
    v = c.fixture("client_venv")
    s = Server(c.args.hpod, c.logdir, c.dburl)
    s.extra_env = {"HPOD_RATE_PER_TOKEN": "1", "HPOD_RATE_BURST": "2"}
    c.servers.append(s)
    s.start()
    # The limit is real: without retries the third read in a row is a 429.
    statuses = [call(s.port, "GET", "/v1/studies?limit=1").status for _ in range(4)]
    check(429 in statuses, "4 reads at 1/s (burst 2): %r" % statuses)
    path = os.path.join(v["dir"], "rate.py")
    with open(path, "w") as f:
        f.write(RATE)
    rc, out = run([v["python"], path], timeout=120,
                  env={"HPOD_URL": "http://127.0.0.1:%d" % s.port, "PYTHONPATH": ""})
    check(rc == 0, "rate.py exited %d:\n%s" % (rc, out[-3000:]))
    got = json.loads(out.strip().splitlines()[-1])
    check(got["ok"] == [True] * 6, "answers %r" % got)
    # 6 reads, about 2 in the bucket when they start: the rest waited for it.
    check(got["seconds"] >= 2.0, "6 reads at 1/s took %.2f s: no 429 waited" % got["seconds"])
    s.stop()


@test("client: optimize_example.py with the venv's python: 20 trials by 2 workers, all completed, the best it prints is the server's; load_study finds the study by name")
def t_client_optimize_example(c):
    v = c.fixture("client_venv")
    rc, out = run([v["python"], os.path.join(PKG, "optimize_example.py"),
                   "--name", "client optimize example", "--n-trials", "20", "--workers", "2"],
                  env={"HPOD_URL": "http://127.0.0.1:%d" % c.port, "PYTHONPATH": ""},
                  timeout=300)
    check(rc == 0, "optimize_example exited %d:\n%s" % (rc, out[-3000:]))
    m = re.search(r"^study (\d+): ", out, re.M)
    check(m, "no study line:\n%s" % out[-2000:])
    sid = int(m.group(1))
    check(re.search(r"^summary: 20 completed, 0 pruned, 0 paused, 0 failed", out, re.M),
          "summary:\n%s" % out[-2000:])
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["name"] == "client optimize example" and st["state"] == "done"
          and st["trial_counts"]["completed"] == 20 and sum(st["trial_counts"].values()) == 20,
          "study %r %r" % (st["state"], st["trial_counts"]))
    trials = all_trials(c, sid)["trials"]
    workers = sorted({t["worker"] for t in trials})
    check(len(workers) == 2 and all(re.match(r"^.+-\d+-[01]$", w) for w in workers),
          "workers %r (expected <host>-<pid>-0 and -1)" % workers)
    for t in trials:
        x, y = t["params"]["x"], t["params"]["y"]
        check(t["values"] == {"loss": (x - 1.0) ** 2 + (y + 2.0) ** 2},
              "trial %d reported %r for %r" % (t["id"], t["values"], t["params"]))
    best = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)["trial"]
    m = re.search(r"^best trial (\d+) \(number \S+\): loss (\S+) ", out, re.M)
    check(m and int(m.group(1)) == best["id"]
          and abs(float(m.group(2)) - best["values"]["loss"]) <= 1e-5 * (1 + best["values"]["loss"]),
          "printed best %r, the server's %r" % (m and m.groups(), short(best)))
    # load_study finds it by name (through ?name= once the server filters;
    # until then by paging through every study), and says 404 for none.
    out = venv_script(c, v, "load", LOAD)
    check(out["id"] == sid and out["n"] == 20 and out["best"] == best["id"],
          "load_study: %r, expected study %d" % (out, sid))
    check(out["missing"][:2] == [404, "not_found"], "load_study of no study: %r" % out["missing"])


LOAD = r'''
import json
import hpod

s = hpod.load_study("client optimize example")
out = {"id": s.id, "n": len(s.trials("completed")), "best": s.best_trial.id}
try:
    hpod.load_study("client no such study")
except hpod.HpodError as e:
    out["missing"] = [e.status, e.code, e.field]
print(json.dumps(out))
'''


SLOW = r'''
import json, time
import hpod

study = hpod.create_study({"name": "client slow trial", "lease_seconds": 2, "budget": 1,
                           "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                           "objectives": [{"name": "loss", "goal": "minimize"}]})
def slow(trial):
    time.sleep(5)
    return 0.5 + trial.params["x"]
s = study.optimize(slow, n_workers=1, worker="slow-worker")
print(json.dumps({"study": study.id, "summary": s.as_dict(), "ids": s.trial_ids}))
'''


@test("client: heartbeats every lease_seconds/3 keep a trial that runs 5 s on a 2 s lease alive; it completes")
def t_client_heartbeat(c):
    v = c.fixture("client_venv")
    out = venv_script(c, v, "slow", SLOW)
    check(out["summary"] == dict(NONE, completed=1), "summary %r" % out)
    trials = all_trials(c, out["study"])["trials"]
    check(len(trials) == 1, "%d trials (an expired lease would issue another)" % len(trials))
    t = trials[0]
    # The reaper (HPOD_REAPER_MS, 1 s) fails a trial whose lease lapsed.
    check(t["state"] == "completed" and t["reason"] is None and t["worker"] == "slow-worker"
          and t["values"] == {"loss": 0.5 + t["params"]["x"]}, "trial %r" % short(t))


ASHA = r'''
import json, threading
import hpod

R = 4
study = hpod.create_study({
    "name": "client asha", "space": [{"name": "x", "type": "int", "values": list(range(12))}],
    "candidates": [{"x": x} for x in range(12)],
    "objectives": [{"name": "loss", "goal": "minimize"}],
    "algorithm": {"name": "asha", "r": 1, "u": 1, "R": R, "p": 2, "keep": 1, "seed": 5}})
lock = threading.Lock()
seen = {"pruned": [], "resumed": [], "steps": [], "asked": []}

def fn(trial):
    x = trial.params["x"]
    if trial.resume_from_step:
        with lock:
            seen["resumed"].append([trial.id, trial.resume_from_step])
    for step in range(trial.resume_from_step + 1, R + 1):
        if x % 2:  # both styles: report raises, or should_prune() asks
            try:
                trial.report(x + 1.0 / step, step)
            except hpod.TrialPruned:
                with lock:
                    seen["pruned"].append([trial.id, step])
                raise
        elif trial.report(x + 1.0 / step, step, prune=False) != "continue" or trial.should_prune():
            with lock:
                seen["pruned"].append([trial.id, step])
                seen["asked"].append(trial.id)
            raise hpod.TrialPruned()
        with lock:
            seen["steps"].append([trial.id, step])
    return x + 1.0 / R

s = study.optimize(fn, n_trials=60, n_workers=2, worker="asha")
print(json.dumps({"study": study.id, "summary": s.as_dict(), "seen": seen}))
'''


@test("client: on an asha study trial.report(value, step) raises TrialPruned when the server answers stop; no final report follows, the trial stays paused/pruned; the summary counts pauses apart from prunes, as the server does")
def t_client_asha(c):
    v = c.fixture("client_venv")
    out = venv_script(c, v, "asha", ASHA)
    seen, summary = out["seen"], out["summary"]
    trials = {t["id"]: t for t in all_trials(c, out["study"])["trials"]}
    # One count per trial, by its last outcome: what the server holds
    # (a paused trial that a promotion resumed counts as what it ended as).
    states = {k: sum(t["state"] == k for t in trials.values()) for k in NONE}
    check(seen["pruned"] and summary == states and summary["completed"] >= 1
          and summary["paused"] + summary["pruned"] >= 1,
          "summary %r, the server's states %r, fn saw %d stops"
          % (summary, states, len(seen["pruned"])))
    stopped = [t for t in trials.values() if t["state"] in ("paused", "pruned")]
    check(stopped, "no trial paused or pruned: %r" % sorted(t["state"] for t in trials.values()))
    last_stop = {}
    for tid, step in seen["pruned"]:
        last_stop[tid] = max(step, last_stop.get(tid, 0))
    for t in stopped:
        check(t["id"] in last_stop, "trial %d is %s but fn never saw TrialPruned"
              % (t["id"], t["state"]))
        check(t["values"] == {} and max(iv["step"] for iv in t["intermediate"]) == last_stop[t["id"]],
              "stopped trial %r got values or steps after the stop %d" % (short(t), last_stop[t["id"]]))
    done = [t for t in trials.values() if t["state"] == "completed"]
    check(len(done) == summary["completed"] - 0 and all(
        t["values"] == {"loss": t["params"]["x"] + 0.25} for t in done),
        "completed trials %r, summary %r" % ([short(t, 120) for t in done], summary))
    check(not [t for t in trials.values() if t["state"] == "failed"], "failed trials")
    asked = set(out["seen"]["asked"])
    check(asked and len(asked) < len(last_stop),
          "stops seen through should_prune() %r, through TrialPruned %r"
          % (sorted(asked), sorted(set(last_stop) - asked)))


FAIL = r'''
import json
import hpod

space = [{"name": "x", "type": "float", "low": 0, "high": 1}]
obj = [{"name": "loss", "goal": "minimize"}]
a = hpod.create_study({"name": "client catch", "space": space, "objectives": obj, "budget": 4})
calls = []
def flaky(trial):
    calls.append(trial.id)
    if len(calls) == 2:
        raise ValueError("boom on the second call")
    return trial.params["x"]
sa = a.optimize(flaky, n_workers=1, catch=(ValueError,))

b = hpod.create_study({"name": "client raise", "space": space, "objectives": obj, "budget": 4})
def broken(trial):
    raise RuntimeError("broken trainer")
raised = None
try:
    b.optimize(broken, n_workers=2)
except RuntimeError as e:
    raised = str(e)
print(json.dumps({"a": a.id, "sa": sa.as_dict(), "bad": calls[1], "b": b.id, "raised": raised}))
'''


@test("client: an exception from fn fails its trial (reason names it); in catch the loop goes on, otherwise optimize re-raises it once the workers stop")
def t_client_fail(c):
    v = c.fixture("client_venv")
    out = venv_script(c, v, "fail", FAIL)
    check(out["sa"] == dict(NONE, completed=3, failed=1), "summary %r" % out)
    ta = {t["id"]: t for t in all_trials(c, out["a"])["trials"]}
    check(len(ta) == 4 and ta[out["bad"]]["state"] == "failed"
          and ta[out["bad"]]["reason"] == "ValueError: boom on the second call",
          "study a: %r" % short(list(ta.values()), 1200))
    check(sum(t["state"] == "completed" for t in ta.values()) == 3, "study a: 3 completed")
    check(out["raised"] == "broken trainer", "optimize raised %r" % out["raised"])
    tb = all_trials(c, out["b"])["trials"]
    # Two workers: each ran at most one trial before stopping.
    check(1 <= len(tb) <= 2 and all(t["state"] == "failed" and
                                   t["reason"] == "RuntimeError: broken trainer" for t in tb),
          "study b: %r" % short(tb, 1200))


BOUNDED = r'''
import json, threading, time
import hpod

study = hpod.create_study({"name": "client n_trials", "budget": 10,
                           "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                           "objectives": [{"name": "loss", "goal": "minimize"}]})
calls = []
lock = threading.Lock()
def fn(trial):
    with lock:
        calls.append(trial.id)
    time.sleep(0.2)
    return {"loss": trial.params["x"]}
s = study.optimize(fn, n_trials=3, n_workers=2, worker="bounded")
print(json.dumps({"study": study.id, "summary": s.as_dict(), "calls": calls, "ids": s.trial_ids}))
'''


@test("client: optimize(n_trials=3, n_workers=2) calls fn 3 times in all and leaves the rest of the budget; a dict result is reported as is")
def t_client_n_trials(c):
    v = c.fixture("client_venv")
    out = venv_script(c, v, "bounded", BOUNDED)
    check(out["summary"] == dict(NONE, completed=3) and len(out["calls"]) == 3
          and sorted(out["calls"]) == sorted(out["ids"]), "run %r" % out)
    trials = all_trials(c, out["study"])["trials"]
    check(sorted(t["id"] for t in trials) == sorted(out["calls"])
          and all(t["state"] == "completed" and t["values"] == {"loss": t["params"]["x"]}
                  for t in trials), "trials %r" % short(trials, 1000))
    check({t["worker"] for t in trials} <= {"bounded-0", "bounded-1"},
          "workers %r" % sorted({t["worker"] for t in trials}))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % out["study"]), 200)
    check(st["state"] == "active", "study %r after 3 of 10 trials" % st["state"])
