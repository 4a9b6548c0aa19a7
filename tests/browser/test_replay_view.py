"""Issue 41: the Mini App's replay view (↺ Nachspielen / Replay) in the real Chromium — a finished
round with every hand open, ◀ ▶ and the slider moving through it — and its API: only to the
people who sat at the table, only for a round that has ended (nothing hidden before), in the
person's language. Screenshots of the view on a phone, light and dark, go to docs/screenshots/
when STAMMTISCH_SCREENSHOTS=1 (else to a temporary directory)."""

from __future__ import annotations

import json
import os
import random
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from chatbot.service import Service
from engine import GAMES
from engine.replay import hands, replay

from .conftest import ANNA, BEN, CEM, DARK, LIGHT, Live, Person, group_game, needs_playwright

needs_playwright()
from playwright.sync_api import expect  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture(autouse=True)
def seeded_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reproducible deals (table seeds come from ``SystemRandom``): no round ends on the deal,
    and the screenshots show the same round every time."""
    seeds = random.Random(41)
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))


def _round_over(service: Service, table_id: int, people: list[Person], seed: int) -> None:
    """People move at random (CPUs move at once) until the first round has ended."""
    rng = random.Random(seed)
    for _ in range(400):
        table = service.table(table_id)
        assert table is not None and table.state_json
        if table.fsm_state in ("payout", "finished"):
            return
        game = GAMES[table.game]
        state = game.from_json(table.state_json)
        person = people[game.to_act(state)]
        code = rng.choice(list(game.legal_actions(state))).code
        out = service.press(person.chat, person.ref, f"v1:{table_id}:{table.version}:{code}")
        assert out.ok, out.text
    raise AssertionError("the round did not end")


def _api(live: Live, person: Person, query: str) -> tuple[int, Any]:
    request = urllib.request.Request(f"{live.base}/webapp/api/replay?{query}",
                                     headers={"X-Telegram-Init-Data": person.init()})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        body = err.read()
        return err.code, json.loads(body) if body.startswith(b"{") else body.decode()


def _first_round(live: Live, table_id: int) -> Any:
    table = live.service.table(table_id)
    assert table is not None
    moves = [m.code for m in live.service.moves(table_id)]
    return replay(table.game, 3, table.options.get("engine") or {}, table.seed, moves)[0]


def test_replay_view_steps_through_a_round(open_page: Any, live: Live, tmp_path: Path) -> None:
    table_id = group_game(live.service, "schwimmen", [ANNA, CEM], cpus=1)
    token = live.service.table(table_id).token  # type: ignore[union-attr]
    # during the round: nothing to replay, no card in the answer; on the page no button
    status, body = _api(live, ANNA, f"t={token}")
    assert status == 409 and body["error"] == "not over", body
    assert not any(c in json.dumps(body) for c in ("♠", "♥", "♦", "♣"))
    assert _api(live, ANNA, f"t={token}&r=1")[0] == 409
    page = open_page(token, ANNA)
    expect(page.locator("#replay-open")).to_be_hidden()
    page.context.close()

    _round_over(live.service, table_id, [ANNA, CEM, ANNA], seed=2)
    rnd = _first_round(live, table_id)
    assert rnd.ended
    assert _api(live, BEN, f"t={token}")[0] == 403  # never sat there
    assert _api(live, BEN, f"t={table_id}")[0] == 403
    status, body = _api(live, CEM, f"t={token}&r=1")
    assert status == 200 and body["round"] == 1 and len(body["steps"]) == rnd.moves + 1
    assert [s["hands"] for s in body["steps"]] == [
        [[c.code for c in h] for h in hands("schwimmen", step.state)] for step in rnd.steps]
    assert body["texts"]["close"] == "Back to the table"  # (in Cem's language)
    assert _api(live, CEM, f"t={token}&r=2")[0] == 409  # (not dealt yet)
    assert _api(live, CEM, f"t={token}&r=x")[0] == 400

    page = open_page(token, ANNA)
    expect(page.locator("#replay-open")).to_have_text("↺ Nachspielen")
    page.locator("#replay-open").click()
    expect(page.locator("#replay")).to_be_visible()
    expect(page.locator("#app")).to_be_hidden()
    expect(page.locator("#rp-step")).to_have_text(f"Zug 0 von {rnd.moves}")
    expect(page.locator("#rp-text")).to_have_text("Ausgeteilt")
    expect(page.locator(".rp-seat")).to_have_count(3)
    dealt = hands("schwimmen", rnd.steps[0].state)
    for seat, hand in enumerate(dealt):  # every hand open: Cem's and the CPU's too
        cards = page.locator(f'.rp-seat[data-seat="{seat}"] .rp-card')
        expect(cards).to_have_count(3)
        assert cards.evaluate_all("els => els.map(e => e.dataset.code)") == \
            [c.code for c in hand]
    expect(page.locator("#rp-prev")).to_be_disabled()
    page.locator("#rp-next").click()
    expect(page.locator("#rp-step")).to_have_text(f"Zug 1 von {rnd.moves}")
    expect(page.locator("#replay")).to_have_attribute("data-step", "1")
    moved = rnd.steps[1].seat
    expect(page.locator(f'.rp-seat[data-seat="{moved}"]')).to_have_class(re.compile("moved"))
    expect(page.locator(".rp-seat.moved")).to_have_count(1)
    page.locator("#rp-slider").focus()
    page.keyboard.press("End")  # the slider to its end: the round's last step
    expect(page.locator("#rp-step")).to_have_text(f"Zug {rnd.moves} von {rnd.moves}")
    expect(page.locator("#rp-result")).to_be_visible()
    expect(page.locator("#rp-next")).to_be_disabled()
    page.locator("#rp-prev").click()
    expect(page.locator("#replay")).to_have_attribute("data-step", str(rnd.moves - 1))
    page.locator("#rp-slider").focus()
    page.keyboard.press("Home")
    expect(page.locator("#replay")).to_have_attribute("data-step", "0")
    page.locator("#rp-close").click()
    expect(page.locator("#app")).to_be_visible()
    expect(page.locator("#replay")).to_be_hidden()
    assert not page.js_errors

    # in English, opened from the chat's "replay in the app" link (?r=1), phone light and dark
    out = DOCS if os.environ.get("STAMMTISCH_SCREENSHOTS") == "1" else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    for scheme, theme in (("light", LIGHT), ("dark", DARK)):
        page = open_page(f"{token}&r=1", CEM, theme=theme, color_scheme=scheme)
        expect(page.locator("#replay")).to_be_visible()
        expect(page.locator("#rp-close")).to_have_text("Back to the table")
        for _ in range(min(3, rnd.moves)):
            page.locator("#rp-next").click()
        expect(page.locator("#rp-step")).to_have_text(
            f"Move {min(3, rnd.moves)} of {rnd.moves}")
        page.evaluate("document.getAnimations().forEach(a => a.finish())")
        path = out / f"replay-phone-{scheme}.png"
        page.screenshot(path=str(path))
        assert path.stat().st_size > 5_000
        assert not page.js_errors
        page.context.close()


def test_a_run_fast_hand_fits_a_phone(open_page: Any, live: Live, tmp_path: Path) -> None:
    """Three open hands of 16 cards, fanned, on a phone: no sideways scrolling."""
    table_id = group_game(live.service, "runfast", [ANNA, CEM], cpus=1)
    _round_over(live.service, table_id, [ANNA, CEM, ANNA], seed=3)
    token = live.service.table(table_id).token  # type: ignore[union-attr]
    page = open_page(f"{token}&r=1", ANNA)
    expect(page.locator("#replay")).to_be_visible()
    expect(page.locator(".rp-card")).to_have_count(48)
    expect(page.locator(".rp-hand.fan")).to_have_count(3)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 360
    expect(page.locator("#rp-title")).to_have_text("↺ Run Fast (Pao De Kuai) · Stammtisch")
    page.locator("#rp-slider").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay")).to_have_attribute("data-step", "1")
    page.screenshot(path=str(tmp_path / "runfast.png"))
    assert not page.js_errors
