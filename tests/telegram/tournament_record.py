"""The transcript of a tournament as its group saw it (issue 48): every message the bot sent
into the group, with the simulated local time it came at, and the announcement's edits as
one line each — written into docs/tournaments.md's section "As the group saw it" with
``STAMMTISCH_WRITE_DOCS=1``, else compared with the page by shape (the games' deals come
from the bot's random numbers: numbers and names are masked, see ``evening_record.shape``)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.evening_record import DAYS, Journal

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "tournaments.md"
BEGIN = "<!-- transcript: tests/telegram/test_tournament_days.py -->"
END = "<!-- /transcript telegram -->"
ANNOUNCED = ("🏆 Turnier:", "🏆 Tournament:")  # the announcement's first line


def transcript(fake: FakeBotApi, clock: Journal, group: int, zone: ZoneInfo) -> str:
    """The group's messages in order, each with its simulated local day and time; an edit of
    the announcement shows the lines that changed (who entered, the round being played)."""
    out: list[str] = []
    announcements: dict[int, list[str]] = {}  # message id → its lines as last shown
    for call in fake.calls():
        params, method = call["params"], call["method"]
        if int(params.get("chat_id", 0) or 0) != group or call.get("status", 200) != 200:
            continue
        text = str(params.get("text") or "")
        lines = [x for x in text.split("\n") if x]
        if method == "editMessageText":
            before = announcements.get(int(params.get("message_id", 0)))
            if before is None:
                continue
            announcements[int(params["message_id"])] = lines
            changed = [x for x in lines[1:] if x not in before]
            if not changed:
                continue
            lines = ["(bearbeitet) " + changed[0], *changed[1:]]
        elif method != "sendMessage" or not lines:
            continue
        elif text.startswith(ANNOUNCED):
            announcements[int(call["response"]["result"]["message_id"])] = lines
        local = clock.at(call["time"]).astimezone(zone)
        head = f"{DAYS[local.weekday()]} {local:%H:%M}  "
        out.append(head + lines[0])
        out += [" " * len(head) + x for x in lines[1:]]
    return "\n".join(out)


def page_transcript() -> str:
    page = PAGE.read_text(encoding="utf-8")
    if BEGIN not in page:
        return ""
    return page.split(BEGIN, 1)[1].split(END, 1)[0].strip().removeprefix("```text") \
        .removesuffix("```").strip()


def write_page(text: str) -> None:
    """The transcript into the page, between its markers (in the section "As the group saw
    it")."""
    page = PAGE.read_text(encoding="utf-8")
    assert BEGIN in page and END in page, f"{PAGE} has no {BEGIN} … {END}"
    head, rest = page.split(BEGIN, 1)
    PAGE.write_text(f"{head}{BEGIN}\n```text\n{text}\n```\n{END}{rest.split(END, 1)[1]}",
                    encoding="utf-8")


def sim_time(clock: Journal, call: dict, zone: ZoneInfo) -> datetime:
    """When the fake received a call, on the bot's simulated clock, in a zone."""
    return clock.at(call["time"]).astimezone(zone)
