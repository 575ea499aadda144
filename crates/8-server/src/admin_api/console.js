// The Sluice console: reads and drives the admin JSON API of the server
// that served this page (see /openapi.json). The token stays in this tab's
// sessionStorage and goes out as `Authorization: Bearer`, never as a cookie.
"use strict";

const TOKEN_KEY = "sluice.admin.token";
const REFRESH_MS = 2000;
const cards = new Map();
let timer = null;

const $ = (id) => document.getElementById(id);

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

function say(text, kind) {
  const m = $("message");
  m.textContent = text;
  m.className = kind || "";
}

// Calls the API; resolves to the parsed body, rejects with the API's own
// error message (or what went wrong on the way).
async function api(method, path, body) {
  const headers = {};
  const t = token();
  if (t) headers["Authorization"] = "Bearer " + t;
  const init = { method, headers, cache: "no-store" };
  if (method === "POST") {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body || {});
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new Error("the server does not answer (" + e.message + ")");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (e) {
    data = null;
  }
  if (!response.ok) {
    const why = data && data.error ? data.error : response.statusText;
    const error = new Error(response.status + ": " + why);
    error.status = response.status;
    throw error;
  }
  return data;
}

function seconds(s) {
  if (s === null || s === undefined) return "–";
  if (s < 10) return s.toFixed(1) + " s";
  if (s < 120) return Math.round(s) + " s";
  if (s < 7200) return Math.round(s / 60) + " min";
  return (s / 3600).toFixed(1) + " h";
}

function position(p) {
  return p ? p.journal_name + ":" + p.position : "–";
}

function cursorText(c) {
  if (!c) return "none yet";
  const p = c.postion || c.position || c;
  return p.journalName !== undefined
    ? p.journalName + ":" + p.position
    : JSON.stringify(c);
}

function time(ms) {
  return ms ? new Date(ms).toLocaleString() : "–";
}

function card(name) {
  let c = cards.get(name);
  if (c) return c;
  const node = $("destination-template").content.firstElementChild.cloneNode(true);
  node.id = "dest-" + name;
  node.dataset.destination = name;
  node.querySelector(".name").textContent = name;
  for (const b of node.querySelectorAll("button[data-action]")) {
    b.addEventListener("click", () => act(name, b.dataset.action));
  }
  node.querySelector(".snapshot-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const tables = node.querySelector(".snapshot-tables").value
      .split(/[\s,]+/)
      .filter((t) => t);
    run(name, "Snapshot of " + tables.join(", "), "snapshot", { tables });
  });
  node.querySelector(".reset-form").addEventListener("submit", (e) => {
    e.preventDefault();
    resetCursor(name, node);
  });
  $("destinations").appendChild(node);
  c = { node };
  cards.set(name, c);
  return c;
}

function sparkline(svg, history) {
  const samples = (history && history.samples) || [];
  const values = samples.map((s) => s.lag_seconds);
  const known = values.filter((v) => v !== null);
  const max = Math.max(1, ...known);
  const n = values.length;
  const points = [];
  values.forEach((v, i) => {
    if (v === null) return;
    const x = n > 1 ? (i * 120) / (n - 1) : 120;
    const y = 23 - (v / max) * 22;
    points.push(x.toFixed(1) + "," + y.toFixed(1));
  });
  svg.querySelector("polyline").setAttribute("points", points.join(" "));
  svg.dataset.samples = String(n);
  const range = svg.nextElementSibling;
  range.textContent = n
    ? "max " + seconds(known.length ? Math.max(...known) : null) + " over the last " +
      seconds(n * ((history && history.interval_seconds) || 5))
    : "";
}

