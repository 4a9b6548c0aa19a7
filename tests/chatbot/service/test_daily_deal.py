"""The daily deal (issue 41): one deal per game and day, the same for everybody; the first try
of a day counts, another is practice; a group's ranking of its members (place, then score,
then time); yesterday's winners posted once in the morning, also after a restart — on
SQLite and PostgreSQL with a simulated clock and time zones."""

from __future__ import annotations

import hashlib
import random
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.buttons import encode
from chatbot.service import UserRef
from chatbot.service.solo.daily import SECRET_KEY, daily_seed, local_day
from storage.db import make_engine, migrate
from storage.models import DailyEntry, KeyValue, Player, Result
from storage.retention import Retention, sweep
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    CAROL,
    GROUP,
    Harness,
    assert_brief_refusal,
    play_private_to_the_end,
    private,
)
from tests.conftest import make_service

EVE = UserRef("eve", "Eve", language="en")


def _daily(h: Harness, user: UserRef, game: str = "schwimmen") -> int:
    out = h.command(private(user), user, "tagesspiel", game)
    assert out.ok and out.table_id, out.text
    return out.table_id


def _secret(h: Harness) -> str:
    with Session(h.engine) as session:
        row = session.get(KeyValue, SECRET_KEY)
        assert row is not None, "the installation's secret is made on the first daily deal"
        return row.value


def test_the_seed_is_the_days_and_the_games() -> None:
    day, key = date(2030, 1, 7), "s3cret"
    assert daily_seed("schwimmen", day, key) == daily_seed("schwimmen", date(2030, 1, 7), key)
    assert daily_seed("schwimmen", day, key) != daily_seed("schwimmen", day + timedelta(days=1),
                                                          key)
    assert daily_seed("schwimmen", day, key) != daily_seed("scat", day, key)
    assert daily_seed("schwimmen", day, key) != daily_seed("schwimmen", day, "other")
    # 23:30 UTC: already tomorrow in Berlin, still today in New York
    late = datetime(2030, 1, 7, 23, 30, tzinfo=UTC)
    assert local_day(ZoneInfo("Europe/Berlin"), late) == date(2030, 1, 8)
    assert local_day(ZoneInfo("America/New_York"), late) == date(2030, 1, 7)


def test_everybody_gets_the_same_cards_and_a_new_deal_the_next_day(h: Harness) -> None:
    a, b = _daily(h, ALICE), _daily(h, BOB)
    ta, tb = h.table(a), h.table(b)
    assert ta.seed == tb.seed == daily_seed("schwimmen", date(2030, 1, 7), _secret(h))
    assert h.state(a).hands == h.state(b).hands and h.state(a).middle == h.state(b).middle
    assert [s.cpu_level for s in h.seats(a)] == [None, "normal", "normal"]
    text = "\n".join(m.text for m in h.messages(private(ALICE)))
    assert "📅 Tagesspiel Schwimmen (2030-01-07): alle bekommen dieselben Karten. " \
           "Dieser Versuch zählt." in text
    for user, table_id in ((ALICE, a), (BOB, b)):
        h.command(private(user), user, "stop")
        assert h.table(table_id).fsm_state in ("finished", "abandoned")
    h.clock.advance(24 * 3600)
    c = _daily(h, ALICE)
    assert h.table(c).seed == daily_seed("schwimmen", date(2030, 1, 8), _secret(h)) != ta.seed


def test_the_day_begins_in_the_persons_time_zone(h: Harness) -> None:
    h.clock.set(datetime(2030, 1, 7, 23, 30, tzinfo=UTC))
    assert h.command(private(EVE), EVE, "start").ok
    with Session(h.engine) as session:
        eve = session.exec(select(Player).where(Player.external_id == "eve")).one()
        eve.time_zone = "America/New_York"
        session.add(eve)
        session.commit()
    berlin, new_york = _daily(h, ALICE), _daily(h, EVE)
    assert h.table(berlin).options["daily"] == "2030-01-08"
    assert h.table(new_york).options["daily"] == "2030-01-07"
    assert h.table(berlin).seed != h.table(new_york).seed


