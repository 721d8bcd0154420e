"""tests/api/test_benchmark_studies.py - studies backed by a lookup table:
the table's space and rows, clients/python/fake_trainer.py through the real
HTTP path, ehvi and constrained gp on the nmthpo tables.
"""

import json
import math
import os
import re
import subprocess
import sys
import time

from harness import TOP, call, cfg, check, expect, expect_error, short, test
from client import BLEU_MAX, all_trials, canon, create, report, suggest, uname
from tables import NMTHPO_PARAMS, curve_models, evaluate, need_tables, study_metrics, tsv_rows


@test("benchmarks: a study backed by nmthpo/zh-en takes the table's space, rows and objective")
def t_bench_study(c):
    need_tables()
    t = tsv_rows("zh-en")
    rows = {canon({p: r[p] for p in NMTHPO_PARAMS}): i for i, r in enumerate(t)}
    s = create(c, {"name": "zh-en table", "benchmark": "nmthpo/zh-en",
                   "algorithm": {"name": "random", "seed": 4}, "budget": 5})
    check(s["benchmark"] == "nmthpo/zh-en" and s["n_candidates"] == 118
          and s["objectives"] == BLEU_MAX and s["budget"] == 5, "study %r" % short(s, 600))
    check([p["name"] for p in s["space"]] == NMTHPO_PARAMS, "space %r" % short(s["space"]))
    for p in s["space"]:
        check(sorted(p.get("values") or p.get("choices") or []) ==
              sorted({r[p["name"]] for r in t}), "space param %r" % p)
    got = []
    for k in range(5):
        tr = suggest(c, s["id"], "zh-%d" % k)["trials"][0]
        key = canon(tr["params"])
        check(key in rows, "suggested %r is not a row of zh-en" % tr["params"])
        ev = evaluate(c, "nmthpo/zh-en", tr["params"])
        check(ev["row"] == rows[key], "evaluate says row %r, the file %d" % (ev["row"], rows[key]))
        report(c, tr["id"], study_metrics(s, ev["values"]))
        got.append(rows[key])
    check(len(set(got)) == 5, "rows repeat: %r" % got)
    check(suggest(c, s["id"], "zh-0")["done"], "not done after the budget of 5")
    best = expect(call(c.port, "GET", "/v1/studies/%d/best" % s["id"]), 200)["trial"]
    check(best["values"]["bleu"] == max(t[i]["bleu"] for i in got), "best %r" % short(best))
    m = create(c, {"name": "zh-en two objectives", "benchmark": "nmthpo/zh-en",
                   "objectives": [{"name": "bleu", "goal": "maximize"},
                                  {"name": "gpu_time", "goal": "minimize"}]})
    check(m["n_candidates"] == 118 and len(m["objectives"]) == 2, "study %r" % short(m))
    g = expect(call(c.port, "GET", "/v1/studies/%d" % s["id"]), 200)
    check(g["benchmark"] == "nmthpo/zh-en" and g["n_candidates"] == 118, "GET study %r" % short(g))


@test("fake trainer: 4 workers, random, budget 30 on nmthpo/zh-en through the real HTTP path")
def t_fake_trainer(c):
    need_tables()
    t = tsv_rows("zh-en")
    rows = {canon({p: r[p] for p in NMTHPO_PARAMS}): i for i, r in enumerate(t)}
    script = os.path.join(TOP, "clients", "python", "fake_trainer.py")
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, script, "--url", "http://127.0.0.1:%d" % c.port,
                        "--benchmark", "nmthpo/zh-en", "--workers", "4", "--algorithm", "random",
                        "--budget", "30", "--seed", "11"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                       timeout=300)
    out = r.stdout.decode("utf-8", "replace")
    check(r.returncode == 0, "fake_trainer exited %d:\n%s" % (r.returncode, out[-2000:]))
    m = re.search(r"^study (\d+):", out, re.M)
    check(m, "fake_trainer did not print its study:\n%s" % out[-1000:])
    check(re.search(r"^best trial \d+: bleu ", out, re.M)
          and re.search(r"^table's best row 75 \(bleu 14.66\) (found after \d+|not found in 30)",
                        out, re.M), "fake_trainer's summary:\n%s" % out[-1000:])
    sid = int(m.group(1))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["benchmark"] == "nmthpo/zh-en" and st["state"] == "done"
          and st["trial_counts"]["completed"] == 30
          and sum(st["trial_counts"].values()) == 30, "study %r %r"
          % (st["state"], st["trial_counts"]))
    lst = all_trials(c, sid)
    seen = set()
    for tr in lst["trials"]:
        key = canon(tr["params"])
        check(key in rows, "trial %d has params %r, no row of zh-en" % (tr["id"], tr["params"]))
        i = rows[key]
        # The trial reports what its study measures: the objective, bleu.
        check(tr["values"] == {"bleu": t[i]["bleu"]},
              "trial %d (row %d) reported %r, the table says bleu %r"
              % (tr["id"], i, tr["values"], t[i]["bleu"]))
        seen.add(i)
    check(len(seen) == 30, "%d distinct rows in 30 trials" % len(seen))
    workers = {tr["worker"] for tr in lst["trials"]}
    check(len(workers) >= 2, "trials came from workers %r only" % sorted(workers))
    print("# fake trainer: 30 evaluations by 4 workers in %.1f s; %s" % (
        time.monotonic() - t0, " / ".join(x for x in out.splitlines()[-1:])), flush=True)


