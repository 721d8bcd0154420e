"""tests/api/test_pgbouncer.py - hpod through PgBouncer in transaction mode.

A real PgBouncer (Debian's pgbouncer, scripts/pgbouncer.sh) in
transaction mode in front of the suite's cluster, with fewer server
connections (12) than the hpod processes hold client connections, so that
consecutive transactions of one hpod connection run on different server
connections. The core of the suite (studies, suggest, report, ASHA,
tokens, the 64-worker run, kill -9) runs again with every
server pointed at the bouncer: the same test functions, given a context
whose main server, `c.server()` and `c.dburl` go through it
(`pgbouncer: <name>`). Then what pooling could break on its own:
migrations from two processes at once through it, a server time zone other
than UTC, exact numbers without any session setting, and a server setting
hpod cannot work with. PgBouncer lives in the cluster's directory and is
stopped at exit (pg_tmp.sh removes the directory).
"""

import atexit
import datetime
import os
import re
import shutil
import subprocess
import time

import harness
from harness import (Ctx, Server, Skip, call, check, expect, fixture, free_port,
                     fresh_database, pg_socket_dir, psql, test, tests_from)
from client import BLEU_MAX, create, report, suggest

SCRIPT = os.path.join(harness.TOP, "scripts", "pgbouncer.sh")
POOL = 12  # server connections; three servers hold up to 30 client ones

# The suite's core, run again through the bouncer (test names, matched
# at the start).
CORE = re.compile(
    r"^(trainer loop|list studies|fail:|idempotency|lease expiry|a final report"
    r"|report: 12 concurrent|finite study|budget 3|asha: 4 concurrent"
    r"|study ops: 8 concurrent|study ops: PATCH state"
    r"|auth: no, malformed|auth: a revocation|auth: hpod token create"
    r"|three servers, 64 workers|kill -9)")


