"""the league across groups: a game's weeks (league_week), who plays in which division
(league_member) and the holiday protection (league_holiday)

Revision ID: 0016
Revises: 0014
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = '0016'
down_revision = '0014'  # (no 0015: the topic names went into a table's options instead)
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'league_week',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game', sa.String(length=32), nullable=False),
        sa.Column('week', sa.String(length=10), nullable=False),
        sa.Column('divisions', sa.Integer(), nullable=False),
        sa.Column('opened_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('game', 'week'),
    )
    op.create_table(
        'league_member',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game', sa.String(length=32), nullable=False),
        sa.Column('week', sa.String(length=10), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('division', sa.Integer(), nullable=False),
        sa.Column('seed', sa.Integer(), nullable=True),
        sa.Column('idle', sa.Integer(), nullable=False),
        sa.Column('joined_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('points', sa.Integer(), nullable=True),
        sa.Column('days', sa.JSON(), nullable=True),
        sa.Column('rank', sa.Integer(), nullable=True),
        sa.Column('moved', sa.String(length=8), nullable=True),
        sa.ForeignKeyConstraint(['player_id'], ['player.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('game', 'week', 'player_id'),
    )
    op.create_index('ix_league_member_division', 'league_member', ['game', 'week', 'division'])
    op.create_index('ix_league_member_player', 'league_member', ['player_id'])
    op.create_table(
        'league_holiday',
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('week', sa.String(length=10), nullable=False),
        sa.Column('taken_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['player.id']),
        sa.PrimaryKeyConstraint('player_id', 'week'),
    )


def downgrade() -> None:
    op.drop_table('league_holiday')
    op.drop_index('ix_league_member_player', table_name='league_member')
    op.drop_index('ix_league_member_division', table_name='league_member')
    op.drop_table('league_member')
    op.drop_table('league_week')
