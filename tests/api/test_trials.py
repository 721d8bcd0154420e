"""tests/api/test_trials.py - /v1/trials/{id}: fail, idempotent reports and
held trials, lease expiry.
"""

import http.client
import json
import re
import time

from harness import call, check, expect, expect_error, parse_ts, psql, short, test
from client import BLEU_MAX, SPACE4, create, get_trial, report, suggest, uname


@test("fail: reason stored, failing twice is fine, no reports after")
def t_fail(c):
    sid = create(c, {"name": "fail", "space": SPACE4, "objectives": BLEU_MAX})["id"]
    t = suggest(c, sid, "f")["trials"][0]
    f = expect(call(c.port, "POST", "/v1/trials/%d/fail" % t["id"], {"reason": "out of memory"}), 200)
    check(f["trial"]["state"] == "failed" and f["trial"]["reason"] == "out of memory",
          "failed trial %r" % short(f))
    check(f["trial"]["lease_expires_at"] is None, "failed trial still has a lease")
    g = expect(call(c.port, "POST", "/v1/trials/%d/fail" % t["id"], {"reason": "again"}), 200)
    check(g["trial"]["state"] == "failed", "second fail %r" % short(g))
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % t["id"], {"values": {"bleu": 1}}),
                 409, "conflict")
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % t["id"],
                      {"values": {"bleu": 1}, "step": 1}), 409, "conflict")
    expect_error(call(c.port, "POST", "/v1/trials/%d/heartbeat" % t["id"], {}), 409, "conflict")
    n = suggest(c, sid, "f")["trials"]
    check(len(n) == 1 and n[0]["id"] != t["id"], "a failed trial is not held: %r" % short(n))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["trial_counts"]["failed"] == 1 and st["trial_counts"]["pending"] == 1,
          "counts %r" % st["trial_counts"])


@test("idempotency: repeated reports, a worker's held trials come back")
def t_idempotency(c):
    space = [{"name": "x", "type": "float", "low": 0.0, "high": 1.0}]
    sid = create(c, {"name": "idem", "space": space, "objectives": BLEU_MAX})["id"]
    t1 = suggest(c, sid, "idem-a")["trials"][0]
    again = suggest(c, sid, "idem-a")["trials"]
    check([t["id"] for t in again] == [t1["id"]], "same worker got %r, held %d"
          % ([t["id"] for t in again], t1["id"]))
    check(again[0]["params"] == t1["params"], "held trial's params changed")
    two = suggest(c, sid, "idem-a", count=2)["trials"]
    ids = [t["id"] for t in two]
    check(len(ids) == 2 and t1["id"] in ids and len(set(ids)) == 2,
          "count=2 gave %r, expected the held %d plus one new" % (ids, t1["id"]))
    t2 = [t for t in two if t["id"] != t1["id"]][0]
    other = suggest(c, sid, "idem-b")["trials"]
    check(len(other) == 1 and other[0]["id"] not in ids, "another worker got %r" % short(other))

    a0 = report(c, t1["id"], {"bleu": 1.0}, step=0)
    a1 = report(c, t1["id"], {"bleu": 9.0}, step=0)
    check(a1["action"] == a0["action"], "repeated step answered %r then %r"
          % (a0["action"], a1["action"]))
    check(a1["trial"]["intermediate"] == [{"step": 0, "values": {"bleu": 1.0}, "action": "continue"}],
          "a repeated step replaced something: %r" % a1["trial"]["intermediate"])
    f1 = report(c, t1["id"], {"bleu": 5.0})
    f2 = report(c, t1["id"], {"bleu": 5.0})
    check(f1["trial"]["state"] == "completed", "state %r" % f1["trial"]["state"])
    check(f2 == f1, "repeated final report answered differently:\n%s\n%s"
          % (short(f1), short(f2)))
    check(get_trial(c, t1["id"]) == f1["trial"], "trial changed by the repeated report")
    held = suggest(c, sid, "idem-a")["trials"]
    check([t["id"] for t in held] == [t2["id"]], "after completing %d, worker holds %r"
          % (t1["id"], [t["id"] for t in held]))


@test("lease expiry frees the candidate; the expired trial is failed and refuses reports")
def t_lease(c):
    space = [{"name": "x", "type": "int", "values": [1, 2]}]
    s = create(c, {"name": "lease", "space": space, "candidates": [{"x": 2}],
                   "objectives": BLEU_MAX, "lease_seconds": 1})
    sid = s["id"]
    check(s["lease_seconds"] == 1, "lease_seconds %r" % s["lease_seconds"])
    ta = suggest(c, sid, "lease-a")["trials"][0]
    span = (parse_ts(ta["lease_expires_at"]) - parse_ts(ta["created_at"])).total_seconds()
    check(0.5 <= span <= 2.5, "lease of %.2f s for lease_seconds 1" % span)
    time.sleep(3.0)
    deadline = time.monotonic() + 15
    while True:
        r = suggest(c, sid, "lease-b")
        if r["trials"]:
            break
        check(not r["done"], "study done while its only candidate lapsed: %r" % short(r))
        check(time.monotonic() < deadline, "worker B got nothing for 15 s after the lease lapsed")
        time.sleep(0.5)
    tb = r["trials"][0]
    check(tb["id"] != ta["id"] and tb["params"] == ta["params"],
          "B got %r, A had %r" % (short(tb), short(ta)))
    a = get_trial(c, ta["id"])
    check(a["state"] == "failed" and a["reason"] == "lease expired"
          and a["lease_expires_at"] is None, "A's trial is %r" % short(a))
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % ta["id"],
                      {"values": {"bleu": 1.0}}), 409, "conflict")
    report(c, tb["id"], {"bleu": 2.0})
    r = suggest(c, sid, "lease-a")
    check(r["trials"] == [] and r["done"], "after B completed: %r" % short(r))
    # Whichever process on the database expired it counted it (its suggest
    # or its reaper thread): sum the counter over the live servers.
    total = 0.0
    for srv in c.servers:
        if srv.alive():
            m = call(srv.port, "GET", "/metrics").raw.decode()
            v = re.search(r"^hpod_leases_expired_total(?:\{[^}]*\})? (\S+)", m, re.M)
            check(v, "no hpod_leases_expired_total on port %d" % srv.port)
            total += float(v.group(1))
    check(total >= 1, "hpod_leases_expired_total summed over the servers: %r" % total)


