"""What an edit's answer costs the bot when python-telegram-bot builds it into a ``Message``.

    python bench/edit_answers.py [--edits 400] [--rounds 5]

The bot's Bot API client (``AiohttpRequest``) edits a table-sized message (a 400-character
text, twelve buttons) ``--edits`` times against the fake Bot API (in this process, on threads
of its own), once handing PTB the edited message as the server sent it
(``unread_answers=frozenset()``, as before issue 49) and once as ``true`` (the default now),
the two alternating for ``--rounds`` rounds. Measures the CPU time of the thread that makes
the calls (the event loop: aiohttp, PTB, the decoding), not the fake server's, per edit: each
way's mean and its spread over the rounds, and the difference. Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # (not bench/, whose telegram.py would hide python-telegram-bot)

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup  # noqa: E402

from chatbot.telegram.request import UNREAD_ANSWERS, AiohttpRequest  # noqa: E402
from chatbot.telegram.runner import api_base  # noqa: E402
from tests.fakes.telegram_api import FakeBotApi  # noqa: E402

TOKEN = "123456:BENCH-token"
KEYS = InlineKeyboardMarkup([[InlineKeyboardButton(f"🂡 Karte {r}{c}",
                                                   callback_data=f"v1:123456:{r}{c}:swap.JC.9H")
                              for c in range(3)] for r in range(4)])
TEXT = "Schwimmen · Runde 2\n" + "Ann ♥7 ♠K ♦A · Tisch: ♣9 ♥J ♠10\n" * 12


async def edits(url: str, unread: frozenset[str], count: int, chat: int) -> float:
    """CPU seconds of this thread per edit."""
    request = AiohttpRequest(8, unread_answers=unread)
    bot = Bot(TOKEN, base_url=api_base(url), request=request,
              get_updates_request=AiohttpRequest(1))
    await bot.initialize()
    try:
        sent = await bot.send_message(chat, TEXT, reply_markup=KEYS)
        for n in range(5):  # warm up
            await bot.edit_message_text(f"{TEXT}{n}", chat_id=chat, message_id=sent.message_id,
                                        reply_markup=KEYS)
        started = time.thread_time()
        for n in range(count):
            await bot.edit_message_text(f"{TEXT}#{n}", chat_id=chat,
                                        message_id=sent.message_id, reply_markup=KEYS)
        return (time.thread_time() - started) / count
    finally:
        await bot.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ways = {"built (before)": frozenset(), "not built (now)": UNREAD_ANSWERS}
    per: dict[str, list[float]] = {name: [] for name in ways}
    with FakeBotApi(TOKEN) as fake:
        chat = 100
        for _ in range(args.rounds):
            for name, unread in ways.items():
                chat += 1
                per[name].append(asyncio.run(edits(fake.url, unread, args.edits, chat)))
    for name, values in per.items():
        ms = [v * 1000 for v in values]
        print(f"{name:16s} {statistics.mean(ms):.3f} ms CPU per edit "
              f"(rounds {min(ms):.3f}–{max(ms):.3f})")
    before, now = (statistics.mean(per[n]) * 1000 for n in ways)
    pairs = [(b - a) * 1000 for b, a in zip(per["built (before)"], per["not built (now)"],
                                               strict=True)]
    print(f"saved per edit: {before - now:.3f} ms (round by round {min(pairs):.3f}–"
          f"{max(pairs):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
