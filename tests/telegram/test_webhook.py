"""Webhook mode: the real bot process serves a webhook, the fake Bot API server posts to it."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request

import pytest

from .harness import WAIT, answer_text, greet, private_menu_to_table, private_moves

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_webhook_mode_receives_updates_and_answers(fake, start_bot, sqlite_url) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}/tg"
    start_bot(sqlite_url, TELEGRAM_WEBHOOK_URL=url, TELEGRAM_WEBHOOK_LISTEN="127.0.0.1",
              TELEGRAM_WEBHOOK_PORT=str(port), TELEGRAM_WEBHOOK_SECRET="s3cr3t-token")
    hook = fake.wait_for_call("setWebhook", timeout=WAIT)
    assert hook["params"]["url"] == url
    assert hook["params"]["secret_token"] == "s3cr3t-token"
    since = fake.last_seq()
    fake.send_text(4242, 4242, "/start")
    sent = fake.wait_for_call(
        "sendMessage", lambda c: str(c["params"].get("chat_id")) == "4242", since=since,
        timeout=WAIT)
    assert "Stammtisch" in sent["params"]["text"]
    # (an update posted before the server listens is retried, as Telegram does)
    deliveries = fake.webhook_deliveries()
    assert deliveries and deliveries[-1]["status"] == 200, deliveries
    assert not fake.calls("getUpdates", since=since)  # no polling in webhook mode


def _webhook_env(port: int) -> dict[str, str]:
    return {"TELEGRAM_WEBHOOK_URL": f"http://127.0.0.1:{port}/hooks/tg",
            "TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1", "TELEGRAM_WEBHOOK_PORT": str(port),
            "TELEGRAM_WEBHOOK_SECRET": "s3cr3t-token"}


def _post(port: int, path: str, body: bytes, secret: str | None) -> int:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body,
                                     headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_webhook_confirms_an_update_only_once_handled(fake, start_bot, sqlite_url) -> None:
    """Telegram's POST is answered after the press was committed and answered; a POST
    without the secret token, or with a body that is no update, is turned away."""
    port = _free_port()
    start_bot(sqlite_url, **_webhook_env(port))
    fake.wait_for_call("setWebhook", timeout=WAIT)
    user = 4545
    greet(fake, user, "Wanda")
    table_id, message_id = private_menu_to_table(fake, user, opponents=1)
    msg = private_moves(fake, user, table_id, message_id)
    uid = fake.press(user, user, message_id, msg[0])
    answer_text(fake, uid)
    query_id = fake.get_update(uid)["callback_query"]["id"]
    answered = next(c["time"] for c in fake.calls("answerCallbackQuery")
                    if c["params"].get("callback_query_id") == query_id)
    delivery = fake.wait_for(lambda: next((d for d in fake.webhook_deliveries()
                                           if d["update_id"] == uid), None), WAIT,
                             message="the delivery")
    assert delivery["status"] == 200 and delivery["time"] >= answered
    # the full path and its last segment are served (a reverse proxy may pass either)
    update = json.dumps({"update_id": 10**9, "message": None}).encode()
    assert _post(port, "/tg", update, secret=None) == 403
    assert _post(port, "/hooks/tg", update, secret="wrong") == 403
    assert _post(port, "/hooks/tg", b"{not json", secret="s3cr3t-token") == 400
    assert _post(port, "/tg", b"[1, 2]", secret="s3cr3t-token") == 400
    assert _post(port, "/tg", json.dumps({"update_id": 10**9}).encode(),
                 secret="s3cr3t-token") == 200  # an update of a kind we ignore


def test_webhook_update_killed_mid_handling_is_delivered_again(fake, start_bot,
                                                               sqlite_url) -> None:
    """SIGKILL while an update is being handled (here: waiting on the admin check of a group's
    /stop): Telegram never got its 200, delivers the update again to the restarted bot,
    and it is handled once."""
    port = _free_port()
    bot = start_bot(sqlite_url, **_webhook_env(port))
    fake.wait_for_call("setWebhook", timeout=WAIT)
    group, user = -5001, 4646
    since = fake.last_seq()
    fake.set_latency(5.0)  # the admin check (getChatMember) hangs ...
    fake.send_text(group, user, "/stop", chat_title="Stammtisch")
    time.sleep(1.5)  # ... while the update is being handled
    bot.kill()
    fake.set_latency(0.0)
    assert fake.pending_updates(), "the update must still be unconfirmed"
    start_bot(sqlite_url, **_webhook_env(port))

    def confirmations() -> list[dict]:
        return [c for c in fake.calls("sendMessage", since=since)
                if int(c["params"]["chat_id"]) == group
                and "kein Tisch" in c["params"]["text"]]

    fake.wait_for(confirmations, WAIT, message="the command handled after the restart")
    time.sleep(0.5)
    assert len(confirmations()) == 1
    assert fake.pending_updates() == []


def test_webhook_without_a_configured_secret_makes_one(fake, start_bot, sqlite_url) -> None:
    """Issue 15, item 3: with TELEGRAM_WEBHOOK_SECRET unset the webhook still has a secret —
    one derived from the token (the same in every process) and registered with setWebhook — so a forged POST without it
    is refused; a header with non-ASCII bytes is a 403, not a server error."""
    import http.client

    port = _free_port()
    env = {**_webhook_env(port), "TELEGRAM_WEBHOOK_SECRET": ""}
    bot = start_bot(sqlite_url, **env)
    hook = fake.wait_for_call("setWebhook", timeout=WAIT)
    secret = hook["params"].get("secret_token") or ""
    assert len(secret) >= 32
    forged = json.dumps({"update_id": 10**9, "message": {
        "message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"},
        "from": {"id": 1, "is_bot": False, "first_name": "Mallory"}, "text": "/stop"}}).encode()
    assert _post(port, "/hooks/tg", forged, secret=None) == 403
    assert _post(port, "/hooks/tg", forged, secret="guess") == 403
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest("POST", "/hooks/tg")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("X-Telegram-Bot-Api-Secret-Token", b"\xc3\xa4\xff")
    conn.putheader("Content-Length", str(len(forged)))
    conn.endheaders(forged)
    assert conn.getresponse().status == 403
    conn.close()
    fake.send_text(4646, 4646, "/start")  # Telegram's own deliveries carry the secret
    sent = fake.wait_for_call("sendMessage", lambda c: str(c["params"].get("chat_id")) == "4646",
                              timeout=WAIT)
    assert "Stammtisch" in sent["params"]["text"]
    assert secret not in bot.log()  # and it never reaches the log


def _get_table(port: int, init_data: str) -> tuple[int, dict]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/webapp/api/table",
                                     headers={"X-Telegram-Init-Data": init_data})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, {}


@pytest.mark.parametrize("mode", ["webhook", "own port"])
def test_the_mini_app_api_is_served_by_the_bot(fake, start_bot, sqlite_url, mode) -> None:
    """Issue 19 (the API so far): on the webhook server under /webapp, or on WEBAPP_PORT in
    any mode; the user only from initData signed for this bot."""
    from chatbot.webapp.initdata import sign

    from .harness import TOKEN

    port = _free_port()
    env = _webhook_env(port) if mode == "webhook" else {"WEBAPP_PORT": str(port)}
    start_bot(sqlite_url, **env)
    greet(fake, 4343, "Ida")
    table_id, message_id = private_menu_to_table(fake, 4343)
    private_moves(fake, 4343, table_id, message_id)  # a round that ended on the deal is followed

    def init(user: int, token: str = TOKEN) -> str:
        return sign({"auth_date": str(int(time.time())),
                     "user": json.dumps({"id": user, "first_name": "Ida"})}, token)

    status, table = fake.wait_for(lambda: (r := _get_table(port, init(4343)))[0] == 200 and r,
                                  WAIT, message="the API")
    assert table["table"] == table_id and table["seat"] == 0 and table["hand"]
    assert _get_table(port, init(4343, "999:OTHER"))[0] == 401
    status, other = _get_table(port, init(77))
    assert status == 404  # (not seated anywhere, no table asked for)


def test_webhook_mode_honours_the_initdata_max_age(fake, start_bot, sqlite_url) -> None:
    """Issue 38, item 6: WEBAPP_INITDATA_MAX_AGE holds for the API on the webhook server too
    (it was always a day there): an initData older than the age gets 401."""
    from chatbot.webapp.initdata import sign

    from .harness import TOKEN

    port = _free_port()
    start_bot(sqlite_url, **_webhook_env(port), WEBAPP_INITDATA_MAX_AGE="600")
    greet(fake, 4343, "Ida")
    private_menu_to_table(fake, 4343)

    def init(age: float) -> str:
        return sign({"auth_date": str(int(time.time() - age)),
                     "user": json.dumps({"id": 4343, "first_name": "Ida"})}, TOKEN)

    fake.wait_for(lambda: _get_table(port, init(0))[0] == 200, WAIT, message="the API")
    assert _get_table(port, init(1200))[0] == 401  # (20 minutes: good for a day before)
