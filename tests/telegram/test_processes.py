"""Several bot processes on one PostgreSQL database (issue 16, item 6).

Three ``stammtisch telegram`` processes share one database. In webhook mode the fake Bot API
spreads the updates round robin over them (the reverse proxy) and retries an update a process
failed on at the next one, as Telegram does; in polling mode one process (the leader) polls.
100 private tables are played with random presses while one process is SIGKILLed and started
again. Afterwards:

* every press was answered; twice only where the update was delivered twice (a process died
  between answering and confirming it: the repeat is answered again, changing nothing);
* every outbox row went out once: each ``sendMessage`` made a message that exactly one row
  records, except a send under way in the killed process at the moment of the kill (Telegram
  has no idempotent send: such a row is sent again by the process that takes the chat over);
* each chat's sends and edits follow the outbox order (an older view never replaces a newer);
* no table is stuck (nothing pending, no deadline overdue), no move was applied twice;
* the per-chat and bot-wide send limits held for the processes together.
"""

from __future__ import annotations

import json
import random
import socket
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import pytest

from chatbot.telegram.sender import mentions
from tests.fakes.telegram_api import FakeBotApi

from .harness import (
    WAIT,
    BotProcess,
    Db,
    codes,
    greet,
    move_datas,
    peek,
    pick_move,
    private_menu_to_table,
    snapshot,
)

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

TABLES = 100
CHAT_INTERVAL = 0.3  # seconds between two messages to one chat (Telegram: 1)
GLOBAL_PER_SECOND = 40  # the bot-wide limit (Telegram: 30), low enough to bind here
# A send counts when its pass claims it; the Bot API sees it a little later (the pass's other
# calls, a busy machine): measured at the fake, two sends may come closer by that much.
SKEW = 0.15
SECRET = "shared-secret-of-all-processes"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(**extra: Any) -> dict[str, Any]:
    return {"CPU_DELAY": "0.05", "TELEGRAM_CHAT_INTERVAL": str(CHAT_INTERVAL),
            "TELEGRAM_GLOBAL_PER_SECOND": str(GLOBAL_PER_SECOND), **extra}


class Players:
    """The people at the 100 private tables, pressing at random."""

    def __init__(self, fake: FakeBotApi, count: int, seed: int, first_user: int) -> None:
        self.fake, self.rng = fake, random.Random(seed)
        self.users = list(range(first_user, first_user + count))
        self.tables: dict[int, tuple[int, int]] = {}  # user -> (table id, message id)
        self.pressed: dict[int, Any] = {}
        self.presses: list[int] = []  # update ids

    def sit_down(self) -> None:
        def one(user: int) -> None:
            greet(self.fake, user, f"P{user}")
            self.tables[user] = private_menu_to_table(self.fake, user)

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(one, self.users))

    def press_round(self) -> int:
        """One random press on every table whose view changed since its last press."""
        done = 0
        for user in self.users:
            table_id, message_id = self.tables[user]
            msg = peek(self.fake, user, message_id)
            if msg is None or self.pressed.get(user) == snapshot(msg):
                continue
            found = codes(msg, table_id)
            datas = move_datas(msg, table_id)
            data = found.get("again") or found.get("next") or \
                (pick_move(self.rng, datas) if datas else None)
            if data is None:
                continue
            self.pressed[user] = snapshot(msg)
            self.presses.append(self.fake.press(user, user, message_id, data))
            done += 1
        return done

    def play(self, seconds: float, at: dict[float, Callable[[], None]]) -> None:
        """Press for ``seconds``; ``at`` runs callables that many seconds in."""
        start = time.monotonic()
        events = sorted(at.items())
        while (now := time.monotonic() - start) < seconds:
            while events and events[0][0] <= now:
                events.pop(0)[1]()
            if not self.press_round():
                time.sleep(0.05)

    def answers(self) -> Counter:
        """How often each pressed update's callback query was answered."""
        by_query = Counter(c["params"].get("callback_query_id")
                           for c in self.fake.calls("answerCallbackQuery"))
        out: Counter = Counter()
        for uid in self.presses:
            query = (self.fake.get_update(uid) or {}).get("callback_query", {}).get("id")
            out[uid] = by_query[query]
        return out


def _settle(fake: FakeBotApi, db: Db, players: Players) -> None:
    """Wait until every press is answered and the outbox is delivered."""
    def quiet() -> bool:
        answered = all(n >= 1 for n in players.answers().values())
        pending = db.rows("SELECT count(*) AS n FROM outbox WHERE status = 'pending'")[0]["n"]
        return answered and pending == 0 and not fake.state()["pending_update_ids"]

    fake.wait_for(quiet, 2 * WAIT, message="every press answered and the outbox delivered")


