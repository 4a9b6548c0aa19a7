"""Bad input: forged, stale and foreign presses, misplaced commands, garbage text.

Each gets a short answer (an alert text or a short message), never a traceback, and leaves the
table exactly as it was: same version and move log in the database, same table message.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from tests.fakes.telegram_api import FakeBotApi

from .harness import (
    TRACEBACK_MARKERS,
    WAIT,
    BotProcess,
    Db,
    GroupGame,
    answer_text,
    bot_texts,
    buttons,
    codes,
    greet,
    move_datas,
    parse_data,
    press_and_settle,
    private_menu_to_table,
    private_turn,
    snapshot,
)

pytestmark = pytest.mark.e2e


def _short(answer: str | None) -> str:
    assert answer, "no answer text"
    assert len(answer) <= 200, answer
    assert not any(marker in answer for marker in TRACEBACK_MARKERS), answer
    return answer


def _wait_reply(fake: FakeBotApi, chat: int, since: int, needle: str) -> str:
    call = fake.wait_for_call("sendMessage", lambda c: int(c["params"]["chat_id"]) == chat
                              and needle in c["params"]["text"], timeout=WAIT, since=since)
    return _short(call["params"]["text"])


def test_bad_input_gets_short_answer_and_changes_nothing(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess],
        db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=120)
    db = db_reader(sqlite_url)
    rng = random.Random(3)

    # ---------------------------------------------------------------- a private game
    me = 7001
    greet(fake, me, "Mia")
    table_id, mid = private_menu_to_table(fake, me, opponents=2)

    def my_turn() -> dict:  # CPUs move, and a round may end before my turn: dealt on
        return private_turn(fake, me, table_id, mid)

    old = my_turn()
    old_datas = move_datas(old, table_id)
    # one real move, so that the first keyboard is out of date
    assert press_and_settle(fake, me, me, mid, next(d for d in old_datas
                                                     if d.endswith(":all"))) is None
    now = my_turn()
    version = db.table(table_id)["version"]
    n_moves = len(db.moves(table_id))
    assert parse_data(move_datas(now, table_id)[0])[1] == version  # type: ignore[index]
    before = snapshot(now)

    middle = json.loads(db.table(table_id)["state_json"])["middle"]
    forged = [f"v1:{table_id}:{version}:swap.{middle[0]}.{middle[1]}",  # not in my hand
              "garbage", "v1:zz:1:knock", "v2:1:1:knock", "v1:99999:0:knock",
              f"v1:{table_id}:{version}:swap.XX.YY", f"v1:{table_id}:{version}:explode",
              f"v1:{table_id}:{version}:swap.7H", f"v1:{table_id}:{version + 5}:knock",
              f"v1:{table_id}:-1:knock", "v1:0:0:g.nosuchgame", "v1:0:0:g.schwimmen.9"]
    stale = [d for d in old_datas if d not in move_datas(now, table_id)][:3]
    assert stale
    answers: dict[str, str] = {}
    for data in forged + stale:
        uid = fake.press(me, me, mid, data, check_data=False)
        answers[data] = _short(answer_text(fake, uid))
    for data in stale:
        assert "veraltet" in answers[data], answers[data]
    assert "veraltet" in answers["garbage"]  # a forged button: the stale answer
    for data in forged[:1] + [d for d in forged if d.endswith((".YY", "explode"))]:
        assert "Dieser Zug geht nicht" in answers[data], answers[data]
    assert "gibt es nicht mehr" in answers["v1:99999:0:knock"]

    since = fake.last_seq()
    fake.send_text(me, me, "hallo, was geht?")
    _wait_reply(fake, me, since, "verstehe ich nicht")
    since = fake.last_seq()
    fake.send_text(me, me, "/frobnicate")
    _wait_reply(fake, me, since, "verstehe ich nicht")

    assert db.table(table_id)["version"] == version
    assert len(db.moves(table_id)) == n_moves
    assert snapshot(fake.message(me, mid)) == before
    # and the real buttons still work
    assert press_and_settle(fake, me, me, mid, move_datas(now, table_id)[0]) is None
    assert len(db.moves(table_id)) > n_moves

    # ---------------------------------------------------------------- a command where no table is
    since = fake.last_seq()
    fake.send_text(-7100, me, "/stop")
    _wait_reply(fake, -7100, since, "kein Tisch")

    # ---------------------------------------------------------------- a group game
    names = {7201: "Ada", 7202: "Ben", 7203: "Cem"}
    stranger = 7299
    game = GroupGame(fake, -7200, list(names), names, rng)
    game.hello()
    greet(fake, stranger, "Zoe")
    lobby_codes: dict[str, str] = {}
    game.open(extra=lambda: lobby_codes.update(codes(game.table_message(), game.table_id)))
    for u in names:
        fake.wait_for(lambda u=u: game.hand_message(u), WAIT, message=f"{names[u]}'s cards")
    turn = fake.wait_for(game.on_turn, WAIT, message="somebody on turn")
    user, hand = turn
    others = [u for u in names if u != user]
    plain = next(u for u in others if u != game.users[0])  # neither on turn nor the opener
    version = db.table(game.table_id)["version"]
    n_moves = len(db.moves(game.table_id))
    fake.wait_for(lambda: codes(game.table_message(), game.table_id).get("cards", "")
                  .split(":")[2:3] == [str(version)], WAIT, message="the table message drawn")

    def hand_drawn(u: int) -> bool:  # (a round that ended on the deal is drawn over)
        datas = codes(game.hand_message(u), game.table_id).values()
        return bool(datas) and all(d.split(":")[2] == str(version) for d in datas)
    fake.wait_for(lambda: all(hand_drawn(u) for u in names), WAIT,
                  message="every hand message drawn at the table's version")
    table_before = snapshot(game.table_message())
    hands_before = {u: snapshot(game.hand_message(u)) for u in names}
    move = move_datas(hand, game.table_id)[0]
    cards = codes(game.table_message(), game.table_id)["cards"]
    # (the game menu says what was chosen and shows no buttons any more; a client that still
    # shows them, or a forged press, gets an answer all the same)
    menu = next(m for m in fake.messages(game.group)
                if m["text"] == "Welches Spiel? → Schwimmen" and not buttons(m))

    group_presses = [
        (stranger, cards, False, "sitzt nicht"),           # not seated: no cards to show
        (stranger, move, False, "sitzt nicht"),            # not seated: no move either
        (others[0], move, False, "nicht am Zug"),          # seated, not on turn
        (others[1], move, False, "nicht am Zug"),
        (others[0], lobby_codes["start"], False, ""),      # the lobby is over
        (stranger, lobby_codes["join"], False, ""),        # too late to join
        (plain, lobby_codes["stop"], False, "veraltet"),   # an old lobby button: stale
        (others[0], "v1:0:0:g.schwimmen", False, "läuft schon"),  # the old game menu
    ]
    for presser, data, check, needle in group_presses:
        msg_id = menu["message_id"] if data.startswith("v1:0:") else game.table_msg
        uid = fake.press(game.group, presser, msg_id, data, check_data=check)
        answer = answer_text(fake, uid)
        assert answer and needle in _short(answer), (presser, data, answer)

    since = fake.last_seq()
    fake.send_text(game.group, others[0], "/new")
    _wait_reply(fake, game.group, since, "läuft schon")
    since = fake.last_seq()
    fake.send_text(game.group, plain, "/stop")
    _wait_reply(fake, game.group, since, "Beenden kann den Tisch nur")

    assert db.table(game.table_id)["version"] == version
    assert len(db.moves(game.table_id)) == n_moves
    assert db.table(game.table_id)["fsm_state"] in ("turn", "final_round")
    assert snapshot(game.table_message()) == table_before
    assert {u: snapshot(game.hand_message(u)) for u in names} == hands_before
    # the player on turn can still move with the same buttons
    assert press_and_settle(fake, user, user, hand["message_id"], move) is None
    fake.wait_for(lambda: len(db.moves(game.table_id)) > n_moves, WAIT,
                  message="the move in the log")

    everything = bot_texts(fake, [me, game.group, stranger, *names, -7100])
    for t in everything:
        assert not any(marker in t for marker in TRACEBACK_MARKERS), t
