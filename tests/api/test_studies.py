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
