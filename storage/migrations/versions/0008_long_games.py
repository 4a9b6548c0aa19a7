"""games that run for days: a person's reminder settings and quiet hours, a table's turn end
and pause

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('player', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reminders', sa.String(length=8), nullable=False,
                                      server_default='on'))
        batch_op.add_column(sa.Column('quiet_from', sa.Integer(), nullable=False,
                                      server_default=str(23 * 60)))
        batch_op.add_column(sa.Column('quiet_to', sa.Integer(), nullable=False,
                                      server_default=str(8 * 60)))
        batch_op.add_column(sa.Column('time_zone', sa.String(length=64), nullable=True))
    with op.batch_alter_table('game_table', schema=None) as batch_op:
        batch_op.add_column(sa.Column('turn_ends_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('paused_until', sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('game_table', schema=None) as batch_op:
        batch_op.drop_column('paused_until')
        batch_op.drop_column('turn_ends_at')
    with op.batch_alter_table('player', schema=None) as batch_op:
        batch_op.drop_column('time_zone')
        batch_op.drop_column('quiet_to')
        batch_op.drop_column('quiet_from')
        batch_op.drop_column('reminders')
