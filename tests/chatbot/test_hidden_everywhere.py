"""Hidden is hidden everywhere (issue 47, finding 6): a person who typed ``/stats hide`` is
on no list or ranking — the evening's Deckel (the sheet, the line after each game, the
summary) included — while the others' points stay as they were (SQLite and PostgreSQL, on
the simulated clock). The daily deal's ranking and morning post: tests/chatbot/service/
test_daily_deal.py::test_a_person_who_hid_their_stats_is_on_no_daily_ranking."""

from __future__ import annotations

from tests.chatbot.evenings import answer, mark, play, rows_since, start_lobby, step, texts
from tests.chatbot.service.harness import ALICE, BOB, CAROL, GROUP, Harness, private
from tests.chatbot.test_evening import PEOPLE, h, plan_weekly  # noqa: F401  (the fixture)


def test_a_person_who_hid_their_stats_is_not_on_the_deckel(h: Harness) -> None:  # noqa: F811
    plan_weekly(h)
    step(h, "announce")
    for user in PEOPLE:
        answer(h, user, "y")
    for kind in ("day", "soon", "start"):
        step(h, kind)
    table_id = start_lobby(h, ALICE)
    h.command(private(BOB), BOB, "stats", "hide")
    before = mark(h)
    play(h, table_id, PEOPLE, seed=3)
    line = next(t for t in texts(rows_since(h, before, GROUP)) if t.startswith("🍺 Deckel:"))
    assert "Alice" in line and "Carol" in line and "Bob" not in line
    h.command(GROUP, CAROL, "deckel")
    sheet = h.messages(GROUP)[-1].text
    assert "Alice" in sheet and "Carol" in sheet and "Bob" not in sheet
    before = mark(h)
    h.command(GROUP, ALICE, "abend", "ende")
    summary = next(t for t in texts(rows_since(h, before, GROUP)) if "Deckel" in t)
    deckel = summary.split("🍺 Der Deckel dieses Abends")[1].split("\n\n")[0]
    assert "Alice" in deckel and "Carol" in deckel and "Bob" not in deckel
    assert "Comeback: Bob" not in summary  # (no honour named for him either)
