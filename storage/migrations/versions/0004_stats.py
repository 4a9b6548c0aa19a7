"""stats and leaderboards: a person's seats in the results, skill ratings per game, how far
they have read the results, who is not listed

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('stat_entry',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('result_id', sa.Integer(), nullable=False),
    sa.Column('seat_no', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('game', sa.String(length=32), nullable=False),
    sa.Column('chat_id', sa.Integer(), nullable=False),
    sa.Column('is_private', sa.Boolean(), nullable=False),
    sa.Column('cpu_level', sa.String(length=16), nullable=True),
    sa.Column('won', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], ),
    sa.ForeignKeyConstraint(['result_id'], ['result.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('result_id', 'seat_no')
    )
    op.create_index('ix_stat_entry_player', 'stat_entry', ['player_id', 'result_id'],
                    unique=False)
    op.create_index('ix_stat_entry_chat', 'stat_entry', ['chat_id', 'game', 'player_id', 'won'],
                    unique=False)
    op.create_table('rating',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game', sa.String(length=32), nullable=False),
    sa.Column('subject', sa.String(length=32), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=True),
    sa.Column('mu', sa.Float(), nullable=False),
    sa.Column('sigma', sa.Float(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game', 'subject')
    )
    op.create_index('ix_rating_player', 'rating', ['player_id'], unique=False)
    cursor = op.create_table('stats_cursor',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('last_result_id', sa.Integer(), nullable=False),
    sa.Column('holes', sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.bulk_insert(cursor, [{'id': 1, 'last_result_id': 0, 'holes': []}])
    op.create_table('stats_hidden',
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('since', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], ),
    sa.PrimaryKeyConstraint('player_id')
    )


def downgrade() -> None:
    op.drop_table('stats_hidden')
    op.drop_table('stats_cursor')
    op.drop_index('ix_rating_player', table_name='rating')
    op.drop_table('rating')
    op.drop_index('ix_stat_entry_chat', table_name='stat_entry')
    op.drop_index('ix_stat_entry_player', table_name='stat_entry')
    op.drop_table('stat_entry')
