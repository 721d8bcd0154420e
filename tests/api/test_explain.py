"""tests/api/test_explain.py - GET /v1/trials/{id}/explain: what the
sampler knew when it chose a trial (recorded at suggestion time), the
ASHA/multistage decisions about it, and the answers derived for random,
enqueued and added trials.
"""

import harness
from harness import call, check, expect, expect_error, short, test
from client import BLEU_MAX, SPACE4, create, report, suggest, uname


def explain(c, tid):
    return expect(call(c.port, "GET", "/v1/trials/%d/explain" % tid), 200)


def suggest_of(e):
    s = [d for d in e["decisions"] if d["kind"] == "suggest"]
    check(len(s) == 1, "suggest decisions %r" % short(e))
    return s[0]


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def f(x):
    """A smooth objective with its maximum at x = 13."""
    return 30.0 - 0.2 * (x - 13) ** 2


def run_finite(c, algorithm, n, name):
    """A finite study over x in 0..19 (candidate i is x = i); n trials
    suggested and reported one by one. Returns (trial, explain) pairs."""
    cands = [{"x": x} for x in range(20)]
    sid = create(c, {"name": uname(name), "space": [{"name": "x", "type": "int",
                                                       "values": list(range(20))}],
                     "candidates": cands, "objectives": BLEU_MAX,
                     "algorithm": algorithm})["id"]
    out = []
    for i in range(n):
        t = suggest(c, sid, "ex")["trials"][0]
        out.append((t, explain(c, t["id"])))
        report(c, t["id"], {"bleu": f(t["params"]["x"])})
    return out


def check_model_choice(t, e, held, sampler, acq, units):
    d = suggest_of(e)
    check(d["recorded"] is True and d["chooser"] == "model" and d["sampler"] == sampler
          and d["acquisition"] == acq and d["units"] == units, "decision %r" % d)
    ch = d["chosen"]
    check(ch.get("candidate") == t["params"]["x"], "chosen %r, trial x=%r" % (ch, t["params"]["x"]))
    check(len(d["runners_up"]) == 4, "runners-up %r" % d["runners_up"])
    seen = {ch["candidate"]}
    last = ch["acquisition"]
    for r in d["runners_up"]:
        # Other free candidates, in decreasing acquisition, none above the pick.
        check(r["candidate"] not in seen and r["candidate"] not in held,
              "runner-up %r is the pick, a repeat or held (%r)" % (r, sorted(held)))
        seen.add(r["candidate"])
        check(is_num(r["acquisition"]) and r["acquisition"] <= last,
              "runner-up %r above %r" % (r, last))
        last = r["acquisition"]
    return d


@test("explain: gp on a finite seeded study: the initial design says so, then the model's pick tops its runners-up (free candidates), with mean, sd and incumbent in normal scores")
def t_explain_gp(c):
    pairs = run_finite(c, {"name": "gp", "init": 3, "seed": 7}, 8, "ex-gp")
    held = set()
    for i, (t, e) in enumerate(pairs):
        check(e["trial_id"] == t["id"] and e["number"] == t["number"] == i
              and e["origin"] == "suggested" and e["algorithm"]["name"] == "gp",
              "answer %r" % short(e))
        d = suggest_of(e)
        check(d["n_observations"] == i and d["n_pending"] == 0, "counts %r" % d)
        if i < 3:
            check(d["chooser"] == "initial_random" and d["acquisition"] is None
                  and d["chosen"]["mean"] is None and d["runners_up"] == [], "init %r" % d)
        else:
            d = check_model_choice(t, e, held, "gp", "ei", "normal scores")
            check(is_num(d["incumbent"]) and is_num(d["chosen"]["mean"])
                  and is_num(d["chosen"]["sd"]) and d["chosen"]["sd"] >= 0, "numbers %r" % d)
        held.add(t["params"]["x"])


