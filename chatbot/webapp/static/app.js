// The visual table: draws the server's view (docs/webapp-api.md), asks the server what a
// selection of cards is, and plays moves. No rules and (almost) no texts of its own.

import { ApiError, makeApi, newKey } from "./api.js";
import { CORNER, back, face, spoken } from "./cards.js";
import { deriveColours } from "./colours.js";
import { setupDeck } from "./deck.js";
import { setupInvite } from "./invite.js";
import { closeReplay, openReplay, replayOpen, setupReplay } from "./replay.js";

const tg = (window.Telegram && window.Telegram.WebApp) || null;
const inTelegram = !!tg && tg.platform !== "unknown";
// On a phone Telegram's MainButton plays; elsewhere (a desktop client, a browser) the page's
// own button does, which the keyboard reaches after the cards.
const mainButton = inTelegram && ["android", "ios", "android_x"].includes(tg.platform);
const $ = (id) => document.getElementById(id);

const S = {
  view: null, // the last view drawn
  selected: [], // card codes, in tapping order
  sel: null, // {text, move} of the selection, from /api/select
  selSeq: 0, // answers of older /api/select calls are dropped
  pending: null, // {table, version, code, key}: a press to retry with the same key
  sending: null, // {table, version} of the view a move on its way was pressed on
  online: true,
  stopEvents: null,
  skew: 0, // the server's clock minus this device's, in seconds (for the turn clock)
  following: null, // the table "play again" led to, once followed
  news: [], // the latest moves of the view drawn ({seat, text}), to read out what is new
  lastFocus: null, // what had the focus in the table last (focusKey)
  drawn: "", // the last view drawn as it came (but its clock), to skip the same one again
};

// ------------------------------------------------------------------ start

const lang = ((tg && tg.initDataUnsafe && tg.initDataUnsafe.user &&
  tg.initDataUnsafe.user.language_code) || navigator.language || "de").slice(0, 2);
document.documentElement.lang = lang === "de" ? "de" : lang || "de"; // (the view's, once drawn)
const FALLBACK = lang === "de"
  ? { auth: "Anmeldung ungültig – bitte die Tafel aus Telegram neu öffnen.",
      none: "Kein offener Tisch.", error: "Fehler", play: "Spielen", offline: "offline",
      log: "Verlauf", forbidden: "Nicht dein Tisch." }
  : { auth: "Sign-in not valid – please open the table again from Telegram.",
      none: "No open table.", error: "Error", play: "Play", offline: "offline", log: "Log",
      forbidden: "Not your table." };

// A table's token (links) or, in older links, its number.
const TABLE = /^[A-Za-z0-9_-]{1,43}$/;

function tableIdFromUrl() {
  const t = new URLSearchParams(location.search).get("t");
  if (t && TABLE.test(t)) return t;
  const start = tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param;
  if (start && /^t/.test(start) && TABLE.test(start.slice(1))) return start.slice(1);
  return null;
}

/** A page's name (``?p=`` or the start parameter ``tn<id>``, ``lg``, ``lg-<game>``), else
 *  null: the same rule as pages.js, kept here so a table's page loads nothing more. */
function pageFromUrl(t) {
  const asked = new URLSearchParams(location.search).get("p")
    || (t && t.initDataUnsafe && t.initDataUnsafe.start_param) || "";
  const m = /^tn([1-9][0-9]{0,9})$/.exec(asked);
  if (m) return { kind: "tournament", arg: m[1] };
  const l = /^lg(?:-([a-z]{1,20}))?$/.exec(asked);
  return l ? { kind: "league", arg: l[1] || null } : null;
}

const api = makeApi(() => (tg && tg.initData) || "");

// What names a table in the streams and the URL: its token (numbers only for its players).
const tableKey = (view) => String(view.token || view.table);

