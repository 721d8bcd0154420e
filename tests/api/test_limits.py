"""tests/api/test_limits.py - one client cannot hold the HTTP front of a
shared server: connections per client address and the deadlines of
headers and body, the caller decided from the headers before any body
byte is read (401, 403 and 413 at once), requests per token per second,
bounded and escaped /metrics labels, the security headers of every
answer, control characters in paths, spreadsheet formulas in CSV,
look-alike study names, and a revocation seen at once.

The attacker connects from its own loopback address (127.0.0.2), so the
per-address limit tells it apart from the test's client on 127.0.0.1.
Every loop is bounded; the servers get short deadlines through their
environment. The servers with tokens run on a database of their own
(hpod_limits): once a token exists, every request to it needs one.
"""

import csv
import http.client
import io
import json
import os
import random
import re
import select
import socket
import subprocess
import time

from harness import (Fail, Server, call, check, expect, expect_error, fixture,
                     fresh_database, psql, test)
from client import BLEU_MAX, SPACE4, create, uname
from test_contract import raw_status

ATTACKER = "127.0.0.2"


def server(c, url=None, env=None):
    s = Server(c.args.hpod, c.logdir, url or c.dburl)
    s.extra_env = env or {}
    c.servers.append(s)
    return s.start()


def hpod(c, url, *args):
    r = subprocess.run([c.args.hpod] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120,
                       env=dict(os.environ, HPOD_DATABASE_URL=url))
    check(r.returncode == 0, "hpod %s exited %d: %s" % (" ".join(args), r.returncode,
                                                       r.stderr.decode()))
    return r.stdout.decode()


DEADLINE_MS = 2500


@fixture
def limits_front(c):
    """An open server with short deadlines (DEADLINE_MS for the headers,
    and for headers and body)."""
    return server(c, env={"HPOD_HEADER_TIMEOUT_MS": str(DEADLINE_MS),
                          "HPOD_BODY_TIMEOUT_MS": str(DEADLINE_MS)})


@fixture
def limits_lab(c):
    """(url, admin secret, server) of a database of this module's own with
    a first admin token, and a server on it with the default limits."""
    url = fresh_database(c.dburl, "hpod_limits")
    hpod(c, url, "migrate")
    root = hpod(c, url, "token", "create", "--role", "admin",
                "--note", "limits").strip().splitlines()[-1]
    return url, root, server(c, url)


def new_token(port, root, role, lab=None):
    body = {"role": role}
    if lab:
        body["lab"] = lab
    return expect(call(port, "POST", "/v1/tokens", body, token=root), 201)


