"""Local play in a terminal: the same service, a console "chat" and numbered choices.

``stammtisch play schwimmen --players 3 --level anfaenger`` plays a private game against CPU
players. Quitting keeps the table in the database; running the command again offers to resume.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from engine import GAMES
from engine.bots import LEVELS

from ..delivery import OutboxStore, deliver
from ..i18n import N_, register, tr
from ..service import ChatRef, Service, UserRef

PLATFORM = "console"
CHAT = ChatRef(PLATFORM, "local", "private", "Terminal")

register({
    "console.resume": N_("There is an unfinished table ({game}, round {round}). Resume? [Y/n] "),
    "console.choose": N_("Your choice (1–{n}, q = quit): "),
    "console.bad": N_("Please enter a number from 1 to {n} (or q to quit)."),
    "console.bye": N_("Bye! The table is saved – `stammtisch play {game}` resumes it."),
    "console.done": N_("Game over. Bye!"),
    "console.enter": N_("Press Enter to go on (q = quit) "),
    "console.player": N_("Player"),
    "console.saved": N_("📄 Saved {name} to {path}"),
})


class ConsoleTransport:
    """Delivers views by printing them; remembers the newest table view's buttons; a file
    (an outbox ``document`` row) is saved in ``save_dir`` (the working directory) and the path
    printed."""

    def __init__(self, out: TextIO, save_dir: Path | None = None, lang: str = "de") -> None:
        self.out = out
        self.save_dir = save_dir or Path.cwd()
        self.lang = lang
        self.counter = 0
        self.rows: list[list[list[str]]] = []
        self.last_text = ""

    def _print(self, text: str, rows: list[list[list[str]]]) -> None:
        self.out.write("\n" + text + "\n")
        self.rows = rows
        self.last_text = text
        n = 0
        for row in rows:
            labels = []
            for label, _data in row:
                n += 1
                labels.append(f"[{n}] {label}")
            self.out.write("   ".join(labels) + "\n")
        self.out.flush()

    def send(self, chat: str, text: str, rows: list[list[list[str]]]) -> str:
        self.counter += 1
        if rows or not text.strip():
            self._print(text, rows)
        else:
            self.out.write("\n" + text + "\n")
            self.out.flush()
        return str(self.counter)

    def edit(self, chat: str, message_id: str, text: str, rows: list[list[list[str]]]) -> None:
        self._print(text, rows)

    def delete(self, chat: str, message_id: str) -> None:
        return None

    def document(self, chat: str, name: str, data: bytes) -> str:
        """Save a file (a name of the bot's own, never a path) and say where."""
        path = self.save_dir / Path(name).name
        path.write_bytes(data)
        self.out.write("\n" + tr(self.lang, "console.saved", name=path.name, path=path) + "\n")
        self.out.flush()
        self.counter += 1
        return str(self.counter)

    def choices(self) -> list[str]:
        return [data for row in self.rows for _label, data in row]


class ConsoleGame:
    """One terminal session against CPU players."""

    def __init__(self, service: Service, game_id: str, players: int, level: str,
                 lang: str = "de", read: Callable[[str], str] | None = None,
                 out: TextIO | None = None, options: dict[str, object] | None = None) -> None:
        if game_id not in GAMES:
            raise SystemExit(f"unknown game {game_id!r}; choose from {', '.join(GAMES)}")
        game = GAMES[game_id]
        if not game.MIN_SEATS <= players <= game.MAX_SEATS:
            raise SystemExit(f"{game_id} needs {game.MIN_SEATS} to {game.MAX_SEATS} players")
        if level not in LEVELS:
            raise SystemExit(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")
        self.service, self.game_id, self.players, self.level = service, game_id, players, level
        self.options = dict(options or {})  # engine options of a new table (``hands=8``)
        self.lang = lang
        self.out = out or sys.stdout
        self.read = read or input
        self.transport = ConsoleTransport(self.out, lang=lang)
        self.store = OutboxStore(service.engine, PLATFORM, clock=service.clock)
        name = (os.environ.get("USER") or "").strip().capitalize()
        if not name or name == "Root":
            name = tr(lang, "console.player")
        self.user = UserRef("local", name, language=lang)
        self.table_id: int | None = None

    def t(self, key: str, **kw: object) -> str:
        return tr(self.lang, f"console.{key}", **kw)

    def pump(self) -> None:
        """Run every due CPU move and deliver the outbox, until nothing is left to do."""
        while True:
            due = self.service.due(self.service.clock() + _FAR)
            mine = [d for d in due if d[0] == self.table_id]
            if not mine:
                self.flush()
                return
            for table_id, version in mine:
                self.service.fire_due(table_id, version)

    def flush(self) -> None:
        """Print everything pending (in batches, until nothing is left)."""
        while items := self.store.pending(now=self.service.clock() + _FAR):
            for item in items:
                deliver(self.store, item, self.transport)

    def setup(self) -> None:
        """Resume an unfinished table or open a new one."""
        self.flush()  # anything left over from an earlier session
        self.store.forget_slots(CHAT.external_id)  # a new terminal shows no old messages
        open_tables = self.service.unfinished_tables(PLATFORM, CHAT.external_id, self.game_id)
        if open_tables:
            t = open_tables[0]
            game = GAMES[t.game]
            rnd = getattr(game.from_json(t.state_json), "round_no", "?") if t.state_json else "?"
            answer = self.read(self.t("resume", game=t.game, round=rnd)).strip().lower()
            if answer in ("", "j", "ja", "y", "yes"):
                self.table_id = t.id
                self.service.resend(t.id)
                return
            self.service.command(CHAT, self.user, "stop")  # declined: it ends (already asked)
        words = "".join(f" {k}={v}" for k, v in self.options.items())
        out = self.service.command(CHAT, self.user, "new",
                                   f"{self.game_id} {self.players - 1} {self.level}{words}")
        if not out.ok:
            raise SystemExit(out.text or "could not open a table")
        self.table_id = out.table_id

    def run(self) -> int:
        self.service.command(CHAT, self.user, "language", self.lang)
        self.flush()
        self.transport.rows = []
        self.setup()
        while True:
            self.pump()
            table = self.service.table(self.table_id)  # type: ignore[arg-type]
            choices = self.transport.choices()
            finished = table is None or table.fsm_state in ("finished", "abandoned")
            if not choices:
                if finished:
                    self.out.write("\n" + self.t("done") + "\n")
                    return 0
                answer = self.read(self.t("enter")).strip().lower()
                if answer == "q":
                    self.out.write(self.t("bye", game=self.game_id) + "\n")
                    return 0
                continue
            answer = self.read(self.t("choose", n=len(choices))).strip().lower()
            if answer in ("q", "quit", "exit", "beenden"):
                # a finished table offers only "play again": quitting there ends the game
                bye = self.t("done") if finished else self.t("bye", game=self.game_id)
                self.out.write(bye + "\n")
                return 0
            if not answer.isdigit() or not 1 <= int(answer) <= len(choices):
                self.out.write(self.t("bad", n=len(choices)) + "\n")
                continue
            data = choices[int(answer) - 1]
            outcome = self.service.press(CHAT, self.user, data)
            if outcome.table_id and outcome.table_id != self.table_id:
                self.table_id = outcome.table_id  # "play again" opened a new table
            if outcome.text:
                self.out.write(outcome.text + "\n")
            if finished and outcome.table_id is None:
                return 0


def welcome_text(lang: str) -> str:
    return tr(lang, "quit_hint")


from datetime import timedelta  # noqa: E402

_FAR = timedelta(days=3650)  # the console does not wait for CPU "thinking" time
