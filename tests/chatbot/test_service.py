"""The application service end to end: commands and presses in, outbox views out.

Every test that touches the database runs on SQLite and on PostgreSQL (``db_engine``). Time is
a ``FakeClock``; deadlines are fired through ``due``/``fire_due`` like the scheduler does.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from chatbot.service import ChatRef, Outcome, Service, UserRef
from engine import schwimmen as S
from storage.db import make_engine, migrate
from storage.models import GameTable, Move, Outbox, Player, ProcessedUpdate, Result, Seat
from tests.conftest import FakeClock, Message, Postman, card_symbols, engine_url, make_service, race

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


@pytest.fixture(autouse=True)
def seeded_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Table seeds come from ``SystemRandom``; make them reproducible for these tests."""
    seeds = random.Random(31)
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))


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


@pytest.fixture
def h(db_engine: Engine, clock: FakeClock) -> Harness:
    return Harness(db_engine, clock)


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


def human_turn(h: Harness, table_id: int, chat: ChatRef) -> dict[str, str]:
    """Let the CPUs move until the human is on turn (or the round/game is over)."""
    h.run_deadlines(table_id)
    return h.buttons(chat, table_id)


def until_human_moves(h: Harness, table_id: int, user: UserRef = ALICE) -> dict[str, str]:
    """CPUs move and new rounds are dealt until the human has moves to choose from."""
    chat = private(user)
    for _ in range(50):
        shown = human_turn(h, table_id, chat)
        if any(is_move(c) for c in shown):
            return shown
        assert "next" in shown, shown  # a round ended (a 31): deal the next one
        assert h.press(chat, user, shown["next"]).changed
    raise AssertionError("the human never came to move")


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


# ---------------------------------------------------------------------------------- private game


def test_private_game_is_played_to_the_end(h: Harness) -> None:
    table_id = new_private_game(h)
    seats = h.seats(table_id)
    assert [(s.seat_no, s.is_cpu, s.cpu_level) for s in seats] == \
        [(0, False, None), (1, True, "anfaenger"), (2, True, "anfaenger")]
    assert h.table(table_id).is_private and h.table(table_id).turn_timeout == 0
    play_private_to_the_end(h, table_id, ALICE, random.Random(1))
    assert_finished_and_replayable(h, table_id)
    actors = {m.actor for m in h.moves(table_id)}
    assert actors <= {"player", "cpu", "system"} and {"player", "cpu"} <= actors
    last = h.messages(private(ALICE))
    assert any("Gewinner" in m.text for m in last)
    assert "again" in h.buttons(private(ALICE), table_id)


def test_private_game_against_experte_uses_the_configured_budget(db_engine: Engine,
                                                                 clock: FakeClock) -> None:
    """An Experte chosen at setup plays its seats (with the operator's budget per decision);
    its decisions count how many run at once for the load factor."""
    h = Harness(db_engine, clock, experte_budget=0.02)
    out = h.command(private(ALICE), ALICE, "new", "schwimmen 2 experte")
    assert out.ok and out.table_id
    table_id = out.table_id
    assert [s.cpu_level for s in h.seats(table_id)] == [None, "experte", "experte"]
    assert h.service.settings.experte_budget == 0.02
    assert h.service.decision_load() >= 1.0
    play_private_to_the_end(h, table_id, ALICE, random.Random(3))
    assert_finished_and_replayable(h, table_id)
    assert "cpu" in {m.actor for m in h.moves(table_id)}
    assert h.service.decisions.thinking == 0  # every decision that started has finished


def _until_cpu_due(h: Harness, table_id: int, user: UserRef = ALICE) -> GameTable:
    """Play the person's moves until a CPU seat's turn is due (the clock moved to it)."""
    for _ in range(50):
        table = h.table(table_id)
        if table.deadline_kind == "cpu":
            h.clock.set(table.next_deadline)  # type: ignore[arg-type]
            return table
        h.press(private(user), user, next(iter(
            d for c, d in h.buttons(private(user), table_id).items()
            if c not in ("cards", "back", "again"))))
    raise AssertionError("no CPU turn came")


