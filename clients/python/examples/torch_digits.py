#!/usr/bin/env python3
"""torch_digits - a real trainer: a two-layer PyTorch network on
scikit-learn's bundled digits (8x8 images, 10 classes), tuned by hpod
with ASHA, checkpointed every epoch and resumed from its checkpoints.

Usage (with a server running, e.g. `make run`; HPOD_URL and HPOD_TOKEN
are read from the environment):

    clients/python/examples/torch_digits.py --study NAME --checkpoints DIR
        [--budget 16] [--epochs 8] [--workers 1] [--worker NAME]
        [--lease-seconds 3600] [--lab LAB]

Run it as many times as you have machines (or GPUs): every process loads
the same study (load_if_exists) and asks for trials until the study is
done. The objective is written the way Optuna users write theirs: the
search space is defined by the suggest_* calls inside it (define-by-run),
with a conditional parameter (momentum exists only for SGD) and numeric
choices (the batch size).

Each epoch saves a checkpoint under DIR/trial-<id>/epoch-<k>.pt (DIR must
be shared by the machines: a network file system, or use an s3:// URI and
your own save/load) and reports the validation loss with the checkpoint's
path. A trial resumes from its checkpoint when

- ASHA promotes a paused trial (trial.resume_from_step), or
- its worker was preempted: optimize hands the trial back on SIGTERM
  (what SLURM and spot instances send), and the server hands a trial whose
  worker vanished (SIGKILL, a lost machine) back when its lease lapses;
  the next worker gets it with trial.checkpoint.

Prints one line per event ("trial 17 epoch 3 loss 0.412", "trial 17
resumed at epoch 3 from DIR/trial-17/epoch-3.pt"), then the summary and
the best trial. Needs python3-torch and python3-sklearn (Debian), and the
hpod package (pip install ./clients/python, or run from the source tree).
"""

import argparse
import os
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

try:
    import hpod
except ImportError:  # not installed: the package beside this directory
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "src"))
    import hpod

import torch  # noqa: E402 - after hpod: its ImportError says what to install
from sklearn.datasets import load_digits  # noqa: E402
from torch import nn  # noqa: E402

ALGORITHM = {"name": "asha", "r": 2, "u": 2, "R": 8, "p": 2, "seed": 1}

Data = Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]


def load_data() -> Data:
    """The digits, scaled to [0, 1], split 80/20 with a fixed seed."""
    x, y = load_digits(return_X_y=True)
    xs = torch.tensor(x, dtype=torch.float32) / 16.0
    ys = torch.tensor(y, dtype=torch.long)
    perm = torch.randperm(len(ys), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(ys))
    tr, va = perm[:cut], perm[cut:]
    return xs[tr], ys[tr], xs[va], ys[va]


def log(msg: str) -> None:
    print(msg, flush=True)


