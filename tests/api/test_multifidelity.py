"""tests/api/test_multifidelity.py - asha and multistage studies: concurrent
trainers over learning curves on two servers, rungs and promotions, two
objectives, a stage member lost to an expired lease.
"""

import json
import threading
import time

from harness import call, check, expect, is_int, short, test
from client import create, get_trial, report, suggest
from tables import curve_models, need_tables


def curve_study(ds, R, n):
    """A finite study over the first n distinct configurations of nmtlc set
    ds whose curves reach R checkpoints (the first curve of each): the
    parameter names, the space (one value list per hyperparameter), the
    candidates and {json key of a configuration: its curve}."""
    seen, cands, curves = set(), [], {}
    for hp, curve in curve_models(ds):
        key = json.dumps(hp, sort_keys=True)
        if key in seen or len(curve) < R:
            continue
        seen.add(key)
        cands.append(hp)
        curves[key] = curve
        if len(cands) == n:
            break
    names = sorted(cands[0])
    space = []
    for nm in names:
        vals = sorted({h[nm] for h in cands})
        is_int = all(float(v).is_integer() for v in vals)
        space.append({"name": nm, "type": "int" if is_int else "float",
                      "values": [int(v) if is_int else v for v in vals]})
    return names, space, cands, curves


def curve_trainers(c, sid, names, curves, prefix, horizon, workers=4):
    """Concurrent fake trainers on learning curves (curve_study), half on a
    second hpod process: each trial reports its curve checkpoint by
    checkpoint from its resume_from_step to its train_to (or horizon),
    stops when told to, else sends a final report with its best so far.
    Returns what they did: steps, stops [(trial, step, target)], assigned
    [(trial, target, resume_from or None)], finals [trial], key {trial:
    configuration key}, errors."""
    lock = threading.Lock()
    log = {"steps": 0, "stops": [], "assigned": [], "finals": [], "key": {},
           "errors": []}
    # Two hpod processes on one database: decisions are serialized by the
    # study lock in PostgreSQL, not by anything in a process.
    ports = [c.port, c.server().port]

    def worker(w):
        port = ports[w % 2]
        try:
            for _ in range(600):
                rsp = suggest(c, sid, "%s-%d" % (prefix, w), port=port)
                if rsp["done"]:
                    return
                if not rsp["trials"]:
                    time.sleep(0.05)
                    continue
                t = rsp["trials"][0]
                key = json.dumps({k: t["params"][k] for k in names}, sort_keys=True)
                curve = curves[key]
                target = t.get("train_to") or horizon
                start = t.get("resume_from_step")
                with lock:
                    log["assigned"].append((t["id"], target, start))
                    log["key"][t["id"]] = key
                step = start or 0  # checkpoints already trained
                stopped = False
                while step < target:
                    rep = report(c, t["id"], {"ppl": curve[step]}, step=step + 1,
                                 port=port)
                    with lock:
                        log["steps"] += 1
                    if t.get("train_to") and rep.get("train_to") != target:
                        raise AssertionError("report answer train_to %r, trial trains to %r"
                                             % (rep.get("train_to"), target))
                    if rep["action"] == "stop":
                        with lock:
                            log["stops"].append((t["id"], step + 1, target))
                        stopped = True
                        break
                    step += 1
                if not stopped:
                    report(c, t["id"], {"ppl": min(curve[:target])}, port=port)
                    with lock:
                        log["finals"].append(t["id"])
        except Exception as e:  # reported below
            with lock:
                log["errors"].append(repr(e))

    ths = [threading.Thread(target=worker, args=(w,)) for w in range(workers)]
    for th in ths:
        th.start()
    for th in ths:
        th.join(180)
    return log


