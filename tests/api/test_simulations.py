"""tests/api/test_simulations.py - .../simulate and /v1/simulations: random,
greedy and model samplers on the tables (the same sequences as hpod-bench),
multi-objective and constrained runs, successive halving and asha on the
learning curves against a reimplementation, stored simulations and .ss.
"""

import json
import math
import os
import subprocess

from harness import call, cfg, check, expect, expect_error, is_int, is_num, parse_ts, short, test
from client import BLEU_MAX
from tables import (ALL_METRICS, NMTLC, bench_path, check_simulation, differing, lc_records,
                    need_tables, same_simulation, simulate, synthetic_table, tsv_rows)


@test("simulate: multi-objective ehvi beats random on fta and fbp (zh-en); constrained gp runs report the gap")
def t_simulate_mo(c):
    need_tables()
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    res = {}
    for label, algo in [("random", {"name": "random"}), ("ehvi", {"name": "ehvi", "surrogate": "gp"})]:
        r = expect(call(c.port, "POST", "/v1/benchmarks/nmthpo/zh-en/simulate",
                        {"algorithm": algo, "objectives": objs, "repeats": 6, "seed": 0}), 201)
        check(set(r["metrics"]) == {"fto", "fta", "fbp"}, "metrics %r" % r["metrics"])
        check(len(r["sequences"]) == 6, "sequences %d" % len(r["sequences"]))
        res[label] = r
    a, b = res["random"]["sequences"], res["ehvi"]["sequences"]
    check(all(x[:3] == y[:3] for x, y in zip(a, b)), "initial rows differ between algorithms")
    rows = tsv_rows("zh-en")
    front = {i for i, r in enumerate(rows) if r["pareto"]}
    for label, r in res.items():
        # fta recomputed from the sequences.
        ftas = []
        for seq in r["sequences"]:
            seen = set()
            for pos, row in enumerate(seq, 1):
                seen.add(row)
                if front <= seen:
                    ftas.append(max(pos, 3))
                    break
        check(len(ftas) == 6 and math.isclose(sum(ftas) / 6.0, r["metrics"]["fta"]["mean"]),
              "%s fta %r vs recomputed %r" % (label, r["metrics"]["fta"], ftas))
    fe, fr = res["ehvi"]["metrics"], res["random"]["metrics"]
    print("# simulate zh-en, 6 runs: fta ehvi %.1f random %.1f; fbp ehvi %.2f random %.2f"
          % (fe["fta"]["mean"], fr["fta"]["mean"], fe["fbp"]["mean"], fr["fbp"]["mean"]))
    check(fe["fta"]["mean"] < fr["fta"]["mean"] and fe["fbp"]["mean"] > fr["fbp"]["mean"],
          "ehvi %r vs random %r" % (fe, fr))
    rows = tsv_rows("ja-en")
    times = sorted(r["gpu_time"] for r in rows)
    bound = times[len(times) // 2]
    r = expect(call(c.port, "POST", "/v1/benchmarks/nmthpo/ja-en/simulate",
                    {"algorithm": {"name": "gp"}, "objectives": [objs[0]],
                     "constraints": [{"metric": "gpu_time", "max": bound}],
                     "repeats": 4, "budget": 40}), 201)
    check(all(len(s) == 40 for s in r["sequences"]), "constrained runs take 40 rows")
    check(r["metrics"]["gap"]["missed"] == 0 and r["metrics"]["gap"]["mean"] <= 0.5,
          "constrained gap %r" % r["metrics"])
    expect_error(call(c.port, "POST", "/v1/benchmarks/nmthpo/ja-en/simulate",
                      {"algorithm": {"name": "gp"}, "objectives": [objs[0]],
                       "constraints": [{"metric": "gpu_time", "max": 1}]}),
                 422, "invalid_argument", "constraints")


@test("simulate: HTTP and hpod-bench run the same code: identical sequences for zh-en BO_EI_M, BO_NEI_M, BO_NEILSPTR_M and BO_HEDGE_M")
def t_simulate_same_as_bench(c):
    need_tables()
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "seqs.jsonl")
        tool = os.path.join(os.path.dirname(c.args.hpod), "hpod-bench")
        r = subprocess.run([tool, "--tables", "zh-en", "--methods", "bo_ei_m,rs,bo_nei_m,bo_neilsptr_m,bo_hedge_m",
                            "--repeats", "6", "--seed", "4", "--out", os.path.join(d, "b.json"),
                            "--dir", cfg.bench_dir, "--sequences", out],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=300)
        check(r.returncode == 0, "hpod-bench failed: %s" % r.stderr.decode()[-500:])
        with open(out) as f:
            cells = {(x["table"], x["method"]): x for x in map(json.loads, f)}
    check(sorted(cells) == [("zh-en", "bo_ei_m"), ("zh-en", "bo_hedge_m"),
                            ("zh-en", "bo_nei_m"), ("zh-en", "bo_neilsptr_m"),
                            ("zh-en", "rs")],
          "cells %r" % sorted(cells))
    for key, algo in [("bo_ei_m", {"name": "gp", "kernel": "matern52", "acquisition": "ei"}),
                      ("bo_nei_m", {"name": "gp", "kernel": "matern52", "acquisition": "nei",
                                    "lengthscale_min": 0.3}),
                      ("bo_neilsptr_m", {"name": "gp", "kernel": "matern52",
                                         "acquisition": "nei", "trust_region": 8,
                                         "lengthscale_prior": 1.0}),
                      ("bo_hedge_m", {"name": "gp", "kernel": "matern52",
                                      "acquisition": "nei", "trust_region": 8,
                                      "lengthscale_prior": 1.0, "hedge": True}),
                      ("rs", {"name": "random"})]:
        cli = cells[("zh-en", key)]
        check(cli["seed"] == 4 and cli["init"] == 3 and len(cli["sequences"]) == 6,
              "cell %r" % short(cli))
        sim = simulate(c, "nmthpo/zh-en", {"algorithm": algo, "objective": BLEU_MAX[0],
                                           "init": 3, "seed": 4, "repeats": 6})
        check(sim["computed_metrics"] == ["ftb", "ftc", "fb"] and "fto" not in sim["metrics"],
              "%s: computed %r" % (key, sim["computed_metrics"]))
        for k, (a, b) in enumerate(zip(sim["sequences"], cli["sequences"])):
            check(a == b, "%s run %d: HTTP %s, hpod-bench %s" % (key, k, short(a), short(b)))
    # A single objective asked for one metric stops when that one is decided.
    t = tsv_rows("zh-en")
    bleu = [r["bleu"] for r in t]
    only = simulate(c, "nmthpo/zh-en", {"algorithm": {"name": "random"}, "seed": 4,
                                        "repeats": 6, "metrics": ["ftc"]})
    check(only["computed_metrics"] == ["ftc"] and sorted(only["metrics"]) == ["ftc"],
          "ftc only: %r" % only["metrics"])
    thr = max(bleu) - 0.5
    for s in only["sequences"]:
        first = next(i + 1 for i, r in enumerate(s) if bleu[r] >= thr)
        check(len(s) == max(first, 3), "ftc-only run of %d rows, decided at %d"
              % (len(s), max(first, 3)))
    # Two objectives may add the first objective's ftb, and fto alone does
    # not wait for the whole front.
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    mo = simulate(c, "nmthpo/zh-en", {"algorithm": {"name": "random"}, "objectives": objs,
                                      "repeats": 3, "metrics": ["fto", "ftb"]})
    check(mo["computed_metrics"] == ["ftb", "fto"] and sorted(mo["metrics"]) == ["ftb", "fto"],
          "two objectives, fto and ftb: %r" % mo["metrics"])
    check(mo["tolerance"] == 0.5, "tolerance %r" % mo.get("tolerance"))
    best = bleu.index(max(bleu))
    for s in mo["sequences"]:
        check(len(s) == max(s.index(best) + 1, next(i + 1 for i, r in enumerate(s)
                                                    if t[r]["pareto"]), 3),
              "fto+ftb run of %d rows: %s" % (len(s), short(s)))
    # A table without gpu_time has no BLEU/time front: fto does not apply.
    nog = synthetic_table("lab/no-gpu-time")
    nog["metrics"] = ["bleu"]
    for r in nog["rows"]:
        del r["gpu_time"]
    expect(call(c.port, "POST", "/v1/benchmarks", nog), 201)
    e = expect_error(call(c.port, "POST", bench_path("lab/no-gpu-time", "/simulate"),
                          {"repeats": 1, "metrics": ["ftb", "fto"]}), 422, "invalid_argument",
                     "metrics[1]")
    check("fto" in e["message"], "fto on a table without gpu_time: %r" % e)


