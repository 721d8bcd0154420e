"""tests/bench/suite/loo.py - leave-one-table-out for `auto`'s rule
(docs/auto.md, "Leave-one-table-out"): for each of the six tables, a rule
picks its configuration(s) on the other five tables' measured figures and
is scored on the one left out; the figures reported are those scores, never
the in-sample ones.

A rule here is a selection procedure:
  - which tables its cases group (size-keyed: the finite spaces of at most
    400 candidates apart from the larger ones, as auto's rule did before
    this analysis; or one case for every finite space, the rule
    core/autoalgo.c adopted: so_finite, mo_finite);
  - the candidates it chooses from (hpod configurations measured by the
    suite);
  - the criterion on the training tables: the geometric mean of the
    metric's ratio to the plain method's (gp/matern52/ei for one objective,
    ehvi/gp for two), so that a 767-row table does not outweigh a 118-row
    one; a case whose best candidate does not beat the plain method on its
    training tables (ratio >= 1) falls back to the plain method.
Pure functions of the figures: {table: {config: mean}}.
"""
import math

SMALL_MAX = 400  # the size split auto had before (so_small/so_large)
ROWS = {"zh-en": 118, "ru-en": 176, "ja-en": 150, "en-ja": 168,
        "sw-en": 767, "so-en": 604}


def size_case(table, rows=None):
    return "small" if (rows or ROWS)[table] <= SMALL_MAX else "large"


def one_case(table, rows=None):
    return "finite"


def gmean_ratio(fig, tables, cfg, plain):
    logs = [math.log(fig[t][cfg] / fig[t][plain]) for t in tables]
    return math.exp(sum(logs) / len(logs))


def worst_ratio(fig, tables, cfg, plain):
    return max(fig[t][cfg] / fig[t][plain] for t in tables)


CRITERIA = {"gmean": gmean_ratio, "worst": worst_ratio}


def choose(fig, tables, candidates, plain, criterion="gmean"):
    """The candidate of the lowest criterion (the geometric-mean ratio to
    plain on tables, or the worst ratio), or plain when none is below 1;
    (config, its figure)."""
    best, best_r = plain, 1.0
    for c in candidates:
        if any(c not in fig[t] for t in tables):
            continue
        r = CRITERIA[criterion](fig, tables, c, plain)
        if r < best_r - 1e-12:
            best, best_r = c, r
    return best, best_r


def leave_one_out(fig, candidates, plain, case_of, rows=None,
                  criterion="gmean"):
    """For each table t: the case of t, the training tables (the other
    tables of the same case), the configuration chosen on them and its
    figure on t. Returns {t: {...}}."""
    out = {}
    tables = list(fig)
    for t in tables:
        c = case_of(t, rows)
        train = [u for u in tables if u != t and case_of(u, rows) == c]
        if not train:
            chosen, r = plain, None
        else:
            chosen, r = choose(fig, train, candidates, plain, criterion)
        out[t] = {"case": c, "train": train, "chosen": chosen,
                  "train_ratio": r, "score": fig[t][chosen],
                  "plain": fig[t][plain]}
    return out


def in_sample(fig, candidates, plain, case_of, rows=None, criterion="gmean"):
    """The same selection on all tables (what a rule tuned on the six
    picks): {case: config}."""
    cases = {}
    for t in fig:
        cases.setdefault(case_of(t, rows), []).append(t)
    return {c: choose(fig, ts, candidates, plain, criterion)[0]
            for c, ts in cases.items()}


# name, the cases, the criterion, the candidates (None: all; else a
# predicate on the configuration's key), what it is
RULES = [
    ("size-keyed", size_case, "gmean", None,
     "two cases as auto has them: finite spaces of at most 400 candidates, "
     "larger ones; each picks on the other tables of its own case by the "
     "geometric-mean ratio to the plain method"),
    ("one case", one_case, "gmean", None,
     "one case for every finite space: picks on the other five tables by "
     "the geometric-mean ratio"),
    ("one case, worst", one_case, "worst", None,
     "one case for every finite space: picks on the other five tables by "
     "the worst ratio to the plain method (the candidate that loses least "
     "anywhere)"),
]


def evaluate(fig, candidates, plain, peer_fig=None, rows=None,
             lower_is_better=True):
    """Every rule of RULES under leave-one-out, with the plain method and
    the peers (peer_fig: {table: {peer: mean}}) beside it."""
    res = []
    for name, case_of, crit, pick, desc in RULES:
        cands = [c for c in candidates if pick is None or pick(c)]
        per = leave_one_out(fig, cands, plain, case_of, rows, crit)
        for t, r in per.items():
            r["peers"] = dict((peer_fig or {}).get(t, {}))
            r["beats_plain"] = (r["score"] <= r["plain"]) if \
                lower_is_better else (r["score"] >= r["plain"])
        scores = [r["score"] for r in per.values()]
        res.append({"rule": name, "description": desc, "tables": per,
                    "in_sample": in_sample(fig, cands, plain, case_of,
                                           rows, crit),
                    "mean": sum(scores) / len(scores),
                    "plain_mean": sum(r["plain"] for r in per.values())
                    / len(per)})
    return res


def fixed_rule(fig, by_case, plain, case_of=size_case, rows=None):
    """A rule given as {case: config} (the rule in core/autoalgo.c today),
    scored on every table (in-sample: it was chosen on these tables)."""
    per = {t: {"case": case_of(t, rows), "chosen": by_case[case_of(t, rows)],
               "score": fig[t][by_case[case_of(t, rows)]],
               "plain": fig[t][plain]} for t in fig}
    return per
