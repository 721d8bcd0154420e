/*
 * web/trials.js - the study view's trials table (web/app.js calls render()
 * with the trials it read).
 *
 * Filters: a state (or "excluded"), and a search of words and conditions,
 * all of which a row must meet:
 *   adam            the word anywhere in the row (parameters, values,
 *                   state, worker, reason, notes), any case
 *   lr<0.001        a parameter, metric or field (state, origin, worker,
 *   bleu>=25        reason, note, number, id) compared with =, !=, <, <=,
 *   opt=adam        >, >= (numbers as numbers, text without case)
 * A click on a header sorts; PAGE rows are shown at a time. Failed trials
 * show their reason, excluded ones are struck out with theirs; a trial's
 * metadata shows as its notes, and its "note" can be edited (PATCH
 * /v1/trials/{id}, a write token). "Download CSV" saves the API's CSV of
 * the study's trials (Accept: text/csv). The explanation of a trial
 * (GET /v1/trials/{id}/explain) opens under "explain".
 */
"use strict";

(function () {
  const A = window.hpodApp;
  const { el, $ } = A;
  const PAGE = 200;
  const STATES = ["completed", "running", "pending", "waiting", "paused", "pruned", "failed"];
  const FIELDS = ["state", "origin", "worker", "reason", "note", "number", "id"];
  const COND = /^([A-Za-z0-9_.-]+)(<=|>=|!=|=|<|>)(.+)$/;
  const st = { state: "", q: "", page: 0, key: "number", dir: 1 };
  const editing = new Map(); /* trial id -> the note being written */
  /* Explanations are recorded when a trial is suggested and never change:
   * kept by trial id, and the rows whose explanation is open stay open
   * across refreshes. */
  const explained = new Map(); /* trial id -> text */
  const explainOpen = new Set();
  let current = null; /* {s, trials} */

  function reset() {
    Object.assign(st, { state: "", q: "", page: 0, key: "number", dir: 1 });
    editing.clear();
    explainOpen.clear();
  }

  function skeleton(s) {
    return el("section", { class: "panel", id: "panel-trials" },
      el("h2", { text: "Trials" }),
      el("div", { class: "controls" },
        el("label", {}, "state ", el("select", { id: "trial-state", onchange: (ev) => {
          st.state = ev.target.value;
          st.page = 0;
          drawTable();
        } })),
        el("input", { id: "trial-search", type: "search", size: 44, "aria-label": "search trials",
          placeholder: "search: adam   lr<0.001   bleu>=25   state=failed",
          title: "Words match anywhere in a row; name=value, name<value, name>=value ... compare a " +
            "parameter, metric or field (state, origin, worker, reason, note, number, id). " +
            "A row must meet all of them.",
          oninput: (ev) => {
            st.q = ev.target.value;
            st.page = 0;
            drawTable();
          } }),
        el("span", { id: "trial-count", class: "muted" }),
        el("span", { class: "spacer" }),
        el("button", { type: "button", id: "trials-csv", text: "Download CSV",
          title: "All trials of the study as CSV (GET /v1/studies/" + s.id + "/trials, Accept: text/csv)",
          onclick: () => downloadCsv(s.id) })),
      el("div", { id: "trials" }),
      el("div", { class: "pager", id: "trial-pager" }));
  }

  async function downloadCsv(id) {
    const b = $("trials-csv");
    b.disabled = true;
    try {
      const text = await A.send("GET", "/v1/studies/" + id + "/trials", undefined, "text/csv");
      const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
      const a = el("a", { href: url, download: "hpod-study-" + id + "-trials.csv", hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    } catch (e) {
      A.banner("Could not download the CSV (" + (e.status || "network") + "): " + e.message);
    } finally {
      b.disabled = false;
    }
  }

  function noteOf(t) {
    return typeof t.metadata.note === "string" ? t.metadata.note : "";
  }
  function otherMetadata(t) {
    return Object.entries(t.metadata).filter(([k]) => k !== "note")
      .map(([k, v]) => k + ": " + (typeof v === "string" ? v : JSON.stringify(v))).join("; ");
  }
  function reasonOf(t) {
    if (t.excluded) {
      const by = t.excluded.by;
      const who = !by ? "" : typeof by !== "object" ? String(by)
        : "token " + by.token + (by.note ? " (" + by.note + ")" : "");
      return "excluded: " + (t.excluded.reason || "") + (who ? ", by " + who : "");
    }
    return t.reason || "";
  }

  function columns(s) {
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
    cols.push({ key: "reason", label: "reason", get: reasonOf, keep: true, cls: "reason" });
    cols.push({ key: "note", label: "notes", get: noteOf, keep: true, cell: notesCell });
    cols.push({ key: "worker", label: "worker", get: (t) => t.worker });
    cols.push({ key: "updated", label: "updated", get: (t) => t.updated_at, show: A.ago });
    return cols;
  }

  /* ---- the search ---- */
  function field(t, name, s) {
    if (name in t.params) return t.params[name];
    if (name in t.values) return t.values[name];
    if (name === "reason") return reasonOf(t);
    if (name === "note") return noteOf(t);
    if (FIELDS.includes(name)) return t[name];
    return s.space.some((p) => p.name === name) ? undefined : null;
  }

  function parse(q, s, trials) {
    const known = new Set(FIELDS.concat(s.space.map((p) => p.name), s.objectives.map((o) => o.name)));
    for (const t of trials) for (const k of Object.keys(t.values)) known.add(k);
    const out = { conds: [], words: [], unknown: [] };
    for (const tok of q.trim().split(/\s+/).filter(Boolean)) {
      const m = COND.exec(tok);
      if (m && known.has(m[1])) out.conds.push({ name: m[1], op: m[2], value: m[3] });
      else if (m) out.unknown.push(m[1]);
      else out.words.push(tok.toLowerCase());
    }
    return out;
  }

  function meets(v, op, want) {
    if (v === undefined || v === null) return false;
    const n = Number(want);
    const numeric = typeof v === "number" && want.trim() !== "" && Number.isFinite(n);
    if (op === "=" || op === "!=") {
      const eq = numeric ? v === n : String(v).toLowerCase() === want.toLowerCase();
      return op === "=" ? eq : !eq;
    }
    if (!numeric) return false;
    return op === "<" ? v < n : op === "<=" ? v <= n : op === ">" ? v > n : v >= n;
  }

  function rowText(t) {
    return [Object.values(t.params).join(" "), Object.values(t.values).join(" "), t.state, t.origin,
      t.worker, reasonOf(t), JSON.stringify(t.metadata)].join(" ").toLowerCase();
  }

  function matching(s, trials) {
    const q = parse(st.q, s, trials);
    const rows = trials.filter((t) => {
      if (st.state === "excluded" ? !t.excluded : st.state && t.state !== st.state) return false;
      if (q.unknown.length) return false;
      if (!q.conds.every((c) => meets(field(t, c.name, s), c.op, c.value))) return false;
      if (!q.words.length) return true;
      const text = rowText(t);
      return q.words.every((w) => text.includes(w));
    });
    return { rows: rows, unknown: q.unknown };
  }

  function stateOptions(trials) {
    const n = new Map();
    for (const t of trials) n.set(t.state, (n.get(t.state) || 0) + 1);
    const excluded = trials.filter((t) => t.excluded).length;
    const opts = [["", "any (" + trials.length + ")"]];
    for (const x of STATES.concat(Array.from(n.keys()).filter((k) => !STATES.includes(k))))
      if (n.get(x) || x === st.state) opts.push([x, x + " (" + (n.get(x) || 0) + ")"]);
    if (excluded || st.state === "excluded") opts.push(["excluded", "excluded (" + excluded + ")"]);
    $("trial-state").replaceChildren(...opts.map(([v, label]) =>
      el("option", { value: v, text: label, selected: v === st.state })));
  }

  /* ---- notes ---- */
  function notesCell(t, td) {
    const note = noteOf(t);
    const other = otherMetadata(t);
    if (editing.has(t.id)) {
      const box = el("textarea", { class: "note-input", rows: 3, cols: 28, "aria-label": "note" });
      box.value = editing.get(t.id);
      box.addEventListener("input", () => editing.set(t.id, box.value));
      const err = el("div", { class: "note-error" });
      const save = el("button", { type: "button", class: "note-save", text: "Save",
        onclick: () => saveNote(t, box, save, err) });
      td.append(box, el("div", {}, save, " ", el("button", { type: "button", class: "note-cancel",
        text: "Cancel", onclick: () => {
          editing.delete(t.id);
          drawTable();
        } })), err);
      return;
    }
    td.append(el("span", { class: "note", text: note }));
    if (other) td.append(el("span", { class: "meta muted", text: (note ? " " : "") + other, title: other }));
    td.append(" ", el("button", { type: "button", class: "note-edit linkish", text: note ? "edit" : "add note",
        onclick: () => {
          editing.set(t.id, note);
          drawTable();
          const box = document.querySelector('tr[data-trial="' + t.id + '"] .note-input');
          if (box) box.focus();
        } }));
  }

  /* PATCH replaces the whole metadata: read the trial's latest first, so
   * what a report merged meanwhile is kept, and change only "note". */
  async function saveNote(t, box, button, err) {
    button.disabled = true;
    err.textContent = "";
    try {
      const fresh = await A.api("/v1/trials/" + t.id);
      const md = Object.assign({}, fresh.metadata);
      const text = box.value.trim();
      if (text) md.note = text;
      else delete md.note;
      const saved = await A.send("PATCH", "/v1/trials/" + t.id, { metadata: md });
      Object.assign(t, saved);
      editing.delete(t.id);
      drawTable();
    } catch (e) {
      err.textContent = "Not saved (" + (e.status || "network") + "): " + e.message;
      button.disabled = false;
    }
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

  function explainText(e) {
    const lines = ["trial #" + e.number + " (" + e.origin + "), algorithm " + A.algoName(e.algorithm)];
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
      const e = await A.optional("/v1/trials/" + t.id + "/explain");
      const text = e ? explainText(e) : "Explanations are not available on this server.";
      if (e) explained.set(t.id, text);
      box.textContent = text;
    } catch (err) {
      box.textContent = "Could not read the explanation: " + err.message;
    }
  }


  /* ---- the table ---- */
  function pager(n) {
    const pages = Math.max(1, Math.ceil(n / PAGE));
    st.page = Math.min(st.page, pages - 1);
    const go = (d) => () => {
      st.page += d;
      drawTable();
    };
    $("trial-pager").replaceChildren(...(pages > 1 ? [
      el("button", { type: "button", id: "trial-prev", disabled: st.page === 0, onclick: go(-1), text: "\u2039 previous" }),
      el("span", { text: " page " + (st.page + 1) + " of " + pages + " " }),
      el("button", { type: "button", id: "trial-next", disabled: st.page >= pages - 1, onclick: go(1), text: "next \u203A" }),
    ] : []));
  }

  function row(t, cols) {
    const box = el("pre", { class: "explain" });
    const det = el("details", {}, el("summary", { text: "explain" }), box);
    det.addEventListener("toggle", () => {
      if (det.open) {
        explainOpen.add(t.id);
        explain(t, box);
      } else explainOpen.delete(t.id);
    });
    if (explainOpen.has(t.id)) det.open = true;
    const cls = (t.excluded ? "excluded " : "") + (t.state === "failed" ? "failed" : "");
    return el("tr", { "data-trial": String(t.id), class: cls.trim() || null },
      ...cols.map((c) => {
        const v = c.get(t);
        const td = el("td", { class: [typeof v === "number" ? "num" : "", c.keep ? "keep" : "",
          c.cls || ""].join(" ").trim() || null });
        if (c.cell) c.cell(t, td);
        else td.textContent = c.show ? c.show(v) : A.fmt(v);
        if (c.key === "reason" && v) td.title = v;
        return td;
      }),
      el("td", { class: "keep" }, det));
  }

  function drawTable() {
    if (!current || !$("trials")) return;
    const { s, trials } = current;
    const cols = columns(s);
    const col = cols.find((c) => c.key === st.key) || cols[0];
    const found = matching(s, trials);
    const rows = found.rows.sort((a, b) => {
      const c = A.compare(col.get(a), col.get(b));
      return c === 0 ? a.number - b.number : c * st.dir;
    });
    pager(rows.length);
    $("trial-count").textContent = found.unknown.length
      ? "no parameter, metric or field named " + found.unknown.join(", ")
      : rows.length === trials.length ? trials.length + " trials" : rows.length + " of " + trials.length + " trials";
    const head = el("tr", {}, ...cols.map((c) => el("th", {
      class: c.key === col.key ? (st.dir > 0 ? "sorted-asc" : "sorted-desc") : null,
      "data-key": c.key, text: c.label,
      onclick: () => {
        st.dir = st.key === c.key ? -st.dir : 1;
        st.key = c.key;
        drawTable();
      },
    })), el("th", { text: "why" }));
    const body = rows.slice(st.page * PAGE, (st.page + 1) * PAGE).map((t) => row(t, cols));
    $("trials").replaceChildren(el("table", { id: "trials-table" }, el("thead", {}, head), el("tbody", {}, ...body)));
  }

  /* While a note is being written the table is left alone (a refresh
   * would take the text box away); the state counts still follow. */
  function render(s, trials) {
    current = { s: s, trials: trials };
    stateOptions(trials);
    if (!editing.size) drawTable();
  }

  A.trials = { skeleton: skeleton, render: render, reset: reset };
})();
