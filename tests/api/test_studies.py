"""tests/api/test_studies.py - /v1/studies: the trainer loop end to end
(create, suggest, heartbeat, reports, list, best, pareto, delete),
listing and paging, content types.
"""

import json
import math

from harness import call, check, expect, expect_error, is_int, parse_ts, short, test
from client import (BLEU_MAX, SPACE4, all_trials, check_new_trial, create, get_trial, report,
                    suggest)


@test("trainer loop: create, suggest, heartbeat, intermediate and final reports, list, best, pareto, delete")
def t_trainer_loop(c):
    s = create(c, {"name": "trainer loop", "space": SPACE4, "objectives": BLEU_MAX})
    sid = s["id"]
    check(s["name"] == "trainer loop", "name %r" % s["name"])
    check([p["name"] for p in s["space"]] == ["lr", "layers", "bpe", "opt"],
          "space order/names %r" % s["space"])
    sp = {p["name"]: p for p in s["space"]}
    check(sp["lr"]["type"] == "float" and sp["lr"]["log"] is True
          and math.isclose(sp["lr"]["low"], 1e-4) and math.isclose(sp["lr"]["high"], 0.1),
          "lr normalized as %r" % sp["lr"])
    check(sp["layers"]["type"] == "int" and sp["layers"].get("log") is False
          and sp["layers"]["low"] == 1 and sp["layers"]["high"] == 6,
          "layers normalized as %r (log must be present on ranges)" % sp["layers"])
    check(sp["bpe"]["values"] == [10000, 30000, 50000], "bpe normalized as %r" % sp["bpe"])
    check(sp["opt"]["choices"] == ["adam", "sgd", "adafactor"], "opt as %r" % sp["opt"])
    check(s["objectives"] == BLEU_MAX, "objectives %r" % s["objectives"])
    check(s["constraints"] == [], "constraints %r" % s["constraints"])
    check(s["algorithm"]["name"] == "auto" and is_int(s["algorithm"].get("seed"))
          and s["algorithm"]["chosen"]["name"] == "gp",
          "default algorithm %r (want auto choosing gp, its seed filled in)" % s["algorithm"])
    check(s["budget"] is None and s["benchmark"] is None and s["reference"] is None
          and s["n_candidates"] is None, "budget/benchmark/reference/n_candidates not null")
    check(s["lease_seconds"] == 3600, "default lease_seconds %r" % s["lease_seconds"])
    check(s["state"] == "active", "state %r" % s["state"])
    check(all(v == 0 for v in s["trial_counts"].values()), "counts %r" % s["trial_counts"])
    parse_ts(s["created_at"])

    finals = [10.5, 12.25, 11.0]
    tids = []
    for k, bleu in enumerate(finals):
        w = "trainer-%d" % k
        r = suggest(c, sid, w)
        check(len(r["trials"]) == 1 and r["done"] is False, "suggest answer %r" % short(r))
        t = r["trials"][0]
        check_new_trial(t, sid, w, SPACE4)
        tids.append(t["id"])
        lease0 = parse_ts(t["lease_expires_at"])
        h = expect(call(c.port, "POST", "/v1/trials/%d/heartbeat" % t["id"], {}), 200)["trial"]
        check(h["state"] == "running", "state after heartbeat %r" % h["state"])
        check(parse_ts(h["lease_expires_at"]) >= lease0, "heartbeat did not renew the lease")
        for step in (1, 2):
            a = report(c, t["id"], {"bleu": bleu - 3 + step}, step=step)
            check(a.get("action") in ("continue", "stop"), "action %r" % a.get("action"))
            check(a["trial"]["state"] == "running", "state after step %d: %r"
                  % (step, a["trial"]["state"]))
            check([x["step"] for x in a["trial"]["intermediate"]] == list(range(1, step + 1)),
                  "intermediate %r" % a["trial"]["intermediate"])
            if a["action"] == "stop":
                break
        # A metric the study does not know is refused before anything is
        # written (issue: integrity), live trial or not.
        expect_error(call(c.port, "POST", "/v1/trials/%d/report" % t["id"],
                          {"values": {"bleu": bleu, "tokens": 123}}),
                     422, "invalid_argument", "values.tokens")
        f = report(c, t["id"], {"bleu": bleu})["trial"]
        check(f["state"] == "completed", "state after final report %r" % f["state"])
        check(f["values"] == {"bleu": bleu}, "values %r" % f["values"])
        check(f["lease_expires_at"] is None, "completed trial still has a lease")
        check("action" not in report(c, t["id"], {"bleu": bleu}),
              "a final report answered an action")
        g = get_trial(c, t["id"])
        check(g == f, "GET trial %r differs from the report answer %r" % (short(g), short(f)))
        check(g["intermediate"][0]["values"] == {"bleu": bleu - 2},
              "intermediate values %r" % g["intermediate"])

    lst = all_trials(c, sid, "completed")
    check(lst["total"] == 3 and [t["id"] for t in lst["trials"]] == tids,
          "completed list %r" % short(lst))
    check(all(t["state"] == "completed" for t in lst["trials"]), "states in completed list")
    check(all_trials(c, sid, "pending")["total"] == 0, "pending trials left")
    p1 = expect(call(c.port, "GET", "/v1/studies/%d/trials?limit=2" % sid), 200)
    p2 = expect(call(c.port, "GET", "/v1/studies/%d/trials?limit=2&offset=2" % sid), 200)
    check([t["id"] for t in p1["trials"]] == tids[:2] and p1["total"] == 3
          and p1["limit"] == 2 and p1["offset"] == 0, "page 1 %r" % short(p1))
    check([t["id"] for t in p2["trials"]] == tids[2:] and p2["offset"] == 2,
          "page 2 %r" % short(p2))

    b = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)
    check(b["trial"] is not None and b["trial"]["id"] == tids[1], "best %r" % short(b))
    pa = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % sid), 200)
    check([x["trial"] for x in pa["front"]] == [tids[1]], "single-objective front %r" % short(pa))
    check(pa["front"][0]["values"]["bleu"] == 12.25, "front values %r" % pa["front"])
    check(pa["front"][0]["params"] == b["trial"]["params"], "front params")
    check(pa["n_completed"] == 3 and pa["objectives"] == BLEU_MAX, "pareto %r" % short(pa))
    check(isinstance(pa["reference"], dict) and "bleu" in pa["reference"],
          "derived reference %r" % pa["reference"])

    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["trial_counts"]["completed"] == 3, "counts %r" % st["trial_counts"])
    check(st["state"] == "active", "infinite study without budget is %r" % st["state"])

    d = call(c.port, "DELETE", "/v1/studies/%d" % sid)
    check(d.status == 204 and d.raw == b"", "delete answered %r" % d)
    expect_error(call(c.port, "GET", "/v1/studies/%d" % sid), 404, "not_found")
    expect_error(call(c.port, "GET", "/v1/trials/%d" % tids[0]), 404, "not_found")
    expect_error(call(c.port, "DELETE", "/v1/studies/%d" % sid), 404, "not_found")


