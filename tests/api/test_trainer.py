"""tests/api/test_trainer.py - the trainer's real life (issue 29):
checkpoints in intermediate reports, preemption (POST /v1/trials/{id}/
preempt, and a lapsed lease on a trial with a checkpoint) handing the same
trial to the next worker, counted once in the budget; excluded trials
(exclude/restore) leaving best, pareto and the model, whose next choice
equals the same study's without the trial; failure reasons in the JSON,
the CSV and the 409 of a later report; categorical choices that are
numbers or booleans, read back with their type everywhere; conditional
spaces (cycles refused, inactive parameters never appear); define-by-run
(POST /v1/trials/{id}/params on a study created with an empty space).
"""

import threading
import time

from harness import Server, call, check, expect, expect_error, short, test
from client import all_trials, create, get_trial, report, suggest, uname

X1 = [{"name": "x", "type": "float", "low": 0.0, "high": 1.0}]
LOSS = [{"name": "loss", "goal": "minimize"}]


def step(c, tid, k, loss, checkpoint=None, status=200, port=None):
    body = {"values": {"loss": loss}, "step": k}
    if checkpoint is not None:
        body["checkpoint"] = checkpoint
    return expect(call(port or c.port, "POST", "/v1/trials/%d/report" % tid, body), status)


def preempt(c, tid, reason=None, status=200, port=None):
    body = {} if reason is None else {"reason": reason}
    return expect(call(port or c.port, "POST", "/v1/trials/%d/preempt" % tid, body), status)


def counts(c, sid):
    return expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)["trial_counts"]


def check_resumed(t, first, worker, step_, checkpoint):
    """t is trial first handed out again to worker, to resume from step_
    with checkpoint."""
    for k in ("id", "number", "params", "study_id"):
        check(t[k] == first[k], "%s %r, was %r" % (k, t[k], first[k]))
    check(t["state"] == "pending" and t["worker"] == worker and t["reason"] is None
          and t["lease_expires_at"] is not None, "resumed trial %r" % short(t))
    check(t.get("resume_from_step") == step_, "resume_from_step %r, want %r"
          % (t.get("resume_from_step"), step_))
    check(t.get("checkpoint") == checkpoint, "checkpoint %r, want %r"
          % (t.get("checkpoint"), checkpoint))


@test("trainer: preempt hands the same trial (id, params, step, checkpoint) to another worker before new work, once in the budget")
def t_preempt(c):
    sid = create(c, {"name": uname("preempt"), "space": X1, "objectives": LOSS, "budget": 3,
                     "algorithm": {"name": "random", "seed": 3}})["id"]
    t0 = suggest(c, sid, "node-a")["trials"][0]
    r = step(c, t0["id"], 1, 0.9, "s3://b/run7/step1")
    check(r["trial"]["intermediate"][0].get("checkpoint") == "s3://b/run7/step1",
          "step 1 as stored %r" % r["trial"]["intermediate"])
    step(c, t0["id"], 2, 0.8, "s3://b/run7/step2")
    # The last reported step has no checkpoint: the trial resumes from its
    # step 3 with the last checkpoint reported (step 2's).
    step(c, t0["id"], 3, 0.7)
    check(get_trial(c, t0["id"]).get("checkpoint") == "s3://b/run7/step2",
          "a running trial's checkpoint %r" % get_trial(c, t0["id"]).get("checkpoint"))
    p = preempt(c, t0["id"], "slurm preemption")["trial"]
    check(p["state"] == "waiting" and p["worker"] == "" and p["lease_expires_at"] is None
          and p["reason"] == "preempted: slurm preemption", "preempted trial %r" % short(p))
    check(p["resume_from_step"] == 3 and p["checkpoint"] == "s3://b/run7/step2",
          "preempted trial resumes from %r, %r" % (p.get("resume_from_step"), p.get("checkpoint")))
    # Idempotent; the old worker's reports and heartbeats are refused.
    again = preempt(c, t0["id"], "slurm preemption")["trial"]
    check(again == p, "a second preempt changed the trial: %r" % short(again))
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % t0["id"],
                      {"values": {"loss": 0.6}, "step": 4}), 409, "conflict")
    expect_error(call(c.port, "POST", "/v1/trials/%d/heartbeat" % t0["id"], {}), 409, "conflict")
    # A step already recorded still answers as before.
    check(step(c, t0["id"], 3, 0.7)["action"] == "continue", "a repeated step")
    k = counts(c, sid)
    check(k["waiting"] == 1 and k["running"] == 0 and k["pending"] == 0, "counts %r" % k)

    got = suggest(c, sid, "node-b", count=2)["trials"]
    check(len(got) == 2, "node-b got %d trials" % len(got))
    check_resumed(got[0], t0, "node-b", 3, "s3://b/run7/step2")
    check(got[1]["number"] == 1 and "resume_from_step" not in got[1]
          and "checkpoint" not in got[1], "the new trial %r" % short(got[1]))
    # Asking again: node-b holds the same two trials.
    held = suggest(c, sid, "node-b", count=2)["trials"]
    check([t["id"] for t in held] == [t["id"] for t in got], "held %r" % short(held))
    # Steps go on from there; the new checkpoint is the trial's.
    check(step(c, t0["id"], 4, 0.5, "s3://b/run7/step4")["trial"]["checkpoint"]
          == "s3://b/run7/step4", "step 4's checkpoint")
    report(c, t0["id"], {"loss": 0.4})
    report(c, got[1]["id"], {"loss": 0.3})
    # Budget 3: the preempted trial counted once, so one new trial is left.
    last = suggest(c, sid, "node-c", count=5)["trials"]
    check(len(last) == 1 and last[0]["number"] == 2, "node-c got %r" % short(last))
    report(c, last[0]["id"], {"loss": 0.2})
    fin = suggest(c, sid, "node-d")
    check(fin["trials"] == [] and fin["done"] is True, "after the budget %r" % fin)
    ts = all_trials(c, sid)
    check(ts["total"] == 3, "total %d" % ts["total"])
    done = get_trial(c, t0["id"])
    check([s.get("checkpoint") for s in done["intermediate"]]
          == ["s3://b/run7/step1", "s3://b/run7/step2", None, "s3://b/run7/step4"],
          "stored checkpoints %r" % done["intermediate"])
    check(done["state"] == "completed" and done["reason"] is None, "done %r" % short(done))


