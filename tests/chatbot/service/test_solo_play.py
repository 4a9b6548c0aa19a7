"""Playing alone against the CPU (issue 41): the same cards again, the coach's tips and its
review, and the practice games that count for no rating — through the service, on SQLite
and PostgreSQL, texts and buttons as the person sees them (German and English)."""

from __future__ import annotations

import random
import re

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.buttons import encode
from chatbot.service import UserRef
from engine import schwimmen as S
from storage.models import GameTable, StatEntry
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    GROUP,
    Harness,
    assert_brief_refusal,
    is_move,
    new_private_game,
    open_group_table,
    play_private_to_the_end,
    private,
    until_human_moves,
)
from tests.conftest import FakeClock

EVE = UserRef("eve", "Eve", language="en")


def _labels(h: Harness, user: UserRef, table_id: int) -> dict[str, str]:
    """code → label of the buttons the person sees for a table."""
    h.postman.deliver()
    return {d.split(":", 3)[3]: label
            for label, d in h.transport.buttons(private(user).external_id, table_id)}


def _dealt(state: S.State) -> tuple:
    return state.hands, state.middle, state.to_act


def test_same_cards_deal_the_same_hands_and_count_for_nothing(h: Harness) -> None:
    first = new_private_game(h)
    dealt = _dealt(h.state(first))
    seed = h.table(first).seed
    play_private_to_the_end(h, first, ALICE, random.Random(2))
    shown = h.buttons(private(ALICE), first)
    assert _labels(h, ALICE, first)["again.same"] == "🔁 Gleiche Karten"
    out = h.press(private(ALICE), ALICE, shown["again.same"])
    assert out.ok and out.table_id and out.table_id != first
    again = out.table_id
    assert h.table(again).seed == seed
    assert _dealt(h.state(again)) == dealt  # the same cards in the same seats
    assert [(s.seat_no, s.is_cpu, s.cpu_level, s.name) for s in h.seats(again)] == \
        [(s.seat_no, s.is_cpu, s.cpu_level, s.name) for s in h.seats(first)]
    assert h.table(again).options["practice"] == "replay"
    play_private_to_the_end(h, again, ALICE, random.Random(3))
    assert any("Gleiche Karten noch einmal – nicht gewertet." in m.text
               for m in h.messages(private(ALICE)))
    h.command(private(ALICE), ALICE, "stats")
    with Session(h.engine) as session:  # only the first game is in the stats
        rows = session.exec(select(StatEntry)).all()
    assert len(rows) == 1
    # "play again" after the replay deals new cards and counts again
    out = h.press(private(ALICE), ALICE, h.buttons(private(ALICE), again)["again"])
    assert out.ok and h.table(out.table_id).seed != seed  # type: ignore[arg-type]
    assert "practice" not in h.table(out.table_id).options  # type: ignore[arg-type]


