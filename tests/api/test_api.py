#!/usr/bin/env python3
"""tests/api/test_api.py - drives real `hpod serve` processes over HTTP.

    sh tests/api/pg_tmp.sh BUILDROOT \\
        python3 tests/api/test_api.py --hpod BUILDROOT/asan/hpod [--only REGEX] [--logdir DIR]

Needs HPOD_DATABASE_URL (pg_tmp.sh sets it to a throwaway cluster) and
psql. Runs `hpod migrate` once, starts `hpod serve` processes on free
ports, and runs the test modules below in order (tests/api/README.md says
what each checks); every answer is checked against openapi/openapi.json
(spec.py). Prints `ok - name`, `not ok - name: reason` or `skip - name:
reason` per test, then one line `api: N passed, M failed, K skipped`;
exits 1 if anything failed.

Servers get HPOD_BENCHMARKS=<repo>/../shared/benchmarks (or --benchmarks
DIR). Tests that need those tables are skipped when DIR/nmthpo is
missing; the others build their own small tables in code.

Importing this file has no side effects (tests/fuzz/seed_corpus.py reads
bad_cases(), SPACE4, synthetic_table, BENCH_DIR and HAVE_TABLES from it).
Python 3 standard library only.
"""

import importlib
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bad_requests  # noqa: E402
import harness  # noqa: E402
from client import SPACE4  # noqa: E402,F401  (for tests/fuzz/seed_corpus.py)
from tables import synthetic_table  # noqa: E402,F401  (for tests/fuzz/seed_corpus.py)

# The suite, in the order it runs: one module per resource or topic.
MODULES = [
    "test_studies",            # create, read, list, delete; the trainer loop
    "test_study_ops",          # labs, unique names, load_if_exists, filters, PATCH
    "test_trials",             # fail, idempotent reports, lease expiry
    "test_trial_ops",          # enqueue, add, number, metadata, CSV
    "test_trainer",            # checkpoints, preemption, exclusion, typed and conditional spaces
    "test_evolve",             # space changes, copy, related studies, warm_start auto
    "test_bad_requests",       # the cases of bad_requests.py
    "test_suggest",            # finite studies, budgets, seeds, model samplers
    "test_budget",             # a suggest's compute budget, 64 x 1000 categoricals
    "test_auto",               # algorithm auto: the choice, its reason, the rule's cases
    "test_pareto",             # pareto, best, constraints
    "test_importance",         # importance (EBM), table comparison
    "test_multifidelity",      # asha, multistage
    "test_explain",            # /v1/trials/{id}/explain: recorded decisions
    "test_concurrency",        # two servers, 16 workers, kill -9
    "test_fairness",           # model work per lab, importance per version, model memory
    "test_benchmarks",         # the lookup tables: built-in, import, evaluate
    "test_benchmark_studies",  # studies backed by a table, the fake trainer
    "test_warm_start",         # warm_start from a study or a benchmark
    "test_simulations",        # simulate and stored simulations
    "test_simulation_jobs",    # 202 and polling, takeover after kill -9, labs, load
    "test_client",             # clients/python: pip install in a venv, optimize
    "test_client_optuna",      # clients/python: suggest_*, NaN, ask/tell, SIGTERM, preemption
    "test_numbers",            # the double range, typed values, migrations
    "test_operations",         # healthz, metrics, logs, start-up, database down
    "test_contract",           # 404 first, objectives, 405 Allow, query, MHD's answers
    "test_dashboard",          # the page at /, its files, headless Chromium on 3 studies
    "test_docker",             # entrypoint, hpod healthcheck, waiting for the database
    "test_auth",               # tokens, roles, labs (a database of its own)
    "test_audit",              # the audit log, created_by, retention (auth's database)
    "test_cli",                # hpod study/trials/best/watch over HTTP, YAML files, tmux
    "test_limits",             # connections, deadlines, bodies, rates, /metrics, hygiene
    "test_pgbouncer",          # the core again through PgBouncer in transaction mode
    "test_standby",            # HPOD_READ_DATABASE_URL on a real streaming standby
    "test_worker",             # hpod worker: simulation jobs without HTTP, takeover
    "test_metrics",            # /metrics families; last: promtool on the suite's scrape
]

# For tests/fuzz/seed_corpus.py, which sets HAVE_TABLES itself.
BENCH_DIR = harness.DEFAULT_BENCH_DIR
HAVE_TABLES = False


def bad_cases():
    """The bad-request cases (bad_requests.Case, a tuple starting name,
    method, path, kw), those needing the lookup tables only if HAVE_TABLES."""
    return [c for c in bad_requests.cases(HAVE_TABLES)
            if HAVE_TABLES or c.fixture != bad_requests.TABLES]


def main(argv=None):
    for m in MODULES:
        importlib.import_module(m)
    return harness.main(argv)


if __name__ == "__main__":
    sys.exit(main())
