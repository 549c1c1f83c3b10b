"""``poolcheckers match``: the engine against itself at two settings.

Two players (two strength levels, or two evaluation weight files) play every
balloted opening (``poolcheckers/data/ballots.txt`` by default: three plies
from the start, one line each) twice, once with each colour, at a fixed time
(or depth) per move.  The command prints wins, draws and losses of player A,
its score and the Elo difference with a 95 % interval; it can save the games
as PDN and plot the running score.

How the Elo difference is computed (:func:`elo_estimate`): the score of A is
``p = (W + D/2) / N``; the Elo difference that a logistic model gives for it
is ``-400·log10(1/p - 1)``.  The standard error of ``p`` is ``sqrt(v / N)``,
where ``v`` is the variance of the per-game scores (1, ½, 0) about ``p``
(draws lower it); the 95 % interval of the Elo difference is the same
formula applied to ``p ± 1.96·SE`` (infinite when a bound reaches 0 % or 100 %).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

from poolcheckers.board import Board
from poolcheckers.cli import UsageError
from poolcheckers.commands.common import (
    MAX_LEVEL,
    MIN_LEVEL,
    EngineLike,
    add_engine_arguments,
    help_description,
    make_limit,
    open_engine,
    quiet_broken_pipe,
)
from poolcheckers.errors import PoolCheckersError
from poolcheckers.move import Move
from poolcheckers.pieces import Color
from poolcheckers.rules import RuleSet

#: The balloted openings shipped with the package.
DEFAULT_BALLOTS: Final = Path(__file__).resolve().parent.parent / "data" / "ballots.txt"

#: Normal quantile of a two-sided 95 % interval.
Z_95: Final = 1.959963984540054

#: PDN results by winner (CONTRACTS.md §1: the first score is Black's).
_RESULT_OF_WINNER: Final = {Color.BLACK: "2-0", Color.WHITE: "0-2", None: "1-1"}


# ----------------------------------------------------------------- Elo
@dataclass(frozen=True)
class EloEstimate:
    """Player A's score over ``games`` games and the Elo difference it implies."""

    games: int
    score: float  # fraction of the points, 0..1
    stderr: float  # standard error of ``score``
    elo: float  # A minus B; ±inf at 100 % / 0 %
    low: float  # 95 % interval of ``elo``
    high: float

    def describe(self) -> str:
        """``Elo +35 (95% interval -10 .. +81)``."""
        return (
            f"Elo {_fmt_elo(self.elo)} (95% interval {_fmt_elo(self.low)} .. {_fmt_elo(self.high)})"
        )


