"""Puzzles found in games, the way lichess-puzzler finds them, with the engine and the
endgame tables (docs/PUZZLES.md).

1. Games: the engine's self-play from random openings (each side at a weak level,
   so that it errs), or any PDN.
2. Scan: every position of a game gets a quick two-line search; a candidate is a
   position where the side to move gains at least a man over what the last move
   left it (the opponent erred) and has a best move clearly better than its second.
3. Line: from a candidate, the solver's best move is kept only when it is the only
   one that keeps the gain: a two-line search at a fixed node count, the second line
   at least ``margin`` centi-men worse (or not a win when the first is); in positions
   the tables cover, by the tables exactly (one move keeps the win, or the draw).
   The opponent's replies are its best. The line stops when the gain is won (the
   exchange over) or the game is; trailing solver moves that had no alternative are
   cut, so the line ends on a solver move with a choice.
4. Each puzzle keeps its source (game, ply), its themes
   (:mod:`~poolcheckers.puzzles.themes`) and a starting rating from its difficulty:
   the search depth from which the engine keeps the first move, the solver moves,
   whether it starts with a sacrifice.

Every search starts from an empty hash table at a fixed node count, so a run is
reproducible from its seed and a puzzle can be checked again (:func:`verify`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from poolcheckers.board import Board
from poolcheckers.egdb import Tablebase
from poolcheckers.engine import (
    Engine,
    SearchResult,
    make_limit,
    open_engine,
    tables_move_values,
)
from poolcheckers.move import Move
from poolcheckers.pieces import Color, PieceType
from poolcheckers.puzzles.record import Goal, Puzzle, puzzle_id
from poolcheckers.puzzles.themes import tag

#: a score this high is a forced win found by the search (mate scores are 20000 - plies)
WIN_SCORE = 15_000


@dataclass(frozen=True, slots=True)
class Settings:
    """How hard the generator looks (the defaults are the shipped set's)."""

    #: nodes of the two-line search that decides each solver move
    nodes: int = 300_000
    #: nodes of the quick scan of every game position
    scan_nodes: int = 20_000
    #: the second-best move is at least this much worse (centi-men)
    margin: int = 150
    #: the evaluation of those searches: the shipped set's uniqueness was checked with
    #: the pattern evaluation, and a verdict must not move with the engine's default
    evaluation: str = "pattern"
    #: the gain a puzzle must bring, in men (a king counts 2)
    gain: int = 1
    #: the longest line, in plies
    max_plies: int = 19
    #: self-play: the most plies of a game, the random opening plies, the weak levels
    game_plies: int = 160
    opening_plies: tuple[int, int] = (2, 8)
    levels: tuple[int, ...] = (2, 3, 4, 5, 6)
    #: nodes a move of the self-play (level searches are capped by depth too)
    play_nodes: int = 40_000
    hash_mb: int = 16
    #: puzzles from the tables' exact lines kept from one game (the end of a game
    #: gives one after another, all alike)
    table_puzzles_per_game: int = 1


@dataclass(slots=True)
class Candidate:
    board: Board
    ply: int
    game: str


@dataclass(slots=True)
class Found:
    """What the generator made of one game: its puzzles and how many candidates."""

    game: str
    positions: int = 0
    candidates: int = 0
    puzzles: list[Puzzle] = field(default_factory=list)


def material(board: Board, color: Color) -> int:
    """Men and kings of ``color``, a king counting 2."""
    return len(board.pieces(color, PieceType.MAN)) + 2 * len(board.pieces(color, PieceType.KING))


def balance(board: Board, color: Color) -> int:
    return material(board, color) - material(board, color.opponent)


class Generator:
    """Finds puzzles with one engine (and the tables, when given)."""

    def __init__(self, settings: Settings | None = None, tables: Tablebase | None = None) -> None:
        self.settings = settings or Settings()
        self.tables = tables
        self.engine: Engine = open_engine(
            hash_mb=self.settings.hash_mb, evaluation=self.settings.evaluation
        )

    # ------------------------------------------------------------------ searching
    def lines(self, board: Board, nodes: int, count: int = 2) -> list[SearchResult]:
        """The best ``count`` lines at ``nodes``, from an empty hash table."""
        self.engine.clear()
        result = self.engine.search(board, make_limit(nodes=nodes), multipv=count)
        return list(result.lines) or [result]

    def table_values(self, board: Board) -> dict[Move, str] | None:
        """Each legal move's value for the side to move ("win", "draw", "loss"), from the
        tables (the engine facade's reading, as the analysis board shows it); None when
        they do not cover the position."""
        if self.tables is None:
            return None
        values = tables_move_values(self.tables, board)
        return None if values is None else {move: value for move, value, _dtz in values}

    def _table_choice(self, board: Board) -> bool:
        """Whether the tables cover ``board`` and exactly one move keeps its value
        (the only win, or the only draw where every other move loses)."""
        values = self.table_values(board)
        if not values:
            return False
        for value in ("win", "draw"):
            if value in values.values():
                return list(values.values()).count(value) == 1
        return False

    # ------------------------------------------------------------------ games
    def self_play(self, seed: int) -> list[Move]:
        """A game of the engine against itself from a random opening (``seed``)."""
        s = self.settings
        rng = random.Random(seed)
        engine = open_engine(hash_mb=s.hash_mb, seed=seed, evaluation=s.evaluation)
        board = Board()
        moves: list[Move] = []
        for _ in range(rng.randint(*s.opening_plies)):
            if board.is_game_over():
                break
            move = rng.choice(board.legal_moves)
            board.push(move)
            moves.append(move)
        levels = {Color.BLACK: rng.choice(s.levels), Color.WHITE: rng.choice(s.levels)}
        while len(moves) < s.game_plies and not board.is_game_over():
            result = engine.search(board, make_limit(nodes=s.play_nodes), level=levels[board.turn])
            board.push(result.move)
            moves.append(result.move)
        return moves

    def scan(self, start: Board, moves: Sequence[Move], game: str) -> Iterator[Candidate]:
        """The positions of a game where the side to move may have a puzzle."""
        s = self.settings
        board = start.copy(stack=False)
        previous: int | None = None  # the last position's best score, for its mover
        for ply in range(len(moves) + 1):
            if board.is_game_over():
                return
            legal = board.legal_moves
            best = self.lines(board, s.scan_nodes)
            score = best[0].score
            if len(legal) > 1 and self._table_choice(board):
                yield Candidate(board.copy(), ply, game)
            elif previous is not None and len(legal) > 1 and len(best) > 1:
                # the last move gave this much, or the best line wins material not yet
                # taken (the error came earlier, through forced captures)
                jumped = score + previous >= s.gain * 100 or (
                    score - 100 * balance(board, board.turn) >= s.gain * 100
                )
                clear = score - best[1].score >= s.margin or (score >= WIN_SCORE > best[1].score)
                if jumped and clear and score >= s.gain * 100:
                    yield Candidate(board.copy(), ply, game)
            previous = score
            if ply < len(moves):
                board.push(moves[ply])

    # ------------------------------------------------------------------ puzzles
    def puzzle(self, candidate: Candidate) -> Puzzle | None:
        """The puzzle of a candidate position, or None when its line is not unique or
        brings too little."""
        start = candidate.board
        built = self._table_line(start.copy(stack=False)) or self._engine_line(
            start.copy(stack=False)
        )
        if built is None:
            return None
        goal, line = built
        solution = _notation(start, line)
        themes = tag(start, line)
        if goal != "material" and self.tables is not None and self.table_values(start):
            themes = sorted({*themes, "endgame_technique"})
        puzzle = Puzzle(
            puzzle_id(start.fen(), solution),
            start.fen(),
            solution,
            goal,
            self.rating(start, line, themes),
            tuple(themes),
            {"game": candidate.game, "ply": candidate.ply},
        )
        # the line was built with the hash table of its own searches: the stored puzzle
        # must pass the check anyone can run again from an empty table
        return puzzle if verify(self, puzzle) is None else None

    def _engine_line(self, board: Board) -> tuple[Goal, list[Move]] | None:
        s = self.settings
        solver = board.turn
        base = balance(board, solver)
        line: list[Move] = []
        choice: list[bool] = []  # for each solver move: had it an alternative
        won = False
        while len(line) < s.max_plies and not board.is_game_over():
            if board.turn == solver:
                legal = board.legal_moves
                best = self.lines(board, s.nodes)
                if len(legal) > 1 and (
                    len(best) < 2 or not _clearly_better(best[0], best[1], s.margin)
                ):
                    break
                move = best[0].move
                board.push(move)
                line.append(move)
                choice.append(len(legal) > 1)
                if board.is_game_over():
                    outcome = board.outcome()
                    won = outcome is not None and outcome.winner == solver
                    break
                if balance(board, solver) - base >= s.gain and not board.has_capture():
                    break
            else:
                reply = self.lines(board, s.nodes, 1)[0].move
                board.push(reply)
                line.append(reply)
        gained = balance(board, solver) - base
        if not won and gained < s.gain:
            return None
        trimmed = _trim(line, choice)
        if not trimmed:
            return None
        return ("win" if won else "material"), trimmed

    def _table_line(self, board: Board) -> tuple[Goal, list[Move]] | None:
        """In a position the tables cover: the solver's moves while exactly one keeps
        the value (a win or a draw), the replies the tables' best (the longest defence
        is not needed: any reply keeping the value)."""
        values = self.table_values(board)
        if values is None:
            return None
        keep = {v for v in values.values()}
        goal: Goal | None = "win" if "win" in keep else "draw" if "draw" in keep else None
        if goal is None or len(values) < 2:
            return None
        target = goal
        solver = board.turn
        line: list[Move] = []
        choice: list[bool] = []
        while len(line) < self.settings.max_plies and not board.is_game_over():
            values = self.table_values(board)
            if values is None:
                break
            if board.turn == solver:
                keeping = [m for m, v in values.items() if v == target]
                if len(keeping) != 1:
                    break
                board.push(keeping[0])
                line.append(keeping[0])
                choice.append(len(values) > 1)
            else:
                # the reply that is best for the defender (a loss for it is a "loss")
                order = {"win": 0, "draw": 1, "loss": 2}
                reply = min(values, key=lambda m: (order[values[m]], str(m)))
                board.push(reply)
                line.append(reply)
        trimmed = _trim(line, choice)
        if not trimmed:
            return None
        return goal, trimmed

    def rating(self, start: Board, line: Sequence[Move], themes: Sequence[str]) -> int:
        """A starting rating from the puzzle's difficulty: the depth from which the
        engine keeps the first move (deeper: harder), the solver moves, a sacrifice,
        a first move that is a capture (compulsory, so easier to see)."""
        first = line[0]
        depths: list[tuple[int, Move]] = []
        self.engine.clear()
        self.engine.search(
            start,
            make_limit(nodes=self.settings.nodes, depth=24),
            on_info=lambda r: depths.append((r.depth, r.move)),
        )
        found = next(
            (d for i, (d, _m) in enumerate(depths) if all(m == first for _d, m in depths[i:])),
            depths[-1][0] if depths else 1,
        )
        solver_moves = (len(line) + 1) // 2
        rating = 1000 + 60 * found + 120 * (solver_moves - 1)
        if "sacrifice" in themes:
            rating += 200
        if first.captured:
            rating -= 150
        return max(600, min(2600, rating))

    def game(self, start: Board, moves: Sequence[Move], game: str) -> Found:
        """The puzzles of one game (no two from overlapping stretches of it)."""
        found = Found(game, positions=len(moves) + 1)
        busy_until = -1
        exact = 0
        for candidate in self.scan(start, moves, game):
            if candidate.ply <= busy_until:
                continue
            covered = self.table_values(candidate.board) is not None
            if covered and exact >= self.settings.table_puzzles_per_game:
                continue
            found.candidates += 1
            puzzle = self.puzzle(candidate)
            if puzzle is not None:
                found.puzzles.append(puzzle)
                exact += covered
                busy_until = candidate.ply + len(puzzle.solution)
        return found


def _clearly_better(best: SearchResult, second: SearchResult, margin: int) -> bool:
    if best.score >= WIN_SCORE:
        return second.score < WIN_SCORE
    return best.score - second.score >= margin


def _trim(line: list[Move], choice: list[bool]) -> list[Move]:
    """Cut the trailing moves without alternatives: the line ends on a solver move
    that had a choice (``choice[k]``: the k-th solver move had one)."""
    keep = max((k for k, c in enumerate(choice) if c), default=-1)
    return line[: 2 * keep + 1] if keep >= 0 else []


def _notation(start: Board, line: Sequence[Move]) -> tuple[str, ...]:
    """The line in R4 notation (the shortest unambiguous form in its position)."""
    board = start.copy(stack=False)
    out = []
    for move in line:
        out.append(board.notation(move))
        board.push(move)
    return tuple(out)


def verify(generator: Generator, puzzle: Puzzle) -> str | None:
    """Check a puzzle's uniqueness again: at each solver move that had a choice, the
    move played is the only one that keeps the goal (by the tables for a win or a
    draw they cover; else the best of a two-line search, clearly better than the
    second).  None when it holds; else what fails, naming the move."""
    board = Board(puzzle.fen)
    solver = board.turn
    s = generator.settings
    for i, text in enumerate(puzzle.solution):
        move = board.parse_move(text)
        if board.turn == solver and len(board.legal_moves) > 1:
            values = generator.table_values(board) if puzzle.goal != "material" else None
            if values is not None:
                keeping = [m for m, v in values.items() if v == puzzle.goal]
                if keeping != [move]:
                    shown = ", ".join(board.notation(m) for m in keeping) or "none"
                    return f"move {i + 1} {text}: the tables keep the {puzzle.goal} with {shown}"
            else:
                best = generator.lines(board, s.nodes)
                if best[0].move != move:
                    return f"move {i + 1} {text}: the search prefers {board.notation(best[0].move)}"
                if len(best) > 1 and not _clearly_better(best[0], best[1], s.margin):
                    return (
                        f"move {i + 1} {text}: {board.notation(best[1].move)} is nearly as good "
                        f"({best[1].score} against {best[0].score})"
                    )
        board.push(move)
    return None
