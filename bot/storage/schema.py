"""The tables (SQLAlchemy Core). Changing them needs a migration in ``migrations/versions``.

Ids are Discord snowflakes (64-bit). Times are wall-clock seconds
(``time.time()``) as floats, so every process and every restart agrees.
JSON columns are text written by :func:`bot.storage.codec.dumps`.
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["metadata", "guild_settings", "rigs", "contexts", "pending_choices"]

metadata = sa.MetaData()

guild_settings = sa.Table(
    "guild_settings",
    metadata,
    sa.Column("guild_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("ask_channel_ids", sa.Text, nullable=False),  # JSON list of ids
    sa.Column("answer_mentions", sa.Boolean, nullable=False),
    sa.Column("currency", sa.String(8), nullable=True),
    sa.Column("language", sa.String(16), nullable=True),
    sa.Column("allowed_role_id", sa.BigInteger, nullable=True),
    sa.Column("updated_at", sa.Float, nullable=False),
)

rigs = sa.Table(
    "rigs",
    metadata,
    sa.Column("user_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("gpu", sa.String(64), nullable=False),
    sa.Column("count", sa.Integer, nullable=False),
    sa.Column("ram_gb", sa.Float, nullable=True),
    sa.Column("budget_usd", sa.Float, nullable=True),
    sa.Column("updated_at", sa.Float, nullable=False),
)

contexts = sa.Table(
    "contexts",
    metadata,
    sa.Column("channel_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("user_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("payload", sa.Text, nullable=False),  # JSON, bot.storage.codec.encode_context
    sa.Column("expires_at", sa.Float, nullable=False),
    sa.Index("ix_contexts_expires_at", "expires_at"),
    sa.Index("ix_contexts_user_id", "user_id"),
)

pending_choices = sa.Table(
    "pending_choices",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("user_id", sa.BigInteger, nullable=True),
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("choices", sa.Text, nullable=False),  # JSON list, bot.storage.codec.encode_choices
    sa.Column("expires_at", sa.Float, nullable=False),
    sa.Index("ix_pending_choices_expires_at", "expires_at"),
    sa.Index("ix_pending_choices_user_id", "user_id"),
)
