"""Games for the replay tests: a group table of two people and CPUs played through the
service to its end (or to a round's end) with random moves, some turns left to run out (the
stand-in plays them, and after two the seat is away and the CPU plays for it), every CPU
move and next round from its deadline on the fake clock."""

from __future__ import annotations

import random

from sqlmodel import Session, select

from chatbot.service import UserRef
from engine import GAMES
from storage.models import GameTable, Player, Result
from tests.chatbot.service.harness import GROUP, Harness, private

SEATS = {"schwimmen": 3, "scat": 3, "runfast": 3, "climbing": 4}


def open_game(h: Harness, game: str, people: list[UserRef], args: str = "") -> int:
    """A group table of ``game``: the people and CPUs in the other seats, started."""
    for user in people:
        assert h.command(private(user), user, "start").ok
    out = h.command(GROUP, people[0], "new", f"{game} {args}".strip())
    assert out.ok and out.table_id, out.text
    table_id = out.table_id
    codes = [(u, "join") for u in people[1:]] \
        + [(people[0], "fill.+")] * (SEATS[game] - len(people)) + [(people[0], "start")]
    for user, code in codes:
        out = h.press(GROUP, user, f"v1:{table_id}:{h.table(table_id).version}:{code}")
        assert out.ok, (code, out.text)
    return table_id


def state_of(h: Harness, table_id: int) -> tuple[GameTable, object]:
    table = h.table(table_id)
    return table, GAMES[table.game].from_json(table.state_json) if table.state_json else None


def step(h: Harness, table_id: int, people: list[UserRef], rng: random.Random,
         run_out: float = 0.2) -> bool:
    """One thing happens at the table: a deadline fires, or the person on turn moves (or
    lets the clock run out). ``False`` once the game is over."""
    table, state = state_of(h, table_id)
    if table.fsm_state in ("finished", "abandoned"):
        return False
    game = GAMES[table.game]
    seat_no = game.to_act(state) if state is not None else None
    seats = h.seats(table_id)
    seat = next((s for s in seats if s.seat_no == seat_no), None)
    person = next((u for u in people if seat is not None and not seat.is_cpu
                   and not seat.away and _is(h, seat.player_id, u)), None)
    if person is None or rng.random() < run_out:  # a deadline; a person's clock runs out
        for _ in range(2):  # (the half-time reminder first, then the timeout)
            assert table.next_deadline is not None, (table.fsm_state, table.deadline_kind)
            h.clock.set(table.next_deadline)
            h.fire(table_id, table.version)
            kind, table = table.deadline_kind, h.table(table_id)
            if kind != "remind":
                break
        return True
    code = rng.choice(list(game.legal_actions(state))).code
    out = h.press(private(person), person, f"v1:{table_id}:{table.version}:{code}")
    assert out.ok, out.text
    return True


def _is(h: Harness, player_id: int | None, user: UserRef) -> bool:
    with Session(h.engine) as session:
        player = session.get(Player, player_id) if player_id is not None else None
        return player is not None and player.external_id == user.external_id


def play_to_end(h: Harness, table_id: int, people: list[UserRef], rng: random.Random,
                limit: int = 5000) -> None:
    for _ in range(limit):
        if not step(h, table_id, people, rng):
            return
    raise AssertionError("the game did not end")


def play_to_round_end(h: Harness, table_id: int, people: list[UserRef], rng: random.Random,
                      rounds: int = 1, limit: int = 2000) -> None:
    """Until ``rounds`` rounds have ended (the table between rounds or over)."""
    for _ in range(limit):
        table, state = state_of(h, table_id)
        ended = state.round_no - (0 if table.fsm_state in ("payout", "finished") else 1)
        if ended >= rounds and table.fsm_state in ("payout", "finished"):
            return
        step(h, table_id, people, rng)
    raise AssertionError("no round ended")


def result_of(h: Harness, table_id: int) -> Result:
    with Session(h.engine) as session:
        return session.exec(select(Result).where(Result.table_id == table_id)).one()
