"""A tournament end to end through the fake Bot API (issue 48), the bot a separate process on a
simulated clock: twelve people play Schwimmen over three rounds in a plain group — opened by
/turnier and its buttons, joined under the announcement, started by its opener; no forum, so
every table is played in its people's private chats and nothing of the tables reaches the
group, which sees the draws, the rounds' ends and the standings. One person leaves with ❌ in
round 1 (a CPU takes their seat; they are drawn no more), one lets their turns run out twice
(the CPU plays on for them at that table; they play again in round 2); the bot is killed in
the middle of round 2 and started again (every table goes on, every accepted press counts
once). The final standings are the database's ``tournament_score``, and each table's points
are its result's places."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.fakes.telegram_api import FakeBotApi
from tests.simclock import SimClock
from tests.telegram.bot_db import Db
from tests.telegram.bot_process import TRACEBACK_MARKERS, WAIT, BotProcess, card_symbols
from tests.telegram.evening_record import game_points
from tests.telegram.keyboards import bot_texts, buttons, table_of
from tests.telegram.tournament_play import (
    DRAW,
    Entrants,
    announcement,
    draw_of,
    greet_all,
    group_said,
    player_ids,
    points_by_person,
    press_ok,
    round_tables,
    seats_of,
    shown,
    standings_lines,
    tournament_id,
    tournament_row,
    wait_said,
)

pytestmark = pytest.mark.e2e

GROUP = -5012
NAMES = {9201 + i: n for i, n in enumerate(
    ["Alma", "Bruno", "Cem", "Dora", "Ede", "Fritzi", "Gustl", "Hanne", "Ida", "Jo", "Karla",
     "Lutz"])}
OPENER = 9201
CLOCK = 60  # the turn clock chosen by button (seconds)
START = datetime(2030, 1, 9, 17, 0, tzinfo=UTC)  # a Wednesday evening


def open_by_buttons(fake: FakeBotApi) -> dict:
    """/turnier, then Schwimmen · 3 rounds · 60 s by buttons: the announcement."""
    fake.send_text(GROUP, OPENER, "/turnier", user_first_name=NAMES[OPENER])
    menu = fake.wait_for(lambda: next((m for m in fake.messages(GROUP, include_deleted=False)
                                       if m["text"] == "🏆 Ein Turnier: welches Spiel?"), None),
                         WAIT, message="the game menu")
    for data, next_text in (("v1:0:0:tn.g.schwimmen", "🏆 Schwimmen: wie viele Runden?"),
                            ("v1:0:0:tn.r.schwimmen.3",
                             "🏆 Schwimmen, 3 Runden: wie lange pro Zug?")):
        assert press_ok(fake, GROUP, OPENER, menu["message_id"], data) is None
        fake.wait_for(lambda t=next_text: (fake.message(GROUP, menu["message_id"]) or {})
                      .get("text") == t, WAIT, message=next_text)
    assert press_ok(fake, GROUP, OPENER, menu["message_id"],
                    f"v1:0:0:tn.c.schwimmen.3.{CLOCK}") is None
    return announcement(fake, GROUP)


def test_twelve_people_three_rounds_of_schwimmen_privately_through_a_restart(
        fake: FakeBotApi, sqlite_url: str, tmp_path: Path,
        start_bot: Callable[..., BotProcess], db_reader: Callable[[str], Db]) -> None:
    began = time.monotonic()
    clock = SimClock(tmp_path / "clock", START)
    bot = start_bot(sqlite_url, **clock.env())
    db = db_reader(sqlite_url)
    greet_all(fake, NAMES)
    msg = open_by_buttons(fake)
    assert msg["text"] == ("🏆 Turnier: Schwimmen · 3 Runden · 60 s\n"
                           "Beginnt, wenn Alma auf ▶ Starten drückt.\nDabei: noch niemand")
    assert [label for label, _ in buttons(msg)] == ["✅ Mitmachen", "❌ Aussteigen", "▶ Starten"]
    tid = tournament_id(msg)
    for user in NAMES:
        assert press_ok(fake, GROUP, user, msg["message_id"], f"v1:0:0:tn.j.{tid}") \
            == "✅ Du bist dabei."
    assert press_ok(fake, GROUP, 9202, msg["message_id"], f"v1:0:0:tn.j.{tid}") \
        == "Du bist schon dabei."
    assert press_ok(fake, GROUP, 9202, msg["message_id"], f"v1:0:0:tn.s.{tid}") \
        == "Das Turnier startet, wer es eröffnet hat, oder ein Admin."
    fake.wait_for(lambda: "Dabei (12): Alma, Bruno, Cem, Dora, Ede, Fritzi, Gustl, Hanne, "
                  "Ida, Jo, Karla, Lutz" in fake.message(GROUP, msg["message_id"])["text"],
                  WAIT, message="everybody on the announcement")
    with db.engine.begin() as conn:  # (a test's shortcut: two coins each, shorter games)
        conn.execute(text("UPDATE tournament SET options = :o WHERE id = :t"),
                     {"o": json.dumps({"engine": {"coins": 2}}), "t": tid})
    assert press_ok(fake, GROUP, OPENER, msg["message_id"], f"v1:0:0:tn.s.{tid}") is None

    # round 1: no forum here, so the tables play privately
    draws = [draw_of(wait_said(fake, GROUP, "🏆 Runde 1 von 3 – die Tische:"))]
    assert len(draws[0]) == 3 and all(len(t) == 4 for t in draws[0])
    assert sorted(n for t in draws[0] for n in t) == sorted(NAMES.values())
    assert all(c["status"] == 400 for c in fake.calls("createForumTopic"))
    ids = player_ids(db)
    by_name = {name: user for user, name in NAMES.items()}
    assert [[ids[by_name[n]] for n in t] for t in draws[0]] == [
        seats_of(r) for r in round_tables(db, 1)]
    dropout, leaver = by_name[draws[0][0][0]], by_name[draws[0][1][0]]
    people = Entrants(fake, dict(NAMES), "schwimmen", random.Random(48), idle={dropout})

    def leave_after_three_moves() -> None:
        if leaver in people.names and sum(1 for t, _v, _c in people.accepted
                                          if t == round_tables(db, 1)[1]["table_id"]) >= 3:
            assert press_ok(fake, GROUP, leaver, msg["message_id"],
                            f"v1:0:0:tn.l.{tid}") == "Du bist aus dem Turnier ausgestiegen."
            del people.names[leaver]

    def others_done() -> bool:
        return all(r["state"] == "done" for r in round_tables(db, 1)[1:])

    people.play_until(others_done, between=leave_after_three_moves)
    assert leaver not in people.names, "the leaver's table ended before three of its moves"
    table_1 = round_tables(db, 1)[0]["table_id"]
    seat = next(s for s in db.seats(round_tables(db, 1)[1]["table_id"])
                if s["name"] == f"🤖 {NAMES[leaver]}")
    assert seat["is_cpu"] and seat["player_id"] is None  # (a CPU played on in their seat)
    # the dropout's turns run out twice (the clock jumps past them): the CPU plays for them
    dropout_seat = next(s["seat_no"] for s in db.seats(table_1)
                        if s["player_id"] == ids[dropout])
    def timeouts() -> int:
        return sum(m["actor"] == "timeout" and m["seat_no"] == dropout_seat
                   for m in db.moves(table_1))

    def dropout_on_turn() -> bool:
        row = db.table(table_1)
        return row["deadline_kind"] in ("remind", "timeout") and json.loads(
            row["state_json"])["to_act"] == dropout_seat

    while (done := timeouts()) < 2:  # (one may have run out while the other tables played)
        people.play_until(lambda d=done: timeouts() > d or dropout_on_turn())  # type: ignore[misc]
        if timeouts() == done:
            clock.set(clock.now() + timedelta(seconds=CLOCK + 2))
            fake.wait_for(lambda d=done: timeouts() > d, WAIT, message=f"timeout {done + 1}")
    away = f"💤 {NAMES[dropout]} ist abwesend; die CPU spielt, bis „Bin wieder da“ gedrückt wird."
    fake.wait_for(lambda: away in bot_texts(fake, [dropout]), WAIT,
                  message=f"the dropout told the CPU plays for them\n{db.moves(table_1)}"
                  f"\n{bot_texts(fake, [dropout])}")
    people.play_until(lambda: tournament_row(db)["round_no"] == 2)
    assert {m["actor"] for m in db.moves(table_1)} >= {"timeout", "away", "player"}
    people.idle.clear()  # (back in round 2)

    # round 2 (eleven people: 4, 4, 3); the bot is killed in its middle and started again
    draws.append(draw_of(wait_said(fake, GROUP, "🏆 Runde 2 von 3 – die Tische:")))
    assert sorted(len(t) for t in draws[1]) == [3, 4, 4]
    assert NAMES[leaver] not in {n for t in draws[1] for n in t}
    round_2 = {r["table_id"] for r in round_tables(db, 2)}
    people.play_until(lambda: sum(t in round_2 for t, _v, _c in people.accepted) >= 12)
    waiting = fake.wait_for(lambda: people.on_turn(), WAIT, message="somebody on turn")
    bot.kill()
    user, view = waiting[0]
    data = people.pick(view)
    uid = fake.press(user, user, view["message_id"], data)  # (pressed while the bot is down)
    people.pressed[(user, view["message_id"])] = (view["text"], view["reply_markup"], False)
    bot = start_bot(sqlite_url, **clock.env())
    people.answered(uid, data)
    assert people.accepted[-1][2] == data.rsplit(":", 1)[1], people.refused
    people.play_until(lambda: tournament_row(db)["round_no"] == 3)
    assert all(r["state"] == "done" for r in round_tables(db, 2))

    # round 3, to the end
    draws.append(draw_of(wait_said(fake, GROUP, "🏆 Runde 3 von 3 – die Tische:")))
    people.play_until(lambda: tournament_row(db)["state"] == "finished")
    final = wait_said(fake, GROUP, "🏆 Endstand:")

    # every accepted press is one move of a person, once; nothing else moved for a person
    moved = sorted((m["table_id"], m["seq"] - 1, m["code"]) for r in (1, 2, 3)
                   for t in round_tables(db, r) for m in db.moves(t["table_id"])
                   if m["actor"] == "player")
    assert moved == sorted(people.accepted)
    # each table's points are its result's places (CPU seats take places, no points)
    names = {ids[u]: n for u, n in NAMES.items()}
    for r in (1, 2, 3):
        for t in round_tables(db, r):
            scored = {names[s["player_id"]]: s for s in db.rows(
                "SELECT * FROM tournament_score WHERE round_no = :r AND table_no = :n",
                r=r, n=t["table_no"])}
            expected = game_points(db, t["table_id"])
            assert {n: (s["points_num"], s["points_den"]) for n, s in scored.items()} == {
                n: (p.numerator, p.denominator) for n, p in expected.items()}, (r, t)
    # the final standings are the scores' sums, best first; the winner is named
    points = points_by_person(db)
    lines = standings_lines(final)
    assert {name for _r, name, _p in lines} == set(NAMES.values())
    assert [pts for _r, _n, pts in lines] == [
        shown(points.get(ids[by_name[n]], Fraction(0))) for _r, n, _p in lines]
    in_order = [points.get(ids[by_name[n]], Fraction(0)) for _r, n, _p in lines]
    assert in_order == sorted(in_order, reverse=True)
    best = [n for rank, n, _p in lines if rank == 1]
    assert final.endswith(f"🥇 {best[0]} gewinnt das Turnier!" if len(best) == 1
                          else f"🥇 {', '.join(best)} gewinnen das Turnier!")
    assert points.get(ids[leaver], 0) == 0  # (their seat was the CPU's when it ended)

    # the group saw the draws, the rounds' ends and the standings; nothing of the tables
    said = group_said(fake, GROUP)
    assert [DRAW.match(t).group(1) for t in said if DRAW.match(t)] == ["1", "2", "3"]
    assert [t for t in said if t.startswith("🏁") and t.endswith("ist vorbei.")] == [
        "🏁 Runde 1 ist vorbei.", "🏁 Runde 2 ist vorbei.", "🏁 Runde 3 ist vorbei."]
    results = [t for t in said if t.startswith("🏁") and not t.endswith("ist vorbei.")]
    assert len(results) == 9  # each table's result as it came: its people's points
    for said_table in results:
        head, line = said_table.split(": ", 1)
        r, n = (int(x) for x in re.findall(r"\d+", head))
        assert head == f"🏁 Runde {r}, Tisch {n}"
        told = dict(part.rsplit(" ", 1) for part in line.split(" · "))
        assert {name: pts for name, pts in told.items() if not name.startswith("🤖")} == {
            names[s["player_id"]]: shown(Fraction(s["points_num"], s["points_den"]))
            for s in db.rows("SELECT * FROM tournament_score WHERE round_no = :r AND "
                             "table_no = :n", r=r, n=n)}, said_table
    assert [t.split("\n")[0] for t in said if t.startswith("🏆 Stand")] == [
        "🏆 Stand nach Runde 1 von 3:", "🏆 Stand nach Runde 2 von 3:"]
    assert all(t.startswith(("🏆", "🏁")) for t in bot_texts(fake, [GROUP])), said
    assert not any(table_of(m) for m in fake.messages(GROUP))
    assert not any(card_symbols(t) for t in bot_texts(fake, [GROUP]))
    for t in bot_texts(fake, [GROUP, *NAMES]):
        assert not any(marker in t for marker in TRACEBACK_MARKERS), t
    print(f"\n12 people, 3 rounds: {time.monotonic() - began:.0f} s, "
          f"{len(people.accepted)} presses, refused {dict(people.refused)}")
