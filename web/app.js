/*
 * web/app.js - the hpod dashboard (served at /, docs/dashboard.md).
 *
 * A plain script, no build step: it reads the same /v1 endpoints as any
 * client (openapi/openapi.json) and draws with Apache ECharts
 * (web/vendor/echarts.min.js, the global `echarts`). Views, by URL hash:
 *   #/            the study list
 *   #/study/ID    one study: best so far, Pareto front and hypervolume,
 *                 learning curves, parallel coordinates, slices,
 *                 importance, the trials table with explanations
 * Every POLL_MS it reads the view's data again; the next read starts only
 * when the last one has finished, so requests never pile up. A 401 asks
 * for a token (kept in sessionStorage, or localStorage when asked to
 * remember it) and sends it as "Authorization: Bearer"; a 503 (database
 * down) keeps the last data on screen under a banner.
 *
 * For tests, window.hpodDash exposes the state of the page: `renders`
 * (views drawn without error), `view`, and series(name), the number of
 * data items of each series that chart `name` holds.
 */
"use strict";

(function () {
  const POLL_MS = 5000;
  const TOKEN_KEY = "hpod_token";
  const charts = new Map(); /* chart name -> echarts instance */
  const bestCache = new Map(); /* study id -> {key, value} */
  const sortState = { key: "number", dir: 1 };
  /* Explanations are recorded when a trial is suggested and never change:
   * kept by trial id, and the rows whose explanation is open stay open
   * across refreshes. */
  const explained = new Map(); /* trial id -> text */
  const explainOpen = new Set();
  const dash = {
    renders: 0,
    view: "",
    failures: 0,
    series(name) {
      const c = charts.get(name);
      if (!c) return null;
      const out = {};
      let marks = 0;
      for (const s of c.getOption().series || []) {
        out[s.name || s.type] = (s.data || []).length;
        marks += s.markPoint && s.markPoint.data ? s.markPoint.data.length : 0;
      }
      if (marks) out["#marks"] = marks;
      return out;
    },
    charts() {
      return Array.from(charts.keys());
    },
    refresh() {
      refresh(false);
    },
  };
  window.hpodDash = dash;

  let token = sessionStorage.getItem(TOKEN_KEY) || localStorage.getItem(TOKEN_KEY) || "";
  let generation = 0; /* bumped on every view change: stale reads are dropped */
  let timer = null;

  class ApiError extends Error {
    constructor(status, body, path) {
      const e = body && body.error;
      super(e ? e.message : "HTTP " + status + " for " + path);
      this.status = status;
      this.code = e ? e.code : "";
    }
  }

  async function api(path) {
    const headers = { Accept: "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    let r;
    try {
      r = await fetch(path, { headers: headers, cache: "no-store" });
    } catch (e) {
      throw new ApiError(0, null, path);
    }
    let body = null;
    try {
      body = await r.json();
    } catch (e) {
      body = null;
    }
    if (!r.ok) throw new ApiError(r.status, body, path);
    return body;
  }

  /* For routes a server may not have (importance, explain): null on 404
   * or 405 instead of an error. */
  async function optional(path) {
    try {
      return await api(path);
    } catch (e) {
      if (e.status === 404 || e.status === 405) return null;
      throw e;
    }
  }

  /* ---- small DOM helpers ---- */
  function el(tag, attrs, ...kids) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") n.className = v;
      else if (k === "text") n.textContent = v;
      else if (k.startsWith("on")) n.addEventListener(k.slice(2), v);
      else n.setAttribute(k, v);
    }
    for (const k of kids) if (k !== null && k !== undefined) n.append(k);
    return n;
  }
  const $ = (id) => document.getElementById(id);

  function fmt(v) {
    if (v === null || v === undefined) return "";
    if (typeof v !== "number") return String(v);
    if (Number.isInteger(v)) return String(v);
    const a = Math.abs(v);
    return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(3) : String(+v.toPrecision(5));
  }
  function ago(ts) {
    if (!ts) return "";
    const s = (Date.now() - Date.parse(ts)) / 1000;
    if (s < 90) return Math.max(0, Math.round(s)) + " s ago";
    if (s < 5400) return Math.round(s / 60) + " min ago";
    if (s < 129600) return Math.round(s / 3600) + " h ago";
    return ts.slice(0, 10);
  }

  function banner(text) {
    const b = $("banner");
    b.textContent = text || "";
    b.hidden = !text;
  }

  /* ---- charts ---- */
  function chart(name, host, option) {
    let c = charts.get(name);
    if (c && c.getDom() !== host) {
      c.dispose();
      c = null;
    }
    if (!c) {
      c = echarts.init(host, null, { renderer: "canvas" });
      charts.set(name, c);
    }
    c.setOption(Object.assign({ animation: false }, option), true);
    return c;
  }
  function dropCharts() {
    for (const c of charts.values()) c.dispose();
    charts.clear();
  }
  window.addEventListener("resize", () => {
    for (const c of charts.values()) c.resize();
  });

  function panel(id, title, cls) {
    return el("section", { class: "panel", id: "panel-" + id },
      el("h2", { text: title }), el("div", { class: "chart " + (cls || ""), id: "chart-" + id }));
  }
  function notAvailable(id, text) {
    const host = $("chart-" + id);
    if (!host) return;
    const c = charts.get(id);
    if (c) {
      c.dispose();
      charts.delete(id);
    }
    host.replaceWith(el("div", { class: "na", id: "chart-" + id, text: text }));
  }
  function chartHost(id) {
    let host = $("chart-" + id);
    if (host && host.classList.contains("na")) {
      const fresh = el("div", { class: "chart", id: "chart-" + id });
      host.replaceWith(fresh);
      host = fresh;
    }
    return host;
  }

  /* ---- the study list ---- */
  function counts(c) {
    const order = ["completed", "running", "pending", "paused", "waiting", "failed", "pruned"];
    return el("span", { class: "counts" },
      ...order.filter((k) => c[k]).map((k) => el("span", { text: k + " " + c[k] })));
  }

  async function bestOf(s) {
    if (s.objectives.length !== 1 || !s.trial_counts.completed) return null;
    const key = s.trial_counts.completed + "/" + (s.last_activity || "");
    const hit = bestCache.get(s.id);
    if (hit && hit.key === key) return hit.value;
    const b = await api("/v1/studies/" + s.id + "/best");
    const v = b.trial ? b.trial.values[s.objectives[0].name] : null;
    bestCache.set(s.id, { key: key, value: v });
    return v;
  }

  async function renderList(gen) {
    const list = await api("/v1/studies?limit=200");
    const bests = await Promise.all(list.studies.map(bestOf));
    if (gen !== generation) return;
    const rows = list.studies.map((s, i) => el("tr", {},
      el("td", {}, el("a", { href: "#/study/" + s.id, text: s.name })),
      el("td", { text: s.lab }),
      el("td", {}, el("span", { class: "state state-" + s.state, text: s.state })),
      el("td", { text: algoName(s.algorithm) + (s.benchmark ? " on " + s.benchmark : ""),
                 title: s.algorithm.reason || "" }),
      el("td", {}, counts(s.trial_counts)),
      el("td", { class: "num", text: bests[i] === null ? "" :
        fmt(bests[i]) + " (" + s.objectives[0].goal.slice(0, 3) + ")" }),
      el("td", { text: ago(s.last_activity || s.created_at),
        title: s.last_activity || s.created_at })));
    const main = $("main");
    main.replaceChildren(
      el("h1", { text: "Studies" }),
      el("p", { class: "muted", text: list.total + " studies" +
        (list.total > list.studies.length ? ", the newest " + list.studies.length + " shown" : "") }),
      el("table", { id: "studies" },
        el("thead", {}, el("tr", {}, ...["name", "lab", "state", "algorithm", "trials",
          "best value", "last activity"].map((h) => el("th", { text: h })))),
        el("tbody", {}, ...rows)));
  }

  /* ---- one study ---- */
  async function allTrials(id) {
    const out = [];
    for (let offset = 0; ; ) {
      const page = await api("/v1/studies/" + id + "/trials?limit=10000&offset=" + offset);
      out.push(...page.trials);
      offset += page.trials.length;
      if (!page.trials.length || offset >= page.total) return out;
    }
  }

  function studySkeleton(s) {
    const mo = s.objectives.length >= 2;
    const grid1 = el("div", { class: "grid" });
    if (mo) {
      grid1.append(panel("pareto", "Pareto front: " + s.objectives[0].name + " vs " + s.objectives[1].name),
        panel("hypervolume", "Hypervolume after each completed trial"));
    } else {
      grid1.append(panel("best", "Best so far (" + s.objectives[0].name + ", " +
        s.objectives[0].goal + ") against trial number"));
    }
    grid1.append(panel("curves", "Learning curves (intermediate reports)"));
    const grid2 = el("div", { class: "grid" },
      panel("parallel", "Parallel coordinates (completed trials)", "tall"),
      panel("importance", "Parameter importance"));
    return el("div", { id: "study" },
      el("h1", { id: "study-title" }),
      el("div", { class: "facts", id: "facts" }),
      grid1, grid2,
      el("section", { class: "panel", id: "panel-slices" },
        el("h2", { text: "Slices: objective against each parameter" }),
        el("div", { class: "grid", id: "slices" })),
      el("div", { class: "grid", id: "shapes" }),
      el("section", { class: "panel", id: "panel-trials" },
        el("h2", { text: "Trials" }), el("div", { id: "trials" })));
  }

  function objectiveValue(s, t) {
    const v = t.values[s.objectives[0].name];
    return typeof v === "number" ? v : null;
  }

  function renderBest(s, done) {
    const goal = s.objectives[0].goal;
    const pts = [];
    const best = [];
    let b = null;
    for (const t of done) {
      const v = objectiveValue(s, t);
      if (v === null) continue;
      pts.push([t.number, v, t.id]);
      if (b === null || (goal === "maximize" ? v > b : v < b)) b = v;
      best.push([t.number, b]);
    }
    chart("best", chartHost("best"), {
      tooltip: { trigger: "item" },
      legend: { top: 0 },
      grid: { left: 60, right: 20, top: 30, bottom: 40 },
      xAxis: { type: "value", name: "trial number", nameLocation: "middle", nameGap: 25 },
      yAxis: { type: "value", name: s.objectives[0].name, scale: true },
      series: [
        { name: "completed trials", type: "scatter", data: pts, symbolSize: 7 },
        { name: "best so far", type: "line", step: "end", data: best, symbol: "none" },
      ],
    });
  }

  async function renderPareto(s, done, gen) {
    const [o0, o1] = s.objectives;
    const [p, bench] = await Promise.all([
      api("/v1/studies/" + s.id + "/pareto?history=true"),
      s.benchmark ? optional("/v1/benchmarks/" + s.benchmark + "?pareto_values=true") : null,
    ]);
    if (gen !== generation) return;
    const onFront = new Set(p.front.map((f) => f.trial));
    const all = done.filter((t) => !onFront.has(t.id) && o0.name in t.values && o1.name in t.values)
      .map((t) => [t.values[o0.name], t.values[o1.name], t.id]);
    const front = p.front.map((f) => [f.values[o0.name], f.values[o1.name], f.trial])
      .sort((a, b) => a[0] - b[0]);
    const series = [
      { name: "other trials", type: "scatter", data: all, symbolSize: 7, itemStyle: { color: "#9aa5b1" } },
      { name: "front found", type: "line", data: front, symbolSize: 10,
        lineStyle: { width: 1 }, itemStyle: { color: "#d9480f" } },
    ];
    if (bench && Array.isArray(bench.pareto_values)) {
      const tf = bench.pareto_values.filter((r) => o0.name in r.values && o1.name in r.values)
        .map((r) => [r.values[o0.name], r.values[o1.name], r.row]).sort((a, b) => a[0] - b[0]);
      series.push({ name: "true front (" + s.benchmark + ")", type: "line", data: tf, symbol: "diamond",
        symbolSize: 9, lineStyle: { type: "dashed", width: 1 }, itemStyle: { color: "#2b8a3e" } });
    }
    chart("pareto", chartHost("pareto"), {
      tooltip: { trigger: "item" },
      legend: { top: 0 },
      grid: { left: 60, right: 20, top: 40, bottom: 40 },
      xAxis: { type: "value", name: o0.name + " (" + o0.goal + ")", nameLocation: "middle", nameGap: 25, scale: true },
      yAxis: { type: "value", name: o1.name + " (" + o1.goal + ")", scale: true },
      series: series,
    });
    chart("hypervolume", chartHost("hypervolume"), {
      tooltip: { trigger: "axis" },
      grid: { left: 60, right: 20, top: 30, bottom: 40 },
      xAxis: { type: "value", name: "completed trials", nameLocation: "middle", nameGap: 25 },
      yAxis: { type: "value", name: "hypervolume", scale: true },
      series: [{ name: "hypervolume", type: "line", step: "end",
        data: (p.history || []).map((h) => [h.n_completed, h.hypervolume]) }],
    });
  }

  /* Where a multi-fidelity rule acted on a trial, from what the trial
   * shows: paused or pruned at its last report; multistage trials that
   * went past a stage's steps were paused there and resumed. */
  /* Where the multi-fidelity rules acted on a trial, from what each
   * intermediate report was answered: a "stop" at the last step stopped
   * (pruned) or paused the trial; a "stop" with later steps means the
   * trial was resumed there (an ASHA promotion, a multistage seed). */
  function curveMarks(t, metric) {
    const marks = [];
    const steps = t.intermediate.filter((iv) => metric in iv.values);
    steps.forEach((iv, k) => {
      if (iv.action !== "stop") return;
      const name = k < steps.length - 1 || !["pruned", "paused"].includes(t.state) ? "resumed"
        : t.state === "pruned" ? "stopped" : "paused";
      marks.push({ name: name, coord: [iv.step, iv.values[metric]] });
    });
    return marks;
  }

  function renderCurves(s, trials) {
    const withSteps = trials.filter((t) => t.intermediate.length);
    if (!withSteps.length) {
      notAvailable("curves", "No intermediate reports in this study.");
      return;
    }
    const metric = s.objectives[0].name;
    const symbols = { paused: "path://M0,0L10,0L5,10Z", stopped: "triangle", resumed: "diamond" };
    const series = withSteps.map((t) => ({
      name: "trial " + t.number, type: "line", showSymbol: false,
      data: t.intermediate.filter((iv) => metric in iv.values).map((iv) => [iv.step, iv.values[metric]]),
      markPoint: { symbolSize: 18, data: curveMarks(t, metric).map((m) =>
        Object.assign({ symbol: symbols[m.name], label: { show: false } }, m)) },
    }));
    chart("curves", chartHost("curves"), {
      tooltip: { trigger: "item" },
      title: { subtext: "\u25B2 stopped   \u25BC paused   \u25C6 resumed", right: 10, top: -10 },
      grid: { left: 60, right: 20, top: 30, bottom: 40 },
      xAxis: { type: "value", name: "step", nameLocation: "middle", nameGap: 25 },
      yAxis: { type: "value", name: metric, scale: true },
      series: series,
    });
  }

  function renderParallel(s, done) {
    if (!done.length) {
      notAvailable("parallel", "No completed trials yet.");
      return;
    }
    const dims = s.space.map((p) => p.name).concat(s.objectives.map((o) => o.name));
    const axes = dims.map((d, i) => {
      const p = s.space[i];
      if (p && p.type === "categorical") return { dim: i, name: d, type: "category", data: p.choices };
      return { dim: i, name: d, type: p && p.log ? "log" : "value", scale: true };
    });
    const data = done.map((t) => dims.map((d, i) => (i < s.space.length ? t.params[d] : t.values[d])));
    chart("parallel", chartHost("parallel"), {
      parallel: { left: 50, right: 80, top: 40, bottom: 30 },
      parallelAxis: axes,
      series: [{ name: "completed trials", type: "parallel", data: data, lineStyle: { width: 1, opacity: 0.6 } }],
    });
  }

  function renderSlices(s, done) {
    const host = $("slices");
    const metric = s.objectives[0].name;
    for (const p of s.space) {
      const id = "slice-" + p.name;
      if (!$("chart-" + id)) host.append(panel(id, p.name));
      const cat = p.type === "categorical";
      const pts = done.filter((t) => metric in t.values && p.name in t.params)
        .map((t) => [t.params[p.name], t.values[metric], t.number]);
      chart(id, chartHost(id), {
        tooltip: { trigger: "item" },
        grid: { left: 60, right: 20, top: 30, bottom: 40 },
        xAxis: cat ? { type: "category", data: p.choices, name: p.name, nameLocation: "middle", nameGap: 25 } :
          { type: p.log ? "log" : "value", name: p.name, scale: true, nameLocation: "middle", nameGap: 25 },
        yAxis: { type: "value", name: metric, scale: true },
        series: [{ name: "completed trials", type: "scatter", data: pts, symbolSize: 7,
          itemStyle: { opacity: 0.75 } }],
      });
    }
  }

  /* GET /v1/studies/{id}/importance, read again only when the study
   * changed: the last answer is kept with its ETag and sent back in
   * If-None-Match, so an unchanged study answers 304 and is drawn from
   * the kept one (study/importance.h). {unavailable: why} when the study
   * cannot be modelled yet (409: too few completed trials), at all (422)
   * or not yet (202: a big study's fit is under way); null when the
   * server has no such route. */
  const importanceKept = new Map();
  async function importance(id) {
    const path = "/v1/studies/" + id + "/importance";
    const kept = importanceKept.get(id);
    const headers = { Accept: "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    if (kept) headers["If-None-Match"] = kept.etag;
    let r;
    try {
      r = await fetch(path, { headers: headers, cache: "no-store" });
    } catch (e) {
      throw new ApiError(0, null, path);
    }
    if (r.status === 304 && kept) return kept.body;
    let body = null;
    try {
      body = await r.json();
    } catch (e) {
      body = null;
    }
    if (r.status === 202) return kept ? kept.body : { unavailable: "being computed; it is shown when ready" };
    if (r.status === 404 || r.status === 405) return null;
    if (r.status === 409 || r.status === 422) return { unavailable: new ApiError(r.status, body, path).message };
    if (!r.ok) throw new ApiError(r.status, body, path);
    const etag = r.headers.get("ETag");
    if (etag && !body.stale) importanceKept.set(id, { etag: etag, body: body });
    return body;
  }

  /* Importance bars per parameter (mean |contribution| of its term in the
   * additive model), the strongest pairs, and a shape function per
   * parameter: its contribution at each value. */
  function renderImportance(s, imp) {
    const shapes = $("shapes");
    if (!imp || imp.unavailable) {
      notAvailable("importance", imp ? "Importance: " + imp.unavailable
        : "Importance is not available on this server.");
      for (const name of Array.from(charts.keys()).filter((k) => k.startsWith("shape-"))) {
        charts.get(name).dispose();
        charts.delete(name);
      }
      shapes.replaceChildren();
      return;
    }
    const pairs = imp.pairs.slice(0, 3).map((q) =>
      q.parameters.join(" \u00D7 ") + " " + fmt(q.importance)).join(", ");
    const params = imp.parameters.slice().sort((a, b) => a.importance - b.importance);
    chart("importance", chartHost("importance"), {
      tooltip: { trigger: "item" },
      title: { subtext: pairs ? "top pairs: " + pairs : "", left: "center", bottom: 0 },
      grid: { left: 110, right: 30, top: 10, bottom: 50 },
      xAxis: { type: "value", name: "mean |contribution|", nameLocation: "middle", nameGap: 22 },
      yAxis: { type: "category", data: params.map((p) => p.name) },
      series: [{ name: "importance", type: "bar", data: params.map((p) => p.importance) }],
    });
    for (const p of params.slice().reverse()) {
      const spec = s.space.find((q) => q.name === p.name) || {};
      const pts = p.shape.map((q) => [q.value, q.contribution]);
      if (!pts.length) continue;
      const id = "shape-" + p.name;
      if (!$("chart-" + id)) shapes.append(panel(id, "Shape function: " + p.name));
      const cat = pts.some((q) => typeof q[0] === "string");
      chart(id, chartHost(id), {
        tooltip: { trigger: "axis" },
        grid: { left: 60, right: 20, top: 30, bottom: 40 },
        xAxis: { type: cat ? "category" : (spec.log ? "log" : "value"), name: p.name, scale: !cat,
          nameLocation: "middle", nameGap: 25 },
        yAxis: { type: "value", name: "contribution" },
        series: [{ name: "shape", type: cat ? "bar" : "line", step: cat ? undefined : "middle", data: pts }],
      });
    }
  }

  /* ---- the trials table ---- */
  function trialColumns(s) {
    const cols = [
      { key: "number", label: "#", get: (t) => t.number },
      { key: "id", label: "id", get: (t) => t.id },
      { key: "state", label: "state", get: (t) => t.state },
      { key: "origin", label: "origin", get: (t) => t.origin },
    ];
    for (const p of s.space) cols.push({ key: "p:" + p.name, label: p.name, get: (t) => t.params[p.name] });
    for (const o of s.objectives) cols.push({ key: "v:" + o.name, label: o.name, get: (t) => t.values[o.name] });
    cols.push({ key: "steps", label: "last step", get: (t) =>
      (t.intermediate.length ? t.intermediate[t.intermediate.length - 1].step : undefined) });
    cols.push({ key: "worker", label: "worker", get: (t) => t.worker });
    cols.push({ key: "updated", label: "updated", get: (t) => t.updated_at });
    return cols;
  }

  function compare(a, b) {
    if (a === b) return 0;
    if (a === undefined || a === null) return 1;
    if (b === undefined || b === null) return -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b));
  }

  /* ---- GET /v1/trials/{id}/explain as a short text block ---- */
  const CHOOSERS = {
    model: "the model",
    initial_random: "random (initial design)",
    fallback_random: "random (the model could not be fitted)",
    greedy: "greedy (nearest to the best)",
    random: "the random sampler",
    user: "a user (enqueued)",
    added: "a user (added with values)",
    unrecorded: "not recorded",
  };

  function xnum(v) {
    if (v === null || v === undefined) return "n/a";
    return typeof v === "number" ? String(Number(v.toPrecision(4))) : String(v);
  }

  function xpoint(p) {
    const where = p.candidate !== undefined ? "candidate " + p.candidate
      : p.params ? JSON.stringify(p.params) : "this trial";
    return where + ": acquisition " + xnum(p.acquisition) + ", mean " + xnum(p.mean) +
      ", sd " + xnum(p.sd);
  }

  function xsuggest(d, lines) {
    let line = "suggested by " + (CHOOSERS[d.chooser] || d.chooser);
    if (d.sampler && d.sampler !== "random")
      line += " [" + d.sampler + (d.acquisition ? ", " + d.acquisition : "") + "]";
    if (d.seed !== undefined) line += ", seed " + d.seed + ", stream " + d.stream;
    lines.push(line);
    if (d.n_observations !== undefined) {
      let k = "  knew " + d.n_observations + " observations, " + d.n_pending + " pending";
      if (d.incumbent !== null && d.incumbent !== undefined)
        k += "; incumbent " + xnum(d.incumbent) + " (" + d.units + ")";
      lines.push(k);
    }
    if (d.chooser === "model" && d.chosen) {
      lines.push("  chosen " + xpoint(d.chosen));
      for (const r of d.runners_up || []) lines.push("  runner-up " + xpoint(r));
    }
  }

  // The method a study runs: auto's choice shows as "graph (auto)".
  function algoName(a) {
    return a.chosen ? a.chosen.name + " (auto)" : a.name;
  }

  function explainText(e) {
    const lines = ["trial #" + e.number + " (" + e.origin + "), algorithm " + algoName(e.algorithm)];
    for (const d of e.decisions) {
      const rank = d.rank !== undefined && d.rank !== null ? "rank " + d.rank +
        (d.of !== undefined && d.of !== null ? " of " + d.of : "") : "";
      const cut = d.cut !== undefined && d.cut !== null ? ", top " + d.cut + " pass" : "";
      if (d.kind === "suggest") xsuggest(d, lines);
      else if (d.kind === "promote")
        lines.push((d.rung !== undefined ? "promoted at rung " + d.rung : "resumed in stage " + d.stage) +
          " (step " + d.step + "): " + rank + cut + "; resumes from step " + d.resume_from_step);
      else if (d.kind === "stop")
        lines.push("stopped at step " + d.step + (d.rung !== undefined && d.rung !== null
          ? " (rung " + d.rung + ": " + rank + cut + ")"
          : d.reason ? " (stage " + d.stage + ": " + d.reason + ")"
          : d.stage !== undefined ? " (end of stage " + d.stage + ")" : ""));
      else if (d.kind === "stage")
        lines.push("seeded into stage " + d.stage + " (" + d.steps + " steps): " + rank + " of the top " + d.k);
      if (d.recorded) lines[lines.length - 1] += "  @ " + d.at;
    }
    return lines.join("\n");
  }

  async function explain(t, box) {
    if (explained.has(t.id)) {
      box.textContent = explained.get(t.id);
      return;
    }
    box.textContent = "loading...";
    try {
      const e = await optional("/v1/trials/" + t.id + "/explain");
      const text = e ? explainText(e) : "Explanations are not available on this server.";
      if (e) explained.set(t.id, text);
      box.textContent = text;
    } catch (err) {
      box.textContent = "Could not read the explanation: " + err.message;
    }
  }

  function renderTrials(s, trials) {
    const cols = trialColumns(s);
    const col = cols.find((c) => c.key === sortState.key) || cols[0];
    const rows = trials.slice().sort((a, b) => {
      const c = compare(col.get(a), col.get(b));
      return c === 0 ? a.number - b.number : (c * sortState.dir);
    });
    const head = el("tr", {}, ...cols.map((c) => el("th", {
      class: c.key === col.key ? (sortState.dir > 0 ? "sorted-asc" : "sorted-desc") : "",
      "data-key": c.key, text: c.label,
      onclick: () => {
        sortState.dir = sortState.key === c.key ? -sortState.dir : 1;
        sortState.key = c.key;
        renderTrials(s, trials);
      },
    })), el("th", { text: "why" }));
    const body = rows.map((t) => {
      const box = el("pre", { class: "explain" });
      const det = el("details", {}, el("summary", { text: "explain" }), box);
      det.addEventListener("toggle", () => {
        if (det.open) {
          explainOpen.add(t.id);
          explain(t, box);
        } else explainOpen.delete(t.id);
      });
      if (explainOpen.has(t.id)) det.open = true;
      return el("tr", { "data-trial": String(t.id) },
        ...cols.map((c) => {
          const v = c.get(t);
          const num = typeof v === "number";
          return el("td", { class: num ? "num" : "", text: c.key === "updated" ? ago(v) : fmt(v) });
        }),
        el("td", {}, det));
    });
    $("trials").replaceChildren(el("table", { id: "trials-table" }, el("thead", {}, head), el("tbody", {}, ...body)));
  }

  async function renderStudy(id, gen, fresh) {
    const [s, trials, imp] = await Promise.all([
      api("/v1/studies/" + id),
      allTrials(id),
      importance(id),
    ]);
    if (gen !== generation) return;
    if (fresh) {
      dropCharts();
      sortState.key = "number";
      sortState.dir = 1;
      $("main").replaceChildren(studySkeleton(s));
    }
    $("crumb").textContent = "/ " + s.name;
    $("study-title").textContent = s.name;
    const done = trials.filter((t) => t.state === "completed").sort((a, b) => a.number - b.number);
    $("facts").replaceChildren(
      el("span", {}, "lab ", el("b", { text: s.lab })),
      el("span", {}, "state ", el("span", { class: "state state-" + s.state, text: s.state })),
      el("span", { text: "algorithm " + JSON.stringify(s.algorithm) }),
      el("span", { text: s.benchmark ? "benchmark " + s.benchmark : "" }),
      el("span", { text: "objectives " + s.objectives.map((o) => o.name + " (" + o.goal + ")").join(", ") }),
      el("span", { text: "budget " + (s.budget === null ? "none" : s.budget) }),
      counts(s.trial_counts));
    if (s.objectives.length >= 2) await renderPareto(s, done, gen);
    else renderBest(s, done);
    if (gen !== generation) return;
    renderCurves(s, trials);
    renderParallel(s, done);
    renderSlices(s, done);
    renderImportance(s, imp);
    renderTrials(s, trials);
  }

  /* ---- refresh loop and routing ---- */
  function route() {
    const m = /^#\/study\/(\d+)$/.exec(location.hash);
    return m ? { view: "study", id: m[1] } : { view: "list" };
  }

  async function refresh(fresh) {
    clearTimeout(timer);
    timer = null;
    const gen = generation;
    const r = route();
    try {
      if (r.view === "study") await renderStudy(r.id, gen, fresh);
      else {
        if (fresh) {
          dropCharts();
          $("crumb").textContent = "";
        }
        await renderList(gen);
      }
      if (gen !== generation) return;
      banner("");
      dash.view = r.view === "study" ? "study/" + r.id : "list";
      dash.renders++;
      $("refreshed").textContent = "updated " + new Date().toLocaleTimeString();
    } catch (e) {
      if (gen !== generation) return;
      dash.failures++;
      if (e.status === 401) {
        $("login").hidden = false;
        banner(token ? "The token was refused (401): enter another one." : "");
        return; /* polling resumes once a token is given */
      }
      if (e.status === 503) banner("The database is unavailable (503). The data shown may be stale; retrying every " + POLL_MS / 1000 + " s.");
      else if (e.status === 0) banner("hpod cannot be reached; retrying every " + POLL_MS / 1000 + " s.");
      else if (e.status === 403) banner("This token may not read this (403): " + e.message);
      else if (e.status === 404 && r.view === "study") banner("No study " + r.id + " (404).");
      else banner("Error " + e.status + ": " + e.message);
    }
    if (gen === generation) timer = setTimeout(() => refresh(false), POLL_MS);
  }

  function navigate() {
    generation++;
    refresh(true);
  }

  function start() {
    $("login").addEventListener("submit", (ev) => {
      ev.preventDefault();
      token = $("token").value.trim();
      sessionStorage.setItem(TOKEN_KEY, token);
      if ($("remember").checked) localStorage.setItem(TOKEN_KEY, token);
      $("login").hidden = true;
      $("forget").hidden = false;
      navigate();
    });
    $("forget").hidden = !token;
    $("forget").addEventListener("click", () => {
      token = "";
      sessionStorage.removeItem(TOKEN_KEY);
      localStorage.removeItem(TOKEN_KEY);
      $("forget").hidden = true;
      navigate();
    });
    window.addEventListener("hashchange", navigate);
    navigate();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
