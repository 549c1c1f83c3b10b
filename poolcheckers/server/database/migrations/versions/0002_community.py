"""Community: accounts, sessions, ratings, rating updates, seeks; account seats on games.

Every new column of ``games`` is NULL or has a server default, so the upgrade
rewrites no stored game (docs/COMMUNITY.md, "Tables").

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

SIDES = ("black", "white")
WHEN = ("before", "after")


def upgrade() -> None:
    _accounts()
    _ratings()
    _seeks()
    _games()


def _accounts() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("username", sa.String(20), nullable=False),
        sa.Column("username_key", sa.String(20), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column(
            "user_id",
            sa.String(16),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_seen_ms", sa.BigInteger(), nullable=False),
    )


def _ratings() -> None:
    op.create_table(
        "ratings",
        sa.Column(
            "user_id",
            sa.String(16),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("category", sa.String(16), primary_key=True),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("last_played_ms", sa.BigInteger(), nullable=True),
    )
    op.create_index("ix_ratings_category_rating", "ratings", ["category", "rating"])
    perf_columns = [
        sa.Column(f"{side}_{when}_{name}", kind, nullable=nullable)
        for side in SIDES
        for when in WHEN
        for name, kind, nullable in (
            ("rating", sa.Float(), False),
            ("deviation", sa.Float(), False),
            ("volatility", sa.Float(), False),
            ("games", sa.Integer(), False),
            ("last_played_ms", sa.BigInteger(), True),
        )
    ]
    op.create_table(
        "rating_updates",
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("category", sa.String(16), nullable=False),
        sa.Column("black_user_id", sa.String(16), nullable=False, index=True),
        sa.Column("white_user_id", sa.String(16), nullable=False, index=True),
        *perf_columns,
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
    )


def _seeks() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(16), primary_key=True),
        #: the author: an account id, or the hash of an anonymous visitor's id
        sa.Column("author_id", sa.String(64), nullable=False, index=True),
        sa.Column(
            "author_user_id",
            sa.String(16),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column("author_name", sa.String(20), nullable=True),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("author_perf", sa.JSON(), nullable=True),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("seen_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_seeks_created", "seeks", ["created_ms"])


def _games() -> None:
    # plain ALTER TABLE ... ADD COLUMN (no table copy: on SQLite a batch copy would
    # drop ``games`` and cascade to ``moves``); NULL or defaulted, no row rewritten
    for side in SIDES:
        op.add_column(
            "games",
            # no foreign key: on SQLite it could only be added or dropped by copying
            # ``games``, and accounts are never deleted
            sa.Column(f"{side}_user_id", sa.String(16), nullable=True),
        )
    op.add_column(
        "games", sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.add_column("games", sa.Column("category", sa.String(16), nullable=True))
    op.add_column("games", sa.Column("days_per_move", sa.Integer(), nullable=True))
    op.add_column("games", sa.Column("black_rating", sa.Integer(), nullable=True))
    op.add_column("games", sa.Column("white_rating", sa.Integer(), nullable=True))
    op.add_column("games", sa.Column("rematch_of", sa.String(32), nullable=True))
    for side in SIDES:
        op.create_index(f"ix_games_{side}_user", "games", [f"{side}_user_id", "created_ms"])


def downgrade() -> None:
    for side in SIDES:
        op.drop_index(f"ix_games_{side}_user", table_name="games")
    for name in (
        "rematch_of",
        "white_rating",
        "black_rating",
        "days_per_move",
        "category",
        "rated",
        "white_user_id",
        "black_user_id",
    ):
        op.drop_column("games", name)  # SQLite 3.35+: ALTER TABLE DROP COLUMN
    op.drop_index("ix_seeks_created", table_name="seeks")
    op.drop_table("seeks")
    op.drop_table("rating_updates")
    op.drop_index("ix_ratings_category_rating", table_name="ratings")
    op.drop_table("ratings")
    op.drop_table("sessions")
    op.drop_table("users")
