"""tests/api/test_audit.py - the audit log (docs/audit.md): every write
route records its event with the caller's token (id and note, never the
secret) in the write's transaction; GET /v1/audit with its filters, paging
and labs; created_by on studies; the token id in the access log; the
retention (HPOD_AUDIT_DAYS).

The writes are driven by the spec: every operation that is not a GET
declares in x-hpod-audit the actions it records ([] for a trainer's
traffic: suggest, report, heartbeat, evaluate), and every such operation
is called here with the request auth's role matrix makes (on its database,
hpod_auth), so a new write route without a row fails this module.
"""

import glob
import json
import os
import time

from harness import (Server, call, cfg, check, expect, expect_error, psql, test)
from client import BLEU_MAX, SPACE4, uname
from test_auth import RANK, operations, requests

WRITES = ("post", "patch", "delete", "put")


def events(L, token, query=""):
    """Every event GET /v1/audit gives token for query, following next."""
    out, cursor = [], None
    for _ in range(1000):
        q = query + ("&" if query else "") + "limit=50"
        if cursor:
            q += "&next=" + cursor
        page = expect(L.call("GET", "/v1/audit?" + q, token=token), 200)
        out += page["events"]
        cursor = page["next"]
        if cursor is None:
            return out
    raise AssertionError("more than 1000 pages")


def last_id(L):
    top = expect(L.call("GET", "/v1/audit?limit=1", token=L.root), 200)["events"]
    return top[0]["id"] if top else 0


def new_since(L, since):
    """The events after id since, oldest first."""
    return [e for e in reversed(events(L, L.root)) if e["id"] > since]


class People:
    """Tokens with notes, made once per run on the auth database."""

    def __init__(self, L):
        self.tok, self.ids = {}, {}
        for role in ("read", "write", "admin"):
            t = expect(L.call("POST", "/v1/tokens", {"role": role, "lab": "mt",
                                                     "note": "audit-" + role},
                              token=L.root), 201)
            self.tok[role], self.ids[role] = t["token"], t["id"]


def people(c):
    L = c.fixture("lab")
    if not hasattr(L, "audit_people"):
        L.audit_people = People(L)
    return L, L.audit_people


def study_of(L, target):
    """The study a study/ or trial/ target belongs to."""
    kind, _, ident = target.partition("/")
    if kind == "study":
        return int(ident)
    if kind == "trial":
        return expect(L.call("GET", "/v1/trials/" + ident, token=L.root), 200)["study_id"]
    return None


@test("audit: every write route records its x-hpod-audit event with the token id and note")
def t_every_write(c):
    L, P = people(c)
    reqs = requests(L)
    ops = [(m, p, role) for m, p, role in operations() if m in WRITES]
    missing = [(m, p) for m, p, _ in ops
               if not isinstance(cfg.spec.doc["paths"][p][m].get("x-hpod-audit"), list)]
    check(not missing, "write operations without x-hpod-audit: %r" % missing)
    for m, p, role in ops:
        declared = cfg.spec.doc["paths"][p][m]["x-hpod-audit"]
        who = min((r for r in P.tok if RANK[r] >= RANK[role]), key=RANK.get)
        path, body = reqs[(m, p)]()  # what it needs is made first, by root
        before = last_id(L)
        r = L.call(m.upper(), path, body, token=P.tok[who], headers=(
            {"Prefer": "respond-async"} if p.endswith("/simulate") else None))
        check(200 <= r.status < 300, "%s %s: %r" % (m.upper(), p, r))
        got = new_since(L, before)
        if not declared:
            check(got == [], "%s %s records %r" % (m.upper(), p, got))
            continue
        check(len(got) == 1 and got[0]["action"] in declared,
              "%s %s: events %r, declared %r" % (m.upper(), p, got, declared))
        e = got[0]
        check(e["token"] == {"id": P.ids[who], "note": "audit-" + who},
              "%s %s: token %r" % (m.upper(), p, e["token"]))
        kind = e["target"].split("/")[0]
        check(kind in ("study", "trial", "token", "simulation", "benchmark"),
              "target %r" % e["target"])
        if kind in ("study", "trial") and e["action"] != "study.delete":
            check(e["study"] == study_of(L, e["target"]) and e["lab"] == "mt",
                  "%s: study %r lab %r" % (e["target"], e["study"], e["lab"]))
        if kind in ("token", "simulation", "benchmark"):
            check(e["study"] is None and e["lab"] == "mt", "%r" % e)
        if e["action"] == "study.delete":
            check(e["detail"].get("name") and e["study"] == int(path.rsplit("/", 1)[1]),
                  "study.delete %r" % e)
            expect_error(L.call("GET", path, token=L.root), 404, "not_found")
        if e["action"] == "study.patch":
            check(e["detail"] == body, "study.patch detail %r, sent %r" % (e["detail"], body))
        if e["action"] == "trial.fail":
            check(e["detail"].get("reason") == body["reason"], "trial.fail %r" % e)


