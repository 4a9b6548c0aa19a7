"""The harness of the Telegram benchmark (``bench/telegram.py``): the fake Bot API server and
the bot processes it starts (one, or several in webhook mode behind free ports), the table
messages and their buttons, latencies and CPU time per update, and waiting.
"""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.fakes.telegram_api import FakeBotApiProcess

TOKEN = "123456:BENCH"
# the default PostgreSQL server (bench/telegram.py keeps its own PG_SERVER, which tests change)
PG_SERVER = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


def _bin(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def _table_message(fake, chat: int) -> dict | None:
    msgs = [m for m in fake.messages(chat) if not m.get("deleted") and m.get("reply_markup")]
    for m in reversed(msgs):
        datas = [b.get("callback_data", "") for row in m["reply_markup"]["inline_keyboard"]
                 for b in row]
        if any(d.startswith("v1:") and not d.startswith("v1:0:") for d in datas):
            return m
    return None


def _pick(message: dict, rng: random.Random) -> str | None:
    datas = [b["callback_data"] for row in message["reply_markup"]["inline_keyboard"]
             for b in row]
    # no "💡 Tip" or review either (since issue 41): they make the Experte think for a second in
    # the thinking pool, load of another kind than the presses measured (``NOT_MOVES``)
    moves = [d for d in datas
             if d.rsplit(":", 1)[-1] not in ("again", "back", "cards", "tip", "review")]
    nxt = [d for d in moves if d.endswith(":next")]
    if nxt:
        return nxt[0]
    return rng.choice(moves) if moves else None


def _latencies(fake, uids: set[int],
               webhook: bool = False) -> tuple[list[float], float, float]:
    """Per-update latency (s), and the wave's first delivery / last answer times. ``webhook``:
    an update counts as delivered when the POST that the bot accepted began."""
    delivered: dict[int, float] = {}
    qid_to_uid: dict[str, int] = {}
    if webhook:
        for hook in fake.webhook_deliveries():
            uid = hook["update_id"]
            if hook["error"] is None and uid in uids and uid not in delivered:
                delivered[uid] = hook["started"]
                if "callback_query_id" in hook:
                    qid_to_uid[hook["callback_query_id"]] = uid
    for call in [] if webhook else fake.calls("getUpdates"):
        for upd in (call.get("response") or {}).get("result") or []:
            uid = upd["update_id"]
            if uid in uids and uid not in delivered:
                delivered[uid] = call["time"]
                if "callback_query" in upd:
                    qid_to_uid[upd["callback_query"]["id"]] = uid
    answered: dict[int, float] = {}
    for call in fake.calls("answerCallbackQuery"):
        uid = qid_to_uid.get(str(call["params"].get("callback_query_id")))
        if uid is not None and uid not in answered:
            answered[uid] = call["time"]
    lat = [answered[u] - delivered[u] for u in answered if u in delivered]
    first = min(delivered.values()) if delivered else 0.0
    last = max(answered.values()) if answered else 0.0
    return lat, first, last


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_all(procs: list[subprocess.Popen]) -> float:
    return sum(_cpu_seconds(p.pid) for p in procs)


def _wait(pred, timeout: float, what: str, every: float = 0.05, fatal: bool = True) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(every)
    if fatal:
        raise SystemExit(f"timed out waiting for {what}")
    print(f"  (timed out waiting for {what}; going on)")
    return False


def _free_ports(count: int) -> list[int]:
    socks = [socket.socket() for _ in range(count)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@contextmanager
def _running_bot(command: list[str], env: dict[str, str], chats: list[int], setup: str,
                 fake_http: str, echo: bool = False) -> Iterator[tuple[Any, subprocess.Popen]]:
    """A fake Bot API server and a bot process against it, with ``setup`` sent in every chat
    and a table message (with buttons) shown in each; the bot is stopped afterwards.
    ``echo``: the bare echo bot, which registers no commands."""
    with _running_bots(command, env, chats, setup, fake_http, echo) as (fake, procs):
        yield fake, procs[0]


@contextmanager
def _running_bots(command: list[str], env: dict[str, str], chats: list[int], setup: str,
                  fake_http: str, echo: bool = False,
                  processes: int = 0) -> Iterator[tuple[Any, list[subprocess.Popen]]]:
    """``_running_bot``; with ``processes`` > 0 that many bot processes in webhook mode, each
    on a port of its own, the fake server delivering to them round robin (a reverse proxy's
    part); the URL they register is the proxy's (nobody listens there)."""
    fake_args = ("--max-calls", "400000", "--http", fake_http)
    with FakeBotApiProcess(token=TOKEN, args=fake_args) as fake, \
            tempfile.TemporaryDirectory() as tmp:
        full_env = {**os.environ, **env, "TELEGRAM_TOKEN": TOKEN, "TELEGRAM_BASE_URL": fake.url}
        envs = [full_env]
        ports: list[int] = []
        if processes:
            proxy, *ports = _free_ports(processes + 1)
            hook = {"TELEGRAM_WEBHOOK_URL": f"http://127.0.0.1:{proxy}/telegram",
                    "TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1",
                    "TELEGRAM_WEBHOOK_SECRET": f"bench-{uuid.uuid4().hex}"}
            envs = [{**full_env, **hook, "TELEGRAM_WEBHOOK_PORT": str(port)} for port in ports]
            fake.webhook_targets([f"http://127.0.0.1:{port}/telegram" for port in ports])
        logs = [Path(tmp) / ("bot.log" if not processes else f"bot-{i + 1}.log")
                for i in range(len(envs))]
        procs: list[subprocess.Popen] = []
        try:
            for proc_env, log_path in zip(envs, logs, strict=True):
                with open(log_path, "w") as log:
                    procs.append(subprocess.Popen(command, env=proc_env, cwd=tmp,
                                                  stdout=subprocess.DEVNULL, stderr=log))

            def ready() -> bool:
                if processes:  # the webhook is registered (by one of them) and all listen
                    return bool(fake.calls("setWebhook")) and all(map(_listening, ports))
                return bool(fake.calls("getMe") and (fake.calls("setMyCommands") or echo))

            _wait(lambda: ready() or any(p.poll() is not None for p in procs), 60,
                  "the bot to start")
            for proc, log_path in zip(procs, logs, strict=True):
                if proc.poll() is not None:
                    raise SystemExit(log_path.read_text()[-3000:])
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(lambda c: fake.send_text(c, c, setup), chats))
            _wait(lambda: all(_table_message(fake, c) for c in chats), 120, "the tables")
            yield fake, procs
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()


def _answered(fake, mark: int) -> int:
    """Callback queries answered since ``mark`` (each once, however often answered)."""
    return len({str(c["params"].get("callback_query_id"))
                for c in fake.calls("answerCallbackQuery", since=mark)})


def _twice(fake, mark: int) -> dict[str, int]:
    """Calls since ``mark`` that look like work done twice: answers to a query already
    answered, and edits refused as not modified or of a message no longer there."""
    seen: set[str] = set()
    answers = 0
    for call in fake.calls("answerCallbackQuery", since=mark):
        qid = str(call["params"].get("callback_query_id"))
        answers += qid in seen
        seen.add(qid)
    edits = sum(1 for call in fake.calls(None, since=mark)
                if call["method"].startswith("editMessage") and call["status"] == 400
                and any(text in str((call["response"] or {}).get("description"))
                        for text in ("not modified", "not found")))
    return {"dup_answers": answers, "failed_edits": edits}
