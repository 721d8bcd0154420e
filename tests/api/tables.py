"""tests/api/tables.py - the lookup tables as the tests see them: the
expectations computed here from the files (nmthpo/*.tsv, nmtlc/scratch.jsonl)
or from synthetic_table(), a 12-row table built in code; evaluate() and
simulate() over HTTP; the simulation metrics recomputed from the sequences
(run_metrics, check_simulation). need_tables() skips a test without the
files.
"""

import json
import math
import os
import re

from harness import Skip, call, cfg, check, expect, is_int, short


# The lookup tables (docs/ARCHITECTURE.md, "Data formats"): rows,
# oracle-best BLEU row (the FIRST row holding the maximum) and its value, number of Pareto points (max bleu / min gpu_time).
NMTHPO = [("zh-en", 118, 75, 14.66, 3), ("ru-en", 176, 19, 20.23, 4),
          ("ja-en", 150, 89, 16.41, 5), ("en-ja", 168, 70, 20.74, 8),
          ("sw-en", 767, 230, 26.09, 14), ("so-en", 604, 332, 11.23, 7)]
NMTHPO_PARAMS = ["bpe", "num_layers", "num_embed", "num_hidden", "num_heads", "init_lr"]
NMTHPO_METRICS = ["bleu", "gpu_time", "ppl", "num_updates", "gpu_memory", "num_param"]
NMTLC = ["material-sw-en", "material-so-en", "ted-zh-en", "ted-ru-en",
         "robust19-ja-en", "robust19-en-ja"]
_FILES = {}


def need_tables():
    if not cfg.have_tables:
        raise Skip("no tables")


def tsv_rows(ds):
    """Rows of nmthpo/<ds>.tsv: parameters as the JSON types a client sends
    (integers for integral columns), metrics as floats; plus the file's
    pareto flags."""
    key = "tsv:" + ds
    if key not in _FILES:
        with open(os.path.join(cfg.bench_dir, "nmthpo", ds + ".tsv")) as f:
            lines = [x.rstrip("\r\n").split("\t") for x in f if x.strip()]
        head, rows = lines[0], []
        for i, cells in enumerate(lines[1:]):
            r = dict(zip(head, cells))
            check(int(r["id"]) == i, "%s.tsv: id %s on line %d" % (ds, r["id"], i + 2))
            row = {p: (int(r[p]) if re.match(r"^-?\d+$", r[p]) else float(r[p]))
                   for p in NMTHPO_PARAMS}
            row.update({m: float(r[m]) for m in NMTHPO_METRICS})
            row["pareto"] = r["pareto"] == "1"
            rows.append(row)
        _FILES[key] = rows
    return _FILES[key]


def lc_records(dataset):
    """The models of one nmtlc dataset in file order, as the file has them
    (dicts); row i is model i of the set, as the API numbers them."""
    if "lc" not in _FILES:
        sets = {}
        with open(os.path.join(cfg.bench_dir, "nmtlc", "scratch.jsonl")) as f:
            for line in f:
                if line.strip():
                    o = json.loads(line)
                    sets.setdefault(o["dataset_name"], []).append(o)
        _FILES["lc"] = sets
    return _FILES["lc"][dataset]


def curve_models(dataset):
    """The models of one nmtlc dataset in file order: (hyperparams, curve)."""
    return [(o["hyperparams"], o["perplexity_curve"]) for o in lc_records(dataset)]


def pareto_rows(bleu, gpu):
    """Rows not dominated for (max bleu, min gpu_time), ascending."""
    n = len(bleu)
    return [j for j in range(n)
            if not any(bleu[k] >= bleu[j] and gpu[k] <= gpu[j]
                       and (bleu[k] > bleu[j] or gpu[k] < gpu[j]) for k in range(n))]


def oracle_of(values):
    """{max, max_row, min, min_row}: the FIRST row holding each extreme."""
    hi, lo = max(values), min(values)
    return {"max": hi, "max_row": values.index(hi), "min": lo, "min_row": values.index(lo)}


