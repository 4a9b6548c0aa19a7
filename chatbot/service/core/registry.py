"""Where every command, button, scheduled step and deadline of the bot is declared, once.

A feature (the core's basics too) is a ``Feature``: its commands (name, the names people
type in other languages, a one-line description, where it is allowed, whether the platform is
asked for the person's administrator rights), its buttons (the head of the button code, whether
it is a table's or a menu's, its press policy), its scheduled steps, the kinds of table deadline
it fires, the events it subscribes to and the hooks it offers other features. ``Registry``
gathers them for the service: the router and ``Service.command`` look commands and buttons up
here, ``Service.tick`` runs the steps, the adapters ask it for the press policy and generate
their command menus and help from it (Telegram's ``setMyCommands``, Matrix's ``!help``, the
service's ``/help``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .events import Bus

if TYPE_CHECKING:
    from datetime import datetime

    from sqlalchemy.engine import Engine
    from sqlmodel import Session

    from storage.models import Chat, GameTable, Player, Seat

    from ... import buttons
    from .api import ChatRef, Outcome, Settings, UserRef
    from .cpu import Decisions
    from .transaction import Ctx, Transactions


class Where(StrEnum):
    """Where a command is offered."""

    ANYWHERE = "anywhere"
    GROUP = "group"
    PRIVATE = "private"


class AdminRights(StrEnum):
    """When the adapter asks the platform whether the person is an administrator of the chat
    before the input runs (the answer travels as ``UserRef.is_admin``)."""

    NEVER = "never"
    ALWAYS = "always"  # (an administrators' command: their menus list it)
    WITH_WORDS = "with_words"  # only when words follow the command (``/abend zone …``)
    # at every use, the command being everybody's: what it allows depends on the group's
    # settings (``/abend``: a group may let only its administrators organise)
    EVERY_USE = "every_use"


CommandRun = Callable[["Ctx", "Chat", "Player", "UserRef", str], "Outcome"]
TableRun = Callable[["Ctx", "GameTable", "list[Seat]", "Player", "UserRef", str], "Outcome"]
MenuRun = Callable[["Ctx", "Chat", "Player", "UserRef", str], "Outcome"]
DeadlineRun = Callable[["Ctx", "GameTable", "list[Seat]"], None]


@dataclass(frozen=True)
class Command:
    """A command people type (``/games``, ``!spiele``)."""

    name: str  # the service's name of it, and its name in English ("games")
    run: CommandRun
    about: str  # the catalog key of its one-line description ("command.games")
    names: Mapping[str, str] = field(default_factory=dict)  # its name in other languages
    aliases: tuple[str, ...] = ()  # more names people type ("tische")
    where: Where = Where.ANYWHERE
    admin: AdminRights = AdminRights.NEVER
    listed: bool = True  # in the command menus and /help
    elsewhere: str | None = None  # the catalog key of the answer where it is not offered

    def name_in(self, lang: str) -> str:
        return self.names.get(lang, self.name)

    def typed(self) -> tuple[str, ...]:
        """Every name that calls it."""
        return (self.name, *dict.fromkeys(self.names.values()), *self.aliases)

    def offered_in(self, kind: str) -> bool:
        """Whether it is offered in a chat of this kind (``private`` or ``group``)."""
        return self.where == Where.ANYWHERE or self.where.value == kind


@dataclass(frozen=True)
class Subcommand:
    """Words after another feature's command that this feature answers (``/top monat``: the
    evening's table of the month, while ``/top`` itself is the stats' leaderboard)."""

    command: str
    words: tuple[str, ...]
    run: CommandRun
    where: Where = Where.ANYWHERE


@dataclass(frozen=True)
class Button:
    """A button by the head of its code (``pz`` for ``pz.3``), with its press policy."""

    head: str
    run: TableRun | MenuRun
    on_table: bool = True  # a table's button (``v1:<table>:<version>:<code>``), else a menu's
    version_free: bool = False  # means the same whatever version of the table it was drawn on
    admin: bool = False  # the adapter asks whether the presser administers the chat
    think: Think | None = None  # thought before the press's transaction, outside it
    batches: bool = True  # may share one transaction with other presses (SQLite)


@dataclass(frozen=True)
class PressPolicy:
    """How an adapter handles a press before the service decides it."""

    admin: bool = False  # ask the platform whether the presser is an administrator
    thinks: bool = False  # ``Service.think`` first, on a thinking thread, then ``press``
    batches: bool = True  # may share a transaction with presses that arrived with it


@dataclass(frozen=True)
class Step:
    """Scheduled work the service's tick runs when it is due."""

    name: str
    run: Callable[[Parts, str], int]  # (the service's parts, the platform) → things done
    every: float = 0.0  # seconds between two runs in one process (0: every tick)
    on_thread: bool = False  # long housekeeping: off the adapter's event loop