@test("list studies: newest first, limit and offset")
def t_list_studies(c):
    ids = [create(c, {"name": "list %d" % i, "space": SPACE4[:1],
                      "objectives": BLEU_MAX})["id"] for i in range(3)]
    p = expect(call(c.port, "GET", "/v1/studies?limit=2"), 200)
    check([s["id"] for s in p["studies"]] == ids[::-1][:2], "page %r" % [s["id"] for s in p["studies"]])
    check(p["limit"] == 2 and p["offset"] == 0 and p["total"] >= 3, "paging %r" % short(p, 100))
    q = expect(call(c.port, "GET", "/v1/studies?limit=1&offset=2"), 200)
    check([s["id"] for s in q["studies"]] == [ids[0]], "offset page %r" % short(q, 200))
    d = expect(call(c.port, "GET", "/v1/studies"), 200)
    check(d["limit"] == 50 and d["offset"] == 0, "default paging %r/%r" % (d["limit"], d["offset"]))
    check(d["total"] == p["total"], "total changed")


@test("content types: charset parameter accepted, empty body means {}")
def t_content_types(c):
    sid = create(c, {"name": "ctype", "space": SPACE4[:1], "objectives": BLEU_MAX})["id"]
    r = call(c.port, "POST", "/v1/studies/%d/suggest" % sid,
             raw=json.dumps({"worker": "cs"}).encode(), ctype="application/json; charset=utf-8")
    t = expect(r, 200)["trials"][0]
    check(t["worker"] == "cs", "worker %r" % t["worker"])
    r = call(c.port, "POST", "/v1/studies/%d/suggest" % sid, raw=b"", ctype=None)
    d = expect(r, 200)["trials"]
    check(len(d) == 1 and d[0]["worker"] == "default", "empty-body suggest %r" % short(d))
    r = call(c.port, "POST", "/v1/trials/%d/heartbeat" % t["id"], raw=b"", ctype="text/plain")
    check(expect(r, 200)["trial"]["state"] == "running", "heartbeat with an empty body")