def synthetic_table(name):
    """A 12-row table built here: llm (categorical) x lr (float, log),
    layers (int) following llm. Rows are in a deliberately unsorted order;
    bleu has a tie at the maximum (rows 7 and 8: the first is the oracle
    row) and row 8 is dominated by row 7 (same bleu, more gpu_time)."""
    llms = [("small", 2), ("base", 4), ("big", 6)]
    lrs = [1e-2, 1e-4, 1e-1, 1e-3]
    bleu = [18.5, 15.0, 12.25, 20.0, 22.0, 19.5, 14.0, 24.5, 24.5, 21.0, 16.5, 23.75]
    gpu = [40, 35, 30, 45, 80, 70, 65, 90, 160, 150, 140, 170.5]
    rows = []
    for i, (llm, layers) in enumerate(llms):
        for j, lr in enumerate(lrs):
            k = 4 * i + j
            rows.append({"llm": llm, "lr": lr, "layers": layers,
                         "bleu": bleu[k], "gpu_time": gpu[k]})
    return {"name": name,
            "params": [{"name": "llm", "type": "categorical"},
                       {"name": "lr", "type": "float", "log": True},
                       {"name": "layers", "type": "int"}],
            "metrics": ["bleu", "gpu_time"],
            "rows": rows}


SYN_PARAMS = ["llm", "lr", "layers"]


def study_metrics(study, values):
    """The part of a table's answer that a trial of study may report: its
    objectives and constrained metrics (anything else is 422)."""
    names = {o["name"] for o in study["objectives"]}
    names |= {k["metric"] for k in study.get("constraints") or []}
    return {k: v for k, v in values.items() if k in names}


def expected_benchmark(table):
    """What GET /v1/benchmarks/{name} must say about an imported table."""
    rows = table["rows"]
    names = [p["name"] for p in table["params"]]
    col = {m: [r[m] for r in rows] for m in table["metrics"]}
    return {
        "name": table["name"], "kind": "table", "source": "imported", "size": len(rows),
        "params": names, "metrics": list(table["metrics"]),
        "parameters": [{"name": p, "values": sorted({r[p] for r in rows})} for p in names],
        "oracle": {m: oracle_of(v) for m, v in col.items()},
        "pareto": (pareto_rows(col["bleu"], col["gpu_time"])
                   if "bleu" in col and "gpu_time" in col else []),
    }


def check_benchmark(got, want, where):
    """got (a Benchmark answer) holds every field of want, equal."""
    for k, v in want.items():
        g = got.get(k)
        if k == "pareto":
            check(isinstance(g, list) and sorted(g) == v,
                  "%s: pareto %r, expected rows %r" % (where, g, v))
        else:
            check(g == v, "%s: %s is %s, expected %s" % (where, k, short(g, 400), short(v, 400)))


def differing(a, b):
    """Keys whose values differ between two answers, with both values."""
    keys = sorted(set(a) | set(b))
    return "; ".join("%s: %s vs %s" % (k, short(a.get(k, "<absent>"), 120),
                                       short(b.get(k, "<absent>"), 120))
                     for k in keys if a.get(k, KeyError) != b.get(k, KeyError))


def same_simulation(a, b):
    """Equal, except that the wall time may be rounded to microseconds in
    storage."""
    return (dict(a, seconds=0) == dict(b, seconds=0)
            and math.isclose(a["seconds"], b["seconds"], rel_tol=0, abs_tol=1e-6))


def bench_path(name, suffix=""):
    return "/v1/benchmarks/" + name + suffix


def evaluate(c, name, params, step=None, port=None, status=200):
    body = {"params": params}
    if step is not None:
        body["step"] = step
    return expect(call(port or c.port, "POST", bench_path(name, "/evaluate"), body), status)


