#!/bin/sh
# tests/bench/run.sh BUILD - what `make bench` runs after building: speed
# figures for the server and the numeric core, each beside the figure of a
# peer (Optuna) measured in the same invocation, with their ratio. Not a
# test (nothing about speed is asserted), but it fails when a benchmark
# reports an error.
#   BUILD   a release build directory holding hpod and tests/bench_* (e.g.
#           build/release)
# Steps: a throwaway PostgreSQL cluster under BUILD (mktemp -d
# BUILD/benchpg.XXXXXX) with the databases "hpod" and "optuna", `hpod
# migrate`; then, all with OPENBLAS_NUM_THREADS=1:
#   1. one `hpod serve`: bench_http with 1, 4, 16, 64 clients on an open
#      study, then bench_models.py (GP-EI and graph suggest latency) and
#      importance_fanova.py (hpod's importance beside Optuna's fANOVA on
#      the six nmthpo tables, when python3-optuna and python3-sklearn are
#      installed), and conditional.py (hpod's default on the conditional
#      problems beside Optuna's TPE and random at budgets 30 and 60;
#      BENCH_COND_SEEDS seeds, default 10);
#   2. VACUUM (ANALYZE) of the database (the steps before leave ~100k dead
#      trial versions, whose first autovacuum pass would otherwise land in
#      the window or not depending on those steps), then three `hpod
#      serve` replicas on the same database: bench_http with 64 clients
#      spread round-robin over them, on 8 fresh finite studies of 3,000
#      candidates in turn (pooled) and on an open study;
#   2b. the engine: pgbench -N with 64 clients on a database of the same
#      cluster, then 64 clients over the replicas on an open study
#      directly and through PgBouncer in transaction mode, each as a ratio
#      to pgbench's transactions/s;
#   3. the peer, tests/bench/bench_optuna.py under Debian's python3: Optuna
#      RDB storage on the "optuna" database with the same worker counts
#      (processes), and TPE ask latency at 50/200/500 trials;
#   4. BUILD/tests/bench_sampler, bench_gp and bench_graph when built;
#   5. tests/bench/cold_run.sh (a cold `make run` from a clean clone);
#   6. tests/bench/summary.py: hpod vs peer with ratios, the issue's goals
#      marked met / not met.
# Servers and the cluster are stopped and removed on every exit path.
# Environment: BENCH_SECONDS (default 10) per measured run, BENCH_CLIENTS
# (default "1 4 16 64"), BENCH_REPLICAS (default 3), BENCH_FINITE (the
# finite study's candidates, default 3000), BENCH_FINITE_STUDIES (fresh
# finite studies run in turn and pooled, default 8), BENCH_PEER=0 skips
# the peer, BENCH_PEER_PYTHON (default /usr/bin/python3, the interpreter
# Debian's python3-optuna is installed for), BENCH_COLD=0 skips the cold run,
# BENCH_ONLY (comma-separated steps among http, models, simload, fairness,
# importance, conditional, replicas, engine, peer, core, cold, suite; default all) runs
# only those steps, e.g.
# BENCH_ONLY=models,simload for the single-server model and simulation
# figures without the rest.
set -u
B=${1:?usage: tests/bench/run.sh BUILD}
root=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "$B" && pwd)
seconds=${BENCH_SECONDS:-10}
clients_list=${BENCH_CLIENTS:-1 4 16 64}
replicas=${BENCH_REPLICAS:-3}
finite_n=${BENCH_FINITE:-3000}
finite_k=${BENCH_FINITE_STUDIES:-8}
# The peer runs the same worker counts, and always 64 (the replica runs'
# counterpart).
case " $clients_list " in
*" 64 "*) peer_list=$clients_list ;;
*) peer_list="$clients_list 64" ;;
esac
peer_python=${BENCH_PEER_PYTHON:-/usr/bin/python3}
export OPENBLAS_NUM_THREADS=1 BENCH_REPLICAS="$replicas"

