"""How clocks and times read (German and English, plural forms from the catalogs), a clock as
people type it, and quiet hours in a person's time zone across a daylight-saving change."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from chatbot.durations import clock_label, moment, span, time_left, typed_clock
from chatbot.service.core import quiet_hours
from storage.models import Player


@pytest.mark.parametrize(("seconds", "de", "en"), [
    (30, "⏱ 30 s", "⏱ 30 s"), (60, "⏱ 60 s", "⏱ 60 s"), (120, "⏱ 2 Min.", "⏱ 2 min"),
    (600, "⏱ 10 Min.", "⏱ 10 min"), (3600, "⏱ 1 Std.", "⏱ 1 h"),
    (43200, "⏱ 12 Std.", "⏱ 12 h"), (86400, "⏱ 24 Std.", "⏱ 24 h"),
    (259200, "⏱ 3 Tage", "⏱ 3 days"), (0, "⏱ –", "⏱ –")])
def test_a_clock_reads_in_the_unit_that_fits(seconds: int, de: str, en: str) -> None:
    assert (clock_label(seconds, "de"), clock_label(seconds, "en")) == (de, en)


def test_the_time_left_reads_in_its_two_largest_units() -> None:
    assert time_left(3 * 3600 + 10 * 60 + 5, "de") == "noch 3 Std. 10 Min."
    assert time_left(3 * 3600 + 10 * 60 + 5, "en") == "3 h 10 min left"
    assert span(86400 + 4 * 3600, "de") == "1 Tag 4 Std."
    assert span(2 * 86400, "en") == "2 days"
    assert span(90, "de") == "90 s" and span(0, "en") == "0 s"


def test_a_clock_as_people_type_it() -> None:
    assert [typed_clock(w) for w in ("12h", "10min", "3d", "30s", "60", "1h", "none", "aus",
                                     "3 tage", "zwölf")] == [
        43200, 600, 259200, 30, 60, 3600, 0, 0, 259200, None]


def test_a_moment_reads_as_today_or_with_its_day() -> None:
    now = datetime(2030, 1, 7, 12, tzinfo=UTC)
    assert moment(datetime(2030, 1, 7, 19, 15, tzinfo=UTC), "de", now) == "um 20:15 Uhr"
    assert moment(datetime(2030, 1, 8, 12, tzinfo=UTC), "en", now) == "on 08.01. at 12:00"


def _person(**values: object) -> Player:
    return Player(platform="test", external_id="p", name="P", language="de",
                  created_at=datetime(2030, 1, 1, tzinfo=UTC), **values)


def test_quiet_hours_follow_the_persons_zone_across_daylight_saving() -> None:
    berliner = _person()  # 23:00–08:00 in Europe/Berlin (the language's zone)
    # winter: UTC+1; 06:59 UTC is 07:59 in Berlin (quiet), 07:00 UTC is 08:00 (not)
    assert quiet_hours.in_quiet(berliner, datetime(2030, 1, 7, 6, 59, tzinfo=UTC))
    assert not quiet_hours.in_quiet(berliner, datetime(2030, 1, 7, 7, 0, tzinfo=UTC))
    assert quiet_hours.quiet_over(berliner, datetime(2030, 1, 7, 1, tzinfo=UTC)) == \
        datetime(2030, 1, 7, 7, tzinfo=UTC)
    # the night of 30/31 March 2030 the clocks go forward: 08:00 is 06:00 UTC
    assert quiet_hours.quiet_over(berliner, datetime(2030, 3, 31, 1, tzinfo=UTC)) == \
        datetime(2030, 3, 31, 6, tzinfo=UTC)
    assert quiet_hours.quiet_began(berliner, datetime(2030, 3, 31, 1, tzinfo=UTC)) == \
        datetime(2030, 3, 30, 22, tzinfo=UTC)


def test_a_chosen_zone_and_no_quiet_hours() -> None:
    londoner = _person(time_zone="Europe/London", quiet_from=22 * 60, quiet_to=7 * 60)
    assert quiet_hours.in_quiet(londoner, datetime(2030, 1, 7, 22, 30, tzinfo=UTC))
    assert quiet_hours.quiet_over(londoner, datetime(2030, 1, 7, 22, 30, tzinfo=UTC)) == \
        datetime(2030, 1, 8, 7, tzinfo=UTC)
    always = _person(quiet_from=0, quiet_to=0)
    assert not quiet_hours.in_quiet(always, datetime(2030, 1, 7, 3, tzinfo=UTC))
    assert quiet_hours.may_remind(_person(reminders="last"), "last", datetime(2030, 1, 7, 12, tzinfo=UTC))
    assert not quiet_hours.may_remind(_person(reminders="last"), "start",
                                datetime(2030, 1, 7, 12, tzinfo=UTC))
    assert not quiet_hours.may_remind(_person(reminders="off"), "last",
                                datetime(2030, 1, 7, 12, tzinfo=UTC))
