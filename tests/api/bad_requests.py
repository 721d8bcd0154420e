"""tests/api/bad_requests.py - the malformed requests, as data.

cases(have_tables) lists every Case: a request hpod must refuse with
`statuses` (one or a tuple), the error `code`, and the error's `field`
(exact; None: not checked) or its `prefix`. `kw` goes to harness.call()
as it is (body=, raw=, ctype=). test_bad_requests.py sends each one and
proves from a snapshot of every table that the database did not change.

Each case names the fixture it needs (harness @fixture, made in
test_bad_requests.py), None when it needs nothing:
  STUDY   "bad_study": {S} a study (SPACE4, bleu), {L} a live trial of it,
          {D} a completed trial whose final bleu is 1.0, {C} a study whose
          momentum exists only for optimizer sgd;
  TABLE   "lab_fixture": the imported table lab/fixture (synthetic_table)
          and {M}, a simulation stored on it;
  TABLES  "lookup_tables": the real nmthpo/nmtlc tables (skipped without).
check_fixture() refuses a case whose path or body uses a placeholder or
lab/fixture without naming the fixture that makes it.

tests/fuzz/seed_corpus.py reads these cases (through test_api.bad_cases())
as seeds for the fuzzers. No HTTP here.
"""

import collections
import json
import re

from client import BLEU_MAX, SPACE4
from tables import SYN_PARAMS, curve_models, synthetic_table

STUDY = "bad_study"
TABLE = "lab_fixture"
TABLES = "lookup_tables"

Case = collections.namedtuple(
    "Case", "name method path kw statuses code field prefix fixture")

KEEP_OUT = object()  # study(x=KEEP_OUT) etc.: the field is left out


