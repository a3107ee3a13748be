// The status page of `tributary serve` (and `run --ui-port`): plain JavaScript, no build step.
// It reads the REST API (docs/OPERATIONS.md) every POLL_MS and draws the recent batches with uPlot.
// The token rule is the API's: the page sends no token until the API asks for one (401), then
// asks the user once and keeps it in sessionStorage (this tab only, gone when the tab closes).
"use strict";

const POLL_MS = 2000;
const TABLES_POLL_MS = 5000;
const BATCHES = 100;
const TOKEN_KEY = "tributary-api-token";
const COLORS = ["#2563eb", "#16a34a", "#dc2626", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#65a30d",
  "#9333ea", "#ea580c"];
const PHASE_COLORS = { plan: "#93c5fd", walCommit: "#a78bfa", process: "#2563eb", commit: "#16a34a",
  checkpointCommit: "#f59e0b" };

const page = {
  selected: decodeURIComponent((location.hash.match(/pipeline=([^&]+)/) || [])[1] || ""),
  pipelines: [],
  actions: null,        // what GET api/ui says this process offers (serve: all; run --ui-port: stop)
  charts: {},          // name -> uPlot instance (window.tributaryCharts for tests and debugging)
  chartKeys: {},       // name -> the series labels the instance was built with
  lastTables: 0,
  waitingForToken: false,
};
window.tributaryCharts = page.charts;

// ---- API access ----------------------------------------------------------------------------------

class Refused extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

function token() { return sessionStorage.getItem(TOKEN_KEY); }

async function api(path, options = {}) {
  const headers = { "Accept": "application/json", ...(options.headers || {}) };
  if (token()) headers["Authorization"] = "Bearer " + token();
  const response = await fetch("api/" + path, { ...options, headers, cache: "no-store" });
  let body = null;
  try { body = await response.json(); } catch (e) { /* an empty or non-JSON answer */ }
  if (response.status === 401) {
    askForToken(token() ? "The token was refused: enter the service's API token."
                        : "This service needs its API token (TRIBUTARY_API_TOKEN).");
    throw new Refused(401, body && body.message);
  }
  if (response.status === 403 && !options.method) {
    showRefused(body && body.message || "Forbidden.");
    throw new Refused(403, body && body.message);
  }
  if (!response.ok) throw new Refused(response.status, (body && body.message) || ("HTTP " + response.status));
  return body;
}

function askForToken(why) {
  page.waitingForToken = true;
  document.getElementById("token-why").textContent = why + " It is kept for this browser tab only.";
  show("token-panel", true);
  show("overview", false);
  show("detail", false);
  document.getElementById("summary").textContent = "Locked";
  const input = document.getElementById("token-input");
  if (document.activeElement !== input) input.focus();
}

function showRefused(message) {
  document.getElementById("refused-message").textContent = message;
  show("refused-panel", true);
  show("overview", false);
  show("detail", false);
}

document.getElementById("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const value = document.getElementById("token-input").value.trim();
  if (!value) return;
  sessionStorage.setItem(TOKEN_KEY, value);
  document.getElementById("token-input").value = "";
  page.waitingForToken = false;
  show("token-panel", false);
  page.lastTables = 0;
  refresh();
});

// ---- formatting ----------------------------------------------------------------------------------

function show(id, visible) { document.getElementById(id).hidden = !visible; }

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c == null ? "" : String(c)));
  return node;
}

function num(n) { return n == null ? "–" : Number(n).toLocaleString("en-US"); }

function duration(seconds) {
  if (seconds == null) return "–";
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m" + String(s % 60).padStart(2, "0") + "s";
  if (s < 86400) return Math.floor(s / 3600) + "h" + String(Math.floor(s % 3600 / 60)).padStart(2, "0") + "m";
  return Math.floor(s / 86400) + "d" + String(Math.floor(s % 86400 / 3600)).padStart(2, "0") + "h";
}

