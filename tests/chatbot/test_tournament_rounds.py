"""A tournament's rounds through the service (issue 48, rules 2, 4 and 5), on SQLite and
PostgreSQL with the fake clock, played in the players' private chats: late entry (seated from
round 2), leaving before the start and during a round (a Normal CPU takes the seat for that
table; not seated again), an administrator taking a person out, ending it early (the tables
scored as they stand), a round's time running out, two games per table and round, a person
whose turns time out twice (the CPU plays for them; their points count)."""

from __future__ import annotations

import random
from datetime import timedelta
from fractions import Fraction

import pytest
from sqlalchemy.engine import Engine

from chatbot.buttons import encode
from engine import GAMES
from tests.chatbot.service.harness import GROUP, Harness, assert_brief_refusal, private
from tests.chatbot.tournaments import (
    ADMIN,
    entrant_states,
    fire_steps,
    game_table,
    greet,
    group_texts,
    menu_buttons,
    open_tournament,
    people,
    play_moves,
    play_round,
    play_table,
    press_tn,
    private_texts,
    scores,
    start,
    tables,
    tournament,
)
from tests.conftest import FakeClock


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(), cpu_delay=0, next_round_delay=0)


def seated(h: Harness, round_no: int | None = None) -> set[int]:
    return {p for r in tables(h, round_no) for p in r.seats if p is not None}


def player_id(h: Harness, name: str) -> int:
    t = tournament(h)
    ids = {s.name: s.player_id for r in tables(h, 1) if r.table_id
           for s in h.seats(r.table_id) if s.player_id}
    assert t is not None and name in ids, name
    return ids[name]  # type: ignore[return-value]


def points_of(h: Harness) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for row in scores(h):
        out[row.player_id] = out.get(row.player_id, Fraction(0)) + Fraction(
            row.points_num, row.points_den)
    return out


def test_late_entry_joins_during_round_one_and_is_seated_from_round_two(h: Harness) -> None:
    users = people(5)
    greet(h, users)
    open_tournament(h, users[:4], "schwimmen 2 nachmeldung")
    assert "Nachmeldung bis Runde 2." in group_texts(h)[-1]
    start(h, users[0])
    assert press_tn(h, users[4], "j").text == "✅ Du bist dabei: du spielst ab Runde 2."
    late = next(e for e in entrant_states(h) if e == "Ede")
    assert late and len(seated(h)) == 4, "round 1 is played by the four who were in"
    assert h.messages(GROUP)[0].labels()[:2] == ["✅ Mitmachen", "❌ Aussteigen"]
    play_round(h, users, random.Random(1))
    assert fire_steps(h) >= 1
    assert tournament(h).round_no == 2
    assert len(seated(h)) == 5  # Ede too: tables of 3 and 2
    assert press_tn(h, users[4], "j").text == "Du bist schon dabei."
    newcomer = people(6)[5]
    greet(h, [newcomer])
    assert press_tn(h, newcomer, "j").text == "Die Anmeldung ist geschlossen."


def test_leaving_before_the_start_is_gone(h: Harness) -> None:
    users = people(3)
    greet(h, users)
    open_tournament(h, users)
    assert press_tn(h, users[1], "l").text == "Du bist aus dem Turnier ausgestiegen."
    assert group_texts(h)[-1].endswith("Dabei (2): Alma, Cem")
    assert "Bruno" not in entrant_states(h)
    h.clock.advance(60)
    assert press_tn(h, users[1], "j").text == "✅ Du bist dabei."  # and may come back
    assert group_texts(h)[-1].endswith("Dabei (3): Alma, Cem, Bruno")


def test_leaving_during_a_round_a_cpu_takes_the_seat_and_no_seat_next_round(
        h: Harness) -> None:
    users = people(6)
    greet(h, users)
    open_tournament(h, users, "schwimmen 2")
    start(h, users[0])
    rng = random.Random(2)
    first = tables(h)[0]
    play_moves(h, first.table_id, users, rng, 3)  # type: ignore[arg-type]
    leaver = next(s for s in h.seats(first.table_id) if s.player_id)  # type: ignore[arg-type]
    user = next(u for u in users if u.name == leaver.name)
    assert press_tn(h, user, "l").text == "Du bist aus dem Turnier ausgestiegen."
    seat = next(s for s in h.seats(first.table_id) if s.seat_no == leaver.seat_no)  # type: ignore[arg-type]
    assert (seat.name, seat.is_cpu, seat.player_id, seat.cpu_level) == (
        f"🤖 {user.name}", True, None, "normal")
    assert private_texts(h, user)[-1] == "Du bist ausgestiegen."
    others = [u for u in users if u.name in {s.name for s in h.seats(first.table_id)}]
    assert f"🚪 {user.name} ist ausgestiegen – eine CPU übernimmt den Platz." in \
        private_texts(h, others[0])
    assert entrant_states(h)[user.name] == "left"
    assert press_tn(h, user, "l").text == "Du bist in diesem Turnier nicht dabei."
    play_round(h, users, rng)
    assert fire_steps(h) >= 1
    assert tournament(h).round_no == 2
    left_id = leaver.player_id
    assert left_id not in seated(h) and len(seated(h)) == 5
    assert all(r.player_id != left_id for r in scores(h)), "the CPU's seat scores nobody"


