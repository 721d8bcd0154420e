"""tests/api/test_auto.py - "algorithm": {"name": "auto"} (and an omitted
algorithm): the choice and its reason recorded in the definition, the seed,
load_if_exists, closed keys, the rule's cases on the nmthpo tables (118 and
767 rows, one and two objectives, constraints, a tiny budget), and an auto
study suggesting exactly what the chosen algorithm sent explicitly does.
"""

from harness import call, check, db_snapshot, expect, expect_error, is_int, short, test
from client import BLEU_MAX, SPACE4, create, report, suggest, uname
from tables import evaluate, need_tables, study_metrics

P = "/v1/studies"
GPU_MIN = {"name": "gpu_time", "goal": "minimize"}


def check_auto(s, name, case, seed=None):
    """s's algorithm is auto with chosen.name name and case; returns it."""
    a = s["algorithm"]
    check(a["name"] == "auto" and set(a) == {"name", "seed", "chosen", "case", "reason"},
          "auto algorithm %r" % short(a, 800))
    ch = a["chosen"]
    check(ch["name"] == name and a["case"] == case,
          "chose %r (case %r), want %s (%s)" % (ch, a["case"], name, case))
    check(is_int(a["seed"]) and ch["seed"] == a["seed"], "seeds %r / %r" % (a["seed"], ch))
    if seed is not None:
        check(a["seed"] == seed, "seed %r, sent %r" % (a["seed"], seed))
    # Two sentences: what was chosen for what, then why, ending with the
    # pointer to docs/auto.md (which has the figures).
    check(isinstance(a["reason"], str) and a["reason"].startswith("auto chose " + name)
          and a["reason"].count(". ") == 1
          and a["reason"].endswith("(details: docs/auto.md, case %s)." % case),
          "reason %r" % a["reason"])
    return a


def drive(c, s, n, ds):
    """n trials of study s on nmthpo/ds suggested and reported one by one;
    returns the rows' params in order."""
    out = []
    for k in range(n):
        t = suggest(c, s["id"], "auto-%d" % k)["trials"][0]
        ev = evaluate(c, "nmthpo/" + ds, t["params"])
        report(c, t["id"], study_metrics(s, ev["values"]))
        out.append(t["params"])
    return out


@test("auto: an omitted algorithm is auto; it records chosen, case and reason and suggests")
def t_auto_default(c):
    s = create(c, {"name": uname("auto default"), "space": SPACE4, "objectives": BLEU_MAX})
    a = check_auto(s, "gp", "continuous")
    check(a["chosen"] == {"name": "gp", "seed": a["seed"], "kernel": "matern52",
                          "acquisition": "ei", "init": 3, "lengthscale_min": 0.01},
          "chosen %r" % a["chosen"])
    check("a continuous space (no candidates) over 4 parameters (1 categorical)" in a["reason"],
          "reason %r" % a["reason"])
    g = expect(call(c.port, "GET", "%s/%d" % (P, s["id"])), 200)
    check(g["algorithm"] == a, "GET reads back %r" % short(g["algorithm"]))
    # null is the same as omitted; explicit auto too.
    n = create(c, {"name": uname("auto null"), "space": SPACE4, "objectives": BLEU_MAX,
                   "algorithm": None})
    check_auto(n, "gp", "continuous")
    e = create(c, {"name": uname("auto explicit"), "space": SPACE4, "objectives": BLEU_MAX,
                   "algorithm": {"name": "auto"}, "budget": 5})
    check_auto(e, "gp", "continuous")
    for k in range(4):
        t = suggest(c, e["id"], "w")["trials"][0]
        report(c, t["id"], {"bleu": 10.0 + k})
    ex = expect(call(c.port, "GET", "/v1/trials/%d/explain" % t["id"]), 200)
    d = [x for x in ex["decisions"] if x["kind"] == "suggest"][0]
    check(ex["algorithm"]["chosen"]["name"] == "gp" and d["chooser"] == "model"
          and d["sampler"] == "gp", "the 4th trial of an auto gp study: %r" % short(ex, 600))


