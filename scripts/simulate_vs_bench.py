#!/usr/bin/env python3
"""scripts/simulate_vs_bench.py - issue #17's timing: 100-repeat
simulations over HTTP (POST /v1/benchmarks/nmthpo/<t>/simulate on a
throwaway server) beside `hpod-bench` (tools/) for the same cell, every
Table 3 method on sw-en and so-en, and whether the two gave the same
sequences. hpod-bench is looked for next to hpod.

usage (release build, throwaway cluster):
    make && sh tests/api/pg_tmp.sh build/release \
        python3 scripts/simulate_vs_bench.py build/release/hpod ../shared/benchmarks
"""
import json, os, socket, subprocess, sys, tempfile, time, urllib.request
hpod, bdir = sys.argv[1], sys.argv[2]
hpod_bench = os.path.join(os.path.dirname(os.path.abspath(hpod)), "hpod-bench")
tmp = tempfile.mkdtemp(prefix="simtime.")
METHODS = [("rs", {"name": "random"}), ("greedy", {"name": "greedy"}),
           ("bo_ei_m", {"name": "gp", "kernel": "matern52", "acquisition": "ei"}),
           ("bo_ei_r", {"name": "gp", "kernel": "rbf", "acquisition": "ei"}),
           ("gb_ei_m", {"name": "graph", "kernel": "matern52", "acquisition": "ei"}),
           ("gb_ei_r", {"name": "graph", "kernel": "rbf", "acquisition": "ei"}),
           ("gb_eif_m", {"name": "graph", "kernel": "matern52", "acquisition": "eif"}),
           ("gb_eif_r", {"name": "graph", "kernel": "rbf", "acquisition": "eif"})]
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
# The synchronous answer for every cell (a simulate waits 30 s by default).
env = dict(os.environ, HPOD_PORT=str(port), HPOD_BENCHMARKS=bdir, HPOD_LOG_LEVEL="warn",
           HPOD_SIM_SYNC_WAIT_MS="600000")
subprocess.run([hpod, "migrate"], env=env, check=True, stdout=subprocess.DEVNULL)
srv = subprocess.Popen([hpod, "serve"], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
try:
    for _ in range(100):
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/healthz" % port, timeout=1); break
        except Exception:
            time.sleep(0.1)
    rows = []
    for ds in ["sw-en", "so-en"]:
        for key, algo in METHODS:
            body = json.dumps({"algorithm": algo, "objective": {"name": "bleu", "goal": "maximize"},
                               "init": 3, "seed": 0, "repeats": 100}).encode()
            t0 = time.monotonic()
            req = urllib.request.Request("http://127.0.0.1:%d/v1/benchmarks/nmthpo/%s/simulate"
                                         % (port, ds), data=body,
                                         headers={"Content-Type": "application/json"})
            ans = json.loads(urllib.request.urlopen(req, timeout=600).read())
            http_wall = time.monotonic() - t0
            seqf = os.path.join(tmp, "%s-%s.jsonl" % (ds, key))
            t0 = time.monotonic()
            r = subprocess.run([hpod_bench, "--tables", ds, "--methods", key, "--repeats", "100",
                                "--seed", "0", "--out", "/dev/null", "--dir", bdir,
                                "--sequences", seqf], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, check=True)
            cli_wall = time.monotonic() - t0
            cell = [l for l in r.stderr.decode().splitlines() if " runs in " in l][0]
            cli_cell = float(cell.split(" runs in ")[1].split(" s")[0])
            with open(seqf) as f:
                cli_seqs = json.loads(f.readline())["sequences"]
            same = cli_seqs == ans["sequences"]
            mean_len = sum(map(len, ans["sequences"])) / 100.0
            rows.append((ds, key, http_wall, ans["seconds"], cli_cell, cli_wall, mean_len,
                         same, ans["computed_metrics"], ans["metrics"]["ftb"]["mean"]))
            print("%s %-8s HTTP %6.2f s (runs %6.2f s)  CLI cell %6.2f s (process %6.2f s)  "
                  "rows/run %5.1f  same sequences %s  ftb %.1f" % (ds, key, http_wall,
                  ans["seconds"], cli_cell, cli_wall, mean_len, same,
                  ans["metrics"]["ftb"]["mean"]), flush=True)
    print("\n| table | method | HTTP wall (s) | HTTP runs (s) | CLI cell (s) | CLI process (s) | rows/run | same sequences |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.1f | %s |" % (r[0], r[1], r[2], r[3], r[4], r[5], r[6], "yes" if r[7] else "NO"))
finally:
    srv.terminate(); srv.wait()
    subprocess.run(["rm", "-rf", tmp])
