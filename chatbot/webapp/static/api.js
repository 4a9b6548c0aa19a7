// The page's side of docs/webapp-api.md: every request signed with Telegram's initData.
// Paths are relative to the page (/webapp/), so the app works wherever it is mounted.

export class ApiError extends Error {
  constructor(status, text) {
    super(text || `HTTP ${status}`);
    this.status = status;
  }
}

// initData() is read for every request: Telegram.WebApp.initData as it is then.
export function makeApi(initData) {
  async function call(method, path, body) {
    const headers = { "X-Telegram-Init-Data": initData() };
    const init = { method, headers, cache: "no-store" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const resp = await fetch(path, init);
    const type = resp.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await resp.json() : await resp.text();
    return { status: resp.status, data };
  }

  async function page(path) {
    const { status, data } = await call("GET", path);
    if (status !== 200) {
      throw new ApiError(status, typeof data === "string" ? data : (data && data.text) || "");
    }
    return data;
  }

  return {
    /** GET the view; throws ApiError on anything but 200. */
    async table(tableId) {
      const q = tableId ? `?t=${encodeURIComponent(tableId)}` : "";
      const { status, data } = await call("GET", `api/table${q}`);
      if (status !== 200) {
        throw new ApiError(status, typeof data === "string" ? data : (data && data.text) || "");
      }
      return data;
    },
    /** A finished round with every hand open (round null: the last); ApiError otherwise. */
    async replay(tableId, round) {
      const r = round ? `&r=${encodeURIComponent(round)}` : "";
      const { status, data } = await call("GET", `api/replay?t=${encodeURIComponent(tableId)}${r}`);
      if (status !== 200) {
        throw new ApiError(status, typeof data === "string" ? data : (data && data.text) || "");
      }
      return data;
    },
    /** A tournament's page (its number); ApiError otherwise. */
    async tournament(number) {
      return page(`api/tournament?n=${encodeURIComponent(number)}`);
    },
    /** The league's page: a game's division (both may be null: the person's own). */
    async league(game, division) {
      const q = [game ? `g=${encodeURIComponent(game)}` : "",
        division ? `d=${encodeURIComponent(division)}` : ""].filter(Boolean).join("&");
      return page(`api/league${q ? `?${q}` : ""}`);
    },
    /** The person's cards: {deck, large, decks, texts}; ApiError otherwise. */
    async cards() {
      return page("api/cards");
    },
    /** Change the person's cards ({deck, large}): the same answer as cards(). */
    async setCards(chosen) {
      const { status, data } = await call("POST", "api/cards", chosen);
      if (status !== 200 || typeof data !== "object") throw new ApiError(status, String(data));
      return data;
    },
    /** The invitations to a game the page may share: {game, offers, texts}; ApiError
     *  otherwise (404: none here, 409: inline mode is off). */
    async invitations(game) {
      return page(`api/invite?g=${encodeURIComponent(game)}`);
    },
    /** A prepared invitation's id for Telegram.WebApp.shareMessage; ApiError otherwise. */
    async invite(game, seats) {
      const { status, data } = await call("POST", "api/invite", { game, seats });
      if (status !== 200 || typeof data !== "object") {
        throw new ApiError(status, typeof data === "string" ? data : (data && data.text) || "");
      }
      return data.id;
    },
    /** What the selected cards are: {text, move}. */
    async select(table, version, cards) {
      const { status, data } = await call("POST", "api/select", { table, version, cards });
      if (status !== 200 || typeof data !== "object") throw new ApiError(status, String(data));
      return data;
    },
    /** Play a move: {status, data} (200 ok, 409 refused with the fresh view). */
    async move(table, version, code, key) {
      const out = await call("POST", "api/move", { table, version, code, key });
      if (typeof out.data !== "object") throw new ApiError(out.status, out.data);
      return out;
    },
    /** Live views over SSE, reopened with a growing delay when the connection drops, and at
     * once (saying nothing) when the server ends it because the initData grew too old. */
    events(tableId, onView, onOnline) {
      let source = null;
      let delay = 1000;
      let timer = null;
      let stopped = false;
      const open = () => {
        const url = `api/events?t=${encodeURIComponent(tableId)}` +
          `&initData=${encodeURIComponent(initData())}`;
        source = new EventSource(url);
        source.addEventListener("open", () => { delay = 1000; onOnline(true); });
        source.addEventListener("view", (e) => {
          delay = 1000;
          onOnline(true);
          try { onView(JSON.parse(e.data)); } catch (err) { console.error(err); }
        });
        source.addEventListener("expired", () => {
          source.close();
          if (!stopped) open();
        });
        source.addEventListener("error", () => {
          source.close();
          onOnline(false);
          if (stopped) return;
          timer = setTimeout(open, delay);
          delay = Math.min(delay * 2, 30000);
        });
      };
      open();
      return () => { stopped = true; clearTimeout(timer); if (source) source.close(); };
    },
  };
}

/** A fresh idempotency key for one intended move. */
export function newKey() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
