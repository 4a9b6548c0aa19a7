"""Issue 17, items 8, 19 and 20 through the fake Bot API, as the players see them, in German and
English (answers in the presser's language, group messages in the group's):

* the opener chooses how many CPU players fill the table (➖ CPU / ➕ CPU, at most the free seats);
* "play again" at the end of a group game seats everybody again: the presser is in, the others
  confirm with one tap, a seat not confirmed in time is freed, the CPU comes along; privately,
  "play again" is the same game against the same CPU players;
* resigning asks first ("Yes, resign" / "Cancel"): in a group a CPU takes the seat, and the
  table closes when the last person leaves; privately the game ends as a loss.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable

from tests.fakes.telegram_api import FakeBotApi

from .harness import (
    WAIT,
    BotProcess,
    Db,
    GroupGame,
    answer_text,
    buttons,
    codes,
    peek,
    snapshot,
    table_of,
)


def _rows(msg: dict | None) -> list[list[str]]:
    """The keyboard's labels, row by row."""
    markup = (msg or {}).get("reply_markup") or {}
    return [[b.get("text", "") for b in row] for row in markup.get("inline_keyboard") or []]


def _labels(msg: dict | None) -> list[str]:
    return [label for label, _ in buttons(msg)]


def _tap(fake: FakeBotApi, chat: int, user: int, message_id: int, data: str,
         lang: str) -> str | None:
    """A press by a person whose Telegram speaks ``lang``; the answer's text."""
    return answer_text(fake, fake.press(chat, user, message_id, data, language_code=lang))


def _hello(fake: FakeBotApi, user: int, name: str, lang: str) -> None:
    since = fake.last_seq()
    fake.send_text(user, user, "/start", user_first_name=name, language_code=lang)
    fake.wait_for_call("sendMessage", lambda c: int(c["params"]["chat_id"]) == user
                       and "Stammtisch" in c["params"]["text"], timeout=WAIT, since=since)


def _newest_with(fake: FakeBotApi, chat: int, code: str, not_table: int | None = None,
                 ) -> dict:
    return fake.wait_for(lambda: next((m for m in reversed(fake.messages(chat))
                                       if code in codes(m) and table_of(m) != not_table),
                                      None), WAIT, message=f"a message with {code!r}")


def _menu(fake: FakeBotApi, chat: int) -> dict:
    return fake.wait_for(lambda: next((m for m in reversed(fake.messages(chat))
                                       if "v1:0:0:g.schwimmen" in [d for _, d in buttons(m)]),
                                      None), WAIT, message="the game menu")


def _wait_text(fake: FakeBotApi, chat: int, message_id: int, *parts: str) -> dict:
    return fake.wait_for(lambda: (m := peek(fake, chat, message_id))
                         and all(p in (m["text"] or "") for p in parts) and m, WAIT,
                         message=f"{parts} in message {message_id} of chat {chat}")


def _said(fake: FakeBotApi, chat: int, text: str) -> None:
    fake.wait_for(lambda: any((m["text"] or "") == text for m in fake.messages(chat)), WAIT,
                  message=f"{text!r} in chat {chat}")


def _play_to_the_end(g: GroupGame, langs: dict[int, str], timeout: float = 90.0) -> None:
    """The people move when their private message offers moves (knocking often)."""
    pressed: dict[tuple[int, int], tuple] = {}
    deadline = time.monotonic() + timeout
    while "again" not in codes(g.table_message(), g.table_id):
        assert time.monotonic() < deadline, "the group game did not end"
        turn = g.on_turn()
        if turn is None:
            time.sleep(0.01)
            continue
        user, msg = turn
        key = (user, msg["message_id"])
        if pressed.get(key) == snapshot(msg):
            time.sleep(0.01)
            continue
        pressed[key] = snapshot(msg)
        g.fake.press(user, user, msg["message_id"], g.pick(user, msg),
                     language_code=langs[user], check_data=False)


