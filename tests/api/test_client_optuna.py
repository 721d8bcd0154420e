"""tests/api/test_client_optuna.py - the Python client's Optuna-style API
(clients/python), run with the venv's python of test_client.py against
this suite's server: suggest_* in the objective (answered locally on a
declared space, asked of the server define-by-run), NaN and exceptions
in catch, report(value, step) and TrialDiverged, ask/tell, best_*,
trials_dataframe, callbacks, timeout, study.stop(), set_user_attr, the
SIGTERM handler of optimize, preemption with checkpoints (SIGTERM and
SIGKILL), and the PyTorch example.

What needs routes the server may not have yet (POST /v1/trials/{id}/params,
/preempt, "checkpoint" in reports) is looked up in the server's own
/openapi.json, and the test says `skip` with the reason when it is absent.
"""

import json
import math
import os
import signal
import subprocess
import time

from harness import Skip, call, check, expect, short, test
from client import all_trials, get_trial
from test_client import NONE, PKG, run, venv_script


def spec(c):
    return expect(call(c.port, "GET", "/openapi.json"), 200)


def need_routes(c, *paths):
    """Skip unless the server's spec has every path."""
    missing = [p for p in paths if p not in spec(c)["paths"]]
    if missing:
        raise Skip("the server has no %s yet" % ", ".join(missing))


def need_checkpoints(c):
    props = spec(c)["components"]["schemas"]["ReportRequest"].get("properties", {})
    if "checkpoint" not in props:
        raise Skip("the server's reports take no \"checkpoint\" yet")


# The objective: a conditional branch (momentum only for sgd),
# numeric choices, one NaN (trial number 3) and one exception in catch
# (trial number 7); 20 trials by 2 workers. DECLARED: the same space given
# up front (without a condition, which a server may not know: momentum
# simply goes unused for adam), answered locally.
OBJECTIVE = r'''
import json, math, sys, threading
import hpod

declared = sys.argv[1] == "declared"
space = [{"name": "optimizer", "type": "categorical", "choices": ["sgd", "adam"]},
         {"name": "lr", "type": "float", "low": 1e-4, "high": 1.0, "log": True},
         {"name": "momentum", "type": "float", "low": 0.0, "high": 0.99},
         {"name": "batch_size", "type": "int", "values": [16, 32, 64]}]
study = hpod.create_study(name=sys.argv[2], direction="minimize", metric_names=["loss"],
                          space=space if declared else None, budget=20,
                          algorithm={"name": "random", "seed": 4})
lock = threading.Lock()
seen = []

def objective(trial):
    opt = trial.suggest_categorical("optimizer", ["sgd", "adam"])
    lr = trial.suggest_float("lr", 1e-4, 1.0, log=True)
    momentum = trial.suggest_float("momentum", 0.0, 0.99) if opt == "sgd" else 0.0
    bs = trial.suggest_categorical("batch_size", [16, 32, 64])
    with lock:
        seen.append([trial.id, trial.number, type(bs).__name__, trial.params])
    if trial.number == 3:
        return float("nan")
    if trial.number == 7:
        raise RuntimeError("CUDA out of memory")
    return (math.log10(lr) + 2) ** 2 + momentum + bs / 64.0

ends = []
def callback(st, ft):
    with lock:
        ends.append([ft.id, ft.state, ft.reason])

s = study.optimize(objective, n_workers=2, catch=(RuntimeError,), callbacks=[callback])
best = study.best_trial
print(json.dumps({"study": study.id, "summary": s.as_dict(), "seen": seen, "ends": ends,
                  "best": [best.id, best.params, best.value], "best_params": study.best_params,
                  "best_value": study.best_value, "rows": study.trials_dataframe()}))
'''