@test("asha: 4 concurrent trainers on two servers over learning curves; stops only at rungs, promotions resume paused trials, far fewer steps than training all to R")
def t_asha(c):
    need_tables()
    R = 12
    names, space, cands, curves = curve_study("material-so-en", R, 24)
    r, u, p_ = 2, 2, 2
    rungs = list(range(r, R, u))          # decision rungs below R
    s = create(c, {"name": "asha", "space": space, "candidates": cands,
                   "objectives": [{"name": "ppl", "goal": "minimize"}],
                   "algorithm": {"name": "asha", "r": r, "u": u, "R": R, "p": p_,
                                 "keep": 2, "mode": "promotion", "seed": 3}})
    sid = s["id"]
    log = curve_trainers(c, sid, names, curves, "asha", R)
    check(not log["errors"], "worker errors: %r" % log["errors"][:3])
    bad = [x for x in log["stops"] if x[1] not in rungs]
    check(not bad, "stops off the rungs %r: %r" % (rungs, bad[:5]))
    # Every promotion resumes a trial exactly where a "stop" paused it.
    stops = {(tid, step) for tid, step, _ in log["stops"]}
    resumes = [(tid, start) for tid, _, start in log["assigned"] if start is not None]
    check(all(x in stops for x in resumes),
          "a resumed trial did not resume where it was paused: %r" % resumes[:5])
    check(len(set(resumes)) == len(resumes),
          "a trial was promoted twice from the same rung: %r" % resumes)
    full = len(cands) * R
    print("# asha on material-so-en: %d steps trained of %d (all to R=%d), %d stops, "
          "%d promotions, %d trained to R" % (log["steps"], full, R, len(log["stops"]),
                                               len(resumes), len(log["finals"])))
    check(log["steps"] < 0.7 * full, "trained %d of %d steps" % (log["steps"], full))
    check(len(log["finals"]) >= 2, "keep=2 but %d trained to R" % len(log["finals"]))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["state"] == "done" and st["trial_counts"]["paused"] == 0
          and st["trial_counts"]["pending"] + st["trial_counts"]["running"] == 0,
          "study at the end: %r" % st["trial_counts"])


@test("multistage: 4 concurrent trainers on two servers over learning curves; each stage trains to its steps, the top k by best-so-far seed the next, the last stage completes")
def t_multistage(c):
    need_tables()
    stages = [{"steps": 4, "trials": 12}, {"steps": 8, "trials": 6},
              {"steps": 12, "trials": 3}]
    R = stages[-1]["steps"]
    k = 3
    names, space, cands, curves = curve_study("material-so-en", R, 30)
    s = create(c, {"name": "multistage", "space": space, "candidates": cands,
                   "objectives": [{"name": "ppl", "goal": "minimize"}],
                   "algorithm": {"name": "multistage", "stages": stages, "k": k,
                                 "base": "gp", "seed": 5}})
    sid = s["id"]
    check(s["algorithm"]["stages"] == stages and s["algorithm"]["k"] == k
          and s["algorithm"]["base"] == "gp", "algorithm %r" % s["algorithm"])
    # Budget: 12 new, then 6 - 3 and 3 - 3 more.
    check(s["budget"] == 15, "default budget %r" % s["budget"])
    fid = [st["steps"] for st in stages]
    log = curve_trainers(c, sid, names, curves, "ms", None)
    check(not log["errors"], "worker errors: %r" % log["errors"][:3])
    check(all(tt in fid for _, tt, _ in log["assigned"]),
          "train_to off the stages: %r" % log["assigned"][:5])
    # Stops happen exactly at a non-final stage's steps.
    bad = [x for x in log["stops"] if x[1] != x[2] or x[2] == R]
    check(not bad, "stops off the stage boundaries: %r" % bad[:5])
    # Stage membership as the trainers saw it.
    members = {f: [] for f in fid}
    for tid, tt, start in log["assigned"]:
        if tid not in members[tt]:
            members[tt].append(tid)
    for i, f in enumerate(fid):
        check(len(members[f]) == stages[i]["trials"],
              "stage %d (steps %d) trained %d trials, wants %d"
              % (i, f, len(members[f]), stages[i]["trials"]))
    # Seeds: exactly the top k of the previous stage by best-so-far at its
    # steps, resumed where they stopped.
    stopped_at = {(tid, st) for tid, st, _ in log["stops"]}
    for i in range(1, len(fid)):
        prev = members[fid[i - 1]]
        bsf = {tid: min(curves[log["key"][tid]][:fid[i - 1]]) for tid in prev}
        want = sorted(prev, key=lambda tid: (bsf[tid], tid))[:min(k, stages[i]["trials"])]
        got = [tid for tid, tt, start in log["assigned"] if tt == fid[i] and start is not None]
        check(sorted(got) == sorted(want), "stage %d seeds %r, top %d by BSF %r"
              % (i, got, k, want))
        check(all((tid, fid[i - 1]) in stopped_at for tid in got),
              "a seed did not resume where it stopped")
        resumed_from = {tid: start for tid, tt, start in log["assigned"] if tt == fid[i] and start is not None}
        check(all(v == fid[i - 1] for v in resumed_from.values()),
              "resume_from_step %r, stage %d ended at %d" % (resumed_from, i - 1, fid[i - 1]))
    full = sum(st["trials"] for st in stages) * R
    check(sorted(log["finals"]) == sorted(members[R]),
          "completed %r, last stage %r" % (log["finals"], members[R]))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    tc = st["trial_counts"]
    check(st["state"] == "done" and tc["completed"] == stages[-1]["trials"]
          and tc["paused"] == 0 and tc["pending"] + tc["running"] == 0
          and tc["pruned"] == 12 + 3 - stages[-1]["trials"],
          "study at the end: %r %r" % (st["state"], tc))
    print("# multistage on material-so-en: %d steps trained for %d configurations "
          "(all %d trained to %d: %d steps), seeds %r"
          % (log["steps"], st["budget"], st["budget"], R, st["budget"] * R,
             [members[f][:3] for f in fid[1:]]))
    check(log["steps"] < 0.6 * st["budget"] * R, "trained %d steps" % log["steps"])


