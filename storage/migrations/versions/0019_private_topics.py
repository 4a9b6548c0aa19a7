"""a topic of its own in a person's private chat for each of their long tables: whether one
was asked for (the seat's ``private_topic``; the topic's id is kept with the chat's message
slots, ``pt<table>``)

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('seat') as batch:
        batch.add_column(sa.Column('private_topic', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table('seat') as batch:
        batch.drop_column('private_topic')
