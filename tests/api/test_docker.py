"""tests/api/test_docker.py - the image and the container's start-up
without Docker (no engine on the test machines): the build stage of
docker/Dockerfile run on exactly the files its COPY lines bring
(scripts/docker_stage.py), its binary serving the dashboard web/ holds and
linking only libraries the runtime stage installs; its packages against
scripts/deps.sh; the checker itself on a build stage that misses web/ or a
new source directory; the tables' mount point; docker/entrypoint.sh run
with HPOD_BIN set to the hpod under test (migrate, the first-start admin
token, exec serve); `hpod healthcheck` against a healthy server, nothing, a
server that never answers and one that answers 503; the first database
connection retried with backoff while nothing listens
(HPOD_DB_WAIT_SECONDS), taken once PostgreSQL appears (a TCP proxy to the
test cluster that starts late), and not retried when the server answers
but refuses.
"""

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from harness import (READY_TIMEOUT, TOP, Server, call, cfg, check, expect, free_port,
                     fresh_database, pg_socket_dir, psql, test)

sys.path.insert(0, os.path.join(TOP, "scripts"))
import docker_stage  # noqa: E402

ENTRYPOINT = os.path.join(TOP, "docker", "entrypoint.sh")
# What the image serves at / and /web/<name>: the files of web/.
DASHBOARD = {"/": "web/index.html", "/web/app.js": "web/app.js",
             "/web/style.css": "web/style.css",
             "/web/echarts.min.js": "web/vendor/echarts.min.js"}


def build_root(c):
    """A scratch directory beside the binary under test (the build tree)."""
    return os.path.dirname(os.path.abspath(c.args.hpod))


@test("docker build stage: exactly its COPY files build hpod, which serves web/'s dashboard and links only what the runtime stage installs")
def t_build_stage(c):
    stage = docker_stage.build_stage()
    check(stage.workdir == "/src", "build stage WORKDIR %r" % stage.workdir)
    tree = tempfile.mkdtemp(prefix="docker-stage-", dir=build_root(c))
    log = os.path.join(c.logdir, "docker-stage-build.log")
    srv = None
    open(log, "wb").close()
    try:
        docker_stage.stage_tree(tree)
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        for cmd in docker_stage.build_commands(stage):
            with open(log, "ab") as f:
                f.write(("$ %s\n" % cmd).encode())
                f.flush()
                r = subprocess.run(["sh", "-c", cmd], cwd=tree, env=env, stdout=f,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   timeout=1800)
            with open(log, "rb") as f:
                tail = f.read().decode("utf-8", "replace")[-2500:]
            check(r.returncode == 0, "the build stage's `%s` failed on its COPY set "
                  "(exit %d):\n%s" % (cmd, r.returncode, tail))
        binary = os.path.join(tree, docker_stage.binary_in_stage())
        check(os.access(binary, os.X_OK), "no %s after the build stage" % binary)
        srv = Server(binary, c.logdir, c.dburl)
        srv.start()
        for path, local in DASHBOARD.items():
            got = call(srv.port, "GET", path)
            with open(os.path.join(TOP, local), "rb") as f:
                want = f.read()
            check(got.status == 200 and len(got.raw) > 100 and got.raw == want,
                  "the image's binary answers GET %s with %d, %d bytes; %s has %d"
                  % (path, got.status, len(got.raw), local, len(want)))
        if cfg.have_tables:
            expect(call(srv.port, "GET", "/v1/benchmarks/nmthpo/zh-en"), 200)
        # Every library the binary links comes from a package the runtime
        # stage installs (or from the base image).
        runtime = set(docker_stage.stages()[-1].packages) | docker_stage.BASE_PACKAGES
        libs = docker_stage.needed_packages(binary)
        check(libs and all(libs.values()), "libraries without a package: %r" % libs)
        lost = {lib: p for lib, p in libs.items() if p not in runtime}
        check(not lost, "the runtime stage does not install the packages of %r" % lost)
        rc = srv.stop()
        srv = None
        check(rc == 0, "the image's hpod exited %r on SIGTERM" % rc)
    finally:
        if srv is not None:
            srv.stop()
        shutil.rmtree(tree, ignore_errors=True)