only=${BENCH_ONLY:-}
# want STEP: whether BENCH_ONLY selects STEP (all steps when it is empty).
want() {
    [ -z "$only" ] && return 0
    case ",$only," in
    *",$1,"*) return 0 ;;
    esac
    return 1
}

pgdir=""
pids="" # the running hpod serve processes
urls="" # their base URLs, comma-separated
status=0
results=$(mktemp "${TMPDIR:-/tmp}/hpod-bench-results.XXXXXX") || exit 1

stop_servers() {
    for p in $pids; do
        kill -TERM "$p" 2>/dev/null
    done
    for p in $pids; do
        wait "$p" 2>/dev/null
    done
    pids=""
    urls=""
}

cleanup() {
    trap - EXIT INT TERM HUP
    stop_servers
    sim_cgroup_remove
    if [ -n "$pgdir" ]; then
        sh "$root/scripts/pg.sh" stop "$pgdir" 2>/dev/null
        rm -rf "$pgdir"
        pgdir=""
    fi
    rm -f "$results"
}
trap cleanup EXIT
trap 'echo "bench: interrupted" >&2; exit 130' INT TERM HUP
trap 'exit 141' PIPE # stdout closed (| head): still clean up

fail() {
    echo "bench: $*" >&2
    status=1
}

# free_port, start_servers N BUILD, finite_study N
# shellcheck source=tests/bench/servers.sh
. "$root/tests/bench/servers.sh"
# sim_cgroup_make, sim_cgroup_remove: the simulations' idle cpu cgroup
# shellcheck source=scripts/simcgroup.sh
. "$root/scripts/simcgroup.sh"

# stop_servers_checked: SIGTERM, and each must exit 0 (a clean shutdown
# after the load).
stop_servers_checked() {
    for p in $pids; do
        kill -TERM "$p" 2>/dev/null
    done
    n=0
    bad=0
    for p in $pids; do
        wait "$p" || bad=$((bad + 1))
        n=$((n + 1))
    done
    pids=""
    urls=""
    if [ "$bad" -eq 0 ]; then
        echo "server: $n clean shutdown(s) after the load (exit 0)"
    else
        fail "$bad of $n hpod serve exited non-zero on SIGTERM; logs in $pgdir"
        tail -20 "$pgdir"/hpod-*.log >&2
    fi
}

# run_tagged TAG CMD...: runs CMD, prints its output, and keeps its
# "result KEY VALUE" lines as "result TAG_KEY VALUE" for summary.py.
run_tagged() {
    tag=$1
    shift
    out="$pgdir/out.txt"
    "$@" >"$out"
    rc=$?
    cat "$out"
    sed -n "s/^result /result ${tag}/p" "$out" >>"$results"
    return "$rc"
}

# --- header: enough to reproduce the figures ------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
echo "== hpod bench $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
echo "machine: $(nproc) cpus, ${cpu:-unknown cpu}, $mem RAM, $(uname -sr)"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at start;" \
    "other work on these cores lowers every figure below"
echo "source:  $(git -C "$root" describe --always --dirty --tags 2>/dev/null ||
    echo 'not a git checkout'), binary $B/hpod"
echo "server:  HPOD_THREADS=${HPOD_THREADS:-8 (default)}" \
    "HPOD_DB_POOL=${HPOD_DB_POOL:-8 (default)} OPENBLAS_NUM_THREADS=1," \
    "PostgreSQL $(sh -c 'for d in /usr/lib/postgresql/*/bin; do
        "$d/postgres" --version; done' 2>/dev/null |
        sed -n 's/.*(PostgreSQL) \([0-9.]*\).*/\1/p' | sort -V | tail -1)" \
    "on a unix socket (fsync on), client and server on this machine"
echo "runs:    BENCH_SECONDS=$seconds per run after 1 s of warm-up," \
    "clients \"$clients_list\", $replicas replicas"
