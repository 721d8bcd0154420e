"""tests/api/test_dashboard.py - the dashboard at / (web/, compiled into
hpod): its files over HTTP (types, ETag and 304, nothing but the embedded
names), the API additions it reads (a study's last_activity, a table's
pareto_values), and the page itself in headless Chromium (browser.py) on
three seeded studies: single-objective, two objectives on a small
imported table, and ASHA with intermediate reports. The browser test fails
on any console error, uncaught exception or failed load, compares the
number of points each chart holds (window.hpodDash.series) with what the
API answers, and saves screenshots under the build tree
(BUILD/screenshots/).
"""

import json
import math
import os
import re
import subprocess

from harness import (Server, Skip, call, check, expect, expect_error, fixture, fresh_database,
                     parse_ts, psql, test)
from client import SPACE4, all_trials, create, report, suggest, uname
from tables import bench_path, synthetic_table
import browser

WEB_FILES = {"app.js": "text/javascript", "style.css": "text/css",
             "echarts.min.js": "text/javascript", "echarts-LICENSE.txt": "text/plain",
             "echarts-NOTICE.txt": "text/plain"}
# Routes the page probes that this build may not have: their 404 is the
# "not available" the page shows, not an error of the page.
OPTIONAL_ROUTES = r"/v1/(studies/\d+/importance|trials/\d+/explain)$"


def objective(params):
    """A smooth made-up objective over SPACE4 (bleu, maximized)."""
    lr = math.log10(params["lr"])
    return round(30.0 - 4.0 * (lr + 2.5) ** 2 - 0.5 * (params["layers"] - 4) ** 2
                 + {"adam": 1.0, "sgd": -1.0, "adafactor": 0.0}[params["opt"]], 6)


@fixture
def dash_studies(c):
    """Three studies as the browser test reads them: single objective
    (12 completed, 1 failed, 1 running), two objectives on an imported
    12-row table (8 completed), and ASHA (intermediate reports, paused
    and pruned trials)."""
    single = create(c, {"name": uname("dash single"), "space": SPACE4,
                        "objectives": [{"name": "bleu", "goal": "maximize"}],
                        "algorithm": {"name": "random", "seed": 3}})
    for i in range(14):
        t = suggest(c, single["id"], "w%d" % i)["trials"][0]
        if i == 5:
            expect(call(c.port, "POST", "/v1/trials/%d/fail" % t["id"], {"reason": "oom"}), 200)
        elif i == 13:
            expect(call(c.port, "POST", "/v1/trials/%d/heartbeat" % t["id"]), 200)
        else:
            report(c, t["id"], {"bleu": objective(t["params"])})

    table = synthetic_table("dash/t-%d" % os.getpid())
    expect(call(c.port, "POST", "/v1/benchmarks", table), 201)
    mo = create(c, {"name": uname("dash pareto"), "benchmark": table["name"],
                    "objectives": [{"name": "bleu", "goal": "maximize"},
                                   {"name": "gpu_time", "goal": "minimize"}],
                    "algorithm": {"name": "random", "seed": 5}, "budget": 8})
    for i in range(8):
        t = suggest(c, mo["id"], "m%d" % i)["trials"][0]
        v = expect(call(c.port, "POST", bench_path(table["name"], "/evaluate"),
                        {"params": t["params"]}), 200)["values"]
        report(c, t["id"], {"bleu": v["bleu"], "gpu_time": v["gpu_time"]})

    R = 6
    asha = create(c, {"name": uname("dash asha"), "space": SPACE4,
                      "objectives": [{"name": "loss", "goal": "minimize"}],
                      "algorithm": {"name": "asha", "r": 2, "u": 2, "R": R, "p": 2,
                                    "keep": 1, "seed": 4},
                      "budget": 10})
    for _ in range(60):
        rsp = suggest(c, asha["id"], "a")
        if rsp["done"] or not rsp["trials"]:
            break
        t = rsp["trials"][0]
        base = 10.0 - objective(t["params"]) / 4.0
        start = t.get("resume_from_step", 0) + 1
        stopped = False
        for step in range(start, R + 1):
            a = report(c, t["id"], {"loss": round(base + 8.0 / step, 6)}, step=step)
            if a.get("action") == "stop":
                stopped = True
                break
        if not stopped:
            report(c, t["id"], {"loss": round(base + 8.0 / R, 6)})
    return {"single": single["id"], "mo": mo["id"], "asha": asha["id"], "table": table["name"]}


