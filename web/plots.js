/*
 * web/plots.js - the study view's contour, EDF and timeline plots (web/app.js
 * draws the others and calls render() with the data it read).
 *
 * - contour: two chosen parameters against the objective. The completed
 *   trials are points; the plane behind them is coloured by an
 *   inverse-distance-weighted mean of their values (power 2, on each
 *   axis scaled to [0, 1], log parameters in log10, a categorical axis a
 *   band per choice, distance 0 or 1 between choices): it passes through
 *   every trial and stays within their range, a smooth guide, not a model
 *   (the importance panel's shape functions are the model's view).
 * - EDF: the empirical distribution of the objective over the completed
 *   trials: the fraction of trials with a value <= x.
 * - timeline: one bar per trial from its creation to its last update (to
 *   now while it is waiting, pending or running), coloured by state.
 * Excluded trials are in none of them (app.js leaves them out of `done`,
 * and the timeline skips them).
 */
"use strict";

(function () {
  const A = window.hpodApp;
  const el = A.el;
  const GRID = 24; /* cells per numeric axis of the contour */
  const STATES = ["completed", "running", "pending", "waiting", "paused", "pruned", "failed"];
  const STATE_COLORS = { completed: "#5470c6", running: "#3ba272", pending: "#9aa5b1",
    waiting: "#c9ced6", paused: "#fac858", pruned: "#9a60b4", failed: "#ee6666" };
  const PALETTE = ["#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"]; /* viridis */
  let current = null; /* {s, trials, done, view}: what render() was last given */

  function skeleton(s, view) {
    const names = s.space.map((p, i) => [i, p.name]);
    const pick = s.space.length >= 2 ? el("span", { class: "pick" }, ": ",
      A.select("contour-x", names, view.contour[0], (v) => choose(0, v)), " vs ",
      A.select("contour-y", names, view.contour[1], (v) => choose(1, v))) : null;
    return el("div", {},
      el("div", { class: "grid" },
        A.panel("contour", "Contour", "tall", pick),
        A.panel("edf", "Empirical distribution (EDF) of the objective", "tall")),
      A.panel("timeline", "Timeline: each trial from creation to its last update, by state", "tall"));
  }

  function choose(i, v) {
    if (!current) return;
    current.view.contour[i] = +v;
    renderContour(current.s, current.done, current.view);
  }

  /* One contour axis: its ECharts axis, its cells [lo, hi] (in data
   * units; the choice's index for a categorical parameter, on a value
   * axis labelled with the choices) with their centres, and where a value
   * lies on it (scaled to [0, 1], or the choice's index). */
  function contourAxis(p, vals) {
    if (p.type === "categorical") {
      const names = p.choices.map(String);
      return { cat: true, at: (v) => p.choices.indexOf(v),
        axis: { type: "value", name: p.name, min: -0.5, max: names.length - 0.5, interval: 1,
          splitLine: { show: false },
          axisLabel: { customValues: names.map((_, i) => i), formatter: (v) => names[Math.round(v)] || "" } },
        cells: names.map((_, i) => ({ lo: i - 0.5, hi: i + 0.5, at: i })) };
    }
    const tr = p.log ? Math.log10 : (x) => x;
    const inv = p.log ? (x) => Math.pow(10, x) : (x) => x;
    const bounds = vals.concat(typeof p.low === "number" ? [p.low, p.high] : [],
      Array.isArray(p.values) ? p.values : []);
    let lo = tr(Math.min(...bounds));
    let hi = tr(Math.max(...bounds));
    if (!(hi > lo)) {
      lo -= 0.5;
      hi += 0.5;
    }
    const cells = [];
    for (let i = 0; i < GRID; i++) {
      const a = lo + ((hi - lo) * i) / GRID;
      const b = lo + ((hi - lo) * (i + 1)) / GRID;
      cells.push({ lo: inv(a), hi: inv(b), at: ((a + b) / 2 - lo) / (hi - lo) });
    }
    return { cat: false, axis: { type: p.log ? "log" : "value", min: inv(lo), max: inv(hi), name: p.name },
      at: (v) => (tr(v) - lo) / (hi - lo), cells: cells };
  }

  function idw(pts, x, y, xcat, ycat) {
    let num = 0;
    let den = 0;
    for (const q of pts) {
      const dx = xcat ? (q.x === x ? 0 : 1) : q.x - x;
      const dy = ycat ? (q.y === y ? 0 : 1) : q.y - y;
      const d2 = dx * dx + dy * dy;
      if (d2 < 1e-12) return q.v;
      num += q.v / d2;
      den += 1 / d2;
    }
    return num / den;
  }

  function renderContour(s, done, view) {
    if (s.space.length < 2) {
      A.notAvailable("contour", "A contour needs two parameters; this study has one.");
      return;
    }
    const [px, py] = view.contour.map((i) => s.space[i]);
    const obj = s.objectives[view.target];
    const trials = done.filter((t) => px.name in t.params && py.name in t.params &&
      typeof t.values[obj.name] === "number");
    if (!trials.length) {
      A.notAvailable("contour", "No completed trial has both " + px.name + " and " + py.name + " yet.");
      return;
    }
    const ax = contourAxis(px, px.type === "categorical" ? [] : trials.map((t) => t.params[px.name]));
    const ay = contourAxis(py, py.type === "categorical" ? [] : trials.map((t) => t.params[py.name]));
    const pts = trials.map((t) => ({ x: ax.at(t.params[px.name]), y: ay.at(t.params[py.name]),
      v: t.values[obj.name] }));
    const cells = [];
    for (const cx of ax.cells)
      for (const cy of ay.cells)
        cells.push([cx.lo, cx.hi, cy.lo, cy.hi, idw(pts, cx.at, cy.at, ax.cat, ay.cat)]);
    const vals = pts.map((q) => q.v);
    const min = Math.min(...vals);
    const max = Math.max(...vals);
    const dot = (t) => [ax.cat ? ax.at(t.params[px.name]) : t.params[px.name],
      ay.cat ? ay.at(t.params[py.name]) : t.params[py.name], t.values[obj.name], t.number];
    const tip = (p) => "trial #" + p.value[3] + "\n" + px.name + " " + A.fmt(ax.cat ? px.choices[p.value[0]] : p.value[0]) +
      "\n" + py.name + " " + A.fmt(ay.cat ? py.choices[p.value[1]] : p.value[1]) + "\n" + obj.name + " " + A.fmt(p.value[2]);
    A.chart("contour", A.chartHost("contour"), {
      tooltip: { trigger: "item" },
      grid: { left: 70, right: 90, top: 30, bottom: 50 },
      xAxis: Object.assign({ nameLocation: "middle", nameGap: 28, axisLine: { onZero: false } }, ax.axis),
      yAxis: Object.assign({ nameLocation: "end", axisLine: { onZero: false } }, ay.axis),
      visualMap: { type: "continuous", min: min, max: max > min ? max : min + Math.abs(min) * 1e-9 + 1e-9,
        dimension: 4, seriesIndex: 0, right: 5, top: "middle", itemHeight: 200,
        text: [obj.name + " " + A.fmt(max), A.fmt(min)], calculable: false, inRange: { color: PALETTE } },
      series: [
        { name: "interpolated", type: "custom", silent: true, data: cells,
          encode: { x: [0, 1], y: [2, 3] }, renderItem: cellRect },
        { name: "completed trials", type: "scatter", data: trials.map(dot), symbolSize: 7,
          tooltip: { formatter: tip },
          itemStyle: { color: "#111827", borderColor: "#fff", borderWidth: 1 }, z: 3 },
      ],
    });
  }

  function cellRect(params, api) {
    const a = api.coord([api.value(0), api.value(2)]);
    const b = api.coord([api.value(1), api.value(3)]);
    return { type: "rect", shape: { x: Math.min(a[0], b[0]), y: Math.min(a[1], b[1]),
      width: Math.abs(b[0] - a[0]) + 0.5, height: Math.abs(b[1] - a[1]) + 0.5 },
    style: { fill: api.visual("color") } };
  }

  function renderEdf(s, done, view) {
    const obj = s.objectives[view.target];
    const vals = done.map((t) => t.values[obj.name]).filter((v) => typeof v === "number")
      .sort((a, b) => a - b);
    if (!vals.length) {
      A.notAvailable("edf", "No completed trials yet.");
      return;
    }
    A.chart("edf", A.chartHost("edf"), {
      tooltip: { trigger: "axis" },
      grid: { left: 60, right: 20, top: 30, bottom: 50 },
      xAxis: { type: "value", name: obj.name + " (" + obj.goal + ")", scale: true,
        nameLocation: "middle", nameGap: 28 },
      yAxis: { type: "value", name: "fraction of trials \u2264 x", min: 0, max: 1 },
      series: [{ name: "completed trials", type: "line", step: "end", showSymbol: false,
        data: vals.map((v, i) => [v, (i + 1) / vals.length]) }],
    });
  }

  function when(ms) {
    return new Date(ms).toLocaleTimeString();
  }

  function renderTimeline(s, trials) {
    const shown = trials.filter((t) => !t.excluded);
    if (!shown.length) {
      A.notAvailable("timeline", "No trials yet.");
      return;
    }
    const now = Date.now();
    const live = ["waiting", "pending", "running"];
    const by = new Map();
    for (const t of shown) {
      const start = Date.parse(t.created_at);
      const end = Math.max(start, live.includes(t.state) ? now : Date.parse(t.updated_at));
      if (!by.has(t.state)) by.set(t.state, []);
      by.get(t.state).push([start, end, t.number, t.id]);
    }
    const order = STATES.filter((x) => by.has(x)).concat(Array.from(by.keys()).filter((x) => !STATES.includes(x)));
    A.chart("timeline", A.chartHost("timeline"), {
      tooltip: { trigger: "item", formatter: (p) => "trial #" + p.value[2] + " (" + p.seriesName + ")\n" +
        when(p.value[0]) + " \u2192 " + when(p.value[1]) + " (" + ((p.value[1] - p.value[0]) / 1000).toFixed(1) + " s)" },
      legend: { top: 0 },
      grid: { left: 60, right: 30, top: 50, bottom: 50 },
      xAxis: { type: "time", name: "time", nameLocation: "middle", nameGap: 28, scale: true,
        axisLine: { onZero: false } },
      yAxis: { type: "value", name: "trial number", nameLocation: "start", inverse: true, min: -0.5,
        max: Math.max(...shown.map((t) => t.number)) + 0.5, minInterval: 1,
        axisLabel: { formatter: (v) => (Number.isInteger(v) ? String(v) : "") } },
      dataZoom: [{ type: "inside", xAxisIndex: 0 }],
      series: order.map((state) => ({ name: state, type: "custom", data: by.get(state),
        encode: { x: [0, 1], y: 2 }, itemStyle: { color: STATE_COLORS[state] || "#6b7280" },
        renderItem: bar })),
    });
  }

  function bar(params, api) {
    const y = api.value(2);
    const a = api.coord([api.value(0), y]);
    const b = api.coord([api.value(1), y]);
    const h = Math.max(2, Math.min(14, api.size([0, 1])[1] * 0.7));
    return { type: "rect", shape: { x: a[0], y: a[1] - h / 2, width: Math.max(2, b[0] - a[0]), height: h },
      style: { fill: api.visual("color") } };
  }

  function render(s, trials, done, view) {
    current = { s: s, trials: trials, done: done, view: view };
    renderContour(s, done, view);
    renderEdf(s, done, view);
    renderTimeline(s, trials);
  }

  A.plots = { skeleton: skeleton, render: render };
})();