def attacker_socket(port, timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((ATTACKER, 0))
    s.connect(("127.0.0.1", port))
    return s


def closed(s):
    """True when the server has closed s (EOF or reset), False while it
    is open and silent."""
    try:
        r, _, _ = select.select([s], [], [], 0)
        if not r:
            return False
        return s.recv(1, socket.MSG_PEEK) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except OSError:
        return True


def read_answer(s, timeout=10.0):
    """Everything the server sends on s until it closes or a whole answer
    (headers and Content-Length bytes) is in; b"" if nothing came."""
    s.settimeout(timeout)
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        head, sep, body = out.partition(b"\r\n\r\n")
        if sep:
            m = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
            if m and len(body) >= int(m.group(1)):
                break
        try:
            b = s.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            break
        except socket.timeout:
            break
        if not b:
            break
        out += b
    return out


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for %d" % pid)


def timed_call(port, *a, **kw):
    t0 = time.monotonic()
    r = call(port, *a, **kw)
    return r, time.monotonic() - t0


@test("limits: 1,000 trickling connections from one address: another address is served, "
      "and they are closed at the header deadline")
def t_idle_connections(c):
    hdr_ms = DEADLINE_MS
    s = c.fixture("limits_front")
    socks, refused = [], 0
    t0 = time.monotonic()
    try:
        for i in range(1000):
            try:
                k = attacker_socket(s.port)
                k.sendall(b"GET /healthz HTTP/1.1\r\n")
                socks.append(k)
            except OSError:
                refused += 1
        # Trickle one header byte on each while the server is asked from
        # another address: it answers at once, /healthz included.
        for k in socks:
            try:
                k.send(b"X")
            except OSError:
                pass
        for path in ("/healthz", "/v1/studies", "/metrics"):
            try:
                r, sec = timed_call(s.port, "GET", path, timeout=10)
            except (OSError, http.client.HTTPException) as e:
                raise Fail("GET %s from 127.0.0.1 beside 1,000 held connections: %s"
                           % (path, e))
            check(r.status == 200 and sec < 2.0,
                  "GET %s from 127.0.0.1 beside 1,000 held connections: %r in %.2f s"
                  % (path, r, sec))
        open_now = [k for k in socks if not closed(k)]
        elapsed = time.monotonic() - t0
        held = len(open_now)
        # The per-address limit (HPOD_CONN_PER_ADDR, 128) let at most 128
        # in; those still wait for their headers (before the deadline).
        if elapsed < hdr_ms / 1000.0 - 0.2:
            check(1 <= len(open_now) <= 128,
                  "%d connections from one address still open after %.2f s (limit 128)"
                  % (len(open_now), elapsed))
        # Trickling on does not help: all are closed by the deadline.
        deadline = t0 + hdr_ms / 1000.0 + 4.0
        while time.monotonic() < deadline:
            for k in open_now:
                try:
                    k.send(b"X")
                except OSError:
                    pass
            open_now = [k for k in open_now if not closed(k)]
            if not open_now:
                break
            time.sleep(0.25)
        check(not open_now, "%d connections still open %.1f s after their header deadline"
              % (len(open_now), time.monotonic() - t0 - hdr_ms / 1000.0))
        print("# 1,000 connections from %s: %d connected, %d held at %.1f s (limit 128), "
              "all closed %.1f s after the first connect (header deadline %.1f s); "
              "GET /metrics from 127.0.0.1 in %.3f s"
              % (ATTACKER, len(socks), held, elapsed, time.monotonic() - t0,
                 hdr_ms / 1000.0, sec), flush=True)
    finally:
        for k in socks:
            k.close()
    text = call(s.port, "GET", "/metrics").raw.decode()
    m = re.search(r'^hpod_http_connections_cut_total\{phase="headers"\} (\d+)$', text, re.M)
    check(m and int(m.group(1)) >= 1, "cut connections not counted: %r" % (m and m.group(0)))


@test("limits: a body trickled past the body deadline is cut; a request within it is served")
def t_body_deadline(c):
    s = c.fixture("limits_front")
    k = attacker_socket(s.port, timeout=10)
    try:
        k.sendall(b"POST /v1/studies HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100\r\n\r\n{")
        t0 = time.monotonic()
        cut = False
        while time.monotonic() - t0 < DEADLINE_MS / 1000.0 + 4:
            try:
                k.send(b" ")
            except OSError:
                cut = True
                break
            if closed(k):
                cut = True
                break
            time.sleep(0.2)
        sec = time.monotonic() - t0
        check(cut and DEADLINE_MS / 1000.0 - 0.5 <= sec <= DEADLINE_MS / 1000.0 + 3,
              "trickled body: cut=%r after %.2f s (deadline %.1f s)"
              % (cut, sec, DEADLINE_MS / 1000.0))
    finally:
        k.close()
    r = call(s.port, "POST", "/v1/studies", {"name": uname("in time"), "space": SPACE4[:1],
                                             "objectives": BLEU_MAX})
    expect(r, 201)


@test("limits: 100 tokenless connections with 1 MiB bodies get 401 unread; "
      "the server grows by less than 40 MiB")
def t_tokenless_bodies(c):
    url, root, s = c.fixture("limits_lab")
    head = (b"POST /v1/studies HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1048576\r\n\r\n")
    chunk = b"[" * 65536
    # Warm up what every request allocates once.
    expect_error(call(s.port, "GET", "/v1/studies"), 401, "unauthenticated")
    before = rss_kib(s.proc.pid)
    peak = before
    socks = []
    try:
        # Ten send only their headers: the answer cannot be waiting for
        # the body.
        for i in range(10):
            k = attacker_socket(s.port)
            k.sendall(head)
            socks.append((k, 0))
        # Ninety push their bodies as far as the server lets them.
        for i in range(90):
            k = attacker_socket(s.port)
            k.sendall(head)
            sent = 0
            k.settimeout(0.05)
            try:
                while sent < 1048576:
                    sent += k.send(chunk)
            except (socket.timeout, OSError):
                pass
            socks.append((k, sent))
            if i % 10 == 0:
                peak = max(peak, rss_kib(s.proc.pid))
        for k, sent in socks:
            data = read_answer(k, timeout=10)
            st, hdrs, body = raw_status(data)
            check(st == 401 and json.loads(body)["error"]["code"] == "unauthenticated",
                  "tokenless 1 MiB POST: %d %r" % (st, body[:200]))
            check(hdrs.get("www-authenticate", "").startswith("Bearer"),
                  "401 without WWW-Authenticate: %r" % hdrs)
            peak = max(peak, rss_kib(s.proc.pid))
    finally:
        for k, _ in socks:
            k.close()
    grown = (peak - before) / 1024.0
    print("# 100 tokenless 1 MiB POSTs: VmRSS %.1f MiB before, peak %.1f MiB (+%.1f MiB)"
          % (before / 1024.0, peak / 1024.0, grown), flush=True)
    check(grown < 40, "RSS grew by %.1f MiB (from %.1f MiB) with 100 tokenless 1 MiB bodies"
          % (grown, before / 1024.0))


@test("limits: 413 and 403 are answered on the headers, before the body is sent")
def t_early_413_403(c):
    url, root, s = c.fixture("limits_lab")
    reader = new_token(s.port, root, "read")["token"]
    writer = new_token(s.port, root, "write")["token"]
    cases = [
        ("read token, 1 MiB body", reader, 1048576, 403, "permission_denied"),
        ("write token, 2 MiB body", writer, 2 * 1048576, 413, "payload_too_large"),
        ("write token, 10 GiB body", writer, 10 << 30, 413, "payload_too_large"),
    ]
    for name, tok, length, want, code in cases:
        k = attacker_socket(s.port)
        try:
            t0 = time.monotonic()
            k.sendall(b"POST /v1/studies HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                      + tok.encode() + b"\r\nContent-Type: application/json\r\n"
                      + b"Content-Length: %d\r\n\r\n" % length)
            data = read_answer(k, timeout=10)
            sec = time.monotonic() - t0
        finally:
            k.close()
        st, hdrs, body = raw_status(data)
        check(st == want and json.loads(body)["error"]["code"] == code,
              "%s: %d %r" % (name, st, body[:200]))
        check(sec < 5, "%s: answered after %.1f s" % (name, sec))
    # A refusal of a request without a body keeps the connection open for
    # the next request; one with a body closes it (the body is not read).
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
    try:
        for path, want in (("/v1/studies", 401), ("/nope", 404), ("/healthz", 200)):
            conn.request("GET", path)
            r = conn.getresponse()
            r.read()
            check(r.status == want and not r.will_close,
                  "GET %s on a kept-alive connection: %d, will_close %r"
                  % (path, r.status, r.will_close))
        conn.request("POST", "/v1/studies", body=b"{}",
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        check(r.status == 401 and r.will_close,
              "tokenless POST with a body: %d, will_close %r" % (r.status, r.will_close))
    finally:
        conn.close()
    # The same on an open server (the suite's).
    k = attacker_socket(c.port)
    try:
        k.sendall(b"PATCH /v1/studies/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                  b"\r\nContent-Length: 5000000\r\n\r\n")
        st, _, body = raw_status(read_answer(k))
    finally:
        k.close()
    check(st == 413, "open server, 5 MB PATCH: %d %r" % (st, body[:200]))


HTTP_TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
SAMPLE = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*'
                    r'(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
                    r'(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*\})?'
                    r' [-+]?(\d+(\.\d*)?([eE][-+]?\d+)?|\.\d+|Inf|NaN)$')


def raw_request(port, data):
    k = attacker_socket(port, timeout=10)
    try:
        k.sendall(data)
        return read_answer(k, timeout=10)
    except OSError:
        return b""
    finally:
        k.close()


def pipelined(port, reqs):
    """Sends the requests (bytes, without a body) in a row on one kept-alive
    connection and returns the statuses of the answers, in order."""
    k = attacker_socket(port, timeout=30)
    out, statuses = b"", []
    try:
        k.sendall(b"".join(reqs))
        while len(statuses) < len(reqs):
            head, sep, rest = out.partition(b"\r\n\r\n")
            m = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head) if sep else None
            if m and len(rest) >= int(m.group(1)):
                statuses.append(int(head[9:12]))
                out = rest[int(m.group(1)):]
                continue
            b = k.recv(65536)
            if not b:
                break
            out += b
    finally:
        k.close()
    return statuses


@test("limits: hostile methods leave /metrics valid and under 200 request series")
def t_metrics_methods(c):
    s = c.fixture("limits_front")
    rnd = random.Random(27)
    # Not HTTP tokens: each on a connection of its own (libmicrohttpd may
    # refuse them and close it).
    for m in (b'Q"}x', b"GET\\", b"X\x01Y", b"\x7f", b"G\"ET"):
        raw_request(s.port, m + b" /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    methods = ["".join(rnd.choice(HTTP_TOKEN_CHARS) for _ in range(rnd.randint(1, 12)))
               for _ in range(1000)] + ["get", "Get"]
    answered = 0
    for i in range(0, len(methods), 100):
        reqs = [("%s %s HTTP/1.1\r\nHost: x\r\n\r\n" % (m, p)).encode()
                for m in methods[i:i + 100] for p in ("/nope", "/v1/studies")]
        got = pipelined(s.port, reqs)
        check(set(got) <= {404, 405}, "unknown methods answered %r" % sorted(set(got)))
        answered += len(got)
    check(answered == 2 * len(methods), "%d of %d pipelined requests answered"
          % (answered, 2 * len(methods)))
    r = call(s.port, "GET", "/metrics")
    check(r.status == 200, "metrics %r" % r)
    text = r.raw.decode("utf-8")
    series = 0
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        check(SAMPLE.match(line), "not a Prometheus sample: %r" % line)
        if line.startswith("hpod_http_requests_total{"):
            series += 1
    check(0 < series < 200, "%d request series after %d methods" % (series, len(methods) + 5))
    check('method="other"' in text, "unknown methods are not folded into \"other\"")


@test("limits: a burst past the rate limit is 429 with Retry-After and changes nothing; "
      "a second token is unaffected")
def t_rate_limit(c):
    url, root, _ = c.fixture("limits_lab")
    s = server(c, url, env={"HPOD_RATE_PER_TOKEN": "1", "HPOD_RATE_BURST": "3"})
    a = new_token(s.port, root, "write", lab="ra")["token"]
    b = new_token(s.port, root, "read", lab="ra")["token"]
    prefix = uname("rate")
    created, limited = [], None
    for i in range(20):
        body = {"name": "%s %d" % (prefix, i), "space": SPACE4[:1], "objectives": BLEU_MAX,
                "lab": "ra"}
        r = call(s.port, "POST", "/v1/studies", body, token=a)
        if r.status == 201:
            created.append(r.json["id"])
            continue
        limited = r
        e = expect_error(r, 429, "resource_exhausted")
        check("token" in e["message"], "message %r" % e["message"])
        ra = r.headers.get("retry-after", "")
        check(ra.isdigit() and int(ra) >= 1, "Retry-After %r" % ra)
        # The other token of the same lab is not held back.
        r2 = call(s.port, "GET", "/v1/studies?lab=ra&limit=100", token=b)
        check(r2.status == 200, "second token after the first's 429: %r" % r2)
        break
    check(limited is not None, "20 creates in a row at 1/s (burst 3): no 429")
    # Nothing was written by the 429s: exactly the 201s are there.
    n = int(psql(url, "SELECT count(*) FROM studies WHERE name LIKE '%s %%'"
                 % prefix.replace("'", "''")).strip())
    check(n == len(created), "%d studies stored, %d answered 201" % (n, len(created)))
    time.sleep(int(limited.headers["retry-after"]))
    expect(call(s.port, "GET", "/v1/studies?lab=ra", token=a), 200)
    s.stop()


@test("limits: on an open server the rate limit counts per client address")
def t_rate_by_address(c):
    s = server(c, env={"HPOD_RATE_PER_TOKEN": "1", "HPOD_RATE_BURST": "2"})
    statuses = [call(s.port, "GET", "/v1/studies?limit=1").status for _ in range(10)]
    check(429 in statuses, "10 requests from 127.0.0.1 at 1/s (burst 2): %r" % statuses)
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30,
                                      source_address=(ATTACKER, 0))
    try:
        conn.request("GET", "/v1/studies?limit=1")
        st = conn.getresponse().status
    finally:
        conn.close()
    check(st == 200, "another address after 127.0.0.1's 429: %d" % st)
    s.stop()


