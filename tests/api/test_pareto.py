"""tests/api/test_pareto.py - /v1/studies/{id}/pareto and /best: the front and
hypervolume (against a brute-force reimplementation), decoupled reports
with constraints, best under a constraint's confidence.
"""

import math

from harness import call, check, expect, expect_error, short, test
from client import create, get_trial, report, suggest, uname


@test("pareto: two objectives, front, hypervolume against the study's reference; best is 422")
def t_pareto(c):
    s = create(c, {"name": "pareto", "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                   "objectives": [{"name": "bleu", "goal": "maximize"},
                                  {"name": "gpu_time", "goal": "minimize"}],
                   "reference": {"bleu": 0, "gpu_time": 300}})
    sid = s["id"]
    check(s["reference"] == {"bleu": 0, "gpu_time": 300}, "reference %r" % s["reference"])
    e = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % sid), 200)
    check(e["front"] == [] and e["hypervolume"] == 0 and e["n_completed"] == 0,
          "empty pareto %r" % short(e))
    pts = [(10, 100), (12, 200), (9, 150), (11, 90)]
    tids = []
    for i, (b, g) in enumerate(pts):
        t = suggest(c, sid, "par-%d" % i)["trials"][0]
        report(c, t["id"], {"bleu": b, "gpu_time": g})
        tids.append(t["id"])
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % sid), 200)
    check([x["trial"] for x in p["front"]] == [tids[1], tids[3]],
          "front %r, expected trials %r" % ([x["trial"] for x in p["front"]], [tids[1], tids[3]]))
    check(p["front"][1]["values"] == {"bleu": 11, "gpu_time": 90}, "front values %r" % p["front"])
    # (12,200) and (11,90) against (0,300): 11*210 + (12-11)*100.
    check(math.isclose(p["hypervolume"], 2410.0, rel_tol=1e-9),
          "hypervolume %r, expected 2410" % p["hypervolume"])
    check(p["reference"] == {"bleu": 0, "gpu_time": 300} and p["n_completed"] == 4,
          "reference/n_completed %r" % short(p))
    expect_error(call(c.port, "GET", "/v1/studies/%d/best" % sid), 422, "invalid_argument")

    s2 = create(c, {"name": "pareto-noref", "space": [{"name": "x", "type": "float",
                                                       "low": 0, "high": 1}],
                    "objectives": [{"name": "a", "goal": "minimize"},
                                   {"name": "b", "goal": "minimize"}]})
    e = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % s2["id"]), 200)
    check(e["reference"] is None and e["hypervolume"] == 0, "empty: %r" % short(e))
    for i, (a, b) in enumerate([(1, 3), (2, 2), (3, 1), (3, 3)]):
        t = suggest(c, s2["id"], "pn-%d" % i)["trials"][0]
        report(c, t["id"], {"a": a, "b": b})
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % s2["id"]), 200)
    check(len(p["front"]) == 3 and p["hypervolume"] > 0, "derived: %r" % short(p))
    check(isinstance(p["reference"], dict) and p["reference"]["a"] >= 3
          and p["reference"]["b"] >= 3, "derived reference %r (worst is 3, 3)" % p["reference"])


