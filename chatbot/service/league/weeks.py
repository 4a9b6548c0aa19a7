"""The league's calendar: a week runs from Monday 00:00 to Sunday 24:00 in the installation's
zone (its default language's: Europe/Berlin for German), whoever plays; a week is named by
its Monday (``YYYY-MM-DD``). A day of the week is a daily deal's date (the person's own date:
``daily_entry.day``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from ...durations import language_zone
from ...i18n import tr
from ..core.api import Settings

DAYS = 7


def zone(settings: Settings) -> ZoneInfo:
    """The league's time zone: the installation's default language's."""
    return language_zone(settings.default_language)


def today(settings: Settings, now: datetime) -> date:
    """The date at ``now`` in the league's zone."""
    return (now if now.tzinfo else now.replace(tzinfo=UTC)).astimezone(zone(settings)).date()


def monday(day: date) -> date:
    """The Monday of the week ``day`` is in."""
    return day - timedelta(days=day.weekday())


def running(settings: Settings, now: datetime) -> date:
    """The Monday of the week running at ``now``."""
    return monday(today(settings, now))


def days_of(week: date) -> list[date]:
    """The seven days of the week that begins on ``week``."""
    return [week + timedelta(days=i) for i in range(DAYS)]


def begins(settings: Settings, week: date) -> datetime:
    """When the week begins (its Monday 00:00 in the league's zone), in UTC."""
    return datetime.combine(week, time(0, 0), tzinfo=zone(settings)).astimezone(UTC)


def days_begun(settings: Settings, week: date, now: datetime) -> int:
    """How many of the week's days have begun at ``now`` (0 before it, 7 after it)."""
    return max(0, min(DAYS, (today(settings, now) - week).days + 1))


def span(week: date) -> str:
    """The week as people read it: ``07.01.–13.01.``."""
    end = week + timedelta(days=DAYS - 1)
    return f"{week:%d.%m.}–{end:%d.%m.}"


def weekday(lang: str, day: date) -> str:
    """A day's short weekday name in ``lang`` (``Mo``, ``Mon``)."""
    return tr(lang, f"dur.wd{day.weekday()}")
