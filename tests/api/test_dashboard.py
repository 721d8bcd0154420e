"""tests/api/test_dashboard.py - the dashboard at / (web/, compiled into
hpod): its files over HTTP (types, ETag and 304, nothing but the embedded
names), the API additions it reads (a study's last_activity, a table's
pareto_values), and the page itself in headless Chromium (browser.py) on
seeded studies: single-objective (with a failed trial), two objectives on
a small imported table, ASHA with intermediate reports, three objectives,
auto (its long reason), and one in a lab of its own, paused. The browser
tests fail on any console error, uncaught exception or failed load; they
compare what each chart holds (window.hpodDash: series, data, axes,
range) with what the API answers (best so far, Pareto front, hypervolume,
curves, parallel coordinates, slices, importance, contour, EDF, timeline),
drive the study list's search, lab and state filters and pages, the
trials table's state filter and search, a note written through the page,
the CSV download, a struck-out (excluded) trial, the objective selectors,
and save screenshots under the build tree (BUILD/screenshots/).
"""

import collections
import json
import math
import os
import re
import shutil
import subprocess
import time

from harness import (Server, Skip, call, cfg, check, expect, expect_error, fixture,
                     fresh_database, parse_ts, psql, test)
from client import SPACE4, all_trials, create, report, suggest, uname
from tables import bench_path, synthetic_table
import browser

WEB_FILES = {"app.js": "text/javascript", "list.js": "text/javascript",
             "plots.js": "text/javascript", "trials.js": "text/javascript",
             "audit.js": "text/javascript",
             "style.css": "text/css", "favicon.svg": "image/svg+xml",
             "echarts.min.js": "text/javascript", "echarts-LICENSE.txt": "text/plain",
             "echarts-NOTICE.txt": "text/plain"}
GRID = 24  # contour cells per numeric axis (web/plots.js)
# Routes the page probes that this build may not have: their 404 is the
# "not available" the page shows, not an error of the page.
OPTIONAL_ROUTES = r"/v1/(studies/\d+/importance|trials/\d+/explain)$"


def objective(params):
    """A smooth made-up objective over SPACE4 (bleu, maximized)."""
    lr = math.log10(params["lr"])
    return round(30.0 - 4.0 * (lr + 2.5) ** 2 - 0.5 * (params["layers"] - 4) ** 2
                 + {"adam": 1.0, "sgd": -1.0, "adafactor": 0.0}[params["opt"]], 6)


def gpu(params):
    """A made-up cost over SPACE4 (minimized): more layers, more BPE."""
    return round(10.0 * params["layers"] + params["bpe"] / 2500.0, 6)


def size(params):
    """A made-up model size over SPACE4 (minimized)."""
    return round(params["layers"] * params["bpe"] / 10000.0 + math.log10(params["lr"]), 6)


@fixture
def dash_studies(c):
    """The studies the browser tests read: single objective (12
    completed, 1 failed, 1 running), two objectives on an imported 12-row
    table (8 completed), ASHA (intermediate reports, paused and pruned
    trials), three objectives (8 completed), auto (3 completed), and one
    in a lab of its own, paused."""
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

    three = create(c, {"name": uname("dash three"), "space": SPACE4,
                       "objectives": [{"name": "bleu", "goal": "maximize"},
                                      {"name": "gpu_time", "goal": "minimize"},
                                      {"name": "size", "goal": "minimize"}],
                       "algorithm": {"name": "random", "seed": 9}})
    for i in range(8):
        t = suggest(c, three["id"], "t%d" % i)["trials"][0]
        p = t["params"]
        report(c, t["id"], {"bleu": objective(p), "gpu_time": gpu(p), "size": size(p)})

    auto = create(c, {"name": uname("dash auto"), "space": SPACE4,
                      "objectives": [{"name": "bleu", "goal": "maximize"}]})
    check(auto["algorithm"]["name"] == "auto" and len(auto["algorithm"].get("reason", "")) > 150,
          "auto's reason is too short to test the algorithm line: %r" % auto["algorithm"])
    for i in range(3):
        t = suggest(c, auto["id"], "u%d" % i)["trials"][0]
        report(c, t["id"], {"bleu": objective(t["params"])})

    lab = "dashlab%d" % os.getpid()
    labbed = create(c, {"name": uname("dash labbed"), "lab": lab, "space": SPACE4,
                        "objectives": [{"name": "bleu", "goal": "maximize"}],
                        "algorithm": {"name": "random", "seed": 2}})
    expect(call(c.port, "PATCH", "/v1/studies/%d" % labbed["id"], {"state": "paused"}), 200)
    return {"single": single["id"], "mo": mo["id"], "asha": asha["id"], "table": table["name"],
            "three": three["id"], "auto": auto["id"], "labbed": labbed["id"], "lab": lab}


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