@test("explain: graph ei and eif on a finite study: ei has mean/sd, eif its propagated mean and a null sd")
def t_explain_graph(c):
    for acq in ("ei", "eif"):
        pairs = run_finite(c, {"name": "graph", "acquisition": acq, "init": 3, "seed": 3},
                           6, "ex-graph-" + acq)
        held = {t["params"]["x"] for t, _ in pairs[:5]}
        t, e = pairs[5]
        d = check_model_choice(t, e, held, "graph", acq,
                               "normal scores" if acq == "ei" else "propagated top label")
        if acq == "ei":
            check(is_num(d["chosen"]["sd"]) and is_num(d["incumbent"]), "ei %r" % d)
        else:
            check(d["chosen"]["sd"] is None and d["incumbent"] is None
                  and is_num(d["chosen"]["mean"]), "eif %r" % d)


@test("explain: gp on a continuous space: runners-up are configurations distinct from the pick")
def t_explain_continuous(c):
    sid = create(c, {"name": uname("ex-cont"), "space": SPACE4, "objectives": BLEU_MAX,
                     "algorithm": {"name": "gp", "init": 2, "seed": 4}})["id"]
    for i in range(3):
        t = suggest(c, sid, "ex")["trials"][0]
        if i < 2:
            report(c, t["id"], {"bleu": 1.0 + i})
    d = suggest_of(explain(c, t["id"]))
    check(d["chooser"] == "model" and "candidate" not in d["chosen"]
          and is_num(d["chosen"]["acquisition"]), "decision %r" % d)
    check(1 <= len(d["runners_up"]) <= 4, "runners-up %r" % d["runners_up"])
    for r in d["runners_up"]:
        check(r["params"] != t["params"] and r["acquisition"] <= d["chosen"]["acquisition"],
              "runner-up %r vs pick %r" % (r, t["params"]))


@test("explain: ehvi records its initial design, then a model choice of a free candidate")
def t_explain_ehvi(c):
    cands = [{"x": x} for x in range(10)]
    sid = create(c, {"name": uname("ex-ehvi"), "space": [{"name": "x", "type": "int",
                                                          "values": list(range(10))}],
                     "candidates": cands,
                     "objectives": [{"name": "bleu", "goal": "maximize"},
                                    {"name": "gpu_time", "goal": "minimize"}],
                     "algorithm": {"name": "ehvi", "init": 2, "seed": 9}})["id"]
    trials = []
    for i in range(3):
        t = suggest(c, sid, "ex")["trials"][0]
        trials.append(t)
        d = suggest_of(explain(c, t["id"]))
        x = t["params"]["x"]
        if i < 2:
            check(d["chooser"] == "initial_random" and d["sampler"] == "ehvi", "init %r" % d)
            report(c, t["id"], {"bleu": float(x), "gpu_time": float(10 - x)})
        else:
            check(d["chooser"] == "model" and d["acquisition"] == "ehvi"
                  and d["n_observations"] == 2 and d["chosen"]["candidate"] == x
                  and is_num(d["chosen"]["acquisition"]) and d["chosen"]["mean"] is None,
                  "model %r" % d)
            held = {tr["params"]["x"] for tr in trials}
            check(len(d["runners_up"]) == 4, "runners-up %r" % d["runners_up"])
            for r in d["runners_up"]:
                check(r["candidate"] not in held and r["acquisition"] <= d["chosen"]["acquisition"],
                      "runner-up %r (held %r)" % (r, held))


@test("ehvi options: trust_region and front_reference read back, default off, and choose free candidates; log_objectives was removed: true is 422, false is accepted and not written back")
def t_ehvi_options(c):
    cands = [{"x": x} for x in range(12)]
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    base = {"space": [{"name": "x", "type": "int", "values": list(range(12))}],
            "candidates": cands, "objectives": objs}
    plain = create(c, dict(base, name=uname("ehvi-plain"), algorithm={"name": "ehvi"}))
    check("log_objectives" not in plain["algorithm"]
          and plain["algorithm"]["trust_region"] == 0
          and plain["algorithm"]["front_reference"] == 0, "defaults %r" % plain["algorithm"])
    old = create(c, dict(base, name=uname("ehvi-log-false"),
                         algorithm={"name": "ehvi", "log_objectives": False}))
    check("log_objectives" not in old["algorithm"], "false written back %r" % old["algorithm"])
    e = expect_error(call(c.port, "POST", "/v1/studies",
                          dict(base, name=uname("ehvi-log-true"),
                               algorithm={"name": "ehvi", "log_objectives": True})),
                     422, "invalid_argument", "algorithm.log_objectives")
    check("removed" in e["message"] and "omit it" in e["message"]
          and "docs/auto.md" in e["message"], "message %r" % e["message"])
    s = create(c, dict(base, name=uname("ehvi-opts"),
                       algorithm={"name": "ehvi", "init": 2, "seed": 4, "trust_region": 3,
                                  "front_reference": 0.35}))
    a = expect(call(c.port, "GET", "/v1/studies/%d" % s["id"]), 200)["algorithm"]
    check(a["trust_region"] == 3 and a["name"] == "ehvi"
          and a["front_reference"] == 0.35, "read back %r" % a)
    held = set()
    for i in range(6):
        t = suggest(c, s["id"], "w")["trials"][0]
        x = t["params"]["x"]
        check(x not in held, "candidate %r chosen twice" % x)
        held.add(x)
        report(c, t["id"], {"bleu": 10.0 + x - 0.2 * x * x, "gpu_time": 100.0 * (1 + x)})


