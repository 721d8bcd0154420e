#!/usr/bin/python3
"""tests/bench/suite/suite.py - the development suite (docs/suite.md): hpod
beside Optuna's TPE (multivariate and not), CMA-ES and random on the same
problems and seeds, and the leave-one-table-out figures of `auto`.

  suite.py --build build/release [--url http://127.0.0.1:PORT]
           [--sections tables,functions,generated,conditional]
           [--runs 100] [--runs-big 100] [--gen-runs 100] [--seeds 10]
           [--budget 40]
           [--jobs 2] [--out build/suite] [--dir ../shared/benchmarks]
           [--fresh 0] [--docs docs/suite.md] [--hpod-fn auto,gp_lsp,...]
           [--only SUBSTRING]

Sections (each keeps its runs under --out, so an interrupted suite resumes
and a second invocation only summarizes what it already has):
  tables       the six nmthpo tables: hpod-bench (Table 3, and Table 4
               with --mo) for auto, plain gp / ehvi and the configurations
               auto's cases choose between; the Optuna peers on the same
               seeds and initial rows (peers.py, mo_peers.py's protocol);
               the two-objective peers are docs/peers_mo.json's (make
               bench-peers).
  functions    the six test functions, their mixed and categorical
               variants: real studies over HTTP (--url: a release hpod
               serve), budget --budget, seeds 0..--seeds-1; --hpod-fn
               names hpod's methods (auto; gp, gp_nei, gp_lsp, gp_nei_lsp:
               candidates for auto's continuous case), --only runs only the
               problems whose key (e.g. "levy4/cat") holds the substring.
  generated    lookup tables built by problems.py, imported with POST
               /v1/benchmarks and replayed with simulate (--gen-runs per
               table).
  conditional  problems.CONDITIONALS: the peers define-by-run; hpod once
               the server accepts `condition` (skipped with the reason).
Then loo.py (the leave-one-table-out rules) and render.py (the summary it
prints, build/suite/suite.json, and --docs).
"""
import datetime
import json
import multiprocessing
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import problems  # noqa: E402
import hpod_client  # noqa: E402
from render import read_jsonl  # noqa: E402

SECTIONS = ["tables", "functions", "generated", "conditional"]
# The single-objective configurations of the tables section (hpod-bench
# keys): plain gp, auto, what auto's cases choose between, the controls.
SO_METHODS = ["auto", "bo_ei_m", "bo_neilsptr_m", "bo_hedge_m", "gb_ei_m",
              "greedy", "rs"]
# Two objectives: auto, plain ehvi/gp, the configurations auto's two
# cases have used, random.
MO_METHODS = ["bo_m", "gb_m", "gb_m_fr05", "gb_m_tr4_fr03_bl",
              "gb_m_tr2s_fr03_bl", "rs"]
# The generated tables: the same configurations as simulate algorithms,
# filled in from auto's own choice (see gen_algorithms).
GEN_METHODS = ["auto", "gp", "neilsptr", "hedge", "graph", "random"]


def log(msg):
    sys.stderr.write("suite: %s\n" % msg)
    sys.stderr.flush()


def parse(argv):
    o = {"build": "build/release", "url": None, "sections": SECTIONS,
         "runs": 100, "runs_big": 100, "seeds": 10, "budget": 40, "jobs": 2,
         "out": "build/suite", "fresh": 0, "docs": "",
         "dir": os.environ.get("HPOD_BENCHMARKS", "../shared/benchmarks"),
         "hpod_fn": "auto", "gen_runs": 100, "only": ""}
    i = 0
    while i < len(argv):
        k = argv[i][2:].replace("-", "_")
        if not argv[i].startswith("--") or k not in o or i + 1 >= len(argv):
            sys.stderr.write(__doc__)
            raise SystemExit(2)
        v = argv[i + 1]
        if k in ("sections", "hpod_fn"):
            o[k] = [s for s in v.split(",") if s]
        elif k in ("runs", "runs_big", "seeds", "budget", "jobs", "fresh",
                   "gen_runs"):
            o[k] = int(v)
        else:
            o[k] = v
        i += 2
    if isinstance(o["hpod_fn"], str):
        o["hpod_fn"] = o["hpod_fn"].split(",")
    for s in o["sections"]:
        if s not in SECTIONS:
            raise SystemExit("suite: unknown section %r" % s)
    return o