@test("docker build stage: installs every package scripts/deps.sh installs to build hpod; COPY sources all in the context")
def t_build_stage_static(c):
    pkgs = docker_stage.deps_build_packages()
    check("build-essential" in pkgs and "libjansson-dev" in pkgs
          and "libcmocka-dev" not in pkgs, "scripts/deps.sh build-list: %r" % pkgs)
    check(docker_stage.missing_packages() == [], "\n".join(docker_stage.missing_packages()))
    bad = [(s, p) for _, s, p in docker_stage.context_sources() if p]
    check(not bad, "COPY sources: %r" % bad)
    check(docker_stage.missing_from_stage() == [], "\n".join(docker_stage.missing_from_stage()))


@test("docker build stage check: names web/ and embed_web.sh when not copied, and a new source directory the Makefile compiles")
def t_build_stage_check_fails(c):
    root = tempfile.mkdtemp(prefix="docker-check-", dir=build_root(c))
    try:
        skip = {".git", "build", "tests", "docs", "clients", ".pgdata", ".run"}
        for name in os.listdir(TOP):
            if name in skip:
                continue
            src = os.path.join(TOP, name)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(root, name),
                                ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
            else:
                shutil.copy2(src, os.path.join(root, name))
        check(docker_stage.missing_from_stage(root) == [], "the copy is not complete")
        # The build stage as it was: without web/ and scripts/embed_web.sh.
        df = os.path.join(root, "docker", "Dockerfile")
        with open(df) as f:
            text = f.read()
        old = text.replace("COPY web web/\n", "").replace(
            "COPY scripts/embed.sh scripts/embed_web.sh scripts/",
            "COPY scripts/embed.sh scripts/")
        check(old != text, "could not take web/ out of the Dockerfile")
        with open(df, "w") as f:
            f.write(old)
        lines = docker_stage.missing_from_stage(root)
        check(len(lines) == 2 and "scripts/embed_web.sh" in lines[0]
              and "`COPY web web/`" in lines[1], "without web/: %r" % lines)
        with open(df, "w") as f:
            f.write(text)
        # A directory the Makefile starts to compile (a cli/, say).
        os.mkdir(os.path.join(root, "extra"))
        with open(os.path.join(root, "extra", "x.c"), "w") as f:
            f.write('#include "extra/x.h"\nint extra_x(void) { return 0; }\n')
        with open(os.path.join(root, "extra", "x.h"), "w") as f:
            f.write("int extra_x(void);\n")
        mk = os.path.join(root, "Makefile")
        with open(mk) as f:
            make = f.read()
        grown = make.replace("APP_SRC   := ", "APP_SRC   := $(wildcard extra/*.c) ", 1)
        check(grown != make, "could not add extra/ to the Makefile's APP_SRC")
        with open(mk, "w") as f:
            f.write(grown)
        lines = docker_stage.missing_from_stage(root)
        check(len(lines) == 1 and "extra/x.c and 1 more" in lines[0]
              and "`COPY extra extra/`" in lines[0], "with extra/: %r" % lines)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@test("docker: the image's HPOD_BENCHMARKS is where compose mounts the tables")
def t_benchmarks_mount(c):
    where = docker_stage.stages()[-1].env.get("HPOD_BENCHMARKS")
    check(where == "/opt/hpod/benchmarks", "the image's HPOD_BENCHMARKS is %r" % where)
    with open(os.path.join(TOP, "docker", "compose.yaml")) as f:
        compose = f.read()
    env = re.findall(r"^\s+HPOD_BENCHMARKS:\s*(\S+)", compose, re.M)
    mounts = re.findall(r"^\s+- \S+:(/\S+?)(?::ro)?\s*$", compose, re.M)
    check(env == [where], "compose sets HPOD_BENCHMARKS to %r" % env)
    check(where in mounts, "compose mounts %r, not %s" % (mounts, where))


def base_env(c, **kw):
    env = dict(os.environ, HPOD_BENCHMARKS=cfg.bench_dir, HPOD_LOG_LEVEL="info")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.update(kw)
    return env


def fresh_db(c, tag):
    """A new empty database in the test cluster; returns its URL."""
    return fresh_database(c.dburl, "hpod_docker_%s_%d" % (tag, os.getpid()))