def browser_setup(c):
    """The seeded studies and the main server's base URL, if Chromium is here."""
    need_browser()
    return c.fixture("dash_studies"), "http://127.0.0.1:%d" % c.port


def screenshot_dir(c):
    d = os.path.join(os.path.dirname(os.path.abspath(c.args.hpod)), "screenshots")
    os.makedirs(d, exist_ok=True)
    return d


def open_view(b, base, view, want):
    b.goto(base + "/#/" + view)
    b.wait_for("window.hpodDash && hpodDash.view === %r && hpodDash.renders > 0" % want)


def no_problems(b, seconds=0.3):
    """Fails on what the page reported: console errors, uncaught
    exceptions, failed loads not allowed."""
    b.pump(seconds)
    check(not b.problems, "the page reported errors:\n  " + "\n  ".join(b.problems))


@test("dashboard: headless Chromium draws the study list and five studies with the API's points (contour, EDF, timeline too), no console error")
def t_browser(c):
    d, base = browser_setup(c)
    shots = screenshot_dir(c)
    with browser.Browser(allow_http_errors=OPTIONAL_ROUTES) as b:
        open_view(b, base, "", "list")
        api = all_studies(c)
        rows = b.eval("document.querySelectorAll('#studies tbody tr').length")
        check(rows == min(100, len(api)), "list: %r rows, the API lists %d" % (rows, len(api)))
        names = b.eval(ROW_NAMES)
        check(names == [s["name"] for s in api[:100]], "list names %r" % names)
        b.screenshot(os.path.join(shots, "dashboard-list.png"))

        for key in ("single", "mo", "asha", "three", "auto"):
            sid = d[key]
            open_view(b, base, "study/%d" % sid, "study/%d" % sid)
            b.pump(0.3)
            study = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
            trials = all_trials(c, sid)["trials"]
            done = [t for t in trials if t["state"] == "completed"]
            check_study_charts(c, b, study, trials, done)
            b.screenshot(os.path.join(shots, "dashboard-%s.png" % key))
            if key in ("single", "mo"):
                for name in ("contour", "edf", "timeline"):
                    b.screenshot_of("#panel-" + name, os.path.join(
                        shots, "dashboard-%s-%s.png" % (key, name)))
        check_importance_panel(c, b, base, d["single"], shots)
        no_problems(b, 0.5)
        # The check above can fail: an error the page logs is caught.
        b.eval("setTimeout(() => console.error('probe'), 0); 1")
        b.pump(0.3)
        check(b.problems == ["console.error: probe"], "a console error went unseen: %r" % b.problems)