@test("decoupled reports and constraints: metrics arrive separately, a trial completes with its objectives, best is feasible")
def t_decoupled(c):
    s = create(c, {"name": "decoupled", "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                   "objectives": [{"name": "bleu", "goal": "maximize"}],
                   "constraints": [{"metric": "gpu_time", "max": 200}]})
    sid = s["id"]
    check(s["constraints"][0]["max"] == 200, "constraint stored %r" % s["constraints"])
    ta, tb, tc = (suggest(c, sid, w)["trials"][0] for w in ("a", "b", "c"))
    r = report(c, ta["id"], {"gpu_time": 150})
    check(r["trial"]["state"] == "running" and r["trial"]["values"] == {"gpu_time": 150},
          "speed first: %r" % short(r))
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % ta["id"],
                      {"values": {"gpu_time": 160}}), 409, "conflict", "values.gpu_time")
    r = report(c, ta["id"], {"bleu": 20})
    check(r["trial"]["state"] == "completed" and r["trial"]["values"] == {"gpu_time": 150, "bleu": 20},
          "bleu later completes: %r" % short(r))
    again = report(c, ta["id"], {"bleu": 20})
    check(again["trial"]["values"] == r["trial"]["values"], "repeat changed %r" % short(again))
    # Nothing is added to a completed trial: not a metric the study does not
    # know (422), not a late constrained metric (409); and nothing changed.
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % ta["id"],
                      {"values": {"speed": 5}}), 422, "invalid_argument", "values.speed")
    report(c, tc["id"], {"bleu": 22})                    # constraint not observed
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % tc["id"],
                      {"values": {"gpu_time": 100}}), 409, "conflict", "values.gpu_time")
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % tc["id"],
                      {"values": {"bleu": 22, "gpu_time": 100}}), 409, "conflict",
                 "values.gpu_time")
    check(get_trial(c, tc["id"])["values"] == {"bleu": 22}, "a refused report wrote %r"
          % short(get_trial(c, tc["id"])))
    report(c, tb["id"], {"bleu": 25, "gpu_time": 250})   # infeasible
    best = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)
    check(best["trial"] is not None and best["trial"]["id"] == ta["id"],
          "best must be the feasible trial %d, got %r" % (ta["id"], short(best)))
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto?ranks=true" % sid), 200)
    check([x["trial"] for x in p["front"]] == [ta["id"]] and p["n_feasible"] == 1
          and p["n_completed"] == 3, "pareto with constraints %r" % short(p))
    feas = {x["trial"]: x["feasible"] for x in p["ranks"]}
    check(feas == {ta["id"]: True, tb["id"]: False, tc["id"]: False}, "feasibility %r" % feas)


