"""tests/api/test_budget.py - a suggest's compute budget on a huge
categorical space (issue: 64 categoricals of 1,000 choices, 30 trials, a GP):
six concurrent suggests each answer a legal configuration within 5 s with
the default budget, and a budget too short for the search says so in the
trial's explanation (`"budget_cut": true`) while still answering.
"""

import threading
import time

from harness import Fail, Server, call, check, expect, short, test
from client import BLEU_MAX, create, suggest, uname

NPARAM, NCHOICE, NTRIALS = 64, 1000, 30
CHOICES = ["c%d" % k for k in range(NCHOICE)]


def huge_space():
    return [{"name": "p%d" % j, "type": "categorical", "choices": CHOICES}
            for j in range(NPARAM)]


def value(params):
    """A made-up objective: better the more parameters hold an even choice."""
    return float(sum(int(v[1:]) % 2 == 0 for v in params.values()))


def huge_study(c, tag, port=None):
    """A gp study over the huge space with NTRIALS completed trials (added
    with their values: they enter the model, they cost no suggest)."""
    sid = create(c, {"name": uname("budget " + tag), "space": huge_space(),
                     "objectives": BLEU_MAX,
                     "algorithm": {"name": "gp", "seed": 11}}, port=port)["id"]
    for i in range(NTRIALS):
        params = {"p%d" % j: CHOICES[(i * 37 + j * 101) % NCHOICE] for j in range(NPARAM)}
        expect(call(port or c.port, "POST", "/v1/studies/%d/trials" % sid,
                    {"params": params, "values": {"bleu": value(params)}}), 201)
    return sid


def check_legal(t):
    p = t["params"]
    check(set(p) == {"p%d" % j for j in range(NPARAM)}
          and all(v in CHOICES for v in p.values()), "params %r" % short(p))


def suggest_decision(c, tid, port=None):
    e = expect(call(port or c.port, "GET", "/v1/trials/%d/explain" % tid), 200)
    s = [d for d in e["decisions"] if d["kind"] == "suggest"]
    check(len(s) == 1, "decisions %r" % short(e))
    return s[0]


@test("suggest budget: six concurrent gp suggests on 64 categoricals x 1000 choices answer legal configurations within 5 s")
def t_huge_categorical(c):
    sids = [huge_study(c, "six %d" % k) for k in range(6)]
    out, errors = [None] * 6, []

    def one(k):
        t0 = time.monotonic()
        try:
            r = suggest(c, sids[k], "w%d" % k)
            out[k] = (r, time.monotonic() - t0)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append("suggest %d: %s" % (k, e))

    threads = [threading.Thread(target=one, args=(k,)) for k in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    if errors or any(o is None for o in out):
        raise Fail("; ".join(errors) or "a suggest did not answer in 60 s")
    for k, (r, secs) in enumerate(out):
        check(secs < 5.0, "suggest %d took %.2f s" % (k, secs))
        check(len(r["trials"]) == 1, "answer %r" % short(r))
        check_legal(r["trials"][0])
        d = suggest_decision(c, r["trials"][0]["id"])
        # The GP chose (30 observations, init 3), not a random fallback.
        check(d["chooser"] == "model" and d["sampler"] == "gp", "decision %r" % short(d))
    print("  six suggests: %s s" % ", ".join("%.2f" % s for _, s in out))


@test("suggest budget: a budget too short for the search answers anyway, with budget_cut in the explanation")
def t_budget_cut(c):
    s = Server(c.args.hpod, c.logdir, c.dburl)
    s.extra_env = {"HPOD_SUGGEST_BUDGET_MS": "1"}
    c.servers.append(s)
    s.start()
    try:
        sid = huge_study(c, "cut", port=s.port)
        r = suggest(c, sid, "w", port=s.port)
        t = r["trials"][0]
        check_legal(t)
        d = suggest_decision(c, t["id"], port=s.port)
        check(d["chooser"] == "model" and d.get("budget_cut") is True,
              "decision %r" % short(d))
    finally:
        s.stop()
    # Unbounded (0): the same study's next choice is not cut.
    u = Server(c.args.hpod, c.logdir, c.dburl)
    u.extra_env = {"HPOD_SUGGEST_BUDGET_MS": "0"}
    c.servers.append(u)
    u.start()
    try:
        t = suggest(c, sid, "w2", port=u.port)["trials"][0]
        check_legal(t)
        d = suggest_decision(c, t["id"], port=u.port)
        check(d["chooser"] == "model" and "budget_cut" not in d, "decision %r" % short(d))
    finally:
        u.stop()
