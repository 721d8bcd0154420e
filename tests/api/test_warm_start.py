"""tests/api/test_warm_start.py - "warm_start" (issue 16): a study started
from another study or a benchmark. Each form is created and read back; the
400/404/422 cases write nothing (an md5 of every table before and after);
a warm-started gp study on a table suggests first the candidates the
source ranks best, and its first model-based suggestion differs from the
same study's without warm_start.
"""

from harness import call, check, db_snapshot, expect, expect_error, short, test
from client import create, report, suggest, uname
from tables import NMTHPO_PARAMS, evaluate, need_tables, study_metrics, tsv_rows

P = "/v1/studies"


def gp_table(name, table="nmthpo/zh-en", **extra):
    b = {"name": name, "benchmark": table,
         "algorithm": {"name": "gp", "seed": 3, "init": 3}, "budget": 8}
    b.update(extra)
    return b


def run(c, s, k):
    """k suggest/report steps; the rows' parameters in order."""
    out = []
    for i in range(k):
        tr = suggest(c, s["id"], "w")["trials"][0]
        ev = evaluate(c, s["benchmark"], tr["params"])
        report(c, tr["id"], study_metrics(s, ev["values"]))
        out.append({p: tr["params"][p] for p in NMTHPO_PARAMS})
    return out


@test("warm_start: {benchmark} and {study} are stored and read back exactly; the first suggestions are the source's best rows")
def t_warm_forms(c):
    need_tables()
    s = create(c, gp_table(uname("ws-b"), warm_start={"benchmark": "nmthpo/ru-en"}))
    check(s["warm_start"] == {"benchmark": "nmthpo/ru-en"}, "created %r" % short(s, 500))
    g = expect(call(c.port, "GET", "%s/%d" % (P, s["id"])), 200)
    check(g["warm_start"] == {"benchmark": "nmthpo/ru-en"}, "read back %r" % short(g, 500))
    # The initial design: ru-en's best rows among zh-en's candidates.
    ru = tsv_rows("ru-en")
    zh = {tuple(r[p] for p in NMTHPO_PARAMS) for r in tsv_rows("zh-en")}
    shared = sorted((r for r in ru if tuple(r[p] for p in NMTHPO_PARAMS) in zh),
                    key=lambda r: -r["bleu"])
    got = run(c, s, 4)
    want = {p: shared[0][p] for p in NMTHPO_PARAMS}
    check(got[0] == want, "first suggestion %r, ru-en's best shared row %r" % (got[0], want))
    # The same study without warm_start chooses differently by step 4
    # (its initial design is random).
    plain = create(c, gp_table(uname("ws-plain")))
    check("warm_start" not in plain, "a study without a source has no warm_start key")
    check(run(c, plain, 4) != got, "warm start changed nothing in 4 steps")
    # A study as the source: its completed trials.
    t = create(c, gp_table(uname("ws-s"), warm_start={"study": s["id"]}))
    check(t["warm_start"] == {"study": s["id"]}, "created %r" % short(t, 500))
    g = expect(call(c.port, "GET", "%s/%d" % (P, t["id"])), 200)
    check(g["warm_start"] == {"study": s["id"]}, "read back %r" % short(g, 500))
    first = run(c, t, 1)[0]
    best = max(range(4), key=lambda i: evaluate(c, "nmthpo/zh-en", got[i])["values"]["bleu"])
    check(first == got[best], "first suggestion %r, the source study's best %r"
          % (first, got[best]))


@test("warm_start: bad shapes 400, an unknown study 404, unknown table, other algorithms, no shared objective or parameter 422; nothing written")
def t_warm_bad(c):
    need_tables()
    other = create(c, {"name": uname("ws-other"),
                       "space": [{"name": "depth", "type": "int", "values": [1, 2, 3]}],
                       "candidates": [{"depth": 1}, {"depth": 2}],
                       "objectives": [{"name": "loss", "goal": "minimize"}]})
    cases = [
        ({"warm_start": 5}, 400, "invalid_argument", "warm_start"),
        ({"warm_start": {}}, 400, "invalid_argument", "warm_start"),
        ({"warm_start": {"study": 1, "benchmark": "nmthpo/ru-en"}}, 400, "invalid_argument",
         "warm_start"),
        ({"warm_start": {"benchmark": "nmthpo/ru-en", "x": 1}}, 400, "invalid_argument", None),
        ({"warm_start": {"study": "7"}}, 400, "invalid_argument", None),
        ({"warm_start": {"study": 987654321}}, 404, "not_found", None),
        ({"warm_start": {"benchmark": "nmthpo/xx-yy"}}, 422, "invalid_argument",
         "warm_start.benchmark"),
        ({"warm_start": {"benchmark": "nmthpo/ru-en"},
          "algorithm": {"name": "random"}}, 422, "invalid_argument", "warm_start"),
        ({"warm_start": {"benchmark": "nmthpo/ru-en"},
          "objectives": [{"name": "gpu_time", "goal": "minimize"},
                         {"name": "bleu", "goal": "maximize"}],
          "algorithm": {"name": "ehvi"}}, 422, "invalid_argument", "warm_start"),
        ({"warm_start": {"study": other["id"]}}, 422, "invalid_argument", "warm_start.study"),
    ]
    before = db_snapshot(c.dburl)
    for extra, status, code, field in cases:
        r = call(c.port, "POST", P, gp_table(uname("ws-bad"), **extra))
        expect_error(r, status, code, field)
    # The objective shared, no parameter: a study over "depth" with bleu.
    nb = create(c, {"name": uname("ws-np"),
                    "space": [{"name": "depth", "type": "int", "values": [1, 2, 3]}],
                    "candidates": [{"depth": 1}, {"depth": 2}],
                    "objectives": [{"name": "bleu", "goal": "maximize"}],
                    "algorithm": {"name": "gp"}})
    before = db_snapshot(c.dburl)
    r = call(c.port, "POST", P, {"name": uname("ws-np2"),
                                 "space": [{"name": "depth", "type": "int",
                                            "values": [1, 2, 3]}],
                                 "candidates": [{"depth": 1}],
                                 "objectives": [{"name": "bleu", "goal": "maximize"}],
                                 "algorithm": {"name": "gp"},
                                 "warm_start": {"benchmark": "nmthpo/ru-en"}})
    expect_error(r, 422, "invalid_argument", "warm_start")
    check("parameter" in r.json["error"]["message"], "message %r" % r.json)
    # The source study exists but has no completed trial.
    r = call(c.port, "POST", P, {"name": uname("ws-np3"),
                                 "space": [{"name": "depth", "type": "int",
                                            "values": [1, 2, 3]}],
                                 "candidates": [{"depth": 1}],
                                 "objectives": [{"name": "bleu", "goal": "maximize"}],
                                 "algorithm": {"name": "gp"},
                                 "warm_start": {"study": nb["id"]}})
    expect_error(r, 422, "invalid_argument", "warm_start")
    check(db_snapshot(c.dburl) == before, "a refused create wrote something")
