"""tests/api/test_standby.py - reads on a streaming standby
(HPOD_READ_DATABASE_URL, store/standby.h).

The test makes a real standby of the suite's cluster (pg_basebackup -R, a
second postmaster on a socket directory of its own, under the cluster's
directory, stopped at exit), then:
  - with replay paused and a bound of an hour, lists come from the standby
    (a study created after the pause is not in them) while a trainer's
    create, suggest, report and GETs by id see their own writes;
  - with a bound of 400 ms: replay paused while the primary writes sends
    the reads to the primary (one warning), resumed sends them back (one
    line); the standby stopped sends them to the primary (one warning),
    started again back (one line); the answers are complete throughout.
"""

import atexit
import glob
import json
import os
import subprocess
import time

from harness import (Fail, Server, Skip, call, check, expect, expect_error, pg_socket_dir,
                     psql, test, fixture)
from client import BLEU_MAX, create, report, suggest, uname


def pg_bin(name):
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                    key=lambda p: int(p.split("/")[4]), reverse=True):
        if os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    raise Skip("no %s (postgresql is not installed)" % name)


def as_owner(args):
    """The PostgreSQL binaries refuse root: run them as postgres then."""
    return (["runuser", "-u", "postgres", "--"] + args) if os.getuid() == 0 else args