@test("fake trainer on learning curves: asha over nmtlc/ted-zh-en through the real HTTP path; every report is the curve's checkpoint")
def t_fake_trainer_curves(c):
    need_tables()
    models = curve_models("ted-zh-en")
    first = {}
    for hp, curve in models:
        first.setdefault(canon(hp), curve)
    R = 15
    script = os.path.join(TOP, "clients", "python", "fake_trainer.py")
    algo = {"name": "asha", "r": 3, "u": 3, "R": R, "p": 2, "keep": 2, "seed": 1}
    r = subprocess.run([sys.executable, script, "--url", "http://127.0.0.1:%d" % c.port,
                        "--benchmark", "nmtlc/ted-zh-en", "--workers", "4",
                        "--algorithm-json", json.dumps(algo)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                       timeout=300)
    out = r.stdout.decode("utf-8", "replace")
    check(r.returncode == 0, "fake_trainer exited %d:\n%s" % (r.returncode, out[-2000:]))
    m = re.search(r"^study (\d+):", out, re.M)
    check(m, "fake_trainer did not print its study:\n%s" % out[-1000:])
    sid = int(m.group(1))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["benchmark"] == "nmtlc/ted-zh-en" and st["state"] == "done"
          and st["objectives"] == [{"name": "ppl", "goal": "minimize"}]
          and st["n_candidates"] == len(first), "study %r %r %r"
          % (st["state"], st["n_candidates"], st["trial_counts"]))
    steps, full = 0, 0
    for tr in all_trials(c, sid)["trials"]:
        curve = first.get(canon(tr["params"]))
        check(curve is not None, "trial %d: %r is no configuration of the set"
              % (tr["id"], tr["params"]))
        for iv in tr["intermediate"]:
            k = iv["step"]
            check(1 <= k <= min(R, len(curve)) and iv["values"] == {"ppl": curve[k - 1]},
                  "trial %d reported %r at step %d, the curve has %r"
                  % (tr["id"], iv["values"], k, curve[k - 1] if k <= len(curve) else None))
        steps += len(tr["intermediate"])
        full += min(R, len(curve))
        if tr["state"] == "completed":
            want = min(curve[:min(R, len(curve))])
            check(tr["values"] == {"ppl": want}, "trial %d final %r, want %r"
                  % (tr["id"], tr["values"], want))
    check(re.search(r"^%d checkpoints trained" % steps, out, re.M),
          "the trainer's count differs from the %d reports stored:\n%s" % (steps, out[-600:]))
    check(steps < 0.7 * full, "trained %d of %d checkpoints" % (steps, full))
    print("# fake trainer, asha on ted-zh-en: %d of %d checkpoints (all %d configurations "
          "to R=%d); %s" % (steps, full, len(first), R, out.splitlines()[-1]), flush=True)


