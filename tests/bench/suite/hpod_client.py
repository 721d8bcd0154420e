"""tests/bench/suite/hpod_client.py - the suite's side of hpod over HTTP
(Python standard library only): real studies driven by suggest and report,
imported tables and simulate, as a user's client does them."""
import json
import urllib.error
import urllib.request


class HpodError(Exception):
    def __init__(self, status, body):
        super().__init__("HTTP %d: %s" % (status, json.dumps(body)[:400]))
        self.status, self.body = status, body


class Hpod:
    def __init__(self, url, timeout=1800):
        self.url = url.rstrip("/")
        self.timeout = timeout

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data,
                                     method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                text = r.read()
                return r.status, json.loads(text) if text else None
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                return e.code, json.loads(text)
            except ValueError:
                return e.code, {"text": text.decode(errors="replace")}

    def ok(self, method, path, body=None):
        st, js = self.call(method, path, body)
        if st // 100 != 2:
            raise HpodError(st, js)
        return js

    def run_study(self, name, space, algorithm, budget, evaluate):
        """Creates a study of `space` minimizing y with `algorithm` (None:
        omitted, i.e. auto), asks suggest and reports evaluate(params) until
        the budget is spent. Returns (values in order, the stored
        algorithm)."""
        body = {"name": name, "space": space, "budget": budget,
                "objectives": [{"name": "y", "goal": "minimize"}]}
        if algorithm is not None:
            body["algorithm"] = algorithm
        st = self.ok("POST", "/v1/studies", body)
        sid, ys = st["id"], []
        while len(ys) < budget:
            ans = self.ok("POST", "/v1/studies/%d/suggest" % sid,
                          {"worker": "suite", "count": 1})
            if ans.get("done") or not ans["trials"]:
                break
            t = ans["trials"][0]
            y = evaluate(t["params"])
            self.ok("POST", "/v1/trials/%d/report" % t["id"],
                    {"values": {"y": y}})
            ys.append(y)
        self.call("DELETE", "/v1/studies/%d" % sid)
        return ys, st.get("algorithm")

    def accepts_condition(self, space):
        """Whether the server takes a space with `condition` (issue 29);
        (True, None) or (False, its error message)."""
        st, js = self.call("POST", "/v1/studies", {
            "name": "suite condition probe", "space": space,
            "objectives": [{"name": "y", "goal": "minimize"}], "budget": 1})
        if st // 100 == 2:
            self.call("DELETE", "/v1/studies/%d" % js["id"])
            return True, None
        return False, (js or {}).get("error", {}).get("message", str(st))

    def import_table(self, body):
        st, js = self.call("POST", "/v1/benchmarks", body)
        if st == 409:  # imported before on this database: same rows
            return
        if st // 100 != 2:
            raise HpodError(st, js)

    def simulate(self, table, algorithm, repeats, seed, init):
        """One simulate call (synchronous); the answer."""
        body = {"repeats": repeats, "seed": seed, "init": init,
                "objectives": [{"name": "bleu", "goal": "maximize"}]}
        if algorithm is not None:
            body["algorithm"] = algorithm
        return self.ok("POST", "/v1/benchmarks/%s/simulate" % table, body)