@test("auto: a seed reads back, load_if_exists loads the same body, a new seed or method conflicts")
def t_auto_seed_load(c):
    n = uname("auto load")
    body = {"name": n, "space": SPACE4, "objectives": BLEU_MAX}
    s = create(c, body)
    a = check_auto(s, "gp", "continuous")
    got = expect(call(c.port, "POST", P, dict(body, load_if_exists=True)), 200)
    check(got["id"] == s["id"] and got["algorithm"] == a, "loaded %r" % short(got))
    got = expect(call(c.port, "POST", P, dict(body, load_if_exists=True,
                                              algorithm={"name": "auto"})), 200)
    check(got["id"] == s["id"], "explicit auto did not load the omitted one")
    got = expect(call(c.port, "POST", P, dict(body, load_if_exists=True,
                                              algorithm={"name": "auto", "seed": a["seed"]})), 200)
    check(got["id"] == s["id"], "auto with the study's own seed did not load it")
    expect_error(call(c.port, "POST", P, dict(body, load_if_exists=True,
                                              algorithm={"name": "auto",
                                                         "seed": (a["seed"] + 1) % (1 << 53)})),
                 409, "conflict", "algorithm")
    # The chosen algorithm sent by name is another definition.
    expect_error(call(c.port, "POST", P, dict(body, load_if_exists=True, algorithm=a["chosen"])),
                 409, "conflict", "algorithm")
    # With a seed: it is the chosen algorithm's, and loads with the same.
    n2 = uname("auto seed")
    s2 = create(c, dict(body, name=n2, algorithm={"name": "auto", "seed": 7}))
    check_auto(s2, "gp", "continuous", seed=7)
    got = expect(call(c.port, "POST", P, dict(body, name=n2, load_if_exists=True,
                                              algorithm={"name": "auto", "seed": 7})), 200)
    check(got["id"] == s2["id"], "auto seed 7 did not load")
    # A definition read back and sent again keeps its choice and reason.
    back = expect(call(c.port, "GET", "%s/%d" % (P, s2["id"])), 200)
    copy = {k: back[k] for k in ("space", "objectives", "algorithm")}
    r = create(c, dict(copy, name=uname("auto copy")))
    check(r["algorithm"] == back["algorithm"], "copy %r" % short(r["algorithm"]))


@test("auto: keys other than name and seed are 400; a read-back chosen is checked")
def t_auto_bad(c):
    base = {"name": uname("auto bad"), "space": SPACE4, "objectives": BLEU_MAX}
    for algo, status, code, field in (
            ({"name": "auto", "kernel": "rbf"}, 400, "invalid_argument", "algorithm.kernel"),
            ({"name": "auto", "init": 5}, 400, "invalid_argument", "algorithm.init"),
            ({"name": "auto", "reason": "mine"}, 400, "invalid_argument", "algorithm.reason"),
            ({"name": "auto", "chosen": {"name": "gp"}}, 400, "invalid_argument",
             "algorithm.case"),
            ({"name": "auto", "seed": "7"}, 400, "invalid_argument", "algorithm.seed"),
            ({"name": "auto", "chosen": {"name": "gp", "kernel": "cosine"}, "case": "c",
              "reason": "r"}, 422, "invalid_argument", "algorithm.chosen.kernel"),
            ({"name": "auto", "seed": 1, "chosen": {"name": "gp", "seed": 2}, "case": "c",
              "reason": "r"}, 422, "invalid_argument", "algorithm.chosen.seed")):
        expect_error(call(c.port, "POST", P, dict(base, algorithm=algo)), status, code, field)


@test("auto on nmthpo: 118 and 767 rows choose the same gp/nei with hedge, two objectives ehvi/graph, constraints gp, warm_start gp/ei")
def t_auto_tables(c):
    need_tables()
    zh = create(c, {"name": uname("auto zh"), "benchmark": "nmthpo/zh-en"})
    a = check_auto(zh, "gp", "so_finite")
    check(a["chosen"] == {"name": "gp", "seed": a["seed"], "kernel": "matern52",
                          "acquisition": "nei", "init": 3, "lengthscale_min": 0.01,
                          "trust_region": 8, "lengthscale_prior": 1.0, "hedge": True},
          "chosen %r" % a["chosen"])
    check("118 candidates (at most 1000)" in a["reason"]
          and "GP-Hedge, which lets the study's own results pick" in a["reason"]
          and a["reason"].endswith("(details: docs/auto.md, case so_finite)."),
          "reason %r" % a["reason"])
    check(len({str(p) for p in drive(c, zh, 5, "zh-en")}) == 5, "zh-en rows repeat")
    sw = create(c, {"name": uname("auto sw"), "benchmark": "nmthpo/sw-en"})
    # One case for every finite space up to the graph's bound: 767 rows
    # choose what 118 do (no size split survived leave-one-table-out).
    a2 = check_auto(sw, "gp", "so_finite")
    check(a2["chosen"] == dict(a["chosen"], seed=a2["seed"]), "sw-en chosen %r" % a2["chosen"])
    check("767 candidates (at most 1000)" in a2["reason"], "reason %r" % a2["reason"])
    drive(c, sw, 4, "sw-en")
    mo = create(c, {"name": uname("auto mo"), "benchmark": "nmthpo/zh-en",
                    "objectives": [BLEU_MAX[0], GPU_MIN]})
    a = check_auto(mo, "ehvi", "mo_finite")
    check(a["chosen"]["surrogate"] == "graph" and a["chosen"]["trust_region"] == 2
          and a["chosen"]["trust_shape"] == "steps"
          and a["chosen"]["front_reference"] == 0.3 and a["chosen"]["gp_blend"] == "first"
          and "2 objectives" in a["reason"],
          "chosen %r" % a)
    drive(c, mo, 4, "zh-en")
    mol = create(c, {"name": uname("auto mo sw"), "benchmark": "nmthpo/sw-en",
                     "objectives": [BLEU_MAX[0], GPU_MIN]})
    ch = check_auto(mol, "ehvi", "mo_finite")["chosen"]
    check(ch["surrogate"] == "graph" and ch["trust_region"] == 2
          and ch["trust_shape"] == "steps"
          and ch["front_reference"] == 0.3 and ch["gp_blend"] == "first", "sw-en mo %r" % ch)
    con = create(c, {"name": uname("auto con"), "benchmark": "nmthpo/ja-en",
                     "constraints": [{"metric": "gpu_time", "max": 1.0}]})
    check("1 constraint" in check_auto(con, "gp", "constrained")["reason"], "constrained")
    drive(c, con, 4, "ja-en")
    tiny = create(c, {"name": uname("auto tiny"), "benchmark": "nmthpo/zh-en", "budget": 3})
    check_auto(tiny, "random", "tiny_budget")
    four = create(c, {"name": uname("auto four"), "benchmark": "nmthpo/zh-en", "budget": 4})
    check_auto(four, "gp", "so_finite")
    # A source's prior is a GP prior mean: warm_start chooses gp/ei, even
    # with a tiny budget (the prior picks the first trials), and suggests.
    ws = create(c, {"name": uname("auto warm"), "benchmark": "nmthpo/zh-en", "budget": 3,
                    "warm_start": {"benchmark": "nmthpo/ru-en"}})
    a = check_auto(ws, "gp", "warm_start")
    check(a["chosen"]["acquisition"] == "ei" and "lengthscale_min" in a["chosen"],
          "warm chosen %r" % a["chosen"])
    check(ws["warm_start"] == {"benchmark": "nmthpo/ru-en"}, "warm %r" % ws.get("warm_start"))
    drive(c, ws, 3, "zh-en")


