#!/usr/bin/env python3
"""tests/bench/cycle_cost.py - what one suggest+report cycle costs the
database: statements, commits, and the CPU of PostgreSQL and of hpod.

    python3 tests/bench/cycle_cost.py BUILD [BUILD_B] [--clients N]
        [--seconds S] [--rounds R] [--bouncer] [--top K]

BUILD is a release build root holding hpod and tests/bench_http (and
BUILD_B a second one, e.g. the base of a change: the two then run in turn,
A B A B ..., R rounds, on one throwaway cluster migrated by A). For each
run: a fresh cluster with pg_stat_statements (scripts/pg.sh, PG_OPTS), one
`hpod serve` (through PgBouncer in transaction mode with --bouncer), and
bench_http with N clients for S seconds on its default open study (random
sampler: the cost of the service, not of a model). Over the measured
window it reads
  - statements per cycle (pg_stat_statements calls, BEGIN/COMMIT
    included) and commits per cycle (pg_stat_database.xact_commit);
  - CPU per cycle: PostgreSQL's processes and hpod's, from /proc (utime +
    stime), in microseconds: the figure that moves least with the load of
    other work on the machine;
  - cycles/s (bench_http), which does move with it;
and the statements run most often, per cycle (--top). Prints one line per
run and the median per build. Not a test: nothing is asserted.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TICK = os.sysconf("SC_CLK_TCK")


def sh(*args, env=None, check=True):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env=env, check=check).stdout.decode()


def psql(url, sql):
    return sh("psql", url, "-X", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql)


def cpu_of(pids):
    """{pid: utime + stime ticks} of the live ones."""
    out = {}
    for p in pids:
        try:
            with open("/proc/%d/stat" % p) as f:
                st = f.read()
            fields = st[st.rindex(")") + 2:].split()
            out[p] = int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return out


def pg_pids(sockdir):
    with open(os.path.join(sockdir, "data", "postmaster.pid")) as f:
        pm = int(f.readline())
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    st = f.read()
            except OSError:
                continue
            if int(st[st.rindex(")") + 2:].split()[1]) == pm:
                kids.append(int(d))
    return [pm] + kids


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def one_run(build, pgdir, url, args):
    """One hpod serve on url, bench_http; returns the figures."""
    port = free_port()
    env = dict(os.environ, HPOD_PORT=str(port), HPOD_DATABASE_URL=url,
               HPOD_MIGRATE_DATABASE_URL=args.direct_url, OPENBLAS_NUM_THREADS="1",
               HPOD_LOG_LEVEL="warn")
    log = open(os.path.join(pgdir, "hpod-%d.log" % port), "wb")
    srv = subprocess.Popen([os.path.join(build, "hpod"), "serve"], env=env, cwd=ROOT,
                           stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        for _ in range(300):
            if subprocess.run(["curl", "-fsS", "-o", "/dev/null",
                               "http://127.0.0.1:%d/healthz" % port],
                              stderr=subprocess.DEVNULL).returncode == 0:
                break
            time.sleep(0.1)
        # A first short run warms the pool (connections opened), then the
        # measured one starts from zeroed statistics.
        sh(os.path.join(build, "tests", "bench_http"), "http://127.0.0.1:%d" % port,
           str(args.clients), "1")
        psql(args.direct_url, "SELECT pg_stat_statements_reset()")
        commits0 = int(psql(args.direct_url, "SELECT xact_commit FROM pg_stat_database "
                                             "WHERE datname = 'hpod'"))
        pids = pg_pids(pgdir)
        c0, h0 = cpu_of(pids), cpu_of([srv.pid])
        out = sh(os.path.join(build, "tests", "bench_http"), "http://127.0.0.1:%d" % port,
                 str(args.clients), str(args.seconds))
        c1, h1 = cpu_of(pg_pids(pgdir)), cpu_of([srv.pid])
        commits = int(psql(args.direct_url, "SELECT xact_commit FROM pg_stat_database "
                                            "WHERE datname = 'hpod'")) - commits0
        rows = psql(args.direct_url, "SELECT calls, left(regexp_replace(query, '\\s+', ' ', "
                                     "'g'), 110) FROM pg_stat_statements s JOIN pg_database d "
                                     "ON d.oid = s.dbid WHERE d.datname = 'hpod' "
                                     "ORDER BY calls DESC")
    finally:
        srv.terminate()
        srv.wait(timeout=60)
        log.close()
    res = dict(re.findall(r"^result (\S+) (\S+)$", out, re.M))
    rate = float(res["cycles_per_s"])
    cycles = rate * args.seconds
    stmts = [(int(n), q) for n, q in (ln.split("\t", 1) for ln in rows.splitlines() if ln)]
    pg_ticks = sum(c1.get(p, 0) - c0.get(p, 0) for p in c1)
    hpod_ticks = sum(h1.get(p, 0) - h0.get(p, 0) for p in h1)
    return {"rate": rate, "cycles": cycles,
            "stmts": sum(n for n, _ in stmts) / cycles,
            "commits": commits / cycles,
            "pg_us": pg_ticks / TICK * 1e6 / cycles,
            "hpod_us": hpod_ticks / TICK * 1e6 / cycles,
            "top": [(n / cycles, q) for n, q in stmts[:args.top]],
            "p99": (float(res.get("suggest_p99_ms", "nan")),
                    float(res.get("report_p99_ms", "nan")))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("build_b", nargs="?")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bouncer", action="store_true")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    builds = [os.path.abspath(b) for b in [args.build, args.build_b] if b]
    parent = os.path.join(builds[0], "cyclecost")
    os.makedirs(parent, exist_ok=True)
    pgdir = tempfile.mkdtemp(dir=parent)
    bouncer = os.path.join(pgdir, "pgbouncer")
    env = dict(os.environ, PG_OPTS="-c shared_preload_libraries=pg_stat_statements")
    try:
        sh("sh", os.path.join(ROOT, "scripts", "pg.sh"), "init", pgdir)
        sh("sh", os.path.join(ROOT, "scripts", "pg.sh"), "start", pgdir, env=env)
        args.direct_url = sh("sh", os.path.join(ROOT, "scripts", "pg.sh"), "url", pgdir).strip()
        psql(args.direct_url, "CREATE EXTENSION pg_stat_statements")
        sh(os.path.join(builds[0], "hpod"), "migrate",
           env=dict(os.environ, HPOD_DATABASE_URL=args.direct_url,
                    HPOD_MIGRATIONS=os.path.join(ROOT, "migrations")))
        url = args.direct_url
        if args.bouncer:
            sh("sh", os.path.join(ROOT, "scripts", "pgbouncer.sh"), "start", bouncer, pgdir,
               str(free_port()), "20")
            url = sh("sh", os.path.join(ROOT, "scripts", "pgbouncer.sh"), "url", bouncer).strip()
        print("cycle cost: %d clients, %.0f s per run, %d rounds, one hpod serve%s; "
              "load %s" % (args.clients, args.seconds, args.rounds,
                           " through PgBouncer (transaction mode)" if args.bouncer else "",
                           open("/proc/loadavg").read().split()[0]))
        got = {b: [] for b in builds}
        for r in range(args.rounds):
            for b in builds:
                f = one_run(b, pgdir, url, args)
                got[b].append(f)
                print("  %s round %d: %.0f cycles/s, %.2f statements, %.2f commits, "
                      "PostgreSQL %.0f us, hpod %.0f us per cycle; p99 suggest %.1f ms, "
                      "report %.1f ms" % (b, r + 1, f["rate"], f["stmts"], f["commits"],
                                          f["pg_us"], f["hpod_us"], f["p99"][0], f["p99"][1]),
                      flush=True)
        for b in builds:
            med = {k: statistics.median(f[k] for f in got[b])
                   for k in ("rate", "stmts", "commits", "pg_us", "hpod_us")}
            print("median %s: %.0f cycles/s, %.2f statements, %.2f commits, PostgreSQL %.0f us, "
                  "hpod %.0f us per cycle" % (b, med["rate"], med["stmts"], med["commits"],
                                              med["pg_us"], med["hpod_us"]))
            print("  statements per cycle (last run):")
            for n, q in got[b][-1]["top"]:
                print("    %5.2f  %s" % (n, q))
    finally:
        if args.bouncer:
            sh("sh", os.path.join(ROOT, "scripts", "pgbouncer.sh"), "stop", bouncer, check=False)
        sh("sh", os.path.join(ROOT, "scripts", "pg.sh"), "stop", pgdir, check=False)
        shutil.rmtree(pgdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
