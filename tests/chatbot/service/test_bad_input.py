"""The application service end to end: forged, stale and misplaced input is refused briefly and
changes nothing.

Every test that touches the database runs on SQLite and on PostgreSQL (``db_engine``). Time is
a ``FakeClock``; deadlines are fired through ``due``/``fire_due`` like the scheduler does.
The harness is in ``harness.py`` beside this module, the fixtures in its ``conftest.py``.
"""

from __future__ import annotations

from engine import schwimmen as S
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    GROUP,
    MALLORY,
    Harness,
    assert_brief_refusal,
    max_outbox_id,
    new_private_game,
    open_group_table,
    private,
    rows_since,
    snapshot,
    until_human_moves,
)


def test_forged_button_data_changes_nothing(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    version = h.table(table_id).version
    before = snapshot(h.engine, table_id)
    forged = [
        "garbage", "", "v1", "v1:1", "v1:1:0", "v1:1:0:", "v2:1:0:knock", "v1:x:0:knock",
        "v1:1:y:knock", "v1:-1:0:knock", "v1:999:0:knock", f"v1:{table_id}:0:knock",
        "v1:" + "9" * 80 + ":0:knock", f"v1:{table_id}:{version}:" + "x" * 100,
        "v1:1:0:swap.ZZ.QQ", f"v1:{table_id}:{version}:swap.ZZ.QQ",
        f"v1:{table_id}:{version}:swap.7C", f"v1:{table_id}:{version}:deal",
        f"v1:{table_id}:{version}:kick.x", f"v1:{table_id}:{version}:opt.nothing",
        f"v1:{table_id}:{version}:ui.x", f"v1:{table_id}:{version}:knock\n",
        f"v1:{table_id}:{version}:\x00", "v1:0:0:g.nosuchgame", "v1:0:0:g.schwimmen.9",
        "v1:0:0:g.schwimmen.2.godlike", "v1:0:0:lang.xx", None,
    ]
    for data in forged:
        out = h.press(private(ALICE), ALICE, data)  # type: ignore[arg-type]
        assert_brief_refusal(out)
        assert snapshot(h.engine, table_id) == before, data
    assert "knock" in shown  # the real button still works afterwards
    assert h.press(private(ALICE), ALICE, shown["knock"]).changed


def test_a_legal_looking_move_not_in_hand_is_refused(h: Harness) -> None:
    table_id = new_private_game(h)
    until_human_moves(h, table_id)
    state, version = h.state(table_id), h.table(table_id).version
    stranger = next(c for c in S.DECK if c not in state.hands[0] and c not in state.middle)
    before = snapshot(h.engine, table_id)
    out = h.press(private(ALICE), ALICE,
                  f"v1:{table_id}:{version}:{S.swap(stranger, state.middle[0]).code}")
    assert_brief_refusal(out)
    assert "nicht in deiner Hand" in out.text or "not in your hand" in out.text
    assert snapshot(h.engine, table_id) == before


def test_stale_button_is_refused(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    move = sorted(c for c in shown if c.startswith("swap."))[0]
    assert h.press(private(ALICE), ALICE, shown[move]).changed
    until_human_moves(h, table_id)
    before = snapshot(h.engine, table_id)
    out = h.press(private(ALICE), ALICE, shown["knock"])  # drawn for an older version
    assert_brief_refusal(out)
    assert "veraltet" in out.text
    assert snapshot(h.engine, table_id) == before


def test_press_by_someone_not_seated_is_refused(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    before = snapshot(h.engine, table_id)
    for chat in (private(ALICE), private(MALLORY), GROUP):
        out = h.press(chat, MALLORY, shown["knock"])
        assert_brief_refusal(out)
        assert snapshot(h.engine, table_id) == before
    assert h.press(private(ALICE), ALICE, shown["knock"]).changed


def test_press_by_a_seated_player_not_on_turn_is_refused(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    assert h.press(private(ALICE), ALICE, shown["knock"]).changed
    table = h.table(table_id)
    assert h.state(table_id).to_act != 0 and table.deadline_kind == "cpu"
    before = snapshot(h.engine, table_id)
    for code in ("knock", "all", "pass"):
        out = h.press(private(ALICE), ALICE, f"v1:{table_id}:{table.version}:{code}")
        assert_brief_refusal(out)
        assert "nicht am Zug" in out.text
    assert snapshot(h.engine, table_id) == before


def test_language_command_confirms_once(h: Harness) -> None:
    """``/language en``: the chat's language changes and the confirmation is posted once (not
    also as the command's reply)."""
    since = max_outbox_id(h)
    out = h.command(private(ALICE), ALICE, "language", "en")
    assert out.ok and out.text is None
    texts = [r.text for r in rows_since(h, since)]
    assert texts == ["Language: English."]


def test_commands_in_the_wrong_place_and_garbage_commands(h: Harness) -> None:
    out = h.command(GROUP, ALICE, "stop")  # no table in this chat
    assert_brief_refusal(out)
    table_id = new_private_game(h)
    before = snapshot(h.engine, table_id)
    for name in ("", "xyzzy", "__init__", "_cmd_stop", "new\x00", "../../etc/passwd", "ß" * 300,
                 "stop now"):
        out = h.command(private(ALICE), ALICE, name, "schwimmen")
        assert_brief_refusal(out)
        assert snapshot(h.engine, table_id) == before
    for args in ("schwimmen 9 anfaenger", "schwimmen x", "schwimmen 2 godlike"):
        out = h.command(private(ALICE), ALICE, "new", args)
        assert_brief_refusal(out)
        assert snapshot(h.engine, table_id) == before
    out = h.command(private(MALLORY), MALLORY, "stop")  # Mallory has no table of her own
    assert_brief_refusal(out)
    assert snapshot(h.engine, table_id) == before


def test_stop_in_a_group_needs_the_opener(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB])
    before = snapshot(h.engine, table_id)
    assert_brief_refusal(h.command(GROUP, BOB, "stop"))
    assert_brief_refusal(h.command(GROUP, BOB, "new", "schwimmen"))  # a table is already open
    assert snapshot(h.engine, table_id) == before
    out = h.command(GROUP, ALICE, "stop")
    assert out.ok
    assert h.table(table_id).fsm_state == "abandoned"
