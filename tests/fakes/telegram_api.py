"""A fake Telegram Bot API server for tests and benchmarks (stdlib only; ``http="aiohttp"``
/ ``--http aiohttp`` serves the same fake from one asyncio loop, for throughput benchmarks).

In-process use::

    with FakeBotApi(token="123:ABC") as fake:
        bot = telegram.Bot("123:ABC", base_url=fake.base_url, base_file_url=fake.base_file_url)
        uid = fake.send_text(chat_id=42, user_id=42, text="/start")   # inject an update
        call = fake.wait_for_call("sendMessage")                      # sync code only!
        # inside the bot's event loop use: await fake.async_wait_for_call("sendMessage")
        fake.press(42, 42, call["response"]["result"]["message_id"], "join")

As a separate process::

    python -m tests.fakes.telegram_api --port 0 --token 123:ABC
    # prints "READY http://127.0.0.1:PORT" (flushed), serves until SIGTERM/SIGINT

``FakeBotApiProcess`` starts that process and ``RemoteFakeBotApi(url)`` offers the same
control API (calls, messages, send_text, press, fail, reset, wait_for, ...) over HTTP.

Bot API: requests to ``/bot<token>/<method>`` (method names case-insensitive) with GET query
parameters, ``application/x-www-form-urlencoded``, ``multipart/form-data`` or ``application/json``
bodies. String values of non-text fields are JSON-decoded (that is what python-telegram-bot
sends for ``chat_id``, ``reply_markup``, ``commands``, ...). Implemented methods: getMe, logOut,
close, getUpdates, setWebhook, deleteWebhook, getWebhookInfo, sendMessage, sendChatAction,
editMessageText, editMessageReplyMarkup, deleteMessage, deleteMessages, answerCallbackQuery,
setMyCommands, getMyCommands, deleteMyCommands, getChat, getChatMember, leaveChat,
pinChatMessage, unpinChatMessage, setMyName, setMyDescription, setMyShortDescription,
createForumTopic, editForumTopic, closeForumTopic, reopenForumTopic, deleteForumTopic (also
topics in private chats: ``private_topics``).
sendPoll, stopPoll (people answer with ``answer_poll``: a ``poll_answer`` update).
sendDocument (an upload of at most 50 MB, or a ``file_id`` sent before; ``documents(chat)``
reads the files back with their bytes).

Control API: ``/control/<name>`` (JSON in, ``{"ok": true, "result": ...}`` out), see
``FakeBotApi._control``; every endpoint has a Python method of the same name.

Notes on realism:
* ``parse_mode=HTML`` is parsed into plain text + entities (UTF-16 offsets); unsupported or
  unbalanced tags give Telegram's 400 "can't parse entities" error. Markdown is stored as is.
* ``editMessageText`` without ``reply_markup`` removes the inline keyboard (as Telegram does).
* getUpdates: updates with ``update_id < offset`` are confirmed (dropped); a second concurrent
  getUpdates terminates the first one with 409 Conflict; getUpdates while a webhook is set → 409.
* When a webhook is set, pending updates are POSTed to it (with
  ``X-Telegram-Bot-Api-Secret-Token``; http:// URLs are accepted), up to setWebhook's
  ``max_connections`` (default 40, at most ``webhook_workers``) at once, the oldest first, over
  keep-alive connections. An update stays pending while it is being posted; a 2xx answer
  confirms it; anything else (refused, reset, timeout, non-2xx) sets ``last_error_date`` and
  pauses that URL for ``webhook_retry_pause`` seconds, after which the update is posted again.
  With ``max_connections=1`` and one URL the order is kept.
* ``webhook_targets([url, ...])`` stands for a reverse proxy in front of several bot processes:
  the updates for the registered webhook go round robin to these URLs instead (a failing target
  is skipped for the pause and the update goes to the next one, as a proxy with passive health
  checks does). ``webhook_deliveries()`` records every attempt with its ``target``.
* Forum supergroups (``make_forum``) and their topics (``create_topic``, ``close_topic``,
  ``reopen_topic``, ``edit_topic``, ``delete_topic``; ``send_text(..., topic=…)``; what a
  person does to a topic reaches the bot as a service message): see ``bot_api/forums.py``. A send into a
  closed topic gets 400 "Bad Request: TOPIC_CLOSED", into a deleted one or with a thread id
  outside a forum 400 "Bad Request: message thread not found".
* ``getChatMember`` answers the status a test set with ``set_status`` ("member" by default);
  ``migrate_chat`` upgrades a basic group to a supergroup (both service messages; the old id
  refused by every method with 400 "Bad Request: group chat was upgraded to a supergroup chat"
  and ``parameters.migrate_to_chat_id``): see ``bot_api/groups.py``.
* Empty getUpdates responses are not recorded in ``calls()`` (``record_empty_polls=True``
  changes that). Call sequence numbers and update ids keep increasing across ``reset()``.

This module is the fake's public face and its command line (``main``); the parts live in
``tests/fakes/bot_api/``: ``wire`` (errors, request decoding), ``markup`` (HTML parse mode,
keyboards), ``records``, ``waiting``, ``servers`` (HTTP front ends), ``core`` (``FakeBotApi``)
with its mix-ins ``objects``, ``methods`` (the Bot API methods), ``webhooks``, ``updates`` and
``control``, and ``remote`` (``RemoteFakeBotApi``, ``FakeBotApiProcess``).
"""


