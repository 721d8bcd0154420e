"""tests/api/test_worker.py - `hpod worker` (cli/worker.h): simulation jobs
computed by processes without HTTP.

On a database of its own (hpod_worker), so that no other server of the
suite takes the jobs: an `hpod serve` with HPOD_SIM_WORKERS=0 queues a
simulation (202) that an `hpod worker` computes; a second job's worker is
killed with SIGKILL while it computes, and another worker takes the job
over and finishes it with the result of the same request run at once; a
worker exits 0 on SIGTERM. The workers also recover lapsed trial leases
(the reaper), with no serve reaping.
"""

import os
import signal
import subprocess
import time

from harness import Server, call, cfg, check, expect, fresh_database, psql, test
from client import BLEU_MAX, create, suggest
from tables import bench_path, need_tables
from test_auth import hpod
from test_simulation_jobs import SLOW, poll, post_async, result_fields


class Worker:
    """One `hpod worker` process with its log in the suite's log dir."""
    count = 0

    def __init__(self, c, url, **env):
        Worker.count += 1
        self.logpath = os.path.join(c.logdir, "worker-%d.log" % Worker.count)
        e = dict(os.environ, HPOD_DATABASE_URL=url, OPENBLAS_NUM_THREADS="1",
                 HPOD_BENCHMARKS=cfg.bench_dir)
        e.update({k: str(v) for k, v in env.items()})
        with open(self.logpath, "wb") as log:
            self.proc = subprocess.Popen([c.args.hpod, "worker"], env=e,
                                         stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        end = time.monotonic() + 30
        while "hpod worker running" not in self.log():
            check(self.proc.poll() is None, "hpod worker exited %r:\n%s"
                  % (self.proc.returncode, self.log()[-1500:]))
            check(time.monotonic() < end, "hpod worker not running after 30 s")
            time.sleep(0.05)

    def log(self):
        with open(self.logpath, encoding="utf-8", errors="replace") as f:
            return f.read()

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)


def no_sim_server(c, url):
    s = Server(c.args.hpod, c.logdir, url)
    s.extra_env = {"HPOD_SIM_WORKERS": "0", "HPOD_REAPER_MS": "3600000"}
    c.servers.append(s)
    return s.start()


@test("worker: a serve without simulation workers queues, an hpod worker computes; "
      "kill -9 of a worker mid-job, another takes it over with the same result")
def t_worker(c):
    need_tables()
    url = fresh_database(c.dburl, "hpod_worker")
    hpod(c, url, "migrate")
    s = no_sim_server(c, url)
    w1 = Worker(c, url, HPOD_SIM_LEASE_MS=1500)
    quick = dict(SLOW, repeats=2)
    job = post_async(s.port, "nmthpo/zh-en", quick)
    final, _ = poll(s.port, job["id"], timeout=120)
    check(final["state"] == "done", "first job %r" % final)
    # A longer job: kill its worker while it computes.
    job2 = post_async(s.port, "nmthpo/zh-en", SLOW)
    end = time.monotonic() + 120
    while True:
        j = expect(call(s.port, "GET", "/v1/simulations/%d" % job2["id"]), 200)
        if j["state"] == "running" and j["progress"]["done"] > 0:
            break
        check(j["state"] in ("queued", "running"), "job ended before the kill: %r" % j)
        check(time.monotonic() < end, "job never ran on the worker")
        time.sleep(0.05)
    w1.kill9()
    w2 = Worker(c, url, HPOD_SIM_LEASE_MS=1500)
    t0 = time.monotonic()
    final2, _ = poll(s.port, job2["id"], timeout=300)
    check(final2["state"] == "done", "after the takeover: %r" % final2)
    check("simulation %d: attempt 2" % job2["id"] in w2.log(),
          "the second worker did not claim the job a second time:\n%s" % w2.log()[-1500:])
    print("# worker takeover: done %.1f s after kill -9 (lease 1.5 s)"
          % (time.monotonic() - t0), flush=True)
    # The same request again, synchronous: the serve waits while the
    # worker computes it.
    ref = expect(call(s.port, "POST", bench_path("nmthpo/zh-en", "/simulate"), SLOW), 201)
    check(result_fields(ref) == result_fields(final2), "the taken-over job's result differs")
    check(w2.stop() == 0, "hpod worker exit status on SIGTERM")
    check(s.stop() == 0, "serve exit status")


@test("worker: with every serve's reaper idle, an hpod worker recovers a lapsed lease")
def t_worker_reaper(c):
    url = fresh_database(c.dburl, "hpod_worker_reap")
    hpod(c, url, "migrate")
    s = no_sim_server(c, url)
    sid = create(c, {"name": "reap", "space": [{"name": "x", "type": "float", "low": 0,
                                                "high": 1}], "objectives": BLEU_MAX},
                 port=s.port)["id"]
    tid = suggest(c, sid, "lapse", port=s.port)["trials"][0]["id"]
    psql(url, "UPDATE trials SET lease_expires_at = now() - interval '1 second' "
              "WHERE id = %d" % tid)
    w = Worker(c, url, HPOD_REAPER_MS=100)
    end = time.monotonic() + 30
    while True:
        t = expect(call(s.port, "GET", "/v1/trials/%d" % tid), 200)
        if t["state"] == "failed":
            break
        check(time.monotonic() < end, "lease not recovered by the worker: %r" % t["state"])
        time.sleep(0.1)
    check("recovered 1 expired leases" in w.log(), "the worker did not log the recovery")
    check(w.stop() == 0, "hpod worker exit status on SIGTERM")
    check(s.stop() == 0, "serve exit status")
