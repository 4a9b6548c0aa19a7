"""who may organise for a group (plan an evening, open a tournament): all or admins

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('group_setting') as batch:
        batch.add_column(sa.Column('organisers', sa.String(length=8), nullable=False,
                                   server_default='all'))


def downgrade() -> None:
    with op.batch_alter_table('group_setting') as batch:
        batch.drop_column('organisers')
