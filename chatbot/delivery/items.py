"""What an outbox row is to a transport: the ``Item``, its ``plan``, the transports' shape and
the exceptions a transport raises to say how a delivery went.

A row with an ``action`` shows no view but acts on its slot's message: ``delete`` it, ``pin`` it
or ``unpin`` it. A transport without ``pin``/``unpin`` (Matrix's rooms may refuse, the console
has none) refuses pinning with ``CannotPin``. A ``document`` row sends a file (no slot): its
text is the file's name, a newline and the file's content (``document_text``); a transport
sends it with ``document(chat, name, data)`` and returns the message's id. A ``thread`` row
opens a new topic (Telegram's forum) or thread (Matrix: its root message) named by its text:
``thread(chat, name)`` returns the new thread's id, kept as the row's message id and as the
message of the row's slot (a transport that has none, or a chat that takes none, gives it up:
the caller falls back). A ``thread_name`` row renames the topic or thread its slot names
(``name_thread(chat, thread, name)``; nothing where the slot names none). A ``leave`` row
has the bot leave the chat (``leave(chat)``: a room opened for one game, after its last view).

A person's private topic for a table (Telegram: a topic in their private chat with the bot)
is the thread opened under the slot ``topic_slot(table)``: every row of that table to that
chat goes into it (``Item.topic``: resolved from the slot, or from the thread row delivered
before it in the same pass); without it, into the chat itself.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Protocol

ACTIONS = ("delete", "pin", "unpin")
DOCUMENT = "document"  # the action of a row that sends a file
THREAD = "thread"  # the action of a row that opens a new topic or thread (its text: the name)
THREAD_NAME = "thread_name"  # … that renames the one its slot names (its text: the new name)
LEAVE = "leave"  # the action of a row after which the bot leaves the chat (a room of one game)
TOPIC = "pt"  # the slot of a person's private topic for a table: ``pt<table>``


def topic_slot(table_id: int) -> str:
    """The slot under which a table's topic in a person's private chat is opened."""
    return f"{TOPIC}{table_id}"
Rows = list[list[list[str]]]  # button rows: [[label, data], ...] per row


class MessageGone(Exception):
    """The message to edit no longer exists: post the view anew."""


class Permanent(Exception):
    """Delivery can never succeed (e.g. the user blocked the bot): give the row up."""


class CannotPin(Permanent):
    """The bot may not pin messages in this chat (or the platform has no pins)."""


class Retry(Exception):
    """Try again later (rate limit, network, server error)."""

    def __init__(self, after: float = 1.0, reason: str = "") -> None:
        super().__init__(reason or f"retry after {after}s")
        self.after = after


def content_hash(text: str, rows: list) -> str:
    """The digest of a view (text and buttons) kept with its slot: an unchanged view is kept."""
    return hashlib.sha256((text + repr(rows)).encode()).hexdigest()[:32]


def document_text(name: str, content: str) -> str:
    """A ``document`` row's text: the file's name (one line), then its content."""
    return f"{name.splitlines()[0] if name.strip() else 'file'}\n{content}"


def document_of(item: Item) -> tuple[str, bytes]:
    """The file a ``document`` item sends: its name and its content (UTF-8)."""
    name, _, content = item.text.partition("\n")
    return name, content.encode("utf-8")


def plan(item: Item) -> str:
    """What delivering an item takes: ``keep`` (nothing), ``send``, ``edit`` or ``repost``;
    or its action (``delete``, ``pin``, ``unpin``; ``keep`` when the slot shows nothing;
    ``document``: a file sent)."""
    if item.action in (DOCUMENT, THREAD, LEAVE):
        return item.action
    if item.action:
        return item.action if item.message_id is not None else "keep"
    if item.slot is None or item.message_id is None:
        return "send"
    if item.fresh:
        return "repost"
    if item.unchanged:
        return "keep"
    return "repost" if item.repost else "edit"


@dataclass
class Item:
    """One outbox row as the transport sees it. Its ``plan`` is worked out once, when it is
    made (``dataclasses.replace`` makes it anew); ``shows`` points it at another message."""

    id: int
    chat: str
    slot: str | None
    repost: bool
    text: str
    rows: Rows
    message_id: str | None  # the slot's current message, if any
    unchanged: bool
    text_hash: str | None = None  # of text and rows, for slot items (computed once)
    fresh: bool = False  # post anew at the bottom even if unchanged (a command's answer)
    action: str | None = None  # delete | pin | unpin the slot's message (no view)
    reply_to: str | None = None  # the message it answers ("<id>" or "<thread root> <id>")
    thread: str | None = None  # the chat's topic or thread it goes to (the adapter's key)
    topic: str | None = None  # the slot of the private topic it goes to once that is opened
    plan: str = field(init=False, default="")  # see ``plan``

    def __post_init__(self) -> None:
        self.plan = plan(self)

    def goes_to(self, thread: str) -> None:
        """Its private topic was opened (a thread row of the same pass): it goes there."""
        if self.thread is None:
            self.thread, self.topic = thread, None

    def shows(self, message_id: str | None) -> None:
        """The slot shows another message by now (an action row acts on that one)."""
        if message_id != self.message_id:
            self.message_id = message_id
            self.plan = plan(self)


class Transport(Protocol):
    """A blocking platform adapter (the console, the benches)."""

    def send(self, chat: str, text: str, rows: Rows) -> str: ...
    def edit(self, chat: str, message_id: str, text: str, rows: Rows) -> None: ...
    def delete(self, chat: str, message_id: str) -> None: ...


class AsyncTransport(Protocol):
    """An asyncio platform adapter (Telegram, Matrix); ``pin``/``unpin`` if it has pins."""

    async def send(self, chat: str, text: str, rows: Rows) -> str: ...
    async def edit(self, chat: str, message_id: str, text: str, rows: Rows) -> None: ...
    async def delete(self, chat: str, message_id: str) -> None: ...
