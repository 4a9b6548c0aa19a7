"""The one helper for a deal that ends at once (``tests.dealing``): it deals on until a turn,
gives up with a clear message, and gets a real table whose first deal is a 31 to a turn."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from chatbot.service import ChatRef, Service, Settings, UserRef
from engine import GAMES
from storage.models import GameTable
from tests import dealing
from tests.chatbot.service.harness import ALICE, BOB, GROUP, Harness, until_a_turn_in_group
from tests.conftest import FakeClock


def test_it_deals_on_until_a_turn_and_counts_seat_zero_as_one() -> None:
    turns = iter([None, False, [], 0])
    dealt: list[int] = []
    assert dealing.until_a_turn(lambda: next(turns), lambda: dealt.append(1)) == 0
    assert len(dealt) == 3


def test_it_gives_up_after_its_rounds() -> None:
    dealt: list[int] = []
    with pytest.raises(AssertionError, match="nobody on turn after 10 deals"):
        dealing.until_a_turn(lambda: None, lambda: dealt.append(1))
    assert len(dealt) == dealing.ROUNDS


def _a_31_on_the_deal(engine: Engine, table_id: int) -> None:
    """The lobby's seed replaced by one whose first deal ends the round at once."""
    game = GAMES["schwimmen"]
    with Session(engine) as session, session.begin():
        table = session.get(GameTable, table_id)
        assert table is not None
        options = (table.options or {}).get("engine") or {}
        table.seed = next(k for k in range(10_000)
                          if game.to_act(game.new_game(2, options, k)) is None)
        session.add(table)


def test_a_group_table_whose_first_deal_is_a_31_gets_to_a_turn(sqlite_engine: Engine) -> None:
    service = Service(sqlite_engine, Settings(cpu_delay=0), clock=FakeClock())
    group = ChatRef("test", "g-31", "group", "Einunddreißig")
    ann, ben = UserRef("ann", "Ann"), UserRef("ben", "Ben")
    for user in (ann, ben):
        assert service.command(ChatRef("test", f"p-{user.external_id}"), user, "start").ok
    table_id = service.command(group, ann, "new", "schwimmen").table_id
    assert table_id
    _a_31_on_the_deal(sqlite_engine, table_id)
    for user, code in ((ben, "join"), (ann, "start")):
        version = service.table(table_id).version  # type: ignore[union-attr]
        assert service.press(group, user, f"v1:{table_id}:{version}:{code}").ok
    assert dealing.seat_on_turn(service, table_id) is None  # the round ended on the deal
    game, state, seat = dealing.to_a_turn(service, group, ann, table_id)
    assert game.to_act(state) == seat and seat in (0, 1)


def test_the_clock_deals_a_group_table_on_in_the_harness(h: Harness) -> None:
    for user in (ALICE, BOB):
        assert h.command(ChatRef(GROUP.platform, f"p-{user.external_id}", "private"), user,
                         "start").ok
    table_id = h.command(GROUP, ALICE, "new", "schwimmen").table_id
    assert table_id
    _a_31_on_the_deal(h.engine, table_id)
    assert h.press(GROUP, BOB, h.buttons(GROUP, table_id)["join"]).changed
    assert h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["start"]).changed
    assert h.state(table_id).to_act is None
    assert until_a_turn_in_group(h, table_id) in (0, 1)
