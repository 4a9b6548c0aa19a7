"""a pause of a long game: the request (who asked, who agreed) and the clock as it stood

Revision ID: 0010
Revises: 0008
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('game_table', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pause', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('game_table', schema=None) as batch_op:
        batch_op.drop_column('pause')
