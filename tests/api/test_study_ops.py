"""tests/api/test_study_ops.py - study-level operations of a shared lab
server: labs, (lab, name) unique, load_if_exists (also under concurrent
creates), the ?name= and ?lab= filters, PATCH state and metadata, and what
suggest answers on paused and finished studies.
"""

import json
import threading
import urllib.parse

from harness import call, check, db_snapshot, expect, expect_error, is_int, short, test
from client import BLEU_MAX, SPACE4, create, report, suggest, uname

P = "/v1/studies"


def ulab(prefix):
    """A lab of its own for one test (lab names allow no spaces)."""
    return uname(prefix).replace(" ", "-")


def q(s):
    return urllib.parse.quote(s, safe="")


def body(name, **kw):
    b = {"name": name, "space": json.loads(json.dumps(SPACE4)), "objectives": BLEU_MAX}
    b.update(kw)
    return b


def get(c, sid):
    return expect(call(c.port, "GET", "%s/%d" % (P, sid)), 200)


def patch(c, sid, b, status=200):
    return expect(call(c.port, "PATCH", "%s/%d" % (P, sid), b), status)


def unchanged(c, before, what):
    after = db_snapshot(c.dburl)
    diff = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    check(not diff, "%s changed tables %s" % (what, diff))


@test("study ops: (lab, name) is unique: 409 names the existing study, other labs are apart")
def t_unique_name(c):
    n = uname("unique")
    s = create(c, body(n))
    check(s["lab"] == "default" and s["state"] == "active" and s["metadata"] == {},
          "defaults lab %r state %r metadata %r" % (s["lab"], s["state"], s["metadata"]))
    before = db_snapshot(c.dburl)
    e = expect_error(call(c.port, "POST", P, body(n)), 409, "conflict", "name")
    check(str(s["id"]) in e["message"], "409 does not name study %d: %r" % (s["id"], e))
    # An explicit false is the same as leaving load_if_exists out.
    expect_error(call(c.port, "POST", P, body(n, load_if_exists=False)), 409, "conflict", "name")
    unchanged(c, before, "a refused duplicate")
    lab = ulab("lab")
    o = create(c, body(n, lab=lab))
    check(o["id"] != s["id"] and o["lab"] == lab and o["name"] == n,
          "same name in lab %s: %r" % (lab, short(o)))
    check(get(c, o["id"])["lab"] == lab, "lab does not read back")
    # The three extra fields never enter the stored definition.
    check("load_if_exists" not in o and set(o["algorithm"]) == set(s["algorithm"]),
          "definition fields %r" % sorted(o))


@test("study ops: load_if_exists: same definition answers 200 with it, different 409 naming the field")
def t_load_if_exists(c):
    n, lab = uname("load"), ulab("lab")
    s = create(c, body(n, lab=lab, budget=5, metadata={"v": 1}))
    r = call(c.port, "POST", P, body(n, lab=lab, budget=5, load_if_exists=True,
                                     metadata={"v": 2}))
    got = expect(r, 200)
    check(got["id"] == s["id"] and got["algorithm"] == s["algorithm"],
          "loaded %r, created %r" % (short(got), short(s)))
    check(got["metadata"] == {"v": 1}, "loading changed metadata: %r" % got["metadata"])
    before = db_snapshot(c.dburl)
    expect_error(call(c.port, "POST", P, body(n, lab=lab, budget=6, load_if_exists=True)),
                 409, "conflict", "budget")
    # The omitted algorithm is auto (test_auto.py): its seed is compared.
    seed = s["algorithm"]["seed"]
    other = {"name": "auto", "seed": (seed + 1) % (1 << 53)}
    expect_error(call(c.port, "POST", P, body(n, lab=lab, budget=5, algorithm=other,
                                              load_if_exists=True)), 409, "conflict", "algorithm")
    same = {"name": "auto", "seed": seed}
    check(expect(call(c.port, "POST", P, body(n, lab=lab, budget=5, algorithm=same,
                                              load_if_exists=True)), 200)["id"] == s["id"],
          "the study's own seed did not load it")
    # Without load_if_exists in another lab: a new study, not this one.
    new_id = create(c, body(n, budget=6, lab=ulab("lab")))["id"]
    check(new_id != s["id"], "lab ignored")
    # That create wrote its study and its audit event; nothing else did.
    unchanged_tables = {k: v for k, v in db_snapshot(c.dburl).items()
                        if k not in ("studies", "audit_events")}
    check(all(before[k] == v for k, v in unchanged_tables.items() if k in before),
          "a refused load changed a table")
    events = expect(call(c.port, "GET", "/v1/audit?limit=20"), 200)["events"]
    mine = [(e["action"], e["study"]) for e in events if e["study"] in (s["id"], new_id)]
    check(mine[0] == ("study.create", new_id) and
          ("study.create", s["id"]) in mine and len(mine) == 2,
          "audit events of the two studies %r" % mine)

    # Finite studies: the candidates are compared too.
    cand = [{"lr": 0.01, "layers": 2, "bpe": 10000, "opt": "adam"},
            {"lr": 0.001, "layers": 3, "bpe": 30000, "opt": "sgd"}]
    fn = uname("finite")
    f = create(c, body(fn, candidates=cand))
    check(expect(call(c.port, "POST", P, body(fn, candidates=cand, load_if_exists=True)),
                 200)["id"] == f["id"], "same candidates did not load")
    before = db_snapshot(c.dburl)
    expect_error(call(c.port, "POST", P, body(fn, candidates=cand[:1], load_if_exists=True)),
                 409, "conflict", "candidates")
    swapped = [dict(cand[0], layers=4), cand[1]]
    expect_error(call(c.port, "POST", P, body(fn, candidates=swapped, load_if_exists=True)),
                 409, "conflict", "candidates")
    expect_error(call(c.port, "POST", P, body(fn, load_if_exists=True)),
                 409, "conflict", "candidates")
    unchanged(c, before, "a refused load of a finite study")


