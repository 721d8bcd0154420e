#!/usr/bin/env python3
"""tests/api/test_api.py - drives real `hpod serve` processes over HTTP.

    sh tests/api/pg_tmp.sh BUILDROOT \
        python3 tests/api/test_api.py --hpod BUILDROOT/asan/hpod

Needs HPOD_DATABASE_URL (pg_tmp.sh sets it to a throwaway cluster) and
psql. Runs `hpod migrate` once, starts `hpod serve` processes on free
ports, and checks the HTTP contract of DESIGN.md section 2 and
openapi/openapi.json: the trainer loop, malformed input (each bad request
must leave the database unchanged), idempotency, finite studies, budgets,
two servers sharing one database under 16 concurrent workers, lease expiry,
kill -9 in the middle of a stream of reports, seeded reproducibility, the
lookup-table benchmarks (imported tables, evaluate, simulate, stored
simulations, benchmark-backed studies, clients/python/fake_trainer.py), and
that every response matches the spec's schema for its path, method and
status. Prints `ok - name` / `not ok - name: reason` per test, then one
line `api: N passed, M failed`; exits 1 if anything failed.

Servers get HPOD_BENCHMARKS=<repo>/../shared/benchmarks (or --benchmarks
DIR). Tests that need those tables print `ok - name # skip no tables` when
DIR/nmthpo is missing; the others build their own small tables in code.

Python 3 standard library only.
"""

import argparse
import datetime
import http.client
import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
SPEC_FILE = os.path.join(TOP, "openapi", "openapi.json")
# The lookup tables (DESIGN.md section 4); --benchmarks overrides.
BENCH_DIR = os.path.normpath(os.path.join(TOP, "..", "shared", "benchmarks"))
HAVE_TABLES = False  # set in main()
READY_TIMEOUT = 30.0
REQ_TIMEOUT = 120.0  # simulations under ASan on a loaded machine take a while


class Fail(Exception):
    """A test's expectation did not hold."""


class Skip(Exception):
    """The test cannot run here (no lookup tables): reported `ok - name # skip why`."""


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def short(v, n=300):
    s = v if isinstance(v, str) else json.dumps(v, sort_keys=True)
    return s if len(s) <= n else s[:n] + "..."


# ---------------------------------------------------------------------------
# A small OpenAPI 3.1 schema validator (the JSON Schema 2020-12 subset the
# spec uses): type (a name or a list of names, "null" included), const,
# enum, required, properties, additionalProperties, minProperties, items,
# min/max(Length|Items), minimum, maximum, exclusiveMinimum and
# exclusiveMaximum (numbers), pattern, format date-time (UTC) and int64,
# $ref, allOf, oneOf, anyOf. A schema keyword outside that list (and the
# annotations description, default, example(s), title) is a failure: the
# spec cannot rely on a check this validator would silently skip.
#
# The rule for objects the server produces: every response body is
# validated CLOSED. A property is allowed only where some schema applied to
# the object (through $ref, allOf and the oneOf/anyOf branches it matches)
# declares it in `properties`, or says `additionalProperties` (true or a
# schema) - as if every object schema carried `unevaluatedProperties:
# false` unless it says otherwise. So the spec documents every field hpod
# sends, and an open map (params, values, reference points) says so with
# `additionalProperties`. The published spec stays open for clients (they
# must ignore fields they do not know): the closing is this suite's rule.
# Request bodies the server accepted are checked OPEN (standard semantics).
#
# Every answer must be documented: a path the spec lacks answers 404, a
# method the path lacks answers 405 with an Allow header naming exactly the
# spec's methods for it (both with the Error body), and any other answer's
# status and Content-Type must be listed for its operation, its body
# matching the listed schema (a listed answer without content has no body).

RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": is_int,
    "number": is_num,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}

KEYWORDS = {
    "type", "const", "enum", "required", "properties", "additionalProperties",
    "minProperties", "items", "minItems", "maxItems", "minLength", "maxLength",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern",
    "format", "$ref", "allOf", "oneOf", "anyOf",
    # annotations
    "description", "default", "example", "examples", "title",
}
FORMATS = {"date-time", "int64"}


def parse_ts(s):
    check(isinstance(s, str) and RFC3339.match(s), "bad timestamp %r" % (s,))
    s = s.replace("Z", "+00:00")
    m = re.match(r"^(.*T\d{2}:\d{2}:\d{2})(\.\d+)?(.*)$", s)
    frac = (m.group(2) or "")[:7]  # fromisoformat takes at most 6 digits
    return datetime.datetime.fromisoformat(m.group(1) + frac + m.group(3))


ERROR_SCHEMA = {"$ref": "#/components/schemas/Error"}


class Spec:
    def __init__(self, doc):
        check(doc.get("openapi", "").startswith("3.1."),
              "this validator reads OpenAPI 3.1, the spec says %r" % doc.get("openapi"))
        self.doc = doc
        self.routes = []
        for tmpl in doc["paths"]:
            parts = re.split(r"\{[^}]+\}", tmpl)
            rx = "([^/]+)".join(re.escape(p) for p in parts)
            self.routes.append((tmpl.count("{"), re.compile("^" + rx + "$"), tmpl))
        self.routes.sort(key=lambda r: r[0])  # literal paths win
        self.exercised = set()
        self.lock = threading.Lock()

    def match(self, path):
        path = path.split("?", 1)[0]
        for _, rx, tmpl in self.routes:
            if rx.match(path):
                return tmpl
        return None

    def deref(self, s):
        while isinstance(s, dict) and "$ref" in s:
            ref = s["$ref"]
            check(ref.startswith("#/"), "external $ref %s" % ref)
            check(len(s) == 1, "keywords beside $ref %s: %s" % (ref, sorted(s)))
            node = self.doc
            for part in ref[2:].split("/"):
                node = node[part]
            s = node
        return s

    def errors(self, schema, v, at="$", closed=False):
        """The ways v breaks schema (an empty list when it matches)."""
        errs = []
        self._value(schema, v, at, errs, closed)
        return errs

    def _value(self, s, v, at, errs, closed):
        """Validates v where it stands (a body, a property, an item): in
        closed mode the properties no applied schema evaluated fail here."""
        seen = self._apply(s, v, at, errs, closed)
        if closed and isinstance(v, dict) and seen is not None:
            for k in v:
                if k not in seen:
                    errs.append("%s: property %r is not in the spec" % (at, k))

    def _apply(self, s, v, at, errs, closed):
        """Applies schema s to v. Returns the property names of v that s
        evaluated (None: all of them, an open object)."""
        s = self.deref(s)
        check(isinstance(s, dict), "%s: schema is not an object: %r" % (at, s))
        unknown = set(s) - KEYWORDS
        check(not unknown, "%s: schema keywords this validator does not implement: %s"
              % (at, sorted(unknown)))
        check(s.get("format") in FORMATS | {None}, "%s: unknown format %r" % (at, s.get("format")))
        seen = set()

        def merge(more):
            nonlocal seen
            if seen is not None:
                seen = None if more is None else seen | more

        for sub in s.get("allOf", []):
            merge(self._apply(sub, v, at, errs, closed))
        for key in ("oneOf", "anyOf"):
            if key not in s:
                continue
            good = []
            for sub in s[key]:
                sub_errs = []
                got = self._apply(sub, v, at, sub_errs, closed)
                if not sub_errs:
                    good.append(got)
            if key == "oneOf" and len(good) != 1:
                errs.append("%s: matches %d of oneOf, not 1: %s" % (at, len(good), short(v, 80)))
            if key == "anyOf" and not good:
                errs.append("%s: matches none of anyOf: %s" % (at, short(v, 80)))
            for got in good:
                merge(got)
        t = s.get("type")
        if t is not None:
            names = [t] if isinstance(t, str) else t
            if not any(TYPES[n](v) for n in names):
                errs.append("%s: expected %s, got %s" % (at, "|".join(names), short(v, 80)))
                return seen
        if "const" in s and not (v == s["const"] and type(v) is type(s["const"])):
            errs.append("%s: %s is not the constant %s" % (at, short(v, 80), short(s["const"], 80)))
        if "enum" in s and v not in s["enum"]:
            errs.append("%s: %s not in %s" % (at, short(v, 80), s["enum"]))
        if is_num(v):
            if "minimum" in s and v < s["minimum"]:
                errs.append("%s: %s < minimum %s" % (at, v, s["minimum"]))
            if "maximum" in s and v > s["maximum"]:
                errs.append("%s: %s > maximum %s" % (at, v, s["maximum"]))
            if "exclusiveMinimum" in s and v <= s["exclusiveMinimum"]:
                errs.append("%s: %s <= exclusiveMinimum %s" % (at, v, s["exclusiveMinimum"]))
            if "exclusiveMaximum" in s and v >= s["exclusiveMaximum"]:
                errs.append("%s: %s >= exclusiveMaximum %s" % (at, v, s["exclusiveMaximum"]))
            if s.get("format") == "int64" and not (is_int(v) and -2**63 <= v < 2**63):
                errs.append("%s: %s is not an int64" % (at, v))
        if isinstance(v, str):
            if len(v) < s.get("minLength", 0):
                errs.append("%s: shorter than %d" % (at, s["minLength"]))
            if "maxLength" in s and len(v) > s["maxLength"]:
                errs.append("%s: longer than %d" % (at, s["maxLength"]))
            if "pattern" in s and not re.search(s["pattern"], v):
                errs.append("%s: %r does not match %s" % (at, v, s["pattern"]))
            if s.get("format") == "date-time":
                if not RFC3339.match(v):
                    errs.append("%s: %r is not an RFC 3339 date-time" % (at, v))
                elif not (v.endswith("Z") or v.endswith("+00:00")):
                    errs.append("%s: %r is not in UTC" % (at, v))
        if isinstance(v, list):
            if len(v) < s.get("minItems", 0):
                errs.append("%s: fewer than %d items" % (at, s["minItems"]))
            if "maxItems" in s and len(v) > s["maxItems"]:
                errs.append("%s: more than %d items" % (at, s["maxItems"]))
            if "items" in s:
                for i, x in enumerate(v):
                    self._value(s["items"], x, "%s[%d]" % (at, i), errs, closed)
        if isinstance(v, dict):
            for k in s.get("required", []):
                if k not in v:
                    errs.append("%s: missing required %r" % (at, k))
            if len(v) < s.get("minProperties", 0):
                errs.append("%s: fewer than %d properties" % (at, s["minProperties"]))
            props = s.get("properties", {})
            extra = s.get("additionalProperties")
            for k, x in v.items():
                if k in props:
                    self._value(props[k], x, "%s.%s" % (at, k), errs, closed)
                    merge({k})
                elif extra is False:
                    errs.append("%s: unexpected property %r" % (at, k))
                elif isinstance(extra, dict):
                    self._value(extra, x, "%s.%s" % (at, k), errs, closed)
            if extra is not None and extra is not False:
                merge(None)  # additionalProperties true or a schema: open
        return seen if closed else None

    def _check_body(self, what, schema, body, raw):
        check(body is not None, "%s: body is not JSON: %s"
              % (what, short(raw.decode("utf-8", "replace"))))
        errs = self.errors(schema, body, closed=True)
        check(not errs, "%s: response breaks the spec: %s" % (what, "; ".join(errs[:5])))

    def _content_type(self, headers):
        return headers.get("content-type", "").split(";")[0].strip()

    def check_response(self, method, path, status, headers, raw, body, sent):
        """Raises Fail when the answer is not what the spec documents;
        records which operations answered 2xx."""
        what = "%s %s -> %d" % (method, path, status)
        tmpl = self.match(path)
        if tmpl is None or method.lower() not in self.doc["paths"][tmpl]:
            # Answers the spec cannot list per operation (its description
            # documents them): an unknown path, a method the path lacks.
            if tmpl is None:
                check(status == 404, "%s: the spec has no such path, so 404 was due" % what)
            else:
                want = sorted(m.upper() for m in self.doc["paths"][tmpl]
                              if m in ("get", "put", "post", "delete", "patch"))
                check(status == 405, "%s: the spec has no %s on %s, so 405 was due"
                      % (what, method, tmpl))
                allow = sorted(x.strip() for x in headers.get("allow", "").split(",") if x.strip())
                check(allow == want, "%s: Allow %r, the spec has %s"
                      % (what, headers.get("allow"), ", ".join(want)))
            check(self._content_type(headers) == "application/json",
                  "%s: Content-Type %r" % (what, headers.get("content-type")))
            if method != "HEAD":
                self._check_body(what, ERROR_SCHEMA, body, raw)
            return
        op = self.doc["paths"][tmpl][method.lower()]
        r = op["responses"].get(str(status))
        check(r is not None, "%s: the spec does not list %d for %s %s"
              % (what, status, method, tmpl))
        r = self.deref(r)
        content = r.get("content")
        got = self._content_type(headers)
        if not content:
            check(raw == b"", "%s: spec says no body, got %s"
                  % (what, short(raw.decode("utf-8", "replace"))))
            check(got == "", "%s: spec says no body, got Content-Type %r" % (what, got))
        else:
            types = {mt.split(";")[0].strip(): mt for mt in content}
            check(got in types, "%s: Content-Type %r, the spec lists %s"
                  % (what, got, ", ".join(sorted(types))))
            schema = content[types[got]].get("schema")
            if got == "application/json":
                check(schema is not None, "%s: no schema for %s" % (what, got))
                self._check_body(what, schema, body, raw)
            else:
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise Fail("%s: %s body is not UTF-8" % (what, got))
                if schema is not None:
                    errs = self.errors(schema, raw.decode("utf-8"))
                    check(not errs, "%s: %s body breaks the spec: %s"
                          % (what, got, "; ".join(errs[:5])))
        if 200 <= status < 300:
            rb = op.get("requestBody")
            if sent is not None and rb is not None:
                schema = self.deref(rb)["content"]["application/json"]["schema"]
                errs = self.errors(schema, sent)
                check(not errs, "%s %s: server accepted a body the spec rejects: %s"
                      % (method, tmpl, "; ".join(errs[:5])))
            with self.lock:
                self.exercised.add((tmpl, method.lower()))

    def operations(self):
        for tmpl, item in self.doc["paths"].items():
            for m in ("get", "put", "post", "delete", "patch"):
                if m in item:
                    yield tmpl, m


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


SPEC = None


def call(port, method, path, body=None, raw=None, ctype="application/json",
         timeout=REQ_TIMEOUT, validate=True):
    """One request on a fresh connection. body: a JSON value to send;
    raw: bytes to send as they are. Validates the answer against the spec."""
    sent = None
    if body is not None:
        raw = json.dumps(body).encode("utf-8")
        sent = body
    headers = {}
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
    if validate and SPEC is not None:
        SPEC.check_response(method, path, resp.status, hdrs, data, resp.json, sent)
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
        env["HPOD_BENCHMARKS"] = BENCH_DIR
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
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
# Test registry and runner

TESTS = []


def test(name):
    def deco(fn):
        TESTS.append((name, fn))
        return fn
    return deco


class Ctx:
    def __init__(self, args, dburl):
        self.args = args
        self.dburl = dburl
        self.logdir = args.logdir
        self.servers = []  # every server started, for the final shutdown
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.a = None

    def server(self):
        s = Server(self.args.hpod, self.logdir, self.dburl)
        self.servers.append(s)
        return s.start()

    @property
    def port(self):
        return self.a.port

    def result(self, name, err, skip=None):
        if err is None and skip is not None:
            self.passed += 1
            self.skipped += 1
            print("ok - %s # skip %s" % (name, skip), flush=True)
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


# Helpers used by many tests

def create(c, body, port=None):
    r = call(port or c.port, "POST", "/v1/studies", body)
    return expect(r, 201)


def suggest(c, sid, worker, count=1, port=None):
    r = call(port or c.port, "POST", "/v1/studies/%d/suggest" % sid,
             {"worker": worker, "count": count})
    return expect(r, 200)


def report(c, tid, values, step=None, port=None):
    body = {"values": values}
    if step is not None:
        body["step"] = step
    return expect(call(port or c.port, "POST", "/v1/trials/%d/report" % tid, body), 200)


def get_trial(c, tid, port=None):
    return expect(call(port or c.port, "GET", "/v1/trials/%d" % tid), 200)


def all_trials(c, sid, state=None, port=None):
    q = "?limit=1000" + ("&state=" + state if state else "")
    return expect(call(port or c.port, "GET", "/v1/studies/%d/trials%s" % (sid, q)), 200)


SPACE4 = [
    {"name": "lr", "type": "float", "low": 1e-4, "high": 1e-1, "log": True},
    {"name": "layers", "type": "int", "low": 1, "high": 6},
    {"name": "bpe", "type": "int", "values": [10000, 30000, 50000]},
    {"name": "opt", "type": "categorical", "choices": ["adam", "sgd", "adafactor"]},
]
BLEU_MAX = [{"name": "bleu", "goal": "maximize"}]


def study_metrics(study, values):
    """The part of a table's answer that a trial of study may report: its
    objectives and constrained metrics (anything else is 422)."""
    names = {o["name"] for o in study["objectives"]}
    names |= {k["metric"] for k in study.get("constraints") or []}
    return {k: v for k, v in values.items() if k in names}


def check_params(params, space):
    names = [p["name"] for p in space]
    check(sorted(params) == sorted(names), "params %r, expected keys %r" % (params, names))
    for p in space:
        v = params[p["name"]]
        if p["type"] == "categorical":
            check(v in p["choices"], "%s=%r not in choices" % (p["name"], v))
            continue
        if p["type"] == "int":
            check(is_int(v), "int param %s=%r is not a JSON integer" % (p["name"], v))
        else:
            check(is_num(v), "float param %s=%r is not a number" % (p["name"], v))
        if "values" in p:
            check(v in p["values"], "%s=%r not in values" % (p["name"], v))
        else:
            check(p["low"] <= v <= p["high"], "%s=%r outside [%s, %s]"
                  % (p["name"], v, p["low"], p["high"]))


def check_new_trial(t, sid, worker, space):
    check(t["study_id"] == sid, "trial study_id %r" % t["study_id"])
    check(t["state"] == "pending", "new trial state %r" % t["state"])
    check(t["worker"] == worker, "trial worker %r, expected %r" % (t["worker"], worker))
    check(t["values"] == {}, "new trial values %r" % t["values"])
    check(t["intermediate"] == [], "new trial intermediate %r" % t["intermediate"])
    check(t["reason"] is None, "new trial reason %r" % t["reason"])
    check(t["lease_expires_at"] is not None, "new trial has no lease")
    check_params(t["params"], space)


def canon(params):
    return json.dumps(params, sort_keys=True)


# -- lookup tables: expectations computed here, from the files or in code ---

# DESIGN.md section 4: rows, oracle-best BLEU row (the FIRST row holding the
# maximum) and its value, number of Pareto points (max bleu / min gpu_time).
NMTHPO = [("zh-en", 118, 75, 14.66, 3), ("ru-en", 176, 19, 20.23, 4),
          ("ja-en", 150, 89, 16.41, 5), ("en-ja", 168, 70, 20.74, 8),
          ("sw-en", 767, 230, 26.09, 14), ("so-en", 604, 332, 11.23, 7)]
NMTHPO_PARAMS = ["bpe", "num_layers", "num_embed", "num_hidden", "num_heads", "init_lr"]
NMTHPO_METRICS = ["bleu", "gpu_time", "ppl", "num_updates", "gpu_memory", "num_param"]
NMTLC = ["material-sw-en", "material-so-en", "ted-zh-en", "ted-ru-en",
         "robust19-ja-en", "robust19-en-ja"]
_FILES = {}


def need_tables():
    if not HAVE_TABLES:
        raise Skip("no tables")


def tsv_rows(ds):
    """Rows of nmthpo/<ds>.tsv: parameters as the JSON types a client sends
    (integers for integral columns), metrics as floats; plus the file's
    pareto flags."""
    key = "tsv:" + ds
    if key not in _FILES:
        with open(os.path.join(BENCH_DIR, "nmthpo", ds + ".tsv")) as f:
            lines = [x.rstrip("\r\n").split("\t") for x in f if x.strip()]
        head, rows = lines[0], []
        for i, cells in enumerate(lines[1:]):
            r = dict(zip(head, cells))
            check(int(r["id"]) == i, "%s.tsv: id %s on line %d" % (ds, r["id"], i + 2))
            row = {p: (int(r[p]) if re.match(r"^-?\d+$", r[p]) else float(r[p]))
                   for p in NMTHPO_PARAMS}
            row.update({m: float(r[m]) for m in NMTHPO_METRICS})
            row["pareto"] = r["pareto"] == "1"
            rows.append(row)
        _FILES[key] = rows
    return _FILES[key]


def lc_records(dataset):
    """The models of one nmtlc dataset in file order, as the file has them
    (dicts); row i is model i of the set, as the API numbers them."""
    if "lc" not in _FILES:
        sets = {}
        with open(os.path.join(BENCH_DIR, "nmtlc", "scratch.jsonl")) as f:
            for line in f:
                if line.strip():
                    o = json.loads(line)
                    sets.setdefault(o["dataset_name"], []).append(o)
        _FILES["lc"] = sets
    return _FILES["lc"][dataset]


def curve_models(dataset):
    """The models of one nmtlc dataset in file order: (hyperparams, curve)."""
    return [(o["hyperparams"], o["perplexity_curve"]) for o in lc_records(dataset)]


def pareto_rows(bleu, gpu):
    """Rows not dominated for (max bleu, min gpu_time), ascending."""
    n = len(bleu)
    return [j for j in range(n)
            if not any(bleu[k] >= bleu[j] and gpu[k] <= gpu[j]
                       and (bleu[k] > bleu[j] or gpu[k] < gpu[j]) for k in range(n))]


def oracle_of(values):
    """{max, max_row, min, min_row}: the FIRST row holding each extreme."""
    hi, lo = max(values), min(values)
    return {"max": hi, "max_row": values.index(hi), "min": lo, "min_row": values.index(lo)}


def synthetic_table(name):
    """A 12-row table built here: llm (categorical) x lr (float, log),
    layers (int) following llm. Rows are in a deliberately unsorted order;
    bleu has a tie at the maximum (rows 7 and 8: the first is the oracle
    row) and row 8 is dominated by row 7 (same bleu, more gpu_time)."""
    llms = [("small", 2), ("base", 4), ("big", 6)]
    lrs = [1e-2, 1e-4, 1e-1, 1e-3]
    bleu = [18.5, 15.0, 12.25, 20.0, 22.0, 19.5, 14.0, 24.5, 24.5, 21.0, 16.5, 23.75]
    gpu = [40, 35, 30, 45, 80, 70, 65, 90, 160, 150, 140, 170.5]
    rows = []
    for i, (llm, layers) in enumerate(llms):
        for j, lr in enumerate(lrs):
            k = 4 * i + j
            rows.append({"llm": llm, "lr": lr, "layers": layers,
                         "bleu": bleu[k], "gpu_time": gpu[k]})
    return {"name": name,
            "params": [{"name": "llm", "type": "categorical"},
                       {"name": "lr", "type": "float", "log": True},
                       {"name": "layers", "type": "int"}],
            "metrics": ["bleu", "gpu_time"],
            "rows": rows}


SYN_PARAMS = ["llm", "lr", "layers"]


def expected_benchmark(table):
    """What GET /v1/benchmarks/{name} must say about an imported table."""
    rows = table["rows"]
    names = [p["name"] for p in table["params"]]
    col = {m: [r[m] for r in rows] for m in table["metrics"]}
    return {
        "name": table["name"], "kind": "table", "source": "imported", "size": len(rows),
        "params": names, "metrics": list(table["metrics"]),
        "parameters": [{"name": p, "values": sorted({r[p] for r in rows})} for p in names],
        "oracle": {m: oracle_of(v) for m, v in col.items()},
        "pareto": (pareto_rows(col["bleu"], col["gpu_time"])
                   if "bleu" in col and "gpu_time" in col else []),
    }


def check_benchmark(got, want, where):
    """got (a Benchmark answer) holds every field of want, equal."""
    for k, v in want.items():
        g = got.get(k)
        if k == "pareto":
            check(isinstance(g, list) and sorted(g) == v,
                  "%s: pareto %r, expected rows %r" % (where, g, v))
        else:
            check(g == v, "%s: %s is %s, expected %s" % (where, k, short(g, 400), short(v, 400)))


def differing(a, b):
    """Keys whose values differ between two answers, with both values."""
    keys = sorted(set(a) | set(b))
    return "; ".join("%s: %s vs %s" % (k, short(a.get(k, "<absent>"), 120),
                                       short(b.get(k, "<absent>"), 120))
                     for k in keys if a.get(k, KeyError) != b.get(k, KeyError))


def same_simulation(a, b):
    """Equal, except that the wall time may be rounded to microseconds in
    storage."""
    return (dict(a, seconds=0) == dict(b, seconds=0)
            and math.isclose(a["seconds"], b["seconds"], rel_tol=0, abs_tol=1e-6))


def bench_path(name, suffix=""):
    return "/v1/benchmarks/" + name + suffix


def evaluate(c, name, params, step=None, port=None, status=200):
    body = {"params": params}
    if step is not None:
        body["step"] = step
    return expect(call(port or c.port, "POST", bench_path(name, "/evaluate"), body), status)


def simulate(c, name, body, port=None):
    return expect(call(port or c.port, "POST", bench_path(name, "/simulate"), body), 201)


def run_metrics(seq, y, pareto, init, tol, budget, pbudget):
    """The metrics of one run, from DESIGN.md section 5, computed here: y
    oriented so that larger is better; positions are 1-based and at least
    init (a target among the initial rows counts as found at init)."""
    best = max(y)
    target = y.index(best)  # the FIRST row holding the best value
    pos = {r: i + 1 for i, r in enumerate(seq)}
    check(target in pos, "sequence %s... never reaches the oracle row %d"
          % (seq[:10], target))
    thr = best - tol
    out = {"ftb": max(pos[target], init),
           "ftc": max(next(i + 1 for i, r in enumerate(seq) if y[r] >= thr), init),
           "fb": best - max(y[r] for r in seq[:budget])}
    if pareto is not None:
        prows = [r for r in range(len(y)) if pareto[r]]
        missing = [r for r in prows if r not in pos]
        check(not missing, "sequence %s... misses Pareto rows %s" % (seq[:10], missing))
        out["fto"] = max(min(pos[r] for r in prows), init)
        out["fta"] = max(max(pos[r] for r in prows), init)
        out["fbp"] = sum(1 for r in seq[:pbudget] if pareto[r])
    return out


