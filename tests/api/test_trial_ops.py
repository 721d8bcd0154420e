"""tests/api/test_trial_ops.py - trial-level operations of a shared lab
server: enqueued configurations (state waiting, handed out by suggest
before any new choice), trials added with values obtained elsewhere (they
enter the model, cost no budget), the trial number, trial metadata
(enqueue/add, report merge, PATCH), and the CSV form of a study's trials.
"""

import csv
import http.client
import io
import json
import os

from harness import (Resp, call, cfg, check, db_snapshot, expect, expect_error, psql, short,
                     test)
from client import BLEU_MAX, SPACE4, create, get_trial, report, suggest

X1 = [{"name": "x", "type": "float", "low": 0.0, "high": 1.0}]


def uname(base):
    """A study name no other test (or run on this database) uses: (lab,
    name) is unique."""
    return "%s %s" % (base, os.urandom(4).hex())


def enqueue(c, sid, params, status=201, **extra):
    body = {"params": params}
    body.update(extra)
    return expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid, body), status)


def study(c, sid):
    return expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)


def same(a, b):
    """JSON values equal with their types: 1 is not 1.0, True is not 1."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def get_csv(c, path, accept="text/csv"):
    """GET path with an Accept header; the answer checked against the spec."""
    conn = http.client.HTTPConnection("127.0.0.1", c.port, timeout=60)
    try:
        conn.request("GET", path, headers={"Accept": accept})
        r = conn.getresponse()
        data = r.read()
        hdrs = {k.lower(): v for k, v in r.getheaders()}
    finally:
        conn.close()
    resp = Resp("GET", path, r.status, hdrs, data)
    check(resp.status != 500, "%r: 500 for a client request" % resp)
    if cfg.spec is not None:
        cfg.spec.check_response("GET", path, resp.status, hdrs, data, resp.json, None)
    return resp


@test("trial ops: enqueued configurations come first, oldest number first, then new ones")
def t_enqueue_order(c):
    sid = create(c, {"name": uname("queue order"), "space": SPACE4, "objectives": BLEU_MAX,
                     "algorithm": {"name": "random", "seed": 3}})["id"]
    pa = {"lr": 0.001, "layers": 3, "bpe": 30000, "opt": "sgd"}
    pb = {"lr": 0.05, "layers": 6, "bpe": 10000, "opt": "adafactor"}
    a = enqueue(c, sid, pa)
    b = enqueue(c, sid, pb, metadata={"who": "alice"})
    for t, p, n in ((a, pa, 0), (b, pb, 1)):
        check(t["state"] == "waiting" and t["origin"] == "enqueued", "enqueued %r" % short(t))
        check(t["number"] == n and same(t["params"], p), "enqueued %r" % short(t))
        check(t["worker"] == "" and t["lease_expires_at"] is None, "waiting trial %r" % short(t))
    check(a["metadata"] == {} and b["metadata"] == {"who": "alice"}, "metadata %r %r"
          % (a["metadata"], b["metadata"]))
    counts = study(c, sid)["trial_counts"]
    check(counts["waiting"] == 2 and counts["pending"] == 0, "counts %r" % counts)
    waiting = expect(call(c.port, "GET", "/v1/studies/%d/trials?state=waiting" % sid), 200)
    check([t["id"] for t in waiting["trials"]] == [a["id"], b["id"]], "waiting %r" % short(waiting))

    first = suggest(c, sid, "w1")["trials"]
    check([t["id"] for t in first] == [a["id"]], "first suggest %r, expected %d"
          % ([t["id"] for t in first], a["id"]))
    t = first[0]
    check(t["state"] == "pending" and t["worker"] == "w1" and t["lease_expires_at"],
          "claimed trial %r" % short(t))
    check(t["origin"] == "enqueued" and t["number"] == 0 and same(t["params"], pa),
          "claimed trial %r" % short(t))
    two = suggest(c, sid, "w2", count=2)["trials"]
    check([x["id"] for x in two][:1] == [b["id"]] and len(two) == 2,
          "second suggest %r" % short(two))
    check(two[1]["origin"] == "suggested" and two[1]["number"] == 2, "new trial %r" % short(two[1]))
    # The worker's held trial comes back before any waiting one.
    enqueue(c, sid, pa)
    again = suggest(c, sid, "w1", count=2)["trials"]
    check([x["id"] for x in again][0] == a["id"] and again[1]["number"] == 3
          and again[1]["origin"] == "enqueued", "held then waiting: %r" % short(again))
    counts = study(c, sid)["trial_counts"]
    check(counts["waiting"] == 0 and counts["pending"] == 4, "counts %r" % counts)
    report(c, a["id"], {"bleu": 3.0})
    check(get_trial(c, a["id"])["origin"] == "enqueued", "origin changed by a report")


@test("trial ops: enqueue and add refused by the study's state, nothing written")
def t_enqueue_refused(c):
    ok = {"lr": 0.01, "layers": 2, "bpe": 30000, "opt": "adam"}

    def refused(sid, body, status, field=None):
        before = db_snapshot(c.dburl)
        e = expect_error(call(c.port, "POST", "/v1/studies/%d/trials" % sid, body), status,
                         "conflict" if status == 409 else "invalid_argument", field)
        check(db_snapshot(c.dburl) == before, "refused enqueue (%s) changed the database"
              % e["message"])

    # Budget: waiting trials count in it, added ones do not.
    sid = create(c, {"name": uname("enqueue budget"), "space": SPACE4, "objectives": BLEU_MAX,
                     "budget": 2})["id"]
    first = enqueue(c, sid, ok)
    check(suggest(c, sid, "b1")["trials"][0]["id"] == first["id"], "the waiting trial first")
    suggest(c, sid, "b2")
    refused(sid, {"params": ok}, 409)
    added = enqueue(c, sid, ok, values={"bleu": 2.5})
    check(added["state"] == "completed" and added["origin"] == "added", "added %r" % short(added))

    # Finite study: a candidate, not taken yet.
    space = [{"name": "x", "type": "int", "values": [1, 2, 3]},
             {"name": "o", "type": "categorical", "choices": ["a", "b"]}]
    cands = [{"x": 1, "o": "a"}, {"x": 2, "o": "b"}, {"x": 3, "o": "a"}]
    fid = create(c, {"name": uname("enqueue finite"), "space": space, "candidates": cands,
                     "objectives": BLEU_MAX})["id"]
    refused(fid, {"params": {"x": 1, "o": "b"}}, 422, "params")
    t = enqueue(c, fid, {"x": 2, "o": "b"})
    check(same(t["params"], cands[1]), "finite enqueue params %r" % t["params"])
    refused(fid, {"params": {"x": 2, "o": "b"}}, 409, "params")
    refused(fid, {"params": {"x": 2, "o": "b"}, "values": {"bleu": 1.0}}, 409, "params")
    got = suggest(c, fid, "f", count=3)["trials"]
    check(got[0]["id"] == t["id"] and len(got) == 3, "finite suggest %r" % short(got))
    refused(fid, {"params": cands[0]}, 409, "params")

    # Multistage: its stages choose.
    ms = create(c, {"name": uname("enqueue multistage"), "space": X1, "objectives": BLEU_MAX,
                    "algorithm": {"name": "multistage",
                                  "stages": [{"steps": 2, "trials": 3}, {"steps": 4, "trials": 1}]}})
    refused(ms["id"], {"params": {"x": 0.5}}, 422)
    refused(ms["id"], {"params": {"x": 0.5}, "values": {"bleu": 1.0}}, 422)

    # An added trial must carry every objective.
    two = create(c, {"name": uname("add objectives"), "space": X1,
                     "objectives": [{"name": "bleu", "goal": "maximize"},
                                    {"name": "time", "goal": "minimize"}]})["id"]
    refused(two, {"params": {"x": 0.5}, "values": {"bleu": 1.0}}, 422, "values.time")
    enqueue(c, two, {"x": 0.5}, values={"bleu": 1.0, "time": 2.0})

    # A finished study takes nothing (its state is set by PATCH /v1/studies).
    fin = create(c, {"name": uname("enqueue finished"), "space": X1, "objectives": BLEU_MAX})["id"]
    psql(c.dburl, "UPDATE studies SET state = 'finished' WHERE id = %d" % fin)
    refused(fin, {"params": {"x": 0.5}}, 409)
    refused(fin, {"params": {"x": 0.5}, "values": {"bleu": 1.0}}, 409)


@test("trial ops: an added trial moves the GP's next choice and is not suggested again")
def t_added_model(c):
    def gp_study(tag):
        sid = create(c, {"name": uname("gp added " + tag), "space": X1, "objectives": BLEU_MAX,
                         "algorithm": {"name": "gp", "init": 2, "seed": 11}})["id"]
        for w in ("i1", "i2"):
            t = suggest(c, sid, w)["trials"][0]
            report(c, t["id"], {"bleu": 1.0 + t["params"]["x"] * 0.01})
        return sid

    plain, warm = gp_study("plain"), gp_study("warm")
    # The two studies are the same so far: the same seed gives the same points.
    xs = [[t["params"]["x"] for t in expect(call(c.port, "GET", "/v1/studies/%d/trials" % s),
                                             200)["trials"]] for s in (plain, warm)]
    check(xs[0] == xs[1], "same seed, different initial points: %r" % xs)
    # The point of [0, 1] farthest from both initial points.
    far = max((i / 100 for i in range(101)), key=lambda x: min(abs(x - p) for p in xs[0]))
    added = enqueue(c, warm, {"x": far}, values={"bleu": 50.0})
    check(added["number"] == 2 and added["state"] == "completed", "added %r" % short(added))
    nxt_plain = suggest(c, plain, "n")["trials"][0]["params"]["x"]
    nxt_warm = suggest(c, warm, "n")["trials"][0]["params"]["x"]
    check(abs(nxt_warm - far) < 0.15, "with a very good added point at %r the GP chose %r"
          % (far, nxt_warm))
    check(abs(nxt_warm - nxt_plain) > 1e-9, "the added trial changed nothing: %r" % nxt_warm)
    check(abs(nxt_plain - far) > abs(nxt_warm - far), "plain study chose %r, warm %r, added %r"
          % (nxt_plain, nxt_warm, far))

    # Finite: the candidate of an added trial is taken.
    space = [{"name": "k", "type": "int", "values": [1, 2, 3]}]
    fid = create(c, {"name": uname("added finite"), "space": space,
                     "candidates": [{"k": 1}, {"k": 2}, {"k": 3}], "objectives": BLEU_MAX,
                     "algorithm": {"name": "random", "seed": 1}})["id"]
    enqueue(c, fid, {"k": 2}, values={"bleu": 4.0})
    got = suggest(c, fid, "f", count=3)["trials"]
    check(sorted(t["params"]["k"] for t in got) == [1, 3], "finite suggest after add %r"
          % short(got))
    for t in got:
        report(c, t["id"], {"bleu": 1.0})
    last = suggest(c, fid, "f")
    check(last["trials"] == [] and last["done"], "finite study after its candidates %r" % short(last))


@test("trial ops: added trials cost no budget; numbers are 0,1,2... per study")
def t_added_budget(c):
    sid = create(c, {"name": uname("added budget"), "space": X1, "objectives": BLEU_MAX,
                     "budget": 2})["id"]
    other = create(c, {"name": uname("numbers other"), "space": X1, "objectives": BLEU_MAX})["id"]
    numbers = []
    for i in range(5):
        t = enqueue(c, sid, {"x": i / 10}, values={"bleu": float(i)})
        numbers.append(t["number"])
        o = suggest(c, other, "o")["trials"][0]
        check(o["number"] == i, "other study's trial number %r, expected %d" % (o["number"], i))
        report(c, o["id"], {"bleu": 1.0})
    got = suggest(c, sid, "w", count=5)["trials"]
    check(len(got) == 2, "a budget of 2 after 5 added trials gave %d trials" % len(got))
    numbers += [t["number"] for t in got]
    check(numbers == list(range(7)), "numbers %r" % numbers)
    for t in got:
        report(c, t["id"], {"bleu": 0.5})
    s = study(c, sid)
    check(s["trial_counts"]["completed"] == 7 and s["state"] == "done", "study %r" % short(s))
    check(suggest(c, sid, "w")["done"], "suggest after the budget is not done")
    rows = expect(call(c.port, "GET", "/v1/studies/%d/trials" % sid), 200)["trials"]
    check([t["number"] for t in rows] == list(range(7)), "listed numbers %r"
          % [t["number"] for t in rows])
    best = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)
    check(best["trial"]["number"] == 4 and best["trial"]["origin"] == "added", "best %r"
          % short(best))
    check(get_trial(c, rows[3]["id"])["number"] == 3, "GET trial number")


@test("trial ops: metadata reads back exactly; reports merge it; PATCH replaces it; 16 KiB")
def t_metadata(c):
    sid = create(c, {"name": uname("metadata"), "space": X1, "objectives": BLEU_MAX})["id"]
    meta = {"nested": {"list": [1, 2.5, None, True, {"deep": "x"}]}, "unicode": "déjà vu ✓ 日本",
            "big": 2 ** 53, "tenth": 0.1, "huge": 1e300, "tiny": 5e-324, "neg": -0.0,
            "int_like": 3.0, "empty": {}, "quote": "a \"b\", c\n"}
    t = enqueue(c, sid, {"x": 0.25}, metadata=meta)
    check(same(t["metadata"], meta), "enqueue answered metadata %r" % short(t["metadata"]))
    check(same(get_trial(c, t["id"])["metadata"], meta), "stored metadata %r"
          % short(get_trial(c, t["id"])["metadata"]))
    claimed = suggest(c, sid, "m")["trials"][0]
    check(claimed["id"] == t["id"] and same(claimed["metadata"], meta), "claimed %r" % short(claimed))
    r = report(c, t["id"], {"bleu": 1.0}, step=1)
    check(same(r["trial"]["metadata"], meta), "report without metadata changed it")
    body = {"values": {"bleu": 2.0}, "metadata": {"tenth": "replaced", "new": [0.3]}}
    r = expect(call(c.port, "POST", "/v1/trials/%d/report" % t["id"], body), 200)
    merged = dict(meta, tenth="replaced", new=[0.3])
    check(same(r["trial"]["metadata"], merged), "merged metadata %r" % short(r["trial"]["metadata"]))
    check(same(get_trial(c, t["id"])["metadata"], merged), "stored merged metadata")
    p = expect(call(c.port, "PATCH", "/v1/trials/%d" % t["id"], {"metadata": {"only": 1}}), 200)
    check(same(p["metadata"], {"only": 1}) and p["state"] == "completed", "PATCH %r" % short(p))
    check(same(get_trial(c, t["id"])["metadata"], {"only": 1}), "PATCH did not replace")

    # 16 KiB of compact JSON: exactly the limit passes, one byte more is 422.
    def of_size(n):
        return {"k": "x" * (n - len('{"k":""}'))}
    check(len(json.dumps(of_size(16384), separators=(",", ":"))) == 16384, "size helper")
    p = expect(call(c.port, "PATCH", "/v1/trials/%d" % t["id"], {"metadata": of_size(16384)}), 200)
    check(same(p["metadata"], of_size(16384)), "16 KiB metadata did not read back")
    before = db_snapshot(c.dburl)
    expect_error(call(c.port, "PATCH", "/v1/trials/%d" % t["id"], {"metadata": of_size(16385)}),
                 422, "invalid_argument", "metadata")
    # A merge that would grow beyond the limit is refused whole.
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % t["id"],
                      {"values": {"bleu": 2.0}, "metadata": {"more": 1}}),
                 422, "invalid_argument", "metadata")
    check(db_snapshot(c.dburl) == before, "refused metadata changed the database")
    # Added trials carry metadata too; a waiting trial can be patched.
    a = enqueue(c, sid, {"x": 0.5}, values={"bleu": 1.5}, metadata={"source": "paper"})
    check(same(a["metadata"], {"source": "paper"}), "added metadata %r" % a["metadata"])
    w = enqueue(c, sid, {"x": 0.75})
    p = expect(call(c.port, "PATCH", "/v1/trials/%d" % w["id"], {"metadata": {"n": [1]}}), 200)
    check(p["state"] == "waiting" and same(p["metadata"], {"n": [1]}), "PATCH waiting %r" % short(p))


@test("trial ops: CSV of a study's trials: header, quoting, rows and numbers as JSON")
def t_csv(c):
    space = [{"name": "lr", "type": "float", "low": 1e-4, "high": 1.0, "log": True},
             {"name": "layers", "type": "int", "low": 1, "high": 8},
             {"name": "opt", "type": "categorical",
              "choices": ["adam, beta=0.9", 'say "hi"', "plain", "multi\nline"]}]
    s = create(c, {"name": uname("csv"), "space": space, "objectives": BLEU_MAX,
                   "constraints": [{"metric": "gpu_time", "max": 300}],
                   "algorithm": {"name": "random", "seed": 5}})
    sid = s["id"]
    enqueue(c, sid, {"lr": 0.1, "layers": 2, "opt": "adam, beta=0.9"}, values={"bleu": 0.1})
    enqueue(c, sid, {"lr": 1e-4, "layers": 8, "opt": 'say "hi"'},
            values={"bleu": 1e300, "gpu_time": 5e-324})
    enqueue(c, sid, {"lr": 0.3, "layers": 1, "opt": "multi\nline"})
    t = suggest(c, sid, "csv", count=2)["trials"]
    report(c, t[1]["id"], {"gpu_time": 12.25})
    expect(call(c.port, "POST", "/v1/trials/%d/fail" % t[1]["id"], {}), 200)

    r = get_csv(c, "/v1/studies/%d/trials" % sid)
    check(r.status == 200, "CSV answer %r" % r)
    check(r.headers.get("content-type") == "text/csv; charset=utf-8", "Content-Type %r"
          % r.headers.get("content-type"))
    text = r.raw.decode("utf-8")
    check(text.endswith("\r\n"), "CSV does not end with CRLF")
    header = text.split("\r\n", 1)[0]
    want = ("number,id,state,origin,params.lr,params.layers,params.opt,values.bleu,"
            "values.gpu_time,created_at,updated_at,reason,excluded")
    check(header == want, "CSV header %r" % header)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    js = expect(call(c.port, "GET", "/v1/studies/%d/trials" % sid), 200)
    check(len(rows) - 1 == js["total"] == 4, "CSV rows %d, JSON total %d" % (len(rows) - 1, js["total"]))
    cols = rows[0]
    for row, jt in zip(rows[1:], js["trials"]):
        d = dict(zip(cols, row))
        check(int(d["number"]) == jt["number"] and int(d["id"]) == jt["id"], "row %r" % row)
        check(d["state"] == jt["state"] and d["origin"] == jt["origin"], "row %r" % row)
        check(float(d["params.lr"]) == jt["params"]["lr"], "lr %r vs %r" % (d["params.lr"], jt["params"]))
        check(d["params.layers"] == str(jt["params"]["layers"]), "layers %r" % d["params.layers"])
        check(d["params.opt"] == jt["params"]["opt"], "opt %r vs %r" % (d["params.opt"], jt["params"]))
        for m in ("bleu", "gpu_time"):
            cell = d["values." + m]
            if m in jt["values"]:
                check(cell != "" and float(cell) == jt["values"][m], "%s %r vs %r"
                      % (m, cell, jt["values"]))
            else:
                check(cell == "", "missing %s gave %r" % (m, cell))
        check(d["created_at"] == jt["created_at"] and d["updated_at"] == jt["updated_at"],
              "timestamps of row %r" % row)
        check(d["reason"] == (jt["reason"] or ""), "reason %r vs %r" % (d["reason"], jt["reason"]))
    check('"adam, beta=0.9"' in text and '"say ""hi"""' in text and '"multi\nline"' in text,
          "RFC 4180 quoting: %r" % text[:600])
    check(",0.1," in text and ",1e+300," in text, "numbers not as JSON writes them: %r" % text[:600])

    # The same query parameters as JSON.
    r = get_csv(c, "/v1/studies/%d/trials?state=completed" % sid)
    got = list(csv.reader(io.StringIO(r.raw.decode("utf-8"), newline="")))
    check(len(got) == 3 and all(x[2] == "completed" for x in got[1:]), "state filter %r" % got)
    r = get_csv(c, "/v1/studies/%d/trials?limit=2&offset=1" % sid)
    got = list(csv.reader(io.StringIO(r.raw.decode("utf-8"), newline="")))
    check([int(x[1]) for x in got[1:]] == [x["id"] for x in js["trials"][1:3]], "paging %r" % got)
    # Any other Accept keeps JSON.
    for accept in ("application/json", "*/*", "application/json, text/csv"):
        r = get_csv(c, "/v1/studies/%d/trials" % sid, accept)
        check(r.status == 200 and r.json is not None and r.json["total"] == 4,
              "Accept %r answered %r" % (accept, r))
    r = get_csv(c, "/v1/studies/987654321/trials")
    expect_error(r, 404, "not_found")
    empty = create(c, {"name": uname("csv empty"), "space": space, "objectives": BLEU_MAX})["id"]
    r = get_csv(c, "/v1/studies/%d/trials" % empty)
    check(r.raw.decode("utf-8") == "number,id,state,origin,params.lr,params.layers,params.opt,"
          "values.bleu,created_at,updated_at,reason,excluded\r\n", "empty study CSV %r" % r.raw)