def test_same_cards_refused_where_it_makes_no_sense(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    forged = encode(table_id, h.table(table_id).version, "again.same")
    assert_brief_refusal(h.press(private(ALICE), ALICE, forged))  # the game is running
    assert shown
    group_table = open_group_table(h, [ALICE, BOB], start=True)
    h.command(GROUP, ALICE, "stop")
    forged = encode(group_table, h.table(group_table).version, "again.same")
    out = h.press(GROUP, ALICE, forged)
    assert_brief_refusal(out)
    assert out.text == "Gleiche Karten gibt es in privaten Spielen gegen die CPU."


def test_tip_from_the_experte_and_the_review(db_engine: Engine, clock: FakeClock) -> None:
    h = Harness(db_engine, clock, experte_budget=0.05, cpu_workers=0)
    table_id = new_private_game(h)  # against the Anfänger: tips are on
    shown = until_human_moves(h, table_id)
    assert _labels(h, ALICE, table_id)["tip"] == "💡 Tipp"
    out = h.press(private(ALICE), ALICE, shown["tip"])
    assert out.ok, out.text
    hint = h.messages(private(ALICE))[-1].text
    assert hint.startswith("💡 ") and ("Chance" in hint or "einzig sinnvolle" in hint), hint
    table = h.table(table_id)
    assert table.options["practice"] == "hint"
    tip = table.options["tip"]
    assert tip["seat"] == 0 and tip["code"] in {a.code for a in S.legal_actions(h.state(table_id))}
    # the person plays the worst move the search measured: noted for the review
    worst = min(tip["values"], key=tip["values"].get) if tip["values"] else tip["code"]
    assert h.press(private(ALICE), ALICE, shown[worst]).changed
    table = h.table(table_id)
    assert "tip" not in table.options
    clear = tip["values"] and tip["values"][tip["code"]] - tip["values"][worst] >= 0.08
    assert len(table.options.get("notes", [])) == (1 if clear else 0)
    # the review before the round is over: refused; a stale tip press: refused
    assert_brief_refusal(h.press(private(ALICE), ALICE, encode(
        table_id, h.table(table_id).version, "review")))
    assert_brief_refusal(h.press(private(ALICE), ALICE, shown["tip"]))
    play_private_to_the_end(h, table_id, ALICE, random.Random(4))
    labels = _labels(h, ALICE, table_id)
    assert labels["review"] == "🔎 Wo hätte ich besser gespielt?"
    assert h.press(private(ALICE), ALICE, h.buttons(private(ALICE), table_id)["review"]).ok
    _assert_review(h.messages(private(ALICE))[-1].text)
    h.command(private(ALICE), ALICE, "stats")
    with Session(h.engine) as session:
        assert session.exec(select(StatEntry)).all() == []  # a game with tips: not rated


def _assert_review(review: str) -> None:
    """The review as the person reads it: nothing clearly worse, or at most three moves,
    each with its figure and the Experte's, the Experte's at least 8 points of chance
    higher, the worst first."""
    lines = review.splitlines()
    if lines == ["🔎 Keiner deiner Züge in dieser Runde war deutlich schlechter als der des "
                 "Experten."]:
        return
    assert lines[0] == "🔎 Wo du in dieser Runde besser hättest spielen können:", review
    assert 1 <= len(lines) - 1 <= 3
    gaps = []
    for line in lines[1:]:
        match = re.fullmatch(r"• (.+) \((\d+) %\) – besser: (.+) \((\d+) %\)", line)
        assert match, line
        gaps.append(int(match[4]) - int(match[2]))
    assert all(g >= 7 for g in gaps) and gaps == sorted(gaps, reverse=True), gaps


def test_the_review_looks_at_every_move_of_the_round(db_engine: Engine,
                                                     clock: FakeClock) -> None:
    """Without a tip asked, "🔎" has the Experte look again at the round's moves (from the
    seed and the move log); the game stays rated."""
    h = Harness(db_engine, clock, experte_budget=0.05, cpu_workers=0)
    table_id = new_private_game(h)
    chat = private(ALICE)
    for _ in range(200):  # bad moves on purpose: pass, or swap the first card
        shown = h.buttons(chat, table_id)
        if "review" in shown:
            break
        moves = sorted(c for c in shown if is_move(c))
        if not moves:
            h.run_deadlines(table_id)
            continue
        assert h.press(chat, ALICE, shown["pass" if "pass" in moves else moves[0]]).changed
    assert h.table(table_id).fsm_state in ("payout", "finished")
    assert h.press(chat, ALICE, h.buttons(chat, table_id)["review"]).ok
    _assert_review(h.messages(chat)[-1].text)
    assert "practice" not in h.table(table_id).options


def test_tips_in_english_and_off_against_normal(db_engine: Engine, clock: FakeClock) -> None:
    h = Harness(db_engine, clock, experte_budget=0.05, cpu_workers=0)
    h.command(private(EVE), EVE, "language", "en")
    out = h.command(private(EVE), EVE, "new", "schwimmen 2 normal")
    table_id = out.table_id
    assert table_id
    shown = until_human_moves(h, table_id, EVE)
    assert "tip" not in shown  # against Normal tips are an option
    forged = encode(table_id, h.table(table_id).version, "tip")
    out = h.press(private(EVE), EVE, forged)
    assert_brief_refusal(out)
    assert out.text == "Tips are off at this table: /tips turns them on."
    h.command(private(EVE), EVE, "tips")
    assert any(m.text.startswith("💡 Tips are on for this game")
               for m in h.messages(private(EVE)))
    labels = _labels(h, EVE, table_id)
    assert labels["tip"] == "💡 Tip"
    assert h.press(private(EVE), EVE, h.buttons(private(EVE), table_id)["tip"]).ok
    hint = h.messages(private(EVE))[-1].text
    assert "sampled worlds" in hint or "one sensible move" in hint, hint
    assert any(is_move(c) for c in h.buttons(private(EVE), table_id))


def test_tip_refused_at_a_group_table(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    forged = encode(table_id, h.table(table_id).version, "tip")
    out = h.press(GROUP, ALICE, forged)
    assert_brief_refusal(out)
    assert out.text == "Tipps gibt es in privaten Spielen gegen die CPU."
    assert_brief_refusal(h.command(GROUP, ALICE, "tipps"))
    with Session(h.engine) as session:
        assert not session.get(GameTable, table_id).options.get("coach")  # type: ignore[union-attr]
