"""outbox rows that answer a message: as a reply to it (and in its thread)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reply_to', sa.String(length=600), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('reply_to')