function bytes(n) {
  if (n == null) return "–";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0, v = n;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return (i === 0 ? v : v.toFixed(1)) + " " + units[i];
}

function time(iso) {
  if (!iso) return "–";
  const d = new Date(iso);
  return d.toLocaleTimeString("en-GB", { hour12: false }) + (Date.now() - d > 86400000 ? " " + d.toLocaleDateString("en-CA") : "");
}

/** ok, warn, bad or idle: how a state reads at a glance. */
function health(state) {
  switch (state) {
    case "RUNNING": case "IDLE": return "ok";
    case "STARTING": case "DEGRADED": return "warn";
    case "FAILED": return "bad";
    default: return "idle";
  }
}

// ---- overview ------------------------------------------------------------------------------------

function renderOverview(pipelines) {
  const counts = { ok: 0, warn: 0, bad: 0, idle: 0 };
  pipelines.forEach((p) => counts[health(p.state)]++);
  const summary = document.getElementById("summary");
  summary.replaceChildren();
  if (pipelines.length === 0) summary.append("No pipelines served");
  else {
    const verdict = counts.bad > 0 ? "bad" : counts.warn > 0 ? "warn" : "ok";
    document.title = "Tributary: " + { ok: "healthy", warn: "attention", bad: "unhealthy" }[verdict];
    summary.append(el("span", { class: "pill " + verdict, id: "verdict",
      text: verdict === "ok" ? "Healthy" : verdict === "warn" ? "Attention" : "Unhealthy" }));
    summary.append(`${pipelines.length} pipeline${pipelines.length === 1 ? "" : "s"}: ${counts.ok} healthy`
      + (counts.warn ? `, ${counts.warn} degraded or starting` : "")
      + (counts.bad ? `, ${counts.bad} failed` : "")
      + (counts.idle ? `, ${counts.idle} stopped` : ""));
  }
  const body = document.querySelector("#pipelines tbody");
  body.replaceChildren();
  for (const p of pipelines) {
    const row = el("tr", { "data-pipeline": p.id, class: p.id === page.selected ? "selected" : "" },
      el("td", {}, el("span", { class: "dot " + health(p.state), title: p.state })),
      el("td", { class: "id" }, el("strong", { text: p.id })),
      el("td", {}, el("span", { class: "pill state " + health(p.state), text: p.state })),
      el("td", { class: "lag", text: num(p.lag) }),
      el("td", { text: num(p.commitLag) }),
      el("td", { class: "freshness", text: duration(p.freshnessSeconds) }),
      el("td", { text: p.lastBatchAgeSeconds == null ? "–" : duration(p.lastBatchAgeSeconds) + " ago" }),
      el("td", { class: "muted", text: p.activity ? p.activity.phase.toLowerCase() : "–" }),
      el("td", { class: "mono", text: p.sink || "–" }));
    row.addEventListener("click", () => select(p.id));
    body.append(row);
    if (p.reason) {
      body.append(el("tr", { "data-reason-of": p.id },
        el("td"), el("td", { class: "reason", colspan: "8", text: "Last error: " + p.reason })));
    }
  }
  show("overview", true);
}

function select(id) {
  page.selected = id;
  location.hash = "pipeline=" + encodeURIComponent(id);
  page.lastTables = 0;
  document.querySelectorAll("#pipelines tbody tr[data-pipeline]").forEach((tr) =>
    tr.classList.toggle("selected", tr.dataset.pipeline === id));
  refresh();
}

// ---- one pipeline ----------------------------------------------------------------------------------

