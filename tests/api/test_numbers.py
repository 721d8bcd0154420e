"""tests/api/test_numbers.py - numbers and integrity: the whole double range
and typed values round-trip through definitions, reports, tables and
pareto; reports across studies; migrations 0004 and 0005 on old data.
"""

import json
import math
import os
import subprocess
import sys

from harness import Server, TOP, call, check, db_snapshot, expect, expect_error, psql, short, test
from client import BLEU_MAX, all_trials, create, get_trial, report, suggest
from tables import bench_path, differing, evaluate, same_simulation, simulate


BIG = 1.7976931348623157e308  # DBL_MAX


def exact(got, want):
    """got is want, with every number of the same JSON type (a real never
    comes back as an integer) and every float bit for bit."""
    if isinstance(want, float):
        return isinstance(got, float) and got == want and math.copysign(1, got) == math.copysign(1, want)
    if isinstance(want, bool) or want is None or isinstance(want, str):
        return got == want and type(got) is type(want)
    if isinstance(want, int):
        return isinstance(got, int) and not isinstance(got, bool) and got == want
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            exact(g, w) for g, w in zip(got, want))
    if isinstance(want, dict):
        return isinstance(got, dict) and set(got) >= set(want) and all(
            exact(got[k], w) for k, w in want.items())
    return False


def raw_get(c, path, port=None):
    r = call(port or c.port, "GET", path)
    return expect(r, 200), r.raw.decode("utf-8")


@test("numbers: a reported 14.2 reads back as 14.2 beside a value that needs 17 digits")
def t_numbers_shortest(c):
    sid = create(c, {"name": "shortest numbers",
                     "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                     "objectives": [{"name": "bleu", "goal": "maximize"},
                                    {"name": "gpu_time", "goal": "minimize"}]})["id"]
    t = suggest(c, sid, "num-short")["trials"][0]
    odd = 0.1 + 0.2  # 0.30000000000000004: 17 significant digits
    report(c, t["id"], {"bleu": 14.2, "gpu_time": odd})
    for path in ("/v1/trials/%d" % t["id"], "/v1/studies/%d/trials" % sid,
                 "/v1/studies/%d/pareto" % sid):
        body, text = raw_get(c, path)
        check('"bleu":14.2,' in text or '"bleu":14.2}' in text,
              "%s: 14.2 not printed as 14.2: %s" % (path, short(text, 600)))
        check("0.30000000000000004" in text and "14.19999" not in text,
              "%s: the 17-digit value %r lost or 14.2 widened: %s" % (path, odd, short(text, 600)))
    tr = get_trial(c, t["id"])
    check(exact(tr["values"], {"bleu": 14.2, "gpu_time": odd}), "values %r" % tr["values"])


