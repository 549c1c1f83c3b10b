"""Puzzles: ``puzzles`` with their ``puzzle_themes``, the players' puzzle ratings
(``puzzle_players``), their ``puzzle_attempts`` and ``puzzle_votes``, and the puzzle of
each day (``puzzle_daily``).  The shipped puzzles are loaded by the server at start,
not here.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def _user() -> sa.Column[str]:
    return sa.Column(
        "user_id", sa.String(16), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
    )


def _puzzle() -> sa.Column[str]:
    return sa.Column(
        "puzzle_id",
        sa.String(16),
        sa.ForeignKey("puzzles.id", ondelete="CASCADE"),
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("fen", sa.String(120), nullable=False),
        sa.Column("solution", sa.JSON, nullable=False),
        sa.Column("goal", sa.String(8), nullable=False),
        sa.Column("themes", sa.JSON, nullable=False),
        sa.Column("source", sa.JSON, nullable=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("plays", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("votes_up", sa.Integer, nullable=False),
        sa.Column("votes_down", sa.Integer, nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_puzzles_rating", "puzzles", ["rating"])
    op.create_index("ux_puzzles_fen", "puzzles", ["fen"], unique=True)
    _players()


def _players() -> None:
    op.create_table(
        "puzzle_themes",
        sa.Column(
            "puzzle_id",
            sa.String(16),
            sa.ForeignKey("puzzles.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("theme", sa.String(24), primary_key=True),
    )
    op.create_index("ix_puzzle_themes_theme", "puzzle_themes", ["theme", "puzzle_id"])
    op.create_table(
        "puzzle_players",
        sa.Column(
            "user_id",
            sa.String(16),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("last_ms", sa.BigInteger, nullable=True),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        _user(),
        _puzzle(),
        sa.Column("solved", sa.Boolean, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
        sa.Column("puzzle_rating", sa.Float, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_puzzle_attempts_user", "puzzle_attempts", ["user_id", "created_ms"])
    op.create_index("ix_puzzle_attempts_seen", "puzzle_attempts", ["user_id", "puzzle_id"])
    op.create_table(
        "puzzle_votes",
        sa.Column(
            "user_id",
            sa.String(16),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "puzzle_id",
            sa.String(16),
            sa.ForeignKey("puzzles.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("vote", sa.Integer, nullable=False),
    )
    op.create_table(
        "puzzle_daily",
        sa.Column("day", sa.String(10), primary_key=True),
        _puzzle(),
    )


def downgrade() -> None:
    for table in (
        "puzzle_daily", "puzzle_votes", "puzzle_attempts", "puzzle_players", "puzzle_themes",
        "puzzles",
    ):  # fmt: skip
        op.drop_table(table)