def test_an_administrator_takes_a_person_out(h: Harness) -> None:
    users = people(4)
    greet(h, users)
    open_tournament(h, users, "schwimmen 2")
    out = h.command(GROUP, users[1], "turnier", "entfernen")
    assert (out.ok, out.text) == (False, "Nur die Admins der Gruppe nehmen Leute aus einem "
                                         "Turnier.")
    start(h, users[0])
    assert h.command(GROUP, ADMIN, "turnier", "entfernen").ok
    assert group_texts(h)[-1] == "Wen aus dem Turnier nehmen?"
    shown = menu_buttons(h)
    assert [lb for m in h.messages(GROUP)[-1:] for lb in m.labels()] == [u.name for u in users]
    cem = next(d for c, d in shown.items() if c.startswith("tn.k.")
               and d == h.messages(GROUP)[-1].data()[2])
    out = h.press(GROUP, users[1], cem)  # not an admin
    assert (out.ok, out.text) == (False, "Nur die Admins der Gruppe nehmen Leute aus einem "
                                         "Turnier.")
    assert h.press(GROUP, ADMIN, cem).ok
    texts = group_texts(h)
    assert texts[-1] == "Cem wurde aus dem Turnier genommen."
    assert "Wen aus dem Turnier nehmen?" not in texts  # the menu went
    assert entrant_states(h)["Cem"] == "removed"
    table_id = tables(h)[0].table_id
    assert "🤖 Cem" in [s.name for s in h.seats(table_id)]  # type: ignore[arg-type]
    out = h.press(GROUP, ADMIN, cem)
    assert (out.ok, out.text) == (False, "Cem ist nicht (mehr) im Turnier.")
    assert press_tn(h, users[2], "j").text == "Die Anmeldung ist geschlossen."
    standings = next(t for t in group_texts(h) if t.startswith("🏆 Turnier"))
    assert "Dabei (3): Alma, Bruno, Dora" in standings


def test_an_administrator_takes_a_person_out_before_the_start_for_good(h: Harness) -> None:
    users = people(3)
    greet(h, users)
    t = open_tournament(h, users)
    assert h.press(GROUP, ADMIN, encode(0, 0, f"tn.k.{t.id}.{_id(h, 'Bruno')}")).ok
    assert group_texts(h)[-2].endswith("Dabei (2): Alma, Cem")
    assert press_tn(h, users[1], "j").text == "Die Anmeldung ist geschlossen."


def _id(h: Harness, name: str) -> int:
    from sqlmodel import Session, select

    from storage.models import Player
    with Session(h.engine) as session:
        person = session.exec(select(Player).where(Player.name == name)).first()
        assert person is not None and person.id is not None
        return person.id


def test_ending_early_scores_the_tables_as_they_stand_and_crowns_the_winner(
        h: Harness) -> None:
    users = people(4)
    greet(h, users)
    open_tournament(h, users, "schwimmen 3", coins=3)
    start(h, users[0])
    table_id = tables(h)[0].table_id
    play_moves(h, table_id, users, random.Random(3), 6)  # type: ignore[arg-type]
    out = h.command(GROUP, users[1], "turnier", "ende")
    assert (out.ok, out.text) == (False, "Ein Turnier beendet, wer es eröffnet hat, oder ein "
                                         "Admin.")
    assert h.command(GROUP, users[0], "turnier", "ende").ok
    t = tournament(h)
    assert (t.state, t.rounds, t.options["planned_rounds"]) == ("finished", 1, 3)  # type: ignore[index]
    assert game_table(h, table_id).fsm_state == "abandoned"
    texts = group_texts(h)
    at = texts.index("🏆 Das Turnier wurde vorzeitig beendet.")
    assert texts[at + 1].startswith("🏁 Runde 1, Tisch 1: ")
    assert texts[at + 2] == ("🏁 Runde 1 ist vorbei.\n(Tisch 1 wurde gewertet, wie er stand, "
                             "als das Turnier beendet wurde)")
    assert texts[at + 3].startswith("🏆 Endstand:") and "das Turnier!" in texts[at + 3]
    assert sum(points_of(h).values()) == 6  # one table of four: 3 + 2 + 1 + 0
    assert h.command(GROUP, users[0], "turnier", "ende").text == \
        "Hier ist gerade kein Turnier offen. /turnier eröffnet eines."