def test_cpu_count_rematch_and_leaving_in_a_group(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess],
        db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url, CPU_DELAY=0.01, NEXT_ROUND_DELAY=0.1, REMATCH_TIMEOUT=6)
    db = db_reader(sqlite_url)
    alma, ben, cleo, group = 7101, 7102, 7103, -7100
    names = {alma: "Alma", ben: "Ben", cleo: "Cleo"}
    langs = {alma: "de", ben: "en", cleo: "de"}
    for u in names:
        _hello(fake, u, names[u], langs[u])

    # ------------------------------------------------ item 8: the opener chooses the CPUs
    fake.send_text(group, alma, "/new", user_first_name="Alma", language_code="de")
    menu = _menu(fake, group)
    assert _tap(fake, group, alma, menu["message_id"], "v1:0:0:g.schwimmen", "de") is None
    lobby = _newest_with(fake, group, "join")
    table_id, mid = table_of(lobby), lobby["message_id"]
    assert table_id is not None
    assert _tap(fake, group, ben, mid, codes(lobby)["join"], "en") == "You're in."
    lobby = _wait_text(fake, group, mid, "2. Ben")
    assert _tap(fake, group, cleo, mid, codes(lobby)["join"], "de") == "Du bist dabei."
    lobby = _wait_text(fake, group, mid, "3. Cleo")
    assert _rows(lobby) == [["Mitmachen", "Aussteigen"], ["Starten", "Beenden"],
                            ["➖ CPU", "0 CPU 🤖", "➕ CPU"], ["⏱ 60 s", "Währung: Münzen 🪙"]]
    assert lobby["text"].endswith("\n⏱ 60 s · 🤖 keine CPU")
    assert _tap(fake, group, alma, mid, codes(lobby)["fill.+"], "de") is None
    lobby = _wait_text(fake, group, mid, "4. 🤖 Anna (CPU)", "⏱ 60 s · 🤖 1 CPU (Normal)")
    assert _rows(lobby)[2] == ["➖ CPU", "1 CPU · Normal 🤖", "➕ CPU"]
    # Schwimmen seats four: three people and one CPU fill it
    assert _tap(fake, group, alma, mid, codes(lobby)["fill.+"], "de") == \
        "Mehr freie Plätze hat der Tisch nicht."
    assert _tap(fake, group, ben, mid, codes(lobby)["fill.-"], "en") == \
        "Only the opener of the table or an admin can change its settings."
    assert _tap(fake, group, alma, mid, codes(lobby)["start"], "de") == "Los geht's!"
    fake.wait_for(lambda: "cards" in codes(peek(fake, group, mid)), WAIT,
                  message="the game to start")
    assert [(s["name"], bool(s["is_cpu"])) for s in db.seats(table_id)] == [
        ("Alma", False), ("Ben", False), ("Cleo", False), ("🤖 Anna", True)]

    # ------------------------------------------------ item 19: play again keeps the players
    g = GroupGame(fake, group, list(names), names, random.Random(17), table_id=table_id,
                  table_msg=mid, knock_bias=0.7)
    _play_to_the_end(g, langs)
    final = g.table_message()  # (it may have been posted anew at the bottom meanwhile)
    assert _tap(fake, group, ben, final["message_id"], codes(final)["again"], "en") == \
        "Rematch! The others confirm with “✅ I'm in”."
    rematch = _newest_with(fake, group, "join", not_table=table_id)
    new_id, new_mid = table_of(rematch), rematch["message_id"]
    assert new_id is not None and new_id != table_id
    assert rematch["text"].splitlines() == [
        "🔁 Schwimmen – Revanche",
        "Wer wieder mitspielt, tippt „✅ Dabei“ (innerhalb von 6 s). Es geht los, sobald alle "
        "bestätigt haben.",
        "1. Alma ⏳ wartet auf Bestätigung",
        "2. Ben ✅",
        "3. Cleo ⏳ wartet auf Bestätigung",
        "4. 🤖 Anna (CPU)",
    ]
    assert _rows(rematch) == [["✅ Dabei", "Aussteigen"], ["Starten", "Beenden"]]
    assert _tap(fake, group, alma, new_mid, codes(rematch)["join"], "de") == \
        "Du bist wieder dabei."
    _wait_text(fake, group, new_mid, "1. Alma ✅", "3. Cleo ⏳")
    # Cleo does not confirm: when the time is up her seat is freed, the others play
    _said(fake, group, "⌛ Nicht rechtzeitig bestätigt: Cleo – Platz frei.")
    fake.wait_for(lambda: "cards" in codes(peek(fake, group, new_mid)), WAIT,
                  message="the rematch to start")
    assert [(s["name"], bool(s["is_cpu"])) for s in db.seats(new_id)] == [
        ("Alma", False), ("Ben", False), ("🤖 Anna", True)]

    # ------------------------------------------------ item 20: leaving asks first
    g = GroupGame(fake, group, [alma, ben], names, random.Random(3), table_id=new_id,
                  table_msg=new_mid)
    hand = fake.wait_for(lambda: (m := g.hand_message(ben)) and "resign" in codes(m) and m,
                         WAIT, message="Ben's hand with the resign button")
    assert _rows(hand)[-1] == ["🏳 Resign", "📜 Log"]
    assert _tap(fake, ben, ben, hand["message_id"], codes(hand)["resign"], "en") is None
    ask = _wait_text(fake, ben, hand["message_id"], "🏳 Really leave? A CPU takes over your seat.")
    assert _rows(ask) == [["Yes, resign", "Cancel"]]
    assert _tap(fake, ben, ben, hand["message_id"], codes(ask)["resign.n"], "en") == "Carry on."
    hand = fake.wait_for(lambda: (m := peek(fake, ben, hand["message_id"]))
                         and _rows(m) and _rows(m)[-1] == ["🏳 Resign", "📜 Log"] and m, WAIT,
                         message="the question gone")
    assert "Really leave" not in hand["text"]
    assert _tap(fake, ben, ben, hand["message_id"], codes(hand)["resign"], "en") is None
    ask = _wait_text(fake, ben, hand["message_id"], "Really leave?")
    assert _tap(fake, ben, ben, hand["message_id"], codes(ask)["resign.y"], "en") == \
        "You left the game."
    _said(fake, group, "🚪 Ben ist ausgestiegen – eine CPU übernimmt den Platz.")
    left = _wait_text(fake, ben, hand["message_id"], "You left the game.")
    assert left["text"] == "You left the game." and not _rows(left)
    seat = db.seats(new_id)[1]
    assert (seat["name"], bool(seat["is_cpu"]), seat["player_id"]) == ("🤖 Ben", True, None)
    assert db.table(new_id)["fsm_state"] not in ("finished", "abandoned")
    # the last person: the question says the table closes, and it does
    hand = fake.wait_for(lambda: (m := g.hand_message(alma)) and "resign" in codes(m) and m,
                         WAIT, message="Alma's hand with the resign button")
    assert _rows(hand)[-1] == ["🏳 Aufgeben", "📜 Verlauf"]
    assert _tap(fake, alma, alma, hand["message_id"], codes(hand)["resign"], "de") is None
    ask = _wait_text(fake, alma, hand["message_id"],
                     "🏳 Wirklich aussteigen? Du bist der letzte Mensch am Tisch – der Tisch endet.")
    assert _rows(ask) == [["Ja, aufgeben", "Abbrechen"]]
    assert _tap(fake, alma, alma, hand["message_id"], codes(ask)["resign.y"], "de") == \
        "Der Tisch wurde beendet."
    _wait_text(fake, group, new_mid, "Tisch beendet.")
    assert db.table(new_id)["fsm_state"] == "abandoned"


