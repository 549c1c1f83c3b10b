"""Puzzle attempts played move by move on the server (``puzzle_runs``): the puzzles
are served without their solutions, each move is judged here, and the attempt's
row is the version of its line (compare-and-set on ``ply``).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "puzzle_runs",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column(
            "user_id",
            sa.String(16),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column(
            "puzzle_id",
            sa.String(16),
            sa.ForeignKey("puzzles.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("ply", sa.Integer, nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("hinted", sa.Boolean, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("ended_ms", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_puzzle_runs_user", "puzzle_runs", ["user_id", "state"])
    op.create_index("ix_puzzle_runs_created", "puzzle_runs", ["created_ms"])


def downgrade() -> None:
    op.drop_table("puzzle_runs")
