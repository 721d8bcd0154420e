"""tests/api/test_cli.py - the command line over HTTP (cli/studycmd.c,
cli/watch.c, cli/yamljson.c): a study created from a YAML file and driven
to its end (list, show, trials and their CSV, best, pause, resume,
finish), each answer against the API's; YAML and JSON syntax errors and
the server's errors reported at the file's line and column, with nothing
created; HPOD_URL and HPOD_TOKEN; `hpod watch` in a pseudo-terminal
(tmux), its screen read while the study runs and after it is done.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from harness import Fail, Skip, call, check, expect, test
from client import report, suggest, uname


def hpod(c, *args, port=None, token=None, url=None, stdin=None):
    """Runs the hpod command line against the suite's server (or url);
    returns (exit status, stdout, stderr)."""
    env = dict(os.environ, HPOD_URL=url or "http://127.0.0.1:%d" % (port or c.port))
    env.pop("HPOD_TOKEN", None)
    if token:
        env["HPOD_TOKEN"] = token
    r = subprocess.run([c.args.hpod] + list(args), input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120, env=env)
    return r.returncode, r.stdout.decode("utf-8"), r.stderr.decode("utf-8")


def write(c, name, text):
    d = os.path.join(c.logdir, "cli-files")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


STUDY_YAML = """\
# a study file as a user writes it: comments, block and flow style,
# scientific notation, an anchor
name: {name}
space:
  - name: lr
    type: float
    low: 1e-4          # plain scalars are numbers
    high: 0.1
    log: true
  - {{name: layers, type: int, low: 1, high: 6}}
  - name: opt
    type: categorical
    choices: [adam, sgd, "true"]   # a quoted true stays a string
objectives:
  - &bleu {{name: bleu, goal: maximize}}
algorithm:
  name: random
  seed: 7
budget: 6
metadata:
  owner: cli test
  tags: [a, b]
