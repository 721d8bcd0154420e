"""tests/api/test_operations.py - operating hpod: /healthz, /metrics,
/openapi.json; the database down or hung (bounded 503s, recovery); the
JSON log and access log; start-up; no password in any log.
"""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.parse

from harness import (Fail, READY_TIMEOUT, pg_socket_dir, REQ_TIMEOUT, SPEC_FILE, Server, TOP, call, cfg, check,
                     expect, expect_error, is_num, short, test)
from client import BLEU_MAX, SPACE4, create, get_trial, report, suggest, uname


@test("healthz, metrics, openapi.json")
def t_ops(c):
    h = expect(call(c.port, "GET", "/healthz"), 200)
    check(h.get("status") == "ok" and h.get("database") == "ok", "healthz %r" % h)
    m = call(c.port, "GET", "/metrics")
    check(m.status == 200, "metrics %r" % m)
    ct = m.headers.get("content-type", "")
    check(ct.startswith("text/plain"), "metrics Content-Type %r" % ct)
    text = m.raw.decode("utf-8")
    for name in ("hpod_http_requests_total", "hpod_suggestions_total",
                 "hpod_http_request_duration_seconds", "hpod_leases_expired_total"):
        check(name in text, "metrics lack %s" % name)
    check(re.search(r'^hpod_http_requests_total\{[^}]*route=', text, re.M),
          "hpod_http_requests_total has no route label")
    o = expect(call(c.port, "GET", "/openapi.json"), 200)
    with open(SPEC_FILE) as f:
        check(o == json.load(f), "/openapi.json differs from openapi/openapi.json")


@test("database down: 503 unavailable, then the server recovers")
def t_db_down(c):
    pgdir = pg_socket_dir(c.dburl)
    pg = os.path.join(TOP, "scripts", "pg.sh")
    body = {"name": "db down", "space": SPACE4[:1], "objectives": BLEU_MAX}
    # Suggest and report before the outage, so the pooled connections hold
    # prepared statements (store/db.c) that the restart takes away.
    sid = create(c, dict(body, name=uname("db down before")))["id"]
    for w in ("w1", "w2"):
        t = suggest(c, sid, w)["trials"][0]
        report(c, t["id"], {"bleu": 0.25})
    subprocess.run(["sh", pg, "stop", pgdir], check=True, timeout=60,
                   stdout=subprocess.DEVNULL)
    try:
        h = call(c.port, "GET", "/healthz")
        check(h.status == 503 and h.json == {"status": "unavailable", "database": "unreachable"},
              "healthz with the database down: %r" % h)
        expect_error(call(c.port, "POST", "/v1/studies", body), 503, "unavailable")
        expect_error(call(c.port, "GET", "/v1/studies"), 503, "unavailable")
    finally:
        subprocess.run(["sh", pg, "start", pgdir], check=True, timeout=120,
                       stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while call(c.port, "GET", "/healthz").status != 200:
        check(time.monotonic() < deadline, "healthz not 200 20 s after the database came back")
        time.sleep(0.2)
    create(c, body)
    # The same statements on the new connections: prepared again, not
    # looked up in a cache the old session took with it.
    for w in ("w3", "w4"):
        t = suggest(c, sid, w)["trials"][0]
        r = report(c, t["id"], {"bleu": 0.5})
        check(r["trial"]["state"] == "completed" and r["trial"]["values"] == {"bleu": 0.5},
              "report after the database came back: %r" % r)
    stale = [x["msg"] for x in log_lines(c.a.logpath) if "stale on the server" in x["msg"]]
    check(not stale, "a reconnected session used the old session's prepared statements: %r" % stale[:2])


SECRET = "s3cretpw"  # trust auth ignores it; it must never reach a log
RFC3339_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def log_lines(path):
    """Every line of a server log, parsed. Each must be one JSON object
    with ts (RFC 3339, UTC), level and msg: nothing else reaches stderr."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        try:
            o = json.loads(raw)
        except ValueError:
            raise Fail("%s line %d is not a JSON object: %r" % (path, n, short(raw, 200)))
        check(isinstance(o, dict) and list(o)[:3] == ["ts", "level", "msg"],
              "%s line %d does not start with ts, level, msg: %r" % (path, n, short(raw, 200)))
        check(RFC3339_UTC.match(str(o["ts"])), "%s line %d: ts %r" % (path, n, o["ts"]))
        check(o["level"] in ("debug", "info", "warn", "error"),
              "%s line %d: level %r" % (path, n, o["level"]))
        out.append(o)
    return out


def url_with_password(c):
    """The test cluster's URL with user and password in its authority
    (postgresql://postgres:SECRET@/hpod?host=DIR)."""
    return "postgresql://postgres:%s@/hpod?host=%s" % (
        SECRET, urllib.parse.quote(pg_socket_dir(c.dburl), safe="/"))


def postgres_pids(pgdir):
    """The postmaster of the cluster in pgdir and its children (backends,
    checkpointer, ...), postmaster first."""
    with open(os.path.join(pgdir, "data", "postmaster.pid")) as f:
        pm = int(f.readline())
    kids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2:].split()[1]) == pm:
            kids.append(int(d))
    return [pm] + kids


