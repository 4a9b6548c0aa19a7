"""What the adapters hand the service and get back: who wrote where, the short answer,
the settings, and the changes a commit made."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, Protocol, TypeVar

from storage.retention import Retention

from ... import buttons
from ...i18n import DEFAULT_LANGUAGE


@dataclass(frozen=True)
class ChatRef:
    """Where an input came from."""

    platform: str
    external_id: str
    kind: str = "private"  # private | group
    title: str | None = None
    # the chat's topic or thread the input was written in (opaque; the adapter decides what
    # it means: a Telegram forum topic, a Matrix thread's root); ``None``: the chat itself
    thread: str | None = None
    # that topic's or thread's name as people read it, where the adapter knows one (a Matrix
    # thread's first message, shortened; a Telegram forum topic's name): tables opened there
    # are named by it outside the chat (``records.place_name``)
    thread_name: str | None = None


@dataclass(frozen=True)
class UserRef:
    """Who sent an input."""

    external_id: str
    name: str
    username: str | None = None
    language: str | None = None
    is_admin: bool = False


class PressInput(NamedTuple):
    """One button press as an adapter hands it over with others (``Service.press_many``)."""

    chat: ChatRef
    user: UserRef
    data: str | buttons.Press | None  # the button's data, or the press decoded from it
    update_key: str | None  # the platform's update id (a repeated one changes nothing)


@dataclass
class Outcome:
    """The short answer to an input (an alert for a button, a reply for a command)."""

    text: str | None = None
    ok: bool = True
    alert: bool = False
    table_id: int | None = None
    changed: bool = False


T = TypeVar("T")


class Thinking(Protocol):
    """Where a slow CPU decision is thought (the executor seam of ``cpu.Decisions``): the
    local process pool, the calling thread, or a task queue whose workers may run on other
    machines (``chatbot.runtime.thinking``)."""

    def think(self, work: Callable[..., T], calls: Sequence[tuple[Any, ...]],
              seconds: float | None) -> list[T]:
        """``[work(*args) for args in calls]``, thought side by side where it can be.
        ``seconds``: how long the calls may think in all (``None``: not known); a place that
        waits for other machines gives up after that plus its margin with ``TimeoutError``."""
        ...


@dataclass
class Settings:
    """Service behaviour that differs between transports and tests."""

    cpu_delay: float = 1.0  # seconds a CPU "thinks" before its move is played
    group_timeout: int = 60  # default turn clock in groups; private games have none
    next_round_delay: float = 6.0  # groups: the next round is dealt by itself after this
    rematch_timeout: float = 60.0  # groups: seconds to confirm a rematch ("play again")
    default_language: str = DEFAULT_LANGUAGE
    start_link: Callable[[int], str] | None = None  # deep link to start the bot privately
    webapp_url: str | None = None  # the Mini App's public page (WEBAPP_URL)
    webapp_page: Callable[[str], str] | None = None  # a table's Mini App page, by its token
    webapp_link: Callable[[str], str] | None = None  # a direct Mini App link, by token (groups)
    webapp_start_page: Callable[[str], str] | None = None  # the Mini App at a page (tn<id>, lg)
    webapp_start_link: Callable[[str], str] | None = None  # … as a direct link (groups)
    bot_name: str | None = None  # the bot's @name where people type it (Telegram's username)
    inline_mode: bool | None = None  # inline mode on for the bot (Telegram's getMe; None: n/a)
    private_topics: bool = False  # the bot may make topics in private chats (Telegram's getMe)
    experte_budget: float | None = None  # Experte seconds per decision (None: engine default)
    cpu_workers: int | None = None  # processes the Experte thinks in (None: one per core; 0: threads)
    thinking: Thinking | None = None  # where it thinks instead (THINKING=queue; None: CPU_WORKERS)
    input_rate: str | None = None  # per person, e.g. "30/10seconds" (None: no flood control)
    daily_secret: str | None = None  # keys the daily deal's seed (None: made and kept in the db)
    retention: Retention = field(default_factory=Retention)  # how long old rows are kept


class Refusal(Exception):
    """An input that changes nothing; the message is the answer."""

    def __init__(self, text: str, alert: bool = True) -> None:
        super().__init__(text)
        self.text, self.alert = text, alert


@dataclass(frozen=True)
class Change:
    """A table changed by a committed input: its new version and next deadline."""

    table_id: int
    version: int
    deadline: datetime | None
