"""A tournament game ended by its event's no-show rule is stored with its own
termination, ``no_show`` (status ``aborted``, no result for the game itself), so that
the event scores a forfeit only for a game that rule ended; any other game of an event
that ended before both sides moved scores nothing.  The games the rule ended before
are found by the words it stored ("Forfeit: ... did not make a first move ...").

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None

_GAMES = sa.table(
    "games",
    sa.column("status", sa.String),
    sa.column("termination", sa.String),
    sa.column("reason", sa.Text),
    sa.column("tournament_id", sa.String),
)


def upgrade() -> None:
    op.execute(
        _GAMES.update()
        .where(
            _GAMES.c.tournament_id.isnot(None),
            _GAMES.c.status == "aborted",
            _GAMES.c.termination == "aborted",
            _GAMES.c.reason.like("Forfeit: % did not make a first move%"),
        )
        .values(termination="no_show")
    )


def downgrade() -> None:
    op.execute(
        _GAMES.update().where(_GAMES.c.termination == "no_show").values(termination="aborted")
    )