@test("audit: no secret in the audit table, the tokens table or any server log; token ids logged")
def t_no_secret(c):
    L, P = people(c)
    reqs = requests(L)
    path, body = reqs[("post", "/v1/tokens")]()
    made = expect(L.call("POST", path, dict(body, note="shown-once"), token=P.tok["admin"]), 201)
    expect(L.call("GET", "/v1/audit?limit=3", token=L.root), 200)
    secrets = [L.root, made["token"]] + list(L.tok.values()) + list(P.tok.values())
    dump = psql(L.url, "SELECT * FROM audit_events") + psql(L.url, "SELECT * FROM tokens")
    logs = ""
    for f in glob.glob(os.path.join(c.logdir, "*.log")):
        with open(f, "rb") as fh:
            logs += fh.read().decode("utf-8", "replace")
    for s in secrets:
        check(s not in dump, "a token's secret is in the database")
        check(s[5:] not in dump and s not in logs, "a token's secret is in the logs")
    # The token's id (never its secret) in the access log.
    mine = [json.loads(x) for x in open(L.srv.logpath, encoding="utf-8")
            if '"/v1/audit' in x]
    check(mine and all("token" in x for x in mine), "access log lines %r" % mine[-2:])
    root_id = [t for t in expect(L.call("GET", "/v1/tokens", token=L.root), 200)["tokens"]
               if t["note"] == "first admin"][0]["id"]
    check(any(x["token"] == root_id for x in mine), "no access line with token %d" % root_id)
    creates = events(L, L.root, "action=token.create&token=%d" % P.ids["admin"])
    check(any(e["target"] == "token/%d" % made["id"] and e["detail"]["note"] == "shown-once"
              and "token" not in e["detail"] for e in creates), "token.create %r" % creates[:2])
    # The command line's first admin: no token, said so.
    first = [e for e in events(L, L.root, "action=token.create") if e["token"] is None]
    check(first and first[-1]["detail"].get("via") == "command line", "CLI event %r" % first)


@test("audit: filters (lab, study, token, action, since), paging, a lab admin's view, bad queries")
def t_filters(c):
    L, P = people(c)
    w = P.tok["write"]
    sid = expect(L.call("POST", "/v1/studies", {"name": uname("audit filters"),
                                                "space": SPACE4, "objectives": BLEU_MAX},
                        token=w), 201)["id"]
    for k in range(3):
        expect(L.call("PATCH", "/v1/studies/%d" % sid, {"metadata": {"k": k}}, token=w), 200)
    mine = events(L, L.root, "study=%d" % sid)
    check([e["action"] for e in mine] == ["study.patch"] * 3 + ["study.create"],
          "study filter %r" % [e["action"] for e in mine])
    check([e["detail"]["metadata"]["k"] for e in mine[:3]] == [2, 1, 0], "newest first")
    # Paging: one event a page, in order, then next is null.
    seen, cursor = [], None
    while True:
        q = "/v1/audit?study=%d&limit=1" % sid + ("&next=" + cursor if cursor else "")
        page = expect(L.call("GET", q, token=L.root), 200)
        seen += [e["id"] for e in page["events"]]
        cursor = page["next"]
        if cursor is None:
            break
    check(seen == [e["id"] for e in mine], "paged %r, listed %r" % (seen, [e["id"] for e in mine]))
    by = events(L, L.root, "token=%d&action=study.patch" % P.ids["write"])
    check(by and all(e["token"]["id"] == P.ids["write"] and e["action"] == "study.patch"
                     for e in by), "token/action filter %r" % by[:2])
    since = mine[1]["at"]
    later = events(L, L.root, "study=%d&since=%s" % (sid, since))
    check([e["id"] for e in later] == [e["id"] for e in mine if e["at"] >= since],
          "since %s: %r" % (since, later))
    future = expect(L.call("GET", "/v1/audit?since=2999-01-01T00:00:00%2B02:00", token=L.root),
                    200)
    check(future == {"events": [], "next": None}, "future %r" % future)
    # A lab's admin: its lab only; another lab named is 403.
    nlp = L.tok[("admin", "nlp")]
    nlp_events = events(L, nlp)
    check(nlp_events and all(e["lab"] == "nlp" for e in nlp_events),
          "nlp admin sees %r" % {e["lab"] for e in nlp_events})
    expect_error(L.call("GET", "/v1/audit?lab=mt", token=nlp), 403, "permission_denied", "lab")
    expect_error(L.call("GET", "/v1/audit", token=P.tok["write"]), 403, "permission_denied")
    mt = events(L, L.root, "lab=mt&study=%d" % sid)
    check(len(mt) == 4, "lab=mt %r" % mt)
    for q, field in (("action=study.read", "action"), ("since=yesterday", "since"),
                     ("since=2025-02-30T00:00:00Z", "since"), ("next=0", "next"),
                     ("limit=1001", "limit"), ("study=x", "study"), ("lab=a%20b", "lab"),
                     ("who=1", "who")):
        expect_error(L.call("GET", "/v1/audit?" + q, token=L.root), 400, "invalid_argument",
                     field)


