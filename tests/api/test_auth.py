"""tests/api/test_auth.py - a shared lab server: tokens, roles and labs.

Runs on a database of its own in the suite's cluster (hpod_auth): once a
token exists, every request to that database needs one, and the other
modules run on an open server. The role matrix is driven by the spec:
every operation names its least role in x-hpod-role, and every operation
must have a request here that succeeds (2xx) when the role allows it, so
a new route without a row fails this test.
"""

import os
import re
import subprocess
import time

from harness import (Server, call, cfg, check, expect, expect_error, fresh_database, psql,
                     test, fixture)
from client import BLEU_MAX, SPACE4
from tables import bench_path, synthetic_table

RANK = {"none": 0, "read": 1, "write": 2, "admin": 3}
SECRET = re.compile(r"^hpod_[0-9a-f]{64}$")
CACHE_S = 0.5  # AUTH_CACHE_MS (server/auth.h)


def hpod(c, url, *args, env=None, check_rc=True):
    e = dict(os.environ, HPOD_DATABASE_URL=url)
    e.update(env or {})
    r = subprocess.run([c.args.hpod] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                       timeout=120, env=e)
    out, err = r.stdout.decode(), r.stderr.decode()
    if check_rc:
        check(r.returncode == 0, "hpod %s exited %d: %s" % (" ".join(args), r.returncode, err))
    return r.returncode, out, err


def new_database(c, name):
    url = fresh_database(c.dburl, name)
    hpod(c, url, "migrate")
    return url


def server_on(c, url, env=None):
    s = Server(c.args.hpod, c.logdir, url)
    s.extra_env = env or {}
    c.servers.append(s)
    return s.start()


