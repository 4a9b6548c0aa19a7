"""Telegram's command menus, generated from the service's registry of commands: the names the
bot answers (every name of every command, in any language) and the menus ``setMyCommands``
sets per language and scope."""

from __future__ import annotations

import re
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
)

from ..i18n import LANGUAGES, tr
from ..service import AdminRights, Service

_TELEGRAM_NAME = re.compile(r"[a-z0-9_]{1,32}")


def command_names(service: Service) -> list[str]:
    """Every name of every command the service declares, as Telegram takes them (a command
    name is 1–32 of a–z, 0–9 and _)."""
    return [n for n in service.registry.commands if _TELEGRAM_NAME.fullmatch(n)]


def command_menus(service: Service) -> list[tuple[Any, list[BotCommand], str | None]]:
    """The command menus (``setMyCommands``) from the service's registry, per language (and
    without one, for the bot's default language) and scope: every chat, private chats, groups,
    and the groups' administrators (who also see the commands that ask for their rights)."""
    scopes = ((BotCommandScopeDefault(), None, True),
              (BotCommandScopeAllPrivateChats(), "private", True),
              (BotCommandScopeAllGroupChats(), "group", False),
              (BotCommandScopeAllChatAdministrators(), "group", True))
    menus: list[tuple[Any, list[BotCommand], str | None]] = []
    for lang in (*LANGUAGES, None):
        shown = lang or service.settings.default_language
        for scope, kind, admins in scopes:
            listed = [c for c in service.registry.listed(kind)
                      if admins or c.admin != AdminRights.ALWAYS]
            menus.append((scope, [BotCommand(c.name_in(shown), tr(shown, c.about))
                                  for c in listed], lang))
    return menus
