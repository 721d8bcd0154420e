"""tests/api/test_evolve.py - studies that evolve (docs/guide.md, "Studies
that evolve"): PATCH /v1/studies/{id} with a new "space" (a parameter
added with its default, bounds widened and narrowed, a parameter frozen;
earlier trials kept, in the model where they fit; bad changes write
nothing), POST /v1/studies/{id}/copy, GET /v1/studies/{id}/related and
"warm_start": {"auto": true}.
"""

from harness import call, check, db_snapshot, expect, expect_error, short, test
from client import all_trials, create, suggest, uname

X = {"name": "x", "type": "float", "low": 0.0, "high": 1.0}
OPT = {"name": "opt", "type": "categorical", "choices": ["adam", "sgd", "adafactor"]}
BLEU = [{"name": "bleu", "goal": "maximize"}]
# Added trials (x, opt, bleu).
POINTS = [(0.1, "adam", 1.0), (0.3, "sgd", 2.0), (0.5, "adam", 3.0), (0.7, "sgd", 1.5),
          (0.2, "adafactor", 2.5), (0.9, "adam", 4.0)]


def gp_study(c, name, space=None, trials=POINTS):
    sid = create(c, {"name": uname(name), "space": space or [X, OPT], "objectives": BLEU,
                     "algorithm": {"name": "gp", "seed": 5, "init": 3}})["id"]
    for x, opt, b in trials:
        expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                    {"params": {"x": x, "opt": opt}, "values": {"bleu": b}}), 201)
    return sid


def get_study(c, sid):
    return expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)


def patch_space(c, sid, space, status=200):
    return expect(call(c.port, "PATCH", "/v1/studies/%d" % sid, {"space": space}), status)


def trials_of(c, sid):
    return all_trials(c, sid)["trials"]


def next_choice(c, sid, worker):
    """The next suggestion's params and the number of observations its
    model was fitted on (explain)."""
    t = suggest(c, sid, worker)["trials"][0]
    ex = expect(call(c.port, "GET", "/v1/trials/%d/explain" % t["id"]), 200)
    d = [x for x in ex["decisions"] if x["kind"] == "suggest"][0]
    check(d.get("chooser") == "model", "chooser %r" % short(d))
    return t, d["n_observations"]


def audit_last(c, sid):
    ev = expect(call(c.port, "GET", "/v1/audit?study=%d&limit=1" % sid), 200)["events"]
    return ev[0] if ev else None


@test("evolve: a parameter added with its default keeps the trials; the next suggestion has it; one study.patch event")
def t_add(c):
    sid = gp_study(c, "evolve add")
    before = trials_of(c, sid)
    lr = {"name": "lr", "type": "float", "low": 1e-4, "high": 1e-1, "log": True, "default": 0.01}
    s = patch_space(c, sid, [X, OPT, lr])
    check(s["space_version"] == 2, "space_version %r" % s.get("space_version"))
    got = s["space"][2]
    check(got == dict(lr, added_in=2), "new entry %r" % got)
    check(s["space"][:2] == get_study(c, sid)["space"][:2] and s == get_study(c, sid),
          "the study read back differs")
    check(trials_of(c, sid) == before, "the trials changed")
    t, n_obs = next_choice(c, sid, "w")
    check(set(t["params"]) == {"x", "opt", "lr"} and 1e-4 <= t["params"]["lr"] <= 1e-1,
          "params %r" % t["params"])
    check(n_obs == len(POINTS), "model on %d observations, want %d (defaults)" % (n_obs, len(POINTS)))
    e = audit_last(c, sid)
    check(e["action"] == "study.patch" and e["detail"]["space_version"] == 2 and
          e["detail"]["space"] == s["space"], "audit %r" % short(e))
    # The same space again changes nothing: no new version, no event.
    again = patch_space(c, sid, s["space"])
    check(again["space_version"] == 2 and audit_last(c, sid)["id"] == e["id"],
          "a no-op patch %r" % short(again))
    # A trial enqueued without the new parameter takes its default.
    q = expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                    {"params": {"x": 0.4, "opt": "sgd"}}), 201)
    check(q["params"] == {"x": 0.4, "opt": "sgd", "lr": 0.01}, "enqueued %r" % q["params"])


