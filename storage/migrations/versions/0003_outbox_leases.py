"""outbox leases and the shared send window (several processes on one database); the
person of a private chat found by index

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('claimed_by', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('message_id', sa.String(length=128), nullable=True))
        batch_op.add_column(sa.Column('fresh', sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
    op.create_table('outbox_lease',
    sa.Column('platform', sa.String(length=16), nullable=False),
    sa.Column('chat_external_id', sa.String(length=128), nullable=False),
    sa.Column('holder', sa.String(length=64), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('sends', sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint('platform', 'chat_external_id')
    )
    op.create_index('ix_player_private_chat', 'player', ['platform', 'private_chat_id'],
                    unique=False)  # the person of a private chat (its language)
    op.create_table('send_window',
    sa.Column('platform', sa.String(length=16), nullable=False),
    sa.Column('sends', sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint('platform')
    )


def downgrade() -> None:
    op.drop_table('send_window')
    op.drop_index('ix_player_private_chat', table_name='player')
    op.drop_table('outbox_lease')
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('fresh')
        batch_op.drop_column('message_id')
        batch_op.drop_column('claimed_by')