def test_a_rounds_time_running_out_scores_unfinished_tables_as_they_stand(
        h: Harness) -> None:
    users = people(5)
    greet(h, users)
    open_tournament(h, users, "schwimmen 2 zeit=1h uhr=12h", coins=3)
    start(h, users[0])
    t = tournament(h)
    assert t.due_kind == "round_end"
    assert t.due_at is not None and t.round_ends_at is not None
    big, small = tables(h)
    play_table(h, small.table_id, {u.name: u for u in users}, random.Random(4))  # type: ignore[arg-type]
    assert tables(h)[1].state == "done" and tournament(h).due_kind == "round_end"
    play_moves(h, big.table_id, users, random.Random(4), 2)  # type: ignore[arg-type]
    h.clock.advance(1800)
    assert h.service.fire_tournaments() == 0  # half an hour in: nothing due
    h.clock.set(t.round_ends_at + timedelta(seconds=1) if t.round_ends_at.tzinfo
                else t.round_ends_at.replace(tzinfo=h.clock.now.tzinfo))  # type: ignore[union-attr]
    assert h.service.fire_tournaments() == 1
    assert game_table(h, big.table_id).fsm_state == "abandoned"
    texts = group_texts(h)
    assert any(x.startswith("🏁 Runde 1, Tisch 1: ") for x in texts)
    assert ("🏁 Runde 1 ist vorbei.\n(Tisch 1 wurde gewertet, wie er stand, als die Zeit der "
            "Runde ablief)") in texts
    assert any(x.startswith("🏆 Stand nach Runde 1 von 2:") for x in texts)
    assert tournament(h).round_no == 2
    per_table: dict[int, Fraction] = {}
    for row in scores(h):
        per_table[row.table_no] = per_table.get(row.table_no, Fraction(0)) + Fraction(
            row.points_num, row.points_den)
    assert per_table == {1: 3, 2: 1}  # 2 + 1 + 0 and 1 + 0: every seat a person


def test_two_games_per_round_the_next_at_the_same_table(h: Harness) -> None:
    users = people(3)
    greet(h, users)
    open_tournament(h, users, "schwimmen 1 spiele=2")
    start(h, users[0])
    row = tables(h)[0]
    first = row.table_id
    play_table(h, first, {u.name: u for u in users}, random.Random(5))  # type: ignore[arg-type]
    row = tables(h)[0]
    assert row.game_no == 1 and row.state == "playing" and row.table_id != first
    assert sorted(s.player_id for s in h.seats(row.table_id)) == sorted(  # type: ignore[arg-type]
        s.player_id for s in h.seats(first))  # type: ignore[arg-type]
    assert any(t.startswith("🏁 Runde 1, Tisch 1, Spiel 1 von 2: ") for t in group_texts(h))
    play_table(h, row.table_id, {u.name: u for u in users}, random.Random(5))  # type: ignore[arg-type]
    assert any(t.startswith("🏁 Runde 1, Tisch 1, Spiel 2 von 2: ") for t in group_texts(h))
    assert fire_steps(h) == 1
    assert tournament(h).state == "finished"
    assert sorted(r.game_no for r in scores(h)) == [0, 0, 0, 1, 1, 1]
    assert sum(points_of(h).values()) == 6  # two games of three: 3 each