function applyTheme() {
  // Telegram's scheme (from its theme's background), else the browser's
  let scheme = tg && tg.themeParams && tg.themeParams.bg_color ? tg.colorScheme : null;
  if (!scheme && window.matchMedia) {
    scheme = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  document.documentElement.dataset.scheme = scheme || "light";
  deriveColours();
}

function haptic(kind, arg) {
  if (!inTelegram || !tg.HapticFeedback || !tg.isVersionAtLeast("6.1")) return;
  try {
    if (kind === "select") tg.HapticFeedback.selectionChanged();
    else tg.HapticFeedback.notificationOccurred(arg);
  } catch (e) { /* an old client */ }
}

async function start() {
  applyTheme();
  if (window.matchMedia) {
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", applyTheme);
  }
  if (tg) {
    tg.onEvent("themeChanged", applyTheme);
    tg.ready();
    tg.expand();
    if (mainButton) tg.MainButton.onClick(onPlay);
    if (inTelegram && tg.isVersionAtLeast("6.1")) tg.BackButton.onClick(onBack);
  }
  const page = pageFromUrl(tg); // a tournament's or the league's page instead of a table
  if (page) {
    if (inTelegram) tg.MainButton.hide();
    (await import("./pages.js")).startPage(api, page, FALLBACK);
    return;
  }
  setupDeck(api, () => { if (S.view) layoutHand(); }, (err) => toast(err.message || FALLBACK.error));
  document.addEventListener("click", onClick);
  document.addEventListener("focusin", (e) => { S.lastFocus = keyOf(e.target); });
  $("play").addEventListener("click", onPlay);
  $("clear").addEventListener("click", onBack);
  $("replay-open").addEventListener("click", () => {
    if (S.view && S.view.replay) openReplay(tableKey(S.view), S.view.replay.round);
  });
  setupReplay(api.replay, (err) => toast(err.message || FALLBACK.error), updateControls);
  window.addEventListener("resize", layoutHand);
  setInterval(tick, 1000);
  let view;
  for (let delay = 1000; ; delay = Math.min(delay * 2, 30000)) {
    try {
      view = await api.table(tableIdFromUrl());
      break;
    } catch (err) {
      if (err instanceof ApiError) { showError(err); return; }
      setOnline(false); // no answer at all: try again
      await new Promise((resolve) => { setTimeout(resolve, delay); });
    }
  }
  setOnline(true);
  applyView(view);
  S.stopEvents = api.events(tableKey(view), applyView, setOnline);
  setupInvite(api, tg, view.game, toast, (err) => toast(err.message || FALLBACK.error));
  const asked = new URLSearchParams(location.search).get("r"); // the chat's "replay in the app"
  if (asked && /^[0-9]{1,4}$/.test(asked)) openReplay(tableKey(view), Number(asked));
}

function showError(err) {
  const status = err instanceof ApiError ? err.status : 0;
  const text = status === 401 ? FALLBACK.auth : status === 404 ? FALLBACK.none
    : status === 403 ? err.message || FALLBACK.forbidden
    : `${FALLBACK.error} ${status || ""}`.trim();
  $("app").classList.add("failed");
  $("app").setAttribute("aria-busy", "false");
  $("error").hidden = false;
  $("error").textContent = text;
  if (inTelegram) tg.MainButton.hide();
}

// ------------------------------------------------------------------ views

function normalize(v) {
  // Defaults for every field of the contract.
  const out = { players: [], turn: null, middle: {}, hand: [], selectable: [], moves: [],
    lines: [], result: null, over: false, texts: {}, ...v };
  out.middle = out.middle || {};
  out.texts = out.texts || {};
  return out;
}

function applyView(raw) {
  const v = normalize(raw);
  const old = S.view;
  if (old && old.table === v.table && v.version < old.version) return; // a late event
  if (typeof v.now === "number") S.skew = v.now - Date.now() / 1000;
  // the same view again (the stream's first event after the page's own fetch): nothing is
  // drawn anew, so a tap on a card in the middle of it is not lost with the card it began on
  const drawn = JSON.stringify({ ...raw, now: undefined });
  if (old && old.table === v.table && old.version === v.version && drawn === S.drawn) return;
  S.drawn = drawn;
  if (v.next_table && v.over && (!old || old.table === v.table)) {
    follow(String(v.next_table)); // "play again" opened the next table
  }
  if (!old || old.table !== v.table || old.version !== v.version) {
    S.selected = [];
    S.sel = null;
    S.selSeq++;
    S.pending = null;
  } else {
    const can = new Set(v.selectable);
    const kept = S.selected.filter((c) => can.has(c));
    if (kept.length !== S.selected.length) {
      S.selected = kept;
      sayNews(old, v);
      S.view = v;
      render();
      askSelection();
      return;
    }
  }
  sayNews(old, v);
  S.view = v;
  render();
}

async function follow(tableId) {
  // Go on at the table that follows: its own stream, and the URL names it.
  if (S.following === tableId) return;
  S.following = tableId;
  if (S.stopEvents) S.stopEvents();
  const url = new URL(location.href);
  url.searchParams.set("t", tableId);
  history.replaceState(null, "", url);
  try {
    applyView(await api.table(tableId));
  } catch (err) {
    if (err instanceof ApiError) { showError(err); return; }
  }
  S.stopEvents = api.events(tableId, applyView, setOnline);
}

function setOnline(online) {
  if (S.online === online) return;
  S.online = online;
  const el = $("offline");
  el.hidden = online;
  el.textContent = (S.view && S.view.texts.offline) || FALLBACK.offline;
}

const esc = (s) => String(s ?? "").replace(/[&<>"']/g,
  (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

function cardButton(code, zone, v, live) {
  // live: this zone takes part in a move now (else its cards are shown plain, not dimmed);
  // only a card that can be played is a stop of the Tab key; each is named as it is spoken
  const can = v.selectable.includes(code);
  const on = S.selected.includes(code);
  const state = can ? " can" : live ? " dim" : "";
  const name = esc(spoken(code, v.names));
  return `<button type="button" class="card${state}${on ? " on" : ""}" ` +
    `data-code="${esc(code)}" data-zone="${zone}" aria-pressed="${on}" ` +
    `aria-disabled="${!can}"${can ? "" : ' tabindex="-1"'} title="${name}">` +
    `<span class="sr-only">${name}</span>${face(code)}</button>`;
}

function playerHtml(p, v) {
  const turn = v.turn && v.turn.seat === p.seat && !v.over;
  const cls = ["player", turn ? "turn" : "", p.out ? "out" : "", p.away ? "away" : "",
    p.you ? "you" : "", p.cpu ? "cpu" : ""].filter(Boolean).join(" ");
  const t = v.texts;
  const badge = (on, key, fallback) =>
    on ? `<span class="badge ${key}">${esc(t[key] || fallback)}</span>` : "";
  const marks = p.cpu && !/🤖/.test(p.name)
    ? `<span aria-hidden="true">🤖 </span><span class="sr-only">${esc(t.cpu || "CPU")}: </span>` : "";
  const badges = badge(p.you, "you", "★") + badge(p.away, "away", "💤") +
    badge(p.out, "out", "✖");
  const count = p.cards === null || p.cards === undefined ? ""
    : `<span class="count" title="${esc(p.cards_text || "")}">${back()}` +
      `<b aria-hidden="true">${p.cards}</b><span class="sr-only">${esc(p.cards_text || p.cards)}</span></span>`;
  const clock = turn && v.turn.deadline
    ? `<span class="clock" data-deadline="${v.turn.deadline}"></span>` : "";
  return `<div class="${cls}" data-seat="${p.seat}">` +
    `<div class="pname">${marks}${esc(p.name)}${badges}</div>` +
    `<div class="pinfo">${count}<span class="score">${esc(p.score ?? "")}</span>${clock}</div>` +
    `</div>`;
}

/** What has the keyboard's focus in the table (a card, a move, a button), to give it back
 *  after the table is drawn anew: ``null`` when the focus is elsewhere. */
function keyOf(el) {
  if (!el || el === document.body || !$("app").contains(el)) return null;
  if (el.dataset && el.dataset.code) return { code: el.dataset.code, zone: el.dataset.zone };
  if (el.dataset && el.dataset.move) return { move: el.dataset.move };
  return el.id ? { id: el.id } : null;
}

/** ... also where the focus was lost a moment ago (a pressed button that went away or was
 *  disabled while its move was sent: the focus fell to the body). */
function focusKey() {
  const el = document.activeElement;
  if (!el || el === document.body) return S.lastFocus;
  return keyOf(el);
}

/** The focus back where it was: the same card or button; where that is gone (the card was
 *  played, the button is hidden), the first card that can be played, else the first move,
 *  else the table's title. */
function restoreFocus(key) {
  if (!key) return;
  const usable = (el) => el && !el.hidden && !el.disabled && el.offsetParent !== null
    && el.getAttribute("tabindex") !== "-1";
  let el = key.code ? document.querySelector(
    `.card[data-code="${CSS.escape(key.code)}"][data-zone="${key.zone}"]`)
    : key.move ? document.querySelector(`button.move[data-move="${CSS.escape(key.move)}"]`)
      : $(key.id);
  if (el === document.activeElement) return;
  if (!usable(el)) {
    el = [...document.querySelectorAll("#hand .card.can, #middle-cards .card.can, button.move, #play")]
      .find(usable) || $("title");
  }
  el.focus({ preventScroll: true });
  el.scrollIntoView({ block: "nearest" });
}

/** The others' moves that are new since the view drawn before read out (a live region):
 *  the view's latest moves after the longest run they share with the last view's. */
function sayNews(old, v) {
  const news = v.news || [];
  const before = old && old.table === v.table ? S.news : [];
  S.news = news;
  if (!old || old.table !== v.table) return; // (the first view: nothing is news)
  const same = (a, b) => a.seat === b.seat && a.text === b.text;
  let skip = 0;
  for (let k = Math.min(before.length, news.length); k > 0; k--) {
    const tail = before.slice(before.length - k);
    if (tail.every((e, i) => same(e, news[i]))) { skip = k; break; }
  }
  const fresh = news.slice(skip).filter((e) => e.seat !== v.seat).map((e) => e.text);
  if (fresh.length) $("said").textContent = fresh.join(" ");
}

function render() {
  const v = S.view;
  const t = v.texts;
  const app = $("app");
  const focused = focusKey();
  document.documentElement.lang = v.lang || document.documentElement.lang;
  $("opponents").setAttribute("aria-label", t.players || "");
  app.setAttribute("aria-busy", "false");
  app.dataset.game = v.game || "";
  app.dataset.table = String(v.table);
  app.dataset.version = String(v.version);
  app.classList.toggle("over", !!v.over);
  app.classList.toggle("spectator", v.seat === null || v.seat === undefined);
  document.title = v.title || "Stammtisch";
  $("title").textContent = v.title || "Stammtisch";

  // status line: whose turn
  let status = "";
  if (!v.over && v.turn) status = v.turn.yours ? (t.your_turn || "") : (t.waiting || "");
  $("status").textContent = status;
  $("status").classList.toggle("yours", !!(v.turn && v.turn.yours && !v.over));

  // the players around the table: the others in seat order after me, me at the bottom
  const players = v.players.slice();
  const mine = players.find((p) => p.you);
  const n = players.length;
  const from = mine ? mine.seat : -1;
  const others = players.filter((p) => !p.you)
    .sort((a, b) => ((a.seat - from + n) % n) - ((b.seat - from + n) % n));
  $("opponents").innerHTML = others.map((p) => playerHtml(p, v)).join("");
  $("opponents").dataset.n = String(others.length);
  $("me").innerHTML = mine ? playerHtml(mine, v) : "";
  const watching = v.seat === null || v.seat === undefined;
  $("note").hidden = !(watching && t.not_seated);
  $("note").textContent = watching ? (t.not_seated || "") : "";

  // the middle
  const m = v.middle;
  $("middle-label").textContent = m.label || "";
  const middleLive = (m.cards || []).some((c) => v.selectable.includes(c));
  let cards = (m.cards || []).map((c) => cardButton(c, "middle", v, middleLive)).join("");
  if (m.stack !== null && m.stack !== undefined) {
    cards = `<div class="stack" title="${esc(m.stack)}">${back()}<b>${esc(m.stack)}</b></div>` +
      cards;
  }
  $("middle-cards").innerHTML = cards;
  $("middle-text").textContent = m.text || "";

  // the result
  const res = $("result");
  res.hidden = v.result === null || v.result === undefined || v.result === "";
  if (!res.hidden) res.innerHTML = resultHtml(v.result);

  // the moves without cards
  $("moves").innerHTML = v.moves.map((mv) =>
    `<button type="button" class="move" data-move="${esc(mv.code)}">${esc(mv.label)}</button>`)
    .join("");

  // my hand
  const handLive = v.hand.some((c) => v.selectable.includes(c));
  $("hand").innerHTML = v.hand.map((c) => cardButton(c, "hand", v, handLive)).join("");
  $("hand").classList.toggle("empty", v.hand.length === 0);
  $("hand").setAttribute("aria-label", t.hand || "");
  layoutHand();

  // the log
  $("log").querySelector("summary").textContent = t.log || FALLBACK.log;
  $("log").querySelector("pre").textContent = (v.lines || []).join("\n");
  $("log").hidden = !(v.lines && v.lines.length);

  if (!S.online) $("offline").textContent = t.offline || FALLBACK.offline;
  tick();
  updateControls();
  restoreFocus(focused);
}

function resultHtml(r) {
  if (typeof r === "string") return `<p>${esc(r)}</p>`;
  if (Array.isArray(r)) return r.map((x) => `<p>${esc(typeof x === "string" ? x : JSON.stringify(x))}</p>`).join("");
  if (r && typeof r === "object") {
    const lines = r.lines || (r.text ? [r.text] : null);
    if (lines) return lines.map((x) => `<p>${esc(x)}</p>`).join("");
    return `<p>${esc(JSON.stringify(r))}</p>`;
  }
  return `<p>${esc(r)}</p>`;
}

/** Spread the hand on a wide screen, overlap it like a fan on a narrow one; in as many rows
 *  as it takes for every card's corner (its rank and suit: CORNER of its width, and the upper
 *  part of its height) to stay in sight, at any zoom and text size. */
function layoutHand() {
  const hand = $("hand");
  const cards = Array.from(hand.children);
  if (!cards.length) { hand.style.height = ""; return; }
  const width = hand.clientWidth;
  const w = cards[0].offsetWidth || 60;
  const h = cards[0].offsetHeight || Math.round(w * 1.4);
  const n = cards.length;
  const stepFor = (k) => (k > 1 ? Math.min(w + 6, (width - w - 4) / (k - 1)) : 0);
  let rows = 1;
  while (rows < n && stepFor(Math.ceil(n / rows)) < CORNER * w) rows++;
  const perRow = Math.ceil(n / rows);
  // the upper row's corners (rank over suit: 0.64 of the height) stay in sight, also when a
  // card of the lower row is raised (6 px)
  const rowGap = Math.ceil(h * 0.64) + 6;
  const top = 20; // room for a raised card
  cards.forEach((el, i) => {
    const r = Math.floor(i / perRow);
    const j = i % perRow;
    const k = r === rows - 1 ? n - perRow * (rows - 1) : perRow;
    const step = stepFor(k);
    const left = Math.max(0, (width - (w + step * (k - 1))) / 2);
    const mid = (k - 1) / 2;
    // a gentle arc when the cards overlap (the ends 8 px lower than the middle)
    const arc = rows === 1 && step < w && mid > 0 ? Math.round(8 * ((j - mid) / mid) ** 2) : 0;
    el.style.left = `${Math.round(left + j * step)}px`;
    el.style.top = `${top + r * rowGap}px`;
    el.style.zIndex = String(i + 1);
    el.dataset.row = String(r);
    el.style.setProperty("--arc", `${arc}px`);
  });
  hand.style.height = `${top + (rows - 1) * rowGap + h + 12}px`;
  hand.classList.toggle("rows", rows > 1);
}

function tick() {
  const now = Date.now() / 1000 + S.skew;
  for (const el of document.querySelectorAll(".clock")) {
    const left = Math.max(0, Math.ceil(Number(el.dataset.deadline) - now));
    const shown = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    if (el.dataset.shown === shown) continue;
    el.dataset.shown = shown; // (the stopwatch is no word: a screen reader hears "Time left")
    const said = (S.view && S.view.texts.time_left) || "";
    el.innerHTML = `<span aria-hidden="true">⏱ </span>` +
      `${said ? `<span class="sr-only">${esc(said)} </span>` : ""}${shown}`;
    el.classList.toggle("urgent", left <= 10);
  }
}

// ------------------------------------------------------------------ selection and moves

/** A move pressed on the view shown is on its way: taps and presses wait for its answer. Once
 *  a newer view shows (the live stream can bring it before the answer), that move is decided
 *  and the page takes taps for the new view at once. */
function busy() {
  const s = S.sending;
  const v = S.view;
  return !!s && !!v && s.table === v.table && s.version === v.version;
}

function onClick(e) {
  const card = e.target.closest(".card[data-zone]");
  if (card) return toggle(card.dataset.code, card.dataset.zone);
  const mv = e.target.closest("button.move[data-move]");
  if (mv) return play(mv.dataset.move);
  return undefined;
}

function toggle(code, zone) {
  const v = S.view;
  if (!v || !v.selectable.includes(code) || busy()) return;
  haptic("select");
  if (S.selected.includes(code)) {
    S.selected = S.selected.filter((c) => c !== code);
  } else {
    if (v.game === "schwimmen") { // one hand card and one middle card: a tap replaces
      const zoneOf = (c) => (v.hand.includes(c) ? "hand" : "middle");
      S.selected = S.selected.filter((c) => zoneOf(c) !== zone);
    }
    S.selected.push(code);
  }
  for (const el of document.querySelectorAll(".card[data-zone]")) {
    const on = S.selected.includes(el.dataset.code);
    el.classList.toggle("on", on);
    el.setAttribute("aria-pressed", String(on));
  }
  askSelection();
}

async function askSelection() {
  const seq = ++S.selSeq;
  S.sel = null;
  updateControls();
  if (!S.selected.length) return;
  const v = S.view;
  try {
    const answer = await api.select(v.table, v.version, S.selected.slice());
    if (seq !== S.selSeq) return;
    S.sel = { text: answer.text || "", move: answer.move || null };
  } catch (err) {
    if (seq !== S.selSeq) return;
    S.sel = { text: "", move: null };
  }
  updateControls();
}

function onBack() {
  if ($("deck").open) {
    $("deck").close(); // (Telegram's back button closes the choice of cards)
  } else if (replayOpen()) {
    closeReplay();
  } else if (S.selected.length) {
    S.selected = [];
    for (const el of document.querySelectorAll(".card.on")) {
      el.classList.remove("on");
      el.setAttribute("aria-pressed", "false");
    }
    askSelection();
  } else if (inTelegram) {
    tg.close();
  }
}

function onPlay() {
  if (S.sel && S.sel.move) play(S.sel.move.code);
}

function updateControls() {
  const v = S.view;
  if (!v) return;
  const t = v.texts;
  const move = S.sel && S.sel.move;
  const any = S.selected.length > 0;
  const can = v.selectable.length > 0 && !v.over;
  let text = "";
  if (any) text = S.sel ? S.sel.text : "…";
  else if (can && v.turn && v.turn.yours) text = t.select || "";
  $("seltext").textContent = text;
  $("seltext").dataset.ready = any && !S.sel ? "0" : "1"; // (an answer is on its way)
  $("seltext").classList.toggle("bad", any && !!S.sel && !move);
  const label = move ? move.label : (t.play || FALLBACK.play);
  const show = (any || (can && !!(v.turn && v.turn.yours))) && !replayOpen();
  const enabled = !!move && !busy();
  if (mainButton) {
    const mb = tg.MainButton;
    if (show) {
      mb.setText(label);
      const p = tg.themeParams || {};
      if (enabled) {
        mb.enable();
        if (p.button_color) mb.setParams({ color: p.button_color, text_color: p.button_text_color });
      } else {
        mb.disable();
        if (p.hint_color) mb.setParams({ color: p.hint_color, text_color: p.bg_color || "#ffffff" });
      }
      mb.show();
    } else {
      mb.hide();
    }
  } else {
    const b = $("play");
    b.hidden = !show;
    b.disabled = !enabled;
    b.textContent = label;
    $("clear").hidden = !any;
    $("clear").textContent = t.clear || "✕";
  }
  if (inTelegram && tg.isVersionAtLeast("6.1")) {
    if (any || replayOpen()) tg.BackButton.show(); else tg.BackButton.hide();
  }
  const waiting = busy();
  for (const b of document.querySelectorAll("button.move")) b.disabled = waiting;
  $("replay-open").hidden = !v.replay;
  $("replay-open").textContent = v.replay ? v.replay.label : "";
}

async function play(code) {
  const v = S.view;
  if (!v || busy()) return;
  let p = S.pending;
  if (!p || p.table !== v.table || p.version !== v.version || p.code !== code) {
    p = S.pending = { table: v.table, version: v.version, code, key: newKey() };
  }
  const sending = S.sending = { table: v.table, version: v.version };
  const done = () => { if (S.sending === sending) S.sending = null; }; // (not a later move's)
  updateControls();
  try {
    const { data } = await api.move(p.table, p.version, p.code, p.key);
    if (S.pending === p) S.pending = null;
    if (data.ok) haptic("note", "success");
    else {
      haptic("note", "error");
      toast(data.answer || FALLBACK.error);
    }
    done();
    if (data.table !== undefined && data.version !== undefined) applyView(data);
  } catch (err) {
    // no answer (the network): S.pending stays, so pressing again sends the same key
    toast(err instanceof ApiError ? `${FALLBACK.error} ${err.status}`
      : (v.texts.offline || FALLBACK.offline));
    haptic("note", "error");
  } finally {
    done();
    updateControls();
  }
}

let toastTimer = null;
function toast(text) {
  const el = $("toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 3500);
}

start();
