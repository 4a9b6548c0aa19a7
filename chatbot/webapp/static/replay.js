// The replay view (↺ Nachspielen / Replay): a finished round of the table, every hand open,
// stepped through with ◀ ▶ and a slider. The server sends the whole round at once
// (GET api/replay, docs/webapp-api.md) and only to the people who sat at the table, only for
// rounds that have ended; the page holds no rules.

import { face, spoken } from "./cards.js";

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g,
  (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

const R = { data: null, step: 0, key: null, load: null, onError: null, onToggle: null };

// Every card is an item of a list (a seat's hand, the middle) named as it is spoken.
function cardHtml(code) {
  const name = esc(spoken(code, R.data.names));
  return `<li class="rp-card" data-code="${esc(code)}" title="${name}">` +
    `<span class="sr-only">${name}</span>${face(code)}</li>`;
}

function seatHtml(p, step) {
  const t = R.data.texts || {};
  const hand = step.hands[p.seat] || [];
  const cls = ["rp-seat", step.seat === p.seat ? "moved" : "", p.you ? "you" : ""]
    .filter(Boolean).join(" ");
  const mark = p.cpu && !/🤖/.test(p.name) ? '<span aria-hidden="true">🤖 </span>' : "";
  const score = (step.scores || [])[p.seat] || "";
  const named = esc((t.hand || "{name}").replace("{name}", p.name));
  const cards = hand.length
    ? `<ul class="rp-hand${hand.length > 8 ? " fan" : ""}" data-n="${hand.length}" ` +
      `aria-label="${named}">${hand.map(cardHtml).join("")}</ul>`
    : `<p class="rp-hand" data-n="0"><span class="sr-only">${esc(t.no_cards || "")}</span></p>`;
  return `<li class="${cls}" data-seat="${p.seat}">` +
    `<h2 class="rp-name">${mark}${esc(p.name)}<span class="rp-score">${esc(score)}</span></h2>` +
    `${cards}</li>`;
}

function draw() {
  const d = R.data;
  const n = d.steps.length - 1;
  const i = Math.max(0, Math.min(R.step, n));
  R.step = i;
  const step = d.steps[i];
  const t = d.texts || {};
  const box = $("replay");
  box.dataset.step = String(i);
  box.dataset.round = String(d.round);
  $("rp-title").textContent = `↺ ${d.title || ""}`;
  $("rp-close").textContent = t.close || "✕";
  $("rp-rounds").setAttribute("aria-label", t.round || "");
  $("rp-prev").setAttribute("aria-label", t.back || "");
  $("rp-next").setAttribute("aria-label", t.forward || "");
  $("rp-slider").setAttribute("aria-label", t.slider || "");
  $("rp-seats").setAttribute("aria-label", t.players || "");
  $("rp-middle").setAttribute("aria-label", t.middle || "");
  if (d.lang) document.documentElement.lang = d.lang;
  $("rp-rounds").innerHTML = d.rounds.map((r) =>
    `<option value="${r.number}"${r.number === d.round ? " selected" : ""}>` +
    `${esc(r.label)}</option>`).join("");
  $("rp-seats").innerHTML = d.players.map((p) => seatHtml(p, step)).join("");
  $("rp-middle-label").textContent = step.middle.length ? (t.middle || "") : "";
  $("rp-middle").innerHTML = step.middle.map(cardHtml).join("");
  $("rp-middle-text").textContent = step.middle_text || "";
  $("rp-text").textContent = step.text || "";
  const res = $("rp-result");
  res.hidden = !step.result;
  res.innerHTML = (step.result || []).map((x) => `<p>${esc(x)}</p>`).join("");
  const slider = $("rp-slider");
  slider.max = String(n);
  slider.value = String(i);
  $("rp-step").textContent = (t.step || "{step}/{steps}")
    .replace("{step}", String(i)).replace("{steps}", String(n));
  slider.setAttribute("aria-valuetext", $("rp-step").textContent);
  $("rp-prev").disabled = i === 0;
  $("rp-next").disabled = i === n;
}

function go(to) {
  if (!R.data) return;
  R.step = to;
  draw();
}

async function show(round) {
  const data = await R.load(R.key, round);
  R.data = data;
  R.step = 0;
  draw();
}

function onKey(e) {
  if ($("replay").hidden || !R.data || e.target === $("rp-slider")) return; // (it steps itself)
  if (e.key === "ArrowLeft") go(R.step - 1);
  else if (e.key === "ArrowRight") go(R.step + 1);
}

/** Wire the view once: ``load(tableKey, round)`` fetches a round, ``onError(err)`` shows a
 * failure, ``onToggle()`` is told when the view opens or closes (the table's controls). */
export function setupReplay(load, onError, onToggle) {
  R.load = load;
  R.onError = onError;
  R.onToggle = onToggle;
  $("rp-prev").addEventListener("click", () => go(R.step - 1));
  $("rp-next").addEventListener("click", () => go(R.step + 1));
  $("rp-slider").addEventListener("input", (e) => go(Number(e.target.value)));
  $("rp-close").addEventListener("click", closeReplay);
  $("rp-rounds").addEventListener("change", (e) => {
    openReplay(R.key, Number(e.target.value));
  });
  document.addEventListener("keydown", onKey);
}

/** Open the replay of a round of the table (``round`` null: its last finished one). */
export async function openReplay(tableKey, round) {
  R.key = tableKey;
  try {
    await show(round);
  } catch (err) {
    R.onError(err);
    return false;
  }
  $("replay").hidden = false;
  $("app").hidden = true;
  window.scrollTo(0, 0);
  if (R.onToggle) R.onToggle();
  return true;
}

export function closeReplay() {
  $("replay").hidden = true;
  $("app").hidden = false;
  if (R.onToggle) R.onToggle();
}

export function replayOpen() {
  return !$("replay").hidden;
}