function renderDetail(details) {
  const s = details.status;
  const title = document.getElementById("detail-title");
  title.replaceChildren(s.id + " ", el("span", { class: "pill " + health(s.state), id: "detail-state", text: s.state }),
    el("span", { class: "muted", text: "  " + (s.trigger || "") }));
  const active = ["STARTING", "RUNNING", "DEGRADED"].includes(s.state);
  for (const button of document.querySelectorAll("#actions button")) {
    const action = button.dataset.action;
    button.hidden = !(page.actions || []).includes(action);
    button.disabled = (action === "stop" && !active) || ((action === "start" || action === "backfill") && active)
      || (s.state === "FAILED" && !s.sink);
  }
  const error = document.getElementById("detail-error");
  error.hidden = !s.reason;
  error.textContent = s.reason ? "Last error: " + s.reason : "";
  show("detail", true); // before the charts: a hidden box has no width to size them by
  renderCharts(details.progress, Boolean(s.watermark) || details.progress.some((b) => b.watermark));
  renderBatches(details.progress);
}

function renderBatches(progress) {
  const body = document.querySelector("#batches tbody");
  body.replaceChildren();
  for (const b of progress.slice().reverse().slice(0, 30)) {
    const lag = b.partitions.reduce((sum, x) => sum + Math.max(0, x.latestOffset - x.endOffset), 0);
    body.append(el("tr", {},
      el("td", { text: b.batchId + (b.replayed ? " (replay)" : "") }), el("td", { text: time(b.startedAt) }),
      el("td", { text: num(b.inputRows) }), el("td", { text: num(b.outputRows) }),
      el("td", { text: num(b.quarantinedRows) }), el("td", { text: num(b.filteredRows) }),
      el("td", { text: num(b.lateRows) }), el("td", { text: num(b.durationMs) + " ms" }),
      el("td", { text: num(lag) }), el("td", { text: b.sinkVersion < 0 ? "–" : b.sinkVersion })));
  }
  if (progress.length === 0) body.append(el("tr", {}, el("td", { colspan: "10", class: "muted", text: "No batch yet." })));
}

function renderCommits(commits) {
  const body = document.querySelector("#commits tbody");
  body.replaceChildren();
  for (const c of commits) {
    body.append(el("tr", {},
      el("td", { text: c.version }), el("td", { text: time(c.timestamp) }), el("td", { text: c.operation || "–" }),
      el("td", { text: c.batchId == null ? "–" : c.batchId }), el("td", { text: num(c.filesAdded) }),
      el("td", { text: num(c.filesRemoved) }), el("td", { text: num(c.rowsAdded) }),
      el("td", { text: bytes(c.bytesAdded) }), el("td", { class: "mono", text: c.table })));
  }
  if (commits.length === 0) body.append(el("tr", {}, el("td", { colspan: "9", class: "muted", text: "No commit yet." })));
}

function renderQuarantine(samples) {
  const body = document.querySelector("#quarantine tbody");
  body.replaceChildren();
  for (const q of samples) {
    body.append(el("tr", {},
      el("td", { class: "mono", text: q.source }), el("td", { class: "err", text: q.error }),
      el("td", { class: "mono", text: q.value == null ? "(no value)" : q.value }),
      el("td", { text: q.batchId == null ? "–" : q.batchId }), el("td", { text: time(q.quarantinedAt) })));
  }
  if (samples.length === 0) body.append(el("tr", {}, el("td", { colspan: "5", class: "muted", text: "Nothing quarantined." })));
}

// ---- charts ----------------------------------------------------------------------------------------

