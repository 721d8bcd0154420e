#!/usr/bin/env python3
"""tests/netns/test_netns.py - hpod replicas on machines of their own,
as far as one machine can make them: each `hpod serve` in a network
namespace of its own, reached over a veth pair, behind HAProxy (Debian's
haproxy) in the host's namespace; PostgreSQL in the host's namespace,
reached by the replicas over TCP. `make test-netns` runs it.

    python3 tests/netns/test_netns.py --hpod BUILD/hpod [--replicas 3]

Needs root, `ip netns` and haproxy; otherwise it prints why and counts
the test as skipped. Trainers reach the replicas only through the
balancer. 16 trainers run a finite study of 600 candidates (suggest,
report, retrying a call that failed, as a trainer does: a suggest under
the same worker name hands back its held trials, a repeated final report
is idempotent); one replica is killed with SIGKILL mid-run. Then: every
candidate issued once, every acknowledged report reads back as sent, the
study completes, and the balancer took the dead replica out. Everything
it made (namespaces, veth pairs, HAProxy, the cluster) is removed on
every exit path. Prints `netns: N passed, M failed, K skipped`.
"""

import argparse
import atexit
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
NET = "10.213"  # 10.213.<i>.1 (host side) and .2 (replica i's namespace)


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def run(*args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=True,
                          **kw).stdout.decode()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def why_not():
    """The reason this machine cannot run the test, or None."""
    if os.geteuid() != 0:
        return "not root (network namespaces need CAP_SYS_ADMIN)"
    if not shutil.which("ip"):
        return "no ip (iproute2)"
    if not (shutil.which("haproxy") or os.path.exists("/usr/sbin/haproxy")):
        return "haproxy is not installed (apt-get install haproxy)"
    probe = "hpodprobe%d" % os.getpid()
    r = subprocess.run(["ip", "netns", "add", probe], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if r.returncode != 0:
        return "ip netns add failed: %s" % r.stdout.decode().strip()
    subprocess.run(["ip", "netns", "del", probe])
    if NET + "." in run("ip", "-4", "addr"):
        return "%s.0.0/16 is already in use on this machine" % NET
    return None


class Lab:
    """The cluster, the namespaces, the replicas and the balancer."""

    def __init__(self, hpod, n, workdir):
        self.hpod, self.n, self.dir = hpod, n, workdir
        self.tag = "%d" % (os.getpid() % 100000)
        self.ns = ["hpodns%s-%d" % (self.tag, i) for i in range(1, n + 1)]
        self.made_ns, self.procs = [], {}
        self.haproxy = None
        self.closed = False
        self.pg = os.path.join(workdir, "pg")

    # -- setup, each step undone by close() --------------------------------
    def network(self):
        for i, ns in enumerate(self.ns, 1):
            h, r = "hv%sh%d" % (self.tag, i), "hv%sn%d" % (self.tag, i)
            run("ip", "netns", "add", ns)
            self.made_ns.append(ns)
            run("ip", "link", "add", h, "type", "veth", "peer", "name", r)
            run("ip", "link", "set", r, "netns", ns)
            run("ip", "addr", "add", "%s.%d.1/24" % (NET, i), "dev", h)
            run("ip", "link", "set", h, "up")
            run("ip", "-n", ns, "addr", "add", "%s.%d.2/24" % (NET, i), "dev", r)
            run("ip", "-n", ns, "link", "set", r, "up")
            run("ip", "-n", ns, "link", "set", "lo", "up")

    def database(self):
        run("sh", os.path.join(ROOT, "scripts", "pg.sh"), "init", self.pg)
        with open(os.path.join(self.pg, "data", "pg_hba.conf"), "a") as f:
            f.write("host all all %s.0.0/16 trust\n" % NET)
        listen = ",".join("%s.%d.1" % (NET, i) for i in range(1, self.n + 1))
        env = dict(os.environ, PG_OPTS="-c listen_addresses='%s'" % listen)
        # pg.sh passes listen_addresses='' first; the later -c wins.
        run("sh", os.path.join(ROOT, "scripts", "pg.sh"), "start", self.pg, env=env)
        self.local_url = run("sh", os.path.join(ROOT, "scripts", "pg.sh"), "url",
                             self.pg).strip()
        out = run(self.hpod, "migrate", env=dict(os.environ, HPOD_DATABASE_URL=self.local_url))
        check("migrations up to date" in out, "migrate: %s" % out[-500:])
        self.token = run(self.hpod, "token", "create", "--role", "admin",
                         env=dict(os.environ, HPOD_DATABASE_URL=self.local_url)
                         ).strip().splitlines()[-1]

    def replica(self, i):
        ns = self.ns[i - 1]
        env = dict(os.environ, HPOD_LISTEN_ADDR="%s.%d.2" % (NET, i), HPOD_PORT="8080",
                   HPOD_DATABASE_URL="postgresql://postgres@%s.%d.1:5432/hpod" % (NET, i),
                   HPOD_BENCHMARKS="", OPENBLAS_NUM_THREADS="1", HPOD_SIM_WORKERS="0")
        log = open(os.path.join(self.dir, "replica-%d.log" % i), "ab")
        p = subprocess.Popen(["ip", "netns", "exec", ns, self.hpod, "serve"], env=env,
                             stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        log.close()
        self.procs[i] = p
        end = time.monotonic() + 60
        while True:
            r = subprocess.run(["ip", "netns", "exec", ns, self.hpod, "healthcheck"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                return
            check(p.poll() is None, "replica %d exited %r" % (i, p.returncode))
            check(time.monotonic() < end, "replica %d not healthy after 60 s" % i)
            time.sleep(0.2)

    def balancer(self):
        self.port = free_port()
        cfg = os.path.join(self.dir, "haproxy.cfg")
        servers = "\n".join("    server r%d %s.%d.2:8080" % (i, NET, i)
                            for i in range(1, self.n + 1))
        self.sock = os.path.join(self.dir, "haproxy.sock")
        with open(cfg, "w") as f:
            f.write("""global
    maxconn 2048
    stats socket %s mode 600 level user
defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    retries 2
    option redispatch
frontend hpod
    bind 127.0.0.1:%d
    default_backend replicas
backend replicas
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
    default-server check inter 300ms fall 2 rise 2
%s
""" % (self.sock, self.port, servers))
        run(shutil.which("haproxy") or "/usr/sbin/haproxy", "-c", "-q", "-f", cfg)
        self.haproxy = subprocess.Popen([shutil.which("haproxy") or "/usr/sbin/haproxy",
                                         "-db", "-f", cfg],
                                        stdout=open(os.path.join(self.dir, "haproxy.log"), "wb"),
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        end = time.monotonic() + 20
        while True:
            try:
                if self.call("GET", "/healthz")[0] == 200:
                    return
            except OSError:
                pass
            check(time.monotonic() < end, "the balancer does not answer")
            time.sleep(0.1)

    def stat(self):
        """HAProxy's `show stat` as dicts (its stats socket)."""
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(self.sock)
        s.sendall(b"show stat\n")
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
        s.close()
        lines = out.decode().splitlines()
        head = lines[0].lstrip("# ").split(",")
        return [dict(zip(head, ln.split(","))) for ln in lines[1:] if ln]

    def call(self, method, path, body=None, timeout=30):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            hdrs = {"Authorization": "Bearer " + self.token}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                hdrs["Content-Type"] = "application/json"
            conn.request(method, path, body=data, headers=hdrs)
            r = conn.getresponse()
            raw = r.read()
            try:
                return r.status, json.loads(raw) if raw else None
            except ValueError:  # the balancer's own 502/503 page
                return r.status, raw.decode(errors="replace")[:200]
        finally:
            conn.close()

    def close(self):
        if self.closed:
            return
        self.closed = True
        if self.haproxy and self.haproxy.poll() is None:
            self.haproxy.terminate()
            self.haproxy.wait(timeout=10)
        for p in self.procs.values():
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        for ns in self.made_ns:  # deleting a namespace deletes its veth end
            subprocess.run(["ip", "netns", "del", ns])
        self.made_ns = []
        subprocess.run(["sh", os.path.join(ROOT, "scripts", "pg.sh"), "stop", self.pg],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def trainers(lab, sid, n, kill_after, victim):
    """n trainers until the study is done; replica victim killed after
    kill_after seconds. Returns (issued id -> params, acked id -> values,
    errors, retried calls)."""
    issued, acked, errors = {}, {}, []
    retries = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + 240

    def call_retry(method, path, body):
        while True:
            check(time.monotonic() < deadline, "no answer before the deadline")
            try:
                st, b = lab.call(method, path, body)
                if st in (200, 201):
                    return b
                check(st in (502, 503, 504), "%s %s -> %d %r" % (method, path, st, b))
            except (OSError, http.client.HTTPException):
                pass
            with lock:
                retries[0] += 1
            time.sleep(0.2)

    def worker(i):
        name = "ns-%02d" % i
        try:
            while not errors:
                r = call_retry("POST", "/v1/studies/%d/suggest" % sid, {"worker": name})
                for t in r["trials"]:
                    with lock:
                        if t["id"] in issued and t["params"] != issued[t["id"]]:
                            errors.append("trial %d changed params" % t["id"])
                        if t["id"] in acked:
                            errors.append("trial %d handed out after its report" % t["id"])
                        issued[t["id"]] = t["params"]
                    vals = {"bleu": t["params"]["x"] * 0.5 + 0.125}
                    call_retry("POST", "/v1/trials/%d/report" % t["id"], {"values": vals})
                    with lock:
                        acked[t["id"]] = vals
                if r["done"]:
                    return
                if not r["trials"]:
                    time.sleep(min(r.get("retry_after", 1), 0.5))
        except Exception as e:  # noqa: BLE001
            errors.append("%s: %s" % (name, e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    time.sleep(kill_after)
    p = lab.procs[victim]
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    for th in threads:
        th.join()
    return issued, acked, errors, retries[0]


def the_test(lab, args):
    cands = [{"x": i} for i in range(600)]
    st, body = lab.call("POST", "/v1/studies", {
        "name": "netns", "space": [{"name": "x", "type": "int", "low": 0, "high": 599}],
        "candidates": cands, "objectives": [{"name": "bleu", "goal": "maximize"}],
        "algorithm": {"name": "random", "seed": 3}})
    check(st == 201, "create: %d %r" % (st, body))
    sid = body["id"]
    t0 = time.monotonic()
    issued, acked, errors, retried = trainers(lab, sid, 16, 2.0, 2)
    dt = time.monotonic() - t0
    check(not errors, "trainers: %s" % "; ".join(errors[:5]))
    check(len(issued) == 600 and sorted(p["x"] for p in issued.values()) == list(range(600)),
          "%d trials issued for 600 candidates" % len(issued))
    rows = []
    while len(rows) < 600:
        st, page = lab.call("GET", "/v1/studies/%d/trials?limit=500&offset=%d"
                            % (sid, len(rows)))
        check(st == 200 and page["trials"], "list: %d" % st)
        rows += page["trials"]
    by_id = {t["id"]: t for t in rows}
    for tid, vals in acked.items():
        t = by_id.get(tid)
        check(t and t["state"] == "completed" and t["values"] == vals,
              "acknowledged trial %d reads back as %r" % (tid, t))
    check(len(acked) == 600, "%d reports acknowledged" % len(acked))
    st, s = lab.call("GET", "/v1/studies/%d" % sid)
    check(s["state"] == "done" and s["trial_counts"]["completed"] == 600,
          "study %r %r" % (s["state"], s["trial_counts"]))
    down = [r for r in lab.stat() if r.get("svname") == "r2"]
    check(down and down[0]["status"].startswith("DOWN"),
          "the balancer still has the killed replica: %r" % down)
    print("# netns: %d replicas in namespaces behind HAProxy, replica 2 killed after 2 s; "
          "600 trials in %.1f s, %d calls retried by the trainers" % (lab.n, dt, retried),
          flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hpod", required=True)
    ap.add_argument("--replicas", type=int, default=3)
    args = ap.parse_args()
    name = "replicas in network namespaces behind HAProxy, one killed mid-run: nothing lost"
    reason = why_not()
    if reason:
        print("skip - %s: %s" % (name, reason))
        print("netns: 0 passed, 0 failed, 1 skipped")
        return 0
    hpod = os.path.abspath(args.hpod)
    base = os.path.join(os.path.dirname(hpod), "netns")
    os.makedirs(base, exist_ok=True)
    work = tempfile.mkdtemp(dir=base)
    lab = Lab(hpod, args.replicas, work)
    atexit.register(lab.close)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(130))
    failed = 0
    try:
        lab.network()
        lab.database()
        for i in range(1, args.replicas + 1):
            lab.replica(i)
        lab.balancer()
        the_test(lab, args)
        print("ok - %s" % name)
    except (Fail, subprocess.CalledProcessError) as e:
        out = getattr(e, "output", b"") or b""
        print("not ok - %s: %s %s" % (name, e, out.decode(errors="replace")[-800:]))
        print("# logs in %s" % work)
        failed = 1
    finally:
        lab.close()
    if not failed:
        shutil.rmtree(work, ignore_errors=True)
    print("netns: %d passed, %d failed, 0 skipped" % (1 - failed, failed))
    return failed


if __name__ == "__main__":
    sys.exit(main())
