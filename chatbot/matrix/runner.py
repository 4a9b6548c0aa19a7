"""``stammtisch matrix``: the Matrix bot built from the configuration, run as the account's
leader (``standby``) until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from urllib.parse import urlparse

from ..runtime.config import Config
from ..runtime.wiring import build_service
from .app import MatrixBot
from .standby import run_as_leader


def run(cfg: Config) -> int:
    """``stammtisch matrix``: sync until SIGTERM/SIGINT."""
    if cfg.matrix_homeserver and not urlparse(cfg.matrix_homeserver).scheme:
        raise SystemExit("MATRIX_HOMESERVER must be a URL, e.g. https://matrix.example.org")
    service = build_service(cfg)

    async def main() -> None:
        bot = MatrixBot(cfg, service)
        stopping = asyncio.Event()

        def stop() -> None:
            stopping.set()
            bot.stop()

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop)
        await run_as_leader(bot, cfg, stopping)

    asyncio.run(main())
    return 0
