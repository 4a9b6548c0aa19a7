"""A group's administrators through the fake Bot API (issue 47, item 13), the bot a separate
process on a simulated clock: ``/gruppe`` is refused to a member and shows an administrator
the group's tables; a member's press of the panel's buttons is refused and changes nothing; an
administrator gives a person's seat to a Normal CPU (the group hears it, the person privately)
and ends the table. The rights are asked of Telegram (``getChatMember``) at each command and
press and the answer kept for 30 seconds of the bot's clock: an administrator demoted in the
fake is refused once that time has passed."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.fakes.telegram_api import FakeBotApi
from tests.simclock import SimClock
from tests.telegram.bot_db import Db
from tests.telegram.bot_process import TRACEBACK_MARKERS, WAIT, BotProcess
from tests.telegram.keyboards import answer_text, bot_texts, buttons
from tests.telegram.long_game import sent
from tests.telegram.playing import GroupGame

pytestmark = pytest.mark.e2e

GROUP = -4701
ALMA, BRUNO, CEM = 711, 712, 713
NAMES = {ALMA: "Alma", BRUNO: "Bruno", CEM: "Cem"}
MEMBERS_ONLY = "Das dürfen nur die Administratoren der Gruppe."


def said(fake: FakeBotApi, chat: int, start: str, since: int = 0) -> str:
    """The text of the bot's first message to ``chat`` after ``since`` that starts so."""
    return fake.wait_for(lambda: next((c["params"]["text"] for c in sent(fake, chat, since)
                                       if c["params"]["text"].startswith(start)), None),
                         WAIT, message=f"a message {start!r} in chat {chat}")


def panel(fake: FakeBotApi) -> dict:
    """The panel's message in the group (the newest with its buttons)."""
    return fake.wait_for(lambda: next((m for m in reversed(fake.messages(GROUP)) if not
                                       m["deleted"] and any(d.startswith("v1:0:0:grp")
                                                            for _, d in buttons(m))), None),
                         WAIT, message="the panel")


def press(fake: FakeBotApi, user: int, label: str) -> str | None:
    """``user`` presses the panel's button with this label (once the panel shows it); the
    bot's answer."""
    shown = fake.wait_for(lambda: (m := panel(fake)) and label in dict(buttons(m)) and m, WAIT,
                          message=f"{label!r} on the panel")
    data = dict(buttons(shown))[label]
    return answer_text(fake, fake.press(GROUP, user, shown["message_id"], data))


def shows(fake: FakeBotApi, start: str) -> dict:
    """The panel once its text starts so (it is edited in place)."""
    return fake.wait_for(lambda: (m := panel(fake))["text"].startswith(start) and m, WAIT,
                         message=f"the panel to show {start!r}")


def asked(fake: FakeBotApi, user: int, since: int) -> int:
    """How often the bot asked Telegram for ``user``'s status in the group since ``since``."""
    return sum(1 for c in fake.calls("getChatMember", since=since)
               if int(c["params"]["chat_id"]) == GROUP and int(c["params"]["user_id"]) == user)