@test("numbers: 1e19 and -1.7976931348623157e308 in a definition round-trip; suggest and pareto answer")
def t_numbers_huge(c):
    body = {"name": "huge numbers",
            "space": [{"name": "x", "type": "float", "values": [2e19, 1e19]},
                      {"name": "w", "type": "float", "values": [-BIG, 0.5, BIG]},
                      {"name": "y", "type": "float", "low": -BIG, "high": BIG},
                      {"name": "n", "type": "int", "values": [-9007199254740992, 9007199254740992]},
                      {"name": "m", "type": "int", "low": -9007199254740992,
                       "high": 9007199254740992}],
            "objectives": [{"name": "bleu", "goal": "maximize"},
                           {"name": "gpu_time", "goal": "minimize"}],
            "constraints": [{"metric": "gpu_time", "max": 1e19}],
            "reference": {"bleu": -BIG, "gpu_time": 1e19},
            "algorithm": {"name": "ehvi", "init": 2, "seed": 3}}
    s = create(c, body)
    got, text = raw_get(c, "/v1/studies/%d" % s["id"])
    for g in (s, got):
        check(exact(g["space"][0]["values"], [1e19, 2e19])
              and exact(g["space"][1]["values"], [-BIG, 0.5, BIG])
              and exact(g["space"][3]["values"], [-9007199254740992, 9007199254740992])
              and exact(g["space"][2]["low"], -BIG) and exact(g["space"][2]["high"], BIG)
              and exact(g["space"][4]["low"], -9007199254740992)
              and exact(g["space"][4]["high"], 9007199254740992),
              "space came back as %r" % g["space"])
        check(exact(g["constraints"][0]["max"], 1e19), "constraint %r" % g["constraints"])
        check(exact(g["reference"], body["reference"]), "reference %r" % g["reference"])
    check("10000000000000000000" not in text and ("1e+19" in text or "1e19" in text),
          "1e19 printed as %s" % short(text, 800))
    seen = set()
    for i in range(4):
        t = suggest(c, s["id"], "num-huge-%d" % i)["trials"][0]
        p = t["params"]
        check(any(exact(p["x"], v) for v in (1e19, 2e19))
              and any(exact(p["w"], v) for v in (-BIG, 0.5, BIG))
              and isinstance(p["y"], float) and -BIG <= p["y"] <= BIG
              and p["n"] in (-9007199254740992, 9007199254740992)
              and isinstance(p["m"], int) and abs(p["m"]) <= 9007199254740992,
              "params %r" % p)
        seen.add(p["x"])
        report(c, t["id"], {"bleu": float(i), "gpu_time": 10.0 * i + 0.5})
    par, ptext = raw_get(c, "/v1/studies/%d/pareto?ranks=true&history=true" % s["id"])
    check(exact(par["reference"], body["reference"]), "pareto reference %r" % par["reference"])
    check(isinstance(par["hypervolume"], (int, float)) and par["n_completed"] == 4,
          "pareto %r" % short(par))
    for f in par["front"]:
        check(any(exact(f["params"]["x"], v) for v in (1e19, 2e19)), "front params %r" % f)
    # A finite study: the candidates (their own table) keep their numbers.
    fin = create(c, {"name": "huge candidates",
                     "space": [{"name": "x", "type": "float", "values": [1e19, 2e19, -BIG]}],
                     "candidates": [{"x": 2e19}, {"x": -BIG}],
                     "objectives": BLEU_MAX, "algorithm": {"name": "random", "seed": 1}})
    xs = []
    for i in range(2):
        t = suggest(c, fin["id"], "num-fin")["trials"][0]
        xs.append(t["params"]["x"])
        report(c, t["id"], {"bleu": 1.0 + i})
    check(sorted(xs) == [-BIG, 2e19] and all(isinstance(x, float) for x in xs),
          "finite study issued %r" % xs)
    best, btext = raw_get(c, "/v1/studies/%d/best" % fin["id"])
    check(exact(best["trial"]["params"]["x"], xs[1]), "best %r" % short(best))
    # The widest float range under the model-based samplers.
    for algo in ({"name": "gp", "init": 2, "seed": 5}, {"name": "graph", "init": 2, "seed": 5}):
        sid = create(c, {"name": "widest range " + algo["name"],
                         "space": [{"name": "z", "type": "float", "low": -BIG, "high": BIG}],
                         "objectives": BLEU_MAX, "algorithm": algo})["id"]
        for i in range(4):
            t = suggest(c, sid, "num-wide")["trials"][0]
            z = t["params"]["z"]
            check(isinstance(z, float) and -BIG <= z <= BIG, "%s suggested z = %r" % (algo, z))
            report(c, t["id"], {"bleu": float(i)})