@test("simulate: auto on a table chooses as a study on its rows would, records why, and runs exactly its choice")
def t_simulate_auto(c):
    need_tables()
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    rows = len(tsv_rows("zh-en"))
    for body, case in [({"objective": BLEU_MAX[0]}, "so_finite"),
                       ({"objectives": objs}, "mo_finite")]:
        base = dict(body, repeats=4, seed=7)
        a = simulate(c, "nmthpo/zh-en", dict(base, algorithm={"name": "auto"}))
        al = a["algorithm"]
        check(al["name"] == "auto" and al["case"] == case and al["seed"] == 7
              and al["chosen"].get("seed") == 7 and str(rows) in al["reason"],
              "auto on zh-en: %r" % al)
        # A study on the same rows records the same choice.
        space = [{"name": "x", "type": "int", "low": 0, "high": 10 ** 6}]
        cands = [{"x": i} for i in range(rows)]
        sd = expect(call(c.port, "POST", "/v1/studies",
                         {"name": "auto-sim-%s" % case, "space": space, "candidates": cands,
                          "objectives": body.get("objectives") or [body["objective"]]}), 201)
        chosen = dict(sd["algorithm"]["chosen"])
        check(sd["algorithm"]["case"] == case, "study case %r" % sd["algorithm"])
        for k in ("seed", "init"):
            chosen.pop(k, None)
            al["chosen"].pop(k, None)
        check(chosen == al["chosen"], "study chose %r, simulate %r" % (chosen, al["chosen"]))
        # Running the choice by name gives the same runs.
        e = simulate(c, "nmthpo/zh-en", dict(base, algorithm=chosen))
        check(e["sequences"] == a["sequences"] and e["metrics"] == a["metrics"],
              "auto and its choice differ: %r vs %r" % (a["metrics"], e["metrics"]))
    # auto is validated as for a study: no other key.
    expect_error(call(c.port, "POST", "/v1/benchmarks/nmthpo/zh-en/simulate",
                      {"algorithm": {"name": "auto", "kernel": "rbf"}, "repeats": 1}),
                 400, "invalid_argument", "algorithm.kernel")


