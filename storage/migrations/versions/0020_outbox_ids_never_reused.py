"""outbox ids are never used twice on SQLite (``AUTOINCREMENT``): a row's id is the Matrix
transaction id of its events, so an id used again after the newest rows were deleted (a
person forgotten, retention) made Synapse take a new message for the old one and drop it

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-07
"""

from alembic import op

revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":  # (PostgreSQL's sequences never go back)
        return
    with op.batch_alter_table('outbox', recreate='always',
                              table_kwargs={'sqlite_autoincrement': True}):
        pass


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    with op.batch_alter_table('outbox', recreate='always',
                              table_kwargs={'sqlite_autoincrement': False}):
        pass