@test("dashboard: the study list reads every page of the API and searches, filters by lab and state, pages and sorts")
def t_browser_list(c):
    d, base = browser_setup(c)
    api = all_studies(c)
    check(len(api) > 4, "too few studies (%d) to page through" % len(api))
    with browser.Browser(allow_http_errors=OPTIONAL_ROUTES) as b:
        open_view(b, base, "", "list")
        # Read 3 studies per request and show a few rows per page (at most
        # 8 pages): every study is still there, page after page, in the
        # API's order.
        size = max(4, -(-len(api) // 8))
        b.eval("hpodDash.apiPage = 3; hpodDash.listPage = %d; 1" % size)
        rendered(b)
        seen = []
        pages = -(-len(api) // size)
        for k in range(1, pages + 1):
            b.wait_for("document.getElementById('study-pager').textContent.includes("
                       "' page %d of %d ')" % (k, pages))
            seen += b.eval(ROW_NAMES)
            if k < pages:
                b.eval("document.getElementById('study-next').click(); 1")
        check(b.eval("document.getElementById('study-next').disabled"), "a page after the last")
        check(seen == [s["name"] for s in api], "paged list %r, the API lists %r"
              % (seen, [s["name"] for s in api]))
        count = b.eval("document.getElementById('study-count').textContent")
        check(count == "%d studies" % len(api), "count line %r for %d" % (count, len(api)))
        b.eval("hpodDash.listPage = 100; 1")
        rendered(b)
        # Search (a substring of the name, any case).
        type_into(b, "#study-search", "DASH PARETO")
        want = [s["name"] for s in api if "dash pareto" in s["name"].lower()]
        check(want and rows_become(b, want), "search: %r, want %r" % (b.eval(ROW_NAMES), want))
        check("q=DASH+PARETO" in b.eval("location.hash"), "the search is not in the URL")
        type_into(b, "#study-search", "")
        # The lab filter: what GET /v1/studies?lab= lists.
        choose(b, "study-lab", d["lab"])
        want = [s["name"] for s in all_studies(c, "&lab=" + d["lab"])]
        check(rows_become(b, want), "lab %s: %r, want %r" % (d["lab"], b.eval(ROW_NAMES), want))
        b.screenshot(os.path.join(screenshot_dir(c), "dashboard-list-lab.png"))
        # The state filter, alone.
        choose(b, "study-lab", "")
        choose(b, "study-state", "paused")
        want = [s["name"] for s in api if s["state"] == "paused"][:100]
        check(want and rows_become(b, want), "paused: %r, want %r" % (b.eval(ROW_NAMES), want))
        # Filters come from the URL too (a shared link).
        n = b.eval("hpodDash.renders")
        b.goto(base + "/#/?lab=" + d["lab"])
        b.wait_for("hpodDash.view === 'list' && hpodDash.renders > %d" % n)
        check(b.eval(ROW_NAMES) == [s["name"] for s in api if s["lab"] == d["lab"]],
              "the lab of the URL: %r" % b.eval(ROW_NAMES))
        check(b.eval("[document.getElementById('study-lab').value, "
                     "document.getElementById('study-state').value]") == [d["lab"], ""],
              "the URL's filters are not the controls' %r"
              % b.eval("[document.getElementById('study-lab').value, "
                       "document.getElementById('study-state').value]"))
        # A click on "trials" sorts by the number of trials.
        b.goto(base + "/#/")
        b.wait_for("hpodDash.view === 'list' && hpodDash.renders > 0")
        b.eval("document.querySelector('#studies th[data-key=\"trials\"]').click(); 1")
        b.wait_for("!!document.querySelector('#studies th.sorted-asc')")
        totals = [sum(s["trial_counts"].values()) for s in api]
        got = b.eval("Array.from(document.querySelectorAll('#studies tbody tr td:nth-child(5)'))"
                     ".map(td => Array.from(td.querySelectorAll('span span'))"
                     ".reduce((n, x) => n + +x.textContent.split(' ')[1], 0))")
        check(got == sorted(totals)[:len(got)], "sorted by trials: %r, want %r"
              % (got, sorted(totals)[:len(got)]))
        no_problems(b)


def excluded_mark(c, tid):
    """Trial tid excluded through the API (POST /v1/trials/{id}/exclude)."""
    expect(call(c.port, "POST", "/v1/trials/%d/exclude" % tid,
                {"reason": "data leak in fold 3"}), 200)


@test("dashboard: the trials table filters by state, searches, shows reasons, saves a note, downloads the CSV and strikes out an excluded trial")
def t_browser_trials(c):
    need_browser()
    d = c.fixture("dash_studies")
    sid = d["single"]
    base = "http://127.0.0.1:%d" % c.port
    shots = screenshot_dir(c)
    trials = all_trials(c, sid)["trials"]
    done = [t for t in trials if t["state"] == "completed"]
    ids = "Array.from(document.querySelectorAll('#trials-table tbody tr')).map(tr => +tr.dataset.trial)"
    with browser.Browser(allow_http_errors=OPTIONAL_ROUTES) as b:
        open_view(b, base, "study/%d" % sid, "study/%d" % sid)
        # The state filter.
        choose(b, "trial-state", "failed")
        want = [t["id"] for t in trials if t["state"] == "failed"]
        check(b.eval(ids) == want and want, "failed: %r, want %r" % (b.eval(ids), want))
        choose(b, "trial-state", "")
        # The search: words and conditions on parameters and metrics.
        for q, keep in (("opt=adam", lambda t: t["params"]["opt"] == "adam"),
                        ("lr<0.001", lambda t: t["params"]["lr"] < 0.001),
                        ("bleu>=25 sgd", lambda t: t["values"].get("bleu", -1) >= 25
                         and "sgd" in json.dumps(t["params"])),
                        ("state=failed oom", lambda t: t["state"] == "failed" and t["reason"] == "oom"),
                        ("nosuch=1", lambda t: False)):
            type_into(b, "#trial-search", q)
            want = [t["id"] for t in trials if keep(t)]
            check(b.eval(ids) == want, "search %r: %r, want %r" % (q, b.eval(ids), want))
        check("nosuch" in b.eval("document.getElementById('trial-count').textContent"),
              "an unknown name is not reported")
        type_into(b, "#trial-search", "")
        # A note through the page keeps the trial's other metadata.
        tid = done[0]["id"]
        expect(call(c.port, "PATCH", "/v1/trials/%d" % tid, {"metadata": {"git": "abc123"}}), 200)
        rendered(b)
        row = "#trials-table tr[data-trial=\"%d\"]" % tid
        check("git: abc123" in b.eval("document.querySelector('%s').textContent" % row),
              "the trial's metadata is not shown")
        b.eval("document.querySelector('%s .note-edit').click(); 1" % row)
        type_into(b, row + " .note-input", "rerun with seed 2")
        b.eval("document.querySelector('%s .note-save').click(); 1" % row)
        b.wait_for("(document.querySelector('%s .note') || {}).textContent === 'rerun with seed 2'" % row)
        got = expect(call(c.port, "GET", "/v1/trials/%d" % tid), 200)["metadata"]
        check(got == {"git": "abc123", "note": "rerun with seed 2"}, "metadata after the note %r" % got)
        # The CSV download is the API's CSV, byte for byte.
        dl = os.path.join(shots, "downloads")
        shutil.rmtree(dl, ignore_errors=True)
        os.makedirs(dl)
        b.download_to(dl)
        b.eval("document.getElementById('trials-csv').click(); 1")
        path = os.path.join(dl, "hpod-study-%d-trials.csv" % sid)
        deadline = time.monotonic() + 20
        while not os.path.exists(path) and time.monotonic() < deadline:
            b.pump(0.2)
        check(os.path.exists(path), "no CSV downloaded (%r)" % os.listdir(dl))
        with open(path, "rb") as f:
            csv = f.read()
        want = call(c.port, "GET", "/v1/studies/%d/trials" % sid, headers={"Accept": "text/csv"})
        check(want.status == 200 and csv == want.raw and csv.count(b"\r\n") == len(trials) + 1,
              "the CSV downloaded (%d bytes) is not the API's (%d bytes)" % (len(csv), len(want.raw)))
        # An excluded trial: struck out with its reason, out of every plot.
        gone = done[1]
        excluded_mark(c, gone["id"])
        rendered(b)
        row = "#trials-table tr[data-trial=\"%d\"]" % gone["id"]
        check(b.eval("document.querySelector('%s').classList.contains('excluded')" % row),
              "the excluded trial is not struck out")
        check(b.eval("getComputedStyle(document.querySelector('%s td.num')).textDecorationLine"
                     % row) == "line-through", "no line through the excluded trial's values")
        reason = b.eval("document.querySelector('%s td.reason').textContent" % row)
        check(reason.startswith("excluded: data leak in fold 3"), "reason cell %r" % reason)
        left = [t for t in done if t["id"] != gone["id"]]
        check(series(b, "best") == {"completed trials": len(left), "best so far": len(left)},
              "best chart %r with one trial excluded" % series(b, "best"))
        check_edf(b, "excluded", left, "bleu")
        check_contour(b, expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200), left, 0, 1, "bleu")
        check_timeline(b, "excluded", trials, {gone["id"]})
        check(series(b, "parallel") == {"completed trials": len(left)}, "parallel with one excluded")
        choose(b, "trial-state", "excluded")
        check(b.eval(ids) == [gone["id"]], "the excluded filter: %r" % b.eval(ids))
        choose(b, "trial-state", "")
        b.eval("window.scrollTo(0, 0); 1")
        b.screenshot_of("#panel-trials", os.path.join(shots, "dashboard-trials.png"))
        no_problems(b)


@test("dashboard: three objectives pick the front's two and the plots' objective; auto's reason wraps on demand, nothing runs off the page")
def t_browser_objectives(c):
    d, base = browser_setup(c)
    shots = screenshot_dir(c)
    sid = d["three"]
    s = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)
    p = expect(call(c.port, "GET", "/v1/studies/%d/pareto" % sid), 200)
    done = [t for t in all_trials(c, sid)["trials"] if t["state"] == "completed"]
    with browser.Browser(allow_http_errors=OPTIONAL_ROUTES) as b:
        open_view(b, base, "study/%d" % sid, "study/%d" % sid)
        check(b.eval("hpodDash.axes('pareto')") == {"x": "bleu (maximize)", "y": "gpu_time (minimize)"},
              "default front axes %r" % b.eval("hpodDash.axes('pareto')"))
        choose(b, "front-y", 2)
        check(b.eval("hpodDash.axes('pareto')") == {"x": "bleu (maximize)", "y": "size (minimize)"},
              "front axes after choosing size: %r" % b.eval("hpodDash.axes('pareto')"))
        want = sorted([f["values"]["bleu"], f["values"]["size"], f["trial"]] for f in p["front"])
        got = b.eval("hpodDash.data('pareto', 'front found')")
        check(sorted(got) == want, "front on bleu x size %r, the API's %r" % (got, want))
        check(series(b, "pareto") == {"front found": len(p["front"]),
                                      "other trials": len(done) - len(p["front"])},
              "Pareto series %r" % series(b, "pareto"))
        b.screenshot_of("#panel-pareto", os.path.join(shots, "dashboard-three-front.png"))
        # The plots' objective: slices, contour and EDF follow it.
        choose(b, "target", 1)
        check(b.eval("hpodDash.axes('slice-lr')")["y"] == "gpu_time", "slices do not follow")
        check_edf(b, "three, gpu_time", done, "gpu_time")
        check_contour(b, s, done, 0, 1, "gpu_time")
        choose(b, "contour-x", 3)
        choose(b, "contour-y", 2)
        check_contour(b, s, done, 3, 2, "gpu_time")
        no_problems(b)

    # A laptop's narrow window: auto's settings and reason must fit it.
    with browser.Browser(width=800, allow_http_errors=OPTIONAL_ROUTES) as b:
        sid = d["auto"]
        a = expect(call(c.port, "GET", "/v1/studies/%d" % sid), 200)["algorithm"]
        open_view(b, base, "study/%d" % sid, "study/%d" % sid)
        wide = b.eval("[document.documentElement.scrollWidth, window.innerWidth]")
        check(wide[0] <= wide[1], "the page is %d px wide in a %d px window" % tuple(wide))
        line = b.eval("document.querySelector('.algo').textContent")
        check(line.startswith("algorithm %s (auto)" % a["chosen"]["name"]), "algorithm line %r" % line)
        check(not b.eval("document.getElementById('algo-why').open"), "the reason is open by default")
        b.eval("document.querySelector('#algo-why summary').click(); 1")
        text = b.eval("document.querySelector('#algo-why .algo-reason').textContent")
        check(text == a["reason"], "the reason shown %r, the API's %r" % (text, a["reason"]))
        wide = b.eval("[document.documentElement.scrollWidth, window.innerWidth]")
        check(wide[0] <= wide[1], "with the reason open the page is %d px wide in %d" % tuple(wide))
        rendered(b)
        check(b.eval("document.getElementById('algo-why').open"), "a refresh closed the reason")
        b.eval("window.scrollTo(0, 0); 1")
        b.screenshot_of("#algo-line", os.path.join(shots, "dashboard-auto-line.png"), pad=40)
        no_problems(b)


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
    # Expected failed loads: the first 401 (before the token), the 503s,
    # the 403 of a note saved with a read token, the audit log's probe
    # (401, then 403 for a read token).
    with browser.Browser(allow_http_errors=OPTIONAL_ROUTES +
                         r"|/v1/studies(\?limit=\d+&offset=\d+|/\d+.*)$|/v1/trials/\d+$"
                         r"|/v1/audit\?limit=1$") as b:
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
        check(b.eval("document.getElementById('audit-link').hidden"),
              "a read token is shown the audit log's link")
        # It rereads while the study runs: a trial completed now shows up.
        t = expect(call(srv.port, "POST", "/v1/studies/%d/suggest" % sid, {"worker": "w2"},
                        token=root), 200)["trials"][0]
        expect(call(srv.port, "POST", "/v1/trials/%d/report" % t["id"],
                    {"values": {"bleu": objective(t["params"])}}, token=root), 200)
        b.wait_for("hpodDash.series('best')['completed trials'] === 2", timeout=15)
        b.screenshot(os.path.join(screenshot_dir(c), "dashboard-read-token.png"))
        # A read token may not write a note: the page says so and keeps it.
        row = "#trials-table tr[data-trial=\"%d\"]" % t["id"]
        b.eval("document.querySelector('%s .note-edit').click(); 1" % row)
        type_into(b, row + " .note-input", "from a read token")
        b.eval("document.querySelector('%s .note-save').click(); 1" % row)
        b.wait_for("document.querySelector('%s .note-error').textContent.includes('403')" % row)
        b.eval("document.querySelector('%s .note-cancel').click(); 1" % row)
        trial = expect(call(srv.port, "GET", "/v1/trials/%d" % t["id"], token=root), 200)
        check(trial["metadata"] == {}, "a read token's note was stored: %r" % trial["metadata"])
        psql(c.dburl, "DROP DATABASE hpod_dash WITH (FORCE)")
        b.wait_for("document.getElementById('banner').textContent.includes('503')", timeout=20)
        check(b.eval("hpodDash.series('best')") == {"completed trials": 2, "best so far": 2},
              "the last data is gone with the database")
        b.screenshot(os.path.join(screenshot_dir(c), "dashboard-db-down.png"))
        no_problems(b)
    rc = srv.stop()
    check(rc == 0, "the server without its database exited %r on SIGTERM:\n%s" % (rc, srv.tail(20)))


ROW_NAMES = ("Array.from(document.querySelectorAll('#studies tbody tr td:first-child'))"
             ".map(td => td.textContent)")


AUDIT_ROWS = ("Array.from(document.querySelectorAll('#audit-events tbody tr'))"
              ".map((r) => +r.dataset.event)")


@test("dashboard: an admin gets the audit log: the API's events newest first, filtered by action and study, older pages")
def t_browser_audit(c):
    d, base = browser_setup(c)
    sid = d["single"]
    with browser.Browser(allow_http_errors=OPTIONAL_ROUTES) as b:
        open_view(b, base, "", "list")
        b.wait_for("!document.getElementById('audit-link').hidden")
        b.eval("document.getElementById('audit-link').click(); 1")
        b.wait_for("hpodDash.view === 'audit' && !!document.querySelector('#audit-events tbody tr')")
        api = expect(call(c.port, "GET", "/v1/audit?limit=100"), 200)
        check(b.eval(AUDIT_ROWS) == [e["id"] for e in api["events"]],
              "audit rows %r, the API's %r" % (b.eval(AUDIT_ROWS)[:5], api["events"][:2]))
        b.screenshot(os.path.join(screenshot_dir(c), "dashboard-audit.png"))
        if api["next"]:
            b.eval("document.getElementById('audit-older').click(); 1")
            older = expect(call(c.port, "GET", "/v1/audit?limit=100&next=" + api["next"]), 200)
            b.wait_for("JSON.stringify(%s) === %s" % (AUDIT_ROWS, json.dumps(json.dumps(
                [e["id"] for e in older["events"]], separators=(",", ":")))))
        choose(b, "audit-action", "trial.fail")
        want = [e["id"] for e in expect(call(c.port, "GET", "/v1/audit?limit=100&action=trial.fail"),
                                        200)["events"]]
        check(want, "no trial.fail event (dash single has a failed trial)")
        b.wait_for("location.hash === '#/audit?action=trial.fail' && JSON.stringify(%s) === %s"
                   % (AUDIT_ROWS, json.dumps(json.dumps(want, separators=(",", ":")))))
        open_view(b, base, "audit?study=%d" % sid, "audit")
        want = expect(call(c.port, "GET", "/v1/audit?limit=100&study=%d" % sid), 200)["events"]
        b.wait_for("JSON.stringify(%s) === %s" % (AUDIT_ROWS, json.dumps(json.dumps(
            [e["id"] for e in want], separators=(",", ":")))))
        links = b.eval("Array.from(document.querySelectorAll('#audit-events tbody a'))"
                       ".map((a) => a.getAttribute('href'))")
        check(links and set(links) == {"#/study/%d" % sid}, "target links %r" % links)
        no_problems(b)


def all_studies(c, query=""):
    """Every study the API lists (newest first), through its pages."""
    out = []
    while True:
        page = expect(call(c.port, "GET", "/v1/studies?limit=1000&offset=%d%s"
                           % (len(out), query)), 200)
        out += page["studies"]
        if not page["studies"] or len(out) >= page["total"]:
            return out


def rows_become(b, names, timeout=10):
    """Whether the study list's rows come to be names (the table is
    redrawn once the best values of its rows are read)."""
    try:
        b.wait_for("JSON.stringify(%s) === %s" % (ROW_NAMES, json.dumps(json.dumps(names, separators=(",", ":"), ensure_ascii=False))),
                   timeout=timeout)
        return True
    except browser.BrowserError:
        return False


def type_into(b, selector, text):
    """Sets an input's value as typing would (an input event)."""
    b.eval("(() => { const e = document.querySelector(%s); e.value = %s;"
           " e.dispatchEvent(new Event('input')); return 1; })()"
           % (json.dumps(selector), json.dumps(text)))


def choose(b, select_id, value):
    """Picks an option of a <select> as a user would (a change event)."""
    b.eval("(() => { const e = document.getElementById(%s); e.value = %s;"
           " e.dispatchEvent(new Event('change')); return 1; })()"
           % (json.dumps(select_id), json.dumps(str(value))))


def rendered(b):
    """Waits for the refresh asked now to be drawn."""
    n = b.eval("hpodDash.renders")
    b.eval("hpodDash.refresh(); 1")
    b.wait_for("hpodDash.renders > %d" % n)


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
    target = s["objectives"][0]["name"]
    if len(s["space"]) >= 2:
        check_contour(b, s, done, 0, 1, target)
    check_edf(b, what, done, target)
    check_timeline(b, what, trials)
    for t in trials:
        if t["state"] == "failed":
            cell = b.eval("document.querySelector('#trials-table tr[data-trial=\"%d\"] td.reason')"
                          ".textContent" % t["id"])
            check(cell == t["reason"], "%s: trial %d failed with %r, the table says %r"
                  % (what, t["id"], t["reason"], cell))
    # Too few completed trials for the model: the panel says the API's
    # reason instead of a chart.
    r = call(c.port, "GET", "/v1/studies/%d/importance" % s["id"], validate=False)
    na = b.eval("document.getElementById('chart-importance').textContent")
    check(r.status == 200 or r.json["error"]["message"] in na,
          "%s: importance %d, panel says %r" % (what, r.status, na))


def check_contour(b, s, done, ix, iy, target):
    """The contour of parameters ix and iy: a point per completed trial
    holding both, a cell per choice or GRID per numeric axis, the colour
    scale over the trials' values."""
    px, py = s["space"][ix], s["space"][iy]
    pts = [t for t in done if px["name"] in t["params"] and py["name"] in t["params"]
           and target in t["values"]]
    cells = 1
    for p in (px, py):
        cells *= len(p["choices"]) if p["type"] == "categorical" else GRID
    got = series(b, "contour")
    check(got == {"interpolated": cells, "completed trials": len(pts)},
          "study %d: contour %r, want %d cells and %d points" % (s["id"], got, cells, len(pts)))
    axes = b.eval("hpodDash.axes('contour')")
    check(axes == {"x": px["name"], "y": py["name"]}, "contour axes %r, want %s, %s"
          % (axes, px["name"], py["name"]))
    vals = [t["values"][target] for t in pts]
    rng = b.eval("hpodDash.range('contour')")
    check(rng == [min(vals), max(vals)], "contour colour scale %r, the trials' range %r"
          % (rng, [min(vals), max(vals)]))
    cell_vals = [row[4] for row in b.eval("hpodDash.data('contour', 'interpolated')")]
    check(all(min(vals) - 1e-9 <= v <= max(vals) + 1e-9 for v in cell_vals),
          "interpolated values outside the trials' range %r" % [min(vals), max(vals)])


def check_edf(b, what, done, target):
    vals = sorted(t["values"][target] for t in done if target in t["values"])
    got = b.eval("hpodDash.data('edf', 'completed trials')")
    want = [[v, (i + 1) / len(vals)] for i, v in enumerate(vals)]
    check(got == want, "%s: EDF of %s %r, want %r" % (what, target, got, want))


def check_timeline(b, what, trials, excluded=()):
    want = dict(collections.Counter(t["state"] for t in trials if t["id"] not in excluded))
    got = series(b, "timeline")
    check(got == want, "%s: timeline %r, the API's states %r" % (what, got, want))


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
