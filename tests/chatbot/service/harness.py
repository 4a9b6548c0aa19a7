"""The harness of the application service's tests: a service with its fake clock and a postman
delivering its outbox to a recording transport, the players and chats, and helpers that play
games, read the outbox and check refusals. (Also used by tests/chatbot/test_table_life.py,
test_rights.py and tests/storage/test_retention.py.)
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from chatbot.service import ChatRef, Outcome, UserRef
from engine import schwimmen as S
from storage.models import GameTable, Move, Outbox, Result, Seat
from tests import dealing
from tests.conftest import FakeClock, Message, Postman, make_service

P = "test"
ALICE = UserRef("alice", "Alice", username="alice", language="de")
BOB = UserRef("bob", "Bob", username="bob", language="de")
CAROL = UserRef("carol", "Carol", language="de")  # no username: mentioned by name
MALLORY = UserRef("mallory", "Mallory", language="de")


def private(user: UserRef) -> ChatRef:
    return ChatRef(P, f"p-{user.external_id}", "private")


GROUP = ChatRef(P, "g-1", "group", "Stammtisch")
MOVE_KINDS = ("swap", "all", "pass", "knock")
_UPDATE_IDS = itertools.count(1)


def code_of(data: str) -> str:
    return data.split(":", 3)[3]


def is_move(code: str) -> bool:
    return code.split(".")[0] in MOVE_KINDS


class Harness:
    """A service, its fake clock, and a postman delivering its outbox to a recording transport."""

    def __init__(self, engine: Engine, clock: FakeClock, **settings: Any) -> None:
        self.engine, self.clock = engine, clock
        self.service = make_service(engine, clock, **settings)
        self.postman = Postman(engine, clock=clock)
        self.transport = self.postman.transport
        self.on_step: Callable[[], None] | None = None

    # inputs ---------------------------------------------------------------------------
    def command(self, chat: ChatRef, user: UserRef, name: str, args: str = "",
                key: str | None = None) -> Outcome:
        out = self.service.command(chat, user, name, args, update_key=key or self.key())
        self.step()
        return out

    def press(self, chat: ChatRef, user: UserRef, data: str, key: str | None = None) -> Outcome:
        out = self.service.press(chat, user, data, update_key=key or self.key())
        self.step()
        return out

    def fire(self, table_id: int, version: int) -> bool:
        fired = self.service.fire_due(table_id, version)
        self.step()
        return fired

    @staticmethod
    def key() -> str:
        return f"u{next(_UPDATE_IDS)}"  # unique across services, like a platform's update ids

    def step(self) -> None:
        if self.on_step is not None:
            self.on_step()

    def messages(self, chat: ChatRef) -> list[Message]:
        """What a chat shows now (the outbox is delivered first)."""
        self.postman.deliver()
        return self.transport.messages(chat.external_id)

    # reading --------------------------------------------------------------------------
    def table(self, table_id: int) -> GameTable:
        table = self.service.table(table_id)
        assert table is not None
        return table

    def state(self, table_id: int) -> S.State:
        return S.from_json(self.table(table_id).state_json)  # type: ignore[arg-type]

    def seats(self, table_id: int) -> list[Seat]:
        with Session(self.engine) as session:
            return list(session.exec(select(Seat).where(Seat.table_id == table_id)
                                     .order_by(col(Seat.seat_no))).all())

    def moves(self, table_id: int) -> list[Move]:
        return self.service.moves(table_id)

    def buttons(self, chat: ChatRef, table_id: int) -> dict[str, str]:
        """code → button data of what the chat shows for a table (newest wins)."""
        self.postman.deliver()
        return {code_of(d): d for _label, d in self.transport.buttons(chat.external_id, table_id)}

    # deadlines ------------------------------------------------------------------------
    def run_deadlines(self, table_id: int, kinds: tuple[str, ...] = ("cpu", "next"),
                      limit: int = 500) -> int:
        """Fire the table's deadlines of these kinds (moving the clock to each) until none."""
        for fired in range(limit):
            table = self.table(table_id)
            if table.next_deadline is None or table.deadline_kind not in kinds:
                return fired
            self.clock.set(table.next_deadline)
            assert self.fire(table_id, table.version)
        raise AssertionError("deadlines did not stop")


