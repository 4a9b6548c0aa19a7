"""Tests for the fake Telegram Bot API over raw HTTP: getUpdates offsets and conflicts, encodings,
the control endpoints, timeout summaries and the standalone process.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx
import pytest
from telegram import Bot
from telegram.error import RetryAfter

from tests.fakes.ptb_helpers import TOKEN, keyboard
from tests.fakes.telegram_api import FakeBotApiProcess

pytestmark = [
    pytest.mark.timeout(30),
    # PTB 22 warns whenever a RetryAfter is built (retry_after becomes a timedelta later)
    pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning"),
]


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
        "content": "hello",  # (the bytes, as latin-1 text)
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
