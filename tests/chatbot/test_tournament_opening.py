"""Opening a tournament (issue 48, rule 1) through the service, on SQLite and PostgreSQL with
the fake clock: by the dialogue's buttons and typed in full, the announcement as the group
reads it (German and English) with ✅ Join / ❌ Leave / ▶ Start, pinned; who may open it (the
group's ``organisers``), who may start it (its opener or an administrator), a start at a time
(the step fires then; fewer than two people: called off) or with the next planned evening;
and every refusal: short, clear, changing nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, func, select

from chatbot.buttons import encode
from chatbot.service import ChatRef, UserRef
from storage.db import aware
from storage.models import Outbox, Tournament, TournamentEntrant
from tests.chatbot.evenings import current as current_evening
from tests.chatbot.service.harness import GROUP, Harness, P, assert_brief_refusal, private
from tests.chatbot.tournaments import (
    ADMIN,
    fire_steps,
    greet,
    group_texts,
    join_all,
    menu_buttons,
    open_tournament,
    people,
    press_tn,
    start,
    tables,
    tournament,
)
from tests.conftest import FakeClock

OTHER_GROUP = ChatRef(P, "g-2", "group", "Kegelclub")


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(), cpu_delay=0, next_round_delay=0)


def count(h: Harness, model: type) -> int:
    with Session(h.engine) as session:
        return session.exec(select(func.count()).select_from(model)).one()


def actions(h: Harness, action: str) -> list[Outbox]:
    with Session(h.engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.action == action)).all())


def test_opened_by_the_dialogue_game_rounds_clock_then_announced_and_pinned(h: Harness) -> None:
    users = people(3)
    greet(h, users)
    assert h.command(GROUP, users[0], "turnier").ok
    assert group_texts(h)[-1] == "🏆 Ein Turnier: welches Spiel?"
    shown = menu_buttons(h)
    assert set(shown) == {"tn.g.schwimmen", "tn.g.scat", "tn.g.runfast", "tn.g.climbing"}
    assert h.press(GROUP, users[0], shown["tn.g.schwimmen"]).ok
    assert group_texts(h)[-1] == "🏆 Schwimmen: wie viele Runden?"
    assert [m.labels() for m in h.messages(GROUP)][-1] == ["1", "2", "3", "4", "5"]
    assert h.press(GROUP, users[0], menu_buttons(h)["tn.r.schwimmen.3"]).ok
    assert group_texts(h)[-1] == "🏆 Schwimmen, 3 Runden: wie lange pro Zug?"
    clocks = [c for c in menu_buttons(h) if c.startswith("tn.c.")]
    assert clocks == ["tn.c.schwimmen.3.60", "tn.c.schwimmen.3.600", "tn.c.schwimmen.3.43200",
                      "tn.c.schwimmen.3.86400"]
    assert h.press(GROUP, users[0], menu_buttons(h)["tn.c.schwimmen.3.600"]).ok
    t = tournament(h)
    assert (t.game, t.rounds, t.turn_timeout, t.state) == ("schwimmen", 3, 600, "open")
    shown_now = h.messages(GROUP)
    assert [m.text for m in shown_now] == [
        "🏆 Turnier: Schwimmen · 3 Runden · 10 Min.\n"
        "Beginnt, wenn Alma auf ▶ Starten drückt.\n"
        "Dabei: noch niemand"], "the dialogue's message went, the announcement stays"
    assert shown_now[-1].labels() == ["✅ Mitmachen", "❌ Aussteigen", "▶ Starten"]
    assert [r.slot for r in actions(h, "pin")] == [f"tn{t.id}"]
    join_all(h, users)
    assert group_texts(h)[-1].endswith("Dabei (3): Alma, Bruno, Cem")


def test_opened_typed_with_every_setting(h: Harness) -> None:
    users = people(2)
    greet(h, users)
    out = h.command(GROUP, users[0], "turnier",
                    "Scat 4 Runden uhr=12h spiele=2 zeit=2d start=fr 20:00 nachmeldung")
    assert out.ok, out.text
    t = tournament(h)
    assert (t.game, t.rounds, t.turn_timeout, t.games_per_round, t.round_seconds,
            t.late_entry, t.due_kind) == ("scat", 4, 12 * 3600, 2, 2 * 86400, True, "start")
    # Friday after Monday 7 January 2030, 20:00 in Berlin (UTC+1)
    assert aware(t.starts_at).isoformat() == "2030-01-11T19:00:00+00:00"  # type: ignore[arg-type]
    assert group_texts(h)[-1] == (
        "🏆 Turnier: Einunddreißig (Scat) · 4 Runden · 12 Std.\n"
        "2 Spiele pro Tisch und Runde\n"
        "eine Runde dauert höchstens 2 Tage\n"
        "Beginnt am 11.01. um 20:00.\n"
        "Nachmeldung bis Runde 2.\n"
        "Dabei: noch niemand")


@pytest.mark.parametrize("typed", ["quatsch", "schwimmen 99", "schwimmen uhr=banane",
                                   "schwimmen uhr=0", "schwimmen spiele=9", "schwimmen zeit=1s",
                                   "schwimmen start=gestern", "schwimmen start=fr",
                                   "schwimmen 3 <script>", "schwimmen 3 =", "runfast x=1"])
def test_garbage_typed_is_refused_with_examples_and_changes_nothing(h: Harness,
                                                                    typed: str) -> None:
    users = people(1)
    greet(h, users)
    out = h.command(GROUP, users[0], "turnier", typed)
    assert_brief_refusal(out) if len(out.text or "") <= 160 else None
    assert out.ok is False and out.text is not None
    assert out.text.startswith("Das habe ich nicht verstanden. Beispiele: /turnier schwimmen 3")
    assert count(h, Tournament) == 0


def test_a_start_time_that_passed_is_refused(h: Harness) -> None:
    users = people(1)
    greet(h, users)
    out = h.command(GROUP, users[0], "turnier", "schwimmen start=heute 9:00")  # it is 13:00
    assert (out.ok, out.text) == (False, "Diese Zeit ist schon vorbei.")
    assert count(h, Tournament) == 0


def test_only_admins_open_one_where_the_group_says_so(h: Harness) -> None:
    users = people(2)
    greet(h, users)
    assert h.press(GROUP, ADMIN, encode(0, 0, "grp.org.admins")).ok
    out = h.command(GROUP, users[0], "turnier", "schwimmen 3")
    assert (out.ok, out.text) == (False, "In dieser Gruppe eröffnen nur die Admins Turniere.")
    out = h.command(GROUP, users[0], "turnier")
    assert (out.ok, out.text) == (False, "In dieser Gruppe eröffnen nur die Admins Turniere.")
    for code in ("tn.g.schwimmen", "tn.r.schwimmen.3", "tn.c.schwimmen.3.60"):
        out = h.press(GROUP, users[0], encode(0, 0, code))
        assert (out.ok, out.text) == (False, "In dieser Gruppe eröffnen nur die Admins Turniere.")
    assert count(h, Tournament) == 0
    assert h.command(GROUP, ADMIN, "turnier", "schwimmen 3").ok
    assert tournament(h).opener_id is not None


def test_a_second_tournament_is_refused_while_one_is_open(h: Harness) -> None:
    users = people(2)
    greet(h, users)
    open_tournament(h, users)
    busy = "Hier ist schon ein Turnier offen. /turnier zeigt es."
    assert (h.command(GROUP, users[1], "turnier", "scat 2").text) == busy
    assert h.press(GROUP, users[1], encode(0, 0, "tn.c.scat.2.60")).text == busy
    assert count(h, Tournament) == 1
    # /turnier alone shows the one that is open, anew at the bottom
    assert h.command(GROUP, users[1], "turnier").ok
    assert group_texts(h)[-1].startswith("🏆 Turnier: Schwimmen · 1 Runde")


def test_forged_and_stale_buttons_and_a_press_in_another_group_change_nothing(
        h: Harness) -> None:
    users = people(3)
    greet(h, users)
    t = open_tournament(h, users[:2])
    before = (count(h, Tournament), count(h, TournamentEntrant))
    unknown = "Dieser Knopf gehört nicht zu mir."
    for code in (f"tn.x.{t.id}", "tn.j.abc", "tn.j", f"tn.j.{t.id}.1", f"tn.k.{t.id}.abc",
                 "tn.j.99999", "tn.j.123456789012", "tn.g.poker", "tn.r.schwimmen.7",
                 "tn.c.schwimmen.3.61", "tn.c.schwimmen.x.60", "tn.r.schwimmen"):
        out = h.press(GROUP, users[2], encode(0, 0, code))
        assert out.ok is False and out.text, code
        assert_brief_refusal(out)
    assert h.press(GROUP, users[2], encode(0, 0, "tn.j.99999")).text == unknown
    # this group's tournament pressed in another group, or privately
    assert h.command(private(users[2]), users[2], "start").ok
    for chat in (OTHER_GROUP, private(users[2])):
        out = h.press(chat, users[2], encode(0, 0, f"tn.j.{t.id}"))
        assert (out.ok, out.text) == (False, unknown)
    assert (count(h, Tournament), count(h, TournamentEntrant)) == before
    # once it is over, its buttons are stale
    assert h.command(GROUP, users[0], "turnier", "ende").ok
    for kind in ("j", "l", "s"):
        out = press_tn(h, users[2], kind)
        assert (out.ok, out.text) == (False, "Dieses Turnier ist vorbei.")
    assert tournament(h).state == "cancelled"


def test_joining_needs_a_private_chat_with_the_bot(h: Harness) -> None:
    users = people(2)
    greet(h, users[:1])  # the second never wrote to the bot
    open_tournament(h, users[:1])
    out = press_tn(h, users[1], "j")
    assert (out.ok, out.text) == (
        False, "Schreib mir zuerst privat (/start in unserem Chat): dorthin kommen deine Karten.")
    assert group_texts(h)[-1].endswith("Dabei (1): Alma")
    assert h.command(private(users[1]), users[1], "start").ok
    assert press_tn(h, users[1], "j").text == "✅ Du bist dabei."
    assert group_texts(h)[-1].endswith("Dabei (2): Alma, Bruno")


def test_joining_twice_and_leaving_without_being_in_are_answered(h: Harness) -> None:
    users = people(2)
    greet(h, users)
    open_tournament(h, users[:1])
    assert press_tn(h, users[0], "j").text == "Du bist schon dabei."
    assert press_tn(h, users[1], "l").text == "Du bist in diesem Turnier nicht dabei."


def test_started_only_by_its_opener_or_an_admin(h: Harness) -> None:
    users = people(3)
    greet(h, users)
    open_tournament(h, users[:1])
    assert press_tn(h, users[0], "s").text == "Ein Turnier braucht mindestens zwei Leute."
    join_all(h, users[1:])
    out = press_tn(h, users[1], "s")
    assert (out.ok, out.text) == (False, "Das Turnier startet, wer es eröffnet hat, oder ein Admin.")
    assert tournament(h).state == "open"
    assert press_tn(h, ADMIN, "s").ok
    assert tournament(h).state == "running"
    assert press_tn(h, users[0], "s").text == "Schon erledigt."
    # entry closed with the start (no late entry)
    assert h.command(private(ADMIN), ADMIN, "start").ok
    assert press_tn(h, ADMIN, "j").text == "Die Anmeldung ist geschlossen."
    assert [m.labels() for m in h.messages(GROUP) if m.text.startswith("🏆 Turnier")][-1] \
        == ["❌ Aussteigen"]


def test_started_by_its_opener_draws_round_one_and_tells_the_group(h: Harness) -> None:
    users = people(5)
    greet(h, users)
    open_tournament(h, users, "schwimmen 2")
    start(h, users[0])
    texts = group_texts(h)
    draw = next(t for t in texts if t.startswith("🏆 Runde 1 von 2 – die Tische:"))
    lines = draw.splitlines()
    assert len(lines) == 4 and lines[1].startswith("1. ") and lines[2].startswith("2. ")
    assert lines[3] == "Ihr spielt privat mit mir: euer Tisch kommt in euren Chat."
    seated = sorted(n for line in lines[1:3] for n in line[3:].split(", "))
    assert seated == sorted(u.name for u in users)  # 3 + 2, no CPU
    assert [len([p for p in r.seats if p]) for r in tables(h)] == [3, 2]
    announcement = next(t for t in texts if t.startswith("🏆 Turnier"))
    assert "Runde 1 von 2 läuft." in announcement


def test_a_start_at_a_time_fires_then_on_the_clock(h: Harness) -> None:
    users = people(3)
    greet(h, users)
    open_tournament(h, users, "schwimmen 1 start=20:00")
    t = tournament(h)
    assert group_texts(h)[-1].splitlines()[1] == "Beginnt am 07.01. um 20:00."
    assert [lb for m in h.messages(GROUP) for lb in m.labels()] == ["✅ Mitmachen",
                                                                    "❌ Aussteigen", "▶ Starten"]
    h.clock.set(aware(t.due_at) - timedelta(seconds=1))  # type: ignore[arg-type]
    assert h.service.fire_tournaments() == 0
    assert tournament(h).state == "open"
    h.clock.set(aware(t.due_at))  # type: ignore[arg-type]
    assert h.service.fire_tournaments() == 1
    assert tournament(h).state == "running" and tournament(h).round_no == 1
    assert len(tables(h)) == 1
    assert h.service.fire_tournaments() == 0  # once


def test_a_start_at_a_time_with_fewer_than_two_people_is_called_off(h: Harness) -> None:
    users = people(1)
    greet(h, users)
    open_tournament(h, users, "schwimmen 1 start=20:00")
    assert fire_steps(h) == 1
    t = tournament(h)
    assert t.state == "cancelled" and t.due_at is None
    texts = group_texts(h)
    assert texts[-1] == "🏆 Das Turnier wurde abgesagt: weniger als zwei Leute haben sich " \
                        "gemeldet."
    assert "Abgesagt." in texts[0]
    assert [r.slot for r in actions(h, "unpin")] == [f"tn{t.id}"]
    assert h.command(GROUP, users[0], "turnier", "schwimmen 1").ok  # a new one may open


def test_a_start_tied_to_the_next_planned_evening(h: Harness) -> None:
    users = people(2)
    greet(h, users)
    out = h.command(GROUP, users[0], "turnier", "schwimmen start=abend")
    assert (out.ok, out.text) == (False, "Hier ist kein Abend geplant: /abend plant einen.")
    assert h.command(GROUP, users[0], "abend", "fr 19:30").ok
    evening = current_evening(h)
    open_tournament(h, users, "schwimmen 1 start=abend")
    t = tournament(h)
    assert aware(t.starts_at) == aware(evening.starts_at)  # type: ignore[arg-type]
    assert t.options == {"evening": evening.id, "engine": {"coins": 1}}
    assert "Beginnt mit dem Stammtisch-Abend, 11.01. um 19:30." in group_texts(h)[-1]
    assert fire_steps(h) == 1
    assert tournament(h).state == "running"


def test_a_start_tied_to_an_evening_follows_it_when_it_is_called_off(h: Harness) -> None:
    users = people(2)
    greet(h, users)
    assert h.command(GROUP, users[0], "abend", "fr 19:30").ok
    open_tournament(h, users, "schwimmen 1 start=abend")
    assert h.command(GROUP, users[0], "abend", "absagen").ok
    assert fire_steps(h) == 1
    assert tournament(h).state == "cancelled"
    assert group_texts(h)[-1] == "🏆 Das Turnier wurde mit dem Abend abgesagt."


def test_the_announcement_in_english(h: Harness) -> None:
    boss = UserRef("boss", "Boss", language="en", is_admin=True)
    assert h.command(GROUP, boss, "language", "en").ok
    users = people(2, lang="en")
    greet(h, users)
    assert h.command(GROUP, users[0], "tournament").ok
    assert group_texts(h)[-1] == "🏆 A tournament: which game?"
    assert h.press(GROUP, users[0], menu_buttons(h)["tn.g.runfast"]).ok
    assert group_texts(h)[-1] == "🏆 Run Fast (Pao De Kuai): how many rounds?"
    assert h.press(GROUP, users[0], menu_buttons(h)["tn.r.runfast.1"]).ok
    assert group_texts(h)[-1] == "🏆 Run Fast (Pao De Kuai), 1 round: how long per turn?"
    assert h.press(GROUP, users[0], menu_buttons(h)["tn.c.runfast.1.86400"]).ok
    join_all(h, users)
    assert group_texts(h)[-1] == ("🏆 Tournament: Run Fast (Pao De Kuai) · 1 round · 24 h\n"
                                  "Starts when Alma presses ▶ Start.\n"
                                  "Entered (2): Alma, Bruno")
    assert h.messages(GROUP)[-1].labels() == ["✅ Join", "❌ Leave", "▶ Start"]
    assert press_tn(h, users[1], "s").text == \
        "The tournament is started by whoever opened it, or an admin."
    assert h.command(GROUP, users[1], "tournament", "scat").text == \
        "A tournament is open here already. /tournament shows it."
    assert h.command(OTHER_GROUP, users[1], "tournament", "nonsense").text == (
        "I didn't understand that. Examples: /tournament schwimmen 3 · /tournament runfast 2 "
        "clock=12h start=fri 20:00 · /tournament list")


def test_its_buttons_typed_join_leave_start(h: Harness) -> None:
    users = people(3)
    greet(h, users)
    open_tournament(h, users[:1])
    assert h.command(GROUP, users[1], "turnier", "mitmachen").text == "✅ Du bist dabei."
    assert h.command(GROUP, users[2], "turnier", "mitmachen").text == "✅ Du bist dabei."
    assert h.command(GROUP, users[2], "turnier", "aussteigen").text == \
        "Du bist aus dem Turnier ausgestiegen."
    out = h.command(GROUP, users[1], "turnier", "start")
    assert (out.ok, out.text) == (False, "Das Turnier startet, wer es eröffnet hat, oder ein Admin.")
    assert h.command(GROUP, users[0], "turnier", "start").ok
    assert tournament(h).state == "running"
    assert h.command(OTHER_GROUP, users[0], "turnier", "mitmachen").text == \
        "Hier ist gerade kein Turnier offen. /turnier eröffnet eines."
