"""tests/api/test_simulation_jobs.py - simulations as jobs (issue 14): 202
with `Prefer: respond-async` and polling, the same result as the
synchronous answer, progress, bad requests answered at once with nothing
written, a job taken over after kill -9 of the server computing it, lab
scoping, the workers' cpu cgroup (HPOD_SIM_CGROUP), and suggest latency
while simulations run (printed, not asserted). A shared server (issue 27):
the cap of queued simulations per lab (429), another lab's one-run
simulation served within 15 s behind a full queue (round-robin across
labs, in slices), cancel, and a sliced job's result equal to the whole.
"""

import os
import time

from harness import (Server, Skip, call, check, db_snapshot, expect, expect_error,
                     fresh_database, psql, test)
from client import BLEU_MAX, SPACE4
from tables import bench_path, need_tables
from test_auth import hpod

ASYNC = {"Prefer": "respond-async"}
# Long enough under AddressSanitizer for progress to be seen (seconds).
SLOW = {"algorithm": {"name": "gp"}, "objectives": BLEU_MAX, "repeats": 60, "seed": 11,
        "budget": 20}


def post_async(port, name, body, token=None):
    r = call(port, "POST", bench_path(name, "/simulate"), body, headers=ASYNC, token=token)
    job = expect(r, 202)
    check(job["state"] == "queued" and job["progress"] == {"done": 0, "total": job["progress"]
                                                           ["total"]},
          "202 body %r" % job)
    check(r.headers.get("location") == "/v1/simulations/%d" % job["id"],
          "Location %r for job %d" % (r.headers.get("location"), job["id"]))
    check("sequences" not in job and "metrics" not in job, "a queued job has a result: %r" % job)
    return job


def poll(port, sid, timeout=300, token=None):
    """Polls until done or failed; returns (final body, [(state, done)])."""
    seen = []
    end = time.monotonic() + timeout
    while True:
        j = expect(call(port, "GET", "/v1/simulations/%d" % sid, token=token), 200)
        seen.append((j["state"], j["progress"]["done"]))
        if j["state"] in ("done", "failed"):
            return j, seen
        check(time.monotonic() < end, "simulation %d not done after %d s: %r"
              % (sid, timeout, seen[-5:]))
        time.sleep(0.1)


def result_fields(j):
    """What must be identical between two runs of the same request."""
    return {k: v for k, v in j.items() if k not in ("id", "created_at", "seconds")}


@test("simulation jobs: 202 with Prefer: respond-async, progress grows, the result equals the synchronous run's")
def t_async_same_as_sync(c):
    need_tables()
    job = post_async(c.port, "nmthpo/zh-en", SLOW)
    check(job["progress"]["total"] == 60, "total %r" % job["progress"])
    t0 = time.monotonic()
    final, seen = poll(c.port, job["id"])
    took = time.monotonic() - t0
    check(final["state"] == "done", "job %r" % final)
    dones = [d for _, d in seen]
    check(dones == sorted(dones), "progress went back: %r" % seen)
    check(final["progress"] == {"done": 60, "total": 60}, "final progress %r" % final["progress"])
    mid = [d for s, d in seen if s == "running" and 0 < d < 60]
    print("# async gp zh-en, 60 runs: %.1f s, %d polls, progress seen %s" % (
        took, len(seen), sorted(set(dones))))
    # Progress is written every 250 ms (bench/jobs.c KEEPER_MS).
    check(mid or took < 1.0, "no progress between 0 and 60 seen in %.1f s: %r"
          % (took, seen[-10:]))
    sync = expect(call(c.port, "POST", bench_path("nmthpo/zh-en", "/simulate"), SLOW), 201)
    check(sync["state"] == "done" and sync["id"] != final["id"], "sync %r" % sync.get("state"))
    check(result_fields(sync) == result_fields(final),
          "async and sync results differ: %r" % [k for k in result_fields(sync)
                                                  if sync.get(k) != final.get(k)])
    check(len(final["sequences"]) == 60, "sequences %d" % len(final["sequences"]))
    listed = expect(call(c.port, "GET", "/v1/simulations?benchmark=nmthpo/zh-en"), 200)
    mine = [s for s in listed["simulations"] if s["id"] == final["id"]]
    check(len(mine) == 1 and mine[0]["state"] == "done" and "sequences" not in mine[0],
          "listed %r" % mine)
    ss = call(c.port, "GET", "/v1/simulations/%d?format=ss" % final["id"])
    check(ss.status == 200 and len(ss.raw.decode().splitlines()) == 60, "ss %r" % ss)


