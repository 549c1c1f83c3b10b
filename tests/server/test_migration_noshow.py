"""Migration 0015 marks the tournament games the no-show rule ended before it was
stored as their own termination (``no_show``), found by the words that rule wrote;
a tournament game that ended aborted for another reason (a resignation at once)
stays ``aborted``, and so scores nothing in its event.  Migration 0020 gives those
forfeits their result (the side that moved won) and words saying who won."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from poolcheckers import STARTING_FEN, RuleSet
from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.database.tables import GAMES
from poolcheckers.server.games.model import blank_record, end_no_show, end_unplayed

from .test_migration_community import migrate

ENDINGS = {
    "noshow": "Forfeit: Black did not make a first move within 3 minutes (tournament rule)",
    "director": "Forfeit: White did not make a first move (tournament rule, ended by the director)",
    "resigned": "Black resigned before both sides had moved: aborted, no result",
}


def test_upgrade_to_0015_marks_only_the_games_the_no_show_rule_ended(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(engine, "0014")
    rows = []
    for gid, why in [*ENDINGS.items(), ("casual", ENDINGS["noshow"])]:
        game = blank_record(gid, "online", RuleSet.apca(), STARTING_FEN, 0)
        game.tournament_id = None if gid == "casual" else "event1"
        end_unplayed(game, why)
        rows.append(game.values())
    with engine.begin() as conn:
        conn.execute(GAMES.insert(), rows)
    run_migrations(engine)
    with engine.connect() as conn:
        got = dict(conn.execute(select(GAMES.c.id, GAMES.c.termination)).all())
    assert got == {
        "noshow": "no_show",
        "director": "no_show",
        "resigned": "aborted",
        "casual": "aborted",
    }
    migrate(engine, "0014", down=True)
    with engine.connect() as conn:
        assert {t for (t,) in conn.execute(select(GAMES.c.termination))} == {"aborted"}


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_upgrade_to_0020_gives_a_no_show_forfeit_its_result_and_who_won(
    tmp_path: Path, request: pytest.FixtureRequest, backend: str
) -> None:
    """A forfeit stored before 0020 reads as the ones after: the side that moved won,
    the forfeit score is its result; an arena's no-show (no result) is left alone."""
    url = (
        f"sqlite:///{tmp_path / 'db.sqlite3'}"
        if backend == "sqlite"
        else request.getfixturevalue("pg_url")
    )
    engine = make_engine(url)
    migrate(engine, "0019")
    arena = "Aborted: Black did not make a first move within 3 minutes (arena rule: no result)"
    rows = []
    for gid, why, ply in [
        ("noshow", ENDINGS["noshow"], 0),
        ("director", ENDINGS["director"], 1),
        ("arena", arena, 0),
    ]:
        game = blank_record(gid, "online", RuleSet.apca(), STARTING_FEN, 0)
        game.tournament_id, game.ply = "event1", ply
        end_no_show(game, why)
        rows.append(game.values())
    with engine.begin() as conn:
        conn.execute(GAMES.insert(), rows)
    run_migrations(engine)
    columns = (GAMES.c.id, GAMES.c.winner, GAMES.c.result, GAMES.c.reason)
    with engine.connect() as conn:
        got = {r[0]: tuple(r[1:]) for r in conn.execute(select(*columns))}
    assert got == {
        "noshow": (
            "white",
            "0-2",
            "White wins by forfeit: Black did not make a first move within 3 minutes"
            " (tournament rule)",
        ),
        "director": (
            "black",
            "2-0",
            "Black wins by forfeit: White did not make a first move (tournament rule,"
            " ended by the director)",
        ),
        "arena": (None, "*", arena),
    }
    migrate(engine, "0019", down=True)
    with engine.connect() as conn:
        back = {r[0]: tuple(r[1:]) for r in conn.execute(select(*columns))}
    assert back == {
        "noshow": (None, "*", ENDINGS["noshow"]),
        "director": (None, "*", ENDINGS["director"]),
        "arena": (None, "*", arena),
    }