@test("trainer: preempt of a finished or paused trial is 409; checkpoints only with a step")
def t_preempt_conflicts(c):
    sid = create(c, {"name": uname("preempt 409"), "space": X1, "objectives": LOSS,
                     "algorithm": {"name": "random", "seed": 3}})["id"]
    t = suggest(c, sid, "w", count=2)["trials"]
    report(c, t[0]["id"], {"loss": 1.0})
    expect_error(call(c.port, "POST", "/v1/trials/%d/preempt" % t[0]["id"], {}), 409, "conflict")
    expect(call(c.port, "POST", "/v1/trials/%d/fail" % t[1]["id"], {"reason": "x"}), 200)
    expect_error(call(c.port, "POST", "/v1/trials/%d/preempt" % t[1]["id"], {}), 409, "conflict")
    expect_error(call(c.port, "POST", "/v1/trials/987654321/preempt", {}), 404, "not_found")
    # An enqueued trial never handed out: preempting it changes nothing.
    e = expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid, {"params": {"x": 0.5}}), 201)
    p = preempt(c, e["id"])["trial"]
    check(p == e, "preempting a waiting trial changed it: %r" % short(p))
    # Without a reason the trial says "preempted".
    n = suggest(c, sid, "w2", count=2)["trials"]
    other = [x for x in n if x["id"] != e["id"]][0]
    check(preempt(c, other["id"])["trial"]["reason"] == "preempted", "reason without a body")
    check("resume_from_step" not in get_trial(c, other["id"]), "no step: starts over")