ALL_METRICS = ["ftb", "ftc", "fb", "fto", "fta", "fbp"]


def check_simulation(sim, y, pareto, n):
    """Sequences valid, long enough and no longer: each ends as soon as the
    metrics asked are decided and the budgets are spent. pareto: the
    table's Pareto flags when the request asked for fto, fta and fbp (with
    ftb, ftc, fb), None when it asked for the default ftb, ftc, fb only.
    Every metric's mean and population std equal to what run_metrics gives
    on the sequences, and no other metric reported."""
    seqs = sim["sequences"]
    check(len(seqs) == sim["repeats"], "%d sequences for %d repeats"
          % (len(seqs), sim["repeats"]))
    need = max(min(sim["budget"], n), min(sim["pareto_budget"], n) if pareto else 0)
    for s in seqs:
        check(all(is_int(r) and 0 <= r < n for r in s), "row ids out of [0, %d): %s"
              % (n, short(s)))
        check(len(set(s)) == len(s), "a sequence repeats a row: %s" % short(s))
        check(len(s) >= max(need, min(sim["init"], n)),
              "sequence of %d rows, shorter than the budgets (%d): %s" % (len(s), need, short(s)))
    per = [run_metrics(s, y, pareto, sim["init"], sim["tolerance"], sim["budget"],
                       sim["pareto_budget"]) for s in seqs]
    names = ["ftb", "ftc", "fb"] + (["fto", "fta", "fbp"] if pareto else [])
    check(sorted(sim["metrics"]) == sorted(names), "metrics %r, expected %r"
          % (sorted(sim["metrics"]), names))
    check(sim["computed_metrics"] == names, "computed_metrics %r, expected %r"
          % (sim["computed_metrics"], names))
    for s, p in zip(seqs, per):
        exact = max([min(sim["init"], n), min(sim["budget"], n), p["ftb"], p["ftc"]]
                    + ([p["fta"], min(sim["pareto_budget"], n)] if pareto else []))
        check(len(s) == exact, "sequence of %d rows, its metrics are decided at %d: %s"
              % (len(s), exact, short(s)))
    for m in names:
        v = [p[m] for p in per]
        mean = sum(v) / len(v)
        std = math.sqrt(sum((x - mean) ** 2 for x in v) / len(v))
        got = sim["metrics"][m]
        check(math.isclose(got["mean"], mean, rel_tol=1e-9, abs_tol=1e-9)
              and math.isclose(got["std"], std, rel_tol=1e-9, abs_tol=1e-9),
              "%s: server says %r, the sequences give mean %r std %r"
              % (m, got, mean, std))
    return per


# ---------------------------------------------------------------------------
# The tests

@test("trainer loop: create, suggest, heartbeat, intermediate and final reports, list, best, pareto, delete")
def t_trainer_loop(c):
    s = create(c, {"name": "trainer loop", "space": SPACE4, "objectives": BLEU_MAX})
    sid = s["id"]
    check(s["name"] == "trainer loop", "name %r" % s["name"])
    check([p["name"] for p in s["space"]] == ["lr", "layers", "bpe", "opt"],
          "space order/names %r" % s["space"])
    sp = {p["name"]: p for p in s["space"]}
    check(sp["lr"]["type"] == "float" and sp["lr"]["log"] is True
          and math.isclose(sp["lr"]["low"], 1e-4) and math.isclose(sp["lr"]["high"], 0.1),
          "lr normalized as %r" % sp["lr"])
    check(sp["layers"]["type"] == "int" and sp["layers"].get("log") is False
          and sp["layers"]["low"] == 1 and sp["layers"]["high"] == 6,
          "layers normalized as %r (log must be present on ranges)" % sp["layers"])
    check(sp["bpe"]["values"] == [10000, 30000, 50000], "bpe normalized as %r" % sp["bpe"])
    check(sp["opt"]["choices"] == ["adam", "sgd", "adafactor"], "opt as %r" % sp["opt"])
    check(s["objectives"] == BLEU_MAX, "objectives %r" % s["objectives"])
    check(s["constraints"] == [], "constraints %r" % s["constraints"])
    check(s["algorithm"]["name"] == "random" and is_int(s["algorithm"].get("seed")),
          "default algorithm %r (want random with its seed filled in)" % s["algorithm"])
    check(s["budget"] is None and s["benchmark"] is None and s["reference"] is None
          and s["n_candidates"] is None, "budget/benchmark/reference/n_candidates not null")
    check(s["lease_seconds"] == 3600, "default lease_seconds %r" % s["lease_seconds"])
    check(s["state"] == "active", "state %r" % s["state"])
    check(all(v == 0 for v in s["trial_counts"].values()), "counts %r" % s["trial_counts"])
    parse_ts(s["created_at"])

    finals = [10.5, 12.25, 11.0]
    tids = []
    for k, bleu in enumerate(finals):
        w = "trainer-%d" % k
        r = suggest(c, sid, w)
        check(len(r["trials"]) == 1 and r["done"] is False, "suggest answer %r" % short(r))
        t = r["trials"][0]
        check_new_trial(t, sid, w, SPACE4)
        tids.append(t["id"])
        lease0 = parse_ts(t["lease_expires_at"])
        h = expect(call(c.port, "POST", "/v1/trials/%d/heartbeat" % t["id"], {}), 200)["trial"]
        check(h["state"] == "running", "state after heartbeat %r" % h["state"])
        check(parse_ts(h["lease_expires_at"]) >= lease0, "heartbeat did not renew the lease")
        for step in (1, 2):
            a = report(c, t["id"], {"bleu": bleu - 3 + step}, step=step)
            check(a.get("action") in ("continue", "stop"), "action %r" % a.get("action"))
            check(a["trial"]["state"] == "running", "state after step %d: %r"
                  % (step, a["trial"]["state"]))
            check([x["step"] for x in a["trial"]["intermediate"]] == list(range(1, step + 1)),
                  "intermediate %r" % a["trial"]["intermediate"])
            if a["action"] == "stop":
                break
        # A metric the study does not know is refused before anything is
        # written (issue: integrity), live trial or not.
        expect_error(call(c.port, "POST", "/v1/trials/%d/report" % t["id"],
                          {"values": {"bleu": bleu, "tokens": 123}}),
                     422, "invalid_argument", "values.tokens")
        f = report(c, t["id"], {"bleu": bleu})["trial"]
        check(f["state"] == "completed", "state after final report %r" % f["state"])
        check(f["values"] == {"bleu": bleu}, "values %r" % f["values"])
        check(f["lease_expires_at"] is None, "completed trial still has a lease")
        check("action" not in report(c, t["id"], {"bleu": bleu}),
              "a final report answered an action")
        g = get_trial(c, t["id"])
        check(g == f, "GET trial %r differs from the report answer %r" % (short(g), short(f)))
        check(g["intermediate"][0]["values"] == {"bleu": bleu - 2},
              "intermediate values %r" % g["intermediate"])

    lst = all_trials(c, sid, "completed")
    check(lst["total"] == 3 and [t["id"] for t in lst["trials"]] == tids,
          "completed list %r" % short(lst))
    check(all(t["state"] == "completed" for t in lst["trials"]), "states in completed list")
    check(all_trials(c, sid, "pending")["total"] == 0, "pending trials left")
    p1 = expect(call(c.port, "GET", "/v1/studies/%d/trials?limit=2" % sid), 200)
    p2 = expect(call(c.port, "GET", "/v1/studies/%d/trials?limit=2&offset=2" % sid), 200)
    check([t["id"] for t in p1["trials"]] == tids[:2] and p1["total"] == 3
          and p1["limit"] == 2 and p1["offset"] == 0, "page 1 %r" % short(p1))
    check([t["id"] for t in p2["trials"]] == tids[2:] and p2["offset"] == 2,
          "page 2 %r" % short(p2))

    b = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)
    check(b["trial"] is not None and b["trial"]["id"] == tids[1], "best %r" % short(b))
    pa = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % sid), 200)
    check([x["trial"] for x in pa["front"]] == [tids[1]], "single-objective front %r" % short(pa))
    check(pa["front"][0]["values"]["bleu"] == 12.25, "front values %r" % pa["front"])
    check(pa["front"][0]["params"] == b["trial"]["params"], "front params")
    check(pa["n_completed"] == 3 and pa["objectives"] == BLEU_MAX, "pareto %r" % short(pa))
    check(isinstance(pa["reference"], dict) and "bleu" in pa["reference"],
          "derived reference %r" % pa["reference"])

    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["trial_counts"]["completed"] == 3, "counts %r" % st["trial_counts"])
    check(st["state"] == "active", "infinite study without budget is %r" % st["state"])

    d = call(c.port, "DELETE", "/v1/studies/%d" % sid)
    check(d.status == 204 and d.raw == b"", "delete answered %r" % d)
    expect_error(call(c.port, "GET", "/v1/studies/%d" % sid), 404, "not_found")
    expect_error(call(c.port, "GET", "/v1/trials/%d" % tids[0]), 404, "not_found")
    expect_error(call(c.port, "DELETE", "/v1/studies/%d" % sid), 404, "not_found")


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


@test("list studies: newest first, limit and offset")
def t_list_studies(c):
    ids = [create(c, {"name": "list %d" % i, "space": SPACE4[:1],
                      "objectives": BLEU_MAX})["id"] for i in range(3)]
    p = expect(call(c.port, "GET", "/v1/studies?limit=2"), 200)
    check([s["id"] for s in p["studies"]] == ids[::-1][:2], "page %r" % [s["id"] for s in p["studies"]])
    check(p["limit"] == 2 and p["offset"] == 0 and p["total"] >= 3, "paging %r" % short(p, 100))
    q = expect(call(c.port, "GET", "/v1/studies?limit=1&offset=2"), 200)
    check([s["id"] for s in q["studies"]] == [ids[0]], "offset page %r" % short(q, 200))
    d = expect(call(c.port, "GET", "/v1/studies"), 200)
    check(d["limit"] == 50 and d["offset"] == 0, "default paging %r/%r" % (d["limit"], d["offset"]))
    check(d["total"] == p["total"], "total changed")


@test("content types: charset parameter accepted, empty body means {}")
def t_content_types(c):
    sid = create(c, {"name": "ctype", "space": SPACE4[:1], "objectives": BLEU_MAX})["id"]
    r = call(c.port, "POST", "/v1/studies/%d/suggest" % sid,
             raw=json.dumps({"worker": "cs"}).encode(), ctype="application/json; charset=utf-8")
    t = expect(r, 200)["trials"][0]
    check(t["worker"] == "cs", "worker %r" % t["worker"])
    r = call(c.port, "POST", "/v1/studies/%d/suggest" % sid, raw=b"", ctype=None)
    d = expect(r, 200)["trials"]
    check(len(d) == 1 and d[0]["worker"] == "default", "empty-body suggest %r" % short(d))
    r = call(c.port, "POST", "/v1/trials/%d/heartbeat" % t["id"], raw=b"", ctype="text/plain")
    check(expect(r, 200)["trial"]["state"] == "running", "heartbeat with an empty body")


@test("fail: reason stored, failing twice is fine, no reports after")
def t_fail(c):
    sid = create(c, {"name": "fail", "space": SPACE4, "objectives": BLEU_MAX})["id"]
    t = suggest(c, sid, "f")["trials"][0]
    f = expect(call(c.port, "POST", "/v1/trials/%d/fail" % t["id"], {"reason": "out of memory"}), 200)
    check(f["trial"]["state"] == "failed" and f["trial"]["reason"] == "out of memory",
          "failed trial %r" % short(f))
    check(f["trial"]["lease_expires_at"] is None, "failed trial still has a lease")
    g = expect(call(c.port, "POST", "/v1/trials/%d/fail" % t["id"], {"reason": "again"}), 200)
    check(g["trial"]["state"] == "failed", "second fail %r" % short(g))
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % t["id"], {"values": {"bleu": 1}}),
                 409, "conflict")
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % t["id"],
                      {"values": {"bleu": 1}, "step": 1}), 409, "conflict")
    expect_error(call(c.port, "POST", "/v1/trials/%d/heartbeat" % t["id"], {}), 409, "conflict")
    n = suggest(c, sid, "f")["trials"]
    check(len(n) == 1 and n[0]["id"] != t["id"], "a failed trial is not held: %r" % short(n))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["trial_counts"]["failed"] == 1 and st["trial_counts"]["pending"] == 1,
          "counts %r" % st["trial_counts"])


# -- malformed requests -----------------------------------------------------

