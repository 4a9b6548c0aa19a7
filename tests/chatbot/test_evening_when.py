"""Days and times of a Stammtisch evening as people type them, and the evening's local time kept
across daylight-saving changes (``chatbot.service.when``; pure, no database)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from chatbot.service.core import typed_times
from chatbot.service.evening import dates

MONDAY = date(2030, 1, 7)


@pytest.mark.parametrize(("typed", "expected"), [
    ("fr 20:00", (date(2030, 1, 11), 1200, "once", "")),
    ("friday 8pm weekly schwimmen", (date(2030, 1, 11), 1200, "weekly", "schwimmen")),
    ("Freitag 20 Uhr wöchentlich", (date(2030, 1, 11), 1200, "weekly", "")),
    ("mo 19.30 alle zwei wochen joker", (MONDAY, 1170, "biweekly", "joker")),
    ("heute 8:30 pm", (MONDAY, 1230, "once", "")),
    ("morgen 18h every two weeks", (date(2030, 1, 8), 1080, "biweekly", "")),
    ("14.2. 20:00", (date(2030, 2, 14), 1200, "once", "")),
    ("2.1. 20:00", (date(2031, 1, 2), 1200, "once", "")),  # passed this year: next year's
])
def test_typed_evenings(typed: str, expected: tuple) -> None:
    assert dates.parse(typed, MONDAY) == expected


@pytest.mark.parametrize("typed", ["", "fr", "20:00", "someday 20:00", "fr 25:00",
                                   "fr 13pm", "31.2. 20:00", "fr 20:61"])
def test_words_that_name_no_evening(typed: str) -> None:
    assert dates.parse(typed, MONDAY) is None


def test_twenty_o_clock_stays_local_across_both_changes() -> None:
    berlin = typed_times.zone("Europe/Berlin")
    start = typed_times.starts(date(2030, 3, 29), 1200, berlin)  # Friday before summer time
    assert start == datetime(2030, 3, 29, 19, tzinfo=UTC)
    summer = dates.following(start, 1200, berlin, dates.WEEKLY)
    assert summer == datetime(2030, 4, 5, 18, tzinfo=UTC)
    autumn = dates.following(datetime(2030, 10, 25, 18, tzinfo=UTC), 1200, berlin, dates.WEEKLY)
    assert autumn == datetime(2030, 11, 1, 19, tzinfo=UTC)
    assert dates.following(start, 1200, berlin, dates.ONCE) is None


def test_the_steps_of_an_evening() -> None:
    start = datetime(2030, 1, 11, 19, tzinfo=UTC)
    planned = datetime(2030, 1, 7, 11, tzinfo=UTC)
    assert [k for k, _ in dates.step_times(start, dates.WEEKLY, planned)] == list(dates.STEPS)
    assert dates.step_times(start, dates.WEEKLY, planned)[0][1] == datetime(2030, 1, 9, 19,
                                                                          tzinfo=UTC)
    assert dates.step_times(start, dates.ONCE, planned)[0][1] == planned
    late = datetime(2030, 1, 11, 12, tzinfo=UTC)  # planned on the day: no "day" reminder
    assert dates.after(start, dates.ONCE, late, "announce", late) == \
        ("soon", datetime(2030, 1, 11, 18, 30, tzinfo=UTC))
    assert dates.after(start, dates.ONCE, late, "close", late) is None
