"""Playing in the Matrix end-to-end tests: the moves a view offers, picking one, snapshots of a
view, and the check that no group event shows a hidden card (``leak_check``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tests.dealing import deals
from tests.matrix.bot_db import Db, as_utc, loads, replay
from tests.matrix.bot_process import WAIT, card_symbols, wait_for
from tests.matrix.people import Msg, Person

# ------------------------------------------------------------------------------ playing


MOVE_LABELS = ("Klopfen", "Behalten", "Schieben", "Alle 3 tauschen")


def move_choices(msg: Msg | None) -> list[int]:
    """The numbers of a view's game moves (swaps, swap all, pass, knock)."""
    if msg is None:
        return []
    return [n for n, label in msg.choices()
            if label.startswith(MOVE_LABELS) or "⇄" in label]


def pick_move(rng: Any, msg: Msg, knock_bias: float = 0.5) -> int:
    """A random move; knocking more often than chance keeps games short."""
    knock = msg.choice("Klopfen")
    if knock is not None and rng.random() < knock_bias:
        return knock
    return rng.choice(move_choices(msg))


async def to_my_turn(person: Person, room: str, table: Msg) -> Msg:
    """A private table's view once ``person`` is on turn: a round that ended before (a 31 on
    the deal, or a CPU first) is followed into the next with "Nächste Runde" (``tests.dealing``)."""
    for _ in deals():
        await wait_for(lambda: "Du bist am Zug" in table.body or table.choice("Nächste Runde"),
                       WAIT, "a turn or the next round")
        if "Du bist am Zug" in table.body:
            return table
        edits = len(table.versions)
        await person.say(room, str(table.choice("Nächste Runde")))
        await wait_for(lambda e=edits: len(table.versions) > e, WAIT, "the next round dealt")
    raise AssertionError("unreachable")


def snapshot(msg: Msg | None) -> tuple[Any, ...]:
    return (None,) if msg is None else (msg.event_id, msg.body, msg.deleted)


def leak_check(events: list[dict[str, Any]], bot_id: str, db: Db, table_id: int,
               room_id: str) -> int:
    """Every message the bot put in the group room: it matches a view or announcement of the
    outbox, and names no card that was hidden when that view was made. Returns the count."""
    from chatbot.matrix.render import render
    from engine.schwimmen import hidden_cards

    state_at = replay(db, table_id)
    rows_by_body: dict[str, list[datetime]] = {}
    for row in db.outbox(room_id):
        body, _html = render(row["text"], loads(row["buttons"]) or [])
        rows_by_body.setdefault(body, []).append(as_utc(row["created_at"]))
    checked = 0
    for ev in events:
        if ev.get("sender") != bot_id or ev.get("type") != "m.room.message":
            continue
        content = ev.get("content") or {}
        if not content:  # redacted: an old copy of a table posted anew, a deleted reminder
            continue
        shown = content.get("m.new_content") or content
        texts = [content.get("body", ""), content.get("formatted_body", ""),
                 shown.get("body", ""), shown.get("formatted_body", "")]
        at = datetime.fromtimestamp(ev["origin_server_ts"] / 1000, UTC)
        made = [t for t in rows_by_body.get(shown.get("body", ""), []) if t <= at]
        assert made, f"a group message that no outbox row explains: {shown.get('body')!r}"
        hidden = {c.symbol for c in hidden_cards(state_at(max(made)))}
        named = set().union(*(card_symbols(t) for t in texts))
        assert not named & hidden, (f"hidden cards {sorted(named & hidden)} in the group "
                                    f"room: {shown.get('body')!r}")
        checked += 1
    return checked