def healthcheck(c, port, **kw):
    """(exit status, stdout, stderr) of `hpod healthcheck` on port; kw
    sets more variables (or overrides HPOD_PORT)."""
    env = base_env(c, HPOD_PORT=str(port))
    env.update(kw)
    r = subprocess.run([c.args.hpod, "healthcheck"], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, env=env)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


class Started:
    """docker/entrypoint.sh (or hpod serve) running with its stdout and
    stderr in two files of the log directory."""

    def __init__(self, c, name, argv, env):
        self.out = os.path.join(c.logdir, name + ".out")
        self.err = os.path.join(c.logdir, name + ".err")
        with open(self.out, "wb") as o, open(self.err, "wb") as e:
            self.p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=o,
                                      stderr=e, start_new_session=True)

    def text(self, which):
        with open(self.out if which == "out" else self.err, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def tail(self):
        return "stdout:\n%s\nstderr:\n%s" % (self.text("out")[-1500:], self.text("err")[-3000:])

    def wait_healthy(self, c, port, timeout=READY_TIMEOUT):
        """Polls `hpod healthcheck` until it exits 0."""
        deadline = time.monotonic() + timeout
        while True:
            check(self.p.poll() is None, "exited %r while starting:\n%s"
                  % (self.p.returncode, self.tail()))
            rc, _, err = healthcheck(c, port)
            if rc == 0:
                return
            check(rc == 1, "hpod healthcheck exited %d (not 0 or 1): %s" % (rc, err))
            check(time.monotonic() < deadline, "not healthy after %.0f s (last: %s):\n%s"
                  % (timeout, err.strip(), self.tail()))
            time.sleep(0.2)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        return self.p.returncode

    def wait(self, timeout):
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise


def log_msgs(text):
    out = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


@test("docker entrypoint: migrates, execs hpod serve; hpod healthcheck 0 when it answers")
def t_entrypoint(c):
    url = fresh_db(c, "ep")
    port = free_port()
    # As in the image: 0.0.0.0, which healthcheck reaches on 127.0.0.1.
    env = base_env(c, HPOD_BIN=c.args.hpod, HPOD_PORT=str(port), HPOD_DATABASE_URL=url,
                   HPOD_LISTEN_ADDR="0.0.0.0")
    s = Started(c, "entrypoint-1", ["sh", ENTRYPOINT], env)
    try:
        s.wait_healthy(c, port)
        h = call(port, "GET", "/healthz")
        check(h.status == 200 and h.json == {"status": "ok", "database": "ok"}, "%r" % h)
        # exec: the entrypoint's process is hpod serve itself, so Docker's
        # SIGTERM (through tini) reaches it.
        exe = os.path.realpath("/proc/%d/exe" % s.p.pid)
        check(exe == os.path.realpath(c.args.hpod),
              "the entrypoint's pid runs %s, not hpod (no exec?)" % exe)
        applied = psql(url, "SELECT count(*) FROM schema_migrations").strip()
        n = len([f for f in os.listdir(os.path.join(TOP, "migrations")) if f.endswith(".sql")])
        check(int(applied) == n, "%s of %d migrations recorded" % (applied, n))
        msgs = [m.get("msg", "") for m in log_msgs(s.text("err"))]
        check(any(m.startswith("migrations up to date (%d applied now)" % n) for m in msgs),
              "hpod migrate did not apply the %d migrations:\n%s" % (n, s.tail()))
        rc, out, err = healthcheck(c, port, HPOD_LISTEN_ADDR="0.0.0.0")
        check(rc == 0 and out == "" and err == "", "healthcheck: %d %r %r" % (rc, out, err))
    finally:
        rc = s.stop()
    check(rc == 0, "hpod serve (from the entrypoint) exited %r on SIGTERM:\n%s"
          % (rc, s.tail()))


@test("hpod healthcheck: 1 with one line on stderr for nothing, silence, 503, bad config")
def t_healthcheck_fails(c):
    rc, out, err = healthcheck(c, free_port())
    check(rc == 1 and out == "" and err.count("\n") == 1 and "cannot connect" in err,
          "nothing listening: %d %r %r" % (rc, out, err))
    # A socket that accepts (backlog) and never answers: bounded by the
    # 3 s deadline.
    mute = socket.socket()
    mute.bind(("127.0.0.1", 0))
    mute.listen(4)
    try:
        t0 = time.monotonic()
        rc, out, err = healthcheck(c, mute.getsockname()[1])
        took = time.monotonic() - t0
    finally:
        mute.close()
    check(rc == 1 and "in time" in err and err.count("\n") == 1,
          "silent server: %d %r" % (rc, err))
    check(2.5 < took < 15, "silent server: healthcheck took %.1f s (deadline 3 s)" % took)
    # An HTTP server whose /healthz says the database is unreachable.
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    got = []

    def answer():
        conn, _ = srv.accept()
        with conn:
            conn.settimeout(10)
            req = b""
            while b"\r\n\r\n" not in req:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                req += chunk
            got.append(req)
            body = b'{"status":"unavailable","database":"unreachable"}'
            conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json"
                         b"\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                         % (len(body), body))

    t = threading.Thread(target=answer, daemon=True)
    t.start()
    try:
        rc, out, err = healthcheck(c, srv.getsockname()[1])
    finally:
        t.join(10)
        srv.close()
    check(got and got[0].startswith(b"GET /healthz HTTP/1.1\r\n"), "request sent: %r" % got)
    check(rc == 1 and "503" in err and "unreachable" in err and err.count("\n") == 1,
          "503: %d %r" % (rc, err))
    rc, _, err = healthcheck(c, 8080, HPOD_PORT="not-a-port")
    check(rc == 1 and "HPOD_PORT" in err, "bad HPOD_PORT: exit %d (Docker reserves 2) %r"
          % (rc, err))


@test("docker entrypoint: an admin token on the first start only, one for two replicas")
def t_entrypoint_token(c):
    url = fresh_db(c, "tok")
    ports = [free_port(), free_port()]
    first = [Started(c, "entrypoint-tok-%d" % i, ["sh", ENTRYPOINT],
                     base_env(c, HPOD_BIN=c.args.hpod, HPOD_PORT=str(p),
                              HPOD_DATABASE_URL=url, HPOD_LISTEN_ADDR="0.0.0.0"))
             for i, p in enumerate(ports)]
    try:
        for s, p in zip(first, ports):
            s.wait_healthy(c, p)
        outs = [s.text("out").strip() for s in first]
        printed = [o for o in outs if o]
        check(len(printed) == 1, "two replicas starting at once printed %d tokens: %r"
              % (len(printed), outs))
        secret = printed[0].splitlines()[-1]
        check(re.match(r"^hpod_[0-9a-f]{64}$", secret), "not a token: %r" % secret)
        check(psql(url, "SELECT count(*) FROM tokens").strip() == "1",
              "tokens: %s" % psql(url, "SELECT id, role FROM tokens"))
        # The secret printed is an admin's: it opens the API.
        conn = http.client.HTTPConnection("127.0.0.1", ports[0], timeout=30)
        try:
            conn.request("GET", "/v1/studies", headers={"Authorization": "Bearer " + secret})
            r = conn.getresponse()
            r.read()
        finally:
            conn.close()
        check(r.status == 200, "GET /v1/studies with the printed token: %d" % r.status)
    finally:
        for s in first:
            s.stop()
    again = Started(c, "entrypoint-tok-again", ["sh", ENTRYPOINT],
                    base_env(c, HPOD_BIN=c.args.hpod, HPOD_PORT=str(ports[0]),
                             HPOD_DATABASE_URL=url, HPOD_LISTEN_ADDR="0.0.0.0"))
    try:
        again.wait_healthy(c, ports[0])
        check(again.text("out").strip() == "", "the second start printed %r"
              % again.text("out"))
        check(psql(url, "SELECT count(*) FROM tokens").strip() == "1", "a second token")
    finally:
        again.stop()


def serve_on(c, name, url, wait):
    port = free_port()
    env = base_env(c, HPOD_PORT=str(port), HPOD_DATABASE_URL=url,
                   HPOD_DB_WAIT_SECONDS=str(wait))
    return Started(c, name, [c.args.hpod, "serve"], env), port


@test("start-up: nothing listening: retried with backoff, then exit 1 after HPOD_DB_WAIT_SECONDS")
def t_wait_gives_up(c):
    url = "postgresql://postgres@127.0.0.1:%d/hpod" % free_port()
    t0 = time.monotonic()
    s, _ = serve_on(c, "wait-gives-up", url, 2)
    rc = s.wait(60)
    took = time.monotonic() - t0
    msgs = log_msgs(s.text("err"))
    warns = [m for m in msgs if m.get("level") == "warn"
             and m.get("msg", "").startswith("database not accepting connections yet")]
    errs = [m["msg"] for m in msgs if m.get("level") == "error"]
    check(rc == 1, "exit %r:\n%s" % (rc, s.tail()))
    check(2.0 <= took < 20, "gave up after %.1f s with HPOD_DB_WAIT_SECONDS=2" % took)
    # 0.1 + 0.2 + 0.4 + 0.8 s, then what is left of the 2 s: 5 waits.
    check(4 <= len(warns) <= 8, "%d retry lines:\n%s" % (len(warns), s.tail()))
    check(len(errs) == 1 and "could not connect to" in errs[0] and "gave up after" in errs[0]
          and "HPOD_DB_WAIT_SECONDS=2" in errs[0], "final line: %r" % errs)


class LateProxy:
    """Listens on 127.0.0.1:port only after delay seconds, then forwards
    each connection to the test cluster's unix socket."""

    def __init__(self, port, sock_path, delay):
        self.port, self.sock_path, self.delay = port, sock_path, delay
        self.accepted = 0
        self.stopping = False
        self.lsock = None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    @staticmethod
    def pump(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def run(self):
        time.sleep(self.delay)
        if self.stopping:
            return
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(("127.0.0.1", self.port))
        ls.listen(16)
        ls.settimeout(0.2)
        self.lsock = ls
        while not self.stopping:
            try:
                a, _ = ls.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            self.accepted += 1
            b = socket.socket(socket.AF_UNIX)
            try:
                b.connect(self.sock_path)
            except OSError:
                a.close()
                continue
            for x, y in ((a, b), (b, a)):
                threading.Thread(target=self.pump, args=(x, y), daemon=True).start()
        ls.close()

    def stop(self):
        self.stopping = True
        self.thread.join(5)


@test("start-up: a database that appears within HPOD_DB_WAIT_SECONDS is waited for")
def t_wait_succeeds(c):
    port = free_port()
    proxy = LateProxy(port, os.path.join(pg_socket_dir(c.dburl), ".s.PGSQL.5432"), 1.5)
    url = "postgresql://postgres@127.0.0.1:%d/hpod" % port
    s, hport = serve_on(c, "wait-succeeds", url, 30)
    try:
        s.wait_healthy(c, hport, timeout=READY_TIMEOUT + 5)
        msgs = [m.get("msg", "") for m in log_msgs(s.text("err"))]
        retries = [m for m in msgs if m.startswith("database not accepting connections yet")]
        check(retries, "no retry line although the database came 1.5 s late:\n%s" % s.tail())
        check(any(m.startswith("database accepting connections after") for m in msgs),
              "no line saying the database is there:\n%s" % s.tail())
        check(proxy.accepted > 0, "nothing went through the proxy")
    finally:
        rc = s.stop()
        proxy.stop()
    check(rc == 0, "hpod serve exited %r on SIGTERM:\n%s" % (rc, s.tail()))


@test("start-up: a server that answers but refuses (no such database) is not retried")
def t_wait_not_for_refusal(c):
    url = c.dburl.replace("/hpod?", "/hpod_no_such_db?", 1)
    check(url != c.dburl, "cannot derive a URL from %r" % c.dburl)
    t0 = time.monotonic()
    s, _ = serve_on(c, "wait-refused", url, 60)
    rc = s.wait(60)
    took = time.monotonic() - t0
    errs = [m["msg"] for m in log_msgs(s.text("err")) if m.get("level") == "error"]
    check(rc == 1, "exit %r:\n%s" % (rc, s.tail()))
    check(took < 20, "took %.1f s: retried a refusal" % took)
    check(len(errs) == 1 and "does not exist" in errs[0] and "not retried" in errs[0],
          "final line: %r" % errs)
