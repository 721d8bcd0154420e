/*
 * web/audit.js - the dashboard's audit log (#/audit; web/app.js routes
 * to it and shows its link to admins only: GET /v1/audit answers them).
 *
 * One page of GET /v1/audit at a time, newest first, filtered by action,
 * lab and study (in the URL: #/audit?action=&lab=&study=); "older" follows
 * the answer's `next`, "newest" goes back to the first page. Who is the
 * token's note and id ("open" without a token); a study or trial target
 * links to its study. docs/audit.md says what is recorded.
 */
"use strict";

(function () {
  const A = window.hpodApp;
  const { el, $ } = A;
  const ACTIONS = ["study.create", "study.patch", "study.copy", "study.delete", "trial.enqueue",
    "trial.add",
    "trial.fail", "trial.patch", "trial.exclude", "trial.restore", "token.create",
    "token.revoke", "benchmark.import",
    "simulation.create", "simulation.cancel"];
  const FILTERS = ["action", "lab", "study", "next"];

  function go(query) {
    const p = new URLSearchParams();
    for (const k of FILTERS) if (query[k]) p.set(k, query[k]);
    const qs = p.toString();
    location.hash = "#/audit" + (qs ? "?" + qs : "");
  }

  function who(t) {
    return t ? (t.note || "token") + " #" + t.id : "open";
  }

  function target(e) {
    if (e.study === null) return el("span", { text: e.target });
    return el("a", { href: "#/study/" + e.study, text: e.target });
  }

  function skeleton(q) {
    const set = (k) => (ev) => go(Object.assign({}, q, { [k]: ev.target.value.trim(), next: "" }));
    return el("div", { id: "audit" },
      el("h1", { text: "Audit log" }),
      el("div", { class: "controls" },
        el("label", {}, "action ", A.select("audit-action", [["", "any"]].concat(ACTIONS.map((x) => [x, x])),
          q.action, (v) => go(Object.assign({}, q, { action: v, next: "" })))),
        el("label", {}, "lab ", el("input", { id: "audit-lab", type: "search", value: q.lab, size: 12, onchange: set("lab") })),
        el("label", {}, "study ", el("input", { id: "audit-study", type: "search", value: q.study, size: 6, onchange: set("study") })),
        el("span", { id: "audit-count", class: "muted" })),
      el("table", { id: "audit-events" },
        el("thead", {}, el("tr", {}, ...["at", "who", "lab", "action", "target", "detail"].map((h) => el("th", { class: "nosort", text: h })))),
        el("tbody", {})),
      el("div", { class: "pager", id: "audit-pager" }));
  }

  async function render(gen, fresh, query) {
    const q = {};
    for (const k of FILTERS) q[k] = query.get(k) || "";
    const p = new URLSearchParams({ limit: "100" });
    for (const k of FILTERS) if (q[k]) p.set(k, q[k]);
    const page = await A.api("/v1/audit?" + p.toString());
    if (A.stale(gen)) return;
    if (fresh || !$("audit")) $("main").replaceChildren(skeleton(q));
    $("crumb").textContent = "audit log";
    $("audit-count").textContent = page.events.length + (page.next ? "+" : "") + " events" +
      (q.next ? " (older page)" : "");
    $("audit-events").tBodies[0].replaceChildren(...page.events.map((e) => el("tr", { "data-event": String(e.id) },
      el("td", { text: A.ago(e.at), title: e.at }),
      el("td", { text: who(e.token) }),
      el("td", { text: e.lab || "" }),
      el("td", { text: e.action }),
      el("td", {}, target(e)),
      el("td", { class: "reason", text: JSON.stringify(e.detail) }))));
    $("audit-pager").replaceChildren(
      el("button", { type: "button", id: "audit-newest", disabled: !q.next, text: "\u2039 newest",
        onclick: () => go(Object.assign({}, q, { next: "" })) }),
      el("button", { type: "button", id: "audit-older", disabled: !page.next, text: "older \u203A",
        onclick: () => go(Object.assign({}, q, { next: page.next })) }));
    A.dash.auditRows = page.events.length;
  }

  A.audit = { render: render };
})();
