// A tournament's page and the league's page (docs/webapp.md): drawn from the server's JSON
// (GET api/tournament, api/league; docs/webapp-api.md), with every text from the server.
// They stay current by asking again calmly — every `refresh` seconds (the answer says how
// often; null: no more) while the page is in sight, and at once when it comes back into sight.

import { ApiError } from "./api.js";

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g,
  (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

const P = {
  api: null, page: null, data: null, fallback: {}, timer: null, delay: 1000,
  round: null, // the round whose tables show (null: the newest)
  game: null, division: null, // the league's choice (null: the person's own)
  seq: 0, // answers of older requests are dropped
};

/** Show the page ``page`` names ({kind: "tournament", arg: "12"} or {kind: "league", arg:
 *  a game or null}: app.js reads it from ?p= or the start parameter) instead of a table. */
export function startPage(api, page, fallback) {
  P.api = api;
  P.page = page;
  P.fallback = fallback;
  if (page.kind === "league") P.game = page.arg;
  $("app").hidden = true;
  $("page").hidden = false;
  $("page").dataset.kind = page.kind;
  $("page").addEventListener("click", onClick);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) load();
  });
  load();
}

async function load() {
  clearTimeout(P.timer);
  const seq = ++P.seq;
  let data;
  try {
    data = P.page.kind === "tournament" ? await P.api.tournament(P.page.arg)
      : await P.api.league(P.game, P.division);
  } catch (err) {
    if (seq !== P.seq) return;
    if (err instanceof ApiError) { showError(err); return; }
    setOffline(true); // no answer: again, a little later each time
    P.timer = setTimeout(load, P.delay);
    P.delay = Math.min(P.delay * 2, 60000);
    return;
  }
  if (seq !== P.seq) return;
  P.delay = 1000;
  setOffline(false);
  P.data = data;
  draw();
  if (data.refresh) { // (a finished tournament changes no more)
    P.timer = setTimeout(() => { if (!document.hidden) load(); }, data.refresh * 1000);
  }
}

function setOffline(off) {
  const el = $("pg-offline");
  el.hidden = !off;
  el.textContent = (P.data && P.data.texts.offline) || P.fallback.offline;
}

function showError(err) {
  const page = $("page");
  page.classList.add("failed");
  page.setAttribute("aria-busy", "false");
  $("pg-error").hidden = false;
  $("pg-error").textContent = err.status === 401 ? P.fallback.auth
    : err.message || `${P.fallback.error} ${err.status}`;
}

function onClick(e) {
  const tab = e.target.closest("button[data-round],button[data-game],button[data-division]");
  if (!tab) return;
  if (tab.dataset.round) {
    const d = P.data;
    const newest = d.draw.length ? d.draw[d.draw.length - 1].round : null;
    P.round = Number(tab.dataset.round) === newest ? null : Number(tab.dataset.round);
    draw();
  } else if (tab.dataset.game) {
    P.game = tab.dataset.game;
    P.division = null;
    load();
  } else {
    P.division = Number(tab.dataset.division);
    load();
  }
}

function draw() {
  const d = P.data;
  const page = $("page");
  page.setAttribute("aria-busy", "false");
  page.dataset.version = String((Number(page.dataset.version) || 0) + 1);
  document.title = d.title;
  $("pg-title").textContent = d.title;
  if (d.kind === "tournament") drawTournament(d);
  else drawLeague(d);
}

function tabs(items, attr) {
  // items: {value, label, on}
  if (items.length < 2) return "";
  return `<nav class="pg-tabs">${items.map((t) =>
    `<button type="button" data-${attr}="${esc(t.value)}" aria-pressed="${t.on}"` +
    `${t.on ? ' class="on"' : ""}>${esc(t.label)}</button>`).join("")}</nav>`;
}

// ------------------------------------------------------------------ a tournament

function drawTournament(d) {
  const t = d.texts;
  $("pg-status").textContent = [d.status, d.place].filter(Boolean).join(" · ");
  let html = "";
  if (!d.draw.length) {
    html += `<section class="pg-card"><h2>${esc(t.entrants)}</h2>` +
      (d.entrants.length
        ? `<p class="pg-names">${d.entrants.map((n) => `<span>${esc(n)}</span>`).join("")}</p>`
        : `<p class="pg-hint">${esc(t.nobody)}</p>`) +
      `<p class="pg-hint">${esc(t.no_draw)}</p></section>`;
  } else {
    const shown = d.draw.find((r) => r.round === P.round) || d.draw[d.draw.length - 1];
    html += `<section class="pg-round" data-round="${shown.round}">` +
      `<h2>${esc(t.tables)}</h2>` +
      tabs(d.draw.map((r) => ({ value: r.round, label: r.label, on: r === shown })), "round") +
      `<div class="pg-tables">${shown.tables.map(tableHtml).join("")}</div></section>`;
  }
  if (d.standings.length && d.draw.length) html += standingsHtml(d);
  $("pg-body").innerHTML = html;
}

