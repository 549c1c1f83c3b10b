"""Tournaments in the database: events, their players and their games, over
``tournaments``, ``tournament_players`` and ``tournament_games`` joined with
``games`` for the results.  The compare-and-set steps that keep an event exact
across server processes are here: a round moves on by ``UPDATE ... WHERE round =
n`` (one process starts it), an arena player is made busy by ``UPDATE ... WHERE
busy_game IS NULL`` (nobody is paired twice at once), a match's second game is
claimed by ``UPDATE ... WHERE game_id IS NULL``.  The methods block: callers run
them on the database executor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Engine, and_, func, insert, or_, select, update

from poolcheckers import RuleSet
from poolcheckers.server.database.tables import (
    GAMES,
    TOURNAMENT_GAMES,
    TOURNAMENT_PLAYERS,
    TOURNAMENTS,
)
from poolcheckers.server.games.model import NO_SHOW
from poolcheckers.server.games.timecontrol import parse_time_control
from poolcheckers.server.tournaments.model import Entrant, TourGame, Tournament

_T, _P, _G = TOURNAMENTS, TOURNAMENT_PLAYERS, TOURNAMENT_GAMES


def _tournament(row: Any) -> Tournament:
    settings = row["settings"]
    rr = settings.get("rating_range")
    return Tournament(
        id=row["id"],
        name=row["name"],
        system=row["system"],
        status=row["status"],
        creator_id=row["creator_id"],
        creator_name=row["creator_name"],
        time_control=parse_time_control(settings["clock"]),
        rated=row["rated"],
        rules=RuleSet.from_dict(settings.get("rules") or {}),
        rounds=row["rounds"],
        games_per_pairing=row["games_per_pairing"],
        double=row["double"],
        duration_minutes=row["duration_minutes"],
        starts_at_ms=row["starts_at_ms"],
        max_players=row["max_players"],
        rating_range=None if rr is None else (int(rr[0]), int(rr[1])),
        has_password=row["password_argon2"] is not None or row["password_hash"] is not None,
        forfeit_minutes=settings.get("forfeit_minutes"),
        round_minutes=settings.get("round_minutes"),
        forbidden=tuple((str(a), str(b)) for a, b in settings.get("forbidden") or ()),
        round=row["round"],
        paused=row["paused"],
        started_ms=row["started_ms"],
        finished_ms=row["finished_ms"],
        created_ms=row["created_ms"],
    )


def _entrant(row: Any) -> Entrant:
    return Entrant(
        user_id=row["user_id"],
        username=row["username"],
        rating=row["rating"],
        joined_ms=row["joined_ms"],
        seed=row["seed"],
        withdrawn=row["withdrawn_ms"] is not None,
        busy_game=row["busy_game"],
        seen_ms=row["seen_ms"],
        invitation=row["invitation"],
        paused_no_show=row["withdrawn_why"] == "no_show" and row["withdrawn_ms"] is not None,
    )


def _outcome(row: Any) -> tuple[str | None, bool]:
    """The result as the event counts it, and whether it came without play."""
    if row["white_id"] is None:
        return "bye", False
    if row["forfeit"] is not None:
        return row["forfeit"], True
    if row["played"] is not None:
        return row["played"], False
    status = row["g_status"]
    if status == "finished":
        return (row["winner"] or "draw"), False
    if row["termination"] == NO_SHOW:
        if row["system"] == "arena":
            # an arena pairs whoever is free, so a forfeit there could be arranged
            # with an accomplice who never moves: as on lichess, nobody scores it
            # (the absent side is paused instead: TournamentService._arena)
            return "none", True
        # ended by the no-show rule: the side to move never made its first move and
        # loses (Black at ply 0, White at ply 1)
        return ("white" if (row["ply"] or 0) == 0 else "black"), True
    if status == "aborted":
        # ended before both sides moved, by anything but the no-show rule: no game was
        # played, so nobody scores ("none", as a double forfeit)
        return "none", True
    return None, False


def _game(row: Any) -> TourGame:
    outcome, forfeit = _outcome(row)
    marks = row["berserk"] or ""
    berserk = frozenset(
        p for side, p in (("b", row["black_id"]), ("w", row["white_id"])) if side in marks and p
    )
    return TourGame(
        id=row["id"],
        round=row["round"],
        board=row["board"],
        leg=row["leg"],
        black=row["black_id"],
        white=row["white_id"],
        game_id=row["game_id"],
        outcome=outcome,
        forfeit=forfeit,
        plies=row["ply"] or 0,
        ended_ms=row["updated_ms"] or row["created_ms"],
        berserk=berserk,
        bye_points=row["bye_points"],
        status=row["g_status"],
        absent=_absent(row),
    )


def _absent(row: Any) -> str | None:
    """Who did not make their first move, in a game the no-show rule ended."""
    if row["termination"] != NO_SHOW:
        return None
    return str(row["black_id"] if (row["ply"] or 0) == 0 else row["white_id"])


class DbTournamentStore:
    """Events, players and games of tournaments in the database."""

    def __init__(self, db: Engine) -> None:
        self.db = db

    # ------------------------------------------------------------------ events
    def insert(self, values: dict[str, Any]) -> None:
        with self.db.begin() as conn:
            conn.execute(insert(_T).values(values))

    def _rows(self, query: Any, conn: Connection | None) -> list[Any]:
        """The rows of ``query``, in the caller's transaction ``conn`` or a read of its own."""
        if conn is not None:
            return list(conn.execute(query).mappings())
        with self.db.connect() as c:
            return list(c.execute(query).mappings())

    def get(self, tid: str, conn: Connection | None = None) -> Tournament | None:
        rows = self._rows(select(_T).where(_T.c.id == tid), conn)
        return _tournament(rows[0]) if rows else None

    def password_hash(self, tid: str) -> str | None:
        """The event's password hash: Argon2id, or an older event's SHA-256 (hex)."""
        query = select(_T.c.password_argon2, _T.c.password_hash).where(_T.c.id == tid)
        with self.db.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else (row[0] or row[1])

    def replace_password_hash(self, tid: str, old: str, new: str) -> None:
        """An older event's SHA-256 ``old`` replaced by the Argon2id ``new``
        (compare-and-set: once, by any process)."""
        with self.db.begin() as conn:
            conn.execute(
                update(_T)
                .where(_T.c.id == tid, _T.c.password_hash == old)
                .values(password_hash=None, password_argon2=new)
            )

    def invitations_of(self, user_id: str, limit: int = 50) -> list[Tournament]:
        """The events that invite the player and that they have not answered."""
        query = (
            select(_T)
            .join(_P, _P.c.tournament_id == _T.c.id)
            .where(_P.c.user_id == user_id, _P.c.invitation == "invited")
            .order_by(_T.c.created_ms.desc())
            .limit(limit)
        )
        with self.db.connect() as conn:
            return [_tournament(r) for r in conn.execute(query).mappings()]

    def answer(self, conn: Connection, tid: str, user_id: str, accepted: bool, now: int) -> bool:
        """The invited player's answer, once (compare-and-set from "invited"; a
        "declined" may still accept): True when it was stored."""
        allowed = ("invited", "declined") if accepted else ("invited",)
        values: dict[str, Any] = (
            {"invitation": None, "seen_ms": now} if accepted else {"invitation": "declined"}
        )
        return (
            conn.execute(
                update(_P)
                .where(
                    _P.c.tournament_id == tid,
                    _P.c.user_id == user_id,
                    _P.c.invitation.in_(allowed),
                )
                .values(**values)
            ).rowcount
            == 1
        )

    def listed(self, status: str | None, limit: int = 100) -> list[Tournament]:
        query = select(_T).order_by(_T.c.created_ms.desc()).limit(limit)
        if status is not None:
            query = query.where(_T.c.status == status)
        with self.db.connect() as conn:
            return [_tournament(r) for r in conn.execute(query).mappings()]

    def player_counts(self, ids: Sequence[str]) -> dict[str, int]:
        if not ids:
            return {}
        query = (
            select(_P.c.tournament_id, func.count())
            .where(
                _P.c.tournament_id.in_(ids),
                _P.c.withdrawn_ms.is_(None),
                _P.c.invitation.is_(None),
            )
            .group_by(_P.c.tournament_id)
        )
        with self.db.connect() as conn:
            return {r[0]: int(r[1]) for r in conn.execute(query)}

    def active_ids(self) -> list[str]:
        """Events running, or waiting for a start time."""
        query = select(_T.c.id).where(
            or_(
                _T.c.status == "running",
                and_(_T.c.status == "created", _T.c.starts_at_ms.isnot(None)),
            )
        )
        with self.db.connect() as conn:
            return [r[0] for r in conn.execute(query)]

    def set_state(self, conn: Connection, tid: str, expect: dict[str, Any], **values: Any) -> bool:
        """Compare-and-set on an event's row: True for the one caller whose
        ``expect``ed columns still held.  With no ``values`` it only locks the row
        for the rest of the transaction (PostgreSQL: the row; SQLite: the writer's
        lock), so that what is read next cannot change under the caller."""
        where = [_T.c.id == tid] + [_T.c[k] == v for k, v in expect.items()]
        changes: dict[str, Any] = values or {"round": _T.c.round}
        return conn.execute(update(_T).where(*where).values(**changes)).rowcount == 1

    # ------------------------------------------------------------------ players
    def players(self, tid: str, conn: Connection | None = None) -> list[Entrant]:
        query = select(_P).where(_P.c.tournament_id == tid).order_by(_P.c.joined_ms, _P.c.user_id)
        return [_entrant(r) for r in self._rows(query, conn)]

    def events_of(self, user_id: str, limit: int = 50) -> list[Tournament]:
        """The events the player is in: joined, or an invitation they accepted (an
        event that only named them is not theirs)."""
        query = (
            select(_T)
            .join(_P, _P.c.tournament_id == _T.c.id)
            .where(_P.c.user_id == user_id, _P.c.invitation.is_(None))
            .order_by(_T.c.created_ms.desc())
            .limit(limit)
        )
        with self.db.connect() as conn:
            return [_tournament(r) for r in conn.execute(query).mappings()]

    # ------------------------------------------------------------------ games
    def games(self, tid: str, conn: Connection | None = None) -> list[TourGame]:
        query = (
            select(
                _G,
                GAMES.c.status.label("g_status"),
                GAMES.c.winner,
                GAMES.c.termination,
                GAMES.c.ply,
                GAMES.c.updated_ms,
                _T.c.system,
            )
            .select_from(
                _G.join(_T, _T.c.id == _G.c.tournament_id).outerjoin(
                    GAMES, GAMES.c.id == _G.c.game_id
                )
            )
            .where(_G.c.tournament_id == tid)
            .order_by(_G.c.round, _G.c.board, _G.c.leg, _G.c.id)
        )
        return [_game(r) for r in self._rows(query, conn)]

    def tournament_of_game(self, game_id: str) -> str | None:
        with self.db.connect() as conn:
            return conn.execute(
                select(_G.c.tournament_id).where(_G.c.game_id == game_id).limit(1)
            ).scalar()
