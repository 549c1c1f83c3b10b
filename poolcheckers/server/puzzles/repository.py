"""Puzzles, puzzle ratings, attempts and votes in the database.  The methods block:
callers run them on the database executor.  Ratings change by compare-and-set: a
player's row on its ``attempts`` count, a puzzle's on its ``plays`` count, so that
attempts racing in several server processes are each counted once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, false, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from poolcheckers.puzzles import Puzzle
from poolcheckers.server.database.tables import (
    PUZZLE_ATTEMPTS,
    PUZZLE_DAILY,
    PUZZLE_PLAYERS,
    PUZZLE_RUNS,
    PUZZLE_THEMES,
    PUZZLE_VOTES,
    PUZZLES,
)
from poolcheckers.server.puzzles.model import PUZZLE_DEVIATION
from poolcheckers.server.ratings.model import LICHESS, Glicko, Perf

_P, _T, _A, _V, _R = PUZZLES, PUZZLE_THEMES, PUZZLE_ATTEMPTS, PUZZLE_VOTES, PUZZLE_RUNS
#: how long an ended attempt, or a signed-out player's open one, is kept (ms)
RUNS_KEPT_MS = 24 * 3600 * 1000


@dataclass(frozen=True, slots=True)
class Run:
    """An attempt as it is played: ``ply`` moves of the solution played so far."""

    id: str
    user_id: str | None
    puzzle_id: str
    ply: int
    state: str
    hinted: bool


@dataclass(frozen=True, slots=True)
class StoredPuzzle:
    """A puzzle with its standing on the site."""

    puzzle: Puzzle
    glicko: Glicko
    plays: int
    solved: int
    votes_up: int
    votes_down: int

    @property
    def perf(self) -> Perf:
        return Perf(self.glicko, self.plays, None)


def _stored(row: Any) -> StoredPuzzle:
    glicko = Glicko(row["rating"], row["deviation"], row["volatility"])
    return StoredPuzzle(
        Puzzle(
            row["id"],
            row["fen"],
            tuple(row["solution"]),
            row["goal"],
            int(row["rating"]),
            tuple(row["themes"]),
            row["source"],
        ),
        glicko,
        row["plays"],
        row["solved"],
        row["votes_up"],
        row["votes_down"],
    )


def _run(row: Any) -> Run:
    return Run(row["id"], row["user_id"], row["puzzle_id"], row["ply"], row["state"], row["hinted"])


def _player(row: Any) -> Perf:
    return Perf(
        Glicko(row["rating"], row["deviation"], row["volatility"]),
        row["attempts"],
        None if row["last_ms"] is None else row["last_ms"] / 1000,
    )


class DbPuzzleStore:
    def __init__(self, db: Engine) -> None:
        self.db = db

    # ------------------------------------------------------------------ the set
    def add(self, puzzles: Iterable[Puzzle], origin: str, now_ms: int) -> int:
        """Store the puzzles not stored yet (by id and by position); how many."""
        fresh = list(puzzles)
        with self.db.begin() as conn:
            have_ids = set(conn.execute(select(_P.c.id)).scalars())
            have_fens = set(conn.execute(select(_P.c.fen)).scalars())
            rows: list[dict[str, Any]] = []
            themes: list[dict[str, Any]] = []
            for p in fresh:
                if p.id in have_ids or p.fen in have_fens:
                    continue
                have_ids.add(p.id)
                have_fens.add(p.fen)
                rows.append(
                    {
                        "id": p.id, "fen": p.fen, "solution": list(p.solution), "goal": p.goal,
                        "themes": list(p.themes),
                        "source": None if p.source is None else dict(p.source),
                        "rating": float(p.rating), "deviation": PUZZLE_DEVIATION,
                        "volatility": LICHESS.default.volatility, "plays": 0, "solved": 0,
                        "votes_up": 0, "votes_down": 0, "origin": origin, "created_ms": now_ms,
                    }
                )  # fmt: skip
                themes.extend({"puzzle_id": p.id, "theme": t} for t in set(p.themes))
            for start in range(0, len(rows), 500):
                conn.execute(insert(_P), rows[start : start + 500])
            for start in range(0, len(themes), 2000):
                conn.execute(insert(_T), themes[start : start + 2000])
        return len(rows)

    def count(self, origin: str | None = None) -> int:
        query = select(func.count()).select_from(_P)
        if origin is not None:
            query = query.where(_P.c.origin == origin)
        with self.db.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def get(self, pid: str) -> StoredPuzzle | None:
        with self.db.connect() as conn:
            row = conn.execute(select(_P).where(_P.c.id == pid)).mappings().first()
        return None if row is None else _stored(row)

    def by_fen(self, fen: str) -> StoredPuzzle | None:
        with self.db.connect() as conn:
            row = conn.execute(select(_P).where(_P.c.fen == fen)).mappings().first()
        return None if row is None else _stored(row)

    def listed(self, offset: int, limit: int) -> list[StoredPuzzle]:
        query = select(_P).order_by(_P.c.created_ms, _P.c.id).offset(offset).limit(limit)
        with self.db.connect() as conn:
            return [_stored(r) for r in conn.execute(query).mappings()]

    def themes(self) -> dict[str, int]:
        query = select(_T.c.theme, func.count()).group_by(_T.c.theme)
        with self.db.connect() as conn:
            return {t: int(n) for t, n in conn.execute(query)}

    def near(
        self, rating: float, window: float, theme: str | None, user_id: str | None, limit: int
    ) -> list[StoredPuzzle]:
        """Puzzles rated within ``window`` of ``rating`` (of ``theme``), that
        ``user_id`` has not tried, in random order."""
        query = select(_P).where(_P.c.rating.between(rating - window, rating + window))
        if theme is not None:
            query = query.where(_P.c.id.in_(select(_T.c.puzzle_id).where(_T.c.theme == theme)))
        if user_id is not None:
            tried = select(_A.c.puzzle_id).where(_A.c.user_id == user_id)
            query = query.where(_P.c.id.not_in(tried))
        query = query.order_by(func.random()).limit(limit)
        with self.db.connect() as conn:
            return [_stored(r) for r in conn.execute(query).mappings()]

    # ------------------------------------------------------------------ the day's
    def daily(self, day: str) -> str | None:
        with self.db.connect() as conn:
            value = conn.execute(
                select(PUZZLE_DAILY.c.puzzle_id).where(PUZZLE_DAILY.c.day == day)
            ).scalar()
            return None if value is None else str(value)

    def set_daily(self, day: str, pid: str) -> str:
        """Choose ``pid`` for ``day`` unless another process chose first; the choice."""
        try:
            with self.db.begin() as conn:
                conn.execute(insert(PUZZLE_DAILY).values(day=day, puzzle_id=pid))
        except IntegrityError:
            pass
        chosen = self.daily(day)
        assert chosen is not None
        return chosen

    def daily_pool(self, low: float, high: float, solver_moves: int) -> list[str]:
        """Ids of puzzles fit to be a puzzle of the day (by rating and length), in order."""
        query = (
            select(_P.c.id, _P.c.solution, _P.c.votes_up, _P.c.votes_down)
            .where(_P.c.rating.between(low, high))
            .order_by(_P.c.id)
        )
        with self.db.connect() as conn:
            return [
                r.id
                for r in conn.execute(query)
                if (len(r.solution) + 1) // 2 >= solver_moves and r.votes_down <= r.votes_up
            ]

    # ------------------------------------------------------------------ players
    def player(self, user_id: str, conn: Connection | None = None) -> Perf | None:
        query = select(PUZZLE_PLAYERS).where(PUZZLE_PLAYERS.c.user_id == user_id)
        if conn is not None:
            row = conn.execute(query).mappings().first()
        else:
            with self.db.connect() as c:
                row = c.execute(query).mappings().first()
        return None if row is None else _player(row)

    def ensure_player(self, user_id: str) -> None:
        """The player's puzzle rating row (1500 ± 500 on the first attempt)."""
        if self.player(user_id) is not None:
            return
        g = LICHESS.default
        try:
            with self.db.begin() as conn:
                conn.execute(
                    insert(PUZZLE_PLAYERS).values(
                        user_id=user_id, rating=g.rating, deviation=g.deviation,
                        volatility=g.volatility, attempts=0, solved=0, last_ms=None,
                    )
                )  # fmt: skip
        except IntegrityError:
            pass  # another request made it

    def tried(self, conn: Connection, user_id: str, pid: str) -> bool:
        query = select(_A.c.id).where(_A.c.user_id == user_id, _A.c.puzzle_id == pid).limit(1)
        return conn.execute(query).first() is not None

    def set_player(
        self, conn: Connection, user_id: str, before: Perf, after: Perf, solved: bool, now_ms: int
    ) -> bool:
        """Compare-and-set on the attempts count; False when another attempt came first."""
        g = after.glicko
        done = conn.execute(
            update(PUZZLE_PLAYERS)
            .where(PUZZLE_PLAYERS.c.user_id == user_id, PUZZLE_PLAYERS.c.attempts == before.games)
            .values(
                rating=g.rating, deviation=g.deviation, volatility=g.volatility,
                attempts=before.games + 1, solved=PUZZLE_PLAYERS.c.solved + int(solved),
                last_ms=now_ms,
            )
        ).rowcount  # fmt: skip
        return bool(done)

    def count_attempt(self, conn: Connection, user_id: str, solved: bool, now_ms: int) -> None:
        """An unrated attempt still counts in the player's attempts (its version)."""
        conn.execute(
            update(PUZZLE_PLAYERS)
            .where(PUZZLE_PLAYERS.c.user_id == user_id)
            .values(attempts=PUZZLE_PLAYERS.c.attempts + 1, last_ms=now_ms)
        )

    def set_puzzle(
        self, conn: Connection, pid: str, before: StoredPuzzle, after: Glicko | None, solved: bool
    ) -> bool:
        values: dict[str, Any] = {"plays": before.plays + 1, "solved": before.solved + int(solved)}
        if after is not None:
            values |= {"rating": after.rating, "deviation": after.deviation,
                       "volatility": after.volatility}  # fmt: skip
        done = conn.execute(
            update(_P).where(_P.c.id == pid, _P.c.plays == before.plays).values(**values)
        ).rowcount
        return bool(done)

    def add_attempt(self, conn: Connection, values: dict[str, Any]) -> None:
        conn.execute(insert(_A).values(**values))

    def history(self, user_id: str, limit: int) -> list[dict[str, Any]]:
        query = (
            select(_A, _P.c.goal, _P.c.themes)
            .select_from(_A.join(_P, _P.c.id == _A.c.puzzle_id))
            .where(_A.c.user_id == user_id)
            .order_by(_A.c.created_ms.desc(), _A.c.id.desc())
            .limit(limit)
        )
        with self.db.connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    # ------------------------------------------------------------------ runs
    def start_run(self, run: Run, now_ms: int) -> None:
        """Store a new attempt, and forget the ended ones and signed-out players' open
        ones older than a day."""
        with self.db.begin() as conn:
            old = now_ms - RUNS_KEPT_MS
            conn.execute(
                delete(_R).where(
                    _R.c.created_ms < old, (_R.c.state != "open") | _R.c.user_id.is_(None)
                )
            )
            conn.execute(
                insert(_R).values(
                    id=run.id, user_id=run.user_id, puzzle_id=run.puzzle_id, ply=run.ply,
                    state=run.state, hinted=run.hinted, created_ms=now_ms, ended_ms=None,
                )
            )  # fmt: skip

    def run(self, rid: str) -> Run | None:
        with self.db.connect() as conn:
            row = conn.execute(select(_R).where(_R.c.id == rid)).mappings().first()
        return None if row is None else _run(row)

    def open_runs(self, user_id: str) -> list[Run]:
        """The player's attempts not ended, oldest first."""
        query = (
            select(_R)
            .where(_R.c.user_id == user_id, _R.c.state == "open")
            .order_by(_R.c.created_ms, _R.c.id)
        )
        with self.db.connect() as conn:
            return [_run(r) for r in conn.execute(query).mappings()]

    def advance_run(
        self,
        conn: Connection,
        run: Run,
        ply: int,
        state: str = "open",
        now_ms: int | None = None,
    ) -> bool:
        """Compare-and-set: the attempt moves from ``run.ply`` to ``ply`` (and
        ``state``) only if it is still open at ``run.ply``; False when another request
        played that ply or ended the attempt first."""
        done = conn.execute(
            update(_R)
            .where(_R.c.id == run.id, _R.c.ply == run.ply, _R.c.state == "open")
            .values(ply=ply, state=state, ended_ms=now_ms)
        ).rowcount
        return bool(done)

    def drop_run(self, run: Run) -> None:
        """Forget an attempt not begun (no move, no hint): a puzzle looked at and left."""
        with self.db.begin() as conn:
            conn.execute(
                delete(_R).where(
                    _R.c.id == run.id, _R.c.ply == 0, _R.c.state == "open", _R.c.hinted == false()
                )
            )

    def mark_hinted(self, run: Run) -> bool:
        with self.db.begin() as conn:
            done = conn.execute(
                update(_R).where(_R.c.id == run.id, _R.c.state == "open").values(hinted=True)
            ).rowcount
        return bool(done)

    # ------------------------------------------------------------------ votes
    def vote(self, user_id: str, pid: str, vote: int) -> tuple[int, int]:
        """Set the player's vote (+1, -1, or 0: none); the puzzle's counts after it."""
        with self.db.begin() as conn:
            old = conn.execute(
                select(_V.c.vote).where(_V.c.user_id == user_id, _V.c.puzzle_id == pid)
            ).scalar()
            if old is not None:
                conn.execute(delete(_V).where(_V.c.user_id == user_id, _V.c.puzzle_id == pid))
            if vote:
                conn.execute(insert(_V).values(user_id=user_id, puzzle_id=pid, vote=vote))
            counts = conn.execute(
                select(
                    func.count().filter(_V.c.vote > 0), func.count().filter(_V.c.vote < 0)
                ).where(_V.c.puzzle_id == pid)
            ).one()
            conn.execute(
                update(_P).where(_P.c.id == pid).values(votes_up=counts[0], votes_down=counts[1])
            )
            return int(counts[0]), int(counts[1])

    def votes_of(self, user_id: str, pids: Sequence[str]) -> dict[str, int]:
        query = select(_V.c.puzzle_id, _V.c.vote).where(
            and_(_V.c.user_id == user_id, _V.c.puzzle_id.in_(list(pids)))
        )
        with self.db.connect() as conn:
            return {p: v for p, v in conn.execute(query)}