@test("numbers: an imported table with 1e19 and -1.7976931348623157e308 round-trips")
def t_numbers_table(c):
    rows = [{"opt": "a", "lr": 1e19, "layers": 9007199254740992, "bleu": 14.2, "gpu_time": BIG},
            {"opt": "b", "lr": 2e19, "layers": -3, "bleu": 0.1 + 0.2, "gpu_time": -BIG},
            {"opt": "a", "lr": 5e-324, "layers": 0, "bleu": -1e19, "gpu_time": 1e-300}]
    table = {"name": "lab/huge-numbers",
             "params": [{"name": "opt", "type": "categorical"}, {"name": "lr", "type": "float"},
                        {"name": "layers", "type": "int"}],
             "metrics": ["bleu", "gpu_time"], "rows": rows}
    got = expect(call(c.port, "POST", "/v1/benchmarks", table), 201)
    g, text = raw_get(c, bench_path("lab/huge-numbers"))
    for b in (got, g):
        vals = {p["name"]: p["values"] for p in b["parameters"]}
        check(exact(vals["lr"], [5e-324, 1e19, 2e19])
              and exact(vals["layers"], [-3, 0, 9007199254740992]),
              "parameters %r" % b["parameters"])
    check("10000000000000000000" not in text, "1e19 printed as an integer: %s" % short(text, 800))
    for i, r in enumerate(rows):
        ev = evaluate(c, "lab/huge-numbers", {k: r[k] for k in ("opt", "lr", "layers")})
        check(ev["row"] == i and exact(ev["values"], {"bleu": r["bleu"], "gpu_time": r["gpu_time"]}),
              "evaluate row %d: %r" % (i, ev))
    s = create(c, {"name": "on huge numbers", "benchmark": "lab/huge-numbers",
                   "objectives": BLEU_MAX, "algorithm": {"name": "random", "seed": 2}})
    for k in range(3):
        t = suggest(c, s["id"], "num-tab")["trials"][0]
        check(any(exact(t["params"], {p: r[p] for p in ("opt", "lr", "layers")}) for r in rows),
              "suggested %r, not a row" % t["params"])
        ev = evaluate(c, "lab/huge-numbers", t["params"])["values"]
        report(c, t["id"], {"bleu": ev["bleu"]})
    sim = simulate(c, "lab/huge-numbers", {"algorithm": {"name": "random"}, "repeats": 2,
                                           "seed": 1, "init": 1, "budget": 2})
    again = expect(call(c.port, "GET", "/v1/simulations/%d" % sim["id"]), 200)
    check(same_simulation(again, sim), "stored simulation differs: %s" % differing(again, sim))