@test("simulation jobs: bad requests answer 4xx at once, with or without Prefer, and write nothing")
def t_bad_requests_write_nothing(c):
    need_tables()
    cases = [
        ({"repeats": 0}, 422, "repeats"),
        ({"algorithm": {"name": "random"}, "bogus": 1}, 400, "bogus"),
        # Decided by the table's rows, before any run: no row meets it.
        ({"algorithm": {"name": "gp"}, "objectives": BLEU_MAX,
          "constraints": [{"metric": "gpu_time", "max": 1e-9}]}, 422, "constraints"),
        ({"algorithm": {"name": "random"}, "objective": {"name": "nope"}}, 422,
         "objective.name"),
        ({"algorithm": {"name": "sh", "p": 2, "c": 10}}, 422, "algorithm.name"),
    ]
    before = db_snapshot(c.dburl)
    for body, status, field in cases:
        for hdr in (None, ASYNC):
            t0 = time.monotonic()
            r = call(c.port, "POST", bench_path("nmthpo/zh-en", "/simulate"), body, headers=hdr)
            expect_error(r, status, "invalid_argument", field)
            check(time.monotonic() - t0 < 5, "%r took %.1f s" % (body, time.monotonic() - t0))
    r = call(c.port, "POST", bench_path("nmtlc/ted-zh-en", "/simulate"),
             {"algorithm": {"name": "sh", "p": 2, "c": 10}, "configs": 10 ** 6}, headers=ASYNC)
    expect_error(r, 422, "invalid_argument", "configs")
    check(db_snapshot(c.dburl) == before, "a bad simulate request wrote to the database")
    r = call(c.port, "GET", "/v1/simulations/999999999?format=ss")
    expect_error(r, 404, "not_found")


def job_server(c, url, workers, lease_ms=1500, env=None):
    s = Server(c.args.hpod, c.logdir, url)
    s.extra_env = {"HPOD_SIM_WORKERS": str(workers), "HPOD_SIM_LEASE_MS": str(lease_ms)}
    s.extra_env.update(env or {})
    c.servers.append(s)
    return s.start()


@test("simulation jobs: kill -9 of the server computing a job; another server takes it over and finishes it with the same result")
def t_takeover(c):
    need_tables()
    url = fresh_database(c.dburl, "hpod_simjobs")
    hpod(c, url, "migrate")
    a = job_server(c, url, 1)
    job = post_async(a.port, "nmthpo/zh-en", SLOW)
    end = time.monotonic() + 120
    while True:
        j = expect(call(a.port, "GET", "/v1/simulations/%d" % job["id"]), 200)
        if j["state"] == "running" and j["progress"]["done"] > 0:
            break
        check(j["state"] in ("queued", "running"), "job ended before the kill: %r" % j["state"])
        check(time.monotonic() < end, "job never ran on the first server")
        time.sleep(0.05)
    b = job_server(c, url, 1)
    a.kill9()
    t0 = time.monotonic()
    final, seen = poll(b.port, job["id"])
    check(final["state"] == "done", "after the takeover: %r" % final)
    print("# takeover: done %.1f s after kill -9 (lease 1.5 s), progress seen %s"
          % (time.monotonic() - t0, sorted(set(d for _, d in seen))))
    with open(b.logpath, encoding="utf-8", errors="replace") as f:
        log = f.read()
    check('simulation %d: attempt 2' % job["id"] in log,
          "the second server did not claim the job a second time")
    ref = expect(call(b.port, "POST", bench_path("nmthpo/zh-en", "/simulate"), SLOW), 201)
    check(result_fields(ref) == result_fields(final), "the taken-over job's result differs")
    check(b.stop() == 0, "second server exit status")


CG_ROOT = "/sys/fs/cgroup/cpu"


def thread_stat(pid, tid):
    """(scheduling policy, utime + stime in ticks) of thread tid of pid."""
    with open("/proc/%d/task/%d/stat" % (pid, tid)) as f:
        rest = f.read().rsplit(")", 1)[1].split()  # rest[k] is field k + 3
    return int(rest[38]), int(rest[11]) + int(rest[12])


def sim_threads(pid):
    """The threads of pid named hpod-sim: its simulation workers (and the
    threads a running job starts)."""
    out = set()
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, t)) as f:
                if f.read().strip() == "hpod-sim":
                    out.add(int(t))
        except FileNotFoundError:
            pass  # a thread of a slice that just ended
    return out


