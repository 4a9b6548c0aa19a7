"""Issue 48 C: a tournament's page in the real Chromium, opened from the group's "📊 Tabelle"
(a direct Mini App link, the tournament in its start parameter): the current round's tables
(who sits where, which finished, each seat's points), the earlier rounds' tables by their tab,
the standings (rank with ties, points, Buchholz, game points) — each as the service keeps
them — the person's own rows marked; German and English; a person not seen in the group is
refused; the page follows the tournament calmly (it asks again every 15 s while in sight: the
page's clock is moved by the test). Screenshots on a phone, light and dark, go to
docs/screenshots/ when STAMMTISCH_SCREENSHOTS=1 (else to a temporary directory)."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

from chatbot.webapp.pages import points
from tests.chatbot.service.harness import Harness
from tests.webapp.page_worlds import (
    GROUP,
    fire_steps,
    person,
    play_tables,
    tournament,
    tournament_under_way,
)

from .conftest import DARK, LIGHT, needs_playwright
from .pages_world import cells, open_at_fixture, served_fixture, tables  # noqa: F401

needs_playwright()
from playwright.sync_api import expect  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def _expected_tables(kept_round: dict[str, Any], lang: str) -> list[tuple[int, list[Any]]]:
    return [(t["no"], [[s["name"], None if s["points"] is None else points(s["points"], lang)]
                       for s in t["seats"]]) for t in kept_round["tables"]]


def _expected_standings(kept: dict[str, Any], lang: str) -> list[list[str]]:
    return [[f"{s['rank']}.", s["name"], points(s["points"], lang), points(s["buchholz"], lang),
             f"{s['game_points']:g}"] for s in kept["standings"]]


def test_the_tournament_page_shows_the_round_tables_and_standings(
        open_at: Any, served: tuple[Harness, str], tmp_path: Path) -> None:
    h, _base = served
    users = [person(i, "en" if i == 2 else "de") for i in range(7)]
    t = tournament_under_way(h, users)
    kept = h.service.tournament_view("telegram", GROUP.external_id)
    assert kept is not None
    me = users[0]
    page = open_at(me, start=f"tn{t.id}", clock=True)
    expect(page.locator("#pg-title")).to_have_text("Turnier · Schwimmen")
    expect(page.locator("#pg-status")).to_have_text(
        "Runde 2 von 3 · Die Tische spielen in den privaten Chats ihrer Leute.")
    # the current round: its tables with their people, states and points so far
    shown = tables(page)
    assert [(x["no"], x["seats"]) for x in shown] == _expected_tables(kept["draw"][1], "de")
    assert [x["state"] for x in shown] == ["fertig", "läuft"]
    assert [x["label"] for x in shown] == ["Tisch 1", "Tisch 2"]
    assert [n for x in shown for n in x["you"]] == [me.name]
    # the standings, the person's own row marked
    assert cells(page, ".pg-standings tbody tr") == _expected_standings(kept, "de")
    assert cells(page, ".pg-standings thead tr") == [["#", "Name", "Pkt", "Bhz", "Spiel"]]
    expect(page.locator(".pg-standings tr.you .pg-name")).to_have_text(me.name)
    # round 1 by its tab, then back to the newest
    expect(page.locator(".pg-tabs button")).to_have_text(["Runde 1", "Runde 2"])
    page.get_by_role("button", name="Runde 1").click()
    assert [(x["no"], x["seats"]) for x in tables(page)] == _expected_tables(kept["draw"][0],
                                                                             "de")
    assert {x["state"] for x in tables(page)} == {"fertig"}
    page.get_by_role("button", name="Runde 2").click()
    # the tournament goes on: table 2 finishes, the round ends, round 3 is drawn; the page
    # shows it at its next look, 15 s on
    play_tables(h, users, random.Random(5))
    assert fire_steps(h) == 1 and tournament(h).round_no == 3
    kept = h.service.tournament_view("telegram", GROUP.external_id)
    assert kept is not None
    page.clock.run_for(16_000)
    expect(page.locator("#pg-status")).to_have_text(
        "Runde 3 von 3 · Die Tische spielen in den privaten Chats ihrer Leute.")
    expect(page.locator(".pg-tabs button")).to_have_text(["Runde 1", "Runde 2", "Runde 3"])
    assert [(x["no"], x["seats"]) for x in tables(page)] == _expected_tables(kept["draw"][2],
                                                                             "de")
    assert cells(page, ".pg-standings tbody tr") == _expected_standings(kept, "de")
    assert not page.js_errors


def test_the_tournament_page_in_english_and_for_a_stranger(
        open_at: Any, served: tuple[Harness, str], tmp_path: Path) -> None:
    h, _base = served
    users = [person(i, "en" if i == 2 else "de") for i in range(7)]
    t = tournament_under_way(h, users)
    kept = h.service.tournament_view("telegram", GROUP.external_id)
    assert kept is not None
    page = open_at(users[2], p=f"tn{t.id}")
    expect(page.locator("#pg-title")).to_have_text("Tournament · Schwimmen (31)")
    expect(page.locator("#pg-status")).to_have_text(
        "Round 2 of 3 · The tables play in their players' private chats.")
    assert [x["state"] for x in tables(page)] == ["finished", "playing"]
    assert [x["label"] for x in tables(page)] == ["Table 1", "Table 2"]
    assert cells(page, ".pg-standings thead tr") == [["#", "Name", "Pts", "Opp.", "Game"]]
    assert cells(page, ".pg-standings tbody tr") == _expected_standings(kept, "en")
    expect(page.locator(".pg-standings tr.you .pg-name")).to_have_text(users[2].name)
    expect(page.locator(".pg-legend")).to_have_text(
        "Pts: tournament points by place · Opp.: the opponents' points (Buchholz) · Game: "
        "the game's own points")
    # nobody of the group: refused, in their language, and nothing of it is drawn
    for stranger, text in ((person(20), "Nur die Leute aus der Gruppe des Turniers können "
                                        "es sehen."),
                           (person(21, "en"), "Only the people of the tournament's group can "
                                              "see it.")):
        page = open_at(stranger, start=f"tn{t.id}")
        expect(page.locator("#pg-error")).to_have_text(text)
        expect(page.locator("#pg-error")).to_be_visible()
        expect(page.locator(".pg-table")).to_have_count(0)
        assert not page.js_errors


def test_tournament_page_screenshots(open_at: Any, served: tuple[Harness, str],
                                     tmp_path: Path) -> None:
    h, _base = served
    out = DOCS if os.environ.get("STAMMTISCH_SCREENSHOTS") == "1" else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    users = [person(i) for i in range(7)]
    t = tournament_under_way(h, users)
    for scheme, theme in (("light", LIGHT), ("dark", DARK)):
        page = open_at(users[0], start=f"tn{t.id}", theme=theme, scheme=scheme)
        expect(page.locator(".pg-standings tbody tr")).to_have_count(7)
        path = out / f"tournament-phone-{scheme}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 5_000
        assert not page.js_errors