@test("numbers: migration 0005 converts a database holding data from 0001-0003")
def t_numbers_migration(c):
    db = "hpod_mig_json"
    url = c.dburl.replace("///hpod?", "///%s?" % db, 1)
    check(url != c.dburl, "cannot derive a second database URL from %s" % c.dburl)
    psql(c.dburl, "DROP DATABASE IF EXISTS %s" % db)
    psql(c.dburl, "CREATE DATABASE %s" % db)
    old = os.path.join(c.logdir, "migrations-0001-0003")
    os.makedirs(old, exist_ok=True)
    for f in os.listdir(os.path.join(TOP, "migrations")):
        if f[:4] in ("0001", "0002", "0003"):
            with open(os.path.join(TOP, "migrations", f), "rb") as src, \
                    open(os.path.join(old, f), "wb") as dst:
                dst.write(src.read())

    def migrate(mdir):
        env = dict(os.environ, HPOD_DATABASE_URL=url, HPOD_MIGRATIONS=mdir)
        r = subprocess.run([c.args.hpod, "migrate"], env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        check(r.returncode == 0, "hpod migrate (%s) exited %d: %s"
              % (mdir, r.returncode, r.stdout.decode("utf-8", "replace")[-1500:]))
    try:
        migrate(old)
        # A study as hpod stored it before: jsonb turned 1e19 into an
        # integer jansson cannot read ("too big integer").
        legacy = {"name": "old", "space": [{"name": "x", "type": "float", "low": 0.0,
                                            "high": 1.0, "log": False}],
                  "objectives": BLEU_MAX, "algorithm": {"name": "random", "seed": 1},
                  "constraints": [{"metric": "bleu", "max": 1e19, "confidence": 0.5}],
                  "budget": None, "benchmark": None, "lease_seconds": 60,
                  "reference": None}
        psql(url, "INSERT INTO studies (name, definition, lease_seconds) VALUES"
                  " ('old', '%s', 60);"
                  " INSERT INTO candidates VALUES (1, 0, '{\"x\": 0.5, \"s\": \"12345678901234567890\"}');"
                  " INSERT INTO trials (study_id, seq, state, params, worker, values)"
                  " VALUES (1, 0, 'completed', '{\"x\": 0.1}', 'w', '{\"bleu\": 14.2}');"
                  " INSERT INTO benchmarks VALUES ('lab/old', '{\"params\": []}', '[{\"a\": 1.5}]');"
                  " INSERT INTO simulations (benchmark, summary, sequences, seconds)"
                  " VALUES ('lab/old', '{\"m\": 2e19}', '[[0, 1]]', 1.5)" % json.dumps(legacy))
        check("10000000000000000000," in psql(url, "SELECT definition::text FROM studies"),
              "jsonb no longer rewrites 1e19: the legacy case is not reproduced")
        migrate(os.path.join(TOP, "migrations"))
        cols = psql(url, "SELECT table_name || '.' || column_name FROM information_schema.columns"
                         " WHERE table_schema = 'public' AND data_type = 'json' ORDER BY 1").split()
        want = ["benchmarks.definition", "benchmarks.rows", "candidates.params",
                "simulations.sequences", "simulations.summary", "studies.definition",
                "trials.params"]
        check(all(w in cols for w in want), "json columns %r, expected %r" % (cols, want))
        kept = psql(url, "SELECT c.params::text || ' ' || t.params::text || ' ' || b.rows::text"
                         " || ' ' || m.summary::text"
                         " FROM candidates c, trials t, benchmarks b, simulations m")
        check(kept.strip() == '{"s": "12345678901234567890", "x": 0.5} {"x": 0.1} [{"a": 1.5}] '
                              '{"m": 20000000000000000000.0}', "data after the migration: %r" % kept)
        # The legacy study reads back, with 1e19 a real again.
        srv = Server(c.args.hpod, c.logdir, url)
        try:
            srv.start()
            g = expect(call(srv.port, "GET", "/v1/studies/1"), 200)
            check(exact(g["constraints"][0]["max"], 1e19), "legacy study %r" % short(g))
            suggest(c, 1, "legacy", port=srv.port)
        finally:
            srv.stop()
    finally:
        psql(c.dburl, "DROP DATABASE IF EXISTS %s" % db)


def raw_report(c, tid, text, status=200):
    """Sends a report body as exact text (no float formatting on our side)."""
    return call(c.port, "POST", "/v1/trials/%d/report" % tid, raw=text.encode())


def same_double(a, b):
    return isinstance(a, float) and a == b and math.copysign(1, a) == math.copysign(1, b)


@test("typed values: 1e19, -1.7976931348623157e308, 5e-324 and 2^53+1 as a float read back "
      "exactly in the trial, the list, best and pareto; a conflicting report is 409; a curve "
      "with 1e19 keeps every step")
def t_typed_values(c):
    s = create(c, {"name": "typed values", "space": [{"name": "x", "type": "float",
                                                      "low": 0, "high": 1}],
                   "objectives": [{"name": "ppl", "goal": "minimize"}],
                   "algorithm": {"name": "random", "seed": 3}})
    sid = s["id"]
    texts = ["1e19", "-1.7976931348623157e308", "5e-324", "9007199254740993.0", "14.2",
             "-0.0"]
    ts = suggest(c, sid, "w", count=len(texts))["trials"]
    want = {}
    for t, txt in zip(ts, texts):
        body = '{"values": {"ppl": %s}}' % txt
        got = expect(raw_report(c, t["id"], body), 200)["trial"]
        check(got["state"] == "completed" and same_double(got["values"].get("ppl"), float(txt)),
              "report %s answered %r" % (txt, short(got)))
        want[t["id"]] = float(txt)
        # The same report again is 200; another value, or another metric of
        # the study on the completed trial, is 409; nothing changes.
        expect(raw_report(c, t["id"], body), 200)
        expect_error(raw_report(c, t["id"], '{"values": {"ppl": 1.5}}'), 409, "conflict",
                     "values.ppl")
        back = get_trial(c, t["id"])["values"]
        check(set(back) == {"ppl"} and same_double(back["ppl"], float(txt)),
              "%s read back as %r" % (txt, back))
    lst = all_trials(c, sid, "completed")["trials"]
    check({t["id"]: t["values"]["ppl"] for t in lst} == want
          and all(same_double(t["values"]["ppl"], want[t["id"]]) for t in lst),
          "the list reads back %r, want %r" % ([t["values"] for t in lst], want))
    b = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)["trial"]
    low = ts[texts.index("-1.7976931348623157e308")]["id"]
    check(b is not None and b["id"] == low and same_double(b["values"]["ppl"], -1.7976931348623157e308),
          "best %r, want trial %d" % (short(b), low))
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % sid), 200)
    check([x["trial"] for x in p["front"]] == [low] and p["n_completed"] == len(texts),
          "pareto %r" % short(p))
    # A diverged run's perplexity in the middle of a curve: every step stays.
    t = suggest(c, sid, "curve")["trials"][0]
    steps = ["3.5", "1e19", "2.25", "-1.7976931348623157e308"]
    for k, txt in enumerate(steps):
        expect(raw_report(c, t["id"], '{"values": {"ppl": %s}, "step": %d}' % (txt, k)), 200)
    got = get_trial(c, t["id"])["intermediate"]
    check([x["step"] for x in got] == list(range(len(steps)))
          and all(same_double(x["values"]["ppl"], float(steps[x["step"]])) for x in got),
          "curve read back as %r" % got)
    # A step already recorded replaces nothing.
    expect(raw_report(c, t["id"], '{"values": {"ppl": 7}, "step": 1}'), 200)
    check(same_double(get_trial(c, t["id"])["intermediate"][1]["values"]["ppl"], 1e19),
          "step 1 was replaced")
    # The database holds doubles in typed columns, not numbers in JSON.
    col = psql(c.dburl, "SELECT data_type FROM information_schema.columns WHERE "
                        "table_name = 'trial_values' AND column_name = 'value'").strip()
    check(col == "double precision", "trial_values.value is %r" % col)
    stored = psql(c.dburl, "SELECT value FROM trial_values WHERE trial_id = %d" % low).strip()
    check(float(stored) == -1.7976931348623157e308, "stored %r" % stored)


