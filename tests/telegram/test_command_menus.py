"""Telegram's command menus come from the service's registry: a command declared once is in
``setMyCommands`` for every language and scope it is offered in (private chats, groups, the
groups' administrators), under its name in that language, and the bot answers it by any of
its names — against the fake Bot API over real HTTP, the bot built as ``stammtisch telegram``
builds it, in this process."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from chatbot.runtime import config
from chatbot.service import FEATURES, Command, Feature, Outcome, Service, Where
from chatbot.telegram.runner import build
from storage.db import make_engine, migrate
from tests.fakes.telegram_api import FakeBotApi

from .harness import TOKEN

PRIVATE = {"type": "all_private_chats"}
GROUPS = {"type": "all_group_chats"}
ADMINS = {"type": "all_chat_administrators"}


def _dice(ctx, chat, player, user, words):  # type: ignore[no-untyped-def]
    return Outcome("🎲 4")


DICE = Feature("dice", commands=(Command("dice", _dice, "command.daily",
                                         names={"de": "wuerfeln"}, where=Where.GROUP),))


@pytest.fixture
def bot_with_dice(fake: FakeBotApi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'bot.db'}"
    for name, value in {"TELEGRAM_TOKEN": TOKEN, "TELEGRAM_BASE_URL": fake.url,
                        "DATABASE_URL": url, "TELEGRAM_HTTP_CLIENT": "aiohttp"}.items():
        monkeypatch.setenv(name, value)
    cfg = config.load(env_file=None)
    engine = make_engine(url)
    migrate(engine)
    return build(cfg, Service(engine, features=(*FEATURES, DICE)))


def test_a_command_declared_once_is_in_the_menus_and_answered(fake: FakeBotApi,
                                                              bot_with_dice) -> None:
    app = bot_with_dice.app

    async def scenario() -> None:
        await app.initialize()
        try:
            await bot_with_dice.post_init(app)
            uid = fake.send_text(-100777, 31, "/wuerfeln", chat_type="supergroup",
                                 chat_title="Runde")
            await bot_with_dice.handle_update(fake.get_update(uid))  # type: ignore[arg-type]
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not any(
                    "🎲" in (m.get("text") or "") for m in fake.messages(-100777)):
                await asyncio.sleep(0.05)
        finally:
            await bot_with_dice.post_stop(app)
            await app.shutdown()

    asyncio.run(scenario())

    def names(scope: dict | None, lang: str) -> list[str]:
        return [c["command"] for c in fake.commands(scope=scope, language_code=lang)]

    assert "wuerfeln" in names(GROUPS, "de") and "dice" in names(GROUPS, "en")
    assert "wuerfeln" in names(GROUPS, "") and "dice" in names(ADMINS, "en")  # (default: de)
    assert "dice" not in names(PRIVATE, "en") and "wuerfeln" not in names(PRIVATE, "de")
    described = {c["command"]: c["description"] for c in fake.commands(GROUPS, "de")}
    assert described["wuerfeln"] == "Tagesspiel – dieselben Karten für alle"  # (its about)
    # the whole menu, as the bot ships it: German names where a command has one
    assert {"new", "abend", "deckel", "top", "stats"} <= set(names(GROUPS, "de"))
    assert {"spiele", "erinnerungen", "tagesspiel", "tipps", "replay"} <= set(names(PRIVATE, "de"))
    assert {"games", "reminders", "daily", "tips"} <= set(names(PRIVATE, "en"))
    assert "stop" not in names(GROUPS, "de") and "stop" in names(ADMINS, "de")
    assert "evening" in names(ADMINS, "en")
    assert any("🎲 4" in (m.get("text") or "") for m in fake.messages(-100777))