def drive_benchmark_study(c, ds, body, n_max, stop=None):
    """Suggest -> evaluate -> report on a benchmark-backed study; returns the
    list of (row, values) in order. stop(rows_so_far) ends the loop early."""
    s = create(c, dict(body, benchmark="nmthpo/" + ds))
    seen = []
    for _ in range(n_max):
        r = suggest(c, s["id"], "mo")
        if not r["trials"]:
            break
        t = r["trials"][0]
        e = expect(call(c.port, "POST", "/v1/benchmarks/nmthpo/%s/evaluate" % ds,
                        {"params": t["params"]}), 200)
        names = [o["name"] for o in body["objectives"]] + \
            [x["metric"] for x in body.get("constraints", [])]
        report(c, t["id"], {k: e["values"][k] for k in names})
        seen.append((e["row"], e["values"]))
        if stop and stop(seen):
            break
    return s, seen


@test("ehvi finds the zh-en Pareto set (max bleu, min gpu_time) in fewer evaluations than random")
def t_ehvi(c):
    need_tables()
    rows = tsv_rows("zh-en")
    front = {i for i, r in enumerate(rows) if r["pareto"]}
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    fta = {}
    for label, algo in [("random", {"name": "random"}),
                        ("ehvi/gp", {"name": "ehvi", "surrogate": "gp"}),
                        ("ehvi/graph", {"name": "ehvi", "surrogate": "graph"})]:
        runs = []
        for seed in range(3):
            _, seen = drive_benchmark_study(
                c, "zh-en", {"name": uname("ehvi " + label), "objectives": objs,
                             "algorithm": dict(algo, seed=seed)}, len(rows),
                stop=lambda sn: front <= {r for r, _ in sn})
            runs.append(len(seen))
        fta[label] = sum(runs) / float(len(runs))
    print("# evaluations until all %d Pareto rows of zh-en are found (mean of 3 seeds): %s"
          % (len(front), ", ".join("%s %.1f" % kv for kv in fta.items())))
    # Random search: E[max of 3 positions among 118] = 3*119/4 = 89.25.
    # The graph surrogate runs through the same path (and must not fail);
    # its figure is printed, not yet held to a bar (see the issue notes).
    check(fta["ehvi/gp"] < 75, "ehvi/gp fta %r" % fta)
    check(fta["ehvi/graph"] <= len(rows), "ehvi/graph fta %r" % fta)


@test("ehvi: the model state a server keeps per study never changes a choice: two servers taking turns issue what one server issues, and what the simulation replays (zh-en, gp and graph)")
def t_ehvi_kept_state(c):
    need_tables()
    b = c.server()
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    for sur in ("gp", "graph"):
        seqs = []
        for ports in ([c.port, b.port], [c.port]):
            s = create(c, {"name": uname("ehvi kept " + sur), "benchmark": "nmthpo/zh-en",
                           "objectives": objs,
                           "algorithm": {"name": "ehvi", "surrogate": sur, "seed": 5}})
            rows = []
            # 40 steps: past 32 observations the GP keeps its fit between
            # refits and extends its factor (core/mobo.h).
            for k in range(40):
                port = ports[k % len(ports)]
                t = suggest(c, s["id"], "kept", port=port)["trials"][0]
                ev = evaluate(c, "nmthpo/zh-en", t["params"])
                report(c, t["id"], study_metrics(s, ev["values"]), port=port)
                rows.append(ev["row"])
            seqs.append(rows)
        check(seqs[0] == seqs[1], "%s: two servers %r, one server %r"
              % (sur, seqs[0], seqs[1]))
        check(len(set(seqs[0])) == 40, "%s: a row issued twice %r" % (sur, seqs[0]))
        # The simulation replays the service: the same rows, in order, up
        # to where it stops (every Pareto row found), also its reference
        # point (the study's, from the rows seen so far).
        sim = expect(call(c.port, "POST", "/v1/benchmarks/nmthpo/zh-en/simulate",
                          {"algorithm": {"name": "ehvi", "surrogate": sur}, "objectives": objs,
                           "repeats": 1, "seed": 5}), 201)["sequences"][0]
        k = min(len(sim), 40)
        check(k > 3 and sim[:k] == seqs[1][:k], "%s: simulation %r, study %r"
              % (sur, sim[:k], seqs[1][:k]))


