"""tests/api/spec.py - the OpenAPI 3.1 checker every answer goes through
(harness.call() hands each answer to Spec.check_response).

A small OpenAPI 3.1 schema validator (the JSON Schema 2020-12 subset the
spec uses): type (a name or a list of names, "null" included), const,
enum, required, properties, additionalProperties, minProperties, items,
min/max(Length|Items), minimum, maximum, exclusiveMinimum and
exclusiveMaximum (numbers), pattern, format date-time (UTC) and int64,
$ref, allOf, oneOf, anyOf. A schema keyword outside that list (and the
annotations description, default, example(s), title) is a failure: the
spec cannot rely on a check this validator would silently skip.

The rule for objects the server produces: every response body is
validated CLOSED. A property is allowed only where some schema applied to
the object (through $ref, allOf and the oneOf/anyOf branches it matches)
declares it in `properties`, or says `additionalProperties` (true or a
schema) - as if every object schema carried `unevaluatedProperties:
false` unless it says otherwise. So the spec documents every field hpod
sends, and an open map (params, values, reference points) says so with
`additionalProperties`. The published spec stays open for clients (they
must ignore fields they do not know): the closing is this suite's rule.
Request bodies the server accepted are checked OPEN (standard semantics).

Every answer must be documented: a request line with a control character
(raw or escaped) answers 400, a path the spec lacks answers 404, a
method the path lacks answers 405 with an Allow header naming exactly the
spec's methods for it (both with the Error body), and any other answer's
status and Content-Type must be listed for its operation, its body
matching the listed schema (a listed answer without content has no body).
"""

import re
import threading

from harness import Fail, RFC3339, check, is_int, is_num, short


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
ERROR_SCHEMA = {"$ref": "#/components/schemas/Error"}
# A byte below 0x20 or 0x7f in a request target, raw or %-escaped.
CONTROL = re.compile(r"[\x00-\x1f\x7f]|%[01][0-9a-fA-F]|%7[fF]")


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
        if CONTROL.search(path):
            # A control character in the path or query, escaped or not, is
            # 400 before anything else, whatever the path (the spec's
            # description).
            check(status == 400, "%s: a control character in the request line, "
                  "so 400 was due" % what)
            check(self._content_type(headers) == "application/json",
                  "%s: Content-Type %r" % (what, headers.get("content-type")))
            self._check_body(what, ERROR_SCHEMA, body, raw)
            return
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
