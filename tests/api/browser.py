"""tests/api/browser.py - headless Chromium driven over the DevTools
protocol on a pipe (--remote-debugging-pipe: JSON messages separated by
NUL bytes on file descriptors 3 and 4), with the Python standard library
only: no WebDriver, no websocket module. Debian's `chromium` package
(scripts/deps.sh) is all it needs.

    with Browser() as b:
        b.goto("http://127.0.0.1:8080/")
        b.wait_for("window.hpodDash && hpodDash.renders > 0")
        b.eval("hpodDash.series('best')")
        b.screenshot("list.png")
        b.screenshot_of("#panel-contour", "contour.png")
        b.download_to(directory)  # where a click on a download link saves
        b.problems  # console errors, uncaught exceptions, failed loads

Every console message of level error, every uncaught exception and every
failed resource load is recorded in `problems` (as text), except network
errors of URLs matching `allow_http_errors` (routes the page probes and
may find missing, e.g. a 404 from an endpoint another version adds).
"""

import base64
import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import time


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, width=1400, height=1000, allow_http_errors=None):
        self.exe = chromium_path()
        if not self.exe:
            raise BrowserError("chromium is not installed (scripts/deps.sh test)")
        self.width, self.height = width, height
        self.allow = re.compile(allow_http_errors) if allow_http_errors else None
        self.problems = []
        self.console = []
        self._id = 0
        self._buf = b""
        self._events = []

    # -- process and pipe ------------------------------------------------
    def __enter__(self):
        self.profile = tempfile.mkdtemp(prefix="hpod-chromium-")
        r_in, w_in = os.pipe()    # we write, chromium reads (its fd 3)
        r_out, w_out = os.pipe()  # chromium writes (its fd 4), we read

        def child_fds():
            # Through fds >= 10 first, so neither dup2 clobbers the other's
            # source; pass_fds=(3, 4) keeps them open across the exec.
            a = fcntl.fcntl(r_in, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(w_out, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [self.exe, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--metrics-recording-only", "--mute-audio",
                "--hide-scrollbars", "--user-data-dir=" + self.profile,
                "--window-size=%d,%d" % (self.width, self.height), "about:blank"]
        self.log = open(os.path.join(self.profile, "stderr.log"), "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=self.log, preexec_fn=child_fds,
                                     pass_fds=(3, 4))
        os.close(r_in)
        os.close(w_out)
        self.w, self.r = w_in, r_out
        targets = self.send("Target.getTargets")["targetInfos"]
        page = [t for t in targets if t["type"] == "page"]
        tid = page[0]["targetId"] if page else self.send(
            "Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=tid,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.page(domain + ".enable")
        self.page("Emulation.setDeviceMetricsOverride", width=self.width,
                  height=self.height, deviceScaleFactor=1, mobile=False)
        return self

    def __exit__(self, *exc):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.w, self.r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)
        return False

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from chromium in time")
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    raise BrowserError("chromium closed the pipe (exit %r)" % self.proc.poll())
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def _event(self, m):
        method, p = m.get("method"), m.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            self.console.append((p.get("type"), text))
            if p.get("type") in ("error", "assert"):
                self.problems.append("console.%s: %s" % (p.get("type"), text))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            exc = d.get("exception", {}).get("description") or d.get("text")
            self.problems.append("uncaught: %s (%s:%s)" % (exc, d.get("url"), d.get("lineNumber")))
        elif method == "Log.entryAdded":
            e = p.get("entry", {})
            if e.get("level") == "error":
                url = e.get("url") or ""
                if not (e.get("source") == "network" and self.allow and self.allow.search(url)):
                    self.problems.append("log %s: %s %s" % (e.get("source"), e.get("text"), url))
        elif method == "Network.loadingFailed":
            if not p.get("canceled"):
                self.problems.append("load failed: %s" % p.get("errorText"))
        else:
            self._events.append(m)

    def send(self, method, session=None, timeout=30, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            n = os.write(self.w, data)
            data = data[n:]
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise BrowserError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self._event(m)

    def page(self, method, timeout=30, **params):
        return self.send(method, session=self.session, timeout=timeout, **params)

    def pump(self, seconds):
        """Reads events for a while (console messages arrive as events)."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                m = self._read_message(deadline)
                if "method" in m:
                    self._event(m)
        except BrowserError as e:
            if "in time" not in str(e):
                raise

    # -- what tests use --------------------------------------------------
    def goto(self, url):
        self.page("Page.navigate", url=url)

    def eval(self, expr):
        r = self.page("Runtime.evaluate", expression=expr, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise BrowserError("evaluating %r: %s" % (expr, r["exceptionDetails"].get("text")))
        return r.get("result", {}).get("value")

    def wait_for(self, expr, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.eval(expr):
                    return
            except BrowserError:
                pass  # the page is still loading
            self.pump(0.1)
        raise BrowserError("timed out waiting for %s" % expr)

    def screenshot_of(self, selector, path, pad=8):
        """A screenshot of the element selector matches (e.g. one panel)."""
        box = self.eval("(() => { const r = document.querySelector(%s).getBoundingClientRect();"
                        " return [r.left + window.scrollX, r.top + window.scrollY, r.width,"
                        " r.height]; })()" % json.dumps(selector))
        clip = {"x": max(0, box[0] - pad), "y": max(0, box[1] - pad), "width": box[2] + 2 * pad,
                "height": box[3] + 2 * pad, "scale": 1}
        r = self.page("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                      clip=clip)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))
        return path

    def download_to(self, directory):
        """Files the page downloads go to directory, under their own names."""
        self.send("Browser.setDownloadBehavior", behavior="allow", downloadPath=directory)

    def screenshot(self, path):
        size = self.page("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": max(size["width"], self.width),
                "height": min(size["height"], 8000), "scale": 1}
        r = self.page("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                      clip=clip)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))
        return path
