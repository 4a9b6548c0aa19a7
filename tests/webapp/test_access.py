"""Issue 38, item 1, through real HTTP on loopback (aiohttp's test server, a real SQLite
file): the Mini App shows a table only to the people who may see it — seated people; for a
group's table the people the bot has seen in that group; for a private table its owner. A
link names the table by its token; a number opens it for seated people only. Anybody else
gets 403 and a text in their language."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from functools import partial
from urllib.parse import parse_qs, urlsplit

from aiohttp.test_utils import TestClient
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.buttons import WEB_APP
from chatbot.service import ChatRef, Service, Settings, UserRef
from chatbot.webapp.initdata import sign
from chatbot.webapp.links import page_url
from storage.db import utcnow
from storage.models import ChatMember, Outbox
from tests.dealing import to_a_turn

from .api import TOKEN, new_on_turn, run_api

GROUP = ChatRef("telegram", "-100777", "group", "Stammtisch")
ANNA, BEN, CEM, EVE = (UserRef("1001", "Anna"), UserRef("1002", "Ben"),
                       UserRef("1003", "Cem"), UserRef("1009", "Eve"))


def _headers(user: UserRef, lang: str = "de", **extra: str) -> dict[str, str]:
    person = {"id": int(user.external_id), "first_name": user.name, "language_code": lang}
    return {"X-Telegram-Init-Data": sign({"auth_date": str(int(time.time())),
                                          "user": json.dumps(person), **extra}, TOKEN)}


def _private(user: UserRef) -> ChatRef:
    return ChatRef("telegram", user.external_id, "private")


def _group_table(service: Service) -> tuple[int, str]:
    """A running group game of Anna and Ben with a CPU: (id, token)."""
    for person in (ANNA, BEN, EVE):
        assert service.command(_private(person), person, "start").ok
    out = service.command(GROUP, ANNA, "new", "schwimmen")
    assert out.ok and out.table_id, out.text
    for person, code in ((BEN, "join"), (ANNA, "fill.+"), (ANNA, "start")):
        version = service.table(out.table_id).version  # type: ignore[union-attr]
        assert service.press(GROUP, person, f"v1:{out.table_id}:{version}:{code}").ok, code
    to_a_turn(service, GROUP, ANNA, out.table_id)  # (a round that ended on the deal)
    table = service.table(out.table_id)
    assert table is not None and table.token
    return out.table_id, table.token


async def _get(client: TestClient, asked: object, user: UserRef, lang: str = "de"
               ) -> tuple[int, dict]:
    resp = await client.get(f"/webapp/api/table?t={asked}", headers=_headers(user, lang))
    return resp.status, await resp.json() if resp.content_type == "application/json" else {}


def test_an_outsider_gets_403_for_a_group_table_they_were_never_seen_in(
        sqlite_engine: Engine) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        table_id, token = _group_table(service)
        for asked in (token, table_id):
            status, body = await _get(client, asked, EVE)
            assert status == 403 and body["text"].startswith("Nicht dein Tisch"), body
        status, body = await _get(client, token, EVE, "en")
        assert status == 403 and body["text"].startswith("Not your table"), body
        # ... nor by the start parameter of a direct link, nor as a live page
        resp = await client.get("/webapp/api/table", headers=_headers(EVE, start_param=f"t{token}"))
        assert resp.status == 403
        resp = await client.get(f"/webapp/api/events?t={token}", headers=_headers(EVE))
        assert resp.status == 403

    run_api(sqlite_engine, scenario)


def test_an_outsider_gets_403_for_someone_elses_private_table(sqlite_engine: Engine) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        table_id = new_on_turn(service, _private(ANNA), ANNA, "schwimmen 1 anfänger")
        token = service.table(table_id).token  # type: ignore[union-attr]
        assert service.command(GROUP, EVE, "help").ok  # (Eve is known to the bot)
        for asked in (token, table_id):
            assert (await _get(client, asked, EVE))[0] == 403
        status, view = await _get(client, token, ANNA)  # the owner
        assert status == 200 and view["seat"] == 0 and len(view["hand"]) == 3

    run_api(sqlite_engine, scenario)


def test_a_group_member_the_bot_has_seen_gets_the_public_view(sqlite_engine: Engine) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        table_id, token = _group_table(service)
        assert service.command(GROUP, CEM, "help").ok  # Cem writes in the group
        status, view = await _get(client, token, CEM)
        assert status == 200 and view["table"] == table_id and view["token"] == token
        assert view["seat"] is None and view["hand"] == [] and view["players"]
        assert (await _get(client, table_id, CEM))[0] == 403  # a number: seated people only
        resp = await client.get(f"/webapp/api/events?t={token}", headers=_headers(CEM))
        assert resp.status == 200
        resp.close()

    run_api(sqlite_engine, scenario)


def test_a_seated_person_gets_their_view_by_token_and_by_number(sqlite_engine: Engine) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        table_id, token = _group_table(service)
        for asked in (token, table_id):
            status, view = await _get(client, asked, BEN)
            assert status == 200 and view["seat"] == 1 and len(view["hand"]) == 3
        resp = await client.get("/webapp/api/table", headers=_headers(BEN, start_param=f"t{token}"))
        assert resp.status == 200 and (await resp.json())["seat"] == 1

    run_api(sqlite_engine, scenario)


def test_the_token_link_of_the_table_message_opens_the_table(sqlite_engine: Engine) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        service.settings.webapp_page = partial(page_url, "https://cards.example.org/webapp/")
        table_id = new_on_turn(service, _private(ANNA), ANNA, "schwimmen 1 anfänger")
        with Session(sqlite_engine) as session:
            rows = session.exec(select(Outbox).where(Outbox.slot == f"t{table_id}")).all()
        urls = [data.removeprefix(WEB_APP) for row in rows for line in (row.buttons or [])
                for _, data in line if data.startswith(WEB_APP)]
        assert urls, "the table message opens the Mini App"
        (asked,) = parse_qs(urlsplit(urls[-1]).query)["t"]
        assert asked != str(table_id) and len(asked) >= 16  # not the sequential id
        status, view = await _get(client, asked, ANNA)
        assert status == 200 and view["table"] == table_id and view["seat"] == 0

    run_api(sqlite_engine, scenario)


def _members(engine: Engine) -> list[ChatMember]:
    with Session(engine) as session:
        return list(session.exec(select(ChatMember)).all())


def test_a_group_input_records_the_member_once_a_day_and_a_private_one_nothing(
        sqlite_engine: Engine) -> None:
    now = [utcnow()]
    service = Service(sqlite_engine, Settings(cpu_delay=0), clock=lambda: now[0])
    assert service.command(_private(CEM), CEM, "help").ok
    assert _members(sqlite_engine) == []  # a private input pays nothing
    assert service.command(GROUP, CEM, "help").ok
    (first,) = _members(sqlite_engine)
    now[0] += timedelta(hours=5)
    assert service.command(GROUP, CEM, "help").ok
    assert [m.seen_at for m in _members(sqlite_engine)] == [first.seen_at]
    now[0] += timedelta(days=1)
    assert service.command(GROUP, CEM, "help").ok
    (later,) = _members(sqlite_engine)
    assert later.seen_at.replace(tzinfo=None) == now[0].replace(tzinfo=None)
    with Session(sqlite_engine) as session:
        assert session.exec(select(func.count()).select_from(ChatMember)).one() == 1
