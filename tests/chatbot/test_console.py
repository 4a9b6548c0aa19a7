"""Local play in a terminal: ``ConsoleGame`` with a scripted player, and the real CLI."""

from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.console.app import ConsoleGame
from storage.db import make_engine
from storage.models import GameTable, Result
from tests.conftest import FakeClock, engine_url, make_service

_CHOICE = re.compile(r"\[(\d+)\] (.+?)(?=\s{3}\[\d+\] |$)", re.M)
_RANGE = re.compile(r"\(1–(\d+)")
AGAIN = {"de": "Nochmal spielen", "en": "Play again"}
BAD = {"de": "Bitte eine Zahl von 1 bis", "en": "Please enter a number from 1 to"}
DONE = {"de": "Spiel vorbei", "en": "Game over"}
RESUME = {"de": "Fortsetzen?", "en": "Resume?"}


class ScriptedPlayer:
    """The ``read`` function of a console game: answers from a list, then plays by itself.

    It reads what the game printed (its ``out``), finds the numbered choices of the newest
    view and picks the last one most of the time (knocking ends rounds quickly; "resign" is
    never picked), another one now and then; at the end of the game (only "play again"
    offered) it quits with ``q``.
    """

    def __init__(self, out: io.StringIO, answers: list[str] | None = None, lang: str = "de",
                 seed: int = 0, limit: int = 3_000) -> None:
        self.out, self.answers, self.lang = out, list(answers or []), lang
        self.rng = random.Random(seed)
        self.limit = limit
        self.prompts: list[str] = []
        self.labels: list[str] = []
        self.seen = 0

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        assert len(self.prompts) <= self.limit, "the console game does not end"
        printed = self.out.getvalue()
        new, self.seen = printed[self.seen:], len(printed)
        blocks = [line for line in new.splitlines() if line.startswith("[1] ")]
        if blocks:  # the newest view with buttons: its labels, in order
            start = new.rindex(blocks[-1])
            labels: list[str] = []
            for line in new[start:].splitlines():
                found = _CHOICE.findall(line)
                if not found:
                    break
                labels += [label.strip() for _n, label in found]
            self.labels = labels
        self.out.write(prompt)  # like input(): the prompt shows in the transcript
        if self.answers:
            return self.answers.pop(0)
        match = _RANGE.search(prompt)
        if match is None:  # "press Enter" or a yes/no question
            return ""
        n = int(match.group(1))
        assert n == len(self.labels), (n, self.labels)
        if AGAIN[self.lang] in self.labels:
            return "q"
        # (never "🏳 resign", the last choice while a game runs: the game is to end by play)
        playable = [i + 1 for i, label in enumerate(self.labels) if not label.startswith("🏳")]
        if self.rng.random() < 0.75:
            return str(playable[-1])
        return str(self.rng.choice(playable))


def console(engine: Engine, read: ScriptedPlayer, out: io.StringIO, lang: str = "de",
            players: int = 3) -> ConsoleGame:
    service = make_service(engine, FakeClock(), cpu_delay=0.0, next_round_delay=0.0,
                           default_language=lang)
    return ConsoleGame(service, "schwimmen", players, "anfaenger", lang=lang, read=read, out=out)


def result_of(engine: Engine, table_id: int) -> Result | None:
    with Session(engine) as session:
        return session.exec(select(Result).where(Result.table_id == table_id)).first()


@pytest.mark.parametrize("lang", ["de", "en"])
def test_a_whole_game_against_three_beginners_ends(sqlite_engine: Engine, lang: str) -> None:
    out = io.StringIO()
    player = ScriptedPlayer(out, lang=lang, seed=1)
    game = console(sqlite_engine, player, out, lang=lang)
    assert game.run() == 0
    text = out.getvalue()
    assert DONE[lang] in text
    assert game.table_id is not None
    result = result_of(sqlite_engine, game.table_id)
    assert result is not None and len(result.winners) == 1
    with Session(sqlite_engine) as session:
        table = session.get(GameTable, game.table_id)
        assert table is not None and table.fsm_state == "finished"
    assert "🃏 Schwimmen" in text
    assert ("Deine Karten" if lang == "de" else "Your cards") in text
    assert ("Gewinner" if lang == "de" else "Winners") in text
    assert "Traceback" not in text