class Standby:
    def __init__(self, c):
        self.primary = pg_socket_dir(c.dburl)
        self.dir = os.path.join(self.primary, "standby")
        self.data = os.path.join(self.dir, "data")
        os.makedirs(self.dir, exist_ok=True)
        if os.getuid() == 0:
            subprocess.run(["chown", "postgres", self.dir], check=True)
        r = subprocess.run(as_owner([pg_bin("pg_basebackup"), "-D", self.data, "-R",
                                     "-X", "stream", "-c", "fast", "-h", self.primary,
                                     "-U", "postgres"]),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        check(r.returncode == 0, "pg_basebackup: %s" % r.stdout.decode()[-800:])
        atexit.register(self.stop)
        self.start()
        self.url = "postgresql:///hpod?host=%s&user=postgres" % self.dir

    def start(self):
        r = subprocess.run(as_owner([pg_bin("pg_ctl"), "-D", self.data, "-l",
                                     os.path.join(self.dir, "postgres.log"), "-w", "-t", "60",
                                     # max_connections as on the primary
                                     # (scripts/pg.sh): a standby needs
                                     # at least the primary's
                                     "-o", "-c listen_addresses='' -k %s -c hot_standby=on "
                                     "-c max_connections=200" % self.dir, "start"]),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=90)
        if r.returncode != 0:
            with open(os.path.join(self.dir, "postgres.log"), errors="replace") as f:
                raise Fail("standby did not start: %s" % f.read()[-1500:])

    def stop(self):
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            subprocess.run(as_owner([pg_bin("pg_ctl"), "-D", self.data, "-m", "fast", "-w",
                                     "stop"]), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=90)

    def sql(self, q):
        return psql(self.url, q).strip()

    def caught_up(self, timeout=30):
        """Waits until the standby has replayed what the primary wrote."""
        want = psql(self.primary_url, "SELECT pg_current_wal_lsn()").strip()
        end = time.monotonic() + timeout
        while self.sql("SELECT pg_last_wal_replay_lsn() >= '%s'::pg_lsn" % want) != "t":
            check(time.monotonic() < end, "standby not caught up after %d s" % timeout)
            time.sleep(0.05)


@fixture
def standby(c):
    s = Standby(c)
    s.primary_url = c.dburl
    check(s.sql("SELECT pg_is_in_recovery()") == "t", "the standby is not in recovery")
    s.caught_up()
    return s


def standby_server(c, sb, max_lag_ms):
    s = Server(c.args.hpod, c.logdir, c.dburl)
    s.extra_env = {"HPOD_READ_DATABASE_URL": sb.url, "HPOD_READ_MAX_LAG_MS": str(max_lag_ms)}
    c.servers.append(s)
    return s.start()


def log_lines(s):
    with open(s.logpath, encoding="utf-8", errors="replace") as f:
        return [json.loads(x) for x in f if x.startswith("{")]


def standby_lines(s, what):
    """The server's log lines about the standby: 'to' (reads go to it),
    'lag', 'down'."""
    key = {"to": "reads that tolerate staleness go to it", "lag": "behind: reads go to the primary",
           "down": "unreachable: reads go to the primary"}[what]
    return [x for x in log_lines(s) if x["msg"].startswith("standby ") and key in x["msg"]]


def wait_lines(s, what, n, timeout=20):
    end = time.monotonic() + timeout
    while len(standby_lines(s, what)) < n:
        check(time.monotonic() < end, "no %d-th %r line about the standby after %d s:\n%s"
              % (n, what, timeout, s.tail(10)))
        time.sleep(0.05)


def listed(port, sid):
    r = expect(call(port, "GET", "/v1/studies?limit=100"), 200)
    return any(x["id"] == sid for x in r["studies"])


STUDY = {"space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
         "objectives": BLEU_MAX, "algorithm": {"name": "random"}}


@test("standby: lists come from a paused standby, a trainer's writes and reads by id from the primary")
def t_standby_reads(c):
    sb = c.fixture("standby")
    s = standby_server(c, sb, 3600000)  # an hour: the paused standby stays in use
    wait_lines(s, "to", 1)
    sb.sql("SELECT pg_wal_replay_pause()")
    try:
        end = time.monotonic() + 10
        while sb.sql("SELECT pg_get_wal_replay_pause_state()") != "paused":
            check(time.monotonic() < end, "replay not paused")
            time.sleep(0.05)
        st = create(c, dict(STUDY, name=uname("standby reads")), port=s.port)
        sid = st["id"]
        expect(call(s.port, "GET", "/v1/studies/%d" % sid), 200)
        for i in range(5):
            t = suggest(c, sid, "sb-%d" % i, port=s.port)["trials"][0]
            back = report(c, t["id"], {"bleu": i + 0.5}, port=s.port)
            check(back["trial"]["state"] == "completed", "report %r" % back)
            got = expect(call(s.port, "GET", "/v1/trials/%d" % t["id"]), 200)
            check(got["values"] == {"bleu": i + 0.5}, "GET after report: %r" % got)
        best = expect(call(s.port, "GET", "/v1/studies/%d/best" % sid), 200)
        check(best["trial"]["values"] == {"bleu": 4.5}, "best %r" % best)
        # The standby has not seen the study: the list and its trials come
        # from there.
        check(not listed(s.port, sid), "the list read the primary")
        expect_error(call(s.port, "GET", "/v1/studies/%d/trials" % sid), 404, "not_found")
        # The audit log and a study's related studies are reads for people
        # too: from the standby, which has neither the study nor its event.
        ev = expect(call(s.port, "GET", "/v1/audit?study=%d" % sid), 200)["events"]
        check(ev == [], "the audit read the primary: %r" % ev)
        expect_error(call(s.port, "GET", "/v1/studies/%d/related" % sid), 404, "not_found")
    finally:
        sb.sql("SELECT pg_wal_replay_resume()")
    sb.caught_up()
    check(listed(s.port, sid), "the standby's list lacks the study after replay")
    n = expect(call(s.port, "GET", "/v1/studies/%d/trials" % sid), 200)["total"]
    check(n == 5, "%d trials listed" % n)
    ev = expect(call(s.port, "GET", "/v1/audit?study=%d" % sid), 200)["events"]
    check([e["action"] for e in ev] == ["study.create"], "audit after replay %r" % ev)
    expect(call(s.port, "GET", "/v1/studies/%d/related" % sid), 200)
    check(not standby_lines(s, "lag") and not standby_lines(s, "down"),
          "fallback lines with an hour's bound")
    check(s.stop() == 0, "exit status")


@test("standby: lagging past HPOD_READ_MAX_LAG_MS or down, reads go to the primary, logged once each way")
def t_standby_fallback(c):
    sb = c.fixture("standby")
    sb.caught_up()
    s = standby_server(c, sb, 400)
    wait_lines(s, "to", 1)
    sb.sql("SELECT pg_wal_replay_pause()")
    try:
        sid = create(c, dict(STUDY, name=uname("standby lag")), port=s.port)["id"]
        wait_lines(s, "lag", 1)
        for _ in range(5):
            check(listed(s.port, sid), "a lagging standby answered the list")
    finally:
        sb.sql("SELECT pg_wal_replay_resume()")
    wait_lines(s, "to", 2)
    check(listed(s.port, sid), "list after catching up")
    sb.stop()
    sid2 = create(c, dict(STUDY, name=uname("standby down")), port=s.port)["id"]
    wait_lines(s, "down", 1)
    for _ in range(5):
        check(listed(s.port, sid2), "list with the standby down")
    sb.start()
    wait_lines(s, "to", 3, timeout=60)
    sb.caught_up()
    check(listed(s.port, sid2), "list after the standby is back")
    expect(call(s.port, "GET", "/v1/studies/%d/trials" % sid2), 200)
    counts = {w: len(standby_lines(s, w)) for w in ("to", "lag", "down")}
    check(counts == {"to": 3, "lag": 1, "down": 1}, "lines about the standby: %r" % counts)
    check(s.stop() == 0, "exit status")