def _fmt_elo(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


def elo_from_score(score: float) -> float:
    """The logistic Elo difference of a score fraction: ``-400·log10(1/p - 1)``.

    >>> elo_from_score(0.5), round(elo_from_score(0.75), 1), elo_from_score(1.0)
    (0.0, 190.8, inf)
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def elo_estimate(wins: int, draws: int, losses: int) -> EloEstimate:
    """Score, its standard error and the Elo difference with a 95 % interval.

    >>> e = elo_estimate(6, 8, 2)
    >>> e.score, round(e.elo), round(e.low), round(e.high)
    (0.625, 89, -26, 227)
    """
    games = wins + draws + losses
    if games == 0:
        raise ValueError("no games: the Elo difference is undefined")
    score = (wins + 0.5 * draws) / games
    variance = (
        wins * (1.0 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * (0.0 - score) ** 2
    ) / games
    stderr = math.sqrt(variance / games)
    return EloEstimate(
        games=games,
        score=score,
        stderr=stderr,
        elo=elo_from_score(score),
        low=elo_from_score(score - Z_95 * stderr),
        high=elo_from_score(score + Z_95 * stderr),
    )


def wilson_bound(games: int) -> float:
    """Wilson's 95 % lower bound on the score after winning all ``games`` games.

    The normal interval of :func:`elo_estimate` collapses to a point at a
    perfect score; Wilson's score interval does not: its lower end for a
    score of 100 % is ``n / (n + z²)``.

    >>> round(wilson_bound(100), 4), round(elo_from_score(wilson_bound(100)))
    (0.963, 566)
    """
    return games / (games + Z_95 * Z_95)


# ----------------------------------------------------------------- openings
def load_ballots(path: str | Path, rules: RuleSet | None = None) -> list[tuple[str, ...]]:
    """The openings of a ballot file: one line of moves from the start each.

    Blank lines and text after ``#`` are ignored; every move must be legal
    (raises :class:`UsageError` naming the line).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read ballot file {path}: {exc.strerror}") from None
    openings: list[tuple[str, ...]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        board = Board(rules=rules)
        moves: list[str] = []
        for token in line.split():
            try:
                moves.append(board.notation(board.push_notation(token)))
            except PoolCheckersError as exc:
                raise UsageError(f"{path}, line {number}: {exc}") from None
        openings.append(tuple(moves))
    if not openings:
        raise UsageError(f"ballot file {path} holds no opening")
    return openings


# ----------------------------------------------------------------- players and games
class Player(Protocol):
    """One side of a match."""

    @property
    def name(self) -> str:
        """The name written in the PDN roster."""

    def choose(self, board: Board) -> Move:
        """The move to play on ``board`` (one of its legal moves)."""


@dataclass
class EnginePlayer:
    """The engine at a level (and its own table) with a fixed limit per move."""

    engine: EngineLike
    limit: Any
    level: int | None
    name: str

    def choose(self, board: Board) -> Move:
        """The engine's move; an engine that returns no legal move is an error."""
        result = self.engine.search(board, self.limit, level=self.level)
        legal = board.legal_moves
        if result.move is None or result.move not in legal:
            raise RuntimeError(f"{self.name} returned {result.move!r}, not a legal move")
        return legal[legal.index(result.move)]


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


def play_game(
    black: Player,
    white: Player,
    opening: Sequence[str],
    rules: RuleSet | None = None,
) -> tuple[Board, str, str]:
    """Play ``opening`` from the start, then the players until the rules end it.

    Returns the board (with its move stack), the PDN result and the reason.
    """
    board = Board(rules=rules)
    for text in opening:
        board.push_notation(text)
    while (outcome := board.outcome()) is None:
        player = black if board.turn is Color.BLACK else white
        board.push(player.choose(board.copy()))
    return board, _RESULT_OF_WINNER[outcome.winner], outcome.reason()


def _points_of_a(result: str, a_black: bool) -> float:
    """A's points for a PDN result (``2-0`` Black won, ``0-2`` White won).

    >>> _points_of_a("2-0", True), _points_of_a("2-0", False), _points_of_a("1-1", True)
    (1.0, 0.0, 0.5)
    """
    if result == "1-1":
        return 0.5
    return 1.0 if (result == "2-0") == a_black else 0.0


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

    def estimate(self) -> EloEstimate:
        return elo_estimate(self.wins, self.draws, self.losses)

    def summary(self) -> str:
        """W/D/L, score and Elo of A, in a few lines."""
        if not self.games:
            return "no games played"
        e = self.estimate()
        lines = [
            f"{self.name_a} vs {self.name_b}: {_games(len(self.games))}",
            f"  +{self.wins} ={self.draws} -{self.losses} (W/D/L of {self.name_a})",
            f"  score {100 * e.score:.1f}% ± {100 * Z_95 * e.stderr:.1f}% (95%)",
            f"  {e.describe()}",
        ]
        if e.stderr == 0.0 and e.score in (0.0, 1.0):
            bound = wilson_bound(len(self.games))
            if e.score == 1.0:
                lines.append(
                    f"  (a perfect score has no spread: Wilson's 95% bound puts the score "
                    f"above {100 * bound:.1f}%, Elo above {_fmt_elo(elo_from_score(bound))})"
                )
            else:
                lines.append(
                    f"  (a null score has no spread: Wilson's 95% bound puts the score "
                    f"below {100 * (1 - bound):.1f}%, Elo below "
                    f"{_fmt_elo(elo_from_score(1 - bound))})"
                )
        return "\n".join(lines)


def pairings(openings: Sequence[tuple[str, ...]], games: int | None) -> list[tuple[int, bool]]:
    """(opening index, A plays Black) for each game: each opening with both colours.

    >>> pairings([("11-15",), ("9-13",)], 3)
    [(0, True), (0, False), (1, True)]
    """
    order = [(i, a_black) for i in range(len(openings)) for a_black in (True, False)]
    return order if games is None else order[:games]


def run_match(
    player_a: Player,
    player_b: Player,
    openings: Sequence[tuple[str, ...]],
    *,
    games: int | None = None,
    rules: RuleSet | None = None,
    on_game: Callable[[GameRecord, MatchResult], None] | None = None,
) -> MatchResult:
    """Play the pairings of :func:`pairings`; ``on_game`` after each game."""
    match = MatchResult(player_a.name, player_b.name)
    for index, a_black in pairings(openings, games):
        black, white = (player_a, player_b) if a_black else (player_b, player_a)
        start = time.perf_counter()
        board, result, reason = play_game(black, white, openings[index], rules)
        points = _points_of_a(result, a_black)
        record = GameRecord(
            opening=openings[index],
            board=board,
            black=black.name,
            white=white.name,
            result=result,
            reason=reason,
            a_is_black=a_black,
            a_points=points,
            seconds=time.perf_counter() - start,
        )
        match.games.append(record)
        if on_game is not None:
            on_game(record, match)
    return match


# ----------------------------------------------------------------- output
def _games(count: int) -> str:
    return f"{count} game" if count == 1 else f"{count} games"


def write_pdn(match: MatchResult, path: str | Path, event: str) -> None:
    """Save every game of ``match`` as PDN (tags: event, round, players, ballot)."""
    from poolcheckers.pdn import game_from_board, write_game

    texts = []
    for number, game in enumerate(match.games, start=1):
        tags = {
            "Event": event,
            "Round": str(number),
            "Black": game.black,
            "White": game.white,
            "Ballot": " ".join(game.opening),
            "Termination": game.reason,
        }
        texts.append(write_game(game_from_board(game.board, tags, game.result)))
    Path(path).write_text("\n".join(texts), encoding="utf-8")


def plot_match(match: MatchResult, path: str | Path, title: str) -> None:
    """A PNG of A's running score (%) over the games, with its 95 % band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    xs: list[int] = []
    scores: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    w = d = lo = 0
    for n, game in enumerate(match.games, start=1):
        w += game.a_points == 1.0
        d += game.a_points == 0.5
        lo += game.a_points == 0.0
        e = elo_estimate(w, d, lo)
        xs.append(n)
        scores.append(100 * e.score)
        lows.append(max(0.0, 100 * (e.score - Z_95 * e.stderr)))
        highs.append(min(100.0, 100 * (e.score + Z_95 * e.stderr)))
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.fill_between(xs, lows, highs, color="tab:blue", alpha=0.2, label="95% interval")
    ax.plot(xs, scores, color="tab:blue", marker="." if len(xs) <= 60 else None,
            label=f"score of {match.name_a}")  # fmt: skip
    ax.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylim(-3, 103)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("games")
    ax.set_ylabel("score (%)")
    final = (
        f"+{match.wins} ={match.draws} -{match.losses}, {match.estimate().describe()}"
        if match.games
        else "no games"
    )
    ax.set_title(f"{title}\n{final}", fontsize=10)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ----------------------------------------------------------------- the command
def _limit_from_args(args: argparse.Namespace) -> Any:
    if args.depth is not None:
        if args.depth < 1:
            raise UsageError(f"--depth must be >= 1, not {args.depth}")
        return make_limit(depth=args.depth)
    if not args.time > 0:
        raise UsageError(f"--time must be > 0 seconds, not {args.time}")
    return make_limit(time=args.time)


def _check_level(name: str, level: int) -> int:
    if not MIN_LEVEL <= level <= MAX_LEVEL:
        raise UsageError(f"{name} must be {MIN_LEVEL}..{MAX_LEVEL}, not {level}")
    return level


def _player_name(level: int, weights: str | None) -> str:
    return f"poolcheckers L{level}" + (f" ({Path(weights).name})" if weights else "")


@quiet_broken_pipe
def run(
    args: argparse.Namespace,
    *,
    engine_factory: Callable[[int, RuleSet, str | None], EngineLike] | None = None,
    limit: Any = None,
    out: Any = None,
) -> int:
    """Play the match of ``args``; print the result (and save PDN / plot)."""
    out = out if out is not None else sys.stdout
    rules = RuleSet.from_options(args.rules)
    level_a = _check_level("--level-a", args.level_a)
    level_b = _check_level("--level-b", args.level_b)
    if args.games is not None and args.games < 1:
        raise UsageError(f"--games must be >= 1, not {args.games}")
    openings = load_ballots(args.ballots, rules)
    for option, path in (("--pdn", args.pdn), ("--plot", args.plot)):
        if path:
            _check_writable(option, path)  # before the games, not after them
    factory = engine_factory or open_engine
    limit = limit if limit is not None else _limit_from_args(args)
    name_a = _player_name(level_a, args.weights_a)
    name_b = _player_name(level_b, args.weights_b)
    if name_a == name_b:
        name_a, name_b = f"{name_a} (A)", f"{name_b} (B)"
    player_a = EnginePlayer(factory(args.hash, rules, args.weights_a), limit, level_a, name_a)
    player_b = EnginePlayer(factory(args.hash, rules, args.weights_b), limit, level_b, name_b)
    total = len(pairings(openings, args.games))
    per_move = f"depth {args.depth}" if args.depth is not None else f"{args.time:g} s/move"
    print(f"{name_a} vs {name_b}: {_games(total)}, {per_move}, rules {rules.name}", file=out)

    from tqdm import tqdm

    so_far = MatchResult(name_a, name_b)  # the games finished, kept if Ctrl-C comes
    interrupted = False
    with tqdm(total=total, desc="match", unit="game", file=sys.stderr, disable=None) as bar:

        def on_game(record: GameRecord, match: MatchResult) -> None:
            nonlocal so_far
            so_far = match
            bar.update(1)
            bar.set_postfix_str(f"+{match.wins} ={match.draws} -{match.losses}")

        try:
            match = run_match(
                player_a, player_b, openings, games=args.games, rules=rules, on_game=on_game
            )
        except KeyboardInterrupt:
            match, interrupted = so_far, True
    if interrupted and not match.games:
        print("interrupted before the first game ended: nothing to count", file=out)
        return 130
    if interrupted:
        print(f"interrupted: the {_games(len(match.games))} finished so far count", file=out)
    print(match.summary(), file=out)
    print(
        "  (Elo from the score p: -400*log10(1/p - 1); interval from p ± 1.96 standard "
        "errors of the per-game scores)",
        file=out,
    )
    event = f"poolcheckers match {name_a} vs {name_b}"
    status = 0
    for path, save, what in ((args.pdn, write_pdn, "games"), (args.plot, plot_match, "plot")):
        if not path:
            continue
        try:
            save(match, path, event)
        except OSError as exc:
            print(f"poolcheckers match: error: cannot write {path}: {exc}", file=sys.stderr)
            status = 1
        else:
            print(f"{what} saved to {path}", file=out)
    return 130 if interrupted else status


def _check_writable(option: str, path: str) -> None:
    """Raise :class:`UsageError` when ``path`` cannot be written (a missing
    folder, a folder in its place, no permission)."""
    target = Path(path)
    folder = target.parent
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: the folder {folder} does not exist")
    if target.is_dir():
        raise UsageError(f"{option} {path} is a folder")
    if not os.access(target if target.exists() else folder, os.W_OK):
        raise UsageError(f"{option} {path}: no permission to write there")


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--level-a", type=int, default=MAX_LEVEL, help="level of A (1-10)")
    parser.add_argument("--level-b", type=int, default=MAX_LEVEL, help="level of B (1-10)")
    parser.add_argument("--weights-a", metavar="FILE.json", help="evaluation weights of A")
    parser.add_argument("--weights-b", metavar="FILE.json", help="evaluation weights of B")
    parser.add_argument(
        "--ballots",
        default=str(DEFAULT_BALLOTS),
        metavar="FILE",
        help="openings, one line of moves each (default: the shipped 3-move ballots)",
    )
    parser.add_argument("--time", type=float, default=0.1, help="seconds per move (default 0.1)")
    parser.add_argument("--depth", type=int, help="fixed depth per move instead of --time")
    parser.add_argument("--games", type=int, help="stop after this many games")
    parser.add_argument("--pdn", metavar="OUT.pdn", help="save the games as PDN")
    parser.add_argument("--plot", metavar="OUT.png", help="plot the running score")
    parser.add_argument(
        "--rules",
        nargs="*",
        default=[],
        metavar="OPTION=VALUE",
        help="rule options of RULES.md §9",
    )
    add_engine_arguments(parser)


def register(subparsers: Any) -> None:
    """Add the ``match`` sub-command."""
    parser = subparsers.add_parser(
        "match",
        help="engine against engine over balloted openings: W/D/L, Elo, PDN, plot",
        description=help_description(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(parser)
    parser.set_defaults(func=run)