def test_invalid_input_gets_a_hint_and_the_question_again(sqlite_engine: Engine) -> None:
    out = io.StringIO()
    player = ScriptedPlayer(out, answers=["abc", "99", "", "0", "-1", "1 2", "q"])
    game = console(sqlite_engine, player, out)
    assert game.run() == 0
    text = out.getvalue()
    assert text.count(BAD["de"]) == 6
    choose = [p for p in player.prompts if p.startswith("Deine Wahl")]
    assert len(choose) == 7 and len(set(choose)) == 1  # the same question each time
    assert "Tschüss" in text and "gespeichert" in text  # quit mid-game keeps the table
    with Session(sqlite_engine) as session:
        table = session.get(GameTable, game.table_id)
        assert table is not None and table.fsm_state in ("turn", "final_round", "payout")


def test_quit_and_resume_the_same_table(sqlite_engine: Engine) -> None:
    out = io.StringIO()
    first = console(sqlite_engine, ScriptedPlayer(out, answers=["1", "1", "q"]), out)
    assert first.run() == 0
    table_id = first.table_id
    assert table_id is not None
    assert result_of(sqlite_engine, table_id) is None

    # a new terminal session (new engine, new service) on the same database file
    engine2 = make_engine(engine_url(sqlite_engine))
    try:
        out2 = io.StringIO()
        player2 = ScriptedPlayer(out2, answers=["j"], seed=2)
        second = console(engine2, player2, out2)
        assert second.run() == 0
        assert RESUME["de"] in player2.prompts[0]
        assert second.table_id == table_id
        text = out2.getvalue()
        assert "Deine Karten" in text  # the table is shown again at once
        assert DONE["de"] in text
        assert result_of(engine2, table_id) is not None
    finally:
        engine2.dispose()


def test_declining_to_resume_starts_a_new_table(sqlite_engine: Engine) -> None:
    out = io.StringIO()
    first = console(sqlite_engine, ScriptedPlayer(out, answers=["q"]), out)
    assert first.run() == 0
    out2 = io.StringIO()
    player2 = ScriptedPlayer(out2, answers=["n", "q"])
    second = console(sqlite_engine, player2, out2)
    assert second.run() == 0
    assert RESUME["de"] in player2.prompts[0]
    assert second.table_id is not None and second.table_id != first.table_id
    with Session(sqlite_engine) as session:
        old = session.get(GameTable, first.table_id)
        new = session.get(GameTable, second.table_id)
        assert old is not None and old.fsm_state == "abandoned"
        assert new is not None and new.fsm_state in ("turn", "final_round", "payout")


def test_a_finished_game_is_not_offered_for_resuming(sqlite_engine: Engine) -> None:
    out = io.StringIO()
    first = console(sqlite_engine, ScriptedPlayer(out, seed=3), out, players=2)
    assert first.run() == 0
    out2 = io.StringIO()
    player2 = ScriptedPlayer(out2, answers=["q"])
    second = console(sqlite_engine, player2, out2, players=2)
    assert second.run() == 0
    assert not any(RESUME["de"] in p for p in player2.prompts)
    assert second.table_id != first.table_id


def _stammtisch() -> list[str]:
    script = Path(sys.executable).parent / "stammtisch"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "chatbot.cli"]


def test_the_real_cli_plays_in_a_terminal(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DEFAULT_LANGUAGE")}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'x.db'}"
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    proc = subprocess.run(
        [*_stammtisch(), "play", "schwimmen", "--players", "2", "--level", "anfaenger"],
        input="1\nabc\n1\nq\n", capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    assert "🃏 Schwimmen · Runde 1" in out
    assert "Mitte:" in out and "Deine Karten" in out
    assert re.search(r"\[1\] ", out)
    assert "Bitte eine Zahl" in out
    assert "Tschüss" in out
    assert (tmp_path / "x.db").exists()