function tableHtml(table) {
  const seats = table.seats.map((s) => {
    const cls = ["pg-seat", s.you ? "you" : "", s.cpu ? "cpu" : ""].filter(Boolean).join(" ");
    const score = s.points === null ? ""
      : `<b class="pg-pts">${esc(s.points)}</b>` +
        (s.game_points === null ? "" : `<span class="pg-gp">${esc(s.game_points)}</span>`);
    return `<li class="${cls}"><span class="pg-name">${esc(s.name)}</span>${score}</li>`;
  }).join("");
  return `<article class="pg-table ${esc(table.state)}" data-no="${table.no}">` +
    `<header><span>${esc(table.label)}</span>` +
    `<span class="pg-state">${esc(table.state_text)}</span></header>` +
    `<ol>${seats}</ol></article>`;
}

function standingsHtml(d) {
  const t = d.texts;
  const rows = d.standings.map((s, i) => {
    const tie = i > 0 && d.standings[i - 1].rank === s.rank;
    return `<tr class="${s.you ? "you" : ""}${tie ? " tie" : ""}">` +
      `<td class="pg-rank">${s.rank}.</td><td class="pg-name">${esc(s.name)}</td>` +
      `<td class="pg-num">${esc(s.points)}</td><td class="pg-num">${esc(s.buchholz)}</td>` +
      `<td class="pg-num">${esc(s.game_points)}</td></tr>`;
  }).join("");
  return `<section class="pg-standings"><h2>${esc(t.standings)}</h2>` +
    `<table class="pg-grid"><thead><tr><th class="pg-rank">#</th><th>${esc(t.name)}</th>` +
    `<th class="pg-num">${esc(t.points)}</th><th class="pg-num">${esc(t.buchholz)}</th>` +
    `<th class="pg-num">${esc(t.game)}</th></tr></thead><tbody>${rows}</tbody></table>` +
    `<p class="pg-legend">${esc(t.legend)}</p></section>`;
}

// ------------------------------------------------------------------ the league

function drawLeague(d) {
  const t = d.texts;
  $("pg-status").textContent = d.week;
  let html = tabs(d.games.map((g) => ({ value: g.game, label: g.label, on: g.on })), "game") +
    tabs(d.division_labels.map((x) => ({ value: x.n, label: x.label, on: x.on })), "division");
  if (d.empty) {
    html += `<p class="pg-card pg-hint">${esc(d.empty)}</p>`;
    $("pg-body").innerHTML = html;
    return;
  }
  if (d.you) html += `<p class="pg-you">${esc(d.you)}</p>`;
  const lastUp = d.rows.map((r) => r.zone).lastIndexOf("up");
  const firstDown = d.rows.findIndex((r) => r.zone === "down");
  const rows = d.rows.map((r, i) => {
    const cls = [r.you ? "you" : "", r.zone ? `zone-${r.zone}` : "",
      i === lastUp ? "zone-line" : "", i === firstDown - 1 ? "zone-line" : ""]
      .filter(Boolean).join(" ");
    const days = r.days.map((v, j) =>
      `<td class="pg-day${j >= d.begun ? " later" : ""}">${esc(v)}</td>`).join("");
    return `<tr class="${cls}"><td class="pg-rank">${esc(r.rank)}</td>` +
      `<td class="pg-name">${esc(r.name)}${r.mark ? ` <span class="pg-mark">${esc(r.mark)}</span>` : ""}</td>` +
      `${days}<td class="pg-num pg-total">${esc(r.points)}</td></tr>`;
  }).join("");
  const head = d.days.map((x, j) =>
    `<th class="pg-day${j >= d.begun ? " later" : ""}">${esc(x)}</th>`).join("");
  html += `<table class="pg-grid pg-league"><thead><tr><th class="pg-rank">#</th>` +
    `<th>${esc(t.name)}</th>${head}<th class="pg-num">${esc(t.points)}</th></tr></thead>` +
    `<tbody>${rows}</tbody></table><p class="pg-legend">${esc(d.legend)}</p>`;
  $("pg-body").innerHTML = html;
}
