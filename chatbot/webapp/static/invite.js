// Inviting from the table's page (docs/inline.md): 📨 beside the title lists the invitations
// to this game that @bot offers in a chat (an open table, a duel, the game's size). A tap has
// the server prepare that invitation for the person (GET/POST api/invite: the bot's
// savePreparedInlineMessage) and hands its id to Telegram.WebApp.shareMessage: Telegram lets
// the person pick a chat, and the invitation is posted there "via" the bot. Shown only in a
// Telegram client that can share (Bot API 8.0) and where the server offers invitations.

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g,
  (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

const I = { api: null, tg: null, game: null, texts: {}, onSent: null, onError: null };

function build(data) {
  const t = data.texts;
  I.texts = t;
  const open = $("invite-open");
  open.setAttribute("aria-label", t.title);
  open.title = t.title;
  $("invite-title").textContent = t.title;
  $("invite-offers").innerHTML = data.offers.map((o) =>
    `<button type="button" class="invite-offer" data-seats="${esc(o.seats)}">` +
    `<b>${esc(o.title)}</b><span>${esc(o.description)}</span></button>`).join("");
  $("invite-close").textContent = t.close;
}

async function share(seats) {
  $("invite").close();
  try {
    const id = await I.api.invite(I.game, seats);
    I.tg.shareMessage(id, (sent) => { if (sent && I.onSent) I.onSent(I.texts.sent); });
  } catch (err) {
    if (I.onError) I.onError(err);
  }
}

/** Offer invitations to ``game`` (the table's) where the client can share them;
 *  ``onSent(text)`` once Telegram says the invitation went out, ``onError(err)`` when it
 *  could not be prepared. A client or server without invitations shows no button. */
export async function setupInvite(api, tg, game, onSent, onError) {
  if (!tg || tg.platform === "unknown" || !tg.isVersionAtLeast("8.0") || !game) return;
  Object.assign(I, { api, tg, game, onSent, onError });
  let data;
  try {
    data = await api.invitations(game);
  } catch (err) {
    return; // (none here, or inline mode is off: no button)
  }
  if (!data.offers.length) return;
  build(data);
  $("invite-open").hidden = false;
  $("invite-open").addEventListener("click", () => $("invite").showModal());
  $("invite-offers").addEventListener("click", (e) => {
    const offer = e.target.closest(".invite-offer");
    if (offer) share(Number(offer.dataset.seats));
  });
}
