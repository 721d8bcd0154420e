"""tests/api/test_metrics.py - /metrics by Prometheus conventions
(server/metrics.c, server/procmetrics.c, study/algometrics.c,
handlers/health.c): suggest and model times counted per algorithm, the
database pool's figures under contention, the simulation queue per lab
against the jobs queued, the process_* figures against /proc and the
clock, HPOD_METRICS_AUTH; and, last in the suite, `promtool check
metrics` on the main server's scrape after every other module ran, with
every family present.
"""

import os
import re
import shutil
import subprocess
import threading
import time

from harness import Server, Skip, call, check, expect, expect_error, test
from client import BLEU_MAX, SPACE4, report, suggest, uname
from tables import bench_path, synthetic_table
from test_auth import hpod, new_database

# The families a scrape has (samples or not), by the list.
FAMILIES = [
    "hpod_http_requests_total", "hpod_http_request_duration_seconds",
    "hpod_suggest_duration_seconds", "hpod_model_fit_seconds",
    "hpod_db_pool_connections", "hpod_db_pool_in_use", "hpod_db_pool_waiting",
    "hpod_db_pool_waits_total", "hpod_db_pool_wait_seconds_total",
    "hpod_simulation_queue_depth", "hpod_suggestions_total", "hpod_leases_expired_total",
    "hpod_http_connections_cut_total", "hpod_model_cache_bytes", "hpod_model_work_running",
    "process_cpu_seconds_total", "process_resident_memory_bytes",
    "process_virtual_memory_bytes", "process_open_fds", "process_max_fds",
    "process_start_time_seconds",
]
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def scrape(port, token=None):
    r = call(port, "GET", "/metrics", token=token)
    check(r.status == 200, "metrics %r" % r)
    return r.raw.decode("utf-8")