def test_a_second_try_is_practice(h: Harness) -> None:
    first = _daily(h, ALICE)
    play_private_to_the_end(h, first, ALICE, random.Random(5))
    second = _daily(h, ALICE)
    assert h.table(second).options["practice"] == "daily"
    assert h.table(second).seed == h.table(first).seed
    text = "\n".join(m.text for m in h.messages(private(ALICE)))
    assert "dieser Versuch ist Übung und zählt nicht" in text
    with Session(h.engine) as session:
        assert [e.counted for e in session.exec(select(DailyEntry)
                                                .order_by(DailyEntry.id)).all()] == [True, False]
    # refused: a daily deal while a game runs, a game it does not know, a group's button
    assert_brief_refusal(h.command(private(ALICE), ALICE, "daily", "schwimmen"))
    assert_brief_refusal(h.command(private(ALICE), ALICE, "daily", "halma"))
    out = h.press(GROUP, ALICE, encode(0, 0, "dly.schwimmen"))
    assert_brief_refusal(out)
    assert out.text == "Das Tagesspiel wird privat gespielt: schreib mir /tagesspiel."
    assert_brief_refusal(h.press(private(ALICE), ALICE, encode(0, 0, "dly.halma")))


def test_the_groups_ranking_and_the_morning_post(h: Harness) -> None:
    for user in (ALICE, BOB, CAROL):
        assert h.command(GROUP, user, "help").ok  # members of the group
    empty = h.command(GROUP, ALICE, "tagesspiel")
    assert empty.ok
    assert h.messages(GROUP)[-1].text.startswith("📅 Hier hat noch niemand")
    assert h.command(private(ALICE), ALICE, "daily").ok  # which game? (buttons)
    assert "📅 Tagesspiel – alle bekommen dieselben Karten. Welches Spiel?" in \
        h.messages(private(ALICE))[-1].text
    tables = {}
    for i, user in enumerate((ALICE, BOB, CAROL)):
        tables[user.external_id] = _daily(h, user)
        h.clock.advance(60 * (i + 1))
        play_private_to_the_end(h, tables[user.external_id], user, random.Random(10 + i))
    h.command(GROUP, BOB, "tagesspiel")
    ranking = h.messages(GROUP)[-1].text
    lines = ranking.splitlines()
    assert lines[0] == "📅 Tagesspiel (2030-01-07):" and lines[1] == "Schwimmen:"
    with Session(h.engine) as session:  # the expected order, from the stored results
        expected = []
        for user in (ALICE, BOB, CAROL):
            result = session.exec(select(Result).where(
                Result.table_id == tables[user.external_id])).one()
            entry = session.exec(select(DailyEntry).where(
                DailyEntry.table_id == tables[user.external_id])).one()
            mine = result.standings[0]
            place = 1 if 0 in result.winners else 2
            seconds = (result.finished_at - entry.created_at).total_seconds()
            expected.append(((place, -mine["coins"], seconds), user.name))
    names = [name for _key, name in sorted(expected)]
    assert [line.split(" – ")[0] for line in lines[2:]] == \
        [f"{i}. {name}" for i, name in enumerate(names, 1)]
    assert all(" – Platz " in line and ", Stand " in line for line in lines[2:])
    # the next morning (08:00 in Berlin) the group hears yesterday's best, once
    h.clock.set(datetime(2030, 1, 8, 6, 59, tzinfo=UTC))
    assert h.service.post_daily("test") == 0
    h.clock.set(datetime(2030, 1, 8, 7, 0, tzinfo=UTC))
    assert h.service.post_daily("test") == 1
    post = h.messages(GROUP)[-1].text
    assert post.startswith("📅 Tagesspiel von gestern (2030-01-07) – die Besten dieser Gruppe:")
    assert f"Schwimmen: {names[0]} (Platz " in post
    assert h.service.post_daily("test") == 0
    restarted = make_service(h.engine, h.clock)
    assert restarted.post_daily("test") == 0
    h.command(private(ALICE), ALICE, "stats")
    assert "📅 Tagesspiele: 1 gespielt, " in h.messages(private(ALICE))[-1].text


def test_retention_drops_old_practice_tries_and_keeps_the_counted_ones(h: Harness) -> None:
    """The counted tries stay (``/stats`` counts them); practice tries go with the move logs."""
    first = _daily(h, ALICE)
    play_private_to_the_end(h, first, ALICE, random.Random(5))
    _daily(h, ALICE)  # the second try: practice
    h.command(private(ALICE), ALICE, "stop")
    h.clock.advance(40 * 24 * 3600)
    counts = sweep(h.engine, h.clock(), Retention())
    assert counts["daily_entry"] == 1
    with Session(h.engine) as session:
        assert [e.counted for e in session.exec(select(DailyEntry)).all()] == [True]
    h.command(private(ALICE), ALICE, "stats")
    assert "📅 Tagesspiele: 1 gespielt, " in h.messages(private(ALICE))[-1].text