@test("a final report answers the trial as a read after it: values in the same order, every field equal")
def t_report_answer_is_stored(c):
    space = [{"name": "x", "type": "float", "low": 0.0, "high": 1.0}]
    objs = [{"name": "zeta", "goal": "minimize"}, {"name": "alpha", "goal": "maximize"},
            {"name": "Mid_1.b", "goal": "minimize"}]
    sid = create(c, {"name": uname("answer"), "space": space, "objectives": objs})["id"]
    t = suggest(c, sid, "ans")["trials"][0]
    part = report(c, t["id"], {"zeta": 0.1})["trial"]
    check(part["state"] == "running" and part == get_trial(c, t["id"]),
          "partial report answered %r, stored %r" % (short(part), short(get_trial(c, t["id"]))))
    full = report(c, t["id"], {"alpha": 3e-300, "Mid_1.b": 1.7976931348623157e308})["trial"]
    stored = get_trial(c, t["id"])
    check(full == stored and list(full["values"]) == list(stored["values"]),
          "final report answered %r, stored %r" % (short(full), short(stored)))
    check(full["state"] == "completed" and full["values"] == {
        "zeta": 0.1, "alpha": 3e-300, "Mid_1.b": 1.7976931348623157e308}, "values %r" % full)


@test("report: a study definition changed in the database is the one a report checks, on a "
      "connection whose thread has parsed the old one (the per-thread definition cache)")
def t_report_definition_changed(c):
    sid = create(c, {"name": uname("defcache"), "space": SPACE4, "objectives": BLEU_MAX})["id"]
    ts = [suggest(c, sid, "dc-%d" % i)["trials"][0] for i in range(3)]
    # One keep-alive connection: every request on it runs on one server
    # thread (HPOD_THREADS=0), whose cache then holds the definition.
    conn = http.client.HTTPConnection("127.0.0.1", c.port, timeout=30)

    def rep(tid, values):
        conn.request("POST", "/v1/trials/%d/report" % tid, body=json.dumps({"values": values}),
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"null")

    try:
        st, body = rep(ts[0]["id"], {"bleu": 1.5})
        check(st == 200 and body["trial"]["state"] == "completed", "first report %d %r" % (st, body))
        # The objective renamed behind the servers' back (no API changes a
        # definition; another version of hpod, or an operator, could).
        psql(c.dburl, "UPDATE studies SET definition = jsonb_set(definition::jsonb,"
             " '{objectives,0,name}', '\"acc\"')::json WHERE id = %d" % sid)
        st, body = rep(ts[1]["id"], {"bleu": 2.5})
        check(st == 422 and body["error"]["field"] == "values.bleu",
              "a metric the new definition lacks was taken: %d %r" % (st, body))
        st, body = rep(ts[1]["id"], {"acc": 2.5})
        check(st == 200 and body["trial"]["state"] == "completed" and
              body["trial"]["values"] == {"acc": 2.5},
              "the new definition's objective was refused: %d %r" % (st, body))
        # And back: the cache follows every change, not only the first.
        psql(c.dburl, "UPDATE studies SET definition = jsonb_set(definition::jsonb,"
             " '{objectives,0,name}', '\"bleu\"')::json WHERE id = %d" % sid)
        st, body = rep(ts[2]["id"], {"acc": 3.5})
        check(st == 422, "acc taken after the change back: %d %r" % (st, body))
        st, body = rep(ts[2]["id"], {"bleu": 3.5})
        check(st == 200 and body["trial"]["state"] == "completed", "bleu refused: %d %r" % (st, body))
    finally:
        conn.close()


@test("report: 12 concurrent final reports with different values on one trial over two servers: "
      "one is acknowledged, the rest are 409, and the stored value is the acknowledged one")
def t_report_race(c):
    import threading
    from harness import Server
    other = Server(c.args.hpod, c.logdir, c.dburl)
    other.start()
    try:
        sid = create(c, {"name": uname("race"), "space": SPACE4, "objectives": BLEU_MAX})["id"]
        for rnd in range(3):
            t = suggest(c, sid, "race-%d" % rnd)["trials"][0]
            answers = [None] * 12
            go = threading.Barrier(12)

            def one(i):
                go.wait()
                port = c.port if i % 2 == 0 else other.port
                answers[i] = call(port, "POST", "/v1/trials/%d/report" % t["id"],
                                  {"values": {"bleu": float(i)}})

            th = [threading.Thread(target=one, args=(i,)) for i in range(12)]
            for x in th:
                x.start()
            for x in th:
                x.join()
            ok = [i for i, a in enumerate(answers) if a.status == 200]
            check(len(ok) == 1, "round %d: %d reports acknowledged: %r"
                  % (rnd, len(ok), [a.status for a in answers]))
            check(all(a.status in (200, 409) for a in answers),
                  "round %d: statuses %r" % (rnd, [a.status for a in answers]))
            stored = get_trial(c, t["id"])
            check(stored["state"] == "completed" and stored["values"] == {"bleu": float(ok[0])},
                  "round %d: acknowledged bleu=%d, stored %r" % (rnd, ok[0], short(stored)))
    finally:
        other.stop()
