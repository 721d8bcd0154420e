"""tests/api/test_importance.py - GET /v1/studies/{id}/importance,
/v1/benchmarks/{name}/importance and /compare (issue 15): the ranking of a
study whose objective is a known additive function of two parameters
plus an irrelevant third, recovered over HTTP; shape functions against the
known parts; bad inputs; the benchmark routes on small tables built here
(Spearman and the top-20% overlap against a brute-force reimplementation).
"""

import math
import random

from harness import call, check, cfg, expect, expect_error, short, test
from client import create, uname
from tables import bench_path, synthetic_table


def add_trials(c, sid, rows):
    for params, values in rows:
        expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                    {"params": params, "values": values}), 201)


def f(x1, x2):
    return 6 * x1 + 1.5 * math.sin(2 * math.pi * x2)


def known_study(c, n):
    s = create(c, {"name": uname("importance"),
                   "space": [{"name": "x1", "type": "float", "low": 0, "high": 1},
                             {"name": "x2", "type": "float", "low": 0, "high": 1},
                             {"name": "opt", "type": "categorical",
                              "choices": ["adam", "sgd", "rmsprop"]}],
                   "objectives": [{"name": "loss", "goal": "minimize"}],
                   "constraints": [{"metric": "mem", "max": 100}]})
    rnd = random.Random(15)
    rows = []
    for i in range(n):
        x1, x2, opt = rnd.random(), rnd.random(), ["adam", "sgd", "rmsprop"][i % 3]
        rows.append(({"x1": x1, "x2": x2, "opt": opt},
                     {"loss": f(x1, x2), "mem": 10 * x2}))
    add_trials(c, s["id"], rows)
    return s["id"], rows


@test("importance: a known additive objective's ranking and shapes over HTTP; constrained metric; bad inputs")
def t_study_importance(c):
    sid, rows = known_study(c, 90)
    a = expect(call(c.port, "GET", "/v1/studies/%d/importance" % sid), 200)
    check(a["study"] == sid and a["metric"] == "loss" and a["n"] == 90, "header %r" % short(a))
    names = [p["name"] for p in a["parameters"]]
    check(names == ["x1", "x2", "opt"], "ranking %r, expected x1, x2, opt" % names)
    imp = {p["name"]: p["importance"] for p in a["parameters"]}
    # 6·mean|x1 - 1/2| = 1.5 and 1.5·mean|sin 2πx2| = 0.95 on a uniform design.
    check(abs(imp["x1"] - 1.5) < 0.25 and abs(imp["x2"] - 0.95) < 0.25,
          "importances %r" % imp)
    check(imp["opt"] < 0.1 * imp["x2"], "irrelevant opt: %r" % imp)
    check(a["r2"] > 0.95, "r2 %r" % a["r2"])
    mean_y = sum(v["loss"] for _, v in rows) / len(rows)
    check(abs(a["intercept"] - mean_y) < 1e-6, "intercept %r, mean %r" % (a["intercept"], mean_y))
    shape = {p["name"]: p["shape"] for p in a["parameters"]}
    check(sorted(pt["value"] for pt in shape["opt"]) == ["adam", "rmsprop", "sgd"]
          and sum(pt["count"] for pt in shape["opt"]) == 90, "opt shape %r" % shape["opt"])
    x1 = shape["x1"]
    check(len(x1) == 32 and sum(pt["count"] for pt in x1) == 90
          and all(x1[i]["value"] < x1[i + 1]["value"] for i in range(31)),
          "x1 bins %r" % short(x1))
    # The x1 shape is 6·x1 centred, up to the bins' width.
    m = sum(6 * pt["value"] * pt["count"] for pt in x1) / 90
    worst = max(abs(pt["contribution"] - (6 * pt["value"] - m)) for pt in x1)
    check(worst < 0.35, "x1 shape off by %r" % worst)
    check(all(len(p["parameters"]) == 2 for p in a["pairs"]) and len(a["pairs"]) <= 3,
          "pairs %r" % a["pairs"])
    # Another metric: the constrained one depends on x2 only.
    b = expect(call(c.port, "GET", "/v1/studies/%d/importance?objective=mem" % sid), 200)
    check(b["metric"] == "mem" and b["parameters"][0]["name"] == "x2",
          "mem ranking %r" % [p["name"] for p in b["parameters"]])
    # Deterministic: the same answer twice.
    again = expect(call(c.port, "GET", "/v1/studies/%d/importance" % sid), 200)
    check(again == a, "two fits differ")
    expect_error(call(c.port, "GET", "/v1/studies/%d/importance?objective=bleu" % sid),
                 422, "invalid_argument", "objective")
    expect_error(call(c.port, "GET", "/v1/studies/%d/importance?metric=loss" % sid),
                 400, "invalid_argument")
    expect_error(call(c.port, "GET", "/v1/studies/%d/importance?objective=" % sid),
                 400, "invalid_argument", "objective")
    expect_error(call(c.port, "GET", "/v1/studies/999999999/importance"), 404, "not_found")
    few, _ = known_study(c, 9)
    e = expect_error(call(c.port, "GET", "/v1/studies/%d/importance" % few), 409, "conflict")
    check("at least 10" in e["message"], "message %r" % e["message"])


