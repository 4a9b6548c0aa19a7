"""Configuration from the environment or a ``.env`` file in the working directory."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import timedelta

from dotenv import load_dotenv

from storage.retention import Retention


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
    rematch_timeout: float = 60.0  # groups: seconds to confirm "play again" (REMATCH_TIMEOUT)
    experte_budget: float | None = None  # Experte seconds per decision (EXPERTE_BUDGET)
    cpu_workers: int | None = None  # processes the Experte thinks in (CPU_WORKERS; 0: threads)
    thinking: str = "local"  # where slow decisions think (THINKING: local | queue)
    thinking_url: str | None = None  # the task queue's broker (THINKING_URL: amqp://…)
    thinking_queue: str = "stammtisch.thinking"  # its queue's name (THINKING_QUEUE)
    thinking_margin: float = 2.0  # seconds waited beyond a decision's budget (THINKING_MARGIN)
    input_rate: str | None = "30/10seconds"  # per person (INPUT_RATE; "off": no flood control)
    daily_secret: str | None = None  # keys the daily deal (DAILY_SECRET; else kept in the db)
    retention: Retention = field(default_factory=Retention)  # RETAIN_* (storage.retention)
    webapp_url: str | None = None  # the Mini App's public HTTPS page (WEBAPP_URL)
    webapp_short_name: str | None = None  # its short name at BotFather (WEBAPP_SHORT_NAME)
    # Matrix (``stammtisch matrix``)
    matrix_homeserver: str | None = None
    matrix_user: str | None = None  # @bot:example.org (or the localpart with a password)
    matrix_password: str | None = None
    matrix_access_token: str | None = None
    matrix_device_id: str | None = None
    matrix_device_name: str = "Stammtisch"
    matrix_display_name: str = "Stammtisch"  # the bot's display name, set on start
    matrix_store_path: str = "matrix-store"  # nio's crypto store and the login of the device
    matrix_store_key: str | None = None  # the key the crypto store is encrypted with
    matrix_encryption: bool = True  # end-to-end encryption (matrix-nio[e2e])
    matrix_encrypt_new_dms: bool = True  # direct rooms the bot opens are encrypted
    matrix_reactions: bool = True  # seed reactions as one-tap buttons
    matrix_send_interval: float = 0.0  # seconds between two events the bot sends
    matrix_sync_limit: int = 100  # timeline events per room and sync (gaps are back-filled)
    clock_file: str | None = None  # tests only: the process clock's offset (runtime.simclock)


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
        rematch_timeout=float(env("REMATCH_TIMEOUT") or 60.0),
        experte_budget=_seconds(env("EXPERTE_BUDGET")),
        cpu_workers=_workers(env("CPU_WORKERS")),
        thinking=_thinking(env("THINKING"), env("THINKING_URL")),
        thinking_url=(env("THINKING_URL") or "").strip() or None,
        thinking_queue=(env("THINKING_QUEUE") or "").strip() or "stammtisch.thinking",
        thinking_margin=float(env("THINKING_MARGIN") or 2.0),
        input_rate=_rate(env("INPUT_RATE")),
        daily_secret=(env("DAILY_SECRET") or "").strip() or None,
        retention=Retention(
            updates=timedelta(days=float(env("RETAIN_UPDATES_DAYS") or 3)),
            outbox=timedelta(hours=float(env("RETAIN_OUTBOX_HOURS") or 24)),
            moves=timedelta(days=float(env("RETAIN_MOVES_DAYS") or 30)),
            members=timedelta(days=float(env("RETAIN_MEMBERS_DAYS") or 30))),
        webapp_url=_webapp_url(env("WEBAPP_URL"), env("TELEGRAM_WEBHOOK_URL")),
        webapp_short_name=(env("WEBAPP_SHORT_NAME") or "").strip() or None,
        matrix_homeserver=env("MATRIX_HOMESERVER") or None,
        matrix_user=env("MATRIX_USER") or None,
        matrix_password=env("MATRIX_PASSWORD") or None,
        matrix_access_token=env("MATRIX_ACCESS_TOKEN") or None,
        matrix_device_id=env("MATRIX_DEVICE_ID") or None,
        matrix_device_name=env("MATRIX_DEVICE_NAME") or "Stammtisch",
        matrix_display_name=env("MATRIX_DISPLAY_NAME") or "Stammtisch",
        matrix_store_path=env("MATRIX_STORE_PATH") or "matrix-store",
        matrix_store_key=env("MATRIX_STORE_KEY") or None,
        matrix_encryption=_flag(env("MATRIX_ENCRYPTION"), True),
        matrix_encrypt_new_dms=_flag(env("MATRIX_ENCRYPT_NEW_DMS"), True),
        matrix_reactions=_flag(env("MATRIX_REACTIONS"), True),
        matrix_send_interval=float(env("MATRIX_SEND_INTERVAL") or 0.0),
        matrix_sync_limit=int(env("MATRIX_SYNC_LIMIT") or 100),
        clock_file=env("STAMMTISCH_CLOCK_FILE") or None,
    )


def _workers(value: str | None) -> int | None:
    """``CPU_WORKERS``: a count of processes (0: think on threads); unset: one per core."""
    if value is None or not value.strip():
        return None
    if not (value.strip().isascii() and value.strip().isdigit()):
        raise ValueError(f"CPU_WORKERS={value!r} is not a number of processes")
    return int(value.strip())


def _thinking(value: str | None, url: str | None) -> str:
    """``THINKING``: ``local`` (the process pool, the default) or ``queue`` (jobs for
    ``stammtisch think`` workers at ``THINKING_URL``)."""
    kind = (value or "").strip().lower() or "local"
    if kind not in ("local", "queue"):
        raise ValueError(f"THINKING={value!r}: local or queue")
    if kind == "queue" and not (url or "").strip():
        raise ValueError("THINKING=queue needs THINKING_URL (amqp://user:password@host:5672//)")
    return kind


def _flag(value: str | None, default: bool) -> bool:
    if value is None or not value.strip():
        return default
    return value.strip().lower() in ("1", "true", "yes", "on", "ja")


def _webapp_url(value: str | None, webhook_url: str | None) -> str | None:
    """``WEBAPP_URL``, else in webhook mode the page on the webhook's server
    (``https://host/webapp/``); ``off``: no Mini App buttons."""
    value = (value or "").strip()
    if value.lower() == "off":
        return None
    if not value and webhook_url:
        from urllib.parse import urlsplit

        parts = urlsplit(webhook_url.strip())
        value = f"https://{parts.netloc}/webapp/" \
            if parts.scheme == "https" and parts.netloc else ""
    if value and not value.startswith("https://"):
        raise ValueError(f"WEBAPP_URL={value!r}: Telegram opens Mini Apps over https:// only")
    return value or None


def _seconds(value: str | None) -> float | None:
    if value is None or not value.strip():
        return None
    return max(0.05, float(value))


def _rate(value: str | None) -> str | None:
    """``INPUT_RATE``: a ``limits`` rate ("30/10seconds"), or "off"."""
    if value is None or not value.strip():
        return "30/10seconds"
    value = value.strip().lower()
    if value in ("off", "0", "none", "false"):
        return None
    from limits import parse

    parse(value)  # refuse a malformed rate at start, not at the first input
    return value