def test_a_cpu_that_must_think_is_not_played_where_thinking_may_not_run(
        db_engine: Engine, clock: FakeClock) -> None:
    """``fire_due(may_think=False)`` (an adapter's event loop) leaves an Experte's turn alone
    and says so with ``None``; quick levels are played right there."""
    h = Harness(db_engine, clock, experte_budget=0.02)
    table_id = h.command(private(ALICE), ALICE, "new", "schwimmen 2 experte").table_id
    assert table_id
    table = _until_cpu_due(h, table_id)
    before = snapshot(h.engine, table_id)
    assert h.service.fire_due(table_id, table.version, may_think=False) is None
    assert snapshot(h.engine, table_id) == before
    assert h.service.fire_due(table_id, table.version) is True
    assert h.table(table_id).version > table.version

    quick = Harness(db_engine, clock)
    quick_id = quick.command(private(BOB), BOB, "new", "schwimmen 2 normal").table_id
    assert quick_id
    table = _until_cpu_due(quick, quick_id, BOB)
    assert quick.service.fire_due(quick_id, table.version, may_think=False) is True
    assert quick.table(quick_id).version > table.version


def _first_move(h: Harness, table_id: int, user: UserRef = ALICE) -> str:
    """The button data of the person's first offered move (or "next" after a round)."""
    shown = h.buttons(private(user), table_id)
    moves = sorted(c for c in shown if is_move(c))
    return shown[moves[0] if moves else "next"]


def test_a_cpu_move_due_at_once_is_played_in_the_same_input(db_engine: Engine,
                                                             clock: FakeClock) -> None:
    """Without a thinking delay, the CPUs' replies to a press are played in the press's own
    transaction: the person is on turn again when the press returns, nothing is left due,
    and the chat gets one view of the table for the press and both replies."""
    h = Harness(db_engine, clock, cpu_delay=0)
    table_id = new_private_game(h)
    assert h.service.due() == []
    for _ in range(8):
        table = h.table(table_id)
        if table.fsm_state == "finished":
            break
        moves, views = len(h.moves(table_id)), max_outbox_id(h)
        assert h.press(private(ALICE), ALICE, _first_move(h, table_id)).changed
        after = h.table(table_id)
        assert h.service.due() == []
        state = h.state(table_id)
        assert state.phase == S.PAYOUT or after.fsm_state == "finished" or state.to_act == 0
        new_moves = h.moves(table_id)[moves:]
        assert new_moves[0].actor in ("player", "system")
        assert [m.seq for m in new_moves] == list(range(table.version + 1, after.version + 1))
        slot_rows = [r for r in rows_since(h, views) if r.slot == f"t{table_id}"]
        assert len(slot_rows) == 1, "one view for the press and the replies it caused"