# ---- runs files: one JSON line per finished run or cell ----

def append_jsonl(path, rec):
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(rec) + "\n")


def pool_map(fn, jobs, n):
    if n <= 1 or len(jobs) <= 1:
        return map(fn, jobs)
    return multiprocessing.Pool(n).imap_unordered(fn, jobs)


# ---- tables: hpod-bench and the peers ----

def hpod_bench(o, args, out):
    """Runs hpod-bench with args into out unless out holds a report made by
    the same arguments."""
    exe = os.path.join(o["build"], "hpod-bench")
    cmd = [exe] + args + ["--dir", o["dir"], "--threads", str(o["jobs"])]
    want = " ".join(["hpod-bench"] + args[:])
    if os.path.exists(out) and not o["fresh"]:
        try:
            with open(out, encoding="utf-8") as f:
                if json.load(f).get("suite_args") == want:
                    return
        except ValueError:
            pass
    log("running %s" % " ".join(cmd))
    t0 = time.time()
    with open(out + ".log", "w", encoding="utf-8") as lf:
        rc = subprocess.call(cmd + ["--out", out + ".tmp"], stderr=lf,
                             env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    if rc != 0:
        raise SystemExit("suite: %s failed (%s.log)" % (exe, out))
    with open(out + ".tmp", encoding="utf-8") as f:
        rep = json.load(f)
    rep["suite_args"] = want
    rep["suite_seconds"] = time.time() - t0
    with open(out, "w", encoding="utf-8") as f:
        json.dump(rep, f)
    os.remove(out + ".tmp")


def _peer_table_job(a):
    import peers
    root, ds, method, seed, init = a
    t0 = time.process_time()
    t = peers.nmthpo_view(root, ds)
    seq = peers.table_run(t, method, seed, init)
    return {"table": ds, "method": method, "seed": seed, "init": init,
            "m": peers.table_metrics(t, seq, init), "length": len(seq),
            "cpu": time.process_time() - t0}


def peers_tables(o):
    import peers
    path = os.path.join(o["out"], "peers_tables.jsonl")
    have = {(r["table"], r["method"], r["seed"]) for r in read_jsonl(path)}
    big = {"sw-en", "so-en"}
    jobs = []
    for k in range(max(o["runs"], o["runs_big"])):
        for ds in mo_tables():
            if k >= (o["runs_big"] if ds in big else o["runs"]):
                continue
            for m in peers.METHODS:
                if (ds, m, k) not in have:
                    jobs.append((o["dir"], ds, m, k, 3))
    log("table peers: %d runs to go" % len(jobs))
    for i, rec in enumerate(pool_map(_peer_table_job, jobs, o["jobs"])):
        append_jsonl(path, rec)
        if i % 50 == 49:
            log("table peers: %d/%d" % (i + 1, len(jobs)))


def mo_tables():
    return ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"]


def section_tables(o):
    hpod_bench(o, ["--methods", ",".join(SO_METHODS), "--repeats",
                   str(o["runs"])], os.path.join(o["out"], "table3.json"))
    # Table 4 one table at a time (the large tables take most of the
    # time), so that an interrupted suite keeps the tables it finished.
    for ds in mo_tables():
        hpod_bench(o, ["--mo", "--tables", ds, "--mo-methods",
                       ",".join(MO_METHODS), "--repeats", str(o["runs"])],
                   os.path.join(o["out"], "mo-%s.json" % ds))
    peers_tables(o)


# ---- functions and conditional problems ----

def hpod_algorithm(method, seed):
    if method == "auto":
        return {"name": "auto", "seed": seed}
    if method == "random":
        return {"name": "random", "seed": seed}
    if method == "gp_nei":
        return {"name": "gp", "kernel": "matern52", "acquisition": "nei",
                "seed": seed}
    if method == "gp_lsp":  # the lengthscale prior of auto's finite cases
        return {"name": "gp", "kernel": "matern52", "acquisition": "ei",
                "lengthscale_prior": 1.0, "seed": seed}
    if method == "gp_nei_lsp":
        return {"name": "gp", "kernel": "matern52", "acquisition": "nei",
                "lengthscale_prior": 1.0, "seed": seed}
    return {"name": "gp", "kernel": "matern52", "acquisition": "ei",
            "seed": seed}


def _fn_job(a):
    kind, key, method, seed, budget, url = a
    t0 = time.time()
    if kind == "function":
        name, variant = key.split("/")
        pb = problems.Function(name, variant)
    else:
        pb = [c for c in problems.CONDITIONALS if c.key == key][0]
    rec = {"kind": kind, "problem": key, "method": method, "seed": seed}
    if method.startswith("hpod_"):
        h = hpod_client.Hpod(url)
        if kind == "function":
            space, ev = pb.space(), pb
        else:
            space = problems.conditional_space(pb)
            ev = (lambda p: pb.evaluate(lambda name, d: p[name]))
        ys, algo = h.run_study("suite %s %s %d" % (key, method, seed), space,
                               hpod_algorithm(method[5:], seed), budget, ev)
        if algo and algo.get("chosen"):
            rec["chosen"] = algo["chosen"].get("name")
            rec["case"] = algo.get("case")
    else:
        import peers
        run = peers.function_run if kind == "function" else \
            peers.conditional_run
        ys = run(pb, method, seed, budget)
    rec["best"] = min(ys) if ys else None
    rec["evals"] = len(ys)
    rec["regret"] = pb.regret(min(ys)) if ys else None
    rec["seconds"] = time.time() - t0
    return rec


def run_problems(o, kind, keys, hpod_methods, fname):
    import peers
    path = os.path.join(o["out"], fname)
    have = {(r["problem"], r["method"], r["seed"]) for r in read_jsonl(path)}
    methods = ["hpod_" + m for m in hpod_methods] + peers.METHODS
    jobs = [(kind, key, m, s, o["budget"], o["url"])
            for s in range(o["seeds"]) for key in keys for m in methods
            if (key, m, s) not in have and o["only"] in key]
    if any(j[2].startswith("hpod_") for j in jobs) and not o["url"]:
        raise SystemExit("suite: the %s section needs --url (a running hpod "
                         "serve; tests/bench/suite/run.sh starts one)" % kind)
    log("%s: %d runs to go" % (kind, len(jobs)))
    for i, rec in enumerate(pool_map(_fn_job, jobs, o["jobs"])):
        append_jsonl(path, rec)
        if i % 100 == 99:
            log("%s: %d/%d" % (kind, i + 1, len(jobs)))


def section_functions(o):
    keys = [f.key for f in problems.all_functions()]
    run_problems(o, "function", keys, o["hpod_fn"], "functions.jsonl")


def section_conditional(o):
    keys = [c.key for c in problems.CONDITIONALS]
    hpod_methods = []
    note = None
    if o["url"]:
        ok, msg = hpod_client.Hpod(o["url"]).accepts_condition(
            problems.conditional_space(problems.CONDITIONALS[0]))
        if ok:
            hpod_methods = ["auto"]
        else:
            note = ("hpod side skipped: the server refuses a space with "
                    "`condition` (%s); it runs once issue 29's conditional "
                    "spaces are served" % msg)
    else:
        note = "hpod side skipped: no --url"
    if note:
        log("conditional: " + note)
    with open(os.path.join(o["out"], "conditional_note.json"), "w",
              encoding="utf-8") as f:
        json.dump({"note": note}, f)
    run_problems(o, "conditional", keys, hpod_methods, "conditional.jsonl")


# ---- generated tables ----

def gen_algorithms(chosen):
    """The simulate algorithms of GEN_METHODS, built from auto's choice
    (gp/matern52/nei with the lengthscale prior, trust region and hedge on
    a finite single-objective space) by dropping parts."""
    base = {k: v for k, v in chosen.items() if k not in ("hedge", "seed")}
    return {
        "auto": {"name": "auto"},
        "gp": {"name": "gp", "kernel": "matern52", "acquisition": "ei"},
        "neilsptr": base,
        "hedge": dict(base, hedge=True),
        "graph": {"name": "graph", "kernel": "matern52", "acquisition": "ei"},
        "random": {"name": "random"},
    }


def _gen_peer_job(a):
    import peers
    name, method, seed, init = a
    t = gen_view(name)
    seq = peers.table_run(t, method, seed, init)
    return {"table": name, "method": method, "seed": seed,
            "m": peers.table_metrics(t, seq, init), "length": len(seq)}


_GEN_VIEWS = {}


def gen_view(name):
    import peers
    if name not in _GEN_VIEWS:
        rows = problems.generated_table(name)
        enc = problems.gen_encoding(rows)
        num = [p["name"] for p in problems.GEN_PARAMS
               if p["type"] != "categorical"]
        ci = [i for i, p in enumerate(problems.GEN_PARAMS)
              if p["type"] == "categorical"]
        ni = [i for i in range(len(problems.GEN_PARAMS)) if i not in ci]
        _GEN_VIEWS[name] = peers.TableView(
            name, [r["bleu"] for r in rows], [[e[i] for i in ni] for e in enc],
            num, [[e[i] for i in ci] for e in enc],
            [problems.GEN_PARAMS[i]["name"] for i in ci])
    return _GEN_VIEWS[name]


def section_generated(o):
    import peers
    if not o["url"]:
        raise SystemExit("suite: the generated section needs --url")
    h = hpod_client.Hpod(o["url"])
    path = os.path.join(o["out"], "generated.jsonl")
    recs = read_jsonl(path)
    have = {(r["table"], r["method"]) for r in recs if "runs" in r}
    for name in problems.GEN_TABLES:
        h.import_table(problems.gen_import_body(name))
        algos = None
        for m in GEN_METHODS:
            if (name, m) in have:
                continue
            if algos is None:
                ans = h.simulate("suite/" + name, {"name": "auto"}, 1, 0, 3)
                algos = gen_algorithms(ans["algorithm"]["chosen"])
            t0 = time.time()
            ans = h.simulate("suite/" + name, algos[m], o["gen_runs"], 0, 3)
            rec = {"table": name, "method": m, "runs": o["gen_runs"],
                   "algorithm": ans.get("algorithm"),
                   "metrics": ans["metrics"], "seconds": time.time() - t0}
            append_jsonl(path, rec)
            log("generated %s %s: ftb %.1f (%.0f s)" % (
                name, m, ans["metrics"]["ftb"]["mean"], time.time() - t0))
    have_p = {(r["table"], r["method"], r["seed"]) for r in recs
              if "seed" in r}
    jobs = [(name, m, s, 3) for s in range(o["gen_runs"])
            for name in problems.GEN_TABLES for m in peers.METHODS
            if (name, m, s) not in have_p]
    log("generated peers: %d runs to go" % len(jobs))
    for rec in pool_map(_gen_peer_job, jobs, o["jobs"]):
        append_jsonl(path, rec)


def main(argv):
    o = parse(argv)
    os.makedirs(o["out"], exist_ok=True)
    t0 = time.time()
    started = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    for s in SECTIONS:
        if s in o["sections"]:
            log("section %s" % s)
            globals()["section_" + s](o)
    import render
    rep = render.collect(o)
    rep["command"] = "tests/bench/suite/suite.py " + " ".join(argv)
    rep["started"] = started
    rep["seconds"] = time.time() - t0
    with open(os.path.join(o["out"], "suite.json"), "w",
              encoding="utf-8") as f:
        json.dump(rep, f, indent=1)
    sys.stdout.write(render.summary(rep))
    if o["docs"]:
        old = ""
        if os.path.exists(o["docs"]):
            with open(o["docs"], encoding="utf-8") as f:
                old = f.read()
        with open(o["docs"], "w", encoding="utf-8") as f:
            f.write(render.markdown(rep, old))
        log("wrote %s" % o["docs"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