@test("trainer: a lapsed lease with a checkpoint requeues the trial (suggest and reaper); without one it fails")
def t_lapse(c):
    sid = create(c, {"name": uname("lapse"), "space": X1, "objectives": LOSS, "budget": 2,
                     "lease_seconds": 2, "algorithm": {"name": "random", "seed": 5}})["id"]
    a = suggest(c, sid, "node-a", count=2)["trials"]
    step(c, a[0]["id"], 1, 0.9, "file:///ck/a0-1")
    step(c, a[0]["id"], 2, 0.8)
    step(c, a[1]["id"], 1, 0.9)  # no checkpoint: nothing to resume from
    time.sleep(3.2)
    got = suggest(c, sid, "node-b", count=2)["trials"]
    check(len(got) == 2, "node-b got %r" % short(got))
    check_resumed(got[0], a[0], "node-b", 2, "file:///ck/a0-1")
    failed = get_trial(c, a[1]["id"])
    check(failed["state"] == "failed" and failed["reason"] == "lease expired",
          "the trial without a checkpoint %r" % short(failed))
    # The failed one costs no budget, so a new trial took its place; the
    # requeued one counted once.
    check(got[1]["number"] == 2 and all_trials(c, sid)["total"] == 3,
          "the new trial %r" % short(got[1]))

    # The reaper requeues a lapsed trial by itself, without a suggest.
    s = Server(c.args.hpod, c.logdir, c.dburl)
    s.extra_env = {"HPOD_REAPER_MS": "100"}
    c.servers.append(s)
    s.start()
    try:
        sid = create(c, {"name": uname("lapse reaper"), "space": X1, "objectives": LOSS,
                         "lease_seconds": 2, "algorithm": {"name": "random", "seed": 5}})["id"]
        t = suggest(c, sid, "node-e")["trials"][0]
        step(c, t["id"], 3, 0.6, "file:///ck/e-3")
        deadline = time.monotonic() + 20
        while get_trial(c, t["id"])["state"] != "waiting":
            check(time.monotonic() < deadline, "the reaper did not requeue %r"
                  % short(get_trial(c, t["id"])))
            time.sleep(0.2)
        w = get_trial(c, t["id"])
        check(w["reason"] == "preempted: lease expired" and w["resume_from_step"] == 3
              and w["checkpoint"] == "file:///ck/e-3" and w["worker"] == "",
              "requeued by the reaper %r" % short(w))
    finally:
        s.stop()
    check_resumed(suggest(c, sid, "node-f")["trials"][0], t, "node-f", 3, "file:///ck/e-3")


@test("trainer: a preempted trial goes to exactly one of 12 workers racing on two servers")
def t_preempt_race(c):
    b = c.server()
    sid = create(c, {"name": uname("preempt race"), "space": X1, "objectives": LOSS, "budget": 1,
                     "algorithm": {"name": "random", "seed": 8}})["id"]
    t0 = suggest(c, sid, "first")["trials"][0]
    step(c, t0["id"], 5, 0.5, "ck-5")
    preempt(c, t0["id"], "spot instance reclaimed")
    got, errors = [], []

    def worker(i):
        try:
            r = suggest(c, sid, "racer-%d" % i, port=(c.port, b.port)[i % 2])
            got.extend((i, t) for t in r["trials"])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(12)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    check(not errors, "workers failed: %r" % errors)
    check(len(got) == 1, "%d workers got a trial: %r" % (len(got), [(i, t["id"]) for i, t in got]))
    i, t = got[0]
    check_resumed(t, t0, "racer-%d" % i, 5, "ck-5")
    check(all_trials(c, sid)["total"] == 1, "budget 1 issued more than one trial")


# -- excluded trials -------------------------------------------------------

XY = [{"name": "x", "type": "float", "low": 0.0, "high": 1.0},
      {"name": "y", "type": "float", "low": 0.0, "high": 1.0}]
# Added trials: the last is far better than the others, so that the model
# with it and without it want different places.
POINTS = [(0.1, 0.2, 1.0), (0.3, 0.8, 2.0), (0.5, 0.5, 3.0), (0.7, 0.1, 1.5),
          (0.2, 0.6, 2.5), (0.6, 0.9, 1.2), (0.9, 0.9, 30.0)]
BEST_K = len(POINTS) - 1


def gp_study(c, name):
    return create(c, {"name": uname(name), "space": XY, "objectives": [{"name": "bleu",
                      "goal": "maximize"}], "algorithm": {"name": "gp", "seed": 11, "init": 3}})["id"]


def add(c, sid, x, y, bleu=None):
    body = {"params": {"x": x, "y": y}}
    if bleu is not None:
        body["values"] = {"bleu": bleu}
    return expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid, body), 201)


def exclude(c, tid, reason, port=None):
    return expect(call(port or c.port, "POST", "/v1/trials/%d/exclude" % tid,
                       {"reason": reason}), 200)["trial"]


def restore(c, tid, port=None):
    return expect(call(port or c.port, "POST", "/v1/trials/%d/restore" % tid, {}), 200)["trial"]


def best_id(c, sid):
    t = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)["trial"]
    return t and t["id"]


