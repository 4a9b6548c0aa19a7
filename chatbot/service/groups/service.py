"""What the groups room adds to the assembled ``Service``: ``chat_moved``, called by an
adapter when a chat takes another id (``moving``)."""

from __future__ import annotations

from .moving import Moved, move_chat


class GroupsService:
    """Mixed into the assembled ``Service``."""

    def chat_moved(self, platform: str, old_external_id: str, new_external_id: str,
                   title: str | None = None) -> Moved:
        """A chat took another id (a Telegram group upgraded to a supergroup): everything the
        old id names moves to the new one, exactly once however often and in whatever order
        this is called (see ``moving``). ``title``: the chat's name under the new id."""
        return move_chat(self, platform, old_external_id, new_external_id, title)  # type: ignore[arg-type]
