"""Tests for the fake Telegram Bot API, driven by real python-telegram-bot objects."""

from __future__ import annotations

import asyncio
import datetime as dtm
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeChat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from tests.fakes.telegram_api import (
    NOT_MODIFIED,
    FakeBotApi,
    FakeBotApiProcess,
    RemoteFakeBotApi,
)

pytestmark = [
    pytest.mark.timeout(30),
    # PTB 22 warns whenever a RetryAfter is built (retry_after becomes a timedelta later)
    pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning"),
]

TOKEN = "123:ABC"


@pytest.fixture(params=["threaded", "aiohttp"])
def fake(request):
    with FakeBotApi(token=TOKEN, http=request.param) as server:
        yield server


def make_bot(fake) -> Bot:
    return Bot(TOKEN, base_url=fake.base_url, base_file_url=fake.base_file_url)


def keyboard(*data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(d.title(), callback_data=d) for d in data]])


def run(coro_fn, fake):
    async def main():
        async with make_bot(fake) as bot:
            return await coro_fn(bot)

    return asyncio.run(main())


# --------------------------------------------------------------------------- Bot API via PTB


def test_get_me(fake):
    async def body(bot: Bot):
        return await bot.get_me()

    me = run(body, fake)
    assert me.id == 123
    assert me.is_bot
    assert me.first_name == "Stammtisch"
    assert me.username == "stammtisch_test_bot"
    assert me.can_join_groups is True
    assert fake.calls("getMe")[0]["response"]["result"]["id"] == 123


def test_send_message_with_keyboard_is_stored(fake):
    async def body(bot: Bot):
        return await bot.send_message(42, "Wer spielt mit?", reply_markup=keyboard("join", "leave"))

    msg = run(body, fake)
    assert msg.message_id == 1
    assert msg.chat.id == 42 and msg.chat.type == "private"
    assert msg.from_user.id == 123 and msg.from_user.is_bot
    assert msg.reply_markup == keyboard("join", "leave")

    stored = fake.message(42, 1)
    assert stored["text"] == "Wer spielt mit?"
    assert stored["reply_markup"] == keyboard("join", "leave").to_dict()
    assert stored["deleted"] is False and stored["edit_count"] == 0

    call = fake.calls("sendMessage")[-1]
    # PTB sends form data with JSON-encoded nested values; the fake decodes them
    assert call["encoding"] == "form"
    assert call["params"]["chat_id"] == 42
    assert call["params"]["reply_markup"] == keyboard("join", "leave").to_dict()


def test_message_ids_increase_per_chat_and_groups(fake):
    async def body(bot: Bot):
        a = await bot.send_message(42, "a")
        b = await bot.send_message(42, "b")
        g = await bot.send_message(-1001234567890, "g")
        h = await bot.send_message(-77, "h")
        return a, b, g, h

    a, b, g, h = run(body, fake)
    assert (a.message_id, b.message_id, g.message_id) == (1, 2, 1)
    assert g.chat.type == "supergroup"
    assert h.chat.type == "group" and h.chat.title
    assert [m["text"] for m in fake.messages(42)] == ["a", "b"]