def security_headers(r, what):
    csp = r.headers.get("content-security-policy", "")
    for part in ("default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"):
        check(part in csp, "%s: Content-Security-Policy %r lacks %s" % (what, csp, part))
    check("unsafe-eval" not in csp and "script-src 'self';" in csp,
          "%s: scripts other than the server's own allowed: %r" % (what, csp))
    check(r.headers.get("x-content-type-options") == "nosniff",
          "%s: X-Content-Type-Options %r" % (what, r.headers.get("x-content-type-options")))
    check(r.headers.get("x-frame-options") == "DENY",
          "%s: X-Frame-Options %r" % (what, r.headers.get("x-frame-options")))


@test("limits: Content-Security-Policy, nosniff and frame-ancestors on pages, answers and errors")
def t_security_headers(c):
    for path, want in (("/", 200), ("/web/app.js", 200), ("/v1/studies", 200),
                       ("/healthz", 200), ("/v1/studies/999999999", 404), ("/nope", 404)):
        r = call(c.port, "GET", path)
        check(r.status == want, "GET %s: %r" % (path, r))
        security_headers(r, "GET %s" % path)
    r = call(c.port, "POST", "/v1/studies", raw=b"{", ctype="application/json")
    expect_error(r, 400, "invalid_argument")
    security_headers(r, "a 400")


