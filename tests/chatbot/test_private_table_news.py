"""A group table played in its people's private chats (a tournament's in a group without
topics) tells each of them privately what a group table would tell the group — a timeout, a
round's result. On a long clock that news is kept out of a person's quiet hours (their view,
edited in place, and the table's log show it all the same), as a long game's reminders are;
what a person made happen themselves still reaches them. On SQLite and PostgreSQL."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from chatbot.buttons import encode
from chatbot.service import UserRef
from engine import GAMES
from storage.models import Outbox
from tests.chatbot.service.harness import Harness, private
from tests.chatbot.tournaments import greet, open_tournament, start, tables
from tests.conftest import FakeClock

ALMA = UserRef("q1", "Alma", language="de")  # Berlin: quiet 23:00-08:00 (22:00-07:00 UTC)
CLEO = UserRef("q2", "Cleo", language="en")  # London: quiet 23:00-08:00 (UTC in winter)


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(datetime(2030, 1, 7, 10, 30, tzinfo=UTC)), cpu_delay=0,
                   next_round_delay=0)


def _news(h: Harness, user: UserRef, since: int) -> list[str]:
    """The one-off messages (no view: no slot) queued for a person's private chat since."""
    with Session(h.engine) as session:
        return [r.text for r in session.exec(select(Outbox).where(
            Outbox.chat_external_id == private(user).external_id, col(Outbox.id) > since,
            col(Outbox.slot).is_(None)).order_by(col(Outbox.id))).all()]


def _last_id(h: Harness) -> int:
    with Session(h.engine) as session:
        return session.exec(select(Outbox.id).order_by(col(Outbox.id).desc())).first() or 0


def _move(h: Harness, table_id: int, user: UserRef, rng: random.Random) -> None:
    table = h.table(table_id)
    code = rng.choice([a.code for a in GAMES[table.game].legal_actions(h.state(table_id))
                       if a.code != "knock"])
    assert h.press(private(user), user, encode(table_id, table.version, code)).ok


def _run_out(h: Harness, table_id: int) -> None:
    """The turn's clock runs out: its reminders and its end fired (the clock moved to each)."""
    moves = len(h.moves(table_id))
    while len(h.moves(table_id)) == moves:
        table = h.table(table_id)
        assert table.deadline_kind in ("remind", "nudge", "timeout"), table.deadline_kind
        h.clock.set(max(h.clock.now, table.next_deadline))  # type: ignore[type-var]
        assert h.fire(table_id, table.version)


def _on_turn(h: Harness, table_id: int) -> UserRef:
    table = h.table(table_id)
    seat_no = GAMES[table.game].to_act(GAMES[table.game].from_json(table.state_json))
    name = next(s.name for s in h.seats(table_id) if s.seat_no == seat_no)
    return ALMA if name == "Alma" else CLEO


def test_a_long_clock_private_tables_news_stays_out_of_a_persons_quiet_hours(h: Harness) -> None:
    greet(h, [ALMA, CLEO])
    open_tournament(h, [ALMA, CLEO], "schwimmen 1 uhr=12h", coins=3)
    start(h, ALMA)
    table_id = tables(h)[0].table_id
    assert table_id is not None
    rng = random.Random(3)
    while _on_turn(h, table_id) != CLEO:  # (Alma moves at once: Cleo's turn begins at 10:30)
        _move(h, table_id, ALMA, rng)
    # Cleo's turn ends at 22:30 UTC: 23:30 for Alma (quiet), 22:30 for Cleo (not)
    since = _last_id(h)
    _run_out(h, table_id)
    assert h.clock.now == datetime(2030, 1, 7, 22, 30, tzinfo=UTC)
    # Cleo hears it once, in her own words (not the table's news of it as well)
    assert _news(h, CLEO, since) == [
        "⌛ Your time at Schwimmen (31) in Stammtisch ran out – a stand-in played your turn."]
    assert not [t for t in _news(h, ALMA, since) if t.startswith("⌛")]
    assert h.moves(table_id)[-1].actor == "timeout"
    # the round played on at 22:40 UTC (knocking where one may): its result reaches Cleo,
    # and Alma only if her own move ended it
    h.clock.set(datetime(2030, 1, 7, 22, 40, tzinfo=UTC))
    since, last = _last_id(h), None
    while GAMES["schwimmen"].phase(h.state(table_id)) not in ("payout", "finished"):
        last = _on_turn(h, table_id)
        table = h.table(table_id)
        codes = [a.code for a in GAMES["schwimmen"].legal_actions(h.state(table_id))]
        code = "knock" if "knock" in codes else codes[0]
        assert h.press(private(last), last, encode(table_id, table.version, code)).ok
    assert [t for t in _news(h, CLEO, since) if t.startswith("Round ")]
    assert bool([t for t in _news(h, ALMA, since) if t.startswith("Runde ")]) == (last == ALMA)
    h.run_deadlines(table_id, kinds=("next",))
    # in the daytime both hear a timeout
    h.clock.set(datetime(2030, 1, 8, 9, 0, tzinfo=UTC))
    who = _on_turn(h, table_id)
    since = _last_id(h)
    _run_out(h, table_id)
    name = who.name
    told = {"de": f"⌛ {name} war zu langsam – die CPU hat für {name} gezogen.",
            "en": f"⌛ {name} ran out of time – the CPU moved for {name}."}
    own = {"de": "⌛ Deine Zeit bei Schwimmen in „Stammtisch“ ist abgelaufen – eine Vertretung "
                 "hat deinen Zug gespielt.",
           "en": "⌛ Your time at Schwimmen (31) in Stammtisch ran out – a stand-in played your "
                 "turn."}
    for person, lang in ((ALMA, "de"), (CLEO, "en")):
        news = _news(h, person, since)
        if person == who:  # in their own words only
            assert own[lang] in news and told[lang] not in news, news
        else:
            assert told[lang] in news, news
