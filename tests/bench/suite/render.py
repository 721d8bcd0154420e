"""tests/bench/suite/render.py - the suite's figures: collect() reads the
runs under the suite's --out into one report (build/suite/suite.json),
summary() is the text make bench and make bench-suite print, markdown()
the generated part of docs/suite.md (between its `suite:begin` and
`suite:end` markers; the prose around them is kept as written).
Python standard library only.

  render.py [--out build/suite] [--docs docs/suite.md]   (re-render only)
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import loo  # noqa: E402
import problems  # noqa: E402

TABLES = ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"]
NAMES = {
    "auto": "hpod auto", "bo_ei_m": "hpod gp (plain)",
    "bo_neilsptr_m": "hpod gp nei+prior+trust (BO_NEILSPTR_M)",
    "bo_hedge_m": "hpod hedge, GP judge (BO_HEDGE_M)",
    "gb_ei_m": "hpod graph EI (GB_EI_M)", "greedy": "hpod greedy",
    "rs": "hpod random", "bo_m": "hpod ehvi/gp (plain)",
    "tpe": "Optuna TPE", "tpe_mv": "Optuna TPE (multivariate)",
    "cmaes": "Optuna CMA-ES", "random": "Optuna random",
    "motpe": "Optuna MOTPE", "nsga2": "Optuna NSGA-II",
    "tpe_bleu": "Optuna TPE on BLEU alone",
    "hpod_auto": "hpod auto", "hpod_gp": "hpod gp/ei",
    "hpod_gp_nei": "hpod gp/nei", "hpod_random": "hpod random",
    "hpod_gp_lsp": "hpod gp/ei + lengthscale prior",
    "hpod_gp_nei_lsp": "hpod gp/nei + lengthscale prior",
}
# generated tables: simulate method -> the hpod-bench key of the same
# configuration
GEN_AS = {"auto": "auto", "gp": "bo_ei_m", "neilsptr": "bo_neilsptr_m",
          "hedge": "bo_hedge_m", "graph": "gb_ei_m", "random": "rs"}
PEERS = ["tpe", "tpe_mv", "cmaes", "random"]
SO_LINEUP = ["auto", "bo_ei_m"] + PEERS
SO_CANDIDATES = ["bo_ei_m", "bo_neilsptr_m", "bo_hedge_m", "gb_ei_m", "greedy"]
MO_PEER_LABELS = {"Optuna MOTPE (TPESampler, 2 objectives)": "motpe",
                  "Optuna NSGA-II (population 10)": "nsga2",
                  "Optuna TPE on BLEU alone": "tpe_bleu"}


SHORT = {"auto": "auto", "bo_ei_m": "gp", "tpe": "TPE", "tpe_mv": "TPE-mv",
         "cmaes": "CMA-ES", "random": "O-random", "bo_neilsptr_m": "nls",
         "bo_hedge_m": "hedge", "gb_ei_m": "graph", "greedy": "greedy", "bo_m": "ehvi/gp",
         "motpe": "MOTPE", "nsga2": "NSGA-II", "hpod_auto": "auto",
         "hpod_gp_lsp": "gp+prior", "hpod_gp_nei_lsp": "gp/nei+prior",
         "hpod_gp_nei": "gp/nei", "hpod_gp": "gp"}
LEGEND = ("   columns: auto and gp (gp/matern52/ei) are hpod's; TPE, TPE-mv "
          "(multivariate), CMA-ES, O-random are Optuna's; nls = BO_NEILSPTR_M "
          "(gp/nei, lengthscale prior, trust region), hedge = BO_HEDGE_M "
          "(GP-Hedge of nls and graph EI), graph = GB_EI_M")


def name(k):
    return NAMES.get(k, k)


def short(k):
    return SHORT.get(k, k)


def _load(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_jsonl(path):
    """The records of a runs file (a line cut short by a kill skipped)."""
    out = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for ln in f:
                try:
                    out.append(json.loads(ln))
                except ValueError:
                    pass
    return out


def _stat(v):
    v = [x for x in v if x is not None]
    if not v:
        return None
    m = sum(v) / len(v)
    return {"mean": m, "std": math.sqrt(sum((x - m) ** 2 for x in v) / len(v)),
            "n": len(v)}


def _contiguous(recs, key, want):
    """recs by seed 0.. as far as contiguous, at most want."""
    by = {r["seed"]: r for r in recs}
    out = []
    while len(out) < want and len(out) in by:
        out.append(by[len(out)][key])
    return out


def collect_tables(d, runs, runs_big):
    so, mo = {}, {}
    t3 = _load(os.path.join(d, "table3.json"), {"tables": []})
    for tb in t3["tables"]:
        ds = tb["name"].replace("nmthpo/", "")
        so[ds] = {m["key"]: {k: m[k]["mean"] for k in ("ftb", "ftc", "fb")}
                  | {"ftb_sd": m["ftb"]["std"], "n": m["ftb"]["runs"],
                     "chosen": m.get("chosen")}
                  for m in tb["methods"] if "ftb" in m}
    peers = {}
    for r in read_jsonl(os.path.join(d, "peers_tables.jsonl")):
        peers.setdefault((r["table"], r["method"]), []).append(r)
    for (ds, m), recs in peers.items():
        want = runs_big if loo.ROWS.get(ds, 0) > 400 else runs
        ms = _contiguous(recs, "m", want)
        if ds in so and ms:
            ftb = _stat([x["ftb"] for x in ms])
            so[ds][m] = {"ftb": ftb["mean"], "ftb_sd": ftb["std"],
                         "ftc": _stat([x["ftc"] for x in ms])["mean"],
                         "fb": _stat([x["fb"] for x in ms])["mean"],
                         "n": len(ms)}
    mts = []
    for ds in TABLES:
        mts += _load(os.path.join(d, "mo-%s.json" % ds), {"tables": []})[
            "tables"]
    for tb in mts:
        ds = tb["name"].replace("nmthpo/", "")
        mo[ds] = {}
        for m in tb["methods"]:
            k = m.get("key") or ("auto" if m["label"].startswith("auto")
                                 else m["label"])
            mo[ds][k] = {"fto": m["fto"]["mean"], "fta": m["fta"]["mean"],
                         "fbp": m["fbp"]["mean"], "n": m["runs"],
                         "label": m["label"]}
    pm = _load(os.path.join(HERE, "..", "..", "..", "docs", "peers_mo.json"))
    if pm:
        for tb in pm["tables"]:
            for m in tb["methods"]:
                k = MO_PEER_LABELS.get(m["label"])
                if k and tb["name"] in mo:
                    mo[tb["name"]][k] = {"fto": m["fto"]["mean"],
                                         "fta": m["fta"]["mean"],
                                         "fbp": m["fbp"]["mean"],
                                         "n": m["runs"], "label": m["label"]}
    return so, mo, (pm or {}).get("date")


def collect_problems(path, seeds):
    """{problem: {method: stat of log10 regret}} over seeds 0..seeds-1."""
    by = {}
    for r in read_jsonl(path):
        if r.get("regret") is not None:
            by.setdefault((r["problem"], r["method"]), []).append(r)
    out = {}
    for (p, m), recs in by.items():
        v = _contiguous(recs, "regret", seeds)
        if v:
            out.setdefault(p, {})[m] = _stat(v)
    return out


def collect_generated(path, runs):
    out = {}
    for r in read_jsonl(path):
        t = out.setdefault(r["table"], {})
        if "runs" in r:
            t[GEN_AS.get(r["method"], r["method"])] = {
                "ftb": r["metrics"]["ftb"]["mean"],
                "ftb_sd": r["metrics"]["ftb"]["std"],
                "ftc": r["metrics"]["ftc"]["mean"],
                "fb": r["metrics"]["fb"]["mean"], "n": r["runs"],
                "chosen": (r.get("algorithm") or {}).get("chosen")}
    peers = {}
    for r in read_jsonl(path):
        if "seed" in r:
            peers.setdefault((r["table"], r["method"]), []).append(r)
    for (t, m), recs in peers.items():
        ms = _contiguous(recs, "m", runs)
        if ms:
            s = _stat([x["ftb"] for x in ms])
            out[t][m] = {"ftb": s["mean"], "ftb_sd": s["std"],
                         "ftc": _stat([x["ftc"] for x in ms])["mean"],
                         "fb": _stat([x["fb"] for x in ms])["mean"],
                         "n": len(ms)}
    return out


def ranks(fig, lineup, key=None):
    """Mean rank (1 = best, ties averaged) of lineup over the problems of
    fig ({problem: {method: value or dict}}) that have every method."""
    tot, n = {m: 0.0 for m in lineup}, 0
    for p, ms in fig.items():
        if any(m not in ms for m in lineup):
            continue
        v = {m: (ms[m][key] if key else ms[m]) for m in lineup}
        for m in lineup:
            tot[m] += 1 + sum(1 for x in lineup if v[x] < v[m]) + \
                0.5 * sum(1 for x in lineup if x != m and v[x] == v[m])
        n += 1
    return {m: tot[m] / n for m in lineup} if n else {}, n


def _mean_of(fig, key):
    return {t: {m: v[key] for m, v in ms.items()} for t, ms in fig.items()}


def collect(o):
    d = o["out"]
    so, mo, pm_date = collect_tables(d, o["runs"], o["runs_big"])
    fn = collect_problems(os.path.join(d, "functions.jsonl"), o["seeds"])
    cond = collect_problems(os.path.join(d, "conditional.jsonl"), o["seeds"])
    gen = collect_generated(os.path.join(d, "generated.jsonl"),
                            o.get("gen_runs", o["runs"]))
    note = (_load(os.path.join(d, "conditional_note.json"), {}) or {}).get(
        "note")
    groups, alt = {}, {}
    so_ftb = _mean_of(so, "ftb")
    groups["tables, 1 objective (ftb)"] = ranks(so_ftb, SO_LINEUP)
    mo_lineup = ["auto", "bo_m", "motpe", "nsga2", "rs"]
    groups["tables, 2 objectives (fta)"] = ranks(_mean_of(mo, "fta"),
                                                 mo_lineup)
    for v, g in (("cont", "functions"), ("mixed", "mixed"),
                 ("cat", "categorical")):
        sub = {p: {m: s["mean"] for m, s in ms.items()}
               for p, ms in fn.items() if p.endswith("/" + v)}
        groups["%s (log10 regret)" % g] = ranks(sub, ["hpod_auto"] + PEERS)
        # each other hpod method ranked in auto's place
        alt["%s (log10 regret)" % g] = {
            m: ranks(sub, [m] + PEERS)[0].get(m)
            for m in sorted({m for v in sub.values() for m in v
                             if m.startswith("hpod_") and m != "hpod_auto"})}
    groups["generated tables (ftb)"] = ranks(_mean_of(gen, "ftb"),
                                             SO_LINEUP)
    cf = {p: {m: s["mean"] for m, s in ms.items()} for p, ms in cond.items()}
    groups["conditional (log10 regret)"] = ranks(
        cf, (["hpod_auto"] if any("hpod_auto" in ms for ms in cf.values())
             else []) + PEERS)
    rep = {"report": "suite", "tables_so": so, "tables_mo": mo,
           "peers_mo_date": pm_date, "functions": fn, "conditional": cond,
           "conditional_note": note, "generated": gen,
           "ranks": {g: {"mean_rank": r, "problems": n}
                     for g, (r, n) in groups.items()},
           "alt_ranks": alt,
           "runs": o["runs"], "runs_big": o["runs_big"],
           "gen_runs": o.get("gen_runs", o["runs"]),
           "seeds": o["seeds"], "budget": o["budget"]}
    rep["loo"] = loo_report(so, mo, gen)
    return rep


def loo_report(so, mo, gen):
    out = {}
    if all(t in so for t in TABLES):
        fig = {t: {m: so[t][m]["ftb"] for m in so[t]} for t in TABLES}
        peer = {t: {p: so[t][p]["ftb"] for p in ("tpe", "tpe_mv")
                    if p in so[t]} for t in TABLES}
        cands = [c for c in SO_CANDIDATES if all(c in fig[t] for t in TABLES)]
        rules = loo.evaluate(fig, cands, "bo_ei_m", peer)
        # The rules chosen on all six, applied to the generated tables (a
        # true hold-out: no configuration was tuned on them).
        grow = {t: problems.GEN_TABLES[t][0] for t in gen}
        for r in rules:
            case_of = [x[1] for x in loo.RULES if x[0] == r["rule"]][0]
            held = {}
            for t, ms in gen.items():
                cfg = r["in_sample"][case_of(t, grow)]
                if cfg in ms and "bo_ei_m" in ms:
                    held[t] = {"chosen": cfg, "score": ms[cfg]["ftb"],
                               "plain": ms["bo_ei_m"]["ftb"],
                               "peers": {p: ms[p]["ftb"] for p in
                                         ("tpe", "tpe_mv") if p in ms}}
            r["generated"] = held
        # auto's rule (core/autoalgo.c): one case for every finite space
        # the graph takes.
        cur = {"finite": "bo_hedge_m"}
        out["so"] = {"metric": "ftb", "plain": "bo_ei_m", "candidates": cands,
                     "rules": rules,
                     "current": loo.fixed_rule(fig, cur, "bo_ei_m",
                                               case_of=loo.one_case)}
    if all(t in mo for t in TABLES):
        fig = {t: {m: mo[t][m]["fta"] for m in mo[t]} for t in TABLES}
        peer = {t: {p: mo[t][p]["fta"] for p in ("motpe", "nsga2")
                    if p in mo[t]} for t in TABLES}
        cands = [c for c in fig["zh-en"] if c not in
                 ("auto", "rs", "motpe", "nsga2", "tpe_bleu")
                 and not c.startswith("greedy") and
                 all(c in fig[t] for t in TABLES) and c in
                 [k for k in mo["zh-en"] if "label" in mo["zh-en"][k]]]
        cands = [c for c in cands if not mo["zh-en"][c]["label"].startswith(
            ("greedy", "Optuna"))]
        rules = loo.evaluate(fig, cands, "bo_m", peer)
        for r in rules:
            for t, x in r["tables"].items():
                x["fbp"] = mo[t][x["chosen"]]["fbp"]
                x["plain_fbp"] = mo[t]["bo_m"]["fbp"]
        cur = {"finite": "gb_m_tr2s_fr03_bl"}
        out["mo"] = {"metric": "fta", "plain": "bo_m", "candidates": cands,
                     "rules": rules,
                     "current": loo.fixed_rule(fig, cur, "bo_m",
                                               case_of=loo.one_case)}
    return out


# ---- text ----

def _f(x, nd=1):
    return "-" if x is None else ("%.*f" % (nd, x))


def _table(head, rows):
    w = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    line = lambda r: "  ".join(str(c).rjust(w[i]) if i else str(c).ljust(w[i])
                               for i, c in enumerate(r))
    return "\n".join([line(head)] + [line(r) for r in rows]) + "\n"


def so_rows(fig, methods, want, metric="ftb"):
    """One row per table; a cell of fewer runs than want says how many
    ("26.0 [35]")."""
    rows = []
    for t, ms in fig.items():
        w = want(t)
        rows.append([t] + ["-" if m not in ms else _f(ms[m][metric]) + (
            " [%d]" % ms[m]["n"] if ms[m].get("n", w) < w else "")
            for m in methods])
    return rows


def summary(rep):
    s = ["== suite (tests/bench/suite, docs/suite.md): hpod beside Optuna, "
         "same problems and seeds"]
    so = rep["tables_so"]
    if so:
        s.append("-- tables, 1 objective: mean ftb (%d runs, [n] where "
                 "fewer; lower is better)" % rep["runs"])
        want = lambda t: rep["runs_big"] if loo.ROWS.get(t, 0) > 400 and \
            rep["runs_big"] < rep["runs"] else rep["runs"]
        s.append(LEGEND)
        s.append(_table(["table"] + [short(m) for m in SO_LINEUP] + [
            short(m) for m in SO_CANDIDATES[1:]],
            so_rows(so, SO_LINEUP + SO_CANDIDATES[1:], want)).rstrip())
    mo = rep["tables_mo"]
    if mo:
        lin = ["auto", "bo_m", "motpe", "nsga2"]
        s.append("-- tables, 2 objectives: mean fta / fbp (peers from "
                 "docs/peers_mo.json, %s)" % rep.get("peers_mo_date"))
        s.append(_table(["table"] + [short(m) for m in lin],
                        [[t] + ["%s / %s" % (_f(ms[m]["fta"]),
                                             _f(ms[m]["fbp"], 2))
                                if m in ms else "-" for m in lin]
                         for t, ms in mo.items()]).rstrip())
    for g, fig in (("functions", rep["functions"]),
                   ("conditional", rep["conditional"])):
        if not fig:
            continue
        ms = sorted({m for v in fig.values() for m in v},
                    key=lambda m: (not m.startswith("hpod"), m))
        s.append("-- %s: mean log10 regret of the best of %d, seeds 0-%d" % (
            g, rep["budget"], rep["seeds"] - 1))
        s.append(_table(["problem"] + [short(m) for m in ms],
                        [[p] + [_f(v[m]["mean"], 2) if m in v else "-"
                                for m in ms] for p, v in fig.items()])
                 .rstrip())
    if rep.get("conditional_note"):
        s.append("   " + rep["conditional_note"])
    if rep["generated"]:
        s.append("-- generated tables: mean ftb (%d runs, [n] where fewer)"
                 % rep["gen_runs"])
        s.append(_table(["table"] + [short(m) for m in SO_LINEUP] + [
            short(m) for m in SO_CANDIDATES[1:-1]],
            so_rows(rep["generated"], SO_LINEUP + SO_CANDIDATES[1:-1],
                    lambda t: rep["gen_runs"])).rstrip())
    s.append("-- mean rank per group (1 = best)")
    for g, r in rep["ranks"].items():
        if r["mean_rank"]:
            s.append("   %s, %d problems: " % (g, r["problems"]) + ", ".join(
                "%s %.2f" % (name(m), v) for m, v in
                sorted(r["mean_rank"].items(), key=lambda x: x[1])))
            for m, v in rep.get("alt_ranks", {}).get(g, {}).items():
                if v is not None:
                    s.append("      %s in auto's place: %.2f" % (name(m), v))
    s.extend(loo_text(rep["loo"]))
    return "\n".join(s) + "\n"


def loo_text(lo):
    s = []
    for kind, what in (("so", "1 objective, ftb"), ("mo", "2 objectives, "
                                                          "fta")):
        if kind not in lo:
            continue
        x = lo[kind]
        s.append("-- leave-one-table-out (%s): the rule picked on the other "
                 "tables, scored on the one left out; plain = %s" % (
                     what, name(x["plain"])))
        for r in x["rules"]:
            rows = []
            for t, v in r["tables"].items():
                peers = " ".join("%s %s" % (p, _f(q)) for p, q in
                                 v["peers"].items())
                rows.append([t, v["chosen"], _f(v["score"]),
                             _f(v["plain"]), peers,
                             "yes" if v["beats_plain"] else "NO"])
            s.append("   rule %r (%s): LOO mean %.1f vs plain %.1f" % (
                r["rule"], r["description"], r["mean"], r["plain_mean"]))
            s.append(_table(["   table", "chosen", "LOO", "plain", "peers",
                             "<= plain"], rows).rstrip())
    return s


def markdown(rep, old=""):
    """docs/suite.md: old's text outside the markers, the figures inside."""
    body = ("<!-- suite:begin (generated by tests/bench/suite/render.py; "
            "do not edit) -->\n```\n" + summary(rep) + "```\n\n"
            "Written by `%s` (started %s, %.0f s; the runs it read may come "
            "from earlier invocations).\n<!-- suite:end -->\n" % (
                rep.get("command", "?"), rep.get("started", "?"),
                rep.get("seconds", 0)))
    a, b = old.find("<!-- suite:begin"), old.find("<!-- suite:end -->")
    if a < 0 or b < 0:
        return old + ("\n" if old else "") + body
    return old[:a] + body + old[b + len("<!-- suite:end -->\n"):]


def main(argv):
    o = {"out": "build/suite", "docs": ""}
    for i in range(0, len(argv) - 1, 2):
        o[argv[i][2:]] = argv[i + 1]
    rep = _load(os.path.join(o["out"], "suite.json"))
    if rep is None:
        sys.stdout.write("== suite: no %s/suite.json yet (make bench-suite "
                         "makes it)\n" % o["out"])
        return 0
    sys.stdout.write(summary(rep))
    if o["docs"]:
        old = open(o["docs"], encoding="utf-8").read() \
            if os.path.exists(o["docs"]) else ""
        with open(o["docs"], "w", encoding="utf-8") as f:
            f.write(markdown(rep, old))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