@test("best with decoupled constraints: a trial that never reported gpu_time is recommended only when the constraint GP gives P(feasible) >= confidence")
def t_best_confidence(c):
    # gpu_time = 100·exp(2x) with ±4% deterministic multiplicative noise:
    # log gpu_time is linear in x, so the GP of log gpu_time (core/mobo)
    # is sure far from the bound B = 100·e (x = 0.5) and less so near it.
    bound = 100 * math.e
    grid = [0.025 + 0.05 * i for i in range(20)]            # report both metrics
    deep_ok, deep_bad, border = 0.1, 0.9, 0.48              # report bleu only
    # Measured last, gpu_time first (decoupled): a completed trial takes no
    # late metric, so the model's verdict is overruled by new trials there.
    bad_measured, border_measured = 0.91, 0.47
    cands = [{"x": x} for x in grid + [deep_ok, deep_bad, border, bad_measured,
                                       border_measured]]

    def gpu(i, x):
        return 100 * math.exp(2 * x) * math.exp(0.04 * math.sin(17.0 * i + 1))

    def study(conf):
        s = create(c, {"name": "best-confidence %g" % conf,
                       "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                       "candidates": cands,
                       "objectives": [{"name": "bleu", "goal": "maximize"}],
                       "constraints": [{"metric": "gpu_time", "max": bound, "confidence": conf}],
                       "algorithm": {"name": "random", "seed": 5}})
        check(s["constraints"][0]["confidence"] == conf, "confidence stored %r" % s["constraints"])
        ts = suggest(c, s["id"], "w", count=len(cands))["trials"]
        check(len(ts) == len(cands), "%d trials issued, want %d" % (len(ts), len(cands)))
        return s["id"], {t["params"]["x"]: t["id"] for t in ts}

    def best(sid):
        return expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)

    lo, hi = study(0.9), study(0.999999)
    for sid, tid in (lo, hi):
        # Nobody reported gpu_time: the model knows nothing, nothing qualifies.
        report(c, tid[deep_ok], {"bleu": 28})
        report(c, tid[deep_bad], {"bleu": 30})
        b = best(sid)
        check(b["trial"] is None and "p_feasible" not in b,
              "no gpu_time reported yet: best must be null, got %r" % short(b))
        # Three reports (feasible, x <= 0.125) are too few to vouch for anyone:
        # the best observed-feasible trial, p_feasible 1.
        for i in range(3):
            report(c, tid[grid[i]], {"bleu": 10 + 5 * grid[i], "gpu_time": gpu(i, grid[i])})
        b = best(sid)
        check(b["trial"] is not None and b["trial"]["id"] == tid[grid[2]] and b["p_feasible"] == 1,
              "3 reports: best must be the observed-feasible %d with p 1, got %r"
              % (tid[grid[2]], short(b)))
        for i in range(3, len(grid)):
            report(c, tid[grid[i]], {"bleu": 10 + 5 * grid[i], "gpu_time": gpu(i, grid[i])})
    # The grid's best observed-feasible trial is x = 0.475 (bleu 12.4); the
    # infeasible ones up to 14.9 never count. deep_ok (bleu 28) sits where
    # every neighbour is far below B: recommended at both confidences;
    # deep_bad (bleu 30) sits where every neighbour is far above: never.
    ps = {}
    for conf, (sid, tid) in ((0.9, lo), (0.999999, hi)):
        b = best(sid)
        ps["deep feasible @%g" % conf] = b.get("p_feasible")
        check(b["trial"] is not None and b["trial"]["id"] == tid[deep_ok]
              and b["p_feasible"] >= conf and b["p_feasible"] <= 1,
              "confidence %g: best must be the unreported deep-feasible trial %d with "
              "p_feasible >= %g, got %r" % (conf, tid[deep_ok], conf, short(b)))
    # The borderline one (x = 0.48, bleu 29): likely feasible, not certainly.
    for sid, tid in (lo, hi):
        report(c, tid[border], {"bleu": 29})
    b = best(lo[0])
    ps["borderline @0.9"] = b.get("p_feasible")
    check(b["trial"] is not None and b["trial"]["id"] == lo[1][border]
          and 0.9 <= b["p_feasible"] < 0.999999,
          "confidence 0.9: best must be the borderline trial %d with 0.9 <= p < 0.999999, "
          "got %r" % (lo[1][border], short(b)))
    b = best(hi[0])
    check(b["trial"] is not None and b["trial"]["id"] == hi[1][deep_ok],
          "confidence 0.999999: the borderline trial must drop out for %d, got %r"
          % (hi[1][deep_ok], short(b)))
    again = best(lo[0])
    check(again == best(lo[0]) and again["p_feasible"] == ps["borderline @0.9"],
          "best is not deterministic: %r" % short(again))
    # A completed trial takes no late measurement (409, nothing written).
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % hi[1][deep_bad],
                      {"values": {"gpu_time": gpu(99, deep_bad)}}), 409, "conflict",
                 "values.gpu_time")
    check(best(hi[0])["trial"]["id"] == hi[1][deep_ok], "a refused report changed best")
    # A reported value decides over the model: measured first, then bleu.
    # An infeasible measurement meets nothing, whatever its bleu; a feasible
    # one next to the bound wins outright with p_feasible 1.
    r = report(c, hi[1][bad_measured], {"gpu_time": gpu(99, bad_measured)})
    check(r["trial"]["state"] == "running", "gpu_time alone completed %r" % short(r))
    report(c, hi[1][bad_measured], {"bleu": 40})
    b = best(hi[0])
    check(b["trial"]["id"] == hi[1][deep_ok], "reported infeasible must not win: %r" % short(b))
    report(c, hi[1][border_measured], {"gpu_time": 0.9 * bound})
    report(c, hi[1][border_measured], {"bleu": 31})
    b = best(hi[0])
    check(b["trial"]["id"] == hi[1][border_measured] and b["p_feasible"] == 1,
          "borderline reported feasible must win with p 1: %r" % short(b))
    print("# best confidence: " + ", ".join("p(%s) = %.9f" % kv for kv in sorted(ps.items())),
          flush=True)


