#!/usr/bin/env python3
"""preempt_demo - torch_digits.py on three worker processes, one killed
with SIGTERM and one with SIGKILL in the middle of a trial; checks that
both trials resume from their checkpoints on other workers and that
nothing is lost or done twice.

    clients/python/examples/preempt_demo.py --url URL
    clients/python/examples/preempt_demo.py --hpod build/release/hpod   # make example-torch

With --hpod it runs `hpod migrate` and its own `hpod serve` on a free port
against $HPOD_DATABASE_URL (tests/api/pg_tmp.sh makes a throwaway one),
and stops it at the end. Steps:

1. workers demo-0, demo-1, demo-2 run torch_digits.py on a new study
   (ASHA, budget --budget, --epochs epochs, lease --lease-seconds);
2. once demo-0 holds a running trial with a checkpoint reported and
   epochs left, demo-0 gets SIGTERM: its optimize hands the trial back
   (POST /v1/trials/{id}/preempt) and the process ends;
3. the same for demo-1 with SIGKILL: the trial's lease lapses, and the
   server hands it back because it has a checkpoint;
4. demo-3 starts (as a cluster requeues a job), and every worker runs
   until the study is done.

Then it checks: demo-0 ended by SIGTERM, demo-1 by SIGKILL; each of the
two trials was resumed by another worker, at the epoch of the last
checkpoint it had reported, from that checkpoint; the study issued
exactly --budget trials (the two count once), none failed or was lost;
no epoch of any trial was trained twice, except the one a kill
interrupted before its report. Prints what it saw and "preempt demo:
ok", or the problems and exits 1; exits 2 when the server lacks
define-by-run or preemption (its /openapi.json).
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
TRAINER = os.path.join(HERE, "torch_digits.py")
NEEDS = ["/v1/trials/{id}/params", "/v1/trials/{id}/preempt"]


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Demo:
    def __init__(self, args: argparse.Namespace, url: str) -> None:
        self.args = args
        self.url = url
        self.dir = tempfile.mkdtemp(prefix="preempt-demo-")
        self.ckpt = os.path.join(self.dir, "checkpoints")
        self.name = "torch preempt demo %d" % int(time.time() * 1000)
        self.procs: Dict[str, subprocess.Popen[bytes]] = {}
        self.study = 0
        self.problems: List[str] = []

    def start(self, worker: str) -> None:
        log = open(os.path.join(self.dir, worker + ".log"), "wb")
        env = dict(os.environ, HPOD_URL=self.url, PYTHONUNBUFFERED="1",
                   OPENBLAS_NUM_THREADS="1")
        self.procs[worker] = subprocess.Popen(
            [sys.executable, TRAINER, "--study", self.name, "--checkpoints", self.ckpt,
             "--budget", str(self.args.budget), "--epochs", str(self.args.epochs),
             "--lease-seconds", str(self.args.lease_seconds), "--worker", worker],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        log.close()

    def log(self, worker: str) -> str:
        with open(os.path.join(self.dir, worker + ".log")) as f:
            return f.read()

    def trials(self) -> List[Dict[str, Any]]:
        out: List[Dict[str, Any]] = []
        while True:
            page = get("%s/v1/studies/%d/trials?limit=500&offset=%d"
                       % (self.url, self.study, len(out)))
            out.extend(page["trials"])
            if not page["trials"] or len(out) >= page["total"]:
                return out

    def find_study(self, deadline: float) -> None:
        q = urllib.parse.urlencode({"name": self.name})
        while time.monotonic() < deadline:
            found = get("%s/v1/studies?%s" % (self.url, q))["studies"]
            if found:
                self.study = int(found[0]["id"])
                return
            time.sleep(0.2)
        raise RuntimeError("no study %r appeared" % self.name)

    def victim_trial(self, worker: str, deadline: float) -> Dict[str, Any]:
        """A running trial of worker with a checkpoint reported and epochs
        left, with the worker stopped (SIGSTOP) so that it stays so."""
        p = self.procs[worker]
        while time.monotonic() < deadline:
            if p.poll() is not None:
                raise RuntimeError("%s ended (%s) before a trial to kill:\n%s"
                                   % (worker, p.returncode, self.log(worker)[-2000:]))
            for t in self.trials():
                steps = [iv["step"] for iv in t["intermediate"]]
                if (t["worker"] == worker and t["state"] == "running" and steps
                        and max(steps) < self.args.epochs):
                    p.send_signal(signal.SIGSTOP)
                    t = get("%s/v1/trials/%d" % (self.url, t["id"]))
                    steps = [iv["step"] for iv in t["intermediate"]]
                    if t["state"] == "running" and steps and max(steps) < self.args.epochs:
                        return dict(t)
                    p.send_signal(signal.SIGCONT)
            time.sleep(0.05)
        raise RuntimeError("%s never held a trial in the middle of its epochs" % worker)

    def kill(self, worker: str, sig: int, deadline: float) -> Tuple[int, int]:
        """Kills worker with sig mid-trial; answers (trial id, its last
        reported epoch once the worker is gone)."""
        t = self.victim_trial(worker, deadline)
        p = self.procs[worker]
        p.send_signal(sig)
        p.send_signal(signal.SIGCONT)
        p.wait(60)
        t = get("%s/v1/trials/%d" % (self.url, t["id"]))
        last = max(iv["step"] for iv in t["intermediate"])
        print("%s: %s in trial %d after epoch %d (exit %s); the trial is %s"
              % (worker, signal.Signals(sig).name, t["id"], last, p.returncode, t["state"]),
              flush=True)
        if p.returncode != -sig:
            self.problems.append("%s exited %s, not by %s" % (worker, p.returncode,
                                                              signal.Signals(sig).name))
        return int(t["id"]), last

    def run(self) -> int:
        deadline = time.monotonic() + self.args.timeout
        for i in range(3):
            self.start("demo-%d" % i)
        self.find_study(deadline)
        print("study %d: %s; logs and checkpoints in %s" % (self.study, self.name, self.dir),
              flush=True)
        term = self.kill("demo-0", signal.SIGTERM, deadline)
        kill = self.kill("demo-1", signal.SIGKILL, deadline)
        self.start("demo-3")
        for w in ("demo-2", "demo-3"):
            try:
                self.procs[w].wait(max(deadline - time.monotonic(), 1))
            except subprocess.TimeoutExpired:
                self.procs[w].kill()
                self.problems.append("%s still running after %d s" % (w, self.args.timeout))
            if self.procs[w].returncode != 0:
                self.problems.append("%s exited %s:\n%s" % (w, self.procs[w].returncode,
                                                            self.log(w)[-2000:]))
        self.check(term, kill)
        return self.report()

    def check(self, term: Tuple[int, int], kill: Tuple[int, int]) -> None:
        logs = {w: self.log(w) for w in self.procs}
        if not re.search(r"trial %d handed back" % term[0], logs["demo-0"]):
            self.problems.append("demo-0 did not report the preemption of trial %d" % term[0])
        trained: Dict[Tuple[int, int], int] = {}
        for text in logs.values():
            for tid, ep in re.findall(r"^trial (\d+) epoch (\d+) ", text, re.M):
                key = (int(tid), int(ep))
                trained[key] = trained.get(key, 0) + 1
        for what, victim, (tid, last) in (("SIGTERM", "demo-0", term),
                                          ("SIGKILL", "demo-1", kill)):
            pat = r"^trial %d resumed at epoch (\d+) from (\S+)$" % tid
            want = os.path.join(self.ckpt, "trial-%d" % tid, "epoch-%d.pt" % last)
            by = [w for w, text in logs.items() if w != victim
                  for epoch, path in re.findall(pat, text, re.M)
                  if int(epoch) == last and path == want]
            if not by:
                self.problems.append("trial %d (%s after epoch %d) was not resumed from %s "
                                     "by another worker" % (tid, what, last, want))
                continue
            print("trial %d (%s after epoch %d): resumed by %s from %s"
                  % (tid, what, last, by[0], want), flush=True)
        cut = {(term[0], term[1] + 1), (kill[0], kill[1] + 1)}
        for key, n in sorted(trained.items()):
            if n > (2 if key in cut else 1):
                self.problems.append("trial %d epoch %d trained %d times" % (key[0], key[1], n))
        trials = self.trials()
        numbers = sorted(t["number"] for t in trials)
        states: Dict[str, int] = {}
        for t in trials:
            states[t["state"]] = states.get(t["state"], 0) + 1
        print("trials: %d, states %s" % (len(trials), states), flush=True)
        if numbers != list(range(self.args.budget)):
            self.problems.append("trial numbers %r, expected 0..%d once each"
                                 % (numbers, self.args.budget - 1))
        for t in trials:
            diverged = t["state"] == "failed" and str(t["reason"]).startswith("objective ")
            if t["state"] not in ("completed", "pruned", "paused") and not diverged:
                self.problems.append("trial %d ended %s (%s)" % (t["id"], t["state"],
                                                                 t["reason"]))
        st = get("%s/v1/studies/%d" % (self.url, self.study))
        if st["state"] != "done":
            self.problems.append("the study is %s, not done" % st["state"])

    def report(self) -> int:
        if self.problems:
            for p in self.problems:
                print("problem: %s" % p, flush=True)
            print("preempt demo: %d problems (logs in %s)" % (len(self.problems), self.dir))
            return 1
        print("preempt demo: ok", flush=True)
        shutil.rmtree(self.dir, ignore_errors=True)
        return 0

    def stop(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.kill()
                p.wait()


def serve(hpod: str, logdir: str) -> Tuple[subprocess.Popen[bytes], str]:
    """hpod migrate, then hpod serve on a free port; answers it and its URL."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    subprocess.run([hpod, "migrate"], env=env, check=True, stdout=subprocess.DEVNULL)
    port = free_port()
    env["HPOD_PORT"] = str(port)
    log = open(os.path.join(logdir, "serve.log"), "wb")
    p = subprocess.Popen([hpod, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL)
    log.close()
    url = "http://127.0.0.1:%d" % port
    for _ in range(300):
        try:
            get(url + "/healthz")
            return p, url
        except OSError:
            if p.poll() is not None:
                raise RuntimeError("hpod serve exited %s" % p.returncode)
            time.sleep(0.1)
    p.kill()
    raise RuntimeError("hpod serve did not answer /healthz")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a running server")
    where.add_argument("--hpod", help="start this hpod binary (needs HPOD_DATABASE_URL)")
    ap.add_argument("--budget", type=int, default=24)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lease-seconds", type=int, default=6,
                    help="the study's lease: how soon a SIGKILLed worker's trial is handed back")
    ap.add_argument("--timeout", type=float, default=900, help="seconds for the whole run")
    args = ap.parse_args()
    probe = subprocess.run([sys.executable, "-c", "import torch, sklearn"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if probe.returncode != 0:
        print("preempt demo: %s cannot import torch and sklearn (Debian: python3-torch "
              "python3-sklearn; scripts/deps.sh bench installs them)" % sys.executable)
        return 2
    server: Optional[subprocess.Popen[bytes]] = None
    logdir = tempfile.mkdtemp(prefix="preempt-demo-serve-")
    try:
        if args.hpod:
            server, url = serve(args.hpod, logdir)
        else:
            url = args.url.rstrip("/")
        paths = get(url + "/openapi.json")["paths"]
        missing = [p for p in NEEDS if p not in paths]
        if missing:
            print("preempt demo: the server at %s lacks %s (define-by-run and preemption)"
                  % (url, ", ".join(missing)))
            return 2
        demo = Demo(args, url)
        try:
            return demo.run()
        finally:
            demo.stop()
    finally:
        if server is not None:
            server.terminate()
            server.wait(30)
        shutil.rmtree(logdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
