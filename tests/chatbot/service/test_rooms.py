"""Rooms, not rungs: a feature declared once (``core.registry.Feature``) is offered
everywhere — the service answers its command by every name, ``/help`` lists it on every
platform, Matrix reads its ``!`` words — it hears the core's events inside the input's
transaction, its scheduled steps run from the one tick, and the adapters ask the service for
a press's policy. The Telegram command menus are in tests/telegram/test_command_menus.py."""

from __future__ import annotations

import random

import pytest
from sqlmodel import Session, select

from chatbot import buttons
from chatbot.matrix.render import Intent, parse
from chatbot.service import (
    FEATURES,
    ChatRef,
    Command,
    Feature,
    Outcome,
    Service,
    Settings,
    Where,
    command_words,
)
from chatbot.service.core.events import (
    GameFinished,
    PersonSeen,
    RoundEnded,
    TableClosed,
    TableMoved,
)
from chatbot.service.core.registry import Button, Registry, Step, Subcommand
from storage.keyvalue import get_value
from storage.models import KeyValue, Outbox

from .harness import (
    ALICE,
    BOB,
    GROUP,
    Harness,
    new_private_game,
    open_group_table,
    play_private_to_the_end,
    private,
)


def _dice(ctx, chat, player, user, words):  # type: ignore[no-untyped-def]
    return Outcome(f"🎲 {random.Random(words).randint(1, 6)}")


DICE = Feature("dice", commands=(
    Command("dice", _dice, "command.daily", names={"de": "wuerfeln"}, aliases=("w6",)),))


def _service(h: Harness, *extra: Feature) -> Service:
    return Service(h.engine, h.service.settings, h.clock, (*FEATURES, *extra))


def test_a_command_declared_once_is_answered_by_every_name_and_listed_in_help(
        db_engine, clock) -> None:
    h = Harness(db_engine, clock)
    service = _service(h, DICE)
    for name in ("dice", "wuerfeln", "W6"):
        assert service.command(private(ALICE), ALICE, name, "x").text.startswith("🎲")
    # /help lists it, in the chat's language, as each platform types it
    for platform, prefix in (("telegram", "/"), ("matrix", "!")):
        chat = ChatRef(platform, f"{platform}-alice", "private")
        service.command(chat, ALICE, "help")
        with Session(db_engine) as session:
            texts = list(session.exec(select(Outbox.text).where(
                Outbox.chat_external_id == chat.external_id)))
        assert any(f"{prefix}wuerfeln – " in t for t in texts), texts  # (Alice speaks German)
        assert any(f"{prefix}new – " in t for t in texts)
    # Matrix reads its words with the service's names
    words = service.command_words()
    assert parse("!wuerfeln 3", commands=words) == Intent("command", "dice", "3")
    assert parse("!w6", commands=words) == Intent("command", "dice")
    assert "wuerfeln" not in command_words()  # (the bot as shipped has no dice)


def test_a_command_offered_only_in_groups_says_so_elsewhere(sqlite_engine, clock) -> None:
    h = Harness(sqlite_engine, clock)
    out = h.command(private(ALICE), ALICE, "abend", "fr 20:00")
    assert not out.ok and "Gruppe" in (out.text or "")
    out = h.command(GROUP, ALICE, "games")
    assert not out.ok and "privat" in (out.text or "").lower()


def test_a_name_declared_twice_is_refused_at_once() -> None:
    twin = Feature("twin", commands=(Command("games", _dice, "command.daily"),))
    with pytest.raises(ValueError, match="command games is declared twice"):
        Registry((*FEATURES, twin))
    with pytest.raises(ValueError, match="button pz"):
        Registry((*FEATURES, Feature("x", buttons=(Button("pz", _dice),))))


def test_a_subcommand_of_another_room_answers_its_words_in_groups_only(sqlite_engine,
                                                                      clock) -> None:
    h = Harness(sqlite_engine, clock)
    heard: list[str] = []

    def top_week(ctx, chat, player, user, words):  # type: ignore[no-untyped-def]
        heard.append(words)
        return Outcome("week")

    service = _service(h, Feature("week", subcommands=(
        Subcommand("top", ("woche", "week"), top_week, where=Where.GROUP),)))
    assert service.command(GROUP, ALICE, "top", "Woche").text == "week"
    assert service.command(private(ALICE), ALICE, "top", "woche").text != "week"
    assert heard == ["Woche"]


def test_the_features_hear_the_cores_events_inside_the_inputs_transaction(db_engine,
                                                                         clock) -> None:
    h = Harness(db_engine, clock, cpu_delay=0)
    heard: list[tuple[str, int | None]] = []

    def note(kind: str):  # type: ignore[no-untyped-def]
        def subscriber(ctx, event):  # type: ignore[no-untyped-def]
            table = getattr(event, "table", None)
            heard.append((kind, table.id if table is not None else None))
            ctx.session.merge(KeyValue(key=f"heard:{kind}", value="1"))  # (in the transaction)
        return subscriber

    listener = Feature("listener", subscriptions=tuple(
        (kind, note(kind.__name__)) for kind in
        (GameFinished, RoundEnded, TableMoved, TableClosed, PersonSeen)))
    h.service = _service(h, listener)
    table_id = new_private_game(h)
    play_private_to_the_end(h, table_id, ALICE, random.Random(5))
    kinds = [k for k, t in heard if t == table_id]
    assert kinds.count("GameFinished") == 1 and "TableMoved" in kinds
    last_round = len(kinds) - 1 - kinds[::-1].index("RoundEnded")
    assert kinds.index("GameFinished") < last_round  # (the last round ended the game)
    lobby = open_group_table(h, [ALICE, BOB])
    assert ("PersonSeen", None) in heard
    h.command(GROUP, ALICE, "stop")
    assert ("TableClosed", lobby) in heard
    for kind in ("GameFinished", "RoundEnded", "TableMoved", "TableClosed", "PersonSeen"):
        assert get_value(db_engine, f"heard:{kind}") == "1"