def bad_cases():
    """(name, method, path, kwargs-for-call, statuses, code, field, prefix).
    Paths may use {S} (a study), {L} (a live trial), {D} (a completed trial
    whose final bleu is 1.0). Field None = not checked."""
    def study(**kw):
        b = {"name": "bad", "space": json.loads(json.dumps(SPACE4)),
             "objectives": [{"name": "bleu", "goal": "maximize"}]}
        for k, v in kw.items():
            if v is KEEP_OUT:
                b.pop(k, None)
            else:
                b[k] = v
        return b

    def space(i, **kw):
        sp = json.loads(json.dumps(SPACE4))
        for k, v in kw.items():
            if v is KEEP_OUT:
                sp[i].pop(k, None)
            else:
                sp[i][k] = v
        return sp

    cand = [{"lr": 0.01, "layers": 2, "bpe": 10000, "opt": "adam"},
            {"lr": 0.001, "layers": 3, "bpe": 30000, "opt": "sgd"}]

    def cands(i, **kw):
        cs = json.loads(json.dumps(cand))
        for k, v in kw.items():
            if v is KEEP_OUT:
                cs[i].pop(k, None)
            else:
                cs[i][k] = v
        return cs

    P = "/v1/studies"
    R = "/v1/trials/{L}/report"
    deep = b'{"name": ' + b"[" * 100000 + b"]" * 100000 + b"}"
    big = json.dumps(study(name="x" * (1024 * 1024 + 100))).encode()
    C = []

    def add(name, method, path, statuses, code, field=None, prefix=None, **kw):
        C.append((name, method, path, kw, statuses, code, field, prefix))

    IA = "invalid_argument"
    add("bad JSON", "POST", P, 400, IA, raw=b'{"name": "x", ')
    add("body not an object", "POST", P, 400, IA, raw=b"[1, 2, 3]")
    add("body a bare string", "POST", P, 400, IA, raw=b'"study"')
    add("name of the wrong type", "POST", P, 400, IA, "name", body=study(name=5))
    add("space not an array", "POST", P, 400, IA, "space", body=study(space={}))
    add("objectives not an array", "POST", P, 400, IA, "objectives", body=study(objectives="bleu"))
    add("missing name", "POST", P, 400, IA, "name", body=study(name=KEEP_OUT))
    add("missing objectives", "POST", P, 400, IA, "objectives", body=study(objectives=KEEP_OUT))
    add("missing space", "POST", P, 400, IA, "space", body=study(space=KEEP_OUT))
    add("unknown top-level field", "POST", P, 400, IA, "colour", body=study(colour="red"))
    add("unknown key in a param", "POST", P, 400, IA, "space[1].step",
        body=study(space=space(1, step=1)))
    add("param without type", "POST", P, 400, IA, "space[0].type",
        body=study(space=space(0, type=KEEP_OUT)))
    add("param name of the wrong type", "POST", P, 400, IA, "space[0].name",
        body=study(space=space(0, name=7)))
    add("low >= high", "POST", P, 422, IA, "space[1].low",
        body=study(space=space(1, low=6, high=2)))
    add("low == high", "POST", P, 422, IA, "space[0].low",
        body=study(space=space(0, low=0.01, high=0.01)))
    add("log with low <= 0", "POST", P, 422, IA, prefix="space[0]",
        body=study(space=space(0, low=0.0)))
    add("int log with low < 1", "POST", P, 422, IA, prefix="space[1]",
        body=study(space=space(1, low=0, log=True)))
    add("duplicate param names", "POST", P, 422, IA, prefix="space[2]",
        body=study(space=space(2, name="lr")))
    add("empty choices", "POST", P, 422, IA, prefix="space[3].choices",
        body=study(space=space(3, choices=[])))
    add("duplicate choices", "POST", P, 422, IA, prefix="space[3].choices",
        body=study(space=space(3, choices=["adam", "sgd", "adam"])))
    add("empty-string choice", "POST", P, 422, IA, prefix="space[3].choices",
        body=study(space=space(3, choices=["adam", ""])))
    add("duplicate values", "POST", P, 422, IA, prefix="space[2].values",
        body=study(space=space(2, values=[10000, 10000])))
    add("unknown field cut inside a UTF-8 character", "POST", P, 400, IA,
        body=study(**{"colours" + "\u00e9" * 30: 1}))
    add("int range with non-integer bounds", "POST", P, (400, 422), IA, prefix="space[1]",
        body=study(space=space(1, low=1.5)))
    add("unknown param type", "POST", P, 422, IA, "space[0].type",
        body=study(space=space(0, type="bool")))
    add("empty space", "POST", P, 422, IA, "space", body=study(space=[]))
    add("param name with a space", "POST", P, 422, IA, prefix="space[0].name",
        body=study(space=space(0, name="l r")))
    add("empty name", "POST", P, 422, IA, "name", body=study(name=""))
    add("candidate not in the space", "POST", P, 422, IA, "candidates[0].opt",
        body=study(candidates=cands(0, opt="rmsprop")))
    add("candidate out of range", "POST", P, 422, IA, "candidates[1].lr",
        body=study(candidates=cands(1, lr=5.0)))
    add("candidate with a wrong type", "POST", P, (400, 422), IA, "candidates[0].opt",
        body=study(candidates=cands(0, opt=3)))
    add("candidate with an unknown param", "POST", P, 422, IA, prefix="candidates[0]",
        body=study(candidates=cands(0, dropout=0.1)))
    add("candidate missing a param", "POST", P, 422, IA, prefix="candidates[0]",
        body=study(candidates=cands(0, layers=KEEP_OUT)))
    add("duplicate candidates", "POST", P, 422, IA, prefix="candidates[1]",
        body=study(candidates=[cand[0], dict(cand[0])]))
    add("unknown algorithm", "POST", P, 422, IA, "algorithm.name",
        body=study(algorithm={"name": "simulated-annealing"}))
    add("unknown gp kernel", "POST", P, 422, IA, prefix="algorithm.kernel",
        body=study(algorithm={"name": "gp", "kernel": "cubic"}))
    MS = {"name": "multistage", "stages": [{"steps": 2, "trials": 4},
                                           {"steps": 5, "trials": 2}]}
    add("multistage without stages", "POST", P, 400, IA, "algorithm.stages",
        body=study(algorithm={"name": "multistage"}))
    add("multistage stages not an array", "POST", P, 400, IA, "algorithm.stages",
        body=study(algorithm=dict(MS, stages={"steps": 2})))
    add("multistage no stages", "POST", P, 422, IA, "algorithm.stages",
        body=study(algorithm=dict(MS, stages=[])))
    add("multistage 17 stages", "POST", P, 422, IA, "algorithm.stages",
        body=study(algorithm=dict(MS, stages=[{"steps": i + 1, "trials": 1}
                                              for i in range(17)])))
    add("multistage steps not increasing", "POST", P, 422, IA, "algorithm.stages[1].steps",
        body=study(algorithm=dict(MS, stages=[{"steps": 5, "trials": 4},
                                              {"steps": 5, "trials": 2}])))
    add("multistage steps 0", "POST", P, 422, IA, "algorithm.stages[0].steps",
        body=study(algorithm=dict(MS, stages=[{"steps": 0, "trials": 4}])))
    add("multistage stage without trials", "POST", P, 400, IA, "algorithm.stages[0].trials",
        body=study(algorithm=dict(MS, stages=[{"steps": 3}])))
    add("multistage stage with an unknown key", "POST", P, 400, IA,
        prefix="algorithm.stages[0]",
        body=study(algorithm=dict(MS, stages=[{"steps": 3, "trials": 2, "epochs": 1}])))
    add("multistage stage not an object", "POST", P, 400, IA, "algorithm.stages[0]",
        body=study(algorithm=dict(MS, stages=[3])))
    add("multistage k 0", "POST", P, 422, IA, "algorithm.k",
        body=study(algorithm=dict(MS, k=0)))
    add("multistage unknown base", "POST", P, 422, IA, "algorithm.base",
        body=study(algorithm=dict(MS, base="tpe")))
    add("multistage with an asha key", "POST", P, 400, IA, "algorithm.R",
        body=study(algorithm=dict(MS, R=25)))
    add("multistage with two objectives", "POST", P, 422, IA, "objectives",
        body=study(algorithm=MS, objectives=[{"name": "bleu", "goal": "maximize"},
                                             {"name": "gpu_time", "goal": "minimize"}]))
    add("multistage with a constraint", "POST", P, 422, IA, "constraints",
        body=study(algorithm=MS, constraints=[{"metric": "gpu_time", "max": 300}]))
    add("bad objective goal", "POST", P, 422, IA, "objectives[0].goal",
        body=study(objectives=[{"name": "bleu", "goal": "maximise"}]))
    add("duplicate objectives", "POST", P, 422, IA, prefix="objectives[1]",
        body=study(objectives=[{"name": "bleu", "goal": "maximize"},
                               {"name": "bleu", "goal": "minimize"}]))
    add("empty objectives", "POST", P, 422, IA, "objectives", body=study(objectives=[]))
    add("budget 0", "POST", P, 422, IA, "budget", body=study(budget=0))
    add("budget negative", "POST", P, 422, IA, "budget", body=study(budget=-3))
    add("budget not an integer", "POST", P, (400, 422), IA, "budget", body=study(budget=2.5))
    add("budget a string", "POST", P, 400, IA, "budget", body=study(budget="3"))
    add("lease_seconds 0", "POST", P, 422, IA, "lease_seconds", body=study(lease_seconds=0))
    add("lease_seconds too large", "POST", P, 422, IA, "lease_seconds",
        body=study(lease_seconds=604801))
    add("number too large for a double", "POST", P, 400, IA,
        raw=json.dumps(study()).encode()[:-1] + b', "budget": 1e999}')
    add("deeply nested JSON", "POST", P, 400, IA, raw=deep)
    add("body over 1 MiB", "POST", P, 413, "payload_too_large", raw=big)
    add("text/plain body", "POST", P, 415, "unsupported_media_type",
        raw=json.dumps(study()).encode(), ctype="text/plain")

    S = "/v1/studies/{S}/suggest"
    add("count 0", "POST", S, 422, IA, "count", body={"worker": "bad", "count": 0})
    add("count 101", "POST", S, 422, IA, "count", body={"worker": "bad", "count": 101})
    add("count a string", "POST", S, 400, IA, "count", body={"worker": "bad", "count": "2"})
    add("empty worker", "POST", S, 422, IA, "worker", body={"worker": ""})
    add("worker of the wrong type", "POST", S, 400, IA, "worker", body={"worker": 5})
    add("unknown suggest field", "POST", S, 400, IA, "priority", body={"priority": 1})
    add("suggest body an array", "POST", S, 400, IA, raw=b"[]")
    add("suggest on an unknown study", "POST", "/v1/studies/987654321/suggest", 404,
        "not_found", body={"worker": "bad"})

    add("unknown study id", "GET", "/v1/studies/987654321", 404, "not_found")
    add("non-numeric study id", "GET", "/v1/studies/abc", 404, "not_found")
    add("study id 0", "GET", "/v1/studies/0", 404, "not_found")
    add("negative study id", "GET", "/v1/studies/-1", 404, "not_found")
    add("unknown trial id", "GET", "/v1/trials/987654321", 404, "not_found")
    add("non-numeric trial id", "GET", "/v1/trials/x1", 404, "not_found")
    add("delete an unknown study", "DELETE", "/v1/studies/987654321", 404, "not_found")
    add("best of an unknown study", "GET", "/v1/studies/987654321/best", 404, "not_found")
    add("trials of an unknown study", "GET", "/v1/studies/987654321/trials", 404, "not_found")
    add("unknown path", "GET", "/v1/nothing", 404, "not_found")
    add("unknown top-level path", "GET", "/nothing", 404, "not_found")
    add("path with bytes that are not UTF-8", "GET", "/v1/studies/%ff%e9", 404, "not_found")
    add("PUT on /v1/studies", "PUT", P, 405, "method_not_allowed", body={})
    add("DELETE on a trial", "DELETE", "/v1/trials/{L}", 405, "method_not_allowed")
    add("GET on suggest", "GET", S, 405, "method_not_allowed")
    add("POST on /healthz", "POST", "/healthz", 405, "method_not_allowed", body={})

    add("invalid ?state=", "GET", "/v1/studies/{S}/trials?state=finished", 400, IA, "state")
    add("?limit=0 on trials", "GET", "/v1/studies/{S}/trials?limit=0", 400, IA, "limit")
    add("?limit=abc on studies", "GET", "/v1/studies?limit=abc", 400, IA, "limit")
    add("?limit=1001 on studies", "GET", "/v1/studies?limit=1001", 400, IA, "limit")
    add("?offset=-1 on studies", "GET", "/v1/studies?offset=-1", 400, IA, "offset")

    add("report with a string value", "POST", R, 400, IA, "values.bleu",
        body={"values": {"bleu": "high"}})
    add("report with a null value", "POST", R, 400, IA, "values.bleu",
        body={"values": {"bleu": None}})
    add("report with a bad metric name", "POST", R, 422, IA, "values.bad name",
        body={"values": {"bad name": 1.0}})
    add("report with empty values", "POST", R, 422, IA, prefix="values",
        body={"values": {}})
    add("report without values", "POST", R, 400, IA, "values", body={"step": 1})
    add("report values not an object", "POST", R, 400, IA, "values", body={"values": [1.0]})
    add("report with step -1", "POST", R, 422, IA, "step",
        body={"values": {"bleu": 1.0}, "step": -1})
    add("report with a string step", "POST", R, 400, IA, "step",
        body={"values": {"bleu": 1.0}, "step": "1"})
    add("report with an unknown field", "POST", R, 400, IA, "final",
        body={"values": {"bleu": 1.0}, "final": True})
    add("report with 1e999", "POST", R, 400, IA, raw=b'{"values": {"bleu": 1e999}}')
    add("report with NaN", "POST", R, 400, IA, raw=b'{"values": {"bleu": NaN}}')
    # Integrity: an integer a double cannot hold exactly, a metric the study
    # does not know (on a live or a completed trial), a new metric on a
    # completed trial.
    add("report with the integer 2^53+1", "POST", R, 422, IA, "values.bleu",
        raw=b'{"values": {"bleu": 9007199254740993}}')
    add("report with the integer -(2^53+1)", "POST", R, 422, IA, "values.bleu",
        raw=b'{"values": {"bleu": -9007199254740993}}')
    add("report with the integer 2^63-1", "POST", R, 422, IA, "values.bleu",
        raw=b'{"values": {"bleu": 9223372036854775807}}')
    add("report with an integer beyond int64", "POST", R, 400, IA,
        raw=b'{"values": {"bleu": 92233720368547758070}}')
    add("report of a metric the study does not know", "POST", R, 422, IA, "values.speed",
        body={"values": {"bleu": 1.0, "speed": 3.5}})
    add("report of an unknown metric on a completed trial", "POST", "/v1/trials/{D}/report",
        422, IA, "values.speed", body={"values": {"speed": 3.5}})
    add("report with a metric name of 65 characters", "POST", R, 422, IA,
        body={"values": {"m" * 65: 1.0}})
    add("a study id of 19 digits", "GET", "/v1/studies/9999999999999999999", 404, "not_found")
    add("a trial id of 19 digits", "POST", "/v1/trials/9999999999999999999/report", 404,
        "not_found", body={"values": {"bleu": 1.0}})
    add("report on an unknown trial", "POST", "/v1/trials/987654321/report", 404, "not_found",
        body={"values": {"bleu": 1.0}})
    add("different final report on a completed trial", "POST", "/v1/trials/{D}/report", 409,
        "conflict", body={"values": {"bleu": 2.0}})
    add("intermediate report on a completed trial", "POST", "/v1/trials/{D}/report", 409,
        "conflict", body={"values": {"bleu": 2.0}, "step": 3})
    add("heartbeat on a completed trial", "POST", "/v1/trials/{D}/heartbeat", 409, "conflict",
        body={})
    add("fail a completed trial", "POST", "/v1/trials/{D}/fail", 409, "conflict",
        body={"reason": "late"})
    add("heartbeat with an unknown field", "POST", "/v1/trials/{L}/heartbeat", 400, IA, "ttl",
        body={"ttl": 5})
    add("fail reason over 1000 characters", "POST", "/v1/trials/{L}/fail", 422, IA, "reason",
        body={"reason": "x" * 1001})
    add("fail reason of the wrong type", "POST", "/v1/trials/{L}/fail", 400, IA, "reason",
        body={"reason": 42})

    # -- benchmarks: {B} is the imported table lab/fixture (synthetic_table),
    # {M} a simulation stored on it.
    def imp(**kw):
        t = synthetic_table("lab/bad-import")
        for k, v in kw.items():
            if v is KEEP_OUT:
                t.pop(k, None)
            else:
                t[k] = v
        return t

    def imp_rows(i, **kw):
        rows = json.loads(json.dumps(synthetic_table("x/y")["rows"]))
        for k, v in kw.items():
            if v is KEEP_OUT:
                rows[i].pop(k, None)
            else:
                rows[i][k] = v
        return rows

    B = "/v1/benchmarks"
    add("import: unknown column", "POST", B, 422, IA, "rows[3].dropout",
        body=imp(rows=imp_rows(3, dropout=0.1)))
    add("import: missing metric value", "POST", B, 422, IA, "rows[5].bleu",
        body=imp(rows=imp_rows(5, bleu=KEEP_OUT)))
    add("import: missing parameter value", "POST", B, 422, IA, "rows[2].lr",
        body=imp(rows=imp_rows(2, lr=KEEP_OUT)))
    dup = imp_rows(9)
    dup[9].update({p: dup[4][p] for p in SYN_PARAMS})
    add("import: duplicate configuration", "POST", B, 422, IA, "rows[9]", body=imp(rows=dup))
    add("import: string for a float", "POST", B, 422, IA, "rows[1].lr",
        body=imp(rows=imp_rows(1, lr="0.0001")))
    add("import: 1.5 for an int", "POST", B, 422, IA, "rows[0].layers",
        body=imp(rows=imp_rows(0, layers=1.5)))
    add("import: number for a categorical", "POST", B, 422, IA, "rows[6].llm",
        body=imp(rows=imp_rows(6, llm=3)))
    add("import: string for a metric", "POST", B, 422, IA, "rows[4].gpu_time",
        body=imp(rows=imp_rows(4, gpu_time="fast")))
    add("import: null value", "POST", B, (400, 422), IA, "rows[7].bleu",
        body=imp(rows=imp_rows(7, bleu=None)))
    add("import: name without a namespace", "POST", B, 422, IA, "name", body=imp(name="mine"))
    add("import: name with a space", "POST", B, 422, IA, "name", body=imp(name="lab/my table"))
    add("import: name with three parts", "POST", B, 422, IA, "name", body=imp(name="a/b/c"))
    add("import: name part over 64 characters", "POST", B, 422, IA, "name",
        body=imp(name="lab/" + "x" * 65))
    add("import: reserved namespace nmthpo", "POST", B, 422, IA, "name",
        body=imp(name="nmthpo/mine"))
    add("import: reserved namespace nmtlc", "POST", B, 422, IA, "name",
        body=imp(name="nmtlc/mine"))
    add("import: name of the wrong type", "POST", B, 400, IA, "name", body=imp(name=7))
    add("import: empty rows", "POST", B, 422, IA, "rows", body=imp(rows=[]))
    add("import: duplicate metric name", "POST", B, 422, IA, prefix="metrics",
        body=imp(metrics=["bleu", "gpu_time", "bleu"]))
    add("import: duplicate parameter name", "POST", B, 422, IA, prefix="params",
        body=imp(params=synthetic_table("x/y")["params"] + [{"name": "lr", "type": "float"}]))
    add("import: a metric named like a parameter", "POST", B, 422, IA,
        body=imp(metrics=["bleu", "gpu_time", "lr"]))
    add("import: empty metrics", "POST", B, 422, IA, "metrics", body=imp(metrics=[]))
    add("import: unknown parameter type", "POST", B, 422, IA, "params[1].type",
        body=imp(params=[{"name": "llm", "type": "categorical"},
                         {"name": "lr", "type": "double"}, {"name": "layers", "type": "int"}]))
    add("import: unknown top-level field", "POST", B, 400, IA, "colour", body=imp(colour="red"))
    add("import: rows not an array", "POST", B, 400, IA, "rows", body=imp(rows={"a": 1}))
    add("import: metrics not an array", "POST", B, 400, IA, "metrics", body=imp(metrics="bleu"))
    add("import: missing rows", "POST", B, 400, IA, "rows", body=imp(rows=KEEP_OUT))
    add("import: a name that exists", "POST", B, 409, "conflict",
        body=synthetic_table("lab/fixture"))
    add("import: text/plain body", "POST", B, 415, "unsupported_media_type",
        raw=json.dumps(imp()).encode(), ctype="text/plain")

    # -- numbers a double cannot hold (issue: integrity)
    add("int values beyond 2^53", "POST", P, 422, IA, "space[2].values[2]",
        body=study(space=space(2, values=[10000, 30000, 9007199254740993])))
    add("int values 2^63-1", "POST", P, 422, IA, "space[2].values[0]",
        body=study(space=space(2, values=[9223372036854775807])))
    add("int values below -2^53", "POST", P, 422, IA, "space[2].values[1]",
        body=study(space=space(2, values=[10000, -9007199254740993])))
    add("int low below -2^53", "POST", P, 422, IA, "space[1].low",
        body=study(space=space(1, low=-9007199254740993)))
    add("int high 2^63-1", "POST", P, 422, IA, "space[1].high",
        body=study(space=space(1, high=9223372036854775807)))
    add("int values 2^64", "POST", P, 400, IA,
        body=study(space=space(2, values=[18446744073709551616])))
    add("float values: an integer a double would round", "POST", P, 422, IA,
        "space[0].values[0]",
        body=study(space=space(0, low=KEEP_OUT, high=KEEP_OUT, values=[9007199254740993])))
    add("constraint max: an integer a double would round", "POST", P, 422, IA,
        "constraints[0].max",
        body=study(constraints=[{"metric": "bleu", "max": 9223372036854775807}]))
    add("reference: an integer a double would round", "POST", P, 422, IA, "reference.bleu",
        body=study(reference={"bleu": -9007199254740993}))
    add("candidate int beyond 2^53", "POST", P, 422, IA, "candidates[0].bpe",
        body=study(candidates=cands(0, bpe=9007199254740993)))
    add("seed 2^63-1", "POST", P, 422, IA, "algorithm.seed",
        body=study(algorithm={"name": "random", "seed": 9223372036854775807}))
    add("lease_seconds 2^63-1", "POST", P, 422, IA, "lease_seconds",
        body=study(lease_seconds=9223372036854775807))
    add("budget 1e19", "POST", P, (400, 422), IA, "budget", body=study(budget=1e19))
    add("import: int column beyond 2^53", "POST", B, 422, IA, "rows[0].layers",
        body=imp(rows=imp_rows(0, layers=9007199254740993)))
    add("import: float column an integer a double would round", "POST", B, 422, IA,
        "rows[1].lr", body=imp(rows=imp_rows(1, lr=9007199254740993)))
    add("import: metric 2^63-1", "POST", B, 422, IA, "rows[2].gpu_time",
        body=imp(rows=imp_rows(2, gpu_time=9223372036854775807)))

    add("unknown benchmark", "GET", "/v1/benchmarks/lab/nope", 404, "not_found")
    add("unknown built-in benchmark", "GET", "/v1/benchmarks/nmthpo/xx-yy", 404, "not_found")
    add("PUT on a benchmark", "PUT", "/v1/benchmarks/lab/fixture", 405, "method_not_allowed",
        body={})
    add("GET on evaluate", "GET", "/v1/benchmarks/lab/fixture/evaluate", 405,
        "method_not_allowed")

    E = "/v1/benchmarks/lab/fixture/evaluate"
    row4 = {p: synthetic_table("x/y")["rows"][4][p] for p in SYN_PARAMS}
    add("evaluate: params matching no row", "POST", E, 422, IA, "params",
        body={"params": dict(row4, lr=0.5)})
    add("evaluate: a step on a table", "POST", E, 422, IA, "step",
        body={"params": row4, "step": 3})
    add("evaluate: params missing a parameter", "POST", E, 422, IA, prefix="params",
        body={"params": {"llm": "big", "lr": 0.01}})
    add("evaluate: params not an object", "POST", E, 400, IA, "params",
        body={"params": ["big", 0.01, 6]})
    add("evaluate: missing params", "POST", E, 400, IA, "params", body={})
    add("evaluate: unknown field", "POST", E, 400, IA, "row", body={"params": row4, "row": 4})
    add("evaluate: unknown benchmark", "POST", "/v1/benchmarks/lab/nope/evaluate", 404,
        "not_found", body={"params": row4})

    M = "/v1/benchmarks/lab/fixture/simulate"
    add("simulate: repeats 0", "POST", M, 422, IA, "repeats", body={"repeats": 0})
    add("simulate: repeats 1001", "POST", M, 422, IA, "repeats", body={"repeats": 1001})
    add("simulate: repeats a string", "POST", M, 400, IA, "repeats", body={"repeats": "3"})
    add("simulate: init 0", "POST", M, 422, IA, "init", body={"init": 0, "repeats": 1})
    add("simulate: init 51", "POST", M, 422, IA, "init", body={"init": 51, "repeats": 1})
    add("simulate: seed -1", "POST", M, 422, IA, "seed", body={"seed": -1, "repeats": 1})
    add("simulate: tolerance 0", "POST", M, 422, IA, "tolerance",
        body={"tolerance": 0, "repeats": 1})
    add("simulate: tolerance an integer a double would round", "POST", M, 422, IA,
        "tolerance", body={"tolerance": 9007199254740993, "repeats": 1})
    add("simulate: budget 0", "POST", M, 422, IA, "budget", body={"budget": 0, "repeats": 1})
    add("simulate: pareto_budget 0", "POST", M, 422, IA, "pareto_budget",
        body={"pareto_budget": 0, "repeats": 1})
    add("simulate: objective not a metric of the table", "POST", M, 422, IA, "objective.name",
        body={"objective": {"name": "ppl", "goal": "minimize"}, "repeats": 1})
    add("simulate: bad objective goal", "POST", M, 422, IA, "objective.goal",
        body={"objective": {"name": "bleu", "goal": "maximise"}, "repeats": 1})
    add("simulate: unknown algorithm", "POST", M, 422, IA, "algorithm.name",
        body={"algorithm": {"name": "annealing"}, "repeats": 1})
    add("simulate: unknown field", "POST", M, 400, IA, "runs", body={"runs": 3})
    add("simulate: metrics not an array", "POST", M, 400, IA, "metrics",
        body={"metrics": "ftb", "repeats": 1})
    add("simulate: metrics empty", "POST", M, 422, IA, "metrics",
        body={"metrics": [], "repeats": 1})
    add("simulate: a metric not a string", "POST", M, 400, IA, "metrics[0]",
        body={"metrics": [3], "repeats": 1})
    add("simulate: unknown metric", "POST", M, 422, IA, "metrics[1]",
        body={"metrics": ["ftb", "regret"], "repeats": 1})
    add("simulate: a metric twice", "POST", M, 422, IA, "metrics[1]",
        body={"metrics": ["fb", "fb"], "repeats": 1})
    add("simulate: gap without constraints", "POST", M, 422, IA, "metrics[1]",
        body={"metrics": ["ftb", "gap"], "repeats": 1})
    add("simulate: ftb with constraints", "POST", M, 422, IA, "metrics[1]",
        body={"metrics": ["gap", "ftb"], "repeats": 1,
              "constraints": [{"metric": "gpu_time", "max": 100}]})
    add("simulate: gap with two objectives", "POST", M, 422, IA, "metrics[0]",
        body={"metrics": ["gap"], "repeats": 1, "objectives": [
            {"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]})
    add("simulate: unknown benchmark", "POST", "/v1/benchmarks/lab/nope/simulate", 404,
        "not_found", body={"repeats": 1})

    add("simulation: bad ?format=", "GET", "/v1/simulations/{M}?format=csv", 400, IA, "format")
    add("simulation: unknown id", "GET", "/v1/simulations/987654321", 404, "not_found")
    add("simulation: non-numeric id", "GET", "/v1/simulations/abc", 404, "not_found")
    add("simulations: ?limit=0", "GET", "/v1/simulations?limit=0", 400, IA, "limit")
    add("simulations: ?offset=-1", "GET", "/v1/simulations?offset=-1", 400, IA, "offset")

    # Contract (issue: integrity). A table that does not exist is a 404
    # before any field of the body is looked at.
    NOPE = "/v1/benchmarks/lab/nope"
    add("simulate: unknown benchmark, every field wrong", "POST", NOPE + "/simulate", 404,
        "not_found", "", body={"algorithm": {"name": "annealing"}, "repeats": 0, "runs": 3,
                               "objective": {"name": "ppl"}, "objectives": "bleu"})
    add("evaluate: unknown benchmark, every field wrong", "POST", NOPE + "/evaluate", 404,
        "not_found", "", body={"params": [1], "step": "x", "row": 4})
    add("simulate: unknown benchmark, sh", "POST", NOPE + "/simulate", 404, "not_found", "",
        body={"algorithm": {"name": "sh"}})
    # objectives with one entry is the single-objective run; objective is
    # its alias, and both at once is a 400 naming the alias.
    add("simulate: objective and objectives", "POST", M, 400, IA, "objective",
        body={"objective": {"name": "bleu"}, "objectives": [{"name": "bleu"}], "repeats": 1})
    add("simulate: objectives[0] not a metric of the table", "POST", M, 422, IA,
        "objectives[0].name", body={"objectives": [{"name": "ppl", "goal": "minimize"}],
                                    "repeats": 1})
    add("simulate: objectives[0] bad goal", "POST", M, 422, IA, "objectives[0].goal",
        body={"objectives": [{"name": "bleu", "goal": "maximise"}], "repeats": 1})
    add("simulate: objectives[0] not an object", "POST", M, 400, IA, "objectives[0]",
        body={"objectives": ["bleu"], "repeats": 1})
    add("simulate: objectives[1] not a metric of the table", "POST", M, 422, IA,
        "objectives[1].name", body={"objectives": [{"name": "bleu", "goal": "maximize"},
                                                   {"name": "ppl", "goal": "minimize"}],
                                    "repeats": 1})
    add("simulate: objectives[1] bad goal", "POST", M, 422, IA, "objectives[1].goal",
        body={"objectives": [{"name": "bleu", "goal": "maximize"},
                             {"name": "gpu_time", "goal": "least"}], "repeats": 1})
    add("simulate: objective alias with constraints, bad goal", "POST", M, 422, IA,
        "objective.goal", body={"objective": {"name": "bleu", "goal": "most"},
                                "constraints": [{"metric": "gpu_time", "max": 100}],
                                "repeats": 1})
    add("simulate: objectives empty", "POST", M, 400, IA, "objectives",
        body={"objectives": [], "repeats": 1})
    add("simulate: ehvi with one objective", "POST", M, 422, IA, "objectives",
        body={"algorithm": {"name": "ehvi"}, "objectives": [{"name": "bleu"}], "repeats": 1})
    # Query parameters an operation does not list are a 400 naming them,
    # before the handler runs (so a POST with one changes nothing).
    add("query: unknown parameter beside a legit one", "GET", "/v1/studies?limit=2&bogus=1",
        400, IA, "bogus")
    add("query: misspelt limit", "GET", "/v1/studies?limt=2", 400, IA, "limt")
    add("query: on a path without parameters", "GET", "/healthz?verbose=1", 400, IA, "verbose")
    add("query: on /metrics", "GET", "/metrics?format=json", 400, IA, "format")
    add("query: on a POST with a valid body", "POST", P + "?dry_run=1", 400, IA, "dry_run",
        body=study())
    add("query: report with a valid body", "POST", R + "?step=3", 400, IA, "step",
        body={"values": {"bleu": 3.0}})
    add("query: trials, state and an unknown one", "GET",
        "/v1/studies/{S}/trials?state=pending&sort=id", 400, IA, "sort")
    add("query: pareto, ranks and an unknown one", "GET",
        "/v1/studies/{S}/pareto?ranks=true&limit=1", 400, IA, "limit")
    add("query: simulation, format and an unknown one", "GET",
        "/v1/simulations/{M}?format=json&pretty=1", 400, IA, "pretty")
    add("query: simulate with a query", "POST", M + "?repeats=1", 400, IA, "repeats",
        body={"repeats": 1})
    add("query: empty name", "GET", "/v1/studies?=1", 400, IA, "")
    add("query: flag without a value", "GET", "/v1/benchmarks?all", 400, IA, "all")

    def bstudy(**kw):
        b = {"name": "bad bench study", "benchmark": "lab/fixture", "objectives": BLEU_MAX}
        for k, v in kw.items():
            if v is KEEP_OUT:
                b.pop(k, None)
            else:
                b[k] = v
        return b

    # Only nmthpo tables have a default objective; a missing required field
    # is 400 elsewhere, so either status will do.
    add("benchmark study: imported table without objectives", "POST", P, (400, 422), IA,
        "objectives", body=bstudy(objectives=KEEP_OUT))
    add("benchmark study: space given too", "POST", P, 422, IA, "space",
        body=bstudy(space=SPACE4))
    add("benchmark study: candidates given too", "POST", P, 422, IA, "candidates",
        body=bstudy(candidates=[row4]))
    add("benchmark study: objective not a metric", "POST", P, 422, IA, "objectives[0].name",
        body=bstudy(objectives=[{"name": "ppl", "goal": "minimize"}]))
    add("benchmark study: second objective not a metric", "POST", P, 422, IA,
        "objectives[1].name", body=bstudy(objectives=BLEU_MAX + [{"name": "speed",
                                                                  "goal": "maximize"}]))
    add("benchmark study: unknown benchmark", "POST", P, 422, IA, "benchmark",
        body=bstudy(benchmark="lab/nope"))
    add("benchmark study: benchmark of the wrong type", "POST", P, 400, IA, "benchmark",
        body=bstudy(benchmark=5))
    if HAVE_TABLES:
        add("benchmark study: learning curves, objective not ppl", "POST", P, 422, IA,
            "objectives[0].name",
            body=bstudy(benchmark="nmtlc/ted-zh-en", objectives=[{"name": "bleu",
                                                                  "goal": "maximize"}]))
        add("benchmark study: nmthpo objective not a metric", "POST", P, 422, IA,
            "objectives[0].name",
            body=bstudy(benchmark="nmthpo/zh-en", objectives=[{"name": "accuracy",
                                                               "goal": "maximize"}]))
        add("benchmark study: nmthpo with candidates", "POST", P, 422, IA, "candidates",
            body=bstudy(benchmark="nmthpo/zh-en", objectives=KEEP_OUT,
                        candidates=[{"bpe": 10000}]))
        add("simulate: learning curves", "POST", "/v1/benchmarks/nmtlc/ted-zh-en/simulate",
            422, IA, body={"repeats": 1})
        # Successive halving and ASHA on learning curves (issue 6).
        LC = "/v1/benchmarks/nmtlc/ted-zh-en/simulate"
        SH = {"name": "sh", "p": 2, "c": 10}
        AS = {"name": "asha", "r": 5, "u": 2, "R": 25, "p": 2, "keep": 2}

        def lc(algo=SH, **kw):
            b = {"algorithm": algo, "repeats": 1}
            b.update(kw)
            return b
        add("simulate: sh on a lookup table", "POST", "/v1/benchmarks/nmthpo/zh-en/simulate",
            422, IA, "algorithm.name", body=lc())
        add("simulate: gp on learning curves", "POST", LC, 422, IA, "algorithm.name",
            body=lc({"name": "gp"}))
        add("simulate: learning curves, algorithm not an object", "POST", LC, 400, IA,
            "algorithm", body=lc("sh"))
        add("simulate: learning curves, configs 0", "POST", LC, 422, IA, "configs",
            body=lc(configs=0))
        add("simulate: learning curves, configs above the set's 148", "POST", LC, 422, IA,
            "configs", body=lc(configs=149))
        add("simulate: learning curves, configs a string", "POST", LC, 400, IA, "configs",
            body=lc(configs="40"))
        add("simulate: learning curves, repeats 1001", "POST", LC, 422, IA, "repeats",
            body=lc(repeats=1001))
        add("simulate: learning curves, init does not apply", "POST", LC, 400, IA, "init",
            body=lc(init=3))
        add("simulate: sh p 1", "POST", LC, 422, IA, "algorithm.p", body=lc(dict(SH, p=1)))
        add("simulate: sh c 0", "POST", LC, 422, IA, "algorithm.c", body=lc(dict(SH, c=0)))
        add("simulate: sh c a string", "POST", LC, 400, IA, "algorithm.c",
            body=lc(dict(SH, c="10")))
        add("simulate: sh rank mean", "POST", LC, 422, IA, "algorithm.rank",
            body=lc(dict(SH, rank="mean")))
        add("simulate: sh horizon -1", "POST", LC, 422, IA, "algorithm.horizon",
            body=lc(dict(SH, rank="extrapolate", horizon=-1)))
        add("simulate: sh horizon a string", "POST", LC, 400, IA, "algorithm.horizon",
            body=lc(dict(SH, rank="extrapolate", horizon="end")))
        add("simulate: sh round_up 1", "POST", LC, 400, IA, "algorithm.round_up",
            body=lc(dict(SH, round_up=1)))
        add("simulate: sh with a kernel", "POST", LC, 400, IA, "algorithm.kernel",
            body=lc(dict(SH, kernel="rbf")))
        add("simulate: sh with workers", "POST", LC, 422, IA, "workers", body=lc(workers=2))
        add("simulate: asha workers 0", "POST", LC, 422, IA, "workers",
            body=lc(AS, workers=0))
        add("simulate: asha workers 65", "POST", LC, 422, IA, "workers",
            body=lc(AS, workers=65))
        add("simulate: asha without R", "POST", LC, 400, IA, "algorithm.R",
            body=lc({k: v for k, v in AS.items() if k != "R"}))
        add("simulate: asha R below r", "POST", LC, 422, IA, "algorithm.R",
            body=lc(dict(AS, R=4)))
        add("simulate: asha keep -1", "POST", LC, 422, IA, "algorithm.keep",
            body=lc(dict(AS, keep=-1)))
        add("simulate: asha p 1", "POST", LC, 422, IA, "algorithm.p", body=lc(dict(AS, p=1)))
        add("simulate: asha with a base sampler", "POST", LC, 400, IA, "algorithm.base",
            body=lc(dict(AS, base="gp")))
        add("evaluate: learning curve without a step", "POST",
            "/v1/benchmarks/nmtlc/ted-zh-en/evaluate", (400, 422), IA, "step",
            body={"params": dict(curve_models("ted-zh-en")[0][0])})
        add("evaluate: a table row's params with bpe off the grid", "POST",
            "/v1/benchmarks/nmthpo/zh-en/evaluate", 422, IA, "params",
            body={"params": {"bpe": 12345, "num_layers": 4, "num_embed": 512,
                             "num_hidden": 1024, "num_heads": 16, "init_lr": 0.0003}})
    return C


KEEP_OUT = object()


@test("malformed requests fixture")
def t_bad_fixture(c):
    s = create(c, {"name": "bad requests", "space": SPACE4, "objectives": BLEU_MAX})
    live = suggest(c, s["id"], "bad-live")["trials"][0]
    done = suggest(c, s["id"], "bad-done")["trials"][0]
    report(c, done["id"], {"bleu": 1.0})
    c.bad = {"S": s["id"], "L": live["id"], "D": done["id"]}
    # The benchmark cases need an imported table and a stored simulation.
    expect(call(c.port, "POST", "/v1/benchmarks", synthetic_table("lab/fixture")), 201)
    c.bad["B"] = "lab/fixture"
    c.bad["M"] = simulate(c, "lab/fixture", {"algorithm": {"name": "random"},
                                             "repeats": 2, "seed": 5})["id"]


def run_bad_cases(c):
    fx = getattr(c, "bad", None)
    snap = db_snapshot(c.dburl)
    for name, method, path, kw, statuses, code, field, prefix in bad_cases():
        def one(c, method=method, path=path, kw=kw, statuses=statuses, code=code,
                field=field, prefix=prefix):
            nonlocal snap
            check(fx is not None, "fixture missing")
            try:
                p = path.format(**fx)
            except KeyError as e:
                raise Fail("fixture %s missing (see the fixture's failure)" % e)
            try:
                r = call(c.port, method, p, **kw)
                expect_error(r, statuses, code, field, prefix)
            finally:
                after = db_snapshot(c.dburl)
                changed = sorted(t for t in after if after[t] != snap.get(t))
                snap = after
            check(not changed, "database changed by a rejected request: tables %s" % changed)
        c.run("bad request: " + name, one)
    # The live trial must still be pending and untouched by all of that.
    if fx:
        def live_untouched(c):
            t = get_trial(c, fx["L"])
            check(t["state"] == "pending" and t["intermediate"] == [] and t["values"] == {},
                  "live trial changed: %r" % short(t))
        c.run("bad request: live trial untouched", live_untouched)


# -- idempotency, finite studies, budget ------------------------------------

@test("idempotency: repeated reports, a worker's held trials come back")
def t_idempotency(c):
    space = [{"name": "x", "type": "float", "low": 0.0, "high": 1.0}]
    sid = create(c, {"name": "idem", "space": space, "objectives": BLEU_MAX})["id"]
    t1 = suggest(c, sid, "idem-a")["trials"][0]
    again = suggest(c, sid, "idem-a")["trials"]
    check([t["id"] for t in again] == [t1["id"]], "same worker got %r, held %d"
          % ([t["id"] for t in again], t1["id"]))
    check(again[0]["params"] == t1["params"], "held trial's params changed")
    two = suggest(c, sid, "idem-a", count=2)["trials"]
    ids = [t["id"] for t in two]
    check(len(ids) == 2 and t1["id"] in ids and len(set(ids)) == 2,
          "count=2 gave %r, expected the held %d plus one new" % (ids, t1["id"]))
    t2 = [t for t in two if t["id"] != t1["id"]][0]
    other = suggest(c, sid, "idem-b")["trials"]
    check(len(other) == 1 and other[0]["id"] not in ids, "another worker got %r" % short(other))

    a0 = report(c, t1["id"], {"bleu": 1.0}, step=0)
    a1 = report(c, t1["id"], {"bleu": 9.0}, step=0)
    check(a1["action"] == a0["action"], "repeated step answered %r then %r"
          % (a0["action"], a1["action"]))
    check(a1["trial"]["intermediate"] == [{"step": 0, "values": {"bleu": 1.0}}],
          "a repeated step replaced something: %r" % a1["trial"]["intermediate"])
    f1 = report(c, t1["id"], {"bleu": 5.0})
    f2 = report(c, t1["id"], {"bleu": 5.0})
    check(f1["trial"]["state"] == "completed", "state %r" % f1["trial"]["state"])
    check(f2 == f1, "repeated final report answered differently:\n%s\n%s"
          % (short(f1), short(f2)))
    check(get_trial(c, t1["id"]) == f1["trial"], "trial changed by the repeated report")
    held = suggest(c, sid, "idem-a")["trials"]
    check([t["id"] for t in held] == [t2["id"]], "after completing %d, worker holds %r"
          % (t1["id"], [t["id"] for t in held]))


@test("finite study: 5 candidates, 5 distinct trials, retry_after while live, then done")
def t_finite(c):
    space = [{"name": "x", "type": "int", "low": 0, "high": 10},
             {"name": "c", "type": "categorical", "choices": ["a", "b"]},
             {"name": "f", "type": "float", "values": [0.5, 1.5]}]
    cands = [{"x": 0, "c": "a", "f": 0.5}, {"x": 3, "c": "b", "f": 1.5},
             {"x": 10, "c": "a", "f": 1.5}, {"x": 7, "c": "b", "f": 0.5},
             {"x": 3, "c": "a", "f": 0.5}]
    s = create(c, {"name": "finite", "space": space, "candidates": cands,
                   "objectives": BLEU_MAX})
    sid = s["id"]
    check(s["n_candidates"] == 5 and s["budget"] is None, "n_candidates %r budget %r"
          % (s["n_candidates"], s["budget"]))
    got = []
    for i in range(5):
        r = suggest(c, sid, "fin-%d" % i)
        check(len(r["trials"]) == 1 and not r["done"], "suggest %d: %r" % (i, short(r)))
        check_new_trial(r["trials"][0], sid, "fin-%d" % i, space)
        got.append(r["trials"][0])
    check(len({t["id"] for t in got}) == 5, "trial ids not distinct")
    check(sorted(canon(t["params"]) for t in got) == sorted(canon(x) for x in cands),
          "issued %r, candidates %r" % ([t["params"] for t in got], cands))
    r = suggest(c, sid, "fin-5")
    check(r["trials"] == [] and r["done"] is False, "with all live: %r" % short(r))
    check(is_int(r.get("retry_after")) and r["retry_after"] >= 1,
          "retry_after %r" % r.get("retry_after"))
    for i, t in enumerate(got):
        report(c, t["id"], {"bleu": float(i)})
    r = suggest(c, sid, "fin-5")
    check(r["trials"] == [] and r["done"] is True, "after all completed: %r" % short(r))
    r = suggest(c, sid, "fin-0", count=3)
    check(r["trials"] == [] and r["done"] is True, "another worker: %r" % short(r))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["state"] == "done" and st["trial_counts"]["completed"] == 5,
          "study %r %r" % (st["state"], st["trial_counts"]))
    b = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)["trial"]
    check(b["id"] == got[4]["id"], "best %r" % short(b))


@test("budget 3 on an infinite space: 3 trials, then none, then done")
def t_budget(c):
    sid = create(c, {"name": "budget", "space": SPACE4, "objectives": BLEU_MAX,
                     "budget": 3})["id"]
    got = []
    for i in range(3):
        r = suggest(c, sid, "bud-%d" % i)
        check(len(r["trials"]) == 1, "suggest %d: %r" % (i, short(r)))
        got.append(r["trials"][0]["id"])
    r = suggest(c, sid, "bud-3", count=2)
    check(r["trials"] == [] and r["done"] is False and r.get("retry_after", 0) >= 1,
          "budget spent, trials live: %r" % short(r))
    for i, tid in enumerate(got):
        report(c, tid, {"bleu": float(i)})
    r = suggest(c, sid, "bud-3")
    check(r["trials"] == [] and r["done"] is True, "budget spent, all completed: %r" % short(r))
    check(expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)["state"] == "done",
          "study not done")


@test("budget: a failed trial still counts")
def t_budget_failed(c):
    sid = create(c, {"name": "budget-fail", "space": SPACE4, "objectives": BLEU_MAX,
                     "budget": 2})["id"]
    a = suggest(c, sid, "bf-0")["trials"][0]
    expect(call(c.port, "POST", "/v1/trials/%d/fail" % a["id"], {"reason": "crash"}), 200)
    b = suggest(c, sid, "bf-0")["trials"]
    check(len(b) == 1 and b[0]["id"] != a["id"], "second trial %r" % short(b))
    report(c, b[0]["id"], {"bleu": 1.0})
    r = suggest(c, sid, "bf-0")
    check(r["trials"] == [] and r["done"] is True, "after 2 issued: %r" % short(r))


@test("pareto: two objectives, front, hypervolume against the study's reference; best is 422")
def t_pareto(c):
    s = create(c, {"name": "pareto", "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                   "objectives": [{"name": "bleu", "goal": "maximize"},
                                  {"name": "gpu_time", "goal": "minimize"}],
                   "reference": {"bleu": 0, "gpu_time": 300}})
    sid = s["id"]
    check(s["reference"] == {"bleu": 0, "gpu_time": 300}, "reference %r" % s["reference"])
    e = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % sid), 200)
    check(e["front"] == [] and e["hypervolume"] == 0 and e["n_completed"] == 0,
          "empty pareto %r" % short(e))
    pts = [(10, 100), (12, 200), (9, 150), (11, 90)]
    tids = []
    for i, (b, g) in enumerate(pts):
        t = suggest(c, sid, "par-%d" % i)["trials"][0]
        report(c, t["id"], {"bleu": b, "gpu_time": g})
        tids.append(t["id"])
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % sid), 200)
    check([x["trial"] for x in p["front"]] == [tids[1], tids[3]],
          "front %r, expected trials %r" % ([x["trial"] for x in p["front"]], [tids[1], tids[3]]))
    check(p["front"][1]["values"] == {"bleu": 11, "gpu_time": 90}, "front values %r" % p["front"])
    # (12,200) and (11,90) against (0,300): 11*210 + (12-11)*100.
    check(math.isclose(p["hypervolume"], 2410.0, rel_tol=1e-9),
          "hypervolume %r, expected 2410" % p["hypervolume"])
    check(p["reference"] == {"bleu": 0, "gpu_time": 300} and p["n_completed"] == 4,
          "reference/n_completed %r" % short(p))
    expect_error(call(c.port, "GET", "/v1/studies/%d/best" % sid), 422, "invalid_argument")

    s2 = create(c, {"name": "pareto-noref", "space": [{"name": "x", "type": "float",
                                                       "low": 0, "high": 1}],
                    "objectives": [{"name": "a", "goal": "minimize"},
                                   {"name": "b", "goal": "minimize"}]})
    e = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % s2["id"]), 200)
    check(e["reference"] is None and e["hypervolume"] == 0, "empty: %r" % short(e))
    for i, (a, b) in enumerate([(1, 3), (2, 2), (3, 1), (3, 3)]):
        t = suggest(c, s2["id"], "pn-%d" % i)["trials"][0]
        report(c, t["id"], {"a": a, "b": b})
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % s2["id"]), 200)
    check(len(p["front"]) == 3 and p["hypervolume"] > 0, "derived: %r" % short(p))
    check(isinstance(p["reference"], dict) and p["reference"]["a"] >= 3
          and p["reference"]["b"] >= 3, "derived reference %r (worst is 3, 3)" % p["reference"])


