"""Plumbing for the Matrix end-to-end tests: the bot process, people as matrix-nio clients,
the bot's database, and reading views the way a person does (the numbered choices under the
newest version of a message).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from nio import (
    AsyncClient,
    AsyncClientConfig,
    InviteMemberEvent,
    LoginResponse,
    MegolmEvent,
    ReactionEvent,
    RedactionEvent,
    RoomCreateResponse,
    RoomMessageNotice,
    RoomMessageText,
    RoomSendResponse,
    SyncResponse,
)
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

from engine import GAMES

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0  # generous: the suite must never depend on speed
TRACEBACK_MARKERS = ("Traceback", 'File "', "Exception", "Error:", "sqlalchemy", "psycopg")
_CARD_RE = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♣♠♥♦])")
_CHOICE = re.compile(r"^(\d+)\. (.*)$")
T = TypeVar("T")


def card_symbols(value: str) -> set[str]:
    """Every card symbol (``K♥``, ``10♠``) written in a text."""
    return {m.group(1) + m.group(2) for m in _CARD_RE.finditer(value or "")}


async def wait_for(probe: Callable[[], T | None], timeout: float = WAIT,
                   message: str = "a condition", every: float = 0.05) -> T:
    """Poll ``probe`` (while the clients keep syncing) until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {message}")
        await asyncio.sleep(every)


# ------------------------------------------------------------------------------ the bot process


@dataclass
class BotProcess:
    """One run of ``stammtisch matrix`` with its own log file."""

    env: dict[str, str]
    cwd: Path
    log_path: Path
    proc: subprocess.Popen | None = None
    _offset: int = 0

    def start(self, timeout: float = WAIT) -> BotProcess:
        self._offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "chatbot.cli", "matrix"],
                                     env=self.env, cwd=self.cwd, stdout=log,
                                     stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + timeout
        while "matrix bot " not in self.run_log() or " ready" not in self.run_log():
            if self.proc.poll() is not None:
                raise AssertionError(f"the bot exited with {self.proc.returncode}:\n{self.log()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"the bot did not get ready:\n{self.log()}")
            time.sleep(0.05)
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM) -> int | None:
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return None if proc is None else proc.returncode
        proc.send_signal(sig)
        try:
            return proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait(timeout=20)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"

    def run_log(self) -> str:
        """The log of this run only (a log file may hold several runs)."""
        return self.log()[self._offset:] if self._offset else self.log()

    def handled_events(self) -> list[str]:
        return re.findall(r"event (\$\S+) in \S+ from \S+: (?:text|reaction)", self.run_log())


def bot_env(homeserver: str, user: str, password: str, db_url: str, store: Path,
            **overrides: Any) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MATRIX_", "TELEGRAM_", "DATABASE_URL", "TURN_", "CPU_",
                                "NEXT_ROUND"))}
    env.update({
        "MATRIX_HOMESERVER": homeserver,
        "MATRIX_USER": user,
        "MATRIX_PASSWORD": password,
        "MATRIX_STORE_PATH": str(store),
        "MATRIX_STORE_KEY": "a-test-store-key-0123456789",
        "DATABASE_URL": db_url,
        "CPU_DELAY": "0.05",
        "TURN_TIMEOUT": "120",
        "NEXT_ROUND_DELAY": "0.3",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": str(ROOT),
        "INPUT_RATE": "off",  # the players here are scripts (tests of flood control set it)
    })
    env.update({k: str(v) for k, v in overrides.items()})
    return env


# ------------------------------------------------------------------------------ the database


def as_utc(value: Any) -> datetime:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    assert isinstance(value, datetime), value
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class Db:
    """Read-only plain-SQL access to the bot's database."""

    def __init__(self, url: str) -> None:
        self.engine: Engine = create_engine(url, poolclass=NullPool)

    def rows(self, sql: str, **params: Any) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(text(sql), params)]

    def table(self, table_id: int) -> dict[str, Any]:
        rows = self.rows("SELECT * FROM game_table WHERE id = :t", t=table_id)
        assert rows, f"no table {table_id}"
        return rows[0]

    def tables(self) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM game_table ORDER BY id")

    def moves(self, table_id: int) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM move WHERE table_id = :t ORDER BY seq", t=table_id)

    def seats(self, table_id: int) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM seat WHERE table_id = :t ORDER BY seat_no", t=table_id)

    def outbox(self, room: str | None = None) -> list[dict[str, Any]]:
        if room is None:
            return self.rows("SELECT * FROM outbox WHERE platform = 'matrix' ORDER BY id")
        return self.rows("SELECT * FROM outbox WHERE platform = 'matrix' AND "
                         "chat_external_id = :c ORDER BY id", c=room)

    def result(self, table_id: int) -> dict[str, Any] | None:
        rows = self.rows("SELECT * FROM result WHERE table_id = :t", t=table_id)
        return rows[0] if rows else None

    def dispose(self) -> None:
        self.engine.dispose()