class Lab:
    """The auth database, its server, tokens and resources of two labs."""

    def __init__(self, c):
        self.c = c
        self.url = new_database(c, "hpod_auth")
        _, out, _ = hpod(c, self.url, "token", "create", "--role", "admin",
                         "--note", "first admin")
        self.root = out.strip().splitlines()[-1]
        check(SECRET.match(self.root), "CLI secret %r" % self.root)
        self.srv = server_on(c, self.url)
        self.port = self.srv.port
        self.tok = {}
        for lab in ("mt", "nlp"):
            for role in ("read", "write", "admin"):
                t = expect(self.call("POST", "/v1/tokens", {"role": role, "lab": lab},
                                     token=self.root), 201)
                check(t["lab"] == lab and t["role"] == role, "token %r" % t)
                self.tok[(role, lab)] = t["token"]
        self.n = 0
        self.pending = 0
        w = self.tok[("write", "mt")]
        self.table = "mt/t"
        expect(self.call("POST", "/v1/benchmarks", synthetic_table(self.table), token=w), 201)
        self.study = self.new_study(w)
        t = self.live_trial(self.study, w)
        expect(self.call("POST", "/v1/trials/%d/report" % t, {"values": {"bleu": 20.5}},
                         token=w), 200)
        self.trial = t
        self.mo_study = self.new_study(w, objectives=[
            {"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}])
        self.sim = expect(self.call("POST", bench_path(self.table, "/simulate"), {
            "algorithm": {"name": "random"}, "objectives": BLEU_MAX, "repeats": 2},
            token=w), 201)["id"]
        self.nlp_study = self.new_study(self.tok[("write", "nlp")])
        self.imp_study = self.new_study(w)  # enough completed trials for /importance
        for i in range(10):
            expect(self.call("POST", "/v1/studies/%d/trials" % self.imp_study, {
                "params": {"lr": 10 ** -(1 + i % 3), "layers": 1 + i % 6, "bpe": 30000,
                           "opt": "adam"}, "values": {"bleu": float(i)}}, token=w), 201)

    def call(self, method, path, body=None, token=None, **kw):
        return call(self.port, method, path, body, token=token, **kw)

    def name(self, prefix):
        self.n += 1
        return "%s-%d" % (prefix, self.n)

    def new_study(self, token, objectives=BLEU_MAX, lab=None):
        body = {"name": self.name("auth"), "space": SPACE4, "objectives": objectives,
                "algorithm": {"name": "random", "seed": 1}}
        if lab:
            body["lab"] = lab
        return expect(self.call("POST", "/v1/studies", body, token=token), 201)["id"]

    def cancellable(self):
        """A new simulation of lab mt, queued or running when the caller
        cancels it (300 GP runs); the one made before is cancelled first,
        so that lab mt's queue stays short."""
        if self.pending:
            self.call("DELETE", "/v1/simulations/%d" % self.pending, token=self.root)
        self.pending = expect(self.call(
            "POST", bench_path(self.table, "/simulate"),
            {"algorithm": {"name": "gp"}, "objectives": BLEU_MAX, "repeats": 300},
            token=self.tok[("write", "mt")], headers={"Prefer": "respond-async"}), 202)["id"]
        return self.pending

    def live_trial(self, study, token=None):
        a = expect(self.call("POST", "/v1/studies/%d/suggest" % study,
                             {"worker": self.name("w")}, token=token or self.root), 200)
        check(len(a["trials"]) == 1, "no trial: %r" % a)
        return a["trials"][0]["id"]


@fixture
def lab(c):
    return Lab(c)


def requests(L):
    """One succeeding request per operation: (method, spec path) ->
    function of nothing returning (path, body). Fresh objects for the
    operations that consume them come from the admin of every lab."""
    s, t, tb = L.study, L.trial, L.table
    return {
        ("get", "/v1/studies"): lambda: ("/v1/studies", None),
        ("post", "/v1/studies"): lambda: ("/v1/studies", {
            "name": L.name("m"), "space": SPACE4, "objectives": BLEU_MAX}),
        ("get", "/v1/studies/{id}"): lambda: ("/v1/studies/%d" % s, None),
        ("patch", "/v1/studies/{id}"): lambda: ("/v1/studies/%d" % s, {"metadata": {"k": 1}}),
        ("get", "/v1/studies/{id}/related"): lambda: ("/v1/studies/%d/related" % s, None),
        ("post", "/v1/studies/{id}/copy"): lambda: (
            "/v1/studies/%d/copy" % s, {"name": L.name("copy")}),
        ("delete", "/v1/studies/{id}"): lambda: (
            "/v1/studies/%d" % L.new_study(L.root, lab="mt"), None),
        ("post", "/v1/studies/{id}/suggest"): lambda: (
            "/v1/studies/%d/suggest" % s, {"worker": L.name("w")}),
        ("get", "/v1/studies/{id}/trials"): lambda: ("/v1/studies/%d/trials" % s, None),
        ("get", "/v1/studies/{id}/best"): lambda: ("/v1/studies/%d/best" % s, None),
        ("get", "/v1/studies/{id}/pareto"): lambda: ("/v1/studies/%d/pareto" % L.mo_study, None),
        ("get", "/v1/studies/{id}/importance"): lambda: (
            "/v1/studies/%d/importance" % L.imp_study, None),
        ("get", "/v1/trials/{id}"): lambda: ("/v1/trials/%d" % t, None),
        ("get", "/v1/trials/{id}/explain"): lambda: ("/v1/trials/%d/explain" % t, None),
        ("patch", "/v1/trials/{id}"): lambda: ("/v1/trials/%d" % t, {"metadata": {"k": 1}}),
        ("post", "/v1/studies/{id}/trials"): lambda: ("/v1/studies/%d/trials" % s, {
            "params": {"lr": 0.01, "layers": 2, "bpe": 30000, "opt": "adam"}}),
        ("post", "/v1/trials/{id}/report"): lambda: (
            "/v1/trials/%d/report" % L.live_trial(s), {"values": {"bleu": 1.5}}),
        ("post", "/v1/trials/{id}/heartbeat"): lambda: (
            "/v1/trials/%d/heartbeat" % L.live_trial(s), None),
        ("post", "/v1/trials/{id}/fail"): lambda: (
            "/v1/trials/%d/fail" % L.live_trial(s), {"reason": "matrix"}),
        ("post", "/v1/trials/{id}/preempt"): lambda: (
            "/v1/trials/%d/preempt" % L.live_trial(s), {"reason": "matrix"}),
        ("post", "/v1/trials/{id}/params"): lambda: (
            "/v1/trials/%d/params" % L.live_trial(s), SPACE4[0]),
        ("post", "/v1/trials/{id}/exclude"): lambda: (
            "/v1/trials/%d/exclude" % L.live_trial(s), {"reason": "matrix"}),
        ("post", "/v1/trials/{id}/restore"): lambda: (
            "/v1/trials/%d/restore" % t, {"reason": "matrix"}),
        ("get", "/metrics"): lambda: ("/metrics", None),
        ("get", "/v1/benchmarks"): lambda: ("/v1/benchmarks", None),
        ("post", "/v1/benchmarks"): lambda: (
            "/v1/benchmarks", synthetic_table(L.name("mt/imp"))),
        ("get", "/v1/benchmarks/{namespace}/{name}"): lambda: (bench_path(tb), None),
        ("post", "/v1/benchmarks/{namespace}/{name}/evaluate"): lambda: (
            bench_path(tb, "/evaluate"), {"params": {"llm": "big", "lr": 0.01, "layers": 6}}),
        ("post", "/v1/benchmarks/{namespace}/{name}/simulate"): lambda: (
            bench_path(tb, "/simulate"),
            {"algorithm": {"name": "random"}, "objectives": BLEU_MAX, "repeats": 2}),
        ("get", "/v1/benchmarks/{namespace}/{name}/importance"): lambda: (
            bench_path(tb, "/importance?metric=bleu"), None),
        ("get", "/v1/benchmarks/{namespace}/{name}/compare"): lambda: (
            bench_path(tb, "/compare?with=" + tb), None),
        ("get", "/v1/simulations"): lambda: ("/v1/simulations", None),
        ("get", "/v1/simulations/{id}"): lambda: ("/v1/simulations/%d" % L.sim, None),
        ("delete", "/v1/simulations/{id}"): lambda: (
            "/v1/simulations/%d" % L.cancellable(), None),
        ("post", "/v1/tokens"): lambda: ("/v1/tokens", {"role": "read"}),
        ("get", "/v1/tokens"): lambda: ("/v1/tokens", None),
        ("get", "/v1/audit"): lambda: ("/v1/audit?limit=5", None),
        ("delete", "/v1/tokens/{id}"): lambda: ("/v1/tokens/%d" % expect(L.call(
            "POST", "/v1/tokens", {"role": "read", "lab": "mt"}, token=L.root), 201)["id"], None),
    }


# The routes open to all whose spec path has a parameter: a path to call.
OPEN_PATHS = {("get", "/web/{file}"): "/web/app.js"}


def operations():
    """(method, path, role) of every operation of the spec."""
    out = []
    for path, item in cfg.spec.doc["paths"].items():
        for m, op in item.items():
            if m in ("get", "post", "put", "patch", "delete"):
                out.append((m, path, op.get("x-hpod-role")))
    return out


@test("auth: every operation declares its role; each role against each route (2xx or 403)")
def t_matrix(c):
    L = c.fixture("lab")
    reqs = requests(L)
    ops = operations()
    for m, path, role in ops:
        check(role in RANK, "%s %s: x-hpod-role %r" % (m.upper(), path, role))
    needed = {(m, p) for m, p, role in ops if role != "none"}
    check(needed == set(reqs), "operations without a matrix row: %s; rows without an "
          "operation: %s" % (sorted(needed - set(reqs)), sorted(set(reqs) - needed)))
    for m, p, role in ops:
        if role == "none":  # open even with tokens on
            expect(L.call(m.upper(), OPEN_PATHS.get((m, p), p)), 200)
            continue
        for have in ("read", "write", "admin"):
            path, body = reqs[(m, p)]()
            r = L.call(m.upper(), path, body, token=L.tok[(have, "mt")])
            if RANK[have] >= RANK[role]:
                check(200 <= r.status < 300, "%s token, %s %s: %r" % (have, m.upper(), p, r))
            else:
                expect_error(r, 403, "permission_denied")


@test("auth: no, malformed, unknown, expired and revoked tokens are 401 with WWW-Authenticate")
def t_unauthenticated(c):
    L = c.fixture("lab")
    reqs = requests(L)
    expiring = expect(L.call("POST", "/v1/tokens", {"role": "admin", "lab": "mt",
                                                    "expires_in": 1}, token=L.root), 201)
    check(expiring["expires_at"] is not None and expiring["state"] == "active",
          "expiring token %r" % expiring)
    revoked = expect(L.call("POST", "/v1/tokens", {"role": "admin", "lab": "mt"},
                            token=L.root), 201)
    expect(L.call("GET", "/v1/studies", token=revoked["token"]), 200)
    r = expect(L.call("DELETE", "/v1/tokens/%d" % revoked["id"], token=L.root), 200)
    check(r["state"] == "revoked" and r["revoked_at"], "revoked %r" % r)
    time.sleep(max(CACHE_S + 0.2, 1.3))  # the expiry (1 s) and the cache
    bad = {
        "no token": None,
        "malformed": "not-a-token",
        "unknown": "hpod_" + "0" * 64,
        "expired": expiring["token"],
        "revoked": revoked["token"],
    }
    for (m, p), fn in sorted(reqs.items()):
        path, body = fn()
        for what, tok in bad.items():
            r = L.call(m.upper(), path, body, token=tok)
            e = expect_error(r, 401, "unauthenticated")
            ch = r.headers.get("www-authenticate", "")
            check(ch.startswith("Bearer realm=\"hpod\""), "%s: WWW-Authenticate %r" % (what, ch))
            check(("invalid_token" in ch) == (tok is not None),
                  "%s: challenge %r" % (what, ch))
            if what in ("expired", "revoked"):
                check(what in e["message"], "%s: message %r" % (what, e["message"]))
    # A scheme other than Bearer is no token either.
    r = call(L.port, "GET", "/v1/studies", headers={"Authorization": "Basic dXNlcjpwdw=="})
    expect_error(r, 401, "unauthenticated")
    listed = {t["id"]: t for t in expect(L.call("GET", "/v1/tokens", token=L.root), 200)["tokens"]}
    check(listed[expiring["id"]]["state"] == "expired", "listed %r" % listed[expiring["id"]])
    check(listed[revoked["id"]]["state"] == "revoked", "listed %r" % listed[revoked["id"]])


@test("auth: another lab's studies, trials, simulations, tables and tokens are 404, lists hide them")
def t_other_lab(c):
    L = c.fixture("lab")
    reqs = requests(L)
    roles = {(m, p): role for m, p, role in operations()}
    for (m, p), fn in sorted(reqs.items()):
        if "{" not in p:
            continue
        path, body = fn()
        # The role is checked first (403 says nothing about the id), then
        # the lab: 404 as for an id that does not exist.
        for have in ("read", "admin"):
            r = L.call(m.upper(), path, body, token=L.tok[(have, "nlp")])
            if RANK[have] >= RANK[roles[(m, p)]]:
                expect_error(r, 404, "not_found")
            else:
                expect_error(r, 403, "permission_denied")
        # The admin of every lab sees it.
        path, body = fn()
        r = L.call(m.upper(), path, body, token=L.root)
        check(200 <= r.status < 300, "root: %r" % r)
    nlp = L.tok[("admin", "nlp")]
    names = [b["name"] for b in expect(L.call("GET", "/v1/benchmarks", token=nlp), 200)["benchmarks"]]
    check(not any(n.startswith("mt/") for n in names), "nlp lists mt tables: %r" % names)
    mine = [b["name"] for b in expect(L.call("GET", "/v1/benchmarks", token=L.tok[("read", "mt")]),
                                      200)["benchmarks"]]
    check(L.table in mine, "mt does not list its table: %r" % mine)
    sims = expect(L.call("GET", "/v1/simulations", token=nlp), 200)
    check(sims["total"] == 0 and sims["simulations"] == [], "nlp sees simulations %r" % sims)
    sims = expect(L.call("GET", "/v1/simulations", token=L.tok[("read", "mt")]), 200)
    check(L.sim in [s["id"] for s in sims["simulations"]], "mt does not see its simulation")
    studies = expect(L.call("GET", "/v1/studies?limit=1000", token=nlp), 200)
    check([x["lab"] for x in studies["studies"]] == ["nlp"] * studies["total"] and
          L.nlp_study in [x["id"] for x in studies["studies"]],
          "nlp lists %r" % [(x["id"], x["lab"]) for x in studies["studies"]])
    expect_error(L.call("GET", "/v1/studies?lab=mt", token=nlp), 403, "permission_denied")
    everything = expect(L.call("GET", "/v1/studies?limit=1000", token=L.root), 200)
    check({x["lab"] for x in everything["studies"]} == {"mt", "nlp"}, "root lists %r"
          % {x["lab"] for x in everything["studies"]})
    expect_error(L.call("POST", "/v1/studies", {"name": "x", "lab": "mt", "space": SPACE4,
                                               "objectives": BLEU_MAX}, token=nlp),
                 403, "permission_denied", "lab")
    expect_error(L.call("POST", "/v1/studies", {"name": "x", "benchmark": L.table,
                                               "objectives": BLEU_MAX}, token=nlp),
                 422, "invalid_argument", "benchmark")
    made = expect(L.call("POST", "/v1/studies", {"name": "x", "benchmark": L.table,
                                                "objectives": BLEU_MAX},
                         token=L.tok[("write", "mt")]), 201)
    check(made["lab"] == "mt", "study lab %r" % made["lab"])
    toks = expect(L.call("GET", "/v1/tokens", token=nlp), 200)["tokens"]
    check(toks and all(t["lab"] == "nlp" for t in toks), "nlp admin lists %r" % toks)
    # Naming another lab is a 403 (nothing about ids leaks from it).
    expect_error(L.call("POST", "/v1/tokens", {"role": "read", "lab": "mt"}, token=nlp),
                 403, "permission_denied", "lab")
    expect_error(L.call("POST", "/v1/benchmarks", synthetic_table("mt/from-nlp"), token=nlp),
                 403, "permission_denied", "name")
    # A lab admin's token without a lab is of its own lab.
    t = expect(L.call("POST", "/v1/tokens", {"role": "read"}, token=nlp), 201)
    check(t["lab"] == "nlp", "token %r" % t)
    # warm_start from another lab's study is 404, from its table 422; the
    # owning lab may use both.
    cands = [{"lr": 0.01, "layers": k, "bpe": 30000, "opt": "adam"} for k in (1, 2, 3)]
    ws = {"name": "ws", "space": SPACE4, "candidates": cands, "objectives": BLEU_MAX,
          "algorithm": {"name": "gp"}}
    nlp_w = L.tok[("write", "nlp")]
    expect_error(L.call("POST", "/v1/studies", dict(ws, warm_start={"study": L.imp_study}),
                        token=nlp_w), 404, "not_found")
    expect_error(L.call("POST", "/v1/studies", dict(ws, warm_start={"benchmark": L.table}),
                        token=nlp_w), 422, "invalid_argument", "warm_start.benchmark")
    made = expect(L.call("POST", "/v1/studies", dict(ws, warm_start={"study": L.imp_study}),
                         token=L.tok[("write", "mt")]), 201)
    check(made["warm_start"] == {"study": L.imp_study}, "warm_start %r" % made)


@test("auth: tokens are stored as SHA-256 only; the secret is shown once")
def t_hashed(c):
    L = c.fixture("lab")
    t = expect(L.call("POST", "/v1/tokens", {"role": "write", "lab": "mt", "note": "hash"},
                      token=L.root), 201)
    check(SECRET.match(t["token"]), "secret %r" % t["token"])
    rows = psql(L.url, "SELECT t::text FROM tokens t")
    for secret in [t["token"], L.root] + list(L.tok.values()):
        check(secret not in rows and secret[5:] not in rows,
              "a secret is stored in clear")
    import hashlib
    h = psql(L.url, "SELECT encode(hash, 'hex') FROM tokens WHERE id = %d" % t["id"]).strip()
    check(h == hashlib.sha256(t["token"].encode()).hexdigest(), "stored hash %r" % h)
    listed = expect(L.call("GET", "/v1/tokens", token=L.root), 200)["tokens"]
    check(all("token" not in x for x in listed), "the list shows a secret")
    one = [x for x in listed if x["id"] == t["id"]]
    check(one and one[0]["note"] == "hash" and one[0]["state"] == "active", "listed %r" % one)


@test("auth: a revocation is seen by a second hpod serve on the same database within a second")
def t_revoke_replica(c):
    L = c.fixture("lab")
    b = server_on(c, L.url)
    t = expect(L.call("POST", "/v1/tokens", {"role": "read", "lab": "mt"}, token=L.root), 201)
    # Both servers have checked (and cached) the token.
    for port in (L.port, b.port):
        expect(call(port, "GET", "/v1/studies", token=t["token"]), 200)
    expect(L.call("DELETE", "/v1/tokens/%d" % t["id"], token=L.root), 200)
    time.sleep(CACHE_S + 0.1)  # within a second of the revocation
    expect_error(call(b.port, "GET", "/v1/studies", token=t["token"]), 401, "unauthenticated")
    b.stop()


@test("auth: hpod token create/list/revoke on the command line; --if-none makes one first token")
def t_cli(c):
    url = new_database(c, "hpod_auth_cli")
    rc, out, err = hpod(c, url, "token", "create", "--role", "admin", "--if-none")
    lines = out.strip().splitlines()
    check(len(lines) == 1 and SECRET.match(lines[-1]), "stdout %r" % out)
    rc, out2, err2 = hpod(c, url, "token", "create", "--role", "admin", "--if-none")
    check(out2 == "" and "exists" in err2, "second --if-none printed %r / %r" % (out2, err2))
    rc, out3, _ = hpod(c, url, "token", "create", "--role", "read", "--lab", "mt",
                       "--expires", "30d")
    secret = out3.strip().splitlines()[-1]
    check(SECRET.match(secret), "stdout %r" % out3)
    rc, listing, _ = hpod(c, url, "token", "list")
    rows = [ln.split("\t") for ln in listing.strip().splitlines()]
    check(len(rows) == 2 and rows[1][1:4] == ["read", "mt", "active"], "list %r" % rows)
    hpod(c, url, "token", "revoke", rows[1][0])
    rc, listing, _ = hpod(c, url, "token", "list")
    check("revoked" in listing.splitlines()[1], "after revoke %r" % listing)
    for bad in (["token"], ["token", "create"], ["token", "create", "--role", "root"],
                ["token", "create", "--role", "read", "--expires", "0d"],
                ["token", "create", "--role", "read", "--lab", "nmthpo"],
                ["token", "revoke", "x"]):
        rc, _, _ = hpod(c, url, *bad, check_rc=False)
        check(rc == 2, "%r exited %d, expected 2" % (bad, rc))
    # Eight concurrent --if-none on a fresh database: one token.
    url2 = new_database(c, "hpod_auth_race")
    e = dict(os.environ, HPOD_DATABASE_URL=url2)
    procs = [subprocess.Popen([c.args.hpod, "token", "create", "--role", "admin", "--if-none"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=e)
             for _ in range(8)]
    outs = [p.communicate(timeout=120)[0].decode() for p in procs]
    check(all(p.returncode == 0 for p in procs), "exit codes %r" % [p.returncode for p in procs])
    check(sum(1 for o in outs if o.strip()) == 1, "secrets printed: %r" % outs)
    check(psql(url2, "SELECT count(*) FROM tokens").strip() == "1", "not one token")


@test("auth: serve refuses a non-loopback address without tokens unless HPOD_AUTH=off")
def t_listen(c):
    url = new_database(c, "hpod_auth_listen")
    env = dict(os.environ, HPOD_DATABASE_URL=url, HPOD_LISTEN_ADDR="0.0.0.0", HPOD_PORT="0")
    r = subprocess.run([c.args.hpod, "serve"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, timeout=60, env=env)
    log = r.stdout.decode()
    check(r.returncode != 0 and "refusing to listen on 0.0.0.0" in log,
          "serve on 0.0.0.0 without tokens: exit %d\n%s" % (r.returncode, log[-1500:]))
    s = server_on(c, url, {"HPOD_LISTEN_ADDR": "0.0.0.0", "HPOD_AUTH": "off"})
    expect(call(s.port, "GET", "/v1/studies"), 200)
    s.stop()
    with open(s.logpath) as f:
        check("HPOD_AUTH=off" in f.read(), "no warning logged for HPOD_AUTH=off")
    _, out, _ = hpod(c, url, "token", "create", "--role", "admin")
    s = server_on(c, url, {"HPOD_LISTEN_ADDR": "0.0.0.0"})
    expect_error(call(s.port, "GET", "/v1/studies"), 401, "unauthenticated")
    expect(call(s.port, "GET", "/v1/studies", token=out.strip()), 200)
    expect(call(s.port, "GET", "/healthz"), 200)
    s.stop()
    r = subprocess.run([c.args.hpod, "serve"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, timeout=60,
                       env=dict(env, HPOD_AUTH="maybe"))
    check(r.returncode == 2 and b"HPOD_AUTH" in r.stdout, "HPOD_AUTH=maybe: %d %r"
          % (r.returncode, r.stdout[-300:]))


@test("auth: POST /v1/tokens rejects bad bodies and changes nothing")
def t_token_bad(c):
    L = c.fixture("lab")
    before = psql(L.url, "SELECT count(*) FROM tokens")
    for body, status, field in (
            ({}, 400, "role"), ({"role": 3}, 400, "role"), ({"role": "root"}, 422, "role"),
            ({"role": "read", "lab": 5}, 400, "lab"), ({"role": "read", "lab": "a/b"}, 422, "lab"),
            ({"role": "read", "lab": "nmtlc"}, 422, "lab"),
            ({"role": "read", "expires_in": 0}, 422, "expires_in"),
            ({"role": "read", "expires_in": 1.5}, 400, "expires_in"),
            ({"role": "read", "expires_in": 10 ** 12}, 422, "expires_in"),
            ({"role": "read", "note": "x" * 201}, 422, "note"),
            ({"role": "read", "bogus": 1}, 400, "bogus")):
        expect_error(L.call("POST", "/v1/tokens", body, token=L.root), status,
                     "invalid_argument", field)
    expect_error(L.call("DELETE", "/v1/tokens/999999", token=L.root), 404, "not_found")
    check(psql(L.url, "SELECT count(*) FROM tokens") == before, "a bad request wrote a token")


CLIENT_SCRIPT = r'''
import json, os, hpod
from hpod import HpodClient, HpodError

c = HpodClient()  # HPOD_URL and HPOD_TOKEN from the environment
space = [{"name": "x", "type": "float", "low": 0.0, "high": 1.0},
         {"name": "k", "type": "categorical", "choices": ["a", "b,c", "d\"e"]}]
definition = {"name": "client-lab", "space": space,
              "objectives": [{"name": "score", "goal": "maximize"}],
              "algorithm": {"name": "random", "seed": 3}, "budget": 6}
s = hpod.create_study(definition, load_if_exists=True, metadata={"owner": "me"})
again = hpod.create_study(definition, load_if_exists=True)
first = c.enqueue_trial(s.id, {"x": 0.25, "k": "b,c"}, metadata={"why": "a hunch"})
added = c.add_trial(s.id, {"x": 0.75, "k": "a"}, {"score": 0.5})
seen = []
def fn(trial):
    seen.append(trial.params)
    return trial.params["x"]
summary = s.optimize(fn, n_trials=3, n_workers=1)
csv = c.trials_csv(s.id)
loaded = hpod.load_study("client-lab")
finished = c.patch_study(s.id, state="finished")
after = c.suggest(s.id, "late")
try:
    HpodClient(token="hpod_" + "0" * 64).list_studies()
    status = None
except HpodError as e:
    status = (e.status, e.code)
print(json.dumps({"id": s.id, "again": again.id, "lab": s.lab, "first": first,
                  "added": added, "seen": seen, "summary": summary.as_dict(),
                  "csv": csv, "loaded": loaded.id, "finished": finished["state"],
                  "after": after, "bad": status}))
'''


@test("auth: the Python client on a lab server: HPOD_TOKEN, load_if_exists, enqueue, add, optimize, CSV, load_study, finish")
def t_client_lab(c):
    import csv
    import io
    import json
    L = c.fixture("lab")
    v = c.fixture("client_venv")
    path = os.path.join(v["dir"], "lab_client.py")
    with open(path, "w") as f:
        f.write(CLIENT_SCRIPT)
    r = subprocess.run([v["python"], path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, timeout=300,
                       env=dict(os.environ, PYTHONPATH="", HPOD_URL="http://127.0.0.1:%d" % L.port,
                                HPOD_TOKEN=L.tok[("write", "mt")]))
    out = r.stdout.decode()
    check(r.returncode == 0, "client script exited %d:\n%s" % (r.returncode, out[-3000:]))
    got = json.loads(out.strip().splitlines()[-1])
    check(got["again"] == got["id"] == got["loaded"] and got["lab"] == "mt", "ids %r" % got)
    check(got["first"]["state"] == "waiting" and got["first"]["origin"] == "enqueued",
          "enqueued %r" % got["first"])
    check(got["added"]["state"] == "completed" and got["added"]["origin"] == "added",
          "added %r" % got["added"])
    check(got["seen"][0] == {"x": 0.25, "k": "b,c"}, "the enqueued trial came not first: %r"
          % got["seen"])
    check(got["summary"]["completed"] == 3, "summary %r" % got["summary"])
    rows = list(csv.DictReader(io.StringIO(got["csv"])))
    check(len(rows) == 4 and {r_["params.k"] for r_ in rows} >= {"b,c", "a"},
          "csv rows %r" % rows)
    check(got["finished"] == "finished" and got["after"]["done"] is True
          and got["after"]["trials"] == [], "after finish %r" % got["after"])
    check(got["bad"] == [401, "unauthenticated"], "bad token %r" % got["bad"])
    # The other lab does not find it by name.
    page = expect(L.call("GET", "/v1/studies?name=client-lab", token=L.tok[("read", "nlp")]), 200)
    check(page["total"] == 0, "nlp finds mt's study by name: %r" % page)
