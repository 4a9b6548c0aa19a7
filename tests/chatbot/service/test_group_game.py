"""The application service end to end: group games never show a hand card in the group.

Every test that touches the database runs on SQLite and on PostgreSQL (``db_engine``). Time is
a ``FakeClock``; deadlines are fired through ``due``/``fire_due`` like the scheduler does.
The harness is in ``harness.py`` beside this module, the fixtures in its ``conftest.py``.
"""

from __future__ import annotations

import random

import pytest
from sqlmodel import Session, col, select

from chatbot.service import UserRef
from engine import schwimmen as S
from storage.models import Outbox, Player
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    CAROL,
    GROUP,
    Harness,
    P,
    assert_brief_refusal,
    assert_finished_and_replayable,
    is_move,
    max_outbox_id,
    open_group_table,
    pick,
    private,
    until_a_turn_in_group,
)
from tests.conftest import card_symbols


class LeakWatch:
    """After every step: no group message may show a card that sits in someone's hand."""

    def __init__(self, h: Harness, table_id: int, users: list[UserRef]) -> None:
        self.h, self.table_id, self.users = h, table_id, users
        self.last_id = 0
        self.group_rows = 0
        self.group_cards_seen: set[str] = set()
        self.private_rows = 0

    def __call__(self) -> None:
        table = self.h.table(self.table_id)
        if table.state_json is None:
            return
        state = S.from_json(table.state_json)
        hidden = {c.symbol for c in S.hidden_cards(state)}
        in_hands = {c.symbol for hand in state.hands for c in hand}
        seat_of = {s.player_id: s.seat_no for s in self.h.seats(self.table_id)}
        with Session(self.h.engine) as session:
            rows = session.exec(select(Outbox).where(Outbox.id > self.last_id)
                                .order_by(col(Outbox.id))).all()
            players = {p.private_chat_id: p.id for p in session.exec(select(Player)).all()}
        for row in rows:
            self.last_id = max(self.last_id, row.id)  # type: ignore[type-var]
            seen = card_symbols("\n".join([row.text] + [b[0] for r in row.buttons or []
                                                        for b in r]))
            if row.chat_external_id == GROUP.external_id:
                self.group_rows += 1
                self.group_cards_seen |= seen
                leaked = seen & hidden & in_hands
                assert not leaked, f"group message shows hand cards {leaked}:\n{row.text}"
            elif row.chat_external_id in players:
                seat = seat_of.get(players[row.chat_external_id])
                if seat is None or state.phase in (S.PAYOUT, S.FINISHED):
                    continue
                self.private_rows += 1
                own = {c.symbol for c in state.hands[seat]}
                leaked = seen & (hidden - own)
                assert not leaked, f"private view of seat {seat} shows {leaked}:\n{row.text}"


def play_group_to_the_end(h: Harness, table_id: int, users: list[UserRef], rng: random.Random,
                          max_steps: int = 3_000) -> None:
    by_seat = {s.seat_no: next(u for u in users if u.name == s.name) for s in h.seats(table_id)}
    for _ in range(max_steps):
        h.run_deadlines(table_id, kinds=("next", "cpu"))
        table = h.table(table_id)
        if table.fsm_state == "finished":
            return
        state = h.state(table_id)
        user = by_seat[state.to_act]
        assert table.deadline_kind == "remind"  # people on turn have a clock in groups
        shown = h.buttons(private(user), table_id)
        moves = sorted(c for c in shown if is_move(c))
        assert set(moves) == {a.code for a in S.legal_actions(state)}
        for other in users:  # nobody else has move buttons
            if other is not user:
                assert not any(is_move(c) for c in h.buttons(private(other), table_id))
        assert not any(is_move(c) for c in h.buttons(GROUP, table_id))
        out = h.press(private(user), user, shown[pick(moves, rng)])
        assert out.ok and out.changed, out.text
    raise AssertionError("the game did not end")


def test_group_game_never_shows_hand_cards_in_the_group(h: Harness) -> None:
    users = [ALICE, BOB, CAROL]
    watch = LeakWatch(h, 0, users)
    for user in users:
        assert h.command(private(user), user, "start").ok
    out = h.command(GROUP, ALICE, "new", "schwimmen")
    table_id = watch.table_id = out.table_id  # type: ignore[assignment]
    h.on_step = watch
    for user in users[1:]:
        assert h.press(GROUP, user, h.buttons(GROUP, table_id)["join"]).changed
    assert_brief_refusal(h.press(GROUP, BOB, h.buttons(GROUP, table_id)["join"]))  # twice
    out = h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["start"])
    assert out.ok and out.changed
    assert [s.name for s in h.seats(table_id)] == ["Alice", "Bob", "Carol"]
    assert h.table(table_id).turn_timeout == 60
    play_group_to_the_end(h, table_id, users, random.Random(2))
    assert_finished_and_replayable(h, table_id)
    assert watch.group_rows > 20 and watch.private_rows > 20
    assert len(watch.group_cards_seen) > 8, "the group saw the middle and the showdowns"
    assert {m.actor for m in h.moves(table_id)} == {"player", "system"}
    assert any("Gewinner" in m.text for m in h.messages(GROUP))


def test_leak_watch_catches_a_leak(h: Harness) -> None:
    """The watch itself works: a hand card written to the group is caught."""
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    until_a_turn_in_group(h, table_id)  # (a round that ended on the deal)
    watch = LeakWatch(h, table_id, [ALICE, BOB])
    watch.last_id = max_outbox_id(h)
    watch()
    state = h.state(table_id)
    assert state.phase == S.TURN
    card = state.hands[0][0].symbol
    with Session(h.engine) as session, session.begin():
        session.add(Outbox(platform=P, chat_external_id=GROUP.external_id, text=f"psst: {card}",
                           not_before=h.clock(), created_at=h.clock()))
    with pytest.raises(AssertionError, match="group message shows hand cards"):
        watch()