def check_objective_run(c, out, declared):
    """The checks of the issue's acceptance, on the run OBJECTIVE printed."""
    check(out["summary"] == dict(NONE, completed=18, failed=2), "summary %r" % out["summary"])
    trials = {t["id"]: t for t in all_trials(c, out["study"])["trials"]}
    check(len(trials) == 20, "%d trials" % len(trials))
    by_number = {t["number"]: t for t in trials.values()}
    check(by_number[3]["state"] == "failed" and by_number[3]["reason"] == "objective returned nan",
          "trial number 3: %r" % short(by_number[3]))
    check(by_number[7]["state"] == "failed"
          and by_number[7]["reason"] == "RuntimeError: CUDA out of memory",
          "trial number 7: %r" % short(by_number[7]))
    check(sum(t["state"] == "completed" for t in trials.values()) == 18, "18 completed")
    for t in trials.values():
        p = t["params"]
        if t["state"] == "completed":
            want = ((math.log10(p["lr"]) + 2) ** 2
                    + (p["momentum"] if p["optimizer"] == "sgd" else 0.0)
                    + p["batch_size"] / 64.0)
            check(abs(t["values"]["loss"] - want) <= 1e-9 * (1 + abs(want)),
                  "trial %d reported %r for %r" % (t["id"], t["values"], p))
        if not declared:
            # Define-by-run: only what the objective asked for is a param.
            keys = {"optimizer", "lr", "batch_size"} | (
                {"momentum"} if p.get("optimizer") == "sgd" else set())
            check(set(p) == keys, "trial %d params %r: momentum is sgd's only" % (t["id"], p))
        check(isinstance(p["batch_size"], int) and p["batch_size"] in (16, 32, 64),
              "batch_size %r read back untyped" % (p["batch_size"],))
    check(all(kind == "int" for _, _, kind, _ in out["seen"]), "suggest_categorical answered %r"
          % sorted({k for _, _, k, _ in out["seen"]}))
    for tid, _, _, params in out["seen"]:
        check(trials[tid]["params"] == params, "trial %d: the objective saw %r, the server "
              "holds %r" % (tid, params, trials[tid]["params"]))
    best = expect(call(c.port, "GET", "/v1/studies/%d/best" % out["study"]), 200)["trial"]
    check(out["best"][0] == best["id"] and out["best_params"] == best["params"]
          and out["best_value"] == best["values"]["loss"] == out["best"][2],
          "best_params %r / best_value %r, the server's best %r"
          % (out["best_params"], out["best_value"], short(best)))
    done = [t for t in trials.values() if t["state"] == "completed"]
    check(best["values"]["loss"] == min(t["values"]["loss"] for t in done), "best is not min")
    ends = {tid: (state, reason) for tid, state, reason in out["ends"]}
    check(len(out["ends"]) == 20 and all(ends[t["id"]] == (t["state"], t["reason"])
                                         for t in trials.values()),
          "callbacks saw %r" % out["ends"])
    rows = out["rows"]
    check(isinstance(rows, list) and [r["number"] for r in rows] == list(range(20))
          and all(r["value"] == trials[r["id"]]["values"].get("loss") and
                  r["params_lr"] == trials[r["id"]]["params"]["lr"] and
                  r["state"] == trials[r["id"]]["state"] for r in rows),
          "trials_dataframe (no pandas here: a list of dicts) %r" % short(rows, 600))


@test("client: an Optuna-style objective on a declared space (suggest_* answered from the trial's params, a conditional branch, numeric choices): 20 trials, a NaN and a caught exception fail with their reasons, 18 completed, best_params/best_value the server's best, callbacks and trials_dataframe agree")
def t_client_objective_declared(c):
    v = c.fixture("client_venv")
    out = venv_script(c, v, "objective_declared", OBJECTIVE.replace(
        "sys.argv[1]", "'declared'").replace("sys.argv[2]", "'client objective declared'"))
    check_objective_run(c, out, True)


@test("client: define-by-run (the issue's acceptance): a study without a space, the objective's suggest_* calls define it, momentum only for sgd: 20 trials, a NaN and a caught exception fail with their reasons, 18 completed, inactive parameters absent, best_params right")
def t_client_objective_define_by_run(c):
    need_routes(c, "/v1/trials/{id}/params")
    v = c.fixture("client_venv")
    out = venv_script(c, v, "objective_dbr", OBJECTIVE.replace(
        "sys.argv[1]", "'define-by-run'").replace("sys.argv[2]", "'client objective dbr'"))
    check_objective_run(c, out, False)
    st = expect(call(c.port, "GET", "/v1/studies/%d" % out["study"]), 200)
    check(sorted(p["name"] for p in st["space"]) == ["batch_size", "lr", "momentum", "optimizer"],
          "the study's space %r" % st["space"])


