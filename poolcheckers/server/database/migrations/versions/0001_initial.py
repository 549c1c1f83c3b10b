"""Initial schema: games and moves.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("start_fen", sa.Text(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=True),
        sa.Column("engine_color", sa.String(8), nullable=True),
        sa.Column("black_token_hash", sa.String(64), nullable=True),
        sa.Column("white_token_hash", sa.String(64), nullable=True),
        sa.Column("invite_hash", sa.String(64), nullable=True),
        sa.Column("clock_initial_ms", sa.BigInteger(), nullable=True),
        sa.Column("clock_increment_ms", sa.BigInteger(), nullable=True),
        sa.Column("black_ms", sa.BigInteger(), nullable=True),
        sa.Column("white_ms", sa.BigInteger(), nullable=True),
        sa.Column("clock_running", sa.String(8), nullable=True),
        sa.Column("turn_started_ms", sa.BigInteger(), nullable=True),
        sa.Column("deadline_ms", sa.BigInteger(), nullable=True),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("draw_offer", sa.String(8), nullable=True),
        sa.Column("termination", sa.String(16), nullable=True),
        sa.Column("winner", sa.String(8), nullable=True),
        sa.Column("result", sa.String(8), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("tags", sa.JSON(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("updated_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_games_status_created", "games", ["status", "created_ms"])
    op.create_index("ix_games_deadline", "games", ["deadline_ms"])
    op.create_table(
        "moves",
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("ply", sa.Integer(), primary_key=True),
        sa.Column("notation", sa.String(128), nullable=False),
        sa.Column("path", sa.String(128), nullable=False),
        sa.Column("color", sa.String(8), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("black_ms", sa.BigInteger(), nullable=True),
        sa.Column("white_ms", sa.BigInteger(), nullable=True),
        sa.Column("draw_offer", sa.String(8), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("moves")
    op.drop_index("ix_games_deadline", table_name="games")
    op.drop_index("ix_games_status_created", table_name="games")
    op.drop_table("games")
