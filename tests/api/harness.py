"""tests/api/harness.py - what every API test runs on, and the runner.

- checks: Fail, Skip, check(), short(), is_int/is_num, parse_ts (RFC 3339);
- HTTP: call() sends one request on a fresh connection and validates the
  answer against the spec (cfg.spec, tests/api/spec.py) unless told not
  to; expect() and expect_error() check a status and the Error body;
- processes: Server starts `hpod serve` on a free port with the suite's
  HPOD_BENCHMARKS; psql() and db_snapshot() (an md5 per table, to prove a
  request changed nothing);
- the registry: @test("name") registers a test, @fixture a named fixture
  (made once per run, on first use, by c.fixture(name)), @tests_from a
  function that lists (name, fn) pairs when the run starts (tests built
  from data, such as the bad requests);
- Ctx, handed to every test: the main server (c.port), c.server() for
  more, c.fixture(name), the database URL and the counts;
- main(): `hpod migrate`, the main server, the tests in order (--only
  REGEX selects them by name), the suite-wide checks, the summary.

Output: `ok - name`, `not ok - name: reason`, `skip - name: reason` per
test, then `api: N passed, M failed, K skipped` (a skip is not a pass).
Python 3 standard library only.
"""

import argparse
import datetime
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import traceback
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
SPEC_FILE = os.path.join(TOP, "openapi", "openapi.json")
# The lookup tables (docs/ARCHITECTURE.md, "Data formats"); --benchmarks
# overrides.
DEFAULT_BENCH_DIR = os.path.normpath(os.path.join(TOP, "..", "shared", "benchmarks"))
READY_TIMEOUT = 30.0
REQ_TIMEOUT = 120.0  # simulations under ASan on a loaded machine take a while


class Config:
    """What main() learns before the first test (read it at call time as
    cfg.x: a name imported from here would keep its import-time value)."""

    def __init__(self):
        self.bench_dir = DEFAULT_BENCH_DIR  # HPOD_BENCHMARKS of every server
        self.have_tables = False  # bench_dir/nmthpo/zh-en.tsv exists
        self.spec = None  # the Spec every answer is checked against


cfg = Config()


class Fail(Exception):
    """A test's expectation did not hold."""


class Skip(Exception):
    """The test cannot run here (no lookup tables): reported `skip - name: why`."""


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def short(v, n=300):
    s = v if isinstance(v, str) else json.dumps(v, sort_keys=True)
    return s if len(s) <= n else s[:n] + "..."


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def parse_ts(s):
    check(isinstance(s, str) and RFC3339.match(s), "bad timestamp %r" % (s,))
    s = s.replace("Z", "+00:00")
    m = re.match(r"^(.*T\d{2}:\d{2}:\d{2})(\.\d+)?(.*)$", s)
    frac = (m.group(2) or "")[:7]  # fromisoformat takes at most 6 digits
    return datetime.datetime.fromisoformat(m.group(1) + frac + m.group(3))


# ---------------------------------------------------------------------------
# HTTP

class Resp:
    def __init__(self, method, path, status, headers, raw):
        self.method, self.path, self.status = method, path, status
        self.headers, self.raw = headers, raw
        try:
            self.json = json.loads(raw) if raw else None
        except ValueError:
            self.json = None

    def __repr__(self):
        return "%s %s -> %d %s" % (self.method, self.path, self.status,
                                    short(self.raw.decode("utf-8", "replace")))


def call(port, method, path, body=None, raw=None, ctype="application/json",
         timeout=REQ_TIMEOUT, validate=True, headers=None, token=None):
    """One request on a fresh connection. body: a JSON value to send;
    raw: bytes to send as they are; headers: more request headers; token:
    sent as Authorization: Bearer. Validates the answer against the
    spec."""
    sent = None
    if body is not None:
        raw = json.dumps(body).encode("utf-8")
        sent = body
    headers = dict(headers or {})
    if token is not None:
        headers["Authorization"] = "Bearer " + token
    if raw is not None and ctype is not None:
        headers["Content-Type"] = ctype
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        try:
            conn.request(method, path, body=raw, headers=headers)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may answer (413) before reading the whole body
        r = conn.getresponse()
        data = r.read()
        hdrs = {k.lower(): v for k, v in r.getheaders()}
    finally:
        conn.close()
    resp = Resp(method, path, r.status, hdrs, data)
    check(resp.status != 500, "%r: 500 for a client request" % resp)
    if validate and cfg.spec is not None:
        cfg.spec.check_response(method, path, resp.status, hdrs, data, resp.json, sent)
    return resp


