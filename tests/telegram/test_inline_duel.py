"""Play anywhere (inline mode), end to end: a Schwimmen duel in a private chat between two
people that the bot is not in, from ``@bot`` to the end of the game, with a restart in the
middle and forged presses and choices from a third person."""

from __future__ import annotations

import random

from tests.telegram.harness import codes
from tests.telegram.inline_play import InlineTable, ask, invite, labels, press

ANNA, BEN, CARL = 4101, 4102, 4103
DUEL_CHAT = 987_654_321  # Anna's and Ben's private chat: the bot is no member


def test_a_schwimmen_duel_in_a_private_chat_without_the_bot_is_played_to_the_end(
        fake, start_bot, db_url, db_reader) -> None:
    fake.without_bot(DUEL_CHAT, "private", "Anna & Ben")
    bot = start_bot(db_url)
    # an empty query offers the four games; a query filters them
    _, games = ask(fake, ANNA)
    ids = [r["id"] for r in games["results"]]
    assert ids[:3] == ["g.schwimmen.0", "g.schwimmen.2", "g.scat.0"]
    assert {"g.runfast.3", "g.climbing.4"} <= set(ids)
    assert not games["is_personal"]
    titles = {r["id"]: (r["title"], r["description"]) for r in games["results"]}
    assert titles["g.schwimmen.2"] == ("Schwimmen",
                                       "Duell · beginnt, sobald eine zweite Person beitritt")
    _, found = ask(fake, ANNA, "schw")
    assert [r["id"] for r in found["results"]] == ["g.schwimmen.0", "g.schwimmen.2"]
    _, english = ask(fake, ANNA, "duel", lang="en")
    assert [r["title"] for r in english["results"]] == ["Schwimmen (31)", "Scat (31)"]
    assert english["results"][0]["description"] == \
        "Duel · starts as soon as a second person joins"

    imid = invite(fake, DUEL_CHAT, ANNA, "g.schwimmen.2", name="Anna")
    lobby = fake.inline_message(imid)
    assert "Anna" in lobby["text"] and "Schwimmen" in lobby["text"]
    assert press(fake, BEN, imid, codes(lobby)["join"]) == "Los geht's!"  # (full: it starts)
    table = InlineTable(fake, DUEL_CHAT, imid, [ANNA, BEN], random.Random(50))
    playing = fake.wait_for(lambda: "cards" in codes(table.message()) and table.message(),
                            60, message="the duel to start")
    assert "🎴 Meine Karten und Züge" in labels(playing)
    query_button = next(b for row in playing["reply_markup"]["inline_keyboard"]
                        for b in row if b["text"] == "🎴 Meine Karten und Züge")
    assert query_button["switch_inline_query_current_chat"] == f"#{table.table_id} "

    # a third person: no cards, no moves, no seat — and nothing changes
    _, carl_sees = ask(fake, CARL, f"#{table.table_id}")
    assert [r["title"] for r in carl_sees["results"]] == \
        ["🃏 Das ist kein Tisch, an dem du sitzt."]
    assert press(fake, CARL, imid, codes(playing)["cards"]) == "Du sitzt nicht an diesem Tisch."
    before = table.message()
    _, anna_sees = ask(fake, ANNA, f"#{table.table_id}")
    hand = anna_sees["results"][0]
    assert hand["id"].startswith("h.") and "Deine Karten:" in hand["description"]
    assert anna_sees["is_personal"] and anna_sees["cache_time"] <= 5

    table.play(moves=6)
    # a restart in the middle: the table goes on in the same message
    bot.stop()
    start_bot(db_url)
    version = next(iter(codes(table.message()).values())).split(":")[2]
    forged = fake.inject_update({"chosen_inline_result": {
        "result_id": f"m.{table.table_id}.{version}.pass", "query": "",
        "from": {"id": CARL, "is_bot": False, "first_name": "Carl"}}})
    fake.wait_for(lambda: not any(u["update_id"] == forged for u in fake.pending_updates()),
                  60, message="the forged choice to be handled")
    assert press(fake, CARL, imid, codes(table.message())["cards"], check_data=False) \
        == "Du sitzt nicht an diesem Tisch."
    table.play()

    end = table.message()
    assert "again" in codes(end) and ("gewinnt" in end["text"] or "Gewinner" in end["text"])
    # nothing was ever sent into the duel's chat, and no hidden card showed in the message
    assert not [c for c in fake.calls("sendMessage") if int(c["params"]["chat_id"]) == DUEL_CHAT]
    assert all("Deine Karten" not in (v.get("text") or "") for v in [end, *end["history"]])
    assert before["text"] != end["text"] and len(table.chosen) >= 6
    db = db_reader(db_url)
    assert [r["table_id"] for r in db.rows("SELECT table_id FROM result")] == [table.table_id]
    assert [(r["kind"], r["language"]) for r in db.rows(
        "SELECT kind, language FROM chat WHERE external_id = :e", e=f"inline:{imid}")] == \
        [("inline", "de")]
