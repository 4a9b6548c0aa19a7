"""Secrets never reach a log: one filter on every handler of the root logger replaces the bot
token, the webhook secret and Matrix credentials in every record, its arguments and its
exception text, whatever library logged it (python-telegram-bot logs request URLs with the
token at DEBUG; a misconfigured base URL raises an error whose text holds it)."""

from __future__ import annotations

import logging
import threading
import traceback

MASK = "***"
_MIN_LENGTH = 6  # shorter values would mask ordinary words


class RedactSecrets(logging.Filter):
    """Replaces every known secret in a record's message and exception text."""

    def __init__(self) -> None:
        super().__init__()
        self._secrets: tuple[str, ...] = ()
        self._lock = threading.Lock()

    def add(self, *secrets: str | None) -> None:
        """Register secrets (a bot token also counts with its part after the colon alone)."""
        found = set(self._secrets)
        for secret in secrets:
            if not secret:
                continue
            found.add(secret)
            if ":" in secret and len(secret.split(":", 1)[1]) >= _MIN_LENGTH:
                found.add(secret.split(":", 1)[1])
        with self._lock:  # longest first: a token is masked whole, not half
            self._secrets = tuple(sorted((s for s in found if len(s) >= _MIN_LENGTH),
                                         key=len, reverse=True))

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._secrets:
            return True
        message = record.getMessage()
        clean = self.redact(message)
        if clean != message or record.args:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


FILTER = RedactSecrets()


def install(*secrets: str | None) -> RedactSecrets:
    """Register secrets and put the filter on every handler of the root logger (call after
    logging is configured; ``add_secret`` later for secrets learnt at run time)."""
    FILTER.add(*secrets)
    for handler in logging.getLogger().handlers:
        if FILTER not in handler.filters:
            handler.addFilter(FILTER)
    return FILTER


def add_secret(secret: str | None) -> None:
    """A secret learnt at run time (e.g. the access token of a Matrix login)."""
    FILTER.add(secret)
