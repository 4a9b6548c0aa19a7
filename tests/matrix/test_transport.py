"""The Matrix sender against a scripted client: errors mapped to retry/give up, transaction ids
stable across retries (a resend after a crash is not a second message), edits as m.replace,
reactions seeded, per-room order kept. No homeserver needed."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
from nio import (
    RoomContextResponse,
    RoomMessageText,
    RoomRedactResponse,
    RoomSendError,
    RoomSendResponse,
)
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.delivery import ClaimingOutbox, Item, OutboxStore, deliver_async
from chatbot.matrix.sender import MatrixSender, MatrixTransport
from storage.models import Outbox

PAST = datetime(2020, 1, 1, tzinfo=UTC)


class ScriptedClient:
    """Answers room_send from a script of results per call (default: success)."""

    def __init__(self, script: list[Any] | None = None) -> None:
        self.rooms: dict[str, Any] = {}
        self.olm = None
        self.script = list(script or [])
        self.sent: list[tuple[str, str, dict[str, Any], str]] = []
        self.redacted: list[tuple[str, str]] = []

    async def room_send(self, room_id: str, event_type: str, content: dict[str, Any],
                        tx_id: str | None = None, ignore_unverified_devices: bool = False) -> Any:
        outcome = self.script.pop(0) if self.script else None
        if isinstance(outcome, Exception):
            raise outcome
        if outcome is not None:
            return outcome
        self.sent.append((room_id, event_type, content, tx_id or ""))
        return RoomSendResponse(f"$ev{len(self.sent)}", room_id)

    async def room_redact(self, room_id: str, event_id: str, reason: str | None = None,
                          tx_id: str | None = None) -> Any:
        self.redacted.append((room_id, event_id))
        return RoomRedactResponse(f"$red{len(self.redacted)}", room_id)

    after = 10  # messages people wrote below any message (see room_context)

    async def room_context(self, room_id: str, event_id: str, limit: int | None = None) -> Any:
        said = [RoomMessageText.from_dict({
            "type": "m.room.message", "event_id": f"$p{i}", "sender": "@p:x",
            "origin_server_ts": 1, "content": {"msgtype": "m.text", "body": str(i)}})
            for i in range(self.after)]
        return RoomContextResponse(room_id, None, None, None, [], said, [])


def _row(engine: Engine, room: str, text: str, slot: str | None = None,
         buttons: list | None = None, repost: bool = False, reply_to: str | None = None) -> int:
    with Session(engine) as session, session.begin():
        row = Outbox(platform="matrix", chat_external_id=room, slot=slot, text=text,
                     buttons=buttons or [], repost=repost, reply_to=reply_to, not_before=PAST,
                     created_at=PAST)
        session.add(row)
        session.flush()
        return row.id  # type: ignore[return-value]


def _status(engine: Engine) -> dict[int, tuple[str, int]]:
    with Session(engine) as session:
        return {r.id: (r.status, r.attempts) for r in session.exec(select(Outbox)).all()}


def _limited(ms: int) -> RoomSendError:
    return RoomSendError("Too Many Requests", "M_LIMIT_EXCEEDED", ms)


def test_rate_limit_network_error_and_forbidden(sqlite_engine: Engine) -> None:
    forgotten: list[str] = []
    client = ScriptedClient([_limited(1), aiohttp.ClientConnectionError("down"),
                             RoomSendError("not in room", "M_FORBIDDEN")])
    store = OutboxStore(sqlite_engine, "matrix", clock=lambda: PAST + timedelta(days=1))
    transport = MatrixTransport(client, "inst", on_forbidden=forgotten.append)  # type: ignore[arg-type]
    sender = MatrixSender(store, transport)
    a = _row(sqlite_engine, "!a:x", "eins")
    b = _row(sqlite_engine, "!b:x", "zwei")
    c = _row(sqlite_engine, "!c:x", "drei")

    async def run() -> None:
        sender.parallel = 1  # one room at a time: the script's order is the rooms' order
        await sender.pass_once()  # a: limited → retry; everything pauses
        assert transport.rate_limited_until > 0
        await asyncio.sleep(0.01)
        transport.rate_limited_until = 0
        await sender.pass_once()

    asyncio.run(run())
    status = _status(sqlite_engine)
    assert status[a] == ("pending", 1)  # retried later (not_before moved on)
    assert status[b][1] == 1 and status[b][0] == "pending"  # network: retried
    assert status[c] == ("failed", 1) and forgotten == ["!c:x"]  # not in the room: given up


def test_transaction_ids_edits_reactions_and_order(sqlite_engine: Engine) -> None:
    client = ScriptedClient()
    store = OutboxStore(sqlite_engine, "matrix")
    transport = MatrixTransport(client, "inst")  # type: ignore[arg-type]
    sender = MatrixSender(store, transport)
    lobby = [[["Mitmachen", "v1:1:0:join"], ["Starten", "v1:1:0:start"]]]
    first = _row(sqlite_engine, "!g:x", "🃏 Lobby", slot="t1", buttons=lobby)
    _row(sqlite_engine, "!g:x", "Servus")
    asyncio.run(sender.pass_once())
    room, kind, content, txn = client.sent[0]
    assert (room, kind, txn) == ("!g:x", "m.room.message", f"inst.{first}.s")
    assert content["format"] == "org.matrix.custom.html" and "1. Mitmachen 👍" in content["body"]
    reactions = [c["m.relates_to"]["key"] for _, k, c, _ in client.sent if k == "m.reaction"]
    assert reactions == ["👍", "▶️"]
    assert client.sent[-1][2]["body"] == "Servus"  # after the view: the room's order

    second = _row(sqlite_engine, "!g:x", "🃏 Runde 1", slot="t1",
                  buttons=[[["🂠 Meine Karten", "v1:1:2:cards"]]])
    asyncio.run(sender.pass_once())
    _room, _kind, edit, txn = client.sent[-1]
    assert txn == f"inst.{second}.e"
    assert edit["m.relates_to"] == {"rel_type": "m.replace", "event_id": "$ev1"}
    assert edit["m.new_content"]["body"].startswith("🃏 Runde 1")
    assert edit["body"].startswith("* ")
    # the lobby's reactions no longer apply: taken back (issue 18, item 11)
    assert client.redacted == [("!g:x", "$ev2"), ("!g:x", "$ev3")]

    # a repost (a private view on one's turn) is a new message, and the old one goes
    third = _row(sqlite_engine, "!g:x", "🃏 Runde 1 – du", slot="t1", repost=True,
                 buttons=[[["Klopfen", "v1:1:3:knock"]]])
    asyncio.run(sender.pass_once())
    assert client.redacted[-1] == ("!g:x", "$ev1")
    assert [t for *_x, t in client.sent][-2:] == [f"inst.{third}.s", f"inst.{third}.r0"]
    assert all(s == ("sent", 0) for s in _status(sqlite_engine).values())

    # ... but while the view is still in sight (issue 18, item 10) it is edited in place:
    # one event instead of a new message, a "message deleted" line and reactions again
    client.after = 1
    fourth = _row(sqlite_engine, "!g:x", "🃏 Runde 2 – du", slot="t1", repost=True,
                  buttons=[[["Klopfen", "v1:1:4:knock"]]])
    redacted = len(client.redacted)
    asyncio.run(sender.pass_once())
    _room, _kind, edit, txn = client.sent[-1]
    assert txn == f"inst.{fourth}.e" and len(client.redacted) == redacted
    assert edit["m.new_content"]["body"].startswith("🃏 Runde 2 – du")


class _Unlimited:
    """Sending limits of a platform that has none per chat (a homeserver limits per user:
    ``MatrixTransport`` honours its ``M_LIMIT_EXCEEDED``)."""

    global_per_second = 10**6

    def chat_wait(self, chat: str, sends: list[float], now: float) -> float:
        return 0.0


def test_a_reply_delivered_through_the_claim_on_postgresql_keeps_in_reply_to(
        pg_engine: Engine) -> None:
    """The claim path reads ``reply_to`` like the plain one (issue 36, item 3): an answer
    claimed on PostgreSQL goes out as a Matrix reply (``m.in_reply_to``), in a thread too."""
    client = ScriptedClient()
    store = OutboxStore(pg_engine, "matrix", clock=lambda: PAST + timedelta(days=1))
    transport = MatrixTransport(client, "inst")  # type: ignore[arg-type]
    plain = _row(pg_engine, "!r:x", "Antwort", reply_to="$q1")
    threaded = _row(pg_engine, "!t:x", "Im Faden", reply_to="$root $q2")
    outbox = ClaimingOutbox(store, _Unlimited(), holder="matrix-test")
    claim = outbox.claim()
    assert sorted(item.id for item in claim.items) == [plain, threaded]

    async def deliver_claimed() -> list[tuple[Item, str | None, Exception | None]]:
        outcomes: list[tuple[Item, str | None, Exception | None]] = []
        for item in claim.items:
            transport.begin(item)
            message_id, error = await deliver_async(item, transport)
            outcomes.append((item, message_id, error))
        return outcomes

    outbox.finish(claim, asyncio.run(deliver_claimed()))
    sent = {room: content for room, kind, content, _txn in client.sent if kind == "m.room.message"}
    assert sent["!r:x"]["m.relates_to"] == {"m.in_reply_to": {"event_id": "$q1"}}
    assert sent["!t:x"]["m.relates_to"] == {"rel_type": "m.thread", "event_id": "$root",
                                            "is_falling_back": False,
                                            "m.in_reply_to": {"event_id": "$q2"}}
    assert _status(pg_engine) == {plain: ("sent", 0), threaded: ("sent", 0)}