@test("auto on nmthpo/zh-en suggests exactly what its chosen algorithm sent explicitly does")
def t_auto_same_as_chosen(c):
    need_tables()
    au = create(c, {"name": uname("auto same"), "benchmark": "nmthpo/zh-en",
                    "algorithm": {"name": "auto", "seed": 11}})
    ch = check_auto(au, "gp", "so_finite", seed=11)["chosen"]
    ex = create(c, {"name": uname("auto same explicit"), "benchmark": "nmthpo/zh-en",
                    "algorithm": ch})
    check(ex["algorithm"] == ch, "explicit %r" % ex["algorithm"])
    got_a, got_e = drive(c, au, 7, "zh-en"), drive(c, ex, 7, "zh-en")
    check(got_a == got_e, "auto %r, explicit %r" % (got_a, got_e))


X1 = [{"name": "x", "type": "int", "low": 0, "high": 100000}]


@test("graphs over more than 4000 candidates are refused at creation (422, nothing written); "
      "auto over 40000 candidates and two objectives chooses ehvi/gp (mo_huge) and suggests")
def t_graph_size(c):
    cands = [{"x": i} for i in range(4001)]
    before = db_snapshot(c.dburl)
    for algo, objs, field in (({"name": "graph"}, BLEU_MAX, "algorithm.name"),
                              ({"name": "gp", "hedge": True}, BLEU_MAX, "algorithm.hedge"),
                              ({"name": "ehvi", "surrogate": "graph"}, [BLEU_MAX[0], GPU_MIN],
                               "algorithm.surrogate")):
        r = call(c.port, "POST", P, {"name": uname("big graph"), "space": X1, "objectives": objs,
                                     "candidates": cands, "algorithm": algo})
        expect_error(r, 422, "invalid_argument", field)
        check("at most 4000 candidates, this study has 4001" in r.json["error"]["message"],
              "message %r" % r.json["error"]["message"])
    check(db_snapshot(c.dburl) == before, "a refused study changed the database")
    # 4000 is allowed (the graph is not built until a model step).
    create(c, {"name": uname("graph 4000"), "space": X1, "objectives": BLEU_MAX,
               "candidates": cands[:4000], "algorithm": {"name": "graph"}})
    # Before the limit, auto chose ehvi's graph here and the first model
    # step asked for n-by-n weights (12.8 GB at 40000): the server died.
    s = create(c, {"name": uname("auto huge"), "space": X1, "objectives": [BLEU_MAX[0], GPU_MIN],
                   "candidates": [{"x": i} for i in range(40000)]})
    a = check_auto(s, "ehvi", "mo_huge")
    check(a["chosen"]["surrogate"] == "gp" and a["chosen"]["front_reference"] == 0.5
          and "gp_blend" not in a["chosen"], "chosen %r" % a["chosen"])
    check("40000 candidates (more than 1000)" in a["reason"], "reason %r" % a["reason"])
    seen = set()
    for k in range(6):
        t = suggest(c, s["id"], "huge-%d" % k)["trials"][0]
        x = t["params"]["x"]
        check(0 <= x < 40000 and x not in seen, "suggested %r after %r" % (x, sorted(seen)))
        seen.add(x)
        report(c, t["id"], {"bleu": (x % 977) / 977.0, "gpu_time": 1.0 + (x % 613)})
    expect(call(c.port, "GET", "%s/%d/pareto" % (P, s["id"])), 200)
