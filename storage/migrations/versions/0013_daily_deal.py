"""the daily deal: a person's tries (daily_entry) and a group's morning post (daily_post)

Revision ID: 0013
Revises: 0009
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = '0013'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'daily_entry',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('game', sa.String(length=32), nullable=False),
        sa.Column('day', sa.String(length=10), nullable=False),
        sa.Column('table_id', sa.Integer(), nullable=False),
        sa.Column('counted', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['player.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('table_id'),
    )
    op.create_index('ix_daily_entry_day', 'daily_entry', ['day', 'game', 'player_id'])
    op.create_table(
        'daily_post',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('chat_id', sa.Integer(), nullable=False),
        sa.Column('day', sa.String(length=10), nullable=False),
        sa.Column('due_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('posted_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['chat_id'], ['chat.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('chat_id', 'day'),
    )
    op.create_index('ix_daily_post_due', 'daily_post', ['due_at'])


def downgrade() -> None:
    op.drop_index('ix_daily_post_due', table_name='daily_post')
    op.drop_table('daily_post')
    op.drop_index('ix_daily_entry_day', table_name='daily_entry')
    op.drop_table('daily_entry')
