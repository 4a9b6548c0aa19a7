"""The Telegram adapter (python-telegram-bot): handlers (``app``), building and running the
bot (``runner``), polling and webhook mode, the Bot API client, the outbox sender and
Telegram's rate limits."""
