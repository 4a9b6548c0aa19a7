"""The coach thinks only for the person it is for (issue 47, finding 2): the seat, the chat
and the table's version are checked before any search; one question per person at a time (the
next is answered "one moment" and thinks nothing); the review of a round is thought once and
kept; a forged or stale "🔎" thinks nothing — on SQLite and PostgreSQL, the Experte's thinking
counted where it happens (``Decisions.advise``/``advise_many``)."""

from __future__ import annotations

from sqlalchemy.engine import Engine

from chatbot.buttons import encode
from chatbot.service import UserRef
from chatbot.service.solo.coach import THINKING
from tests.chatbot.service.harness import (
    ALICE,
    MALLORY,
    Harness,
    assert_brief_refusal,
    is_move,
    new_private_game,
    private,
)
from tests.conftest import FakeClock

EVE = UserRef("eve", "Eve", language="en")


def _counting(h: Harness) -> list[str]:
    """Every search the Experte is asked for, by kind (the real searches still run)."""
    asked: list[str] = []
    decisions = h.service.decisions
    advise, advise_many = decisions.advise, decisions.advise_many

    def counted_advise(*args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append("tip")
        return advise(*args, **kwargs)

    def counted_many(*args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append("review")
        return advise_many(*args, **kwargs)

    decisions.advise, decisions.advise_many = counted_advise, counted_many  # type: ignore[method-assign]
    return asked


def _to_the_rounds_end(h: Harness, table_id: int) -> dict[str, str]:
    chat = private(ALICE)
    for _ in range(200):
        shown = h.buttons(chat, table_id)
        if "review" in shown:
            return shown
        moves = sorted(c for c in shown if is_move(c))
        if not moves:
            h.run_deadlines(table_id)
            continue
        assert h.press(chat, ALICE, shown["pass" if "pass" in moves else moves[0]]).changed
    raise AssertionError("the round did not end")


def test_a_strangers_tip_thinks_nothing_and_changes_nothing(db_engine: Engine,
                                                            clock: FakeClock) -> None:
    h = Harness(db_engine, clock, experte_budget=0.05, cpu_workers=0)
    asked = _counting(h)
    table_id = new_private_game(h)  # Alice's, against the Anfänger: tips are on
    shown = h.buttons(private(ALICE), table_id)
    if "tip" not in shown:  # (a CPU is on turn first)
        h.run_deadlines(table_id)
        shown = h.buttons(private(ALICE), table_id)
    before = (h.table(table_id).version, dict(h.table(table_id).options))
    for chat in (private(MALLORY), private(ALICE)):  # his own chat, or Alice's chat id
        for _ in range(10):
            assert_brief_refusal(h.press(chat, MALLORY, shown["tip"]))
    assert asked == []
    assert (h.table(table_id).version, dict(h.table(table_id).options)) == before
    # Alice herself: one search, and her tip
    assert h.press(private(ALICE), ALICE, shown["tip"]).ok
    assert asked == ["tip"]


def test_one_question_per_person_at_a_time(db_engine: Engine, clock: FakeClock) -> None:
    h = Harness(db_engine, clock, experte_budget=0.05, cpu_workers=0)
    asked = _counting(h)
    table_id = new_private_game(h)
    shown = h.buttons(private(ALICE), table_id)
    if "tip" not in shown:
        h.run_deadlines(table_id)
        shown = h.buttons(private(ALICE), table_id)
    with THINKING.one_at_a_time(private(ALICE), ALICE) as free:  # her last question, thinking
        assert free
        out = h.press(private(ALICE), ALICE, shown["tip"])
        assert not out.ok and out.text == "Einen Moment – ich denke noch über deine letzte " \
                                          "Frage nach."
        assert asked == []
    assert h.press(private(ALICE), ALICE, shown["tip"]).ok and asked == ["tip"]


def test_the_review_of_a_round_is_thought_once_and_kept(db_engine: Engine,
                                                        clock: FakeClock) -> None:
    h = Harness(db_engine, clock, experte_budget=0.05, cpu_workers=0)
    asked = _counting(h)
    table_id = new_private_game(h)
    shown = _to_the_rounds_end(h, table_id)
    chat = private(ALICE)
    assert h.press(chat, ALICE, shown["review"]).ok
    first = h.messages(chat)[-1].text
    assert h.press(chat, ALICE, shown["review"]).ok
    assert asked == ["review"] and h.messages(chat)[-1].text == first
    # a stranger, or a review at another version, thinks nothing and changes nothing
    assert_brief_refusal(h.press(private(MALLORY), MALLORY, shown["review"]))
    version = h.table(table_id).version
    assert_brief_refusal(h.press(chat, ALICE, encode(table_id, version - 1, "review")))
    assert_brief_refusal(h.press(private(MALLORY), MALLORY, encode(table_id, version + 1,
                                                                     "review")))
    assert asked == ["review"] and h.table(table_id).version == version