@test("evolve: narrow leaves trials outside the model but listed, widen brings them back, fixed freezes")
def t_narrow_widen_freeze(c):
    sid = gp_study(c, "evolve bounds")
    # Warm every cache of this server first: histories, the kept GP.
    next_choice(c, sid, "w0")
    n_trials = len(trials_of(c, sid))
    narrow = dict(X, high=0.5)
    s = patch_space(c, sid, [narrow, OPT])
    check(s["space_version"] == 2 and s["space"][0]["high"] == 0.5, "narrowed %r" % s["space"])
    inside = sum(1 for x, _, _ in POINTS if x <= 0.5)
    t, n_obs = next_choice(c, sid, "w1")
    check(0.0 <= t["params"]["x"] <= 0.5, "x %r outside the narrowed range" % t["params"]["x"])
    # The first suggestion (x anywhere in [0, 1]) is live: pending, in the
    # model only if it fits, never an observation.
    check(n_obs == inside, "model on %d observations, want %d inside" % (n_obs, inside))
    check(len(trials_of(c, sid)) == n_trials + 1, "trials are no longer listed")
    wide = dict(X, low=-1.0, high=2.0)
    s = patch_space(c, sid, [wide, OPT])
    check(s["space_version"] == 3, "space_version %r" % s.get("space_version"))
    t, n_obs = next_choice(c, sid, "w2")
    check(-1.0 <= t["params"]["x"] <= 2.0, "x %r" % t["params"]["x"])
    check(n_obs == len(POINTS), "widened: model on %d, want %d" % (n_obs, len(POINTS)))
    s = patch_space(c, sid, [wide, {"name": "opt", "type": "categorical", "fixed": "adam"}])
    check(s["space_version"] == 4 and s["space"][1] == {
        "name": "opt", "type": "categorical", "choices": ["adam"], "fixed": "adam"},
        "frozen %r" % s["space"][1])
    adam = sum(1 for _, o, _ in POINTS if o == "adam")
    for k in range(3):
        t, n_obs = next_choice(c, sid, "w3-%d" % k)
        check(t["params"]["opt"] == "adam", "frozen opt %r" % t["params"]["opt"])
        check(n_obs == adam, "frozen: model on %d, want %d" % (n_obs, adam))
    # The stored form of a frozen parameter is accepted back as it is,
    # and unfreezing is a widening.
    patch_space(c, sid, s["space"])
    s = patch_space(c, sid, [wide, OPT])
    check(s["space_version"] == 5 and s["space"][1] == OPT, "unfrozen %r" % s["space"][1])


@test("evolve: a space changed through one server is what another server's next suggest uses, its caches warm")
def t_two_servers(c):
    b = c.server()
    sid = gp_study(c, "evolve two")
    # Server b holds the study's definition, history and kept GP.
    t = suggest(c, sid, "b0", port=b.port)["trials"][0]
    check(set(t["params"]) == {"x", "opt"}, "params %r" % t["params"])
    lr = {"name": "lr", "type": "int", "low": 1, "high": 3, "default": 2}
    patch_space(c, sid, [dict(X, high=0.5), OPT, lr])
    inside = sum(1 for x, _, _ in POINTS if x <= 0.5)
    for k in range(3):
        t = suggest(c, sid, "b%d" % (k + 1), port=b.port)["trials"][0]
        check(set(t["params"]) == {"x", "opt", "lr"} and t["params"]["x"] <= 0.5,
              "server b suggested %r" % t["params"])
        ex = expect(call(b.port, "GET", "/v1/trials/%d/explain" % t["id"]), 200)
        d = [x for x in ex["decisions"] if x["kind"] == "suggest"][0]
        check(d["n_observations"] == inside, "server b's model on %d observations, want %d"
              % (d["n_observations"], inside))