def off_first_cpu(pid):
    """The CPUs a simulation worker of pid may use (bench/jobs.c
    lower_priority): the process's but the first, when it has two or more."""
    cpus = os.sched_getaffinity(pid)
    return cpus - {min(cpus)} if len(cpus) > 1 else cpus


def cgroup_tasks(d):
    with open(os.path.join(d, "tasks")) as f:
        return {int(x) for x in f.read().split()}


def cgroup_server(c, url, workers, cgroup):
    s = Server(c.args.hpod, c.logdir, url)
    s.extra_env = {"HPOD_SIM_WORKERS": str(workers), "HPOD_SIM_CGROUP": cgroup}
    c.servers.append(s)
    return s.start()


def log_of(s):
    with open(s.logpath, encoding="utf-8", errors="replace") as f:
        return f.read()


@test("simulation jobs: HPOD_SIM_CGROUP: the worker computes its job inside the cgroup, off the first CPU; a bad directory warns once and the job completes")
def t_sim_cgroup(c):
    need_tables()
    if not (os.access(CG_ROOT, os.W_OK) and os.path.exists(os.path.join(CG_ROOT, "tasks"))):
        raise Skip("%s is not a writable cgroup v1 cpu hierarchy (root only)" % CG_ROOT)
    cg = os.path.join(CG_ROOT, "hpod-apitest-%d" % os.getpid())
    os.mkdir(cg)
    servers = []
    try:
        if os.path.exists(os.path.join(cg, "cpu.idle")):
            with open(os.path.join(cg, "cpu.idle"), "w") as f:
                f.write("1")
        url = fresh_database(c.dburl, "hpod_simcg")
        hpod(c, url, "migrate")
        body = dict(SLOW, repeats=20)
        s = cgroup_server(c, url, 1, cg)
        servers.append(s)
        pid = s.proc.pid
        end = time.monotonic() + 10
        while not cgroup_tasks(cg):  # the worker joins as it starts
            check(time.monotonic() < end, "no thread joined %s within 10 s" % cg)
            time.sleep(0.05)
        tids = cgroup_tasks(cg)
        check(tids == sim_threads(pid),
              "in the cgroup %r, the server's hpod-sim threads %r" % (tids, sim_threads(pid)))
        check(len(tids) == 1, "one worker, threads %r in the cgroup" % tids)
        tid = next(iter(tids))
        check(thread_stat(pid, tid)[0] == 5, "the worker is not SCHED_IDLE")
        check(os.sched_getaffinity(tid) == off_first_cpu(pid),
              "the worker in the cgroup on CPUs %r, expected %r"
              % (os.sched_getaffinity(tid), off_first_cpu(pid)))
        before = thread_stat(pid, tid)[1]
        final, _ = poll(s.port, post_async(s.port, "nmthpo/zh-en", body)["id"])
        check(final["state"] == "done", "job %r" % final["state"])
        after = thread_stat(pid, tid)[1]
        check(after > before, "the worker in the cgroup used no CPU for the job (%d -> %d"
              " ticks)" % (before, after))
        check(cgroup_tasks(cg) == {tid}, "after the job: %r in the cgroup" % cgroup_tasks(cg))
        check("cannot join the cgroup" not in log_of(s), "warned:\n%s" % s.tail())
        check(s.stop() == 0, "exit status")
        check(not cgroup_tasks(cg), "threads left in the cgroup: %r" % cgroup_tasks(cg))

        bad = os.path.join(cg, "missing")
        b = cgroup_server(c, url, 2, bad)
        servers.append(b)
        final, _ = poll(b.port, post_async(b.port, "nmthpo/zh-en", body)["id"])
        check(final["state"] == "done", "job with a bad cgroup %r" % final["state"])
        log = log_of(b)
        check(log.count("cannot join the cgroup %s" % bad) == 1,
              "one warning for 2 workers expected:\n%s" % b.tail())
        workers = sim_threads(b.proc.pid)
        check(len(workers) == 2, "hpod-sim threads %r" % workers)
        for t in workers:
            check(os.sched_getaffinity(t) == off_first_cpu(b.proc.pid),
                  "worker %d on CPUs %r, expected %r"
                  % (t, os.sched_getaffinity(t), off_first_cpu(b.proc.pid)))
        check(b.stop() == 0, "exit status with a bad cgroup")
    finally:
        for x in servers:
            x.stop()
        os.rmdir(cg)


