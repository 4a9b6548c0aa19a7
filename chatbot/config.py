"""Configuration from the environment or a ``.env`` file in the working directory."""

from __future__ import annotations

import os
from dataclasses import dataclass

from dotenv import load_dotenv


@dataclass(frozen=True)
class Config:
    database_url: str | None
    default_language: str
    telegram_token: str | None
    telegram_base_url: str | None
    telegram_webhook_url: str | None
    telegram_webhook_listen: str
    telegram_webhook_port: int
    telegram_webhook_secret: str | None
    group_timeout: int
    cpu_delay: float
    next_round_delay: float
    log_level: str


def load(env_file: str | None = ".env") -> Config:
    """Read the configuration (``.env`` first, the real environment wins)."""
    if env_file and os.path.exists(env_file):
        load_dotenv(env_file, override=False)
    env = os.environ.get
    return Config(
        database_url=env("DATABASE_URL") or None,
        default_language=(env("DEFAULT_LANGUAGE") or "de").lower()[:2],
        telegram_token=env("TELEGRAM_TOKEN") or None,
        telegram_base_url=env("TELEGRAM_BASE_URL") or None,
        telegram_webhook_url=env("TELEGRAM_WEBHOOK_URL") or None,
        telegram_webhook_listen=env("TELEGRAM_WEBHOOK_LISTEN") or "127.0.0.1",
        telegram_webhook_port=int(env("TELEGRAM_WEBHOOK_PORT") or 8443),
        telegram_webhook_secret=env("TELEGRAM_WEBHOOK_SECRET") or None,
        group_timeout=int(env("TURN_TIMEOUT") or 60),
        cpu_delay=float(env("CPU_DELAY") or 1.0),
        next_round_delay=float(env("NEXT_ROUND_DELAY") or 6.0),
        log_level=(env("LOG_LEVEL") or "INFO").upper(),
    )
