"""Quotas shared by the server processes: rate counters and slot leases.

``rate_counters`` holds the counts of the sliding-window rates (sign-ins, sign-ups,
games created, imports) and ``slot_leases`` the slots held at once (analyses), so that
every process of a site counts against one limit.  Both start empty and hold nothing
that outlives a few hours: the downgrade drops them.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "rate_counters",
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("count", sa.BigInteger, nullable=False),
        sa.Column("expires_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_rate_counters_expires", "rate_counters", ["expires_ms"])
    op.create_table(
        "slot_leases",
        sa.Column("lease", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("expires_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_slot_leases_name", "slot_leases", ["name", "expires_ms"])


def downgrade() -> None:
    op.drop_table("slot_leases")
    op.drop_table("rate_counters")
