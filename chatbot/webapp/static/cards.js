// Cards drawn as SVGs sized by CSS (in rem: they grow with the text size and the zoom): a large
// rank and suit in the top-left corner (what shows where cards overlap), a big suit below
// right, the two jokers distinct, a back for cards not shown. Each face names its suit
// (class s-C, s-S, s-H, s-D): the stylesheet colours them — red ♥♦ and black ♣♠, or one of the
// four-colour decks (html[data-deck]). Card codes as the API sends them: "10H", "QS", "BJ".

const SUITS = { C: "♣", S: "♠", H: "♥", D: "♦" };
const RED = new Set(["H", "D"]);

export function parse(code) {
  if (code === "BJ" || code === "RJ") return { rank: "★", suit: "", joker: code };
  return { rank: code.slice(0, -1), suit: code.slice(-1), joker: null };
}

export function isRed(code) {
  return code === "RJ" || RED.has(code.slice(-1));
}

/** A card's short label ("10♥", "Joker ♥"): what shows where the server sent no name. */
export function label(code) {
  const c = parse(code);
  return c.joker ? (c.joker === "RJ" ? "Joker ♥" : "Joker ♠") : c.rank + SUITS[c.suit];
}

/** A card's spoken name from the server's names ("Dame Pik", "Queen of spades"). */
export function spoken(code, names) {
  return (names && names[code]) || label(code);
}

/** One card face as an SVG string (viewBox 60×84; the element is sized by CSS). */
export function face(code) {
  const c = parse(code);
  const cls = isRed(code) ? "red" : "black";
  if (c.joker) {
    const star = c.joker === "RJ" ? "#c8102e" : "#1a1a1a";
    return `<svg class="card-svg ${cls} s-J" viewBox="0 0 60 84" aria-hidden="true">` +
      `<rect class="card-bg" x="0.5" y="0.5" width="59" height="83" rx="5"/>` +
      `<rect x="5" y="5" width="50" height="74" rx="3" fill="none" stroke="${star}" ` +
      `stroke-width="1" stroke-dasharray="3 2"/>` +
      `<text x="3" y="26" class="joker-j">J</text>` +
      `<path d="M30 26l4.7 9.6 10.5 1.5-7.6 7.4 1.8 10.5L30 50l-9.4 5 1.8-10.5-7.6-7.4 ` +
      `10.5-1.5z" fill="${star}"/>` +
      `<text x="30" y="72" class="joker-word" text-anchor="middle">JOKER</text></svg>`;
  }
  const s = SUITS[c.suit] || "?";
  const small = c.rank.length > 1 ? " narrow" : "";
  // the corner (rank over suit) stays within the left CORNER of the width: see app.js
  return `<svg class="card-svg ${cls} s-${c.suit}" viewBox="0 0 60 84" aria-hidden="true">` +
    `<rect class="card-bg" x="0.5" y="0.5" width="59" height="83" rx="5"/>` +
    `<text x="3" y="26" class="rank${small}">${c.rank}</text>` +
    `<text x="3.5" y="50" class="suit-small">${s}</text>` +
    `<text x="43" y="77" class="suit-big" text-anchor="middle">${s}</text></svg>`;
}

export const CORNER = 0.5; // the share of a card's width its corner (rank and suit) needs

/** The back of a card (for stacks and the opponents' hands). */
export function back() {
  return `<svg class="card-svg back" viewBox="0 0 60 84" aria-hidden="true">` +
    `<rect x="0.5" y="0.5" width="59" height="83" rx="5" class="back-bg"/>` +
    `<rect x="5" y="5" width="50" height="74" rx="3" class="back-in"/>` +
    `<path d="M30 14L48 42 30 70 12 42z" class="back-mark"/></svg>`;
}