class Bouncer:
    """PgBouncer in transaction mode on a free port, stopped at exit."""

    def __init__(self, c):
        if not (shutil.which("pgbouncer") or os.path.exists("/usr/sbin/pgbouncer")):
            raise Skip("pgbouncer is not installed (sh scripts/deps.sh test installs it)")
        self.dir = os.path.join(pg_socket_dir(c.dburl), "pgbouncer")
        r = subprocess.run(["sh", SCRIPT, "start", self.dir, pg_socket_dir(c.dburl),
                            str(free_port()), str(POOL)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        check(r.returncode == 0, "pgbouncer did not start: %s" % r.stdout.decode())
        atexit.register(self.stop)
        self.url = subprocess.run(["sh", SCRIPT, "url", self.dir], check=True,
                                  stdout=subprocess.PIPE).stdout.decode().strip()

    def admin(self, command):
        """Rows of a PgBouncer console command (SHOW ...) as dicts."""
        url = re.sub(r"/hpod$", "/pgbouncer", self.url)
        out = subprocess.run(["psql", url, "-X", "-A", "-F", "\t", "-c", command],
                             stdout=subprocess.PIPE, check=True, timeout=30)
        lines = out.stdout.decode().splitlines()
        head = lines[0].split("\t")
        return [dict(zip(head, ln.split("\t"))) for ln in lines[1:] if "\t" in ln]

    def stop(self):
        subprocess.run(["sh", SCRIPT, "stop", self.dir], timeout=30)


class _Servers(list):
    """The servers of the bouncer's context: what its tests iterate (they
    sum /metrics over c.servers, say) are its own; each is also handed to
    the suite's list, which stops them all at the end."""

    def __init__(self, suite):
        super().__init__()
        self.suite = suite

    def append(self, s):
        super().append(s)
        self.suite.append(s)


class BouncerCtx(Ctx):
    """The context the suite's tests get: a database of its own
    (hpod_bouncer: the tests create studies by fixed names, which the same
    tests already created in the suite's database), every URL through the
    bouncer, `hpod migrate` and the servers' start-up migration on the
    direct URL (HPOD_MIGRATE_DATABASE_URL). Its servers also join the
    suite's list, so the suite's last check sees each exit 0 on SIGTERM."""

    def __init__(self, c, bouncer):
        url = fresh_database(bouncer.url, "hpod_bouncer")
        super().__init__(c.args, url)
        self.servers = _Servers(c.servers)
        self.direct = re.sub(r"^(postgresql://[^/]*/)[^?]*", r"\g<1>hpod_bouncer", c.dburl)
        r = subprocess.run([c.args.hpod, "migrate"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                           env=dict(os.environ, HPOD_DATABASE_URL=url,
                                    HPOD_MIGRATE_DATABASE_URL=self.direct))
        check(r.returncode == 0, "hpod migrate: %s" % r.stdout.decode()[-1000:])
        self.a = self.server()

    def server(self):
        s = Server(self.args.hpod, self.logdir, self.dburl)
        s.extra_env = {"HPOD_MIGRATE_DATABASE_URL": self.direct}
        self.servers.append(s)
        return s.start()


@fixture
def bouncer(c):
    return Bouncer(c)


@fixture
def bouncer_ctx(c):
    return BouncerCtx(c, c.fixture("bouncer"))


@tests_from
def _core_through_bouncer():
    out = []
    for name, fn in list(harness.TESTS):
        if name is not None and CORE.search(name):
            out.append(("pgbouncer: " + name,
                        lambda c, fn=fn: fn(c.fixture("bouncer_ctx"))))
    return out


@test("pgbouncer: transaction mode multiplexes three servers' connections over 12 server ones")
def t_multiplexed(c):
    b = c.fixture("bouncer")
    bc = c.fixture("bouncer_ctx")
    ports = [bc.port, bc.server().port, bc.server().port]
    sid = create(bc, {"name": "bouncer mux %d" % time.time_ns(), "space":
                      [{"name": "x", "type": "float", "low": 0, "high": 1}],
                      "objectives": BLEU_MAX, "algorithm": {"name": "random"}})["id"]
    import threading
    errors = []

    def worker(i):
        try:
            for _ in range(8):
                t = suggest(bc, sid, "mux-%d" % i, port=ports[i % 3])["trials"][0]
                report(bc, t["id"], {"bleu": t["params"]["x"]}, port=ports[(i + 1) % 3])
        except Exception as e:  # noqa: BLE001
            errors.append(str(e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(24)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    check(not errors, "workers: %s" % errors[:3])
    clients = [r for r in b.admin("SHOW CLIENTS") if r.get("database") == "hpod_bouncer"]
    servers = [r for r in b.admin("SHOW SERVERS") if r.get("database") == "hpod_bouncer"]
    check(len(clients) > POOL, "only %d client connections to the bouncer" % len(clients))
    check(0 < len(servers) <= POOL, "%d server connections (pool %d)" % (len(servers), POOL))
    n = expect(call(bc.port, "GET", "/v1/studies/%d" % sid), 200)["trial_counts"]["completed"]
    check(n == 24 * 8, "%d completed trials, expected %d" % (n, 24 * 8))
    print("# pgbouncer: %d client connections over %d server connections"
          % (len(clients), len(servers)), flush=True)


def _hpod(c, url, *args):
    return subprocess.Popen([c.args.hpod] + list(args), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=dict(os.environ, HPOD_DATABASE_URL=url,
                                     HPOD_DB_WAIT_SECONDS="0"))


@test("pgbouncer: two hpod migrate at once through it apply each file once; another "
      "time zone changes no timestamp; numbers exact with no session setting")
def t_migrate_tz(c):
    b = c.fixture("bouncer")
    url = fresh_database(b.url, "hpod_bouncer_tz")
    psql(c.dburl, "ALTER DATABASE hpod_bouncer_tz SET timezone = 'Pacific/Chatham'")
    procs = [_hpod(c, url, "migrate") for _ in range(2)]
    outs = [p.communicate(timeout=120)[0].decode() for p in procs]
    check(all(p.returncode == 0 for p in procs), "hpod migrate: %r" % outs)
    files = [f for f in os.listdir(os.path.join(harness.TOP, "migrations"))
             if f.endswith(".sql")]
    applied = sum(o.count("applied migration ") for o in outs)
    check(applied == len(files), "%d files applied by the two, %d files" % (applied, len(files)))
    check(psql(url, "SELECT count(*) FROM schema_migrations").strip() == str(len(files)),
          "schema_migrations does not hold each file once")
    check(psql(url, "SHOW timezone").strip() == "Pacific/Chatham", "time zone not set")
    s = Server(c.args.hpod, c.logdir, url)
    c.servers.append(s)
    s.start()
    before = datetime.datetime.now(datetime.timezone.utc)
    st = create(c, {"name": "tz", "space": [{"name": "x", "type": "float", "low": 0,
                                             "high": 1}], "objectives": BLEU_MAX},
                port=s.port)
    t = suggest(c, st["id"], "tz", port=s.port)["trials"][0]
    v = 0.1 + 0.2  # 0.30000000000000004: its shortest text has 17 digits
    back = report(c, t["id"], {"bleu": v}, port=s.port)
    check(back["trial"]["values"]["bleu"] == v, "value %r read back as %r"
          % (v, back["trial"]["values"]["bleu"]))
    got = expect(call(s.port, "GET", "/v1/trials/%d" % t["id"]), 200)
    check(got["values"]["bleu"] == v, "GET read %r" % got["values"]["bleu"])
    for ts in (st["created_at"], got["created_at"], got["updated_at"]):
        when = harness.parse_ts(ts)
        check(ts.endswith("Z") and abs((when - before).total_seconds()) < 120,
              "timestamp %s is not UTC now (%s)" % (ts, before.isoformat()))
    s.stop()


@test("pgbouncer: a database whose extra_float_digits would round numbers: serve refuses, saying why")
def t_float_digits(c):
    url = fresh_database(c.dburl, "hpod_bouncer_efd")
    p = _hpod(c, url, "migrate")
    check(p.wait(timeout=120) == 0, "migrate: %s" % p.stdout.read().decode())
    psql(c.dburl, "ALTER DATABASE hpod_bouncer_efd SET extra_float_digits = 0")
    env = dict(os.environ, HPOD_DATABASE_URL=url, HPOD_PORT=str(free_port()),
               HPOD_DB_WAIT_SECONDS="0")
    r = subprocess.run([c.args.hpod, "serve"], env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    out = r.stdout.decode()
    check(r.returncode == 1 and "extra_float_digits is 0" in out,
          "serve exited %d: %s" % (r.returncode, out[-600:]))
