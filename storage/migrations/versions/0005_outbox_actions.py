"""outbox rows that act on a slot's message (delete, pin, unpin) instead of showing a view;
whether a slot's message is pinned

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('action', sa.String(length=16), nullable=True))
    with op.batch_alter_table('message_slot', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pinned', sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('message_slot', schema=None) as batch_op:
        batch_op.drop_column('pinned')
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('action')
