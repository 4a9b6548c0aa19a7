"""Issue 48 C, the API of the Mini App's tournament page and league page through real HTTP on
loopback (aiohttp's test server, SQLite and PostgreSQL, the service on the fake clock): each
page says what the service keeps — a tournament's draw of every round, each table's result so
far and the standings (ranks with ties, points, Buchholz, game points); a league division's
rows, days and zones — in the person's language, the person's own rows marked; who may look
(a tournament: the people the bot has seen in its group; the league: anybody it has met) and
403 with a short text for anybody else; strict parameters and ``no-store``."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.engine import Engine

from chatbot.service import Service, UserRef
from chatbot.webapp.initdata import sign
from chatbot.webapp.pages import points
from chatbot.webapp.server import mounted
from tests.chatbot.evenings import berlin
from tests.chatbot.service.harness import Harness
from tests.conftest import FakeClock

from .page_worlds import (
    GROUP,
    fire_steps,
    league_week,
    open_tournament,
    person,
    play_tables,
    private,
    start_tournament,
    tournament_under_way,
)

TOKEN = "123456:PAGE-test"


def _headers(user: UserRef, lang: str = "de", **extra: str) -> dict[str, str]:
    who = {"id": int(user.external_id), "first_name": user.name, "language_code": lang}
    return {"X-Telegram-Init-Data": sign({"auth_date": str(int(time.time())),
                                          "user": json.dumps(who), **extra}, TOKEN)}


def _run(service: Service, scenario: Callable[[TestClient], Awaitable[None]]) -> None:
    async def main() -> None:
        async with TestClient(TestServer(mounted(service, TOKEN, max_age=3600))) as client:
            await scenario(client)

    asyncio.run(main())


async def _get(client: TestClient, path: str, user: UserRef, lang: str = "de",
               **extra: str) -> tuple[int, Any]:
    resp = await client.get(f"/webapp/api/{path}", headers=_headers(user, lang, **extra))
    assert resp.headers["Cache-Control"] == "no-store", path
    body = await resp.json() if resp.content_type == "application/json" else await resp.text()
    return resp.status, body


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(berlin(-1, 10)), cpu_delay=0, next_round_delay=0)


def test_the_tournament_page_shows_the_draw_results_and_standings_the_service_keeps(
        h: Harness) -> None:
    users = [person(i, "en" if i == 2 else "de") for i in range(7)]
    t = tournament_under_way(h, users)
    kept = h.service.tournament_view("telegram", GROUP.external_id)
    assert kept is not None and kept["id"] == t.id and kept["round"] == 2
    me = users[0]

    async def scenario(client: TestClient) -> None:
        status, page = await _get(client, f"tournament?n={t.id}", me)
        assert status == 200, page
        assert page["title"] == "Turnier · Schwimmen"
        assert page["status"] == "Runde 2 von 3"
        assert page["place"] == "Die Tische spielen in den privaten Chats ihrer Leute."
        # every round's tables: who sits where, the table's state, each seat's result so far
        assert [r["round"] for r in page["draw"]] == [1, 2]
        assert [r["label"] for r in page["draw"]] == ["Runde 1", "Runde 2"]
        for shown, stored in zip(page["draw"], kept["draw"], strict=True):
            for table, row in zip(shown["tables"], stored["tables"], strict=True):
                assert table["label"] == f"Tisch {row['no']}"
                assert table["state"] == row["state"]
                assert [s["name"] for s in table["seats"]] == [s["name"] for s in row["seats"]]
                assert [s["points"] for s in table["seats"]] == [
                    None if s["points"] is None else points(s["points"], "de")
                    for s in row["seats"]]
        round_1, round_2 = page["draw"]
        assert {x["state_text"] for x in round_1["tables"]} == {"fertig"}
        assert all(s["points"] is not None for x in round_1["tables"] for s in x["seats"])
        assert [x["state_text"] for x in round_2["tables"]] == ["fertig", "läuft"]
        assert all(s["points"] is None for s in round_2["tables"][1]["seats"])
        # the standings: rank (ties share one), points, Buchholz, game points
        assert [(s["rank"], s["name"], s["points"], s["buchholz"], s["game_points"])
                for s in page["standings"]] == [
            (s["rank"], s["name"], points(s["points"], "de"), points(s["buchholz"], "de"),
             f"{s['game_points']:g}") for s in kept["standings"]]
        mine = [s["name"] for s in page["standings"] if s["you"]]
        assert mine == [me.name]
        assert [s["name"] for r in page["draw"] for x in r["tables"] for s in x["seats"]
                if s["you"]] == [me.name, me.name]
        assert page["texts"]["standings"] == "Stand" and page["texts"]["buchholz"] == "Bhz"
        # in English for an English person
        status, page = await _get(client, f"tournament?n={t.id}", users[2], "en")
        assert status == 200 and page["status"] == "Round 2 of 3"
        assert page["draw"][1]["tables"][1]["state_text"] == "playing"
        assert page["texts"]["standings"] == "Standings"

    _run(h.service, scenario)


def test_the_tournament_page_before_the_start_with_a_tie_and_at_the_end(h: Harness) -> None:
    users = [person(i) for i in range(4)]
    t = open_tournament(h, users, rounds=1)

    async def scenario(client: TestClient) -> None:
        status, page = await _get(client, f"tournament?n={t.id}", users[1])
        assert status == 200 and page["state"] == "open" and page["refresh"] == 15
        assert page["status"] == "Anmeldung offen · 4 dabei"
        assert page["entrants"] == [u.name for u in users] and page["draw"] == []
        start_tournament(h, users)  # dealt, nobody scored: everybody shares the first place
        status, page = await _get(client, f"tournament?n={t.id}", users[1])
        assert [s["rank"] for s in page["standings"]] == [1, 1, 1, 1]
        assert {s["points"] for s in page["standings"]} == {"0"}
        assert [x["state"] for x in page["draw"][0]["tables"]] == ["playing"]
        play_tables(h, users, random.Random(2))
        assert fire_steps(h) == 1  # the only round's end: the final standings
        status, page = await _get(client, f"tournament?n={t.id}", users[1])
        assert page["state"] == "finished" and page["status"] == "Beendet · Endstand"
        assert page["refresh"] is None  # (over: the page asks no more)
        assert [x["state_text"] for x in page["draw"][0]["tables"]] == ["fertig"]
        kept = h.service.tournament_view("telegram", GROUP.external_id)
        assert kept is not None
        assert [(s["rank"], s["points"]) for s in page["standings"]] == [
            (s["rank"], points(s["points"], "de")) for s in kept["standings"]]

    _run(h.service, scenario)


def test_the_tournament_page_is_only_for_the_people_seen_in_its_group(h: Harness) -> None:
    users = [person(i) for i in range(4)]
    t = open_tournament(h, users)
    member, known, stranger = person(10), person(11), person(12, "en")
    assert h.command(GROUP, member, "help").ok  # writes in the group: seen there
    assert h.command(private(known), known, "start").ok  # met the bot, not in the group

    async def scenario(client: TestClient) -> None:
        status, page = await _get(client, f"tournament?n={t.id}", member)
        assert status == 200 and page["id"] == t.id
        for user, lang, text in (
                (known, "de", "Nur die Leute aus der Gruppe des Turniers können es sehen."),
                (stranger, "en", "Only the people of the tournament's group can see it."),
                (stranger, "de", "Nur die Leute aus der Gruppe des Turniers können es sehen.")):
            status, body = await _get(client, f"tournament?n={t.id}", user, lang)
            assert (status, body) == (403, {"error": "not yours", "text": text})
        # a direct link's start parameter names it as well (and is checked the same way)
        status, page = await _get(client, "tournament", member, start_param=f"tn{t.id}")
        assert status == 200 and page["id"] == t.id
        assert (await _get(client, "tournament", known, start_param=f"tn{t.id}"))[0] == 403
        status, body = await _get(client, f"tournament?n={t.id + 50}", member)
        assert (status, body) == (404, {"error": "no tournament",
                                        "text": "Dieses Turnier gibt es nicht."})

    _run(h.service, scenario)


def test_the_league_page_shows_the_division_the_service_keeps(h: Harness) -> None:
    users = [person(i, "en" if i == 3 else "de") for i in range(26)]
    away = users[5]
    league_week(h, users, away=away)
    stranger = person(30)

    async def scenario(client: TestClient) -> None:
        for user in (users[0], users[20], away):
            board, boards = h.service.league_sight("telegram", user.external_id)
            assert board is not None and len(boards) == 2
            status, page = await _get(client, "league", user)
            assert status == 200, page
            assert page["title"] == "Liga · Schwimmen" and page["division"] == board.division
            assert page["week"] == "Woche 07.01.–13.01. · Tag 2 von 7"
            assert page["days"] == ["Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"]
            assert [(d["label"], d["on"]) for d in page["division_labels"]] == [
                ("1. Liga", board.division == 1), ("2. Liga", board.division == 2)]
            assert [(r["rank"], r["name"], r["points"], r["days"], r["zone"])
                    for r in page["rows"]] == [
                (f"{line.rank}." if line.rank else "–", line.name, line.points,
                 ["–" if d is None else str(d) for d in line.days[:2]] + [""] * 5,
                 line.mark if line.mark in ("up", "down", "holiday") else "")
                for line in board.lines]
            assert [r["name"] for r in page["rows"] if r["you"]] == [user.name]
        # the zones: the best three of division 2 go up, the last three of division 1 down
        status, low = await _get(client, "league?d=2", users[0])
        status, top = await _get(client, "league?g=schwimmen&d=1", users[0])
        assert [r["mark"] for r in low["rows"][:3]] == ["↑"] * 3
        assert {r["zone"] for r in low["rows"][3:]} <= {"", "holiday"}
        playing = [r for r in top["rows"] if r["zone"] != "holiday"]
        assert [r["mark"] for r in playing[-3:]] == ["↓"] * 3
        assert any(r["zone"] == "holiday" and r["rank"] == "–" and r["mark"] == "Urlaub"
                   for r in low["rows"] + top["rows"])
        mine = next(r for r in top["rows"] + low["rows"] if r["you"])
        assert (top if mine in top["rows"] else low)["you"].startswith("Du: Platz ")
        other = low if mine in top["rows"] else top
        assert other["you"] == "Du spielst nicht in dieser Liga."
        # English; a game nobody plays in a league; a division that does not exist
        status, page = await _get(client, "league", users[3], "en")
        assert page["title"] == "League · Schwimmen (31)" and page["days"][0] == "Mon"
        assert page["week"] == "Week 07.01.–13.01. · day 2 of 7"
        status, page = await _get(client, "league?g=scat", users[0])
        assert status == 200 and page["rows"] == [] and page["empty"] == (
            "🏆 In der Liga für Einunddreißig (Scat) spielt diese Woche noch niemand. Spiel "
            "das Tagesspiel: "
            "/tagesspiel")
        status, page = await _get(client, "league?d=3", users[0])
        assert page["rows"] == [] and page["empty"].startswith("Diese Liga gibt es nicht")
        # somebody the bot never met
        for lang, text in (("de", "Ich kenne dich noch nicht: spiel mit mir das Tagesspiel "
                                  "(/tagesspiel), dann bist du in der Liga."),
                           ("en", "I don't know you yet: play today's deal with me (/daily) "
                                  "and you are in the league.")):
            status, body = await _get(client, "league", stranger, lang)
            assert (status, body) == (403, {"error": "unknown", "text": text})

    _run(h.service, scenario)


def test_the_pages_take_only_their_own_parameters(sqlite_engine: Engine) -> None:
    h = Harness(sqlite_engine, FakeClock(berlin(-1, 10)), cpu_delay=0, next_round_delay=0)
    users = [person(i) for i in range(2)]
    t = open_tournament(h, users)
    me = users[0]

    async def scenario(client: TestClient) -> None:
        for query in ("n=abc", "n=0", "n=-1", f"n={t.id}&n={t.id}", "n=99999999999",
                      f"n={t.id}&x=1", "n=%EF%BC%91", "n=1e3", "n= 1", ""):
            status, _body = await _get(client, f"tournament?{query}", me)
            assert status == 400, query
        # a start parameter naming a table or the league is no tournament
        for start in ("tAbCdEfGhIjKlMnOpQr", "lg", "tn0", "tn1x"):
            assert (await _get(client, "tournament", me, start_param=start))[0] == 400, start
        for query in ("g=poker", "g=", "d=0", "d=1000", "d=abc", "g=scat&g=scat", "t=1",
                      "d=%D9%A3"):
            status, _body = await _get(client, f"league?{query}", me)
            assert status == 400, query
        assert (await _get(client, "league", me, start_param="lg-scat"))[0] == 200
        assert (await _get(client, "league", me, start_param="lg-poker"))[0] == 400
        for path in (f"tournament?n={t.id}", "league"):
            resp = await client.get(f"/webapp/api/{path}", headers={
                "X-Telegram-Init-Data": "user=%7B%22id%22%3A4800%7D&auth_date=1&hash=00"})
            assert resp.status == 401 and resp.headers["Cache-Control"] == "no-store"
            resp = await client.post(f"/webapp/api/{path}", headers=_headers(me), data=b"{}")
            assert resp.status == 405

    _run(h.service, scenario)
