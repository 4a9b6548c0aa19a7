"""a person's cards (/karten, the Mini App): the deck's colours (classic, the German
tournament's four colours, the poker four-colour deck) and large cards

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('player') as batch:
        batch.add_column(sa.Column('deck', sa.String(length=12), nullable=False,
                                   server_default='classic'))
        batch.add_column(sa.Column('large_cards', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table('player') as batch:
        batch.drop_column('large_cards')
        batch.drop_column('deck')