@test("dashboard: / and /web/<file> come from the binary with their type, ETag and no-cache; 304 on If-None-Match; 404 for other names")
def t_files(c):
    r = call(c.port, "GET", "/")
    check(r.status == 200 and r.headers["content-type"] == "text/html; charset=utf-8",
          "GET / -> %d %r" % (r.status, r.headers.get("content-type")))
    check(b"/web/app.js" in r.raw and b"/web/echarts.min.js" in r.raw, "the page loads no script")
    tag = r.headers.get("etag", "")
    check(re.match(r'^"[0-9a-f]{32}"$', tag) and r.headers.get("cache-control") == "no-cache",
          "headers %r" % r.headers)
    n = call(c.port, "GET", "/", headers={"If-None-Match": tag})
    check(n.status == 304 and n.raw == b"" and n.headers.get("etag") == tag, "304: %r" % n)
    stale = call(c.port, "GET", "/", headers={"If-None-Match": '"0123"'})
    check(stale.status == 200 and stale.raw == r.raw, "a stale ETag: %r" % stale)
    for name, ctype in WEB_FILES.items():
        f = call(c.port, "GET", "/web/" + name)
        check(f.status == 200 and f.headers["content-type"].split(";")[0] == ctype
              and len(f.raw) > 100, "GET /web/%s -> %r" % (name, f))
        local = os.path.join(cfg_top(), "web", "vendor" if name.startswith("echarts") else "", name)
        with open(local, "rb") as fh:
            check(fh.read() == f.raw, "/web/%s differs from %s" % (name, local))
    lic = call(c.port, "GET", "/web/echarts-LICENSE.txt").raw
    check(b"Apache License" in lic, "the licence is not served")
    for path in ("/web/nope.js", "/web/index.htm", "/web/vendor/echarts.min.js",
                 "/web/..%2Fopenapi.json", "/web/%2e%2e/openapi.json", "/web/../Makefile",
                 "/web/.", "/web/", "/web/app.js/x", "/index.html"):
        expect_error(call(c.port, "GET", path), 404, "not_found")
    expect_error(call(c.port, "POST", "/web/app.js"), 405, "method_not_allowed")
    expect_error(call(c.port, "GET", "/?x=1"), 400, "invalid_argument", "x")


def cfg_top():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@test("dashboard: a study's last_activity follows its trials; a table's pareto_values are its Pareto rows")
def t_api_additions(c):
    d = c.fixture("dash_studies")
    for sid in (d["single"], d["mo"], d["asha"]):
        s = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
        ts = [parse_ts(t["updated_at"]) for t in all_trials(c, sid)["trials"]]
        check(parse_ts(s["last_activity"]) == max(ts + [parse_ts(s["created_at"])]),
              "study %d: last_activity %s, trials' latest %s" % (sid, s["last_activity"], max(ts)))
    listed = {s["id"]: s for s in expect(call(c.port, "GET", "/v1/studies?limit=1000"), 200)["studies"]}
    check(listed[d["single"]]["last_activity"] == expect(call(
        c.port, "GET", "/v1/studies/%d" % d["single"]), 200)["last_activity"],
        "the list and the study disagree on last_activity")
    fresh = create(c, {"name": uname("dash empty"), "space": SPACE4,
                       "objectives": [{"name": "bleu", "goal": "maximize"}]})
    check(fresh["last_activity"] == fresh["created_at"], "no trials: %r" % fresh)
    before = listed[d["single"]]["last_activity"]
    t = suggest(c, d["single"], "late")["trials"][0]
    expect(call(c.port, "POST", "/v1/trials/%d/fail" % t["id"], {"reason": "x"}), 200)
    after = expect(call(c.port, "GET", "/v1/studies/%d" % d["single"]), 200)["last_activity"]
    check(parse_ts(after) > parse_ts(before), "last_activity %s did not move past %s" % (after, before))

    table = synthetic_table(d["table"])
    b = expect(call(c.port, "GET", bench_path(d["table"], "?pareto_values=true")), 200)
    plain = expect(call(c.port, "GET", bench_path(d["table"])), 200)
    check("pareto_values" not in plain, "pareto_values without asking")
    check([p["row"] for p in b["pareto_values"]] == b["pareto"] and b["pareto"],
          "pareto_values rows %r, pareto %r" % (b["pareto_values"], b["pareto"]))
    for p in b["pareto_values"]:
        row = table["rows"][p["row"]]
        check(p["values"] == {"bleu": row["bleu"], "gpu_time": row["gpu_time"]}
              and p["params"] == {k: row[k] for k in ("llm", "lr", "layers")},
              "row %d: %r, the table has %r" % (p["row"], p, row))
    expect_error(call(c.port, "GET", bench_path(d["table"], "?pareto_values=yes")), 400,
                 "invalid_argument", "pareto_values")