REPORTS = r'''
import json
import hpod

study = hpod.create_study(name="client reports", direction="maximize", budget=4,
                          space=[{"name": "x", "type": "float", "low": 0, "high": 1}])
out = {"errors": []}
def fn(trial):
    if trial.number == 0:
        trial.report(0.5, 1)
        trial.report({"value": 0.75}, 2)
        try:
            trial.report(1, 0.5)
        except TypeError as e:
            out["errors"].append(str(e))
        try:
            trial.suggest_float("x", 2, 3)   # the trial's x is in [0, 1]
        except ValueError as e:
            out["errors"].append(str(e))
        return 0.75
    if trial.number == 1:
        trial.report(0.5, 1)
        trial.report(float("nan"), 2)
    if trial.number == 2:
        raise hpod.TrialPruned()
    return float("-inf")
s = study.optimize(fn, n_workers=1)
out.update(study=study.id, summary=s.as_dict())
print(json.dumps(out))
'''


@test("client: trial.report(value, step) in Optuna's order (a non-integer step is a TypeError); NaN at a step fails the trial (objective reported nan at step 2), -inf returned fails it; TrialPruned without a stop fails it; a declared value outside the range asked is a ValueError")
def t_client_reports(c):
    v = c.fixture("client_venv")
    out = venv_script(c, v, "reports", REPORTS)
    check(out["summary"] == dict(NONE, completed=1, failed=3), "summary %r" % out["summary"])
    check(len(out["errors"]) == 2 and "step must be an integer" in out["errors"][0]
          and "not in [2.0, 3.0]" in out["errors"][1], "errors %r" % out["errors"])
    t = {x["number"]: x for x in all_trials(c, out["study"])["trials"]}
    check([(iv["step"], iv["values"]) for iv in t[0]["intermediate"]]
          == [(1, {"value": 0.5}), (2, {"value": 0.75})] and t[0]["values"] == {"value": 0.75},
          "trial 0 %r" % short(t[0]))
    for n, reason in ((1, "objective reported nan at step 2"),
                      (2, "pruned by the objective function"), (3, "objective returned -inf")):
        check(t[n]["state"] == "failed" and t[n]["reason"] == reason,
              "trial number %d: %r, expected failed with %r" % (n, short(t[n]), reason))
    check([iv["step"] for iv in t[1]["intermediate"]] == [1], "trial 1 steps %r" % t[1])


ASKTELL = r'''
import json
import hpod

s = hpod.create_study(name="client ask tell", direction="minimize", budget=4,
                      space=[{"name": "x", "type": "float", "low": -1, "high": 1}])
a, b = s.ask(), s.ask()
out = {"ids": [a.id, b.id], "workers": [a.worker, b.worker]}
x = a.suggest_float("x", -1, 1)
out["a"] = s.tell(a, x * x).data
out["b"] = s.tell(b, float("inf")).data
cc = s.ask()
out["c"] = s.tell(cc, state="failed", reason="out of disk").data
d = s.ask()
out["d"] = s.tell(d, state="pruned").data
try:
    s.ask()
except hpod.StudyDone as e:
    out["done"] = str(e)
out["best"] = [s.best_trial.id, s.best_value, s.best_params]
for bad in ({"state": "bogus"}, {}):
    try:
        s.tell(a, **bad)
    except ValueError as e:
        out.setdefault("bad", []).append(str(e))

m = hpod.create_study(name="client ask tell mo", directions=["minimize", "maximize"],
                      metric_names=["err", "speed"], budget=5,
                      space=[{"name": "x", "type": "float", "low": 0, "high": 1}])
m.optimize(lambda t: [t.params["x"], t.params["x"] ** 0.5 + (0.3 if t.number == 2 else 0)])
out["mo"] = m.id
out["front"] = sorted(t.id for t in m.best_trials)
out["front_values"] = {t.id: t.values for t in m.best_trials}
try:
    m.best_trial
except RuntimeError as e:
    out["mo_best"] = str(e)
print(json.dumps(out))
'''


