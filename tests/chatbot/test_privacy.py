"""``/meinedaten`` and ``/vergessen`` through the service, on SQLite and PostgreSQL, on a
simulated clock: the file holds every kind of row that names the person; forgetting needs the
person's own fresh confirmation; afterwards no row of the whole database names them, while the
others' results, ``/stats``, ``/top`` and the Deckel read as before, and a group game they were
playing goes on with a CPU in their seat."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from sqlalchemy import func, or_
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, select

from chatbot.console.app import CHAT, ConsoleGame
from chatbot.service import ChatRef
from chatbot.service.privacy.anonymise import scrubber
from chatbot.service.privacy.export import COVERED
from storage.models import Player
from tests.chatbot.evenings import berlin
from tests.chatbot.privacy_world import (
    NEEDLES,
    ZED,
    build,
    dump,
    exported,
    found,
    person,
    said,
    table_state,
)
from tests.chatbot.service.harness import (
    BOB,
    CAROL,
    GROUP,
    Harness,
    assert_brief_refusal,
    code_of,
    is_move,
    pick,
    private,
)
from tests.conftest import FakeClock, make_service


@pytest.fixture
def h(db_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Harness:
    seeds = random.Random(47)  # reproducible table seeds
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))
    return Harness(db_engine, FakeClock(berlin(0, 9)), cpu_delay=0, next_round_delay=0)


def forget_buttons(h: Harness, user: ChatRef) -> dict[str, str]:
    """The buttons under the newest question of ``/vergessen`` in a private chat."""
    h.postman.deliver()
    shown = [m for m in h.transport.messages(user.external_id) if m.text.startswith("⚠️")]
    assert shown, "the question was asked"
    return {label: data for label, data in zip(shown[-1].labels(), shown[-1].data(),
                                                 strict=True)}


def test_the_file_holds_every_kind_of_row_that_names_the_person(h: Harness) -> None:
    tables = build(h)
    data = exported(h)
    assert data["format"] == "stammtisch-personal-data/1"
    assert data["person"] == {
        "platform": "test", "id": ZED.external_id, "name": "Zebulon Quaxl",
        "username": "zebquax", "language": "de", "private_chat": private(ZED).external_id,
        "first_seen": berlin(0, 12).isoformat(),
        "settings": {"reminders": "on", "quiet_from": "23:00", "quiet_to": "08:00",
                     "time_zone": None, "deck": "classic", "large_cards": False}}
    assert [g["group"] for g in data["groups_seen_in"]] == ["Stammtisch"]
    seats = {s["table"]: s for s in data["seats"]}
    assert set(seats) == set(tables.values())
    assert seats[tables["group_done"]]["chat"] == "Stammtisch"
    assert seats[tables["private_done"]]["chat"] == "private"
    assert seats[tables["group_running"]]["state"] in ("turn", "final_round", "payout")
    played = {m["table"] for m in data["moves"]}
    assert {tables["group_done"], tables["private_done"]} <= played
    assert all(m["seat"] == seats[m["table"]]["seat"] for m in data["moves"])
    results = {r["table"]: r for r in data["results"]}
    assert set(results) == {tables["group_done"], tables["private_done"]}
    for result in results.values():
        assert result["your_standing"]["name"] == "Zebulon Quaxl"
        assert result["your_standing"]["seat"] == result["your_seat"]
    assert {s["game"] for s in data["stats"]} == {"schwimmen"} and len(data["stats"]) == 2
    assert [r["game"] for r in data["ratings"]] == ["schwimmen"]
    assert data["stats_hidden_since"] is not None
    assert [a["answer"] for a in data["evening_answers"]] == ["yes"]
    assert [d["table"] for d in data["daily_deals"]] == [tables["daily"]]
    assert tables["private_done"] in data["tables_opened"]
    assert data["messages_to_your_private_chat"]["sent"] > 0
    assert_every_table_that_points_at_him_is_in(h, data)
    note = h.transport.texts(private(ZED).external_id)[-1]
    assert note.startswith("📄 Hier ist alles, was ich über dich speichere, als JSON-Datei")
    # in English, the file's name too
    h.command(private(ZED), ZED, "language", "en")
    h.postman.deliver()
    assert exported(h, command="mydata")["person"]["id"] == ZED.external_id
    name = h.transport.files[private(ZED).external_id][-1][0]
    assert name == f"stammtisch-my-data-{h.clock().date().isoformat()}.json"


# the file's section that holds a table's rows about the person
SECTIONS = {"chat_member": "groups_seen_in", "seat": "seats", "game_table": "tables_opened",
            "stat_entry": "stats", "rating": "ratings", "evening": "evenings_opened",
            "evening_answer": "evening_answers", "daily_entry": "daily_deals",
            "league_member": "league_weeks", "league_holiday": "league_holidays"}


def assert_every_table_that_points_at_him_is_in(h: Harness, data: dict) -> None:
    """Every table with a column pointing at his row: as many rows in the file as stored
    (a named section, or ``other_rows`` for a table the file does not name)."""
    with Session(h.engine) as session:
        pid = session.exec(select(Player.id).where(Player.external_id == ZED.external_id)).one()
        for table in SQLModel.metadata.sorted_tables:
            columns = [c for c in table.columns
                       if any(fk.column.table.name == "player" for fk in c.foreign_keys)]
            if not columns:
                continue
            stored = session.execute(select(func.count()).select_from(table).where(
                or_(*(c == pid for c in columns)))).scalar_one()
            if table.name == "stats_hidden":
                assert (data["stats_hidden_since"] is not None) == bool(stored)
            elif table.name in SECTIONS:
                assert len(data[SECTIONS[table.name]]) == stored, table.name
            else:
                assert table.name not in COVERED, table.name
                assert len(data["other_rows"].get(table.name, [])) == stored, table.name


def test_forgetting_needs_the_persons_own_fresh_confirmation(h: Harness) -> None:
    build(h)
    everything = dump(h.engine)
    # in a group: refused, nothing changes
    out = h.command(GROUP, ZED, "vergessen")
    assert out.ok is False and out.text == "Das geht nur im privaten Chat mit mir."
    assert dump(h.engine) == everything
    out = h.command(GROUP, ZED, "meinedaten")
    assert out.ok is False and dump(h.engine) == everything
    # asked, not confirmed: nothing is forgotten
    assert h.command(private(ZED), ZED, "vergessen").ok
    first = forget_buttons(h, private(ZED))
    assert list(first) == ["🗑 Ja, vergiss mich", "Abbrechen"]
    assert found(h.engine)
    before = dump(h.engine)
    # Carol presses his button (forged into her own chat): not hers, nothing changes
    assert_brief_refusal(h.press(private(CAROL), CAROL, first["🗑 Ja, vergiss mich"]))
    assert_brief_refusal(h.press(GROUP, ZED, first["🗑 Ja, vergiss mich"]))
    # too late: five minutes are over
    h.clock.advance(5 * 60 + 1)
    out = h.press(private(ZED), ZED, first["🗑 Ja, vergiss mich"])
    assert_brief_refusal(out)
    assert out.text == ("Diese Bestätigung gilt nicht mehr. Schick /vergessen noch einmal, "
                        "wenn du es weiterhin willst.")
    assert dump(h.engine) == before
    # asked again: the older button no longer counts; "Cancel" withdraws the question
    assert h.command(private(ZED), ZED, "vergessen").ok
    second = forget_buttons(h, private(ZED))
    assert second["🗑 Ja, vergiss mich"] != first["🗑 Ja, vergiss mich"]
    assert_brief_refusal(h.press(private(ZED), ZED, first["🗑 Ja, vergiss mich"]))
    assert h.press(private(ZED), ZED, second["Abbrechen"]).text == "Es wurde nichts gelöscht."
    assert_brief_refusal(h.press(private(ZED), ZED, second["🗑 Ja, vergiss mich"]))
    assert_brief_refusal(h.press(private(ZED), ZED, "v1:0:0:fg.garbage"))
    assert found(h.engine)
    # asked, confirmed in time: forgotten
    assert h.command(private(ZED), ZED, "vergessen").ok
    third = forget_buttons(h, private(ZED))
    h.clock.advance(4 * 60)
    out = h.press(private(ZED), ZED, third["🗑 Ja, vergiss mich"])
    assert out.ok and out.alert
    assert out.text == ("✅ Erledigt: Ich habe dich vergessen. Wenn du mir wieder schreibst, "
                        "fängst du als neuer Spieler an.")
    assert found(h.engine) == []
    # he had hidden his stats: the placeholder stays hidden (lists that left him out still do)
    hidden = [line for line in dump(h.engine).splitlines() if line.startswith("stats_hidden:")]
    assert len(hidden) == 1
    # pressed again: he is a new person now, with no question open
    assert_brief_refusal(h.press(private(ZED), ZED, third["🗑 Ja, vergiss mich"]))


def _stats_of_others(h: Harness) -> list[str]:
    return [said(h, private(u), u, "stats") for u in (BOB, CAROL)] + [
        said(h, GROUP, BOB, "top"), said(h, GROUP, CAROL, "deckel")]


def _play_on(h: Harness, table_id: int) -> None:
    """Bob and Carol play the running game to its end (the CPU plays Zebulon's seat)."""
    rng = random.Random(9)
    for _ in range(3000):
        h.run_deadlines(table_id, kinds=("next", "cpu"))
        if table_state(h, table_id) == "finished":
            return
        to_act = h.state(table_id).to_act
        seat = next(s for s in h.seats(table_id) if s.seat_no == to_act)
        assert not seat.is_cpu
        user = next(u for u in (BOB, CAROL) if u.name == seat.name)
        shown = h.buttons(private(user), table_id)
        moves = sorted(c for c in shown if is_move(c))
        assert h.press(private(user), user, shown[pick(moves, rng)]).changed
    raise AssertionError("the game did not end")


def test_after_forgetting_nothing_names_the_person_and_the_others_read_the_same(
        h: Harness) -> None:
    tables = build(h)
    others = _stats_of_others(h)
    assert "Bob" in others[3] and "Carol" in others[3]  # (the evening's Deckel)
    running = tables["group_running"]
    assert h.command(private(ZED), ZED, "vergessen").ok
    yes = forget_buttons(h, private(ZED))["🗑 Ja, vergiss mich"]
    assert h.press(private(ZED), ZED, yes).ok
    leftovers = found(h.engine)
    assert leftovers == [], "\n".join(leftovers)
    for needle in NEEDLES:
        assert needle not in dump(h.engine)
    # the others read the same; the Deckel shows "—" where it named him
    after = _stats_of_others(h)
    assert after[:3] == others[:3]
    assert after[3] == others[3].replace("Zebulon Quaxl", "—")
    # his private tables ended; his finished games keep their results without his name
    assert table_state(h, tables["daily"]) == "abandoned"
    assert [s.name for s in h.seats(tables["group_done"])
            if not s.is_cpu and s.name not in ("Bob", "Carol")] == ["—"]
    # the running group game goes on with a Normal CPU in his seat, and the group was told
    seat = next(s for s in h.seats(running) if s.seat_no == 1)
    assert (seat.is_cpu, seat.cpu_level, seat.player_id) == (True, "normal", None)
    assert seat.name.startswith("🤖 ")
    told = [m.text for m in h.messages(GROUP) if m.text.startswith("🚪")]
    assert told == [f"🚪 Jemand hat das Spiel verlassen und seine Daten löschen lassen – "
                    f"{seat.name} spielt den Platz weiter."]
    _play_on(h, running)
    assert found(h.engine) == []
    # he writes again: a new person, who has nothing stored but what he just did
    assert person(h, ZED.external_id) is None
    data = exported(h)
    assert data["seats"] == [] and data["results"] == [] and data["evening_answers"] == []
    assert data["groups_seen_in"] == [] and data["stats_hidden_since"] is None


def test_forgetting_with_only_a_private_game_running(h: Harness) -> None:
    """Ending the private game queues views for the private chat alone, and forgetting takes
    them all back: the input still commits (it once failed on an empty bulk insert)."""
    assert h.command(private(ZED), ZED, "start").ok
    table_id = h.command(private(ZED), ZED, "new", "schwimmen 2 anfaenger").table_id
    assert table_id and table_state(h, table_id) != "finished"
    assert h.command(private(ZED), ZED, "vergessen").ok
    out = h.press(private(ZED), ZED, forget_buttons(h, private(ZED))["🗑 Ja, vergiss mich"])
    assert out.ok and out.text and out.text.startswith("✅ Erledigt")
    assert table_state(h, table_id) == "abandoned"
    assert person(h, ZED.external_id) is None and found(h.engine) == []


def test_the_buttons_keep_to_their_form(h: Harness) -> None:
    """The question's buttons are menu buttons of at most 64 bytes (``fg.<nonce>``)."""
    assert h.command(private(ZED), ZED, "start").ok
    assert h.command(private(ZED), ZED, "forget").ok
    codes = [code_of(d) for d in forget_buttons(h, private(ZED)).values()]
    assert codes[1] == "fg.no" and codes[0].startswith("fg.") and len(codes[0]) == 15


def test_the_terminal_saves_the_file_and_says_where(sqlite_engine: Engine,
                                                     tmp_path: Path) -> None:
    """The console has no chat for files: it saves one where it runs and prints the path."""
    out = io.StringIO()
    game = ConsoleGame(make_service(sqlite_engine), "schwimmen", 2, "anfaenger", out=out)
    game.transport.save_dir = tmp_path
    assert game.service.command(CHAT, game.user, "meinedaten").ok
    game.flush()
    day = game.service.clock().date().isoformat()
    saved = tmp_path / f"stammtisch-meine-daten-{day}.json"
    assert f"📄 {saved.name} gespeichert unter {saved}" in out.getvalue()
    assert json.loads(saved.read_text(encoding="utf-8"))["person"]["platform"] == "console"


def test_stored_texts_lose_whole_names_and_mentions_only() -> None:
    """A forgotten "Ann" leaves "Anna" alone; her mention links, @username and id go."""
    ann = Player(platform="telegram", external_id="4711", name="Ann", username="ann_x",
                 created_at=berlin(0, 9))
    _needles, pattern = scrubber(ann, {"Ann", "Ann B."})
    text = ("⏰ [Ann](tg://user?id=4711), du bist dran · Anna 3 · Ann B. 2 · @ann_x · "
            "Ann's turn · Punkte 47110")
    assert pattern.sub("—", text) == (
        "⏰ —, du bist dran · Anna 3 · — 2 · — · —'s turn · Punkte 47110")