function render(d) {
  const node = card(d.destination).node;
  const state = node.querySelector(".state");
  state.textContent = d.state;
  state.className = "state badge " + d.state;
  node.dataset.state = d.state;
  node.querySelector(".role").textContent = d.role ? "role: " + d.role : "";
  node.querySelector(".source").textContent = d.source.address || "–";
  node.querySelector(".read").textContent = position(d.source.read_position);
  node.querySelector(".last-event").textContent = time(d.source.last_event_time);
  node.querySelector(".lag").textContent = seconds(d.source.lag_seconds);
  sparkline(node.querySelector(".spark"), d.lag_history);
  node.querySelector(".failure").textContent = d.error || "";

  const mq = node.querySelector(".mq");
  mq.hidden = node.querySelector(".mq-label").hidden = !d.mq_worker;
  if (d.mq_worker) {
    const w = d.mq_worker;
    mq.textContent = w.state + (w.since ? " since " + time(w.since) : "") +
      (w.error ? ": " + w.error : "");
  }

  const snap = d.snapshot;
  const text = node.querySelector(".snapshot-text");
  const bar = node.querySelector(".snapshot-bar");
  if (!snap) {
    text.textContent = "none";
    bar.hidden = true;
  } else {
    let t = snap.tables_done + "/" + snap.tables + " tables, " +
      snap.rows_done + "/" + snap.rows_estimated + " rows";
    if (snap.finished) t += ", finished";
    else if (snap.eta_seconds !== null) {
      t += ", " + Math.round(snap.rows_per_second) + " rows/s, about " +
        seconds(snap.eta_seconds) + " left";
    } else t += ", ETA not known yet";
    text.textContent = t;
    bar.hidden = false;
    bar.max = Math.max(1, snap.rows_estimated);
    bar.value = snap.rows_done;
  }

  const body = node.querySelector(".clients tbody");
  body.replaceChildren();
  for (const c of d.clients) {
    const tr = document.createElement("tr");
    tr.dataset.client = c.client_id;
    for (const v of [
      String(c.client_id),
      c.connections === null ? "–" : String(c.connections),
      cursorText(c.cursor),
      seconds(c.lag_seconds),
    ]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  if (!d.clients.length) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 4;
    td.textContent = "no client has subscribed";
    tr.appendChild(td);
    body.appendChild(tr);
  }
  const select = node.querySelector(".reset-client");
  const ids = d.clients.map((c) => String(c.client_id));
  const shown = Array.from(select.options).map((o) => o.value);
  if (ids.join() !== shown.join()) {
    select.replaceChildren(...ids.map((id) => new Option(id, id)));
  }
}

function renderErrors(errors) {
  const list = $("errors");
  list.replaceChildren(
    ...errors.map((e) => {
      const li = document.createElement("li");
      li.textContent = time(e.at) + " " + e.destination + ": " + e.message;
      return li;
    }),
  );
  $("no-errors").hidden = errors.length > 0;
}

async function refresh() {
  try {
    const data = await api("GET", "destinations");
    const seen = new Set();
    for (const d of data.destinations) {
      render(d);
      seen.add(d.destination);
    }
    for (const [name, c] of cards) {
      if (!seen.has(name)) {
        c.node.remove();
        cards.delete(name);
      }
    }
    renderErrors(data.recent_errors || []);
    const s = data.server;
    $("server").textContent = "version " + s.version + ", mode " + s.mode +
      (s.cluster ? ", ZooKeeper cluster" : "");
    $("updated").textContent = "updated " + new Date().toLocaleTimeString();
    document.body.dataset.loaded = "true";
    signedIn(true);
  } catch (e) {
    if (e.status === 401) {
      signedIn(false);
      say("Sign in: " + e.message, "error");
      stop();
      return;
    }
    say("Cannot read the destinations: " + e.message, "error");
  }
}

async function run(name, what, action, body) {
  say(what + " of " + name + "…");
  try {
    const answer = await api(
      "POST",
      "destinations/" + encodeURIComponent(name) + "/" + action,
      body,
    );
    say(what + " of " + name + ": done" + (answer && answer.state ? " (" + answer.state + ")" : ""), "ok");
  } catch (e) {
    say(what + " of " + name + " refused: " + e.message, "error");
  }
  refresh();
}

const ASK = {
  stop: (name) => "Stop " + name + "? It stays stopped until it is started again.",
  release: (name) => "Release " + name + " to a standby server?",
};

function act(name, action) {
  if (ASK[action] && !window.confirm(ASK[action](name))) return;
  const body = action === "release" ? { wait_seconds: 0 } : {};
  run(name, action[0].toUpperCase() + action.slice(1), action, body);
}

async function resetCursor(name, node) {
  const v = (cls) => node.querySelector(cls).value.trim();
  const client = v(".reset-client");
  if (!client) {
    say("No client to reset: none has subscribed to " + name, "error");
    return;
  }
  const body = { confirm: v(".reset-confirm") };
  if (v(".reset-time")) body.time = v(".reset-time");
  if (v(".reset-journal")) body.journal_name = v(".reset-journal");
  if (v(".reset-position")) body.position = Number(v(".reset-position"));
  say("Resetting the cursor of client " + client + " of " + name + "…");
  try {
    const r = await api(
      "POST",
      "destinations/" + encodeURIComponent(name) + "/clients/" +
        encodeURIComponent(client) + "/cursor",
      body,
    );
    say("Cursor of client " + client + " of " + name + " reset to " + cursorText(r.cursor), "ok");
  } catch (e) {
    say("Cursor reset of " + name + " refused: " + e.message, "error");
  }
  refresh();
}

function signedIn(yes) {
  $("login").hidden = yes;
  $("sign-out").hidden = !yes || !token();
  $("errors-box").hidden = !yes;
  if (!yes) {
    // Nothing of the last session stays on the page.
    $("server").textContent = "";
    $("updated").textContent = "";
    $("errors").replaceChildren();
    for (const c of cards.values()) c.node.remove();
    cards.clear();
  }
}

function start() {
  stop();
  refresh();
  timer = setInterval(refresh, REFRESH_MS);
}

function stop() {
  if (timer !== null) clearInterval(timer);
  timer = null;
}

document.addEventListener("DOMContentLoaded", () => {
  $("login").addEventListener("submit", (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("token").value);
    $("token").value = "";
    say("");
    start();
  });
  $("sign-out").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    stop();
    signedIn(false);
    say("Signed out.");
  });
  start();
});