def snapshot(engine: Engine, table_id: int) -> tuple:
    """Everything an input could change about a table."""
    with Session(engine) as session:
        t = session.get(GameTable, table_id)
        assert t is not None
        seats = session.exec(select(Seat).where(Seat.table_id == table_id)).all()
        return (
            t.version, t.fsm_state, t.state_json, t.next_deadline, t.deadline_kind, t.log,
            sorted((s.seat_no, s.player_id, s.is_cpu, s.away, s.timeouts) for s in seats),
            session.exec(select(func.count()).select_from(Move)).one(),
            session.exec(select(func.count()).select_from(Outbox)).one(),
            session.exec(select(func.count()).select_from(Result)).one(),
            session.exec(select(func.count()).select_from(GameTable)).one(),
        )


def new_private_game(h: Harness, user: UserRef = ALICE, opponents: int = 2) -> int:
    out = h.command(private(user), user, "new", f"schwimmen {opponents} anfaenger")
    assert out.ok and out.table_id
    return out.table_id


def knocked_out(h: Harness, setup: str = "schwimmen 2 anfaenger",
                user: UserRef = ALICE) -> int:
    """A private Schwimmen game (``/new setup``) in which ``user`` is out while the CPUs play
    on: they knock at once, every time (they lose a lot), the CPUs' deadlines fire one at a
    time; a game they won is played again (at most eight)."""
    chat = private(user)
    table_id = None
    for _attempt in range(8):
        if table_id is None:
            out = h.command(chat, user, "new", setup)
        else:  # they won that one: again
            out = h.press(chat, user, h.buttons(chat, table_id)["again"])
        assert out.ok and out.table_id
        table_id = out.table_id
        for _ in range(3000):
            state, table = h.state(table_id), h.table(table_id)
            if state.out[0] or table.fsm_state == "finished":
                break
            if table.deadline_kind in ("cpu", "next"):  # one CPU move (or deal) at a time
                h.clock.set(table.next_deadline)  # type: ignore[arg-type]
                h.fire(table_id, table.version)
                continue
            shown = h.buttons(chat, table_id)
            moves = sorted(c for c in shown if is_move(c))
            code = "knock" if "knock" in moves else moves[0] if moves else \
                "next" if "next" in shown else None
            if code is not None:
                h.press(chat, user, shown[code])
        if h.state(table_id).out[0] and h.table(table_id).fsm_state != "finished":
            return table_id
    raise AssertionError(f"{user.name} was never knocked out while the CPUs played on")


def human_turn(h: Harness, table_id: int, chat: ChatRef) -> dict[str, str]:
    """Let the CPUs move until the human is on turn (or the round/game is over)."""
    h.run_deadlines(table_id)
    return h.buttons(chat, table_id)


def until_human_moves(h: Harness, table_id: int, user: UserRef = ALICE) -> dict[str, str]:
    """CPUs move and new rounds are dealt (``tests.dealing``: the person presses "next" after
    a round that ended before their turn) until the human has moves to choose from."""
    chat = private(user)

    def moves() -> dict[str, str] | None:
        shown = human_turn(h, table_id, chat)
        return shown if any(is_move(c) for c in shown) else None

    def deal_on() -> None:
        shown = h.buttons(chat, table_id)
        assert "next" in shown, shown  # a round ended (a 31): deal the next one
        assert h.press(chat, user, shown["next"]).changed

    return dealing.until_a_turn(moves, deal_on)


def experte_table(h: Harness, setup: str = "schwimmen 2 experte") -> int:
    """Alice's private table against Experte players: its id."""
    out = h.command(private(ALICE), ALICE, "new", setup)
    assert out.ok and out.table_id
    return out.table_id


def until_a_cpu_turn(h: Harness, table_id: int) -> GameTable:
    """Play Alice's turns (first move shown) until the table waits for a CPU's move (its
    deadline not yet reached: the clock stays where it is); a next round is dealt on."""
    for _ in range(30):
        table = h.table(table_id)
        if table.deadline_kind == "cpu":
            return table
        if table.deadline_kind == "next":
            h.clock.set(table.next_deadline)
            assert h.fire(table_id, table.version)
            continue
        shown = h.buttons(private(ALICE), table_id)
        code = next(c for c in sorted(shown) if c.startswith(("swap", "pass", "all", "next")))
        assert h.press(private(ALICE), ALICE, shown[code]).changed
    raise AssertionError("no CPU turn")


