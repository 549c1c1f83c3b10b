"""Game flow and import: rematch offers on games; content digests of imported games.

``games.rematch_offer`` is the side offering a rematch of a game that is over,
``games.rematch_id`` the rematch once it started.  ``game_digests`` holds one SHA-256
per imported game (its tags, start position, rules and moves, normalised), so the same
PDN game is stored once (docs/CONTRACTS.md §3.1).  Both columns are NULL by default:
the upgrade rewrites no stored game.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("rematch_offer", sa.String(8), nullable=True))
    op.add_column("games", sa.Column("rematch_id", sa.String(32), nullable=True))
    op.create_table(
        "game_digests",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
    )


def downgrade() -> None:
    op.drop_table("game_digests")
    op.drop_column("games", "rematch_id")  # SQLite 3.35+: ALTER TABLE DROP COLUMN
    op.drop_column("games", "rematch_offer")
