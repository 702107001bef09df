// The dashboard's pages poll the tracker's JSON API every two seconds: no reloads, no libraries.
"use strict";

const POLL_MS = 2000;

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c == null ? "" : String(c)));
  return e;
}

function svg(tag, attrs, ...children) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

async function getJson(path) {
  const r = await fetch(path, { credentials: "same-origin", cache: "no-store" });
  if (r.status === 401 || r.status === 403) {
    window.location.href = "/login";
    throw new Error("signed out");
  }
  if (!r.ok) throw new Error(path + ": HTTP " + r.status + " " + (await r.text()));
  return r.json();
}

function ago(ms) {
  if (!ms) return "never";
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 120 ? s + " s ago" : Math.round(s / 60) + " min ago";
}

function duration(s) {
  if (!(s > 0)) return "";
  if (s < 120) return Math.round(s) + " s";
  if (s < 7200) return Math.round(s / 60) + " min";
  return (s / 3600).toFixed(1) + " h";
}

function bar(fraction) {
  const f = Math.max(0, Math.min(1, fraction || 0));
  return el("span", { class: "bar", title: Math.round(f * 100) + "%" }, el("span", { style: "width:" + (f * 100).toFixed(1) + "%" }));
}

function fill(table, rows, columns) {
  const body = table.tBodies[0];
  body.replaceChildren();
  if (rows.length === 0) body.append(el("tr", {}, el("td", { colspan: columns, class: "muted" }, "none")));
  for (const r of rows) body.append(r);
}

function workloadName(w) {
  return w.op + "[" + w.shape.join(",") + "]";
}

function jobProgress(job) {
  let done = 0, total = 0, best = 0;
  for (const w of job.workloads) {
    done += w.trials_done || 0;
    total += w.trials || 0;
    best = Math.max(best, w.best_gflops || 0);
  }
  if (job.spec && job.spec.scheduler && job.spec.trials) total = job.spec.trials;
  return { done, total, best };
}

async function fleetPage() {
  const [devices, jobs, builds] = await Promise.all([getJson("/api/devices"), getJson("/api/jobs"), getJson("/api/builders")]);
  devices.sort((a, b) => (a.key + a.board_id).localeCompare(b.key + b.board_id));
  fill(document.getElementById("boards"), devices.map((d) =>
    el("tr", { "data-key": d.key },
      el("td", {}, d.key), el("td", {}, d.board_id), el("td", { class: "state-" + d.state }, d.state + (d.emulated ? " (emulated)" : "")),
      el("td", { class: "target" }, d.target), el("td", {}, d.cpu + ", " + d.threads + " thread(s)"), el("td", {}, d.timing_isolation),
      el("td", { class: "num" }, d.items_done), el("td", { class: "num" }, d.items_failed || 0),
      el("td", { class: "num" }, bar(d.utilization_1h), " " + Math.round((d.utilization_1h || 0) * 100) + "%"),
      el("td", {}, ago(d.last_heartbeat_ms)))), 10);
  document.getElementById("build-counts").textContent = "builds: " + builds.builds.remote + " on builders, " +
    builds.builds.here + " on the tracker, " + builds.builds.cached + " from its cache; " + builds.reassigned +
    " reassigned; " + builds.queued + " waiting";
  fill(document.getElementById("builders"), builds.builders.map((b) =>
    el("tr", { "data-builder": b.builder_id },
      el("td", {}, b.builder_id), el("td", { class: "state-" + b.state }, b.state), el("td", {}, b.triples.join(", ")),
      el("td", { class: "num" }, b.jobs), el("td", { class: "num" }, b.in_flight), el("td", { class: "num" }, b.builds_done),
      el("td", { class: "num" }, b.builds_failed), el("td", { class: "num" }, b.bad_answers),
      el("td", { class: "num" }, b.builds_per_s.toFixed(1)), el("td", {}, ago(b.last_heartbeat_ms)))), 10);
  fill(document.getElementById("jobs"), jobs.map((j) => {
    const p = jobProgress(j);
    return el("tr", { "data-job": j.id },
      el("td", { class: "num" }, el("a", { href: "/jobs/" + j.id }, j.id)), el("td", { class: "state-" + j.state }, j.state),
      el("td", {}, j.spec.key), el("td", {}, j.owner),
      el("td", {}, j.spec.model || j.workloads.map(workloadName).join(", ")),
      el("td", {}, el("div", {}, bar(p.total ? p.done / p.total : 0), " " + p.done + "/" + p.total),
        ...(j.workloads.length > 1 && j.workloads.length <= 8 ? j.workloads.map((w) =>
          el("div", { class: "muted" }, bar(w.trials ? w.trials_done / w.trials : 0), " " + workloadName(w) + " " + w.trials_done +
             (w.trials ? "/" + w.trials : "") + ", best " + (w.best_gflops || 0).toFixed(1))) : [])),
      el("td", { class: "num" }, p.best.toFixed(1)),
      el("td", {}, j.state === "running" ? duration(j.eta_s) : ""));
  }), 8);
}