def test_chained_cpu_moves_are_the_moves_the_deadlines_would_play(
        tmp_path: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same table seed, same presses: CPU moves played on within the press give the same
    move log and state as the same moves fired one by one from their deadlines."""
    import chatbot.service as service_module

    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(1234))

    def play(name: str) -> tuple[list[tuple], str | None]:
        engine = make_engine(f"sqlite:///{tmp_path}/{name}.db")
        migrate(engine)
        h = Harness(engine, clock, cpu_delay=0)
        table_id = new_private_game(h, opponents=3)
        for _ in range(12):
            h.run_deadlines(table_id, kinds=("cpu",))
            if h.table(table_id).fsm_state == "finished":
                break
            assert h.press(private(ALICE), ALICE, _first_move(h, table_id)).changed
        h.run_deadlines(table_id, kinds=("cpu",))
        log = [(m.seq, m.seat_no, m.actor, m.code) for m in h.moves(table_id)]
        return log, h.table(table_id).state_json

    chained = play("chained")
    monkeypatch.setattr(service_module.play, "CHAIN_LIMIT", 0)
    one_by_one = play("one_by_one")
    assert sum(1 for m in chained[0] if m[2] == "cpu") >= 6
    assert chained == one_by_one


def test_cpu_moves_played_on_stop_at_the_limit(db_engine: Engine, clock: FakeClock,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """An input plays on at most ``cpu.CHAIN_LIMIT`` CPU moves; the rest stays a due deadline
    for the scheduler, so a table of CPUs alone never holds one transaction for long."""
    import chatbot.service as service_module

    monkeypatch.setattr(service_module.play, "CHAIN_LIMIT", 1)
    h = Harness(db_engine, clock, cpu_delay=0)
    table_id = new_private_game(h, opponents=3)
    h.run_deadlines(table_id, kinds=("cpu",))
    for _ in range(10):
        moves = len(h.moves(table_id))
        assert h.press(private(ALICE), ALICE, _first_move(h, table_id)).changed
        table = h.table(table_id)
        if table.deadline_kind == "cpu":
            assert [m.actor for m in h.moves(table_id)[moves:]] == ["player", "cpu"]
            assert h.service.due() == [(table_id, table.version)]
            return
        h.run_deadlines(table_id, kinds=("cpu",))
    raise AssertionError("no press was followed by CPU turns")


def test_a_cpu_that_must_think_is_not_played_on_within_an_input(db_engine: Engine,
                                                                clock: FakeClock) -> None:
    """An Experte decides outside any transaction, so its reply is left to the deadline."""
    h = Harness(db_engine, clock, cpu_delay=0, experte_budget=0.02)
    table_id = h.command(private(ALICE), ALICE, "new", "schwimmen 1 experte").table_id
    assert table_id
    for _ in range(10):
        h.run_deadlines(table_id, kinds=("cpu",))
        assert h.press(private(ALICE), ALICE, _first_move(h, table_id)).changed
        table = h.table(table_id)
        if table.deadline_kind == "cpu":
            assert h.service.due() == [(table_id, table.version)]
            assert h.moves(table_id)[-1].actor in ("player", "system")
            return
    raise AssertionError("no press was followed by the Experte's turn")


def test_private_view_shows_the_own_hand(h: Harness) -> None:
    table_id = new_private_game(h)
    until_human_moves(h, table_id)
    state = h.state(table_id)
    view = [m for m in h.messages(private(ALICE)) if m.rows][-1]
    hand_line = next(line for line in view.text.splitlines() if "Deine Karten" in line)
    assert card_symbols(hand_line) == {c.symbol for c in state.hands[0]}
    middle = {c.symbol for c in state.middle}
    assert middle <= card_symbols(view.text)
    # nothing else but what the public move log names (cards swapped in the open)
    logged: set[str] = set()
    for event in h.table(table_id).log or []:
        for key in ("give", "take"):
            value = (event.get("data") or {}).get(key) or []
            for code in [value] if isinstance(value, str) else value:
                logged.add(code)
    logged = {c.symbol for c in S.DECK if c.code in logged}
    assert card_symbols(view.everything()) <= card_symbols(hand_line) | middle | logged


def test_new_private_game_replaces_an_unfinished_one_only_when_confirmed(h: Harness) -> None:
    """Issue 17, item 4: a running game was silently replaced (an old menu ended a Run Fast
    match at hand 3 of 4); now the player is asked, and "keep playing" changes nothing."""
    first = new_private_game(h)
    version = h.table(first).version
    out = h.command(private(ALICE), ALICE, "new", "runfast 2 anfaenger hands=8")
    assert out.ok and out.table_id is None
    asked = h.messages(private(ALICE))[-1]
    assert asked.text == "Hier läuft noch ein Spiel (Schwimmen). Beenden und " \
        "Run Fast (Pao De Kuai) neu beginnen?"
    (yes, ok), (no, keep) = asked.rows[0]
    assert (yes, no) == ("Ja, neu beginnen", "Nein, weiterspielen")
    assert h.press(private(ALICE), ALICE, keep).ok
    assert h.messages(private(ALICE))[-1].text == "Gut – das Spiel läuft weiter."
    assert h.table(first).fsm_state != "abandoned" and h.table(first).version == version
    out = h.press(private(ALICE), ALICE, ok)
    assert out.ok and out.table_id and out.table_id != first
    assert h.table(first).fsm_state == "abandoned"
    second = h.table(out.table_id)
    assert second.game == "runfast" and second.options["engine"] == {"hands": 8}
    assert len(h.seats(second.id)) == 3


# ---------------------------------------------------------------------------------- bad input


def assert_brief_refusal(out: Outcome) -> None:
    assert out.ok is False
    assert out.text and 0 < len(out.text) <= 160, out.text
    assert "Traceback" not in out.text and "Error" not in out.text and "\n" not in out.text


def test_forged_button_data_changes_nothing(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    version = h.table(table_id).version
    before = snapshot(h.engine, table_id)
    forged = [
        "garbage", "", "v1", "v1:1", "v1:1:0", "v1:1:0:", "v2:1:0:knock", "v1:x:0:knock",
        "v1:1:y:knock", "v1:-1:0:knock", "v1:999:0:knock", f"v1:{table_id}:0:knock",
        "v1:" + "9" * 80 + ":0:knock", f"v1:{table_id}:{version}:" + "x" * 100,
        "v1:1:0:swap.ZZ.QQ", f"v1:{table_id}:{version}:swap.ZZ.QQ",
        f"v1:{table_id}:{version}:swap.7C", f"v1:{table_id}:{version}:deal",
        f"v1:{table_id}:{version}:kick.x", f"v1:{table_id}:{version}:opt.nothing",
        f"v1:{table_id}:{version}:ui.x", f"v1:{table_id}:{version}:knock\n",
        f"v1:{table_id}:{version}:\x00", "v1:0:0:g.nosuchgame", "v1:0:0:g.schwimmen.9",
        "v1:0:0:g.schwimmen.2.godlike", "v1:0:0:lang.xx", None,
    ]
    for data in forged:
        out = h.press(private(ALICE), ALICE, data)  # type: ignore[arg-type]
        assert_brief_refusal(out)
        assert snapshot(h.engine, table_id) == before, data
    assert "knock" in shown  # the real button still works afterwards
    assert h.press(private(ALICE), ALICE, shown["knock"]).changed


def test_a_legal_looking_move_not_in_hand_is_refused(h: Harness) -> None:
    table_id = new_private_game(h)
    until_human_moves(h, table_id)
    state, version = h.state(table_id), h.table(table_id).version
    stranger = next(c for c in S.DECK if c not in state.hands[0] and c not in state.middle)
    before = snapshot(h.engine, table_id)
    out = h.press(private(ALICE), ALICE,
                  f"v1:{table_id}:{version}:{S.swap(stranger, state.middle[0]).code}")
    assert_brief_refusal(out)
    assert "nicht in deiner Hand" in out.text or "not in your hand" in out.text
    assert snapshot(h.engine, table_id) == before


def test_stale_button_is_refused(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    move = sorted(c for c in shown if c.startswith("swap."))[0]
    assert h.press(private(ALICE), ALICE, shown[move]).changed
    until_human_moves(h, table_id)
    before = snapshot(h.engine, table_id)
    out = h.press(private(ALICE), ALICE, shown["knock"])  # drawn for an older version
    assert_brief_refusal(out)
    assert "veraltet" in out.text
    assert snapshot(h.engine, table_id) == before


def test_press_by_someone_not_seated_is_refused(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    before = snapshot(h.engine, table_id)
    for chat in (private(ALICE), private(MALLORY), GROUP):
        out = h.press(chat, MALLORY, shown["knock"])
        assert_brief_refusal(out)
        assert snapshot(h.engine, table_id) == before
    assert h.press(private(ALICE), ALICE, shown["knock"]).changed


def test_press_by_a_seated_player_not_on_turn_is_refused(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    assert h.press(private(ALICE), ALICE, shown["knock"]).changed
    table = h.table(table_id)
    assert h.state(table_id).to_act != 0 and table.deadline_kind == "cpu"
    before = snapshot(h.engine, table_id)
    for code in ("knock", "all", "pass"):
        out = h.press(private(ALICE), ALICE, f"v1:{table_id}:{table.version}:{code}")
        assert_brief_refusal(out)
        assert "nicht am Zug" in out.text
    assert snapshot(h.engine, table_id) == before


def test_language_command_confirms_once(h: Harness) -> None:
    """``/language en``: the chat's language changes and the confirmation is posted once (not
    also as the command's reply)."""
    since = max_outbox_id(h)
    out = h.command(private(ALICE), ALICE, "language", "en")
    assert out.ok and out.text is None
    texts = [r.text for r in rows_since(h, since)]
    assert texts == ["Language: English."]


def test_commands_in_the_wrong_place_and_garbage_commands(h: Harness) -> None:
    out = h.command(GROUP, ALICE, "stop")  # no table in this chat
    assert_brief_refusal(out)
    table_id = new_private_game(h)
    before = snapshot(h.engine, table_id)
    for name in ("", "xyzzy", "__init__", "_cmd_stop", "new\x00", "../../etc/passwd", "ß" * 300,
                 "stop now"):
        out = h.command(private(ALICE), ALICE, name, "schwimmen")
        assert_brief_refusal(out)
        assert snapshot(h.engine, table_id) == before
    for args in ("schwimmen 9 anfaenger", "schwimmen x", "schwimmen 2 godlike"):
        out = h.command(private(ALICE), ALICE, "new", args)
        assert_brief_refusal(out)
        assert snapshot(h.engine, table_id) == before
    out = h.command(private(MALLORY), MALLORY, "stop")  # Mallory has no table of her own
    assert_brief_refusal(out)
    assert snapshot(h.engine, table_id) == before


def test_stop_in_a_group_needs_the_opener(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB])
    before = snapshot(h.engine, table_id)
    assert_brief_refusal(h.command(GROUP, BOB, "stop"))
    assert_brief_refusal(h.command(GROUP, BOB, "new", "schwimmen"))  # a table is already open
    assert snapshot(h.engine, table_id) == before
    out = h.command(GROUP, ALICE, "stop")
    assert out.ok
    assert h.table(table_id).fsm_state == "abandoned"