@test("trial ops: asha starts a claimed waiting trial at rung 0; racing enqueues of one candidate")
def t_asha_and_race(c):
    import threading
    sid = create(c, {"name": uname("asha enqueue"), "space": X1,
                     "objectives": [{"name": "ppl", "goal": "minimize"}],
                     "algorithm": {"name": "asha", "r": 2, "u": 2, "R": 6, "p": 2, "keep": 1,
                                   "mode": "promotion", "seed": 2}})["id"]
    # Two new trials reach rung 2 (the better one is paused, promotable);
    # the enqueued one comes after any promotion and starts from scratch.
    firsts = suggest(c, sid, "a", count=2)["trials"]
    for i, t in enumerate(firsts):
        report(c, t["id"], {"ppl": 10.0 + i}, step=2)
    w = enqueue(c, sid, {"x": 0.5})
    got = suggest(c, sid, "b", count=3)["trials"]
    ids = [t["id"] for t in got]
    check(w["id"] in ids, "asha suggest %r without the waiting %d" % (short(got), w["id"]))
    k = ids.index(w["id"])
    check(all("resume_from_step" in t for t in got[:k])
          and all("resume_from_step" not in t and t["origin"] == "suggested" for t in got[k + 1:]),
          "order: resumes, then the waiting trial, then new ones: %r" % short(got))
    check("resume_from_step" not in got[k] and got[k]["state"] == "pending",
          "claimed trial %r" % short(got[k]))
    a = report(c, w["id"], {"ppl": 50.0}, step=2)
    check(a["action"] in ("continue", "stop") and a["trial"]["origin"] == "enqueued",
          "rung report %r" % short(a))

    # Finite study: 8 concurrent enqueues of one candidate, exactly one wins.
    space = [{"name": "k", "type": "int", "values": [1, 2]}]
    fid = create(c, {"name": uname("enqueue race"), "space": space,
                     "candidates": [{"k": 1}, {"k": 2}], "objectives": BLEU_MAX})["id"]
    statuses, lock = [], threading.Lock()

    def one():
        r = call(c.port, "POST", "/v1/studies/%d/trials" % fid, {"params": {"k": 2}})
        with lock:
            statuses.append(r.status)
    ths = [threading.Thread(target=one) for _ in range(8)]
    for th in ths:
        th.start()
    for th in ths:
        th.join(60)
    check(sorted(statuses) == [201] + [409] * 7, "racing enqueues answered %r" % statuses)
    counts = study(c, fid)["trial_counts"]
    check(counts["waiting"] == 1, "counts after the race %r" % counts)