@test("trainer: exclude and restore: the trial keeps its values, leaves best and the CSV says why; idempotent")
def t_exclude_best(c):
    sid = gp_study(c, "exclude best")
    ids = [add(c, sid, x, y, b)["id"] for x, y, b in POINTS]
    top = ids[BEST_K]
    check(best_id(c, sid) == top, "best before %r" % best_id(c, sid))
    t = exclude(c, top, "data leak in fold 3")
    ex = t.get("excluded")
    check(ex and ex["reason"] == "data leak in fold 3" and ex["by"] == "" and ex["at"],
          "excluded %r" % ex)
    check(t["state"] == "completed" and t["values"] == {"bleu": 30.0}, "values kept %r" % short(t))
    check(best_id(c, sid) == ids[2], "best with the leak excluded %r" % best_id(c, sid))
    again = exclude(c, top, "another reason")
    check(again["excluded"] == ex, "a second exclusion changed %r" % again["excluded"])
    got = get_trial(c, top)
    check(got["excluded"] == ex, "GET %r" % got.get("excluded"))
    listed = [x for x in all_trials(c, sid)["trials"] if x["id"] == top][0]
    check(listed["excluded"] == ex, "list %r" % listed.get("excluded"))
    r = call(c.port, "GET", "/v1/studies/%d/trials" % sid, headers={"Accept": "text/csv"})
    lines = r.raw.decode().split("\r\n")
    check(lines[0].endswith(",excluded"), "CSV header %r" % lines[0])
    check(lines[1 + BEST_K].endswith(",data leak in fold 3")
          and lines[1].endswith(","), "CSV rows %r" % lines[1:])
    back = restore(c, top)
    check("excluded" not in back and back["values"] == {"bleu": 30.0}, "restored %r" % short(back))
    check(best_id(c, sid) == top, "best after restore %r" % best_id(c, sid))
    check(restore(c, top) == back, "a second restore changed the trial")
    expect_error(call(c.port, "POST", "/v1/trials/987654321/exclude", {"reason": "x"}),
                 404, "not_found")


@test("trainer: exclude and restore move the pareto front")
def t_exclude_pareto(c):
    sid = create(c, {"name": uname("exclude pareto"), "space": XY,
                     "objectives": [{"name": "bleu", "goal": "maximize"},
                                    {"name": "time", "goal": "minimize"}],
                     "algorithm": {"name": "random", "seed": 2}})["id"]
    vals = [(1.0, 1.0), (2.0, 2.0), (3.0, 5.0), (9.0, 1.5)]
    ids = [expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                       {"params": {"x": 0.1 * i, "y": 0.2}, "values": {"bleu": b, "time": t}}),
                  201)["id"] for i, (b, t) in enumerate(vals)]

    def front():
        p = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % sid), 200)
        return sorted(x["trial"] for x in p["front"]), p["hypervolume"]

    before, hv = front()
    check(before == [ids[0], ids[3]], "front %r" % before)
    exclude(c, ids[3], "mis-logged metric")
    after, hv2 = front()
    check(after == [ids[0], ids[1], ids[2]], "front with one excluded %r" % after)
    restore(c, ids[3])
    check(front() == (before, hv), "front after restore %r" % (front(),))


def suggest_xy(c, sid, worker, port=None):
    t = suggest(c, sid, worker, port=port)["trials"][0]
    return t["params"]["x"], t["params"]["y"]


@test("trainer: an excluded trial leaves the model: the next choice equals the same study's without it, on two servers")
def t_exclude_model(c):
    b = c.server()
    # A: the points, one suggestion (history cached, GP fitted and kept
    # with the best point in), then the best point excluded.
    a = gp_study(c, "exclude A")
    ids = [add(c, a, x, y, v)["id"] for x, y, v in POINTS]
    first = suggest_xy(c, a, "w")
    exclude(c, ids[BEST_K], "data leak", port=b.port)
    # B: the same trials, the best point's number held by a trial that
    # never reported (enqueued, then failed), and A's first suggestion
    # enqueued so that "w" is handed it rather than a choice of its own.
    bs = gp_study(c, "exclude B")
    for x, y, v in POINTS[:BEST_K]:
        add(c, bs, x, y, v)
    e = add(c, bs, *POINTS[BEST_K][:2])
    expect(call(c.port, "POST", "/v1/trials/%d/fail" % e["id"], {"reason": "never ran"}), 200)
    add(c, bs, *first)
    check(suggest_xy(c, bs, "w") == first, "B's claim")
    # C: like A, nothing excluded.
    cs = gp_study(c, "exclude C")
    for x, y, v in POINTS:
        add(c, cs, x, y, v)
    check(suggest_xy(c, cs, "w") == first, "C's first choice differs from A's")
    # The server whose caches saw A before the exclusion answers as B.
    xa = suggest_xy(c, a, "w2")
    xb = suggest_xy(c, bs, "w2")
    xc = suggest_xy(c, cs, "w2")
    check(xa == xb, "A with the trial excluded chose %r, B without it %r" % (xa, xb))
    check(xa != xc, "excluding the best trial changed nothing: %r" % (xa,))
    # Restored, the model has it again: A's next choice is that of a study
    # D holding the same trials, none ever excluded.
    restore(c, ids[BEST_K], port=b.port)
    xa3 = suggest_xy(c, a, "w3", port=b.port)
    ds = gp_study(c, "exclude D")
    for x, y, v in POINTS:
        add(c, ds, x, y, v)
    add(c, ds, *first)
    add(c, ds, *xa)
    check(suggest_xy(c, ds, "w") == first and suggest_xy(c, ds, "w2") == xa, "D's claims")
    xd3 = suggest_xy(c, ds, "w3")
    check(xd3 == xa3, "A after restore chose %r, D %r" % (xa3, xd3))