def _check_outbox(fake: FakeBotApi, db: Db, killed_pids: list[int]) -> dict[str, int]:
    """Each send recorded by exactly one row (but a killed process's sends under way), each
    chat's sends and edits in outbox order; returns counts for the report."""
    rows = db.rows("SELECT id, chat_external_id AS chat, text, message_id, claimed_by, status "
                   "FROM outbox ORDER BY id")
    assert not [r for r in rows if r["status"] == "failed"], "rows given up"
    killed = tuple(f":{pid}:" for pid in killed_pids)
    by_message: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        if r["status"] == "sent" and r["message_id"] is not None:
            r["shown"] = mentions(r["text"])[0]
            by_message[(r["chat"], r["message_id"])].append(r)
    calls = [c for c in fake.calls() if c["method"] in ("sendMessage", "editMessageText")
             and c["status"] == 200]
    orphans: list[dict] = []
    last_row: dict[str, int] = {}
    for c in calls:
        chat = str(c["params"]["chat_id"])
        if c["method"] == "sendMessage":
            mid = str(c["response"]["result"]["message_id"])
        else:
            mid = str(c["params"]["message_id"])
        candidates = [r for r in by_message.get((chat, mid), [])
                      if r["shown"] == c["params"]["text"] and r["id"] >= last_row.get(chat, 0)]
        if not candidates:
            orphans.append(c)
            continue
        last_row[chat] = candidates[0]["id"]
    sends = Counter((str(c["params"]["chat_id"]), str(c["response"]["result"]["message_id"]))
                    for c in calls if c["method"] == "sendMessage")
    assert all(n == 1 for n in sends.values())  # (the fake never reuses a message id)
    in_flight = [r for r in rows if r["claimed_by"] and any(k in r["claimed_by"] for k in killed)]
    in_flight_texts = {mentions(r["text"])[0] for r in in_flight}
    unexplained = [c for c in orphans if c["params"]["text"] not in in_flight_texts]
    assert not unexplained, (
        f"{len(unexplained)} sends/edits no row accounts for, or out of order, e.g. "
        f"{[(c['method'], c['params'].get('chat_id'), c['params']['text'][:60]) for c in unexplained[:3]]}")
    return {"rows": len(rows), "calls": len(calls), "repeated_after_kill": len(orphans)}


def _check_limits(fake: FakeBotApi) -> dict[str, float]:
    """Messages sent or edited (deleting a message is not limited) per chat and per second."""
    calls = [c for c in fake.calls() if c["method"] in ("sendMessage", "editMessageText")
             and c["status"] == 200]
    by_chat: dict[str, list[float]] = defaultdict(list)
    for c in calls:
        by_chat[str(c["params"]["chat_id"])].append(c["time"])
    gaps = [b - a for times in by_chat.values() for a, b in zip(times, times[1:], strict=False)]
    times = sorted(c["time"] for c in calls)
    busiest, j = 0, 0
    for i, t in enumerate(times):
        while times[j] <= t - 1.0:
            j += 1
        busiest = max(busiest, i - j + 1)
    assert min(gaps) >= CHAT_INTERVAL - SKEW, f"two messages to a chat {min(gaps):.3f}s apart"
    assert busiest <= GLOBAL_PER_SECOND * (1 + SKEW) + 1, f"{busiest} messages in one second"
    return {"min_gap": min(gaps), "busiest_second": busiest}


def _check_tables(db: Db) -> None:
    twice = db.rows("SELECT table_id, seq, count(*) AS n FROM move GROUP BY table_id, seq "
                    "HAVING count(*) > 1")
    assert not twice, f"moves applied twice: {twice[:5]}"
    overdue = db.rows("SELECT id, next_deadline FROM game_table WHERE next_deadline IS NOT NULL "
                      "AND next_deadline < now() - interval '5 seconds'")
    assert not overdue, f"tables stuck past their deadline: {overdue[:5]}"


