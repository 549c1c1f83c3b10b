"""What the puzzle routes call: the next puzzle for a player, the puzzle of the day,
attempts played move by move against the stored solution (judged by the rules
library, rated by Glicko-2 at the end of a signed-in player's first attempt), votes,
a player's history and rating, and loading puzzle sets (the shipped one at start-up,
more from a file)."""

from __future__ import annotations

import contextlib
import datetime
import logging
import random
import secrets
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import IntegrityError

from poolcheckers.board import Board
from poolcheckers.errors import PoolCheckersError
from poolcheckers.puzzles import Puzzle, read_puzzles, replay, shipped_puzzles
from poolcheckers.puzzles.themes import THEME_WORDS, THEMES
from poolcheckers.server import errors
from poolcheckers.server.accounts.model import User
from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.i18n import M_
from poolcheckers.server.puzzles.model import (
    AttemptForbidden,
    AttemptGone,
    AttemptOver,
    PuzzleGone,
    PuzzleRequestError,
    PuzzleUnavailable,
    hint_square,
    rate,
    step,
)
from poolcheckers.server.puzzles.repository import DbPuzzleStore, Run, StoredPuzzle
from poolcheckers.server.quotas import Quotas, Rate
from poolcheckers.server.ratings.model import LICHESS, Perf
from poolcheckers.server.throttle import address_key
from poolcheckers.server.timesource import TimeSource

log = logging.getLogger("poolcheckers.server")
#: how far from the player's rating the next puzzle is looked for first (it widens)
WINDOW = 100.0
#: the puzzle of the day: a rating band and at least this many solver moves
DAILY_BAND = (1100.0, 2000.0)
DAILY_SOLVER_MOVES = 2
#: a compare-and-set lost to a racing attempt is tried again this many times
RETRIES = 5


#: puzzles one account may ask the engine to make from the board editor, per hour
PROPOSALS_PER_HOUR = Rate("puzzles:proposed", 20, 3600)
#: attempts one account (or one address, signed out) may start in an hour: each is a
#: stored row, and a solver at full speed starts a few a minute
ATTEMPTS_PER_HOUR = Rate("puzzles:attempts", 600, 3600)


