"""Matrix events the bot sends per move of a group game (issue 18, item 20).

A homeserver limits each user's events (Synapse's default: 0.2 a second, a burst of 10), so
what a move costs in events is what a Matrix table's pace is made of. This starts a real
Synapse on loopback (the one of ``tests/matrix``), the bot, and three people with encrypted
direct rooms; they play Schwimmen in a group room for ``--moves`` moves (each person moves from
the private view in their direct room); then every event the bot sent into the group and the
direct rooms since the game started is counted by kind (new messages, edits, reactions,
redactions, state) and divided by the moves made (people's and CPU's moves, not the deals).

    python bench/matrix_events.py [--moves 30] [--seed 3]

``--pythonpath DIR`` runs the bot from another checkout (e.g. a ``git worktree`` of an
older commit), for a before/after comparison with the same harness.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.matrix.harness import (  # noqa: E402
    BotProcess,
    Db,
    Person,
    bot_env,
    pick_move,
    wait_for,
)
from tests.matrix.synapse import Synapse  # noqa: E402


def kind(event: dict[str, Any]) -> str:
    content = event.get("content") or {}
    relation = (content.get("m.relates_to") or {}).get("rel_type")
    if event.get("type") == "m.reaction":
        return "reaction"
    if event.get("type") == "m.room.redaction":
        return "redaction"
    if "state_key" in event:
        return "state"
    if relation == "m.replace":
        return "edit"
    return "message"  # (in an encrypted room edits are encrypted too: counted here)


async def play(synapse: Synapse, tmp: Path, moves: int, seed: int,
               pythonpath: str | None) -> None:
    bot_account = synapse.register("stammtischbench", "bot-password")
    bot_id, bot_token = bot_account["user_id"], bot_account["access_token"]
    db_url = f"sqlite:///{tmp / 'bot.db'}"
    (tmp / "cwd").mkdir()
    extra = {"PYTHONPATH": pythonpath} if pythonpath else {}
    bot = BotProcess(bot_env(synapse.url, bot_id, "bot-password", db_url, tmp / "store",
                             TURN_TIMEOUT=600, **extra), tmp / "cwd", tmp / "bot.log").start()
    people = []
    for i, name in enumerate(("alma", "bruno", "cleo")):
        user_id = synapse.register(name, f"{name}-pw")["user_id"]
        people.append(await Person(synapse.url, user_id, f"{name}-pw", bot_id,
                                   store=tmp / f"store-{i}").start())
    rng = random.Random(seed)
    try:
        alma = people[0]
        group = await alma.create_room([bot_id, *(p.user_id for p in people[1:])],
                                       name="Bench")
        for p in people[1:]:
            await alma.joined(group, p.user_id)
        await alma.joined(group, bot_id)
        await wait_for(lambda: alma.said(group, "Stammtisch"), 60, "the greeting")
        await alma.say(group, "!new schwimmen")
        lobby = await wait_for(lambda: alma.newest(group, lambda m: m.choice("Mitmachen")),
                               60, "the lobby")
        for p in people[1:]:
            await p.say(group, "!mitmachen")
            await wait_for(lambda p=p: p.name in lobby.body, 60, "joined")
        db = Db(db_url)
        table_id = db.tables()[-1]["id"]
        await alma.say(group, "!starten")
        await wait_for(lambda: "Am Zug:" in lobby.body, 60, "the game")
        started_ms = int(time.time() * 1000) - 1000
        made = 0
        marks: list[tuple[int, int]] = []  # (ms when a move was sent, deals so far)
        deadline = time.monotonic() + 600
        while made < moves and time.monotonic() < deadline:
            row = db.table(table_id)
            if row["fsm_state"] in ("finished", "abandoned"):
                break
            for p in people:
                dm = p.direct_room()
                view = p.newest(dm, lambda m: "Bench" in m.first_line) if dm else None
                if view is not None and "Du bist am Zug" in view.body:
                    version = db.table(table_id)["version"]
                    before = (view.body, len(view.versions))
                    marks.append((int(time.time() * 1000), sum(
                        1 for m in db.moves(table_id) if m["actor"] == "system")))
                    await p.say(dm, str(pick_move(rng, view, knock_bias=0.05)),
                                reply_to=view.event_id)
                    await wait_for(lambda v=version: db.table(table_id)["version"] > v, 60,
                                   "the move")
                    # (the mover's view shows the move before the next look)
                    await wait_for(lambda b=before, p=p, dm=dm: (
                        m := p.newest(dm, lambda m: "Bench" in m.first_line))
                        and (m.body, len(m.versions)) != b, 60, "the view")
                    made += 1
                    break
            else:
                nxt = lobby.choice("Nächste Runde")
                if nxt is not None:
                    await alma.say(group, str(nxt))
                await asyncio.sleep(0.1)
        await asyncio.sleep(3)  # the last views delivered
        rooms = [group, *(p.direct_room() for p in people)]
        counts: Counter[str] = Counter()
        stamps: list[int] = []
        for room in rooms:
            for event in synapse.messages(room, bot_token):
                if event.get("sender") == bot_id and event.get("origin_server_ts", 0) >= \
                        started_ms:
                    counts[kind(event)] += 1
                    if kind(event) != "state":
                        stamps.append(event["origin_server_ts"])
        # each move's window (until the next move): ordinary, or with a round's end in it
        deals = sum(1 for m in db.moves(table_id) if m["actor"] == "system")
        ends = [*marks[1:], (10**15, deals)]
        ordinary = [sum(1 for t in stamps if start <= t < end)
                    for (start, before), (end, after) in zip(marks, ends, strict=True)
                    if after == before]
        if ordinary:
            print(f"ordinary moves (no round ended): {len(ordinary)}, events per move "
                  f"{sum(ordinary) / len(ordinary):.2f} (min {min(ordinary)}, "
                  f"max {max(ordinary)})")
        played = [m for m in db.moves(table_id) if m["actor"] != "system"]
        rounds = sum(1 for m in db.moves(table_id) if m["actor"] == "system")
        total = sum(counts.values()) - counts["state"]  # (state: the direct rooms set up)
        print(f"moves {len(played)} (people {made}), round ends {rounds}, bot events {total}: "
              + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if k != "state")
              + f" (and {counts['state']} state events setting up rooms, not counted)")
        print(f"events per move: {total / max(1, len(played)):.2f}")
    finally:
        for p in people:
            await p.stop()
        bot.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--pythonpath", default=None)
    args = parser.parse_args()
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as home, \
            tempfile.TemporaryDirectory() as tmp:
        synapse = Synapse(Path(home))
        synapse.start()
        try:
            asyncio.run(play(synapse, Path(tmp), args.moves, args.seed, args.pythonpath))
        finally:
            synapse.stop()


if __name__ == "__main__":
    main()
