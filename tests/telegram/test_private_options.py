"""Issue 17, item 16, through the fake Bot API: a private game's options are set by buttons
on the level step of the menu (the currency of Schwimmen, Scat's variants, Run Fast's 4 or 8
hands, the climbing straight rule); one tap on a level still starts the game."""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.fakes.telegram_api import FakeBotApi

from .harness import WAIT, BotProcess, Db, answer_text, buttons, table_of


def _menu(fake: FakeBotApi, user: int, language: str) -> dict:
    fake.send_text(user, user, "/start", language_code=language)
    fake.send_text(user, user, "/new", language_code=language)
    return fake.wait_for(lambda: next((m for m in fake.messages(user, include_deleted=False)
                                       if any(d.startswith("v1:0:0:g.") for _, d in buttons(m))),
                                      None), WAIT, message="the game menu")


def _tap(fake: FakeBotApi, user: int, menu: dict, data: str, language: str) -> dict:
    """Press a menu button (it must be shown); returns the menu as it is afterwards."""
    mid = menu["message_id"]
    before = fake.message(user, mid)
    assert data in [d for _, d in buttons(before)], buttons(before)
    uid = fake.press(user, user, mid, data, language_code=language)
    assert answer_text(fake, uid) is None
    return fake.wait_for(lambda: (m := fake.message(user, mid)) and
                         (m["text"], buttons(m)) != (before["text"], buttons(before)) and m,
                         WAIT, message=f"the menu after {data}")


def _rows(menu: dict) -> list[list[str]]:
    return [[b["text"] for b in row] for row in menu["reply_markup"]["inline_keyboard"]]


def _label(menu: dict, data: str) -> str:
    return next(label for label, d in buttons(menu) if d == data)


def _table(fake: FakeBotApi, user: int, menu: dict) -> tuple[int, dict]:
    msg = fake.wait_for(lambda: next((m for m in fake.messages(user, include_deleted=False)
                                      if table_of(m) and m["message_id"] != menu["message_id"]),
                                     None), WAIT, message="the private table message")
    return table_of(msg), msg  # type: ignore[return-value]


def test_options_of_a_private_game_are_set_by_buttons(
        fake: FakeBotApi, start_bot: Callable[..., BotProcess], sqlite_url: str,
        db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url, CPU_DELAY=0.01)
    db = db_reader(sqlite_url)

    # Run Fast in German: 8 hands instead of 4, one extra tap
    user = 1761
    menu = _menu(fake, user, "de")
    menu = _tap(fake, user, menu, "v1:0:0:g.runfast", "de")  # (2 CPUs: the only choice)
    assert menu["text"] == ("Run Fast (Pao De Kuai) gegen 2 CPU-Gegner: Welche Stärke?\n"
                            "⚙ Darunter die Optionen: tippen zum Ändern.")
    assert _rows(menu) == [["Anfänger", "Normal", "Experte"], ["Hände: 4"]]
    assert _label(menu, "v1:0:0:g.runfast.2.normal") == "Normal"  # the default: as before
    menu = _tap(fake, user, menu, "v1:0:0:g.runfast.2.o.1", "de")
    assert _label(menu, "v1:0:0:g.runfast.2.o.0") == "Hände: 8"
    assert _label(menu, "v1:0:0:g.runfast.2.normal.go.1") == "Normal"
    fake.press(user, user, menu["message_id"], "v1:0:0:g.runfast.2.normal.go.1",
               language_code="de")
    table_id, table = _table(fake, user, menu)
    assert "Hand 1 von 8" in table["text"]
    assert json.loads(db.table(table_id)["options"])["engine"] == {"hands": 8}

    # Schwimmen in English: the currency (a table option), cycled twice
    user = 1762
    menu = _menu(fake, user, "en")
    menu = _tap(fake, user, menu, "v1:0:0:g.schwimmen", "en")
    menu = _tap(fake, user, menu, "v1:0:0:g.schwimmen.2", "en")
    assert menu["text"].endswith("\n⚙ Below, the options: tap to change.")
    assert _label(menu, "v1:0:0:g.schwimmen.2.o.1") == "Currency: coins 🪙"
    menu = _tap(fake, user, menu, "v1:0:0:g.schwimmen.2.o.1", "en")
    assert _label(menu, "v1:0:0:g.schwimmen.2.o.2") == "Currency: €"
    menu = _tap(fake, user, menu, "v1:0:0:g.schwimmen.2.o.2", "en")
    assert _label(menu, "v1:0:0:g.schwimmen.2.o.0") == "Currency: matches 🔥"
    fake.press(user, user, menu["message_id"], "v1:0:0:g.schwimmen.2.anfaenger.go.2",
               language_code="en")
    table_id, table = _table(fake, user, menu)
    assert "🔥" in table["text"]
    assert json.loads(db.table(table_id)["options"])["currency"] == "matches"

    # Scat in English: four-card Scat on, the other variants as they are
    user = 1763
    menu = _menu(fake, user, "en")
    menu = _tap(fake, user, menu, "v1:0:0:g.scat", "en")
    menu = _tap(fake, user, menu, "v1:0:0:g.scat.2", "en")
    rows = _rows(menu)
    assert rows[0] == ["Beginner", "Normal", "Expert"]
    assert "Four-card Scat (41): off" in [r[0] for r in rows[1:]]
    assert all(len(row) <= 4 for row in rows)
    toggle = next(d for label, d in buttons(menu) if label == "Four-card Scat (41): off")
    menu = _tap(fake, user, menu, toggle, "en")
    assert "Four-card Scat (41): on" in [label for label, _ in buttons(menu)]
    normal = _label(menu, toggle.replace(".o.", ".normal.go."))
    assert normal == "Normal"
    fake.press(user, user, menu["message_id"], toggle.replace(".o.", ".normal.go."),
               language_code="en")
    table_id, _ = _table(fake, user, menu)
    assert json.loads(db.table(table_id)["options"])["engine"]["four_cards"] is True

    # climbing in German: the straight rule
    user = 1764
    menu = _menu(fake, user, "de")
    menu = _tap(fake, user, menu, "v1:0:0:g.climbing", "de")
    assert _label(menu, "v1:0:0:g.climbing.3.o.1") == "Straße schlagen: genau eins höher"
    menu = _tap(fake, user, menu, "v1:0:0:g.climbing.3.o.1", "de")
    assert _label(menu, "v1:0:0:g.climbing.3.o.0") == "Straße schlagen: jede höhere"
    fake.press(user, user, menu["message_id"], "v1:0:0:g.climbing.3.experte.go.1",
               language_code="de")
    table_id, _ = _table(fake, user, menu)
    assert json.loads(db.table(table_id)["options"])["engine"] == {"straight_step": "any"}
