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


def _cycle_workers(c, ports, sid, n, seconds, value):
    """n workers (worker i on ports[i % len(ports)]) loop suggest + report
    on study sid for the given seconds; a cycle under way at the end is
    finished. Returns (issued: trial id -> params, acked: trial id ->
    values, errors)."""
    issued, acked, errors = {}, {}, []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def worker(i):
        port = ports[i % len(ports)]
        name = "w64-%02d" % i
        try:
            while time.monotonic() < deadline and not errors:
                r = suggest(c, sid, name, port=port)
                for t in r["trials"]:
                    with lock:
                        if t["id"] in issued and t["id"] not in acked:
                            errors.append("%s: trial %d issued twice" % (name, t["id"]))
                        issued[t["id"]] = t["params"]
                    vals = value(t)
                    report(c, t["id"], vals, port=port)
                    with lock:
                        acked[t["id"]] = vals
                if not r["trials"]:
                    return
        except Exception as e:  # noqa: BLE001
            errors.append("%s: %s" % (name, e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return issued, acked, errors


def _check_study(c, port, sid, issued, acked, finite):
    rows, total = [], None
    while total is None or len(rows) < total:
        r = expect(call(port, "GET", "/v1/studies/%d/trials?limit=1000&offset=%d"
                        % (sid, len(rows))), 200)
        rows += r["trials"]
        total = r["total"]
        if not r["trials"]:
            break
    check(total == len(rows) == len(issued),
          "study %d: %d trials listed of %d, %d issued"
          % (sid, len(rows), total, len(issued)))
    by_id = {t["id"]: t for t in rows}
    for tid, vals in acked.items():
        t = by_id.get(tid)
        check(t is not None and t["state"] == "completed" and t["values"] == vals,
              "acknowledged report of trial %d reads back as %r" % (tid, t and short(t)))
    check(len(acked) == len(issued), "%d issued, %d reported" % (len(issued), len(acked)))
    numbers = sorted(t["number"] for t in rows)
    check(numbers == list(range(len(rows))), "trial numbers are not 0..%d" % (len(rows) - 1))
    if finite:
        configs = [canon(t["params"]) for t in rows]
        check(len(set(configs)) == len(configs),
              "%d trials hold only %d distinct candidates" % (len(configs), len(set(configs))))
    sc = expect(call(port, "GET", "/v1/studies/%d" % sid), 200)
    check(sc["trial_counts"]["completed"] == len(rows) and
          sum(sc["trial_counts"].values()) == len(rows),
          "study %d counts %r for %d trials" % (sid, sc["trial_counts"], len(rows)))


@test("three servers, 64 workers for a bounded time: finite and open studies")
def t_concurrent64(c):
    ports = [c.port, c.server().port, c.server().port]
    cands = [{"x": i} for i in range(3000)]
    fin = create(c, {"name": "w64-finite", "candidates": cands,
                     "space": [{"name": "x", "type": "int", "low": 0, "high": 2999}],
                     "objectives": BLEU_MAX})["id"]
    opn = create(c, {"name": "w64-open", "space": SPACE4_64,
                     "objectives": BLEU_MAX})["id"]
    for sid, finite in ((fin, True), (opn, False)):
        t0 = time.monotonic()
        issued, acked, errors = _cycle_workers(
            c, ports, sid, 64, 5.0, lambda t: {"bleu": t["id"] * 0.5 + 0.125})
        dt = time.monotonic() - t0
        check(not errors, "workers failed: %s" % "; ".join(errors[:5]))
        check(len(issued) >= 64, "only %d trials in %.1f s" % (len(issued), dt))
        for port in ports:
            _check_study(c, port, sid, issued, acked, finite)
        print("# 64 workers, 3 servers, %s study: %d cycles in %.1f s"
              % ("finite" if finite else "open", len(acked), dt), flush=True)


SPACE4_64 = [
    {"name": "lr", "type": "float", "low": 1e-4, "high": 1e-1, "log": True},
    {"name": "layers", "type": "int", "low": 1, "high": 6},
]


# ---------------------------------------------------------------------------
# The per-process history cache (study/histcache.c): two servers that each
# keep a study's history in memory, while the other one inserts and
# reports, a lease lapses and a user adds a trial, choose exactly what a
# server that reads the whole history every time (HPOD_HISTORY_CACHE=0,
# started afterwards) chooses for the same sequence of calls.

def _hc_value(p):
    if "a" in p:
        return -((p["a"] - 3) ** 2) - (p["b"] - 5) ** 2
    return -((p["x"] - 0.3) ** 2) - (p["y"] - 0.6) ** 2


def _hc_expiry_raced(c, sid, tid, port, worker):
    """Trial tid's lease lapses while another transaction (as another
    server's reaper would) holds it expired but not committed; a suggest
    then starts, its lease expiry waits for that transaction, which
    commits once the suggest waits: the expiry skips the row. Returns the
    suggest's answer. The lease lapses a second after the transaction
    holds the row, so no reaper expires it first."""
    import subprocess
    from harness import psql
    held = subprocess.Popen(
        ["psql", c.dburl, "-X", "-q", "-v", "ON_ERROR_STOP=1"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    held.stdin.write(
        "UPDATE trials SET lease_expires_at = now() + interval '1 second'"
        " WHERE id = %d;\nBEGIN;\nUPDATE trials SET state = 'failed',"
        " reason = 'lease expired', lease_expired = true,"
        " lease_expires_at = NULL WHERE id = %d;\n\\echo ready\n" % (tid, tid))
    held.stdin.flush()
    check(held.stdout.readline().strip() == "ready",
          "the concurrent expiry did not start")
    time.sleep(1.5)
    out = {}
    th = threading.Thread(target=lambda: out.setdefault(
        "r", suggest(c, sid, worker, port=port)))
    th.start()
    waiting = "0"
    deadline = time.monotonic() + 30
    while waiting == "0" and th.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
        # The suggest's expiry of its study (not a reaper's of every study).
        waiting = psql(c.dburl, "SELECT count(*) FROM pg_stat_activity"
                       " WHERE wait_event_type = 'Lock'"
                       " AND query LIKE '%lease expired%'"
                       " AND query LIKE '%study_id = $1%'").strip()
    held.stdin.write("COMMIT;\n")
    held.stdin.close()
    check(held.wait(timeout=60) == 0, "the concurrent expiry failed")
    th.join(timeout=60)
    check(waiting != "0", "the suggest never waited for the concurrent expiry")
    check("r" in out, "the suggest did not answer")
    return out["r"]


def _hc_drive(c, body, ports, steps=12, race=False):
    """The same calls on a new study, alternating suggests over ports
    (each report goes to the other port); returns every suggestion. race:
    the lease of step 4 lapses and another transaction expires it while
    that step's suggest waits for it (_hc_expiry_raced)."""
    import subprocess
    from harness import psql
    sid = create(c, body, port=ports[0])["id"]
    out, held = [], []
    cands = body.get("candidates")
    open_tx = None
    for step in range(steps):
        port, other = ports[step % len(ports)], ports[(step + 1) % len(ports)]
        if step == 4:
            # A lease lapses (as if its worker died): the next suggest, on
            # either server, fails the trial and frees its candidate.
            lapsed = held.pop(0)["id"]
            if not race:
                psql(c.dburl, "UPDATE trials SET lease_expires_at = now() - "
                     "interval '1 second' WHERE id = %d" % lapsed)
        if step == 6:
            # A trial that ran elsewhere enters the model through the
            # server that is not suggesting next.
            add = ({"x": 0.5, "y": 0.25} if cands is None else
                   next(x for x in cands if x not in out))
            expect(call(other, "POST", "/v1/studies/%d/trials" % sid,
                        {"params": add, "values": {"y": _hc_value(add)}}), 201)
        if step == 7:
            # A report still in flight while both servers read (steps 7
            # and 8), committed before step 9: its transaction began
            # before their snapshots, so it is below their xmax but not
            # below their xmin, and the next reads must pick it up.
            tid = held.pop(0)["id"]
            open_tx = subprocess.Popen(
                ["psql", c.dburl, "-X", "-q", "-v", "ON_ERROR_STOP=1"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            open_tx.stdin.write(
                "BEGIN;\nUPDATE trials SET state = 'completed', "
                "lease_expires_at = NULL WHERE id = %d;\n"
                "INSERT INTO trial_values (trial_id, metric, value) "
                "VALUES (%d, 'y', 0.75);\n\\echo ready\n" % (tid, tid))
            open_tx.stdin.flush()
            check(open_tx.stdout.readline().strip() == "ready",
                  "the open transaction did not start")
        if step == 9:
            open_tx.stdin.write("COMMIT;\n")
            open_tx.stdin.close()
            check(open_tx.wait(timeout=60) == 0, "the open transaction failed")
        if race and step == 4:
            r = _hc_expiry_raced(c, sid, lapsed, port, "hc-w%d" % step)
        else:
            r = suggest(c, sid, "hc-w%d" % step, port=port)
        check(len(r["trials"]) == 1, "step %d: %d trials" % (step, len(r["trials"])))
        t = r["trials"][0]
        out.append(t["params"])
        if step % 3 == 2:
            # Live: pending evidence. The one of step 8 stays live to the
            # end: the server that inserted it reads it at step 10 only
            # because its own transaction was below the xmin it kept.
            held.append(t)
        else:
            report(c, t["id"], {"y": _hc_value(t["params"])}, port=other)
    return out


_HC_GRID = [{"name": "a", "type": "int", "low": 0, "high": 7},
            {"name": "b", "type": "int", "values": list(range(8))}]
_HC_CANDS = [{"a": i, "b": j} for i in range(8) for j in range(8)]
_HC_SQUARE = [{"name": "x", "type": "float", "low": 0, "high": 1},
              {"name": "y", "type": "float", "low": 0, "high": 1}]
_HC_OBJ = [{"name": "y", "goal": "maximize"}]
_HC_STUDIES = [
    ("graph/eif", {"space": _HC_GRID, "candidates": _HC_CANDS,
                   "objectives": _HC_OBJ,
                   "algorithm": {"name": "graph", "acquisition": "eif",
                                 "seed": 7, "init": 4}}),
    ("random finite", {"space": _HC_GRID, "candidates": _HC_CANDS,
                       "objectives": _HC_OBJ,
                       "algorithm": {"name": "random", "seed": 7}}),
    ("gp/ei", {"space": _HC_SQUARE, "objectives": _HC_OBJ,
               "algorithm": {"name": "gp", "acquisition": "ei", "seed": 7,
                             "init": 4}}),
]


def _hc_compare(c, race):
    """_hc_drive on two caching servers, then on a server without the
    cache (HPOD_HISTORY_CACHE=0, started afterwards): the same
    suggestions."""
    from harness import Server
    b = c.server()
    tag = "race " if race else ""
    got = {}
    for label, body in _HC_STUDIES:
        got[label] = _hc_drive(c, dict(body, name="hc a " + tag + label),
                               [c.port, b.port], race=race)
    ref = Server(c.args.hpod, c.logdir, c.dburl)
    ref.extra_env = {"HPOD_HISTORY_CACHE": "0"}
    c.servers.append(ref)
    ref.start()
    for label, body in _HC_STUDIES:
        want = _hc_drive(c, dict(body, name="hc ref " + tag + label),
                         [ref.port], race=race)
        for i, (x, y) in enumerate(zip(got[label], want)):
            check(x == y, "%s: suggestion %d with the cache %r, without %r"
                  % (label, i, x, y))
        check(len(got[label]) == len(want), "%s: %d and %d suggestions"
              % (label, len(got[label]), len(want)))


@test("history cache: two servers interleaving suggests, reports, a lapsed lease and an added trial choose what a server without the cache chooses")
def t_history_cache(c):
    _hc_compare(c, race=False)


@test("history cache: a lapsed lease that another transaction expires while a suggest's expiry waits for it: the same choices as without the cache")
def t_history_cache_raced_expiry(c):
    _hc_compare(c, race=True)