@test("simulation jobs: a lab-scoped token sees only its lab's jobs")
def t_lab_jobs(c):
    L = c.fixture("lab")
    w, nlp = L.tok[("write", "mt")], L.tok[("read", "nlp")]
    job = post_async(L.port, L.table, {"algorithm": {"name": "random"},
                                       "objectives": BLEU_MAX, "repeats": 3}, token=w)
    final, _ = poll(L.port, job["id"], token=w)
    check(final["state"] == "done" and final["progress"] == {"done": 3, "total": 3},
          "lab job %r" % final)
    expect_error(L.call("GET", "/v1/simulations/%d" % job["id"], token=nlp), 404, "not_found")
    sims = expect(L.call("GET", "/v1/simulations", token=nlp), 200)
    check(job["id"] not in [s["id"] for s in sims["simulations"]], "nlp lists mt's job")
    sims = expect(L.call("GET", "/v1/simulations", token=L.tok[("read", "mt")]), 200)
    mine = [s for s in sims["simulations"] if s["id"] == job["id"]]
    check(len(mine) == 1 and mine[0]["state"] == "done", "mt's list: %r" % mine)


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.99 * (len(xs) - 1))))]


def suggest_latencies(port, sid, n, until=None):
    """n suggest+report cycles (fewer if until() turns true: asked every
    10 cycles); the suggest latencies."""
    out = []
    for i in range(n):
        t0 = time.monotonic()
        a = expect(call(port, "POST", "/v1/studies/%d/suggest" % sid, {"worker": "w%d" % i}), 200)
        out.append(time.monotonic() - t0)
        tid = a["trials"][0]["id"]
        expect(call(port, "POST", "/v1/trials/%d/report" % tid, {"values": {"bleu": i % 7}}), 200)
        if until is not None and i % 10 == 9 and until():
            break
    return out