class PuzzleService:
    def __init__(
        self,
        db: Engine,
        clock: TimeSource,
        quotas: Quotas | None = None,
        tables: Callable[[], Any] | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.quotas = quotas
        #: the endgame tables for exact lines (None, or raising: without them)
        self.tables = tables
        self.store = DbPuzzleStore(db)
        self._loaded = False
        self._shipped_cache: list[Puzzle] | None = None

    def _now_ms(self) -> int:
        return self.clock.now_ms()

    # ------------------------------------------------------------------ the set
    def load_shipped(self) -> int:
        """Store the package's puzzles not stored yet (at start-up; idempotent)."""
        added = self.load(self._shipped(), "shipped")
        if added:
            log.info("puzzles: %d shipped puzzles stored", added)
        return added

    def load(self, puzzles: Iterable[Puzzle], origin: str) -> int:
        return self.store.add(puzzles, origin, self._now_ms())

    def import_file(self, path: str | Path) -> tuple[int, int]:
        """Store the puzzles of a JSON-lines file (``poolcheckers puzzles generate``'s
        output, or any file of that form), each replayed by the rules library first: a
        bad line or move stops the import before anything is stored, naming it.  (new,
        already stored)."""
        try:
            puzzles = list(read_puzzles(path))
        except OSError as error:
            raise PuzzleRequestError(f"{path}: {error.strerror or error}") from error
        for puzzle in puzzles:
            replay(puzzle)
        self._ready()
        added = self.load(puzzles, "imported")
        return added, len(puzzles) - added

    def _ready(self) -> None:
        """The shipped set is stored on the first puzzle request of a process (a
        server that never serves puzzles, a test app, never reads it)."""
        if not self._loaded:
            if self.store.count("shipped") < len(self._shipped()):
                try:
                    self.load_shipped()
                except IntegrityError:
                    # another process stored them at the same moment: read again
                    self.load_shipped()
            self._loaded = True

    def _shipped(self) -> list[Puzzle]:
        if self._shipped_cache is None:
            self._shipped_cache = shipped_puzzles()
        return self._shipped_cache

    def themes(self) -> list[dict[str, Any]]:
        """Every theme with its words and how many puzzles have it (most first)."""
        self._ready()
        counts = self.store.themes()
        return [
            {"theme": t, "name": THEME_WORDS[t], "count": counts.get(t, 0)}
            for t in sorted(THEME_WORDS, key=lambda t: (-counts.get(t, 0), t))
        ]

    def listed(self, offset: int, limit: int) -> list[StoredPuzzle]:
        self._ready()
        return self.store.listed(offset, limit)

    def history(self, user_id: str, limit: int) -> list[dict[str, Any]]:
        return [
            {
                "puzzle": r["puzzle_id"],
                "solved": r["solved"],
                "rated": r["rated"],
                "rating_before": None if r["rating_before"] is None else int(r["rating_before"]),
                "rating_after": None if r["rating_after"] is None else int(r["rating_after"]),
                "puzzle_rating": int(r["puzzle_rating"]),
                "goal": r["goal"],
                "themes": r["themes"],
                "at": r["created_ms"] / 1000,
            }
            for r in self.store.history(user_id, limit)
        ]

    def get(self, pid: str) -> StoredPuzzle:
        self._ready()
        found = self.store.get(pid)
        if found is None:
            raise PuzzleGone(M_("no puzzle {pid}", pid=repr(pid)))
        return found

    # ------------------------------------------------------------------ choosing
    def next_for(
        self, user: User | None, theme: str | None, rating: float | None = None
    ) -> StoredPuzzle:
        """A puzzle near the player's puzzle rating (a signed-out player: near
        ``rating``, or 1500), of ``theme``, not tried before by a signed-in player."""
        if theme is not None and theme not in THEMES and not theme.startswith("shot_"):
            raise PuzzleRequestError(
                M_(
                    "unknown theme {theme}; themes: {value}",
                    theme=repr(theme),
                    value=", ".join(THEMES),
                )
            )
        self._ready()
        if user is not None:
            perf = self.store.player(user.id)
            target = perf.glicko.rating if perf is not None else LICHESS.default.rating
        else:
            target = rating if rating is not None else LICHESS.default.rating
        window = WINDOW
        while window <= 3200:
            found = self.store.near(target, window, theme, None if user is None else user.id, 1)
            if found:
                return found[0]
            window *= 2
        raise PuzzleGone(
            "no puzzle left to try"
            + (f" in the theme {theme!r}" if theme else "")
            + ": you have tried them all"
        )

    def daily(self, day: datetime.date | None = None) -> StoredPuzzle:
        """The puzzle of the day: chosen once per day (UTC) for every process."""
        today = day or datetime.datetime.fromtimestamp(self._now_ms() / 1000, datetime.UTC).date()
        key = today.isoformat()
        self._ready()
        pid = self.store.daily(key)
        if pid is None:
            pool = self.store.daily_pool(*DAILY_BAND, DAILY_SOLVER_MOVES) or self.store.daily_pool(
                0, 10_000, 1
            )
            if not pool:
                raise PuzzleGone(M_("no puzzles are stored"))
            pid = self.store.set_daily(key, random.Random(key).choice(pool))
        return self.get(pid)

    # ------------------------------------------------------------------ attempts
    def start(self, pid: str, user: User | None, address: str = "") -> dict[str, Any]:
        """Start an attempt at ``pid``; a signed-in player's open attempt at it goes on
        where it stopped (a page reloaded).  That player's attempts at other puzzles
        that have begun (a move played, a hint asked for) end as misses: leaving a
        puzzle half-played is no way around its rating; those not begun are dropped.
        A new attempt counts against :data:`ATTEMPTS_PER_HOUR` of the account, or of
        ``address`` when signed out."""
        stored = self.get(pid)
        runs = [] if user is None else self.store.open_runs(user.id)
        for run in runs:
            if run.puzzle_id == pid:
                return _started(run, stored)
        self._count_attempt(user, address)
        for run in runs:
            if run.ply or run.hinted:
                with contextlib.suppress(AttemptOver):  # a racing request ended it
                    self._end(run, self.get(run.puzzle_id), solved=False)
            else:
                self.store.drop_run(run)
        run = Run(
            secrets.token_urlsafe(16), None if user is None else user.id, pid, 0, "open", False
        )
        self.store.start_run(run, self._now_ms())
        return _started(run, stored)

    def _count_attempt(self, user: User | None, address: str) -> None:
        if self.quotas is None:
            return
        decision = self.quotas.hit(
            ATTEMPTS_PER_HOUR, user.id if user is not None else f"address:{address_key(address)}"
        )
        if not decision.allowed:
            raise errors.limit_reached(
                M_("at most {limit} puzzle attempts an hour", limit=ATTEMPTS_PER_HOUR.limit),
                decision.retry_after,
            )

    def play(self, rid: str, user: User | None, ply: int, move: str) -> dict[str, Any]:
        """Judge the solver's move at ``ply``: the puzzle's reply when it is the
        solution's, the end of the attempt (and its solution, its rating) when the
        line is done or the move leaves it.  A ply that is not the attempt's next (a
        move replayed, or posted twice at once) is refused: each ply counts once."""
        run, stored = self._open_run(rid, user)
        if ply != run.ply:
            raise AttemptOver(
                M_(
                    "ply {ply} is not this attempt's next move: it is at ply {value} (a move is "
                    "played once)",
                    ply=ply,
                    value=run.ply,
                )
            )
        judged = step(stored.puzzle, run.ply, move)
        if not judged.correct or judged.solved:
            return self._end(run, stored, solved=judged.correct, move=judged.move)
        with self.db.begin() as conn:
            if not self.store.advance_run(conn, run, run.ply + 2):
                raise _played(run)
        return {
            "correct": True, "move": judged.move, "reply": judged.reply, "ply": run.ply + 2,
            "state": "solving",
        }  # fmt: skip

    def hint(self, rid: str, user: User | None) -> dict[str, Any]:
        """The square of the piece to move; a solve after a hint is rated as a miss."""
        run, stored = self._open_run(rid, user)
        if not self.store.mark_hinted(run):
            raise _played(run)
        return {"ply": run.ply, "square": hint_square(stored.puzzle, run.ply)}

    def give_up(self, rid: str, user: User | None) -> dict[str, Any]:
        """End the attempt as a miss and show the solution."""
        run, stored = self._open_run(rid, user)
        return self._end(run, stored, solved=False)

    def _open_run(self, rid: str, user: User | None) -> tuple[Run, StoredPuzzle]:
        run = self.store.run(rid)
        if run is None:
            raise AttemptGone(M_("no attempt {pid}", pid=repr(rid)))
        if run.user_id is not None and (user is None or user.id != run.user_id):
            raise AttemptForbidden(M_("this attempt is another player's"))
        if run.state != "open":
            raise AttemptOver(M_("this attempt has ended: start another"))
        return run, self.get(run.puzzle_id)

    def _end(
        self, run: Run, stored: StoredPuzzle, *, solved: bool, move: str | None = None
    ) -> dict[str, Any]:
        """End the attempt (compare-and-set on its ply) and, for a signed-in player,
        rate it in the same transaction: an attempt is rated once, at its end."""
        if run.user_id is not None:
            self.store.ensure_player(run.user_id)
        for _ in range(RETRIES):
            try:
                rating = self._store_end(run, stored, solved)
            except _Lost:
                stored = self.get(run.puzzle_id)
                continue
            return {
                "correct": None if move is None else solved, "move": move, "reply": None,
                "ply": len(stored.puzzle.solution) if solved else run.ply + (move is not None),
                "state": "solved" if solved else "failed", "hinted": run.hinted,
                "solution": list(stored.puzzle.solution), "rating": rating,
            }  # fmt: skip
        raise PuzzleRequestError(M_("too many attempts at once: try again"))

    def _store_end(self, run: Run, stored: StoredPuzzle, solved: bool) -> dict[str, Any] | None:
        now = self._now_ms()
        ply = len(stored.puzzle.solution) if solved else run.ply
        with self.db.begin() as conn:
            if not self.store.advance_run(conn, run, ply, "solved" if solved else "failed", now):
                raise _played(run)
            if run.user_id is None:
                return None
            # a solve helped by a hint is rated as a miss
            return self._rate(conn, stored, run.user_id, solved and not run.hinted, now)

    def _rate(
        self, conn: Connection, stored: StoredPuzzle, user_id: str, solved: bool, now: int
    ) -> dict[str, Any]:
        """Store the ended attempt and, when it is the player's first at the puzzle,
        the ratings; _Lost when a racing attempt changed the player's or the
        puzzle's row first (the transaction is rolled back, the caller reads again)."""
        pid = stored.puzzle.id
        player = self.store.player(user_id, conn)
        assert player is not None
        first = not self.store.tried(conn, user_id, pid)
        values = {
            "user_id": user_id, "puzzle_id": pid, "solved": solved, "rated": first,
            "puzzle_rating": stored.glicko.rating, "created_ms": now,
            "rating_before": player.glicko.rating,
        }  # fmt: skip
        if not first:
            self.store.count_attempt(conn, user_id, solved, now)
            self.store.add_attempt(conn, values | {"rating_after": player.glicko.rating})
            return _rating(player, player, rated=False)
        live = LICHESS.live(player, now / 1000)
        after, puzzle_after = rate(live, stored.perf, solved, now / 1000)
        after = Perf(after.glicko, player.games + 1, now / 1000)
        if not self.store.set_player(conn, user_id, player, after, solved, now):
            raise _Lost
        if not self.store.set_puzzle(conn, pid, stored, puzzle_after.glicko, solved):
            raise _Lost
        self.store.add_attempt(conn, values | {"rating_after": after.glicko.rating})
        return _rating(player, after, rated=True)

    def propose(self, fen: str, user: User) -> StoredPuzzle:
        """A puzzle from a position set up in the board editor: the generator's line
        (the engine at a fixed node count, the tables where they cover it), kept only
        if every solver move is the only one that keeps the gain; stored and returned.
        Runs searches for a second or two: off the event loop, 20 an hour per account."""
        from poolcheckers.engine import native_available
        from poolcheckers.puzzles.generate import Candidate, Generator

        if not native_available():
            raise PuzzleUnavailable(M_("the engine is not built on this server"))
        try:
            board = Board(fen)
        except PoolCheckersError as error:
            raise PuzzleRequestError(str(error)) from error
        if board.is_game_over() or len(board.legal_moves) < 2:
            raise PuzzleRequestError(
                M_("a puzzle needs a game in progress with at least two moves to choose from")
            )
        if self.quotas is not None:
            decision = self.quotas.hit(PROPOSALS_PER_HOUR, user.id)
            if not decision.allowed:
                raise errors.limit_reached(
                    M_(
                        "at most {limit} puzzles an hour from the board editor",
                        limit=PROPOSALS_PER_HOUR.limit,
                    ),
                    decision.retry_after,
                )
        tables = None
        if self.tables is not None:
            try:
                tables = self.tables()
            except CommunityError:
                tables = None
        made = Generator(tables=tables).puzzle(
            Candidate(board, 0, f"board editor ({user.username})")
        )
        if made is None:
            raise PuzzleRequestError(
                M_(
                    "no puzzle here: no single move wins material, the game or the draw by a clear "
                    "margin over every other (the engine's two best lines, the endgame tables)"
                )
            )
        self._ready()
        self.load([made], "editor")
        # the same position may be a puzzle already: that one is the answer
        stored = self.store.get(made.id) or self.store.by_fen(made.fen)
        assert stored is not None
        return stored

    def vote(self, pid: str, user: User, vote: object) -> dict[str, int]:
        if vote not in (1, -1, 0) or isinstance(vote, bool):
            raise PuzzleRequestError(
                M_("vote must be 1 (up), -1 (down) or 0 (none), not {vote}", vote=repr(vote))
            )
        self.get(pid)
        up, down = self.store.vote(user.id, pid, int(vote))
        return {"up": up, "down": down}

    def standing(self, user_id: str) -> dict[str, Any]:
        perf = self.store.player(user_id)
        if perf is None:
            return {"rating": None, "attempts": 0}
        live = LICHESS.live(perf, self._now_ms() / 1000)
        return {"rating": live.to_dict(), "attempts": perf.games}


def _started(run: Run, stored: StoredPuzzle) -> dict[str, Any]:
    """The answer to a started attempt: its key and the line played so far (the
    moves the player has seen), never the rest of the solution."""
    return {
        "attempt": run.id, "puzzle": run.puzzle_id, "ply": run.ply, "hinted": run.hinted,
        "line": list(stored.puzzle.solution[: run.ply]),
    }  # fmt: skip


def _played(run: Run) -> AttemptOver:
    return AttemptOver(
        M_(
            "ply {ply} of this attempt was played already, or the attempt has ended",
            ply=run.ply,
        )
    )


class _Lost(Exception):
    """A compare-and-set lost to a racing attempt: the transaction is rolled back."""


def _rating(before: Perf, after: Perf, *, rated: bool) -> dict[str, Any]:
    return {
        "rated": rated,
        "before": int(before.glicko.rating),
        "after": int(after.glicko.rating),
        "diff": int(after.glicko.rating) - int(before.glicko.rating),
        "provisional": after.provisional,
    }