def test_three_webhook_processes_one_killed(fake: FakeBotApi, postgres_url: str,
                                            start_bot: Callable[..., BotProcess],
                                            db_reader: Callable[[str], Db]) -> None:
    ports = [_free_port() for _ in range(3)]
    fake.webhook_targets([f"http://127.0.0.1:{p}/telegram" for p in ports])

    def start(i: int) -> BotProcess:
        return start_bot(postgres_url, **_env(
            TELEGRAM_WEBHOOK_URL="https://bot.example.org/telegram",
            TELEGRAM_WEBHOOK_LISTEN="127.0.0.1", TELEGRAM_WEBHOOK_PORT=ports[i],
            TELEGRAM_WEBHOOK_SECRET=SECRET))

    bots = [start(i) for i in range(3)]
    fake.wait_for(lambda: fake.calls("setWebhook"), WAIT, message="the webhook registered")
    db = db_reader(postgres_url)
    players = Players(fake, TABLES, seed=16, first_user=16_000)
    players.sit_down()
    killed: list[int] = []

    def kill() -> None:
        killed.append(bots[1].proc.pid)  # type: ignore[union-attr]
        bots[1].kill()

    def restart() -> None:
        bots[1] = start(1)

    players.play(25.0, {8.0: kill, 14.0: restart})
    _settle(fake, db, players)

    assert len(fake.calls("setWebhook")) == 1, "exactly one process registers the webhook"
    delivered = Counter(d["update_id"] for d in fake.webhook_deliveries())
    failed = {d["update_id"] for d in fake.webhook_deliveries() if d["error"]}
    assert failed, "the kill should have failed some deliveries (retried elsewhere)"
    targets = Counter(d["target"] for d in fake.webhook_deliveries() if not d["error"])
    assert len(targets) == 3, f"every process served the webhook: {targets}"
    answers = players.answers()
    assert all(n >= 1 for n in answers.values())
    twice = [uid for uid, n in answers.items() if n > 1]
    assert all(delivered[uid] > 1 and uid in failed for uid in twice), \
        "a press answered twice though delivered once"
    counts = _check_outbox(fake, db, killed)
    limits = _check_limits(fake)
    _check_tables(db)
    print(f"\n{len(players.presses)} presses, {len(twice)} answered twice after the kill, "
          f"{counts}, {limits}")


def _get(port: int, path: str) -> tuple[int, str]:
    """GET from a process's metrics server (started just after it is ready: retried)."""
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + WAIT
    while True:
        try:
            return _get_once(port, path)
        except urllib.error.URLError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _get_once(port: int, path: str) -> tuple[int, str]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _logged_at(log: str, needle: str) -> float | None:
    """When (epoch seconds) a process first logged a line containing ``needle``."""
    for line in log.splitlines():
        if needle in line and "no longer" not in line:
            stamp = datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")
            return stamp.timestamp()  # (the log's times are local, as is this)
    return None


def test_polling_leader_killed_another_takes_over(fake: FakeBotApi, postgres_url: str,
                                                  start_bot: Callable[..., BotProcess],
                                                  db_reader: Callable[[str], Db]) -> None:
    metrics_ports = [_free_port() for _ in range(3)]
    bots = [start_bot(postgres_url, **_env(METRICS_PORT=port)) for port in metrics_ports]

    def leaders() -> list[int]:
        return [i for i, b in enumerate(bots) if "leads telegram-poll" in b.log()
                and "no longer leads telegram-poll" not in b.log()]

    found = fake.wait_for(lambda: leaders() or None, WAIT, message="a polling leader")
    assert len(found) == 1, f"exactly one process polls: {found}"
    leader = found[0]
    db = db_reader(postgres_url)
    players = Players(fake, TABLES, seed=17, first_user=17_000)
    players.sit_down()
    # each process tells on /metrics whether it leads, and is healthy on /healthz
    gauges = [_get(port, "/metrics")[1] for port in metrics_ports]
    leading = 'stammtisch_leader{role="telegram-poll"} 1.0'
    assert [leading in g for g in gauges] == [i == leader for i in range(3)]
    health = [_get(port, "/healthz") for port in metrics_ports]
    assert [status for status, _ in health] == [200, 200, 200]
    assert [json.loads(body)["checks"]["poll"]["polling"] for _, body in health] == \
        [i == leader for i in range(3)]
    killed_at: list[tuple[float, int]] = []
    pids: list[int] = []

    def kill() -> None:
        killed_at.append((time.time(), fake.last_seq()))
        pids.append(bots[leader].proc.pid)  # type: ignore[union-attr]
        bots[leader].kill()

    players.play(20.0, {6.0: kill})
    _settle(fake, db, players)
    kill_time, kill_seq = killed_at[0]
    others = [b for i, b in enumerate(bots) if i != leader]
    elected = [_logged_at(b.log(), "leads telegram-poll") for b in others]
    assert sum(t is not None for t in elected) == 1, "exactly one process took over"
    takeover = min(t for t in elected if t is not None) - kill_time
    assert takeover < 10.0, f"another process led {takeover:.1f}s after the leader died"
    assert [c for c in fake.calls("getUpdates", since=kill_seq)
            if c["time"] > kill_time + takeover], "the new leader polls"
    answers = players.answers()
    assert all(n >= 1 for n in answers.values()), "an update was lost"
    twice = [uid for uid, n in answers.items() if n > 1]
    # only updates the dead leader had fetched (not yet confirmed) may come twice
    fetched_before = [u["update_id"] for c in fake.calls("getUpdates") if c["seq"] <= kill_seq
                      for u in (c["response"] or {}).get("result", [])]
    assert all(uid <= max(fetched_before, default=0) for uid in twice)
    _check_outbox(fake, db, pids)
    _check_tables(db)
    print(f"\ntakeover after {takeover:.1f}s; {len(players.presses)} presses, "
          f"{len(twice)} answered twice")
