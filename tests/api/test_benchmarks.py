"""tests/api/test_benchmarks.py - /v1/benchmarks: the built-in tables and
learning curves, importing a table (seen by a second server, 409 again),
evaluate.
"""


from harness import call, check, db_snapshot, expect, expect_error, is_int, short, test
from client import BLEU_MAX, canon, create, report, suggest
from tables import (ALL_METRICS, NMTHPO, NMTHPO_METRICS, NMTHPO_PARAMS, NMTLC, SYN_PARAMS,
                    bench_path, check_benchmark, check_simulation, curve_models, differing,
                    evaluate, expected_benchmark, need_tables, oracle_of, pareto_rows,
                    same_simulation, simulate, study_metrics, synthetic_table, tsv_rows)


@test("benchmarks: the six nmthpo tables (sizes, parameters, oracle, Pareto sets) and the learning curves")
def t_bench_builtin(c):
    need_tables()
    lst = expect(call(c.port, "GET", "/v1/benchmarks"), 200)["benchmarks"]
    names = [b["name"] for b in lst]
    check(names == sorted(names), "benchmarks not sorted by name: %r" % names)
    check(len(set(names)) == len(names), "a name listed twice: %r" % names)
    by = {b["name"]: b for b in lst}
    for ds, rows, best_row, best, npareto in NMTHPO:
        name = "nmthpo/" + ds
        check(name in by, "%s not listed (got %r)" % (name, names))
        s = by[name]
        check(s["kind"] == "table" and s["source"] == "files" and s["size"] == rows,
              "%s listed as %r" % (name, short(s)))
        check(s["params"] == NMTHPO_PARAMS, "%s params %r" % (name, s["params"]))
        check(sorted(s["metrics"]) == sorted(NMTHPO_METRICS), "%s metrics %r"
              % (name, s["metrics"]))
        b = expect(call(c.port, "GET", bench_path(name)), 200)
        for k in s:
            check(b.get(k) == s[k], "%s: GET says %s %r, the list %r" % (name, k, b.get(k), s[k]))
        check(b["oracle"]["bleu"]["max_row"] == best_row and b["oracle"]["bleu"]["max"] == best,
              "%s oracle bleu %r, expected %s at row %d" % (name, b["oracle"]["bleu"], best,
                                                            best_row))
        check(len(b["pareto"]) == npareto, "%s: %d Pareto rows, expected %d"
              % (name, len(b["pareto"]), npareto))
        # Everything else against the file itself.
        t = tsv_rows(ds)
        check(len(t) == rows, "%s.tsv has %d rows (the suite expects %d)" % (ds, len(t), rows))
        want = {"parameters": [{"name": p, "values": sorted({r[p] for r in t})}
                               for p in NMTHPO_PARAMS],
                "oracle": {m: oracle_of([r[m] for r in t]) for m in NMTHPO_METRICS},
                "pareto": [i for i, r in enumerate(t) if r["pareto"]]}
        check(want["pareto"] == pareto_rows([r["bleu"] for r in t], [r["gpu_time"] for r in t]),
              "%s.tsv: pareto column disagrees with the dominance computed here" % ds)
        check_benchmark(b, want, name)
        check("max_step" not in b, "%s: a table with max_step" % name)
    for ds in NMTLC:
        name = "nmtlc/" + ds
        check(name in by, "%s not listed (got %r)" % (name, names))
        s = by[name]
        models = curve_models(ds)
        configs = {canon(h) for h, _ in models}
        check(s["kind"] == "curves" and s["source"] == "files" and s["metrics"] == ["ppl"],
              "%s listed as %r" % (name, short(s)))
        # The file has repeated configurations (different runs of the same
        # hyperparameters): size may count models or distinct configurations.
        check(s["size"] in (len(models), len(configs)), "%s size %r: %d models, %d configurations"
              % (name, s["size"], len(models), len(configs)))
        check(set(s["params"]) <= set(models[0][0]), "%s params %r, hyperparams %r"
              % (name, s["params"], sorted(models[0][0])))
        b = expect(call(c.port, "GET", bench_path(name)), 200)
        longest = max(len(cv) for _, cv in models)
        check(b.get("max_step") == longest - 1, "%s max_step %r: the longest curve has %d "
              "checkpoints, steps 0..%d" % (name, b.get("max_step"), longest, longest - 1))
        check(b["pareto"] == [], "%s pareto %r" % (name, b["pareto"]))
        for p in b["parameters"]:
            check(p["values"] == sorted({h[p["name"]] for h, _ in models}),
                  "%s parameter %s values %r" % (name, p["name"], p["values"]))
    expect_error(call(c.port, "GET", bench_path("nmthpo/zh")), 404, "not_found")
    expect_error(call(c.port, "GET", bench_path("nmtlc/ted-xx-en")), 404, "not_found")


