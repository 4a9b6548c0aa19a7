"""When a Stammtisch evening is (issue 40): the day and time people type (read by the core's
``typed_times``: ``fr 20:00``, ``friday 8pm``), how it repeats, its start in the group's time
zone, the next evening of a series, and the steps of an evening (announce, remind the day
before and 30 minutes before, start, close). Pure: no database."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from ..core.typed_names import fold
from ..core.typed_times import (
    DATE,
    aware,
    clock_of,
    day_of,
    local_day,
    starts,
)

ONCE, WEEKLY, BIWEEKLY = "once", "weekly", "biweekly"
REPEATS = (ONCE, WEEKLY, BIWEEKLY)
ANNOUNCE_AHEAD = timedelta(days=2)  # a repeating evening is announced two days before
DAY_BEFORE = timedelta(days=1)
SOON = timedelta(minutes=30)
LENGTH = timedelta(hours=6)  # an evening not closed by hand closes this long after its start
STEPS = ("announce", "day", "soon", "start", "close")
TIMES = tuple(range(18 * 60, 22 * 60 + 1, 30))  # the times offered by buttons: 18:00–22:00

_REPEAT_WORDS = {
    WEEKLY: ("weekly", "wöchentlich", "woechentlich", "jede woche", "every week"),
    BIWEEKLY: ("biweekly", "fortnightly", "14tägig", "14-tägig", "zweiwöchentlich",
               "alle zwei wochen", "every two weeks", "every 2 weeks", "alle 2 wochen"),
    ONCE: ("once", "einmal", "einmalig"),
}


def no_such_day(text: str, today: date) -> str | None:
    """The date a text begins with if it names no day where it falls (``31.4.``, ``30.2.``,
    ``29.2.`` outside a leap year — also after this year's leap day: next year has none),
    as it was typed; else ``None``."""
    _repeat, rest = repeat_of(text)
    words = rest.split()
    if not words or not DATE.match(fold(words[0]).rstrip(",")):
        return None
    return words[0] if day_of(words[0], today) is None else None


def repeat_of(text: str) -> tuple[str | None, str]:
    """The repeat a text names and the text without it."""
    folded = fold(text)
    for repeat, words in _REPEAT_WORDS.items():
        for word in sorted(words, key=len, reverse=True):
            found = re.search(rf"(^|\s){re.escape(fold(word))}(\s|$)", folded)
            if found:
                return repeat, (folded[:found.start()] + " " + folded[found.end():]).strip()
    return None, folded


def parse(text: str, today: date) -> tuple[date, int, str, str] | None:
    """``fr 20:00 weekly schwimmen`` → (the day, minutes, repeat, the rest: the game's
    words), or ``None`` when no day and time are found at the start."""
    repeat, text = repeat_of(text)
    words = text.split()
    if not words:
        return None
    day = day_of(words[0], today)
    rest = words[1:]
    if day is None:
        return None
    if len(rest) >= 2 and clock_of(rest[0] + rest[1]) is not None \
            and rest[1] in ("am", "pm", "uhr", "h"):
        rest = [rest[0] + rest[1], *rest[2:]]
    minutes = clock_of(rest[0]) if rest else None
    if minutes is None:
        return None
    return day, minutes, repeat or ONCE, " ".join(rest[1:])


def following(start: datetime, minutes: int, tz: ZoneInfo, repeat: str) -> datetime | None:
    """The start of the next evening of a series (the same local time, 7 or 14 days later),
    ``None`` for a single evening."""
    if repeat not in (WEEKLY, BIWEEKLY):
        return None
    days = 7 if repeat == WEEKLY else 14
    return starts(local_day(start, tz) + timedelta(days=days), minutes, tz)


def step_times(start: datetime, repeat: str, created: datetime) -> list[tuple[str, datetime]]:
    """The steps of an evening and when each is due: a repeating one is announced two days
    before (a single one, or one set up later than that, at once)."""
    start = aware(start)
    announce = start - ANNOUNCE_AHEAD if repeat != ONCE else aware(created)
    return [("announce", max(announce, aware(created))), ("day", start - DAY_BEFORE),
            ("soon", start - SOON), ("start", start), ("close", start + LENGTH)]


def after(start: datetime, repeat: str, created: datetime, done: str,
          now: datetime) -> tuple[str, datetime] | None:
    """The step due after ``done`` (reminders whose time has passed are skipped)."""
    steps = step_times(start, repeat, created)
    index = STEPS.index(done)
    for kind, at in steps[index + 1:]:
        if kind in ("day", "soon") and at <= aware(now):
            continue
        return kind, at
    return None


def month_of(moment: datetime, tz: ZoneInfo) -> str:
    """``2030-01``: the local month of a moment."""
    return aware(moment).astimezone(tz).strftime("%Y-%m")


def quarter_of(moment: datetime, tz: ZoneInfo) -> str:
    local = aware(moment).astimezone(tz)
    return f"{local.year}-Q{(local.month - 1) // 3 + 1}"


def previous_month(month: str) -> str:
    year, mon = (int(x) for x in month.split("-"))
    return f"{year - 1}-12" if mon == 1 else f"{year}-{mon - 1:02d}"