@test("ehvi trust_shape: absent stays absent, nearest/steps read back, 422 for steps without trust_region or an unknown value, and a steps study chooses free candidates")
def t_ehvi_trust_shape(c):
    cands = [{"x": x, "y": y} for x in range(6) for y in range(4)]
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    base = {"space": [{"name": "x", "type": "int", "values": list(range(6))},
                      {"name": "y", "type": "int", "values": list(range(4))}],
            "candidates": cands, "objectives": objs}
    plain = create(c, dict(base, name=uname("shape-plain"),
                           algorithm={"name": "ehvi", "surrogate": "graph", "trust_region": 2}))
    check("trust_shape" not in plain["algorithm"], "absent %r" % plain["algorithm"])
    near = create(c, dict(base, name=uname("shape-near"),
                          algorithm={"name": "ehvi", "trust_shape": "nearest"}))
    check(near["algorithm"]["trust_shape"] == "nearest", "nearest %r" % near["algorithm"])
    for bad in [{"trust_shape": "steps"}, {"trust_shape": "steps", "trust_region": 0},
                {"trust_shape": "ring", "trust_region": 2}]:
        expect_error(call(c.port, "POST", "/v1/studies",
                          dict(base, name=uname("shape-bad"),
                               algorithm=dict({"name": "ehvi", "surrogate": "graph"}, **bad))),
                     422, "invalid_argument", "algorithm.trust_shape")
    s = create(c, dict(base, name=uname("shape-steps"),
                       algorithm={"name": "ehvi", "surrogate": "graph", "init": 2, "seed": 5,
                                  "trust_region": 2, "trust_shape": "steps",
                                  "gp_blend": "first", "front_reference": 0.3}))
    a = expect(call(c.port, "GET", "/v1/studies/%d" % s["id"]), 200)["algorithm"]
    check(a["trust_shape"] == "steps" and a["trust_region"] == 2
          and a["gp_blend"] == "first" and a["front_reference"] == 0.3, "read back %r" % a)
    held = set()
    for i in range(8):
        t = suggest(c, s["id"], "w")["trials"][0]
        p = (t["params"]["x"], t["params"]["y"])
        check(p not in held, "candidate %r chosen twice" % (p,))
        held.add(p)
        report(c, t["id"], {"bleu": 10.0 + p[0] - 0.3 * p[0] * p[0] + 0.5 * p[1],
                            "gpu_time": 100.0 * (1 + p[0] + p[1])})