def samples(text):
    """{(name, ((label, value), ...)): value} of every sample line."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        check(m, "not a sample line: %r" % line)
        labels = tuple(sorted(LABEL.findall(m.group(2) or "")))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def value(s, name, **labels):
    return s.get((name, tuple(sorted(labels.items()))), 0.0)


def new_server(c, env):
    s = Server(c.args.hpod, c.logdir, c.dburl)
    s.extra_env = env
    c.servers.append(s)
    return s.start()


@test("metrics: suggest time per algorithm; model time only for a model's choices")
def t_algorithm_times(c):
    s = new_server(c, {})
    try:
        before = samples(scrape(s.port))
        rid = expect(call(s.port, "POST", "/v1/studies", {
            "name": uname("m random"), "space": SPACE4, "objectives": BLEU_MAX,
            "algorithm": {"name": "random", "seed": 3}}), 201)["id"]
        gid = expect(call(s.port, "POST", "/v1/studies", {
            "name": uname("m gp"), "space": SPACE4, "objectives": BLEU_MAX,
            "algorithm": {"name": "gp", "init": 2, "seed": 3}}), 201)["id"]
        for i in range(3):
            t = suggest(c, rid, "w", port=s.port)["trials"][0]
            report(c, t["id"], {"bleu": 10.0 + i}, port=s.port)
        for i in range(5):
            t = suggest(c, gid, "w", port=s.port)["trials"][0]
            report(c, t["id"], {"bleu": 10.0 + (i * 7) % 5}, port=s.port)
        after = samples(scrape(s.port))
    finally:
        s.stop()

    def delta(name, algo):
        return (value(after, name + "_count", algorithm=algo)
                - value(before, name + "_count", algorithm=algo))
    check(delta("hpod_suggest_duration_seconds", "random") == 3, "random suggests")
    check(delta("hpod_suggest_duration_seconds", "gp") == 5, "gp suggests")
    check(delta("hpod_model_fit_seconds", "random") == 0, "a random choice timed as a model")
    # init 2: the first two are the initial design, the next three the GP's.
    check(delta("hpod_model_fit_seconds", "gp") == 3,
          "gp model choices %r" % delta("hpod_model_fit_seconds", "gp"))
    for algo in ("random", "gp"):
        name = "hpod_suggest_duration_seconds"
        inf = value(after, name + "_bucket", algorithm=algo, le="+Inf")
        check(inf == value(after, name + "_count", algorithm=algo) and
              value(after, name + "_sum", algorithm=algo) > 0, "%s histogram" % algo)
    # The HTTP histogram agrees with the request counter, route by route.
    for (name, labels), v in after.items():
        if name == "hpod_http_request_duration_seconds_count":
            route = dict(labels)["route"]
            total = sum(x for (n, ls), x in after.items()
                        if n == "hpod_http_requests_total" and dict(ls)["route"] == route)
            check(v == total, "route %s: %r timed, %r counted" % (route, v, total))


@test("metrics: the pool's connections, lent and waiting, and the waits of 16 callers on 2 connections")
def t_pool(c):
    s = new_server(c, {"HPOD_DB_POOL": "1", "HPOD_SIM_WORKERS": "0"})
    try:
        sid = expect(call(s.port, "POST", "/v1/studies", {
            "name": uname("m pool"), "space": SPACE4, "objectives": BLEU_MAX}), 201)["id"]
        m = samples(scrape(s.port))
        # HPOD_DB_POOL, and one for the reaper (serve.c).
        check(value(m, "hpod_db_pool_connections") == 2, "connections %r"
              % value(m, "hpod_db_pool_connections"))
        errors = []

        def reader():
            try:
                for _ in range(4):
                    expect(call(s.port, "GET", "/v1/studies/%d/trials" % sid), 200)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)
        for _ in range(5):  # rounds until some caller had to wait
            threads = [threading.Thread(target=reader) for _ in range(16)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            check(not errors, "readers failed: %r" % errors[:2])
            m = samples(scrape(s.port))
            if value(m, "hpod_db_pool_waits_total") > 0:
                break
        check(value(m, "hpod_db_pool_waits_total") > 0 and
              value(m, "hpod_db_pool_wait_seconds_total") > 0,
              "no wait counted: %r" % {k: v for k, v in m.items() if "pool" in k[0]})
        check(value(m, "hpod_db_pool_in_use") == 0 and value(m, "hpod_db_pool_waiting") == 0,
              "idle pool lent %r, waiting %r" % (value(m, "hpod_db_pool_in_use"),
                                                value(m, "hpod_db_pool_waiting")))
    finally:
        s.stop()


@test("metrics: process_* against /proc and the clock")
def t_process(c):
    t0 = time.time()
    s = new_server(c, {})
    t1 = time.time()
    try:
        m = samples(scrape(s.port))
        pid = s.proc.pid
        check(t0 - 1 <= value(m, "process_start_time_seconds") <= t1 + 1,
              "start %r, started between %r and %r" % (value(m, "process_start_time_seconds"),
                                                       t0, t1))
        with open("/proc/%d/status" % pid) as f:
            rss = [int(x.split()[1]) * 1024 for x in f if x.startswith("VmRSS:")][0]
        check(abs(value(m, "process_resident_memory_bytes") - rss) <= 0.25 * rss,
              "rss %r, /proc says %r" % (value(m, "process_resident_memory_bytes"), rss))
        fds = len(os.listdir("/proc/%d/fd" % pid))
        check(abs(value(m, "process_open_fds") - fds) <= 4,
              "open fds %r, /proc lists %d" % (value(m, "process_open_fds"), fds))
        check(value(m, "process_max_fds") >= value(m, "process_open_fds") > 0, "max fds")
        with open("/proc/%d/stat" % pid) as f:
            f14 = f.read().rsplit(")", 1)[1].split()
        cpu = (int(f14[11]) + int(f14[12])) / os.sysconf("SC_CLK_TCK")
        check(0 < value(m, "process_cpu_seconds_total") <= cpu + 0.05,
              "cpu %r, /proc says %r after" % (value(m, "process_cpu_seconds_total"), cpu))
    finally:
        s.stop()


@test("metrics: simulation queue depth per lab and state; HPOD_METRICS_AUTH")
def t_queue_and_auth(c):
    url = new_database(c, "hpod_metrics")
    _, out, _ = hpod(c, url, "token", "create", "--role", "admin", "--note", "metrics root")
    root = out.strip().splitlines()[-1]
    s = Server(c.args.hpod, c.logdir, url)
    s.extra_env = {"HPOD_SIM_WORKERS": "0"}  # jobs stay queued
    c.servers.append(s)
    s.start()
    open_s = None
    try:
        tok = {lab: expect(call(s.port, "POST", "/v1/tokens", {"role": "write", "lab": lab},
                                token=root), 201)["token"] for lab in ("mt", "nlp")}
        for lab in ("mt", "nlp"):  # a lab sees its own tables
            expect(call(s.port, "POST", "/v1/benchmarks", synthetic_table(lab + "/q"),
                        token=tok[lab]), 201)
        body = {"algorithm": {"name": "random"}, "objectives": BLEU_MAX, "repeats": 2}

        def enqueue(token, table):
            return expect(call(s.port, "POST", bench_path(table, "/simulate"), body,
                               token=token, headers={"Prefer": "respond-async"}), 202)["id"]
        mt = [enqueue(tok["mt"], "mt/q") for _ in range(3)]
        enqueue(tok["nlp"], "nlp/q")
        enqueue(root, "mt/q")  # an admin of every lab: a job without a lab
        expect(call(s.port, "DELETE", "/v1/simulations/%d" % mt[0], token=tok["mt"]), 200)
        expect_error(call(s.port, "GET", "/metrics"), 401, "unauthenticated")
        m = samples(scrape(s.port, token=tok["nlp"]))
        got = {(dict(k[1])["lab"], dict(k[1])["state"]): v for k, v in m.items()
               if k[0] == "hpod_simulation_queue_depth"}
        check(got == {("mt", "queued"): 2, ("mt", "running"): 0, ("nlp", "queued"): 1,
                      ("nlp", "running"): 0, ("", "queued"): 1, ("", "running"): 0},
              "queue depth %r" % got)
        # HPOD_METRICS_AUTH=off: /metrics without a token, nothing else.
        open_s = Server(c.args.hpod, c.logdir, url)
        open_s.extra_env = {"HPOD_SIM_WORKERS": "0", "HPOD_METRICS_AUTH": "off"}
        c.servers.append(open_s)
        open_s.start()
        check("hpod_simulation_queue_depth{" in scrape(open_s.port), "open scrape")
        expect_error(call(open_s.port, "GET", "/v1/studies"), 401, "unauthenticated")
    finally:
        s.stop()
        if open_s:
            open_s.stop()
    # A value the setting does not know stops the server at start.
    r = subprocess.run([c.args.hpod, "serve"], env=dict(os.environ, HPOD_DATABASE_URL=url,
                       HPOD_PORT="0", HPOD_METRICS_AUTH="maybe"),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    check(r.returncode != 0 and b"HPOD_METRICS_AUTH" in r.stdout,
          "HPOD_METRICS_AUTH=maybe: exit %d %r" % (r.returncode, r.stdout[-300:]))


@test("metrics: promtool check metrics on the main server after the suite; every family present")
def t_promtool(c):
    if not shutil.which("promtool"):
        raise Skip("promtool is not installed (scripts/deps.sh test installs prometheus)")
    # A model study of its own, so that the model family has samples when
    # this test runs alone.
    gid = expect(call(c.port, "POST", "/v1/studies", {
        "name": uname("m promtool"), "space": SPACE4, "objectives": BLEU_MAX,
        "algorithm": {"name": "gp", "init": 1, "seed": 5}}), 201)["id"]
    for i in range(2):
        t = suggest(c, gid, "w")["trials"][0]
        report(c, t["id"], {"bleu": 12.0 + i})
    text = scrape(c.port)
    path = os.path.join(c.logdir, "metrics-after-suite.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    r = subprocess.run(["promtool", "check", "metrics"], input=text.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    check(r.returncode == 0 and not r.stdout.strip(),
          "promtool exit %d:\n%s" % (r.returncode, r.stdout.decode()[:2000]))
    missing = [f for f in FAMILIES if "# TYPE %s " % f not in text]
    check(not missing, "families missing: %r (scrape in %s)" % (missing, path))
    m = samples(text)
    for name in ("hpod_http_request_duration_seconds_count", "hpod_suggest_duration_seconds_count",
                 "hpod_model_fit_seconds_count", "process_cpu_seconds_total",
                 "hpod_db_pool_connections"):
        check(any(k[0] == name for k in m), "no %s sample (scrape in %s)" % (name, path))
    routes = {dict(k[1]).get("route") for k in m if k[0] == "hpod_http_requests_total"}
    check(any("{id}" in r for r in routes if r) and
          not any(r and re.search(r"/\d", r) for r in routes),
          "route labels are not the spec's templates: %r" % sorted(routes)[:20])