@test("decoupled reports and constraints: metrics arrive separately, a trial completes with its objectives, best is feasible")
def t_decoupled(c):
    s = create(c, {"name": "decoupled", "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                   "objectives": [{"name": "bleu", "goal": "maximize"}],
                   "constraints": [{"metric": "gpu_time", "max": 200}]})
    sid = s["id"]
    check(s["constraints"][0]["max"] == 200, "constraint stored %r" % s["constraints"])
    ta, tb, tc = (suggest(c, sid, w)["trials"][0] for w in ("a", "b", "c"))
    r = report(c, ta["id"], {"gpu_time": 150})
    check(r["trial"]["state"] == "running" and r["trial"]["values"] == {"gpu_time": 150},
          "speed first: %r" % short(r))
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % ta["id"],
                      {"values": {"gpu_time": 160}}), 409, "conflict", "values.gpu_time")
    r = report(c, ta["id"], {"bleu": 20})
    check(r["trial"]["state"] == "completed" and r["trial"]["values"] == {"gpu_time": 150, "bleu": 20},
          "bleu later completes: %r" % short(r))
    again = report(c, ta["id"], {"bleu": 20})
    check(again["trial"]["values"] == r["trial"]["values"], "repeat changed %r" % short(again))
    # Nothing is added to a completed trial: not a metric the study does not
    # know (422), not a late constrained metric (409); and nothing changed.
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % ta["id"],
                      {"values": {"speed": 5}}), 422, "invalid_argument", "values.speed")
    report(c, tc["id"], {"bleu": 22})                    # constraint not observed
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % tc["id"],
                      {"values": {"gpu_time": 100}}), 409, "conflict", "values.gpu_time")
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % tc["id"],
                      {"values": {"bleu": 22, "gpu_time": 100}}), 409, "conflict",
                 "values.gpu_time")
    check(get_trial(c, tc["id"])["values"] == {"bleu": 22}, "a refused report wrote %r"
          % short(get_trial(c, tc["id"])))
    report(c, tb["id"], {"bleu": 25, "gpu_time": 250})   # infeasible
    best = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)
    check(best["trial"] is not None and best["trial"]["id"] == ta["id"],
          "best must be the feasible trial %d, got %r" % (ta["id"], short(best)))
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto?ranks=true" % sid), 200)
    check([x["trial"] for x in p["front"]] == [ta["id"]] and p["n_feasible"] == 1
          and p["n_completed"] == 3, "pareto with constraints %r" % short(p))
    feas = {x["trial"]: x["feasible"] for x in p["ranks"]}
    check(feas == {ta["id"]: True, tb["id"]: False, tc["id"]: False}, "feasibility %r" % feas)



@test("best with decoupled constraints: a trial that never reported gpu_time is recommended only when the constraint GP gives P(feasible) >= confidence")
def t_best_confidence(c):
    # gpu_time = 100·exp(2x) with ±4% deterministic multiplicative noise:
    # log gpu_time is linear in x, so the GP of log gpu_time (core/mobo)
    # is sure far from the bound B = 100·e (x = 0.5) and less so near it.
    bound = 100 * math.e
    grid = [0.025 + 0.05 * i for i in range(20)]            # report both metrics
    deep_ok, deep_bad, border = 0.1, 0.9, 0.48              # report bleu only
    # Measured last, gpu_time first (decoupled): a completed trial takes no
    # late metric, so the model's verdict is overruled by new trials there.
    bad_measured, border_measured = 0.91, 0.47
    cands = [{"x": x} for x in grid + [deep_ok, deep_bad, border, bad_measured,
                                       border_measured]]

    def gpu(i, x):
        return 100 * math.exp(2 * x) * math.exp(0.04 * math.sin(17.0 * i + 1))

    def study(conf):
        s = create(c, {"name": "best-confidence %g" % conf,
                       "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                       "candidates": cands,
                       "objectives": [{"name": "bleu", "goal": "maximize"}],
                       "constraints": [{"metric": "gpu_time", "max": bound, "confidence": conf}],
                       "algorithm": {"name": "random", "seed": 5}})
        check(s["constraints"][0]["confidence"] == conf, "confidence stored %r" % s["constraints"])
        ts = suggest(c, s["id"], "w", count=len(cands))["trials"]
        check(len(ts) == len(cands), "%d trials issued, want %d" % (len(ts), len(cands)))
        return s["id"], {t["params"]["x"]: t["id"] for t in ts}

    def best(sid):
        return expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)

    lo, hi = study(0.9), study(0.999999)
    for sid, tid in (lo, hi):
        # Nobody reported gpu_time: the model knows nothing, nothing qualifies.
        report(c, tid[deep_ok], {"bleu": 28})
        report(c, tid[deep_bad], {"bleu": 30})
        b = best(sid)
        check(b["trial"] is None and "p_feasible" not in b,
              "no gpu_time reported yet: best must be null, got %r" % short(b))
        # Three reports (feasible, x <= 0.125) are too few to vouch for anyone:
        # the best observed-feasible trial, p_feasible 1.
        for i in range(3):
            report(c, tid[grid[i]], {"bleu": 10 + 5 * grid[i], "gpu_time": gpu(i, grid[i])})
        b = best(sid)
        check(b["trial"] is not None and b["trial"]["id"] == tid[grid[2]] and b["p_feasible"] == 1,
              "3 reports: best must be the observed-feasible %d with p 1, got %r"
              % (tid[grid[2]], short(b)))
        for i in range(3, len(grid)):
            report(c, tid[grid[i]], {"bleu": 10 + 5 * grid[i], "gpu_time": gpu(i, grid[i])})
    # The grid's best observed-feasible trial is x = 0.475 (bleu 12.4); the
    # infeasible ones up to 14.9 never count. deep_ok (bleu 28) sits where
    # every neighbour is far below B: recommended at both confidences;
    # deep_bad (bleu 30) sits where every neighbour is far above: never.
    ps = {}
    for conf, (sid, tid) in ((0.9, lo), (0.999999, hi)):
        b = best(sid)
        ps["deep feasible @%g" % conf] = b.get("p_feasible")
        check(b["trial"] is not None and b["trial"]["id"] == tid[deep_ok]
              and b["p_feasible"] >= conf and b["p_feasible"] <= 1,
              "confidence %g: best must be the unreported deep-feasible trial %d with "
              "p_feasible >= %g, got %r" % (conf, tid[deep_ok], conf, short(b)))
    # The borderline one (x = 0.48, bleu 29): likely feasible, not certainly.
    for sid, tid in (lo, hi):
        report(c, tid[border], {"bleu": 29})
    b = best(lo[0])
    ps["borderline @0.9"] = b.get("p_feasible")
    check(b["trial"] is not None and b["trial"]["id"] == lo[1][border]
          and 0.9 <= b["p_feasible"] < 0.999999,
          "confidence 0.9: best must be the borderline trial %d with 0.9 <= p < 0.999999, "
          "got %r" % (lo[1][border], short(b)))
    b = best(hi[0])
    check(b["trial"] is not None and b["trial"]["id"] == hi[1][deep_ok],
          "confidence 0.999999: the borderline trial must drop out for %d, got %r"
          % (hi[1][deep_ok], short(b)))
    again = best(lo[0])
    check(again == best(lo[0]) and again["p_feasible"] == ps["borderline @0.9"],
          "best is not deterministic: %r" % short(again))
    # A completed trial takes no late measurement (409, nothing written).
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % hi[1][deep_bad],
                      {"values": {"gpu_time": gpu(99, deep_bad)}}), 409, "conflict",
                 "values.gpu_time")
    check(best(hi[0])["trial"]["id"] == hi[1][deep_ok], "a refused report changed best")
    # A reported value decides over the model: measured first, then bleu.
    # An infeasible measurement meets nothing, whatever its bleu; a feasible
    # one next to the bound wins outright with p_feasible 1.
    r = report(c, hi[1][bad_measured], {"gpu_time": gpu(99, bad_measured)})
    check(r["trial"]["state"] == "running", "gpu_time alone completed %r" % short(r))
    report(c, hi[1][bad_measured], {"bleu": 40})
    b = best(hi[0])
    check(b["trial"]["id"] == hi[1][deep_ok], "reported infeasible must not win: %r" % short(b))
    report(c, hi[1][border_measured], {"gpu_time": 0.9 * bound})
    report(c, hi[1][border_measured], {"bleu": 31})
    b = best(hi[0])
    check(b["trial"]["id"] == hi[1][border_measured] and b["p_feasible"] == 1,
          "borderline reported feasible must win with p 1: %r" % short(b))
    print("# best confidence: " + ", ".join("p(%s) = %.9f" % kv for kv in sorted(ps.items())),
          flush=True)


def brute_front(pts, sense):
    """Indices of the non-dominated points (sense +1 maximize, -1 minimize)."""
    def dom(a, b):
        return all(s * x >= s * y for x, y, s in zip(a, b, sense)) and \
            any(s * x > s * y for x, y, s in zip(a, b, sense))
    return [i for i, a in enumerate(pts) if not any(dom(b, a) for b in pts)]


def brute_ranks(pts, sense):
    rank, left, r = {}, list(range(len(pts))), 0
    while left:
        sub = [pts[i] for i in left]
        f = [left[j] for j in brute_front(sub, sense)]
        for i in f:
            rank[i] = r
        left = [i for i in left if i not in f]
        r += 1
    return rank


def brute_hv(pts, sense, ref):
    """Exact dominated volume by cells of the coordinate grid (small n)."""
    m = len(ref)
    q = [[s * x for x, s in zip(p, sense)] for p in pts]      # maximize all
    rf = [s * x for x, s in zip(ref, sense)]
    q = [p for p in q if all(x > r for x, r in zip(p, rf))]
    if not q:
        return 0.0
    axes = [sorted(set([rf[j]] + [p[j] for p in q])) for j in range(m)]
    vol = 0.0

    def rec(j, lo, width):
        nonlocal vol
        if j == m:
            if any(all(p[k] >= lo[k] for k in range(m)) for p in q):
                vol += width
            return
        for a, b in zip(axes[j], axes[j][1:]):
            rec(j + 1, lo + [b], width * (b - a))
    rec(0, [], 1.0)
    return vol