@test("audit: created_by on studies; an open server records events with no token")
def t_created_by(c):
    L, P = people(c)
    s = expect(L.call("POST", "/v1/studies", {"name": uname("audit by"), "space": SPACE4,
                                              "objectives": BLEU_MAX}, token=P.tok["write"]), 201)
    check(s["created_by"] == {"id": P.ids["write"], "note": "audit-write"},
          "created_by %r" % s["created_by"])
    listed = expect(L.call("GET", "/v1/studies?name=" + s["name"].replace(" ", "%20"),
                           token=P.tok["read"]), 200)["studies"]
    check(listed and listed[0]["created_by"] == s["created_by"], "listed %r" % listed)
    # The suite's main server is open: no token, and nothing hides events.
    o = expect(call(c.port, "POST", "/v1/studies", {"name": uname("audit open"),
                                                   "space": SPACE4, "objectives": BLEU_MAX}), 201)
    check(o["created_by"] is None, "open created_by %r" % o["created_by"])
    page = expect(call(c.port, "GET", "/v1/audit?study=%d" % o["id"]), 200)
    check([(e["action"], e["token"], e["lab"]) for e in page["events"]] ==
          [("study.create", None, "default")], "open events %r" % page)
    # A write refused changes nothing, its event included.
    before = expect(call(c.port, "GET", "/v1/audit?limit=1"), 200)["events"][0]["id"]
    expect_error(call(c.port, "PATCH", "/v1/studies/%d" % o["id"], {"state": "gone"}), 422,
                 "invalid_argument", "state")
    expect(call(c.port, "DELETE", "/v1/studies/%d" % o["id"]), 204)
    expect_error(call(c.port, "DELETE", "/v1/studies/%d" % o["id"]), 404, "not_found")
    after = expect(call(c.port, "GET", "/v1/audit?limit=5"), 200)["events"]
    check([e["action"] for e in after if e["id"] > before] == ["study.delete"],
          "events after %d: %r" % (before, after))


@test("audit: the reaper deletes events older than HPOD_AUDIT_DAYS, and keeps the others")
def t_retention(c):
    sid = expect(call(c.port, "POST", "/v1/studies", {"name": uname("audit old"),
                                                     "space": SPACE4, "objectives": BLEU_MAX}),
                 201)["id"]
    psql(c.dburl, "INSERT INTO audit_events (at, action, target, detail) VALUES"
                  " (now() - interval '3 days', 'study.patch', 'study/0', '{\"old\": 1}'),"
                  " (now() - interval '30 hours', 'study.patch', 'study/0', '{\"old\": 2}')")
    s = Server(c.args.hpod, c.logdir, c.dburl)
    s.extra_env = {"HPOD_AUDIT_DAYS": "1", "HPOD_REAPER_MS": "100"}
    c.servers.append(s)
    s.start()
    try:
        deadline = time.monotonic() + 20
        while psql(c.dburl, "SELECT count(*) FROM audit_events WHERE target = 'study/0'").strip() != "0":
            check(time.monotonic() < deadline, "old events still there after 20 s")
            time.sleep(0.2)
        kept = expect(call(s.port, "GET", "/v1/audit?study=%d" % sid), 200)["events"]
        check([e["action"] for e in kept] == ["study.create"], "recent events %r" % kept)
    finally:
        s.stop()
