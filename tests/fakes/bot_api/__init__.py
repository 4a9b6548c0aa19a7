"""The fake Telegram Bot API server in parts; ``tests.fakes.telegram_api`` puts them together
(and is what tests, benchmarks and ``python -m tests.fakes.telegram_api`` use).
"""