@test("ehvi gp_blend: absent stays absent, none/first read back, 422 with the gp surrogate or an unknown value, all was removed (422 naming first), and a blended graph study chooses free candidates")
def t_ehvi_gp_blend(c):
    cands = [{"x": x} for x in range(12)]
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    base = {"space": [{"name": "x", "type": "int", "values": list(range(12))}],
            "candidates": cands, "objectives": objs}
    plain = create(c, dict(base, name=uname("blend-plain"),
                           algorithm={"name": "ehvi", "surrogate": "graph"}))
    check("gp_blend" not in plain["algorithm"], "absent %r" % plain["algorithm"])
    off = create(c, dict(base, name=uname("blend-off"),
                         algorithm={"name": "ehvi", "surrogate": "graph", "gp_blend": "none"}))
    check(off["algorithm"]["gp_blend"] == "none", "none %r" % off["algorithm"])
    e = expect_error(call(c.port, "POST", "/v1/studies",
                          dict(base, name=uname("blend-all"),
                               algorithm={"name": "ehvi", "surrogate": "graph",
                                          "gp_blend": "all"})),
                     422, "invalid_argument", "algorithm.gp_blend")
    check("removed" in e["message"] and 'use "first"' in e["message"]
          and "docs/auto.md" in e["message"], "message %r" % e["message"])
    expect_error(call(c.port, "POST", "/v1/studies",
                      dict(base, name=uname("blend-bad"),
                           algorithm={"name": "ehvi", "surrogate": "graph", "gp_blend": "both"})),
                 422, "invalid_argument", "algorithm.gp_blend")
    s = create(c, dict(base, name=uname("blend-on"),
                       algorithm={"name": "ehvi", "surrogate": "graph", "init": 2,
                                  "seed": 4, "gp_blend": "first", "trust_region": 4,
                                  "front_reference": 0.5}))
    a = expect(call(c.port, "GET", "/v1/studies/%d" % s["id"]), 200)["algorithm"]
    check(a["gp_blend"] == "first" and a["surrogate"] == "graph"
          and a["trust_region"] == 4 and a["front_reference"] == 0.5, "read back %r" % a)
    expect_error(call(c.port, "POST", "/v1/studies",
                      dict(base, name=uname("blend-gp"),
                           algorithm={"name": "ehvi", "surrogate": "gp", "gp_blend": "first"})),
                 422, "invalid_argument", "algorithm.gp_blend")
    held, tids = set(), []
    for i in range(7):
        t = suggest(c, s["id"], "w")["trials"][0]
        x = t["params"]["x"]
        check(x not in held, "candidate %r chosen twice" % x)
        held.add(x)
        tids.append(t["id"])
        report(c, t["id"], {"bleu": 10.0 + x - 0.2 * x * x, "gpu_time": 100.0 * (1 + x)})
    d = explain(c, tids[2])["decisions"][-1]
    check(d["chooser"] == "model" and d["acquisition"] == "ehvi", "third choice %r" % d)


@test("explain: random, enqueued and added trials answer a derived decision; unknown trials 404")
def t_explain_derived(c):
    cands = [{"x": x} for x in range(5)]
    s = create(c, {"name": uname("ex-rand"), "space": [{"name": "x", "type": "int",
                                                       "values": list(range(5))}],
                   "candidates": cands, "objectives": BLEU_MAX,
                   "algorithm": {"name": "random", "seed": 12}})
    sid = s["id"]
    t = suggest(c, sid, "ex")["trials"][0]
    e = explain(c, t["id"])
    check(e["decisions"] == [{"seq": None, "at": t["created_at"], "kind": "suggest",
                              "recorded": False, "chooser": "random", "seed": 12,
                              "stream": t["number"]}], "random %r" % e)
    q = expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid, {"params": {"x": 4}}), 201)
    a = expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                    {"params": {"x": 3}, "values": {"bleu": 1.0}}), 201)
    for tr, who in ((q, "user"), (a, "added")):
        e = explain(c, tr["id"])
        check(e["origin"] == tr["origin"] and len(e["decisions"]) == 1
              and e["decisions"][0]["chooser"] == who, "%s %r" % (who, e))
    expect_error(call(c.port, "GET", "/v1/trials/987654321/explain"), 404, "not_found")


