"""The language of each chat's and each person's messages, resolved once per input: a chat's
choice (``/language``), else in a private chat its person's language, else the default."""

from __future__ import annotations

from sqlmodel import Session

from storage.models import Chat, Player

from ...i18n import LANGUAGES, pick_language
from . import records
from .api import Settings
from .transaction import Ctx


def language_of(chat: Chat | None, settings: Settings, session: Session | None = None) -> str:
    """The language of a chat's messages: its choice; else, in a private chat (given the
    session to look the person up), its person's language; else the default."""
    person = None
    if session is not None and chat is not None and chat.kind == "private" \
            and chat.language not in LANGUAGES:
        person = records.private_person(session, chat)
    return pick_language(chat.language if chat else None, person.language if person else None,
                         settings.default_language)


def language(ctx: Ctx, chat: Chat | None) -> str:
    """``language_of`` a chat, resolved once per input (the input's own chat is resolved
    when the input begins: ``seed_language``)."""
    if chat is None:
        return language_of(None, ctx.settings)
    key = (chat.platform, chat.external_id)
    lang = ctx.langs.get(key)
    if lang is None:
        lang = ctx.langs[key] = language_of(chat, ctx.settings, ctx.session)
    return lang


def seed_language(ctx: Ctx, chat: Chat, person: Player | None) -> None:
    """The language of the input's own chat, from what the input already read: in a private
    chat its person is the one who wrote (no lookup), in a group the chat's choice."""
    if chat.kind == "private" and chat.language not in LANGUAGES and person is None:
        return  # (nobody known: looked up if a message goes there)
    ctx.langs[(chat.platform, chat.external_id)] = pick_language(
        chat.language, person.language if person is not None and chat.kind == "private"
        else None, ctx.settings.default_language)


def person_language(ctx: Ctx, platform: str, player: Player) -> str:
    """The language of a person's private views: their private chat's choice (/language
    there), else their own language; resolved once per input."""
    key = (platform, player.private_chat_id or "")
    lang = ctx.langs.get(key)
    if lang is None:
        lang = ctx.langs[key] = pick_language(
            records.chat_language(ctx.session, platform, player.private_chat_id or ""),
            player.language, ctx.settings.default_language)
    return lang


def page_language(session: Session, platform: str, player: Player | None,
                  user_lang: str | None, default: str) -> str:
    """The language of a person's Mini App page: their private chat's choice (/language
    there), else what the platform says of them now (``user_lang``), else the one kept for
    them, else the default — as a table's page picks it."""
    chosen = records.chat_language(session, platform, player.private_chat_id) \
        if player is not None and player.private_chat_id else None
    return pick_language(chosen, user_lang or (player.language if player else None), default)