@test("simulate: without algorithm a table runs what a study without algorithm runs (auto), recorded with its choice, exactly as {\"name\": \"auto\"}")
def t_simulate_default_auto(c):
    need_tables()
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    for table, body, case in [("nmthpo/zh-en", {}, "so_finite"),
                              ("nmthpo/zh-en", {"objectives": objs}, "mo_finite"),
                              ("nmthpo/sw-en", {"metrics": ["ftc"]}, "so_finite")]:
        base = dict(body, repeats=2, seed=4)
        d = simulate(c, table, base)
        al = d["algorithm"]
        check(al["name"] == "auto" and al["case"] == case and al["seed"] == 4
              and al["chosen"]["name"] != "random" and al["reason"],
              "%s without algorithm: %r" % (table, al))
        a = simulate(c, table, dict(base, algorithm={"name": "auto"}))
        check(a["algorithm"] == al and a["sequences"] == d["sequences"]
              and a["metrics"] == d["metrics"],
              "%s: omitted and auto differ: %r vs %r" % (table, al, a["algorithm"]))
        print("# %s %s without algorithm: auto chose %s (%s)"
              % (table, case, al["chosen"]["name"], al["reason"][:80]))
    # A study on the same rows without algorithm records the same choice.
    rows = len(tsv_rows("zh-en"))
    sd = expect(call(c.port, "POST", "/v1/studies", {
        "name": "default-sim", "space": [{"name": "x", "type": "int", "low": 0, "high": 10 ** 6}],
        "candidates": [{"x": i} for i in range(rows)], "objectives": BLEU_MAX}), 201)
    d = simulate(c, "nmthpo/zh-en", {"repeats": 1})
    for k in ("name", "case"):
        check(sd["algorithm"][k] == d["algorithm"][k], "study %r, simulation %r"
              % (sd["algorithm"], d["algorithm"]))
    check({k: v for k, v in sd["algorithm"]["chosen"].items() if k not in ("seed", "init")}
          == {k: v for k, v in d["algorithm"]["chosen"].items() if k not in ("seed", "init")},
          "study chose %r, simulation %r" % (sd["algorithm"]["chosen"], d["algorithm"]["chosen"]))


