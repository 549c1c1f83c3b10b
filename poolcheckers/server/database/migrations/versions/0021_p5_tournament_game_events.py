"""The archive's search by event finds tournament games: ``games.event`` of a
tournament's game is its ``Event`` tag (the tournament's name), as an imported game's.

Games stored before this revision have only the tag: they are filled in from it.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-07
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    games = sa.table(
        "games",
        sa.column("id", sa.String),
        sa.column("tags", sa.JSON),
        sa.column("tournament_id", sa.String),
        sa.column("event", sa.String),
    )
    conn = op.get_bind()
    rows = conn.execute(
        sa.select(games.c.id, games.c.tags).where(
            games.c.tournament_id.is_not(None), games.c.event.is_(None)
        )
    )
    for gid, tags in rows.all():
        if isinstance(tags, str):
            tags = json.loads(tags)
        event = tags.get("Event") if isinstance(tags, dict) else None
        if isinstance(event, str):
            conn.execute(games.update().where(games.c.id == gid).values(event=event[:256]))


def downgrade() -> None:
    # the column stays (revision 0012's); only what this one filled in is emptied
    games = sa.table("games", sa.column("tournament_id", sa.String), sa.column("event", sa.String))
    op.get_bind().execute(
        games.update().where(games.c.tournament_id.is_not(None)).values(event=None)
    )