def need_browser():
    if not browser.chromium_path():
        raise Skip("chromium is not installed (scripts/deps.sh test installs it)")


def screenshot_dir(c):
    d = os.path.join(os.path.dirname(os.path.abspath(c.args.hpod)), "screenshots")
    os.makedirs(d, exist_ok=True)
    return d


def open_view(b, base, view, want):
    b.goto(base + "/#/" + view)
    b.wait_for("window.hpodDash && hpodDash.view === %r && hpodDash.renders > 0" % want)


@test("dashboard: headless Chromium draws the study list and three studies with the API's points, no console error")
def t_browser(c):
    need_browser()
    d = c.fixture("dash_studies")
    base = "http://127.0.0.1:%d" % c.port
    shots = screenshot_dir(c)
    with browser.Browser(allow_http_errors=OPTIONAL_ROUTES) as b:
        b.goto(base + "/")
        b.wait_for("window.hpodDash && hpodDash.view === 'list' && hpodDash.renders > 0")
        api = expect(call(c.port, "GET", "/v1/studies?limit=200"), 200)
        rows = b.eval("document.querySelectorAll('#studies tbody tr').length")
        check(rows == len(api["studies"]), "list: %r rows, the API lists %d" % (rows, len(api["studies"])))
        names = b.eval("Array.from(document.querySelectorAll('#studies tbody tr td:first-child'))"
                       ".map(td => td.textContent)")
        check(names == [s["name"] for s in api["studies"]], "list names %r" % names)
        b.screenshot(os.path.join(shots, "dashboard-list.png"))

        for key, sid in (("single", d["single"]), ("mo", d["mo"]), ("asha", d["asha"])):
            open_view(b, base, "study/%d" % sid, "study/%d" % sid)
            b.pump(0.3)
            study = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
            trials = all_trials(c, sid)["trials"]
            done = [t for t in trials if t["state"] == "completed"]
            check_study_charts(c, b, study, trials, done)
            b.screenshot(os.path.join(shots, "dashboard-%s.png" % key))
        check_importance_panel(c, b, base, d["single"], shots)
        b.pump(0.5)
        check(not b.problems, "the page reported errors:\n  " + "\n  ".join(b.problems))
        # The check above can fail: an error the page logs is caught.
        b.eval("setTimeout(() => console.error('probe'), 0); 1")
        b.pump(0.3)
        check(b.problems == ["console.error: probe"], "a console error went unseen: %r" % b.problems)