@test("client: ask/tell: each ask a new trial under its own worker name; tell(value) completes, inf fails (objective returned inf), state=failed with a reason, state=pruned fails (no stop came); StudyDone at the budget; best_*; best_trials of two objectives is the server's Pareto front")
def t_client_ask_tell(c):
    v = c.fixture("client_venv")
    out = venv_script(c, v, "asktell", ASKTELL)
    check(out["ids"][0] != out["ids"][1] and out["workers"][0] != out["workers"][1],
          "two asks: %r %r" % (out["ids"], out["workers"]))
    a = out["a"]
    check(a["state"] == "completed" and a["values"] == {"value": a["params"]["x"] ** 2},
          "a %r" % short(a))
    for k, reason in (("b", "objective returned inf"), ("c", "out of disk"),
                      ("d", "pruned by the objective function")):
        check(out[k]["state"] == "failed" and out[k]["reason"] == reason, "%s %r" % (k, out[k]))
    check("no more trials" in out.get("done", ""), "ask at the budget: %r" % out.get("done"))
    check(out["best"] == [a["id"], a["values"]["value"], a["params"]], "best %r" % out["best"])
    check(len(out["bad"]) == 2, "bad tells %r" % out["bad"])
    front = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % out["mo"]), 200)["front"]
    check(out["front"] == sorted(p["trial"] for p in front), "best_trials %r, front %r"
          % (out["front"], front))
    for p in front:
        check(out["front_values"][str(p["trial"])] == [p["values"]["err"], p["values"]["speed"]],
              "values %r vs %r" % (out["front_values"], p))
    check("use best_trials" in out.get("mo_best", ""), "best_trial of 2 objectives: %r" % out)


LOOP = r'''
import json, time, threading
import hpod

space = [{"name": "x", "type": "float", "low": 0, "high": 1}]
a = hpod.create_study(name="client timeout", space=space)
t0 = time.monotonic()
def slow(trial):
    time.sleep(0.3)
    trial.set_user_attr("slept", 0.3)
    trial.set_user_attr("host", "here")
    return trial.params["x"]
sa = a.optimize(slow, timeout=1.0, n_workers=2)
elapsed = time.monotonic() - t0

b = hpod.create_study(name="client stop", space=space)
seen = []
def cb(study, ft):
    seen.append(ft.number)
    if len(seen) == 3:
        study.stop()
sb = b.optimize(lambda t: t.params["x"], callbacks=[cb])
print(json.dumps({"a": a.id, "sa": sa.as_dict(), "elapsed": elapsed, "b": b.id,
                  "sb": sb.as_dict(), "seen": seen,
                  "attrs": [t.user_attrs for t in a.get_trials()]}))
'''


@test("client: optimize(timeout=1) starts no trial after 1 s (running ones finish); a callback's study.stop() ends the loop; set_user_attr writes the trial's metadata")
def t_client_loop_controls(c):
    v = c.fixture("client_venv")
    out = venv_script(c, v, "loop", LOOP)
    n = out["sa"]["completed"]
    # Two workers, 0.3 s a trial, none started after 1 s: at most 2 * 4.
    check(2 <= n <= 8 and out["sa"] == dict(NONE, completed=n), "timeout run %r" % out["sa"])
    ta = all_trials(c, out["a"])["trials"]
    check(len(ta) == n and all(t["state"] == "completed" for t in ta), "study a %r" % short(ta))
    check(all(t["metadata"] == {"slept": 0.3, "host": "here"} for t in ta)
          and out["attrs"] == [t["metadata"] for t in ta], "metadata %r" % out["attrs"])
    check(out["sb"] == dict(NONE, completed=3) and out["seen"] == [0, 1, 2],
          "stop from a callback: %r, callbacks saw %r" % (out["sb"], out["seen"]))
    check(len(all_trials(c, out["b"])["trials"]) == 3, "study b ran more than 3 trials")


