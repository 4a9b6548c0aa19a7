"""Issue 48 C: the league's page in the real Chromium, opened from ``/liga`` (privately a
``web_app`` button, ``?p=lg``; in a group a direct Mini App link, ``startapp=lg``): the
person's division of the week — rank, name, the points of each day, the total — as the service
keeps it, their own row highlighted, the promotion and relegation zones marked (and a person
on holiday), the other divisions by their tabs; German and English; somebody the bot never
met is refused. Screenshots on a phone, light and dark, go to docs/screenshots/ when
STAMMTISCH_SCREENSHOTS=1 (else to a temporary directory)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from chatbot.service import LeagueBoard, UserRef
from tests.chatbot.service.harness import Harness
from tests.webapp.page_worlds import league_week, person

from .conftest import DARK, LIGHT, needs_playwright
from .pages_world import cells, open_at_fixture, served_fixture  # noqa: F401

needs_playwright()
from playwright.sync_api import expect  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PEOPLE = 38  # three divisions of 12-13


def _week(h: Harness) -> tuple[list[UserRef], UserRef]:
    """The week (people 0-37, person 7 on holiday) and a person of the middle division."""
    users = [person(i, "en" if i == 4 else "de") for i in range(PEOPLE)]
    league_week(h, users, away=users[7])
    for user in users:
        board, boards = h.service.league_sight("telegram", user.external_id)
        assert board is not None and len(boards) == 3
        if board.division == 2:
            return users, user
    raise AssertionError("nobody in division 2")


def _expected(board: LeagueBoard) -> list[list[str]]:
    """The rows as the page should draw them: rank (– on holiday), name with its mark, the
    two days begun, five days to come, the total."""
    marks = {"up": " ↑", "down": " ↓", "holiday": " Urlaub"}
    return [[f"{line.rank}." if line.rank else "–", line.name + marks.get(line.mark, ""),
             *["–" if d is None else str(d) for d in line.days[:2]], *[""] * 5,
             str(line.points)] for line in board.lines]


def _zones(page: Any) -> list[str]:
    """Each row's zone as the page marks it (its class)."""
    return page.evaluate("() => [...document.querySelectorAll('.pg-league tbody tr')].map("
                         "tr => ['up', 'down', 'holiday'].find("
                         "z => tr.classList.contains('zone-' + z)) || '')")


def test_the_league_page_shows_the_division_with_its_zones(
        open_at: Any, served: tuple[Harness, str]) -> None:
    h, _base = served
    users, me = _week(h)
    board, boards = h.service.league_sight("telegram", me.external_id)
    assert board is not None
    page = open_at(me, p="lg")
    expect(page.locator("#pg-title")).to_have_text("Liga · Schwimmen")
    expect(page.locator("#pg-status")).to_have_text("Woche 07.01.–13.01. · Tag 2 von 7")
    assert cells(page, ".pg-league thead tr") == [
        ["#", "Name", "Mo", "Di", "Mi", "Do", "Fr", "Sa", "So", "Pkt"]]
    assert cells(page, ".pg-league tbody tr") == _expected(board)
    mine = board.line_of(int(h.service.league_page("telegram", me.external_id, "de").viewer))
    assert mine is not None
    expect(page.locator(".pg-league tr.you .pg-name")).to_contain_text(me.name)
    expect(page.locator(".pg-you")).to_have_text(
        f"Du: Platz {mine.rank} von {len(board.lines)} · {mine.points} Punkte")
    # the middle division: its best three go up, its last three down (if the week ended now)
    zones = _zones(page)
    assert zones == [x.mark if x.mark in ("up", "down", "holiday") else "" for x in board.lines]
    assert zones[:3] == ["up"] * 3 and zones.count("down") == 3
    expect(page.locator(".pg-legend")).to_have_text(
        "↑ Aufstieg · ↓ Abstieg, wenn die Woche jetzt endete")
    # the other divisions by their tabs: the top one has no promotion zone
    expect(page.locator(".pg-tabs button")).to_have_text(["1. Liga", "2. Liga", "3. Liga"])
    page.get_by_role("button", name="1. Liga").click()
    expect(page.locator(".pg-tabs button.on")).to_have_text("1. Liga")
    assert cells(page, ".pg-league tbody tr") == _expected(boards[0])
    assert "up" not in _zones(page) and _zones(page).count("down") == 3
    expect(page.locator(".pg-league tr.you")).to_have_count(0)
    expect(page.locator(".pg-you")).to_have_text("Du spielst nicht in dieser Liga.")
    page.get_by_role("button", name="3. Liga").click()
    expect(page.locator(".pg-tabs button.on")).to_have_text("3. Liga")
    assert cells(page, ".pg-league tbody tr") == _expected(boards[2])
    assert "down" not in _zones(page) and _zones(page)[:3] == ["up"] * 3
    # (the person on holiday was in one of the three: no rank, marked "Urlaub", last)
    assert any(b.lines[-1].holiday and b.lines[-1].name == users[7].name for b in boards)
    assert not page.js_errors


def test_the_league_page_in_english_from_a_group_link_and_for_a_stranger(
        open_at: Any, served: tuple[Harness, str]) -> None:
    h, _base = served
    users, _me = _week(h)
    english = users[4]
    board, _boards = h.service.league_sight("telegram", english.external_id)
    assert board is not None
    page = open_at(english, start="lg")
    expect(page.locator("#pg-title")).to_have_text("League · Schwimmen (31)")
    expect(page.locator("#pg-status")).to_have_text("Week 07.01.–13.01. · day 2 of 7")
    assert cells(page, ".pg-league thead tr") == [
        ["#", "Name", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "Pts"]]
    rows = cells(page, ".pg-league tbody tr")
    assert [r[0] for r in rows] == [f"{x.rank}." if x.rank else "–" for x in board.lines]
    assert [r[-1] for r in rows] == [str(x.points) for x in board.lines]
    expect(page.locator(".pg-league tr.you .pg-name")).to_contain_text(english.name)
    expect(page.locator(".pg-tabs button.on")).to_have_text(f"Division {board.division}")
    for stranger, text in (
            (person(PEOPLE + 1), "Ich kenne dich noch nicht: spiel mit mir das Tagesspiel "
                                 "(/tagesspiel), dann bist du in der Liga."),
            (person(PEOPLE + 2, "en"), "I don't know you yet: play today's deal with me "
                                       "(/daily) and you are in the league.")):
        page = open_at(stranger, p="lg")
        expect(page.locator("#pg-error")).to_have_text(text)
        expect(page.locator(".pg-league")).to_have_count(0)
        assert not page.js_errors


def test_league_page_screenshots(open_at: Any, served: tuple[Harness, str],
                                 tmp_path: Path) -> None:
    h, _base = served
    out = DOCS if os.environ.get("STAMMTISCH_SCREENSHOTS") == "1" else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    _users, me = _week(h)
    for scheme, theme in (("light", LIGHT), ("dark", DARK)):
        page = open_at(me, p="lg", theme=theme, scheme=scheme)
        expect(page.locator(".pg-league tr.you")).to_have_count(1)
        path = out / f"league-phone-{scheme}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 5_000
        assert not page.js_errors