@test("pareto equals a brute-force front, ranks and hypervolume on random studies (mixed goals)")
def t_pareto_bruteforce(c):
    import random
    rng = random.Random(2385)
    for case in range(4):
        m = 2 if case < 2 else 3
        goals = [rng.choice(["maximize", "minimize"]) for _ in range(m)]
        names = ["o%d" % j for j in range(m)]
        s = create(c, {"name": "pareto-bf-%d" % case,
                       "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                       "objectives": [{"name": n, "goal": g} for n, g in zip(names, goals)]})
        pts, tids = [], []
        for i in range(18):
            t = suggest(c, s["id"], "bf-%d" % i)["trials"][0]
            v = [float(rng.randint(0, 6)) + (rng.random() if case % 2 else 0) for _ in range(m)]
            report(c, t["id"], dict(zip(names, v)))
            pts.append(v)
            tids.append(t["id"])
        sense = [1 if g == "maximize" else -1 for g in goals]
        p = expect(call(c.port, "GET", "/v1/studies/%d/pareto?ranks=true&history=true" % s["id"]), 200)
        want = sorted(tids[i] for i in brute_front(pts, sense))
        check([x["trial"] for x in p["front"]] == want,
              "case %d: front %r, brute force %r" % (case, [x["trial"] for x in p["front"]], want))
        ref = [p["reference"][n] for n in names]
        hv = brute_hv(pts, sense, ref)
        check(math.isclose(p["hypervolume"], hv, rel_tol=1e-9, abs_tol=1e-9),
              "case %d: hypervolume %r, brute force %r" % (case, p["hypervolume"], hv))
        br = brute_ranks(pts, sense)
        got = {x["trial"]: x["rank"] for x in p["ranks"]}
        check(got == {tids[i]: br[i] for i in range(len(pts))}, "case %d: ranks differ" % case)
        h = [x["hypervolume"] for x in p["history"]]
        check(len(h) == 18 and all(a <= b + 1e-9 for a, b in zip(h, h[1:]))
              and math.isclose(h[-1], hv, rel_tol=1e-9, abs_tol=1e-9),
              "case %d: history %r" % (case, h))
    expect_error(call(c.port, "GET", "/v1/studies/%d/pareto?ranks=maybe" % s["id"]),
                 400, "invalid_argument", "ranks")


def drive_benchmark_study(c, ds, body, n_max, stop=None):
    """Suggest -> evaluate -> report on a benchmark-backed study; returns the
    list of (row, values) in order. stop(rows_so_far) ends the loop early."""
    s = create(c, dict(body, benchmark="nmthpo/" + ds))
    seen = []
    for _ in range(n_max):
        r = suggest(c, s["id"], "mo")
        if not r["trials"]:
            break
        t = r["trials"][0]
        e = expect(call(c.port, "POST", "/v1/benchmarks/nmthpo/%s/evaluate" % ds,
                        {"params": t["params"]}), 200)
        names = [o["name"] for o in body["objectives"]] + \
            [x["metric"] for x in body.get("constraints", [])]
        report(c, t["id"], {k: e["values"][k] for k in names})
        seen.append((e["row"], e["values"]))
        if stop and stop(seen):
            break
    return s, seen


@test("ehvi finds the zh-en Pareto set (max bleu, min gpu_time) in fewer evaluations than random")
def t_ehvi(c):
    need_tables()
    rows = tsv_rows("zh-en")
    front = {i for i, r in enumerate(rows) if r["pareto"]}
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    fta = {}
    for label, algo in [("random", {"name": "random"}),
                        ("ehvi/gp", {"name": "ehvi", "surrogate": "gp"}),
                        ("ehvi/graph", {"name": "ehvi", "surrogate": "graph"})]:
        runs = []
        for seed in range(3):
            _, seen = drive_benchmark_study(
                c, "zh-en", {"name": "ehvi " + label, "objectives": objs,
                             "algorithm": dict(algo, seed=seed)}, len(rows),
                stop=lambda sn: front <= {r for r, _ in sn})
            runs.append(len(seen))
        fta[label] = sum(runs) / float(len(runs))
    print("# evaluations until all %d Pareto rows of zh-en are found (mean of 3 seeds): %s"
          % (len(front), ", ".join("%s %.1f" % kv for kv in fta.items())))
    # Random search: E[max of 3 positions among 118] = 3*119/4 = 89.25.
    # The graph surrogate runs through the same path (and must not fail);
    # its figure is printed, not yet held to a bar (see the issue notes).
    check(fta["ehvi/gp"] < 75, "ehvi/gp fta %r" % fta)
    check(fta["ehvi/graph"] <= len(rows), "ehvi/graph fta %r" % fta)


@test("simulate: multi-objective ehvi beats random on fta and fbp (zh-en); constrained gp runs report the gap")
def t_simulate_mo(c):
    need_tables()
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    res = {}
    for label, algo in [("random", {"name": "random"}), ("ehvi", {"name": "ehvi", "surrogate": "gp"})]:
        r = expect(call(c.port, "POST", "/v1/benchmarks/nmthpo/zh-en/simulate",
                        {"algorithm": algo, "objectives": objs, "repeats": 6, "seed": 0}), 201)
        check(set(r["metrics"]) == {"fto", "fta", "fbp"}, "metrics %r" % r["metrics"])
        check(len(r["sequences"]) == 6, "sequences %d" % len(r["sequences"]))
        res[label] = r
    a, b = res["random"]["sequences"], res["ehvi"]["sequences"]
    check(all(x[:3] == y[:3] for x, y in zip(a, b)), "initial rows differ between algorithms")
    rows = tsv_rows("zh-en")
    front = {i for i, r in enumerate(rows) if r["pareto"]}
    for label, r in res.items():
        # fta recomputed from the sequences.
        ftas = []
        for seq in r["sequences"]:
            seen = set()
            for pos, row in enumerate(seq, 1):
                seen.add(row)
                if front <= seen:
                    ftas.append(max(pos, 3))
                    break
        check(len(ftas) == 6 and math.isclose(sum(ftas) / 6.0, r["metrics"]["fta"]["mean"]),
              "%s fta %r vs recomputed %r" % (label, r["metrics"]["fta"], ftas))
    fe, fr = res["ehvi"]["metrics"], res["random"]["metrics"]
    print("# simulate zh-en, 6 runs: fta ehvi %.1f random %.1f; fbp ehvi %.2f random %.2f"
          % (fe["fta"]["mean"], fr["fta"]["mean"], fe["fbp"]["mean"], fr["fbp"]["mean"]))
    check(fe["fta"]["mean"] < fr["fta"]["mean"] and fe["fbp"]["mean"] > fr["fbp"]["mean"],
          "ehvi %r vs random %r" % (fe, fr))
    rows = tsv_rows("ja-en")
    times = sorted(r["gpu_time"] for r in rows)
    bound = times[len(times) // 2]
    r = expect(call(c.port, "POST", "/v1/benchmarks/nmthpo/ja-en/simulate",
                    {"algorithm": {"name": "gp"}, "objectives": [objs[0]],
                     "constraints": [{"metric": "gpu_time", "max": bound}],
                     "repeats": 4, "budget": 40}), 201)
    check(all(len(s) == 40 for s in r["sequences"]), "constrained runs take 40 rows")
    check(r["metrics"]["gap"]["missed"] == 0 and r["metrics"]["gap"]["mean"] <= 0.5,
          "constrained gap %r" % r["metrics"])
    expect_error(call(c.port, "POST", "/v1/benchmarks/nmthpo/ja-en/simulate",
                      {"algorithm": {"name": "gp"}, "objectives": [objs[0]],
                       "constraints": [{"metric": "gpu_time", "max": 1}]}),
                 422, "invalid_argument", "constraints")


@test("constrained gp on ja-en (gpu_time <= median): within 0.5 BLEU of the best feasible row after 40, never an infeasible best")
def t_constrained(c):
    need_tables()
    rows = tsv_rows("ja-en")
    times = sorted(r["gpu_time"] for r in rows)
    bound = times[len(times) // 2]
    best_feasible = max(r["bleu"] for r in rows if r["gpu_time"] <= bound)
    gaps = []
    for seed in range(3):
        s, seen = drive_benchmark_study(
            c, "ja-en", {"name": "constrained", "objectives": [{"name": "bleu", "goal": "maximize"}],
                         "constraints": [{"metric": "gpu_time", "max": bound}],
                         "algorithm": {"name": "gp", "seed": seed}}, 40)
        b = expect(call(c.port, "GET", "/v1/studies/%d/best" % s["id"]), 200)["trial"]
        check(b is not None and b["values"]["gpu_time"] <= bound,
              "seed %d: best %r is not feasible" % (seed, b and b["values"]))
        gaps.append(best_feasible - b["values"]["bleu"])
    print("# constrained ja-en: gap to the best feasible BLEU after 40: %s" %
          ", ".join("%.2f" % g for g in gaps))
    check(sum(gaps) / len(gaps) <= 0.5, "mean gap %.3f > 0.5" % (sum(gaps) / len(gaps)))


def curve_study(ds, R, n):
    """A finite study over the first n distinct configurations of nmtlc set
    ds whose curves reach R checkpoints (the first curve of each): the
    parameter names, the space (one value list per hyperparameter), the
    candidates and {json key of a configuration: its curve}."""
    seen, cands, curves = set(), [], {}
    for hp, curve in curve_models(ds):
        key = json.dumps(hp, sort_keys=True)
        if key in seen or len(curve) < R:
            continue
        seen.add(key)
        cands.append(hp)
        curves[key] = curve
        if len(cands) == n:
            break
    names = sorted(cands[0])
    space = []
    for nm in names:
        vals = sorted({h[nm] for h in cands})
        is_int = all(float(v).is_integer() for v in vals)
        space.append({"name": nm, "type": "int" if is_int else "float",
                      "values": [int(v) if is_int else v for v in vals]})
    return names, space, cands, curves


def curve_trainers(c, sid, names, curves, prefix, horizon, workers=4):
    """Concurrent fake trainers on learning curves (curve_study), half on a
    second hpod process: each trial reports its curve checkpoint by
    checkpoint from its resume_from_step to its train_to (or horizon),
    stops when told to, else sends a final report with its best so far.
    Returns what they did: steps, stops [(trial, step, target)], assigned
    [(trial, target, resume_from or None)], finals [trial], key {trial:
    configuration key}, errors."""
    lock = threading.Lock()
    log = {"steps": 0, "stops": [], "assigned": [], "finals": [], "key": {},
           "errors": []}
    # Two hpod processes on one database: decisions are serialized by the
    # study lock in PostgreSQL, not by anything in a process.
    ports = [c.port, c.server().port]

    def worker(w):
        port = ports[w % 2]
        try:
            for _ in range(600):
                rsp = suggest(c, sid, "%s-%d" % (prefix, w), port=port)
                if rsp["done"]:
                    return
                if not rsp["trials"]:
                    time.sleep(0.05)
                    continue
                t = rsp["trials"][0]
                key = json.dumps({k: t["params"][k] for k in names}, sort_keys=True)
                curve = curves[key]
                target = t.get("train_to") or horizon
                start = t.get("resume_from_step")
                with lock:
                    log["assigned"].append((t["id"], target, start))
                    log["key"][t["id"]] = key
                step = start or 0  # checkpoints already trained
                stopped = False
                while step < target:
                    rep = report(c, t["id"], {"ppl": curve[step]}, step=step + 1,
                                 port=port)
                    with lock:
                        log["steps"] += 1
                    if t.get("train_to") and rep.get("train_to") != target:
                        raise AssertionError("report answer train_to %r, trial trains to %r"
                                             % (rep.get("train_to"), target))
                    if rep["action"] == "stop":
                        with lock:
                            log["stops"].append((t["id"], step + 1, target))
                        stopped = True
                        break
                    step += 1
                if not stopped:
                    report(c, t["id"], {"ppl": min(curve[:target])}, port=port)
                    with lock:
                        log["finals"].append(t["id"])
        except Exception as e:  # reported below
            with lock:
                log["errors"].append(repr(e))

    ths = [threading.Thread(target=worker, args=(w,)) for w in range(workers)]
    for th in ths:
        th.start()
    for th in ths:
        th.join(180)
    return log


@test("asha: 4 concurrent trainers on two servers over learning curves; stops only at rungs, promotions resume paused trials, far fewer steps than training all to R")
def t_asha(c):
    need_tables()
    R = 12
    names, space, cands, curves = curve_study("material-so-en", R, 24)
    r, u, p_ = 2, 2, 2
    rungs = list(range(r, R, u))          # decision rungs below R
    s = create(c, {"name": "asha", "space": space, "candidates": cands,
                   "objectives": [{"name": "ppl", "goal": "minimize"}],
                   "algorithm": {"name": "asha", "r": r, "u": u, "R": R, "p": p_,
                                 "keep": 2, "mode": "promotion", "seed": 3}})
    sid = s["id"]
    log = curve_trainers(c, sid, names, curves, "asha", R)
    check(not log["errors"], "worker errors: %r" % log["errors"][:3])
    bad = [x for x in log["stops"] if x[1] not in rungs]
    check(not bad, "stops off the rungs %r: %r" % (rungs, bad[:5]))
    # Every promotion resumes a trial exactly where a "stop" paused it.
    stops = {(tid, step) for tid, step, _ in log["stops"]}
    resumes = [(tid, start) for tid, _, start in log["assigned"] if start is not None]
    check(all(x in stops for x in resumes),
          "a resumed trial did not resume where it was paused: %r" % resumes[:5])
    check(len(set(resumes)) == len(resumes),
          "a trial was promoted twice from the same rung: %r" % resumes)
    full = len(cands) * R
    print("# asha on material-so-en: %d steps trained of %d (all to R=%d), %d stops, "
          "%d promotions, %d trained to R" % (log["steps"], full, R, len(log["stops"]),
                                               len(resumes), len(log["finals"])))
    check(log["steps"] < 0.7 * full, "trained %d of %d steps" % (log["steps"], full))
    check(len(log["finals"]) >= 2, "keep=2 but %d trained to R" % len(log["finals"]))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["state"] == "done" and st["trial_counts"]["paused"] == 0
          and st["trial_counts"]["pending"] + st["trial_counts"]["running"] == 0,
          "study at the end: %r" % st["trial_counts"])


@test("multistage: 4 concurrent trainers on two servers over learning curves; each stage trains to its steps, the top k by best-so-far seed the next, the last stage completes")
def t_multistage(c):
    need_tables()
    stages = [{"steps": 4, "trials": 12}, {"steps": 8, "trials": 6},
              {"steps": 12, "trials": 3}]
    R = stages[-1]["steps"]
    k = 3
    names, space, cands, curves = curve_study("material-so-en", R, 30)
    s = create(c, {"name": "multistage", "space": space, "candidates": cands,
                   "objectives": [{"name": "ppl", "goal": "minimize"}],
                   "algorithm": {"name": "multistage", "stages": stages, "k": k,
                                 "base": "gp", "seed": 5}})
    sid = s["id"]
    check(s["algorithm"]["stages"] == stages and s["algorithm"]["k"] == k
          and s["algorithm"]["base"] == "gp", "algorithm %r" % s["algorithm"])
    # Budget: 12 new, then 6 - 3 and 3 - 3 more.
    check(s["budget"] == 15, "default budget %r" % s["budget"])
    fid = [st["steps"] for st in stages]
    log = curve_trainers(c, sid, names, curves, "ms", None)
    check(not log["errors"], "worker errors: %r" % log["errors"][:3])
    check(all(tt in fid for _, tt, _ in log["assigned"]),
          "train_to off the stages: %r" % log["assigned"][:5])
    # Stops happen exactly at a non-final stage's steps.
    bad = [x for x in log["stops"] if x[1] != x[2] or x[2] == R]
    check(not bad, "stops off the stage boundaries: %r" % bad[:5])
    # Stage membership as the trainers saw it.
    members = {f: [] for f in fid}
    for tid, tt, start in log["assigned"]:
        if tid not in members[tt]:
            members[tt].append(tid)
    for i, f in enumerate(fid):
        check(len(members[f]) == stages[i]["trials"],
              "stage %d (steps %d) trained %d trials, wants %d"
              % (i, f, len(members[f]), stages[i]["trials"]))
    # Seeds: exactly the top k of the previous stage by best-so-far at its
    # steps, resumed where they stopped.
    stopped_at = {(tid, st) for tid, st, _ in log["stops"]}
    for i in range(1, len(fid)):
        prev = members[fid[i - 1]]
        bsf = {tid: min(curves[log["key"][tid]][:fid[i - 1]]) for tid in prev}
        want = sorted(prev, key=lambda tid: (bsf[tid], tid))[:min(k, stages[i]["trials"])]
        got = [tid for tid, tt, start in log["assigned"] if tt == fid[i] and start is not None]
        check(sorted(got) == sorted(want), "stage %d seeds %r, top %d by BSF %r"
              % (i, got, k, want))
        check(all((tid, fid[i - 1]) in stopped_at for tid in got),
              "a seed did not resume where it stopped")
        resumed_from = {tid: start for tid, tt, start in log["assigned"] if tt == fid[i] and start is not None}
        check(all(v == fid[i - 1] for v in resumed_from.values()),
              "resume_from_step %r, stage %d ended at %d" % (resumed_from, i - 1, fid[i - 1]))
    full = sum(st["trials"] for st in stages) * R
    check(sorted(log["finals"]) == sorted(members[R]),
          "completed %r, last stage %r" % (log["finals"], members[R]))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    tc = st["trial_counts"]
    check(st["state"] == "done" and tc["completed"] == stages[-1]["trials"]
          and tc["paused"] == 0 and tc["pending"] + tc["running"] == 0
          and tc["pruned"] == 12 + 3 - stages[-1]["trials"],
          "study at the end: %r %r" % (st["state"], tc))
    print("# multistage on material-so-en: %d steps trained for %d configurations "
          "(all %d trained to %d: %d steps), seeds %r"
          % (log["steps"], st["budget"], st["budget"], R, st["budget"] * R,
             [members[f][:3] for f in fid[1:]]))
    check(log["steps"] < 0.6 * st["budget"] * R, "trained %d steps" % log["steps"])


def nd_order(points):
    """ASHA's order at a rung with several objectives (core/asha.h): by
    non-dominated rank, then within a rank by decreasing crowding distance
    (extremes first), then by id. points: {id: (v1, v2, ...)} oriented so
    that larger is better. Returns the ids best first."""
    ids = sorted(points)
    m = len(next(iter(points.values())))

    def dom(a, b):
        return all(x >= y for x, y in zip(a, b)) and any(x > y for x, y in zip(a, b))

    left, ranks = set(ids), []
    while left:
        front = sorted(i for i in left
                       if not any(dom(points[j], points[i]) for j in left if j != i))
        ranks.append(front)
        left -= set(front)
    order = []
    for front in ranks:
        crowd = {i: 0.0 for i in front}
        if len(front) <= 2:
            crowd = {i: float("inf") for i in front}
        else:
            for j in range(m):
                srt = sorted(front, key=lambda i: (points[i][j], i))
                lo, hi = points[srt[0]][j], points[srt[-1]][j]
                crowd[srt[0]] = crowd[srt[-1]] = float("inf")
                if hi > lo:
                    for q in range(1, len(srt) - 1):
                        crowd[srt[q]] += (points[srt[q + 1]][j] - points[srt[q - 1]][j]) / (hi - lo)
        order += sorted(front, key=lambda i: (-crowd[i], i))
    return order


@test("asha with two objectives: a rung orders by non-dominated rank then crowding distance; stops and promotions follow the top 1/p of that order")
def t_asha_multiobjective(c):
    # (bleu, gpu_time) per configuration x; bleu is reported growing over
    # steps, gpu_time constant. 3 is dominated by 0; 7 is cheap but poor.
    vals = {0: (20, 100), 1: (22, 150), 2: (18, 80), 3: (15, 200),
            4: (25, 300), 5: (19, 90), 6: (21, 120), 7: (10, 60)}
    cands = [{"x": x} for x in sorted(vals)]
    r, R, p_ = 2, 6, 2
    s = create(c, {"name": "mo-asha", "space": [{"name": "x", "type": "int",
                                                 "values": sorted(vals)}],
                   "candidates": cands,
                   "objectives": [{"name": "bleu", "goal": "maximize"},
                                  {"name": "gpu_time", "goal": "minimize"}],
                   "algorithm": {"name": "asha", "r": r, "u": 100, "R": R, "p": p_,
                                 "keep": 0, "mode": "promotion", "seed": 11}})
    sid = s["id"]

    def at(x, step):
        b, t = vals[x]
        return {"bleu": b - (R - step) * 0.1, "gpu_time": t}

    rung = {}      # trial id -> oriented BSF vector at rung r
    xs = {}
    decisions, promotions = 0, 0
    for _ in range(100):
        rsp = suggest(c, sid, "mo")
        if rsp["done"]:
            break
        if not rsp["trials"]:
            continue
        t = rsp["trials"][0]
        tid, x = t["id"], t["params"]["x"]
        xs[tid] = x
        start = t.get("resume_from_step")
        if start is not None:
            # Promotable now: in the top floor(k/p) of the rung's order.
            order = nd_order(rung)
            lim = len(rung) // p_
            check(tid in order[:lim], "promoted %d (x=%d) is at %d of %r, limit %d"
                  % (tid, x, order.index(tid), order, lim))
            promotions += 1
        step = (start or 0) + 1
        stopped = False
        while step <= R:
            v = at(x, step)
            rep = report(c, tid, v, step=step)
            if step == r:
                bsf = (max(at(x, s_)["bleu"] for s_ in range(1, r + 1)), -v["gpu_time"])
                rung[tid] = bsf
                order = nd_order(rung)
                lim = len(rung) // p_
                want = "continue" if order.index(tid) < lim else "stop"
                check(rep["action"] == want, "x=%d at the rung: %s, reference %s (order %r, limit %d)"
                      % (x, rep["action"], want, [xs[i] for i in order], lim))
                decisions += 1
            else:
                check(rep["action"] == "continue", "stop off the rung at step %d" % step)
            if rep["action"] == "stop":
                stopped = True
                break
            step += 1
        if not stopped:
            report(c, tid, at(x, R))
    check(decisions == len(vals), "%d rung decisions for %d configurations" % (decisions, len(vals)))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["state"] == "done", "study %r" % st["trial_counts"])
    # The configurations trained to R are the rung's top floor(8/2) = 4,
    # at most (mispromotion cannot happen here: one worker, arrivals in
    # order, and the final order's top 4 are the ones promoted or passed).
    done = sorted(xs[t["id"]] for t in
                  expect(call(c.port, "GET", "/v1/studies/%d/trials?state=completed" % sid), 200)["trials"])
    top = sorted(xs[i] for i in nd_order(rung)[:len(rung) // p_])
    print("# mo-asha: %d decisions, %d promotions, trained to R: x=%r, final top of the rung x=%r"
          % (decisions, promotions, done, top))
    check(set(top) <= set(done), "the rung's top %r were not all trained to R (%r)" % (top, done))
    check(3 not in done or 3 in top, "dominated x=3 trained to R")


@test("random search reproducible: same seed same sequence, other seed different")
def t_reproducible(c):
    space = [{"name": "x", "type": "float", "low": 0.0, "high": 1.0},
             {"name": "n", "type": "int", "low": 1, "high": 1000},
             {"name": "k", "type": "categorical", "choices": ["a", "b", "c", "d"]}]

    def run(seed):
        s = create(c, {"name": "seed %d" % seed, "space": space, "objectives": BLEU_MAX,
                       "algorithm": {"name": "random", "seed": seed}})
        check(s["algorithm"].get("seed") == seed, "seed echoed as %r" % s["algorithm"])
        seq = []
        for _ in range(8):
            t = suggest(c, s["id"], "rep")["trials"][0]
            seq.append(t["params"])
            p = t["params"]
            report(c, t["id"], {"bleu": p["x"] + p["n"] / 1000.0})
        return seq

    a, b, d = run(5), run(5), run(6)
    check(a == b, "seed 5 twice: %r vs %r" % (short(a, 200), short(b, 200)))
    check(a != d, "seed 6 gave the same sequence as seed 5")
    check(len({canon(p) for p in a}) == 8, "random search repeated a configuration")


@test("model samplers: gp and graph find the optimum of a finite space in far fewer evaluations than random")
def t_models_beat_random(c):
    # A smooth bump on a 10x10 grid (maximum at x=7/9, y=3/9); every
    # algorithm gets the same seeds and the same number of initial points.
    grid = [i / 9.0 for i in range(10)]
    cands = [{"x": a, "y": b} for a in grid for b in grid]

    def f(p):
        return math.exp(-((p["x"] - 0.7) ** 2 + (p["y"] - 0.3) ** 2) / 0.08) + 0.3 * p["x"]

    best = max(cands, key=f)
    space = [{"name": "x", "type": "float", "values": grid},
             {"name": "y", "type": "float", "values": grid}]

    def evals_to_best(algo, seed):
        algo = dict(algo, seed=seed)
        if algo["name"] != "random":
            algo["init"] = 3
        s = create(c, {"name": "models %s" % algo["name"], "space": space,
                       "candidates": cands, "objectives": [{"name": "v", "goal": "maximize"}],
                       "algorithm": algo})
        for n in range(1, len(cands) + 1):
            t = suggest(c, s["id"], "m")["trials"][0]
            report(c, t["id"], {"v": f(t["params"])})
            if t["params"] == best:
                return n
        raise AssertionError("%s never suggested the optimum" % algo)

    seeds = range(6)
    mean = {}
    for label, algo in [("random", {"name": "random"}),
                        ("gp", {"name": "gp", "kernel": "matern52", "acquisition": "ei"}),
                        ("graph/ei", {"name": "graph", "acquisition": "ei"}),
                        ("graph/eif", {"name": "graph", "acquisition": "eif"})]:
        mean[label] = sum(evals_to_best(algo, sd) for sd in seeds) / float(len(seeds))
    print("# evaluations to the optimum of 100 (mean of 6 seeds): %s" %
          ", ".join("%s %.1f" % kv for kv in mean.items()))
    # Random search needs (n+1)/2 = 50.5 in expectation (its mean over 6
    # seeds has a standard error near 12, so compare with the expectation).
    check(mean["random"] > 20, "random search found the optimum suspiciously fast: %r" % mean)
    check(mean["gp"] < 20, "gp: %r" % mean)
    check(mean["graph/ei"] < 30, "graph/ei: %r" % mean)
    check(mean["graph/eif"] < 30, "graph/eif: %r" % mean)


@test("lease expiry frees the candidate; the expired trial is failed and refuses reports")
def t_lease(c):
    space = [{"name": "x", "type": "int", "values": [1, 2]}]
    s = create(c, {"name": "lease", "space": space, "candidates": [{"x": 2}],
                   "objectives": BLEU_MAX, "lease_seconds": 1})
    sid = s["id"]
    check(s["lease_seconds"] == 1, "lease_seconds %r" % s["lease_seconds"])
    ta = suggest(c, sid, "lease-a")["trials"][0]
    span = (parse_ts(ta["lease_expires_at"]) - parse_ts(ta["created_at"])).total_seconds()
    check(0.5 <= span <= 2.5, "lease of %.2f s for lease_seconds 1" % span)
    time.sleep(3.0)
    deadline = time.monotonic() + 15
    while True:
        r = suggest(c, sid, "lease-b")
        if r["trials"]:
            break
        check(not r["done"], "study done while its only candidate lapsed: %r" % short(r))
        check(time.monotonic() < deadline, "worker B got nothing for 15 s after the lease lapsed")
        time.sleep(0.5)
    tb = r["trials"][0]
    check(tb["id"] != ta["id"] and tb["params"] == ta["params"],
          "B got %r, A had %r" % (short(tb), short(ta)))
    a = get_trial(c, ta["id"])
    check(a["state"] == "failed" and a["reason"] == "lease expired"
          and a["lease_expires_at"] is None, "A's trial is %r" % short(a))
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % ta["id"],
                      {"values": {"bleu": 1.0}}), 409, "conflict")
    report(c, tb["id"], {"bleu": 2.0})
    r = suggest(c, sid, "lease-a")
    check(r["trials"] == [] and r["done"], "after B completed: %r" % short(r))
    # Whichever process on the database expired it counted it (its suggest
    # or its reaper thread): sum the counter over the live servers.
    total = 0.0
    for srv in c.servers:
        if srv.alive():
            m = call(srv.port, "GET", "/metrics").raw.decode()
            v = re.search(r"^hpod_leases_expired_total(?:\{[^}]*\})? (\S+)", m, re.M)
            check(v, "no hpod_leases_expired_total on port %d" % srv.port)
            total += float(v.group(1))
    check(total >= 1, "hpod_leases_expired_total summed over the servers: %r" % total)


@test("multistage: a stage member whose worker died is replaced after its lease lapses; the stage waits, then advances and the study finishes")
def t_multistage_lease(c):
    space = [{"name": "x", "type": "int", "values": [1, 2, 3, 4, 5]}]
    s = create(c, {"name": "ms-lease", "space": space,
                   "candidates": [{"x": v} for v in (1, 2, 3, 4, 5)],
                   "objectives": [{"name": "loss", "goal": "minimize"}],
                   "lease_seconds": 1,
                   "algorithm": {"name": "multistage", "k": 1, "seed": 2,
                                 "stages": [{"steps": 2, "trials": 3},
                                            {"steps": 4, "trials": 1}]}})
    sid = s["id"]
    check(s["budget"] == 3, "budget %r (3 new, then 1 - 1)" % s["budget"])

    def loss(x, step):
        return x + 1.0 / step

    dead = suggest(c, sid, "dies")["trials"][0]
    check(dead["train_to"] == 2, "stage 0 trains to 2: %r" % short(dead))
    live = []
    for w in ("a", "b"):
        t = suggest(c, sid, w)["trials"][0]
        live.append(t)
        for step in (1, 2):
            rep = report(c, t["id"], {"loss": loss(t["params"]["x"], step)}, step=step)
            want = "stop" if step == 2 else "continue"
            check(rep["action"] == want and rep["train_to"] == 2,
                  "step %d: %r, want %s" % (step, short(rep), want))
        check(get_trial(c, t["id"])["state"] == "paused", "paused at the stage's steps")
    # The stage is full (3 members) and one is live: wait, not done.
    r = suggest(c, sid, "c")
    check(r["trials"] == [] and not r["done"] and r.get("retry_after"),
          "while a member trains: %r" % short(r))
    time.sleep(2.5)
    deadline = time.monotonic() + 15
    while True:
        r = suggest(c, sid, "c")
        if r["trials"]:
            break
        check(time.monotonic() < deadline, "no replacement 15 s after the lease lapsed")
        time.sleep(0.5)
    rep_t = r["trials"][0]
    check(rep_t["id"] != dead["id"] and rep_t["train_to"] == 2
          and rep_t.get("resume_from_step") is None, "replacement %r" % short(rep_t))
    check(get_trial(c, dead["id"])["state"] == "failed", "the dead trial is failed")
    for step in (1, 2):
        report(c, rep_t["id"], {"loss": loss(rep_t["params"]["x"], step)}, step=step)
    # Stage 0 complete: the best of the three (lowest loss at step 2) goes on.
    members = live + [rep_t]
    best = min(members, key=lambda t: (loss(t["params"]["x"], 2), t["id"]))
    r = suggest(c, sid, "d")
    check(len(r["trials"]) == 1, "stage 1: %r" % short(r))
    seed = r["trials"][0]
    check(seed["id"] == best["id"] and seed["resume_from_step"] == 2
          and seed["train_to"] == 4, "seed %r, best %r" % (short(seed), best["id"]))
    for t in members:
        if t["id"] != best["id"]:
            g = get_trial(c, t["id"])
            check(g["state"] == "pruned", "trial %d left behind is %s" % (t["id"], g["state"]))
    for step in (3, 4):
        rep = report(c, seed["id"], {"loss": loss(seed["params"]["x"], step)}, step=step)
        check(rep["action"] == "continue", "the last stage never stops: %r" % short(rep))
    report(c, seed["id"], {"loss": loss(seed["params"]["x"], 4)})
    r = suggest(c, sid, "d")
    check(r["trials"] == [] and r["done"], "after the last stage: %r" % short(r))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["state"] == "done", "study %r" % st["trial_counts"])


@test("two servers, one database, 16 concurrent workers on 100 candidates")
def t_concurrent(c):
    b = c.server()
    ports = [c.port, b.port]
    space = [{"name": "a", "type": "int", "low": 0, "high": 9},
             {"name": "b", "type": "int", "values": list(range(10))}]
    cands = [{"a": i, "b": j} for i in range(10) for j in range(10)]
    sid = create(c, {"name": "concurrent", "space": space, "candidates": cands,
                     "objectives": BLEU_MAX})["id"]
    issued, errors, saw_done = [], [], {}
    lock = threading.Lock()
    deadline = time.monotonic() + 150

    def worker(i):
        port = ports[i % 2]
        name = "cw-%02d" % i
        try:
            while time.monotonic() < deadline:
                if len(issued) > 100:
                    errors.append("%s: stopped, more than 100 trials issued" % name)
                    return
                r = suggest(c, sid, name, port=port)
                for t in r["trials"]:
                    p = t["params"]
                    with lock:
                        issued.append((t["id"], canon(p)))
                    report(c, t["id"], {"bleu": p["a"] * 10 + p["b"]}, port=port)
                if r["done"]:
                    saw_done[name] = True
                    return
                if not r["trials"]:
                    time.sleep(min(r.get("retry_after", 1), 1))
            errors.append("%s: no done after 150 s" % name)
        except Exception as e:  # noqa: BLE001
            errors.append("%s: %s" % (name, e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    check(not errors, "workers failed: %s" % "; ".join(errors[:5]))
    check(len(saw_done) == 16, "only %d workers saw done" % len(saw_done))
    ids = [x[0] for x in issued]
    check(len(ids) == 100 and len(set(ids)) == 100,
          "%d trials issued, %d distinct" % (len(ids), len(set(ids))))
    check(sorted(x[1] for x in issued) == sorted(canon(x) for x in cands),
          "issued configurations are not the 100 candidates")
    lst = all_trials(c, sid)
    check(lst["total"] == 100, "study has %d trials" % lst["total"])
    check(all(t["state"] == "completed" for t in lst["trials"]), "not all completed")
    check(len({canon(t["params"]) for t in lst["trials"]}) == 100, "configurations repeat")
    check(all(t["values"]["bleu"] == t["params"]["a"] * 10 + t["params"]["b"]
              for t in lst["trials"]), "stored values differ from the reports")
    sc = expect(call(b.port, "GET", "/v1/studies/%d" % sid), 200)
    check(sc["state"] == "done" and sc["trial_counts"]["completed"] == 100,
          "study %r %r" % (sc["state"], sc["trial_counts"]))


@test("kill -9 during a stream of reports loses no acknowledged report")
def t_kill9(c):
    k = c.server()
    objectives = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    sid = create(c, {"name": "kill9", "space": [{"name": "x", "type": "float", "low": 0,
                                                 "high": 1}], "objectives": objectives},
                 port=k.port)["id"]
    acked, errors = {}, []
    lock = threading.Lock()
    stop = threading.Event()

    def worker(i):
        while not stop.is_set():
            try:
                r = call(k.port, "POST", "/v1/studies/%d/suggest" % sid,
                         {"worker": "k9-%d" % i}, timeout=10)
                if r.status != 200:
                    errors.append("suggest answered %r" % r)
                    return
                for t in r.json["trials"]:
                    vals = {"bleu": t["id"] + 0.25, "gpu_time": 1000 - t["id"] * 0.5}
                    r2 = call(k.port, "POST", "/v1/trials/%d/report" % t["id"],
                              {"values": vals}, timeout=10)
                    if r2.status == 200:
                        with lock:
                            acked[t["id"]] = vals
                    else:
                        errors.append("report answered %r" % r2)
                        return
            except (OSError, http.client.HTTPException):
                return  # the server is gone
            except Fail as e:
                errors.append(str(e))
                return

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    time.sleep(1.0)
    with lock:
        before = len(acked)
    k.kill9()
    stop.set()
    for th in threads:
        th.join()
    check(not errors, "before the kill: %s" % "; ".join(errors[:3]))
    check(before >= 1, "no report acknowledged within 1 s")
    k2 = c.server()
    lst = all_trials(c, sid, port=k2.port)
    by_id = {t["id"]: t for t in lst["trials"]}
    for tid, vals in sorted(acked.items()):
        t = by_id.get(tid)
        check(t is not None, "acknowledged trial %d is gone" % tid)
        check(t["state"] == "completed" and t["values"] == vals,
              "acknowledged trial %d is %s with %r, reported %r"
              % (tid, t["state"], t["values"], vals))
    for t in lst["trials"]:
        if t["state"] == "completed":
            check(set(t["values"]) == {"bleu", "gpu_time"}, "half-written trial %r" % short(t))
        else:
            check(t["values"] == {}, "trial %d is %s with values %r"
                  % (t["id"], t["state"], t["values"]))
    print("# kill -9: %d reports acknowledged before the kill, %d trials in the study"
          % (len(acked), lst["total"]), flush=True)


# -- lookup-table benchmarks (issue 4) ----------------------------------------

@test("benchmarks: the six nmthpo tables (sizes, parameters, oracle, Pareto sets) and the learning curves")
def t_bench_builtin(c):
    need_tables()
    lst = expect(call(c.port, "GET", "/v1/benchmarks"), 200)["benchmarks"]
    names = [b["name"] for b in lst]
    check(names == sorted(names), "benchmarks not sorted by name: %r" % names)
    check(len(set(names)) == len(names), "a name listed twice: %r" % names)
    by = {b["name"]: b for b in lst}
    for ds, rows, best_row, best, npareto in NMTHPO:
        name = "nmthpo/" + ds
        check(name in by, "%s not listed (got %r)" % (name, names))
        s = by[name]
        check(s["kind"] == "table" and s["source"] == "files" and s["size"] == rows,
              "%s listed as %r" % (name, short(s)))
        check(s["params"] == NMTHPO_PARAMS, "%s params %r" % (name, s["params"]))
        check(sorted(s["metrics"]) == sorted(NMTHPO_METRICS), "%s metrics %r"
              % (name, s["metrics"]))
        b = expect(call(c.port, "GET", bench_path(name)), 200)
        for k in s:
            check(b.get(k) == s[k], "%s: GET says %s %r, the list %r" % (name, k, b.get(k), s[k]))
        check(b["oracle"]["bleu"]["max_row"] == best_row and b["oracle"]["bleu"]["max"] == best,
              "%s oracle bleu %r, expected %s at row %d" % (name, b["oracle"]["bleu"], best,
                                                            best_row))
        check(len(b["pareto"]) == npareto, "%s: %d Pareto rows, expected %d"
              % (name, len(b["pareto"]), npareto))
        # Everything else against the file itself.
        t = tsv_rows(ds)
        check(len(t) == rows, "%s.tsv has %d rows (the suite expects %d)" % (ds, len(t), rows))
        want = {"parameters": [{"name": p, "values": sorted({r[p] for r in t})}
                               for p in NMTHPO_PARAMS],
                "oracle": {m: oracle_of([r[m] for r in t]) for m in NMTHPO_METRICS},
                "pareto": [i for i, r in enumerate(t) if r["pareto"]]}
        check(want["pareto"] == pareto_rows([r["bleu"] for r in t], [r["gpu_time"] for r in t]),
              "%s.tsv: pareto column disagrees with the dominance computed here" % ds)
        check_benchmark(b, want, name)
        check("max_step" not in b, "%s: a table with max_step" % name)
    for ds in NMTLC:
        name = "nmtlc/" + ds
        check(name in by, "%s not listed (got %r)" % (name, names))
        s = by[name]
        models = curve_models(ds)
        configs = {canon(h) for h, _ in models}
        check(s["kind"] == "curves" and s["source"] == "files" and s["metrics"] == ["ppl"],
              "%s listed as %r" % (name, short(s)))
        # The file has repeated configurations (different runs of the same
        # hyperparameters): size may count models or distinct configurations.
        check(s["size"] in (len(models), len(configs)), "%s size %r: %d models, %d configurations"
              % (name, s["size"], len(models), len(configs)))
        check(set(s["params"]) <= set(models[0][0]), "%s params %r, hyperparams %r"
              % (name, s["params"], sorted(models[0][0])))
        b = expect(call(c.port, "GET", bench_path(name)), 200)
        longest = max(len(cv) for _, cv in models)
        check(b.get("max_step") == longest - 1, "%s max_step %r: the longest curve has %d "
              "checkpoints, steps 0..%d" % (name, b.get("max_step"), longest, longest - 1))
        check(b["pareto"] == [], "%s pareto %r" % (name, b["pareto"]))
        for p in b["parameters"]:
            check(p["values"] == sorted({h[p["name"]] for h, _ in models}),
                  "%s parameter %s values %r" % (name, p["name"], p["values"]))
    expect_error(call(c.port, "GET", bench_path("nmthpo/zh")), 404, "not_found")
    expect_error(call(c.port, "GET", bench_path("nmtlc/ted-xx-en")), 404, "not_found")


@test("benchmarks: import a table, describe it (oracle, Pareto), evaluate, simulate; a second server sees it; again is 409")
def t_bench_import(c):
    table = synthetic_table("lab/synthetic")
    want = expected_benchmark(table)
    check(want["oracle"]["bleu"]["max_row"] == 7 and want["pareto"] == [0, 1, 2, 3, 4, 7],
          "the suite's own table is not what it claims: %r" % want)
    got = expect(call(c.port, "POST", "/v1/benchmarks", table), 201)
    check_benchmark(got, want, "import answer")
    g = expect(call(c.port, "GET", bench_path("lab/synthetic")), 200)
    check_benchmark(g, want, "GET after import")
    lst = expect(call(c.port, "GET", "/v1/benchmarks"), 200)["benchmarks"]
    names = [b["name"] for b in lst]
    check(names == sorted(names), "benchmarks not sorted by name: %r" % names)
    mine = [b for b in lst if b["name"] == "lab/synthetic"]
    check(len(mine) == 1 and all(mine[0][k] == want[k] for k in
                                 ("kind", "source", "size", "params", "metrics")),
          "listed as %r" % short(mine))

    for i in (0, 7, 8, 11):
        r = table["rows"][i]
        ev = evaluate(c, "lab/synthetic", {p: r[p] for p in SYN_PARAMS})
        check(ev["row"] == i and ev["values"] == {"bleu": r["bleu"], "gpu_time": r["gpu_time"]},
              "evaluate row %d answered %r" % (i, ev))
    r = table["rows"][5]
    ev = evaluate(c, "lab/synthetic", {p: r[p] for p in SYN_PARAMS}, step=None)
    ev2 = expect(call(c.port, "POST", bench_path("lab/synthetic", "/evaluate"),
                      {"params": {p: r[p] for p in reversed(SYN_PARAMS)}, "step": None}), 200)
    check(ev2 == ev and ev["row"] == 5, "step null / key order changed the answer: %r vs %r"
          % (ev, ev2))

    # Another process on the same database sees the table, and refuses it again.
    b = c.server()
    g2 = expect(call(b.port, "GET", bench_path("lab/synthetic")), 200)
    check_benchmark(g2, want, "second server")
    ev = evaluate(c, "lab/synthetic", {p: table["rows"][3][p] for p in SYN_PARAMS},
                  port=b.port)
    check(ev["row"] == 3 and ev["values"]["bleu"] == 20.0, "second server evaluates %r" % ev)
    snap = db_snapshot(c.dburl)
    expect_error(call(c.port, "POST", "/v1/benchmarks", table), 409, "conflict")
    expect_error(call(b.port, "POST", "/v1/benchmarks", synthetic_table("lab/synthetic")),
                 409, "conflict")
    check(db_snapshot(c.dburl) == snap, "a refused import changed the database")

    # Simulations on it: metrics recomputed here from the sequences.
    bleu = [x["bleu"] for x in table["rows"]]
    gpu = [x["gpu_time"] for x in table["rows"]]
    pareto = [i in want["pareto"] for i in range(12)]
    sim = simulate(c, "lab/synthetic", {"algorithm": {"name": "random"}, "repeats": 6,
                                        "seed": 3, "init": 2, "budget": 4, "pareto_budget": 5,
                                        "tolerance": 1.0, "metrics": ALL_METRICS})
    check(sim["benchmark"] == "lab/synthetic" and sim["repeats"] == 6 and sim["seed"] == 3
          and sim["init"] == 2 and sim["budget"] == 4 and sim["pareto_budget"] == 5
          and sim["tolerance"] == 1.0 and sim["objective"] == BLEU_MAX[0]
          and sim["algorithm"]["name"] == "random", "simulation echoed %r" % short(sim, 600))
    check_simulation(sim, bleu, pareto, 12)
    # Minimizing gpu_time: the oracle row is 2 (gpu 30), defaults filled in.
    sim2 = simulate(c, "lab/synthetic", {"algorithm": {"name": "greedy"}, "repeats": 3,
                                         "objective": {"name": "gpu_time", "goal": "minimize"}})
    check(sim2["init"] == 3 and sim2["seed"] == 0 and sim2["tolerance"] == 0.5
          and sim2["budget"] == 20 and sim2["pareto_budget"] == 50,
          "defaults %r" % short({k: sim2.get(k) for k in ("init", "seed", "tolerance", "budget",
                                                          "pareto_budget")}))
    check_simulation(sim2, [-x for x in gpu], None, 12)
    got = expect(call(b.port, "GET", "/v1/simulations/%d" % sim["id"]), 200)
    check(same_simulation(got, sim), "GET /v1/simulations/%d differs from the POST answer: %s"
          % (sim["id"], differing(got, sim)))
    ls = expect(call(c.port, "GET", "/v1/simulations?benchmark=lab/synthetic"), 200)
    check([s["id"] for s in ls["simulations"]] == [sim2["id"], sim["id"]] and ls["total"] == 2,
          "simulations of lab/synthetic: %r" % short(ls))
    check(all("sequences" not in s for s in ls["simulations"]), "the list carries sequences")

    # A study backed by the imported table: candidates are its 12 rows.
    st = create(c, {"name": "on lab/synthetic", "benchmark": "lab/synthetic",
                    "objectives": BLEU_MAX, "algorithm": {"name": "greedy", "seed": 1}})
    check(st["benchmark"] == "lab/synthetic" and st["n_candidates"] == 12,
          "study %r" % short(st))
    check([p["name"] for p in st["space"]] == SYN_PARAMS, "space %r" % short(st["space"]))
    seen = []
    for k in range(12):
        t = suggest(c, st["id"], "syn")["trials"][0]
        ev = evaluate(c, "lab/synthetic", t["params"])
        seen.append(ev["row"])
        report(c, t["id"], study_metrics(st, ev["values"]))
    check(sorted(seen) == list(range(12)), "the study issued rows %r" % seen)
    r = suggest(c, st["id"], "syn")
    check(r["trials"] == [] and r["done"], "after 12 rows: %r" % short(r))
    best = expect(call(c.port, "GET", "/v1/studies/%d/best" % st["id"]), 200)["trial"]
    check(best["values"]["bleu"] == 24.5, "best %r" % short(best))


@test("simulate: HTTP and hpod bench run the same code: identical sequences for zh-en BO_EI_M")
def t_simulate_same_as_bench(c):
    need_tables()
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "seqs.jsonl")
        r = subprocess.run([c.args.hpod, "bench", "--tables", "zh-en", "--methods", "bo_ei_m,rs",
                            "--repeats", "6", "--seed", "4", "--out", os.path.join(d, "b.md"),
                            "--dir", BENCH_DIR, "--sequences", out],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=300)
        check(r.returncode == 0, "hpod bench failed: %s" % r.stderr.decode()[-500:])
        with open(out) as f:
            cells = {(x["table"], x["method"]): x for x in map(json.loads, f)}
    check(sorted(cells) == [("zh-en", "bo_ei_m"), ("zh-en", "rs")], "cells %r" % sorted(cells))
    for key, algo in [("bo_ei_m", {"name": "gp", "kernel": "matern52", "acquisition": "ei"}),
                      ("rs", {"name": "random"})]:
        cli = cells[("zh-en", key)]
        check(cli["seed"] == 4 and cli["init"] == 3 and len(cli["sequences"]) == 6,
              "cell %r" % short(cli))
        sim = simulate(c, "nmthpo/zh-en", {"algorithm": algo, "objective": BLEU_MAX[0],
                                           "init": 3, "seed": 4, "repeats": 6})
        check(sim["computed_metrics"] == ["ftb", "ftc", "fb"] and "fto" not in sim["metrics"],
              "%s: computed %r" % (key, sim["computed_metrics"]))
        for k, (a, b) in enumerate(zip(sim["sequences"], cli["sequences"])):
            check(a == b, "%s run %d: HTTP %s, hpod bench %s" % (key, k, short(a), short(b)))
    # A single objective asked for one metric stops when that one is decided.
    t = tsv_rows("zh-en")
    bleu = [r["bleu"] for r in t]
    only = simulate(c, "nmthpo/zh-en", {"algorithm": {"name": "random"}, "seed": 4,
                                        "repeats": 6, "metrics": ["ftc"]})
    check(only["computed_metrics"] == ["ftc"] and sorted(only["metrics"]) == ["ftc"],
          "ftc only: %r" % only["metrics"])
    thr = max(bleu) - 0.5
    for s in only["sequences"]:
        first = next(i + 1 for i, r in enumerate(s) if bleu[r] >= thr)
        check(len(s) == max(first, 3), "ftc-only run of %d rows, decided at %d"
              % (len(s), max(first, 3)))
    # Two objectives may add the first objective's ftb, and fto alone does
    # not wait for the whole front.
    objs = [{"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]
    mo = simulate(c, "nmthpo/zh-en", {"algorithm": {"name": "random"}, "objectives": objs,
                                      "repeats": 3, "metrics": ["fto", "ftb"]})
    check(mo["computed_metrics"] == ["ftb", "fto"] and sorted(mo["metrics"]) == ["ftb", "fto"],
          "two objectives, fto and ftb: %r" % mo["metrics"])
    check(mo["tolerance"] == 0.5, "tolerance %r" % mo.get("tolerance"))
    best = bleu.index(max(bleu))
    for s in mo["sequences"]:
        check(len(s) == max(s.index(best) + 1, next(i + 1 for i, r in enumerate(s)
                                                    if t[r]["pareto"]), 3),
              "fto+ftb run of %d rows: %s" % (len(s), short(s)))
    # A table without gpu_time has no BLEU/time front: fto does not apply.
    nog = synthetic_table("lab/no-gpu-time")
    nog["metrics"] = ["bleu"]
    for r in nog["rows"]:
        del r["gpu_time"]
    expect(call(c.port, "POST", "/v1/benchmarks", nog), 201)
    e = expect_error(call(c.port, "POST", bench_path("lab/no-gpu-time", "/simulate"),
                          {"repeats": 1, "metrics": ["ftb", "fto"]}), 422, "invalid_argument",
                     "metrics[1]")
    check("fto" in e["message"], "fto on a table without gpu_time: %r" % e)


def zh_en_sim(c, algorithm, repeats=30, seed=0):
    return simulate(c, "nmthpo/zh-en", {"algorithm": {"name": algorithm}, "repeats": repeats,
                                        "seed": seed})


@test("benchmarks: evaluate nmthpo/zh-en rows and a learning curve at its steps")
def t_bench_evaluate(c):
    need_tables()
    t = tsv_rows("zh-en")
    for i in (75, 0, 117, 77):
        ev = evaluate(c, "nmthpo/zh-en", {p: t[i][p] for p in NMTHPO_PARAMS})
        check(ev["row"] == i, "row %d's params evaluated as row %r" % (i, ev["row"]))
        check(ev["values"] == {m: t[i][m] for m in NMTHPO_METRICS},
              "row %d: %r, the file says %r" % (i, ev["values"],
                                                {m: t[i][m] for m in NMTHPO_METRICS}))
    check(evaluate(c, "nmthpo/zh-en", {p: t[75][p] for p in NMTHPO_PARAMS})["values"]["bleu"]
          == 14.66, "row 75 is not bleu 14.66")
    p75 = {p: t[75][p] for p in NMTHPO_PARAMS}
    expect_error(call(c.port, "POST", bench_path("nmthpo/zh-en", "/evaluate"),
                      {"params": dict(p75, init_lr=0.0005)}), 422, "invalid_argument", "params")
    expect_error(call(c.port, "POST", bench_path("nmthpo/zh-en", "/evaluate"),
                      {"params": p75, "step": 0}), 422, "invalid_argument", "step")
    expect_error(call(c.port, "POST", bench_path("nmthpo/xx-en", "/evaluate"),
                      {"params": p75}), 404, "not_found")

    # A configuration that appears once in its dataset (most appear twice,
    # with different curves, so they do not name one curve).
    ds = "ted-ru-en"
    models = curve_models(ds)
    counts = {}
    for h, _ in models:
        counts[canon(h)] = counts.get(canon(h), 0) + 1
    hp, curve = next((h, cv) for h, cv in models if counts[canon(h)] == 1 and len(cv) >= 3)
    b = expect(call(c.port, "GET", bench_path("nmtlc/" + ds)), 200)
    params = {k: hp[k] for k in b["params"]}
    ev0 = evaluate(c, "nmtlc/" + ds, params, step=0)
    check(ev0["values"] == {"ppl": curve[0]} and ev0.get("step") == 0,
          "step 0: %r, the curve starts %r" % (ev0, curve[:3]))
    check(is_int(ev0["row"]) and 0 <= ev0["row"] < b["size"], "curve row %r" % ev0["row"])
    last = len(curve) - 1
    evl = evaluate(c, "nmtlc/" + ds, params, step=last)
    check(evl["values"] == {"ppl": curve[last]} and evl["step"] == last
          and evl["row"] == ev0["row"], "step %d: %r, the curve ends %r"
          % (last, evl, curve[-2:]))
    ev1 = evaluate(c, "nmtlc/" + ds, params, step=1)
    check(ev1["values"] == {"ppl": curve[1]}, "step 1: %r, curve %r" % (ev1, curve[:3]))
    expect_error(call(c.port, "POST", bench_path("nmtlc/" + ds, "/evaluate"),
                      {"params": params, "step": len(curve)}), 422, "invalid_argument", "step")
    expect_error(call(c.port, "POST", bench_path("nmtlc/" + ds, "/evaluate"),
                      {"params": params, "step": 100000}), 422, "invalid_argument", "step")


@test("benchmarks: simulate random and greedy on nmthpo/zh-en; stored, listed, exported as .ss")
def t_bench_simulate(c):
    need_tables()
    t = tsv_rows("zh-en")
    n = len(t)
    bleu = [r["bleu"] for r in t]
    pareto = [r["pareto"] for r in t]
    rs = zh_en_sim(c, "random")
    check(rs["benchmark"] == "nmthpo/zh-en" and rs["repeats"] == 30 and rs["seed"] == 0
          and rs["init"] == 3 and rs["objective"] == BLEU_MAX[0] and rs["tolerance"] == 0.5
          and rs["budget"] == 20 and rs["pareto_budget"] == 50
          and rs["algorithm"]["name"] == "random",
          "simulation %r" % short({k: v for k, v in rs.items() if k != "sequences"}, 600))
    check(is_num(rs["seconds"]) and rs["seconds"] >= 0, "seconds %r" % rs["seconds"])
    parse_ts(rs["created_at"])
    per = check_simulation(rs, bleu, None, n)
    check(all(p["ftb"] >= 3 for p in per), "an ftb below init")
    # The oracle row is in a uniformly random position P of a permutation of
    # n rows: E[P] = (n+1)/2 = 59.5 and sd(P) = sqrt((n^2-1)/12) = 34.06, so
    # the mean of 30 runs has standard error 34.06/sqrt(30) = 6.22. (Counting
    # a hit among the 3 initial rows at position 3 adds 3/n = 0.03.)
    mean, sd = (n + 1) / 2.0, math.sqrt((n * n - 1) / 12.0)
    se = sd / math.sqrt(30)
    got = rs["metrics"]["ftb"]["mean"]
    check(abs(got - mean) <= 3 * se, "random ftb mean %.2f, expected %.1f +- %.1f (3 se)"
          % (got, mean, 3 * se))
    print("# zh-en random search, 30 runs: ftb %.1f +- %.1f (expected %.1f, se %.1f)"
          % (got, rs["metrics"]["ftb"]["std"], mean, se), flush=True)
    again = zh_en_sim(c, "random")
    check(again["sequences"] == rs["sequences"] and again["id"] != rs["id"],
          "same seed, other sequences (or the same id)")
    gr = simulate(c, "nmthpo/zh-en", {"algorithm": {"name": "greedy"}, "repeats": 30,
                                      "seed": 0, "metrics": ALL_METRICS})
    check_simulation(gr, bleu, pareto, n)
    for k, (a, b) in enumerate(zip(rs["sequences"], gr["sequences"])):
        check(a[:3] == b[:3], "run %d: random starts %r, greedy %r" % (k, a[:3], b[:3]))
    check(any(a[3:6] != b[3:6] for a, b in zip(rs["sequences"], gr["sequences"])),
          "greedy chose exactly what random chose after the initial rows in every run")

    got = expect(call(c.port, "GET", "/v1/simulations/%d" % rs["id"]), 200)
    check(same_simulation(got, rs), "GET differs from the POST answer: %s" % differing(got, rs))
    ss = call(c.port, "GET", "/v1/simulations/%d?format=ss" % gr["id"])
    check(ss.status == 200, "?format=ss answered %r" % ss)
    check(ss.headers.get("content-type", "").split(";")[0].strip() == "text/plain",
          "?format=ss Content-Type %r" % ss.headers.get("content-type"))
    lines = ss.raw.decode("utf-8").splitlines()
    want = [" ".join(str(r) for r in s) for s in gr["sequences"]]
    check(lines == want, ".ss export differs from the sequences: %r... vs %r..."
          % (lines[:1], want[:1]))

    ls = expect(call(c.port, "GET", "/v1/simulations?benchmark=nmthpo/zh-en&limit=1000"), 200)
    ids = [s["id"] for s in ls["simulations"]]
    check(ids[:3] == [gr["id"], again["id"], rs["id"]] and ls["total"] == len(ids),
          "simulations of zh-en, newest first: %r (total %r)" % (ids, ls["total"]))
    check(all(s["benchmark"] == "nmthpo/zh-en" and "sequences" not in s
              for s in ls["simulations"]), "list items %r" % short(ls["simulations"]))
    check(ls["simulations"][0]["metrics"] == gr["metrics"], "listed metrics differ")
    p1 = expect(call(c.port, "GET", "/v1/simulations?benchmark=nmthpo/zh-en&limit=1&offset=1"),
                200)
    check([s["id"] for s in p1["simulations"]] == [again["id"]] and p1["total"] == len(ids),
          "page limit=1 offset=1: %r" % short(p1))
    al = expect(call(c.port, "GET", "/v1/simulations"), 200)
    check(al["total"] >= len(ids) and al["simulations"][0]["id"] >= gr["id"],
          "all simulations %r" % short(al))

    # The paper's per-table defaults: tolerance 1.0 on en-ja, fbp budget 200
    # on sw-en and so-en.
    ej = simulate(c, "nmthpo/en-ja", {"algorithm": {"name": "random"}, "repeats": 2,
                                      "metrics": ALL_METRICS})
    check(ej["tolerance"] == 1.0 and ej["pareto_budget"] == 50, "en-ja defaults %r/%r"
          % (ej["tolerance"], ej["pareto_budget"]))
    check_simulation(ej, [r["bleu"] for r in tsv_rows("en-ja")],
                     [r["pareto"] for r in tsv_rows("en-ja")], 168)
    sw = simulate(c, "nmthpo/sw-en", {"algorithm": {"name": "random"}, "repeats": 1, "seed": 9})
    check(sw["tolerance"] == 0.5 and sw["pareto_budget"] == 200, "sw-en defaults %r/%r"
          % (sw["tolerance"], sw["pareto_budget"]))
    check_simulation(sw, [r["bleu"] for r in tsv_rows("sw-en")], None, 767)
    expect_error(call(c.port, "POST", bench_path("nmtlc/ted-zh-en", "/simulate"),
                      {"repeats": 1}), 422, "invalid_argument")


# -- successive halving and ASHA on the learning curves (issue 6) -----------



def lc_curves(dataset):
    """The models of one nmtlc dataset in file order: (perplexity_curve,
    perplexity_optimal)."""
    return [(o["perplexity_curve"], o["perplexity_optimal"]) for o in lc_records(dataset)]


def sh_reference(models, drawn, p, c, round_up=False):
    """Successive halving as the dissertation (ch. 6) and core/sh.h define
    it, re-implemented on the rows a run drew (in draw order): stage s looks
    at checkpoint s*c and keeps the top max(1, floor(k/p)) (ceil with
    round_up) by best-so-far perplexity, ties to the earlier draw; a stage
    at which every survivor's curve has ended keeps 1. Returns the run as
    the API reports it."""
    curves = [models[r][0] for r in drawn]
    opt = [models[r][1] for r in drawn]
    n = len(drawn)
    surv, out_at, s = list(range(n)), {}, 0
    while len(surv) > 1:
        s += 1
        t = s * c
        order = sorted(surv, key=lambda i: (min(curves[i][:t]), i))
        if all(len(curves[i]) <= t for i in surv):
            keep = 1
        else:
            k = len(surv)
            keep = max(1, -(-k // p) if round_up else k // p)
        for i in order[keep:]:
            out_at[i] = s
        surv = order[:keep]
    final = surv[0]
    lo = min(opt)
    best = opt.index(lo)
    holders = [i for i in range(n) if opt[i] == lo]
    disc = 0 if final in holders else max(out_at[i] for i in holders)
    spent = sum(min(len(curves[i]), out_at[i] * c) for i in out_at) + len(curves[final])
    return {"final": drawn[final], "best": drawn[best], "correct": opt[final] == lo,
            "discarded_at": disc, "stages": s, "spent": spent,
            "full": sum(len(cv) for cv in curves)}


def check_draws(sim, n):
    seqs = sim["sequences"]
    check(len(seqs) == sim["repeats"] == len(sim["runs"]),
          "%d sequences, %d runs for %d repeats" % (len(seqs), len(sim["runs"]), sim["repeats"]))
    for s in seqs:
        check(len(s) == sim["configs"] and len(set(s)) == len(s)
              and all(is_int(r) and 0 <= r < n for r in s),
              "a run's draw is not %d distinct rows of [0, %d): %s" % (sim["configs"], n, short(s)))
    check(len(set(tuple(s) for s in seqs)) == len(seqs) or len(seqs) == 1,
          "two runs drew the same configurations in the same order")


@test("simulate: successive halving p=2 c=10 on the six learning-curve sets (40 configs, 100 runs) agrees with a re-implementation; stored")
def t_simulate_sh(c):
    need_tables()
    for ds in NMTLC:
        models = lc_curves(ds)
        sim = simulate(c, "nmtlc/" + ds, {"algorithm": {"name": "sh", "p": 2, "c": 10},
                                          "configs": 40, "repeats": 100, "seed": 0})
        check(sim["benchmark"] == "nmtlc/" + ds and sim["configs"] == 40
              and sim["repeats"] == 100 and sim["seed"] == 0
              and sim["algorithm"] == {"name": "sh", "p": 2, "c": 10, "rank": "bsf",
                                       "round_up": False, "horizon": 0, "seed": 0},
              "simulation %r" % short({k: v for k, v in sim.items()
                                       if k not in ("runs", "sequences")}, 600))
        check_draws(sim, len(models))
        for k, (drawn, run) in enumerate(zip(sim["sequences"], sim["runs"])):
            want = sh_reference(models, drawn, 2, 10)
            check(run == want, "%s run %d: server %r, re-implementation %r"
                  % (ds, k, run, want))
        m = sim["metrics"]
        runs = sim["runs"]
        acc = 100.0 * sum(r["correct"] for r in runs) / len(runs)
        difs = [r["stages"] - r["discarded_at"] for r in runs if not r["correct"]]
        spent = sum(r["spent"] for r in runs) / len(runs)
        full = sum(r["full"] for r in runs) / len(runs)
        check(math.isclose(m["acc"], acc) and math.isclose(m["dif"], sum(difs) / len(runs),
                                                            abs_tol=1e-12)
              and (m["dif_failed"] is None if not difs
                   else math.isclose(m["dif_failed"], sum(difs) / len(difs)))
              and math.isclose(m["spent"], spent) and math.isclose(m["full"], full)
              and math.isclose(m["saved"], 100.0 * (1 - spent / full))
              and math.isclose(m["stages"], sum(r["stages"] for r in runs) / len(runs)),
              "%s metrics %r, the runs give acc %r dif %r spent %r full %r"
              % (ds, m, acc, sum(difs) / len(runs), spent, full))
        # Table 6.1 (p=2, c=10): acc 99 sw-en, 100 so-en zh-en ru-en, 69
        # ja-en, 77 en-ja; 100 runs of 40 draws leave a few points of noise.
        check(m["acc"] >= 90 if not ds.startswith("robust19") else 50 <= m["acc"] <= 95,
              "%s acc %r far from the dissertation's" % (ds, m["acc"]))
        check(0 < m["saved"] < 100 and m["spent"] < m["full"], "%s saved %r" % (ds, m["saved"]))
        print("# sh p=2 c=10 %s: acc %.0f dif %.2f, %.0f of %.0f checkpoints (saved %.0f%%)"
              % (ds, m["acc"], m["dif"], m["spent"], m["full"], m["saved"]), flush=True)
    # Stored: GET answers the same; the list leaves out runs and sequences;
    # the same seed draws the same; rank/round_up are honoured.
    got = expect(call(c.port, "GET", "/v1/simulations/%d" % sim["id"]), 200)
    check(same_simulation(got, sim), "GET differs from the POST answer: %s" % differing(got, sim))
    ls = expect(call(c.port, "GET", "/v1/simulations?benchmark=nmtlc/" + NMTLC[-1]), 200)
    check(ls["simulations"][0]["id"] == sim["id"]
          and "runs" not in ls["simulations"][0] and "sequences" not in ls["simulations"][0]
          and ls["simulations"][0]["metrics"] == sim["metrics"], "listed %r" % short(ls))
    ds = "robust19-ja-en"
    models = lc_curves(ds)
    a = simulate(c, "nmtlc/" + ds, {"algorithm": {"name": "sh", "p": 3, "c": 7, "rank": "bsf",
                                                  "round_up": True, "seed": 99},
                                    "configs": 25, "repeats": 12, "seed": 41})
    check(a["algorithm"]["seed"] == 41 and a["algorithm"]["round_up"] is True,
          "algorithm %r" % a["algorithm"])
    check_draws(a, len(models))
    for k, (drawn, run) in enumerate(zip(a["sequences"], a["runs"])):
        want = sh_reference(models, drawn, 3, 7, round_up=True)
        check(run == want, "p=3 c=7 round_up run %d: server %r, re-implementation %r"
              % (k, run, want))
    b = simulate(c, "nmtlc/" + ds, {"algorithm": {"name": "sh", "p": 3, "c": 7,
                                                  "round_up": True},
                                    "configs": 25, "repeats": 12, "seed": 41})
    check(b["sequences"] == a["sequences"] and b["runs"] == a["runs"] and b["id"] != a["id"],
          "same seed, other draws or results")
    last = simulate(c, "nmtlc/" + ds, {"algorithm": {"name": "sh", "rank": "last"},
                                       "configs": 40, "repeats": 30})
    check(last["algorithm"]["rank"] == "last" and last["algorithm"]["c"] == 10
          and last["algorithm"]["p"] == 2, "defaults %r" % last["algorithm"])
    # Looking forward: rank extrapolate on the same draws as bsf. A horizon
    # at or below every stage's checkpoint (10, 20, ...) has no future to
    # read, so it ranks exactly as bsf (core/sh.h); the default horizon
    # (the run's longest curve) changes some decisions on robust19.
    lc = {"configs": 40, "repeats": 30}
    bs = simulate(c, "nmtlc/robust19-ja-en", dict(lc, algorithm={"name": "sh"}))
    ex = simulate(c, "nmtlc/robust19-ja-en",
                  dict(lc, algorithm={"name": "sh", "rank": "extrapolate"}))
    h10 = simulate(c, "nmtlc/robust19-ja-en",
                   dict(lc, algorithm={"name": "sh", "rank": "extrapolate", "horizon": 10}))
    check(ex["algorithm"]["rank"] == "extrapolate" and ex["algorithm"]["horizon"] == 0
          and bs["algorithm"]["horizon"] == 0, "algorithms %r %r" % (ex["algorithm"], bs["algorithm"]))
    check(ex["sequences"] == bs["sequences"] == h10["sequences"], "other draws for the same seed")
    check(h10["runs"] == bs["runs"], "horizon 10 ranked differently from bsf")
    check(ex["runs"] != bs["runs"], "extrapolation changed no decision in 30 runs on robust19-ja-en")
    print("# sh p=2 c=10 robust19-ja-en, 30 runs: acc bsf %.0f, extrapolate %.0f"
          % (bs["metrics"]["acc"], ex["metrics"]["acc"]))
    one = simulate(c, "nmtlc/ted-zh-en", {"algorithm": {"name": "sh"}, "configs": 1,
                                          "repeats": 1})
    check(len(one["sequences"][0]) == 1 and one["runs"][0]["stages"] == 0
          and one["runs"][0]["correct"] and one["metrics"]["acc"] == 100,
          "one configuration: %r" % short(one["runs"]))


@test("simulate: asha (r=5 u=2 R=25 p=2 keep=2, 4 workers) on material-so-en saves checkpoints and keeps a good configuration")
def t_simulate_asha(c):
    need_tables()
    ds = "material-so-en"
    models = lc_curves(ds)
    algo = {"name": "asha", "r": 5, "u": 2, "R": 25, "p": 2, "keep": 2}
    sim = simulate(c, "nmtlc/" + ds, {"algorithm": algo, "configs": 40, "workers": 4,
                                      "repeats": 100, "seed": 0})
    check(sim["workers"] == 4 and sim["configs"] == 40 and sim["repeats"] == 100
          and sim["algorithm"] == dict(algo, mode="promotion", seed=0),
          "simulation %r" % short({k: v for k, v in sim.items()
                                   if k not in ("runs", "sequences")}, 600))
    check_draws(sim, len(models))
    R, r0 = algo["R"], algo["r"]
    for k, (drawn, run) in enumerate(zip(sim["sequences"], sim["runs"])):
        cap = [min(R, len(models[row][0])) for row in drawn]
        tr = run["trained"]
        opt = [models[row][1] for row in drawn]
        lo = min(opt)
        check(len(tr) == 40 and sum(tr) == run["steps"] and run["steps_full"] == sum(cap),
              "run %d: trained %r sums to %r, steps %r, steps_full %r (all to R: %r)"
              % (k, tr, sum(tr), run["steps"], run["steps_full"], sum(cap)))
        check(run["steps"] <= run["steps_full"], "run %d trained more than all to R" % k)
        check(all(min(r0, cp) <= t <= cp for t, cp in zip(tr, cap)),
              "run %d: a configuration trained outside [min(r, len), min(R, len)]: %r" % (k, tr))
        full = [j for j in range(40) if tr[j] == cap[j]]
        check(run["n_full"] == len(full), "run %d: n_full %r, %d trained to R"
              % (k, run["n_full"], len(full)))
        check(run["best_full"] == any(opt[j] == lo for j in full),
              "run %d: best_full %r" % (k, run["best_full"]))
        check(1 <= run["best_rank"] <= 40 and run["elapsed"] * 4 >= run["steps"],
              "run %d: rank %r, elapsed %r" % (k, run["best_rank"], run["elapsed"]))
    m = sim["metrics"]
    runs = sim["runs"]
    nr = float(len(runs))
    want = {"steps": sum(x["steps"] for x in runs) / nr,
            "steps_full": sum(x["steps_full"] for x in runs) / nr,
            "saved": sum(100.0 * (1 - x["steps"] / x["steps_full"]) for x in runs) / nr,
            "best_kept": 100.0 * sum(x["best_full"] for x in runs) / nr,
            "best_rank": sum(x["best_rank"] for x in runs) / nr,
            "kept_best": 100.0 * sum(x["best_rank"] == 1 for x in runs) / nr,
            "n_full": sum(x["n_full"] for x in runs) / nr,
            "elapsed": sum(x["elapsed"] for x in runs) / nr}
    for key, v in want.items():
        check(math.isclose(m[key], v, rel_tol=1e-9, abs_tol=1e-9),
              "metrics.%s %r, the runs give %r" % (key, m[key], v))
    check(m["saved"] > 0 and m["best_rank"] >= 1 and m["steps"] < m["steps_full"],
          "asha saved %r, rank %r" % (m["saved"], m["best_rank"]))
    print("# asha %s: %.0f of %.0f checkpoints (saved %.1f%%), best trained to R in %.0f%%, "
          "rank of kept %.2f" % (ds, m["steps"], m["steps_full"], m["saved"], m["best_kept"],
                                 m["best_rank"]), flush=True)
    got = expect(call(c.port, "GET", "/v1/simulations/%d" % sim["id"]), 200)
    check(same_simulation(got, sim), "GET differs from the POST answer: %s" % differing(got, sim))
    one = simulate(c, "nmtlc/" + ds, {"algorithm": algo, "repeats": 3, "seed": 0})
    check(one["workers"] == 4 and one["configs"] == 40 and one["runs"] == runs[:3]
          and one["sequences"] == sim["sequences"][:3],
          "defaults (workers 4, configs 40) or seeds differ: %r" % short(one["runs"]))
    w1 = simulate(c, "nmtlc/" + ds, {"algorithm": algo, "workers": 1, "repeats": 3,
                                     "seed": 0})
    check(w1["sequences"] == one["sequences"]
          and all(x["elapsed"] == x["steps"] for x in w1["runs"]),
          "one worker: elapsed must equal steps: %r" % short(w1["runs"]))


@test("benchmarks: a study backed by nmthpo/zh-en takes the table's space, rows and objective")
def t_bench_study(c):
    need_tables()
    t = tsv_rows("zh-en")
    rows = {canon({p: r[p] for p in NMTHPO_PARAMS}): i for i, r in enumerate(t)}
    s = create(c, {"name": "zh-en table", "benchmark": "nmthpo/zh-en",
                   "algorithm": {"name": "random", "seed": 4}, "budget": 5})
    check(s["benchmark"] == "nmthpo/zh-en" and s["n_candidates"] == 118
          and s["objectives"] == BLEU_MAX and s["budget"] == 5, "study %r" % short(s, 600))
    check([p["name"] for p in s["space"]] == NMTHPO_PARAMS, "space %r" % short(s["space"]))
    for p in s["space"]:
        check(sorted(p.get("values") or p.get("choices") or []) ==
              sorted({r[p["name"]] for r in t}), "space param %r" % p)
    got = []
    for k in range(5):
        tr = suggest(c, s["id"], "zh-%d" % k)["trials"][0]
        key = canon(tr["params"])
        check(key in rows, "suggested %r is not a row of zh-en" % tr["params"])
        ev = evaluate(c, "nmthpo/zh-en", tr["params"])
        check(ev["row"] == rows[key], "evaluate says row %r, the file %d" % (ev["row"], rows[key]))
        report(c, tr["id"], study_metrics(s, ev["values"]))
        got.append(rows[key])
    check(len(set(got)) == 5, "rows repeat: %r" % got)
    check(suggest(c, s["id"], "zh-0")["done"], "not done after the budget of 5")
    best = expect(call(c.port, "GET", "/v1/studies/%d/best" % s["id"]), 200)["trial"]
    check(best["values"]["bleu"] == max(t[i]["bleu"] for i in got), "best %r" % short(best))
    m = create(c, {"name": "zh-en two objectives", "benchmark": "nmthpo/zh-en",
                   "objectives": [{"name": "bleu", "goal": "maximize"},
                                  {"name": "gpu_time", "goal": "minimize"}]})
    check(m["n_candidates"] == 118 and len(m["objectives"]) == 2, "study %r" % short(m))
    g = expect(call(c.port, "GET", "/v1/studies/%d" % s["id"]), 200)
    check(g["benchmark"] == "nmthpo/zh-en" and g["n_candidates"] == 118, "GET study %r" % short(g))


@test("fake trainer: 4 workers, random, budget 30 on nmthpo/zh-en through the real HTTP path")
def t_fake_trainer(c):
    need_tables()
    t = tsv_rows("zh-en")
    rows = {canon({p: r[p] for p in NMTHPO_PARAMS}): i for i, r in enumerate(t)}
    script = os.path.join(TOP, "clients", "python", "fake_trainer.py")
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, script, "--url", "http://127.0.0.1:%d" % c.port,
                        "--benchmark", "nmthpo/zh-en", "--workers", "4", "--algorithm", "random",
                        "--budget", "30", "--seed", "11"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                       timeout=300)
    out = r.stdout.decode("utf-8", "replace")
    check(r.returncode == 0, "fake_trainer exited %d:\n%s" % (r.returncode, out[-2000:]))
    m = re.search(r"^study (\d+):", out, re.M)
    check(m, "fake_trainer did not print its study:\n%s" % out[-1000:])
    check(re.search(r"^best trial \d+: bleu ", out, re.M)
          and re.search(r"^table's best row 75 \(bleu 14.66\) (found after \d+|not found in 30)",
                        out, re.M), "fake_trainer's summary:\n%s" % out[-1000:])
    sid = int(m.group(1))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["benchmark"] == "nmthpo/zh-en" and st["state"] == "done"
          and st["trial_counts"]["completed"] == 30
          and sum(st["trial_counts"].values()) == 30, "study %r %r"
          % (st["state"], st["trial_counts"]))
    lst = all_trials(c, sid)
    seen = set()
    for tr in lst["trials"]:
        key = canon(tr["params"])
        check(key in rows, "trial %d has params %r, no row of zh-en" % (tr["id"], tr["params"]))
        i = rows[key]
        # The trial reports what its study measures: the objective, bleu.
        check(tr["values"] == {"bleu": t[i]["bleu"]},
              "trial %d (row %d) reported %r, the table says bleu %r"
              % (tr["id"], i, tr["values"], t[i]["bleu"]))
        seen.add(i)
    check(len(seen) == 30, "%d distinct rows in 30 trials" % len(seen))
    workers = {tr["worker"] for tr in lst["trials"]}
    check(len(workers) >= 2, "trials came from workers %r only" % sorted(workers))
    print("# fake trainer: 30 evaluations by 4 workers in %.1f s; %s" % (
        time.monotonic() - t0, " / ".join(x for x in out.splitlines()[-1:])), flush=True)


@test("fake trainer on learning curves: asha over nmtlc/ted-zh-en through the real HTTP path; every report is the curve's checkpoint")
def t_fake_trainer_curves(c):
    need_tables()
    models = curve_models("ted-zh-en")
    first = {}
    for hp, curve in models:
        first.setdefault(canon(hp), curve)
    R = 15
    script = os.path.join(TOP, "clients", "python", "fake_trainer.py")
    algo = {"name": "asha", "r": 3, "u": 3, "R": R, "p": 2, "keep": 2, "seed": 1}
    r = subprocess.run([sys.executable, script, "--url", "http://127.0.0.1:%d" % c.port,
                        "--benchmark", "nmtlc/ted-zh-en", "--workers", "4",
                        "--algorithm-json", json.dumps(algo)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                       timeout=300)
    out = r.stdout.decode("utf-8", "replace")
    check(r.returncode == 0, "fake_trainer exited %d:\n%s" % (r.returncode, out[-2000:]))
    m = re.search(r"^study (\d+):", out, re.M)
    check(m, "fake_trainer did not print its study:\n%s" % out[-1000:])
    sid = int(m.group(1))
    st = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    check(st["benchmark"] == "nmtlc/ted-zh-en" and st["state"] == "done"
          and st["objectives"] == [{"name": "ppl", "goal": "minimize"}]
          and st["n_candidates"] == len(first), "study %r %r %r"
          % (st["state"], st["n_candidates"], st["trial_counts"]))
    steps, full = 0, 0
    for tr in all_trials(c, sid)["trials"]:
        curve = first.get(canon(tr["params"]))
        check(curve is not None, "trial %d: %r is no configuration of the set"
              % (tr["id"], tr["params"]))
        for iv in tr["intermediate"]:
            k = iv["step"]
            check(1 <= k <= min(R, len(curve)) and iv["values"] == {"ppl": curve[k - 1]},
                  "trial %d reported %r at step %d, the curve has %r"
                  % (tr["id"], iv["values"], k, curve[k - 1] if k <= len(curve) else None))
        steps += len(tr["intermediate"])
        full += min(R, len(curve))
        if tr["state"] == "completed":
            want = min(curve[:min(R, len(curve))])
            check(tr["values"] == {"ppl": want}, "trial %d final %r, want %r"
                  % (tr["id"], tr["values"], want))
    check(re.search(r"^%d checkpoints trained" % steps, out, re.M),
          "the trainer's count differs from the %d reports stored:\n%s" % (steps, out[-600:]))
    check(steps < 0.7 * full, "trained %d of %d checkpoints" % (steps, full))
    print("# fake trainer, asha on ted-zh-en: %d of %d checkpoints (all %d configurations "
          "to R=%d); %s" % (steps, full, len(first), R, out.splitlines()[-1]), flush=True)


@test("database down: 503 unavailable, then the server recovers")
def t_db_down(c):
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(c.dburl).query)
    check("host" in q and q["host"][0].startswith("/"),
          "HPOD_DATABASE_URL has no socket directory (not from pg_tmp.sh?)")
    pgdir = q["host"][0]
    pg = os.path.join(TOP, "scripts", "pg.sh")
    body = {"name": "db down", "space": SPACE4[:1], "objectives": BLEU_MAX}
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


# --- numbers round-trip (issue: integrity) ---

BIG = 1.7976931348623157e308  # DBL_MAX


def exact(got, want):
    """got is want, with every number of the same JSON type (a real never
    comes back as an integer) and every float bit for bit."""
    if isinstance(want, float):
        return isinstance(got, float) and got == want and math.copysign(1, got) == math.copysign(1, want)
    if isinstance(want, bool) or want is None or isinstance(want, str):
        return got == want and type(got) is type(want)
    if isinstance(want, int):
        return isinstance(got, int) and not isinstance(got, bool) and got == want
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            exact(g, w) for g, w in zip(got, want))
    if isinstance(want, dict):
        return isinstance(got, dict) and set(got) >= set(want) and all(
            exact(got[k], w) for k, w in want.items())
    return False


def raw_get(c, path, port=None):
    r = call(port or c.port, "GET", path)
    return expect(r, 200), r.raw.decode("utf-8")


@test("numbers: a reported 14.2 reads back as 14.2 beside a value that needs 17 digits")
def t_numbers_shortest(c):
    sid = create(c, {"name": "shortest numbers",
                     "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                     "objectives": [{"name": "bleu", "goal": "maximize"},
                                    {"name": "gpu_time", "goal": "minimize"}]})["id"]
    t = suggest(c, sid, "num-short")["trials"][0]
    odd = 0.1 + 0.2  # 0.30000000000000004: 17 significant digits
    report(c, t["id"], {"bleu": 14.2, "gpu_time": odd})
    for path in ("/v1/trials/%d" % t["id"], "/v1/studies/%d/trials" % sid,
                 "/v1/studies/%d/pareto" % sid):
        body, text = raw_get(c, path)
        check('"bleu":14.2,' in text or '"bleu":14.2}' in text,
              "%s: 14.2 not printed as 14.2: %s" % (path, short(text, 600)))
        check("0.30000000000000004" in text and "14.19999" not in text,
              "%s: the 17-digit value %r lost or 14.2 widened: %s" % (path, odd, short(text, 600)))
    tr = get_trial(c, t["id"])
    check(exact(tr["values"], {"bleu": 14.2, "gpu_time": odd}), "values %r" % tr["values"])


@test("numbers: 1e19 and -1.7976931348623157e308 in a definition round-trip; suggest and pareto answer")
def t_numbers_huge(c):
    body = {"name": "huge numbers",
            "space": [{"name": "x", "type": "float", "values": [2e19, 1e19]},
                      {"name": "w", "type": "float", "values": [-BIG, 0.5, BIG]},
                      {"name": "y", "type": "float", "low": -BIG, "high": BIG},
                      {"name": "n", "type": "int", "values": [-9007199254740992, 9007199254740992]},
                      {"name": "m", "type": "int", "low": -9007199254740992,
                       "high": 9007199254740992}],
            "objectives": [{"name": "bleu", "goal": "maximize"},
                           {"name": "gpu_time", "goal": "minimize"}],
            "constraints": [{"metric": "gpu_time", "max": 1e19}],
            "reference": {"bleu": -BIG, "gpu_time": 1e19},
            "algorithm": {"name": "ehvi", "init": 2, "seed": 3}}
    s = create(c, body)
    got, text = raw_get(c, "/v1/studies/%d" % s["id"])
    for g in (s, got):
        check(exact(g["space"][0]["values"], [1e19, 2e19])
              and exact(g["space"][1]["values"], [-BIG, 0.5, BIG])
              and exact(g["space"][3]["values"], [-9007199254740992, 9007199254740992])
              and exact(g["space"][2]["low"], -BIG) and exact(g["space"][2]["high"], BIG)
              and exact(g["space"][4]["low"], -9007199254740992)
              and exact(g["space"][4]["high"], 9007199254740992),
              "space came back as %r" % g["space"])
        check(exact(g["constraints"][0]["max"], 1e19), "constraint %r" % g["constraints"])
        check(exact(g["reference"], body["reference"]), "reference %r" % g["reference"])
    check("10000000000000000000" not in text and ("1e+19" in text or "1e19" in text),
          "1e19 printed as %s" % short(text, 800))
    seen = set()
    for i in range(4):
        t = suggest(c, s["id"], "num-huge-%d" % i)["trials"][0]
        p = t["params"]
        check(any(exact(p["x"], v) for v in (1e19, 2e19))
              and any(exact(p["w"], v) for v in (-BIG, 0.5, BIG))
              and isinstance(p["y"], float) and -BIG <= p["y"] <= BIG
              and p["n"] in (-9007199254740992, 9007199254740992)
              and isinstance(p["m"], int) and abs(p["m"]) <= 9007199254740992,
              "params %r" % p)
        seen.add(p["x"])
        report(c, t["id"], {"bleu": float(i), "gpu_time": 10.0 * i + 0.5})
    par, ptext = raw_get(c, "/v1/studies/%d/pareto?ranks=true&history=true" % s["id"])
    check(exact(par["reference"], body["reference"]), "pareto reference %r" % par["reference"])
    check(isinstance(par["hypervolume"], (int, float)) and par["n_completed"] == 4,
          "pareto %r" % short(par))
    for f in par["front"]:
        check(any(exact(f["params"]["x"], v) for v in (1e19, 2e19)), "front params %r" % f)
    # A finite study: the candidates (their own table) keep their numbers.
    fin = create(c, {"name": "huge candidates",
                     "space": [{"name": "x", "type": "float", "values": [1e19, 2e19, -BIG]}],
                     "candidates": [{"x": 2e19}, {"x": -BIG}],
                     "objectives": BLEU_MAX, "algorithm": {"name": "random", "seed": 1}})
    xs = []
    for i in range(2):
        t = suggest(c, fin["id"], "num-fin")["trials"][0]
        xs.append(t["params"]["x"])
        report(c, t["id"], {"bleu": 1.0 + i})
    check(sorted(xs) == [-BIG, 2e19] and all(isinstance(x, float) for x in xs),
          "finite study issued %r" % xs)
    best, btext = raw_get(c, "/v1/studies/%d/best" % fin["id"])
    check(exact(best["trial"]["params"]["x"], xs[1]), "best %r" % short(best))
    # The widest float range under the model-based samplers.
    for algo in ({"name": "gp", "init": 2, "seed": 5}, {"name": "graph", "init": 2, "seed": 5}):
        sid = create(c, {"name": "widest range " + algo["name"],
                         "space": [{"name": "z", "type": "float", "low": -BIG, "high": BIG}],
                         "objectives": BLEU_MAX, "algorithm": algo})["id"]
        for i in range(4):
            t = suggest(c, sid, "num-wide")["trials"][0]
            z = t["params"]["z"]
            check(isinstance(z, float) and -BIG <= z <= BIG, "%s suggested z = %r" % (algo, z))
            report(c, t["id"], {"bleu": float(i)})


@test("numbers: an imported table with 1e19 and -1.7976931348623157e308 round-trips")
def t_numbers_table(c):
    rows = [{"opt": "a", "lr": 1e19, "layers": 9007199254740992, "bleu": 14.2, "gpu_time": BIG},
            {"opt": "b", "lr": 2e19, "layers": -3, "bleu": 0.1 + 0.2, "gpu_time": -BIG},
            {"opt": "a", "lr": 5e-324, "layers": 0, "bleu": -1e19, "gpu_time": 1e-300}]
    table = {"name": "lab/huge-numbers",
             "params": [{"name": "opt", "type": "categorical"}, {"name": "lr", "type": "float"},
                        {"name": "layers", "type": "int"}],
             "metrics": ["bleu", "gpu_time"], "rows": rows}
    got = expect(call(c.port, "POST", "/v1/benchmarks", table), 201)
    g, text = raw_get(c, bench_path("lab/huge-numbers"))
    for b in (got, g):
        vals = {p["name"]: p["values"] for p in b["parameters"]}
        check(exact(vals["lr"], [5e-324, 1e19, 2e19])
              and exact(vals["layers"], [-3, 0, 9007199254740992]),
              "parameters %r" % b["parameters"])
    check("10000000000000000000" not in text, "1e19 printed as an integer: %s" % short(text, 800))
    for i, r in enumerate(rows):
        ev = evaluate(c, "lab/huge-numbers", {k: r[k] for k in ("opt", "lr", "layers")})
        check(ev["row"] == i and exact(ev["values"], {"bleu": r["bleu"], "gpu_time": r["gpu_time"]}),
              "evaluate row %d: %r" % (i, ev))
    s = create(c, {"name": "on huge numbers", "benchmark": "lab/huge-numbers",
                   "objectives": BLEU_MAX, "algorithm": {"name": "random", "seed": 2}})
    for k in range(3):
        t = suggest(c, s["id"], "num-tab")["trials"][0]
        check(any(exact(t["params"], {p: r[p] for p in ("opt", "lr", "layers")}) for r in rows),
              "suggested %r, not a row" % t["params"])
        ev = evaluate(c, "lab/huge-numbers", t["params"])["values"]
        report(c, t["id"], {"bleu": ev["bleu"]})
    sim = simulate(c, "lab/huge-numbers", {"algorithm": {"name": "random"}, "repeats": 2,
                                           "seed": 1, "init": 1, "budget": 2})
    again = expect(call(c.port, "GET", "/v1/simulations/%d" % sim["id"]), 200)
    check(same_simulation(again, sim), "stored simulation differs: %s" % differing(again, sim))


@test("numbers: migration 0005 converts a database holding data from 0001-0003")
def t_numbers_migration(c):
    db = "hpod_mig_json"
    url = c.dburl.replace("///hpod?", "///%s?" % db, 1)
    check(url != c.dburl, "cannot derive a second database URL from %s" % c.dburl)
    psql(c.dburl, "DROP DATABASE IF EXISTS %s" % db)
    psql(c.dburl, "CREATE DATABASE %s" % db)
    old = os.path.join(c.logdir, "migrations-0001-0003")
    os.makedirs(old, exist_ok=True)
    for f in os.listdir(os.path.join(TOP, "migrations")):
        if f[:4] in ("0001", "0002", "0003"):
            with open(os.path.join(TOP, "migrations", f), "rb") as src, \
                    open(os.path.join(old, f), "wb") as dst:
                dst.write(src.read())

    def migrate(mdir):
        env = dict(os.environ, HPOD_DATABASE_URL=url, HPOD_MIGRATIONS=mdir)
        r = subprocess.run([c.args.hpod, "migrate"], env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        check(r.returncode == 0, "hpod migrate (%s) exited %d: %s"
              % (mdir, r.returncode, r.stdout.decode("utf-8", "replace")[-1500:]))
    try:
        migrate(old)
        # A study as hpod stored it before: jsonb turned 1e19 into an
        # integer jansson cannot read ("too big integer").
        legacy = {"name": "old", "space": [{"name": "x", "type": "float", "low": 0.0,
                                            "high": 1.0, "log": False}],
                  "objectives": BLEU_MAX, "algorithm": {"name": "random", "seed": 1},
                  "constraints": [{"metric": "bleu", "max": 1e19, "confidence": 0.5}],
                  "budget": None, "benchmark": None, "lease_seconds": 60,
                  "reference": None}
        psql(url, "INSERT INTO studies (name, definition, lease_seconds) VALUES"
                  " ('old', '%s', 60);"
                  " INSERT INTO candidates VALUES (1, 0, '{\"x\": 0.5, \"s\": \"12345678901234567890\"}');"
                  " INSERT INTO trials (study_id, seq, state, params, worker, values)"
                  " VALUES (1, 0, 'completed', '{\"x\": 0.1}', 'w', '{\"bleu\": 14.2}');"
                  " INSERT INTO benchmarks VALUES ('lab/old', '{\"params\": []}', '[{\"a\": 1.5}]');"
                  " INSERT INTO simulations (benchmark, summary, sequences, seconds)"
                  " VALUES ('lab/old', '{\"m\": 2e19}', '[[0, 1]]', 1.5)" % json.dumps(legacy))
        check("10000000000000000000," in psql(url, "SELECT definition::text FROM studies"),
              "jsonb no longer rewrites 1e19: the legacy case is not reproduced")
        migrate(os.path.join(TOP, "migrations"))
        cols = psql(url, "SELECT table_name || '.' || column_name FROM information_schema.columns"
                         " WHERE table_schema = 'public' AND data_type = 'json' ORDER BY 1").split()
        want = ["benchmarks.definition", "benchmarks.rows", "candidates.params",
                "simulations.sequences", "simulations.summary", "studies.definition",
                "trials.params"]
        check(all(w in cols for w in want), "json columns %r, expected %r" % (cols, want))
        kept = psql(url, "SELECT c.params::text || ' ' || t.params::text || ' ' || b.rows::text"
                         " || ' ' || m.summary::text"
                         " FROM candidates c, trials t, benchmarks b, simulations m")
        check(kept.strip() == '{"s": "12345678901234567890", "x": 0.5} {"x": 0.1} [{"a": 1.5}] '
                              '{"m": 20000000000000000000.0}', "data after the migration: %r" % kept)
        # The legacy study reads back, with 1e19 a real again.
        srv = Server(c.args.hpod, c.logdir, url)
        try:
            srv.start()
            g = expect(call(srv.port, "GET", "/v1/studies/1"), 200)
            check(exact(g["constraints"][0]["max"], 1e19), "legacy study %r" % short(g))
            suggest(c, 1, "legacy", port=srv.port)
        finally:
            srv.stop()
    finally:
        psql(c.dburl, "DROP DATABASE IF EXISTS %s" % db)


# --- typed values (issue: integrity) ---

def raw_report(c, tid, text, status=200):
    """Sends a report body as exact text (no float formatting on our side)."""
    return call(c.port, "POST", "/v1/trials/%d/report" % tid, raw=text.encode())


def same_double(a, b):
    return isinstance(a, float) and a == b and math.copysign(1, a) == math.copysign(1, b)


@test("typed values: 1e19, -1.7976931348623157e308, 5e-324 and 2^53+1 as a float read back "
      "exactly in the trial, the list, best and pareto; a conflicting report is 409; a curve "
      "with 1e19 keeps every step")
def t_typed_values(c):
    s = create(c, {"name": "typed values", "space": [{"name": "x", "type": "float",
                                                      "low": 0, "high": 1}],
                   "objectives": [{"name": "ppl", "goal": "minimize"}],
                   "algorithm": {"name": "random", "seed": 3}})
    sid = s["id"]
    texts = ["1e19", "-1.7976931348623157e308", "5e-324", "9007199254740993.0", "14.2",
             "-0.0"]
    ts = suggest(c, sid, "w", count=len(texts))["trials"]
    want = {}
    for t, txt in zip(ts, texts):
        body = '{"values": {"ppl": %s}}' % txt
        got = expect(raw_report(c, t["id"], body), 200)["trial"]
        check(got["state"] == "completed" and same_double(got["values"].get("ppl"), float(txt)),
              "report %s answered %r" % (txt, short(got)))
        want[t["id"]] = float(txt)
        # The same report again is 200; another value, or another metric of
        # the study on the completed trial, is 409; nothing changes.
        expect(raw_report(c, t["id"], body), 200)
        expect_error(raw_report(c, t["id"], '{"values": {"ppl": 1.5}}'), 409, "conflict",
                     "values.ppl")
        back = get_trial(c, t["id"])["values"]
        check(set(back) == {"ppl"} and same_double(back["ppl"], float(txt)),
              "%s read back as %r" % (txt, back))
    lst = all_trials(c, sid, "completed")["trials"]
    check({t["id"]: t["values"]["ppl"] for t in lst} == want
          and all(same_double(t["values"]["ppl"], want[t["id"]]) for t in lst),
          "the list reads back %r, want %r" % ([t["values"] for t in lst], want))
    b = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)["trial"]
    low = ts[texts.index("-1.7976931348623157e308")]["id"]
    check(b is not None and b["id"] == low and same_double(b["values"]["ppl"], -1.7976931348623157e308),
          "best %r, want trial %d" % (short(b), low))
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % sid), 200)
    check([x["trial"] for x in p["front"]] == [low] and p["n_completed"] == len(texts),
          "pareto %r" % short(p))
    # A diverged run's perplexity in the middle of a curve: every step stays.
    t = suggest(c, sid, "curve")["trials"][0]
    steps = ["3.5", "1e19", "2.25", "-1.7976931348623157e308"]
    for k, txt in enumerate(steps):
        expect(raw_report(c, t["id"], '{"values": {"ppl": %s}, "step": %d}' % (txt, k)), 200)
    got = get_trial(c, t["id"])["intermediate"]
    check([x["step"] for x in got] == list(range(len(steps)))
          and all(same_double(x["values"]["ppl"], float(steps[x["step"]])) for x in got),
          "curve read back as %r" % got)
    # A step already recorded replaces nothing.
    expect(raw_report(c, t["id"], '{"values": {"ppl": 7}, "step": 1}'), 200)
    check(same_double(get_trial(c, t["id"])["intermediate"][1]["values"]["ppl"], 1e19),
          "step 1 was replaced")
    # The database holds doubles in typed columns, not numbers in JSON.
    col = psql(c.dburl, "SELECT data_type FROM information_schema.columns WHERE "
                        "table_name = 'trial_values' AND column_name = 'value'").strip()
    check(col == "double precision", "trial_values.value is %r" % col)
    stored = psql(c.dburl, "SELECT value FROM trial_values WHERE trial_id = %d" % low).strip()
    check(float(stored) == -1.7976931348623157e308, "stored %r" % stored)