def until_a_turn_in_group(h: Harness, table_id: int) -> int:
    """The seat on turn at a group table, the clock dealing on (``tests.dealing``: a group
    table deals the next round itself, a short delay after a round ended on the deal)."""
    seat: int = dealing.until_a_turn(
        lambda: h.state(table_id).to_act,
        lambda: h.run_deadlines(table_id, kinds=("next",)))
    return seat


def pick(codes: list[str], rng: random.Random, knock: float = 0.5) -> str:
    """A random legal move; knocking often keeps the games short."""
    if "knock" in codes and rng.random() < knock:
        return "knock"
    return rng.choice(codes)


def play_private_to_the_end(h: Harness, table_id: int, user: UserRef, rng: random.Random,
                            max_steps: int = 2_000) -> None:
    chat = private(user)
    for _ in range(max_steps):
        shown = human_turn(h, table_id, chat)
        table = h.table(table_id)
        if table.fsm_state == "finished":
            return
        state = h.state(table_id)
        if state.phase == S.PAYOUT:
            assert h.press(chat, user, shown["next"]).ok
            continue
        assert state.to_act == 0, "the human's turn after the CPUs moved"
        moves = sorted(c for c in shown if is_move(c))
        assert set(moves) == {a.code for a in S.legal_actions(state)}, \
            "the view offers exactly the legal moves"
        out = h.press(chat, user, shown[pick(moves, rng)])
        assert out.ok and out.changed, out.text
    raise AssertionError("the game did not end")


def assert_finished_and_replayable(h: Harness, table_id: int) -> None:
    table = h.table(table_id)
    assert table.fsm_state == "finished"
    assert table.next_deadline is None
    with Session(h.engine) as session:
        result = session.exec(select(Result).where(Result.table_id == table_id)).one()
    state = h.state(table_id)
    assert S.is_over(state)
    assert result.winners == [state.winner]
    assert result.rounds == state.round_no
    assert h.service.replay(table_id) == state
    seqs = [m.seq for m in h.moves(table_id)]
    assert seqs == sorted(set(seqs))


# ---------------------------------------------------------------------------------- bad input


def assert_brief_refusal(out: Outcome) -> None:
    assert out.ok is False
    assert out.text and 0 < len(out.text) <= 160, out.text
    assert "Traceback" not in out.text and "Error" not in out.text and "\n" not in out.text


# ---------------------------------------------------------------------------------- group game


def open_group_table(h: Harness, users: list[UserRef], start: bool = False,
                     seed: int | None = None) -> int:
    """Everybody starts the bot privately, the first opens a group table, the others join
    (``seed``: the table's deals, e.g. one whose first round is not over as it is dealt)."""
    for user in users:
        assert h.command(private(user), user, "start").ok
    out = h.command(GROUP, users[0], "new", "schwimmen")
    assert out.ok and out.table_id
    table_id = out.table_id
    if seed is not None:
        with Session(h.engine) as session, session.begin():
            session.get(GameTable, table_id).seed = seed  # type: ignore[union-attr]
    for user in users[1:]:
        lobby = h.buttons(GROUP, table_id)
        out = h.press(GROUP, user, lobby["join"])
        assert out.ok and out.changed, out.text
    if start:
        lobby = h.buttons(GROUP, table_id)
        assert_brief_refusal(h.press(GROUP, users[-1], lobby["start"]))  # not the opener
        out = h.press(GROUP, users[0], lobby["start"])
        assert out.ok and out.changed, out.text
    return table_id


# ---------------------------------------------------------------------------------- turn clock


def group_rows_since(h: Harness, after_id: int) -> list[Outbox]:
    with Session(h.engine) as session:
        return list(session.exec(select(Outbox).where(
            Outbox.id > after_id, Outbox.chat_external_id == GROUP.external_id)
            .order_by(col(Outbox.id))).all())


def rows_since(h: Harness, after_id: int) -> list[Outbox]:
    with Session(h.engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.id > after_id)
                                 .order_by(col(Outbox.id))).all())


def max_outbox_id(h: Harness) -> int:
    with Session(h.engine) as session:
        return session.exec(select(func.max(Outbox.id))).one() or 0
