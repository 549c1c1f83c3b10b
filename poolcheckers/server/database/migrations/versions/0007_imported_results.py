"""Results of games played elsewhere: ``tournament_games.played``.

A round read from a TRF file (a Swiss begun over the board, continued or published
on the site) has its results but no game of the site: "black", "white" or "draw",
counted like a played game (the pair may not meet again), never like a forfeit.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("tournament_games", sa.Column("played", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournament_games") as batch:
        batch.drop_column("played")
