"""A match: the games two players played from the balloted openings, from
player A's point of view, and what they say (W/D/L, score, Elo).

:func:`run_match` plays every opening twice, once with each colour, in this
process; an SPRT test plays pairs (:mod:`poolcheckers.tooling.pool`) and
counts them in an :class:`SprtRun`.  :class:`PdnFile` saves a match's games
as it is played (:func:`write_pdn` once), :func:`resume_pairs` reads them back.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from poolcheckers.board import Board
from poolcheckers.rules import RuleSet
from poolcheckers.tooling.games import (
    Player,
    TimeControl,
    pairings,
    play_clock_game,
    points_of_a,
)
from poolcheckers.tooling.sprt import Pentanomial, Sprt, SprtState, estimate
from poolcheckers.tooling.stats import (
    Z_95,
    EloEstimate,
    elo_estimate,
    format_elo,
    logistic_elo,
    wilson_bound,
)


def games_text(count: int) -> str:
    """``1 game``, ``2 games``.

    >>> games_text(1), games_text(0)
    ('1 game', '0 games')
    """
    return f"{count} game" if count == 1 else f"{count} games"


@dataclass
class GameRecord:
    """A finished game of a match, with player A's points."""

    opening: tuple[str, ...]
    board: Board
    black: str
    white: str
    result: str
    reason: str
    a_is_black: bool
    a_points: float
    seconds: float
    #: the loser's clock ran out (a game with a :class:`TimeControl`)
    time_loss: bool = False
    #: (Black's, White's) clock at the end, with a :class:`TimeControl`
    clock_left: tuple[float, float] | None = None


@dataclass
class MatchResult:
    """The games of a match, from player A's point of view."""

    name_a: str
    name_b: str
    games: list[GameRecord] = field(default_factory=list)

    @property
    def wins(self) -> int:
        return sum(1 for g in self.games if g.a_points == 1.0)

    @property
    def draws(self) -> int:
        return sum(1 for g in self.games if g.a_points == 0.5)

    @property
    def losses(self) -> int:
        return sum(1 for g in self.games if g.a_points == 0.0)

    def record(self) -> str:
        """``+3 =5 -1``: A's wins, draws and losses."""
        return f"+{self.wins} ={self.draws} -{self.losses}"

    def estimate(self) -> EloEstimate:
        return elo_estimate(self.wins, self.draws, self.losses)

    def clock_lines(self) -> list[str]:
        """Time losses of each player and the mean clock left at the end of
        the games it did not lose on time (nothing without a clock)."""
        timed = [g for g in self.games if g.clock_left is not None]
        if not timed:
            return []
        lost = {self.name_a: 0, self.name_b: 0}
        left: dict[str, list[float]] = {self.name_a: [], self.name_b: []}
        for g in timed:
            assert g.clock_left is not None
            a_left, b_left = g.clock_left if g.a_is_black else g.clock_left[::-1]
            loser = None
            if g.time_loss:
                loser = self.name_a if g.a_points == 0.0 else self.name_b
                lost[loser] += 1
            for name, seconds in ((self.name_a, a_left), (self.name_b, b_left)):
                if name != loser:
                    left[name].append(seconds)

        def mean(values: list[float]) -> str:
            return f"{sum(values) / len(values):.2f} s" if values else "-"

        return [
            f"  time losses: {self.name_a} {lost[self.name_a]}, {self.name_b} {lost[self.name_b]}"
            f"; mean clock left at the end: {self.name_a} {mean(left[self.name_a])}, "
            f"{self.name_b} {mean(left[self.name_b])}"
        ]

    def summary(self) -> str:
        """W/D/L, score and Elo of A, in a few lines."""
        if not self.games:
            return "no games played"
        e = self.estimate()
        lines = [
            f"{self.name_a} vs {self.name_b}: {games_text(len(self.games))}",
            f"  +{self.wins} ={self.draws} -{self.losses} (W/D/L of {self.name_a})",
            f"  score {100 * e.score:.1f}% ± {100 * Z_95 * e.stderr:.1f}% (95%)",
            f"  {e.describe()}",
        ]
        lines.extend(self.clock_lines())
        if e.stderr == 0.0 and e.score in (0.0, 1.0):
            bound = wilson_bound(len(self.games))
            if e.score == 1.0:
                lines.append(
                    f"  (a perfect score has no spread: Wilson's 95% bound puts the score "
                    f"above {100 * bound:.1f}%, Elo above {format_elo(logistic_elo(bound))})"
                )
            else:
                lines.append(
                    f"  (a null score has no spread: Wilson's 95% bound puts the score "
                    f"below {100 * (1 - bound):.1f}%, Elo below "
                    f"{format_elo(logistic_elo(1 - bound))})"
                )
        return "\n".join(lines)


