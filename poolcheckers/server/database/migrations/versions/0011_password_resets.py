"""Password resets: ``password_resets``.

An administrator's command (``poolcheckers reset-password NAME``) prints a one-time
code; the account page takes it with a new password.  One code per account, stored as
its SHA-256 with its expiry.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "password_resets",
        sa.Column(
            "user_id",
            sa.String(16),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("expires_ms", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("password_resets")