def test_a_person_timing_out_twice_is_played_by_the_cpu_and_their_points_count(
        h: Harness) -> None:
    users = people(3)
    greet(h, users)
    open_tournament(h, users)
    start(h, users[0])
    table_id = tables(h)[0].table_id
    assert table_id is not None
    idle = users[0]  # never moves: each turn of theirs runs out
    group_before = group_texts(h)
    rng = random.Random(6)
    for _ in range(3000):
        table = h.table(table_id)
        if table.fsm_state == "finished":
            break
        on_turn = GAMES[table.game].to_act(GAMES[table.game].from_json(table.state_json))
        names = {s.seat_no: s.name for s in h.seats(table_id)}
        if table.deadline_kind in ("cpu", "next") or names.get(on_turn) == idle.name:
            assert table.next_deadline is not None
            h.clock.set(table.next_deadline)
            h.fire(table_id, table.version)
        else:
            play_moves(h, table_id, users[1:], rng, 1)
    seat = next(s for s in h.seats(table_id) if s.name == idle.name)
    assert seat.away and not seat.is_cpu and seat.player_id is not None
    assert game_table(h, table_id).fsm_state == "finished"
    assert any(t.startswith(f"💤 {idle.name} ist abwesend; die CPU spielt")
               for t in private_texts(h, users[1]))
    points = points_of(h)
    assert seat.player_id in points and sum(points.values()) == 3  # their points count
    new = group_texts(h)[len(group_before):]
    assert not any("abwesend" in t or "zu langsam" in t for t in new)
    assert fire_steps(h) == 1 and tournament(h).state == "finished"


def test_a_stray_remove_or_end_is_answered_when_there_is_no_tournament(h: Harness) -> None:
    users = people(1)
    greet(h, users)
    for word in ("ende", "entfernen"):
        out = h.command(GROUP, ADMIN, "turnier", word)
        assert (out.ok, out.text) == (False, "Hier ist gerade kein Turnier offen. /turnier "
                                             "eröffnet eines.")
        assert_brief_refusal(out)
    assert h.command(private(users[0]), users[0], "turnier").text == \
        "Turniere werden in einer Gruppe gespielt: schick dort /turnier."


def test_a_person_who_leaves_their_table_plays_the_next_round(h: Harness) -> None:
    users = people(4)
    greet(h, users)
    open_tournament(h, users, "schwimmen 2")
    start(h, users[0])
    table_id = tables(h)[0].table_id
    assert table_id is not None
    quitter = users[2]
    for code in ("resign", "resign.y"):  # the table's own "leave", asked first
        version = h.table(table_id).version
        assert h.press(private(quitter), quitter, encode(table_id, version, code)).ok
    assert f"🤖 {quitter.name}" in [s.name for s in h.seats(table_id)]
    assert entrant_states(h)[quitter.name] == "in"  # still in the tournament
    play_round(h, users, random.Random(7))
    assert fire_steps(h) >= 1
    quitter_id = next(s.player_id for s in h.seats(tables(h, 2)[0].table_id)  # type: ignore[arg-type]
                      if s.name == quitter.name)
    assert quitter_id in seated(h, 2)
    assert all(r.player_id != quitter_id for r in scores(h) if r.round_no == 1)


def test_an_administrator_ending_a_table_has_it_scored_as_it_stood(h: Harness) -> None:
    users = people(5)
    greet(h, users)
    open_tournament(h, users, "schwimmen 2")
    start(h, users[0])
    big, small = tables(h)
    for code in (f"grp.end.{big.table_id}", f"grp.endy.{big.table_id}"):
        assert h.press(GROUP, ADMIN, encode(0, 0, code)).ok
    assert game_table(h, big.table_id).fsm_state == "abandoned"
    assert tables(h)[0].state == "done"
    assert any(t.startswith("🏁 Runde 1, Tisch 1: ") for t in group_texts(h))
    assert {r.table_no for r in scores(h)} == {1}  # three people, scored as they stood
    assert sum(points_of(h).values()) == 3
    play_table(h, small.table_id, {u.name: u for u in users}, random.Random(8))  # type: ignore[arg-type]
    assert fire_steps(h) >= 1
    assert tournament(h).round_no == 2


def test_a_person_who_has_their_data_forgotten_leaves_the_tournament(h: Harness) -> None:
    users = people(4)
    greet(h, users)
    open_tournament(h, users, "schwimmen 2")
    start(h, users[0])
    gone = users[3]
    assert h.command(private(gone), gone, "vergessen").ok
    h.postman.deliver()
    asked = [m for m in h.transport.messages(private(gone).external_id)
             if m.text.startswith("⚠️")][-1]
    assert h.press(private(gone), gone, asked.data()[0]).ok  # "🗑 Ja, vergiss mich"
    assert entrant_states(h) == {"Alma": "in", "Bruno": "in", "Cem": "in", "—": "left"}
    announcement = next(t for t in group_texts(h) if t.startswith("🏆 Turnier"))
    assert announcement.endswith("Dabei (3): Alma, Bruno, Cem")
    play_round(h, users[:3], random.Random(9))
    assert fire_steps(h) >= 1
    assert tournament(h).round_no == 2 and len(seated(h)) == 3