@test("study ops: 8 concurrent creates with load_if_exists make exactly one study")
def t_concurrent_load(c):
    n = uname("race")
    b = body(n, algorithm={"name": "random", "seed": 11}, load_if_exists=True,
             candidates=[{"lr": 0.01, "layers": k, "bpe": 10000, "opt": "adam"}
                         for k in range(1, 7)])
    barrier = threading.Barrier(8)
    out, lock = [], threading.Lock()

    def one():
        barrier.wait()
        r = call(c.port, "POST", P, b)
        with lock:
            out.append((r.status, r.json.get("id") if isinstance(r.json, dict) else None))

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(s for s, _ in out)
    check(statuses == [200] * 7 + [201], "statuses %r" % statuses)
    ids = {i for _, i in out}
    check(len(ids) == 1, "ids %r" % ids)
    lst = expect(call(c.port, "GET", "%s?name=%s" % (P, q(n))), 200)
    check(lst["total"] == 1 and lst["studies"][0]["id"] in ids
          and lst["studies"][0]["n_candidates"] == 6, "list %r" % short(lst))


@test("study ops: ?name= and ?lab= filter exactly, combine with paging, total counts the filtered set")
def t_filters(c):
    la, lb, n = ulab("la"), ulab("lb"), uname("shared")
    ia = [create(c, body(x, lab=la))["id"] for x in (n, uname("a1"), uname("a2"))]
    ib = create(c, body(n, lab=lb))["id"]
    r = expect(call(c.port, "GET", "%s?lab=%s" % (P, la)), 200)
    check(r["total"] == 3 and [s["id"] for s in r["studies"]] == ia[::-1]
          and all(s["lab"] == la for s in r["studies"]), "lab filter %r" % short(r))
    r = expect(call(c.port, "GET", "%s?lab=%s&limit=1&offset=1" % (P, la)), 200)
    check(r["total"] == 3 and [s["id"] for s in r["studies"]] == [ia[1]]
          and r["limit"] == 1 and r["offset"] == 1, "lab page %r" % short(r))
    r = expect(call(c.port, "GET", "%s?name=%s" % (P, q(n))), 200)
    check(r["total"] == 2 and [s["id"] for s in r["studies"]] == [ib, ia[0]],
          "name filter %r" % short(r))
    r = expect(call(c.port, "GET", "%s?name=%s&lab=%s" % (P, q(n), lb)), 200)
    check(r["total"] == 1 and [s["id"] for s in r["studies"]] == [ib], "both %r" % short(r))
    r = expect(call(c.port, "GET", "%s?name=%s&lab=%s" % (P, q(n + "x"), lb)), 200)
    check(r["total"] == 0 and r["studies"] == [], "no match %r" % short(r))
    # A name with spaces and unicode, percent-encoded.
    odd = uname("a name, with ü")
    io = create(c, body(odd))["id"]
    r = expect(call(c.port, "GET", "%s?name=%s" % (P, q(odd))), 200)
    check(r["total"] == 1 and r["studies"][0]["id"] == io, "encoded name %r" % short(r))
    expect_error(call(c.port, "GET", P + "?lab=a%20b"), 400, "invalid_argument", "lab")
    expect_error(call(c.port, "GET", P + "?lab="), 400, "invalid_argument", "lab")


