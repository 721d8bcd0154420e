"""tests/api/test_trainer.py - the trainer's real life (issue 29):
checkpoints in intermediate reports, preemption (POST /v1/trials/{id}/
preempt, and a lapsed lease on a trial with a checkpoint) handing the same
trial to the next worker, counted once in the budget.
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
                     "lease_seconds": 1, "algorithm": {"name": "random", "seed": 5}})["id"]
    a = suggest(c, sid, "node-a", count=2)["trials"]
    step(c, a[0]["id"], 1, 0.9, "file:///ck/a0-1")
    step(c, a[0]["id"], 2, 0.8)
    step(c, a[1]["id"], 1, 0.9)  # no checkpoint: nothing to resume from
    time.sleep(2.2)
    got = suggest(c, sid, "node-b", count=2)["trials"]
    check(len(got) == 2, "node-b got %r" % short(got))
    check_resumed(got[0], a[0], "node-b", 2, "file:///ck/a0-1")
    failed = get_trial(c, a[1]["id"])
    check(failed["state"] == "failed" and failed["reason"] == "lease expired",
          "the trial without a checkpoint %r" % short(failed))
    # The failed one costs no budget, so a new trial took its place; the
    # requeued one counted once.
    check(got[1]["number"] == 2, "the new trial %r" % short(got[1]))
    check(suggest(c, sid, "node-c")["trials"] == [], "budget 2 is spent")
    k = counts(c, sid)
    check(k["pending"] + k["running"] == 2 and k["failed"] == 1 and k["waiting"] == 0,
          "counts %r" % k)

    # The reaper of another server requeues a lapsed trial by itself.
    s = Server(c.args.hpod, c.logdir, c.dburl)
    s.extra_env = {"HPOD_REAPER_MS": "100"}
    c.servers.append(s)
    s.start()
    try:
        step(c, got[0]["id"], 3, 0.6, "file:///ck/a0-3")
        deadline = time.monotonic() + 15
        while get_trial(c, got[0]["id"])["state"] != "waiting":
            check(time.monotonic() < deadline, "the reaper did not requeue %r"
                  % short(get_trial(c, got[0]["id"])))
            time.sleep(0.2)
        w = get_trial(c, got[0]["id"])
        check(w["reason"] == "preempted: lease expired" and w["resume_from_step"] == 3
              and w["checkpoint"] == "file:///ck/a0-3" and w["worker"] == "",
              "requeued by the reaper %r" % short(w))
    finally:
        s.stop()
    again = suggest(c, sid, "node-d")["trials"]
    check_resumed(again[0], a[0], "node-d", 3, "file:///ck/a0-3")


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
