#!/usr/bin/env python3
"""tests/fuzz/seed_corpus.py [OUT] - seed inputs for the fuzz harnesses.

Writes one file per input (named by the SHA-1 of its bytes, as libFuzzer
names them) into OUT/<target>/ (default tests/fuzz/corpus):

  study     bodies of the API suite's bad POST /v1/studies requests, plus
            valid definitions covering every algorithm (README, tests)
  router    "METHOD PATH" of every bad request, plus every route
  import    bodies of the bad POST /v1/benchmarks requests, plus a good one
  simulate  bodies of the bad .../simulate requests, plus good ones
  report    bodies of the bad .../report requests, plus good ones

The bad requests come from tests/api/test_api.py's bad_cases(), so a case
added there becomes a seed the next time this runs. Bodies over 64 KiB
(the 1 MiB body, the 100000-deep nesting) are skipped; a 2000-deep nesting
stands in for the latter. Run it, then minimize with libFuzzer's -merge=1
(tests/fuzz/README.md).
"""
import copy
import hashlib
import json
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests", "api"))
import test_api  # noqa: E402  (no side effects: main() is behind __name__)

MAX_SEED = 64 * 1024

SPACE = copy.deepcopy(test_api.SPACE4)
BLEU = [{"name": "bleu", "goal": "maximize"}]
TWO = BLEU + [{"name": "gpu_time", "goal": "minimize"}]
CANDS = [{"lr": 0.01, "layers": 2, "bpe": 10000, "opt": "adam"},
         {"lr": 0.001, "layers": 3, "bpe": 30000, "opt": "sgd"},
         {"lr": 0.0001, "layers": 6, "bpe": 50000, "opt": "adafactor"}]
README_DEMO = {
    "name": "demo",
    "space": [
        {"name": "init_lr", "type": "float", "low": 0.0001, "high": 0.001, "log": True},
        {"name": "dropout", "type": "float", "low": 0.0, "high": 0.5},
        {"name": "layers", "type": "int", "low": 1, "high": 6},
        {"name": "optimizer", "type": "categorical", "choices": ["adam", "adafactor"]}],
    "objectives": BLEU,
    "algorithm": {"name": "random", "seed": 7},
    "budget": 20}
README_STAGED = {
    "name": "staged",
    "space": [{"name": "init_lr", "type": "float", "low": 0.0001, "high": 0.001, "log": True},
              {"name": "layers", "type": "int", "low": 1, "high": 6}],
    "objectives": [{"name": "ppl", "goal": "minimize"}],
    "algorithm": {"name": "multistage", "base": "gp", "k": 3,
                  "stages": [{"steps": 4, "trials": 12}, {"steps": 12, "trials": 6},
                             {"steps": 25, "trials": 3}]}}


def study(**kw):
    b = {"name": "seed", "space": copy.deepcopy(SPACE), "objectives": BLEU}
    b.update(kw)
    return b


def good_studies():
    yield README_DEMO
    yield README_STAGED
    yield study()
    yield study(algorithm=None, budget=None, constraints=None, candidates=None,
                reference=None)
    yield study(algorithm={"name": "gp", "seed": 1, "kernel": "rbf", "acquisition": "ucb",
                           "init": 5}, budget=30, lease_seconds=60)
    yield study(algorithm={"name": "gp", "acquisition": "pi"})
    yield study(algorithm={"name": "graph", "acquisition": "ei"}, candidates=CANDS)
    yield study(algorithm={"name": "greedy", "seed": 3, "init": 2}, candidates=CANDS)
    yield study(objectives=TWO, algorithm={"name": "ehvi", "surrogate": "graph",
                                           "kernel": "matern52"},
                reference={"bleu": 0, "gpu_time": 500},
                constraints=[{"metric": "mem", "max": 16, "confidence": 0.9},
                             {"metric": "bleu", "min": 10}])
    yield study(objectives=TWO, algorithm={"name": "asha", "R": 27, "r": 1, "u": 2, "p": 3,
                                           "keep": 1, "mode": "stopping"})
    yield study(algorithm={"name": "asha", "R": 9, "base": "graph", "acquisition": "eif"})
    yield study(algorithm={"name": "asha", "R": 9, "base": "gp", "kernel": "rbf"})
    yield study(algorithm={"name": "multistage", "stages": [{"steps": 1, "trials": 3}],
                           "k": 1, "init": 2}, budget=5)
    yield study(space=[{"name": "x", "type": "float", "values": [0.5, -1, 2e-300, 1e300],
                        "log": False},
                       {"name": "n", "type": "int", "values": [3, 1, 2], "log": True},
                       {"name": "c", "type": "categorical", "choices": ["\u00e9", "a b"]}],
                benchmark="lab/fixture")