def avg_ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r, i = [0.0] * len(v), 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = avg_ranks(a), avg_ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    sab = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    saa = sum((x - ma) ** 2 for x in ra)
    sbb = sum((y - mb) ** 2 for y in rb)
    return sab / math.sqrt(saa * sbb)


def top(v, frac=0.2):
    k = max(1, math.ceil(frac * len(v) - 1e-9))
    cut = sorted(v, reverse=True)[k - 1]
    return {i for i, x in enumerate(v) if x >= cut}


@test("benchmark importance and compare: small tables built here, Spearman and top-20% overlap against brute force")
def t_benchmark_importance(c):
    ta = synthetic_table("imp/a")
    expect(call(c.port, "POST", "/v1/benchmarks", ta), 201)
    a = expect(call(c.port, "GET", bench_path("imp/a", "/importance?metric=bleu")), 200)
    check(a["benchmark"] == "imp/a" and a["metric"] == "bleu" and a["n"] == 12, "header %r" % short(a))
    llm = [p for p in a["parameters"] if p["name"] == "llm"][0]
    check(sorted(pt["value"] for pt in llm["shape"]) == ["base", "big", "small"],
          "llm shape %r" % llm["shape"])
    lr = [p for p in a["parameters"] if p["name"] == "lr"][0]
    check([pt["value"] for pt in lr["shape"]] == [1e-4, 1e-3, 1e-2, 1e-1], "lr bins %r" % lr["shape"])
    # Per-bin brute force: lr is crossed with llm (a full 3 × 4 grid) and
    # layers follows llm, so llm's and layers' contributions together are
    # llm's mean bleu minus the mean (additive least squares); lr's is its
    # own mean minus the mean.
    lay = [p for p in a["parameters"] if p["name"] == "layers"][0]
    lay_c = {pt["value"]: pt["contribution"] for pt in lay["shape"]}
    bleu = [r["bleu"] for r in ta["rows"]]
    mean = sum(bleu) / 12
    for pt in llm["shape"]:
        rows = [r for r in ta["rows"] if r["llm"] == pt["value"]]
        want = sum(r["bleu"] for r in rows) / 4 - mean
        got = pt["contribution"] + lay_c[rows[0]["layers"]]
        check(abs(got - want) < 0.01, "llm %s: %r, want %r" % (pt["value"], got, want))
    for pt in lr["shape"]:
        want = sum(r["bleu"] for r in ta["rows"] if r["lr"] == pt["value"]) / 3 - mean
        check(abs(pt["contribution"] - want) < 0.01, "lr %s: %r, want %r" % (pt["value"], pt["contribution"], want))
    g = expect(call(c.port, "GET", bench_path("imp/a", "/importance")), 200)
    check(g["metric"] == "bleu", "default metric %r" % g["metric"])
    expect_error(call(c.port, "GET", bench_path("imp/a", "/importance?metric=ppl")), 422,
                 "invalid_argument", "metric")
    expect_error(call(c.port, "GET", bench_path("imp/a", "/importance?objective=bleu")), 400,
                 "invalid_argument")
    expect_error(call(c.port, "GET", bench_path("imp/none", "/importance")), 404, "not_found")

    # b: the same configurations, rows reversed, bleu perturbed (a tie too).
    tb = synthetic_table("imp/b")
    tb["rows"] = list(reversed(tb["rows"]))
    for i, r in enumerate(tb["rows"]):
        r["bleu"] = round(r["bleu"] + (1.5 if i % 3 == 0 else -0.75) * (i % 4), 2)
    tb["rows"][0]["bleu"] = tb["rows"][1]["bleu"]
    expect(call(c.port, "POST", "/v1/benchmarks", tb), 201)
    cmp_ = expect(call(c.port, "GET", bench_path("imp/a", "/compare?with=imp/b&metric=bleu")), 200)
    key = lambda r: (r["llm"], r["lr"], r["layers"])
    bmap = {key(r): r["bleu"] for r in tb["rows"]}
    va = [r["bleu"] for r in ta["rows"]]
    vb = [bmap[key(r)] for r in ta["rows"]]
    ta_top, tb_top = top(va), top(vb)
    check(cmp_["n_shared"] == 12 and abs(cmp_["spearman"] - spearman(va, vb)) < 1e-12,
          "spearman %r, expected %r" % (short(cmp_), spearman(va, vb)))
    check(cmp_["top_k"] == 3 and cmp_["top_a"] == len(ta_top) and cmp_["top_b"] == len(tb_top)
          and cmp_["top_both"] == len(ta_top & tb_top)
          and abs(cmp_["top_overlap"] - len(ta_top & tb_top) / len(ta_top)) < 1e-12,
          "top %r, expected %r %r" % (short(cmp_), ta_top, tb_top))
    check(cmp_["goal"] == "maximize" and cmp_["with"] == "imp/b", "echo %r" % short(cmp_))
    same = expect(call(c.port, "GET", bench_path("imp/a", "/compare?with=imp/a")), 200)
    check(same["spearman"] == 1 and same["top_overlap"] == 1 and same["metric"] == "bleu",
          "self %r" % short(same))
    mn = expect(call(c.port, "GET", bench_path("imp/a", "/compare?with=imp/b&metric=gpu_time&goal=minimize")), 200)
    ga = [r["gpu_time"] for r in ta["rows"]]
    gmap = {key(r): r["gpu_time"] for r in tb["rows"]}
    check(mn["top_a"] == 3 and mn["spearman"] == 1 and mn["top_overlap"] == 1
          and mn["top_both"] == len(top([-x for x in ga])), "minimize %r" % short(mn))
    check(all(gmap[key(r)] == r["gpu_time"] for r in ta["rows"]), "fixture")
    # A table with other parameters; a missing table; bad queries.
    other = {"name": "imp/other", "params": [{"name": "x", "type": "int"}], "metrics": ["bleu"],
             "rows": [{"x": i, "bleu": float(i)} for i in range(5)]}
    expect(call(c.port, "POST", "/v1/benchmarks", other), 201)
    expect_error(call(c.port, "GET", bench_path("imp/a", "/compare?with=imp/other")), 422,
                 "invalid_argument", "with")
    expect_error(call(c.port, "GET", bench_path("imp/a", "/compare?with=imp/none")), 422,
                 "invalid_argument", "with")
    expect_error(call(c.port, "GET", bench_path("imp/a", "/compare")), 400, "invalid_argument", "with")
    expect_error(call(c.port, "GET", bench_path("imp/a", "/compare?with=imp/b&goal=up")), 400,
                 "invalid_argument", "goal")
    expect_error(call(c.port, "GET", bench_path("imp/a", "/compare?with=imp/b&metric=ppl")), 422,
                 "invalid_argument", "metric")
    expect_error(call(c.port, "GET", bench_path("imp/a", "/compare?with=imp/b&top=3")), 400,
                 "invalid_argument")
    if cfg.have_tables:
        sw = expect(call(c.port, "GET", bench_path("nmthpo/sw-en", "/importance?metric=bleu")), 200)
        check(sw["n"] == 767 and len(sw["parameters"]) == 6, "sw-en %r" % short(sw))
        bpe = [p for p in sw["parameters"] if p["name"] == "bpe"][0]["shape"]
        check([pt["value"] for pt in bpe] == [1000, 2000, 4000, 8000, 16000, 32000]
              and sum(pt["count"] for pt in bpe) == 767, "sw-en bpe %r" % bpe)
        expect_error(call(c.port, "GET", bench_path("nmtlc/ted-zh-en", "/importance")), 422,
                     "invalid_argument", "metric")