/** The series of each chart from the progress records: { labels, data: [xs, ...ys], stacked? }. */
function chartData(progress) {
  const xs = progress.map((b) => Date.parse(b.startedAt) / 1000);
  const col = (f) => progress.map(f);
  const keysOf = (f) => [...new Set(progress.flatMap((b) => Object.keys(f(b) || {})))].sort();

  const phases = ["plan", "walCommit", "process", "commit", "checkpointCommit"]
    .filter((k) => progress.some((b) => b.phasesMs && b.phasesMs[k] != null));
  const partitions = [...new Set(progress.flatMap((b) => b.partitions.map((p) => p.topic + "/" + p.partition)))].sort();
  let stateKeys = keysOf((b) => b.state).filter((k) => /rows/i.test(k) && !/late/i.test(k));
  if (stateKeys.length === 0) stateKeys = keysOf((b) => b.state);
  const rules = keysOf((b) => b.expectations);
  const end = (b) => Date.parse(b.startedAt) + b.durationMs;

  return {
    rates: { labels: ["input rows/s", "processed rows/s"],
      data: [xs, col((b) => b.inputRowsPerSecond), col((b) => b.processedRowsPerSecond)] },
    phases: { labels: phases, stacked: true,
      data: [xs, ...phases.map((k) => col((b) => (b.phasesMs || {})[k] || 0))] },
    lag: { labels: partitions, data: [xs, ...partitions.map((name) => col((b) => {
      const p = b.partitions.find((x) => x.topic + "/" + x.partition === name);
      return p ? Math.max(0, p.latestOffset - p.endOffset) : null;
    }))] },
    gap: { labels: ["freshness", "watermark gap"], data: [xs,
      col((b) => b.freshnessMs == null ? null : b.freshnessMs / 1000),
      col((b) => b.watermark ? (end(b) - Date.parse(b.watermark)) / 1000 : null)] },
    state: { labels: stateKeys, data: [xs, ...stateKeys.map((k) => col((b) => (b.state || {})[k] ?? null))] },
    quarantine: { labels: ["quarantined %"], data: [xs, col((b) => 100 * (b.quarantinedFraction || 0))] },
    expectations: { labels: rules, data: [xs, ...rules.map((r) => col((b) => (b.expectations || {})[r] || 0))] },
  };
}

function renderCharts(progress, watermarked) {
  const all = chartData(progress);
  if (!watermarked) {
    // without a watermark the gap chart shows freshness alone
    all.gap.labels = all.gap.labels.slice(0, 1);
    all.gap.data = all.gap.data.slice(0, 2);
  }
  for (const [name, spec] of Object.entries(all)) {
    const box = document.querySelector(`[data-chart="${name}"]`);
    const empty = progress.length === 0 || spec.labels.length === 0;
    if (empty) {
      if (page.charts[name]) { page.charts[name].destroy(); delete page.charts[name]; }
      const why = progress.length === 0 ? "No batch yet."
        : { state: "Stateless pipeline: no state.", expectations: "No expectation violated.",
            lag: "No partitions.", phases: "No phases recorded." }[name] || "No data.";
      box.replaceChildren(el("div", { class: "empty", text: why }));
      continue;
    }
    const data = spec.stacked ? stack(spec.data) : spec.data;
    const key = spec.labels.join("\u0000");
    const chart = page.charts[name];
    if (chart && page.chartKeys[name] === key) {
      chart.setData(data);
      continue;
    }
    if (chart) chart.destroy();
    box.replaceChildren();
    page.chartKeys[name] = key;
    page.charts[name] = new uPlot(options(name, spec, box), data, box);
  }
}

/** Cumulative sums, last series on top: drawn top-down, each band covers the ones below it. */
function stack(data) {
  const out = [data[0]];
  let sum = data[0].map(() => 0);
  for (let i = 1; i < data.length; i++) {
    sum = sum.map((v, j) => v + (data[i][j] || 0));
    out.push(sum);
  }
  return [out[0], ...out.slice(1).reverse()];
}

function chartWidth(box) { return Math.max(300, (box.clientWidth || 440) - 4); }