class Parts:
    """What a feature's step or thinking uses of the service (the service is one)."""

    engine: Engine
    tx: Transactions
    settings: Settings
    decisions: Decisions
    registry: Registry
    clock: Callable[[], datetime]

    def ctx(self, session: Session, platform: str, lang: str, **kwargs: Any) -> Ctx:
        raise NotImplementedError

    def notify(self, ctx: Ctx | None) -> None:
        raise NotImplementedError


Think = Callable[[Parts, "ChatRef", "UserRef", "buttons.Press"], Any]


@dataclass(frozen=True)
class Feature:
    """A room of the bot: everything it adds, declared once."""

    name: str
    commands: tuple[Command, ...] = ()
    subcommands: tuple[Subcommand, ...] = ()
    buttons: tuple[Button, ...] = ()
    menu_default: MenuRun | None = None  # a menu press no button head claims (the core's menu)
    steps: tuple[Step, ...] = ()
    deadlines: Mapping[str, DeadlineRun] = field(default_factory=dict)  # kind → its firing
    subscriptions: tuple[tuple[type, Callable[..., None]], ...] = ()
    hooks: tuple[tuple[str, Callable[..., Any]], ...] = ()  # offered to other features


class Registry:
    """The features' declarations, gathered (a name declared twice is an error)."""

    def __init__(self, features: Iterable[Feature]) -> None:
        self.features = tuple(features)
        self.bus = Bus()
        self.commands: dict[str, Command] = {}  # by every name that calls it
        self.declared: list[Command] = []  # each once, in declaration order
        self.subcommands: dict[str, list[Subcommand]] = {}
        self.table_buttons: dict[str, Button] = {}
        self.menu_buttons: dict[str, Button] = {}
        self.menu_default: MenuRun | None = None
        self.steps: list[Step] = []
        self.deadlines: dict[str, DeadlineRun] = {}
        self._hooks: dict[str, list[Callable[..., Any]]] = {}
        for feature in self.features:
            self._add(feature)

    def _add(self, feature: Feature) -> None:
        for command in feature.commands:
            self.declared.append(command)
            for name in command.typed():
                _once(self.commands, name, command, f"command {name}")
        for sub in feature.subcommands:
            self.subcommands.setdefault(sub.command, []).append(sub)
        for button in feature.buttons:
            place = self.table_buttons if button.on_table else self.menu_buttons
            _once(place, button.head, button, f"button {button.head}")
        if feature.menu_default is not None:
            if self.menu_default is not None:
                raise ValueError(f"{feature.name}: a second default menu")
            self.menu_default = feature.menu_default
        self.steps.extend(feature.steps)
        for kind, run in feature.deadlines.items():
            _once(self.deadlines, kind, run, f"deadline {kind}")
        for kind, subscriber in feature.subscriptions:
            self.bus.subscribe(kind, subscriber)
        for name, hook in feature.hooks:
            self._hooks.setdefault(name, []).append(hook)

    # ------------------------------------------------------------------ commands
    def command(self, typed: str) -> Command | None:
        """The command a typed name calls (any of its names, any case)."""
        return self.commands.get(typed.lower())

    def listed(self, kind: str | None = None) -> list[Command]:
        """The commands of the menus and /help, in declaration order (``kind``: those offered
        in a ``private`` or ``group`` chat)."""
        return [c for c in self.declared if c.listed and (kind is None or c.offered_in(kind))]

    def subcommand(self, command: str, words: str) -> Subcommand | None:
        """A feature's answer to ``/command words`` (by the first word), if one claims it."""
        first = words.split()[0].lower() if words.split() else ""
        return next((s for s in self.subcommands.get(command, ()) if first in s.words), None)

    def asks_admin(self, typed: str, words: str) -> bool:
        """Whether the adapter asks the platform for the person's rights before running it."""
        command = self.command(typed)
        if command is None:
            return False
        return command.admin in (AdminRights.ALWAYS, AdminRights.EVERY_USE) or (
            command.admin == AdminRights.WITH_WORDS and bool(words.strip()))

    # ------------------------------------------------------------------ buttons
    def button(self, table_id: int, code: str) -> Button | None:
        """The button a press's code names (a table's by its head, a menu's by its first
        part); ``None``: a game move (table) or the core's game menu (menu)."""
        head = code.split(".")[0]
        return (self.table_buttons if table_id else self.menu_buttons).get(head)

    def policy(self, table_id: int, code: str) -> PressPolicy:
        button = self.button(table_id, code)
        if button is None:
            return PressPolicy()
        return PressPolicy(admin=button.admin, thinks=button.think is not None,
                           batches=button.batches and button.think is None)

    # ------------------------------------------------------------------ hooks
    def hooks(self, name: str) -> list[Callable[..., Any]]:
        """What the features offer under a hook's name (``stats.lines`` …), in order."""
        return list(self._hooks.get(name, ()))


def _once(place: dict[str, Any], key: str, value: Any, what: str) -> None:
    if key in place and place[key] is not value:
        raise ValueError(f"{what} is declared twice")
    place[key] = value