def body_bytes(kw):
    if kw.get("body") is not None:
        return json.dumps(kw["body"]).encode()
    return kw.get("raw")


def target_of(method, path):
    if method != "POST":
        return None
    if path == "/v1/studies":
        return "study"
    if path == "/v1/benchmarks":
        return "import"
    if path.endswith("/simulate"):
        return "simulate"
    if path.endswith("/report"):
        return "report"
    return None


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "tests", "fuzz", "corpus")
    test_api.HAVE_TABLES = os.path.isfile(
        os.path.join(test_api.BENCH_DIR, "nmthpo", "zh-en.tsv"))
    seeds = {"study": [], "router": [], "import": [], "simulate": [], "report": []}
    for name, method, path, kw, *_ in test_api.bad_cases():
        p = path.replace("{S}", "12").replace("{L}", "7").replace("{D}", "8") \
                .replace("{M}", "3")
        seeds["router"].append(("%s %s" % (method, p)).encode())
        t = target_of(method, path)
        b = body_bytes(kw)
        if t and b is not None and len(b) <= MAX_SEED:
            seeds[t].append(b)
    seeds["study"].append(b'{"name": ' + b"[" * 2000 + b"]" * 2000 + b"}")
    for s in good_studies():
        seeds["study"].append(json.dumps({k: v for k, v in s.items()}).encode())
    for m, p in [("POST", "/v1/studies"), ("GET", "/v1/studies/1/best"),
                 ("GET", "/v1/benchmarks/nmthpo/zh-en"),
                 ("POST", "/v1/benchmarks/nmtlc/ted-zh-en/simulate"),
                 ("GET", "/v1/simulations/42/"), ("GET", "/metrics"),
                 ("POST", "/v1/trials/123456789012345678/report")]:
        seeds["router"].append(("%s %s" % (m, p)).encode())
    seeds["import"].append(json.dumps(test_api.synthetic_table("lab/seed")).encode())
    seeds["simulate"] += [json.dumps(b).encode() for b in [
        {"algorithm": {"name": "gp", "kernel": "rbf"}, "repeats": 2, "init": 3, "seed": 1,
         "objective": {"name": "bleu", "goal": "maximize"}, "tolerance": 0.5,
         "budget": 20, "pareto_budget": 50},
        {"algorithm": {"name": "ehvi"}, "objectives": TWO,
         "constraints": [{"metric": "gpu_time", "max": 100}]},
        {"algorithm": {"name": "sh", "p": 2, "c": 10, "rank": "extrapolate",
                       "round_up": True, "horizon": 5}, "configs": 40, "repeats": 100},
        {"algorithm": {"name": "asha", "r": 5, "u": 2, "R": 25, "p": 2, "keep": 2},
         "workers": 4, "seed": 9}]]
    seeds["report"] += [json.dumps(b).encode() for b in [
        {"values": {"bleu": 14.2}}, {"values": {"bleu": 11.2, "gpu_time": 3}, "step": 1},
        {"values": {"a.b-c_d": -1e-300}, "step": None}]]
    total = 0
    for t, items in seeds.items():
        d = os.path.join(out, t)
        os.makedirs(d, exist_ok=True)
        for b in items:
            with open(os.path.join(d, hashlib.sha1(b).hexdigest()), "wb") as f:
                f.write(b)
        total += len(set(items))
        print("%s: %d seeds" % (t, len(set(items))))
    print("%d seeds in %s" % (total, out))


if __name__ == "__main__":
    main()