# -- failure reasons -------------------------------------------------------

@test("trainer: a failure's reason reads back in the JSON and the CSV, and a later report's 409 names it")
def t_fail_reason(c):
    import csv
    import io
    sid = create(c, {"name": uname("fail reason"), "space": X1, "objectives": LOSS,
                     "algorithm": {"name": "random", "seed": 1}})["id"]
    t = suggest(c, sid, "w", count=3)["trials"]
    reasons = ["objective returned nan", "RuntimeError: CUDA out of memory", "=HYPERLINK(1)"]
    for tr, why in zip(t, reasons):
        f = expect(call(c.port, "POST", "/v1/trials/%d/fail" % tr["id"], {"reason": why}),
                   200)["trial"]
        check(f["state"] == "failed" and f["reason"] == why, "failed %r" % short(f))
    r = call(c.port, "POST", "/v1/trials/%d/report" % t[0]["id"], {"values": {"loss": 1.0}})
    expect_error(r, 409, "conflict")
    check("(objective returned nan)" in r.json["error"]["message"], "409 %r" % r.json)
    r = call(c.port, "GET", "/v1/studies/%d/trials" % sid, headers={"Accept": "text/csv"})
    rows = list(csv.DictReader(io.StringIO(r.raw.decode(), newline="")))
    got = [row["reason"] for row in rows]
    check(got == reasons[:2] + ["'=HYPERLINK(1)"], "CSV reasons %r" % got)
    check(all(row["excluded"] == "" for row in rows), "excluded cells %r" % rows)


# -- typed choices ---------------------------------------------------------

TYPED = [{"name": "bs", "type": "categorical", "choices": [16, 32, 64]},
         {"name": "amp", "type": "categorical", "choices": [True, False]},
         {"name": "wd", "type": "categorical", "choices": [0.0, 0.01, 0.1]},
         {"name": "opt", "type": "categorical", "choices": ["adam", "sgd"]},
         {"name": "lr", "type": "float", "low": 1e-4, "high": 1e-1, "log": True}]


def typed(params):
    """params' values with their JSON types: an int is not a bool here."""
    return {k: (type(v).__name__, v) for k, v in params.items()}


def check_typed(params, where):
    check(type(params["bs"]) is int and params["bs"] in (16, 32, 64), "%s bs %r" % (where, params))
    check(type(params["amp"]) is bool, "%s amp %r" % (where, params))
    check(type(params["wd"]) in (int, float) and type(params["wd"]) is not bool
          and params["wd"] in (0.0, 0.01, 0.1), "%s wd %r" % (where, params))
    check(type(params["opt"]) is str, "%s opt %r" % (where, params))