@test("limits: NUL and control characters in the path or query are 400")
def t_control_paths(c):
    for path in ("/web/app.js%00.png", "/web/app.js%00", "/v1/studies%0a", "/healthz%7f",
                 "/v1/studies?name=a%00b", "/v1/studies?name=%1b[31m"):
        r = call(c.port, "GET", path)
        e = expect_error(r, 400, "invalid_argument")
        check("control" in e["message"], "%s: %r" % (path, e["message"]))
    # Escapes of printable bytes are still paths as before.
    r = call(c.port, "GET", "/web/app%2Ejs")
    check(r.status == 200 and b"hpodDash" in r.raw, "GET /web/app%%2Ejs: %r" % r)


@test("limits: CSV cells a spreadsheet would run are prefixed with ', numbers stay numbers")
def t_csv_formulas(c):
    choices = ['=HYPERLINK("http://x.test","x")', "@SUM(1)", "+1", "-2", "\tx", "\rx",
               "plain", "a=b"]
    space = [{"name": "opt", "type": "categorical", "choices": choices},
             {"name": "shift", "type": "float", "low": -1.0, "high": 1.0}]
    sid = create(c, {"name": uname("csv formulas"), "space": space,
                     "objectives": BLEU_MAX})["id"]
    for i, ch in enumerate(choices):
        expect(call(c.port, "POST", "/v1/studies/%d/trials" % sid,
                    {"params": {"opt": ch, "shift": -0.5},
                     "values": {"bleu": -0.25 - i}}), 201)
    conn = http.client.HTTPConnection("127.0.0.1", c.port, timeout=60)
    try:
        conn.request("GET", "/v1/studies/%d/trials?limit=100" % sid,
                     headers={"Accept": "text/csv"})
        r = conn.getresponse()
        text = r.read().decode("utf-8")
    finally:
        conn.close()
    check(r.status == 200, "CSV: %d %r" % (r.status, text[:200]))
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    check(len(rows) == len(choices), "%d CSV rows" % len(rows))
    got = {row["params.opt"] for row in rows}
    want = {"'" + ch if ch[0] in "=+-@\t\r" else ch for ch in choices}
    check(got == want, "opt cells %r, expected %r" % (sorted(got), sorted(want)))
    for row in rows:
        check(row["params.shift"] == "-0.5", "a number was changed: %r" % row["params.shift"])
        check(float(row["values.bleu"]) < 0 and row["values.bleu"][0] == "-",
              "a metric was changed: %r" % row["values.bleu"])