def test_an_administrator_takes_a_seat_away_and_ends_the_table(
        fake: FakeBotApi, sqlite_url: str, tmp_path: Path,
        start_bot: Callable[..., BotProcess], db_reader: Callable[[str], Db]) -> None:
    fake.set_status(GROUP, ALMA, "administrator")
    clock = SimClock(tmp_path / "clock", datetime.now(UTC))
    start_bot(sqlite_url, TURN_TIMEOUT=300, **clock.env())
    db = db_reader(sqlite_url)
    game = GroupGame(fake, GROUP, [BRUNO, ALMA, CEM], NAMES, random.Random(13))
    game.hello()
    game.open()  # (Bruno opened and started it)
    table = game.table_id

    since = fake.last_seq()
    fake.send_text(GROUP, BRUNO, "/gruppe", user_first_name="Bruno")
    assert said(fake, GROUP, "Das dürfen", since) == MEMBERS_ONLY
    fake.send_text(GROUP, ALMA, "/gruppe", user_first_name="Alma")
    shown = shows(fake, "⚙ „Stammtisch Test 4701“")
    assert shown["text"].split("\n")[-1] == "1. Schwimmen · läuft · Bruno, Alma, Cem"
    assert [label for label, _ in buttons(shown)] == [
        "✓ 👥 Alle planen", "🛡 Nur Admins planen", "⏹ 1 beenden", "🪑 Plätze an 1",
        "🔄 Aktualisieren"]

    before = (db.table(table), db.seats(table))
    for label in ("⏹ 1 beenden", "🪑 Plätze an 1", "🛡 Nur Admins planen"):
        assert press(fake, BRUNO, label) == MEMBERS_ONLY  # (asked of Telegram each time)
    assert (db.table(table), db.seats(table)) == before
    assert panel(fake)["text"] == shown["text"] and panel(fake)["edit_count"] == 0
    assert not db.rows("SELECT * FROM group_setting")

    assert press(fake, ALMA, "🪑 Plätze an 1") is None
    shows(fake, "Wessen Platz nimmst du weg?")
    assert press(fake, ALMA, "👤 Cem") is None
    shows(fake, "Cem den Platz wegnehmen? Ab jetzt spielt ihn eine normale CPU weiter.")
    since = fake.last_seq()
    assert press(fake, ALMA, "🪑 Ja, Platz wegnehmen") == \
        "Erledigt: eine CPU spielt den Platz von Cem."
    assert said(fake, GROUP, "🪑", since) == \
        "🪑 Alma (Admin) hat den Platz von Cem einer CPU gegeben: sie spielt für Cem weiter."
    assert said(fake, CEM, "🪑", since) == ("🪑 Ein Administrator von „Stammtisch Test 4701“ "
                                            "hat deinen Platz bei Schwimmen einer CPU gegeben; "
                                            "das Spiel geht ohne dich weiter.")
    cem = db.seats(table)[2]
    assert (bool(cem["is_cpu"]), cem["cpu_level"], cem["player_id"], cem["name"]) == (
        True, "normal", None, "🤖 Cem")
    shows(fake, "⚙")

    assert press(fake, ALMA, "⏹ 1 beenden") is None
    shows(fake, "Diesen Tisch beenden?")
    since = fake.last_seq()
    assert press(fake, ALMA, "⏹ Ja, beenden") == "Der Tisch wurde beendet."
    assert said(fake, GROUP, "⏹", since) == "⏹ Alma (Admin) hat den Tisch Schwimmen beendet."
    assert db.table(table)["fsm_state"] == "abandoned"
    assert shows(fake, "⚙")["text"].split("\n")[-1] == "Hier ist kein Tisch offen."
    for text in bot_texts(fake, [GROUP, ALMA, BRUNO, CEM]):
        assert not any(marker in text for marker in TRACEBACK_MARKERS), text


def test_a_demoted_administrator_is_refused_once_the_remembered_answer_is_old(
        fake: FakeBotApi, sqlite_url: str, tmp_path: Path,
        start_bot: Callable[..., BotProcess], db_reader: Callable[[str], Db]) -> None:
    fake.set_status(GROUP, ALMA, "administrator")
    clock = SimClock(tmp_path / "clock", datetime.now(UTC))
    start_bot(sqlite_url, **clock.env())
    db = db_reader(sqlite_url)
    since = fake.last_seq()
    fake.send_text(GROUP, ALMA, "/gruppe", user_first_name="Alma")
    shows(fake, "⚙")
    assert press(fake, ALMA, "🛡 Nur Admins planen") == "Gespeichert: nur Administratoren planen."
    assert press(fake, ALMA, "👥 Alle planen") == "Gespeichert: alle dürfen planen."
    assert asked(fake, ALMA, since) == 1  # the command asked; the presses used the answer

    fake.set_status(GROUP, ALMA, "member")  # her rights are taken away
    clock.set(clock.now() + timedelta(seconds=31))  # the remembered answer is old now
    since = fake.last_seq()
    assert press(fake, ALMA, "🛡 Nur Admins planen") == MEMBERS_ONLY
    assert asked(fake, ALMA, since) == 1  # asked anew
    assert [r["organisers"] for r in db.rows("SELECT organisers FROM group_setting")] == ["all"]
    fake.set_status(GROUP, ALMA, "creator")  # the owner again: let in once the time is past
    clock.set(clock.now() + timedelta(seconds=31))
    assert press(fake, ALMA, "🛡 Nur Admins planen") == "Gespeichert: nur Administratoren planen."
    assert [r["organisers"] for r in db.rows("SELECT organisers FROM group_setting")] == [
        "admins"]