@test("benchmarks: import a table, describe it (oracle, Pareto), evaluate, simulate; a second server sees it; again is 409")
def t_bench_import(c):
    table = synthetic_table("lab/synthetic")
    want = expected_benchmark(table)
    check(want["oracle"]["bleu"]["max_row"] == 7 and want["pareto"] == [0, 1, 2, 3, 4, 7],
          "the suite's own table is not what it claims: %r" % want)
    got = expect(call(c.port, "POST", "/v1/benchmarks", table), 201)
    check_benchmark(got, want, "import answer")
    g = expect(call(c.port, "GET", bench_path("lab/synthetic")), 200)
    check_benchmark(g, want, "GET after import")
    lst = expect(call(c.port, "GET", "/v1/benchmarks"), 200)["benchmarks"]
    names = [b["name"] for b in lst]
    check(names == sorted(names), "benchmarks not sorted by name: %r" % names)
    mine = [b for b in lst if b["name"] == "lab/synthetic"]
    check(len(mine) == 1 and all(mine[0][k] == want[k] for k in
                                 ("kind", "source", "size", "params", "metrics")),
          "listed as %r" % short(mine))

    for i in (0, 7, 8, 11):
        r = table["rows"][i]
        ev = evaluate(c, "lab/synthetic", {p: r[p] for p in SYN_PARAMS})
        check(ev["row"] == i and ev["values"] == {"bleu": r["bleu"], "gpu_time": r["gpu_time"]},
              "evaluate row %d answered %r" % (i, ev))
    r = table["rows"][5]
    ev = evaluate(c, "lab/synthetic", {p: r[p] for p in SYN_PARAMS}, step=None)
    ev2 = expect(call(c.port, "POST", bench_path("lab/synthetic", "/evaluate"),
                      {"params": {p: r[p] for p in reversed(SYN_PARAMS)}, "step": None}), 200)
    check(ev2 == ev and ev["row"] == 5, "step null / key order changed the answer: %r vs %r"
          % (ev, ev2))

    # Another process on the same database sees the table, and refuses it again.
    b = c.server()
    g2 = expect(call(b.port, "GET", bench_path("lab/synthetic")), 200)
    check_benchmark(g2, want, "second server")
    ev = evaluate(c, "lab/synthetic", {p: table["rows"][3][p] for p in SYN_PARAMS},
                  port=b.port)
    check(ev["row"] == 3 and ev["values"]["bleu"] == 20.0, "second server evaluates %r" % ev)
    snap = db_snapshot(c.dburl)
    expect_error(call(c.port, "POST", "/v1/benchmarks", table), 409, "conflict")
    expect_error(call(b.port, "POST", "/v1/benchmarks", synthetic_table("lab/synthetic")),
                 409, "conflict")
    check(db_snapshot(c.dburl) == snap, "a refused import changed the database")

    # Simulations on it: metrics recomputed here from the sequences.
    bleu = [x["bleu"] for x in table["rows"]]
    gpu = [x["gpu_time"] for x in table["rows"]]
    pareto = [i in want["pareto"] for i in range(12)]
    sim = simulate(c, "lab/synthetic", {"algorithm": {"name": "random"}, "repeats": 6,
                                        "seed": 3, "init": 2, "budget": 4, "pareto_budget": 5,
                                        "tolerance": 1.0, "metrics": ALL_METRICS})
    check(sim["benchmark"] == "lab/synthetic" and sim["repeats"] == 6 and sim["seed"] == 3
          and sim["init"] == 2 and sim["budget"] == 4 and sim["pareto_budget"] == 5
          and sim["tolerance"] == 1.0 and sim["objective"] == BLEU_MAX[0]
          and sim["algorithm"]["name"] == "random", "simulation echoed %r" % short(sim, 600))
    check_simulation(sim, bleu, pareto, 12)
    # Minimizing gpu_time: the oracle row is 2 (gpu 30), defaults filled in.
    sim2 = simulate(c, "lab/synthetic", {"algorithm": {"name": "greedy"}, "repeats": 3,
                                         "objective": {"name": "gpu_time", "goal": "minimize"}})
    check(sim2["init"] == 3 and sim2["seed"] == 0 and sim2["tolerance"] == 0.5
          and sim2["budget"] == 20 and sim2["pareto_budget"] == 50,
          "defaults %r" % short({k: sim2.get(k) for k in ("init", "seed", "tolerance", "budget",
                                                          "pareto_budget")}))
    check_simulation(sim2, [-x for x in gpu], None, 12)
    got = expect(call(b.port, "GET", "/v1/simulations/%d" % sim["id"]), 200)
    check(same_simulation(got, sim), "GET /v1/simulations/%d differs from the POST answer: %s"
          % (sim["id"], differing(got, sim)))
    ls = expect(call(c.port, "GET", "/v1/simulations?benchmark=lab/synthetic"), 200)
    check([s["id"] for s in ls["simulations"]] == [sim2["id"], sim["id"]] and ls["total"] == 2,
          "simulations of lab/synthetic: %r" % short(ls))
    check(all("sequences" not in s for s in ls["simulations"]), "the list carries sequences")

    # A study backed by the imported table: candidates are its 12 rows.
    st = create(c, {"name": "on lab/synthetic", "benchmark": "lab/synthetic",
                    "objectives": BLEU_MAX, "algorithm": {"name": "greedy", "seed": 1}})
    check(st["benchmark"] == "lab/synthetic" and st["n_candidates"] == 12,
          "study %r" % short(st))
    check([p["name"] for p in st["space"]] == SYN_PARAMS, "space %r" % short(st["space"]))
    seen = []
    for k in range(12):
        t = suggest(c, st["id"], "syn")["trials"][0]
        ev = evaluate(c, "lab/synthetic", t["params"])
        seen.append(ev["row"])
        report(c, t["id"], study_metrics(st, ev["values"]))
    check(sorted(seen) == list(range(12)), "the study issued rows %r" % seen)
    r = suggest(c, st["id"], "syn")
    check(r["trials"] == [] and r["done"], "after 12 rows: %r" % short(r))
    best = expect(call(c.port, "GET", "/v1/studies/%d/best" % st["id"]), 200)["trial"]
    check(best["values"]["bleu"] == 24.5, "best %r" % short(best))