def nd_order(points):
    """ASHA's order at a rung with several objectives (core/asha.h): by
    non-dominated rank, then within a rank by decreasing crowding distance
    (extremes first), then by id. points: {id: (v1, v2, ...)} oriented so
    that larger is better. Returns the ids best first."""
    ids = sorted(points)
    m = len(next(iter(points.values())))

    def dom(a, b):
        return all(x >= y for x, y in zip(a, b)) and any(x > y for x, y in zip(a, b))

    left, ranks = set(ids), []
    while left:
        front = sorted(i for i in left
                       if not any(dom(points[j], points[i]) for j in left if j != i))
        ranks.append(front)
        left -= set(front)
    order = []
    for front in ranks:
        crowd = {i: 0.0 for i in front}
        if len(front) <= 2:
            crowd = {i: float("inf") for i in front}
        else:
            for j in range(m):
                srt = sorted(front, key=lambda i: (points[i][j], i))
                lo, hi = points[srt[0]][j], points[srt[-1]][j]
                crowd[srt[0]] = crowd[srt[-1]] = float("inf")
                if hi > lo:
                    for q in range(1, len(srt) - 1):
                        crowd[srt[q]] += (points[srt[q + 1]][j] - points[srt[q - 1]][j]) / (hi - lo)
        order += sorted(front, key=lambda i: (-crowd[i], i))
    return order


