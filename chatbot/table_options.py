"""A table's options as one typed model (``TableOptions``, read from and written to the
table row's JSON column, every key declared once), the CPU players' names, and the texts of a
table's life that the views and the service share: how many CPU players fill a lobby, the
rematch waiting for confirmations, resigning."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from engine.bots.coach import Advice

from .i18n import N_, register

CPU_NAMES = ("Anna", "Bernd", "Clara", "Dieter", "Erika", "Franz", "Gerda", "Hugo", "Ilse")


def cpu_names(n: int, people: list[str]) -> list[str]:
    """``n`` CPU players' names that clash with no person's at the table ("🤖 Anna" next to
    a person called "anna" would be confusing)."""
    taken = {name.casefold().strip() for name in people}
    return [name for name in CPU_NAMES if name.casefold() not in taken][:n]


class UnknownOption(ValueError):
    """Options read from input named a key no table has."""


@dataclass(frozen=True)
class Rematch:
    """A rematch's lobby waiting for the people of the last game (``"✅ I'm in"``)."""

    of: int  # the finished table it follows
    waiting: tuple[int, ...] = ()  # player ids not yet confirmed
    seconds: int | None = None  # how long they have (shown in the lobby)

    def to_json(self) -> dict[str, Any]:
        return {"of": self.of, "waiting": list(self.waiting), "seconds": self.seconds}


@dataclass(frozen=True)
class Host:
    """Who a table is opened for when that is no single person — a Stammtisch evening, a
    tournament's round: a catalog key and its values, the line its lobby shows instead of
    "opened by" (each reader gets it in their language)."""

    key: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "values": dict(self.values)}


@dataclass(frozen=True)
class TableOptions:
    """Everything a table is set up with besides its game and seats."""

    engine: Mapping[str, Any] = field(default_factory=dict)  # the game's rule options
    currency: str | None = None  # what Schwimmen's lives are shown as
    cpu_level: str = "normal"  # the level of the CPU players that fill free seats
    cpus: int | None = None  # how many CPU players the opener chose (None: see fill_cpu)
    fill_cpu: bool = False  # an older table's choice: every free seat gets a CPU player
    rematch: Rematch | None = None  # while a rematch waits for confirmations
    resigned: int | None = None  # the seat of a person who gave up a private game
    practice: str | None = None  # why the game counts for no rating or score ("replay", "hint")
    coach: bool = False  # a private game offers the "💡 Tip" button
    tip: Mapping[str, Any] | None = None  # the last hint: seat, version, code, values, measure
    notes: tuple[Mapping[str, Any], ...] = ()  # this round's moves clearly below the hint's
    reviewed: Mapping[str, Any] | None = None  # the round's review: version, what it found
    daily: str | None = None  # the day (YYYY-MM-DD) of the daily deal the table deals
    # the name of the topic or thread a group table plays in (``ChatRef.thread_name``)
    thread_name: str | None = None
    host: Host | None = None  # who the table is opened for, named in its lobby (not seat 1)
    # people (player ids) who may manage the table while seated at it, as its opener may
    managers: tuple[int, ...] = ()
    # a group table played in its players' private chats (a tournament's table in a group
    # without topics): nothing of it goes into the group, each person sees all of it privately
    in_private: bool = False
    # its end offers no "play again": who plays next is not up to its table (a tournament's)
    no_again: bool = False
    # a lobby that starts by itself once this many people sit at it (an inline invitation
    # "for two"); ``None``: its opener starts it
    starts_at: int | None = None
    # its chat was opened for this game alone (a Matrix room of ``!duell``): the bot leaves
    # the chat once the game is over
    one_game: bool = False

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None, *, strict: bool = False
                  ) -> TableOptions:
        """The options of a stored row (unknown keys are ignored) or of input
        (``strict``: an unknown key raises ``UnknownOption``)."""
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if strict and unknown:
            raise UnknownOption(", ".join(sorted(unknown)))
        rematch = data.get("rematch")
        cpus = data.get("cpus")
        resigned = data.get("resigned")
        return cls(
            engine=dict(data.get("engine") or {}),
            currency=data.get("currency"),
            cpu_level=data.get("cpu_level") or "normal",
            cpus=cpus if isinstance(cpus, int) and not isinstance(cpus, bool) else None,
            fill_cpu=bool(data.get("fill_cpu")),
            rematch=Rematch(int(rematch["of"]), tuple(rematch.get("waiting") or ()),
                            rematch.get("seconds")) if isinstance(rematch, dict) else None,
            resigned=resigned if isinstance(resigned, int) else None,
            practice=str(data["practice"]) if data.get("practice") else None,
            coach=bool(data.get("coach")),
            tip=dict(data["tip"]) if isinstance(data.get("tip"), dict) else None,
            notes=tuple(dict(n) for n in data.get("notes") or () if isinstance(n, dict)),
            reviewed=dict(data["reviewed"]) if isinstance(data.get("reviewed"), dict) else None,
            daily=str(data["daily"]) if data.get("daily") else None,
            thread_name=str(data["thread_name"]) if data.get("thread_name") else None,
            host=_host(data.get("host")),
            in_private=bool(data.get("in_private")),
            no_again=bool(data.get("no_again")),
            starts_at=_count(data.get("starts_at")),
            one_game=bool(data.get("one_game")),
            managers=tuple(m for m in data.get("managers") or ()
                           if isinstance(m, int) and not isinstance(m, bool)))

    def to_json(self) -> dict[str, Any]:
        """The JSON the row keeps (keys that are not set are left out)."""
        out: dict[str, Any] = {"engine": dict(self.engine), "fill_cpu": self.fill_cpu,
                               "cpu_level": self.cpu_level}
        if self.currency is not None:
            out["currency"] = self.currency
        if self.cpus is not None:
            out["cpus"] = self.cpus
        if self.rematch is not None:
            out["rematch"] = self.rematch.to_json()
        if self.resigned is not None:
            out["resigned"] = self.resigned
        if self.practice is not None:
            out["practice"] = self.practice
        if self.coach:
            out["coach"] = True
        if self.tip is not None:
            out["tip"] = dict(self.tip)
        if self.notes:
            out["notes"] = [dict(n) for n in self.notes]
        if self.reviewed is not None:
            out["reviewed"] = dict(self.reviewed)
        if self.daily is not None:
            out["daily"] = self.daily
        if self.thread_name is not None:
            out["thread_name"] = self.thread_name
        if self.host is not None:
            out["host"] = self.host.to_json()
        if self.managers:
            out["managers"] = list(self.managers)
        if self.in_private:
            out["in_private"] = True
        if self.no_again:
            out["no_again"] = True
        if self.starts_at is not None:
            out["starts_at"] = self.starts_at
        if self.one_game:
            out["one_game"] = True
        return out

    def but(self, **changes: Any) -> TableOptions:
        """These options with some changed."""
        return replace(self, **changes)

    def after_move(self, seat: int, code: str) -> TableOptions:
        """These options after ``seat`` played ``code``: a hint for that seat is used up, and
        noted when the move scored clearly below the hint's (``engine.bots.coach``)."""
        tip = self.tip
        if tip is None or tip.get("seat") != seat:
            return self
        advice = Advice(str(tip["code"]), dict(tip["values"]), int(tip.get("worlds", 0)),
                        str(tip["measure"]))
        notes = self.notes
        if advice.clearly_below(code):
            notes = (*notes, {"code": code, "best": advice.code,
                              "mine": advice.values[code], "theirs": advice.values[advice.code],
                              "measure": advice.measure, "label": tip.get("label"),
                              "mine_label": tip.get("labels", {}).get(code)})[-20:]
        return replace(self, tip=None, notes=notes)

    def cpu_count(self, seated: int, max_seats: int) -> int:
        """How many CPU players join a lobby's table at the start: the opener's choice
        (``cpus``), never more than the free seats (an older table's ``fill_cpu``: all)."""
        free = max(0, max_seats - seated)
        want = self.cpus if self.cpus is not None else (free if self.fill_cpu else 0)
        return max(0, min(want, free))