@test("simulation jobs: suggest p99 on a plain study, idle vs 4 async simulations of 100 repeats (printed)")
def t_suggest_under_simulations(c):
    need_tables()
    url = fresh_database(c.dburl, "hpod_simload")
    hpod(c, url, "migrate")
    s = job_server(c, url, 4, lease_ms=30000)
    sid = expect(call(s.port, "POST", "/v1/studies", {
        "name": "load", "space": SPACE4, "objectives": BLEU_MAX,
        "algorithm": {"name": "random", "seed": 1}}), 201)["id"]
    suggest_latencies(s.port, sid, 20)  # warm up
    idle = suggest_latencies(s.port, sid, 200)
    # gp: seconds of CPU per simulation, so that they run during the whole
    # measurement (4 workers, 2 threads each).
    jobs = [post_async(s.port, "nmthpo/zh-en", dict(SLOW, repeats=100, seed=k))["id"]
            for k in range(4)]

    def all_done():
        return all(expect(call(s.port, "GET", "/v1/simulations/%d" % j), 200)["state"] == "done"
                   for j in jobs)

    t0 = time.monotonic()
    busy = suggest_latencies(s.port, sid, 5000, until=all_done)
    took = time.monotonic() - t0
    load = os.getloadavg()
    print("# suggest p99 idle %.1f ms (n=%d); while 4 gp simulations of 100 repeats ran "
          "(%.1f s, HPOD_SIM_WORKERS=4) %.1f ms (n=%d); p50 %.1f / %.1f ms; "
          "loadavg %.2f %.2f %.2f"
          % (p99(idle) * 1e3, len(idle), took, p99(busy) * 1e3, len(busy),
             sorted(idle)[len(idle) // 2] * 1e3, sorted(busy)[len(busy) // 2] * 1e3,
             load[0], load[1], load[2]))
    for j in jobs:
        final, _ = poll(s.port, j)
        check(final["state"] == "done", "load job %r" % final["state"])
    check(s.stop() == 0, "server exit status")


@test("simulation jobs: SIGTERM while a job runs exits 0 and puts the job back in the queue; the next server finishes it")
def t_sigterm_requeues(c):
    need_tables()
    url = fresh_database(c.dburl, "hpod_simterm")
    hpod(c, url, "migrate")
    a = job_server(c, url, 1, lease_ms=60000)
    job = post_async(a.port, "nmthpo/zh-en", SLOW)
    end = time.monotonic() + 120
    while expect(call(a.port, "GET", "/v1/simulations/%d" % job["id"]), 200)["state"] != "running":
        check(time.monotonic() < end, "job never ran")
        time.sleep(0.05)
    t0 = time.monotonic()
    check(a.stop() == 0, "exit status after SIGTERM with a job in flight")
    stopped = time.monotonic() - t0
    state = psql(url, "SELECT state || ' ' || (lease_expires_at IS NULL)::text"
                      " FROM simulations WHERE id = %d" % job["id"]).strip()
    check(state == "queued true", "job after SIGTERM: %r" % state)
    # The lease is 60 s: only the release lets the next server start at once.
    b = job_server(c, url, 1, lease_ms=60000)
    final, _ = poll(b.port, job["id"], timeout=60)
    check(final["state"] == "done" and final["progress"]["done"] == 60, "final %r" % final)
    print("# SIGTERM with a job in flight: stopped in %.1f s" % stopped)
    check(b.stop() == 0, "second server exit status")


# ---- a shared server: the cap per lab, round-robin across labs, cancel ----

def two_labs(c, name, env):
    """A fresh database with an admin token, write tokens of labs a and b,
    and one server (1 simulation worker) with env: (server, tokens, url)."""
    url = fresh_database(c.dburl, name)
    hpod(c, url, "migrate")
    _, out, _ = hpod(c, url, "token", "create", "--role", "admin")
    root = out.strip().splitlines()[-1]
    s = Server(c.args.hpod, c.logdir, url)
    s.extra_env = dict(env, HPOD_SIM_WORKERS="1")
    c.servers.append(s)
    s.start()
    tok = {"root": root}
    for lab in ("a", "b"):
        tok[lab] = expect(call(s.port, "POST", "/v1/tokens", {"role": "write", "lab": lab},
                               token=root), 201)["token"]
    return s, tok, url


# A's long jobs: 1,000 runs of the default (auto: GP-Hedge) on zh-en, about
# 0.2 s per run under AddressSanitizer (minutes per job); B's: one run. A
# run is what a slice cannot cut, so B waits about a slice (2 s) plus the
# runs in flight.
LONG = {"objectives": BLEU_MAX, "repeats": 1000}
ONE = {"objectives": BLEU_MAX, "repeats": 1}


def fill_lab(port, token, n):
    """n async jobs of LONG (seeds 0..n-1) on zh-en; their ids."""
    return [post_async(port, "nmthpo/zh-en", dict(LONG, seed=k), token=token)["id"]
            for k in range(n)]


def one_run_within(port, token, limit):
    """B's one-run simulation, synchronous: done within limit seconds."""
    t0 = time.monotonic()
    r = call(port, "POST", bench_path("nmthpo/zh-en", "/simulate"), ONE, token=token,
             timeout=limit + 30)
    took = time.monotonic() - t0
    sim = expect(r, 201)
    check(sim["state"] == "done" and len(sim["sequences"]) == 1, "B's job %r" % sim["state"])
    check(took <= limit, "B's one-run simulation took %.1f s (limit %d s)" % (took, limit))
    return took


def states(port, token, ids):
    return [expect(call(port, "GET", "/v1/simulations/%d" % i, token=token), 200)["state"]
            for i in ids]


def cancel_all(port, token, ids):
    """Cancels every job of ids (queued and running); all read cancelled."""
    before = states(port, token, ids)
    for i in ids:
        j = expect(call(port, "DELETE", "/v1/simulations/%d" % i, token=token), 200)
        check(j["state"] == "cancelled" and j["id"] == i, "cancel %d: %r" % (i, j["state"]))
    check(states(port, token, ids) == ["cancelled"] * len(ids),
          "after cancel: %r" % sorted(set(states(port, token, ids))))
    return before


def lab_cap(c, name, cap, env):
    need_tables()
    s, tok, url = two_labs(c, name, env)
    a, b = tok["a"], tok["b"]
    t0 = time.monotonic()
    ids = fill_lab(s.port, a, cap)
    queued_in = time.monotonic() - t0
    rows = psql(url, "SELECT count(*) FROM simulations").strip()
    r = call(s.port, "POST", bench_path("nmthpo/zh-en", "/simulate"), LONG, token=a)
    e = expect_error(r, 429, "resource_exhausted")
    check(r.headers.get("retry-after", "").isdigit() and int(r.headers["retry-after"]) >= 1,
          "429 without Retry-After: %r" % r.headers)
    check(str(cap) in e["message"], "message %r" % e["message"])
    check(psql(url, "SELECT count(*) FROM simulations").strip() == rows,
          "the refused simulate wrote a row")
    # B's one run, behind A's full queue (one worker).
    took = one_run_within(s.port, b, 15)
    # Another lab's id is a 404, as an unknown one.
    expect_error(call(s.port, "DELETE", "/v1/simulations/%d" % ids[0], token=b), 404,
                 "not_found")
    before = cancel_all(s.port, a, ids)
    check("running" in before or "queued" in before, "A's jobs before the cancel: %r"
          % sorted(set(before)))
    again = call(s.port, "DELETE", "/v1/simulations/%d" % ids[-1], token=a)
    check(expect(again, 200) == expect(call(s.port, "GET", "/v1/simulations/%d" % ids[-1],
                                            token=a), 200),
          "a repeated DELETE answers differently")
    # The worker is free again, and A's slots with it.
    took2 = one_run_within(s.port, b, 15)
    done = [x["id"] for x in expect(call(s.port, "GET", "/v1/simulations", token=b),
                                    200)["simulations"]]
    expect_error(call(s.port, "DELETE", "/v1/simulations/%d" % done[0], token=b), 409,
                 "conflict")
    extra = post_async(s.port, "nmthpo/zh-en", ONE, token=a)["id"]
    final, _ = poll(s.port, extra, timeout=60, token=a)
    check(final["state"] == "done", "A's job after the cancel: %r" % final["state"])
    print("# %d jobs of 1000 runs queued by lab a in %.1f s (%s when cancelled); lab b's "
          "one-run simulation took %.1f s behind them, %.1f s after the cancel"
          % (cap, queued_in, "/".join(sorted(set(before))), took, took2))
    check(s.stop() == 0, "server exit status")


@test("simulation jobs: a lab at its cap (16) is refused with 429 and Retry-After, writing nothing; another lab's one-run simulation completes within 15 s behind it; all 16 can be cancelled and the worker is free again")
def t_lab_cap(c):
    lab_cap(c, "hpod_simcap", 16, {})


@test("simulation jobs: behind one lab's 100 queued simulations of 1000 runs (cap set to 100), another lab's one-run simulation completes within 15 s; the 100 are cancelled")
def t_lab_cap_100(c):
    lab_cap(c, "hpod_simcap100", 100, {"HPOD_SIM_QUEUE_PER_LAB": "100"})


SLICED = [
    {"algorithm": {"name": "gp"}, "objectives": BLEU_MAX, "repeats": 30, "seed": 3},
    {"objectives": [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}],
     "algorithm": {"name": "random"}, "repeats": 23, "seed": 5},
    {"algorithm": {"name": "gp"}, "objectives": BLEU_MAX, "repeats": 17, "budget": 20,
     "constraints": [{"metric": "gpu_time", "max": 1e9}]},
]


