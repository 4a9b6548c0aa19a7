"""Issue 50 item 3, the Mini App's invitations through real HTTP on loopback (aiohttp's test
server) with the Telegram adapter's real ``savePreparedInlineMessage`` call against the fake
Bot API: ``GET api/invite?g=<game>`` lists what ``@bot`` offers for the game in the person's
language, ``POST api/invite`` answers the id of a prepared inline message holding the same
invitation (its "Join" button) for that person; strict parameters, signed, ``no-store``;
no offers (the page asks on every load) and on POST 404 where no adapter prepares messages,
409 with the way to turn inline mode on where it is
off, 502 when Telegram refuses. (No database is read: invitations need no table yet.)"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
import telegram
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.engine import Engine

from chatbot.service import Service, Settings
from chatbot.telegram.inline_results import preparer
from chatbot.webapp.initdata import sign
from chatbot.webapp.server import mounted
from tests.fakes.telegram_api import FakeBotApi

TOKEN = "123456:INVITE-test"
ANNA, STRANGER = 7001, 7002


def _headers(user: int, lang: str = "de", name: str = "Anna") -> dict[str, str]:
    who = {"id": user, "first_name": name, "language_code": lang}
    return {"X-Telegram-Init-Data": sign({"auth_date": str(int(time.time())),
                                          "user": json.dumps(who)}, TOKEN)}


@pytest.fixture
def fake() -> Iterator[FakeBotApi]:
    with FakeBotApi(TOKEN) as api:
        api.send_text(ANNA, ANNA, "/start", user_first_name="Anna")  # (the bot knows her)
        yield api


def _run(service: Service, fake: FakeBotApi | None,
         scenario: Callable[[TestClient], Awaitable[None]]) -> None:
    async def main() -> None:
        prepare = preparer(telegram.Bot(TOKEN, base_url=fake.base_url)) if fake else None
        app = mounted(service, TOKEN, max_age=3600, prepare=prepare)
        async with TestClient(TestServer(app)) as client:
            await scenario(client)

    asyncio.run(main())


async def _call(client: TestClient, method: str, path: str, user: int | None = ANNA,
                body: Any = None, lang: str = "de") -> tuple[int, Any]:
    headers = _headers(user, lang) if user is not None else {}
    data = json.dumps(body) if body is not None and not isinstance(body, str) else body
    resp = await client.request(method, f"/webapp/api/{path}", headers=headers, data=data)
    assert resp.headers["Cache-Control"] == "no-store", path
    got = await resp.json() if resp.content_type == "application/json" else await resp.text()
    return resp.status, got


def test_the_page_gets_a_prepared_invitation_for_the_person_to_share(
        sqlite_engine: Engine, fake: FakeBotApi) -> None:
    service = Service(sqlite_engine, Settings(inline_mode=True))

    async def scenario(client: TestClient) -> None:
        status, offers = await _call(client, "GET", "invite?g=schwimmen")
        assert status == 200
        assert [(o["seats"], o["title"], o["description"]) for o in offers["offers"]] == [
            (0, "Schwimmen", "Offener Tisch · 2–4 Personen: beitreten, wer eröffnet, startet"),
            (2, "Schwimmen", "Duell · beginnt, sobald eine zweite Person beitritt")]
        assert offers["texts"]["title"] == "📨 Zu einem Spiel woanders einladen"
        status, english = await _call(client, "GET", "invite?g=runfast", lang="en")
        assert [(o["seats"], o["description"]) for o in english["offers"]] == [
            (3, "For 3 · starts as soon as 3 have joined")]
        assert english["texts"]["sent"] == "📨 Invitation sent."

        status, got = await _call(client, "POST", "invite", body={"game": "schwimmen",
                                                                   "seats": 2})
        assert status == 200
        prepared = fake.prepared_messages()[got["id"]]
        assert prepared["user_id"] == ANNA
        result = prepared["result"]
        assert result["id"] == "g.schwimmen.2"
        assert result["input_message_content"]["message_text"].startswith(
            "🃏 Schwimmen\nAnna lädt dich zu einer Runde ein (Duell · ")
        assert result["reply_markup"]["inline_keyboard"] == [[
            {"text": "✋ Mitspielen", "callback_data": "v1:0:0:inv.schwimmen.2"}]]
        # no size named: the game's first offer (Run Fast: for three)
        status, got = await _call(client, "POST", "invite", body={"game": "runfast"})
        assert status == 200 and fake.prepared_messages()[got["id"]]["result"]["id"] \
            == "g.runfast.3"

    _run(service, fake, scenario)


def test_invitations_refuse_bad_requests_strangers_to_telegram_and_a_bot_without_inline_mode(
        sqlite_engine: Engine, fake: FakeBotApi) -> None:
    service = Service(sqlite_engine, Settings(inline_mode=True))

    async def scenario(client: TestClient) -> None:
        assert (await _call(client, "GET", "invite?g=schwimmen", user=None))[0] == 401
        assert (await _call(client, "POST", "invite", user=None,
                            body={"game": "scat"}))[0] == 401
        for path in ("invite", "invite?g=poker", "invite?g=scat&g=scat", "invite?g=scat&x=1"):
            assert (await _call(client, "GET", path))[0] == 400, path
        for body in ("[1]", "{", "NaN", {"game": "poker"}, {"game": "scat", "seats": "2"},
                     {"game": "scat", "seats": 99}, {"game": "scat", "x": 1},
                     {"game": "runfast", "seats": 2}, {"game": "scat", "seats": True}):
            assert (await _call(client, "POST", "invite", body=body))[0] == 400, body
        # Telegram does not know the person: refused with a short text
        status, got = await _call(client, "POST", "invite", user=STRANGER,
                                  body={"game": "scat"})
        assert status == 502 and got["text"] == \
            "Die Einladung ließ sich gerade nicht machen – versuch es gleich noch einmal."
        assert fake.prepared_messages() == {}

        service.settings.inline_mode = False  # (getMe said so at start)
        status, got = await _call(client, "GET", "invite?g=scat")  # (every page asks)
        assert status == 200 and got["offers"] == [] and "/setinline" in got["why"]
        status, got = await _call(client, "POST", "invite", body={"game": "scat"})
        assert status == 409 and "/setinline" in got["text"]

    _run(service, fake, scenario)


def test_a_server_without_a_way_to_prepare_messages_offers_no_invitations(
        sqlite_engine: Engine) -> None:
    service = Service(sqlite_engine, Settings())

    async def scenario(client: TestClient) -> None:
        status, got = await _call(client, "GET", "invite?g=scat")
        assert status == 200 and got == {"game": "scat", "offers": [],
                                         "why": "Einladungen gibt es hier nicht."}
        status, got = await _call(client, "POST", "invite", body={"game": "scat"})
        assert status == 404 and got["error"] == "no invitations"

    _run(service, None, scenario)