def bad_cases():
    lr = {"name": "lr", "type": "float", "low": 0.001, "high": 0.1}
    return [
        ("removed", [X], 422, "space"),
        ("type changed", [{"name": "x", "type": "int", "low": 0, "high": 1}, OPT], 422,
         "space[0].type"),
        ("no default", [X, OPT, lr], 422, "space[2].default"),
        ("default outside", [X, OPT, dict(lr, default=0.5)], 422, "space[2].default"),
        ("default not a choice", [X, OPT, {"name": "b", "type": "categorical",
                                           "choices": ["p"], "default": "q"}], 422,
         "space[2].default"),
        ("added_in given", [X, OPT, dict(lr, default=0.01, added_in=7)], 422,
         "space[2].added_in"),
        ("default changed", [dict(X, default=0.3), OPT], 422, "space[0].default"),
        ("low >= high", [dict(X, low=2.0), OPT], 422, "space[0].low"),
        ("fixed with low", [dict(X, fixed=0.5), OPT], 422, "space[0].low"),
        ("fixed not a value", [X, {"name": "opt", "type": "categorical", "fixed": ["a"]}],
         400, "space[1].fixed"),
        ("fixed and other choices", [X, dict(OPT, fixed="adam")], 422, "space[1].choices"),
        ("default with condition", [X, OPT, dict(lr, default=0.01, condition={
            "param": "opt", "in": ["sgd"]})], 422, "space[2].default"),
        ("duplicate", [X, OPT, X], 422, "space[2].name"),
        ("not an array", {"x": 1}, 400, "space"),
        ("unknown key", [dict(X, step=2), OPT], 400, "space[0].step"),
    ]


@test("evolve: a bad space change answers 4xx naming the field and changes nothing")
def t_bad(c):
    sid = gp_study(c, "evolve bad")
    study, trials = get_study(c, sid), trials_of(c, sid)
    snap = db_snapshot(c.dburl)
    for what, space, status, field in bad_cases():
        r = call(c.port, "PATCH", "/v1/studies/%d" % sid, {"space": space})
        expect_error(r, status, "invalid_argument", field)
        # With a state beside it: neither is written.
        r = call(c.port, "PATCH", "/v1/studies/%d" % sid, {"space": space, "state": "paused"})
        expect_error(r, status, "invalid_argument", field)
        check(db_snapshot(c.dburl) == snap, "%s: the database changed" % what)
    check(get_study(c, sid) == study and trials_of(c, sid) == trials, "the study changed")
    # A study with candidates has a fixed space: 409, nothing written.
    fin = create(c, {"name": uname("evolve fixed"), "space": [X],
                     "candidates": [{"x": 0.1}, {"x": 0.2}], "objectives": BLEU})["id"]
    snap = db_snapshot(c.dburl)
    expect_error(call(c.port, "PATCH", "/v1/studies/%d" % fin, {"space": [dict(X, high=2.0)]}),
                 409, "conflict", "space")
    check(db_snapshot(c.dburl) == snap, "candidates: the database changed")
    # A new parameter needs no default while the study has no trials.
    empty = gp_study(c, "evolve empty", trials=[])
    s = patch_space(c, empty, [X, OPT, {"name": "k", "type": "int", "low": 1, "high": 4}])
    check(s["space"][2] == {"name": "k", "type": "int", "low": 1, "high": 4, "log": False,
                            "added_in": 2}, "entry %r" % s["space"][2])


# -- copy --------------------------------------------------------------------

DEF_KEYS = ("space", "objectives", "constraints", "algorithm", "budget", "benchmark",
            "lease_seconds", "reference", "n_candidates", "space_version", "define_by_run",
            "warm_start")


