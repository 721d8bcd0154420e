"""tests/api/test_contract.py - contract details: 404 before anything else on
an unknown benchmark, objectives with one entry, 405 with Allow, declared
and unknown query parameters on every route, the answers libmicrohttpd
gives itself.
"""

import json
import re
import socket

from harness import call, cfg, check, expect, expect_error, short, test
from client import BLEU_MAX, SPACE4, create, get_trial, suggest
from tables import bench_path, simulate, synthetic_table


def raw_http(port, data, timeout=30):
    """Sends bytes as they are on a fresh connection (closing our side for
    writing) and returns everything the server sent back."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    out = b""
    try:
        try:
            s.sendall(data)  # the server may answer and close before the end
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        while True:
            try:
                b = s.recv(65536)
            except ConnectionResetError:
                break
            if not b:
                break
            out += b
    finally:
        s.close()
    return out


def raw_status(data):
    """(status, headers dict lower-cased, body) of the first answer in data."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    m = re.match(r"^HTTP/1\.[01] (\d{3}) ", lines[0])
    check(m, "not an HTTP answer: %r" % data[:200])
    hdrs = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return int(m.group(1)), hdrs, body


@test("contract: a benchmark that does not exist is 404 before anything else")
def t_contract_bench_404(c):
    # Every operation under /v1/benchmarks/{name}, with bodies that are
    # wrong in every other way (see also the bad-request cases).
    for method, suffix, body in (
            ("GET", "", None),
            ("POST", "/evaluate", {"params": "x", "step": -1, "bogus": 1}),
            ("POST", "/simulate", {"algorithm": {"name": "asha"}, "init": 0,
                                   "objective": {"name": "bleu"},
                                   "objectives": [{"name": "bleu"}]}),
            ("POST", "/simulate", {"algorithm": "gp", "workers": 0})):
        for name in ("lab/nope", "nmtlc/nope", "nmthpo/xx-yy"):
            r = call(c.port, method, bench_path(name, suffix), body)
            expect_error(r, 404, "not_found", "")
            check(name in r.json["error"]["message"], "message does not name %s: %r" % (name, r))