@test("benchmarks: evaluate nmthpo/zh-en rows and a learning curve at its steps")
def t_bench_evaluate(c):
    need_tables()
    t = tsv_rows("zh-en")
    for i in (75, 0, 117, 77):
        ev = evaluate(c, "nmthpo/zh-en", {p: t[i][p] for p in NMTHPO_PARAMS})
        check(ev["row"] == i, "row %d's params evaluated as row %r" % (i, ev["row"]))
        check(ev["values"] == {m: t[i][m] for m in NMTHPO_METRICS},
              "row %d: %r, the file says %r" % (i, ev["values"],
                                                {m: t[i][m] for m in NMTHPO_METRICS}))
    check(evaluate(c, "nmthpo/zh-en", {p: t[75][p] for p in NMTHPO_PARAMS})["values"]["bleu"]
          == 14.66, "row 75 is not bleu 14.66")
    p75 = {p: t[75][p] for p in NMTHPO_PARAMS}
    expect_error(call(c.port, "POST", bench_path("nmthpo/zh-en", "/evaluate"),
                      {"params": dict(p75, init_lr=0.0005)}), 422, "invalid_argument", "params")
    expect_error(call(c.port, "POST", bench_path("nmthpo/zh-en", "/evaluate"),
                      {"params": p75, "step": 0}), 422, "invalid_argument", "step")
    expect_error(call(c.port, "POST", bench_path("nmthpo/xx-en", "/evaluate"),
                      {"params": p75}), 404, "not_found")

    # A configuration that appears once in its dataset (most appear twice,
    # with different curves, so they do not name one curve).
    ds = "ted-ru-en"
    models = curve_models(ds)
    counts = {}
    for h, _ in models:
        counts[canon(h)] = counts.get(canon(h), 0) + 1
    hp, curve = next((h, cv) for h, cv in models if counts[canon(h)] == 1 and len(cv) >= 3)
    b = expect(call(c.port, "GET", bench_path("nmtlc/" + ds)), 200)
    params = {k: hp[k] for k in b["params"]}
    ev0 = evaluate(c, "nmtlc/" + ds, params, step=0)
    check(ev0["values"] == {"ppl": curve[0]} and ev0.get("step") == 0,
          "step 0: %r, the curve starts %r" % (ev0, curve[:3]))
    check(is_int(ev0["row"]) and 0 <= ev0["row"] < b["size"], "curve row %r" % ev0["row"])
    last = len(curve) - 1
    evl = evaluate(c, "nmtlc/" + ds, params, step=last)
    check(evl["values"] == {"ppl": curve[last]} and evl["step"] == last
          and evl["row"] == ev0["row"], "step %d: %r, the curve ends %r"
          % (last, evl, curve[-2:]))
    ev1 = evaluate(c, "nmtlc/" + ds, params, step=1)
    check(ev1["values"] == {"ppl": curve[1]}, "step 1: %r, curve %r" % (ev1, curve[:3]))
    expect_error(call(c.port, "POST", bench_path("nmtlc/" + ds, "/evaluate"),
                      {"params": params, "step": len(curve)}), 422, "invalid_argument", "step")
    expect_error(call(c.port, "POST", bench_path("nmtlc/" + ds, "/evaluate"),
                      {"params": params, "step": 100000}), 422, "invalid_argument", "step")
