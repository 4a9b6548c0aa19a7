"""When a person may be reminded: their reminder setting (on, only the last one, off) and their
quiet hours (by default 23:00–08:00) in their time zone (by default their language's, e.g.
Europe/Berlin), daylight-saving changes included (``zoneinfo``). Pure: no database."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from storage.models import Player

from ...durations import LANGUAGE_ZONES

ON, LAST, OFF = "on", "last", "off"  # the reminder settings
SETTINGS = (ON, LAST, OFF)
LONG_CLOCK = 600  # seconds: from this clock on, reminders go to the person privately
NEVER_ENDS_QUIET = 12 * 3600  # a clock this long never runs out in the quiet hours
# time zones offered in /reminders (and each language's default)
ZONES = ("Europe/Berlin", "Europe/Vienna", "Europe/Zurich", "Europe/London", "Europe/Lisbon",
         "America/New_York", "America/Los_Angeles", "Asia/Tokyo", "UTC")
# quiet hours offered in /reminders: (from, to) in minutes after local midnight; (0, 0): none
QUIET_CHOICES = ((23 * 60, 8 * 60), (22 * 60, 7 * 60), (0, 9 * 60), (21 * 60, 9 * 60), (0, 0))
# cities as German speakers type them (else a zone's own city, in English)
_CITIES = {"wien": "Europe/Vienna", "zürich": "Europe/Zurich", "zuerich": "Europe/Zurich",
           "lissabon": "Europe/Lisbon", "tokio": "Asia/Tokyo", "neu york": "America/New_York"}


def zone_of(player: Player, lang: str | None = None) -> ZoneInfo:
    """The person's time zone: their choice, else their language's (else ``lang``'s: the
    chat's), else UTC."""
    name = player.time_zone or LANGUAGE_ZONES.get((player.language or lang or "")[:2], "UTC")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


@cache
def _zone_names() -> dict[str, str]:
    """Every time zone by its name and its city, folded (``europe/vienna``, ``vienna``,
    ``new york``)."""
    zones = sorted(z for z in available_timezones()
                   if not z.startswith(("posix/", "right/")) and z not in ("localtime", "Factory"))
    names = {z.casefold(): z for z in zones}
    for z in zones:
        city = z.rpartition("/")[2].casefold()
        names.setdefault(city, z)
        names.setdefault(city.replace("_", " "), z)
    return {**names, **_CITIES}


def zone_named(text: str) -> str | None:
    """A time zone as people type it: its name (``Europe/Vienna``, any case) or its city
    (``Vienna``, ``Wien``, ``new york``); ``None`` for anything else."""
    folded = " ".join(text.split()).casefold()
    return _zone_names().get(folded) or _zone_names().get(folded.replace(" ", "_"))


def _local(player: Player, when: datetime) -> datetime:
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(zone_of(player))


def in_quiet(player: Player, when: datetime) -> bool:
    """Whether ``when`` falls in the person's quiet hours."""
    start, end = player.quiet_from, player.quiet_to
    if start == end:
        return False
    local = _local(player, when)
    minute = local.hour * 60 + local.minute
    if start < end:
        return start <= minute < end
    return minute >= start or minute < end


def quiet_over(player: Player, when: datetime) -> datetime:
    """``when``, or the end of the quiet hours it falls in (in UTC)."""
    if not in_quiet(player, when):
        return when
    local = _local(player, when)
    end = time(player.quiet_to // 60, player.quiet_to % 60)
    day = local.date() if local.time() < end else local.date() + timedelta(days=1)
    ends = datetime.combine(day, end, tzinfo=local.tzinfo)
    return ends.astimezone(UTC)


def quiet_began(player: Player, when: datetime) -> datetime:
    """``when``, or the start of the quiet hours it falls in (in UTC)."""
    if not in_quiet(player, when):
        return when
    local = _local(player, when)
    start = time(player.quiet_from // 60, player.quiet_from % 60)
    day = local.date() if local.time() >= start else local.date() - timedelta(days=1)
    began = datetime.combine(day, start, tzinfo=local.tzinfo)
    return began.astimezone(UTC)


def spared(player: Player, clock: int, when: datetime) -> bool:
    """Whether a long-clock table's news for everybody (a timeout, a round's result) is kept
    from a person who hears it privately: in their quiet hours nothing pushes into their chat
    (their view, edited in place, and the table's log show it all the same)."""
    return clock >= LONG_CLOCK and in_quiet(player, when)


def may_remind(player: Player | None, kind: str, when: datetime) -> bool:
    """Whether a reminder of ``kind`` (``start`` of a turn, or ``last`` quarter) may go to
    the person at ``when`` (a reminder due in quiet hours waits: ``quiet_over``)."""
    if player is None or player.reminders == OFF:
        return False
    if kind == "start" and player.reminders != ON:
        return False
    return not in_quiet(player, when)
