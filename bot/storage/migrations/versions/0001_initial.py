"""Initial schema: server settings, rigs, conversation contexts, pending choices.

Revision ID: 0001
Revises:
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "guild_settings",
        sa.Column("guild_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("ask_channel_ids", sa.Text, nullable=False),
        sa.Column("answer_mentions", sa.Boolean, nullable=False),
        sa.Column("currency", sa.String(8), nullable=True),
        sa.Column("language", sa.String(16), nullable=True),
        sa.Column("allowed_role_id", sa.BigInteger, nullable=True),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "rigs",
        sa.Column("user_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("gpu", sa.String(64), nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
        sa.Column("ram_gb", sa.Float, nullable=True),
        sa.Column("budget_usd", sa.Float, nullable=True),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "contexts",
        sa.Column("channel_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("user_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_contexts_expires_at", "contexts", ["expires_at"])
    op.create_index("ix_contexts_user_id", "contexts", ["user_id"])
    op.create_table(
        "pending_choices",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.BigInteger, nullable=True),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("choices", sa.Text, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_pending_choices_expires_at", "pending_choices", ["expires_at"])
    op.create_index("ix_pending_choices_user_id", "pending_choices", ["user_id"])


def downgrade() -> None:
    op.drop_table("pending_choices")
    op.drop_table("contexts")
    op.drop_table("rigs")
    op.drop_table("guild_settings")