def test_edit_in_place_and_not_modified(fake):
    async def body(bot: Bot):
        msg = await bot.send_message(42, "Runde 1", reply_markup=keyboard("go"))
        edited = await bot.edit_message_text(
            "Runde 2", chat_id=42, message_id=msg.message_id, reply_markup=keyboard("go")
        )
        with pytest.raises(BadRequest) as not_modified:
            await bot.edit_message_text(
                "Runde 2", chat_id=42, message_id=msg.message_id, reply_markup=keyboard("go")
            )
        markup_only = await bot.edit_message_reply_markup(
            chat_id=42, message_id=msg.message_id, reply_markup=keyboard("stop")
        )
        with pytest.raises(BadRequest, match="(?i)message is not modified"):
            await bot.edit_message_reply_markup(
                chat_id=42, message_id=msg.message_id, reply_markup=keyboard("stop")
            )
        # editMessageText without reply_markup removes the inline keyboard (like Telegram)
        plain = await bot.edit_message_text("Ende", chat_id=42, message_id=msg.message_id)
        return msg, edited, not_modified.value, markup_only, plain

    msg, edited, exc, markup_only, plain = run(body, fake)
    assert edited.message_id == msg.message_id and edited.text == "Runde 2"
    assert edited.edit_date is not None
    assert str(exc).lower() == NOT_MODIFIED.removeprefix("Bad Request: ").lower()
    assert markup_only.reply_markup == keyboard("stop") and markup_only.text == "Runde 2"
    assert plain.reply_markup is None

    stored = fake.message(42, msg.message_id)
    assert stored["text"] == "Ende" and stored["reply_markup"] is None
    assert stored["edit_count"] == 3
    assert [h["text"] for h in stored["history"]] == ["Runde 1", "Runde 2", "Runde 2"]
    assert len(fake.messages(42)) == 1
    failed = fake.calls("editMessageText")[1]
    assert failed["status"] == 400 and failed["response"]["description"] == NOT_MODIFIED


def test_edit_and_delete_unknown_messages(fake):
    async def body(bot: Bot):
        with pytest.raises(BadRequest, match="(?i)message to edit not found"):
            await bot.edit_message_text("x", chat_id=42, message_id=99)
        msg = await bot.send_message(42, "weg damit")
        assert await bot.delete_message(42, msg.message_id) is True
        with pytest.raises(BadRequest, match="(?i)message to delete not found"):
            await bot.delete_message(42, msg.message_id)
        with pytest.raises(BadRequest, match="(?i)message to edit not found"):
            await bot.edit_message_text("y", chat_id=42, message_id=msg.message_id)

    run(body, fake)
    assert fake.message(42, 1)["deleted"] is True
    assert fake.last_message(42) is None


def test_html_parse_mode_entities_and_errors(fake):
    async def body(bot: Bot):
        ok = await bot.send_message(42, "<b>Karo</b> &amp; <i>Herz</i> ♥", parse_mode="HTML")
        with pytest.raises(BadRequest, match="(?i)can't parse entities: unsupported start tag"):
            await bot.send_message(42, "Spieler <Max> gewinnt", parse_mode="HTML")
        with pytest.raises(BadRequest, match="(?i)message text is empty"):
            await bot.send_message(42, "<b></b>", parse_mode="HTML")
        return ok

    ok = run(body, fake)
    assert ok.text == "Karo & Herz ♥"
    assert [(e.type, e.offset, e.length) for e in ok.entities] == [("bold", 0, 4), ("italic", 7, 4)]
    assert len(fake.messages(42)) == 1


def test_forced_429_is_retry_after_without_side_effect(fake):
    fake.fail("sendMessage", 1, "429", retry_after=1)

    async def body(bot: Bot):
        with pytest.raises(RetryAfter) as info:
            await bot.send_message(42, "zu schnell")
        assert fake.messages(42) == []
        again = await bot.send_message(42, "jetzt")
        return info.value, again

    exc, again = run(body, fake)
    assert exc.retry_after in (1, dtm.timedelta(seconds=1))
    assert again.message_id == 1  # the failed call did not consume a message id
    failed = fake.calls("sendMessage")[0]
    assert failed["status"] == 429
    assert failed["response"] == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 1",
        "parameters": {"retry_after": 1},
    }


@pytest.mark.parametrize("kind", ["500", "502", "disconnect"])
def test_forced_server_errors_are_network_errors(fake, kind):
    async def body(bot: Bot):
        fake.fail("*", 1, kind)  # after Bot.initialize() (getMe)
        with pytest.raises(NetworkError) as info:
            await bot.send_message(42, "hallo")
        return info.value

    exc = run(body, fake)
    assert not isinstance(exc, BadRequest | RetryAfter)
    assert fake.messages(42) == []
    if kind != "disconnect":
        call = fake.calls("sendMessage")[0]
        assert call["status"] == int(kind)
        assert call["response"]["error_code"] == int(kind)


