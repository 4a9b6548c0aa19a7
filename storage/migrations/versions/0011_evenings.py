"""Stammtisch evenings: scheduled evenings, who comes, a group's time zone (issue 40)

Revision ID: 0011
Revises: 0008
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'evening',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('chat_id', sa.Integer(), sa.ForeignKey('chat.id'), nullable=False),
        sa.Column('starts_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('hhmm', sa.Integer(), nullable=False),
        sa.Column('zone', sa.String(length=64), nullable=False),
        sa.Column('repeat', sa.String(length=8), nullable=False),
        sa.Column('game', sa.String(length=32), nullable=True),
        sa.Column('state', sa.String(length=16), nullable=False),
        sa.Column('due_kind', sa.String(length=16), nullable=True),
        sa.Column('due_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('opener_id', sa.Integer(), sa.ForeignKey('player.id'), nullable=True),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index('ix_evening_due', 'evening', ['due_at'])
    op.create_index('ix_evening_chat', 'evening', ['chat_id', 'state'])
    op.create_table(
        'evening_answer',
        sa.Column('evening_id', sa.Integer(), sa.ForeignKey('evening.id'), primary_key=True),
        sa.Column('player_id', sa.Integer(), sa.ForeignKey('player.id'), primary_key=True),
        sa.Column('answer', sa.String(length=8), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        'group_setting',
        sa.Column('chat_id', sa.Integer(), sa.ForeignKey('chat.id'), primary_key=True),
        sa.Column('zone', sa.String(length=64), nullable=True),
        sa.Column('crowned', sa.String(length=8), nullable=True),
    )


def downgrade() -> None:
    op.drop_table('group_setting')
    op.drop_table('evening_answer')
    op.drop_index('ix_evening_chat', table_name='evening')
    op.drop_index('ix_evening_due', table_name='evening')
    op.drop_table('evening')
