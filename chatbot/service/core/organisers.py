"""What every room that organises for a group reads of the group's settings: who may organise
— plan or call off a Stammtisch evening, open a tournament: anybody (the default) or only its
administrators (``group_setting.organisers``, set by an administrator) — and the group's time
zone (its choice, else its language's) that typed times are read in.
"""

from __future__ import annotations

from sqlmodel import Session

from storage.models import Chat, GroupSetting

from ...durations import LANGUAGE_ZONES
from .api import UserRef

ANYONE, ADMINS = "all", "admins"
CHOICES = (ANYONE, ADMINS)


def organisers(session: Session, chat: Chat) -> str:
    """The group's setting: ``all`` or ``admins``."""
    setting = session.get(GroupSetting, chat.id)
    return setting.organisers if setting is not None and setting.organisers in CHOICES \
        else ANYONE


def may_organise(session: Session, chat: Chat, user: UserRef) -> bool:
    """Whether this person may organise for the group (its administrators always may)."""
    return user.is_admin or organisers(session, chat) == ANYONE


def set_organisers(session: Session, chat: Chat, value: str) -> None:
    """Store who may organise (``all`` or ``admins``); the caller checks the rights."""
    if value not in CHOICES:
        raise ValueError(value)
    setting = session.get(GroupSetting, chat.id)
    if setting is None:
        session.add(GroupSetting(chat_id=chat.id, organisers=value))  # type: ignore[arg-type]
    else:
        setting.organisers = value


def group_zone(session: Session, chat: Chat, lang: str) -> str:
    """The group's time zone: its choice (``/abend zone``), else its language's."""
    setting = session.get(GroupSetting, chat.id)
    if setting is not None and setting.zone:
        return setting.zone
    return LANGUAGE_ZONES.get(lang[:2], "UTC")
