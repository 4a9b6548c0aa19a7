"""The ``stammtisch`` command: play in a terminal, run the chat bots, docs helpers."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from engine import GAMES
from engine.bots import LEVELS


def cmd_play(args: argparse.Namespace) -> int:
    from .console.app import ConsoleGame
    from .runtime import config
    from .runtime.wiring import build_service

    cfg = config.load()
    lang = args.lang or cfg.default_language
    game = GAMES[args.game]
    players = args.players or min(max(3, game.MIN_SEATS), game.MAX_SEATS)
    service = build_service(cfg, cpu_delay=0.0, next_round_delay=0.0)
    options = {"hands": args.hands} if args.hands is not None else None
    return ConsoleGame(service, args.game, players, args.level, lang=lang,
                       options=options).run()


def _logging(cfg, *secrets: str | None) -> None:  # type: ignore[no-untyped-def]
    """Log at ``LOG_LEVEL``; no secret ever reaches the log (``chatbot.runtime.redact``)."""
    from .runtime.redact import install

    logging.basicConfig(level=cfg.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    install(*secrets)


def cmd_telegram(args: argparse.Namespace) -> int:
    from .runtime import config
    from .telegram.runner import run

    cfg = config.load()
    _logging(cfg, cfg.telegram_token, cfg.telegram_webhook_secret)
    for noisy in ("httpx", "apscheduler", "alembic", "transitions"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return run(cfg)


def cmd_matrix(args: argparse.Namespace) -> int:
    from .matrix.runner import run
    from .runtime import config

    cfg = config.load()
    _logging(cfg, cfg.matrix_password, cfg.matrix_access_token)
    for noisy in ("nio", "peewee", "alembic", "aiohttp", "transitions"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return run(cfg)


def cmd_think(args: argparse.Namespace) -> int:
    from .runtime import config
    from .runtime.thinking import run_worker

    cfg = config.load()
    url = args.url or cfg.thinking_url
    if not url:
        print("stammtisch think: set THINKING_URL (or --url), the broker the bot sends its "
              "decisions to, e.g. amqp://guest:guest@127.0.0.1:5672//", file=sys.stderr)
        return 2
    _logging(cfg, url)
    run_worker(url, args.queue or cfg.thinking_queue, args.concurrency, cfg.log_level)
    return 0


def cmd_diagram(args: argparse.Namespace) -> int:
    from fsm import diagram_markdown

    path = Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(diagram_markdown(), encoding="utf-8")
    print(f"wrote {path}")
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from storage.db import make_engine, migrate

    from .runtime import config

    migrate(make_engine(config.load().database_url))
    print("database is at the newest schema")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="stammtisch", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play a game in this terminal against CPU players")
    play.add_argument("game", choices=sorted(GAMES), help="game id")
    play.add_argument("--players", type=int, default=None,
                      help="players at the table, you included (default: 3, or what the game "
                           "needs)")
    play.add_argument("--level", choices=LEVELS, default="anfaenger", help="CPU level")
    play.add_argument("--lang", choices=("de", "en"), default=None, help="language")
    play.add_argument("--hands", type=int, choices=(4, 8), default=None,
                      help="hands per match (Run Fast: 4 or 8)")
    play.set_defaults(func=cmd_play)

    tg = sub.add_parser("telegram", help="run the Telegram bot (TELEGRAM_TOKEN)")
    tg.set_defaults(func=cmd_telegram)

    mx = sub.add_parser("matrix", help="run the Matrix bot (MATRIX_HOMESERVER, MATRIX_USER, "
                        "MATRIX_PASSWORD or MATRIX_ACCESS_TOKEN)")
    mx.set_defaults(func=cmd_matrix)

    think = sub.add_parser("think", help="think CPU decisions for bots with THINKING=queue "
                           "(a worker of the task queue at THINKING_URL)")
    think.add_argument("--url", default=None, help="the broker (default: THINKING_URL)")
    think.add_argument("--queue", default=None,
                       help="the queue (default: THINKING_QUEUE or stammtisch.thinking)")
    think.add_argument("--concurrency", type=int, default=None,
                       help="thinking processes (default: one per core)")
    think.set_defaults(func=cmd_think)

    dia = sub.add_parser("diagram", help="write the table machine's Mermaid diagram")
    dia.add_argument("--output", default="docs/table-machine.md")
    dia.set_defaults(func=cmd_diagram)

    mig = sub.add_parser("migrate", help="bring the database schema up to date")
    mig.set_defaults(func=cmd_migrate)

    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except EOFError:
        print()
        return 0


if __name__ == "__main__":
    sys.exit(main())