@test("pareto over the whole double range: the front is found, the reference and the "
      "hypervolume are finite numbers, nothing is 5xx")
def t_pareto_huge(c):
    s = create(c, {"name": "pareto huge", "space": [{"name": "x", "type": "float",
                                                     "low": 0, "high": 1}],
                   "objectives": [{"name": "bleu", "goal": "maximize"},
                                  {"name": "gpu_time", "goal": "minimize"}],
                   "algorithm": {"name": "random", "seed": 4}})
    pts = [("1.7976931348623157e308", "1.7976931348623157e308"),
           ("-1.7976931348623157e308", "-1.7976931348623157e308"),
           ("1e19", "5e-324")]
    ts = suggest(c, s["id"], "w", count=len(pts))["trials"]
    for t, (b, g) in zip(ts, pts):
        expect(raw_report(c, t["id"], '{"values": {"bleu": %s, "gpu_time": %s}}' % (b, g)), 200)
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto?history=true" % s["id"]), 200)
    # Every point is non-dominated (higher bleu always costs more time).
    check(sorted(x["trial"] for x in p["front"]) == sorted(t["id"] for t in ts),
          "front %r" % short(p))
    ref = p["reference"]
    check(set(ref) == {"bleu", "gpu_time"} and all(math.isfinite(v) for v in ref.values())
          and math.isfinite(p["hypervolume"]), "reference %r, hypervolume %r"
          % (ref, p["hypervolume"]))
    # The volume itself overflows a double: it saturates at the largest one
    # (it is at least that), never 0, in the answer and in its history.
    check(p["hypervolume"] == sys.float_info.max
          and p["history"][-1]["hypervolume"] == sys.float_info.max,
          "hypervolume %r, history %r" % (p["hypervolume"], p["history"]))


@test("reports across studies: a trial takes only its own study's metrics (422), and a "
      "completed trial takes no new metric (409)")