@test("evolve: copy takes the definition and every completed trial (params, values, metadata) as added trials; one study.copy event")
def t_copy(c):
    sid = gp_study(c, "copy src")
    # A suggested trial that reported steps, a failed one, an excluded one
    # and one with metadata beside the added ones.
    t = suggest(c, sid, "w")["trials"][0]
    expect(call(c.port, "POST", "/v1/trials/%d/report" % t["id"],
                {"values": {"bleu": 0.5}, "step": 1}), 200)
    expect(call(c.port, "POST", "/v1/trials/%d/report" % t["id"], {"values": {"bleu": 0.7}}), 200)
    f = suggest(c, sid, "w2")["trials"][0]
    expect(call(c.port, "POST", "/v1/trials/%d/fail" % f["id"], {"reason": "oom"}), 200)
    src = trials_of(c, sid)
    ex = [x for x in src if x["state"] == "completed"][1]
    expect(call(c.port, "POST", "/v1/trials/%d/exclude" % ex["id"], {"reason": "leak"}), 200)
    meta = [x for x in src if x["state"] == "completed"][2]
    expect(call(c.port, "PATCH", "/v1/trials/%d" % meta["id"], {"metadata": {"run": "r7"}}), 200)
    src = trials_of(c, sid)
    want = [x for x in src if x["state"] == "completed" and not x.get("excluded")]
    name = uname("copy dst")
    new = expect(call(c.port, "POST", "/v1/studies/%d/copy" % sid, {"name": name}), 201)
    old = get_study(c, sid)
    check(new["name"] == name and new["lab"] == old["lab"] and new["id"] != sid,
          "copy %r" % short(new))
    for k in DEF_KEYS:
        check(new.get(k) == old.get(k), "%s: %r, source %r" % (k, new.get(k), old.get(k)))
    got = trials_of(c, new["id"])
    check(len(got) == len(want) == len(POINTS), "copied %d trials, want %d" % (len(got), len(want)))
    for k, (a, b) in enumerate(zip(got, want)):
        check(a["number"] == k and a["state"] == "completed" and a["origin"] == "added",
              "copied trial %r" % short(a))
        for key in ("params", "values", "metadata"):
            check(a[key] == b[key], "trial %d %s %r, source %r" % (k, key, a[key], b[key]))
    check(new["trial_counts"]["completed"] == len(want), "counts %r" % new["trial_counts"])
    e = audit_last(c, new["id"])
    check(e["action"] == "study.copy" and e["target"] == "study/%d" % new["id"] and
          e["detail"] == {"name": name, "from": sid, "trials": len(want)}, "audit %r" % short(e))
    # The copy's model has the copied trials.
    t, n_obs = next_choice(c, new["id"], "w")
    check(n_obs == len(want), "the copy's model on %d observations, want %d" % (n_obs, len(want)))
    # A taken name: 409, nothing written; the source's other lab fields.
    snap = db_snapshot(c.dburl)
    expect_error(call(c.port, "POST", "/v1/studies/%d/copy" % sid, {"name": name}), 409,
                 "conflict", "name")
    expect_error(call(c.port, "POST", "/v1/studies/%d/copy" % sid, {}), 400,
                 "invalid_argument", "name")
    expect_error(call(c.port, "POST", "/v1/studies/%d/copy" % sid, {"name": "x", "n": 1}), 400,
                 "invalid_argument", "n")
    expect_error(call(c.port, "POST", "/v1/studies/%d/copy" % sid, {"name": ""}), 422,
                 "invalid_argument", "name")
    expect_error(call(c.port, "POST", "/v1/studies/999999/copy", {"name": "x"}), 404, "not_found")
    check(db_snapshot(c.dburl) == snap, "a refused copy changed the database")


@test("evolve: a finite study's copy has its candidates, and the copied trials hold theirs")
def t_copy_finite(c):
    cands = [{"x": x / 10} for x in range(10)]
    sid = create(c, {"name": uname("copy fin"), "space": [X], "candidates": cands,
                     "objectives": BLEU, "algorithm": {"name": "gp", "seed": 2, "init": 2}})["id"]
    for x in (0.2, 0.5, 0.7):
        expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                    {"params": {"x": x}, "values": {"bleu": x}}), 201)
    new = expect(call(c.port, "POST", "/v1/studies/%d/copy" % sid, {"name": uname("copy fin")}),
                 201)
    check(new["n_candidates"] == 10, "n_candidates %r" % new["n_candidates"])
    expect_error(call(c.port, "POST", "/v1/studies/%d/trials" % new["id"],
                      {"params": {"x": 0.5}, "values": {"bleu": 1.0}}), 409, "conflict")
    seen = {t["params"]["x"] for t in trials_of(c, new["id"])}
    for k in range(7):
        x = suggest(c, new["id"], "w%d" % k)["trials"][0]["params"]["x"]
        check(x not in seen, "candidate %r handed out twice" % x)
        seen.add(x)