def run_match(
    player_a: Player,
    player_b: Player,
    openings: Sequence[tuple[str, ...]],
    *,
    games: int | None = None,
    rules: RuleSet | None = None,
    on_game: Callable[[GameRecord, MatchResult], None] | None = None,
    control: TimeControl | None = None,
) -> MatchResult:
    """Play the pairings of :func:`pairings` (on ``control``'s clock if given);
    ``on_game`` after each game."""
    match = MatchResult(player_a.name, player_b.name)
    for index, a_black in pairings(openings, games):
        black, white = (player_a, player_b) if a_black else (player_b, player_a)
        start = time.perf_counter()
        game = play_clock_game(black, white, openings[index], rules, control)
        points = points_of_a(game.result, a_black)
        record = GameRecord(
            opening=openings[index],
            board=game.board,
            black=black.name,
            white=white.name,
            result=game.result,
            reason=game.reason,
            a_is_black=a_black,
            a_points=points,
            seconds=time.perf_counter() - start,
            time_loss=game.time_loss,
            clock_left=game.clock_left,
        )
        match.games.append(record)
        if on_game is not None:
            on_game(record, match)
    return match


@dataclass
class SprtRun:
    """The pairs of an SPRT match so far, from A's point of view, and the LLR after each."""

    sprt: Sprt | None
    name_a: str
    name_b: str
    pair_points: list[float] = field(default_factory=list)
    llrs: list[float] = field(default_factory=list)
    match: MatchResult | None = None

    @property
    def pentanomial(self) -> Pentanomial:
        return Pentanomial.from_pairs(self.pair_points)

    def add(self, points: float) -> SprtState | None:
        """Count a pair; the test's state after it (None without a test)."""
        self.pair_points.append(points)
        if self.sprt is None:
            return None
        state = self.sprt.state(self.pentanomial)
        self.llrs.append(state.llr)
        return state

    def summary(self) -> str:
        if not self.pair_points:
            return "no game pair finished"
        p = self.pentanomial
        w = d = lo = 0
        if self.match is not None:
            w, d, lo = self.match.wins, self.match.draws, self.match.losses
        lines = [
            f"{self.name_a} vs {self.name_b}: {games_text(p.games)} ({p.pairs} pairs)",
            f"  {self.sprt.describe() if self.sprt else 'fixed number of games'}",
            f"  +{w} ={d} -{lo} (W/D/L of {self.name_a}), "
            f"pentanomial {p} (pairs scoring 0, 1/2, 1, 3/2, 2)",
            f"  score {100 * p.score:.1f}%, {estimate(p).describe()}",
        ]
        if self.match is not None:
            lines.extend(self.match.clock_lines())
        if self.sprt is not None:
            lines.append(f"  {self.sprt.state(p).describe()}")
        return "\n".join(lines)


class PdnFile:
    """The PDN file of a match as it is played: :meth:`save` writes every game
    of the match so far (tags: event, round, players, ballot, termination),
    each game rendered once however often the file is saved, the file written
    beside and then moved onto ``path``, so that a reader (or a match resumed
    from it) never sees half a file, even if this process is killed while
    writing."""

    def __init__(self, path: str | Path, event: str) -> None:
        self.path = Path(path)
        self.event = event
        self._texts: list[str] = []

    def save(self, match: MatchResult) -> None:
        from poolcheckers.pdn import game_from_board, write_game

        for number in range(len(self._texts) + 1, len(match.games) + 1):
            game = match.games[number - 1]
            tags = {
                "Event": self.event,
                "Round": str(number),
                "Black": game.black,
                "White": game.white,
                "Ballot": " ".join(game.opening),
                "Termination": game.reason,
            }
            self._texts.append(write_game(game_from_board(game.board, tags, game.result)))
        partial = self.path.with_name(f".{self.path.name}.partial")
        partial.write_text("\n".join(self._texts), encoding="utf-8")
        os.replace(partial, self.path)


def write_pdn(match: MatchResult, path: str | Path, event: str) -> None:
    """Save every game of ``match`` as PDN (:class:`PdnFile`)."""
    PdnFile(path, event).save(match)


