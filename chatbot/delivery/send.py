"""Delivering one item through a transport: what its ``plan`` takes (send, edit in place,
repost, or an action on the slot's message), with "message gone" and failures mapped; the
blocking path (``deliver``: the console and the benches) and the asyncio one
(``deliver_async`` + ``record``: the Telegram and Matrix senders)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .items import (
    ACTIONS,
    DOCUMENT,
    LEAVE,
    THREAD,
    THREAD_NAME,
    AsyncTransport,
    CannotPin,
    Item,
    MessageGone,
    Permanent,
    Retry,
    Transport,
    document_of,
)
from .plain import OutboxStore

log = logging.getLogger(__name__)
DELETE_ATTEMPTS = 3  # retries of deleting a reposted view's old copy
_BACKGROUND: set[asyncio.Task] = set()


def deliver(store: OutboxStore, item: Item, transport: Transport) -> None:
    """Deliver one item through a (blocking) transport, recording the outcome (a transport
    with ``begin`` learns the item about to go first: its topic or thread)."""
    store.message_moved(item)
    begin = getattr(transport, "begin", None)
    if begin is not None:
        begin(item)
    action = item.plan
    try:
        message_id = item.message_id
        if action in ACTIONS:
            _act(transport, action, item)
        elif action == DOCUMENT:
            message_id = _document(transport, item)
        elif action == THREAD:
            message_id = _thread(transport, item)
        elif action == THREAD_NAME:
            _name_thread(transport, item)
        elif action == LEAVE:
            _leave(transport, item)
        elif action == "send":
            message_id = transport.send(item.chat, item.text, item.rows)
        elif action == "edit":
            try:
                transport.edit(item.chat, item.message_id, item.text, item.rows)  # type: ignore[arg-type]
            except MessageGone:
                message_id = transport.send(item.chat, item.text, item.rows)
        elif action == "repost":
            message_id = transport.send(item.chat, item.text, item.rows)
            _quietly(transport.delete, item.chat, item.message_id)
    except Retry as exc:
        store.failed(item, str(exc), exc.after)
        return
    except Permanent as exc:
        log.warning("outbox %s to %s given up: %s", item.id, item.chat, exc)
        store.failed(item, str(exc), None)
        return
    store.done(item, message_id)


async def deliver_async(item: Item,
                        transport: AsyncTransport) -> tuple[str | None, Exception | None]:
    """Deliver one item through an async transport; returns (message id, error).

    The caller records the outcome (``record``, or ``ClaimingOutbox.finish``) off the event
    loop."""
    action = item.plan
    message_id = item.message_id
    try:
        if action in ACTIONS:
            result = _act(transport, action, item)
            if result is not None:
                await result
        elif action == DOCUMENT:
            message_id = await _document(transport, item)
        elif action == THREAD:
            message_id = await _thread(transport, item)
        elif action == THREAD_NAME:
            await _name_thread(transport, item)
        elif action == LEAVE:
            await _leave(transport, item)
        elif action == "send":
            message_id = await transport.send(item.chat, item.text, item.rows)
        elif action == "edit":
            try:
                await transport.edit(item.chat, item.message_id, item.text, item.rows)  # type: ignore[arg-type]
            except MessageGone:
                message_id = await transport.send(item.chat, item.text, item.rows)
        elif action == "repost":
            message_id = await transport.send(item.chat, item.text, item.rows)
            try:
                await transport.delete(item.chat, item.message_id)  # type: ignore[arg-type]
            except Retry as exc:  # rate limit or network: the old copy goes a little later
                _later(_delete_later(transport, item.chat, item.message_id, exc.after))  # type: ignore[arg-type]
            except Exception:  # the old message may be gone or too old to delete
                log.info("could not delete old message %s", item.message_id)
    except (Retry, Permanent) as exc:
        return None, exc
    return message_id, None


def record(store: OutboxStore, item: Item, message_id: str | None, error: Exception | None) -> None:
    """Store the outcome of ``deliver_async``."""
    if error is None:
        store.done(item, message_id)
    elif isinstance(error, Retry):
        store.failed(item, str(error), error.after)
    elif isinstance(error, CannotPin):  # not possible here: nothing was lost
        store.failed(item, str(error), None, status="dropped")
    else:
        log.warning("outbox %s to %s given up: %s", item.id, item.chat, error)
        store.failed(item, str(error), None)


class SlotMessages:
    """The messages a pass's deliveries put in slots so far: an action row after a view of
    its slot in the same pass acts on the message that view left (the pass read the older);
    a row after the thread row that opened its private topic goes into that topic."""

    def __init__(self) -> None:
        self._now: dict[tuple[str, str], str] = {}

    def before(self, item: Item) -> None:
        if item.action and item.slot and (item.chat, item.slot) in self._now:
            item.shows(self._now[(item.chat, item.slot)])
        if item.topic and (item.chat, item.topic) in self._now:
            item.goes_to(self._now[(item.chat, item.topic)])

    def after(self, item: Item, message_id: str | None, error: Exception | None) -> None:
        if error is None and item.slot and item.action in (None, THREAD) \
                and message_id is not None:
            self._now[(item.chat, item.slot)] = message_id


def _act(transport: Any, action: str, item: Item) -> Any:
    """Call the transport for an action row (a coroutine with an async transport)."""
    call = getattr(transport, action, None)
    if call is None:  # a platform without pins
        raise CannotPin(f"{action}: not supported")
    return call(item.chat, item.message_id)


def _document(transport: Any, item: Item) -> Any:
    """Send a ``document`` row's file (a coroutine with an async transport); a transport that
    sends no files gives the row up."""
    call = getattr(transport, "document", None)
    if call is None:
        raise Permanent("documents: not supported")
    return call(item.chat, *document_of(item))


def _thread(transport: Any, item: Item) -> Any:
    """Open a ``thread`` row's topic or thread (a coroutine with an async transport); a
    transport that opens none gives the row up."""
    call = getattr(transport, "thread", None)
    if call is None:
        raise Permanent("threads: not supported")
    return call(item.chat, item.text)


def _name_thread(transport: Any, item: Item) -> Any:
    """Rename the topic or thread a ``thread_name`` row's slot names (a coroutine with an
    async transport); a transport that renames none gives the row up."""
    call = getattr(transport, "name_thread", None)
    if call is None:
        raise Permanent("naming threads: not supported")
    return call(item.chat, item.message_id, item.text)


def _leave(transport: Any, item: Item) -> Any:
    """Leave a ``leave`` row's chat (a coroutine with an async transport); a transport that
    leaves none gives the row up."""
    call = getattr(transport, "leave", None)
    if call is None:
        raise Permanent("leaving chats: not supported")
    return call(item.chat)


def _later(coro: Any) -> None:
    task = asyncio.get_running_loop().create_task(coro)
    _BACKGROUND.add(task)
    task.add_done_callback(_BACKGROUND.discard)


async def _delete_later(transport: AsyncTransport, chat: str, message_id: str,
                        after: float) -> None:
    """Delete the old copy of a reposted view after a failed try (its buttons are refused as
    stale meanwhile, so this is tidiness, not safety; a restart forgets it)."""
    for _ in range(DELETE_ATTEMPTS):
        await asyncio.sleep(min(max(after, 0.0), 30.0))
        try:
            await transport.delete(chat, message_id)
            return
        except Retry as exc:
            after = exc.after
        except Exception:
            return
    log.info("gave up deleting old message %s in %s", message_id, chat)


def _quietly(fn, *args) -> None:  # type: ignore[no-untyped-def]
    try:
        fn(*args)
    except Exception:  # the old message may be gone or too old to delete
        log.info("could not delete old message %s", args[-1])