# -- related studies and warm_start auto -------------------------------------

A = {"name": "a", "type": "float", "low": 0.0, "high": 1.0}
B = {"name": "b", "type": "int", "low": 1, "high": 5}
O2 = {"name": "o", "type": "categorical", "choices": ["adam", "sgd"]}
CONFIGS = [(0.1, 1, "adam"), (0.2, 2, "sgd"), (0.3, 3, "adam"), (0.4, 4, "sgd"),
           (0.5, 5, "adam"), (0.6, 1, "sgd")]
TARGET_Y = [3.0, 1.0, 4.0, 1.5, 5.0, 9.0]


def spearman(x, y):
    """Spearman's rho by its definition: Pearson of average ranks."""
    def ranks(v):
        return [sum(w < u for w in v) + (sum(w == u for w in v) + 1) / 2 for u in v]
    rx, ry = ranks(x), ranks(y)
    n = len(x)
    mx, my = sum(rx) / n, sum(ry) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5


def lab_study(c, lab, name, space, trials, objectives=BLEU, **kw):
    """A study of lab with added trials [(params, values)]."""
    body = dict({"name": uname(name), "lab": lab, "space": space, "objectives": objectives,
                 "algorithm": {"name": "random", "seed": 1}}, **kw)
    sid = create(c, body)["id"]
    for params, values in trials:
        expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                    {"params": params, "values": values}), 201)
    return sid


def abo(cfg, keys=("a", "b", "o")):
    return dict(zip(keys, cfg))


@test("evolve: related ranks the lab's studies by Spearman on shared configurations, then by parameter overlap")
def t_related(c):
    lab = "rel%d" % c.port
    target = lab_study(c, lab, "rel target", [A, B, O2],
                       [(abo(k), {"bleu": y}) for k, y in zip(CONFIGS, TARGET_Y)])
    # Agrees (choices in another order, a repeat whose first trial counts,
    # a configuration of its own): 5 shared configurations.
    agree_y = [y * 2 for y in TARGET_Y]
    agree = lab_study(c, lab, "rel agree", [A, B, dict(O2, choices=["sgd", "adam"])],
                      [(abo(k), {"bleu": y}) for k, y in zip(CONFIGS[:5], agree_y)] +
                      [(abo(CONFIGS[0]), {"bleu": -50.0}), (abo((0.9, 2, "sgd")), {"bleu": 0.0})])
    # Two of three parameters, values that partly disagree; its own z.
    Z = {"name": "z", "type": "float", "low": 0.0, "high": 1.0}
    part_y = [5.0, 4.0, 1.0, 2.0, 3.0, 0.0]
    part = lab_study(c, lab, "rel part", [A, B, Z],
                     [({"a": k[0], "b": k[1], "z": 0.5}, {"bleu": y}) for k, y in zip(CONFIGS, part_y)])
    # Same space, no shared configuration; two of three without trials.
    apart = lab_study(c, lab, "rel apart", [A, B, O2], [(abo((0.95, 5, "adam")), {"bleu": 1.0})])
    few = lab_study(c, lab, "rel few", [A, B, Z], [])
    # Not related: one parameter in three, another objective, another lab.
    lab_study(c, lab, "rel one", [A, {"name": "q", "type": "int", "low": 0, "high": 3}], [])
    lab_study(c, lab, "rel loss", [A, B, O2], [], objectives=[{"name": "loss", "goal": "minimize"}])
    lab_study(c, lab + "x", "rel other lab", [A, B, O2],
              [(abo(k), {"bleu": y}) for k, y in zip(CONFIGS, TARGET_Y)])
    got = expect(call(c.port, "GET", "/v1/studies/%d/related" % target), 200)
    check(got["study"] == target, "study %r" % got["study"])
    ids = [r["id"] for r in got["related"]]
    rho_part = spearman(TARGET_Y, part_y)
    check(rho_part < 1, "the test's data: rho %r" % rho_part)
    check(ids == [agree, part, apart, few], "order %r, want %r" % (ids, [agree, part, apart, few]))
    r = {x["id"]: x for x in got["related"]}
    check(r[agree]["n_shared"] == 5 and abs(r[agree]["spearman"] - 1.0) < 1e-12 and
          r[agree]["overlap"] == 1 and r[agree]["shared_params"] == ["a", "b", "o"] and
          r[agree]["objective"] == "bleu", "agree %r" % r[agree])
    check(r[part]["n_shared"] == 6 and abs(r[part]["spearman"] - rho_part) < 1e-12 and
          r[part]["shared_params"] == ["a", "b"] and abs(r[part]["overlap"] - 2 / 3) < 1e-12,
          "part %r, want rho %r" % (r[part], rho_part))
    check(r[apart]["n_shared"] == 0 and r[apart]["spearman"] is None, "apart %r" % r[apart])
    check(r[few]["spearman"] is None and abs(r[few]["overlap"] - 2 / 3) < 1e-12, "few %r" % r[few])
    # An excluded trial leaves the comparison.
    t0 = [t for t in trials_of(c, agree) if t["number"] == 0][0]
    expect(call(c.port, "POST", "/v1/trials/%d/exclude" % t0["id"], {"reason": "x"}), 200)
    r2 = {x["id"]: x for x in expect(call(c.port, "GET", "/v1/studies/%d/related" % target),
                                     200)["related"]}
    # Its repeat (number 5, -50) now stands for configuration 0.
    want = spearman(TARGET_Y[:5], [-50.0] + agree_y[1:5])
    check(r2[agree]["n_shared"] == 5 and abs(r2[agree]["spearman"] - want) < 1e-12,
          "after exclusion %r, want %r" % (r2[agree], want))