SIGTERM = r'''
import json, os, signal, sys, time
import hpod

mode, name = sys.argv[1], sys.argv[2]
study = hpod.create_study(name=name, space=[{"name": "x", "type": "float", "low": 0, "high": 1}],
                          budget=4, lease_seconds=int(sys.argv[3]))
calls = []
if mode == "chain":
    signal.signal(signal.SIGTERM, lambda s, f: calls.append(s))
before = signal.getsignal(signal.SIGTERM)
inside = []
checkpoint = None if sys.argv[4] == "none" else sys.argv[4]

def fn(trial):
    inside.append(signal.getsignal(signal.SIGTERM) is not before)
    trial.report(0.5, 1, checkpoint=checkpoint)
    trial.report(0.25, 2, checkpoint=checkpoint and checkpoint + "/2")
    print(json.dumps({"study": study.id, "trial": trial.id}), flush=True)
    for step in range(3, 600):   # until a signal comes
        time.sleep(0.05)
        trial.report(0.1, step)
    return 0.0

s = study.optimize(fn, n_trials=1, worker=mode + "-worker")
print(json.dumps({"summary": s.as_dict(), "calls": calls, "inside": inside,
                  "restored": signal.getsignal(signal.SIGTERM) is before}), flush=True)
'''


def start_worker(c, v, mode, name, lease=60, checkpoint="none"):
    """The SIGTERM script in its own process; answers (process, its first
    JSON line: study and trial, once it reported steps 1 and 2)."""
    path = os.path.join(v["dir"], "sigterm.py")
    with open(path, "w") as f:
        f.write(SIGTERM)
    p = subprocess.Popen([v["python"], path, mode, name, str(lease), checkpoint],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL,
                         env=dict(os.environ, HPOD_URL="http://127.0.0.1:%d" % c.port,
                                  PYTHONPATH=""))
    line = p.stdout.readline().decode()
    if not line:
        p.kill()
        check(False, "the worker printed nothing: %s" % p.stderr.read().decode()[-2000:])
    return p, json.loads(line)


@test("client: optimize's SIGTERM handler: installed only while optimize runs (the previous one is back after), chains a Python handler (the loop then ends, the trial counted preempted), and with the default handler the process ends by SIGTERM after saying which trial it handed back")
def t_client_sigterm_handler(c):
    v = c.fixture("client_venv")
    p, first = start_worker(c, v, "chain", "client sigterm chain")
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    check(p.returncode == 0, "chain worker exited %s:\n%s" % (p.returncode, err.decode()[-2000:]))
    got = json.loads(out.decode().strip().splitlines()[-1])
    check(got["calls"] == [signal.SIGTERM] and got["inside"] == [True] and got["restored"]
          and got["summary"] == dict(NONE, preempted=1),
          "chained handler: %r" % got)
    check(("SIGTERM" in err.decode() and "trial %d" % first["trial"] in err.decode()),
          "the worker said nothing of trial %d:\n%s" % (first["trial"], err.decode()[-2000:]))
    p, first = start_worker(c, v, "default", "client sigterm default")
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    check(p.returncode == -signal.SIGTERM, "default worker exited %s, not by SIGTERM:\n%s"
          % (p.returncode, err.decode()[-2000:]))
    check(time.monotonic() - t0 < 30, "SIGTERM took %.1f s" % (time.monotonic() - t0))
    check("trial %d" % first["trial"] in err.decode(), "stderr %r" % err.decode()[-2000:])


RESUME = r'''
import json, sys
import hpod

study = hpod.load_study(sys.argv[1])
seen = []
def fn(trial):
    seen.append({"id": trial.id, "number": trial.number, "params": trial.params,
                 "resume_from_step": trial.resume_from_step, "checkpoint": trial.checkpoint})
    trial.report(0.05, trial.resume_from_step + 1)
    return 0.0
s = study.optimize(fn, n_trials=1, worker=sys.argv[2])
print(json.dumps({"seen": seen, "summary": s.as_dict()}))
'''