# Every server of this run (and its simulation workers) inherits
# HPOD_SIM_CGROUP; the cgroup is removed at exit, after the servers.
printf 'sims:    '
sim_cgroup_make

[ -x "$B/hpod" ] || { echo "bench: $B/hpod not built" >&2; exit 1; }
[ -x "$B/tests/bench_http" ] || { echo "bench: $B/tests/bench_http not built" >&2; exit 1; }

# --- the throwaway cluster --------------------------------------------------
pgdir=$(mktemp -d "$B/benchpg.XXXXXX")
if ! sh "$root/scripts/pg.sh" init "$pgdir" ||
    ! sh "$root/scripts/pg.sh" start "$pgdir"; then
    echo "bench: could not start PostgreSQL" >&2
    exit 1
fi
HPOD_DATABASE_URL=$(sh "$root/scripts/pg.sh" url "$pgdir")
export HPOD_DATABASE_URL
(cd "$root" && "$B/hpod" migrate) >"$pgdir/migrate.log" 2>&1 ||
    { tail -20 "$pgdir/migrate.log" >&2; echo "bench: hpod migrate failed" >&2; exit 1; }

# --- 1. one server ----------------------------------------------------------
echo
echo "== HTTP, one server: suggest -> report round trips on an open study" \
    "(tests/bench/bench_http.c)"
start_servers 1 "$B"
want http && for c in $clients_list; do
    run_tagged "http_1s_w${c}_" "$B/tests/bench_http" "$urls" "$c" "$seconds" ||
        fail "bench_http with $c clients reported errors"
done

if want models && [ -f "$root/tests/bench/bench_models.py" ]; then
    echo
    echo "== HTTP: model samplers on a real table (tests/bench/bench_models.py)"
    run_tagged "" python3 "$root/tests/bench/bench_models.py" "$urls" ||
        fail "bench_models.py failed"
fi
if want simload; then
    echo
    echo "== HTTP: one trainer's suggest latency, idle and while 4 simulations" \
        "run on the job pool (tests/bench/bench_simload.py)"
    run_tagged "" python3 "$root/tests/bench/bench_simload.py" "$urls" ||
        fail "bench_simload.py failed"
fi
if want fairness; then
    echo
    echo "== HTTP: one lab's trainer while another lab saturates the server" \
        "(tests/bench/bench_fairness.py)"
    # shellcheck disable=SC2086 # pids holds the one server's pid
    BENCH_FAIR_GRAPHS=0 run_tagged "" python3 \
        "$root/tests/bench/bench_fairness.py" "$urls" $pids ||
        fail "bench_fairness.py failed"
fi
echo
if ! want importance; then
    echo "== importance vs fANOVA: skipped (BENCH_ONLY)"
elif "$peer_python" -c 'import optuna, sklearn' 2>/dev/null; then
    echo "== importance: hpod's EBM beside Optuna's fANOVA on the six tables" \
        "(tests/bench/importance_fanova.py)"
    "$peer_python" "$root/tests/bench/importance_fanova.py" "$urls" ||
        fail "importance_fanova.py failed"
else
    echo "== importance vs fANOVA: $peer_python cannot import optuna and" \
        "sklearn (sh scripts/deps.sh bench installs them); skipped"
fi
echo
if ! want conditional; then
    echo "== conditional problems: skipped (BENCH_ONLY)"
elif "$peer_python" -c 'import optuna' 2>/dev/null; then
    echo "== conditional problems: hpod's default beside Optuna TPE and random" \
        "(tests/bench/conditional.py)"
    "$peer_python" "$root/tests/bench/conditional.py" "$urls" \
        --seeds "${BENCH_COND_SEEDS:-10}" || fail "conditional.py failed"
else
    echo "== conditional problems: $peer_python cannot import optuna" \
        "(sh scripts/deps.sh bench installs it); skipped"
fi
stop_servers_checked