@test("simulate: a learning-curve set takes objectives [ppl, minimize] (or none, the same runs); another name or goal is 422")
def t_simulate_curves_objectives(c):
    need_tables()
    body = {"algorithm": {"name": "sh", "p": 2, "c": 10}, "configs": 20, "repeats": 5,
            "seed": 2}
    plain = simulate(c, "nmtlc/ted-zh-en", body)
    got = simulate(c, "nmtlc/ted-zh-en", dict(body, objectives=[{"name": "ppl",
                                                                  "goal": "minimize"}]))
    check(got["runs"] == plain["runs"] and got["sequences"] == plain["sequences"]
          and got["metrics"] == plain["metrics"], "objectives [ppl] changed the runs")
    asha = {"name": "asha", "r": 5, "u": 2, "R": 25}
    got = simulate(c, "nmtlc/material-so-en",
                   {"algorithm": asha, "repeats": 2, "objectives": [{"name": "ppl",
                                                                     "goal": "minimize"}]})
    check(got["algorithm"]["name"] == "asha" and len(got["runs"]) == 2, "asha %r" % got["algorithm"])
    for objs, field in (([{"name": "bleu", "goal": "minimize"}], "objectives[0].name"),
                        ([{"name": "ppl", "goal": "maximize"}], "objectives[0].goal")):
        e = expect_error(call(c.port, "POST", bench_path("nmtlc/ted-zh-en", "/simulate"),
                              dict(body, objectives=objs)), 422, "invalid_argument", field)
        check("ppl" in e["message"], "message %r" % e["message"])


def zh_en_sim(c, algorithm, repeats=30, seed=0):
    return simulate(c, "nmthpo/zh-en", {"algorithm": {"name": algorithm}, "repeats": repeats,
                                        "seed": seed})


