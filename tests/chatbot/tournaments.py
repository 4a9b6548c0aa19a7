"""Helpers of the tournament tests: people who wrote to the bot privately, a tournament
opened and joined in the group (short games: ``coins``), every table of a round played to its
end by its people (legal moves picked at random, pressed in their private chats) and its CPUs,
the round's steps fired on the fake clock, what the group and a person read."""

from __future__ import annotations

import random

from sqlmodel import Session, col, select

from chatbot.buttons import encode
from chatbot.service import ChatRef, Outcome, UserRef
from engine import GAMES
from storage.models import (
    GameTable,
    Player,
    Tournament,
    TournamentEntrant,
    TournamentScore,
    TournamentTable,
)
from tests.chatbot.service.harness import GROUP, Harness, code_of, private

ADMIN = UserRef("boss", "Chefin", language="de", is_admin=True)


def people(n: int, lang: str = "de") -> list[UserRef]:
    names = ["Alma", "Bruno", "Cem", "Dora", "Ede", "Fritzi", "Gustl", "Hanne", "Ida", "Jo",
             "Karla", "Lutz", "Mia", "Nepomuk", "Olga", "Paul"]
    return [UserRef(f"t{i}", names[i % len(names)] + ("" if i < len(names) else str(i)),
                    language=lang) for i in range(n)]


def greet(h: Harness, users: list[UserRef]) -> None:
    for user in users:
        assert h.command(private(user), user, "start").ok


def tournament(h: Harness, chat: ChatRef = GROUP) -> Tournament:
    with Session(h.engine) as session:
        found = session.exec(select(Tournament).order_by(col(Tournament.id).desc())).first()
        assert found is not None
        return found


def menu_buttons(h: Harness, chat: ChatRef = GROUP) -> dict[str, str]:
    h.postman.deliver()
    return {code_of(d): d for _label, d in h.transport.buttons(chat.external_id)
            if d.startswith("v1:0:")}


def open_tournament(h: Harness, users: list[UserRef], typed: str = "schwimmen 1",
                    coins: int | None = 1, join: bool = True) -> Tournament:
    """``users[0]`` opens ``/turnier <typed>`` in the group (Schwimmen with ``coins`` each:
    short games — the engine's option, set on the row as a test's shortcut), the users join."""
    out = h.command(GROUP, users[0], "turnier", typed)
    assert out.ok, out.text
    t = tournament(h)
    if coins is not None:
        with Session(h.engine) as session:
            row = session.get(Tournament, t.id)
            assert row is not None
            row.options = {**(row.options or {}), "engine": {"coins": coins}}
            session.add(row)
            session.commit()
    if join:
        join_all(h, users)
    return tournament(h)


def press_tn(h: Harness, user: UserRef, code: str, chat: ChatRef = GROUP) -> Outcome:
    """A tournament button (``j``, ``l``, ``s``, ``k.<person>``) of the newest tournament."""
    kind, _, rest = code.partition(".")
    t = tournament(h)
    return h.press(chat, user, encode(0, 0, f"tn.{kind}.{t.id}" + (f".{rest}" if rest else "")))


def start(h: Harness, user: UserRef) -> None:
    out = press_tn(h, user, "s")
    assert out.ok, out.text


def group_texts(h: Harness, chat: ChatRef = GROUP) -> list[str]:
    """Every text the group shows now, oldest first."""
    return [m.text for m in h.messages(chat)]


def entrant_states(h: Harness) -> dict[str, str]:
    """Each entrant's state (``in``, ``left``, ``removed``) by name."""
    t = tournament(h)
    with Session(h.engine) as session:
        rows = session.exec(select(TournamentEntrant, Player).join(
            Player, col(Player.id) == TournamentEntrant.player_id).where(
            TournamentEntrant.tournament_id == t.id)).all()
        return {p.name: e.state for e, p in rows}


def game_table(h: Harness, table_id: int | None) -> GameTable:
    assert table_id is not None
    return h.table(table_id)


def join_all(h: Harness, users: list[UserRef], chat: ChatRef = GROUP) -> None:
    t = tournament(h, chat)
    for user in users:
        out = h.press(chat, user, encode(0, 0, f"tn.j.{t.id}"))
        assert out.ok, out.text


def tables(h: Harness, round_no: int | None = None) -> list[TournamentTable]:
    t = tournament(h)
    with Session(h.engine) as session:
        return list(session.exec(select(TournamentTable).where(
            TournamentTable.tournament_id == t.id,
            TournamentTable.round_no == (round_no or t.round_no))
            .order_by(col(TournamentTable.table_no))).all())


def scores(h: Harness) -> list[TournamentScore]:
    with Session(h.engine) as session:
        return list(session.exec(select(TournamentScore)).all())


def fire_steps(h: Harness) -> int:
    """Fire the tournament's due steps (moving the clock to the next)."""
    t = tournament(h)
    if t.due_at is not None:
        h.clock.set(max(h.clock.now, t.due_at))
    fired = h.service.fire_tournaments()
    h.step()
    return fired


def play_table(h: Harness, table_id: int, by_name: dict[str, UserRef], rng: random.Random,
               max_steps: int = 3_000) -> None:
    """One game table to its end: CPUs by their deadlines, people by random legal moves."""
    for _ in range(max_steps):
        h.run_deadlines(table_id, kinds=("cpu", "next"))
        table = h.table(table_id)
        if table.fsm_state in ("finished", "abandoned"):
            return
        game = GAMES[table.game]
        state = game.from_json(table.state_json)
        seat_no = game.to_act(state)
        seat = next(s for s in h.seats(table_id) if s.seat_no == seat_no)
        user = by_name[seat.name]
        code = rng.choice([a.code for a in game.legal_actions(state)])
        out = h.press(private(user), user, encode(table_id, table.version, code))
        assert out.ok, out.text
    raise AssertionError("the game did not end")


def play_moves(h: Harness, table_id: int, users: list[UserRef], rng: random.Random,
               moves: int) -> None:
    """A few moves of people at a table (the CPUs moving in between); stops at its end."""
    by_name = {u.name: u for u in users}
    for _ in range(moves):
        h.run_deadlines(table_id, kinds=("cpu", "next"))
        table = h.table(table_id)
        if table.fsm_state in ("finished", "abandoned"):
            return
        game = GAMES[table.game]
        state = game.from_json(table.state_json)
        seat = next(s for s in h.seats(table_id) if s.seat_no == game.to_act(state))
        code = rng.choice([a.code for a in game.legal_actions(state)])
        user = by_name[seat.name]
        assert h.press(private(user), user, encode(table_id, table.version, code)).ok


def private_texts(h: Harness, user: UserRef) -> list[str]:
    return [m.text for m in h.messages(private(user))]


def play_round(h: Harness, users: list[UserRef], rng: random.Random) -> None:
    by_name = {u.name: u for u in users}
    for _ in range(10):  # a table's next games of the round follow the first
        playing = [t for t in tables(h) if t.state == "playing"]
        if not playing:
            return
        for row in playing:
            play_table(h, row.table_id, by_name, rng)  # type: ignore[arg-type]
    raise AssertionError("the round did not end")