@test("contract: simulate takes objectives with one entry, objective is its alias")
def t_contract_objectives(c):
    expect(call(c.port, "POST", "/v1/benchmarks", synthetic_table("lab/contract-obj")), 201)
    for goal in ("maximize", "minimize"):
        for algo in ({"name": "random"}, {"name": "gp", "kernel": "matern52"}):
            base = {"algorithm": algo, "repeats": 3, "seed": 11, "init": 2}
            obj = {"name": "bleu" if goal == "maximize" else "gpu_time", "goal": goal}
            a = simulate(c, "lab/contract-obj", dict(base, objective=obj))
            b = simulate(c, "lab/contract-obj", dict(base, objectives=[obj]))
            check(a["id"] != b["id"], "one simulation stored for two requests")
            for k in ("sequences", "metrics", "objective", "algorithm", "tolerance", "budget"):
                check(a[k] == b[k], "%s/%s: %s differs: objective %s, objectives %s"
                      % (goal, algo["name"], k, short(a[k], 120), short(b[k], 120)))
            check(a["objective"] == obj, "stored objective %r" % a["objective"])
    # The default objective is the same as an explicit bleu/maximize.
    base = {"repeats": 2, "seed": 3}
    d = simulate(c, "lab/contract-obj", base)
    e = simulate(c, "lab/contract-obj", dict(base, objectives=[{"name": "bleu",
                                                                "goal": "maximize"}]))
    check(d["sequences"] == e["sequences"] and d["metrics"] == e["metrics"],
          "default objective and objectives [bleu] differ")
    # Two entries still make the multi-objective run.
    m = simulate(c, "lab/contract-obj", dict(base, objectives=[
        {"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]))
    check(set(m["metrics"]) == {"fto", "fta", "fbp"}, "two objectives: metrics %r"
          % sorted(m["metrics"]))


@test("contract: 405 answers carry Allow with the path's methods")
def t_contract_405_allow(c):
    sid = create(c, {"name": "allow", "space": SPACE4[:1], "objectives": BLEU_MAX})["id"]
    cases = [("PUT", "/v1/studies/%d" % sid, "GET, PATCH, DELETE"),
             ("PATCH", "/v1/studies", "POST, GET"),
             ("DELETE", "/v1/studies", "POST, GET"),
             ("GET", "/v1/studies/%d/suggest" % sid, "POST"),
             ("POST", "/healthz", "GET"),
             ("DELETE", "/v1/benchmarks", "GET, POST"),
             ("GET", "/v1/benchmarks/lab/nope/simulate", "POST"),
             ("PUT", "/v1/trials/1/report", "POST"),
             ("OPTIONS", "/v1/simulations", "GET")]
    for method, path, allow in cases:
        r = call(c.port, method, path)  # the validator checks Allow against the spec
        expect_error(r, 405, "method_not_allowed", "")
        check(r.headers.get("allow") == allow, "%s %s: Allow %r, expected %r"
              % (method, path, r.headers.get("allow"), allow))
    # HEAD is not served: 405 with Allow and no body.
    r = call(c.port, "HEAD", "/healthz")
    check(r.status == 405 and r.raw == b"" and r.headers.get("allow") == "GET",
          "HEAD /healthz: %r %r" % (r, r.headers))
    # An unknown path is a 404 without Allow.
    r = call(c.port, "PUT", "/v1/nothing")
    expect_error(r, 404, "not_found")
    check("allow" not in r.headers, "404 with Allow %r" % r.headers.get("allow"))


QUERY_VALUES = {"state": "pending", "ranks": "true", "history": "false", "format": "json",
                "benchmark": "lab/x", "limit": "1", "offset": "0"}


@test("contract: declared query parameters pass, unknown ones are 400 on every route")
def t_contract_query(c):
    sid = create(c, {"name": "query", "space": SPACE4[:1], "objectives": BLEU_MAX})["id"]
    tid = suggest(c, sid, "q")["trials"][0]["id"]
    # Each operation's declared parameters are accepted...
    for path in ("/v1/studies?limit=1&offset=0", "/v1/studies/%d/trials?state=pending&limit=5"
                 "&offset=0" % sid, "/v1/studies/%d/pareto?ranks=true&history=false" % sid,
                 "/v1/simulations?limit=1&offset=0&benchmark=lab/x"):
        expect(call(c.port, "GET", path), 200)
    # ... and every route rejects one it does not declare, naming it.
    n = n_declared = 0
    for tmpl, m in cfg.spec.operations():
        path = (tmpl.replace("{id}", str(tid if tmpl.startswith("/v1/trials") else sid))
                .replace("{namespace}", "lab").replace("{name}", "nope")
                .replace("{file}", "app.js"))
        params = [cfg.spec.deref(p) for p in (cfg.spec.doc["paths"][tmpl][m].get("parameters", [])
                                          + cfg.spec.doc["paths"][tmpl].get("parameters", []))]
        declared = [p["name"] for p in params if p.get("in") == "query"]
        n_declared += len(declared)
        check("zzz" not in declared, "zzz declared on %s" % tmpl)
        r = call(c.port, m.upper(), path + "?zzz=1", {} if m == "post" else None)
        expect_error(r, 400, "invalid_argument", "zzz")
        check("zzz" in r.json["error"]["message"], "message does not name it: %r" % r)
        # The spec and the route table list the same parameters: each one
        # the spec declares gets past the check (whatever the handler then
        # says about its value or the resource).
        for q in declared:
            if m != "get":
                continue
            r = call(c.port, "GET", "%s?%s=%s" % (path, q, QUERY_VALUES.get(q, "1")))
            check(not (r.status == 400 and "unknown query parameter" in r.json["error"]["message"]),
                  "%s declares %r, the server does not: %r" % (tmpl, q, r))
        n += 1
    check(n >= 20 and n_declared == 26, "%d operations, %d query parameters" % (n, n_declared))
    t = get_trial(c, tid)
    check(t["state"] == "pending", "a rejected request changed the trial: %r" % short(t))


@test("contract: errors libmicrohttpd answers itself (documented in the spec)")
def t_contract_protocol(c):
    desc = cfg.spec.doc["info"]["description"]
    for code in ("400", "414", "431", "505", "100 Continue", "413"):
        check(code in desc, "info.description does not document %s" % code)
    host = b"Host: 127.0.0.1\r\nConnection: close\r\n"
    cases = [
        ("no HTTP version", b"GET /healthz\r\n\r\n", 400),
        ("header without a colon", b"GET /healthz HTTP/1.1\r\n" + host + b"Oops\r\n\r\n", 400),
        ("bad Content-Length", b"POST /v1/studies HTTP/1.1\r\n" + host
         + b"Content-Length: abc\r\n\r\n", 400),
        ("bad chunked encoding", b"POST /v1/studies HTTP/1.1\r\n" + host
         + b"Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n", 400),
        ("URI too long", b"GET /healthz?" + b"a" * 70000 + b" HTTP/1.1\r\n" + host + b"\r\n", 414),
        ("headers too large", b"GET /healthz HTTP/1.1\r\n" + host + b"X-Big: "
         + b"a" * 70000 + b"\r\n\r\n", 431),
        ("HTTP/2.0", b"GET /healthz HTTP/2.0\r\n" + host + b"\r\n", 505),
        ("HTTP/0.9", b"GET /healthz HTTP/0.9\r\n\r\n", 505),
    ]
    for name, data, want in cases:
        st, hdrs, body = raw_status(raw_http(c.port, data))
        check(st == want, "%s: %d, expected %d" % (name, st, want))
        check("x-request-id" not in hdrs, "%s: answered by hpod, not by MHD: %r" % (name, hdrs))
        check(not body.startswith(b"{"), "%s: a JSON body %r" % (name, body[:100]))
    # Not well-formed enough for an answer: the connection is closed.
    out = raw_http(c.port, b"GARBAGE\r\n\r\n")
    check(out == b"", "a single word: answered %r" % out[:200])
    # A body it cannot delimit (Transfer-Encoding gzip): no answer while
    # the client keeps the connection open.
    s = socket.create_connection(("127.0.0.1", c.port), timeout=1.0)
    try:
        s.sendall(b"POST /v1/studies HTTP/1.1\r\n" + host + b"Transfer-Encoding: gzip\r\n\r\n")
        try:
            got = s.recv(100)
        except socket.timeout:
            got = None
    finally:
        s.close()
    check(got is None, "Transfer-Encoding gzip: %r within 1 s" % got)
    # Expect: 100-continue is answered by MHD, then hpod answers the body.
    out = raw_http(c.port, b"POST /v1/studies HTTP/1.1\r\n" + host
                   + b"Expect: 100-continue\r\nContent-Type: application/json\r\n"
                   + b"Content-Length: 2\r\n\r\n{}")
    check(out.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"), "no 100 Continue: %r" % out[:100])
    st, hdrs, body = raw_status(out[len(b"HTTP/1.1 100 Continue\r\n\r\n"):])
    check(st == 400 and json.loads(body)["error"]["field"] == "name",
          "after 100 Continue: %d %r" % (st, body[:200]))
    # A body over the limit is hpod's own 413 with the Error body,
    # answered on its Content-Length before the body is read.
    big = b'{"name": "' + b"x" * (1024 * 1024 + 10) + b'"}'
    r = call(c.port, "POST", "/v1/studies", raw=big)
    expect_error(r, 413, "payload_too_large")
    # Just under the memory limit a long query is still hpod's to answer.
    r = call(c.port, "GET", "/v1/studies?" + "a" * 8000 + "=1")
    expect_error(r, 400, "invalid_argument", "a" * 63)