@test("benchmarks: simulate random and greedy on nmthpo/zh-en; stored, listed, exported as .ss")
def t_bench_simulate(c):
    need_tables()
    t = tsv_rows("zh-en")
    n = len(t)
    bleu = [r["bleu"] for r in t]
    pareto = [r["pareto"] for r in t]
    rs = zh_en_sim(c, "random")
    check(rs["benchmark"] == "nmthpo/zh-en" and rs["repeats"] == 30 and rs["seed"] == 0
          and rs["init"] == 3 and rs["objective"] == BLEU_MAX[0] and rs["tolerance"] == 0.5
          and rs["budget"] == 20 and rs["pareto_budget"] == 50
          and rs["algorithm"]["name"] == "random",
          "simulation %r" % short({k: v for k, v in rs.items() if k != "sequences"}, 600))
    check(is_num(rs["seconds"]) and rs["seconds"] >= 0, "seconds %r" % rs["seconds"])
    parse_ts(rs["created_at"])
    per = check_simulation(rs, bleu, None, n)
    check(all(p["ftb"] >= 3 for p in per), "an ftb below init")
    # The oracle row is in a uniformly random position P of a permutation of
    # n rows: E[P] = (n+1)/2 = 59.5 and sd(P) = sqrt((n^2-1)/12) = 34.06, so
    # the mean of 30 runs has standard error 34.06/sqrt(30) = 6.22. (Counting
    # a hit among the 3 initial rows at position 3 adds 3/n = 0.03.)
    mean, sd = (n + 1) / 2.0, math.sqrt((n * n - 1) / 12.0)
    se = sd / math.sqrt(30)
    got = rs["metrics"]["ftb"]["mean"]
    check(abs(got - mean) <= 3 * se, "random ftb mean %.2f, expected %.1f +- %.1f (3 se)"
          % (got, mean, 3 * se))
    print("# zh-en random search, 30 runs: ftb %.1f +- %.1f (expected %.1f, se %.1f)"
          % (got, rs["metrics"]["ftb"]["std"], mean, se), flush=True)
    again = zh_en_sim(c, "random")
    check(again["sequences"] == rs["sequences"] and again["id"] != rs["id"],
          "same seed, other sequences (or the same id)")
    gr = simulate(c, "nmthpo/zh-en", {"algorithm": {"name": "greedy"}, "repeats": 30,
                                      "seed": 0, "metrics": ALL_METRICS})
    check_simulation(gr, bleu, pareto, n)
    for k, (a, b) in enumerate(zip(rs["sequences"], gr["sequences"])):
        check(a[:3] == b[:3], "run %d: random starts %r, greedy %r" % (k, a[:3], b[:3]))
    check(any(a[3:6] != b[3:6] for a, b in zip(rs["sequences"], gr["sequences"])),
          "greedy chose exactly what random chose after the initial rows in every run")

    got = expect(call(c.port, "GET", "/v1/simulations/%d" % rs["id"]), 200)
    check(same_simulation(got, rs), "GET differs from the POST answer: %s" % differing(got, rs))
    ss = call(c.port, "GET", "/v1/simulations/%d?format=ss" % gr["id"])
    check(ss.status == 200, "?format=ss answered %r" % ss)
    check(ss.headers.get("content-type", "").split(";")[0].strip() == "text/plain",
          "?format=ss Content-Type %r" % ss.headers.get("content-type"))
    lines = ss.raw.decode("utf-8").splitlines()
    want = [" ".join(str(r) for r in s) for s in gr["sequences"]]
    check(lines == want, ".ss export differs from the sequences: %r... vs %r..."
          % (lines[:1], want[:1]))

    ls = expect(call(c.port, "GET", "/v1/simulations?benchmark=nmthpo/zh-en&limit=1000"), 200)
    ids = [s["id"] for s in ls["simulations"]]
    check(ids[:3] == [gr["id"], again["id"], rs["id"]] and ls["total"] == len(ids),
          "simulations of zh-en, newest first: %r (total %r)" % (ids, ls["total"]))
    check(all(s["benchmark"] == "nmthpo/zh-en" and "sequences" not in s
              for s in ls["simulations"]), "list items %r" % short(ls["simulations"]))
    check(ls["simulations"][0]["metrics"] == gr["metrics"], "listed metrics differ")
    p1 = expect(call(c.port, "GET", "/v1/simulations?benchmark=nmthpo/zh-en&limit=1&offset=1"),
                200)
    check([s["id"] for s in p1["simulations"]] == [again["id"]] and p1["total"] == len(ids),
          "page limit=1 offset=1: %r" % short(p1))
    al = expect(call(c.port, "GET", "/v1/simulations"), 200)
    check(al["total"] >= len(ids) and al["simulations"][0]["id"] >= gr["id"],
          "all simulations %r" % short(al))

    # The paper's per-table defaults: tolerance 1.0 on en-ja, fbp budget 200
    # on sw-en and so-en.
    ej = simulate(c, "nmthpo/en-ja", {"algorithm": {"name": "random"}, "repeats": 2,
                                      "metrics": ALL_METRICS})
    check(ej["tolerance"] == 1.0 and ej["pareto_budget"] == 50, "en-ja defaults %r/%r"
          % (ej["tolerance"], ej["pareto_budget"]))
    check_simulation(ej, [r["bleu"] for r in tsv_rows("en-ja")],
                     [r["pareto"] for r in tsv_rows("en-ja")], 168)
    sw = simulate(c, "nmthpo/sw-en", {"algorithm": {"name": "random"}, "repeats": 1, "seed": 9})
    check(sw["tolerance"] == 0.5 and sw["pareto_budget"] == 200, "sw-en defaults %r/%r"
          % (sw["tolerance"], sw["pareto_budget"]))
    check_simulation(sw, [r["bleu"] for r in tsv_rows("sw-en")], None, 767)
    expect_error(call(c.port, "POST", bench_path("nmtlc/ted-zh-en", "/simulate"),
                      {"repeats": 1}), 422, "invalid_argument")


def lc_curves(dataset):
    """The models of one nmtlc dataset in file order: (perplexity_curve,
    perplexity_optimal)."""
    return [(o["perplexity_curve"], o["perplexity_optimal"]) for o in lc_records(dataset)]