@test("trainer: numeric and boolean choices read back typed in the study, trials, best, pareto, CSV, explain and candidates")
def t_typed_choices(c):
    import csv
    import io
    s = create(c, {"name": uname("typed"), "space": TYPED, "objectives": LOSS,
                   "algorithm": {"name": "gp", "init": 2, "seed": 3}})
    sid = s["id"]
    got = [p["choices"] for p in s["space"][:4]]
    check(typed({"a": got[0][0]}) == {"a": ("int", 16)} and got[1] == [True, False]
          and type(got[1][0]) is bool and got[2] == [0.0, 0.01, 0.1], "choices %r" % got)
    # 32.0 is the choice 32 and reads back as the definition has it.
    e = expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                    {"params": {"bs": 32.0, "amp": False, "wd": 0.1, "opt": "sgd", "lr": 0.01},
                     "values": {"loss": 0.5}}), 201)
    check(typed(e["params"])["bs"] == ("int", 32) and e["params"]["amp"] is False,
          "added %r" % e["params"])
    for i in range(3):
        t = suggest(c, sid, "w")["trials"][0]
        check_typed(t["params"], "suggested")
        report(c, t["id"], {"loss": 1.0 + i})
    check_typed(get_trial(c, t["id"])["params"], "GET")
    ex = expect(call(c.port, "GET", "/v1/trials/%d/explain" % t["id"]), 200)
    chosen = [d for d in ex["decisions"] if d["kind"] == "suggest"][0]
    check(chosen["chooser"] == "model" and chosen["runners_up"], "explain %r" % short(chosen))
    for r in chosen["runners_up"]:
        check_typed(r["params"], "explain runner-up")
    best = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)["trial"]
    check(best["id"] == e["id"] and typed(best["params"]) == typed(e["params"]), "best %r" % best)
    front = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % sid), 200)["front"]
    check(typed(front[0]["params"]) == typed(e["params"]), "pareto %r" % front)
    r = call(c.port, "GET", "/v1/studies/%d/trials" % sid, headers={"Accept": "text/csv"})
    row = list(csv.DictReader(io.StringIO(r.raw.decode(), newline="")))[0]
    check((row["params.bs"], row["params.amp"], row["params.wd"]) == ("32", "false", "0.1"),
          "CSV %r" % row)
    expect_error(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                      {"params": {"bs": "32", "amp": False, "wd": 0.1, "opt": "sgd", "lr": 0.01}}),
                 422, "invalid_argument")
    r = call(c.port, "POST", "/v1/studies/%d/trials" % sid,
             {"params": {"bs": 32, "amp": 0, "wd": 0.1, "opt": "sgd", "lr": 0.01}})
    expect_error(r, 422, "invalid_argument")
    check(r.json["error"]["field"] == "params.amp", "field %r" % r.json["error"])

    # A finite space: candidates with typed choices, handed out typed.
    cands = [{"bs": b, "amp": a} for b in (16, 64) for a in (True, False)]
    f = create(c, {"name": uname("typed finite"), "space": TYPED[:2], "candidates": cands,
                   "objectives": LOSS, "algorithm": {"name": "random", "seed": 1}})
    seen = []
    for _ in range(4):
        t = suggest(c, f["id"], "w")["trials"][0]
        seen.append(typed(t["params"]))
        report(c, t["id"], {"loss": 1.0})
    check(sorted(map(repr, seen)) == sorted(repr(typed(x)) for x in cands),
          "candidates handed out %r" % seen)


# -- conditional spaces ----------------------------------------------------

COND = [{"name": "optimizer", "type": "categorical", "choices": ["sgd", "adam"]},
        {"name": "momentum", "type": "float", "low": 0.0, "high": 0.99,
         "condition": {"param": "optimizer", "in": ["sgd"]}},
        {"name": "nesterov", "type": "categorical", "choices": [True, False],
         "condition": {"param": "schedule", "in": ["cosine"]}},
        {"name": "schedule", "type": "categorical", "choices": ["cosine", "step"],
         "condition": {"param": "optimizer", "in": ["sgd"]}},
        {"name": "layers", "type": "int", "values": [1, 2, 3]},
        {"name": "width2", "type": "int", "low": 16, "high": 512, "log": True,
         "condition": {"param": "layers", "in": [2.0, 3]}},
        {"name": "lr", "type": "float", "low": 1e-4, "high": 1e-1, "log": True}]


def active(params):
    """The parameters COND says a configuration has, given its values."""
    want = {"optimizer", "layers", "lr"}
    if params.get("optimizer") == "sgd":
        want |= {"momentum", "schedule"}
        if params.get("schedule") == "cosine":
            want.add("nesterov")
    if params.get("layers") in (2, 3):
        want.add("width2")
    return want