def simulate(c, name, body, port=None):
    return expect(call(port or c.port, "POST", bench_path(name, "/simulate"), body), 201)


def run_metrics(seq, y, pareto, init, tol, budget, pbudget):
    """The metrics of one run (TACL 2020 section 4), computed here: y
    oriented so that larger is better; positions are 1-based and at least
    init (a target among the initial rows counts as found at init)."""
    best = max(y)
    target = y.index(best)  # the FIRST row holding the best value
    pos = {r: i + 1 for i, r in enumerate(seq)}
    check(target in pos, "sequence %s... never reaches the oracle row %d"
          % (seq[:10], target))
    thr = best - tol
    out = {"ftb": max(pos[target], init),
           "ftc": max(next(i + 1 for i, r in enumerate(seq) if y[r] >= thr), init),
           "fb": best - max(y[r] for r in seq[:budget])}
    if pareto is not None:
        prows = [r for r in range(len(y)) if pareto[r]]
        missing = [r for r in prows if r not in pos]
        check(not missing, "sequence %s... misses Pareto rows %s" % (seq[:10], missing))
        out["fto"] = max(min(pos[r] for r in prows), init)
        out["fta"] = max(max(pos[r] for r in prows), init)
        out["fbp"] = sum(1 for r in seq[:pbudget] if pareto[r])
    return out


ALL_METRICS = ["ftb", "ftc", "fb", "fto", "fta", "fbp"]


def check_simulation(sim, y, pareto, n):
    """Sequences valid, long enough and no longer: each ends as soon as the
    metrics asked are decided and the budgets are spent. pareto: the
    table's Pareto flags when the request asked for fto, fta and fbp (with
    ftb, ftc, fb), None when it asked for the default ftb, ftc, fb only.
    Every metric's mean and population std equal to what run_metrics gives
    on the sequences, and no other metric reported."""
    seqs = sim["sequences"]
    check(len(seqs) == sim["repeats"], "%d sequences for %d repeats"
          % (len(seqs), sim["repeats"]))
    need = max(min(sim["budget"], n), min(sim["pareto_budget"], n) if pareto else 0)
    for s in seqs:
        check(all(is_int(r) and 0 <= r < n for r in s), "row ids out of [0, %d): %s"
              % (n, short(s)))
        check(len(set(s)) == len(s), "a sequence repeats a row: %s" % short(s))
        check(len(s) >= max(need, min(sim["init"], n)),
              "sequence of %d rows, shorter than the budgets (%d): %s" % (len(s), need, short(s)))
    per = [run_metrics(s, y, pareto, sim["init"], sim["tolerance"], sim["budget"],
                       sim["pareto_budget"]) for s in seqs]
    names = ["ftb", "ftc", "fb"] + (["fto", "fta", "fbp"] if pareto else [])
    check(sorted(sim["metrics"]) == sorted(names), "metrics %r, expected %r"
          % (sorted(sim["metrics"]), names))
    check(sim["computed_metrics"] == names, "computed_metrics %r, expected %r"
          % (sim["computed_metrics"], names))
    for s, p in zip(seqs, per):
        exact = max([min(sim["init"], n), min(sim["budget"], n), p["ftb"], p["ftc"]]
                    + ([p["fta"], min(sim["pareto_budget"], n)] if pareto else []))
        check(len(s) == exact, "sequence of %d rows, its metrics are decided at %d: %s"
              % (len(s), exact, short(s)))
    for m in names:
        v = [p[m] for p in per]
        mean = sum(v) / len(v)
        std = math.sqrt(sum((x - mean) ** 2 for x in v) / len(v))
        got = sim["metrics"][m]
        check(math.isclose(got["mean"], mean, rel_tol=1e-9, abs_tol=1e-9)
              and math.isclose(got["std"], std, rel_tol=1e-9, abs_tol=1e-9),
              "%s: server says %r, the sequences give mean %r std %r"
              % (m, got, mean, std))
    return per