def expect(resp, status):
    check(resp.status == status, "expected %d, got %r" % (status, resp))
    return resp.json


def expect_error(resp, statuses, code, field=None, prefix=None):
    if isinstance(statuses, int):
        statuses = (statuses,)
    check(resp.status in statuses, "expected %s, got %r"
          % ("/".join(map(str, statuses)), resp))
    b = resp.json
    check(isinstance(b, dict) and set(b) == {"error"} and isinstance(b["error"], dict),
          "error body is not {\"error\": {...}}: %r" % resp)
    e = b["error"]
    for k in ("code", "message", "field"):
        check(isinstance(e.get(k), str), "error.%s missing or not a string: %r" % (k, resp))
    check(e["code"] == code, "error code %r, expected %r (%r)" % (e["code"], code, resp))
    check(e["message"] != "", "empty error message")
    ct = resp.headers.get("content-type", "")
    check(ct.split(";")[0].strip() == "application/json",
          "error Content-Type %r" % ct)
    if field is not None:
        check(e["field"] == field, "error field %r, expected %r (%s)"
              % (e["field"], field, e["message"]))
    if prefix is not None:
        check(e["field"].startswith(prefix), "error field %r, expected %s... (%s)"
              % (e["field"], prefix, e["message"]))
    return e


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---------------------------------------------------------------------------
# Servers and the database

