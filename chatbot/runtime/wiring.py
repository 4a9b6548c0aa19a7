"""Builds the service from the configuration: the one place the CLI and the adapters share.

The CLI sits on top of everything and nothing imports it; the adapters' ``run`` functions
get their service from here.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from storage.db import checkpoint_in_background, make_engine, migrate

from ..service import Service, Settings
from ..webapp.links import page_url, start_page_url
from .config import Config
from .simclock import process_clock


def build_service(cfg: Config, background_checkpoints: bool = False,
                  **overrides: Any) -> Service:
    """The service on ``DATABASE_URL``, migrated. ``background_checkpoints``: SQLite's WAL
    checkpoints in a thread of their own (for inputs run on an event loop)."""
    engine = make_engine(cfg.database_url)
    if background_checkpoints:  # before the first connection: all of them leave it to the thread
        checkpoint_in_background(engine)
    migrate(engine)
    settings = Settings(cpu_delay=cfg.cpu_delay, group_timeout=cfg.group_timeout,
                        next_round_delay=cfg.next_round_delay,
                        rematch_timeout=cfg.rematch_timeout,
                        default_language=cfg.default_language,
                        experte_budget=cfg.experte_budget, cpu_workers=cfg.cpu_workers,
                        input_rate=cfg.input_rate, daily_secret=cfg.daily_secret,
                        retention=cfg.retention, webapp_url=cfg.webapp_url,
                        webapp_page=partial(page_url, cfg.webapp_url) if cfg.webapp_url
                        else None,
                        webapp_start_page=partial(start_page_url, cfg.webapp_url)
                        if cfg.webapp_url else None)
    if cfg.thinking == "queue" and cfg.thinking_url:
        from .thinking import QueueThinking  # (Celery is imported only for the queue)

        settings.thinking = QueueThinking(cfg.thinking_url, cfg.thinking_queue,
                                          cfg.thinking_margin)
    for key, value in overrides.items():
        setattr(settings, key, value)
    return Service(engine, settings, clock=process_clock(cfg.clock_file))