@test("study ops: PATCH state: paused hands back held trials only, finished answers done, reports still work")
def t_patch_state(c):
    s = create(c, body(uname("state")))
    sid = s["id"]
    held = suggest(c, sid, "w1")["trials"][0]
    other = suggest(c, sid, "w2")["trials"][0]
    third = suggest(c, sid, "w3")["trials"][0]
    p = patch(c, sid, {"state": "paused"})
    check(p["state"] == "paused" and p["id"] == sid, "PATCH answered %r" % short(p))
    check(get(c, sid)["state"] == "paused", "paused does not read back")
    r = suggest(c, sid, "w1", count=3)
    check([t["id"] for t in r["trials"]] == [held["id"]] and r["done"] is False,
          "paused: the worker's held trial only, %r" % short(r))
    r = suggest(c, sid, "w9")
    check(r["trials"] == [] and r["done"] is False and is_int(r.get("retry_after"))
          and r["retry_after"] >= 1, "paused, new worker: %r" % short(r))
    # Work in flight is not lost: heartbeat, fail and reports still answer.
    expect(call(c.port, "POST", "/v1/trials/%d/heartbeat" % other["id"], {}), 200)
    expect(call(c.port, "POST", "/v1/trials/%d/fail" % third["id"], {"reason": "oom"}), 200)
    check(report(c, held["id"], {"bleu": 3.0}, step=1)["trial"]["state"] == "running",
          "intermediate report on a paused study")
    check(report(c, held["id"], {"bleu": 4.0})["trial"]["state"] == "completed",
          "final report on a paused study")
    check(sum(get(c, sid)["trial_counts"].values()) == 3, "paused study issued a trial")

    check(patch(c, sid, {"state": "finished"})["state"] == "finished", "finished")
    r = suggest(c, sid, "w9")
    check(r["trials"] == [] and r["done"] is True and "retry_after" not in r,
          "finished: %r" % short(r))
    r = suggest(c, sid, "w2")
    check([t["id"] for t in r["trials"]] == [other["id"]] and r["done"] is False,
          "finished, a worker holding a trial gets it back: %r" % short(r))
    check(report(c, other["id"], {"bleu": 5.0})["trial"]["state"] == "completed",
          "final report on a finished study")
    r = suggest(c, sid, "w2")
    check(r["trials"] == [] and r["done"] is True, "finished after the last report: %r" % short(r))
    check(sum(get(c, sid)["trial_counts"].values()) == 3, "finished study issued a trial")

    check(patch(c, sid, {"state": "active"})["state"] == "active", "reopened")
    r = suggest(c, sid, "w9")
    check(len(r["trials"]) == 1 and r["done"] is False, "reopened study: %r" % short(r))
    check(patch(c, sid, {"state": "active"})["state"] == "active", "active again is fine")


def tricky_metadata():
    return {"owner": "ana", "nested": {"list": [1, 2.5, None, True, {"deep": []}], "o": {}},
            "unicode": "zh→en ü 日本語 \U0001f680 \"quoted\" \\ \n tab\t",
            "big": 2 ** 53, "neg": -(2 ** 53), "tenth": 0.1, "huge": 1e300, "tiny": 5e-324,
            "one_real": 1.0, "zero": 0, "": "empty key"}


