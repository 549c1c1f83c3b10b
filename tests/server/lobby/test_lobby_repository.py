"""What taking a seek reads, in one statement (``DbLobbyStore.for_taking``): the
seek, the players' other seeks, whether they are bots, their rated games together
since a moment and their ratings in the seek's category, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, insert, update

from poolcheckers import Board, RuleSet
from poolcheckers.server.accounts.model import User
from poolcheckers.server.accounts.repository import DbUserStore
from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.database.tables import RATINGS, SEEKS, USERS
from poolcheckers.server.games.model import Loaded, blank_record
from poolcheckers.server.games.repository import GameStore
from poolcheckers.server.games.timecontrol import Clock, Correspondence
from poolcheckers.server.lobby.model import LobbyPlayer, Seek, SeekSpec
from poolcheckers.server.lobby.repository import DbLobbyStore
from poolcheckers.server.ratings.model import Glicko, Perf
from poolcheckers.server.timesource import ManualTime

ANN, BOB, CY = LobbyPlayer("ann", "Ann"), LobbyPlayer("bob", "Bob"), LobbyPlayer("cy", "Cy")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'lobby.sqlite3'}"
    else:
        url = request.getfixturevalue("pg_url")
    engine = make_engine(url)
    run_migrations(engine)
    users = DbUserStore(engine)
    for p in (ANN, BOB, CY):
        assert p.name is not None
        assert users.add(User(p.id, p.name, p.name.lower(), "hash", 0.0))
    yield engine
    engine.dispose()


def rated_game(db: Engine, game_id: str, black: str, white: str, at_ms: int, rated: bool) -> None:
    game = blank_record(game_id, "online", RuleSet.apca(), Board().fen(), at_ms)
    game.black_user_id, game.white_user_id, game.rated = black, white, rated
    GameStore(db, ManualTime()).insert(Loaded(game, [], Board()))


def test_a_seek_is_read_with_what_taking_it_needs(db: Engine) -> None:
    store = DbLobbyStore(db)
    blitz, rapid = SeekSpec(Clock(180, 2), rated=True), SeekSpec(Clock(900, 10))
    taken = Seek("s1", ANN, blitz, 1.0)
    seeks = [
        taken,
        Seek("s2", ANN, rapid, 2.0),
        Seek("s3", ANN, SeekSpec(Correspondence(3)), 3.0),
        Seek("s4", BOB, blitz, 4.0),
        Seek("s5", CY, blitz, 5.0),
    ]
    for seek in seeks:
        store.insert(seek)
    with db.begin() as conn:  # set by hand: the upgrade refuses an account with open seeks
        conn.execute(update(USERS).where(USERS.c.id == ANN.id).values(bot=True))
    with db.begin() as conn:
        conn.execute(
            insert(RATINGS),
            [
                {"user_id": "ann", "category": "blitz", "rating": 1700.0, "deviation": 80.0,
                 "volatility": 0.06, "games": 12, "last_played_ms": 5000},
                {"user_id": "bob", "category": "rapid", "rating": 1600.0, "deviation": 90.0,
                 "volatility": 0.06, "games": 3, "last_played_ms": None},
            ],
        )  # fmt: skip
    rated_game(db, "g1", "bob", "ann", 1000, rated=True)
    rated_game(db, "g2", "ann", "bob", 2000, rated=True)
    rated_game(db, "g3", "ann", "bob", 100, rated=True)  # before the moment asked about
    rated_game(db, "g4", "ann", "bob", 3000, rated=False)
    rated_game(db, "g5", "ann", "cy", 3000, rated=True)
    taking = store.for_taking("s1", BOB.id, 500)
    assert taking is not None
    assert taking.seek == taken and taking.others == seeks[1:4]
    assert taking.bots == {ANN.id} and taking.rated_since == 2
    assert taking.perfs == {ANN.id: Perf(Glicko(1700.0, 80.0, 0.06), 12, 5.0), BOB.id: None}
    assert store.for_taking("gone", BOB.id, 500) is None
    assert store.for_taking("s3", BOB.id, 500) is not None


def test_ratings_are_read_with_the_seek_only_in_its_category_as_stored(db: Engine) -> None:
    """A seek without a category has no ratings to read; one whose stored category
    is not what its clock makes now (stored by another version) has them read apart."""
    store = DbLobbyStore(db)
    store.insert(Seek("s1", ANN, SeekSpec(None), 1.0))
    store.insert(Seek("s2", ANN, SeekSpec(Clock(180, 2)), 2.0))
    spec = {**SeekSpec(Clock(180, 2)).to_dict(), "category": "rapid"}
    with db.begin() as conn:
        conn.execute(update(SEEKS).where(SEEKS.c.id == "s2").values(spec=spec))
    for seek_id in ("s1", "s2"):
        taking = store.for_taking(seek_id, BOB.id, 0)
        assert taking is not None and taking.perfs is None