def test_forbidden_until_user_starts_the_bot(fake):
    fake.forbid(77, "not_started")

    async def body(bot: Bot):
        with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
            await bot.send_message(77, "Hallo?")
        fake.send_text(77, 77, "/start")  # the user writes to the bot → allowed from now on
        return await bot.send_message(77, "Servus!")

    msg = run(body, fake)
    assert msg.message_id == 2  # message 1 is the user's /start
    assert [m["text"] for m in fake.messages(77, include_user=True)] == ["/start", "Servus!"]


def test_set_my_commands_with_language_code(fake):
    async def body(bot: Bot):
        await bot.set_my_commands(
            [BotCommand("start", "Tisch eröffnen"), BotCommand("hilfe", "Hilfe")],
            language_code="de",
        )
        await bot.set_my_commands([BotCommand("start", "Open a table")])
        await bot.set_my_commands([BotCommand("skat", "Nur hier")], scope=BotCommandScopeChat(-5))
        de = await bot.get_my_commands(language_code="de")
        en = await bot.get_my_commands()
        with pytest.raises(BadRequest, match="(?i)bot_command_invalid"):
            await bot.set_my_commands([BotCommand("Start!", "kaputt")])
        await bot.delete_my_commands()
        return de, en

    de, en = run(body, fake)
    assert [c.command for c in de] == ["start", "hilfe"]
    assert [c.command for c in en] == ["start"]
    assert fake.commands(language_code="de") == [
        {"command": "start", "description": "Tisch eröffnen"},
        {"command": "hilfe", "description": "Hilfe"},
    ]
    assert fake.commands() == []  # deleted
    assert fake.commands(scope={"type": "chat", "chat_id": -5})[0]["command"] == "skat"
    call = fake.calls("setMyCommands")[0]
    assert call["params"]["language_code"] == "de"
    assert call["params"]["commands"][0] == {"command": "start", "description": "Tisch eröffnen"}


def test_answer_callback_query_and_webhook_info(fake):
    async def body(bot: Bot):
        msg = await bot.send_message(42, "Karte?", reply_markup=keyboard("ass"))
        uid = fake.press(42, 42, msg.message_id, "ass")
        qid = fake.get_update(uid)["callback_query"]["id"]
        assert await bot.answer_callback_query(qid, text="Gespielt")
        with pytest.raises(BadRequest, match="(?i)query is too old"):
            await bot.answer_callback_query(qid)
        with pytest.raises(BadRequest, match="(?i)query is too old"):
            await bot.answer_callback_query("nope")
        await bot.set_webhook("https://example.invalid/hook", secret_token="s3cr3t")
        info = await bot.get_webhook_info()
        await bot.delete_webhook(drop_pending_updates=True)
        return uid, info

    uid, info = run(body, fake)
    assert fake.query_answer(uid) == {"answered": True, "answer": {"text": "Gespielt"}}
    assert info.url == "https://example.invalid/hook" and info.pending_update_count == 1
    assert fake.pending_updates() == []  # dropped by deleteWebhook(drop_pending_updates=True)
    with pytest.raises(ValueError, match="not on the keyboard"):
        fake.press(42, 42, 1, "koenig")


# --------------------------------------------------------------------------- Application


async def _start_handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await update.effective_message.reply_text(
        f"Servus {update.effective_user.first_name}!", reply_markup=keyboard("join")
    )


async def _press_handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    await query.answer("Du bist dabei")
    await query.edit_message_text(f"{query.from_user.first_name} spielt mit ({query.data})")


def _build_app(fake) -> Application:
    app = (
        Application.builder()
        .token(TOKEN)
        .base_url(fake.base_url)
        .base_file_url(fake.base_file_url)
        .build()
    )
    app.add_handler(CommandHandler("start", _start_handler))
    app.add_handler(CallbackQueryHandler(_press_handler))
    return app