@test("migration 0023: stored studies with a removed option (hedge_judge observed, gp_blend all, log_objectives, also inside auto's chosen) read back with the replacement and suggest; other text kept; load_if_exists matches again; running it again changes nothing")
def t_migrate_removed_options(c):
    import os
    import shutil
    import subprocess
    import tempfile
    from harness import TOP, Server, fresh_database, psql
    from client import uname
    url = fresh_database(c.dburl, "hpod_mig_removed")
    old = tempfile.mkdtemp(prefix="hpod-mig-")
    mig = os.path.join(TOP, "migrations")
    servers = []

    def migrate(dirname):
        r = subprocess.run([c.args.hpod, "migrate"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=120,
                           env=dict(os.environ, HPOD_DATABASE_URL=url, HPOD_MIGRATIONS=dirname))
        check(r.returncode == 0, "hpod migrate: %s" % r.stdout.decode()[-1500:])

    def serve(dirname):
        s = Server(c.args.hpod, c.logdir, url)
        s.extra_env = {"HPOD_MIGRATIONS": dirname}
        servers.append(s)
        return s.start().port

    def texts():
        rows = psql(url, "SELECT id, definition::text FROM studies ORDER BY id").splitlines()
        return {int(r.split("|", 1)[0]): r.split("|", 1)[1] for r in rows}

    try:
        for f in sorted(os.listdir(mig)):
            if f.endswith(".sql") and f < "0023":
                shutil.copy(os.path.join(mig, f), old)
        migrate(old)
        port = serve(old)
        cands = [{"x": x, "y": y} for x in range(6) for y in range(4)]
        space = [{"name": "x", "type": "int", "values": list(range(6))},
                 {"name": "y", "type": "int", "values": list(range(4))}]
        one = [{"name": "bleu", "goal": "maximize"}]
        two = one + [{"name": "gpu_time", "goal": "minimize"}]
        # A bound of 1e19: text jsonb would rewrite, which must stay as written.
        cons = [{"metric": "gpu_time", "max": 1e19}]
        hedge = {"name": "gp", "acquisition": "nei", "trust_region": 8,
                 "lengthscale_prior": 1.0, "hedge": True, "seed": 3}
        blend = {"name": "ehvi", "surrogate": "graph", "trust_region": 2,
                 "trust_shape": "steps", "front_reference": 0.3, "gp_blend": "first", "seed": 3}
        bodies = {
            "hedge": dict(objectives=one, algorithm=hedge),
            "blend": dict(objectives=two, constraints=cons, algorithm=blend),
            "log": dict(objectives=two, algorithm={"name": "ehvi", "seed": 3}),
            "auto so": dict(objectives=one, algorithm={"name": "auto", "seed": 3}),
            "auto mo": dict(objectives=two, algorithm={"name": "auto", "seed": 3}),
            "random": dict(objectives=one, constraints=[{"metric": "bleu", "max": 1e19}],
                           algorithm={"name": "random", "seed": 3}),
        }
        ids = {}
        for k, b in bodies.items():
            b.update(name=uname("mig " + k), space=space, candidates=cands, lab="mig")
            ids[k] = create(c, b, port=port)["id"]
        check([json.loads(texts()[ids[k]])["algorithm"].get("case")
               for k in ("auto so", "auto mo")] == ["so_finite", "mo_finite"],
              "auto cases %r" % texts())
        # What an hpod before the removal stored: the removed values, and
        # log_objectives (false) in every ehvi definition.
        def old_def(k, edit):
            d = json.loads(texts()[ids[k]])
            edit(d["algorithm"])
            psql(url, "UPDATE studies SET definition = $j$%s$j$ WHERE id = %d"
                 % (json.dumps(d), ids[k]))
        old_def("hedge", lambda a: a.update(hedge_judge="observed"))
        old_def("blend", lambda a: a.update(gp_blend="all", log_objectives=False))
        old_def("log", lambda a: a.update(log_objectives=True))
        old_def("auto so", lambda a: a["chosen"].update(hedge_judge="observed"))
        old_def("auto mo", lambda a: a["chosen"].update(gp_blend="all", log_objectives=False))
        before = texts()
        check("1e+19" in before[ids["blend"]], "the bound's text %r" % before[ids["blend"]])
        # The same definition sent again matched nothing while the stored
        # one kept log_objectives (false): the new one no longer has it.
        again = dict(bodies["blend"], load_if_exists=True)
        expect_error(call(port, "POST", "/v1/studies", dict(again, algorithm=dict(
            blend, gp_blend="first"))), 409, "conflict")
        servers.pop().stop()
        migrate(mig)
        check(psql(url, "SELECT count(*) FROM schema_migrations WHERE version = 23").strip()
              == "1", "0023 not recorded")
        after = texts()
        want = {"hedge": {k: v for k, v in json.loads(before[ids["hedge"]])["algorithm"].items()
                          if k != "hedge_judge"},
                "blend": dict({k: v for k, v in json.loads(before[ids["blend"]])["algorithm"]
                               .items() if k != "log_objectives"}, gp_blend="first"),
                "log": {k: v for k, v in json.loads(before[ids["log"]])["algorithm"].items()
                        if k != "log_objectives"}}
        for k, w in want.items():
            a = json.loads(after[ids[k]])["algorithm"]
            check(a == w and list(a) == list(w), "%s after 0023: %r, want %r" % (k, a, w))
        so = json.loads(after[ids["auto so"]])["algorithm"]
        mo = json.loads(after[ids["auto mo"]])["algorithm"]
        check("hedge_judge" not in so["chosen"] and so["chosen"]["hedge"] is True
              and so["case"] == "so_finite", "auto so %r" % so)
        check(mo["chosen"]["gp_blend"] == "first" and "log_objectives" not in mo["chosen"]
              and mo["case"] == "mo_finite", "auto mo %r" % mo)
        for k in ids:
            b, a = json.loads(before[ids[k]]), json.loads(after[ids[k]])
            check(list(a) == list(b) and all(a[m] == b[m] for m in b if m != "algorithm"),
                  "%s: members other than algorithm changed: %r -> %r" % (k, b, a))
        check(after[ids["random"]] == before[ids["random"]], "an untouched study was rewritten")
        check("1e+19" in after[ids["blend"]], "the bound's text after 0023: %r"
              % after[ids["blend"]])
        # Idempotent: the file run again (one transaction), and hpod migrate again.
        r = subprocess.run(["psql", url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-1", "-f",
                            os.path.join(mig, "0023_removed_options.sql")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        check(r.returncode == 0, "0023 again: %s" % r.stdout.decode()[-1500:])
        migrate(mig)
        check(texts() == after, "running 0023 again changed a definition")
        port = serve(mig)
        for k, sid in ids.items():
            g = expect(call(port, "GET", "/v1/studies/%d" % sid), 200)
            check(g["algorithm"] == json.loads(after[sid])["algorithm"],
                  "%s reads back %r" % (k, g["algorithm"]))
            for i in range(5):
                t = suggest(c, sid, "w", port=port)["trials"][0]
                p = t["params"]
                v = {"bleu": 10.0 + p["x"] - 0.3 * p["x"] * p["y"],
                     "gpu_time": 100.0 * (1 + p["x"] + p["y"])}
                report(c, t["id"], {m["name"]: v[m["name"]] for m in bodies[k]["objectives"]},
                       port=port)
            ex = expect(call(port, "GET", "/v1/trials/%d/explain" % t["id"]), 200)
            d = [d for d in ex["decisions"] if d["kind"] == "suggest"]
            check(k == "random" or (d and d[0]["chooser"] == "model"),
                  "%s: the fifth trial's decision %r" % (k, d))
        g = expect(call(port, "POST", "/v1/studies", dict(again, algorithm=dict(
            blend, gp_blend="first"))), 200)
        check(g["id"] == ids["blend"], "load_if_exists found %r, not %d" % (g["id"], ids["blend"]))
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(old, ignore_errors=True)
        psql(c.dburl, "DROP DATABASE IF EXISTS hpod_mig_removed WITH (FORCE)")