@test("constrained gp on ja-en (gpu_time <= median): within 0.5 BLEU of the best feasible row after 40, never an infeasible best")
def t_constrained(c):
    need_tables()
    rows = tsv_rows("ja-en")
    times = sorted(r["gpu_time"] for r in rows)
    bound = times[len(times) // 2]
    best_feasible = max(r["bleu"] for r in rows if r["gpu_time"] <= bound)
    gaps = []
    for seed in range(3):
        s, seen = drive_benchmark_study(
            c, "ja-en", {"name": uname("constrained"),
                         "objectives": [{"name": "bleu", "goal": "maximize"}],
                         "constraints": [{"metric": "gpu_time", "max": bound}],
                         "algorithm": {"name": "gp", "seed": seed}}, 40)
        b = expect(call(c.port, "GET", "/v1/studies/%d/best" % s["id"]), 200)["trial"]
        check(b is not None and b["values"]["gpu_time"] <= bound,
              "seed %d: best %r is not feasible" % (seed, b and b["values"]))
        gaps.append(best_feasible - b["values"]["bleu"])
    print("# constrained ja-en: gap to the best feasible BLEU after 40: %s" %
          ", ".join("%.2f" % g for g in gaps))
    check(sum(gaps) / len(gaps) <= 0.5, "mean gap %.3f > 0.5" % (sum(gaps) / len(gaps)))


@test("benchmarks: greedy with two objectives: a study on nmthpo/zh-en issues the rows its simulation picks, nearest the observed front")
def t_greedy_two_objectives(c):
    need_tables()
    t = tsv_rows("zh-en")
    rows = {canon({p: r[p] for p in NMTHPO_PARAMS}): i for i, r in enumerate(t)}
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    s = create(c, {"name": uname("greedy-mo"), "benchmark": "nmthpo/zh-en", "objectives": objs,
                   "algorithm": {"name": "greedy", "seed": 7}, "budget": 15})
    got = []
    for k in range(15):
        tr = suggest(c, s["id"], "g")["trials"][0]
        ev = evaluate(c, "nmthpo/zh-en", tr["params"])
        got.append(rows[canon(tr["params"])])
        report(c, tr["id"], study_metrics(s, ev["values"]))
        d = [x for x in expect(call(c.port, "GET", "/v1/trials/%d/explain" % tr["id"]),
                               200)["decisions"] if x["kind"] == "suggest"][0]
        check(d["chooser"] == ("initial_random" if k < 3 else "greedy"),
              "trial %d explained %r" % (k, short(d)))
    sim = expect(call(c.port, "POST", "/v1/benchmarks/nmthpo/zh-en/simulate",
                      {"algorithm": {"name": "greedy"}, "objectives": objs, "repeats": 1,
                       "seed": 7}), 201)
    check(sim["sequences"][0][:15] == got, "study %r, simulation %r" % (got, sim["sequences"][0][:15]))
    # The rule, recomputed: after the 3 initial rows, each row is the free
    # one nearest (scaled, ties to the lowest id) any row of the front.
    with open(os.path.join(cfg.bench_dir, "nmthpo", "zh-en.hyps_scaled")) as f:
        scaled = [[float(v) for v in ln.split()] for ln in f if ln.strip()]
    for k in range(3, 15):
        seen = got[:k]
        front = [i for i in seen if not any(
            t[j]["bleu"] >= t[i]["bleu"] and t[j]["gpu_time"] <= t[i]["gpu_time"]
            and (t[j]["bleu"] > t[i]["bleu"] or t[j]["gpu_time"] < t[i]["gpu_time"])
            for j in seen)]
        dist = [min(sum((a - b) ** 2 for a, b in zip(scaled[r], scaled[f])) for f in front)
                if r not in seen else float("inf") for r in range(len(t))]
        want = min(range(len(t)), key=lambda r: (dist[r], r))
        check(math.isclose(dist[got[k]], dist[want], rel_tol=1e-12, abs_tol=1e-12),
              "row %d: chose %d at %r, nearest the front %r is %d at %r"
              % (k, got[k], dist[got[k]], front, want, dist[want]))
    expect_error(call(c.port, "POST", "/v1/benchmarks/nmthpo/zh-en/simulate",
                      {"algorithm": {"name": "greedy"}, "objectives": [objs[0]],
                       "constraints": [{"metric": "gpu_time", "max": 100}]}),
                 422, "invalid_argument", "algorithm.name")