@test("pareto over the whole double range: the front is found, the reference and the "
      "hypervolume are finite numbers, nothing is 5xx")
def t_pareto_huge(c):
    s = create(c, {"name": "pareto huge", "space": [{"name": "x", "type": "float",
                                                     "low": 0, "high": 1}],
                   "objectives": [{"name": "bleu", "goal": "maximize"},
                                  {"name": "gpu_time", "goal": "minimize"}],
                   "algorithm": {"name": "random", "seed": 4}})
    pts = [("1.7976931348623157e308", "1.7976931348623157e308"),
           ("-1.7976931348623157e308", "-1.7976931348623157e308"),
           ("1e19", "5e-324")]
    ts = suggest(c, s["id"], "w", count=len(pts))["trials"]
    for t, (b, g) in zip(ts, pts):
        expect(raw_report(c, t["id"], '{"values": {"bleu": %s, "gpu_time": %s}}' % (b, g)), 200)
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto?history=true" % s["id"]), 200)
    # Every point is non-dominated (higher bleu always costs more time).
    check(sorted(x["trial"] for x in p["front"]) == sorted(t["id"] for t in ts),
          "front %r" % short(p))
    ref = p["reference"]
    check(set(ref) == {"bleu", "gpu_time"} and all(math.isfinite(v) for v in ref.values())
          and math.isfinite(p["hypervolume"]), "reference %r, hypervolume %r"
          % (ref, p["hypervolume"]))
    # The volume itself overflows a double: it saturates at the largest one
    # (it is at least that), never 0, in the answer and in its history.
    check(p["hypervolume"] == sys.float_info.max
          and p["history"][-1]["hypervolume"] == sys.float_info.max,
          "hypervolume %r, history %r" % (p["hypervolume"], p["history"]))


