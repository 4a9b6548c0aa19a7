"""What the Telegram adapter reads off an update: who wrote where (``refs``, the forum topic:
``topic_of``, its name: ``topic_name``), a group's move to a new id (``migration``), and whether a press is older than
Telegram's answer window (``too_old``)."""

from __future__ import annotations

from typing import Any

from telegram.constants import ChatType

from ..service import ChatRef, UserRef

PLATFORM = "telegram"
ANSWER_WINDOW = 10.0  # seconds Telegram takes an answer to a button press (not documented)


def too_old(update_id: int, before_start: tuple[int, float] | None, now: float,
            window: float = ANSWER_WINDOW) -> bool:
    """Whether a press is known to be older than Telegram's answer window: the last run had
    already fetched an update at least this new (ids only grow) at a time longer ago than the
    window. (A press made while no process ran may be old too, but nothing tells.)"""
    if before_start is None:
        return False
    newest, when = before_start
    return update_id <= newest and now - when > window


def newest(value: str | None) -> tuple[int, float] | None:
    try:
        newest, when = (value or "").split()
        return int(newest), float(when)
    except ValueError:
        return None


def topic_of(is_forum: bool, message: Any) -> str | None:
    """The forum topic a message was written in (its ``message_thread_id``), ``None`` for the
    General topic and outside forums: an ordinary supergroup gives reply chains a thread id
    too, and a message sent there with it would be refused."""
    if not is_forum or message is None or not getattr(message, "is_topic_message", False):
        return None
    thread = getattr(message, "message_thread_id", None)
    return str(thread) if thread else None


def migration(message: Any) -> tuple[str, str] | None:
    """(old id, new id) of a group upgraded to a supergroup, from either service message
    (``migrate_to_chat_id`` in the old chat, ``migrate_from_chat_id`` in the new one)."""
    if message is None:
        return None
    if getattr(message, "migrate_to_chat_id", None):
        return str(message.chat.id), str(message.migrate_to_chat_id)
    if getattr(message, "migrate_from_chat_id", None):
        return str(message.migrate_from_chat_id), str(message.chat.id)
    return None


def topic_name(message: Any) -> str | None:
    """A forum topic's name where a message says it: its creation or renaming (the service
    messages), or the creation message that a message in the topic answers (as every one
    does that answers no other); ``None`` otherwise."""
    if message is None:
        return None
    for said in (message, getattr(message, "reply_to_message", None)):
        created = getattr(said, "forum_topic_created", None) if said is not None else None
        if created is not None and created.name:
            return str(created.name)[:128]
    edited = getattr(message, "forum_topic_edited", None)
    return str(edited.name)[:128] if edited is not None and edited.name else None


def refs(chat_id: int, chat_type: str | None, title: str | None, user_id: int,
         first_name: str | None, last_name: str | None, username: str | None,
         language: str | None, is_admin: bool = False) -> tuple[ChatRef, UserRef]:
    """The service's view of who wrote where."""
    kind = "private" if chat_type == ChatType.PRIVATE else "group"
    name = " ".join(p for p in (first_name, last_name) if p) or str(user_id)
    return (ChatRef(PLATFORM, str(chat_id), kind, title),
            UserRef(str(user_id), name[:64], username, language, is_admin))
