"""Which private views a move of a group game sends (issue 18, items 8 and 20), through the
service on a real SQLite file: a player who is out gets no edit on every move; on Matrix only
the mover's and the next player's views are sent during a round (every view when a round is
dealt), on Telegram every player's view follows every move."""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.service import ChatRef, Service, Settings, UserRef
from engine import GAMES
from storage.models import GameTable, Outbox
from tests.conftest import FakeClock
from tests.dealing import to_a_turn


def _group_game(engine: Engine, platform: str) -> tuple[Service, ChatRef, list[UserRef], int]:
    service = Service(engine, Settings(cpu_delay=0), clock=FakeClock())
    group = ChatRef(platform, "g-quiet", "group", "Ruhig")
    people = [UserRef(f"u{i}", name) for i, name in enumerate(("Ann", "Ben", "Cem"))]
    for user in people:
        assert service.command(ChatRef(platform, f"p-{user.external_id}"), user, "start").ok
    table_id = service.command(group, people[0], "new", "schwimmen").table_id
    assert table_id
    for user, code in ((people[1], "join"), (people[2], "join"), (people[0], "start")):
        version = service.table(table_id).version  # type: ignore[union-attr]
        assert service.press(group, user, f"v1:{table_id}:{version}:{code}").ok
    to_a_turn(service, group, people[0], table_id)  # (a round that ended on the deal)
    return service, group, people, table_id


def _views_after_a_move(engine: Engine, service: Service, platform: str,
                        people: list[UserRef], table_id: int) -> set[str]:
    """Make the move of the person on turn; the private chats that got a view for it."""
    table = service.table(table_id)
    assert table is not None and table.state_json
    game = GAMES["schwimmen"]
    state = game.from_json(table.state_json)
    mover = people[state.to_act]
    with Session(engine) as session:
        mark = max(r.id for r in session.exec(select(Outbox)).all())  # type: ignore[type-var]
    code = next(a.code for a in game.legal_actions(state) if a.code.startswith("swap."))
    assert service.press(ChatRef(platform, f"p-{mover.external_id}"), mover,
                         f"v1:{table_id}:{table.version}:{code}").changed
    with Session(engine) as session:
        rows = session.exec(select(Outbox).where(Outbox.id > mark)).all()
    return {r.chat_external_id for r in rows if r.chat_external_id.startswith("p-")}


def test_on_telegram_every_view_follows_every_move(sqlite_engine: Engine) -> None:
    service, _group, people, table_id = _group_game(sqlite_engine, "telegram")
    assert _views_after_a_move(sqlite_engine, service, "telegram", people, table_id) == \
        {"p-u0", "p-u1", "p-u2"}


def test_on_matrix_only_the_mover_and_the_next_player_get_a_view(sqlite_engine: Engine) -> None:
    service, _group, people, table_id = _group_game(sqlite_engine, "matrix")
    state = GAMES["schwimmen"].from_json(service.table(table_id).state_json)  # type: ignore[union-attr,arg-type]
    mover, after = state.to_act, (state.to_act + 1) % 3
    assert _views_after_a_move(sqlite_engine, service, "matrix", people, table_id) == \
        {f"p-u{mover}", f"p-u{after}"}


def test_a_player_who_is_out_gets_no_view_on_every_move(sqlite_engine: Engine) -> None:
    service, _group, people, table_id = _group_game(sqlite_engine, "telegram")
    game = GAMES["schwimmen"]
    with Session(sqlite_engine) as session, session.begin():
        table = session.get(GameTable, table_id)
        assert table is not None and table.state_json
        state = game.from_json(table.state_json)
        out = next(s for s in range(3) if s != state.to_act)  # (not the one on turn)
        state = state._replace(out=tuple(s == out for s in range(3)),
                               hands=tuple(() if s == out else h
                                           for s, h in enumerate(state.hands)))
        table.state_json = game.to_json(state)
        session.add(table)
    views = _views_after_a_move(sqlite_engine, service, "telegram", people, table_id)
    assert f"p-u{out}" not in views and len(views) == 2
