#!/usr/bin/env python3
"""tests/bench/importance_fanova.py URL [BENCH_DIR] - hpod's importance
(GET /v1/benchmarks/nmthpo/<ds>/importance?metric=bleu, the explainable
boosting machine of core/ebm) beside Optuna's fANOVA importance
(optuna.importance.FanovaImportanceEvaluator, random forests from
scikit-learn) on the same rows: for each of the six nmthpo tables an
Optuna study is filled with the table's rows (create_trial/add_trial,
objective bleu, every parameter a float distribution over its observed
range), and the two rankings are printed side by side with the Spearman
correlation of the two importance vectors (average ranks for ties).

Run by tests/bench/run.sh (make bench) with Debian's python3, which has
python3-optuna and python3-sklearn after `scripts/deps.sh bench`. Not a
test: nothing is asserted; it fails only when a request or a fit fails.
"""

import json
import math
import os
import sys
import urllib.request

import optuna
from optuna.importance import FanovaImportanceEvaluator, get_param_importances

URL = sys.argv[1].split(",")[0]
BENCH = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "benchmarks")
DATASETS = ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"]
PARAMS = ["bpe", "num_layers", "num_embed", "num_hidden", "num_heads", "init_lr"]


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
    den = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return sab / den if den > 0 else float("nan")


def rows_of(ds):
    with open(os.path.join(BENCH, "nmthpo", ds + ".tsv")) as f:
        lines = [x.rstrip("\r\n").split("\t") for x in f if x.strip()]
    head = lines[0]
    return [dict(zip(head, cells)) for cells in lines[1:]]


def fanova(rows, seed):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    dists = {}
    for p in PARAMS:
        vals = [float(r[p]) for r in rows]
        dists[p] = optuna.distributions.FloatDistribution(min(vals), max(vals))
    study = optuna.create_study(direction="maximize")
    for r in rows:
        study.add_trial(optuna.trial.create_trial(
            params={p: float(r[p]) for p in PARAMS}, distributions=dists,
            value=float(r["bleu"])))
    return get_param_importances(study, evaluator=FanovaImportanceEvaluator(seed=seed),
                                 normalize=True)


def hpod(ds):
    with urllib.request.urlopen("%s/v1/benchmarks/nmthpo/%s/importance?metric=bleu"
                                % (URL, ds), timeout=60) as r:
        return json.loads(r.read())


def main():
    print("importance on bleu: hpod (EBM, mean |f_j|, share of the sum) | "
          "Optuna %s fANOVA (seed 0, normalized)" % optuna.__version__)
    for ds in DATASETS:
        a = hpod(ds)
        h = {p["name"]: p["importance"] for p in a["parameters"]}
        f = fanova(rows_of(ds), 0)
        hs = sum(h.values()) or 1.0
        rho = spearman([h[p] for p in PARAMS], [f[p] for p in PARAMS])
        hr = sorted(PARAMS, key=lambda p: -h[p])
        fr = sorted(PARAMS, key=lambda p: -f[p])
        print("\n%s (%d rows, EBM r2 %.3f), Spearman of the two importance vectors %.2f"
              % (ds, a["n"], a["r2"], rho))
        print("  %-4s %-22s %-22s" % ("rank", "hpod EBM", "fANOVA"))
        for k in range(len(PARAMS)):
            print("  %-4d %-11s %5.1f%%     %-11s %5.1f%%"
                  % (k + 1, hr[k], 100 * h[hr[k]] / hs, fr[k], 100 * f[fr[k]]))
        pairs = ", ".join("%s×%s %.2f" % (q["parameters"][0], q["parameters"][1], q["importance"])
                          for q in a["pairs"])
        print("  hpod pairs: %s" % pairs)


if __name__ == "__main__":
    main()
