"""A tournament typed in full after ``/turnier``: the game first, then the number of rounds and
``key=value`` settings in any order — ``uhr=12h`` (the turn clock), ``spiele=2`` (games per
table and round), ``zeit=2d`` (a round's time), ``start=fr 20:00`` / ``start=20:00`` /
``start=abend`` (the group's next planned evening) / ``start=jetzt`` (its opener starts it),
``nachmeldung`` (late entry until round 2). Anything else is refused, naming an example."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import col, select

from storage.models import Chat, Evening

from ...durations import typed_clock
from ...i18n import tr
from ..core import typed_times
from ..core.api import Refusal
from ..core.transaction import Ctx
from ..core.typed_names import fold, game_of

MAX_ROUNDS = 9
MAX_GAMES = 3  # games per table and round
CLOCK_LIMITS = (30, 7 * 86400)  # a turn clock: at least 30 s, at most a week
ROUND_LIMITS = (5 * 60, 14 * 86400)  # a round's time: 5 minutes to two weeks
_ROUND_WORDS = ("runden", "rounds", "runde", "round")
_LATE = ("nachmeldung", "late", "spaet", "spät")
_NOW = ("jetzt", "now", "sofort")
_EVENING = ("abend", "evening", "stammtisch")
_CLOCK_KEYS = ("uhr", "clock", "zug")
_GAMES_KEYS = ("spiele", "games")
_ROUND_KEYS = ("zeit", "time", "dauer")


@dataclass
class Typed:
    """What a typed ``/turnier`` asks for (``None``: the default)."""

    game: str
    rounds: int = 3
    turn_timeout: int | None = None
    games_per_round: int = 1
    round_seconds: int | None = None
    starts_at: datetime | None = None
    evening_id: int | None = None  # the start tied to this planned evening
    late_entry: bool = False


def typed(ctx: Ctx, chat: Chat, args: str, tz: typed_times.ZoneInfo) -> Typed:
    """Read a typed tournament; a ``Refusal`` for anything it cannot read."""
    found = game_of(args)
    if found is None:
        raise _bad(ctx)
    out = Typed(found[0])
    words = found[1].replace("= ", "=").split()
    at = 0
    while at < len(words):
        word = words[at]
        key, eq, value = word.partition("=")
        at += 1
        if not eq and key.isascii() and key.isdigit() and 1 <= int(key) <= MAX_ROUNDS:
            out.rounds = int(key)
        elif not eq and key in _ROUND_WORDS:
            continue
        elif not eq and key in _LATE:
            out.late_entry = True
        elif eq and key in _CLOCK_KEYS and _within(typed_clock(value), CLOCK_LIMITS):
            out.turn_timeout = typed_clock(value)
        elif eq and key in _GAMES_KEYS and value.isascii() and value.isdigit() \
                and 1 <= int(value) <= MAX_GAMES:
            out.games_per_round = int(value)
        elif eq and key in _ROUND_KEYS and _within(typed_clock(value), ROUND_LIMITS):
            out.round_seconds = typed_clock(value)
        elif eq and key == "start":
            at = _start(ctx, chat, words, at - 1, value, tz, out)
        else:
            raise _bad(ctx)
    return out


def _within(value: int | None, limits: tuple[int, int]) -> bool:
    return value is not None and limits[0] <= value <= limits[1]


def _start(ctx: Ctx, chat: Chat, words: list[str], at: int, value: str,
           tz: typed_times.ZoneInfo, out: Typed) -> int:
    """``start=…``: now (its opener starts it), the next planned evening, a time today or a
    day and a time (``fr 20:00``, ``morgen 19:30``, ``12.3. 18:00``). Returns where the
    words go on."""
    if value in _NOW:
        return at + 1
    if value in _EVENING:
        evening = next_evening(ctx, chat)
        if evening is None:
            raise Refusal(tr(ctx.lang, "tn.no_evening"), alert=False)
        out.starts_at, out.evening_id = typed_times.aware(evening.starts_at), evening.id
        return at + 1
    today = typed_times.local_day(ctx.now, tz)
    minutes = typed_times.clock_of(value)
    day, used = today, 1
    if minutes is None and at + 1 < len(words):
        day = typed_times.day_of(value, today)  # type: ignore[assignment]
        minutes = typed_times.clock_of(words[at + 1])
        used = 2
    if day is None or minutes is None:
        raise _bad(ctx)
    starts = typed_times.starts(day, minutes, tz)
    if starts <= typed_times.aware(ctx.now):
        raise Refusal(tr(ctx.lang, "tn.past"), alert=False)
    out.starts_at = starts
    return at + used


def next_evening(ctx: Ctx, chat: Chat) -> Evening | None:
    """The group's next planned Stammtisch evening (the evening room's row, read)."""
    return ctx.session.exec(select(Evening).where(
        Evening.chat_id == chat.id, Evening.state == "planned")
        .order_by(col(Evening.starts_at))).first()


def _bad(ctx: Ctx) -> Refusal:
    return Refusal(tr(ctx.lang, "tn.bad_typed"), alert=False)


__all__ = ["Typed", "fold", "next_evening", "typed"]