function options(name, spec, box) {
  const labels = spec.stacked ? spec.labels.slice().reverse() : spec.labels;
  const raw = spec.data;
  const series = labels.map((label, i) => {
    const color = spec.stacked ? PHASE_COLORS[label] || COLORS[i % COLORS.length] : COLORS[i % COLORS.length];
    const s = { label, stroke: color, width: 1.5, spanGaps: name === "lag" || name === "gap",
      points: { show: raw[0].length < 40 } };
    if (spec.stacked) {
      s.fill = color;
      // the legend shows the phase's own time, not the running sum drawn
      const own = raw[1 + spec.labels.indexOf(label)];
      s.value = (u, v, si, idx) => idx == null ? "–" : (own[idx] ?? 0) + " ms";
    } else if (name === "quarantine") {
      s.fill = color + "33";
    }
    return s;
  });
  return {
    width: chartWidth(box),
    height: 200,
    series: [{ label: "batch start", value: (u, v) => v == null ? "–" : new Date(v * 1000).toLocaleTimeString("en-GB") },
      ...series],
    axes: [{}, { size: 60 }],
    scales: { y: { range: (u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
    legend: { live: true },
  };
}

window.addEventListener("resize", () => {
  for (const [name, chart] of Object.entries(page.charts)) {
    const box = document.querySelector(`[data-chart="${name}"]`);
    chart.setSize({ width: chartWidth(box), height: 200 });
  }
});

// ---- actions ---------------------------------------------------------------------------------------

document.getElementById("actions").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-action]");
  if (!button || !page.selected) return;
  const action = button.dataset.action;
  if (action === "vacuum" && !confirm("Vacuum deletes the files no retained version of " + page.selected
      + "'s sink table uses. Go on?")) return;
  const result = document.getElementById("action-result");
  result.hidden = false;
  result.className = "action-result";
  result.textContent = action + "…";
  try {
    const body = await api("pipelines/" + encodeURIComponent(page.selected) + "/" + action, { method: "POST" });
    result.textContent = describeAction(action, body);
  } catch (e) {
    result.className = "action-result failed";
    result.textContent = action + " failed: " + (e.message || e);
  }
  refresh();
});

function describeAction(action, body) {
  if (action === "compact") {
    return body.tableVersion < 0 ? "Compaction: no table yet."
      : `Compaction: ${body.filesRemoved} files rewritten into ${body.filesAdded} (table version ${body.tableVersion}).`;
  }
  if (action === "vacuum") return `Vacuum: ${body.files.length} files (${bytes(body.bytes)}) deleted.`;
  return `${action}: accepted, the pipeline is ${body.state}.`;
}

// ---- range backfills ---------------------------------------------------------------------------------

document.getElementById("backfill-replace").addEventListener("change", (event) => {
  document.getElementById("backfill-into").disabled = event.target.checked;
});

document.getElementById("backfill-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!page.selected) return;
  const value = (id) => document.getElementById(id).value.trim();
  const request = { from: value("backfill-from"), to: value("backfill-to") };
  if (document.getElementById("backfill-replace").checked) request.replace = true;
  else request.into = value("backfill-into");
  const result = document.getElementById("backfill-result");
  result.hidden = false;
  result.className = "action-result";
  result.textContent = "Starting the backfill…";
  try {
    const job = await api("pipelines/" + encodeURIComponent(page.selected) + "/backfill", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request) });
    result.textContent = `Backfill job ${job.job} started: [${job.from}, ${job.to}) `
      + (job.replace ? "replacing the range in the live table." : `into ${job.into}.`);
  } catch (e) {
    // 400 and 409 carry the API's message: what is wrong with the request and how to fix it
    result.className = "action-result failed";
    result.textContent = e.message || String(e);
  }
  refreshBackfills();
});

function backfillHealth(state) {
  return { SUCCEEDED: "ok", RUNNING: "warn", FAILED: "bad" }[state] || "";
}