def t_report_other_study(c):
    a = create(c, {"name": "study A", "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                   "objectives": [{"name": "bleu", "goal": "maximize"}],
                   "constraints": [{"metric": "gpu_time", "max": 100}]})
    b = create(c, {"name": "study B", "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                   "objectives": [{"name": "ppl", "goal": "minimize"}]})
    tb_live = suggest(c, b["id"], "w")["trials"][0]
    tb_done = suggest(c, b["id"], "w2")["trials"][0]
    report(c, tb_done["id"], {"ppl": 9.5})
    before = db_snapshot(c.dburl)
    for tid in (tb_live["id"], tb_done["id"]):
        expect_error(call(c.port, "POST", "/v1/trials/%d/report" % tid,
                          {"values": {"bleu": 30}}), 422, "invalid_argument", "values.bleu")
        expect_error(call(c.port, "POST", "/v1/trials/%d/report" % tid,
                          {"values": {"gpu_time": 1}, "step": 2}), 422, "invalid_argument",
                     "values.gpu_time")
    check(db_snapshot(c.dburl) == before, "a refused report changed the database")
    check(get_trial(c, tb_done["id"])["values"] == {"ppl": 9.5}, "B's completed trial changed")
    # Within study A: bleu completes; the constraint's metric afterwards is 409.
    ta = suggest(c, a["id"], "w")["trials"][0]
    report(c, ta["id"], {"bleu": 20})
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % ta["id"],
                      {"values": {"gpu_time": 50}}), 409, "conflict", "values.gpu_time")
    check(get_trial(c, ta["id"])["values"] == {"bleu": 20}, "A's completed trial changed")


@test("migration 0004 moves every number a jsonb column held into typed columns, 1e19 "
      "included, and hpod migrate is idempotent")
def t_migrate_typed(c):
    import shutil
    import tempfile
    db = "hpod_mig_%d" % os.getpid()
    url = c.dburl.replace("/hpod?", "/%s?" % db, 1)
    check(url != c.dburl, "cannot derive a second database's URL from %r" % c.dburl)
    psql(c.dburl, "DROP DATABASE IF EXISTS %s" % db)
    psql(c.dburl, "CREATE DATABASE %s" % db)
    old = tempfile.mkdtemp(prefix="hpod-mig-")
    try:
        for f in sorted(os.listdir(os.path.join(TOP, "migrations"))):
            if f < "0004":
                shutil.copy(os.path.join(TOP, "migrations", f), old)

        def migrate(dirname):
            r = subprocess.run([c.args.hpod, "migrate"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=120,
                               env=dict(os.environ, HPOD_DATABASE_URL=url,
                                        HPOD_MIGRATIONS=dirname))
            check(r.returncode == 0, "hpod migrate: %s" % r.stdout.decode()[-1500:])
        migrate(old)
        # A study as 0001-0003 stored it: values inside jsonb (1e19 comes
        # back from jsonb as 10000000000000000000).
        psql(url, "INSERT INTO studies (id, name, definition, lease_seconds) VALUES "
                  "(1, 's', '{}', 60);"
                  "INSERT INTO trials (id, study_id, seq, state, params, worker, values) VALUES "
                  "(1, 1, 0, 'completed', '{\"x\": 0.5}', 'w', "
                  "'{\"ppl\": 1e19, \"gpu_time\": 14.2, \"note\": \"text\"}'),"
                  "(2, 1, 1, 'running', '{\"x\": 0.25}', 'w', '{}');"
                  "INSERT INTO intermediate_values (trial_id, step, values, action) VALUES "
                  "(2, 0, '{\"ppl\": -1.7976931348623157e308}', 'continue'),"
                  "(2, 1, '{}', 'stop')")
        migrate(os.path.join(TOP, "migrations"))
        migrate(os.path.join(TOP, "migrations"))   # idempotent
        got = psql(url, "SELECT trial_id, metric, value FROM trial_values ORDER BY 1, 2")
        check([l.split("|") for l in got.split()] ==
              [["1", "gpu_time", "14.2"], ["1", "ppl", "1e+19"]], "trial_values %r" % got)
        got = psql(url, "SELECT trial_id, step, metric, value FROM step_values ORDER BY 1, 2")
        check([l.split("|") for l in got.split()] ==
              [["2", "0", "ppl", "-1.7976931348623157e+308"]], "step_values %r" % got)
        got = psql(url, "SELECT count(*) FROM intermediate_values")
        check(got.strip() == "2", "intermediate_values rows %r" % got)
        got = psql(url, "SELECT count(*) FROM information_schema.columns WHERE "
                        "table_name IN ('trials', 'intermediate_values') AND column_name = 'values'")
        check(got.strip() == "0", "the jsonb values columns are still there")
    finally:
        shutil.rmtree(old, ignore_errors=True)
        psql(c.dburl, "DROP DATABASE IF EXISTS %s" % db)