def cases(have_tables):
    """The Case list, in order. have_tables: the lookup tables exist (a
    TABLES case reads them to build its body)."""
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
    # The hyperparameters of the first model of nmtlc/ted-zh-en, read from
    # the file; without the tables the case is skipped and never sent.
    first_curve_params = dict(curve_models("ted-zh-en")[0][0]) if have_tables else {}
    C = []

    def add(name, method, path, statuses, code, field=None, prefix=None, fixture=None, **kw):
        C.append(Case(name, method, path, kw, statuses, code, field, prefix, fixture))

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
    # An empty space is a define-by-run study; it takes no candidates.
    add("empty space with candidates", "POST", P, 422, IA, "candidates",
        body=study(space=[], candidates=[{}]))
    add("space of 65 parameters", "POST", P, 422, IA, "space",
        body=study(space=[{"name": "p%d" % i, "type": "float", "low": 0, "high": 1}
                          for i in range(65)]))
    add("define_by_run not a boolean", "POST", P, 400, IA, "define_by_run",
        body=study(define_by_run="yes"))
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
    add("ehvi log_objectives not a boolean", "POST", P, 400, IA, "algorithm.log_objectives",
        body=study(algorithm={"name": "ehvi", "log_objectives": "yes"}))
    add("ehvi negative trust_region", "POST", P, (400, 422), IA, "algorithm.trust_region",
        body=study(algorithm={"name": "ehvi", "trust_region": -1}))
    add("trust_region on a graph study", "POST", P, 400, IA,
        body=study(algorithm={"name": "graph", "trust_region": 4}))
    add("ehvi negative front_reference", "POST", P, (400, 422), IA, "algorithm.front_reference",
        body=study(algorithm={"name": "ehvi", "front_reference": -0.5}))
    add("ehvi front_reference not a number", "POST", P, 400, IA, "algorithm.front_reference",
        body=study(algorithm={"name": "ehvi", "front_reference": "0.3"}))
    add("ehvi front_reference too large", "POST", P, (400, 422), IA, "algorithm.front_reference",
        body=study(algorithm={"name": "ehvi", "front_reference": 101}))
    add("ehvi gp_blend not a string", "POST", P, 400, IA, "algorithm.gp_blend",
        body=study(algorithm={"name": "ehvi", "surrogate": "graph", "gp_blend": True}))
    add("ehvi trust_shape not a string", "POST", P, 400, IA, "algorithm.trust_shape",
        body=study(algorithm={"name": "ehvi", "trust_region": 2, "trust_shape": 1}))
    add("trust_shape on a graph study", "POST", P, 400, IA,
        body=study(algorithm={"name": "graph", "trust_shape": "steps"}))
    add("gp_blend on a graph study", "POST", P, 400, IA,
        body=study(algorithm={"name": "graph", "gp_blend": "first"}))
    add("front_reference on a graph study", "POST", P, 400, IA,
        body=study(algorithm={"name": "graph", "front_reference": 0.3}))
    # Removed options (docs/auto.md): 422 naming what replaced them.
    HEDGE = {"name": "gp", "acquisition": "nei", "hedge": True}
    add("removed: gp hedge_judge observed", "POST", P, 422, IA, "algorithm.hedge_judge",
        body=study(algorithm=dict(HEDGE, hedge_judge="observed")))
    add("removed: gp hedge_judge observed without hedge", "POST", P, 422, IA,
        "algorithm.hedge_judge", body=study(algorithm={"name": "gp", "hedge_judge": "observed"}))
    add("removed: ehvi gp_blend all", "POST", P, 422, IA, "algorithm.gp_blend",
        body=study(algorithm={"name": "ehvi", "surrogate": "graph", "gp_blend": "all"}))
    add("removed: ehvi log_objectives true", "POST", P, 422, IA, "algorithm.log_objectives",
        body=study(algorithm={"name": "ehvi", "log_objectives": True}))
    add("removed: auto's chosen with hedge_judge observed", "POST", P, 422, IA,
        "algorithm.chosen.hedge_judge",
        body=study(algorithm={"name": "auto", "chosen": dict(HEDGE, hedge_judge="observed"),
                              "case": "so_small", "reason": "r"}))
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
    add("count 0", "POST", S, 422, IA, "count", body={"worker": "bad", "count": 0}, fixture=STUDY)
    add("count 101", "POST", S, 422, IA, "count", body={"worker": "bad", "count": 101},
        fixture=STUDY)
    add("count a string", "POST", S, 400, IA, "count", body={"worker": "bad", "count": "2"},
        fixture=STUDY)
    add("empty worker", "POST", S, 422, IA, "worker", body={"worker": ""}, fixture=STUDY)
    add("worker of the wrong type", "POST", S, 400, IA, "worker", body={"worker": 5},
        fixture=STUDY)
    add("unknown suggest field", "POST", S, 400, IA, "priority", body={"priority": 1},
        fixture=STUDY)
    add("suggest body an array", "POST", S, 400, IA, raw=b"[]", fixture=STUDY)
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
    add("DELETE on a trial", "DELETE", "/v1/trials/{L}", 405, "method_not_allowed", fixture=STUDY)
    add("GET on suggest", "GET", S, 405, "method_not_allowed", fixture=STUDY)
    add("POST on /healthz", "POST", "/healthz", 405, "method_not_allowed", body={})

    add("invalid ?state=", "GET", "/v1/studies/{S}/trials?state=finished", 400, IA, "state",
        fixture=STUDY)
    add("?limit=0 on trials", "GET", "/v1/studies/{S}/trials?limit=0", 400, IA, "limit",
        fixture=STUDY)
    add("?limit=abc on studies", "GET", "/v1/studies?limit=abc", 400, IA, "limit")
    add("?limit=1001 on studies", "GET", "/v1/studies?limit=1001", 400, IA, "limit")
    add("?offset=-1 on studies", "GET", "/v1/studies?offset=-1", 400, IA, "offset")

    add("report with a string value", "POST", R, 400, IA, "values.bleu",
        body={"values": {"bleu": "high"}}, fixture=STUDY)
    add("report with a null value", "POST", R, 400, IA, "values.bleu",
        body={"values": {"bleu": None}}, fixture=STUDY)
    add("report with a bad metric name", "POST", R, 422, IA, "values.bad name",
        body={"values": {"bad name": 1.0}}, fixture=STUDY)
    add("report with empty values", "POST", R, 422, IA, prefix="values",
        body={"values": {}}, fixture=STUDY)
    add("report without values", "POST", R, 400, IA, "values", body={"step": 1}, fixture=STUDY)
    add("report values not an object", "POST", R, 400, IA, "values", body={"values": [1.0]},
        fixture=STUDY)
    add("report with step -1", "POST", R, 422, IA, "step",
        body={"values": {"bleu": 1.0}, "step": -1}, fixture=STUDY)
    add("report with a string step", "POST", R, 400, IA, "step",
        body={"values": {"bleu": 1.0}, "step": "1"}, fixture=STUDY)
    add("report with an unknown field", "POST", R, 400, IA, "final",
        body={"values": {"bleu": 1.0}, "final": True}, fixture=STUDY)
    add("report with 1e999", "POST", R, 400, IA, raw=b'{"values": {"bleu": 1e999}}', fixture=STUDY)
    add("report with NaN", "POST", R, 400, IA, raw=b'{"values": {"bleu": NaN}}', fixture=STUDY)
    # Integrity: an integer a double cannot hold exactly, a metric the study
    # does not know (on a live or a completed trial), a new metric on a
    # completed trial.
    add("report with the integer 2^53+1", "POST", R, 422, IA, "values.bleu",
        raw=b'{"values": {"bleu": 9007199254740993}}', fixture=STUDY)
    add("report with the integer -(2^53+1)", "POST", R, 422, IA, "values.bleu",
        raw=b'{"values": {"bleu": -9007199254740993}}', fixture=STUDY)
    add("report with the integer 2^63-1", "POST", R, 422, IA, "values.bleu",
        raw=b'{"values": {"bleu": 9223372036854775807}}', fixture=STUDY)
    add("report with an integer beyond int64", "POST", R, 400, IA,
        raw=b'{"values": {"bleu": 92233720368547758070}}', fixture=STUDY)
    add("report of a metric the study does not know", "POST", R, 422, IA, "values.speed",
        body={"values": {"bleu": 1.0, "speed": 3.5}}, fixture=STUDY)
    add("report of an unknown metric on a completed trial", "POST", "/v1/trials/{D}/report",
        422, IA, "values.speed", body={"values": {"speed": 3.5}}, fixture=STUDY)
    add("report with a metric name of 65 characters", "POST", R, 422, IA,
        body={"values": {"m" * 65: 1.0}}, fixture=STUDY)
    add("a study id of 19 digits", "GET", "/v1/studies/9999999999999999999", 404, "not_found")
    add("a trial id of 19 digits", "POST", "/v1/trials/9999999999999999999/report", 404,
        "not_found", body={"values": {"bleu": 1.0}})
    add("report on an unknown trial", "POST", "/v1/trials/987654321/report", 404, "not_found",
        body={"values": {"bleu": 1.0}})
    add("different final report on a completed trial", "POST", "/v1/trials/{D}/report", 409,
        "conflict", body={"values": {"bleu": 2.0}}, fixture=STUDY)
    add("intermediate report on a completed trial", "POST", "/v1/trials/{D}/report", 409,
        "conflict", body={"values": {"bleu": 2.0}, "step": 3}, fixture=STUDY)

    # POST /v1/studies/{S}/trials (enqueue, add) and PATCH /v1/trials/{id}.
    Q = "/v1/studies/{S}/trials"
    ok_params = {"lr": 0.01, "layers": 2, "bpe": 30000, "opt": "adam"}

    def params(**kw):
        p = dict(ok_params)
        for k, v in kw.items():
            if v is KEEP_OUT:
                p.pop(k, None)
            else:
                p[k] = v
        return p
    big_meta = {"blob": "x" * 16384}
    add("enqueue body an array", "POST", Q, 400, IA, raw=b"[]", fixture=STUDY)
    add("enqueue without params", "POST", Q, 400, IA, "params", body={}, fixture=STUDY)
    add("enqueue params not an object", "POST", Q, 400, IA, "params",
        body={"params": [1, 2]}, fixture=STUDY)
    add("enqueue with an unknown field", "POST", Q, 400, IA, "worker",
        body={"params": ok_params, "worker": "w"}, fixture=STUDY)
    add("enqueue with a parameter missing", "POST", Q, 422, IA, "params.opt",
        body={"params": params(opt=KEEP_OUT)}, fixture=STUDY)
    add("enqueue with an extra parameter", "POST", Q, 422, IA, "params.dropout",
        body={"params": params(dropout=0.1)}, fixture=STUDY)
    add("enqueue with an int out of range", "POST", Q, 422, IA, "params.layers",
        body={"params": params(layers=7)}, fixture=STUDY)
    add("enqueue with a float int", "POST", Q, 422, IA, "params.layers",
        body={"params": params(layers=2.5)}, fixture=STUDY)
    add("enqueue with a value not in the list", "POST", Q, 422, IA, "params.bpe",
        body={"params": params(bpe=20000)}, fixture=STUDY)
    add("enqueue with a log-scale value below low", "POST", Q, 422, IA, "params.lr",
        body={"params": params(lr=0.00005)}, fixture=STUDY)
    add("enqueue with an unknown choice", "POST", Q, 422, IA, "params.opt",
        body={"params": params(opt="rmsprop")}, fixture=STUDY)
    add("enqueue with a number for a choice", "POST", Q, 422, IA, "params.opt",
        body={"params": params(opt=1)}, fixture=STUDY)
    add("enqueue with metadata not an object", "POST", Q, 400, IA, "metadata",
        body={"params": ok_params, "metadata": [1]}, fixture=STUDY)
    add("enqueue with metadata over 16 KiB", "POST", Q, 422, IA, "metadata",
        body={"params": ok_params, "metadata": big_meta}, fixture=STUDY)
    add("add with empty values", "POST", Q, 422, IA, "values",
        body={"params": ok_params, "values": {}}, fixture=STUDY)
    add("add with values not an object", "POST", Q, 400, IA, "values",
        body={"params": ok_params, "values": 3.5}, fixture=STUDY)
    add("add with a metric the study does not know", "POST", Q, 422, IA, "values.speed",
        body={"params": ok_params, "values": {"bleu": 1.0, "speed": 2.0}}, fixture=STUDY)
    add("add with a string value", "POST", Q, 400, IA, "values.bleu",
        body={"params": ok_params, "values": {"bleu": "high"}}, fixture=STUDY)
    add("add with an integer beyond 2^53", "POST", Q, 422, IA, "values.bleu",
        raw=b'{"params": {"lr": 0.01, "layers": 2, "bpe": 30000, "opt": "adam"},'
            b' "values": {"bleu": 9007199254740993}}', fixture=STUDY)
    add("enqueue on an unknown study", "POST", "/v1/studies/987654321/trials", 404, "not_found",
        body={"params": ok_params})
    add("PATCH trial without metadata", "PATCH", "/v1/trials/{L}", 400, IA, "metadata",
        body={}, fixture=STUDY)
    add("PATCH trial metadata a string", "PATCH", "/v1/trials/{L}", 400, IA, "metadata",
        body={"metadata": "note"}, fixture=STUDY)
    add("PATCH trial with an unknown field", "PATCH", "/v1/trials/{L}", 400, IA, "state",
        body={"metadata": {}, "state": "failed"}, fixture=STUDY)
    add("PATCH trial metadata over 16 KiB", "PATCH", "/v1/trials/{D}", 422, IA, "metadata",
        body={"metadata": big_meta}, fixture=STUDY)
    add("PATCH an unknown trial", "PATCH", "/v1/trials/987654321", 404, "not_found",
        body={"metadata": {}})
    add("report with metadata not an object", "POST", R, 400, IA, "metadata",
        body={"values": {"bleu": 1.0}, "metadata": 7}, fixture=STUDY)
    add("report with metadata over 16 KiB", "POST", R, 422, IA, "metadata",
        body={"values": {"bleu": 1.0}, "metadata": big_meta}, fixture=STUDY)
    add("heartbeat on a completed trial", "POST", "/v1/trials/{D}/heartbeat", 409, "conflict",
        body={}, fixture=STUDY)
    add("fail a completed trial", "POST", "/v1/trials/{D}/fail", 409, "conflict",
        body={"reason": "late"}, fixture=STUDY)
    add("heartbeat with an unknown field", "POST", "/v1/trials/{L}/heartbeat", 400, IA, "ttl",
        body={"ttl": 5}, fixture=STUDY)
    add("fail reason over 1000 characters", "POST", "/v1/trials/{L}/fail", 422, IA, "reason",
        body={"reason": "x" * 1001}, fixture=STUDY)
    add("fail reason of the wrong type", "POST", "/v1/trials/{L}/fail", 400, IA, "reason",
        body={"reason": 42}, fixture=STUDY)
    # -- the trainer's real life: checkpoints and preemption
    add("preempt a completed trial", "POST", "/v1/trials/{D}/preempt", 409, "conflict",
        body={"reason": "late"}, fixture=STUDY)
    add("preempt reason over 1000 characters", "POST", "/v1/trials/{L}/preempt", 422, IA,
        "reason", body={"reason": "x" * 1001}, fixture=STUDY)
    add("preempt reason of the wrong type", "POST", "/v1/trials/{L}/preempt", 400, IA, "reason",
        body={"reason": ["slurm"]}, fixture=STUDY)
    add("preempt with an unknown field", "POST", "/v1/trials/{L}/preempt", 400, IA, "step",
        body={"reason": "slurm", "step": 3}, fixture=STUDY)
    add("preempt an unknown trial", "POST", "/v1/trials/987654321/preempt", 404, "not_found",
        body={})
    add("report checkpoint over 2048 bytes", "POST", R, 422, IA, "checkpoint",
        body={"values": {"bleu": 1.0}, "step": 1, "checkpoint": "\u00e9" * 1025},
        fixture=STUDY)
    add("report checkpoint empty", "POST", R, 422, IA, "checkpoint",
        body={"values": {"bleu": 1.0}, "step": 1, "checkpoint": ""}, fixture=STUDY)
    add("report checkpoint of the wrong type", "POST", R, 400, IA, "checkpoint",
        body={"values": {"bleu": 1.0}, "step": 1, "checkpoint": {"uri": "s3://b"}},
        fixture=STUDY)
    add("report checkpoint without a step", "POST", R, 422, IA, "checkpoint",
        body={"values": {"bleu": 1.0}, "checkpoint": "s3://b/run/final"}, fixture=STUDY)
    add("choices of two JSON types", "POST", P, 422, IA, "space[3].choices[1]",
        body=study(space=space(3, choices=[16, "32"])))
    add("choices a number and a boolean", "POST", P, 422, IA, "space[3].choices[2]",
        body=study(space=space(3, choices=[True, False, 1])))
    add("a null choice", "POST", P, 400, IA, "space[3].choices[0]",
        body=study(space=space(3, choices=[None, 1])))
    add("an object choice", "POST", P, 400, IA, "space[3].choices[1]",
        body=study(space=space(3, choices=["a", {"b": 1}])))
    add("duplicate numeric choices by value", "POST", P, 422, IA, "space[3].choices[2]",
        body=study(space=space(3, choices=[16, 32, 16.0])))
    add("duplicate boolean choices", "POST", P, 422, IA, "space[3].choices[1]",
        body=study(space=space(3, choices=[True, True])))
    add("a choice integer beyond 2^53", "POST", P, 422, IA, "space[3].choices[1]",
        raw=json.dumps(study()).replace('"choices": ["adam", "sgd", "adafactor"]',
                                       '"choices": [1, 9007199254740993]').encode())
    # conditions: {S}'s SPACE4 is lr, layers, bpe (values), opt (categorical)
    add("condition not an object", "POST", P, 400, IA, "space[0].condition",
        body=study(space=space(0, condition="opt=sgd")))
    add("condition without in", "POST", P, 400, IA, "space[0].condition.in",
        body=study(space=space(0, condition={"param": "opt"})))
    add("condition with an unknown key", "POST", P, 400, IA, "space[0].condition.values",
        body=study(space=space(0, condition={"param": "opt", "in": ["sgd"], "values": 1})))
    add("condition with an empty in", "POST", P, 422, IA, "space[0].condition.in",
        body=study(space=space(0, condition={"param": "opt", "in": []})))
    add("condition on an unknown parameter", "POST", P, 422, IA, "space[0].condition.param",
        body=study(space=space(0, condition={"param": "optimizer", "in": ["sgd"]})))
    add("condition on a range parameter", "POST", P, 422, IA, "space[3].condition.param",
        body=study(space=space(3, condition={"param": "layers", "in": [2]})))
    add("condition value not a choice", "POST", P, 422, IA, "space[0].condition.in[1]",
        body=study(space=space(0, condition={"param": "opt", "in": ["sgd", "rmsprop"]})))
    add("condition value of another type", "POST", P, 422, IA, "space[0].condition.in[0]",
        body=study(space=space(0, condition={"param": "bpe", "in": ["30000"]})))
    add("condition on itself", "POST", P, 422, IA, "space[3].condition",
        body=study(space=space(3, condition={"param": "opt", "in": ["sgd"]})))
    add("enqueue with an inactive parameter", "POST", "/v1/studies/{C}/trials", 422, IA,
        "params.momentum", body={"params": {"optimizer": "adam", "momentum": 0.9}},
        fixture=STUDY)
    add("enqueue without an active conditional parameter", "POST", "/v1/studies/{C}/trials",
        422, IA, "params.momentum", body={"params": {"optimizer": "sgd"}}, fixture=STUDY)
    # define-by-run: POST /v1/trials/{id}/params takes one space entry
    PR = "/v1/trials/{L}/params"
    add("params entry not an object", "POST", PR, 400, IA, "", raw=b'["lr"]', fixture=STUDY)
    add("params entry without a type", "POST", PR, 400, IA, "type",
        body={"name": "dropout"}, fixture=STUDY)
    add("params entry with low >= high", "POST", PR, 422, IA, "low",
        body={"name": "dropout", "type": "float", "low": 0.5, "high": 0.1}, fixture=STUDY)
    add("params entry with a condition", "POST", PR, 422, IA, "condition",
        body={"name": "dropout", "type": "float", "low": 0, "high": 0.5,
              "condition": {"param": "opt", "in": ["sgd"]}}, fixture=STUDY)
    add("params entry with added_in", "POST", PR, 422, IA, "added_in",
        body={"name": "dropout", "type": "float", "low": 0, "high": 0.5, "added_in": 3},
        fixture=STUDY)
    add("params entry with mixed choices", "POST", PR, 422, IA, "choices[1]",
        body={"name": "bs", "type": "categorical", "choices": [16, "32"]}, fixture=STUDY)
    add("params for a name defined otherwise", "POST", PR, 409, "conflict", "name",
        body={"name": "lr", "type": "float", "low": 1e-4, "high": 1.0, "log": True},
        fixture=STUDY)
    add("params on a completed trial", "POST", "/v1/trials/{D}/params", 409, "conflict",
        body={"name": "dropout", "type": "float", "low": 0, "high": 0.5}, fixture=STUDY)
    add("params on an unknown trial", "POST", "/v1/trials/987654321/params", 404,
        "not_found", body={"name": "dropout", "type": "float", "low": 0, "high": 0.5})
    add("exclude without a reason", "POST", "/v1/trials/{D}/exclude", 400, IA, "reason",
        body={}, fixture=STUDY)
    add("exclude reason over 1000 characters", "POST", "/v1/trials/{D}/exclude", 422, IA,
        "reason", body={"reason": "x" * 1001}, fixture=STUDY)
    add("exclude reason of the wrong type", "POST", "/v1/trials/{D}/exclude", 400, IA, "reason",
        body={"reason": True}, fixture=STUDY)
    add("exclude with an unknown field", "POST", "/v1/trials/{D}/exclude", 400, IA, "by",
        body={"reason": "leak", "by": "me"}, fixture=STUDY)
    add("exclude an unknown trial", "POST", "/v1/trials/987654321/exclude", 404, "not_found",
        body={"reason": "leak"})
    add("restore reason of the wrong type", "POST", "/v1/trials/{D}/restore", 400, IA, "reason",
        body={"reason": 3}, fixture=STUDY)
    add("restore with an unknown field", "POST", "/v1/trials/{D}/restore", 400, IA, "state",
        body={"state": "completed"}, fixture=STUDY)

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
        body=synthetic_table("lab/fixture"), fixture=TABLE)
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
        body={}, fixture=TABLE)
    add("GET on evaluate", "GET", "/v1/benchmarks/lab/fixture/evaluate", 405,
        "method_not_allowed", fixture=TABLE)

    E = "/v1/benchmarks/lab/fixture/evaluate"
    row4 = {p: synthetic_table("x/y")["rows"][4][p] for p in SYN_PARAMS}
    add("evaluate: params matching no row", "POST", E, 422, IA, "params",
        body={"params": dict(row4, lr=0.5)}, fixture=TABLE)
    add("evaluate: a step on a table", "POST", E, 422, IA, "step",
        body={"params": row4, "step": 3}, fixture=TABLE)
    add("evaluate: params missing a parameter", "POST", E, 422, IA, prefix="params",
        body={"params": {"llm": "big", "lr": 0.01}}, fixture=TABLE)
    add("evaluate: params not an object", "POST", E, 400, IA, "params",
        body={"params": ["big", 0.01, 6]}, fixture=TABLE)
    add("evaluate: missing params", "POST", E, 400, IA, "params", body={}, fixture=TABLE)
    add("evaluate: unknown field", "POST", E, 400, IA, "row", body={"params": row4, "row": 4},
        fixture=TABLE)
    add("evaluate: unknown benchmark", "POST", "/v1/benchmarks/lab/nope/evaluate", 404,
        "not_found", body={"params": row4})

    M = "/v1/benchmarks/lab/fixture/simulate"
    add("simulate: repeats 0", "POST", M, 422, IA, "repeats", body={"repeats": 0}, fixture=TABLE)
    add("simulate: removed hedge_judge observed", "POST", M, 422, IA, "algorithm.hedge_judge",
        body={"repeats": 1, "algorithm": dict(HEDGE, hedge_judge="observed")}, fixture=TABLE)
    add("simulate: repeats 1001", "POST", M, 422, IA, "repeats", body={"repeats": 1001},
        fixture=TABLE)
    add("simulate: repeats a string", "POST", M, 400, IA, "repeats", body={"repeats": "3"},
        fixture=TABLE)
    add("simulate: init 0", "POST", M, 422, IA, "init", body={"init": 0, "repeats": 1},
        fixture=TABLE)
    add("simulate: init 51", "POST", M, 422, IA, "init", body={"init": 51, "repeats": 1},
        fixture=TABLE)
    add("simulate: seed -1", "POST", M, 422, IA, "seed", body={"seed": -1, "repeats": 1},
        fixture=TABLE)
    add("simulate: tolerance 0", "POST", M, 422, IA, "tolerance",
        body={"tolerance": 0, "repeats": 1}, fixture=TABLE)
    add("simulate: tolerance an integer a double would round", "POST", M, 422, IA,
        "tolerance", body={"tolerance": 9007199254740993, "repeats": 1}, fixture=TABLE)
    add("simulate: budget 0", "POST", M, 422, IA, "budget", body={"budget": 0, "repeats": 1},
        fixture=TABLE)
    add("simulate: pareto_budget 0", "POST", M, 422, IA, "pareto_budget",
        body={"pareto_budget": 0, "repeats": 1}, fixture=TABLE)
    add("simulate: objective not a metric of the table", "POST", M, 422, IA, "objective.name",
        body={"objective": {"name": "ppl", "goal": "minimize"}, "repeats": 1}, fixture=TABLE)
    add("simulate: bad objective goal", "POST", M, 422, IA, "objective.goal",
        body={"objective": {"name": "bleu", "goal": "maximise"}, "repeats": 1}, fixture=TABLE)
    add("simulate: unknown algorithm", "POST", M, 422, IA, "algorithm.name",
        body={"algorithm": {"name": "annealing"}, "repeats": 1}, fixture=TABLE)
    add("simulate: unknown field", "POST", M, 400, IA, "runs", body={"runs": 3}, fixture=TABLE)
    add("simulate: metrics not an array", "POST", M, 400, IA, "metrics",
        body={"metrics": "ftb", "repeats": 1}, fixture=TABLE)
    add("simulate: metrics empty", "POST", M, 422, IA, "metrics",
        body={"metrics": [], "repeats": 1}, fixture=TABLE)
    add("simulate: a metric not a string", "POST", M, 400, IA, "metrics[0]",
        body={"metrics": [3], "repeats": 1}, fixture=TABLE)
    add("simulate: unknown metric", "POST", M, 422, IA, "metrics[1]",
        body={"metrics": ["ftb", "regret"], "repeats": 1}, fixture=TABLE)
    add("simulate: a metric twice", "POST", M, 422, IA, "metrics[1]",
        body={"metrics": ["fb", "fb"], "repeats": 1}, fixture=TABLE)
    add("simulate: gap without constraints", "POST", M, 422, IA, "metrics[1]",
        body={"metrics": ["ftb", "gap"], "repeats": 1}, fixture=TABLE)
    add("simulate: ftb with constraints", "POST", M, 422, IA, "metrics[1]",
        body={"metrics": ["gap", "ftb"], "repeats": 1,
              "constraints": [{"metric": "gpu_time", "max": 100}]}, fixture=TABLE)
    add("simulate: gap with two objectives", "POST", M, 422, IA, "metrics[0]",
        body={"metrics": ["gap"], "repeats": 1, "objectives": [
            {"name": "bleu", "goal": "maximize"}, {"name": "gpu_time", "goal": "minimize"}]},
            fixture=TABLE)
    add("simulate: unknown benchmark", "POST", "/v1/benchmarks/lab/nope/simulate", 404,
        "not_found", body={"repeats": 1})

    add("simulation: bad ?format=", "GET", "/v1/simulations/{M}?format=csv", 400, IA, "format",
        fixture=TABLE)
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
        body={"objective": {"name": "bleu"}, "objectives": [{"name": "bleu"}], "repeats": 1},
        fixture=TABLE)
    add("simulate: objectives[0] not a metric of the table", "POST", M, 422, IA,
        "objectives[0].name", body={"objectives": [{"name": "ppl", "goal": "minimize"}],
                                    "repeats": 1}, fixture=TABLE)
    add("simulate: objectives[0] bad goal", "POST", M, 422, IA, "objectives[0].goal",
        body={"objectives": [{"name": "bleu", "goal": "maximise"}], "repeats": 1}, fixture=TABLE)
    add("simulate: objectives[0] not an object", "POST", M, 400, IA, "objectives[0]",
        body={"objectives": ["bleu"], "repeats": 1}, fixture=TABLE)
    add("simulate: objectives[1] not a metric of the table", "POST", M, 422, IA,
        "objectives[1].name", body={"objectives": [{"name": "bleu", "goal": "maximize"},
                                                   {"name": "ppl", "goal": "minimize"}],
                                    "repeats": 1}, fixture=TABLE)
    add("simulate: objectives[1] bad goal", "POST", M, 422, IA, "objectives[1].goal",
        body={"objectives": [{"name": "bleu", "goal": "maximize"},
                             {"name": "gpu_time", "goal": "least"}], "repeats": 1}, fixture=TABLE)
    add("simulate: objective alias with constraints, bad goal", "POST", M, 422, IA,
        "objective.goal", body={"objective": {"name": "bleu", "goal": "most"},
                                "constraints": [{"metric": "gpu_time", "max": 100}],
                                "repeats": 1}, fixture=TABLE)
    add("simulate: objectives empty", "POST", M, 400, IA, "objectives",
        body={"objectives": [], "repeats": 1}, fixture=TABLE)
    add("simulate: ehvi with one objective", "POST", M, 422, IA, "objectives",
        body={"algorithm": {"name": "ehvi"}, "objectives": [{"name": "bleu"}], "repeats": 1},
        fixture=TABLE)
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
        body={"values": {"bleu": 3.0}}, fixture=STUDY)
    add("query: trials, state and an unknown one", "GET",
        "/v1/studies/{S}/trials?state=pending&sort=id", 400, IA, "sort", fixture=STUDY)
    add("query: pareto, ranks and an unknown one", "GET",
        "/v1/studies/{S}/pareto?ranks=true&limit=1", 400, IA, "limit", fixture=STUDY)
    add("query: simulation, format and an unknown one", "GET",
        "/v1/simulations/{M}?format=json&pretty=1", 400, IA, "pretty", fixture=TABLE)
    add("query: simulate with a query", "POST", M + "?repeats=1", 400, IA, "repeats",
        body={"repeats": 1}, fixture=TABLE)
    add("query: empty name", "GET", "/v1/studies?=1", 400, IA, "")
    add("query: flag without a value", "GET", "/v1/benchmarks?all", 400, IA, "all")

    # Labs, load_if_exists and metadata beside a definition (the shared lab
    # server); PATCH of a study's state and metadata.
    add("lab of the wrong type", "POST", P, 400, IA, "lab", body=study(lab=["mt"]))
    add("lab with a slash", "POST", P, 422, IA, "lab", body=study(lab="mt/x"))
    add("lab empty", "POST", P, 422, IA, "lab", body=study(lab=""))
    add("lab of 65 characters", "POST", P, 422, IA, "lab", body=study(lab="l" * 65))
    add("lab nmthpo (built-in tables)", "POST", P, 422, IA, "lab", body=study(lab="nmthpo"))
    add("lab nmtlc (built-in tables)", "POST", P, 422, IA, "lab", body=study(lab="nmtlc"))
    add("load_if_exists not a boolean", "POST", P, 400, IA, "load_if_exists",
        body=study(load_if_exists="true"))
    add("study metadata not an object", "POST", P, 400, IA, "metadata",
        body=study(metadata=[1, 2]))
    add("study metadata over 16 KiB", "POST", P, 422, IA, "metadata",
        body=study(metadata={"x": "y" * 16400}))
    add("a bad definition beside load_if_exists", "POST", P, 400, IA, "colour",
        body=study(load_if_exists=True, colour="red"))
    add("?lab= with a space", "GET", "/v1/studies?lab=a%20b", 400, IA, "lab")
    add("?lab= of 65 characters", "GET", "/v1/studies?lab=" + "l" * 65, 400, IA, "lab")
    SP = "/v1/studies/{S}"
    add("PATCH study: empty body", "PATCH", SP, 400, IA, "", body={}, fixture=STUDY)
    add("PATCH study: unknown field", "PATCH", SP, 400, IA, "name", body={"name": "x"},
        fixture=STUDY)
    add("PATCH study: state done", "PATCH", SP, 422, IA, "state", body={"state": "done"},
        fixture=STUDY)
    add("PATCH study: state not a string", "PATCH", SP, 400, IA, "state",
        body={"state": True}, fixture=STUDY)
    add("PATCH study: metadata an array", "PATCH", SP, 400, IA, "metadata",
        body={"metadata": []}, fixture=STUDY)
    add("PATCH study: metadata over 16 KiB", "PATCH", SP, 422, IA, "metadata",
        body={"state": "paused", "metadata": {"x": "y" * 16400}}, fixture=STUDY)
    add("PATCH study: unknown study", "PATCH", "/v1/studies/987654321", 404, "not_found",
        body={"state": "paused"})
    add("PATCH study: not JSON", "PATCH", SP, 400, IA, raw=b"{state", fixture=STUDY)

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
        "objectives", body=bstudy(objectives=KEEP_OUT), fixture=TABLE)
    add("benchmark study: space given too", "POST", P, 422, IA, "space",
        body=bstudy(space=SPACE4), fixture=TABLE)
    add("benchmark study: candidates given too", "POST", P, 422, IA, "candidates",
        body=bstudy(candidates=[row4]), fixture=TABLE)
    add("benchmark study: objective not a metric", "POST", P, 422, IA, "objectives[0].name",
        body=bstudy(objectives=[{"name": "ppl", "goal": "minimize"}]), fixture=TABLE)
    add("benchmark study: second objective not a metric", "POST", P, 422, IA,
        "objectives[1].name", body=bstudy(objectives=BLEU_MAX + [{"name": "speed",
                                                                  "goal": "maximize"}]),
        fixture=TABLE)
    add("benchmark study: unknown benchmark", "POST", P, 422, IA, "benchmark",
        body=bstudy(benchmark="lab/nope"))
    add("benchmark study: benchmark of the wrong type", "POST", P, 400, IA, "benchmark",
        body=bstudy(benchmark=5))
    add("benchmark study: learning curves, objective not ppl", "POST", P, 422, IA,
        "objectives[0].name",
        body=bstudy(benchmark="nmtlc/ted-zh-en", objectives=[{"name": "bleu",
                                                              "goal": "maximize"}]),
        fixture=TABLES)
    add("benchmark study: nmthpo objective not a metric", "POST", P, 422, IA,
        "objectives[0].name",
        body=bstudy(benchmark="nmthpo/zh-en", objectives=[{"name": "accuracy",
                                                           "goal": "maximize"}]), fixture=TABLES)
    add("benchmark study: nmthpo with candidates", "POST", P, 422, IA, "candidates",
        body=bstudy(benchmark="nmthpo/zh-en", objectives=KEEP_OUT,
                    candidates=[{"bpe": 10000}]), fixture=TABLES)
    add("simulate: learning curves", "POST", "/v1/benchmarks/nmtlc/ted-zh-en/simulate",
        422, IA, body={"repeats": 1}, fixture=TABLES)
    # Successive halving and ASHA on learning curves (issue 6).
    LC = "/v1/benchmarks/nmtlc/ted-zh-en/simulate"
    SH = {"name": "sh", "p": 2, "c": 10}
    AS = {"name": "asha", "r": 5, "u": 2, "R": 25, "p": 2, "keep": 2}

    def lc(algo=SH, **kw):
        b = {"algorithm": algo, "repeats": 1}
        b.update(kw)
        return b
    add("simulate: sh on a lookup table", "POST", "/v1/benchmarks/nmthpo/zh-en/simulate",
        422, IA, "algorithm.name", body=lc(), fixture=TABLES)
    add("simulate: gp on learning curves", "POST", LC, 422, IA, "algorithm.name",
        body=lc({"name": "gp"}), fixture=TABLES)
    add("simulate: learning curves, algorithm not an object", "POST", LC, 400, IA,
        "algorithm", body=lc("sh"), fixture=TABLES)
    add("simulate: learning curves, configs 0", "POST", LC, 422, IA, "configs",
        body=lc(configs=0), fixture=TABLES)
    add("simulate: learning curves, configs above the set's 148", "POST", LC, 422, IA,
        "configs", body=lc(configs=149), fixture=TABLES)
    add("simulate: learning curves, configs a string", "POST", LC, 400, IA, "configs",
        body=lc(configs="40"), fixture=TABLES)
    add("simulate: learning curves, repeats 1001", "POST", LC, 422, IA, "repeats",
        body=lc(repeats=1001), fixture=TABLES)
    add("simulate: learning curves, init does not apply", "POST", LC, 400, IA, "init",
        body=lc(init=3), fixture=TABLES)
    add("simulate: sh p 1", "POST", LC, 422, IA, "algorithm.p", body=lc(dict(SH, p=1)),
        fixture=TABLES)
    add("simulate: sh c 0", "POST", LC, 422, IA, "algorithm.c", body=lc(dict(SH, c=0)),
        fixture=TABLES)
    add("simulate: sh c a string", "POST", LC, 400, IA, "algorithm.c",
        body=lc(dict(SH, c="10")), fixture=TABLES)
    add("simulate: sh rank mean", "POST", LC, 422, IA, "algorithm.rank",
        body=lc(dict(SH, rank="mean")), fixture=TABLES)
    add("simulate: sh horizon -1", "POST", LC, 422, IA, "algorithm.horizon",
        body=lc(dict(SH, rank="extrapolate", horizon=-1)), fixture=TABLES)
    add("simulate: sh horizon a string", "POST", LC, 400, IA, "algorithm.horizon",
        body=lc(dict(SH, rank="extrapolate", horizon="end")), fixture=TABLES)
    add("simulate: sh round_up 1", "POST", LC, 400, IA, "algorithm.round_up",
        body=lc(dict(SH, round_up=1)), fixture=TABLES)
    add("simulate: sh with a kernel", "POST", LC, 400, IA, "algorithm.kernel",
        body=lc(dict(SH, kernel="rbf")), fixture=TABLES)
    add("simulate: sh with workers", "POST", LC, 422, IA, "workers", body=lc(workers=2),
        fixture=TABLES)
    add("simulate: asha workers 0", "POST", LC, 422, IA, "workers",
        body=lc(AS, workers=0), fixture=TABLES)
    add("simulate: asha workers 65", "POST", LC, 422, IA, "workers",
        body=lc(AS, workers=65), fixture=TABLES)
    add("simulate: asha without R", "POST", LC, 400, IA, "algorithm.R",
        body=lc({k: v for k, v in AS.items() if k != "R"}), fixture=TABLES)
    add("simulate: asha R below r", "POST", LC, 422, IA, "algorithm.R",
        body=lc(dict(AS, R=4)), fixture=TABLES)
    add("simulate: asha keep -1", "POST", LC, 422, IA, "algorithm.keep",
        body=lc(dict(AS, keep=-1)), fixture=TABLES)
    add("simulate: asha p 1", "POST", LC, 422, IA, "algorithm.p", body=lc(dict(AS, p=1)),
        fixture=TABLES)
    add("simulate: asha with a base sampler", "POST", LC, 400, IA, "algorithm.base",
        body=lc(dict(AS, base="gp")), fixture=TABLES)
    # A learning-curve set has one objective, ppl, minimized (issue 31).
    PPL = {"name": "ppl", "goal": "minimize"}
    add("simulate: learning curves, objective bleu", "POST", LC, 422, IA,
        "objectives[0].name", body=lc(objectives=[dict(PPL, name="bleu")]), fixture=TABLES)
    add("simulate: learning curves, ppl maximized", "POST", LC, 422, IA,
        "objectives[0].goal", body=lc(objectives=[dict(PPL, goal="maximize")]), fixture=TABLES)
    add("simulate: learning curves, two objectives", "POST", LC, 422, IA, "objectives[1]",
        body=lc(objectives=[PPL, PPL]), fixture=TABLES)
    add("simulate: learning curves, objectives not an array", "POST", LC, 400, IA,
        "objectives", body=lc(objectives=PPL), fixture=TABLES)
    add("simulate: learning curves, an objective not an object", "POST", LC, 400, IA,
        "objectives[0]", body=lc(objectives=["ppl"]), fixture=TABLES)
    add("simulate: learning curves, an objective without its goal", "POST", LC, 400, IA,
        "objectives[0]", body=lc(objectives=[{"name": "ppl"}]), fixture=TABLES)
    add("simulate: learning curves, an objective with a field more", "POST", LC, 400, IA,
        "objectives[0].weight", body=lc(objectives=[dict(PPL, weight=1)]), fixture=TABLES)
    add("simulate: multistage on a lookup table", "POST",
        "/v1/benchmarks/nmthpo/zh-en/simulate", 422, IA, "algorithm.name",
        body={"algorithm": {"name": "multistage", "base": "random", "k": 1,
                            "stages": [{"steps": 2, "trials": 4}, {"steps": 4, "trials": 2}]},
              "repeats": 1}, fixture=TABLES)
    add("evaluate: learning curve without a step", "POST",
        "/v1/benchmarks/nmtlc/ted-zh-en/evaluate", (400, 422), IA, "step",
        body={"params": first_curve_params}, fixture=TABLES)
    add("evaluate: a table row's params with bpe off the grid", "POST",
        "/v1/benchmarks/nmthpo/zh-en/evaluate", 422, IA, "params",
        body={"params": {"bpe": 12345, "num_layers": 4, "num_embed": 512,
                         "num_hidden": 1024, "num_heads": 16, "init_lr": 0.0003}}, fixture=TABLES)
    for case in C:
        check_fixture(case)
    return C


def check_fixture(case):
    """A case names the fixture its placeholders and lab/fixture need."""
    what = case.path + " " + (json.dumps(case.kw["body"]) if case.kw.get("body") is not None
                              else (case.kw.get("raw") or b"").decode("latin-1"))
    need = None
    if re.search(r"\{[SLDC]\}", case.path):
        need = STUDY
    if "{M}" in case.path or "lab/fixture" in what:
        need = TABLE
    if case.fixture != TABLES and case.fixture != need:
        raise ValueError("bad request %r names fixture %r, its path and body need %r"
                         % (case.name, case.fixture, need))
