"""The coach thinks on the bot's own bounded thinking threads (issue 47, item 2): a "💡 Tipp"
press through python-telegram-bot against the fake Bot API, the bot built as ``stammtisch
telegram`` builds it, in this process — so that the thread its thinking ran on can be read.
Asyncio's default executor (threads named ``asyncio_…``), which the Mini App API and the
sweeps share, never runs it."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from chatbot.runtime import config
from chatbot.runtime.wiring import build_service
from chatbot.telegram.app import TelegramBot
from chatbot.telegram.runner import build
from tests.fakes.telegram_api import FakeBotApi

from .harness import TOKEN, WAIT, buttons

USER = 5252


@pytest.fixture
def telegram_bot(fake: FakeBotApi, tmp_path: Path,
                 monkeypatch: pytest.MonkeyPatch) -> TelegramBot:
    for name, value in {"TELEGRAM_TOKEN": TOKEN, "TELEGRAM_BASE_URL": fake.url,
                        "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}",
                        "TELEGRAM_HTTP_CLIENT": "aiohttp", "CPU_DELAY": "0"}.items():
        monkeypatch.setenv(name, value)
    cfg = config.load(env_file=None)
    return build(cfg, build_service(cfg))


def _turn_with_a_tip(fake: FakeBotApi, pressed: set[str]) -> dict | None:
    """The person's turn with "💡 Tipp"; a round the CPUs closed first goes on by its
    "next" button."""
    for m in reversed(fake.messages(USER, include_deleted=False)):
        if any(label == "💡 Tipp" for label, _ in buttons(m)):
            return m
        nxt = [d for _, d in buttons(m) if d.endswith(":next") and d not in pressed]
        if nxt:
            pressed.add(nxt[0])
            fake.press(USER, USER, m["message_id"], nxt[0], language_code="de")
            return None
    return None


async def _until(check: Any, what: str) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if found := check():
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_coach_thinks_on_the_bots_thinking_threads(fake: FakeBotApi,
                                                       telegram_bot: TelegramBot) -> None:
    service = telegram_bot.service
    thought_on: list[str] = []
    think = service.think

    def spy(*args: Any) -> Any:
        thought = think(*args)
        if thought is not None:  # (a button that thinks nothing is looked up and left)
            thought_on.append(threading.current_thread().name)
        return thought

    service.think = spy  # type: ignore[method-assign]
    app = telegram_bot.app

    async def scenario() -> None:
        await app.initialize()
        try:
            await telegram_bot.post_init(app)
            await app.start()
            assert app.updater is not None
            await app.updater.start_polling(poll_interval=0, timeout=1)
            for text in ("/start", "/new schwimmen 2 anfaenger", "/tipps"):
                fake.send_text(USER, USER, text, language_code="de")
            pressed: set[str] = set()
            table = await _until(lambda: _turn_with_a_tip(fake, pressed), "the tip button")
            data = next(d for label, d in buttons(table) if label == "💡 Tipp")
            fake.press(USER, USER, table["message_id"], data, language_code="de")
            await _until(lambda: any((m["text"] or "").startswith("💡 ") and "Tipps sind"
                                     not in m["text"] for m in fake.messages(USER)), "the hint")
            await app.updater.stop()
            await app.stop()
            await telegram_bot.post_stop(app)
        finally:
            await app.shutdown()

    asyncio.run(scenario())
    assert thought_on and all(name.startswith("stammtisch-think") for name in thought_on), \
        thought_on
