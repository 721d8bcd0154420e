"""tests/api/test_bad_requests.py - every malformed request of
bad_requests.py is refused as documented and changes nothing.

Each case is one test, "bad request: NAME": its fixture is made first (if
no test made it before), then the request is sent and its error checked,
and a snapshot of every table (harness.db_snapshot) taken before and after
proves the database did not change.
"""

import bad_requests
from harness import (Fail, call, cfg, check, db_snapshot, expect, expect_error, fixture,
                     short, tests_from)
from client import BLEU_MAX, SPACE4, create, get_trial, report, suggest
from tables import need_tables, simulate, synthetic_table


@fixture
def bad_study(c):
    """{S}: a study; {L}: a live (pending) trial of it; {D}: a completed
    trial whose final bleu is 1.0; {C}: a study with a conditional
    parameter (momentum only for optimizer sgd). No test may change them."""
    s = create(c, {"name": "bad requests", "space": SPACE4, "objectives": BLEU_MAX})
    live = suggest(c, s["id"], "bad-live")["trials"][0]
    done = suggest(c, s["id"], "bad-done")["trials"][0]
    report(c, done["id"], {"bleu": 1.0})
    cond = create(c, {"name": "bad requests conditional", "objectives": BLEU_MAX, "space": [
        {"name": "optimizer", "type": "categorical", "choices": ["sgd", "adam"]},
        {"name": "momentum", "type": "float", "low": 0.0, "high": 0.99,
         "condition": {"param": "optimizer", "in": ["sgd"]}}]})
    return {"S": s["id"], "L": live["id"], "D": done["id"], "C": cond["id"]}


@fixture
def lab_fixture(c):
    """The imported table lab/fixture ({B}) and {M}, a simulation stored on it."""
    expect(call(c.port, "POST", "/v1/benchmarks", synthetic_table("lab/fixture")), 201)
    sim = simulate(c, "lab/fixture", {"algorithm": {"name": "random"}, "repeats": 2, "seed": 5})
    return {"B": "lab/fixture", "M": sim["id"]}


@fixture
def lookup_tables(c):
    """The real nmthpo and nmtlc tables: nothing to make, skipped without."""
    need_tables()
    return {}


@tests_from
def bad_request_tests():
    snap = {}  # the database as the last case left it: one snapshot per case

    def one(c, case):
        fx = c.fixture(case.fixture) if case.fixture else {}
        if "tables" not in snap or snap.get("fixtures") != len(c.fixtures):
            snap["tables"] = db_snapshot(c.dburl)  # after any fixture made meanwhile
            snap["fixtures"] = len(c.fixtures)
        try:
            p = case.path.format(**fx)
        except KeyError as e:
            raise Fail("fixture %s has no %s" % (case.fixture, e))
        try:
            r = call(c.port, case.method, p, **case.kw)
            expect_error(r, case.statuses, case.code, case.field, case.prefix)
        finally:
            after = db_snapshot(c.dburl)
            changed = sorted(t for t in after if after[t] != snap["tables"].get(t))
            snap["tables"] = after
        check(not changed, "database changed by a rejected request: tables %s" % changed)

    def live_untouched(c):
        # Run after the cases, this proves none of them touched the trial.
        t = get_trial(c, c.fixture("bad_study")["L"])
        check(t["state"] == "pending" and t["intermediate"] == [] and t["values"] == {},
              "live trial changed: %r" % short(t))

    out = [("bad request: " + case.name, lambda c, case=case: one(c, case))
           for case in bad_requests.cases(cfg.have_tables)]
    return out + [("bad request: live trial untouched", live_untouched)]