def sh_reference(models, drawn, p, c, round_up=False):
    """Successive halving as the dissertation (ch. 6) and core/sh.h define
    it, re-implemented on the rows a run drew (in draw order): stage s looks
    at checkpoint s*c and keeps the top max(1, floor(k/p)) (ceil with
    round_up) by best-so-far perplexity, ties to the earlier draw; a stage
    at which every survivor's curve has ended keeps 1. Returns the run as
    the API reports it."""
    curves = [models[r][0] for r in drawn]
    opt = [models[r][1] for r in drawn]
    n = len(drawn)
    surv, out_at, s = list(range(n)), {}, 0
    while len(surv) > 1:
        s += 1
        t = s * c
        order = sorted(surv, key=lambda i: (min(curves[i][:t]), i))
        if all(len(curves[i]) <= t for i in surv):
            keep = 1
        else:
            k = len(surv)
            keep = max(1, -(-k // p) if round_up else k // p)
        for i in order[keep:]:
            out_at[i] = s
        surv = order[:keep]
    final = surv[0]
    lo = min(opt)
    best = opt.index(lo)
    holders = [i for i in range(n) if opt[i] == lo]
    disc = 0 if final in holders else max(out_at[i] for i in holders)
    spent = sum(min(len(curves[i]), out_at[i] * c) for i in out_at) + len(curves[final])
    return {"final": drawn[final], "best": drawn[best], "correct": opt[final] == lo,
            "discarded_at": disc, "stages": s, "spent": spent,
            "full": sum(len(cv) for cv in curves)}


def check_draws(sim, n):
    seqs = sim["sequences"]
    check(len(seqs) == sim["repeats"] == len(sim["runs"]),
          "%d sequences, %d runs for %d repeats" % (len(seqs), len(sim["runs"]), sim["repeats"]))
    for s in seqs:
        check(len(s) == sim["configs"] and len(set(s)) == len(s)
              and all(is_int(r) and 0 <= r < n for r in s),
              "a run's draw is not %d distinct rows of [0, %d): %s" % (sim["configs"], n, short(s)))
    check(len(set(tuple(s) for s in seqs)) == len(seqs) or len(seqs) == 1,
          "two runs drew the same configurations in the same order")


@test("simulate: successive halving p=2 c=10 on the six learning-curve sets (40 configs, 100 runs) agrees with a re-implementation; stored")
def t_simulate_sh(c):
    need_tables()
    for ds in NMTLC:
        models = lc_curves(ds)
        sim = simulate(c, "nmtlc/" + ds, {"algorithm": {"name": "sh", "p": 2, "c": 10},
                                          "configs": 40, "repeats": 100, "seed": 0})
        check(sim["benchmark"] == "nmtlc/" + ds and sim["configs"] == 40
              and sim["repeats"] == 100 and sim["seed"] == 0
              and sim["algorithm"] == {"name": "sh", "p": 2, "c": 10, "rank": "bsf",
                                       "round_up": False, "horizon": 0, "seed": 0},
              "simulation %r" % short({k: v for k, v in sim.items()
                                       if k not in ("runs", "sequences")}, 600))
        check_draws(sim, len(models))
        for k, (drawn, run) in enumerate(zip(sim["sequences"], sim["runs"])):
            want = sh_reference(models, drawn, 2, 10)
            check(run == want, "%s run %d: server %r, re-implementation %r"
                  % (ds, k, run, want))
        m = sim["metrics"]
        runs = sim["runs"]
        acc = 100.0 * sum(r["correct"] for r in runs) / len(runs)
        difs = [r["stages"] - r["discarded_at"] for r in runs if not r["correct"]]
        spent = sum(r["spent"] for r in runs) / len(runs)
        full = sum(r["full"] for r in runs) / len(runs)
        check(math.isclose(m["acc"], acc) and math.isclose(m["dif"], sum(difs) / len(runs),
                                                            abs_tol=1e-12)
              and (m["dif_failed"] is None if not difs
                   else math.isclose(m["dif_failed"], sum(difs) / len(difs)))
              and math.isclose(m["spent"], spent) and math.isclose(m["full"], full)
              and math.isclose(m["saved"], 100.0 * (1 - spent / full))
              and math.isclose(m["stages"], sum(r["stages"] for r in runs) / len(runs)),
              "%s metrics %r, the runs give acc %r dif %r spent %r full %r"
              % (ds, m, acc, sum(difs) / len(runs), spent, full))
        # Table 6.1 (p=2, c=10): acc 99 sw-en, 100 so-en zh-en ru-en, 69
        # ja-en, 77 en-ja; 100 runs of 40 draws leave a few points of noise.
        check(m["acc"] >= 90 if not ds.startswith("robust19") else 50 <= m["acc"] <= 95,
              "%s acc %r far from the dissertation's" % (ds, m["acc"]))
        check(0 < m["saved"] < 100 and m["spent"] < m["full"], "%s saved %r" % (ds, m["saved"]))
        print("# sh p=2 c=10 %s: acc %.0f dif %.2f, %.0f of %.0f checkpoints (saved %.0f%%)"
              % (ds, m["acc"], m["dif"], m["spent"], m["full"], m["saved"]), flush=True)
    # Stored: GET answers the same; the list leaves out runs and sequences;
    # the same seed draws the same; rank/round_up are honoured.
    got = expect(call(c.port, "GET", "/v1/simulations/%d" % sim["id"]), 200)
    check(same_simulation(got, sim), "GET differs from the POST answer: %s" % differing(got, sim))
    ls = expect(call(c.port, "GET", "/v1/simulations?benchmark=nmtlc/" + NMTLC[-1]), 200)
    check(ls["simulations"][0]["id"] == sim["id"]
          and "runs" not in ls["simulations"][0] and "sequences" not in ls["simulations"][0]
          and ls["simulations"][0]["metrics"] == sim["metrics"], "listed %r" % short(ls))
    ds = "robust19-ja-en"
    models = lc_curves(ds)
    a = simulate(c, "nmtlc/" + ds, {"algorithm": {"name": "sh", "p": 3, "c": 7, "rank": "bsf",
                                                  "round_up": True, "seed": 99},
                                    "configs": 25, "repeats": 12, "seed": 41})
    check(a["algorithm"]["seed"] == 41 and a["algorithm"]["round_up"] is True,
          "algorithm %r" % a["algorithm"])
    check_draws(a, len(models))
    for k, (drawn, run) in enumerate(zip(a["sequences"], a["runs"])):
        want = sh_reference(models, drawn, 3, 7, round_up=True)
        check(run == want, "p=3 c=7 round_up run %d: server %r, re-implementation %r"
              % (k, run, want))
    b = simulate(c, "nmtlc/" + ds, {"algorithm": {"name": "sh", "p": 3, "c": 7,
                                                  "round_up": True},
                                    "configs": 25, "repeats": 12, "seed": 41})
    check(b["sequences"] == a["sequences"] and b["runs"] == a["runs"] and b["id"] != a["id"],
          "same seed, other draws or results")
    last = simulate(c, "nmtlc/" + ds, {"algorithm": {"name": "sh", "rank": "last"},
                                       "configs": 40, "repeats": 30})
    check(last["algorithm"]["rank"] == "last" and last["algorithm"]["c"] == 10
          and last["algorithm"]["p"] == 2, "defaults %r" % last["algorithm"])
    # Looking forward: rank extrapolate on the same draws as bsf. A horizon
    # at or below every stage's checkpoint (10, 20, ...) has no future to
    # read, so it ranks exactly as bsf (core/sh.h); the default horizon
    # (the run's longest curve) changes some decisions on robust19.
    lc = {"configs": 40, "repeats": 30}
    bs = simulate(c, "nmtlc/robust19-ja-en", dict(lc, algorithm={"name": "sh"}))
    ex = simulate(c, "nmtlc/robust19-ja-en",
                  dict(lc, algorithm={"name": "sh", "rank": "extrapolate"}))
    h10 = simulate(c, "nmtlc/robust19-ja-en",
                   dict(lc, algorithm={"name": "sh", "rank": "extrapolate", "horizon": 10}))
    check(ex["algorithm"]["rank"] == "extrapolate" and ex["algorithm"]["horizon"] == 0
          and bs["algorithm"]["horizon"] == 0, "algorithms %r %r" % (ex["algorithm"], bs["algorithm"]))
    check(ex["sequences"] == bs["sequences"] == h10["sequences"], "other draws for the same seed")
    check(h10["runs"] == bs["runs"], "horizon 10 ranked differently from bsf")
    check(ex["runs"] != bs["runs"], "extrapolation changed no decision in 30 runs on robust19-ja-en")
    print("# sh p=2 c=10 robust19-ja-en, 30 runs: acc bsf %.0f, extrapolate %.0f"
          % (bs["metrics"]["acc"], ex["metrics"]["acc"]))
    one = simulate(c, "nmtlc/ted-zh-en", {"algorithm": {"name": "sh"}, "configs": 1,
                                          "repeats": 1})
    check(len(one["sequences"][0]) == 1 and one["runs"][0]["stages"] == 0
          and one["runs"][0]["correct"] and one["metrics"]["acc"] == 100,
          "one configuration: %r" % short(one["runs"]))


@test("simulate: asha (r=5 u=2 R=25 p=2 keep=2, 4 workers) on material-so-en saves checkpoints and keeps a good configuration")
def t_simulate_asha(c):
    need_tables()
    ds = "material-so-en"
    models = lc_curves(ds)
    algo = {"name": "asha", "r": 5, "u": 2, "R": 25, "p": 2, "keep": 2}
    sim = simulate(c, "nmtlc/" + ds, {"algorithm": algo, "configs": 40, "workers": 4,
                                      "repeats": 100, "seed": 0})
    check(sim["workers"] == 4 and sim["configs"] == 40 and sim["repeats"] == 100
          and sim["algorithm"] == dict(algo, mode="promotion", seed=0),
          "simulation %r" % short({k: v for k, v in sim.items()
                                   if k not in ("runs", "sequences")}, 600))
    check_draws(sim, len(models))
    R, r0 = algo["R"], algo["r"]
    for k, (drawn, run) in enumerate(zip(sim["sequences"], sim["runs"])):
        cap = [min(R, len(models[row][0])) for row in drawn]
        tr = run["trained"]
        opt = [models[row][1] for row in drawn]
        lo = min(opt)
        check(len(tr) == 40 and sum(tr) == run["steps"] and run["steps_full"] == sum(cap),
              "run %d: trained %r sums to %r, steps %r, steps_full %r (all to R: %r)"
              % (k, tr, sum(tr), run["steps"], run["steps_full"], sum(cap)))
        check(run["steps"] <= run["steps_full"], "run %d trained more than all to R" % k)
        check(all(min(r0, cp) <= t <= cp for t, cp in zip(tr, cap)),
              "run %d: a configuration trained outside [min(r, len), min(R, len)]: %r" % (k, tr))
        full = [j for j in range(40) if tr[j] == cap[j]]
        check(run["n_full"] == len(full), "run %d: n_full %r, %d trained to R"
              % (k, run["n_full"], len(full)))
        check(run["best_full"] == any(opt[j] == lo for j in full),
              "run %d: best_full %r" % (k, run["best_full"]))
        check(1 <= run["best_rank"] <= 40 and run["elapsed"] * 4 >= run["steps"],
              "run %d: rank %r, elapsed %r" % (k, run["best_rank"], run["elapsed"]))
    m = sim["metrics"]
    runs = sim["runs"]
    nr = float(len(runs))
    want = {"steps": sum(x["steps"] for x in runs) / nr,
            "steps_full": sum(x["steps_full"] for x in runs) / nr,
            "saved": sum(100.0 * (1 - x["steps"] / x["steps_full"]) for x in runs) / nr,
            "best_kept": 100.0 * sum(x["best_full"] for x in runs) / nr,
            "best_rank": sum(x["best_rank"] for x in runs) / nr,
            "kept_best": 100.0 * sum(x["best_rank"] == 1 for x in runs) / nr,
            "n_full": sum(x["n_full"] for x in runs) / nr,
            "elapsed": sum(x["elapsed"] for x in runs) / nr}
    for key, v in want.items():
        check(math.isclose(m[key], v, rel_tol=1e-9, abs_tol=1e-9),
              "metrics.%s %r, the runs give %r" % (key, m[key], v))
    check(m["saved"] > 0 and m["best_rank"] >= 1 and m["steps"] < m["steps_full"],
          "asha saved %r, rank %r" % (m["saved"], m["best_rank"]))
    print("# asha %s: %.0f of %.0f checkpoints (saved %.1f%%), best trained to R in %.0f%%, "
          "rank of kept %.2f" % (ds, m["steps"], m["steps_full"], m["saved"], m["best_kept"],
                                 m["best_rank"]), flush=True)
    got = expect(call(c.port, "GET", "/v1/simulations/%d" % sim["id"]), 200)
    check(same_simulation(got, sim), "GET differs from the POST answer: %s" % differing(got, sim))
    one = simulate(c, "nmtlc/" + ds, {"algorithm": algo, "repeats": 3, "seed": 0})
    check(one["workers"] == 4 and one["configs"] == 40 and one["runs"] == runs[:3]
          and one["sequences"] == sim["sequences"][:3],
          "defaults (workers 4, configs 40) or seeds differ: %r" % short(one["runs"]))
    w1 = simulate(c, "nmtlc/" + ds, {"algorithm": algo, "workers": 1, "repeats": 3,
                                     "seed": 0})
    check(w1["sequences"] == one["sequences"]
          and all(x["elapsed"] == x["steps"] for x in w1["runs"]),
          "one worker: elapsed must equal steps: %r" % short(w1["runs"]))