@test("study ops: metadata reads back exactly on create, get, list and PATCH (replaces)")
def t_metadata(c):
    m = tricky_metadata()
    s = create(c, body(uname("meta"), metadata=m))
    for where, got in (("create", s["metadata"]), ("get", get(c, s["id"])["metadata"]),
                       ("list", expect(call(c.port, "GET", "%s?name=%s" % (P, q(s["name"]))),
                                       200)["studies"][0]["metadata"])):
        check(got == m, "%s: metadata %r" % (where, got))
        check(isinstance(got["one_real"], float) and is_int(got["big"])
              and isinstance(got["tenth"], float), "%s: number types %r" % (where, got))
    m2 = {"replaced": [0.30000000000000004]}
    p = patch(c, s["id"], {"metadata": m2})
    check(p["metadata"] == m2 and get(c, s["id"])["metadata"] == m2,
          "PATCH metadata did not replace: %r" % p["metadata"])
    check(p["state"] == "active", "a metadata PATCH changed the state: %r" % p["state"])
    p = patch(c, s["id"], {"state": "paused", "metadata": {}})
    check(p["metadata"] == {} and p["state"] == "paused", "both: %r" % short(p))
    check(patch(c, s["id"], {"state": "active"})["metadata"] == {},
          "a state PATCH changed the metadata")


@test("study ops: metadata of 16 KiB is accepted, one byte more is 422 with nothing written")
def t_metadata_limit(c):
    def meta(n):  # compact JSON of exactly n bytes
        return {"a": "x" * (n - len('{"a":""}'))}

    check(len(json.dumps(meta(16384), separators=(",", ":"))) == 16384, "test arithmetic")
    s = create(c, body(uname("limit"), metadata=meta(16384)))
    check(s["metadata"] == meta(16384), "16 KiB metadata did not read back")
    before = db_snapshot(c.dburl)
    expect_error(call(c.port, "POST", P, body(uname("limit"), metadata=meta(16385))),
                 422, "invalid_argument", "metadata")
    expect_error(call(c.port, "PATCH", "%s/%d" % (P, s["id"]),
                      {"metadata": meta(16385), "state": "paused"}),
                 422, "invalid_argument", "metadata")
    unchanged(c, before, "metadata beyond 16 KiB")
    g = get(c, s["id"])
    check(g["metadata"] == meta(16384) and g["state"] == "active", "study changed: %r" % short(g))


@test("study ops: bad PATCH bodies answer 400/422 and change nothing")
def t_patch_bad(c):
    s = create(c, body(uname("badpatch"), metadata={"keep": 1}))
    path = "%s/%d" % (P, s["id"])
    before = db_snapshot(c.dburl)
    cases = [({}, 400, ""), ({"bogus": 1}, 400, "bogus"),
             ({"state": "paused", "name": "x"}, 400, "name"),
             ({"state": "done"}, 422, "state"), ({"state": "Paused"}, 422, "state"),
             ({"state": 5}, 400, "state"), ({"state": None}, 400, "state"),
             ({"metadata": [1]}, 400, "metadata"), ({"metadata": "x"}, 400, "metadata"),
             ({"metadata": None}, 400, "metadata"),
             ({"state": "finished", "metadata": 3}, 400, "metadata")]
    for b, st, field in cases:
        expect_error(call(c.port, "PATCH", path, b), st, "invalid_argument", field)
    expect_error(call(c.port, "PATCH", path, raw=b"[1]"), 400, "invalid_argument")
    expect_error(call(c.port, "PATCH", "%s/987654321" % P, {"state": "paused"}), 404, "not_found")
    unchanged(c, before, "refused PATCHes")
    g = get(c, s["id"])
    check(g["state"] == "active" and g["metadata"] == {"keep": 1}, "study changed %r" % short(g))


@test("study ops: bad lab, load_if_exists and metadata on create answer 400/422 and write nothing")
def t_create_bad(c):
    before = db_snapshot(c.dburl)
    n = uname("badcreate")
    for extra, st, field in [({"lab": "nmthpo"}, 422, "lab"), ({"lab": "nmtlc"}, 422, "lab"),
                             ({"lab": "a/b"}, 422, "lab"), ({"lab": ""}, 422, "lab"),
                             ({"lab": "x" * 65}, 422, "lab"), ({"lab": 5}, 400, "lab"),
                             ({"load_if_exists": "yes"}, 400, "load_if_exists"),
                             ({"load_if_exists": 1}, 400, "load_if_exists"),
                             ({"metadata": [1]}, 400, "metadata"),
                             ({"metadata": "m"}, 400, "metadata")]:
        expect_error(call(c.port, "POST", P, body(n, **extra)), st, "invalid_argument", field)
    unchanged(c, before, "refused creates")
    check(create(c, body(n, lab="x" * 64))["lab"] == "x" * 64, "a 64-character lab")