@test("dashboard: with tokens on it asks for one and works with a read token; with the database gone it says 503 and keeps the last data")
def t_browser_token_and_db_down(c):
    need_browser()
    url = fresh_database(c.dburl, "hpod_dash")
    env = dict(os.environ, HPOD_DATABASE_URL=url)
    run = lambda *a: subprocess.run([c.args.hpod] + list(a), env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                    timeout=120, check=True).stdout.decode()
    run("migrate")
    root = run("token", "create", "--role", "admin").strip().splitlines()[-1]
    srv = Server(c.args.hpod, c.logdir, url)
    c.servers.append(srv)
    srv.start()
    read = expect(call(srv.port, "POST", "/v1/tokens", {"role": "read"}, token=root), 201)["token"]
    sid = expect(call(srv.port, "POST", "/v1/studies", {
        "name": "behind a token", "space": SPACE4,
        "objectives": [{"name": "bleu", "goal": "maximize"}]}, token=root), 201)["id"]
    t = expect(call(srv.port, "POST", "/v1/studies/%d/suggest" % sid, {"worker": "w"},
                    token=root), 200)["trials"][0]
    expect(call(srv.port, "POST", "/v1/trials/%d/report" % t["id"],
                {"values": {"bleu": objective(t["params"])}}, token=root), 200)
    base = "http://127.0.0.1:%d" % srv.port
    # Expected failed loads: the first 401 (before the token), the 503s.
    with browser.Browser(allow_http_errors=OPTIONAL_ROUTES + r"|/v1/studies(\?limit=200|/\d+.*)$") as b:
        b.goto(base + "/#/study/%d" % sid)
        b.wait_for("!document.getElementById('login').hidden")
        check(b.eval("hpodDash.renders") == 0, "drawn without a token")
        b.eval("document.getElementById('token').value = %r;"
               "document.getElementById('login').requestSubmit(); 1" % read)
        b.wait_for("hpodDash.view === 'study/%d' && hpodDash.renders > 0" % sid)
        check(b.eval("sessionStorage.getItem('hpod_token')") == read
              and b.eval("localStorage.getItem('hpod_token')") is None,
              "the token is not kept in sessionStorage only")
        check(series(b, "best") == {"completed trials": 1, "best so far": 1}, "best chart with a read token")
        # It rereads while the study runs: a trial completed now shows up.
        t = expect(call(srv.port, "POST", "/v1/studies/%d/suggest" % sid, {"worker": "w2"},
                        token=root), 200)["trials"][0]
        expect(call(srv.port, "POST", "/v1/trials/%d/report" % t["id"],
                    {"values": {"bleu": objective(t["params"])}}, token=root), 200)
        b.wait_for("hpodDash.series('best')['completed trials'] === 2", timeout=15)
        b.screenshot(os.path.join(screenshot_dir(c), "dashboard-read-token.png"))
        psql(c.dburl, "DROP DATABASE hpod_dash WITH (FORCE)")
        b.wait_for("document.getElementById('banner').textContent.includes('503')", timeout=20)
        check(b.eval("hpodDash.series('best')") == {"completed trials": 2, "best so far": 2},
              "the last data is gone with the database")
        b.screenshot(os.path.join(screenshot_dir(c), "dashboard-db-down.png"))
        b.pump(0.3)
        check(not b.problems, "the page reported errors:\n  " + "\n  ".join(b.problems))
    rc = srv.stop()
    check(rc == 0, "the server without its database exited %r on SIGTERM:\n%s" % (rc, srv.tail(20)))


def series(b, name):
    got = b.eval("hpodDash.series(%r)" % name)
    check(got is not None, "no chart %r on the page (charts: %r)" % (name, b.eval("hpodDash.charts()")))
    return got