@test("simulation jobs: a job computed in slices (7 runs, or 50 ms, at a time) has the result of the same request computed in one piece")
def t_sliced_same(c):
    need_tables()
    urls = [fresh_database(c.dburl, n) for n in ("hpod_slice1", "hpod_slice7")]
    for u in urls:
        hpod(c, u, "migrate")
    whole = job_server(c, urls[0], 1)
    sliced = job_server(c, urls[1], 1, env={"HPOD_SIM_SLICE_RUNS": "7",
                                            "HPOD_SIM_SLICE_MS": "50"})
    for body in SLICED:
        one = poll(whole.port, post_async(whole.port, "nmthpo/zh-en", body)["id"])[0]
        job = post_async(sliced.port, "nmthpo/zh-en", body)["id"]
        many, seen = poll(sliced.port, job)
        check(one["state"] == many["state"] == "done", "states %r %r"
              % (one["state"], many["state"]))
        check(result_fields(one) == result_fields(many),
              "sliced and whole results differ: %r"
              % [k for k in result_fields(one) if one.get(k) != many.get(k)])
        slices = log_of(sliced).count('"simulation %d: attempt' % job)
        check(slices >= -(-body["repeats"] // 7), "job %d ran in %d slices" % (job, slices))
        print("# %s, %d runs: %d slices, the same result as one piece"
              % (body["algorithm"]["name"], body["repeats"], slices))
    check(psql(urls[1], "SELECT count(*) FROM simulation_slices").strip() == "0",
          "slices left after the jobs ended")
    check(whole.stop() == 0 and sliced.stop() == 0, "exit status")
