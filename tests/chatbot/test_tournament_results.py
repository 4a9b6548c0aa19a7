"""What a tournament tells, through the service (issue 48, rules 3 and 4), on SQLite and
PostgreSQL: the group reads the draw, each table's result as it comes, the round's end and the
standings (pinned, the last one replacing the one before), the final standings with the winner
crowned — and nothing of a table played in the players' private chats (no hand, no table
message, no button of a table); the person's line in ``/stats`` and ``/turnier liste``;
German and English as people read them."""

from __future__ import annotations

import random
import re

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from chatbot.service import UserRef
from storage.models import Outbox
from tests.card_text import card_symbols
from tests.chatbot.service.harness import GROUP, Harness, private
from tests.chatbot.tournaments import (
    fire_steps,
    greet,
    group_texts,
    open_tournament,
    people,
    play_round,
    private_texts,
    start,
    tournament,
)
from tests.conftest import FakeClock

DRAW = re.compile(r"^🏆 Runde (\d) von 2 – die Tische:\n1\. (.+)\nIhr spielt privat mit mir: "
                  r"euer Tisch kommt in euren Chat\.$")
RESULT = re.compile(r"^🏁 Runde (\d), Tisch 1: (\S+) ([\d,]+) · (\S+) ([\d,]+) · (\S+) ([\d,]+) · "
                    r"(\S+) ([\d,]+)$")


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    harness = Harness(db_engine, FakeClock(), cpu_delay=0, next_round_delay=0)
    harness.on_step = harness.postman.deliver  # (each input's messages sent at once)
    return harness


def group_rows(h: Harness) -> list[Outbox]:
    with Session(h.engine) as session:
        return list(session.exec(select(Outbox).where(
            Outbox.chat_external_id == GROUP.external_id).order_by(col(Outbox.id))).all())


def play_two_rounds(h: Harness, users: list[UserRef]) -> None:
    open_tournament(h, users, "schwimmen 2")
    start(h, users[0])
    rng = random.Random(11)
    for _ in range(2):
        play_round(h, users, rng)
        assert fire_steps(h) == 1


def test_the_group_reads_the_draw_each_result_the_rounds_end_and_the_standings(
        h: Harness) -> None:
    users = people(4)
    greet(h, users)
    play_two_rounds(h, users)
    texts = group_texts(h)
    kinds = []
    for text in texts:
        if DRAW.match(text):
            kinds.append("draw")
        elif RESULT.match(text):
            kinds.append("result")
            names_points = RESULT.match(text).groups()[1:]  # type: ignore[union-attr]
            points = [float(p.replace(",", ".")) for p in names_points[1::2]]
            assert points == sorted(points, reverse=True) and sum(points) == 6, text
        elif text.startswith("🏁 Runde"):
            kinds.append("over")
        elif text.startswith("🏆 Stand nach Runde 1 von 2:"):
            kinds.append("standings")
        elif text.startswith("🏆 Endstand:"):
            kinds.append("final")
        elif text.startswith("🏆 Turnier: Schwimmen · 2 Runden"):
            kinds.append("announcement")
    # (a later standings message replaces the one before: only the final one is shown)
    assert kinds == ["announcement", "draw", "result", "over", "draw", "result", "over",
                     "final"], texts
    final = texts[-1].splitlines()
    assert final[1:3] == ["```", "#   Name          Pkt  Bhz  Spiel"]
    assert len(final) == 3 + 4 + 2 and final[-2] == "```"
    assert re.match(r"^🥇 .+ (gewinnt|gewinnen) das Turnier!$", final[-1])
    assert "Beendet." in texts[0]
    rows = group_rows(h)
    standings_slot = f"tn{tournament(h).id}s"
    standings_posts = [r for r in rows if r.slot == standings_slot and not r.action]
    assert len(standings_posts) == 2  # after round 1, and the final one (posted anew)
    assert [r.action for r in rows if r.slot == standings_slot and r.action] == ["pin", "pin"]
    assert [r.action for r in rows if r.slot == f"tn{tournament(h).id}" and r.action] == \
        ["pin", "unpin"]


