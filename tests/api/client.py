"""tests/api/client.py - the API calls and study shapes most tests share:
uname (a unique study name), create, suggest, report, get_trial, all_trials (each checks its status and
returns the body), SPACE4 and BLEU_MAX, and the checks of a new trial.
"""

import itertools
import json
import os

from harness import call, check, expect, is_int, is_num

_names = itertools.count(1)


def uname(prefix):
    """A study name no other call of this run gives: (lab, name) is unique,
    so tests whose study names do not matter must not repeat one."""
    return "%s %d-%d" % (prefix, os.getpid(), next(_names))


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