function backfillResult(job) {
  if (job.state === "FAILED" || job.state === "STOPPED") return job.message || "";
  const w = job.swap;
  if (w) {
    if (w.alreadySwapped) return `already swapped by an earlier run; live table version ${w.version}`;
    return `swapped in one commit (live table version ${w.version}): ${num(w.rowsRemoved)} rows removed`
      + ` (${num(w.filesRemoved)} files whole, ${num(w.filesRewritten)} rewritten), ${num(w.rowsAdded)} added`
      + (w.attempts > 1 ? `; planned ${w.attempts} times` : "");
  }
  const s = job.summary;
  if (!s) return "";
  return `${num(s.rowsAdded)} rows added, ${num(s.rowsOutside)} outside the range left out; table version ${s.version},`
    + ` ${num(s.files)} files${s.resumed ? " (resumed)" : ""}`
    + (s.edgeWindows.length ? `; edge windows left alone: ${s.edgeWindows.join("; ")}` : "");
}

function renderBackfills(jobs) {
  const body = document.querySelector("#backfills tbody");
  body.replaceChildren();
  for (const job of jobs) {
    const stop = el("button", { "data-stop": job.job, text: "Stop" });
    stop.hidden = job.state !== "RUNNING";
    stop.addEventListener("click", async () => {
      try {
        await api(`pipelines/${encodeURIComponent(job.pipeline)}/backfills/${encodeURIComponent(job.job)}`,
          { method: "DELETE" });
      } catch (e) {
        const result = document.getElementById("backfill-result");
        result.hidden = false;
        result.className = "action-result failed";
        result.textContent = e.message || String(e);
      }
      refreshBackfills();
    });
    body.append(el("tr", { "data-job": job.job },
      el("td", { class: "mono", text: job.job }),
      el("td", {}, el("span", { class: "pill job-state " + backfillHealth(job.state), text: job.state })),
      el("td", { class: "mono", text: `[${job.from}, ${job.to})` }),
      el("td", { class: "mono", text: job.replace ? "(replace)" : job.into }),
      el("td", { text: time(job.startedAt) }), el("td", { text: time(job.endedAt) }),
      el("td", { text: num(job.batches) }),
      el("td", { class: "job-result" + (job.state === "FAILED" ? " err" : ""), text: backfillResult(job) }),
      el("td", {}, stop)));
  }
  if (jobs.length === 0) body.append(el("tr", {}, el("td", { colspan: "9", class: "muted", text: "No range backfill since the service started." })));
}

async function refreshBackfills() {
  const offered = (page.actions || []).includes("backfill");
  show("backfill-panel", offered);
  if (!offered || !page.selected) return;
  try {
    renderBackfills(await api(`pipelines/${encodeURIComponent(page.selected)}/backfills`));
  } catch (e) { /* shown at the next poll */ }
}

// ---- the loop ----------------------------------------------------------------------------------------

async function refresh() {
  if (page.waitingForToken) return;
  try {
    if (page.actions === null) page.actions = (await api("ui")).actions;
    const pipelines = await api("pipelines");
    show("refused-panel", false);
    page.pipelines = pipelines;
    if (!pipelines.some((p) => p.id === page.selected)) page.selected = pipelines.length ? pipelines[0].id : "";
    renderOverview(pipelines);
    if (page.selected) {
      const id = encodeURIComponent(page.selected);
      renderDetail(await api(`pipelines/${id}?last=${BATCHES}`));
      await refreshBackfills();
      if (Date.now() - page.lastTables >= TABLES_POLL_MS) {
        page.lastTables = Date.now();
        const [commits, quarantine] = await Promise.allSettled([
          api(`pipelines/${id}/commits?last=10`), api(`pipelines/${id}/quarantine?last=10`)]);
        if (commits.status === "fulfilled") renderCommits(commits.value);
        if (quarantine.status === "fulfilled") renderQuarantine(quarantine.value);
      }
    } else {
      show("detail", false);
    }
    document.getElementById("updated").textContent = "Updated " + new Date().toLocaleTimeString("en-GB");
  } catch (e) {
    if (!(e instanceof Refused)) {
      document.getElementById("updated").textContent = "Cannot reach the service: " + (e.message || e);
    }
  }
}

async function loop() {
  await refresh();
  setTimeout(loop, POLL_MS);
}
loop();
