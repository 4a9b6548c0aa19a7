"""Issue 41, replay: a finished round of a table the person sat at, move by move with every hand
open, rebuilt from the seed and the move log (``engine.replay``) — reproducing the stored state
and result for all four games (random group games with CPU moves, turns run out, stand-ins and
away seats), in the chat as the person sees it (German and English: ``/replay``, the rounds as
buttons, one message edited in place by ◀ ▶), and never a card before its round ended or to
anybody who did not sit at the table."""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine

from chatbot.presenters import presenter
from chatbot.service import NotYourTable, Replayed, Settings, UserRef
from chatbot.service.core.transaction import Ctx
from chatbot.service.solo.replays import step_rows
from engine import GAMES
from engine.cards import show
from engine.replay import final_state, hands, replay
from storage.models import GameTable
from storage.retention import Retention, sweep
from tests.chatbot.replaying import open_game, play_to_end, play_to_round_end, result_of
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    GROUP,
    MALLORY,
    Harness,
    assert_brief_refusal,
    private,
    snapshot,
)
from tests.conftest import FakeClock

BEN = UserRef("ben", "Ben", language="en")  # reads English


@pytest.fixture(autouse=True)
def seeded_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Table seeds come from ``SystemRandom``: reproducible here (the CPUs fill at Normal,
    which thinks without a clock, so a run plays the same every time)."""
    seeds = random.Random(41)
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))


@pytest.fixture
def h(sqlite_engine: Engine, clock: FakeClock) -> Harness:
    return Harness(sqlite_engine, clock, cpu_delay=0)


@pytest.fixture
def both(db_engine: Engine, clock: FakeClock) -> Harness:
    """On SQLite and on PostgreSQL."""
    return Harness(db_engine, clock, cpu_delay=0)


def _rounds(h: Harness, table_id: int) -> list:
    table, seats = h.table(table_id), h.seats(table_id)
    return replay(table.game, len(seats), table.options.get("engine") or {}, table.seed,
                  [m.code for m in h.moves(table_id)])


@pytest.mark.parametrize("game", ["schwimmen", "scat", "runfast", "climbing"])
def test_the_log_replays_to_the_stored_state_and_result(h: Harness, game: str) -> None:
    rng = random.Random(f"replay-{game}")
    table_id = open_game(h, game, [ALICE, BOB])
    play_to_end(h, table_id, [ALICE, BOB], rng)
    table, seats = h.table(table_id), h.seats(table_id)
    actors = {m.actor for m in h.moves(table_id)}
    assert {"cpu", "timeout", "player"} <= actors, actors  # CPUs, stand-ins and people moved
    rounds = _rounds(h, table_id)
    engine = GAMES[game]
    last = final_state(rounds)
    assert json.loads(engine.to_json(last)) == json.loads(table.state_json)  # type: ignore[arg-type]
    result, p = result_of(h, table_id), presenter(game)
    assert result.winners == p.winners(last)
    assert result.standings == p.standings(last, [s.name for s in seats])
    assert len(rounds) == last.round_no and all(r.ended for r in rounds)
    assert [r.number for r in rounds] == list(range(1, len(rounds) + 1))
    # what the service shows the people who sat there is the same replay
    replayed, lang = h.service.replay_sight("test", "alice", None, table.token)  # type: ignore[misc]
    assert lang == "de" and replayed.seat_nos == (0,)
    assert [len(r.steps) for r in replayed.rounds] == [len(r.steps) for r in rounds]
    with pytest.raises(NotYourTable):
        h.service.replay_sight("test", "mallory", None, table.token)  # type: ignore[arg-type]
    assert h.service.replay_sight("test", "alice", None, "x" * 22) is None


def _shown(h: Harness, user: UserRef) -> tuple[str, list[str]]:
    message = h.messages(private(user))[-1]
    return message.text, message.labels()


def _press(h: Harness, user: UserRef, label: str) -> None:
    message = h.messages(private(user))[-1]
    data = dict(zip(message.labels(), message.data(), strict=True))[label]
    out = h.press(private(user), user, data)
    assert out.ok, out.text


def test_chat_replay_in_german(both: Harness) -> None:
    h = both
    table_id = open_game(h, "schwimmen", [ALICE, BOB])
    play_to_round_end(h, table_id, [ALICE, BOB], random.Random(3))
    assert h.command(private(ALICE), ALICE, "replay").ok
    text, labels = _shown(h, ALICE)
    assert text.startswith("↺ Nachspielen: deine letzten beendeten Runden.")
    assert labels == ["Schwimmen · Stammtisch · Runde 1"]
    count = len(h.messages(private(ALICE)))
    _press(h, ALICE, "Schwimmen · Stammtisch · Runde 1")
    rnd = _rounds(h, table_id)[0]
    text, labels = _shown(h, ALICE)
    assert len(h.messages(private(ALICE))) == count  # the list became the round, in place
    lines = text.split("\n")
    assert lines[0] == f"↺ Schwimmen · Stammtisch · Runde 1 · Zug 0/{rnd.moves}"
    assert lines[1] == "▶ Ausgeteilt."
    dealt = hands("schwimmen", rnd.steps[0].state)
    assert lines[2:5] == [f"{s.name}: {show(hand)}" for s, hand in zip(
        h.seats(table_id), dealt, strict=True)]  # every hand open
    assert any(line.startswith("Mitte: ") for line in lines)
    assert labels == ["⏮", "◀", "▶", "⏭", "↩ Runden"]
    _press(h, ALICE, "▶")
    text, _ = _shown(h, ALICE)
    assert text.split("\n")[0].endswith(f"Zug {min(1, rnd.moves)}/{rnd.moves}")  # (0: a 31)
    _press(h, ALICE, "⏭")
    text, _ = _shown(h, ALICE)
    assert text.split("\n")[0].endswith(f"Zug {rnd.moves}/{rnd.moves}")
    assert "Runde 1" in text.split("\n\n", 1)[1]  # the round's result at its last step
    _press(h, ALICE, "◀")
    assert _shown(h, ALICE)[0].split("\n")[0].endswith(f"Zug {max(0, rnd.moves - 1)}/{rnd.moves}")
    _press(h, ALICE, "↩ Runden")
    assert _shown(h, ALICE)[1] == ["Schwimmen · Stammtisch · Runde 1"]
    assert len(h.messages(private(ALICE))) == count
    assert h.command(private(ALICE), ALICE, "replay", "1").ok  # at once, at the bottom
    assert _shown(h, ALICE)[0].startswith("↺ Schwimmen · Stammtisch · Runde 1 · Zug 0/")
    assert_brief_refusal(h.command(private(ALICE), ALICE, "replay", "7"))


def test_chat_replay_in_english_and_a_run_fast_hand(h: Harness) -> None:
    table_id = open_game(h, "runfast", [BEN, BOB])
    play_to_round_end(h, table_id, [BEN, BOB], random.Random(4))
    assert h.command(private(BEN), BEN, "replay").ok
    text, labels = _shown(h, BEN)
    assert text.startswith("↺ Replay: your last finished rounds.")
    assert labels == ["Run Fast (Pao De Kuai) · Stammtisch · Hand 1"]
    _press(h, BEN, labels[0])
    rnd = _rounds(h, table_id)[0]
    text, labels = _shown(h, BEN)
    assert text.split("\n")[:2] == [f"↺ Run Fast (Pao De Kuai) · Stammtisch · Hand 1 · move 0/{rnd.moves}",
                                    "▶ Dealt."]
    assert labels == ["⏮", "◀", "▶", "⏭", "↩ Rounds"]
    seats = h.seats(table_id)
    for seat, line in zip(seats, text.split("\n")[2:5], strict=True):
        assert line.startswith(f"{seat.name}: ") and line.count("♠") + line.count("♥") \
            + line.count("♦") + line.count("♣") == 16  # every hand open
    _press(h, BEN, "▶")
    text, _ = _shown(h, BEN)
    assert text.split("\n")[0].endswith(f"move 1/{rnd.moves}")
    assert text.split("\n")[1].startswith("▶ ") and text.split("\n")[1] != "▶ Dealt."


def test_no_card_before_its_round_ended_and_only_for_who_sat_there(both: Harness) -> None:
    h = both
    table_id = open_game(h, "schwimmen", [ALICE, BOB])
    h.command(private(MALLORY), MALLORY, "start")
    forged = f"v1:0:0:rp.{table_id}.1.0"
    # during the first round: nothing to replay, and a forged press shows nothing
    assert h.command(private(ALICE), ALICE, "replay").ok
    assert _shown(h, ALICE)[0].startswith("↺ Noch keine beendete Runde zum Nachspielen.")
    assert "30 Tage" in _shown(h, ALICE)[0]
    before = snapshot(h.engine, table_id)
    out = h.press(private(ALICE), ALICE, forged)
    assert_brief_refusal(out)
    assert "noch nicht vorbei" in out.text  # type: ignore[operator]
    assert snapshot(h.engine, table_id) == before
    replayed, _ = h.service.replay_sight("test", "alice", None, table_id)  # type: ignore[misc]
    assert replayed.ended() == [] and replayed.round(1) is None
    play_to_round_end(h, table_id, [ALICE, BOB], random.Random(5))
    h.postman.deliver()
    # somebody who did not sit there, the group, a made-up table: refused, nothing queued
    before = snapshot(h.engine, table_id)
    for chat, user, data in ((private(MALLORY), MALLORY, forged), (GROUP, ALICE, forged),
                             (private(ALICE), ALICE, f"v1:0:0:rp.{table_id}.9.0"),
                             (private(ALICE), ALICE, "v1:0:0:rp.99999.1.0"),
                             (private(ALICE), ALICE, "v1:0:0:rp.x.1.0")):
        assert_brief_refusal(h.press(chat, user, data))
        assert snapshot(h.engine, table_id) == before
    assert_brief_refusal(h.command(GROUP, ALICE, "replay"))
    assert "privaten Chat" in h.command(GROUP, ALICE, "replay").text  # type: ignore[operator]
    assert not any("↺" in m.text for m in h.messages(private(MALLORY)))
    # the next round is being played: the first can be replayed, the second not yet
    table = h.table(table_id)
    assert table.fsm_state == "payout"
    assert h.press(GROUP, ALICE, f"v1:{table_id}:{table.version}:next").ok
    assert h.table(table_id).fsm_state in ("turn", "final_round")  # (seeded: no 31 dealt)
    assert h.press(private(ALICE), ALICE, forged).ok
    assert_brief_refusal(h.press(private(ALICE), ALICE, f"v1:0:0:rp.{table_id}.2.0"))



def test_replays_last_as_long_as_the_move_log(h: Harness) -> None:
    """Kept while retention keeps the move log: 30 days after the game ended, then gone."""
    table_id = open_game(h, "schwimmen", [ALICE, BOB])
    play_to_end(h, table_id, [ALICE, BOB], random.Random(9))
    finished = h.table(table_id).finished_at
    assert finished is not None
    h.clock.set(finished + timedelta(days=29))
    assert sweep(h.engine, h.clock(), Retention())["move"] == 0
    assert h.command(private(ALICE), ALICE, "replay").ok
    assert _shown(h, ALICE)[1][0].startswith("Schwimmen · Stammtisch · Runde ")
    h.clock.set(finished + timedelta(days=31))
    assert sweep(h.engine, h.clock(), Retention())["move"] > 0
    assert h.command(private(ALICE), ALICE, "replay").ok
    assert _shown(h, ALICE)[0].startswith("↺ Noch keine beendete Runde")
    out = h.press(private(ALICE), ALICE, f"v1:0:0:rp.{table_id}.1.0")
    assert_brief_refusal(out)
    assert out.text == "Diese Runde lässt sich nicht (mehr) nachspielen."


def test_on_telegram_the_round_opens_in_the_mini_app_too() -> None:
    """With the Mini App set up, the round's message links to its replay view (``&r=``)."""
    codes = ["pass", "pass", "pass"]
    rounds = replay("schwimmen", 3, {}, 7, codes)
    table = GameTable(id=5, chat_id=1, game="schwimmen", seed=7, token="T" * 22)
    replayed = Replayed(table, [], rounds, None, (0,))
    page = Settings(webapp_page=lambda token: f"https://bot.example/webapp/?t={token}")
    for platform, settings, app in (("telegram", page, True), ("matrix", page, False),
                                    ("telegram", Settings(), False)):
        ctx = Ctx(None, platform, "de", None, settings, None, None)  # type: ignore[arg-type]
        rows = step_rows(ctx, replayed, rounds[0], 1, "de")
        assert [label for row in rows for label, _ in row] == \
            ["⏮", "◀", "▶", "⏭", "↩ Runden", *(["↺ In der App nachspielen"] if app else [])]
        assert [d for _, d in rows[0]] == [f"v1:0:0:rp.5.1.{s}" for s in (0, 0, 2, 3)]
        if app:
            assert rows[2][0][1] == f"app:https://bot.example/webapp/?t={'T' * 22}&r=1"
