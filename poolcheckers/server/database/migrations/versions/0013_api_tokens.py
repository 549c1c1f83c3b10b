"""Personal API tokens and bot accounts: ``api_tokens``, ``users.bot``.

A token is made on the account page, shown once, and stored as its SHA-256 with
its scopes; an outside program (a bot) sends it as ``Authorization: Bearer``.  An
account turned into a bot stays one.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "api_tokens",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column(
            "user_id",
            sa.String(16),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("label", sa.String(60), nullable=False),
        sa.Column("scopes", sa.String(200), nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("last_used_ms", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_api_tokens_user", "api_tokens", ["user_id"])
    op.add_column("users", sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    # a plain DROP COLUMN: a batch copy of ``users`` would delete every session,
    # rating and token by cascade
    op.drop_column("users", "bot")
    op.drop_index("ix_api_tokens_user", "api_tokens")
    op.drop_table("api_tokens")