@test("evolve: warm_start auto starts from the best related study, or cold with a reason")
def t_warm_auto(c):
    lab = "warm%d" % c.port
    cands = [abo(k) for k in CONFIGS]
    body = {"space": [A, B, O2], "candidates": cands, "objectives": BLEU, "lab": lab,
            "algorithm": {"name": "gp", "seed": 3, "init": 2}, "warm_start": {"auto": True}}
    cold = create(c, dict(body, name=uname("warm cold")))
    ws = cold["warm_start"]
    check(set(ws) == {"auto", "reason"} and ws["auto"] is True and "starts cold" in ws["reason"],
          "cold warm_start %r" % ws)
    # Sources: one of a third of the parameters (not related), one related
    # whose best configuration is CONFIGS[4].
    lab_study(c, lab, "warm one", [A], [({"a": 0.1}, {"bleu": 100.0})])
    src_y = [1.0, 2.0, 0.5, 3.0, 10.0, 0.1]
    src = lab_study(c, lab, "warm src", [A, B, O2],
                    [(abo(k), {"bleu": y}) for k, y in zip(CONFIGS, src_y)])
    warm = create(c, dict(body, name=uname("warm auto")))
    ws = warm["warm_start"]
    check(ws.get("study") == src and ws["auto"] is True and "study %d" % src in ws["reason"],
          "warm_start %r" % ws)
    # The initial design starts at the candidate the source ranks best.
    t = suggest(c, warm["id"], "w")["trials"][0]
    check(t["params"] == cands[4], "first suggestion %r, want %r" % (t["params"], cands[4]))
    # The definition read back and sent again keeps its choice.
    again = create(c, dict(body, name=uname("warm again"), warm_start=ws))
    check(again["warm_start"] == ws, "resent %r" % again["warm_start"])
    for bad, field in (({"auto": False}, "warm_start.auto"),
                       ({"auto": True, "benchmark": "nmthpo/ru-en"}, "warm_start.benchmark"),
                       ({"study": src, "reason": "x"}, "warm_start.reason")):
        expect_error(call(c.port, "POST", "/v1/studies", dict(body, name=uname("warm bad"),
                                                             warm_start=bad)),
                     400, "invalid_argument", field)
    expect_error(call(c.port, "POST", "/v1/studies", dict(
        body, name=uname("warm rnd"), algorithm={"name": "random"})), 422, "invalid_argument",
        "warm_start")