def check_study_charts(c, b, s, trials, done):
    n = len(done)
    what = "study %d (%s)" % (s["id"], s["name"])
    if len(s["objectives"]) >= 2:
        p = expect(call(c.port, "GET", "/v1/studies/%d/pareto?history=true" % s["id"]), 200)
        got = series(b, "pareto")
        want = {"front found": len(p["front"]), "other trials": n - len(p["front"])}
        if s["benchmark"]:
            bm = expect(call(c.port, "GET", bench_path(s["benchmark"])), 200)
            want["true front (%s)" % s["benchmark"]] = len(bm["pareto"])
        check(got == want, "%s: Pareto chart %r, the API says %r" % (what, got, want))
        got = series(b, "hypervolume")
        check(got == {"hypervolume": len(p["history"])} and len(p["history"]) == n,
              "%s: hypervolume chart %r, history %d" % (what, got, len(p["history"])))
    else:
        got = series(b, "best")
        want = {"completed trials": n, "best so far": n}
        check(got == want, "%s: best-so-far chart %r, the API says %r" % (what, got, want))
    stepped = [t for t in trials if t["intermediate"]]
    if stepped:
        got = series(b, "curves")
        marks = got.pop("#marks", 0)
        want = {"trial %d" % t["number"]: len(t["intermediate"]) for t in stepped}
        check(got == want, "%s: curves %r, the API says %r" % (what, got, want))
        # A mark where each report was answered "stop": stopped or paused
        # there, or resumed when later steps follow.
        obj = s["objectives"][0]["name"]
        stops = sum(1 for t in stepped for iv in t["intermediate"]
                    if iv["action"] == "stop" and obj in iv["values"])
        check(marks == stops, "%s: %d stop/pause/resume marks, %d reports answered stop"
              % (what, marks, stops))
        resumed = sum(1 for t in stepped for k, iv in enumerate(t["intermediate"])
                      if iv["action"] == "stop" and k < len(t["intermediate"]) - 1)
        if s["algorithm"]["name"] == "asha":
            check(resumed > 0, "%s: no ASHA trial was resumed: the test shows no resume mark" % what)
    else:
        check(b.eval("hpodDash.series('curves')") is None, "%s: curves without reports" % what)
    got = series(b, "parallel")
    check(got == {"completed trials": n}, "%s: parallel coordinates %r, %d completed" % (what, got, n))
    for p in s["space"]:
        got = series(b, "slice-" + p["name"])
        check(got == {"completed trials": n}, "%s: slice %s %r, %d completed" % (what, p["name"], got, n))
    rows = b.eval("document.querySelectorAll('#trials-table tbody tr').length")
    check(rows == len(trials), "%s: trials table %r rows, %d trials" % (what, rows, len(trials)))
    # Sorting: a click on the objective's header orders the rows by it.
    obj = s["objectives"][0]["name"]
    b.eval("document.querySelector('#trials-table th[data-key=\"v:%s\"]').click()" % obj)
    ids = b.eval("Array.from(document.querySelectorAll('#trials-table tbody tr'))"
                 ".map(tr => +tr.dataset.trial)")
    want = [t["id"] for t in sorted(done, key=lambda t: (t["values"][obj], t["number"]))]
    check(ids[:len(want)] == want, "%s: sorted by %s: %r, want %r first" % (what, obj, ids, want))
    check_explain_box(c, b, what, trials)
    # Too few completed trials for the model: the panel says the API's
    # reason instead of a chart.
    r = call(c.port, "GET", "/v1/studies/%d/importance" % s["id"], validate=False)
    na = b.eval("document.getElementById('chart-importance').textContent")
    check(r.status == 200 or r.json["error"]["message"] in na,
          "%s: importance %d, panel says %r" % (what, r.status, na))


def check_explain_box(c, b, what, trials):
    """A trial's "explain" box (a stopped one if any) reads as text with a
    line per decision the API returns."""
    t = max(trials, key=lambda t: (t["state"] in ("paused", "pruned"), -t["number"]))
    e = expect(call(c.port, "GET", "/v1/trials/%d/explain" % t["id"]), 200)
    sel = "#trials-table tr[data-trial=\"%d\"]" % t["id"]
    b.eval("document.querySelector('%s details').open = true; 1" % sel)
    b.wait_for("(document.querySelector('%s pre.explain') || {}).textContent"
               ".startsWith('trial #')" % sel)
    text = b.eval("document.querySelector('%s pre.explain').textContent" % sel)
    words = {"suggest": "suggested by", "stop": "stopped at step",
             "promote": "promoted at rung", "stage": "seeded into stage"}
    check(text.startswith("trial #%d (%s)" % (t["number"], t["origin"]))
          and all(words[d["kind"]] in text for d in e["decisions"])
          and "{" not in text.split("\n")[0],
          "%s: explain box %r for %r" % (what, text, e["decisions"]))


def check_importance_panel(c, b, base, sid, shots):
    """The importance panel of study sid (at least 10 completed trials):
    one bar per parameter and one shape point per value, as the API
    answers them."""
    imp = expect(call(c.port, "GET", "/v1/studies/%d/importance" % sid), 200)
    open_view(b, base, "study/%d" % sid, "study/%d" % sid)
    got = series(b, "importance")
    check(got == {"importance": len(imp["parameters"])},
          "importance bars %r, want %d" % (got, len(imp["parameters"])))
    for p in imp["parameters"]:
        got = series(b, "shape-" + p["name"])
        check(got == {"shape": len(p["shape"])},
              "shape function of %s: %r, want %d points" % (p["name"], got, len(p["shape"])))
    b.screenshot(os.path.join(shots, "dashboard-importance.png"))
