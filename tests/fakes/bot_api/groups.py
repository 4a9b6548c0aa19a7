"""A group's people and its upgrade: a mix-in of ``FakeBotApi``.

``getChatMember`` answers each person's status in a chat as the test set it (``set_status``:
creator, administrator, member — the default —, left or kicked), so a test can make someone an
administrator and take the rights away again. ``migrate_chat`` upgrades a basic group to a
supergroup as Telegram does: the supergroup has a new id (``-100…``), the old id is refused by
every method from then on with 400 "Bad Request: group chat was upgraded to a supergroup chat"
and ``parameters.migrate_to_chat_id`` (python-telegram-bot raises ``ChatMigrated``), and two
service messages come: ``migrate_to_chat_id`` in the old chat, ``migrate_from_chat_id`` in the
new one (``migration_message`` sends either again).
"""

from __future__ import annotations

import time
from typing import Any

from tests.fakes.bot_api.records import _Msg
from tests.fakes.bot_api.wire import ApiError

MIGRATED = "Bad Request: group chat was upgraded to a supergroup chat"
STATUSES = ("creator", "administrator", "member", "left", "kicked")
_RIGHTS = ("can_be_edited", "can_manage_chat", "can_delete_messages", "can_manage_video_chats",
           "can_restrict_members", "can_promote_members", "can_change_info",
           "can_invite_users", "can_post_stories", "can_edit_stories", "can_delete_stories")
_MORE_RIGHTS = ("can_pin_messages", "can_manage_topics")  # (groups and supergroups only)


class _Groups:
    """Member statuses and basic groups upgraded to supergroups."""

    # ---------------------------------------------------------------- control

    def set_status(self, chat_id: int, user_id: int, status: str = "administrator",
                   rights: tuple[str, ...] = ()) -> None:
        """The person's (or the bot's: ``bot_id``) status in the chat from now on, as
        ``getChatMember`` answers it; an administrator's ``rights`` (``can_manage_topics``,
        ``can_pin_messages`` …) are true, the others false."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, not {status!r}")
        unknown = set(rights) - set(_RIGHTS) - set(_MORE_RIGHTS)
        if unknown:
            raise ValueError(f"unknown rights {sorted(unknown)}")
        with self._cond:
            self._statuses[(int(chat_id), int(user_id))] = status
            self._rights[(int(chat_id), int(user_id))] = set(rights)

    def migrate_chat(self, chat_id: int, new_chat_id: int, user_id: int, *,
                     first: str = "to", notify: bool = True) -> list[int]:
        """Upgrade the basic group ``chat_id`` to the supergroup ``new_chat_id`` (its title and
        its people's statuses come along); the service messages are queued unless ``notify``
        is false, ``first`` ``"to"`` (the old chat's) or ``"from"`` (the new chat's) first.
        Returns their update ids."""
        if first not in ("to", "from"):
            raise ValueError("first must be 'to' or 'from'")
        with self._cond:
            old, new = int(chat_id), int(new_chat_id)
            if new > -1_000_000_000_000:
                raise ValueError("a supergroup's id is a -100… id")
            title = (self._chats.get(old) or self._chat_obj(old)).get("title")
            self._chats[new] = {"id": new, "type": "supergroup", "title": title}
            for (chat, user), status in list(self._statuses.items()):
                if chat == old:
                    self._statuses[(new, user)] = status
                    self._rights[(new, user)] = set(self._rights.get((old, user), ()))
            self._migrated[old] = new
            if not notify:
                return []
            order = ("to", "from") if first == "to" else ("from", "to")
            return [self.migration_message(old if kind == "to" else new, user_id,
                                           **{kind: new if kind == "to" else old})
                    for kind in order]

    def migration_message(self, chat_id: int, user_id: int, *, to: int | None = None,
                          **kwargs: int) -> int:
        """A service message of an upgrade (again): ``to=<new id>`` in the old chat, or
        ``from=<old id>`` in the new one. Returns its update id."""
        frm = kwargs.pop("from", None)
        if kwargs or (to is None) == (frm is None):
            raise ValueError("give either to=<new id> or from=<old id>")
        with self._cond:
            chat_id = int(chat_id)
            user = self._register_user(int(user_id), language_code=None)
            chat = dict(self._chats.get(chat_id) or self._chat_obj(chat_id))
            msg: dict[str, Any] = {"message_id": self._new_message_id(chat_id), "from": user,
                                   "chat": chat, "date": int(time.time())}
            if to is not None:
                msg["migrate_to_chat_id"] = int(to)
            else:
                msg["migrate_from_chat_id"] = int(frm)  # type: ignore[arg-type]
            self._store(_Msg(chat_id=chat_id, message_id=msg["message_id"], from_bot=False,
                             date=msg["date"], from_user=user, raw=dict(msg)))
            return self._enqueue({"message": msg}, None)

    def _may(self, chat_id: int, user_id: int, right: str) -> bool:
        """Whether the person (or the bot) holds an administrator's ``right`` in the chat (its
        creator holds every one)."""
        status = self._statuses.get((chat_id, user_id), "member")
        return status == "creator" or (status == "administrator"
                                       and right in self._rights.get((chat_id, user_id), set()))

    def migrated(self) -> dict[int, int]:
        """The upgraded groups: old id → new id."""
        with self._lock:
            return dict(self._migrated)

    # ---------------------------------------------------------------- helpers of the methods

    def _check_migrated(self, chat_id: int) -> None:
        new = self._migrated.get(chat_id)
        if new is not None:
            raise ApiError(400, MIGRATED, {"migrate_to_chat_id": new})

    def _member(self, chat_id: int, user: dict) -> dict:
        """A ChatMember object of the person's status in the chat."""
        status = self._statuses.get((chat_id, int(user["id"])), "member")
        member: dict[str, Any] = {"status": status, "user": user}
        if status == "creator":
            member["is_anonymous"] = False
        elif status == "administrator":
            granted = self._rights.get((chat_id, int(user["id"])), set())
            member.update({"is_anonymous": False, **dict.fromkeys(_RIGHTS, False)})
            member.update({r: r in granted for r in (*_RIGHTS, *_MORE_RIGHTS)})
        elif status == "kicked":
            member["until_date"] = 0
        return member
