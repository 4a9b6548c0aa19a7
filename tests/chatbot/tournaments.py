"""Helpers of the tournament tests: people who wrote to the bot privately, a tournament
opened and joined in the group, every table of a round played to its end by its people
(legal moves picked at random, pressed in their private chats) and its CPUs, the round's
steps fired on the fake clock."""

from __future__ import annotations

import random

from sqlmodel import Session, col, select

from chatbot.buttons import encode
from chatbot.service import ChatRef, UserRef
from engine import GAMES
from storage.models import Tournament, TournamentScore, TournamentTable
from tests.chatbot.service.harness import GROUP, Harness, code_of, private


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


def play_round(h: Harness, users: list[UserRef], rng: random.Random) -> None:
    by_name = {u.name: u for u in users}
    for _ in range(10):  # a table's next games of the round follow the first
        playing = [t for t in tables(h) if t.state == "playing"]
        if not playing:
            return
        for row in playing:
            play_table(h, row.table_id, by_name, rng)  # type: ignore[arg-type]
    raise AssertionError("the round did not end")
