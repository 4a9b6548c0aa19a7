"""Telegram's sending limits, given to the claimed delivery (``chatbot.delivery.claim``):
about one message a second per chat, 20 a minute per group and 30 a second in all."""

from __future__ import annotations

from dataclasses import dataclass

INLINE = "inline:"  # a chat that is one inline message: ``inline:<inline_message_id>``


def is_group(chat: str) -> bool:
    """Whether a chat is a group or channel (Telegram's ids of those are negative), or an
    inline message, which may be in one (edits of it count as the group's, to be safe)."""
    return chat.startswith(("-", INLINE))


@dataclass
class Limits:
    """Telegram's limits (configurable for tests)."""

    per_chat_interval: float = 1.0  # seconds between two messages to one chat
    group_per_minute: int = 20
    global_per_second: int = 30

    def chat_wait(self, chat: str, sends: list[float], now: float) -> float:
        """Seconds until the next message to a chat may go, given its recent sends."""
        waits = [0.0]
        if sends:
            waits.append(max(sends) + self.per_chat_interval - now)
        if is_group(chat):
            recent = sorted(s for s in sends if s > now - 60)
            if len(recent) >= self.group_per_minute:
                waits.append(recent[-self.group_per_minute] + 60 - now)
        return max(waits)