@test("client: preemption end to end: a worker killed with SIGTERM mid-trial hands its trial back (preempt), one killed with SIGKILL loses its lease; other workers get both trials (same id, number, params) with resume_from_step and checkpoint, each counted once in the budget")
def t_client_preempt(c):
    need_routes(c, "/v1/trials/{id}/preempt")
    need_checkpoints(c)
    v = c.fixture("client_venv")
    path = os.path.join(v["dir"], "resume.py")
    with open(path, "w") as f:
        f.write(RESUME)
    for sig, lease in ((signal.SIGTERM, 60), (signal.SIGKILL, 2)):
        name = "client preempt %s" % signal.Signals(sig).name
        p, first = start_worker(c, v, "default", name, lease=lease, checkpoint="s3://b/run")
        before = get_trial(c, first["trial"])
        p.send_signal(sig)
        p.communicate(timeout=60)
        check(p.returncode == -sig, "%s: the worker exited %s" % (name, p.returncode))
        # Handed back at once (SIGTERM), or once its lease lapsed (SIGKILL):
        # before that the server cannot know the worker is gone, and the
        # resumer would rightly be given new work.
        deadline = time.monotonic() + 30
        while get_trial(c, first["trial"])["state"] != "waiting":
            check(time.monotonic() < deadline, "%s: the trial never went back to the queue: %r"
                  % (name, short(get_trial(c, first["trial"]))))
            time.sleep(0.2)
        rc, out = run([v["python"], path, name, "resumer"], timeout=120,
                      env={"HPOD_URL": "http://127.0.0.1:%d" % c.port, "PYTHONPATH": ""})
        check(rc == 0, "%s: the resumer exited %d:\n%s" % (name, rc, out[-2000:]))
        got = json.loads(out.strip().splitlines()[-1])
        seen = got["seen"]
        check(len(seen) == 1, "%s: the resumer ran %r" % (name, seen))
        s = seen[0]
        last = max(iv["step"] for iv in before["intermediate"])
        check(s["id"] == first["trial"] and s["number"] == before["number"]
              and s["params"] == before["params"] and s["resume_from_step"] == last
              and s["checkpoint"] == "s3://b/run/2",
              "%s: the resumer got %r; the trial was %r" % (name, s, short(before)))
        t = get_trial(c, first["trial"])
        check(t["state"] == "completed" and t["worker"] == "resumer"
              and [iv["step"] for iv in t["intermediate"]][-1] == last + 1,
              "%s: trial %r" % (name, short(t)))
        trials = all_trials(c, t["study_id"])["trials"]
        check(len(trials) == 1, "%s: %d trials (counted once?)" % (name, len(trials)))


@test("client: examples/torch_digits.py (PyTorch, define-by-run, ASHA, checkpoints) runs a small study to the end with the venv's python")
def t_client_torch(c):
    v = c.fixture("client_venv")
    rc, out = run([v["python"], "-c", "import torch, sklearn"], timeout=120)
    if rc != 0:
        raise Skip("no torch and sklearn for %s (python3-torch python3-sklearn: "
                   "scripts/deps.sh bench)" % v["python"])
    need_routes(c, "/v1/trials/{id}/params", "/v1/trials/{id}/preempt")
    need_checkpoints(c)
    ckpt = os.path.join(v["dir"], "torch-checkpoints")
    rc, out = run([v["python"], os.path.join(PKG, "examples", "torch_digits.py"),
                   "--study", "client torch", "--checkpoints", ckpt, "--budget", "4",
                   "--epochs", "4", "--workers", "2"],
                  env={"HPOD_URL": "http://127.0.0.1:%d" % c.port, "PYTHONPATH": ""},
                  timeout=600)
    check(rc == 0, "torch_digits exited %d:\n%s" % (rc, out[-3000:]))
    sid = int(out.split("study ", 1)[1].split(":", 1)[0])
    trials = all_trials(c, sid)["trials"]
    check(len(trials) == 4 and all(t["state"] in ("completed", "paused", "pruned")
                                   for t in trials), "trials %r" % short(trials, 1500))
    for t in trials:
        for iv in t["intermediate"]:
            f = os.path.join(ckpt, "trial-%d" % t["id"], "epoch-%d.pt" % iv["step"])
            check(os.path.isfile(f), "no checkpoint %s" % f)
    check("best trial" in out, "no best trial printed:\n%s" % out[-2000:])