def _other_installation(tmp_path) -> Engine:  # type: ignore[no-untyped-def]
    engine = make_engine(f"sqlite:///{tmp_path / 'elsewhere.db'}")
    migrate(engine)
    return engine


def test_two_installations_deal_different_cards_for_the_same_day(db_engine, tmp_path,
                                                                 clock) -> None:
    """The seed is keyed with each installation's own secret: the same date and game give
    another deal elsewhere, and nobody can compute tomorrow's from the code and the date (the
    old public formula, an empty or a guessed key: none of them is the seed)."""
    here, there = Harness(db_engine, clock), Harness(_other_installation(tmp_path), clock)
    a, b = _daily(here, ALICE), _daily(there, ALICE)
    assert here.table(a).seed != there.table(b).seed
    assert here.state(a).hands != there.state(b).hands
    day = date(2030, 1, 7)
    public = int.from_bytes(hashlib.sha256(
        f"stammtisch-daily:schwimmen:{day.isoformat()}".encode()).digest()[:8], "big") % 2**52
    guesses = {public, daily_seed("schwimmen", day, ""), daily_seed("schwimmen", day, "0" * 64)}
    assert here.table(a).seed not in guesses and there.table(b).seed not in guesses
    assert len(_secret(here)) == 64 and _secret(here) != _secret(there)
    # a second process of the same installation deals the same cards (the secret is shared)
    again = Harness(db_engine, clock)
    assert again.table(_daily(again, BOB)).seed == here.table(a).seed


def test_installations_sharing_a_daily_secret_deal_the_same_cards(db_engine, tmp_path,
                                                                  clock) -> None:
    here = Harness(db_engine, clock, daily_secret="our-league")
    there = Harness(_other_installation(tmp_path), clock, daily_secret="our-league")
    a, b = _daily(here, ALICE), _daily(there, BOB)
    assert here.table(a).seed == there.table(b).seed == \
        daily_seed("schwimmen", date(2030, 1, 7), "our-league")
    with Session(db_engine) as session:
        assert session.get(KeyValue, SECRET_KEY) is None  # (nothing generated)


def test_the_cpus_dice_follow_from_the_secret_deal_alone(db_engine, tmp_path, clock) -> None:
    """The Normal CPUs' dice are drawn from the table's seed (keyed with the installation's
    secret) and version, nothing else: two installations sharing a secret see the same CPU
    moves to the same moves of their person, so the dice are as unknowable as the deal."""
    here = Harness(db_engine, clock, daily_secret="our-league")
    twin = Harness(_other_installation(tmp_path), clock, daily_secret="our-league")
    a, b = _daily(here, ALICE), _daily(twin, BOB)
    play_private_to_the_end(here, a, ALICE, random.Random(5))
    play_private_to_the_end(twin, b, BOB, random.Random(5))

    def log(h: Harness, table_id: int) -> list[tuple[int | None, str, str]]:
        return [(m.seat_no, m.actor, m.code) for m in h.moves(table_id)]

    assert any(actor == "cpu" for _, actor, _ in log(here, a))
    assert log(here, a) == log(twin, b)


def test_a_person_who_hid_their_stats_is_on_no_daily_ranking(h: Harness) -> None:
    """``/stats hide`` keeps a person off every list: the group's daily ranking and the
    morning post leave them out, while their own /stats still counts their tries."""
    for user in (ALICE, BOB):
        assert h.command(GROUP, user, "help").ok
    for i, user in enumerate((ALICE, BOB)):
        table_id = _daily(h, user)
        play_private_to_the_end(h, table_id, user, random.Random(20 + i))
    h.command(private(BOB), BOB, "stats", "hide")
    h.command(GROUP, ALICE, "tagesspiel")
    ranking = h.messages(GROUP)[-1].text
    assert "Alice" in ranking and "Bob" not in ranking
    assert ranking.splitlines()[2].startswith("1. Alice – ")
    h.clock.set(datetime(2030, 1, 8, 7, 0, tzinfo=UTC))
    assert h.service.post_daily("test") == 1
    post = h.messages(GROUP)[-1].text
    assert "Schwimmen: Alice (Platz " in post and "Bob" not in post
    h.command(private(BOB), BOB, "stats")
    assert "📅 Tagesspiele: 1 gespielt, " in h.messages(private(BOB))[-1].text
