"""Annotations of imported games: ``games.annotations``.

A game read from PDN keeps its comments, NAGs, strength marks and variations as the
move tree the PDN library gives (:func:`poolcheckers.pdn.game_tree`), written back
on export and shown on the game page; null for a game without any.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("annotations", sa.JSON, nullable=True))


def downgrade() -> None:
    # SQLite 3.35+: ALTER TABLE DROP COLUMN (a batch copy of games would drop the
    # table, and its moves with it, by ON DELETE CASCADE)
    op.drop_column("games", "annotations")
