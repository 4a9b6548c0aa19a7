// The person's cards (docs/accessibility.md): the deck's colours — classic, the German
// tournament's four colours, the poker four-colour deck — and large cards, as they chose them in
// the chat (/karten) or here (🂠 beside the table's title opens the choice). Kept on the server
// for the person (GET/POST api/cards); the page shows them as html[data-deck] and
// html[data-large] (style.css).

import { face } from "./cards.js";

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g,
  (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const SAMPLE = ["AS", "10H", "QD", "7C"]; // one card of each suit

const D = { api: null, onChange: null, onError: null, seq: 0 };

function apply(data) {
  const root = document.documentElement;
  root.dataset.deck = data.deck;
  root.dataset.large = data.large ? "1" : "0";
  $("deck-large").checked = !!data.large;
  for (const input of document.querySelectorAll('#deck-choice input[name="deck"]')) {
    input.checked = input.value === data.deck;
  }
  if (D.onChange) D.onChange();
}

function build(data) {
  const t = data.texts;
  const open = $("deck-open");
  open.setAttribute("aria-label", t.title);
  open.title = t.title;
  $("deck-title").textContent = t.title;
  $("deck-choice").setAttribute("aria-label", t.title);
  $("deck-choice").innerHTML = data.decks.map((d) =>
    `<label><input type="radio" name="deck" value="${esc(d)}"> <span>${esc(t[d])}</span>` +
    `<span class="deck-sample" data-deck="${esc(d)}" aria-hidden="true">` +
    `${SAMPLE.map((c) => face(c)).join("")}</span></label>`).join("");
  $("deck-large-text").textContent = t.large;
  $("deck-close").textContent = t.close;
}

async function save() {
  const picked = document.querySelector('#deck-choice input[name="deck"]:checked');
  const chosen = { deck: picked ? picked.value : "classic", large: $("deck-large").checked };
  apply(chosen); // at once; the server's answer follows
  const seq = ++D.seq;
  try {
    const answer = await D.api.setCards(chosen);
    if (seq === D.seq) apply(answer); // (the answer to an older choice would undo a later one)
  } catch (err) {
    if (D.onError) D.onError(err);
  }
}

/** Read the person's cards and wire the choice; ``onChange()`` after every change (the hand
 *  is laid out anew), ``onError(err)`` when a change could not be saved. A page whose server
 *  does not answer keeps the classic deck and shows no choice. */
export async function setupDeck(api, onChange, onError) {
  D.api = api;
  D.onChange = onChange;
  D.onError = onError;
  let data;
  try {
    data = await api.cards();
  } catch (err) {
    return;
  }
  build(data);
  apply(data);
  $("deck-open").hidden = false;
  $("deck-open").addEventListener("click", () => $("deck").showModal());
  $("deck-choice").addEventListener("change", save);
  $("deck-large").addEventListener("change", save);
}
