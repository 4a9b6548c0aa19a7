"""Issue 19: screenshots of the page on a phone (360×740) and a desktop (1280×800), light and
dark, of a running Run Fast game and a running Schwimmen game, one card selected. Written to
docs/screenshots/ when STAMMTISCH_SCREENSHOTS=1 (then commit them), else to a temporary
directory (the test still checks that the page draws)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .conftest import ANNA, BEN, DARK, LIGHT, Live, group_game, needs_playwright, to_a_turn

needs_playwright()
from playwright.sync_api import expect  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SIZES = {"phone": {"width": 360, "height": 740}, "desktop": {"width": 1280, "height": 800}}


@pytest.mark.parametrize("game", ["runfast", "schwimmen"])
def test_screenshots(game: str, open_page: Any, live: Live, tmp_path: Path) -> None:
    out = DOCS if os.environ.get("STAMMTISCH_SCREENSHOTS") == "1" else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    table = group_game(live.service, game, [ANNA, BEN], cpus=1)
    for _ in range(10):  # on to a person's turn with a play (a pass made as in the chat)
        engine, state, seat = to_a_turn(live.service, table)
        actions = engine.legal_actions(state)
        if any(a.kind not in ("pass", "deal") for a in actions):
            break
        person = (ANNA, BEN)[seat]
        now = live.service.table(table).version  # type: ignore[union-attr]
        assert live.service.press(person.chat, person.ref, f"v1:{table}:{now}:pass").ok
    person = (ANNA, BEN)[seat]
    if game == "runfast":
        pick = [c.code for c in max((a for a in actions if a.kind not in ("pass", "deal")),
                                    key=lambda a: len(a.cards)).cards]
    else:
        swap = next(a for a in actions if a.code.startswith("swap."))
        pick = [swap.give.code]
    for size, viewport in SIZES.items():
        for scheme, theme in (("light", LIGHT), ("dark", DARK)):
            page = open_page(table, person, viewport=viewport, theme=theme, color_scheme=scheme,
                             platform="unknown" if size == "desktop" else "android")
            for code in pick:
                page.locator(f'.card[data-code="{code}"]').click(position={"x": 6, "y": 12})
            expect(page.locator("#seltext")).to_have_attribute("data-ready", "1")
            expect(page.locator("#seltext")).not_to_have_text("")
            expect(page.locator("#hand .card.on")).to_have_count(len(pick))
            page.evaluate("document.getAnimations().forEach(a => a.finish())")
            path = out / f"{game}-{size}-{scheme}.png"
            page.screenshot(path=str(path))
            assert path.stat().st_size > 5_000
            assert not page.js_errors
            page.context.close()