@test("asha with two objectives: a rung orders by non-dominated rank then crowding distance; stops and promotions follow the top 1/p of that order")
def t_asha_multiobjective(c):
    # (bleu, gpu_time) per configuration x; bleu is reported growing over
    # steps, gpu_time constant. 3 is dominated by 0; 7 is cheap but poor.
    vals = {0: (20, 100), 1: (22, 150), 2: (18, 80), 3: (15, 200),
            4: (25, 300), 5: (19, 90), 6: (21, 120), 7: (10, 60)}
    cands = [{"x": x} for x in sorted(vals)]
    r, R, p_ = 2, 6, 2
    s = create(c, {"name": "mo-asha", "space": [{"name": "x", "type": "int",
                                                 "values": sorted(vals)}],
                   "candidates": cands,
                   "objectives": [{"name": "bleu", "goal": "maximize"},
                                  {"name": "gpu_time", "goal": "minimize"}],
                   "algorithm": {"name": "asha", "r": r, "u": 100, "R": R, "p": p_,
                                 "keep": 0, "mode": "promotion", "seed": 11}})
    sid = s["id"]

    def at(x, step):
        b, t = vals[x]
        return {"bleu": b - (R - step) * 0.1, "gpu_time": t}

    rung = {}      # trial id -> oriented BSF vector at rung r
    xs = {}
    decisions, promotions = 0, 0
    for _ in range(100):
        rsp = suggest(c, sid, "mo")
        if rsp["done"]:
            break
        if not rsp["trials"]:
            continue
        t = rsp["trials"][0]
        tid, x = t["id"], t["params"]["x"]
        xs[tid] = x
        start = t.get("resume_from_step")
        if start is not None:
            # Promotable now: in the top floor(k/p) of the rung's order.
            order = nd_order(rung)
            lim = len(rung) // p_
            check(tid in order[:lim], "promoted %d (x=%d) is at %d of %r, limit %d"
                  % (tid, x, order.index(tid), order, lim))
            promotions += 1
        step = (start or 0) + 1
        stopped = False
        while step <= R:
            v = at(x, step)
            rep = report(c, tid, v, step=step)
            if step == r:
                bsf = (max(at(x, s_)["bleu"] for s_ in range(1, r + 1)), -v["gpu_time"])
                rung[tid] = bsf
                order = nd_order(rung)
                lim = len(rung) // p_
                want = "continue" if order.index(tid) < lim else "stop"
                check(rep["action"] == want, "x=%d at the rung: %s, reference %s (order %r, limit %d)"
                      % (x, rep["action"], want, [xs[i] for i in order], lim))
                decisions += 1
            else:
                check(rep["action"] == "continue", "stop off the rung at step %d" % step)
            if rep["action"] == "stop":
                stopped = True
                break
            step += 1
        if not stopped:
            report(c, tid, at(x, R))
    check(decisions == len(vals), "%d rung decisions for %d configurations" % (decisions, len(vals)))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["state"] == "done", "study %r" % st["trial_counts"])
    # The configurations trained to R are the rung's top floor(8/2) = 4,
    # at most (mispromotion cannot happen here: one worker, arrivals in
    # order, and the final order's top 4 are the ones promoted or passed).
    done = sorted(xs[t["id"]] for t in
                  expect(call(c.port, "GET", "/v1/studies/%d/trials?state=completed" % sid), 200)["trials"])
    top = sorted(xs[i] for i in nd_order(rung)[:len(rung) // p_])
    print("# mo-asha: %d decisions, %d promotions, trained to R: x=%r, final top of the rung x=%r"
          % (decisions, promotions, done, top))
    check(set(top) <= set(done), "the rung's top %r were not all trained to R (%r)" % (top, done))
    check(3 not in done or 3 in top, "dominated x=3 trained to R")


@test("multistage: a stage member whose worker died is replaced after its lease lapses; the stage waits, then advances and the study finishes")
def t_multistage_lease(c):
    space = [{"name": "x", "type": "int", "values": [1, 2, 3, 4, 5]}]
    s = create(c, {"name": "ms-lease", "space": space,
                   "candidates": [{"x": v} for v in (1, 2, 3, 4, 5)],
                   "objectives": [{"name": "loss", "goal": "minimize"}],
                   "lease_seconds": 1,
                   "algorithm": {"name": "multistage", "k": 1, "seed": 2,
                                 "stages": [{"steps": 2, "trials": 3},
                                            {"steps": 4, "trials": 1}]}})
    sid = s["id"]
    check(s["budget"] == 3, "budget %r (3 new, then 1 - 1)" % s["budget"])

    def loss(x, step):
        return x + 1.0 / step

    dead = suggest(c, sid, "dies")["trials"][0]
    check(dead["train_to"] == 2, "stage 0 trains to 2: %r" % short(dead))
    live = []
    for w in ("a", "b"):
        t = suggest(c, sid, w)["trials"][0]
        live.append(t)
        for step in (1, 2):
            rep = report(c, t["id"], {"loss": loss(t["params"]["x"], step)}, step=step)
            want = "stop" if step == 2 else "continue"
            check(rep["action"] == want and rep["train_to"] == 2,
                  "step %d: %r, want %s" % (step, short(rep), want))
        check(get_trial(c, t["id"])["state"] == "paused", "paused at the stage's steps")
    # The stage is full (3 members) and one is live: wait, not done.
    r = suggest(c, sid, "c")
    check(r["trials"] == [] and not r["done"] and r.get("retry_after"),
          "while a member trains: %r" % short(r))
    time.sleep(2.5)
    deadline = time.monotonic() + 15
    while True:
        r = suggest(c, sid, "c")
        if r["trials"]:
            break
        check(time.monotonic() < deadline, "no replacement 15 s after the lease lapsed")
        time.sleep(0.5)
    rep_t = r["trials"][0]
    check(rep_t["id"] != dead["id"] and rep_t["train_to"] == 2
          and rep_t.get("resume_from_step") is None, "replacement %r" % short(rep_t))
    check(get_trial(c, dead["id"])["state"] == "failed", "the dead trial is failed")
    for step in (1, 2):
        report(c, rep_t["id"], {"loss": loss(rep_t["params"]["x"], step)}, step=step)
    # Stage 0 complete: the best of the three (lowest loss at step 2) goes on.
    members = live + [rep_t]
    best = min(members, key=lambda t: (loss(t["params"]["x"], 2), t["id"]))
    r = suggest(c, sid, "d")
    check(len(r["trials"]) == 1, "stage 1: %r" % short(r))
    seed = r["trials"][0]
    check(seed["id"] == best["id"] and seed["resume_from_step"] == 2
          and seed["train_to"] == 4, "seed %r, best %r" % (short(seed), best["id"]))
    for t in members:
        if t["id"] != best["id"]:
            g = get_trial(c, t["id"])
            check(g["state"] == "pruned", "trial %d left behind is %s" % (t["id"], g["state"]))
    for step in (3, 4):
        rep = report(c, seed["id"], {"loss": loss(seed["params"]["x"], step)}, step=step)
        check(rep["action"] == "continue", "the last stage never stops: %r" % short(rep))
    report(c, seed["id"], {"loss": loss(seed["params"]["x"], 4)})
    r = suggest(c, sid, "d")
    check(r["trials"] == [] and r["done"], "after the last stage: %r" % short(r))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["state"] == "done", "study %r" % st["trial_counts"])