@test("trainer: conditions are stored normalized, chains allowed in any order; cycles are 422 naming the path")
def t_condition_rules(c):
    s = create(c, {"name": uname("conditions"), "space": COND, "objectives": LOSS})
    got = {p["name"]: p.get("condition") for p in s["space"]}
    check(got["width2"] == {"param": "layers", "in": [2, 3]}
          and type(got["width2"]["in"][0]) is int, "normalized %r" % got["width2"])
    check(got["nesterov"] == {"param": "schedule", "in": ["cosine"]} and got["lr"] is None,
          "conditions %r" % got)
    cyc = [{"name": "a", "type": "categorical", "choices": ["x", "y"],
            "condition": {"param": "c", "in": ["x"]}},
           {"name": "b", "type": "categorical", "choices": ["x", "y"],
            "condition": {"param": "a", "in": ["y"]}},
           {"name": "c", "type": "categorical", "choices": ["x", "y"],
            "condition": {"param": "b", "in": ["x"]}},
           {"name": "d", "type": "float", "low": 0, "high": 1}]
    r = call(c.port, "POST", "/v1/studies", {"name": uname("cycle"), "space": cyc,
                                              "objectives": LOSS})
    expect_error(r, 422, "invalid_argument", "space[0].condition")
    check("a -> c -> b -> a" in r.json["error"]["message"], "message %r" % r.json["error"])
    cyc[0].pop("condition")
    cyc[3]["condition"] = {"param": "d", "in": [0]}
    r = call(c.port, "POST", "/v1/studies", {"name": uname("cycle"), "space": cyc,
                                              "objectives": LOSS})
    expect_error(r, 422, "invalid_argument", "space[3].condition")
    check("d -> d" in r.json["error"]["message"], "message %r" % r.json["error"])


# -- define-by-run ---------------------------------------------------------

def param(c, tid, entry, status=200):
    return expect(call(c.port, "POST", "/v1/trials/%d/params" % tid, entry), status)


X_ENTRY = {"name": "x", "type": "float", "low": 0.0, "high": 1.0}
BS_ENTRY = {"name": "bs", "type": "categorical", "choices": [16, 32, 64]}


@test("trainer: define-by-run: an empty space grows as trials ask; the same value twice; 409 for another definition or a finished trial; params hold only what was asked")
def t_define_by_run(c):
    s = create(c, {"name": uname("dbr"), "space": [], "objectives": LOSS, "budget": 6,
                   "algorithm": {"name": "random", "seed": 5}})
    sid = s["id"]
    check(s["space"] == [] and s["define_by_run"] is True and "space_version" not in s,
          "created %r" % short(s))
    t0 = suggest(c, sid, "w0")["trials"][0]
    check(t0["params"] == {}, "a define-by-run trial's params %r" % t0["params"])
    v = param(c, t0["id"], X_ENTRY)["value"]
    check(type(v) is float and 0.0 <= v <= 1.0, "x = %r" % v)
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["space_version"] == 2 and st["space"] == [dict(X_ENTRY, log=False, added_in=2)],
          "the grown space %r" % st["space"])
    check(param(c, t0["id"], dict(X_ENTRY))["value"] == v, "asking again")
    expect_error(call(c.port, "POST", "/v1/trials/%d/params" % t0["id"],
                      dict(X_ENTRY, high=2.0)), 409, "conflict", "name")
    b = param(c, t0["id"], BS_ENTRY)["value"]
    check(type(b) is int and b in (16, 32, 64), "bs = %r" % b)
    check(get_trial(c, t0["id"])["params"] == {"x": v, "bs": b}, "t0's params")
    report(c, t0["id"], {"loss": v})
    expect_error(call(c.port, "POST", "/v1/trials/%d/params" % t0["id"], X_ENTRY),
                 409, "conflict")
    # Later trials get every known parameter proposed; only what they ask
    # for becomes theirs.
    t1 = suggest(c, sid, "w1")["trials"][0]
    check(t1["params"] == {}, "t1's params %r" % t1["params"])
    v1 = param(c, t1["id"], X_ENTRY)["value"]
    report(c, t1["id"], {"loss": v1})
    check(get_trial(c, t1["id"])["params"] == {"x": v1}, "t1 asked for x only")
    # An enqueued configuration may leave parameters out, not add unknown ones.
    expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                {"params": {"x": 0.5}, "values": {"loss": 0.5}}), 201)
    expect_error(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                      {"params": {"y": 0.5}}), 422, "invalid_argument", "params.y")
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["space_version"] == 3 and [p["name"] for p in st["space"]] == ["x", "bs"],
          "space %r" % st["space"])
    # A worker that starts later (a job restarted after a preemption) opens
    # the study with the definition it was created with: the space its
    # trials grew is not a different definition; another space still is.
    first = {"name": s["name"], "space": [], "objectives": LOSS, "budget": 6,
             "algorithm": {"name": "random", "seed": 5}, "load_if_exists": True}
    again = expect(call(c.port, "POST", "/v1/studies", first), 200)
    check(again["id"] == sid and again["space_version"] == 3, "reopened %r" % short(again))
    expect_error(call(c.port, "POST", "/v1/studies", dict(first, space=[X_ENTRY])),
                 409, "conflict", "space")
    # The same name asked by two trials of a declared study: the value is
    # each trial's, and a declared parameter answers the trial's own.
    d = create(c, {"name": uname("dbr declared"), "space": X1, "objectives": LOSS,
                   "algorithm": {"name": "random", "seed": 2}})
    td = suggest(c, d["id"], "w")["trials"][0]
    check(param(c, td["id"], X_ENTRY)["value"] == td["params"]["x"], "declared x")
    y = param(c, td["id"], {"name": "y", "type": "int", "low": 1, "high": 9})["value"]
    check(type(y) is int and 1 <= y <= 9, "y = %r" % y)
    check(get_trial(c, td["id"])["params"] == {"x": td["params"]["x"], "y": y}, "declared + y")
    nxt = suggest(c, d["id"], "w2")["trials"][0]
    check(set(nxt["params"]) == {"x", "y"}, "a declared study's trial after y joined %r"
          % nxt["params"])