def test_nothing_of_a_table_played_privately_reaches_the_group(h: Harness) -> None:
    users = people(4)
    greet(h, users)
    play_two_rounds(h, users)
    rows = group_rows(h)
    assert rows
    for row in rows:
        assert not card_symbols(row.text), row.text
        assert row.table_id is None, row.text
        assert not re.fullmatch(r"[th]\d+(@.*)?", row.slot or ""), row.slot  # no table view
        assert all(not b[1].startswith("v1:") or b[1].startswith("v1:0:")
                   for line in row.buttons for b in line), row.buttons
    # each person played privately: their own hand came to their chat
    for user in users:
        assert any(card_symbols(t) for t in private_texts(h, user)), user.name


def test_stats_line_and_the_groups_history(h: Harness) -> None:
    users = people(3)
    greet(h, users)
    assert h.command(GROUP, users[0], "turnier", "liste").ok
    assert group_texts(h)[-1] == "Hier wurde noch kein Turnier gespielt. /turnier eröffnet " \
                                 "eines."
    open_tournament(h, users, "scat 1")  # called off: not listed
    assert h.command(GROUP, users[0], "turnier", "ende").ok
    open_tournament(h, users, "schwimmen 1")
    start(h, users[0])
    assert h.command(GROUP, users[1], "turnier", "liste").ok
    assert group_texts(h)[-1] == ("🏆 Die Turniere dieser Gruppe:\n"
                                  "1. Schwimmen · 07.01.2030 · 3 Spieler · läuft")
    play_round(h, users, random.Random(12))
    assert fire_steps(h) == 1
    final = group_texts(h)[-1]
    winners = re.search(r"🥇 (.+) (gewinnt|gewinnen) das Turnier!", final)
    assert winners is not None
    crowned = winners.group(1).split(", ")
    assert h.command(GROUP, users[1], "turnier", "liste").ok
    assert group_texts(h)[-1] == ("🏆 Die Turniere dieser Gruppe:\n"
                                  f"1. Schwimmen · 07.01.2030 · 3 Spieler · 🥇 {', '.join(crowned)}")
    for user in users:
        assert h.command(private(user), user, "stats").ok
        won = 1 if user.name in crowned else 0
        assert private_texts(h, user)[-1].endswith(f"🏆 Turniere: 1 gespielt, {won} gewonnen")


def test_a_round_as_an_english_group_reads_it(h: Harness) -> None:
    boss = UserRef("boss", "Boss", language="en", is_admin=True)
    assert h.command(GROUP, boss, "language", "en").ok
    users = people(3, lang="en")
    greet(h, users)
    open_tournament(h, users, "schwimmen 1 clock=10min late")
    assert group_texts(h)[-1] == ("🏆 Tournament: Schwimmen (31) · 1 round · 10 min\n"
                                  "Starts when Alma presses ▶ Start.\n"
                                  "Late entry until round 2.\n"
                                  "Entered (3): Alma, Bruno, Cem")
    start(h, users[0])
    draw = next(t for t in group_texts(h) if t.startswith("🏆 Round 1 of 1"))
    assert draw.splitlines()[0] == "🏆 Round 1 of 1 – the tables:"
    assert draw.splitlines()[-1] == "You play privately with me: your table comes to your chat."
    play_round(h, users, random.Random(13))
    assert fire_steps(h) == 1
    texts = group_texts(h)
    assert re.match(r"^🏁 Round 1, table 1: \S+ \d(\.5)? · \S+ \d(\.5)? · \S+ \d(\.5)?$",
                    texts[-3]), texts[-3]
    assert texts[-2] == "🏁 Round 1 is over."
    final = texts[-1].splitlines()
    assert final[:3] == ["🏆 Final standings:", "```", "#   Name          Pts  Opp  Game"]
    assert re.match(r"^🥇 .+ wins? the tournament!$", final[-1])
    assert "Finished." in next(t for t in texts if t.startswith("🏆 Tournament:"))