def test_application_long_polling_command_and_callback(fake):
    async def main():
        app = _build_app(fake)
        async with app:
            await app.start()
            await app.updater.start_polling(poll_interval=0, timeout=1)
            try:
                fake.send_text(42, 42, "/start", user_first_name="Anna")
                sent = await fake.async_wait_for_call("sendMessage", timeout=5)
                mid = sent["response"]["result"]["message_id"]

                mark = fake.last_seq()
                uid = fake.press(42, 42, mid, "join", user_first_name="Anna")
                edit = await fake.async_wait_for_call("editMessageText", timeout=5, since=mark)
                await fake.async_wait_for(lambda: fake.query_answer(uid)["answered"], timeout=5)

                # group chat, command addressed to the bot
                fake.send_text(-500, 7, "/start@stammtisch_test_bot", user_first_name="Bert")
                group = await fake.async_wait_for_call(
                    "sendMessage", lambda c: c["params"]["chat_id"] == -500, timeout=5
                )
            finally:
                await app.updater.stop()
                await app.stop()
        return sent, edit, group

    t0 = time.monotonic()
    sent, edit, group = asyncio.run(main())
    assert time.monotonic() - t0 < 10
    assert sent["params"]["text"] == "Servus Anna!"
    assert sent["params"]["reply_markup"] == keyboard("join").to_dict()
    assert edit["params"]["text"] == "Anna spielt mit (join)"
    assert fake.message(42, 2)["text"] == "Anna spielt mit (join)"  # 1 is the user's /start
    assert fake.message(42, 2)["reply_markup"] is None
    assert group["response"]["result"]["chat"] == {
        "id": -500,
        "type": "group",
        "title": "Stammtisch Test 500",
    }
    # everything was confirmed by the final getUpdates(offset=...) on shutdown
    assert fake.pending_updates() == []


def test_application_receives_duplicate_update(fake):
    async def main():
        app = _build_app(fake)
        async with app:
            await app.start()
            await app.updater.start_polling(poll_interval=0, timeout=1)
            try:
                uid = fake.send_text(42, 42, "/start")
                await fake.async_wait_for(lambda: len(fake.calls("sendMessage")) == 1, timeout=5)
                # wait until PTB confirmed it (its next getUpdates has offset > uid)
                await fake.async_wait_for(lambda: not fake.pending_updates(), timeout=5)
                assert fake.redeliver(uid) == uid
                await fake.async_wait_for(lambda: len(fake.calls("sendMessage")) == 2, timeout=5)
            finally:
                await app.updater.stop()
                await app.stop()
        return uid

    uid = asyncio.run(main())
    delivered = [
        u["update_id"]
        for c in fake.calls("getUpdates")
        if c["status"] == 200
        for u in c["response"]["result"]
    ]
    assert delivered.count(uid) == 2


def test_application_webhook_mode(fake):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def main():
        app = _build_app(fake)
        async with app:
            await app.start()
            await app.updater.start_webhook(
                listen="127.0.0.1",
                port=port,
                url_path="tg",
                webhook_url=f"http://127.0.0.1:{port}/tg",
                secret_token="geheim",
            )
            try:
                fake.send_text(42, 42, "/start", user_first_name="Carla")
                return await fake.async_wait_for_call("sendMessage", timeout=5)
            finally:
                await app.updater.stop()
                await app.stop()

    sent = asyncio.run(main())
    assert sent["params"]["text"] == "Servus Carla!"
    assert fake.webhook_deliveries()[0]["status"] == 200
    assert fake.calls("setWebhook")[0]["params"]["secret_token"] == "geheim"


# --------------------------------------------------------------------------- webhook fan-out