def brute_front(pts, sense):
    """Indices of the non-dominated points (sense +1 maximize, -1 minimize)."""
    def dom(a, b):
        return all(s * x >= s * y for x, y, s in zip(a, b, sense)) and \
            any(s * x > s * y for x, y, s in zip(a, b, sense))
    return [i for i, a in enumerate(pts) if not any(dom(b, a) for b in pts)]


def brute_ranks(pts, sense):
    rank, left, r = {}, list(range(len(pts))), 0
    while left:
        sub = [pts[i] for i in left]
        f = [left[j] for j in brute_front(sub, sense)]
        for i in f:
            rank[i] = r
        left = [i for i in left if i not in f]
        r += 1
    return rank


def brute_hv(pts, sense, ref):
    """Exact dominated volume by cells of the coordinate grid (small n)."""
    m = len(ref)
    q = [[s * x for x, s in zip(p, sense)] for p in pts]      # maximize all
    rf = [s * x for x, s in zip(ref, sense)]
    q = [p for p in q if all(x > r for x, r in zip(p, rf))]
    if not q:
        return 0.0
    axes = [sorted(set([rf[j]] + [p[j] for p in q])) for j in range(m)]
    vol = 0.0

    def rec(j, lo, width):
        nonlocal vol
        if j == m:
            if any(all(p[k] >= lo[k] for k in range(m)) for p in q):
                vol += width
            return
        for a, b in zip(axes[j], axes[j][1:]):
            rec(j + 1, lo + [b], width * (b - a))
    rec(0, [], 1.0)
    return vol