def cond_loss(p):
    """A loss over COND's active parameters."""
    import math
    y = (math.log10(p["lr"]) + 2) ** 2 + 0.1 * p["layers"]
    if p["optimizer"] == "sgd":
        y += (p["momentum"] - 0.9) ** 2 + (0.0 if p["schedule"] == "cosine" else 0.2)
        if "nesterov" in p:
            y += 0.0 if p["nesterov"] else 0.1
    if "width2" in p:
        y += 0.01 * abs(p["width2"] - 128) / 128
    return y


def cond_candidates():
    out = []
    for opt in ("sgd", "adam"):
        for layers in (1, 2, 3):
            for lr in (1e-4, 1e-3, 1e-2):
                p = {"optimizer": opt, "layers": layers, "lr": lr}
                if opt == "sgd":
                    p.update(momentum=0.9, schedule="cosine", nesterov=True)
                if layers > 1:
                    p["width2"] = 128
                out.append(p)
    return out


@test("trainer: inactive parameters never appear, whatever the sampler (random, gp, ehvi, graph on candidates); enqueued and candidate configurations must leave them out")
def t_inactive_never(c):
    cases = [("random", {"name": "random", "seed": 1}, None, LOSS),
             ("gp", {"name": "gp", "seed": 2, "init": 3}, None, LOSS),
             ("ehvi", {"name": "ehvi", "seed": 3, "init": 3}, None,
              LOSS + [{"name": "cost", "goal": "minimize"}]),
             ("graph", {"name": "graph", "seed": 4, "init": 3}, cond_candidates(), LOSS)]
    for label, algo, cands, objs in cases:
        body = {"name": uname("inactive " + label), "space": COND, "objectives": objs,
                "algorithm": algo, "budget": 14}
        if cands:
            body["candidates"] = cands
        sid = create(c, body)["id"]
        for i in range(14):
            got = suggest(c, sid, "w")["trials"]
            check(len(got) == 1, "%s: suggestion %d: %r" % (label, i, got))
            p = got[0]["params"]
            check(set(p) == active(p), "%s: trial %d has %s, its conditions say %s"
                  % (label, i, sorted(p), sorted(active(p))))
            vals = {"loss": cond_loss(p)}
            if len(objs) > 1:
                vals["cost"] = p["layers"] + (1.0 if "momentum" in p else 0.0)
            report(c, got[0]["id"], vals)
        for t in all_trials(c, sid)["trials"]:
            check(set(t["params"]) == active(t["params"]), "%s: stored %r" % (label, t["params"]))
    # A candidate must leave its inactive parameters out, and give the rest.
    bad = cond_candidates()
    bad[0]["width2"] = 64  # layers 1: inactive
    r = call(c.port, "POST", "/v1/studies", {"name": uname("bad candidate"), "space": COND,
                                              "objectives": LOSS, "candidates": bad})
    expect_error(r, 422, "invalid_argument", "candidates[0].width2")