class Trainer:
    """The objective: trains one configuration epoch by epoch."""

    def __init__(self, data: Data, checkpoints: str, epochs: int) -> None:
        self.data = data
        self.dir = checkpoints
        self.epochs = epochs

    def path(self, trial: "hpod.Trial", epoch: int) -> str:
        return os.path.join(self.dir, "trial-%d" % trial.id, "epoch-%d.pt" % epoch)

    def __call__(self, trial: "hpod.Trial") -> float:
        lr = trial.suggest_float("lr", 1e-3, 0.3, log=True)
        hidden = trial.suggest_int("hidden", 16, 128, log=True)
        optimizer = trial.suggest_categorical("optimizer", ["sgd", "adam"])
        momentum = trial.suggest_float("momentum", 0.0, 0.95) if optimizer == "sgd" else 0.0
        batch_size = int(trial.suggest_categorical("batch_size", [16, 32, 64]))  # type: ignore

        torch.manual_seed(trial.id)
        model = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))
        opt: torch.optim.Optimizer
        if optimizer == "sgd":
            opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
        else:
            opt = torch.optim.Adam(model.parameters(), lr=lr)
        start = self.resume(trial, model, opt)

        xtr, ytr, xva, yva = self.data
        loss_fn = nn.CrossEntropyLoss()
        loss = float("nan")
        for epoch in range(start + 1, self.epochs + 1):
            model.train()
            # The shuffle depends on (trial, epoch) only: a resumed trial
            # trains exactly as an uninterrupted one would.
            g = torch.Generator().manual_seed(trial.id * 1000 + epoch)
            order = torch.randperm(len(ytr), generator=g)
            for i in range(0, len(order), batch_size):
                idx = order[i:i + batch_size]
                opt.zero_grad()
                loss_fn(model(xtr[idx]), ytr[idx]).backward()
                opt.step()
            model.eval()
            with torch.no_grad():
                loss = float(loss_fn(model(xva), yva))
            path = self.save(trial, epoch, model, opt)
            log("trial %d epoch %d loss %.4f" % (trial.id, epoch, loss))
            # A NaN loss (a diverging lr) fails the trial; "stop" from
            # ASHA raises hpod.TrialPruned.
            trial.report(loss, epoch, checkpoint=path)
        return loss

    def save(self, trial: "hpod.Trial", epoch: int, model: nn.Module,
             opt: torch.optim.Optimizer) -> str:
        """Writes the checkpoint whole or not at all (rename)."""
        path = self.path(trial, epoch)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = "%s.%d.tmp" % (path, os.getpid())
        torch.save({"epoch": epoch, "model": model.state_dict(),
                    "optimizer": opt.state_dict()}, tmp)
        os.replace(tmp, path)
        return path

    def resume(self, trial: "hpod.Trial", model: nn.Module,
               opt: torch.optim.Optimizer) -> int:
        """Loads the trial's checkpoint, if it has one, and answers the
        epoch it holds (0: a new trial). The server says which: the
        checkpoint it was last reported with, or (a promotion) the step to
        resume from, whose checkpoint is found by its path."""
        path: Optional[str] = trial.checkpoint
        if path is None and trial.resume_from_step:
            path = self.path(trial, trial.resume_from_step)
        if path is None:
            return 0
        state: Dict[str, Any] = torch.load(path)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        epoch = int(state["epoch"])
        log("trial %d resumed at epoch %d from %s" % (trial.id, epoch, path))
        return epoch


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default=None,
                    help="the server (default $HPOD_URL, else http://127.0.0.1:8080)")
    ap.add_argument("--study", required=True, help="the study's name (created if absent)")
    ap.add_argument("--lab", default=None, help="the study's lab (lab servers)")
    ap.add_argument("--checkpoints", required=True,
                    help="directory of the checkpoints, shared by every worker")
    ap.add_argument("--budget", type=int, default=16, help="configurations to try")
    ap.add_argument("--epochs", type=int, default=ALGORITHM["R"],
                    help="epochs of a trial trained to the end (ASHA's R)")
    ap.add_argument("--workers", type=int, default=1, help="worker threads")
    ap.add_argument("--worker", default=None, help="worker name (default <host>-<pid>)")
    ap.add_argument("--lease-seconds", type=int, default=3600,
                    help="how long a silent worker keeps its trial")
    ap.add_argument("--n-trials", type=int, default=None,
                    help="stop after this many trials (default: until the study is done)")
    args = ap.parse_args(argv)

    torch.set_num_threads(1)  # one core per worker process
    study = hpod.create_study(
        name=args.study, direction="minimize", metric_names=["val_loss"],
        algorithm=dict(ALGORITHM, R=args.epochs), budget=args.budget,
        lease_seconds=args.lease_seconds, lab=args.lab, load_if_exists=True, url=args.url)
    log("study %d: %s" % (study.id, study.name))
    t0 = time.monotonic()
    summary = study.optimize(Trainer(load_data(), args.checkpoints, args.epochs),
                             n_trials=args.n_trials, n_workers=args.workers,
                             worker=args.worker)
    log("summary: %s in %.1f s" % (summary, time.monotonic() - t0))
    try:
        best = study.best_trial
    except ValueError:
        log("no completed trial yet")
        return 0
    log("best trial %d: val_loss %.4f with %s" % (best.id, best.metrics["val_loss"],
                                                  best.params))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except hpod.HpodError as e:
        print("torch_digits: %s" % e, file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
