"""indexes for the per-input queries and for retention

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

INDEXES = [
    ('game_table', 'ix_game_table_finished', ['finished_at']),
    ('seat', 'ix_seat_player', ['player_id']),
    ('processed_update', 'ix_processed_update_at', ['at']),
    ('outbox', 'ix_outbox_chat', ['platform', 'chat_external_id', 'status', 'id']),
    ('outbox', 'ix_outbox_created', ['created_at']),
    ('message_slot', 'ix_message_slot_message', ['platform', 'chat_external_id', 'message_id']),
    ('message_slot', 'ix_message_slot_updated', ['updated_at']),
]


def upgrade() -> None:
    for table, name, columns in INDEXES:
        op.create_index(name, table, columns, unique=False)


def downgrade() -> None:
    for table, name, _columns in reversed(INDEXES):
        op.drop_index(name, table_name=table)
