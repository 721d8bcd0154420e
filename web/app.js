/*
 * web/app.js - the hpod dashboard (served at /; README.md "The dashboard").
 *
 * Plain scripts, no build step: they read the same /v1 endpoints as any
 * client (openapi/openapi.json) and draw with Apache ECharts
 * (web/vendor/echarts.min.js, the global `echarts`). This file holds the
 * API access, the helpers the others share (window.hpodApp), routing, the
 * refresh loop and one study's view with its first charts; web/list.js
 * draws the study list, web/plots.js the contour, EDF and timeline plots,
 * web/trials.js the trials table, web/audit.js the audit log (admins).
 * Views, by URL hash:
 *   #/?q=&lab=&state=  the study list (search, filters, pages)
 *   #/study/ID         one study: best so far, Pareto front and
 *                      hypervolume, learning curves, parallel coordinates,
 *                      importance, contour, EDF, timeline, slices, the
 *                      trials table (filters, reasons, notes, CSV)
 * Every POLL_MS it reads the view's data again; the next read starts only
 * when the last one has finished, so requests never pile up. A 401 asks
 * for a token (kept in sessionStorage, or localStorage when asked to
 * remember it) and sends it as "Authorization: Bearer"; a 503 (database
 * down) keeps the last data on screen under a banner. The page runs under
 * a Content-Security-Policy of 'self' only: no inline script or style, no
 * HTML built from strings (tooltips are drawn on the canvas).
 *
 * For tests, window.hpodDash exposes the state of the page: `renders`
 * (views drawn without error), `view`, series(name) (the number of data
 * items of each series chart `name` holds), data(name, series), axes(name)
 * and range(name) (a chart's axis names and colour scale); apiPage and
 * listPage are the page sizes the study list is read and shown with.
 */
"use strict";

