"""Play anywhere (inline mode), end to end: a climbing game of four people in a group the bot
is not in, and a Run Fast game of two people and a CPU in a group the bot is in (beside the
group's own menu: nothing collides), each with a restart in the middle and forged presses."""

from __future__ import annotations

import random

from chatbot.i18n import tr
from tests.telegram.harness import buttons, codes
from tests.telegram.inline_play import InlineTable, ask, invite, press, press_and_wait

PEOPLE = [4201, 4202, 4203, 4204]
STRANGER = 4299
GROUP_WITHOUT_BOT = -1_004_200_000_001
GROUP_WITH_BOT = -1_004_200_000_002


def test_four_people_play_climbing_in_a_group_the_bot_is_not_in(
        fake, start_bot, sqlite_url, db_reader) -> None:
    fake.without_bot(GROUP_WITHOUT_BOT, "supergroup", "Kletterfreunde")
    bot = start_bot(sqlite_url)
    imid = invite(fake, GROUP_WITHOUT_BOT, PEOPLE[0], "g.climbing.4")
    for person in PEOPLE[1:]:
        answer = press(fake, person, imid, codes(fake.inline_message(imid))["join"])
        assert answer in ("Du bist dabei.", "Los geht's!"), answer
    table = InlineTable(fake, GROUP_WITHOUT_BOT, imid, PEOPLE, random.Random(4), greedy=0.8)
    fake.wait_for(lambda: "cards" in codes(table.message()), 60, message="the game to start")
    _, stranger = ask(fake, STRANGER, f"#{table.table_id}")
    assert len(stranger["results"]) == 1 and stranger["results"][0]["id"] == "h"
    table.play(moves=8)
    bot.stop()
    start_bot(sqlite_url)
    stale = f"v1:{table.table_id}:1:pass"
    assert press(fake, PEOPLE[1], imid, stale, check_data=False) == \
        "Dieser Knopf ist veraltet – bitte die aktuelle Nachricht benutzen."
    assert press(fake, STRANGER, imid, codes(table.message())["cards"]) == \
        "Du sitzt nicht an diesem Tisch."
    assert press(fake, STRANGER, imid, "v1:0:0:inv.climbing.9", check_data=False) == \
        "Dieser Knopf gehört nicht zu mir."
    # played on past the first round's end: its result was folded into the message
    table.play(until=lambda: "Runde 2" in table.message()["text"])
    over = tr("de", "cl.result", n=1)
    assert any(over in (v.get("text") or "") for v in table.message()["history"]), over
    assert not [c for c in fake.calls("sendMessage")
                if int(c["params"]["chat_id"]) == GROUP_WITHOUT_BOT]
    db = db_reader(sqlite_url)
    assert db.rows("SELECT count(*) AS n FROM move WHERE table_id = :t",
                   t=table.table_id)[0]["n"] > 8


def test_run_fast_with_a_cpu_in_a_group_the_bot_is_in_beside_its_own_table(
        fake, start_bot, db_url, db_reader) -> None:
    bot = start_bot(db_url)
    anna, ben = PEOPLE[:2]
    fake.send_text(GROUP_WITH_BOT, anna, "/new", user_first_name="Anna")
    menu = fake.wait_for(lambda: next((m for m in fake.messages(GROUP_WITH_BOT)
                                       if any("g.runfast" in d for _, d in buttons(m))), None),
                         60, message="the group's game menu")
    imid = invite(fake, GROUP_WITH_BOT, anna, "g.runfast.3", name="Anna")
    lobby = fake.inline_message(imid)
    assert press_and_wait(fake, ben, imid, codes(lobby)["join"]) == "Du bist dabei."
    assert press(fake, ben, imid, codes(fake.inline_message(imid))["start"]) == \
        tr("de", "start_denied")  # (only the opener starts)
    assert press_and_wait(fake, anna, imid, codes(fake.inline_message(imid))["fill.+"]) is None
    assert press(fake, anna, imid, codes(fake.inline_message(imid))["start"]) == "Los geht's!"
    table = InlineTable(fake, GROUP_WITH_BOT, imid, [anna, ben], random.Random(3))
    fake.wait_for(lambda: "cards" in codes(table.message()), 60, message="the game to start")
    table.play(moves=4)
    bot.stop()
    start_bot(db_url)
    assert press(fake, STRANGER, imid, codes(table.message())["cards"]) == \
        "Du sitzt nicht an diesem Tisch."
    table.play()
    assert "again" in codes(table.message())
    # the group's own menu is untouched and the bot posted nothing else into the group
    assert fake.message(GROUP_WITH_BOT, menu["message_id"])["text"] == menu["text"]
    sent = [c for c in fake.calls("sendMessage")
            if int(c["params"]["chat_id"]) == GROUP_WITH_BOT]
    assert len(sent) == 1
    db = db_reader(db_url)
    assert [r["table_id"] for r in db.rows("SELECT table_id FROM result")] == [table.table_id]