if want fairness && [ "${BENCH_FAIR_GRAPHS:-16}" != 0 ]; then
    echo
    echo "== model memory: a fresh server's RSS after ${BENCH_FAIR_GRAPHS:-16}" \
        "graph studies of ${BENCH_FAIR_CANDS:-4000} candidates" \
        "(tests/bench/bench_fairness.py)"
    start_servers 1 "$B"
    # shellcheck disable=SC2086 # pids holds the one server's pid
    BENCH_FAIR_ROUNDS=0 run_tagged "" python3 \
        "$root/tests/bench/bench_fairness.py" "$urls" $pids ||
        fail "bench_fairness.py (memory) failed"
    stop_servers_checked
fi

# --- 2. replicas ------------------------------------------------------------
if want replicas; then
    echo
    echo "== HTTP, $replicas replicas on one database: 64 clients round-robin" \
        "over the servers, one study"
    finite="$pgdir/finite.json"
    finite_study "$finite_n" >"$finite"
    # The steps before leave ~100k dead trial versions, and a fresh
    # cluster's first autovacuum pass (trials and its indexes, analyze of
    # every table) starts at a naptime tick 60-80 s after the cluster
    # came up: inside this window or not depending on how long those
    # steps took. Clean them up here, so that the window starts with no
    # backlog of other steps whatever ran before it; autovacuum of the
    # window's own writes stays part of what it measures.
    psql -X -q "$HPOD_DATABASE_URL" -c "VACUUM (ANALYZE)" >"$pgdir/vacuum.log" 2>&1 ||
        fail "VACUUM before the replica runs failed: $(tail -1 "$pgdir/vacuum.log")"
    start_servers "$replicas" "$B"
    echo "-- $finite_k finite studies of $finite_n candidates in turn (each" \
        "measured from the warm-up's end until its candidates run out: the" \
        "steady window, not the drain; the windows pooled, and the first" \
        "study alone as first_study_*)"
    run_tagged "http_${replicas}r_finite_" "$B/tests/bench_http" "$urls" 64 \
        "$seconds" "$finite" "$finite_k" ||
        fail "bench_http over $replicas replicas (finite) reported errors"
    echo "-- open study (continuous space, no budget)"
    run_tagged "http_${replicas}r_open_" "$B/tests/bench_http" "$urls" 64 \
        "$seconds" || fail "bench_http over $replicas replicas (open) reported errors"
    stop_servers_checked
fi

# --- 2b. the engine: pgbench beside hpod, direct and through PgBouncer -------
# On the same cluster: PostgreSQL's own rate for a small write (pgbench -N,
# 64 clients), then hpod's 64-worker cycles/s over the replicas on an open
# study directly (the run above) and through PgBouncer in transaction mode
# (scripts/pgbouncer.sh), each as a ratio to pgbench's transactions/s. A
# cycle is a suggest and a report: two transactions, so 0.5 would be the
# engine's own rate (docs/DEPLOY.md, "The gap to the engine").
if want engine; then
    echo
    echo "== the engine: pgbench -N, 64 clients, beside hpod's 64 workers over" \
        "$replicas replicas, directly and through PgBouncer (transaction mode)"
    psql -X -q "$HPOD_DATABASE_URL" -c "CREATE DATABASE pgbench" >/dev/null 2>&1
    pgb_url=$(echo "$HPOD_DATABASE_URL" | sed 's|:///hpod?|:///pgbench?|')
    if ! pgbench -i -q -s 10 "$pgb_url" >"$pgdir/pgbench-init.log" 2>&1; then
        fail "pgbench -i failed: $(tail -1 "$pgdir/pgbench-init.log")"
    else
        pgbench -N -c 64 -j 2 -T "$seconds" "$pgb_url" >"$pgdir/pgbench.log" 2>&1 ||
            fail "pgbench failed: $(tail -1 "$pgdir/pgbench.log")"
        tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$pgdir/pgbench.log" | head -1)
        echo "pgbench -N -c 64 -j 2 -T $seconds (scale 10): ${tps:-?} transactions/s"
        echo "result engine_pgbench_tps ${tps:-nan}" >>"$results"
        psql -X -q "$HPOD_DATABASE_URL" -c "VACUUM (ANALYZE)" >/dev/null 2>&1
        start_servers "$replicas" "$B"
        echo "-- direct: open study"
        run_tagged "engine_direct_" "$B/tests/bench_http" "$urls" 64 "$seconds" ||
            fail "bench_http direct reported errors"
        stop_servers_checked
        bouncer="$pgdir/pgbouncer"
        if sh "$root/scripts/pgbouncer.sh" start "$bouncer" "$pgdir" "$(free_port)" 20 \
            >"$pgdir/pgbouncer-start.log" 2>&1; then
            direct_url=$HPOD_DATABASE_URL
            HPOD_DATABASE_URL=$(sh "$root/scripts/pgbouncer.sh" url "$bouncer")
            HPOD_MIGRATE_DATABASE_URL=$direct_url
            export HPOD_DATABASE_URL HPOD_MIGRATE_DATABASE_URL
            start_servers "$replicas" "$B"
            echo "-- through PgBouncer (transaction mode, 20 server connections): open study"
            run_tagged "engine_bouncer_" "$B/tests/bench_http" "$urls" 64 "$seconds" ||
                fail "bench_http through PgBouncer reported errors"
            stop_servers_checked
            sh "$root/scripts/pgbouncer.sh" stop "$bouncer"
            HPOD_DATABASE_URL=$direct_url
            unset HPOD_MIGRATE_DATABASE_URL
        else
            fail "PgBouncer did not start: $(tail -2 "$pgdir/pgbouncer-start.log")"
        fi
        python3 - "$results" <<'PY'
