"""tournaments in a group: the tournament, its entrants, each round's tables and every
person's score at a table

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'tournament',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('chat_id', sa.Integer(), nullable=False),
        sa.Column('thread_id', sa.String(length=64), nullable=True),
        sa.Column('game', sa.String(length=32), nullable=False),
        sa.Column('rounds', sa.Integer(), nullable=False),
        sa.Column('games_per_round', sa.Integer(), nullable=False),
        sa.Column('round_seconds', sa.Integer(), nullable=True),
        sa.Column('turn_timeout', sa.Integer(), nullable=False),
        sa.Column('late_entry', sa.Boolean(), nullable=False),
        sa.Column('state', sa.String(length=12), nullable=False),
        sa.Column('round_no', sa.Integer(), nullable=False),
        sa.Column('place', sa.String(length=12), nullable=True),
        sa.Column('opener_id', sa.Integer(), nullable=True),
        sa.Column('starts_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('round_ends_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('due_kind', sa.String(length=12), nullable=True),
        sa.Column('due_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('options', sa.JSON(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['chat_id'], ['chat.id']),
        sa.ForeignKeyConstraint(['opener_id'], ['player.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_tournament_chat', 'tournament', ['chat_id', 'state'])
    op.create_index('ix_tournament_due', 'tournament', ['due_at'])
    op.create_table(
        'tournament_entrant',
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('state', sa.String(length=8), nullable=False),
        sa.Column('joined_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['player.id']),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id']),
        sa.PrimaryKeyConstraint('tournament_id', 'player_id'),
    )
    op.create_table(
        'tournament_table',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('round_no', sa.Integer(), nullable=False),
        sa.Column('table_no', sa.Integer(), nullable=False),
        sa.Column('seats', sa.JSON(), nullable=False),
        sa.Column('thread_id', sa.String(length=64), nullable=True),
        sa.Column('table_id', sa.Integer(), nullable=True),
        sa.Column('game_no', sa.Integer(), nullable=False),
        sa.Column('state', sa.String(length=8), nullable=False),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('tournament_id', 'round_no', 'table_no'),
    )
    op.create_index('ix_tournament_table_game', 'tournament_table', ['table_id'])
    op.create_table(
        'tournament_score',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('round_no', sa.Integer(), nullable=False),
        sa.Column('table_no', sa.Integer(), nullable=False),
        sa.Column('game_no', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('points_num', sa.Integer(), nullable=False),
        sa.Column('points_den', sa.Integer(), nullable=False),
        sa.Column('game_points', sa.Float(), nullable=False),
        sa.Column('opponents', sa.JSON(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['player.id']),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('tournament_id', 'round_no', 'table_no', 'game_no', 'player_id'),
    )


def downgrade() -> None:
    op.drop_table('tournament_score')
    op.drop_index('ix_tournament_table_game', table_name='tournament_table')
    op.drop_table('tournament_table')
    op.drop_table('tournament_entrant')
    op.drop_index('ix_tournament_due', table_name='tournament')
    op.drop_index('ix_tournament_chat', table_name='tournament')
    op.drop_table('tournament')