@test("reports across studies: a trial takes only its own study's metrics (422), and a "
      "completed trial takes no new metric (409)")
def t_report_other_study(c):
    a = create(c, {"name": "study A", "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                   "objectives": [{"name": "bleu", "goal": "maximize"}],
                   "constraints": [{"metric": "gpu_time", "max": 100}]})
    b = create(c, {"name": "study B", "space": [{"name": "x", "type": "float", "low": 0, "high": 1}],
                   "objectives": [{"name": "ppl", "goal": "minimize"}]})
    tb_live = suggest(c, b["id"], "w")["trials"][0]
    tb_done = suggest(c, b["id"], "w2")["trials"][0]
    report(c, tb_done["id"], {"ppl": 9.5})
    before = db_snapshot(c.dburl)
    for tid in (tb_live["id"], tb_done["id"]):
        expect_error(call(c.port, "POST", "/v1/trials/%d/report" % tid,
                          {"values": {"bleu": 30}}), 422, "invalid_argument", "values.bleu")
        expect_error(call(c.port, "POST", "/v1/trials/%d/report" % tid,
                          {"values": {"gpu_time": 1}, "step": 2}), 422, "invalid_argument",
                     "values.gpu_time")
    check(db_snapshot(c.dburl) == before, "a refused report changed the database")
    check(get_trial(c, tb_done["id"])["values"] == {"ppl": 9.5}, "B's completed trial changed")
    # Within study A: bleu completes; the constraint's metric afterwards is 409.
    ta = suggest(c, a["id"], "w")["trials"][0]
    report(c, ta["id"], {"bleu": 20})
    expect_error(call(c.port, "POST", "/v1/trials/%d/report" % ta["id"],
                      {"values": {"gpu_time": 50}}), 409, "conflict", "values.gpu_time")
    check(get_trial(c, ta["id"])["values"] == {"bleu": 20}, "A's completed trial changed")