class Server:
    count = 0

    def __init__(self, hpod, logdir, dburl):
        Server.count += 1
        self.hpod, self.dburl = hpod, dburl
        self.name = "serve-%d" % Server.count
        self.logpath = os.path.join(logdir, self.name + ".log")
        self.proc = None
        self.port = None

    def start(self):
        self.port = free_port()
        env = dict(os.environ)
        env["HPOD_PORT"] = str(self.port)
        env["HPOD_DATABASE_URL"] = self.dburl
        # Always set: without the tables the servers must not find others
        # through their own default (../shared/benchmarks from the cwd).
        env["HPOD_BENCHMARKS"] = cfg.bench_dir
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        # Every client of the suite is 127.0.0.1, one caller to the rate
        # limit of an open server: off unless a test sets it (test_limits).
        env.setdefault("HPOD_RATE_PER_TOKEN", "0")
        env.update(getattr(self, "extra_env", {}))  # a test's own settings
        log = open(self.logpath, "wb")
        self.proc = subprocess.Popen([self.hpod, "serve"], env=env, stdin=subprocess.DEVNULL,
                                     stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        log.close()
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise Fail("%s exited with %d while starting:\n%s"
                           % (self.name, self.proc.returncode, self.tail()))
            try:
                r = call(self.port, "GET", "/healthz", timeout=2, validate=False)
                if r.status == 200:
                    return self
            except (OSError, http.client.HTTPException):
                pass
            if time.monotonic() > deadline:
                raise Fail("%s not ready after %.0f s:\n%s"
                           % (self.name, READY_TIMEOUT, self.tail()))
            time.sleep(0.1)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        """SIGTERM; returns the exit status (None if it had to be killed)."""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                self.proc = None
                return None
        rc = self.proc.returncode
        self.proc = None
        return rc

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc = None

    def tail(self, n=40):
        try:
            with open(self.logpath, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
            return "\n".join("    | " + x for x in lines[-n:])
        except OSError:
            return "    | (no log)"


def psql(dburl, sql):
    r = subprocess.run(["psql", dburl, "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if r.returncode != 0:
        raise Fail("psql failed: %s" % r.stderr.decode("utf-8", "replace").strip())
    return r.stdout.decode("utf-8")


def pg_socket_dir(dburl):
    """The socket directory of the suite's cluster (pg_tmp.sh's URL)."""
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(dburl).query)
    check("host" in q and q["host"][0].startswith("/"),
          "HPOD_DATABASE_URL has no socket directory (not from pg_tmp.sh?)")
    return q["host"][0]


def fresh_database(dburl, name):
    """A new, empty database name in the suite's cluster (dropped first if
    a previous run left it); returns its URL. For tests that must not
    share the main database: once a token exists there, every request to
    it needs one."""
    url = re.sub(r"^(postgresql://[^/]*/)[^?]*", r"\g<1>" + name, dburl)
    check(url != dburl, "cannot derive a second database's URL from %r" % dburl)
    psql(dburl, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)
    psql(dburl, "CREATE DATABASE %s" % name)
    return url


def db_snapshot(dburl):
    """{table: md5 of all its rows as text, ordered} for schema public."""
    tables = psql(dburl, "SELECT table_name FROM information_schema.tables "
                         "WHERE table_schema = 'public' AND table_type = 'BASE TABLE' "
                         "ORDER BY 1").split()
    check(tables, "no tables in schema public")
    q = " UNION ALL ".join(
        "SELECT '%s', md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) "
        "FROM public.\"%s\" t" % (name.replace("'", "''"), name.replace('"', '""'))
        for name in tables)
    out = {}
    for line in psql(dburl, q).splitlines():
        name, digest = line.split("|")
        out[name] = digest
    return out


# ---------------------------------------------------------------------------
# Test registry, fixtures and the runner

TESTS = []  # (name, fn), or (None, lister) for @tests_from, in registration order
FIXTURES = {}  # name -> fn(c), see @fixture


def test(name):
    def deco(fn):
        TESTS.append((name, fn))
        return fn
    return deco


def tests_from(lister):
    """Registers lister(), called when the run starts (cfg is set by then):
    it returns the (name, fn) pairs of tests built from data, which run at
    the place of registration and are selected by --only like any other."""
    TESTS.append((None, lister))
    return lister


def fixture(fn):
    """Registers fn(c) as the fixture named fn.__name__: what several tests
    read but none may change (a study with trials in known states, an
    imported table). c.fixture(name) makes it once per run, on first use,
    and hands every later caller the same value, or the same failure or
    skip. A test that changes what it uses creates its own instead."""
    assert fn.__name__ not in FIXTURES, "two fixtures named %s" % fn.__name__
    FIXTURES[fn.__name__] = fn
    return fn


class Ctx:
    def __init__(self, args, dburl):
        self.args = args
        self.dburl = dburl
        self.logdir = args.logdir
        self.servers = []  # every server started, for the final shutdown
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.fixtures = {}  # name -> (value, exception): made so far
        self.a = None

    def server(self):
        s = Server(self.args.hpod, self.logdir, self.dburl)
        self.servers.append(s)
        return s.start()

    @property
    def port(self):
        return self.a.port

    def fixture(self, name):
        """The value of the named fixture, made now if no test asked for it
        before; raises its Fail or Skip if making it failed or skipped."""
        if name not in self.fixtures:
            fn = FIXTURES.get(name)
            check(fn is not None, "no fixture named %r" % name)
            try:
                self.fixtures[name] = (fn(self), None)
            except Skip as e:
                self.fixtures[name] = (None, Skip(str(e)))
            except Fail as e:
                self.fixtures[name] = (None, Fail("fixture %s: %s" % (name, e)))
            except Exception as e:  # noqa: BLE001 - a crash fails its users
                self.fixtures[name] = (None, Fail("fixture %s: %s: %s\n%s" % (
                    name, type(e).__name__, e, traceback.format_exc(limit=3))))
        value, err = self.fixtures[name]
        if err is not None:
            raise type(err)(str(err))
        return value

    def result(self, name, err, skip=None):
        if err is None and skip is not None:
            self.skipped += 1
            print("skip - %s: %s" % (name, skip), flush=True)
        elif err is None:
            self.passed += 1
            print("ok - %s" % name, flush=True)
        else:
            self.failed += 1
            msg = str(err).replace("\n", "\n    ")
            print("not ok - %s: %s" % (name, msg), flush=True)

    def run(self, name, fn, *a):
        skip = None
        try:
            fn(self, *a)
            err = None
        except Skip as e:
            err, skip = None, str(e)
        except Fail as e:
            err = e
        except Exception as e:  # noqa: BLE001 - any crash is a failed test
            err = "%s: %s\n%s" % (type(e).__name__, e,
                                  "".join(traceback.format_exc(limit=3)))
        if self.a is not None and self.a.proc is not None and not self.a.alive():
            err = "%s\nmain server died (exit %r):\n%s" % (
                err or "", self.a.proc.returncode, self.a.tail())
            self.a.proc = None
            try:
                self.a = self.server()
            except Fail as e:
                err = "%s\nand could not be restarted: %s" % (err, e)
        self.result(name, err, skip if err is None else None)

    def summary(self):
        return "api: %d passed, %d failed, %d skipped" % (self.passed, self.failed,
                                                          self.skipped)


# Suite-wide checks, after the tests

def t_coverage(c):
    missing = [("%s %s" % (m.upper(), p)) for p, m in cfg.spec.operations()
               if (p, m) not in cfg.spec.exercised]
    check(not missing, "spec operations never answered 2xx in this suite: %s" % ", ".join(missing))


def t_shutdown(c):
    bad = []
    for s in c.servers:
        if s.proc is None:
            continue
        rc = s.stop()
        if rc != 0:
            bad.append("%s exited with %r on SIGTERM:\n%s" % (s.name, rc, s.tail(25)))
    check(not bad, "\n".join(bad))


def t_migrate(c):
    log = os.path.join(c.logdir, "migrate.log")
    with open(log, "wb") as f:
        r = subprocess.run([c.args.hpod, "migrate"], stdout=f, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=120,
                           env=dict(os.environ, HPOD_DATABASE_URL=c.dburl))
    with open(log, "rb") as f:
        out = f.read().decode("utf-8", "replace")
    check(r.returncode == 0, "hpod migrate exited %d:\n%s" % (r.returncode, out[-2000:]))
    tables = psql(c.dburl, "SELECT count(*) FROM information_schema.tables "
                           "WHERE table_schema = 'public'").strip()
    check(int(tables) > 0, "hpod migrate created no table")


def selected(only):
    """The registered tests in order, data-built ones expanded, filtered
    by the --only regex (None: all)."""
    out = []
    for name, fn in TESTS:
        pairs = fn() if name is None else [(name, fn)]
        out += [(n, f) for n, f in pairs if only is None or only.search(n)]
    return out


def main(argv=None):
    """Runs the registered tests (test_api.py imports the test modules
    first); returns the exit status."""
    import spec  # spec.py imports this module's checks

    ap = argparse.ArgumentParser(description="hpod API tests")
    ap.add_argument("--hpod", required=True, help="path to the hpod binary")
    ap.add_argument("--logdir", help="server logs (default: next to the binary)")
    ap.add_argument("--only", help="run only tests whose name matches this regex")
    ap.add_argument("--benchmarks", default=DEFAULT_BENCH_DIR,
                    help="lookup tables for the servers (HPOD_BENCHMARKS; default %(default)s); "
                         "tests that need them are skipped when DIR/nmthpo is missing")
    args = ap.parse_args(argv)
    cfg.bench_dir = os.path.abspath(args.benchmarks)
    cfg.have_tables = os.path.isfile(os.path.join(cfg.bench_dir, "nmthpo", "zh-en.tsv"))
    args.hpod = os.path.abspath(args.hpod)
    if not args.logdir:
        args.logdir = os.path.join(os.path.dirname(args.hpod), "api-logs")
    os.makedirs(args.logdir, exist_ok=True)
    dburl = os.environ.get("HPOD_DATABASE_URL")
    if not dburl:
        print("test_api.py: HPOD_DATABASE_URL is not set (run under tests/api/pg_tmp.sh)",
              file=sys.stderr)
        return 2
    with open(SPEC_FILE) as f:
        cfg.spec = spec.Spec(json.load(f))
    c = Ctx(args, dburl)
    t0 = time.monotonic()

    c.run("hpod migrate", t_migrate)
    try:
        c.a = c.server()
        c.result("hpod serve answers /healthz", None)
    except Fail as e:
        c.result("hpod serve answers /healthz", e)
        print(c.summary(), flush=True)
        return 1

    only = re.compile(args.only) if args.only else None
    for name, fn in selected(only):
        c.run(name, fn)
    if not only:
        c.run("every spec operation exercised", t_coverage)
    c.run("servers shut down cleanly on SIGTERM (exit 0)", t_shutdown)
    for s in c.servers:  # whatever is still running after a failure
        if s.proc is not None:
            s.proc.kill()
            s.proc.wait()
    if c.skipped and not cfg.have_tables:
        print("# no lookup tables in %s" % cfg.bench_dir, flush=True)
    print("# api tests took %.1f s; server logs in %s" % (time.monotonic() - t0, args.logdir),
          flush=True)
    print(c.summary(), flush=True)
    return 1 if c.failed else 0