"""

AS_JSON = {"space": [
    {"name": "lr", "type": "float", "low": 1e-4, "high": 0.1, "log": True},
    {"name": "layers", "type": "int", "low": 1, "high": 6},
    {"name": "opt", "type": "categorical", "choices": ["adam", "sgd", "true"]}],
    "objectives": [{"name": "bleu", "goal": "maximize"}],
    "algorithm": {"name": "random", "seed": 7}, "budget": 6,
    "metadata": {"owner": "cli test", "tags": ["a", "b"]}}


def bleu(params):
    return round(20.0 + params["layers"] - 3.0 * abs(params["lr"] - 0.01), 6)


@test("cli: a study from a YAML file, driven to its end: list, show, trials, CSV, best, pause, resume, finish")
def t_cli_yaml(c):
    name = uname("cli yaml")
    path = write(c, "study.yaml", STUDY_YAML.format(name=name))
    rc, out, err = hpod(c, "study", "create", "-f", path)
    check(rc == 0, "create exited %d: %s" % (rc, err))
    m = re.match(r"^study (\d+) created: (.*) \(lab default, random\)$", out.strip())
    check(m and m.group(2) == name, "create said %r" % out)
    sid = int(m.group(1))
    s = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    # The file says what the JSON body says: the same definition.
    twin = expect(call(c.port, "POST", "/v1/studies", dict(AS_JSON, name=name + " twin")), 201)
    for k in ("space", "objectives", "algorithm", "budget", "metadata"):
        check(s[k] == twin[k], "%s from YAML %r, from JSON %r" % (k, s[k], twin[k]))
    # The same file again, with load_if_exists: the same study.
    again = write(c, "again.yaml", STUDY_YAML.format(name=name) + "load_if_exists: true\n")
    rc, out, err = hpod(c, "study", "create", "-f", again)
    check(rc == 0 and out.startswith("study %d exists:" % sid), "again: %d %r %r" % (rc, out, err))
    rc, out, _ = hpod(c, "study", "create", "-f", path, "--json")
    check(rc == 1, "a second create without load_if_exists exited %d" % rc)
    # list and show
    rc, out, err = hpod(c, "study", "list", "--name", name)
    rows = out.strip().splitlines()
    check(rc == 0 and len(rows) == 2 and rows[0].split()[:3] == ["ID", "NAME", "LAB"]
          and rows[1].split()[0] == str(sid), "list: %r %r" % (out, err))
    rc, out, _ = hpod(c, "study", "list", "--name", name, "--json")
    check(rc == 0 and [x["id"] for x in json.loads(out)] == [sid], "list --json %r" % out)
    rc, out, _ = hpod(c, "study", "show", str(sid))
    check(rc == 0 and name in out and re.search(r"^space\s+lr\s+float\s+\[0\.0001, 0\.1\] log$", out, re.M)
          and "best        no completed trial yet" in out, "show: %r" % out)
    rc, out, _ = hpod(c, "study", "show", str(sid), "--json")
    check(rc == 0 and json.loads(out)["space"] == s["space"], "show --json")
    # The trainer runs the budget; pause and resume on the way.
    for i in range(6):
        if i == 2:
            rc, out, _ = hpod(c, "study", "pause", str(sid))
            check(rc == 0 and out.strip() == "study %d: paused" % sid, "pause %r" % out)
            check(suggest(c, sid, "w-paused")["trials"] == [], "a paused study issued a trial")
            rc, out, _ = hpod(c, "study", "resume", str(sid))
            check(rc == 0 and out.strip() == "study %d: active" % sid, "resume %r" % out)
        t = suggest(c, sid, "w%d" % i)["trials"][0]
        report(c, t["id"], {"bleu": bleu(t["params"])})
    trials = expect(call(c.port, "GET", "/v1/studies/%d/trials" % sid), 200)["trials"]
    rc, out, _ = hpod(c, "trials", str(sid))
    lines = out.strip().splitlines()
    check(rc == 0 and len(lines) == 7 and lines[0].split()[:3] == ["NUMBER", "ID", "STATE"],
          "trials: %r" % out)
    for t, line in zip(trials, lines[1:]):
        f = line.split(None, 3)
        check(f[:3] == [str(t["number"]), str(t["id"]), t["state"]], "row %r for %r" % (line, t))
        check(json.dumps(t["values"], separators=(",", ":")) in line, "values of %r" % line)
    rc, out, _ = hpod(c, "trials", str(sid), "--csv")
    want = call(c.port, "GET", "/v1/studies/%d/trials" % sid, headers={"Accept": "text/csv"})
    check(rc == 0 and out.encode() == want.raw, "CSV differs from the API's:\n%s" % out[:300])
    best = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)["trial"]
    rc, out, _ = hpod(c, "best", str(sid))
    check(rc == 0 and out.startswith("trial #%d (id %d)" % (best["number"], best["id"])),
          "best %r, the API's %r" % (out, best))
    rc, out, _ = hpod(c, "best", str(sid), "--json")
    check(rc == 0 and json.loads(out)["trial"]["id"] == best["id"], "best --json")
    rc, out, _ = hpod(c, "study", "finish", str(sid))
    check(rc == 0 and out.strip() == "study %d: finished" % sid, "finish %r" % out)
    check(expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)["state"] == "finished",
          "the study is not finished")


def refused(c, fname, text, line, column, field=None, msg=None):
    """The file is refused with an error at line:column; nothing made."""
    name = uname("cli bad")
    path = write(c, fname, text.replace("NAME", name))
    rc, out, err = hpod(c, "study", "create", "-f", path)
    check(rc == 1 and out == "", "%s: exit %d, stdout %r" % (fname, rc, out))
    first = err.strip().splitlines()[0] if err.strip() else ""
    where = "%s:%d:%d: " % (path, line, column)
    check(first.startswith(where), "%s: expected %s..., got %r" % (fname, where, err))
    if field:
        check(first.endswith("(field %s)" % field), "%s: field in %r" % (fname, first))
    if msg:
        check(msg in first, "%s: %r lacks %r" % (fname, first, msg))
    listed = expect(call(c.port, "GET", "/v1/studies?name=" + name.replace(" ", "%20")), 200)
    check(listed["total"] == 0, "%s: a study was created" % fname)


@test("cli: YAML and JSON syntax errors, and the server's errors at the field's line and column; nothing created")
def t_cli_errors(c):
    base = "name: NAME\nobjectives: [{name: bleu, goal: maximize}]\n"
    # YAML syntax (libyaml's position), a key given twice, a second document.
    refused(c, "syntax.yaml", base + "space: [{name: x, type: float, low: 0, high: 1}\n", 4, 1)
    refused(c, "twice.yaml", base + "space: []\nname: again\n", 4, 1, msg="given twice")
    refused(c, "two.yaml", base + "space: []\n---\nname: x\n", 4, 1, msg="one document")
    refused(c, "nan.yaml", base + "budget: .nan\nspace: []\n", 3, 9, msg="NaN")
    # The server's errors, mapped back to the file.
    refused(c, "low.yaml", base + "space:\n  - name: lr\n    type: float\n"
            "    low: 0.5\n    high: 0.1\n", 6, 5, field="space[0].low")
    refused(c, "unknown.yaml", base + "space:\n  - {name: lr, type: float, low: 0, high: 1}\n"
            "budgett: 5\n", 5, 1, field="budgett")
    refused(c, "goal.yaml", "name: NAME\nspace:\n  - {name: lr, type: float, low: 0, high: 1}\n"
            "objectives:\n  - name: bleu\n    goal: maximise\n", 6, 5, field="objectives[0].goal")
    # JSON: jansson's syntax errors, the server's errors at the key.
    refused(c, "syntax.json", '{"name": "NAME",\n "space": [}\n', 2, 12)
    refused(c, "low.json", '{"name": "NAME",\n "objectives": [{"name": "bleu", "goal": "maximize"}],\n'
            ' "space": [{"name": "lr", "type": "float",\n             "low": 2, "high": 1}]}\n',
            4, 14, field="space[0].low")
    # Files that cannot be read, bad usage.
    rc, _, err = hpod(c, "study", "create", "-f", "/nonexistent/x.yaml")
    check(rc == 1 and "/nonexistent/x.yaml: No such file" in err, "missing file: %d %r" % (rc, err))
    for args in (["study"], ["study", "create"], ["study", "show", "x"], ["trials"],
                 ["best", "1", "2"], ["watch"], ["watch", "1", "--interval", "0"]):
        rc, _, err = hpod(c, *args)
        check(rc == 2 and "usage" in err, "%r exited %d: %r" % (args, rc, err))
    rc, _, err = hpod(c, "study", "list", url="https://127.0.0.1:%d" % c.port)
    check(rc == 2 and "http://" in err, "https URL: %d %r" % (rc, err))
    rc, _, err = hpod(c, "study", "show", "999999999")
    check(rc == 1 and "404 not_found" in err, "absent study: %d %r" % (rc, err))
    rc, out, err = hpod(c, "study", "create", "-f", "-",
                        stdin=("name: %s\nspace: [{name: x, type: int, low: 1, high: 2}]\n"
                               "objectives: [{name: y, goal: minimize}]\n"
                               % uname("cli stdin")).encode())
    check(rc == 0 and re.match(r"^study \d+ created", out), "stdin: %d %r %r" % (rc, out, err))


@test("cli: HPOD_TOKEN on a lab server: none is 401, a read token lists and cannot create")
def t_cli_token(c):
    L = c.fixture("lab")
    rc, _, err = hpod(c, "study", "list", port=L.port)
    check(rc == 1 and "401 unauthenticated" in err, "no token: %d %r" % (rc, err))
    rc, out, err = hpod(c, "study", "list", "--json", port=L.port, token=L.tok[("read", "mt")])
    check(rc == 0 and json.loads(out) and all(s["lab"] == "mt" for s in json.loads(out)),
          "read token: %d %r" % (rc, err))
    path = write(c, "lab.yaml", "name: %s\nspace: [{name: x, type: int, low: 1, high: 2}]\n"
                 "objectives: [{name: y, goal: minimize}]\n" % uname("cli lab"))
    rc, _, err = hpod(c, "study", "create", "-f", path, port=L.port, token=L.tok[("read", "mt")])
    check(rc == 1 and "403 permission_denied" in err, "read token create: %d %r" % (rc, err))
    rc, out, err = hpod(c, "study", "create", "-f", path, port=L.port,
                        token=L.tok[("write", "mt")])
    check(rc == 0 and "(lab mt," in out, "write token create: %d %r %r" % (rc, out, err))


def tmux(*args, check_rc=True):
    r = subprocess.run(["tmux"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    if check_rc:
        check(r.returncode == 0, "tmux %s: %s" % (" ".join(args), r.stderr.decode()))
    return r.stdout.decode("utf-8", "replace")


def screen_until(sock, pred, what, timeout=30):
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = tmux("-S", sock, "capture-pane", "-p", "-t", "watch")
        if pred(text):
            return text
        time.sleep(0.1)
    raise Fail("%s: the screen after %d s:\n%s" % (what, timeout, text))


def count_of(text, state):
    m = re.search(r"^\s+%s\s+(\d+)\b" % state, text, re.M)
    return int(m.group(1)) if m else None


@test("cli: hpod watch in a pseudo-terminal (tmux): trials by state, best so far, last reports, until done")
def t_cli_watch(c):
    if not shutil.which("tmux"):
        raise Skip("tmux is not installed (scripts/deps.sh test installs it)")
    body = dict(AS_JSON, name=uname("cli watch"), budget=5)
    sid = expect(call(c.port, "POST", "/v1/studies", body), 201)["id"]
    sock = os.path.join(tempfile.mkdtemp(prefix="hpod-tmux-"), "s")
    env = "HPOD_URL=http://127.0.0.1:%d" % c.port
    status_file = os.path.join(os.path.dirname(sock), "status")
    cmd = ("env -u HPOD_TOKEN %s %s watch %d --interval 0.2; echo $? > %s && touch %s.done"
           % (env, c.args.hpod, sid, status_file, status_file))
    # One tmux command line: the pane stays on screen however soon watch
    # ends.
    tmux("-S", sock, "new-session", "-d", "-s", "watch", "-x", "110", "-y", "40", cmd,
         ";", "set-option", "-t", "watch", "remain-on-exit", "on")
    try:
        screen_until(sock, lambda s: "last reports" in s and "none yet" in s, "the first frame")
        # Two trials running (one with an intermediate report), two done.
        live = [suggest(c, sid, "w%d" % i)["trials"][0] for i in range(4)]
        report(c, live[0]["id"], {"bleu": bleu(live[0]["params"])})
        report(c, live[1]["id"], {"bleu": bleu(live[1]["params"])})
        report(c, live[2]["id"], {"bleu": 1.5}, step=3)
        mid = screen_until(sock, lambda s: count_of(s, "completed") == 2 and
                           count_of(s, "running") == 1 and count_of(s, "pending") == 1,
                           "two completed, one running, one pending")
        best = expect(call(c.port, "GET", "/v1/studies/%d/best" % sid), 200)["trial"]
        check("best bleu (maximize): %s  trial #%d" % (json.dumps(best["values"]["bleu"]),
                                                        best["number"]) in mid,
              "the best line, the API's best %r:\n%s" % (best, mid))
        check(re.search(r"#%d\s+running\s+step 3\s+\{\"bleu\":1\.5\}" % live[2]["number"], mid),
              "the running trial's step in last reports:\n%s" % mid)
        check("state active" in mid and "(budget 5)" in mid, "the header:\n%s" % mid)
        # The rest: the study is done, watch draws it once more and ends.
        for t in live[2:]:
            report(c, t["id"], {"bleu": bleu(t["params"])})
        t = suggest(c, sid, "w9")["trials"][0]
        report(c, t["id"], {"bleu": 40.0})
        end = screen_until(sock, lambda s: "is done" in s, "the end")
        check(count_of(end, "completed") == 5 and count_of(end, "running") == 0,
              "the last frame's counts:\n%s" % end)
        check("best bleu (maximize): 40.0  trial #%d" % t["number"] in end,
              "the last frame's best:\n%s" % end)
        check(re.search(r"#%d\s+completed\s+\{\"bleu\":40\.0\}" % t["number"], end),
              "the last report:\n%s" % end)
        # The shell writes watch's exit status once watch has ended (tmux's
        # own pane_dead_status is filled in only after it reaps the child,
        # which may be later than the pane is marked dead).
        deadline = time.monotonic() + 10
        while not os.path.exists(status_file + ".done"):
            check(time.monotonic() < deadline, "watch still runs after the study is done")
            time.sleep(0.1)
        with open(status_file, encoding="utf-8") as f:
            status = f.read().strip()
        check(status == "0", "watch ended with status %r:\n%s"
              % (status, tmux("-S", sock, "capture-pane", "-p", "-t", "watch")))
    finally:
        tmux("-S", sock, "kill-server", check_rc=False)
        shutil.rmtree(os.path.dirname(sock), ignore_errors=True)
