"""Lessons: ``lesson_progress``, the steps each learner has done in each lesson.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "lesson_progress",
        sa.Column(
            "user_id",
            sa.String(16),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("lesson_id", sa.String(24), primary_key=True),
        sa.Column("steps_done", sa.Integer, nullable=False),
        sa.Column("completed_ms", sa.BigInteger, nullable=True),
        sa.Column("updated_ms", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("lesson_progress")