@test("explain: asha records its base sampler's choices, a stop at a rung (rank below the cut) and a promotion (rank within it)")
def t_explain_asha(c):
    xs = list(range(8))
    sid = create(c, {"name": uname("ex-asha"), "space": [{"name": "x", "type": "int",
                                                         "values": xs}],
                     "candidates": [{"x": x} for x in xs], "objectives": BLEU_MAX,
                     "algorithm": {"name": "asha", "r": 1, "u": 100, "R": 3, "p": 2,
                                   "mode": "promotion", "base": "gp", "init": 2,
                                   "seed": 11}})["id"]
    # Larger x is worse. Enqueued first, best first: 0 and 1 pass, 2 and 3
    # stop at the rung; the sampler's picks (all worse) then bring 2 within
    # the top floor(k/2) and it is promoted.
    for x in (0, 1, 2, 3):
        expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid, {"params": {"x": x}}), 201)
    stops, promos, ids = [], [], []
    for _ in range(60):
        rsp = suggest(c, sid, "ex")
        if rsp["done"]:
            break
        if not rsp["trials"]:
            continue
        t = rsp["trials"][0]
        ids.append(t["id"])
        start = t.get("resume_from_step")
        if start is not None:
            promos.append(t["id"])
        step = (start or 0) + 1
        while step <= 3:
            rep = report(c, t["id"], {"bleu": 0.01 * step - t["params"]["x"]}, step=step)
            if rep["action"] == "stop":
                stops.append((t["id"], step))
                break
            step += 1
        else:
            report(c, t["id"], {"bleu": 0.03 - t["params"]["x"]})
    check(stops and promos, "stops %r promotions %r" % (stops, promos))
    for tid, step in stops:
        e = explain(c, tid)
        st = [d for d in e["decisions"] if d["kind"] == "stop" and d["step"] == step]
        check(len(st) == 1 and st[0]["rung"] == 0 and st[0]["rank"] > st[0]["cut"]
              and st[0]["of"] >= st[0]["rank"], "stop at %d: %r" % (step, e["decisions"]))
    for tid in promos:
        e = explain(c, tid)
        pr = [d for d in e["decisions"] if d["kind"] == "promote"]
        check(pr and pr[0]["rung"] == 0 and pr[0]["rank"] <= pr[0]["cut"]
              and pr[0]["resume_from_step"] == 1
              and pr[0]["seq"] > [d for d in e["decisions"] if d["kind"] == "stop"][0]["seq"],
              "promotion %r" % e["decisions"])
    base = [suggest_of(explain(c, tid)) for tid in set(ids)]
    check(any(d["recorded"] and d["sampler"] == "gp" for d in base)
          and sum(d["chooser"] == "user" for d in base) == 4, "suggest decisions %r" % base)


@test("explain: multistage records stops at a stage's steps and the seeding of the top k into the next stage")
def t_explain_multistage(c):
    xs = list(range(8))
    stages = [{"steps": 2, "trials": 4}, {"steps": 4, "trials": 2}]
    sid = create(c, {"name": uname("ex-ms"), "space": [{"name": "x", "type": "int",
                                                       "values": xs}],
                     "candidates": [{"x": x} for x in xs], "objectives": BLEU_MAX,
                     "algorithm": {"name": "multistage", "stages": stages, "k": 2,
                                   "base": "random", "seed": 2}})["id"]
    seen = set()
    for _ in range(40):
        rsp = suggest(c, sid, "ex")
        if rsp["done"]:
            break
        if not rsp["trials"]:
            continue
        t = rsp["trials"][0]
        seen.add(t["id"])
        step = (t.get("resume_from_step") or 0) + 1
        while step <= t["train_to"]:
            rep = report(c, t["id"], {"bleu": float(t["params"]["x"]) + step}, step=step)
            if rep["action"] == "stop":
                break
            step += 1
        else:
            report(c, t["id"], {"bleu": float(t["params"]["x"]) + t["train_to"]})
    kinds = {}
    for tid in seen:
        for d in explain(c, tid)["decisions"]:
            kinds.setdefault(d["kind"], []).append(d)
    check(kinds.get("stop") and all(d["stage"] == 0 and d["step"] == 2 for d in kinds["stop"]),
          "stops %r" % kinds.get("stop"))
    pruned = [d for d in kinds["stop"] if "reason" in d]
    check(len(pruned) == 2 and all(d["k"] == 2 for d in pruned), "prunes %r" % pruned)
    check(len(kinds.get("stage", [])) == 2 and sorted(d["rank"] for d in kinds["stage"]) == [1, 2]
          and all(d["stage"] == 1 and d["k"] == 2 and d["steps"] == 4 for d in kinds["stage"]),
          "seeds %r" % kinds.get("stage"))
    check(all(d["chooser"] == "random" and not d["recorded"] for d in kinds["suggest"]),
          "random base %r" % kinds["suggest"])
