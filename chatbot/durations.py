"""How durations and times read: a turn clock's label ("⏱ 60 s", "⏱ 12 h", "⏱ 3 Tage"), the
time left on a clock ("noch 3 Std. 10 Min." / "3 h 10 min left"), a clock as people type it
(``clock=12h``, ``10min``, ``3d``, ``none``), and a moment as a language's people read it (in
that language's usual time zone, e.g. Europe/Berlin for German)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from .i18n import N_, NN_, NP_, register, tr

MINUTE, HOUR, DAY = 60, 3600, 86400
LANGUAGE_ZONES = {"de": "Europe/Berlin", "en": "Europe/London"}  # else UTC

register({
    "dur.clock_none": N_("⏱ –"),
    "dur.clock_s": N_("⏱ {n} s"),
    "dur.clock_min": N_("⏱ {n} min"),
    "dur.clock_h": N_("⏱ {n} h"),
    "dur.clock_d": NN_("⏱ {n} day", "⏱ {n} days"),
    "dur.s": NN_("{n} s", "{n} s"),
    "dur.min": NN_("{n} min", "{n} min"),
    "dur.h": NN_("{n} h", "{n} h"),
    "dur.d": NN_("{n} day", "{n} days"),
    "dur.left": N_("{time} left"),
    "dur.at": N_("at {time}"),
    "dur.at_day": N_("on {day} at {time}"),
    "dur.pause_days": NN_("{n} day", "{n} days"),
    "dur.pause_week": N_("1 week"),
})
WEEKDAYS = (NP_("weekday", "Mon"), NP_("weekday", "Tue"), NP_("weekday", "Wed"),
            NP_("weekday", "Thu"), NP_("weekday", "Fri"), NP_("weekday", "Sat"),
            NP_("weekday", "Sun"))
register({f"dur.wd{i}": name for i, name in enumerate(WEEKDAYS)})
PAUSE_CLOCK = HOUR  # a table's clock from which its players may pause it
PAUSE_DAYS = (1, 3, 7)  # the pauses one may ask for, in days

_TYPED = re.compile(r"(\d{1,3})\s*(s|sec|sek|m|min|h|std|d|t|tag|tage|day|days)?", re.ASCII)
_UNIT = {"s": 1, "sec": 1, "sek": 1, "m": MINUTE, "min": MINUTE, "h": HOUR, "std": HOUR,
         "d": DAY, "t": DAY, "tag": DAY, "tage": DAY, "day": DAY, "days": DAY}
_NONE = ("none", "off", "aus", "kein", "keine", "0", "-", "–")


def clock_label(seconds: int, lang: str | None) -> str:
    """A turn clock as the lobby shows it: seconds under two minutes, then minutes, hours
    (up to a day), days."""
    if seconds <= 0:
        return tr(lang, "dur.clock_none")
    if seconds < 2 * MINUTE:
        return tr(lang, "dur.clock_s", n=seconds)
    if seconds < HOUR:
        return tr(lang, "dur.clock_min", n=seconds // MINUTE)
    if seconds <= DAY:
        return tr(lang, "dur.clock_h", n=seconds // HOUR)
    return tr(lang, "dur.clock_d", n=seconds // DAY)


def span(seconds: float, lang: str | None) -> str:
    """A time span in its two largest units ("3 h 10 min", "2 days 4 h", "45 s")."""
    left = max(0, int(seconds + 0.5))
    if left < 2 * MINUTE:  # under two minutes: in seconds
        return tr(lang, "dur.s", n=left)
    days, rest = divmod(left, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes, secs = divmod(rest, MINUTE)
    parts = [(days, "dur.d"), (hours, "dur.h"), (minutes, "dur.min"), (secs, "dur.s")]
    first = next(i for i, (n, _key) in enumerate(parts) if n)
    shown = [(n, key) for n, key in parts[first:first + 2] if n]
    return " ".join(tr(lang, key, n=n) for n, key in shown)


def time_left(seconds: float, lang: str | None) -> str:
    """The time left on a clock ("noch 3 Std. 10 Min." / "3 h 10 min left")."""
    return tr(lang, "dur.left", time=span(seconds, lang))


def typed_clock(word: str) -> int | None:
    """A clock as people type it, in seconds (``0``: no clock); ``None`` if it is none."""
    word = word.strip().lower()
    if word in _NONE:
        return 0
    match = _TYPED.fullmatch(word)
    if match is None:
        return None
    return int(match[1]) * _UNIT[match[2] or "s"]


def language_zone(lang: str | None) -> ZoneInfo:
    """The time zone a language's people usually read times in."""
    return ZoneInfo(LANGUAGE_ZONES.get((lang or "")[:2], "UTC"))


def moment(when: datetime, lang: str | None, now: datetime | None = None,
           zone: ZoneInfo | None = None) -> str:
    """``when`` as "at 20:15" (the same day as ``now``) or "on 07.12. at 20:15"."""
    zone = zone or language_zone(lang)
    local = (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(zone)
    today = (now or datetime.now(UTC)).astimezone(zone).date()
    clock = local.strftime("%H:%M")
    if local.date() == today:
        return tr(lang, "dur.at", time=clock)
    return tr(lang, "dur.at_day", day=local.strftime("%d.%m."), time=clock)


def pause_label(days: int, lang: str | None) -> str:
    """A pause's length as its button says it ("1 Tag", "3 Tage", "1 Woche")."""
    return tr(lang, "dur.pause_week") if days == 7 else tr(lang, "dur.pause_days", n=days)


def weekday_time(when: datetime, lang: str | None, with_date: bool = False) -> str:
    """A moment within the coming week as "Fr 20:00" / "Fri 20:00" (``with_date``:
    "Fr 11.12. 20:00", for a moment a week or more ahead) in the language's time zone."""
    local = (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(
        language_zone(lang))
    day = tr(lang, f"dur.wd{local.weekday()}")
    date = local.strftime(" %d.%m.") if with_date else ""
    return f"{day}{date} {local.strftime('%H:%M')}"