from __future__ import annotations

import argparse
import gc
import signal
import sys
import threading

from tests.fakes.bot_api.core import FakeBotApi
from tests.fakes.bot_api.markup import parse_html
from tests.fakes.bot_api.remote import FakeBotApiProcess, RemoteFakeBotApi
from tests.fakes.bot_api.wire import FORBIDDEN_REASONS, NOT_MODIFIED, ApiError, decode_params

__all__ = [
    "FORBIDDEN_REASONS",
    "NOT_MODIFIED",
    "ApiError",
    "FakeBotApi",
    "FakeBotApiProcess",
    "RemoteFakeBotApi",
    "decode_params",
    "main",
    "parse_html",
]

# --------------------------------------------------------------------------------------------
# Standalone entry point


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Fake Telegram Bot API server")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--token", default="123:ABC")
    ap.add_argument("--first-name", default="Stammtisch")
    ap.add_argument("--username", default="stammtisch_test_bot")
    ap.add_argument("--latency", type=float, default=0.0, help="seconds added to every API call")
    ap.add_argument(
        "--require-start",
        action="store_true",
        help="private chats need a message from the user before the bot can send",
    )
    ap.add_argument("--record-empty-polls", action="store_true")
    ap.add_argument(
        "--max-calls",
        type=int,
        default=None,
        help="keep only about the newest N call records (long benchmarks)",
    )
    ap.add_argument(
        "--http",
        choices=("threaded", "aiohttp"),
        default="threaded",
        help="HTTP front end: stdlib threads (default) or one asyncio loop (benchmarks)",
    )
    ap.add_argument(
        "--webhook-retry-pause",
        type=float,
        default=0.2,
        help="seconds a webhook URL rests after a failed POST before it is tried again",
    )
    args = ap.parse_args(argv)
    fake = FakeBotApi(
        args.token,
        host=args.host,
        port=args.port,
        bot_first_name=args.first_name,
        bot_username=args.username,
        latency=args.latency,
        require_start=args.require_start,
        record_empty_polls=args.record_empty_polls,
        max_calls=args.max_calls,
        http=args.http,
        webhook_retry_pause=args.webhook_retry_pause,
    )
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    fake.start()
    print(f"READY {fake.url}", flush=True)
    try:
        while not stop.wait(0.5):
            # The call records pile up; a full GC collection walking all of them stalls the
            # server for a long moment, and updates reach the bot in one lump afterwards.
            # Freezing what exists (O(1)) keeps collections to the newest objects.
            gc.freeze()
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