import sys
r = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3 and f[0] == "result":
        r[f[1]] = f[2]
tps = float(r.get("engine_pgbench_tps", "nan"))
print("-- hpod against the engine (goal: cycles/s >= 0.35 x pgbench's tps,"
      " suggest p99 <= 50 ms, report p99 <= 20 ms)")
for way in ("direct", "bouncer"):
    cyc = float(r.get("engine_%s_cycles_per_s" % way, "nan"))
    s99 = float(r.get("engine_%s_suggest_p99_ms" % way, "nan"))
    r99 = float(r.get("engine_%s_report_p99_ms" % way, "nan"))
    ratio = cyc / tps if tps == tps and tps > 0 else float("nan")
    met = ratio >= 0.35 and s99 <= 50 and r99 <= 20
    print("%-8s %7.0f cycles/s = %.3f x pgbench's %.0f tps; suggest p99 %.1f ms,"
          " report p99 %.1f ms: %s" % (way, cyc, ratio, tps, s99, r99,
                                       "met" if met else "not met"))
PY
    fi
fi

# --- 3. the peer: Optuna ------------------------------------------------------
echo
if [ "${BENCH_PEER:-1}" = 0 ] || ! want peer; then
    echo "== peer (Optuna): skipped (BENCH_PEER=0 or BENCH_ONLY)"
elif ! "$peer_python" -c 'import optuna, sqlalchemy, psycopg2' 2>/dev/null; then
    echo "== peer (Optuna): $peer_python cannot import optuna, sqlalchemy and" \
        "psycopg2 (sh scripts/deps.sh bench installs them); skipped"
else
    echo "== peer: Optuna RDB storage on the same cluster, database \"optuna\"" \
        "(tests/bench/bench_optuna.py)"
    # The cluster trusts local connections; this works as root and not.
    "$peer_python" -c 'import sys, psycopg2
c = psycopg2.connect(host=sys.argv[1], user="postgres", dbname="hpod")
c.autocommit = True
c.cursor().execute("CREATE DATABASE optuna")' "$pgdir" ||
        fail "could not create database optuna"
    # shellcheck disable=SC2086 # the client counts are words
    run_tagged "" "$peer_python" "$root/tests/bench/bench_optuna.py" rdb \
        "postgresql+psycopg2://postgres@/optuna?host=$pgdir" "$seconds" \
        $peer_list || fail "bench_optuna.py rdb failed"
    echo
    echo "== peer: Optuna TPE ask latency (tests/bench/bench_optuna.py)"
    run_tagged "" "$peer_python" "$root/tests/bench/bench_optuna.py" tpe ||
        fail "bench_optuna.py tpe failed"