def timed_call(port, method, path, body=None, bound=None):
    """call() that measures; with bound, a request still open after
    bound + 10 s fails as hung (socket timeout) instead of blocking."""
    t0 = time.monotonic()
    try:
        r = call(port, method, path, body, timeout=(bound + 10) if bound else REQ_TIMEOUT)
    except (socket.timeout, TimeoutError):
        raise Fail("%s %s: no answer within %.0f s (hung)" % (method, path, bound + 10))
    return r, time.monotonic() - t0


def ops_server(c, **env):
    s = Server(c.args.hpod, c.logdir, c.dburl)
    s.extra_env = {k: str(v) for k, v in env.items()}
    c.servers.append(s)  # t_shutdown checks it exits 0 on SIGTERM
    return s.start()


@test("database hung (SIGSTOP): bounded 503s, one down and one up line, no password logged")
def t_db_hung(c):
    connect_ms, statement_ms = 1000, 1000
    s = ops_server(c, HPOD_DATABASE_URL=url_with_password(c),
                   HPOD_DB_CONNECT_TIMEOUT_MS=connect_ms,
                   HPOD_DB_STATEMENT_TIMEOUT_MS=statement_ms)
    # A request may open a connection (connect timeout), set it up and run
    # one statement (each: statement timeout + 1 s of grace), then 503.
    bound = (connect_ms + 2 * (statement_ms + 1000)) / 1000.0 + 3.0  # + slack
    body = {"name": "db hung", "space": SPACE4[:1], "objectives": BLEU_MAX}
    sid = create(c, body, port=s.port)["id"]
    tid = suggest(c, sid, "hung", port=s.port)["trials"][0]["id"]
    report(c, tid, {"bleu": 21.5}, port=s.port)
    before = get_trial(c, tid, port=s.port)
    check(before["state"] == "completed", "trial before the hang: %r" % before)

    pids = postgres_pids(pg_socket_dir(c.dburl))
    os.kill(pids[0], signal.SIGSTOP)  # first: no new backend forks after
    pids = [pids[0]] + postgres_pids(pg_socket_dir(c.dburl))[1:]
    stopped = [pids[0]]
    took = []
    try:
        for p in pids[1:]:
            try:
                os.kill(p, signal.SIGSTOP)
                stopped.append(p)
            except ProcessLookupError:
                pass
        for method, path, b in (("GET", "/healthz", None),
                                ("GET", "/v1/studies/%d" % sid, None),
                                ("POST", "/v1/studies", body),
                                ("GET", "/v1/trials/%d" % tid, None),
                                ("POST", "/v1/trials/%d/report" % tid, {"values": {"bleu": 1.0}})):
            r, dt = timed_call(s.port, method, path, b, bound)
            took.append("%s %s %.2f s" % (method, path, dt))
            if path == "/healthz":
                check(r.status == 503 and r.json == {"status": "unavailable",
                                                     "database": "unreachable"},
                      "healthz with the database hung: %r" % r)
            else:
                expect_error(r, 503, "unavailable")
            check(dt <= bound, "%s %s took %.1f s with the database hung, bound %.1f s"
                  % (method, path, dt, bound))
    finally:
        for p in stopped:
            try:
                os.kill(p, signal.SIGCONT)
            except ProcessLookupError:
                pass
    print("# database hung: time to 503: %s (bound %.1f s)" % ("; ".join(took), bound),
          flush=True)
    deadline = time.monotonic() + 30
    while call(s.port, "GET", "/healthz").status != 200:
        check(time.monotonic() < deadline, "healthz not 200 30 s after SIGCONT")
        time.sleep(0.2)
    after = get_trial(c, tid, port=s.port)
    check(after == before, "trial changed across the hang:\n  before %r\n  after  %r"
          % (before, after))
    create(c, dict(body, name=uname("db hung")), port=s.port)  # (lab, name) is unique
    # Every server sharing the cluster must be back too (they had default
    # timeouts, and their connections were stopped as well).
    for other in c.servers:
        if other.proc is not None and other is not s:
            deadline = time.monotonic() + 60
            while call(other.port, "GET", "/healthz").status != 200:
                check(time.monotonic() < deadline, "%s not back after SIGCONT" % other.name)
                time.sleep(0.2)

    with open(s.logpath, "rb") as f:
        check(SECRET.encode() not in f.read(), "the password is in %s" % s.logpath)
    lines = log_lines(s.logpath)
    down = [x for x in lines if x["msg"].startswith("database unreachable")]
    up = [x for x in lines if x["msg"].startswith("database reachable again")]
    check(len(down) == 1 and down[0]["level"] == "warn",
          "expected one warning when the database went away, got %d:\n%s"
          % (len(down), "\n".join(json.dumps(x) for x in down)))
    check(len(up) == 1 and up[0]["level"] == "info" and lines.index(up[0]) > lines.index(down[0]),
          "expected one line when the database came back, got %d" % len(up))
    failed = [x for x in lines if x["level"] in ("warn", "error") and x is not down[0]]
    check(not failed, "other warnings during the hang:\n%s"
          % "\n".join(json.dumps(x) for x in failed[:5]))
    # The 5 requests made during the hang; a /healthz polled while the
    # pool reconnects after SIGCONT may also answer 503, which is right.
    n503 = [x for x in lines if x["msg"] == "request" and x.get("status") == 503]
    health = [x for x in n503 if x.get("path") == "/healthz"]
    check(len(n503) - len(health) == 4 and len(health) >= 1,
          "access lines with 503: %d (/healthz %d), expected 4 and at least 1"
          % (len(n503) - len(health), len(health)))


