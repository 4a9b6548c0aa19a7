// Readable text colours whatever Telegram's theme: its hint grey on its secondary background
// can be as faint as 2.5:1. Each colour the page writes text in is kept where it already
// reaches 4.5:1 on both backgrounds, else mixed towards the text colour just far enough
// (WCAG's contrast ratio); the results are set on the root as --hint, --accent, --danger and
// --button (style.css has fallbacks for the moment before this runs).

function rgbOf(value) {
  // any CSS colour → [r, g, b] (0–255), through the browser's own parsing
  const probe = document.createElement("span");
  probe.style.color = value;
  document.body.appendChild(probe);
  const got = getComputedStyle(probe).color; // "rgb(…)", or "color(srgb 0.1 0.2 0.3)"
  probe.remove();
  const m = (got.match(/[\d.]+/g) || ["0", "0", "0"]).slice(0, 3).map(Number);
  return got.startsWith("color(") ? m.map((x) => Math.round(x * 255)) : m;
}

function luminance([r, g, b]) {
  const f = (c) => { const x = c / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
}

function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

const mix = (a, b, t) => a.map((v, i) => Math.round(v + (b[i] - v) * t));
const css = ([r, g, b]) => `rgb(${r}, ${g}, ${b})`;

/** Text colours readable at 4.5:1 on both backgrounds: Telegram's hint, accent, button and
 *  destructive colours as they are where they already are, else mixed towards the text colour
 *  (the button's towards its text's opposite) just far enough. */
export function deriveColours() {
  const root = document.documentElement;
  const style = getComputedStyle(root);
  const theme = (name, fallback) => style.getPropertyValue(`--tg-theme-${name}`).trim() || fallback;
  const dark = root.dataset.scheme === "dark";
  const bg = rgbOf(theme("bg-color", dark ? "#17212b" : "#ffffff"));
  const bg2 = rgbOf(theme("secondary-bg-color", dark ? "#232e3c" : "#eff1f4"));
  const text = rgbOf(theme("text-color", dark ? "#f5f5f5" : "#16181c"));
  const readable = (colour, on, toward) => {
    for (let t = 0; t <= 1.0001; t += 0.05) {
      const c = mix(colour, toward, t);
      if (on.every((b) => contrast(c, b) >= 4.6)) return c;
    }
    return toward;
  };
  const button = rgbOf(theme("button-color", dark ? "#5288c1" : "#2f7de1"));
  const buttonText = rgbOf(theme("button-text-color", "#ffffff"));
  const accent = rgbOf(theme("accent-text-color", css(button)));
  const set = (name, value) => root.style.setProperty(name, css(value));
  set("--hint", readable(rgbOf(theme("hint-color", dark ? "#8596a8" : "#7a8089")), [bg, bg2], text));
  set("--accent", readable(accent, [bg, bg2], text));
  set("--danger", readable(rgbOf(theme("destructive-text-color", "#d43b3b")), [bg, bg2], text));
  const away = luminance(buttonText) > 0.5 ? [0, 0, 0] : [255, 255, 255];
  set("--button", readable(button, [buttonText], away));
}