def loads(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def replay(db: Db, table_id: int) -> Callable[[datetime], Any]:
    """``state_at(when)``: the table's engine state after every move logged at or before
    ``when`` (its seed and move log, replayed with the engine)."""
    table = db.table(table_id)
    game = GAMES[table["game"]]
    options = loads(table["options"]) or {}
    n = len(db.seats(table_id))
    states = [(datetime.min.replace(tzinfo=UTC),
               game.new_game(n, options.get("engine") or {}, int(table["seed"])))]
    for move in db.moves(table_id):
        state, _ = game.apply(states[-1][1], move["code"])
        states.append((as_utc(move["at"]), state))

    def state_at(when: datetime) -> Any:
        found = states[0][1]
        for at, state in states:
            if at <= when:
                found = state
            else:
                break
        return found

    return state_at


# ------------------------------------------------------------------------------ people


@dataclass
class Msg:
    """A message as a client shows it: the newest edit, its reactions, deleted or not."""

    event_id: str
    sender: str
    ts: int
    body: str
    html: str = ""
    encrypted: bool = False
    deleted: bool = False
    versions: list[str] = field(default_factory=list)
    reactions: set[str] = field(default_factory=set)

    @property
    def first_line(self) -> str:
        return self.body.split("\n", 1)[0]

    def choices(self) -> list[tuple[int, str]]:
        """The numbered choices under the text: (number, label)."""
        tail = self.body.rsplit("\n\n", 1)[-1] if "\n\n" in self.body else ""
        found = []
        for line in tail.split("\n"):
            m = _CHOICE.match(line)
            if not m:
                return []
            found.append((int(m.group(1)), m.group(2)))
        return found

    def choice(self, *labels: str) -> int | None:
        """The number of the first choice whose label starts with one of ``labels``."""
        for n, label in self.choices():
            if any(label.startswith(want) for want in labels):
                return n
        return None


class Person:
    """A Matrix user as a matrix-nio client that keeps syncing in the background."""

    def __init__(self, homeserver: str, user_id: str, password: str, bot_id: str,
                 store: Path | None = None) -> None:
        self.user_id, self.password, self.bot_id = user_id, password, bot_id
        e2e = store is not None
        if store is not None:
            store.mkdir(parents=True, exist_ok=True)
        self.client = AsyncClient(homeserver, user_id, store_path=str(store) if store else "",
                                  config=AsyncClientConfig(encryption_enabled=e2e,
                                                           store_sync_tokens=False))
        self.rooms: dict[str, list[Msg]] = {}
        self.by_id: dict[str, Msg] = {}
        self.reaction_ids: dict[str, tuple[Msg, str]] = {}  # the bot's reactions
        self.undecryptable: list[str] = []
        self.ephemeral: list[tuple[str, Any]] = []  # (room, typing notice or receipts event)
        self._task: asyncio.Task | None = None

    @property
    def name(self) -> str:
        return self.user_id[1:].split(":")[0]

    async def start(self) -> Person:
        resp = await self.client.login(self.password, device_name="test")
        assert isinstance(resp, LoginResponse), resp
        self.client.add_response_callback(self._on_sync, SyncResponse)  # type: ignore[arg-type]
        self._task = asyncio.create_task(self.client.sync_forever(timeout=3000,
                                                                  full_state=True))
        return self

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self.client.close()

    async def _on_sync(self, resp: SyncResponse) -> None:
        for room_id, info in resp.rooms.invite.items():
            if any(isinstance(e, InviteMemberEvent) and e.state_key == self.user_id
                   for e in info.invite_state):
                await self.client.join(room_id)
        for room_id, info in resp.rooms.join.items():
            for event in info.timeline.events:
                self._record(room_id, event)
            for event in info.ephemeral:
                self.ephemeral.append((room_id, event))

    def _record(self, room_id: str, event: Any) -> None:
        msgs = self.rooms.setdefault(room_id, [])
        if isinstance(event, MegolmEvent):
            self.undecryptable.append(event.event_id)
            return
        if isinstance(event, (RoomMessageText, RoomMessageNotice)):
            content = event.source.get("content") or {}
            relates = content.get("m.relates_to") or {}
            encrypted = bool(getattr(event, "decrypted", False))
            if relates.get("rel_type") == "m.replace":
                target = self.by_id.get(relates.get("event_id", ""))
                new = content.get("m.new_content") or {}
                if target is not None:
                    target.body = new.get("body", "")
                    target.html = new.get("formatted_body", "")
                    target.versions.append(target.body)
                return
            msg = Msg(event.event_id, event.sender, event.server_timestamp, event.body,
                      content.get("formatted_body", ""), encrypted, versions=[event.body])
            msgs.append(msg)
            self.by_id[msg.event_id] = msg
        elif isinstance(event, RedactionEvent):
            target = self.by_id.get(event.redacts)
            if target is not None:
                target.deleted = True
            seeded = self.reaction_ids.pop(event.redacts, None)
            if seeded is not None:  # a reaction taken back
                seeded[0].reactions.discard(seeded[1])
        elif isinstance(event, ReactionEvent):
            target = self.by_id.get(event.reacts_to)
            if target is not None and event.sender == self.bot_id:
                target.reactions.add(event.key)
                self.reaction_ids[event.event_id] = (target, event.key)

    # ------------------------------------------------------------------ reading
    def bot_messages(self, room_id: str, deleted: bool = False) -> list[Msg]:
        return [m for m in self.rooms.get(room_id, [])
                if m.sender == self.bot_id and (deleted or not m.deleted)]

    def newest(self, room_id: str, pred: Callable[[Msg], bool] = lambda m: True) -> Msg | None:
        found = [m for m in self.bot_messages(room_id) if pred(m)]
        return found[-1] if found else None

    def said(self, room_id: str, needle: str, since: int = 0) -> Msg | None:
        return next((m for m in self.bot_messages(room_id, deleted=True)[since:]
                     if needle in m.body), None)

    def count(self, room_id: str) -> int:
        return len(self.bot_messages(room_id, deleted=True))

    def direct_room(self) -> str | None:
        """The bot's direct room with this person (one with only the two of them)."""
        for room_id, room in self.client.rooms.items():
            if set(room.users) == {self.user_id, self.bot_id} and room_id in self.rooms:
                return room_id
        return None

    # ------------------------------------------------------------------ acting
    async def say(self, room_id: str, body: str, reply_to: str | None = None) -> str:
        content: dict[str, Any] = {"msgtype": "m.text", "body": body}
        if reply_to:
            content["m.relates_to"] = {"m.in_reply_to": {"event_id": reply_to}}
        resp = await self.client.room_send(room_id, "m.room.message", content,
                                           ignore_unverified_devices=True)
        assert isinstance(resp, RoomSendResponse), resp
        return resp.event_id

    async def react(self, room_id: str, event_id: str, key: str) -> str:
        resp = await self.client.room_send(room_id, "m.reaction", {"m.relates_to": {
            "rel_type": "m.annotation", "event_id": event_id, "key": key}},
            ignore_unverified_devices=True)
        assert isinstance(resp, RoomSendResponse), resp
        return resp.event_id

    async def create_room(self, invite: list[str], name: str | None = None,
                          direct: bool = False, encrypted: bool = False) -> str:
        initial = [{"type": "m.room.encryption", "state_key": "",
                    "content": {"algorithm": "m.megolm.v1.aes-sha2"}}] if encrypted else []
        resp = await self.client.room_create(name=name, invite=invite, is_direct=direct,
                                             initial_state=initial)
        assert isinstance(resp, RoomCreateResponse), resp
        return resp.room_id

    async def joined(self, room_id: str, user_id: str, timeout: float = WAIT) -> None:
        def probe() -> bool:
            room = self.client.rooms.get(room_id)
            return bool(room and user_id in room.users and user_id not in room.invited_users)
        await wait_for(probe, timeout, f"{user_id} to join {room_id}")


async def open_group(owner: Person, others: list[Person], name: str) -> str:
    """A group room of ``owner``, ``others`` and the bot, everybody in, the bot's greeting
    there."""
    group = await owner.create_room([owner.bot_id, *(p.user_id for p in others)], name=name)
    for p in others:
        await owner.joined(group, p.user_id)
    await owner.joined(group, owner.bot_id)
    await wait_for(lambda: owner.said(group, "Stammtisch"), WAIT, "the greeting")
    return group


async def start_group_game(owner: Person, others: list[Person], group: str,
                           game: str = "schwimmen") -> Msg:
    """``!new <game>`` by ``owner``, ``!mitmachen`` by the others, ``!starten``: the group's
    table message once a player is on turn."""
    await owner.say(group, f"!new {game}")
    table = await wait_for(lambda: owner.newest(group, lambda m: m.choice("Mitmachen")),
                           WAIT, "the lobby")
    for p in others:
        await p.say(group, "!mitmachen")
        await wait_for(lambda p=p: p.name in table.body, WAIT, f"{p.name} in the lobby")
    await owner.say(group, "!starten")
    await wait_for(lambda: "Am Zug:" in table.body, WAIT, "the game")
    return table


async def gather(*aws: Awaitable[Any]) -> list[Any]:
    return list(await asyncio.gather(*aws))


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
