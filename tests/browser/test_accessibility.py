"""Issue 51: the Mini App as an older player meets it, checked by axe-core (the npm package of
``package.json``, installed by ``npm ci`` in ``.ci/run``) in the real Chromium at phone size,
in Telegram's light and dark theme: a Schwimmen table as the player on turn and as a watcher,
a Run Fast table with cards selected, and a finished round's replay. No violation of impact
serious, critical or moderate may remain (docs/accessibility.md says how to run it by hand).
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from tests.chatbot.service.harness import Harness
from tests.webapp.page_worlds import league_week, person, tournament_under_way

from .conftest import (
    ANNA,
    BEN,
    CEM,
    DARK,
    GROUP,
    LIGHT,
    Live,
    group_game,
    needs_playwright,
    to_a_turn,
)
from .pages_world import open_at_fixture, served_fixture  # noqa: F401
from .test_replay_view import _round_over

needs_playwright()
from playwright.sync_api import expect  # noqa: E402

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
THEMES = {"light": LIGHT, "dark": DARK}
FAILING = ("critical", "serious", "moderate")


def run_axe(page: Any) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now: ``{id, impact, help, nodes}``."""
    if not AXE.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"axe-core is missing at {AXE} (npm ci)", pytrace=False)
        pytest.skip("axe-core is missing (npm ci)")
    page.evaluate(AXE.read_text(encoding="utf-8"))
    page.evaluate("document.getAnimations().forEach(a => a.finish())")
    result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [(n["target"], n.get("failureSummary", "")[:300]) for n in v["nodes"]]}
            for v in result["violations"]]


def failing(violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for v in violations if v["impact"] in FAILING]


@pytest.fixture(autouse=True)
def seeded_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same deals every run (table seeds come from ``SystemRandom``)."""
    seeds = random.Random(51)
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))


def _with_a_play(live: Live, table: int) -> tuple[Any, Any, int]:
    """On to a person's turn who can play cards (a pass made as in the chat before)."""
    for _ in range(20):
        engine, state, seat = to_a_turn(live.service, table)
        if any(a.kind not in ("pass", "deal") for a in engine.legal_actions(state)):
            return engine, state, seat
        person = (ANNA, BEN)[seat]
        now = live.service.table(table).version  # type: ignore[union-attr]
        assert live.service.press(person.chat, person.ref, f"v1:{table}:{now}:pass").ok
    raise AssertionError("nobody could play in 20 turns")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_four_pages_have_no_serious_or_moderate_violation(
        scheme: str, open_page: Any, live: Live) -> None:
    theme = THEMES[scheme]
    found: dict[str, list[dict[str, Any]]] = {}
    # a Schwimmen table: the person on turn, and a person of the group who only watches
    table = group_game(live.service, "schwimmen", [ANNA, BEN], cpus=1)
    assert live.service.command(GROUP, CEM.ref, "help").ok  # (Cem is seen in the group)
    _game, _state, seat = to_a_turn(live.service, table)
    page = open_page(table, (ANNA, BEN)[seat], theme=theme, color_scheme=scheme)
    expect(page.locator("#status")).not_to_have_text("")
    found["schwimmen on turn"] = run_axe(page)
    token = live.service.table(table).token  # type: ignore[union-attr]
    page = open_page(token, CEM, theme=theme, color_scheme=scheme)
    expect(page.locator("#note")).to_be_visible()
    found["schwimmen watching"] = run_axe(page)
    # Run Fast with the cards of a play selected
    assert live.service.command(GROUP, ANNA.ref, "stop").ok
    table = group_game(live.service, "runfast", [ANNA, BEN], cpus=1)
    engine, state, seat = _with_a_play(live, table)
    play = max((a for a in engine.legal_actions(state) if a.kind not in ("pass", "deal")),
               key=lambda a: len(a.cards))
    page = open_page(table, (ANNA, BEN)[seat], theme=theme, color_scheme=scheme)
    for card in play.cards:
        page.locator(f'.card[data-code="{card.code}"]').click(position={"x": 6, "y": 12})
    expect(page.locator("#seltext")).to_have_attribute("data-ready", "1")
    expect(page.locator("#hand .card.on")).to_have_count(len(play.cards))
    found["run fast, cards selected"] = run_axe(page)
    # the replay of a finished Schwimmen round
    assert live.service.command(GROUP, ANNA.ref, "stop").ok
    table = group_game(live.service, "schwimmen", [ANNA, CEM], cpus=1)
    _round_over(live.service, table, [ANNA, CEM, ANNA], seed=2)
    token = live.service.table(table).token  # type: ignore[union-attr]
    page = open_page(f"{token}&r=1", ANNA, theme=theme, color_scheme=scheme)
    expect(page.locator("#replay")).to_be_visible()
    page.locator("#rp-next").click()
    found["replay"] = run_axe(page)
    bad = [f"{name}: {v['id']} ({v['impact']}): {node}" for name, vs in found.items()
           for v in failing(vs) for node in v["nodes"]]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_tournament_and_league_pages_have_no_serious_violation(
        scheme: str, open_at: Any, served: tuple[Harness, str]) -> None:
    """The pages for a tournament and the league (issue 48 C), on the same terms."""
    h, _base = served
    theme = THEMES[scheme]
    users = [person(i, "de") for i in range(7)]
    t = tournament_under_way(h, users)
    found = {"tournament": run_axe(open_at(users[0], start=f"tn{t.id}", theme=theme,
                                           scheme=scheme))}
    fellows = [person(i, "de") for i in range(7, 21)]
    league_week(h, fellows)
    found["league"] = run_axe(open_at(fellows[0], p="lg", theme=theme, scheme=scheme))
    bad = [f"{name}: {v['id']} ({v['impact']}): {node}" for name, vs in found.items()
           for v in failing(vs) for node in v["nodes"]]
    assert not bad, "\n".join(bad)
