"""A tournament on a long clock over simulated days through the fake Bot API (issue 48): four
people (Cem reads English) play two rounds of Schwimmen with 12 hours a turn and at most two
days a round (``/turnier schwimmen 2 uhr=12h zeit=2d``), privately, the bot's clock moved
across the days. A turn's reminder comes privately when a quarter of its clock is left, and
is played from; a turn left to the clock runs out at the end of its person's quiet hours, not
in them (a stand-in plays, the person is told); nobody hears from the tables in their quiet
hours, the group nothing of them at all. Round 1 is played to its end; round 2's time runs out
with its table unfinished: the table is stopped and scored as it stood (by coins), the
tournament ends with the standings. The transcript of what the group saw goes into
docs/tournaments.md with ``STAMMTISCH_WRITE_DOCS=1``; otherwise the page's transcript must
have the same shape."""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from datetime import timedelta
from fractions import Fraction
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.bot_db import Db, as_utc
from tests.telegram.bot_process import TRACEBACK_MARKERS, WAIT, BotProcess, card_symbols
from tests.telegram.evening_record import Journal, shape, speaking
from tests.telegram.keyboards import bot_texts, table_of
from tests.telegram.long_game import berlin, sent
from tests.telegram.tournament_play import (
    Entrants,
    announcement,
    greet_all,
    player_ids,
    points_by_person,
    press_ok,
    round_tables,
    shown,
    standings_lines,
    tournament_id,
    tournament_row,
    wait_said,
)
from tests.telegram.tournament_record import page_transcript, sim_time, transcript, write_page

pytestmark = pytest.mark.e2e

GROUP = -5013
NAMES = {9401: "Alma", 9402: "Bruno", 9403: "Cem", 9404: "Dora"}
LANGS = {9401: "de", 9402: "de", 9403: "en", 9404: "de"}
ZONES = {u: ZoneInfo("Europe/London" if LANGS[u] == "en" else "Europe/Berlin") for u in NAMES}
BERLIN = ZoneInfo("Europe/Berlin")


def quiet(user: int, when) -> bool:  # type: ignore[no-untyped-def]
    hour = when.astimezone(ZONES[user]).hour
    return hour >= 23 or hour < 8


