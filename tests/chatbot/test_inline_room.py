"""The inline room on the service (SQLite and PostgreSQL): an inline message's table is made
exactly once whichever of the chosen result and the first press comes first and however
often; the personal results page by 50 with ids of at most 64 bytes; a chosen move is
checked like a press; an invitation's button counts only in an inline message."""

from __future__ import annotations

from sqlmodel import Session, select

from chatbot import buttons
from chatbot.service import ChatRef, UserRef, inline_chat
from storage.models import GameTable
from tests.conftest import make_service

ANNA = UserRef("5101", "Anna", language="de")
BEN = UserRef("5102", "Ben", language="en")
CARL = UserRef("5103", "Carl", language="de")
SEED = 3


def _tables(service) -> list[GameTable]:
    with service.tx.read() as session:
        return list(session.exec(select(GameTable)).all())


def test_an_inline_message_gets_one_table_whatever_comes_first_and_however_often(
        db_engine, clock) -> None:
    service = make_service(db_engine, clock)
    join = buttons.encode(0, 0, "inv.schwimmen.2")
    chat = inline_chat("telegram", "IM-1")
    assert service.press(chat, BEN, join, "u1").text == "You're in."  # the first press
    service.inline_chosen("telegram", ANNA, "g.schwimmen.2", "IM-1", "u2")  # then the choice
    service.inline_chosen("telegram", ANNA, "g.schwimmen.2", "IM-1", "u2")  # repeated
    service.inline_chosen("telegram", ANNA, "g.schwimmen.2", "IM-1", "u3")  # again
    tables = _tables(service)
    assert len(tables) == 1 and tables[0].fsm_state != "lobby"  # full at two: started
    # the invitation's button elsewhere, or for no offer, is refused
    group = ChatRef("telegram", "-77", "group", "Stammtisch")
    assert service.press(group, CARL, join, "u4").text == \
        "Dieser Knopf gehört zu einer Einladung, die über den Bot gepostet wurde."
    # (the inline message speaks the language of whoever made its table: Ben's)
    assert service.press(chat, CARL, buttons.encode(0, 0, "inv.schwimmen.7"), "u5").text \
        == "That button isn't one of mine."
    assert service.press(chat, CARL, join, "u6").text == \
        "This table's game is already under way."
    assert len(_tables(service)) == 1


def test_hands_and_moves_page_by_fifty_and_a_chosen_move_is_checked_like_a_press(
        db_engine, clock) -> None:
    service = make_service(db_engine, clock)
    people = [UserRef(str(5200 + i), f"P{i}", language="en") for i in range(4)]
    for i, person in enumerate(people):
        service.inline_chosen("telegram", person, "g.climbing.4", "IM-2", f"c{i}") if i == 0 \
            else service.press(inline_chat("telegram", "IM-2"), person,
                               buttons.encode(0, 0, "inv.climbing.4"), f"p{i}")
        if i == 0:  # a deal known to come to a lead of more than 49 plays in time
            with Session(db_engine) as session, session.begin():
                session.exec(select(GameTable)).one().seed = SEED
    table = _tables(service)[0]
    for _ in range(400):  # moves (exchanges, plays, rounds) until a list needs two pages
        table = _tables(service)[0]
        answers = {p.name: service.inline_query("telegram", p, f"#{table.id}") for p in people}
        for answer in answers.values():
            assert answer.personal and answer.results[0].id.startswith("h.")
            assert all(len(r.id.encode()) <= 64 for r in answer.results)
            assert len(answer.results) <= 50
        mover = next((p for p in people if len(answers[p.name].results) > 1), None)
        if mover is None:  # between rounds: the next one is dealt
            service.press(inline_chat("telegram", "IM-2"), people[0],
                          buttons.encode(table.id, table.version, "next"), f"n{_}")
            continue
        answer = answers[mover.name]
        if answer.next_offset:
            break
        assert service.inline_chosen("telegram", mover, answer.results[1].id, None,
                                     f"m{_}").ok
    assert answer.next_offset == "50", "no list of moves long enough for a second page"
    pages, offset = [answer], answer.next_offset
    while offset:
        pages.append(service.inline_query("telegram", mover, f"#{table.id}", offset))
        offset = pages[-1].next_offset
    moves = [r for page in pages for r in page.results if r.id.startswith("m.")]
    assert len({r.id for r in moves}) == len(moves)
    assert len(moves) > 50 and not pages[1].results[0].id.startswith("h.")
    narrow = service.inline_query("telegram", mover, f"#{table.id} pass")
    assert narrow.results[0].id.startswith("h.") and len(narrow.results) < len(moves)
    assert all("pass" in r.title.lower() for r in narrow.results[1:])
    # filtered by words, and a stranger sees no cards
    assert service.inline_query("telegram", CARL, f"#{table.id}").results[0].id == "h"
    stale = moves[0].id.replace(f".{table.version}.", f".{table.version + 1}.", 1)
    assert service.inline_chosen("telegram", mover, stale, None, "s1").ok is False
    other = next(p for p in people if p is not mover)
    assert service.inline_chosen("telegram", other, moves[0].id, None, "s2").ok is False
    before = _tables(service)[0].version
    assert service.inline_chosen("telegram", mover, moves[0].id, None, "s3").ok
    assert _tables(service)[0].version > before
    assert service.inline_chosen("telegram", mover, moves[0].id, None, "s4").ok is False
