"""The archive's search: ``games.black_name``, ``white_name``, ``event``, ``played_on``.

An imported game's players and event as its PDN tags name them, and the day every game
was played (an imported game's ``Date`` tag, a site game's day of creation), so that
the archive can find games by player, event and date in SQL.  Existing games are
filled in from their stored tags and creation times.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04
"""

from __future__ import annotations

import datetime
import json
import re

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None

_DATE = re.compile(r"\s*(\d{4})[.\-/](\d{2}|\?\?)[.\-/](\d{2}|\?\?)\s*")


def _day(date: object, created_ms: int) -> str:
    # the rule of poolcheckers.server.games.model.pdn_day, frozen with this revision
    match = _DATE.fullmatch(date) if isinstance(date, str) else None
    if match is None:
        moment = datetime.datetime.fromtimestamp(created_ms / 1000, tz=datetime.UTC)
        return moment.strftime("%Y-%m-%d")
    year, month, day = match.groups()
    month = month if month.isdigit() and 1 <= int(month) <= 12 else "01"
    day = day if day.isdigit() and 1 <= int(day) <= 31 else "01"
    return f"{year}-{month}-{day}"


def _text(value: object) -> str | None:
    return value[:256] if isinstance(value, str) else None


def upgrade() -> None:
    op.add_column("games", sa.Column("black_name", sa.String(256), nullable=True))
    op.add_column("games", sa.Column("white_name", sa.String(256), nullable=True))
    op.add_column("games", sa.Column("event", sa.String(256), nullable=True))
    op.add_column("games", sa.Column("played_on", sa.String(10), nullable=True))
    op.create_index("ix_games_played_on", "games", ["played_on"])
    games = sa.table(
        "games",
        sa.column("id", sa.String),
        sa.column("mode", sa.String),
        sa.column("tags", sa.JSON),
        sa.column("created_ms", sa.BigInteger),
        sa.column("black_name", sa.String),
        sa.column("white_name", sa.String),
        sa.column("event", sa.String),
        sa.column("played_on", sa.String),
    )
    conn = op.get_bind()
    rows = conn.execute(sa.select(games.c.id, games.c.mode, games.c.tags, games.c.created_ms))
    for gid, mode, tags, created_ms in rows.all():
        if isinstance(tags, str):
            tags = json.loads(tags)
        tags = tags if isinstance(tags, dict) and mode == "imported" else {}
        conn.execute(
            games.update()
            .where(games.c.id == gid)
            .values(
                black_name=_text(tags.get("Black")),
                white_name=_text(tags.get("White")),
                event=_text(tags.get("Event")),
                played_on=_day(tags.get("Date"), created_ms),
            )
        )


def downgrade() -> None:
    op.drop_index("ix_games_played_on", "games")
    # SQLite 3.35+: ALTER TABLE DROP COLUMN (a batch copy of games would drop the
    # table, and its moves with it, by ON DELETE CASCADE)
    for column in ("played_on", "event", "white_name", "black_name"):
        op.drop_column("games", column)
