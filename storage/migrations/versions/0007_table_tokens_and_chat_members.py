"""Mini App access: an unguessable token per table for links (filled for existing tables),
and the people the bot has seen in each group chat

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""

import secrets

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('game_table', schema=None) as batch_op:
        batch_op.add_column(sa.Column('token', sa.String(length=32), nullable=True))
    conn = op.get_bind()
    table = sa.table('game_table', sa.column('id', sa.Integer), sa.column('token', sa.String))
    ids = [row[0] for row in conn.execute(sa.select(table.c.id).where(table.c.token.is_(None)))]
    update = table.update().where(table.c.id == sa.bindparam('row_id')) \
        .values(token=sa.bindparam('new_token'))
    for start in range(0, len(ids), 1000):
        conn.execute(update, [{'row_id': i, 'new_token': secrets.token_urlsafe(16)}
                              for i in ids[start:start + 1000]])
    op.create_index('ix_game_table_token', 'game_table', ['token'], unique=True)
    op.create_table('chat_member',
    sa.Column('chat_id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('seen_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['chat_id'], ['chat.id'], ),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], ),
    sa.PrimaryKeyConstraint('chat_id', 'player_id')
    )


def downgrade() -> None:
    op.drop_table('chat_member')
    op.drop_index('ix_game_table_token', table_name='game_table')
    with op.batch_alter_table('game_table', schema=None) as batch_op:
        batch_op.drop_column('token')