def _host(data: Any) -> Host | None:
    if not isinstance(data, Mapping) or not isinstance(data.get("key"), str):
        return None
    values = data.get("values")
    return Host(data["key"], dict(values) if isinstance(values, Mapping) else {})


def options_of(table: Any) -> TableOptions:
    """The options of a table row (anything with an ``options`` JSON mapping)."""
    return TableOptions.from_json(table.options)

register({
    "tl.cpu_minus": N_("➖ CPU"),
    "tl.cpu_plus": N_("➕ CPU"),
    "tl.cpu_button": N_("{n} CPU · {level} 🤖"),
    "tl.cpu_button_none": N_("0 CPU 🤖"),
    "tl.cpu_line": N_("🤖 {n} CPU ({level})"),
    "tl.cpu_line_none": N_("🤖 no CPU"),
    "tl.cpu_seat": N_("{no}. {name} (CPU)"),
    "tl.cpu_max": N_("The table has no more free seats."),
    "tl.cpu_min": N_("There is no CPU at the table already."),
    "tl.rematch": N_(
        "🔁 {game} – rematch\nWhoever plays again taps “✅ I'm in” (within {seconds} s). We start "
        "as soon as everyone has confirmed.\n{players}"),
    "tl.rematch_short": N_(
        "🔁 {game} – rematch\nWe start as soon as everyone has confirmed.\n{players}"),
    "tl.confirmed_mark": N_("✅"),
    "tl.waiting_mark": N_("⏳ waiting for confirmation"),
    "tl.confirm": N_("✅ I'm in"),
    "tl.confirmed": N_("You're in again."),
    "tl.rematch_opened": N_("Rematch! The others confirm with “✅ I'm in”."),
    "tl.freed": N_("⌛ Not confirmed in time: {names} – seat freed."),
    "tl.resign": N_("🏳 Resign"),
    "tl.resign_yes": N_("Yes, resign"),
    "tl.resign_no": N_("Cancel"),
    "tl.ask_private": N_("🏳 Really resign? The game ends and counts as a loss."),
    "tl.ask_group": N_("🏳 Really leave? A CPU takes over your seat."),
    "tl.ask_group_last": N_(
        "🏳 Really leave? You are the last person at the table – the table closes."),
    "tl.cancelled": N_("Carry on."),
    "tl.resigned": N_("🏳 You resigned – the game counts as a loss."),
    "tl.resigned_other": N_("🏳 {name} resigned."),
    "tl.left_game": N_("🚪 {name} left the game – a CPU takes over the seat."),
    "tl.you_left": N_("You left the game."),
    "tl.no_confirm": N_("Tap “🏳 Resign” first."),
    "co.tip": N_("💡 Tip"),
    "co.review": N_("🔎 Where could I have played better?"),
    "co.practice.hint": N_("💡 Played with tips – not rated."),
    "co.practice.replay": N_("🔁 The same cards again – not rated."),
    "co.same": N_("🔁 Same cards"),
    "co.same_private": N_("The same cards are for private games against the CPU."),
})


def _count(value: Any) -> int | None:
    """A stored count (a positive int), else ``None``."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else None
