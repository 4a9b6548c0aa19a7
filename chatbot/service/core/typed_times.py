"""Days and times as people type them (``fr 20:00``, ``morgen 8pm``, ``12.3.``, ``20 uhr``),
in a group's or a person's time zone (``zoneinfo``: 20:00 stays 20:00 local across
daylight-saving changes). Every room that plans something by a typed time reads it here (the
evening, the tournament). Pure: no database."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .typed_names import fold

DAYS = (("mo", "mon", "montag", "monday"), ("di", "tue", "tues", "dienstag", "tuesday"),
         ("mi", "wed", "mittwoch", "wednesday"), ("do", "thu", "thurs", "donnerstag", "thursday"),
         ("fr", "fri", "freitag", "friday"), ("sa", "sat", "samstag", "saturday"),
         ("so", "sun", "sonntag", "sunday"))
TODAY = ("heute", "today")
TOMORROW = ("morgen", "tomorrow")
DATE = re.compile(r"^(\d{1,2})\.(\d{1,2})\.?$")  # 12.3. (day, month)
CLOCK = re.compile(r"^(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|uhr|h)?$")


def zone(name: str | None, fallback: str = "UTC") -> ZoneInfo:
    """A time zone by name (an unknown name: ``fallback``)."""
    for candidate in (name, fallback, "UTC"):
        try:
            return ZoneInfo(candidate or "UTC")
        except (ZoneInfoNotFoundError, ValueError):
            continue
    return ZoneInfo("UTC")


def is_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return "/" in name or name == "UTC"


def clock_of(word: str) -> int | None:
    """Minutes after midnight of a typed time (``20:00``, ``20.30``, ``20``, ``8pm``,
    ``8:30 pm``, ``20 uhr``), or ``None``."""
    match = CLOCK.match(word.strip().lower())
    if match is None:
        return None
    hour, minute, suffix = int(match[1]), int(match[2] or 0), match[3]
    if suffix in ("am", "pm"):
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if suffix == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    return hour * 60 + minute


def day_of(word: str, today: date) -> date | None:
    """The date a typed day names from ``today`` on (a weekday: its next one, today
    included; ``heute``/``morgen``; ``12.3.``), or ``None``."""
    word = fold(word).rstrip(",")
    if word in TODAY:
        return today
    if word in TOMORROW:
        return today + timedelta(days=1)
    for weekday, names in enumerate(DAYS):
        if word in names or word.rstrip(".") in names:
            return today + timedelta(days=(weekday - today.weekday()) % 7)
    match = DATE.match(word)
    if match:
        try:  # this year's, or next year's once it passed (29.2.: only in a leap year)
            when = date(today.year, int(match[2]), int(match[1]))
            return when if when >= today else when.replace(year=today.year + 1)
        except ValueError:
            return None
    return None


def starts(day: date, minutes: int, tz: ZoneInfo) -> datetime:
    """The UTC moment of ``minutes`` after midnight local time on ``day``."""
    local = datetime.combine(day, time(minutes // 60, minutes % 60), tzinfo=tz)
    return local.astimezone(UTC)


def local_day(moment: datetime, tz: ZoneInfo) -> date:
    return aware(moment).astimezone(tz).date()


def aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
