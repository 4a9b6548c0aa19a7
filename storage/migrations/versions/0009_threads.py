"""forum topics and threads: a table's topic (Telegram) or thread (Matrix), and the topic an
outbox row goes to

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('game_table', schema=None) as batch_op:
        batch_op.add_column(sa.Column('thread_id', sa.String(length=128), nullable=True))
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('thread', sa.String(length=128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('thread')
    with op.batch_alter_table('game_table', schema=None) as batch_op:
        batch_op.drop_column('thread_id')
