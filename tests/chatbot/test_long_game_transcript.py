"""The transcript of a day-long game in docs/long-games.md is what the service does: a group
game of Schwimmen with a 12-hour clock from Monday 18:00 in Berlin, recorded through the
service on a simulated clock (each reminder's first line, when it came and where).

``python tests/chatbot/test_long_game_transcript.py --write`` records it anew."""

from __future__ import annotations

import random
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from storage.db import make_engine, migrate  # noqa: E402
from tests.chatbot.long_games import (  # noqa: E402
    ALICE,
    BOB,
    DAY0,
    GROUP,
    berlin,
    long_table,
    move,
    on_turn,
    private,
    rows_to,
)
from tests.chatbot.service.harness import Harness  # noqa: E402
from tests.conftest import FakeClock  # noqa: E402

PAGE = ROOT / "docs" / "long-games.md"
BEGIN, END = "<!-- transcript: tests/chatbot/test_long_game_transcript.py -->", "<!-- /transcript -->"
BERLIN = ZoneInfo("Europe/Berlin")


def transcript() -> str:
    """Play the game and return what each person and the group were sent, in order."""
    seeds = random.Random(7)
    real = random.SystemRandom
    random.SystemRandom = lambda *a: random.Random(seeds.random())  # type: ignore[misc,assignment]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            engine = make_engine(f"sqlite:///{tmp}/day.db")
            migrate(engine)
            h = Harness(engine, FakeClock(DAY0), cpu_delay=0, next_round_delay=0)
            table_id = long_table(h, at=berlin(0, 18))
            steps = [("fire", None), ("fire", None), ("move", 20), ("fire", None),
                     ("fire", None)]
            for what, minutes_before in steps:
                table = h.table(table_id)
                assert table.next_deadline is not None
                if what == "move":
                    h.clock.set(table.next_deadline - timedelta(minutes=minutes_before or 0))
                    move(h, table_id, on_turn(h, table_id))
                else:
                    h.clock.set(table.next_deadline)
                    h.service.fire_due(table_id, table.version)
            lines = []
            names = {private(ALICE).external_id: "Alice (privat)",
                     private(BOB).external_id: "Bob (privat)", GROUP.external_id: "Gruppe"}
            rows = sorted((r for chat in (private(ALICE), private(BOB), GROUP)
                           for r in rows_to(h, chat, 0)), key=lambda r: r.id)
            for r in rows:
                first = r.text.split("\n")[0]
                notify = r.slot is None or r.fresh or r.repost
                if r.action or not notify or not (first.startswith(("⏰", "⌛", "💤"))
                                                   or r.slot == f"h{table_id}"):
                    continue
                if r.slot == f"h{table_id}" and not first.startswith("⏰"):
                    first = "(Blatt und Zugknöpfe, unten im Chat)"
                when = r.created_at.astimezone(BERLIN).strftime("%a %H:%M")
                lines.append(f"{when}  {names[r.chat_external_id]:15s} {first}")
            return "\n".join(lines)
    finally:
        random.SystemRandom = real  # type: ignore[misc]


def test_the_transcript_on_the_page_is_what_the_service_does() -> None:
    page = PAGE.read_text(encoding="utf-8")
    shown = page.split(BEGIN, 1)[1].split(END, 1)[0].strip().removeprefix("```text").removesuffix("```").strip()
    assert shown == transcript().strip(), \
        "docs/long-games.md is out of date: python tests/chatbot/test_long_game_transcript.py --write"


if __name__ == "__main__" and "--write" in sys.argv:
    page = PAGE.read_text(encoding="utf-8")
    head, rest = page.split(BEGIN, 1)
    PAGE.write_text(f"{head}{BEGIN}\n```text\n{transcript()}\n```\n{END}{rest.split(END, 1)[1]}",
                    encoding="utf-8")
elif __name__ == "__main__":
    print(transcript())