@test("access log: one JSON line per request with ts, level, remote, request id")
def t_access_log(c):
    s = c.a
    rid = "ops-access-%d" % os.getpid()
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=REQ_TIMEOUT)
    try:
        conn.request("GET", "/v1/studies?limit=1", headers={"X-Request-Id": rid})
        r = conn.getresponse()
        r.read()
    finally:
        conn.close()
    check(r.status == 200, "GET /v1/studies answered %d" % r.status)
    deadline = time.monotonic() + 10
    while True:
        mine = [x for x in log_lines(s.logpath) if x.get("request_id") == rid]
        if mine or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    check(len(mine) == 1, "%d log lines for request %s, expected 1" % (len(mine), rid))
    x = mine[0]
    want = {"level": "info", "msg": "request", "remote": "127.0.0.1", "method": "GET",
            "path": "/v1/studies", "status": 200}
    check({k: x.get(k) for k in want} == want, "access line %r" % x)
    check(is_num(x.get("duration_ms")) and x["duration_ms"] >= 0, "duration_ms %r" % x)


@test("start-up: migrations once, 'serving on' with the real port only once it listens")
def t_startup(c):
    log = os.path.join(c.logdir, "startup.log")
    env = dict(os.environ, HPOD_PORT="0", HPOD_DATABASE_URL=url_with_password(c),
               HPOD_BENCHMARKS=cfg.bench_dir, HPOD_LOG_LEVEL="debug")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    with open(log, "wb") as f:
        p = subprocess.Popen([c.args.hpod, "serve"], env=env, stdin=subprocess.DEVNULL,
                             stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        port = None
        while port is None:
            check(p.poll() is None, "hpod serve exited %r:\n%s" % (p.returncode, open(log).read()))
            check(time.monotonic() < deadline, "no 'serving on' line after %.0f s" % READY_TIMEOUT)
            with open(log, "rb") as f:
                m = re.search(rb"hpod serving on http://127\.0\.0\.1:(\d+)", f.read())
            if m:
                port = int(m.group(1))
            else:
                time.sleep(0.02)
        # The line is written after the socket listens: no retry needed.
        check(port != 0, "serving on port 0")
        h = call(port, "GET", "/healthz", timeout=30)
        check(h.status == 200, "healthz right after 'serving on': %r" % h)
        lines = log_lines(log)
        msgs = [x["msg"] for x in lines]
        mig = [i for i, m in enumerate(msgs) if m.startswith("migrations up to date")]
        serving = [i for i, m in enumerate(msgs) if m.startswith("hpod serving on")]
        check(len(mig) == 1, "migrations ran %d times in one start:\n%s"
              % (len(mig), "\n".join(msgs)))
        check(not any(m.startswith("applied migration") for m in msgs),
              "a migration was applied twice")
        check(len(serving) == 1 and mig[0] < serving[0], "order of start-up lines:\n%s"
              % "\n".join(msgs))
        # The migration's NOTICE (relation exists, skipping) went through
        # the logger, not raw to stderr (log_lines checked every line).
        check(any(m.startswith("postgresql notice:") for m in msgs),
              "no libpq notice in the debug log:\n%s" % "\n".join(msgs))
        with open(log, "rb") as f:
            check(SECRET.encode() not in f.read(), "the password is in %s" % log)
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    check(p.returncode == 0, "hpod serve exited %r on SIGTERM" % p.returncode)


@test("no password in the log when the database cannot be reached")
def t_no_password_logged(c):
    missing = os.path.join(c.logdir, "no-such-socket-dir")
    for url in ("postgresql://hpod:%s@/hpod?host=%s" % (SECRET, missing),
                "postgresql:///hpod?host=%s&user=hpod&password=%s" % (missing, SECRET),
                "host=%s user=hpod password=%s dbname=hpod" % (missing, SECRET),
                "host=%s user=hpod password='%s x' dbname=hpod" % (missing, SECRET)):
        r = subprocess.run([c.args.hpod, "migrate"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=60,
                           # No socket: without this, the start-up wait
                           # (test_docker.py) would retry for a minute.
                           env=dict(os.environ, HPOD_DATABASE_URL=url,
                                    HPOD_DB_WAIT_SECONDS="0"))
        out = r.stdout.decode("utf-8", "replace")
        check(r.returncode == 1, "hpod migrate on %s exited %d:\n%s" % (url, r.returncode, out))
        check(SECRET not in out, "password logged:\n%s" % out)
        check("could not connect to" in out and "***" in out,
              "no redacted connection error:\n%s" % out)