(function () {
  const POLL_MS = 5000;
  const TOKEN_KEY = "hpod_token";
  const charts = new Map(); /* chart name -> echarts instance */
  const dash = {
    renders: 0,
    view: "",
    failures: 0,
    apiPage: 1000,
    listPage: 100,
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
    data(name, series) {
      const c = charts.get(name);
      const s = c && (c.getOption().series || []).find((x) => x.name === series);
      return s ? s.data : null;
    },
    axes(name) {
      const c = charts.get(name);
      if (!c) return null;
      const o = c.getOption();
      return { x: o.xAxis && o.xAxis[0] ? o.xAxis[0].name : null,
        y: o.yAxis && o.yAxis[0] ? o.yAxis[0].name : null };
    },
    range(name) {
      const c = charts.get(name);
      const v = c && c.getOption().visualMap;
      return v && v.length ? [v[0].min, v[0].max] : null;
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

  /* A write (PATCH with a JSON body) or a read in another type (Accept:
   * text/csv answers the text): ApiError on anything but 2xx. */
  async function send(method, path, body, accept) {
    const headers = { Accept: accept || "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let r;
    try {
      r = await fetch(path, { method: method, headers: headers, cache: "no-store",
        body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      throw new ApiError(0, null, path);
    }
    const text = await r.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch (e) {
      json = null;
    }
    if (!r.ok) throw new ApiError(r.status, json, path);
    return accept && accept !== "application/json" ? text : json;
  }

  /* ---- small DOM helpers ---- */
  function el(tag, attrs, ...kids) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") n.className = v;
      else if (k === "text") n.textContent = v;
      else if (k.startsWith("on")) n.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) n.setAttribute(k, v === true ? "" : v);
    }
    for (const k of kids) if (k !== null && k !== undefined) n.append(k);
    return n;
  }
  const $ = (id) => document.getElementById(id);

  /* A <select> of [value, label] pairs with `value` selected. */
  function select(id, options, value, onchange) {
    return el("select", { id: id, onchange: (ev) => onchange(ev.target.value) },
      ...options.map(([v, label]) => el("option", { value: v, text: label, selected: String(v) === String(value) })));
  }

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
  function compare(a, b) {
    if (a === b) return 0;
    if (a === undefined || a === null) return 1;
    if (b === undefined || b === null) return -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b));
  }

  function banner(text) {
    const b = $("banner");
    b.textContent = text || "";
    b.hidden = !text;
  }

  /* ---- charts ---- */
  /* Tooltips are drawn on the canvas (richText): no HTML from data, and
   * nothing the page's Content-Security-Policy would refuse. */
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
    const opt = Object.assign({ animation: false }, option);
    if (opt.tooltip) opt.tooltip = Object.assign({ renderMode: "richText", confine: true }, opt.tooltip);
    c.setOption(opt, true);
    return c;
  }
  function dropCharts(prefix) {
    for (const [name, c] of Array.from(charts.entries())) {
      if (prefix && !name.startsWith(prefix)) continue;
      c.dispose();
      charts.delete(name);
    }
  }
  window.addEventListener("resize", () => {
    for (const c of charts.values()) c.resize();
  });

  function panel(id, title, cls, ...extra) {
    return el("section", { class: "panel", id: "panel-" + id },
      el("h2", {}, title, ...extra), el("div", { class: "chart " + (cls || ""), id: "chart-" + id }));
  }
  function notAvailable(id, text) {
    const host = $("chart-" + id);
    if (!host) return;
    const c = charts.get(id);
    if (c) {
      c.dispose();
      charts.delete(id);
    }
    /* data-cls: the chart's classes, for chartHost to put back. */
    const cls = host.classList.contains("na") ? host.dataset.cls : host.className;
    host.replaceWith(el("div", { class: "na", id: "chart-" + id, text: text, "data-cls": cls }));
  }
  function chartHost(id) {
    let host = $("chart-" + id);
    if (host && host.classList.contains("na")) {
      const fresh = el("div", { class: host.dataset.cls || "chart", id: "chart-" + id });
      host.replaceWith(fresh);
      host = fresh;
    }
    return host;
  }

  function counts(c) {
    const order = ["completed", "running", "pending", "paused", "waiting", "failed", "pruned"];
    return el("span", { class: "counts" },
      ...order.filter((k) => c[k]).map((k) => el("span", { text: k + " " + c[k] })));
  }

  // The method a study runs: auto's choice shows as "graph (auto)".
  function algoName(a) {
    return a.chosen ? a.chosen.name + " (auto)" : a.name;
  }

  /* ---- one study ---- */
  /* What the study view draws from (the last data read) and what the user
   * chose on it (objectives, contour parameters); reset on navigation. */
  const view = { last: null, front: [0, 1], target: 0, contour: [0, 1], algoOpen: false };

  async function allTrials(id) {
    const out = [];
    for (let offset = 0; ; ) {
      const page = await api("/v1/studies/" + id + "/trials?limit=10000&offset=" + offset);
      out.push(...page.trials);
      offset += page.trials.length;
      if (!page.trials.length || offset >= page.total) return out;
    }
  }

  function objectiveOptions(s) {
    return s.objectives.map((o, i) => [i, o.name + " (" + o.goal + ")"]);
  }

  function studySkeleton(s) {
    const mo = s.objectives.length >= 2;
    const grid1 = el("div", { class: "grid" });
    if (mo) {
      const front = s.objectives.length >= 3
        ? el("span", { class: "pick" }, ": ",
          select("front-x", objectiveOptions(s), view.front[0], (v) => pickFront(0, v)), " vs ",
          select("front-y", objectiveOptions(s), view.front[1], (v) => pickFront(1, v)))
        : ": " + s.objectives[0].name + " vs " + s.objectives[1].name;
      grid1.append(panel("pareto", "Pareto front", "", front),
        panel("hypervolume", "Hypervolume after each completed trial"));
    } else {
      grid1.append(panel("best", "Best so far (" + s.objectives[0].name + ", " +
        s.objectives[0].goal + ") against trial number"));
    }
    grid1.append(panel("curves", "Learning curves (intermediate reports)"));
    const grid2 = el("div", { class: "grid" },
      panel("parallel", "Parallel coordinates (completed trials)", "tall"),
      panel("importance", "Parameter importance"));
    const target = mo ? el("p", { class: "pick" }, "Objective of the curves, contour, EDF and slices: ",
      select("target", objectiveOptions(s), view.target, (v) => {
        view.target = +v;
        draw(false);
      })) : null;
    return el("div", { id: "study" },
      el("h1", { id: "study-title" }),
      el("div", { class: "facts", id: "facts" }),
      el("div", { id: "algo-line" }),
      target, grid1, grid2,
      window.hpodApp.plots.skeleton(s, view),
      el("section", { class: "panel", id: "panel-slices" },
        el("h2", { text: "Slices: objective against each parameter" }),
        el("div", { class: "grid", id: "slices" })),
      el("div", { class: "grid", id: "shapes" }),
      window.hpodApp.trials.skeleton(s));
  }

  function pickFront(i, v) {
    view.front[i] = +v;
    const last = view.last;
    if (last && last.pareto) drawPareto(last.s, last.done, last.pareto, last.bench);
  }

  /* The algorithm, on one line that never runs off the page: the method,
   * its settings cut to the width (all of them in the tooltip), and for
   * auto the reason of its choice behind "why". */
  function algoLine(a) {
    const chosen = a.chosen || a;
    const settings = Object.entries(chosen).filter(([k]) => k !== "name")
      .map(([k, v]) => k + " " + (typeof v === "object" ? JSON.stringify(v) : v)).join(", ");
    const line = el("div", { class: "algo" }, "algorithm ", el("b", { text: algoName(a) }),
      settings ? el("span", { class: "algo-settings muted", title: settings, text: settings }) : null);
    if (!a.reason) return line;
    const why = el("details", { id: "algo-why", open: view.algoOpen },
      el("summary", { text: "why auto chose it" + (a.case ? " (" + a.case + ")" : "") }),
      el("p", { class: "algo-reason", text: a.reason }),
      el("p", { class: "algo-reason muted", text: "settings: " + settings }));
    why.addEventListener("toggle", () => {
      view.algoOpen = why.open;
    });
    return el("div", {}, line, why);
  }

  function objectiveValue(name, t) {
    const v = t.values[name];
    return typeof v === "number" ? v : null;
  }

  function renderBest(s, done) {
    const goal = s.objectives[0].goal;
    const pts = [];
    const best = [];
    let b = null;
    for (const t of done) {
      const v = objectiveValue(s.objectives[0].name, t);
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

  /* The front found (projected on the two objectives chosen when there
   * are three or more: then as points, since a projection is no curve),
   * the other completed trials, and a table's true front. */
  function drawPareto(s, done, p, bench) {
    const [o0, o1] = view.front.map((i) => s.objectives[i]);
    const onFront = new Set(p.front.map((f) => f.trial));
    const all = done.filter((t) => !onFront.has(t.id) && o0.name in t.values && o1.name in t.values)
      .map((t) => [t.values[o0.name], t.values[o1.name], t.id]);
    const front = p.front.map((f) => [f.values[o0.name], f.values[o1.name], f.trial])
      .sort((a, b) => a[0] - b[0]);
    const flat = s.objectives.length > 2;
    const series = [
      { name: "other trials", type: "scatter", data: all, symbolSize: 7, itemStyle: { color: "#9aa5b1" } },
      { name: "front found", type: flat ? "scatter" : "line", data: front, symbolSize: 10,
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
    const metric = s.objectives[view.target].name;
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
      if (p && p.type === "categorical") return { dim: i, name: d, type: "category", data: p.choices.map(String) };
      return { dim: i, name: d, type: p && p.log ? "log" : "value", scale: true };
    });
    /* A category axis takes its choices as text (a number would be read as
     * an index); an inactive parameter (a condition) has no value. */
    const at = (t, d, i) => {
      if (i >= s.space.length) return t.values[d];
      if (!(d in t.params)) return null;
      return s.space[i].type === "categorical" ? String(t.params[d]) : t.params[d];
    };
    const data = done.map((t) => dims.map((d, i) => at(t, d, i)));
    chart("parallel", chartHost("parallel"), {
      parallel: { left: 50, right: 80, top: 40, bottom: 30 },
      parallelAxis: axes,
      series: [{ name: "completed trials", type: "parallel", data: data, lineStyle: { width: 1, opacity: 0.6 } }],
    });
  }

  function renderSlices(s, done) {
    const host = $("slices");
    const metric = s.objectives[view.target].name;
    for (const p of s.space) {
      const id = "slice-" + p.name;
      if (!$("chart-" + id)) host.append(panel(id, p.name));
      const cat = p.type === "categorical";
      const pts = done.filter((t) => metric in t.values && p.name in t.params)
        .map((t) => [cat ? String(t.params[p.name]) : t.params[p.name], t.values[metric], t.number]);
      chart(id, chartHost(id), {
        tooltip: { trigger: "item" },
        grid: { left: 60, right: 20, top: 30, bottom: 40 },
        xAxis: cat ? { type: "category", data: p.choices.map(String), name: p.name, nameLocation: "middle", nameGap: 25 } :
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
      dropCharts("shape-");
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

  /* Draws the study view from view.last; table: the trials table too
   * (false when only a chart's choice changed). */
  function draw(table) {
    const { s, trials, done, imp, pareto, bench } = view.last;
    if (s.objectives.length >= 2) drawPareto(s, done, pareto, bench);
    else renderBest(s, done);
    renderCurves(s, trials);
    renderParallel(s, done);
    renderSlices(s, done);
    renderImportance(s, imp);
    window.hpodApp.plots.render(s, trials, done, view);
    if (table) window.hpodApp.trials.render(s, trials);
  }

  async function renderStudy(id, gen, fresh) {
    const [s, trials, imp] = await Promise.all([
      api("/v1/studies/" + id),
      allTrials(id),
      importance(id),
    ]);
    if (gen !== generation) return;
    const mo = s.objectives.length >= 2;
    const [pareto, bench] = mo ? await Promise.all([
      api("/v1/studies/" + s.id + "/pareto?history=true"),
      s.benchmark ? optional("/v1/benchmarks/" + s.benchmark + "?pareto_values=true") : null,
    ]) : [null, null];
    if (gen !== generation) return;
    if (fresh) {
      dropCharts();
      Object.assign(view, { front: [0, 1], target: 0, contour: [0, Math.min(1, s.space.length - 1)],
        algoOpen: false });
      window.hpodApp.trials.reset();
      $("main").replaceChildren(studySkeleton(s));
    }
    $("crumb").textContent = "/ " + s.name;
    $("study-title").textContent = s.name;
    /* Excluded trials keep their values but leave every plot; the table
     * shows them struck out. */
    const done = trials.filter((t) => t.state === "completed" && !t.excluded)
      .sort((a, b) => a.number - b.number);
    $("facts").replaceChildren(...[
      el("span", {}, "lab ", el("b", { text: s.lab })),
      el("span", {}, "state ", el("span", { class: "state state-" + s.state, text: s.state })),
      s.benchmark ? el("span", { text: "benchmark " + s.benchmark }) : null,
      el("span", { text: "objectives " + s.objectives.map((o) => o.name + " (" + o.goal + ")").join(", ") }),
      el("span", { text: "budget " + (s.budget === null ? "none" : s.budget) }),
      counts(s.trial_counts)].filter((x) => x));
    $("algo-line").replaceChildren(algoLine(s.algorithm));
    view.last = { s: s, trials: trials, done: done, imp: imp, pareto: pareto, bench: bench };
    draw(true);
  }

  /* ---- refresh loop and routing ---- */
  function route() {
    const m = /^#\/study\/(\d+)$/.exec(location.hash);
    if (m) return { view: "study", id: m[1] };
    const q = location.hash.indexOf("?");
    const query = new URLSearchParams(q < 0 ? "" : location.hash.slice(q + 1));
    return { view: /^#\/audit(\?|$)/.test(location.hash) ? "audit" : "list", query: query };
  }

  /* The audit log's link, for the tokens GET /v1/audit answers (admins). */
  async function auditLink() {
    let ok = false;
    try {
      ok = !!(await api("/v1/audit?limit=1"));
    } catch (e) {
      ok = false;
    }
    $("audit-link").hidden = !ok;
  }

  async function refresh(fresh) {
    clearTimeout(timer);
    timer = null;
    const gen = generation;
    const r = route();
    try {
      if (r.view === "study") await renderStudy(r.id, gen, fresh);
      else if (r.view === "audit") {
        if (fresh) dropCharts();
        await window.hpodApp.audit.render(gen, fresh, r.query);
      } else {
        if (fresh) {
          dropCharts();
          $("crumb").textContent = "";
        }
        await window.hpodApp.list.render(gen, fresh, r.query);
      }
      if (gen !== generation) return;
      banner("");
      dash.view = r.view === "study" ? "study/" + r.id : r.view;
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
      if (!(e instanceof ApiError)) console.error(e);
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
    auditLink();
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

  /* What web/list.js, web/plots.js and web/trials.js use; they add their
   * own parts (list, plots, trials, audit) before the page starts. */
  window.hpodApp = {
    api: api, optional: optional, send: send, el: el, $: $, select: select, fmt: fmt, ago: ago,
    compare: compare, banner: banner, chart: chart, dropCharts: dropCharts, panel: panel,
    notAvailable: notAvailable, chartHost: chartHost, counts: counts, algoName: algoName,
    dash: dash, stale: (gen) => gen !== generation,
  };

  /* Deferred scripts run in order before DOMContentLoaded: the others are
   * loaded by then. */
  if (document.readyState === "complete") start();
  else document.addEventListener("DOMContentLoaded", start);
})();
