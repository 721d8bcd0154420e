"""tests/api/test_concurrency.py - two servers on one database under 16
concurrent workers; kill -9 during a stream of reports.
"""

import http.client
import threading
import time

from harness import Fail, call, check, expect, short, test
from client import BLEU_MAX, all_trials, canon, create, report, suggest


@test("two servers, one database, 16 concurrent workers on 100 candidates")
def t_concurrent(c):
    b = c.server()
    ports = [c.port, b.port]
    space = [{"name": "a", "type": "int", "low": 0, "high": 9},
             {"name": "b", "type": "int", "values": list(range(10))}]
    cands = [{"a": i, "b": j} for i in range(10) for j in range(10)]
    sid = create(c, {"name": "concurrent", "space": space, "candidates": cands,
                     "objectives": BLEU_MAX})["id"]
    issued, errors, saw_done = [], [], {}
    lock = threading.Lock()
    deadline = time.monotonic() + 150

    def worker(i):
        port = ports[i % 2]
        name = "cw-%02d" % i
        try:
            while time.monotonic() < deadline:
                if len(issued) > 100:
                    errors.append("%s: stopped, more than 100 trials issued" % name)
                    return
                r = suggest(c, sid, name, port=port)
                for t in r["trials"]:
                    p = t["params"]
                    with lock:
                        issued.append((t["id"], canon(p)))
                    report(c, t["id"], {"bleu": p["a"] * 10 + p["b"]}, port=port)
                if r["done"]:
                    saw_done[name] = True
                    return
                if not r["trials"]:
                    time.sleep(min(r.get("retry_after", 1), 1))
            errors.append("%s: no done after 150 s" % name)
        except Exception as e:  # noqa: BLE001
            errors.append("%s: %s" % (name, e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    check(not errors, "workers failed: %s" % "; ".join(errors[:5]))
    check(len(saw_done) == 16, "only %d workers saw done" % len(saw_done))
    ids = [x[0] for x in issued]
    check(len(ids) == 100 and len(set(ids)) == 100,
          "%d trials issued, %d distinct" % (len(ids), len(set(ids))))
    check(sorted(x[1] for x in issued) == sorted(canon(x) for x in cands),
          "issued configurations are not the 100 candidates")
    lst = all_trials(c, sid)
    check(lst["total"] == 100, "study has %d trials" % lst["total"])
    check(all(t["state"] == "completed" for t in lst["trials"]), "not all completed")
    check(len({canon(t["params"]) for t in lst["trials"]}) == 100, "configurations repeat")
    check(all(t["values"]["bleu"] == t["params"]["a"] * 10 + t["params"]["b"]
              for t in lst["trials"]), "stored values differ from the reports")
    sc = expect(call(b.port, "GET", "/v1/studies/%d" % sid), 200)
    check(sc["state"] == "done" and sc["trial_counts"]["completed"] == 100,
          "study %r %r" % (sc["state"], sc["trial_counts"]))


@test("kill -9 during a stream of reports loses no acknowledged report")
def t_kill9(c):
    k = c.server()
    objectives = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    sid = create(c, {"name": "kill9", "space": [{"name": "x", "type": "float", "low": 0,
                                                 "high": 1}], "objectives": objectives},
                 port=k.port)["id"]
    acked, errors = {}, []
    lock = threading.Lock()
    stop = threading.Event()

    def worker(i):
        while not stop.is_set():
            try:
                r = call(k.port, "POST", "/v1/studies/%d/suggest" % sid,
                         {"worker": "k9-%d" % i}, timeout=10)
                if r.status != 200:
                    errors.append("suggest answered %r" % r)
                    return
                for t in r.json["trials"]:
                    vals = {"bleu": t["id"] + 0.25, "gpu_time": 1000 - t["id"] * 0.5}
                    r2 = call(k.port, "POST", "/v1/trials/%d/report" % t["id"],
                              {"values": vals}, timeout=10)
                    if r2.status == 200:
                        with lock:
                            acked[t["id"]] = vals
                    else:
                        errors.append("report answered %r" % r2)
                        return
            except (OSError, http.client.HTTPException):
                return  # the server is gone
            except Fail as e:
                errors.append(str(e))
                return

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    time.sleep(1.0)
    with lock:
        before = len(acked)
    k.kill9()
    stop.set()
    for th in threads:
        th.join()
    check(not errors, "before the kill: %s" % "; ".join(errors[:3]))
    check(before >= 1, "no report acknowledged within 1 s")
    k2 = c.server()
    lst = all_trials(c, sid, port=k2.port)
    by_id = {t["id"]: t for t in lst["trials"]}
    for tid, vals in sorted(acked.items()):
        t = by_id.get(tid)
        check(t is not None, "acknowledged trial %d is gone" % tid)
        check(t["state"] == "completed" and t["values"] == vals,
              "acknowledged trial %d is %s with %r, reported %r"
              % (tid, t["state"], t["values"], vals))
    for t in lst["trials"]:
        if t["state"] == "completed":
            check(set(t["values"]) == {"bleu", "gpu_time"}, "half-written trial %r" % short(t))
        else:
            check(t["values"] == {}, "trial %d is %s with values %r"
                  % (t["id"], t["state"], t["values"]))
    print("# kill -9: %d reports acknowledged before the kill, %d trials in the study"
          % (len(acked), lst["total"]), flush=True)