def test_resign_and_play_again_privately(fake: FakeBotApi, sqlite_url: str,
                                         start_bot: Callable[..., BotProcess],
                                         db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url, CPU_DELAY=0.01)
    db = db_reader(sqlite_url)
    for user, name, lang in ((7201, "Emma", "en"), (7202, "Fritz", "de")):
        _resign_privately(fake, db, user, name, lang)


_PRIVATE = {
    "en": ("🏳 Resign", "🏳 Really resign? The game ends and counts as a loss.",
           ["Yes, resign", "Cancel"], "Carry on.",
           "🏳 You resigned – the game counts as a loss.",
           "🏆 Winners: 🤖 Anna, 🤖 Bernd", ["Play again", "🔁 Same cards"]),
    "de": ("🏳 Aufgeben", "🏳 Wirklich aufgeben? Das Spiel endet und zählt als verloren.",
           ["Ja, aufgeben", "Abbrechen"], "Weiter geht's.",
           "🏳 Du hast aufgegeben – das Spiel zählt als verloren.",
           "🏆 Gewinner: 🤖 Anna, 🤖 Bernd", ["Nochmal spielen", "🔁 Gleiche Karten"]),
}


def _resign_privately(fake: FakeBotApi, db: Db, user: int, name: str, lang: str) -> None:
    """Resign a private game (asked, cancelled, asked again, yes), then play again."""
    resign, ask_text, ask_rows, cancelled, resigned, winners, again = _PRIVATE[lang]
    _hello(fake, user, name, lang)
    fake.send_text(user, user, "/new", language_code=lang)
    menu = _menu(fake, user)
    for data in ("v1:0:0:g.schwimmen", "v1:0:0:g.schwimmen.2",
                 "v1:0:0:g.schwimmen.2.normal"):
        fake.wait_for(lambda d=data: d in [x for _, x in buttons(
            peek(fake, user, menu["message_id"]))], WAIT, message=data)
        assert _tap(fake, user, user, menu["message_id"], data, lang) is None
    msg = fake.wait_for(lambda: next((m for m in fake.messages(user)
                                      if "resign" in codes(m)), None), WAIT,
                        message="the private table")
    table_id, mid = table_of(msg), msg["message_id"]
    log = {"en": "📜 Log", "de": "📜 Verlauf"}[lang]
    assert table_id is not None and _rows(msg)[-1] == [resign, log]
    assert _tap(fake, user, user, mid, codes(msg)["resign"], lang) is None
    ask = _wait_text(fake, user, mid, ask_text)
    assert _rows(ask) == [ask_rows]
    assert _tap(fake, user, user, mid, codes(ask)["resign.n"], lang) == cancelled
    msg = fake.wait_for(lambda: (m := peek(fake, user, mid)) and ask_text not in m["text"]
                        and m, WAIT, message="the question gone")
    assert _rows(msg)[-1] == [resign, log]
    assert _tap(fake, user, user, mid, codes(msg)["resign"], lang) is None
    ask = _wait_text(fake, user, mid, ask_text)
    assert _tap(fake, user, user, mid, codes(ask)["resign.y"], lang) == resigned
    over = _wait_text(fake, user, mid, resigned, winners)
    assert _rows(over) == [again]  # (against Normal: no tips, no review)
    result = fake.wait_for(lambda: db.result(table_id), WAIT, message="the result")
    standings = result["standings"]
    if isinstance(standings, str):
        standings = json.loads(standings)
    assert [r.get("resigned", False) for r in standings] == [True, False, False]
    # play again: the same game against the same CPU players
    assert _tap(fake, user, user, mid, codes(over)["again"], lang) is None
    new = fake.wait_for(lambda: next((m for m in fake.messages(user)
                                      if table_of(m) not in (None, table_id)), None),
                        WAIT, message="the new table")
    new_id = table_of(new)
    assert new_id is not None and "🤖 Anna" in new["text"] and "🤖 Bernd" in new["text"]
    assert [(s["name"], bool(s["is_cpu"]), s["cpu_level"]) for s in db.seats(new_id)] == [
        (name, False, None), ("🤖 Anna", True, "normal"), ("🤖 Bernd", True, "normal")]
    assert db.table(new_id)["fsm_state"] in ("turn", "final_round", "payout")