@dataclass
class ResumedPairs:
    """The pairs of a match's PDN file, read back to go on with the match."""

    #: the games, in the file's order (two a pair)
    records: list[GameRecord] = field(default_factory=list)
    #: A's points in each pair, in the file's order
    pair_points: list[float] = field(default_factory=list)
    #: the numbers of the pairs they stand for (see :func:`resume_pairs`)
    done: set[int] = field(default_factory=set)


def resume_pairs(
    path: str | Path,
    *,
    event: str,
    name_a: str,
    name_b: str,
    openings: Sequence[tuple[str, ...]],
    pairs: int,
    rules: RuleSet,
) -> ResumedPairs:
    """The finished pairs that :class:`PdnFile` saved in ``path`` for a pairs
    match of ``pairs`` pairs over ``openings`` (pair ``n`` plays opening
    ``n % len(openings)``, A with Black first), so that the match plays only
    the others.  A missing file is a match not started yet (nothing done).

    A pair of the file stands for the first pair number of its opening not
    taken yet: the pairs finish in any order, but which opening each one
    played is all that the count needs.  The games must be this match's: its
    ``event`` (players, bound per move, test), A and B on the colours of a
    pair, openings of ``openings``, finished games under ``rules``;
    anything else raises :class:`~poolcheckers.tooling.ToolingError` naming
    the game and what differs, before any game is played.
    """
    from poolcheckers.errors import PdnError
    from poolcheckers.pdn import read_file
    from poolcheckers.tooling import ToolingError
    from poolcheckers.tooling.games import TIME_FORFEIT

    target = Path(path)
    resumed = ResumedPairs()
    if not target.exists():
        return resumed
    try:
        games = read_file(target, rules)
    except (OSError, PdnError) as exc:
        raise ToolingError(f"cannot resume from {target}: {exc}") from None
    if len(games) % 2:
        raise ToolingError(
            f"cannot resume from {target}: {games_text(len(games))}, not whole pairs "
            "(a pairs match saves two games an opening)"
        )
    numbers: dict[tuple[str, ...], list[int]] = {}
    for number in range(pairs - 1, -1, -1):  # popped from the end: smallest first
        numbers.setdefault(tuple(openings[number % len(openings)]), []).append(number)
    for first in range(0, len(games), 2):
        points = 0.0
        opening: tuple[str, ...] = ()
        for game, a_black in ((games[first], True), (games[first + 1], False)):
            where = f"{target}, game {game.number} (line {game.line})"
            black, white = (name_a, name_b) if a_black else (name_b, name_a)
            found = (game.tags.get("Event", ""), game.tags.get("Black"), game.tags.get("White"))
            if found != (event, black, white):
                raise ToolingError(
                    f"{where}: Event {found[0]!r}, Black {found[1]!r}, White {found[2]!r}; this "
                    f"match is Event {event!r}, Black {black!r}, White {white!r} (a match goes "
                    "on with the same players, bound per move and test)"
                )
            ballot = tuple(game.tags.get("Ballot", "").split())
            if a_black:
                opening = ballot
            elif ballot != opening:
                raise ToolingError(f"{where}: Ballot {' '.join(ballot)!r} is not its pair's")
            if game.rules != rules:
                raise ToolingError(f"{where}: played under {game.rules.name}, not {rules.name}")
            result = game.normalized_result
            if result not in ("2-0", "0-2", "1-1"):
                raise ToolingError(f"{where}: result {game.result!r} is not a finished game's")
            board = game.board()  # its moves were checked as they were read
            if tuple(game.notations()[: len(ballot)]) != ballot:
                raise ToolingError(f"{where}: the moves do not start with its Ballot")
            reason = game.tags.get("Termination", "")
            record = GameRecord(
                opening=ballot,
                board=board,
                black=black,
                white=white,
                result=result,
                reason=reason,
                a_is_black=a_black,
                a_points=points_of_a(result, a_black),
                seconds=0.0,  # not saved: the file's games count, not their time
                time_loss=reason.startswith(TIME_FORFEIT),
            )
            resumed.records.append(record)
            points += record.a_points
        left = numbers.get(opening)
        if left is None:
            raise ToolingError(
                f"{target}, game {games[first].number}: its Ballot "
                f"{' '.join(opening)!r} is none of this match's openings"
            )
        if not left:
            raise ToolingError(
                f"{target}: more pairs of {' '.join(opening)!r} than this match of "
                f"{games_text(2 * pairs)} plays (a larger --games goes on with them)"
            )
        resumed.done.add(left.pop())
        resumed.pair_points.append(points)
    return resumed
