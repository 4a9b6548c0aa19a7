"""The Mini App page's weight (issue 19): what a first load transfers.

Starts the real server (``chatbot.webapp.server.mounted``) on loopback with a real service on
a temporary SQLite file and a running Run Fast group game, opens the page in headless Chromium
(Debian's ``/usr/bin/chromium``, driven by Playwright) as a Telegram client would, and prints
for each response its encoded (transferred, headers included) size as Chromium's network
layer reports it (CDP ``Network.loadingFinished.encodedDataLength``), the number of requests,
and the sums: the page itself (html, js, css, Telegram's script) and everything. The live event
stream never finishes loading; the size of its events so far is printed apart. Checks that no request
left 127.0.0.1. Figures only, no timing asserts.

    python bench/webapp_page.py [--no-gzip]

``--no-gzip`` asks without ``Accept-Encoding`` (what a server without compression sends).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chatbot.service import Service, Settings  # noqa: E402
from storage.db import make_engine, migrate  # noqa: E402
from tests.browser.conftest import (  # noqa: E402
    ANNA,
    BEN,
    CHROMIUM,
    LIGHT,
    RECORD_BRIDGE,
    TOKEN,
    Live,
    group_game,
)
from tests.browser.server import serve  # noqa: E402

PAGE_KINDS = {"Document", "Script", "Stylesheet"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-gzip", action="store_true", help="send no Accept-Encoding")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{tmp}/bench.db")
        migrate(engine)
        service = Service(engine, Settings(cpu_delay=0))
        table = group_game(service, "runfast", [ANNA, BEN], cpus=1)
        with serve(service, TOKEN) as base, sync_playwright() as p:
            live = Live(service, base)
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
            context = browser.new_context(viewport={"width": 360, "height": 740})
            context.add_init_script(RECORD_BRIDGE)
            if args.no_gzip:
                context.set_extra_http_headers({"Accept-Encoding": "identity"})
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            requests: dict[str, dict[str, Any]] = {}
            streamed: dict[str, int] = {}

            def sent(e: dict[str, Any]) -> None:
                requests[e["requestId"]] = {"url": e["request"]["url"],
                                            "type": e.get("type", "?"), "bytes": None}

            def done(e: dict[str, Any]) -> None:
                if e["requestId"] in requests:
                    requests[e["requestId"]]["bytes"] = int(e["encodedDataLength"])

            def message(e: dict[str, Any]) -> None:
                streamed[e["requestId"]] = streamed.get(e["requestId"], 0) + len(
                    e.get("data", "").encode())

            def encoding(e: dict[str, Any]) -> None:
                if e["requestId"] in requests:
                    headers = {k.lower(): v for k, v in e["response"]["headers"].items()}
                    requests[e["requestId"]]["enc"] = headers.get("content-encoding", "")

            cdp.on("Network.requestWillBeSent", sent)
            cdp.on("Network.responseReceived", encoding)
            cdp.on("Network.loadingFinished", done)
            cdp.on("Network.eventSourceMessageReceived", message)
            cdp.send("Network.enable")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            page.goto(live.url(table, ANNA.init(), theme=LIGHT))
            page.wait_for_selector("#hand .card")
            page.wait_for_function("document.querySelector('#app').dataset.version !== undefined")
            page.wait_for_timeout(500)  # the event stream's first view (a bench: a pause is fine)
            browser.close()

    host = urlsplit(base).netloc
    outside = [r["url"] for r in requests.values()
               if not r["url"].startswith("data:") and urlsplit(r["url"]).netloc != host]
    page_bytes = all_bytes = 0
    print(f"{'bytes':>8}  {'enc':<5} {'type':<11} url")
    for r in requests.values():
        path = urlsplit(r["url"]).path
        size = r["bytes"]
        shown = f"{size:>8}" if size is not None else f"{'(open)':>8}"
        print(f"{shown}  {r.get('enc', ''):<5} {r['type']:<11} {path}")
        if size is not None:
            all_bytes += size
            if r["type"] in PAGE_KINDS:
                page_bytes += size
    stream = sum(streamed.values())
    print(f"requests: {len(requests)}")
    print(f"page (html + js + css + telegram-web-app.js): {page_bytes} bytes "
          f"({page_bytes / 1024:.1f} KiB)")
    print(f"all finished responses (page + API): {all_bytes} bytes ({all_bytes / 1024:.1f} KiB)")
    print(f"event stream so far: {len(streamed)} stream(s), {stream} bytes of event data")
    assert not outside, f"requests left 127.0.0.1: {outside}"
    print("no request left 127.0.0.1")


if __name__ == "__main__":
    main()
