"""The transcript of a Stammtisch evening in docs/evening.md is what the bot does: a weekly
evening of Alice, Bob and Carol planned on a Monday for Friday 20:00 in Berlin, recorded from
the outbox on a simulated clock (what the group and Alice's private chat were sent, when).

``python tests/chatbot/test_evening_transcript.py --write`` records it anew."""

from __future__ import annotations

import random
import re
import sys
import tempfile
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from storage.db import aware, make_engine, migrate  # noqa: E402
from tests.chatbot.evenings import (  # noqa: E402
    DAY0,
    answer,
    berlin,
    new_game,
    play,
    rows_since,
    start_lobby,
    step,
)
from tests.chatbot.service.harness import ALICE, BOB, CAROL, GROUP, Harness, private  # noqa: E402
from tests.conftest import FakeClock  # noqa: E402

PAGE = ROOT / "docs" / "evening.md"
BEGIN, END = "<!-- transcript: tests/chatbot/test_evening_transcript.py -->", "<!-- /transcript -->"
BERLIN = ZoneInfo("Europe/Berlin")
DAYS = ("Mo", "Di", "Mi", "Do", "Fr", "Sa", "So")
SHOWN = ("🍻", "🍺", "👑", "🏆", "Nächster", "✅")


def transcript() -> str:
    """Run the evening and return what the group and Alice privately were sent, in order."""
    seeds = random.Random(40)
    real = random.SystemRandom
    random.SystemRandom = lambda *a: random.Random(seeds.random())  # type: ignore[misc,assignment]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            engine = make_engine(f"sqlite:///{tmp}/evening.db")
            migrate(engine)
            h = Harness(engine, FakeClock(DAY0), cpu_delay=0, next_round_delay=0)
            h.clock.set(berlin(0, 12))
            people = [ALICE, BOB, CAROL]
            for user in people:
                assert h.command(private(user), user, "start").ok
            first = len(rows_since(h, 0))
            assert h.command(GROUP, ALICE, "abend", "fr 20:00 wöchentlich schwimmen").ok
            step(h, "announce")
            for user in (BOB, ALICE, CAROL):
                answer(h, user, "y")
            for kind in ("day", "soon", "start"):
                step(h, kind)
            play(h, start_lobby(h, ALICE), people, 1)
            h.clock.advance(2400)  # (the games are played on a stopped clock: time passes)
            play(h, new_game(h, [BOB, CAROL, ALICE]), people, 2)
            h.clock.advance(2400)
            assert h.command(GROUP, BOB, "deckel").ok
            h.clock.advance(900)
            assert h.command(GROUP, CAROL, "abend", "ende").ok
            return _lines(rows_since(h, 0)[first:])
    finally:
        random.SystemRandom = real  # type: ignore[misc]


def _lines(rows: list) -> str:
    names = {GROUP.external_id: "Gruppe", private(ALICE).external_id: "Alice privat"}
    out: list[str] = []
    for r in rows:
        if r.action or r.chat_external_id not in names or not r.text.startswith(SHOWN):
            continue
        local = aware(r.created_at).astimezone(BERLIN)
        when = f"{DAYS[local.weekday()]} {local:%H:%M}"
        edit = r.slot is not None and re.fullmatch(r"ev\d+", r.slot) and not r.fresh
        lines = r.text.split("\n")
        if edit:  # the announcement edited: its "coming" line, and a note such as "(läuft)"
            note = f" {lines[-1]}" if lines[-1].startswith("(") else ""
            lines = ["(bearbeitet) " + next(x for x in lines if x.startswith("✅")) + note]
        head = f"{when}  {names[r.chat_external_id]:13s} "
        out.append(head + lines[0])
        out += [" " * len(head) + line for line in lines[1:] if line]
    return "\n".join(out)


def test_the_transcript_on_the_page_is_what_the_service_does() -> None:
    page = PAGE.read_text(encoding="utf-8")
    shown = page.split(BEGIN, 1)[1].split(END, 1)[0].strip().removeprefix("```text") \
        .removesuffix("```").strip()
    assert shown == transcript().strip(), \
        "docs/evening.md is out of date: python tests/chatbot/test_evening_transcript.py --write"


if __name__ == "__main__" and "--write" in sys.argv:
    page = PAGE.read_text(encoding="utf-8")
    head, rest = page.split(BEGIN, 1)
    PAGE.write_text(f"{head}{BEGIN}\n```text\n{transcript()}\n```\n{END}{rest.split(END, 1)[1]}",
                    encoding="utf-8")
elif __name__ == "__main__":
    print(transcript())
