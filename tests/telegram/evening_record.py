"""Helpers of the Telegram end-to-end test of a Stammtisch evening (issue 40): the bot process's
simulated clock with a journal of its jumps (so each message the fake Bot API received gets
its simulated time), the people's languages on every update, the Deckel worked out again from
the results table, and the evening's transcript as the group and one person saw it (written
into docs/evening.md with ``STAMMTISCH_WRITE_DOCS=1``, else compared with it by shape)."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from tests.fakes.telegram_api import FakeBotApi
from tests.simclock import SimClock
from tests.telegram.bot_db import Db

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "evening.md"
BEGIN = "<!-- transcript: tests/telegram/test_evening.py -->"
END = "<!-- /transcript telegram -->"
DAYS = ("Mo", "Di", "Mi", "Do", "Fr", "Sa", "So")
SHOWN = ("🍻", "🍺", "👑", "Nächster", "🕗")  # (the evening's messages, not the games')


class Journal(SimClock):
    """``SimClock`` that remembers every jump: (real time of the jump, offset set)."""

    def __init__(self, path: Path, start: datetime) -> None:
        self.jumps: list[tuple[float, float]] = []
        super().__init__(path, start)

    def set(self, when: datetime) -> None:
        super().set(when)
        self.jumps.append((time.time(), self.offset()))

    def at(self, real: float) -> datetime:
        """The simulated time at the real time ``real`` (a call's ``time`` at the fake)."""
        offset = next((o for t, o in reversed(self.jumps) if t <= real), self.jumps[0][1])
        return datetime.fromtimestamp(real, UTC) + timedelta(seconds=offset)


def speaking(fake: FakeBotApi, langs: dict[int, str]) -> None:
    """Every update of a person carries their app's language (as Telegram sends it), also the
    presses the shared game helpers make."""
    press, send = fake.press, fake.send_text

    def pressed(chat: int, user: int, message_id: int, data: str, **kw: Any) -> int:
        kw.setdefault("language_code", langs.get(int(user), "de"))
        return press(chat, user, message_id, data, **kw)

    def typed(chat: int, user: int, text: str, **kw: Any) -> int:
        kw.setdefault("language_code", langs.get(int(user), "de"))
        return send(chat, user, text, **kw)

    fake.press = pressed  # type: ignore[method-assign]
    fake.send_text = typed  # type: ignore[method-assign]


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def game_points(db: Db, table_id: int) -> dict[str, Fraction]:
    """A finished game's evening points per person, from ``result`` and ``seat`` alone: winners
    first, then by coins; of n seats n−1 … 0 by place; tied seats share; CPUs left out."""
    result = db.result(table_id)
    assert result is not None, f"no result of table {table_id}"
    winners, standings = set(_json(result["winners"])), _json(result["standings"])
    seats = {s["seat_no"]: s for s in db.seats(table_id)}
    n = len(standings)
    keyed = sorted(((s["seat"] in winners, s.get("coins", 0)), s["seat"]) for s in standings)
    keyed.reverse()
    out: dict[str, Fraction] = {}
    place = 0
    while place < n:
        tied = [seat for key, seat in keyed if key == keyed[place][0]]
        share = Fraction(sum(n - 1 - (place + i) for i in range(len(tied))), len(tied))
        for seat_no in tied:
            if not seats[seat_no]["is_cpu"]:
                out[seats[seat_no]["name"]] = share
        place += len(tied)
    return out


def summed(parts: list[dict[str, Fraction]]) -> list[tuple[str, Fraction]]:
    """The evening's sheet: points per person over its games, best first (ties by name)."""
    sums: dict[str, Fraction] = {}
    for part in parts:
        for name, points in part.items():
            sums[name] = sums.get(name, Fraction(0)) + points
    return sorted(sums.items(), key=lambda r: (-r[1], r[0].lower()))


def shown(points: Fraction) -> str:
    """Points as the group (German) reads them: 2, 2,5."""
    if points.denominator == 1:
        return str(points.numerator)
    return f"{float(points):.1f}".rstrip("0").rstrip(".").replace(".", ",")


def deckel_line(sheet: list[tuple[str, Fraction]]) -> str:
    return "🍺 Deckel: " + " · ".join(f"{name} {shown(p)}" for name, p in sheet)


def sheet_rows(sheet: list[tuple[str, Fraction]]) -> list[str]:
    """``1. Alma · 4`` …, ties sharing a rank."""
    out, rank = [], 0
    for i, (name, points) in enumerate(sheet):
        if i == 0 or points != sheet[i - 1][1]:
            rank = i + 1
        out.append(f"{rank}. {name} · {shown(points)}")
    return out


def transcript(fake: FakeBotApi, clock: Journal, chats: dict[int, str], zone: ZoneInfo,
               announcement: tuple[int, int]) -> str:
    """What the chats were sent (the evening's messages, not the games'), with the simulated
    local time; in order by the minute, then the chats in the order given (a group's and a
    person's message of the same minute are delivered in either order), then as sent. An
    edit of the announcement shows its "coming" line."""
    rank = {chat: i for i, chat in enumerate(chats)}
    found: list[tuple[datetime, int, int, list[str]]] = []
    for call in fake.calls():
        params, method = call["params"], call["method"]
        chat = int(params.get("chat_id", 0) or 0)
        if chat not in chats or call.get("status", 200) != 200:
            continue
        text = str(params.get("text") or "")
        if method == "editMessageText":
            if (chat, int(params.get("message_id", 0))) != announcement:
                continue
            lines = text.split("\n")  # its "coming" line, and a note such as "(läuft)"
            note = f" {lines[-1]}" if lines[-1].startswith("(") else ""
            text = "(bearbeitet) " + next(x for x in lines if x.startswith("✅")) + note
        elif method != "sendMessage" or not text.startswith(SHOWN):
            continue
        local = clock.at(call["time"]).astimezone(zone).replace(second=0, microsecond=0)
        found.append((local, rank[chat], call["seq"], [x for x in text.split("\n") if x]))
    out: list[str] = []
    for local, chat_rank, _seq, lines in sorted(found):
        head = f"{DAYS[local.weekday()]} {local:%H:%M}  {list(chats.values())[chat_rank]:13s} "
        out.append(head + lines[0])
        out += [" " * len(head) + x for x in lines[1:]]
    return "\n".join(out)


def shape(text: str, names: list[str]) -> list[str]:
    """A transcript's shape: each message's first line, with numbers, times and names masked
    (the games' deals come from the bot's own random numbers)."""
    out = []
    for line in text.split("\n"):
        if line.startswith(" "):
            continue  # (a message's further lines: the summary's vary with the games)
        masked = re.sub(r"\d+(?:[.,:]\d+)*", "#", line)
        out.append(re.sub("|".join(names), "@", re.sub(r"\s+", " ", masked)))
    return out


def page_transcript() -> str:
    page = PAGE.read_text(encoding="utf-8")
    return page.split(BEGIN, 1)[1].split(END, 1)[0].strip().removeprefix("```text") \
        .removesuffix("```").strip()


def write_page(text: str) -> None:
    page = PAGE.read_text(encoding="utf-8")
    head, rest = page.split(BEGIN, 1)
    PAGE.write_text(f"{head}{BEGIN}\n```text\n{text}\n```\n{END}{rest.split(END, 1)[1]}",
                    encoding="utf-8")


def longest_line(db: Db, tables: list[int]) -> str:
    """The summary's longest game, from the move logs: the most moves of people and CPUs
    (the first such game on a tie), who won it."""
    counts = {t: sum(m["actor"] != "system" for m in db.moves(t)) for t in tables}
    table = max(tables, key=lambda t: (counts[t], -tables.index(t)))
    won = set(_json(db.result(table)["winners"]))  # type: ignore[index]
    names = ", ".join(s["name"] for s in db.seats(table) if s["seat_no"] in won)
    return f"Längstes Spiel: Schwimmen, {counts[table]} Züge, gewonnen von {names}."