# ---------------------------------------------------------------------------------- once only


def test_repeated_update_key_is_handled_once(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    moves_before = len(h.moves(table_id))
    first = h.press(private(ALICE), ALICE, shown["knock"], key="update-77")
    again = h.press(private(ALICE), ALICE, shown["knock"], key="update-77")
    assert first.changed and not again.changed
    assert again.ok  # a redelivered update is not an error
    assert len(h.moves(table_id)) == moves_before + 1
    with Session(h.engine) as session:
        keys = session.exec(select(ProcessedUpdate.update_key)
                            .where(ProcessedUpdate.update_key == "update-77")).all()
    assert keys == ["update-77"]
    # the same for commands: one table, not two
    h.command(private(BOB), BOB, "new", "schwimmen 1 anfaenger", key="cmd-5")
    h.command(private(BOB), BOB, "new", "schwimmen 1 anfaenger", key="cmd-5")
    with Session(h.engine) as session:
        bobs = session.exec(select(GameTable).join(Player, GameTable.opener_id == Player.id)
                            .where(Player.external_id == "bob")).all()
    assert len(bobs) == 1


def _moves_shown(h: Harness, user: UserRef, table_id: int) -> dict[str, str]:
    shown = until_human_moves(h, table_id, user)
    return {c: d for c, d in shown.items() if is_move(c)}


def test_presses_polled_together_share_one_transaction(h: Harness) -> None:
    """``press_many``: each press counts as if pressed alone (moves on two tables, a forged
    button refused, a repeated update key handled once, a stale button refused), and the
    listeners hear of the changes once, after the commit."""
    alice_table = new_private_game(h, ALICE)
    bob_table = new_private_game(h, BOB)
    a = _moves_shown(h, ALICE, alice_table)
    b = _moves_shown(h, BOB, bob_table)
    a_before, b_before = len(h.moves(alice_table)), len(h.moves(bob_table))
    heard: list[list[Any]] = []
    seen_committed: list[int] = []

    def listener(changes: list[Any]) -> None:
        heard.append(changes)
        seen_committed.append(len(h.moves(alice_table)))  # another connection: committed only

    h.service.listeners.append(listener)
    move_a, move_b = sorted(a)[0], sorted(b)[0]
    results = h.service.press_many([
        (private(ALICE), ALICE, a[move_a], "batch-1"),
        (private(MALLORY), MALLORY, "v1:999:0:knock", "batch-2"),   # no such table
        (private(BOB), BOB, b[move_b], "batch-3"),
        (private(ALICE), ALICE, a[move_a], "batch-1"),              # the same update again
        (private(ALICE), ALICE, a[move_a], "batch-4"),              # its button is stale now
        (private(BOB), BOB, "garbage", "batch-5"),
    ])
    assert all(isinstance(r, Outcome) for r in results), results
    ok_a, forged, ok_b, again, stale, garbage = results  # type: ignore[misc]
    assert ok_a.changed and ok_b.changed
    assert not forged.ok and not garbage.ok and not stale.ok
    assert again.ok and not again.changed
    assert len(h.moves(alice_table)) > a_before and len(h.moves(bob_table)) > b_before
    assert [m.actor for m in h.moves(alice_table)[a_before:]][0] == "player"
    assert len(heard) == 1 and {c.table_id for c in heard[0]} == {alice_table, bob_table}
    assert seen_committed == [len(h.moves(alice_table))]
    with Session(h.engine) as session:
        keys = set(session.exec(select(ProcessedUpdate.update_key).where(
            col(ProcessedUpdate.update_key).startswith("batch-"))).all())
    assert keys == {"batch-1", "batch-3"}  # a refused press leaves no trace, as when alone


def test_a_press_failing_in_a_batch_leaves_no_trace_and_the_others_count(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    alice_table = new_private_game(h, ALICE)
    bob_table = new_private_game(h, BOB)
    a = _moves_shown(h, ALICE, alice_table)
    b = _moves_shown(h, BOB, bob_table)
    before = snapshot(h.engine, alice_table)
    from chatbot.service import router
    real = router.table_press

    def failing(ctx: Any, chat: Any, player: Any, user: Any, press: Any) -> Outcome:
        out = real(ctx, chat, player, user, press)  # all its writes are made ...
        if press.table_id == alice_table:
            raise RuntimeError("boom")  # ... and then it fails
        return out

    monkeypatch.setattr(router, "table_press", failing)
    code = sorted(a)[0]
    results = h.service.press_many([
        (private(ALICE), ALICE, a[code], "fail-1"),
        (private(BOB), BOB, b[sorted(b)[0]], "fail-2"),
    ])
    assert isinstance(results[0], RuntimeError)
    assert isinstance(results[1], Outcome) and results[1].changed
    assert snapshot(h.engine, alice_table)[:7] == before[:7]  # the table as it was
    monkeypatch.setattr(router, "table_press", real)
    # its update key was rolled back too: the same update, delivered again, now counts
    assert h.service.press(private(ALICE), ALICE, a[code], "fail-1").changed


def test_two_presses_at_once_accept_exactly_one(h: Harness) -> None:
    table_id = new_private_game(h)
    for _round in range(3):
        shown = until_human_moves(h, table_id)
        if h.state(table_id).phase != S.TURN:
            break
        moves_before = len(h.moves(table_id))
        a, b = (shown[c] for c in sorted(c for c in shown if c.startswith("swap."))[:2])
        results = race([
            lambda a=a: h.service.press(private(ALICE), ALICE, a, update_key=h.key()),
            lambda b=b: h.service.press(private(ALICE), ALICE, b, update_key=h.key()),
        ])
        h.step()
        assert all(isinstance(r, Outcome) for r in results), results
        assert sorted(r.changed for r in results) == [False, True]
        loser = next(r for r in results if not r.changed)
        assert loser.ok is False and loser.text
        assert len(h.moves(table_id)) == moves_before + 1


def test_same_press_twice_at_once_with_the_same_update_key(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    moves_before = len(h.moves(table_id))
    results = race([lambda: h.service.press(private(ALICE), ALICE, shown["knock"], "same")] * 2)
    assert all(isinstance(r, Outcome) and r.ok for r in results), results
    assert len(h.moves(table_id)) == moves_before + 1


def test_a_deadline_fires_once(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    assert h.press(private(ALICE), ALICE, shown["knock"]).changed
    table = h.table(table_id)
    assert table.deadline_kind == "cpu"
    moves = len(h.moves(table_id))
    assert h.service.due() == []
    assert h.fire(table_id, table.version) is False  # too early
    h.clock.set(table.next_deadline)  # type: ignore[arg-type]
    assert h.service.due() == [(table_id, table.version)]
    assert h.fire(table_id, table.version) is True
    assert h.fire(table_id, table.version) is False  # the same claim again: stale
    assert len(h.moves(table_id)) == moves + 1
    # two schedulers claiming the same deadline at the same moment: one wins
    table = h.table(table_id)
    if table.deadline_kind == "cpu":
        h.clock.set(table.next_deadline)  # type: ignore[arg-type]
        results = race([lambda: h.service.fire_due(table_id, table.version)] * 2)
        assert sorted(results) == [False, True]
        assert len(h.moves(table_id)) == moves + 2


def test_restart_mid_game_keeps_the_table_and_old_buttons(h: Harness) -> None:
    table_id = new_private_game(h)
    rng = random.Random(5)
    shown = until_human_moves(h, table_id)
    moves = sorted(c for c in shown if is_move(c) and c != "knock")
    assert h.press(private(ALICE), ALICE, shown[pick(moves, rng)]).changed
    old_buttons = until_human_moves(h, table_id)
    before = snapshot(h.engine, table_id)
    assert h.state(table_id).to_act == 0

    # the process dies; a new one starts on the same database with a new engine and service
    engine2 = make_engine(engine_url(h.engine))
    try:
        h2 = Harness(engine2, h.clock)
        h2.transport = h2.postman.transport = h.transport  # the chat still shows the old views
        assert snapshot(engine2, table_id) == before
        out = h2.press(private(ALICE), ALICE, old_buttons["knock"])
        assert out.ok and out.changed, out.text
        if h2.state(table_id).phase in (S.TURN, S.FINAL_ROUND):  # (not if that ended the round)
            assert h2.table(table_id).deadline_kind == "cpu"  # the CPU's turn is in the DB
            assert h2.service.due() == []  # not yet: the CPU "thinks" a moment
        play_private_to_the_end(h2, table_id, ALICE, rng)
        assert_finished_and_replayable(h2, table_id)
    finally:
        engine2.dispose()


# ---------------------------------------------------------------------------------- group game


def open_group_table(h: Harness, users: list[UserRef], start: bool = False) -> int:
    """Everybody starts the bot privately, the first opens a group table, the others join."""
    for user in users:
        assert h.command(private(user), user, "start").ok
    out = h.command(GROUP, users[0], "new", "schwimmen")
    assert out.ok and out.table_id
    table_id = out.table_id
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
    h.run_deadlines(table_id, kinds=("next",))  # in case the first deal was a 31
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


def test_turn_clock_reminds_times_out_and_marks_away(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    alice_seat = next(s.seat_no for s in h.seats(table_id) if s.name == "Alice")
    rng = random.Random(3)
    timeouts = away_moves = 0
    for _ in range(400):
        h.run_deadlines(table_id, kinds=("next",))
        table = h.table(table_id)
        assert table.fsm_state != "finished", "the game ended before the clock was tested"
        state = h.state(table_id)
        alice = next(s for s in h.seats(table_id) if s.seat_no == alice_seat)
        if state.to_act != alice_seat:  # Bob is quick
            shown = h.buttons(private(BOB), table_id)
            assert h.press(private(BOB), BOB, shown[pick(
                sorted(c for c in shown if is_move(c)), rng)]).changed
            continue
        moves = len(h.moves(table_id))
        if alice.away:  # the CPU plays for an away player without waiting for the clock
            assert table.deadline_kind == "cpu"
            h.clock.set(table.next_deadline)  # type: ignore[arg-type]
            assert h.fire(table_id, table.version)
            assert h.moves(table_id)[-1].actor == "away"
            assert h.moves(table_id)[-1].code != "knock"  # the stand-in never knocks
            away_moves += 1
            if away_moves == 2:
                break
            continue
        # Alice is on turn and slow: half time → reminder, full time → the CPU plays
        assert table.deadline_kind == "remind"
        start = h.clock()  # the turn began now: the clock has not moved since
        assert table.next_deadline == start + timedelta(seconds=30)
        h.clock.advance(29)
        assert (table_id, table.version) not in h.service.due()
        mark = max_outbox_id(h)
        h.clock.advance(1)
        assert h.fire(table_id, table.version)
        reminder = [r.text for r in group_rows_since(h, mark)]
        assert len(reminder) == 1 and "@alice" in reminder[0] and "⏰" in reminder[0]
        assert len(h.moves(table_id)) == moves  # a reminder is no move
        table = h.table(table_id)
        assert table.deadline_kind == "timeout" and table.reminded
        assert table.next_deadline == start + timedelta(seconds=60)
        h.clock.advance(29)
        assert not h.fire(table_id, table.version)  # too early
        h.clock.advance(1)
        mark = max_outbox_id(h)
        assert h.fire(table_id, table.version)
        assert len(h.moves(table_id)) == moves + 1
        assert h.moves(table_id)[-1].actor == "timeout"
        assert h.moves(table_id)[-1].code != "knock"  # (issue 17, item 10)
        assert h.moves(table_id)[-1].seat_no == alice_seat
        timeouts += 1
        texts = "\n".join(r.text for r in group_rows_since(h, mark))
        assert "Alice" in texts and "⌛" in texts
        alice = next(s for s in h.seats(table_id) if s.seat_no == alice_seat)
        assert alice.timeouts == timeouts
        assert alice.away == (timeouts >= 2)
        if timeouts == 2:
            assert "💤" in texts
    else:
        raise AssertionError("Alice never came to play while away")
    assert timeouts == 2 and away_moves == 2

    # "I'm back" clears it; Alice's next turn has the clock again
    assert "back" in h.buttons(private(ALICE), table_id)  # offered where Alice plays ...
    assert "back" in h.buttons(GROUP, table_id)  # ... and in the group
    back = f"v1:{table_id}:{h.table(table_id).version}:back"
    out = h.press(private(ALICE), ALICE, back)
    assert out.ok and out.changed
    alice = next(s for s in h.seats(table_id) if s.seat_no == alice_seat)
    assert not alice.away and alice.timeouts == 0
    assert any("wieder da" in t for t in (r.text for r in group_rows_since(h, 0)))
    again = h.press(private(ALICE), ALICE, back)
    assert again.ok and not again.changed  # pressing it twice is harmless
    for _ in range(50):
        h.run_deadlines(table_id, kinds=("next",))
        state = h.state(table_id)
        if state.to_act == alice_seat:
            assert h.table(table_id).deadline_kind == "remind"
            break
        shown = h.buttons(private(BOB), table_id)
        assert h.press(private(BOB), BOB, shown[pick(
            sorted(c for c in shown if is_move(c)), rng)]).changed
    else:
        raise AssertionError("Alice never came to play again")


def test_pressing_in_time_resets_the_timeout_count(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    rng = random.Random(4)
    seat_user = {s.seat_no: (ALICE if s.name == "Alice" else BOB) for s in h.seats(table_id)}
    # the first player on turn times out once ...
    h.run_deadlines(table_id, kinds=("next",))
    slow_seat = h.state(table_id).to_act
    for kind in ("remind", "timeout"):
        table = h.table(table_id)
        assert table.deadline_kind == kind
        h.clock.set(table.next_deadline)  # type: ignore[arg-type]
        assert h.fire(table_id, table.version)
    assert next(s for s in h.seats(table_id) if s.seat_no == slow_seat).timeouts == 1
    # ... then plays in time on the next turn: the count starts again
    for _ in range(50):
        h.run_deadlines(table_id, kinds=("next",))
        state = h.state(table_id)
        user = seat_user[state.to_act]
        shown = h.buttons(private(user), table_id)
        assert h.press(private(user), user, shown[pick(
            sorted(c for c in shown if is_move(c)), rng)]).changed
        if state.to_act == slow_seat:
            break
    slow = next(s for s in h.seats(table_id) if s.seat_no == slow_seat)
    assert slow.timeouts == 0 and not slow.away


def test_deadlines_of_other_tables_are_not_affected(h: Harness) -> None:
    a = new_private_game(h, ALICE)
    b = new_private_game(h, BOB)
    for table_id, user in ((a, ALICE), (b, BOB)):
        until_human_moves(h, table_id, user)
    shown = h.buttons(private(ALICE), a)
    assert h.press(private(ALICE), ALICE, shown["knock"]).changed
    before_b = snapshot(h.engine, b)[:6]
    h.clock.advance(3600)
    assert [t for t, _v in h.service.due()] == [a]
    h.run_deadlines(a)
    assert snapshot(h.engine, b)[:6] == before_b


def test_service_accepts_the_default_clock(db_engine: Engine) -> None:
    service = Service(db_engine)
    out = service.command(private(ALICE), ALICE, "new", "schwimmen 1 normal", "k1")
    assert out.ok and out.table_id


def test_a_player_who_is_out_watches_and_may_skip_to_the_result(h: Harness) -> None:
    """Issue 17, item 3: after being knocked out a person is told so once and watches (one
    table message, edited; no result message each CPU round) and privately may skip to the
    result (the CPUs play the rest at once) or play again."""
    chat = private(ALICE)
    for attempt in range(8):
        if attempt == 0:
            table_id = new_private_game(h)
        else:  # she won that one: again
            table_id = h.press(chat, ALICE, h.buttons(chat, table_id)["again"]).table_id
        for _ in range(3000):  # Alice knocks at once, every time: she loses a lot
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
                h.press(chat, ALICE, shown[code])
        if h.state(table_id).out[0] and h.table(table_id).fsm_state != "finished":
            break
    else:
        raise AssertionError("Alice was never knocked out while the CPUs played on")
    assert any("✖ Du bist ausgeschieden – du schaust zu." in m.text
               for m in h.messages(chat))
    shown = h.buttons(chat, table_id)
    assert set(shown) == {"skip", "skip.again"}
    before = len(h.messages(chat))
    h.run_deadlines(table_id, kinds=("cpu",))  # the CPUs play on: no message of its own
    assert len(h.messages(chat)) == before
    out = h.press(chat, ALICE, shown["skip"])
    assert out.ok and h.table(table_id).fsm_state == "finished"
    with Session(h.engine) as session:
        assert session.exec(select(Result).where(Result.table_id == table_id)).first()
    assert "again" in h.buttons(chat, table_id)