@test("migration 0004 moves every number a jsonb column held into typed columns, 1e19 "
      "included, and hpod migrate is idempotent")
def t_migrate_typed(c):
    import shutil
    import tempfile
    db = "hpod_mig_%d" % os.getpid()
    url = c.dburl.replace("/hpod?", "/%s?" % db, 1)
    check(url != c.dburl, "cannot derive a second database's URL from %r" % c.dburl)
    psql(c.dburl, "DROP DATABASE IF EXISTS %s" % db)
    psql(c.dburl, "CREATE DATABASE %s" % db)
    old = tempfile.mkdtemp(prefix="hpod-mig-")
    try:
        for f in sorted(os.listdir(os.path.join(TOP, "migrations"))):
            if f < "0004":
                shutil.copy(os.path.join(TOP, "migrations", f), old)

        def migrate(dirname):
            r = subprocess.run([c.args.hpod, "migrate"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=120,
                               env=dict(os.environ, HPOD_DATABASE_URL=url,
                                        HPOD_MIGRATIONS=dirname))
            check(r.returncode == 0, "hpod migrate: %s" % r.stdout.decode()[-1500:])
        migrate(old)
        # A study as 0001-0003 stored it: values inside jsonb (1e19 comes
        # back from jsonb as 10000000000000000000).
        psql(url, "INSERT INTO studies (id, name, definition, lease_seconds) VALUES "
                  "(1, 's', '{}', 60);"
                  "INSERT INTO trials (id, study_id, seq, state, params, worker, values) VALUES "
                  "(1, 1, 0, 'completed', '{\"x\": 0.5}', 'w', "
                  "'{\"ppl\": 1e19, \"gpu_time\": 14.2, \"note\": \"text\"}'),"
                  "(2, 1, 1, 'running', '{\"x\": 0.25}', 'w', '{}');"
                  "INSERT INTO intermediate_values (trial_id, step, values, action) VALUES "
                  "(2, 0, '{\"ppl\": -1.7976931348623157e308}', 'continue'),"
                  "(2, 1, '{}', 'stop')")
        migrate(os.path.join(TOP, "migrations"))
        migrate(os.path.join(TOP, "migrations"))   # idempotent
        got = psql(url, "SELECT trial_id, metric, value FROM trial_values ORDER BY 1, 2")
        check([l.split("|") for l in got.split()] ==
              [["1", "gpu_time", "14.2"], ["1", "ppl", "1e+19"]], "trial_values %r" % got)
        got = psql(url, "SELECT trial_id, step, metric, value FROM step_values ORDER BY 1, 2")
        check([l.split("|") for l in got.split()] ==
              [["2", "0", "ppl", "-1.7976931348623157e+308"]], "step_values %r" % got)
        got = psql(url, "SELECT count(*) FROM intermediate_values")
        check(got.strip() == "2", "intermediate_values rows %r" % got)
        got = psql(url, "SELECT count(*) FROM information_schema.columns WHERE "
                        "table_name IN ('trials', 'intermediate_values') AND column_name = 'values'")
        check(got.strip() == "0", "the jsonb values columns are still there")
    finally:
        shutil.rmtree(old, ignore_errors=True)
        psql(c.dburl, "DROP DATABASE IF EXISTS %s" % db)

# --- operations (issue: integrity) ---

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


def pg_socket_dir(c):
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(c.dburl).query)
    check("host" in q and q["host"][0].startswith("/"),
          "HPOD_DATABASE_URL has no socket directory (not from pg_tmp.sh?)")
    return q["host"][0]


def url_with_password(c):
    """The test cluster's URL with user and password in its authority
    (postgresql://postgres:SECRET@/hpod?host=DIR)."""
    return "postgresql://postgres:%s@/hpod?host=%s" % (
        SECRET, urllib.parse.quote(pg_socket_dir(c), safe="/"))


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

    pids = postgres_pids(pg_socket_dir(c))
    os.kill(pids[0], signal.SIGSTOP)  # first: no new backend forks after
    pids = [pids[0]] + postgres_pids(pg_socket_dir(c))[1:]
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
    create(c, body, port=s.port)
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
    n503 = [x for x in lines if x["msg"] == "request" and x.get("status") == 503]
    check(len(n503) == 5, "access lines with 503: %d, expected 5" % len(n503))


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
               HPOD_BENCHMARKS=BENCH_DIR, HPOD_LOG_LEVEL="debug")
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
                           env=dict(os.environ, HPOD_DATABASE_URL=url))
        out = r.stdout.decode("utf-8", "replace")
        check(r.returncode == 1, "hpod migrate on %s exited %d:\n%s" % (url, r.returncode, out))
        check(SECRET not in out, "password logged:\n%s" % out)
        check("could not connect to" in out and "***" in out,
              "no redacted connection error:\n%s" % out)

# --- contract (issue: integrity) ---

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
    cases = [("PUT", "/v1/studies/%d" % sid, "GET, DELETE"),
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
    for tmpl, m in SPEC.operations():
        path = (tmpl.replace("{id}", str(tid if tmpl.startswith("/v1/trials") else sid))
                .replace("{namespace}", "lab").replace("{name}", "nope"))
        params = [SPEC.deref(p) for p in (SPEC.doc["paths"][tmpl][m].get("parameters", [])
                                          + SPEC.doc["paths"][tmpl].get("parameters", []))]
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
    check(n >= 20 and n_declared == 11, "%d operations, %d query parameters" % (n, n_declared))
    t = get_trial(c, tid)
    check(t["state"] == "pending", "a rejected request changed the trial: %r" % short(t))


@test("contract: errors libmicrohttpd answers itself (documented in the spec)")
def t_contract_protocol(c):
    desc = SPEC.doc["info"]["description"]
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
    # A body over the limit is hpod's own 413 with the Error body, after
    # the whole body was read.
    big = b'{"name": "' + b"x" * (1024 * 1024 + 10) + b'"}'
    r = call(c.port, "POST", "/v1/studies", raw=big)
    expect_error(r, 413, "payload_too_large")
    # Just under the memory limit a long query is still hpod's to answer.
    r = call(c.port, "GET", "/v1/studies?" + "a" * 8000 + "=1")
    expect_error(r, 400, "invalid_argument", "a" * 63)


def t_coverage(c):
    missing = [("%s %s" % (m.upper(), p)) for p, m in SPEC.operations()
               if (p, m) not in SPEC.exercised]
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


# ---------------------------------------------------------------------------

def main():
    global SPEC, BENCH_DIR, HAVE_TABLES
    ap = argparse.ArgumentParser(description="hpod API tests")
    ap.add_argument("--hpod", required=True, help="path to the hpod binary")
    ap.add_argument("--logdir", help="server logs (default: next to the binary)")
    ap.add_argument("--only", help="run only tests whose name matches this regex")
    ap.add_argument("--benchmarks", default=BENCH_DIR,
                    help="lookup tables for the servers (HPOD_BENCHMARKS; default %(default)s); "
                         "tests that need them are skipped when DIR/nmthpo is missing")
    args = ap.parse_args()
    BENCH_DIR = os.path.abspath(args.benchmarks)
    HAVE_TABLES = os.path.isfile(os.path.join(BENCH_DIR, "nmthpo", "zh-en.tsv"))
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
        SPEC = Spec(json.load(f))
    c = Ctx(args, dburl)
    t0 = time.monotonic()

    def migrate(c):
        log = os.path.join(args.logdir, "migrate.log")
        with open(log, "wb") as f:
            r = subprocess.run([args.hpod, "migrate"], stdout=f, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, timeout=120,
                               env=dict(os.environ, HPOD_DATABASE_URL=dburl))
        with open(log, "rb") as f:
            out = f.read().decode("utf-8", "replace")
        check(r.returncode == 0, "hpod migrate exited %d:\n%s" % (r.returncode, out[-2000:]))
        tables = psql(dburl, "SELECT count(*) FROM information_schema.tables "
                             "WHERE table_schema = 'public'").strip()
        check(int(tables) > 0, "hpod migrate created no table")

    c.run("hpod migrate", migrate)
    try:
        c.a = c.server()
        c.result("hpod serve answers /healthz", None)
    except Fail as e:
        c.result("hpod serve answers /healthz", e)
        print("api: %d passed, %d failed" % (c.passed, c.failed))
        return 1

    only = re.compile(args.only) if args.only else None
    for name, fn in TESTS:
        if only and not only.search(name):
            continue
        c.run(name, fn)
        if fn is t_bad_fixture:
            run_bad_cases(c)
    if not only:
        c.run("every spec operation exercised", t_coverage)
    c.run("servers shut down cleanly on SIGTERM (exit 0)", t_shutdown)
    for s in c.servers:  # whatever is still running after a failure
        if s.proc is not None:
            s.proc.kill()
            s.proc.wait()
    if c.skipped:
        print("# %d tests skipped: no lookup tables in %s" % (c.skipped, BENCH_DIR), flush=True)
    print("# api tests took %.1f s; server logs in %s" % (time.monotonic() - t0, args.logdir),
          flush=True)
    print("api: %d passed, %d failed" % (c.passed, c.failed), flush=True)
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