@test("limits: look-alike study names: NFC and NFD are one name; zero-width and U+202E are 422")
def t_lookalike_names(c):
    base = uname("caf")
    nfc, nfd = base + "\u00e9", base + "e\u0301"
    body = {"space": SPACE4[:1], "objectives": BLEU_MAX}
    first = create(c, dict(body, name=nfc))
    check(first["name"] == nfc, "stored name %r" % first["name"])
    r = call(c.port, "POST", "/v1/studies", dict(body, name=nfd))
    expect_error(r, 409, "conflict")
    again = expect(call(c.port, "POST", "/v1/studies",
                        dict(body, name=nfd, load_if_exists=True)), 200)
    check(again["id"] == first["id"] and again["name"] == nfc, "load_if_exists %r" % again)
    found = expect(call(c.port, "GET", "/v1/studies?name=" +
                        "".join("%%%02X" % b for b in nfd.encode())), 200)["studies"]
    check([x["id"] for x in found] == [first["id"]], "NFD lookup found %r" % found)
    for bad, cp in ((base + "\u200bx", "U+200B"), ("\u202e" + base, "U+202E"),
                    (base + "\u2066x\u2069", "U+2066"), (base + "\u00adx", "U+00AD")):
        e = expect_error(call(c.port, "POST", "/v1/studies", dict(body, name=bad)), 422,
                         "invalid_argument", "name")
        check(cp in e["message"], "%r: message %r" % (bad, e["message"]))


@test("limits: a token revoked on a server is refused there at once")
def t_revoke_at_once(c):
    url, root, s = c.fixture("limits_lab")
    t = new_token(s.port, root, "read")
    for _ in range(3):  # verified and cached
        expect(call(s.port, "GET", "/v1/studies", token=t["token"]), 200)
    expect(call(s.port, "DELETE", "/v1/tokens/%d" % t["id"], token=root), 200)
    r = call(s.port, "GET", "/v1/studies", token=t["token"])
    e = expect_error(r, 401, "unauthenticated")
    check("revoked" in e["message"], "message %r" % e["message"])
    # A note is a name too.
    e = expect_error(call(s.port, "POST", "/v1/tokens", {"role": "read", "note": "a\u202eb"},
                          token=root), 422, "invalid_argument", "note")
