"""Persistence: SQLModel tables, the session factory and Alembic migrations."""

from .db import database_url, make_engine, migrate, transaction, utcnow

__all__ = ["database_url", "make_engine", "migrate", "transaction", "utcnow"]