fi

grep -E 'ERROR|FATAL|PANIC' "$pgdir/postgres.log" 2>/dev/null | head -5 |
    sed 's/^/postgres: /'
sh "$root/scripts/pg.sh" stop "$pgdir"
unset HPOD_DATABASE_URL

# --- 4. numeric core --------------------------------------------------------
want core && for name in bench_sampler bench_gp bench_graph; do
    echo
    if [ -x "$B/tests/$name" ]; then
        echo "== core: $name (tests/bench/$name.c)"
        "$B/tests/$name" >"$pgdir/out.txt" || fail "$name exited with status $?"
        cat "$pgdir/out.txt"
        if [ "$name" = bench_gp ]; then
            # One GP suggestion from scratch (create, full refit, predict
            # on 767 candidates, EI): the cold figure.
            sed -n 's/^bench_gp n=\([0-9]*\) .* median_ms=\([0-9.]*\) .*/result core_gp_ei_\1_ms \2/p' \
                "$pgdir/out.txt" >>"$results"
            # The warm path: the study's kept model, refits as scheduled,
            # mean per suggestion over n-60..n (issue 14).
            sed -n 's/^bench_gp warm n=[0-9]*\.\.\([0-9]*\) .* mean_ms=\([0-9.]*\) .*/result core_gp_ei_warm_\1_ms \2/p' \
                "$pgdir/out.txt" >>"$results"
        fi
    else
        echo "== core: $name not built (tests/bench/$name.c absent); skipped"
    fi
done
rm -rf "$pgdir"
pgdir=""

# --- 5. cold start ----------------------------------------------------------
echo
if [ "${BENCH_COLD:-1}" = 0 ] || ! want cold; then
    echo "== cold make run: skipped (BENCH_COLD=0 or BENCH_ONLY)"
else
    echo "== cold make run (tests/bench/cold_run.sh)"
    sh "$root/tests/bench/cold_run.sh" "$root" || fail "cold run failed"
fi

# --- 5b. the development suite (tests/bench/suite, docs/suite.md) -----------
# The figures of the last `make bench-suite` (SUITE_OUT, default the suite
# directory beside BUILD); when there are none, a short suite (10 runs per
# table, 3 seeds per function) is run into it first. BENCH_ONLY: "suite".
echo
suite_out=${SUITE_OUT:-$B/../suite}
if ! want suite; then
    echo "== suite: skipped (BENCH_ONLY)"
elif ! "$peer_python" -c 'import optuna, cmaes' 2>/dev/null; then
    echo "== suite: $peer_python cannot import optuna and cmaes" \
        "(sh scripts/deps.sh bench installs them); skipped"
else
    if [ ! -f "$suite_out/suite.json" ]; then
        echo "== suite: no $suite_out/suite.json (make bench-suite); a short" \
            "suite first"
        SUITE_PYTHON=$peer_python sh "$root/tests/bench/suite/run.sh" "$B" \
            --out "$suite_out" --runs 10 --runs-big 10 --gen-runs 5 \
            --seeds 3 >/dev/null || fail "the short suite failed"
    fi
    "$peer_python" "$root/tests/bench/suite/render.py" --out "$suite_out" ||
        fail "tests/bench/suite/render.py failed"
fi

# --- 6. side by side ----------------------------------------------------------
echo
# shellcheck disable=SC2086 # the client counts are words
python3 "$root/tests/bench/summary.py" "$results" $clients_list ||
    fail "summary.py failed"

echo
if [ "$status" -eq 0 ]; then
    echo "bench: done"
else
    echo "bench: done, with errors (see above)"
fi
exit "$status"