def test_a_subscriber_that_fails_rolls_the_input_back(sqlite_engine, clock) -> None:
    h = Harness(sqlite_engine, clock)

    def broken(ctx, event):  # type: ignore[no-untyped-def]
        raise RuntimeError("broken room")

    h.service = _service(h, Feature("broken", subscriptions=((TableClosed, broken),)))
    table_id = open_group_table(h, [ALICE, BOB])
    with pytest.raises(RuntimeError):
        h.service.command(GROUP, ALICE, "stop", update_key=h.key())
    assert h.table(table_id).fsm_state == "lobby"  # nothing of the stop counted


def test_the_press_policy_is_the_buttons_declaration(sqlite_engine, clock) -> None:
    service = Harness(sqlite_engine, clock).service
    policy = service.press_policy
    assert policy(buttons.encode(3, 1, "start")).admin
    assert policy(buttons.encode(0, 0, "lang.de")).admin
    assert not policy(buttons.encode(3, 1, "join")).admin
    for thinking in ("tip", "review", "skip", "skip.again"):
        assert policy(buttons.encode(3, 1, thinking)).thinks
        assert not policy(buttons.encode(3, 1, thinking)).batches
    move = policy(buttons.encode(3, 1, "swap.7H.8H"))
    assert move.batches and not move.thinks and not move.admin
    assert policy("garbage") == policy(None) == policy(buttons.encode(3, 1, "swap.7H.8H"))
    assert service.asks_admin("abend", "ende") and service.asks_admin("abend", "")
    assert service.asks_admin("stop", "") and not service.asks_admin("games", "")


def test_one_tick_lists_what_is_due_and_runs_each_step_at_its_interval(sqlite_engine,
                                                                       clock) -> None:
    h = Harness(sqlite_engine, clock, cpu_delay=0)
    ran: list[str] = []

    def counted(parts, platform):  # type: ignore[no-untyped-def]
        ran.append(platform)
        return 1

    hourly = Step("hourly", counted, every=3600)
    h.service = service = _service(h, Feature("hourly", steps=(hourly,)))
    names = [d.step.name for d in service.tick("test") if d.step is not None]
    assert names == ["retention", "stats.catch_up", "evening.steps", "daily.posts",
                     "league.weeks", "tournament.steps", "hourly"]
    again = [d.step.name for d in service.tick("test") if d.step is not None]
    assert "hourly" not in again and "retention" not in again and "evening.steps" in again
    assert service.run_step("hourly", "test") == 1 and ran == ["test"]
    # a table's deadline that is due is listed with the steps (and fired once by run_tick)
    lobby = open_group_table(h, [ALICE, BOB])
    clock.advance(16 * 60)  # (a lobby nobody starts closes after 15 minutes)
    due = [(d.table_id, d.version) for d in service.tick("test") if d.step is None]
    assert due == [(lobby, h.table(lobby).version)]
    assert service.run_tick("test") == 5  # (the lobby's end, and the four steps of every tick)
    assert h.table(lobby).fsm_state != "lobby"
    assert [d for d in service.tick("test") if d.step is None] == []


def test_a_room_that_thinks_first_gets_its_plan_in_the_press(sqlite_engine, clock) -> None:
    h = Harness(sqlite_engine, clock)
    thought: list[str] = []

    def think(parts, chat_ref, user, press):  # type: ignore[no-untyped-def]
        thought.append(press.code)
        return {"thought": press.code}

    def run(ctx, chat, player, user, code):  # type: ignore[no-untyped-def]
        return Outcome(f"{ctx.plan['thought']} ✓")

    service = _service(h, Feature("thinker", buttons=(
        Button("hmm", run, on_table=False, think=think),)))
    data = buttons.encode(0, 0, "hmm.1")
    assert service.press_policy(data).thinks
    assert service.press(private(ALICE), ALICE, data).text == "hmm.1 ✓"  # (thought here)
    plan = service.think(private(ALICE), ALICE, data)
    assert service.press(private(ALICE), ALICE, data, plan=plan).text == "hmm.1 ✓"
    assert thought == ["hmm.1", "hmm.1"]  # (the second press took the adapter's plan)


def test_settings_pass_through_the_assembled_service(sqlite_engine) -> None:
    service = Service(sqlite_engine, Settings(cpu_delay=0.5))
    assert service.settings.cpu_delay == 0.5
    assert [f.name for f in service.registry.features] == \
        ["core", *(f.name for f in FEATURES)]
    with Session(sqlite_engine) as session:
        assert session.exec(select(KeyValue)).all() == []