@test("pareto equals a brute-force front, ranks and hypervolume on random studies (mixed goals)")
def t_pareto_bruteforce(c):
    import random
    rng = random.Random(2385)
    for case in range(4):
        m = 2 if case < 2 else 3
        goals = [rng.choice(["maximize", "minimize"]) for _ in range(m)]
        names = ["o%d" % j for j in range(m)]
        s = create(c, {"name": "pareto-bf-%d" % case,
                       "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                       "objectives": [{"name": n, "goal": g} for n, g in zip(names, goals)]})
        pts, tids = [], []
        for i in range(18):
            t = suggest(c, s["id"], "bf-%d" % i)["trials"][0]
            v = [float(rng.randint(0, 6)) + (rng.random() if case % 2 else 0) for _ in range(m)]
            report(c, t["id"], dict(zip(names, v)))
            pts.append(v)
            tids.append(t["id"])
        sense = [1 if g == "maximize" else -1 for g in goals]
        p = expect(call(c.port, "GET", "/v1/studies/%d/pareto?ranks=true&history=true" % s["id"]), 200)
        want = sorted(tids[i] for i in brute_front(pts, sense))
        check([x["trial"] for x in p["front"]] == want,
              "case %d: front %r, brute force %r" % (case, [x["trial"] for x in p["front"]], want))
        ref = [p["reference"][n] for n in names]
        hv = brute_hv(pts, sense, ref)
        check(math.isclose(p["hypervolume"], hv, rel_tol=1e-9, abs_tol=1e-9),
              "case %d: hypervolume %r, brute force %r" % (case, p["hypervolume"], hv))
        br = brute_ranks(pts, sense)
        got = {x["trial"]: x["rank"] for x in p["ranks"]}
        check(got == {tids[i]: br[i] for i in range(len(pts))}, "case %d: ranks differ" % case)
        h = [x["hypervolume"] for x in p["history"]]
        check(len(h) == 18 and all(a <= b + 1e-9 for a, b in zip(h, h[1:]))
              and math.isclose(h[-1], hv, rel_tol=1e-9, abs_tol=1e-9),
              "case %d: history %r" % (case, h))
    expect_error(call(c.port, "GET", "/v1/studies/%d/pareto?ranks=maybe" % s["id"]),
                 400, "invalid_argument", "ranks")


@test("decoupled constraint: decoupled and cost stored and read back exactly, bad ones 4xx and nothing written")
def t_decoupled_constraint_def(c):
    space = [{"name": "x", "type": "float", "low": 0, "high": 1}]
    objs = [{"name": "bleu", "goal": "maximize"}]
    s = create(c, {"name": "dec-def", "space": space, "objectives": objs,
                   "constraints": [{"metric": "gpu_time", "max": 200, "decoupled": True,
                                    "cost": 0.125},
                                   {"metric": "mem", "max": 8, "decoupled": True},
                                   {"metric": "lat", "max": 3, "decoupled": False}]})
    cons = s["constraints"]
    check(cons[0] == {"metric": "gpu_time", "max": 200, "confidence": 0.5,
                      "decoupled": True, "cost": 0.125}, "explicit cost %r" % cons[0])
    check(cons[1]["decoupled"] is True and cons[1]["cost"] == 0.1, "default cost %r" % cons[1])
    check("decoupled" not in cons[2] and "cost" not in cons[2], "coupled %r" % cons[2])
    g = expect(call(c.port, "GET", "/v1/studies/%d" % s["id"]), 200)
    check(g["constraints"] == cons, "read back %r vs %r" % (g["constraints"], cons))
    bad = [({"metric": "gpu_time", "max": 1, "cost": 0.5}, 422, "constraints[0].cost"),
           ({"metric": "gpu_time", "max": 1, "decoupled": True, "cost": 0}, 422,
            "constraints[0].cost"),
           ({"metric": "gpu_time", "max": 1, "decoupled": True, "cost": 1.5}, 422,
            "constraints[0].cost"),
           ({"metric": "gpu_time", "max": 1, "decoupled": "yes"}, 400,
            "constraints[0].decoupled"),
           ({"metric": "gpu_time", "max": 1, "decoupled": True, "cost": "x"}, 400,
            "constraints[0].cost")]
    before = expect(call(c.port, "GET", "/v1/studies"), 200)
    for k, (con, status, field) in enumerate(bad):
        r = call(c.port, "POST", "/v1/studies",
                 {"name": "dec-bad-%d" % k, "space": space, "objectives": objs,
                  "constraints": [con]})
        expect_error(r, status, "invalid_argument", field)
    after = expect(call(c.port, "GET", "/v1/studies"), 200)
    check(after == before, "a refused definition wrote a study")


@test("decoupled constraint: suggest names what to measure, a probe report keeps the trial live or completes it, bad partial reports 4xx and nothing written")
def t_decoupled_measure(c):
    s = create(c, {"name": "dec-measure",
                   "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                   "objectives": [{"name": "bleu", "goal": "maximize"}],
                   "constraints": [{"metric": "gpu_time", "max": 200, "decoupled": True},
                                   {"metric": "mem", "max": 8}],
                   "algorithm": {"name": "gp", "seed": 3}})
    sid = s["id"]
    # Fewer than 5 reports of gpu_time: nothing is known, so probe first.
    t = suggest(c, sid, "w1")["trials"][0]
    check(t["measure"] == ["gpu_time"], "first measure %r" % t.get("measure"))
    tid = t["id"]
    url = "/v1/trials/%d/report" % tid
    # Not asked for: the objective, a coupled constraint; unknown; NaN.
    expect_error(call(c.port, "POST", url, {"values": {"bleu": 20}}), 422,
                 "invalid_argument", "values.bleu")
    expect_error(call(c.port, "POST", url, {"values": {"gpu_time": 100, "mem": 4}}), 422,
                 "invalid_argument", "values.mem")
    expect_error(call(c.port, "POST", url, {"values": {"speed": 1}}), 422,
                 "invalid_argument", "values.speed")
    r = call(c.port, "POST", url, raw=b'{"values": {"gpu_time": NaN}}')
    check(400 <= r.status < 500, "NaN report answered %r" % r)
    g = get_trial(c, tid)
    check(g["values"] == {} and g["state"] == "pending", "a refused report wrote %r" % short(g))
    # The probe passes: the trial stays live and comes back for the rest.
    r = report(c, tid, {"gpu_time": 123.456789012345})
    check(r["trial"]["state"] == "running"
          and r["trial"]["values"] == {"gpu_time": 123.456789012345},
          "probe passed: %r" % short(r))
    back = suggest(c, sid, "w1")["trials"][0]
    check(back["id"] == tid and back["measure"] == ["bleu", "mem"],
          "handed back %r" % short(back))
    expect_error(call(c.port, "POST", url, {"values": {"gpu_time": 124}}), 409,
                 "conflict", "values.gpu_time")
    # Its stored gpu_time may be repeated; the trial completes with bleu.
    r = report(c, tid, {"gpu_time": 123.456789012345, "bleu": 20.25, "mem": 4})
    check(r["trial"]["state"] == "completed"
          and r["trial"]["values"] == {"gpu_time": 123.456789012345, "bleu": 20.25, "mem": 4},
          "trained: %r" % short(r))
    # A probe that fails completes the trial with the constraint alone.
    t2 = suggest(c, sid, "w2")["trials"][0]
    check(t2["measure"] == ["gpu_time"], "second measure %r" % t2.get("measure"))
    r = report(c, t2["id"], {"gpu_time": 900})
    check(r["trial"]["state"] == "completed" and r["trial"]["values"] == {"gpu_time": 900},
          "probe failed: %r" % short(r))
    again = report(c, t2["id"], {"gpu_time": 900})
    check(again["trial"]["values"] == {"gpu_time": 900}, "repeat %r" % short(again))
    check(get_trial(c, t2["id"])["values"] == {"gpu_time": 900}, "read back")
    # No measure on a study without a decoupled constraint.
    s2 = create(c, {"name": "coupled-measure",
                    "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                    "objectives": [{"name": "bleu", "goal": "maximize"}],
                    "constraints": [{"metric": "gpu_time", "max": 200}]})
    t3 = suggest(c, s2["id"], "w3")["trials"][0]
    check("measure" not in t3, "coupled study answered measure %r" % short(t3))


@test("ehvi with 8 objectives (the most a study takes): 30 model suggestions of free, distinct "
      "configurations, explained as ehvi, and a front of non-dominated trials")
def t_ehvi_many_objectives(c):
    # Before the scalarized estimate (core/mobo.h MOBO_EHVI_EXACT_MAX), each
    # draw of EHVI computed an 8-D hypervolume: a suggest after 22 trials
    # took 70-90 s and the requests below timed out.
    m = 8
    s = create(c, {"name": uname("ehvi-8"), "space": [{"name": "x%d" % k, "type": "float", "low": 0,
                                                "high": 1} for k in range(3)],
                   "objectives": [{"name": "o%d" % k, "goal": "maximize" if k % 2 else "minimize"}
                                  for k in range(m)],
                   "algorithm": {"name": "ehvi", "init": 3, "seed": 4}})
    seen = []
    for k in range(33):
        t = suggest(c, s["id"], "w%d" % k)["trials"][0]
        x = [t["params"]["x%d" % j] for j in range(3)]
        check(all(0 <= v <= 1 for v in x) and x not in seen, "suggested %r" % x)
        seen.append(x)
        # Each objective the distance to its own corner of the cube.
        vals = {"o%d" % j: math.fsum((x[i] - ((j >> i) & 1)) ** 2 for i in range(3))
                for j in range(m)}
        report(c, t["id"], vals)
        if k >= 3:
            e = expect(call(c.port, "GET", "/v1/trials/%d/explain" % t["id"]), 200)
            d = [x for x in e["decisions"] if x["kind"] == "suggest"]
            check(len(d) == 1 and d[0]["chooser"] == "model" and d[0]["acquisition"] == "ehvi",
                  "explain %r" % short(e))
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % s["id"]), 200)
    check(1 <= len(p["front"]) <= 33, "front of %d" % len(p["front"]))