class _Gauge:
    """POSTs under way at once (over one or several webhook servers)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = 0
        self.most_active = 0

    def __enter__(self) -> None:
        with self.lock:
            self.active += 1
            self.most_active = max(self.most_active, self.active)

    def __exit__(self, *exc) -> None:
        with self.lock:
            self.active -= 1


class _Hook:
    """A tiny webhook server (stdlib, a thread per connection, keep-alive): records the
    update ids it accepted, answers ``status``, takes ``delay`` seconds per POST, and counts
    the most POSTs it had under way at once (in ``gauge``, which several may share)."""

    def __init__(self, status: int = 200, delay: float = 0.0, gauge: _Gauge | None = None):
        self.status = status
        self.delay = delay
        self.received: list[int] = []
        self.secrets: set[str | None] = set()
        self.gauge = gauge or _Gauge()
        self.lock = threading.Lock()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with hook.gauge:
                    with hook.lock:
                        hook.secrets.add(self.headers.get("X-Telegram-Bot-Api-Secret-Token"))
                    time.sleep(hook.delay)
                with hook.lock:
                    if hook.status == 200:
                        hook.received.append(json.loads(body)["update_id"])
                self.send_response(hook.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/telegram"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hooks():
    made: list[_Hook] = []

    def make(**kwargs) -> _Hook:
        made.append(_Hook(**kwargs))
        return made[-1]

    yield make
    for hook in made:
        hook.close()


def _closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/telegram"


def _set_webhook(fake, url: str, **params) -> None:
    status, body = fake.call_api("setWebhook", {"url": url, "secret_token": "geheim", **params})
    assert status == 200, body


@pytest.mark.parametrize("broken", ["500", "closed"])
def test_webhook_fan_out_round_robin_past_a_failing_target(fake, hooks, broken):
    good = [hooks(), hooks()]
    bad_url = hooks(status=500).url if broken == "500" else _closed_url()
    targets = [good[0].url, bad_url, good[1].url]
    fake.webhook_targets(targets)
    uids = [fake.send_text(42, 42, f"vorher {i}") for i in range(3)]
    time.sleep(0.3)
    assert fake.webhook_deliveries() == []  # no webhook set yet: nothing is posted
    proxy = "http://127.0.0.1:9/telegram"  # what the bots registered (the proxy's URL)
    _set_webhook(fake, proxy)
    uids += [fake.send_text(42, 42, f"text {i}") for i in range(27)]
    fake.wait_for(lambda: not fake.pending_updates(), 10, message="all updates delivered")

    received = good[0].received + good[1].received
    assert sorted(received) == uids  # each update accepted exactly once, by a good target
    assert good[0].received and good[1].received
    assert good[0].secrets == good[1].secrets == {"geheim"}
    deliveries = fake.webhook_deliveries()
    assert {d["target"] for d in deliveries} == set(targets)
    assert all(d["url"] == proxy for d in deliveries)
    ok = [d for d in deliveries if d["error"] is None]
    assert sorted(d["update_id"] for d in ok) == uids
    assert all(d["target"] != bad_url and 200 <= d["status"] < 300 for d in ok)
    failed = [d for d in deliveries if d["error"] is not None]
    assert failed and all(d["target"] == bad_url for d in failed)
    assert all(d["status"] == (500 if broken == "500" else 0) for d in failed)
    info = fake.call_api("getWebhookInfo")[1]["result"]
    assert info["url"] == proxy and info["pending_update_count"] == 0
    assert info["last_error_date"] > 0 and info["last_error_message"]

    fake.webhook_targets(None)  # back to the registered URL (nobody listens there)
    fake.send_text(42, 42, "danach")
    fake.wait_for(lambda: any(d["target"] == proxy for d in fake.webhook_deliveries()), 10)
    assert len(fake.pending_updates()) == 1


def test_webhook_posts_up_to_max_connections_at_once(fake, hooks):
    gauge = _Gauge()
    slow = [hooks(delay=0.3, gauge=gauge), hooks(delay=0.3, gauge=gauge)]
    fake.webhook_targets([h.url for h in slow])
    _set_webhook(fake, "http://127.0.0.1:9/telegram", max_connections=4)
    with fake.held():
        uids = [fake.send_text(-100, 7, f"text {i}") for i in range(16)]
    start = time.monotonic()
    fake.wait_for(lambda: not fake.pending_updates(), 10, message="all updates delivered")
    elapsed = time.monotonic() - start
    assert sorted(slow[0].received + slow[1].received) == uids
    assert gauge.most_active == 4  # up to 4 at once, and no more
    assert slow[0].received and slow[1].received  # round robin over both
    assert 16 / 4 * 0.3 <= elapsed < 16 * 0.3 * 0.75  # 4 rounds of 4, not one at a time
    assert fake.state()["webhook_in_flight"] == 0


def test_webhook_single_connection_keeps_the_order_through_failures(fake, hooks):
    hook = hooks(status=503)
    _set_webhook(fake, hook.url, max_connections=1)
    uids = [fake.send_text(42, 42, f"text {i}") for i in range(5)]
    fake.wait_for(lambda: len(fake.webhook_deliveries()) >= 2, 5)
    hook.status = 200  # the webhook is back: the same (oldest) update is posted again
    fake.wait_for(lambda: not fake.pending_updates(), 10, message="all updates delivered")
    assert hook.received == uids and hook.gauge.most_active == 1
    failed = [d["update_id"] for d in fake.webhook_deliveries() if d["error"]]
    assert set(failed) == {uids[0]}
    # the default max_connections (40) posts several at once to one URL, too
    hook.delay = 0.2
    _set_webhook(fake, hook.url)
    with fake.held():
        more = [fake.send_text(42, 42, f"mehr {i}") for i in range(8)]
    fake.wait_for(lambda: not fake.pending_updates(), 10, message="all updates delivered")
    assert sorted(hook.received[5:]) == more and hook.gauge.most_active >= 4


def test_remote_webhook_targets_and_parallel_send_message_ids(fake, hooks):
    remote = RemoteFakeBotApi(fake.url)
    hook = hooks()
    remote.webhook_targets([hook.url])
    assert remote.state()["webhook_targets"] == [hook.url]
    with pytest.raises(RuntimeError):
        remote.webhook_targets(["ftp://nope"])
    _set_webhook(fake, "http://127.0.0.1:9/telegram")
    uid = remote.send_text(5, 5, "hallo")
    fake.wait_for(lambda: hook.received == [uid], 5)
    assert remote.webhook_deliveries()[0]["target"] == hook.url
    remote.webhook_targets(None)
    assert remote.state()["webhook_targets"] == []

    # several processes sending at once still get distinct message ids per chat
    def send(i: int) -> tuple[int, int]:
        chat = -1 if i % 2 else -2
        status, body = fake.call_api("sendMessage", {"chat_id": chat, "text": f"m{i}"})
        assert status == 200
        return chat, body["result"]["message_id"]

    with ThreadPoolExecutor(8) as pool:
        sent = list(pool.map(send, range(200)))
    assert len(set(sent)) == 200
    calls = remote.calls("sendMessage")
    assert all(isinstance(c["time"], float) for c in calls)
    assert [c["time"] for c in calls] == sorted(c["time"] for c in calls)


# --------------------------------------------------------------------------- raw HTTP


def test_get_updates_offset_and_long_polling(fake):
    api = f"{fake.base_url}{TOKEN}"
    with httpx.Client(timeout=10) as client:
        u1 = fake.send_text(42, 42, "eins")
        u2 = fake.send_text(42, 42, "zwei")
        res = client.get(f"{api}/getUpdates").json()
        assert res["ok"] and [u["update_id"] for u in res["result"]] == [u1, u2]
        assert res["result"][0]["message"]["text"] == "eins"
        # limit
        assert len(client.post(f"{api}/getUpdates", data={"limit": "1"}).json()["result"]) == 1
        # confirm both
        assert client.post(f"{api}/getUpdates", data={"offset": u2 + 1}).json()["result"] == []
        assert fake.pending_updates() == []

        # long polling returns as soon as an update arrives
        timer = threading.Timer(0.2, fake.send_text, args=(42, 42, "drei"))
        timer.start()
        t0 = time.monotonic()
        res = client.post(f"{api}/getUpdates", data={"offset": u2 + 1, "timeout": 5}).json()
        assert 0.1 < time.monotonic() - t0 < 3
        assert [u["message"]["text"] for u in res["result"]] == ["drei"]
        u3 = res["result"][0]["update_id"]

        # and waits for `timeout` when nothing comes
        t0 = time.monotonic()
        res = client.get(f"{api}/getUpdates", params={"offset": u3 + 1, "timeout": "0.3"}).json()
        assert res["result"] == [] and time.monotonic() - t0 >= 0.25

        # an explicit (already confirmed) update_id is still delivered once: duplicate update
        dup = fake.get_update(u1)
        assert fake.inject_update(dup) == u1
        res = client.post(f"{api}/getUpdates", json={"offset": u3 + 1}).json()
        assert [u["update_id"] for u in res["result"]] == [u1]
        assert client.post(f"{api}/getUpdates", json={"offset": u1 + 1}).json()["result"] == []
        # new ids continue after the highest id seen
        assert fake.send_text(42, 42, "vier") == u3 + 1


def test_concurrent_get_updates_conflict(fake):
    api = f"{fake.base_url}{TOKEN}"
    results = {}

    def first():
        with httpx.Client(timeout=10) as client:
            results["first"] = client.post(f"{api}/getUpdates", data={"timeout": 5})

    thread = threading.Thread(target=first)
    thread.start()
    fake.wait_for(lambda: fake.state()["waiting_polls"] == 1, timeout=5)
    with httpx.Client(timeout=10) as client:
        second = client.post(f"{api}/getUpdates", data={"timeout": 0})
    thread.join(5)
    assert second.status_code == 200
    assert results["first"].status_code == 409
    assert "terminated by other getUpdates request" in results["first"].json()["description"]


def test_unknown_method_bad_token_and_encodings(fake):
    markup = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
    with httpx.Client(timeout=10) as client:
        res = client.post(f"{fake.base_url}{TOKEN}/fooBar")
        assert res.status_code == 404
        assert res.json() == {
            "ok": False,
            "error_code": 404,
            "description": "Not Found: method not found",
        }
        assert client.get(f"{fake.base_url}999:XYZ/getMe").status_code == 401
        assert client.get(f"{fake.base_url}{TOKEN}/GETME").json()["result"]["id"] == 123

        api = f"{fake.base_url}{TOKEN}/sendMessage"
        r1 = client.post(api, json={"chat_id": 1, "text": "json", "reply_markup": markup})
        r2 = client.post(
            api,
            data={"chat_id": "1", "text": "multi", "reply_markup": json.dumps(markup)},
            files={"document": ("a.txt", b"hello", "text/plain")},
        )
        r3 = client.get(
            api, params={"chat_id": "1", "text": "123", "reply_markup": json.dumps(markup)}
        )
        r4 = client.post(
            api, json={"chat_id": 1, "text": "nested string", "reply_markup": json.dumps(markup)}
        )
    assert [r.status_code for r in (r1, r2, r3, r4)] == [200] * 4
    assert r3.json()["result"]["text"] == "123"  # text is never JSON-decoded
    calls = fake.calls("sendMessage")
    assert [c["encoding"] for c in calls] == ["json", "multipart", "query", "json"]
    assert all(c["params"]["reply_markup"] == markup for c in calls)
    assert calls[1]["params"]["document"] == {
        "filename": "a.txt",
        "size": 5,
        "content_type": "text/plain",
    }
    assert [m["reply_markup"] for m in fake.messages(1)] == [markup] * 4


def test_control_endpoints_over_http(fake):
    with httpx.Client(base_url=f"{fake.url}/control", timeout=10) as client:
        uid = client.post(
            "/update",
            json={
                "message": {
                    "chat": {"id": 5, "type": "private", "first_name": "Eva"},
                    "from": {"id": 5, "is_bot": False, "first_name": "Eva"},
                    "text": "hi",
                }
            },
        ).json()["result"]["update_id"]
        assert fake.get_update(uid)["message"]["message_id"] == 1
        res = client.post("/send_text", json={"chat_id": -9, "user_id": 5, "text": "/neu"}).json()
        assert res["result"]["message_id"] == 1
        assert fake.get_update(res["result"]["update_id"])["message"]["entities"][0]["type"] == (
            "bot_command"
        )

        assert client.post(
            "/fail", json={"method": "sendMessage", "count": 1, "kind": "502"}
        ).json()["ok"]
        api = f"{fake.base_url}{TOKEN}/sendMessage"
        assert httpx.post(api, data={"chat_id": 5, "text": "x"}).status_code == 502
        assert httpx.post(api, data={"chat_id": 5, "text": "y"}).status_code == 200

        calls = client.get("/calls", params={"method": "sendMessage"}).json()["result"]
        assert [c["status"] for c in calls] == [502, 200]
        since = client.get("/calls", params={"since": calls[0]["seq"]}).json()["result"]
        assert [c["seq"] for c in since] == [calls[1]["seq"]]

        msgs = client.get("/messages", params={"chat_id": 5}).json()["result"]
        assert [(m["message_id"], m["text"]) for m in msgs] == [(2, "y")]
        msgs = client.get("/messages", params={"chat_id": 5, "include_user": 1}).json()["result"]
        assert [m["text"] for m in msgs] == ["hi", "y"]
        press = client.post(
            "/press",
            json={"chat_id": 5, "user_id": 5, "message_id": 2, "data": "z", "check_data": False},
        ).json()
        assert press["ok"] and press["result"]["callback_query_id"]
        bad = client.post(
            "/press", json={"chat_id": 5, "user_id": 5, "message_id": 99, "data": "z"}
        )
        assert bad.status_code == 400

        assert client.post("/reset", json={}).json()["ok"]
        assert client.get("/calls").json()["result"] == []
        assert client.get("/messages", params={"chat_id": 5}).json()["result"] == []
        assert client.get("/nope").status_code == 404


def test_wait_for_timeout_has_summary(fake):
    with httpx.Client() as client:
        client.post(f"{fake.base_url}{TOKEN}/sendMessage", data={"chat_id": 3, "text": "hallo"})
    with pytest.raises(AssertionError) as info:
        fake.wait_for_call("editMessageText", timeout=0.1)
    text = str(info.value)
    assert "editMessageText" in text and "sendMessage" in text and "recorded calls" in text
    assert fake.wait_for_call("sendMessage", lambda c: c["params"]["text"] == "hallo")["seq"] == 1


def test_standalone_process():
    with FakeBotApiProcess(token=TOKEN) as proc:
        assert proc.url.startswith("http://127.0.0.1:")

        async def main():
            async with Bot(TOKEN, base_url=proc.base_url, base_file_url=proc.base_file_url) as bot:
                msg = await bot.send_message(42, "aus dem Prozess", reply_markup=keyboard("ok"))
                proc.fail("sendMessage", 1, "429")
                with pytest.raises(RetryAfter):
                    await bot.send_message(42, "nein")
                return msg

        msg = asyncio.run(main())
        assert proc.message(42, msg.message_id)["text"] == "aus dem Prozess"
        uid = proc.press(42, 42, msg.message_id, "ok")
        assert proc.pending_updates()[0]["update_id"] == uid
        assert proc.wait_for_call("sendMessage", timeout=2)["status"] == 200
        assert proc.commands() == []
        proc.reset()
        assert proc.calls() == []
        process = proc.proc
    assert process.returncode == 0
