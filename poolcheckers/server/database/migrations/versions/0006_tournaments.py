"""Tournaments: ``tournaments``, ``tournament_players``, ``tournament_games``, and
the direct challenges with the blocks that stop them: ``challenges``, ``blocks``.

The games of an event are ordinary rows of ``games``; ``tournament_games`` says which
game is which round, board and leg, with byes and forfeits beside them.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("tournament_id", sa.String(16), nullable=True))
    _tournaments()
    _players()
    _games()
    _challenges()


def _tournaments() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("system", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column(
            "creator_id",
            sa.String(16),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("creator_name", sa.String(20), nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=True),
        sa.Column("games_per_pairing", sa.Integer, nullable=False),
        sa.Column("double", sa.Boolean, nullable=False),
        sa.Column("duration_minutes", sa.Integer, nullable=True),
        sa.Column("starts_at_ms", sa.BigInteger, nullable=True),
        sa.Column("max_players", sa.Integer, nullable=True),
        sa.Column("password_hash", sa.String(64), nullable=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("paused", sa.Boolean, nullable=False),
        sa.Column("started_ms", sa.BigInteger, nullable=True),
        sa.Column("finished_ms", sa.BigInteger, nullable=True),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status", "created_ms"])


def _players() -> None:
    op.create_table(
        "tournament_players",
        sa.Column(
            "tournament_id",
            sa.String(16),
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "user_id",
            sa.String(16),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("username", sa.String(20), nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("seed", sa.Integer, nullable=True),
        sa.Column("joined_ms", sa.BigInteger, nullable=False),
        sa.Column("withdrawn_ms", sa.BigInteger, nullable=True),
        sa.Column("busy_game", sa.String(32), nullable=True),
        sa.Column("seen_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_tournament_players_user", "tournament_players", ["user_id", "joined_ms"])


def _games() -> None:
    op.create_table(
        "tournament_games",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "tournament_id",
            sa.String(16),
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("board", sa.Integer, nullable=True),
        sa.Column("leg", sa.Integer, nullable=False),
        sa.Column("black_id", sa.String(16), nullable=False),
        sa.Column("white_id", sa.String(16), nullable=True),
        sa.Column(
            "game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("bye_points", sa.Float, nullable=True),
        sa.Column("forfeit", sa.String(8), nullable=True),
        sa.Column("berserk", sa.String(16), nullable=True),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
    )
    op.create_index(
        "ux_tournament_games_board",
        "tournament_games",
        ["tournament_id", "round", "board", "leg"],
        unique=True,
    )
    op.create_index("ix_tournament_games_game", "tournament_games", ["game_id"])


def _challenges() -> None:
    users = "users.id"
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column(
            "challenger_id", sa.String(16), sa.ForeignKey(users, ondelete="CASCADE"), nullable=False
        ),
        sa.Column("challenger", sa.String(20), nullable=False),
        sa.Column(
            "challenged_id", sa.String(16), sa.ForeignKey(users, ondelete="CASCADE"), nullable=False
        ),
        sa.Column("challenged", sa.String(20), nullable=False),
        sa.Column("spec", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(16), nullable=True),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("expires_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_challenges_challenged", "challenges", ["challenged_id", "status"])
    op.create_index("ix_challenges_challenger", "challenges", ["challenger_id", "status"])
    op.create_table(
        "blocks",
        sa.Column(
            "user_id", sa.String(16), sa.ForeignKey(users, ondelete="CASCADE"), primary_key=True
        ),
        sa.Column(
            "blocked_id", sa.String(16), sa.ForeignKey(users, ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("blocks")
    op.drop_table("challenges")
    op.drop_table("tournament_games")
    op.drop_table("tournament_players")
    op.drop_table("tournaments")
    # SQLite 3.35+: ALTER TABLE DROP COLUMN (a batch copy of games would drop the
    # table, and its moves with it, by ON DELETE CASCADE)
    op.drop_column("games", "tournament_id")
