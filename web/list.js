/*
 * web/list.js - the dashboard's study list (web/app.js routes to it).
 *
 * Every study is read, page by page (GET /v1/studies?limit=&offset=,
 * newest first), then searched and filtered here: the name (a substring,
 * any case), the lab and the state; a click on a header sorts. The result
 * shows hpodDash.listPage rows (100) at a time; the best value is read
 * only for the rows on screen. The search and filters live in the URL (#/?q=&lab=&state=), so
 * a filtered list can be shared or reloaded.
 */
"use strict";

(function () {
  const A = window.hpodApp;
  const { el, $ } = A;
  const STATES = ["active", "paused", "finished", "done"];
  const bestCache = new Map(); /* study id -> {key, value} */
  const st = { q: "", lab: "", state: "", page: 0, sort: "", dir: 1, all: [] };
  let drawn = 0; /* drawTable calls: a slower earlier one does not overwrite */

  const COLUMNS = [
    { key: "name", label: "name", get: (s) => s.name },
    { key: "lab", label: "lab", get: (s) => s.lab },
    { key: "state", label: "state", get: (s) => s.state },
    { key: "algorithm", label: "algorithm", get: (s) => A.algoName(s.algorithm) },
    { key: "trials", label: "trials", get: (s) => Object.values(s.trial_counts).reduce((a, b) => a + b, 0) },
    { key: "best", label: "best value", get: null },
    { key: "last", label: "last activity", get: (s) => s.last_activity || s.created_at },
  ];

  async function readAll() {
    const out = [];
    for (let offset = 0; ; ) {
      const page = await A.api("/v1/studies?limit=" + A.dash.apiPage + "&offset=" + offset);
      out.push(...page.studies);
      offset += page.studies.length;
      if (!page.studies.length || offset >= page.total) return out;
    }
  }

  async function bestOf(s) {
    if (s.objectives.length !== 1 || !s.trial_counts.completed) return null;
    const key = s.trial_counts.completed + "/" + (s.last_activity || "");
    const hit = bestCache.get(s.id);
    if (hit && hit.key === key) return hit.value;
    const b = await A.api("/v1/studies/" + s.id + "/best");
    const v = b.trial ? b.trial.values[s.objectives[0].name] : null;
    bestCache.set(s.id, { key: key, value: v });
    return v;
  }

  function matching() {
    const q = st.q.trim().toLowerCase();
    const rows = st.all.filter((s) => (!q || s.name.toLowerCase().includes(q)) &&
      (!st.lab || s.lab === st.lab) && (!st.state || s.state === st.state));
    const col = COLUMNS.find((c) => c.key === st.sort && c.get);
    if (col) rows.sort((a, b) => A.compare(col.get(a), col.get(b)) * st.dir);
    return rows;
  }

  /* The search and filters into the URL, without a navigation. */
  function remember() {
    const p = new URLSearchParams();
    for (const k of ["q", "lab", "state"]) if (st[k]) p.set(k, st[k]);
    const qs = p.toString();
    history.replaceState(null, "", "#/" + (qs ? "?" + qs : ""));
  }

  /* drawTable from an event: an error (a read of /best) goes to the banner. */
  function redraw() {
    drawTable().catch((e) => A.banner("Error " + (e.status || "") + ": " + e.message));
  }

  function changed(key, value) {
    st[key] = value;
    st.page = 0;
    remember();
    redraw();
  }

  function skeleton() {
    return el("div", { id: "list" },
      el("h1", { text: "Studies" }),
      el("div", { class: "controls" },
        el("input", { id: "study-search", type: "search", placeholder: "search by name",
          value: st.q, "aria-label": "search studies by name", oninput: (ev) => changed("q", ev.target.value) }),
        el("label", {}, "lab ", el("select", { id: "study-lab", onchange: (ev) => changed("lab", ev.target.value) })),
        el("label", {}, "state ", A.select("study-state", [["", "any"]].concat(STATES.map((x) => [x, x])),
          st.state, (v) => changed("state", v))),
        el("span", { id: "study-count", class: "muted" })),
      el("table", { id: "studies" },
        el("thead", {}, el("tr", { id: "studies-head" })),
        el("tbody", {})),
      el("div", { class: "pager", id: "study-pager" }));
  }

  /* The lab choices: every lab seen, and the one asked for even if none of
   * its studies is visible. */
  function labOptions() {
    const labs = Array.from(new Set(st.all.map((s) => s.lab).concat(st.lab ? [st.lab] : []))).sort();
    const sel = $("study-lab");
    const want = [""].concat(labs);
    const have = Array.from(sel.options).map((o) => o.value);
    if (want.join("\n") === have.join("\n")) return;
    sel.replaceChildren(...want.map((l) => el("option", { value: l, text: l || "any", selected: l === st.lab })));
  }

  function head() {
    $("studies-head").replaceChildren(...COLUMNS.map((c) => el("th", {
      "data-key": c.key, text: c.label,
      class: c.key === st.sort ? (st.dir > 0 ? "sorted-asc" : "sorted-desc") : (c.get ? "" : "nosort"),
      onclick: c.get ? () => {
        st.dir = st.sort === c.key ? -st.dir : 1;
        st.sort = c.key;
        st.page = 0;
        redraw();
      } : null,
    })));
  }

  function pager(pages) {
    const go = (d) => () => {
      st.page += d;
      redraw();
    };
    $("study-pager").replaceChildren(
      el("button", { type: "button", id: "study-prev", disabled: st.page === 0, onclick: go(-1), text: "\u2039 previous" }),
      el("span", { text: " page " + (st.page + 1) + " of " + pages + " " }),
      el("button", { type: "button", id: "study-next", disabled: st.page >= pages - 1, onclick: go(1), text: "next \u203A" }));
    $("study-pager").hidden = pages < 2;
  }

  /* The rows of the current page, once their best values are read: the
   * pager, the count and the rows change together. */
  async function drawTable() {
    const mine = ++drawn;
    const rows = matching();
    const size = A.dash.listPage;
    const pages = Math.max(1, Math.ceil(rows.length / size));
    st.page = Math.max(0, Math.min(st.page, pages - 1));
    const shown = rows.slice(st.page * size, (st.page + 1) * size);
    const bests = await Promise.all(shown.map(bestOf));
    if (mine !== drawn || !$("studies")) return;
    pager(pages);
    head();
    labOptions();
    $("study-count").textContent = rows.length === st.all.length ? st.all.length + " studies"
      : rows.length + " of " + st.all.length + " studies match";
    $("studies").tBodies[0].replaceChildren(...shown.map((s, i) => el("tr", { "data-study": String(s.id) },
      el("td", {}, el("a", { href: "#/study/" + s.id, text: s.name })),
      el("td", { text: s.lab }),
      el("td", {}, el("span", { class: "state state-" + s.state, text: s.state })),
      el("td", { class: "clip", text: A.algoName(s.algorithm) + (s.benchmark ? " on " + s.benchmark : ""),
        title: s.algorithm.reason || "" }),
      el("td", {}, A.counts(s.trial_counts)),
      el("td", { class: "num", text: bests[i] === null ? "" :
        A.fmt(bests[i]) + " (" + s.objectives[0].goal.slice(0, 3) + ")" }),
      el("td", { text: A.ago(s.last_activity || s.created_at), title: s.last_activity || s.created_at }))));
  }

  async function render(gen, fresh, query) {
    if (fresh) {
      st.q = query.get("q") || "";
      st.lab = query.get("lab") || "";
      st.state = query.get("state") || "";
      st.page = 0;
    }
    const all = await readAll();
    if (A.stale(gen)) return;
    st.all = all;
    if (fresh || !$("list")) $("main").replaceChildren(skeleton());
    await drawTable();
  }

  A.list = { render: render };
})();