// Best-so-far GFLOPS over trials, and the distribution of every measured config's GFLOPS.
function charts(records) {
  const W = 420, H = 200, P = 36;
  const ok = records.filter((r) => r.outcome === "ok");
  const max = Math.max(1e-9, ...ok.map((r) => r.gflops));
  const curve = svg("svg", { width: W, height: H, role: "img", "aria-label": "best so far" });
  let best = 0;
  const points = records.map((r, i) => {
    best = Math.max(best, r.outcome === "ok" ? r.gflops : 0);
    return [P + (i / Math.max(1, records.length - 1)) * (W - 2 * P), H - P - (best / max) * (H - 2 * P)];
  });
  curve.append(svg("polyline", { points: points.map((p) => p.join(",")).join(" "), fill: "none", stroke: "#1d5fbf", "stroke-width": 2 }));
  curve.append(svg("text", { x: P, y: 16 }, "best so far: " + best.toFixed(1) + " GFLOPS after " + records.length + " trials"));
  curve.append(svg("text", { x: P, y: H - 8, class: "muted" }, "trial"));
  const bins = 20, counts = new Array(bins).fill(0);
  for (const r of ok) counts[Math.min(bins - 1, Math.floor((r.gflops / max) * bins))]++;
  const top = Math.max(1, ...counts);
  const hist = svg("svg", { width: W, height: H, role: "img", "aria-label": "distribution" });
  counts.forEach((c, i) => {
    const h = (c / top) * (H - 2 * P), w = (W - 2 * P) / bins;
    hist.append(svg("rect", { x: P + i * w, y: H - P - h, width: w - 1, height: h, fill: "#7aa7e6" }));
  });
  hist.append(svg("text", { x: P, y: 16 }, "configs by GFLOPS (0 to " + max.toFixed(1) + ")"));
  return el("div", { class: "charts" }, curve, hist);
}

async function jobPage() {
  const id = window.location.pathname.split("/").pop();
  const [job, records] = await Promise.all([getJson("/api/jobs/" + id), getJson("/api/jobs/" + id + "/records")]);
  const p = jobProgress(job);
  document.title = "tunefarm: job " + id;
  document.getElementById("title").textContent = "Job " + id + " (" + job.state + ")";
  document.getElementById("summary").textContent = "key " + job.spec.key + ", owner " + job.owner + ", " + p.done + "/" + p.total +
    " trials, best " + p.best.toFixed(1) + " GFLOPS" + (job.state === "running" ? ", ETA " + duration(job.eta_s) : "") +
    (job.message ? " — " + job.message : "");
  document.getElementById("cancel").hidden = !(job.state === "queued" || job.state === "running");
  const section = document.getElementById("workloads");
  section.replaceChildren();
  for (const w of job.workloads) {
    const mine = records.filter((r) => r.workload === w.workload_key);
    const best = mine.filter((r) => r.outcome === "ok").sort((a, b) => b.gflops - a.gflops)[0];
    section.append(el("div", { class: "workload" },
      el("h2", {}, workloadName(w) + " — " + (w.state || "") + ", " + w.trials_done + "/" + w.trials + " trials"),
      charts(mine),
      best ? el("div", {}, el("p", {}, "Best: " + best.gflops.toFixed(1) + " GFLOPS, config " + best.config_index + " on " + best.device),
                el("pre", {}, JSON.stringify(best, null, 2))) : el("p", { class: "muted" }, "no successful measurement yet")));
  }
  fill(document.getElementById("failures"), records.filter((r) => r.outcome !== "ok").map((r) =>
    el("tr", {}, el("td", {}, r.workload), el("td", { class: "num" }, r.config_index), el("td", {}, r.outcome),
       el("td", {}, r.device), el("td", {}, r.error))), 5);
}

// The token the tracker asks of every change a browser makes; only the dashboard's own pages can
// read it, so a page elsewhere cannot make the change.
async function csrfToken() {
  return (await getJson("/api/session")).csrf_token;
}

async function cancelJob() {
  const id = window.location.pathname.split("/").pop();
  const r = await fetch("/api/jobs/" + id + "/cancel",
    { method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": await csrfToken() } });
  document.getElementById("cancel-result").textContent = r.ok ? "cancelled" : "refused: " + (await r.text());
}

async function poll() {
  const page = document.body.dataset.page;
  try {
    await (page === "job" ? jobPage() : fleetPage());
    document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    document.getElementById("updated").textContent = "update failed: " + e.message;
  }
  setTimeout(poll, POLL_MS);
}

document.addEventListener("DOMContentLoaded", () => {
  const cancel = document.getElementById("cancel");
  if (cancel) cancel.addEventListener("click", cancelJob);
  poll();
});