def test_a_tournament_on_a_twelve_hour_clock_over_simulated_days(
        fake: FakeBotApi, db_url: str, tmp_path: Path,
        start_bot: Callable[..., BotProcess], db_reader: Callable[[str], Db]) -> None:
    began = time.monotonic()
    speaking(fake, LANGS)
    clock = Journal(tmp_path / "clock", berlin(0, 10))  # Monday 7 January 2030, 10:00
    start_bot(db_url, **clock.env())
    db = db_reader(db_url)
    greet_all(fake, NAMES)
    fake.send_text(GROUP, 9401, "/turnier schwimmen 2 uhr=12h zeit=2d", user_first_name="Alma")
    msg = announcement(fake, GROUP)
    assert msg["text"].split("\n")[:3] == ["🏆 Turnier: Schwimmen · 2 Runden · 12 Std.",
                                           "eine Runde dauert höchstens 2 Tage",
                                           "Beginnt, wenn Alma auf ▶ Starten drückt."]
    tid = tournament_id(msg)
    for n, user in enumerate(NAMES, 1):
        clock.set(berlin(0, 10, n))
        assert press_ok(fake, GROUP, user, msg["message_id"], f"v1:0:0:tn.j.{tid}",
                        LANGS[user]) == ("✅ You're in." if LANGS[user] == "en"
                                         else "✅ Du bist dabei.")
        fake.wait_for(lambda u=user: NAMES[u] in fake.message(GROUP, msg["message_id"])[
            "text"].split("\n")[-1], WAIT, message=f"{NAMES[user]} on the announcement")
    clock.set(berlin(0, 10, 5))
    assert press_ok(fake, GROUP, 9401, msg["message_id"], f"v1:0:0:tn.s.{tid}") is None
    wait_said(fake, GROUP, "🏆 Runde 1 von 2 – die Tische:")
    ids = player_ids(db)
    user_of = {p: u for u, p in ids.items()}
    people = Entrants(fake, dict(NAMES), "schwimmen", random.Random(12))
    table = round_tables(db, 1)[0]["table_id"]

    def on_turn() -> tuple[int, dict]:
        """(the person on turn, the table's row) once a person's clock runs."""
        row = fake.wait_for(lambda: (r := db.table(table))["deadline_kind"] in (
            "remind", "nudge", "timeout") and r, WAIT, message="a person's turn")
        seat = json.loads(row["state_json"])["to_act"]
        player = next(s["player_id"] for s in db.seats(table) if s["seat_no"] == seat)
        return user_of[player], row

    def jump(row: dict) -> dict:
        """The clock jumps just past the table's next deadline; its row once it fired."""
        due = as_utc(row["next_deadline"])
        clock.set(due + timedelta(seconds=1))
        key = (row["version"], row["deadline_kind"], str(row["next_deadline"]))
        return fake.wait_for(lambda: (r := db.table(table)) and (
            r["version"], r["deadline_kind"], str(r["next_deadline"])) != key and r, WAIT,
            message=f"the {row['deadline_kind']} at {due}")

    # the first turn: the reminder when a quarter of the 12 hours is left, played from
    first, row = on_turn()
    assert row["deadline_kind"] == "remind"
    assert as_utc(row["next_deadline"]) == as_utc(row["turn_ends_at"]) - timedelta(hours=3)
    mark = fake.last_seq()
    jump(row)
    reminder = fake.wait_for(lambda: sent(fake, first, mark, prefix="⏰"), WAIT,
                             message="the private reminder")[0]["params"]
    assert reminder["text"].startswith(
        "⏰ Your turn at Schwimmen (31) in Stammtisch Test 5013 – " if LANGS[first] == "en"
        else "⏰ Du bist am Zug bei Schwimmen in „Stammtisch Test 5013“ – noch ")
    assert Entrants.table_of(people.view(first)) == table  # type: ignore[arg-type]
    people.play_until(lambda: on_turn()[0] != first)
    # the next turn is left to the clock: it would end in its person's quiet hours, so it
    # ends when they end; a reminder due in them comes before they begin
    second, row = on_turn()
    ends = as_utc(row["turn_ends_at"]).astimezone(ZONES[second])
    assert (ends.hour, ends.minute) == (8, 0), ends  # (12 h from the evening: in the night)
    moves = len(db.moves(table))
    while len(db.moves(table)) == moves:  # (a reminder the evening before, then the end)
        row = db.table(table)
        assert row["deadline_kind"] in ("remind", "nudge", "timeout"), row
        assert not quiet(second, as_utc(row["next_deadline"])), row
        jump(row)
    stand_in = db.moves(table)[moves]
    assert stand_in["actor"] == "timeout" and as_utc(stand_in["at"]).astimezone(
        ZONES[second]).hour == 8
    told = ("⌛ Your time at Schwimmen (31) in Stammtisch Test 5013 ran out – a stand-in "
            "played your turn." if LANGS[second] == "en" else
            "⌛ Deine Zeit bei Schwimmen in „Stammtisch Test 5013“ ist abgelaufen – eine "
            "Vertretung hat deinen Zug gespielt.")
    fake.wait_for(lambda: told in bot_texts(fake, [second]), WAIT, message="told privately")
    # the others hear of it privately - but not Cem, for whom it is 07:00, still quiet
    notice = {"de": f"⌛ {NAMES[second]} war zu langsam – die CPU hat für {NAMES[second]} "
                    "gezogen.",
              "en": f"⌛ {NAMES[second]} ran out of time – the CPU moved for {NAMES[second]}."}
    for user in NAMES:
        if user != second:
            fake.wait_for(lambda u=user: notice[LANGS[u]] in bot_texts(fake, [u]) or u == 9403,
                          WAIT, message=f"{NAMES[user]} told of the timeout")
    assert notice["en"] not in bot_texts(fake, [9403])
    clock.set(berlin(1, 9, 5))  # (everybody awake: 08:05 in London)
    # the rest of round 1 at the people's pace, then round 2 until its time runs out
    people.play_until(lambda: tournament_row(db)["round_no"] == 2)
    wait_said(fake, GROUP, "🏆 Runde 2 von 2 – die Tische:")
    t = tournament_row(db)
    assert t["due_kind"] == "round_end"
    assert as_utc(t["due_at"]) - as_utc(t["round_ends_at"]) == timedelta(0)
    cut = round_tables(db, 2)[0]["table_id"]
    pressed = len(people.accepted)
    people.play_until(lambda: len(people.accepted) >= pressed + 8)
    clock.set(as_utc(t["round_ends_at"]) + timedelta(seconds=1))
    fake.wait_for(lambda: tournament_row(db)["state"] == "finished", WAIT,
                  message="the round's time to run out")
    done = wait_said(fake, GROUP, "🏁 Runde 2 ist vorbei.")
    assert done == ("🏁 Runde 2 ist vorbei.\n(Tisch 1 wurde gewertet, wie er stand, als die "
                    "Zeit der Runde ablief)")
    assert db.table(cut)["fsm_state"] == "abandoned"

    # the cut table's points: by the coins each had when it was stopped (ties share)
    coins = json.loads(db.table(cut)["state_json"])["coins"]
    seats = db.seats(cut)
    scored = {s["player_id"]: Fraction(s["points_num"], s["points_den"]) for s in db.rows(
        "SELECT * FROM tournament_score WHERE round_no = 2")}
    for s in seats:
        above = sum(c > coins[s["seat_no"]] for c in coins)
        tied = sum(c == coins[s["seat_no"]] for c in coins)
        share = Fraction(sum(len(coins) - 1 - p for p in range(above, above + tied)), tied)
        assert scored[s["player_id"]] == share, (coins, s["name"])
    final = wait_said(fake, GROUP, "🏆 Endstand:")
    points = points_by_person(db)
    by_name = {NAMES[user_of[p]]: p for p in points}
    assert [(n, pts) for _r, n, pts in standings_lines(final)] == [
        (n, shown(points[by_name[n]])) for _r, n, _p in standings_lines(final)]

    # nobody heard from the tables in their quiet hours; the group nothing of them
    for user in NAMES:
        for call in sent(fake, user):
            if call["params"]["text"].startswith(("⏰", "⌛", "🃏")) and call["seq"] > mark:
                assert not quiet(user, sim_time(clock, call, ZONES[user])), call["params"]
    assert not any(table_of(m) for m in fake.messages(GROUP))
    assert not any(card_symbols(x) for x in bot_texts(fake, [GROUP]))
    for x in bot_texts(fake, [GROUP, *NAMES]):
        assert not any(marker in x for marker in TRACEBACK_MARKERS), x

    text = transcript(fake, clock, GROUP, BERLIN)
    if os.environ.get("STAMMTISCH_WRITE_DOCS") == "1":
        write_page(text)
    names = list(NAMES.values())
    assert shape(page_transcript(), names) == shape(text, names), \
        f"docs/tournaments.md is out of date: STAMMTISCH_WRITE_DOCS=1 writes it\n{text}"
    print(f"\n4 people, 2 rounds over days: {time.monotonic() - began:.0f} s")
