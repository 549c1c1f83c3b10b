"""``poolcheckers play``: a game in the terminal, against the engine or a second person.

Moves are typed in R4 notation (``11-15``, ``15x22``, ``1x10x19``; a
shorthand that names one legal move is accepted).  Commands:

  undo        take back your last move (and the engine's reply)
  hint        the engine's suggestion for the side to move
  draw        offer a draw (the engine accepts when its evaluation is within
              a quarter of a man of equality or worse for it, and it has not
              found a forced win; a second person is asked)
  resign      give up the game (R20)
  save FILE   write the game so far as PDN
  board       show the board again
  moves       list the legal moves
  help        this text
  quit        leave

Input is read line by line from standard input, so a game can be piped in;
no terminal is needed.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, TextIO

from poolcheckers.board import Board
from poolcheckers.cli import UsageError, add_position_arguments, board_from_args
from poolcheckers.commands.common import (
    MAX_LEVEL,
    MIN_LEVEL,
    EngineLike,
    add_engine_arguments,
    format_score,
    make_limit,
    open_engine,
)
from poolcheckers.errors import MoveError
from poolcheckers.pieces import Color
from poolcheckers.rules import Outcome, Termination

#: The engine accepts a draw when its evaluation is at most this (centi-men, its own view).
DRAW_ACCEPT_MARGIN: Final = 25

#: Seconds the engine thinks for a hint or a draw offer.
HINT_TIME: Final = 1.0

HELP: Final = "\n\n".join((__doc__ or "").split("\n\n")[1:3]).replace("``", "") + "\n"


class PlaySession:
    """One game between ``humans`` (one or two colours) and the engine."""

    def __init__(
        self,
        board: Board,
        *,
        humans: frozenset[Color],
        engine_factory: Callable[[], EngineLike],
        limit: Any,
        hint_limit: Any,
        level: int,
        stdin: TextIO,
        stdout: TextIO,
    ) -> None:
        self.board = board
        self.humans = humans
        self._engine_factory = engine_factory
        self._engine: EngineLike | None = None
        self.limit = limit
        self.hint_limit = hint_limit
        self.level = level
        self._in = stdin
        self._out = stdout
        #: An ending decided outside the board's rules (resignation, agreement).
        self.declared: Outcome | None = None

    # ------------------------------------------------------------- helpers
    def say(self, text: str = "") -> None:
        """Print a line."""
        print(text, file=self._out, flush=True)

    def _ask(self, prompt: str) -> str | None:
        self._out.write(prompt)
        self._out.flush()
        line = self._in.readline()
        if not line:
            self.say()
            return None
        if not _is_terminal(self._in):
            self.say(line.strip())  # echo piped input, so the transcript reads like a session
        return line.strip()

    @property
    def engine(self) -> EngineLike:
        """The engine, made on first use (a game of two people may never need it)."""
        if self._engine is None:
            self._engine = self._engine_factory()
        return self._engine

    def outcome(self) -> Outcome | None:
        """How the game has ended, if it has."""
        return self.declared or self.board.outcome()

    def name(self, color: Color) -> str:
        """The roster name of ``color``."""
        if color in self.humans:
            return "You" if len(self.humans) == 1 else f"{color.name.capitalize()} player"
        return f"poolcheckers level {self.level}"

    # ------------------------------------------------------------- the loop
    def run(self) -> int:
        """Play until ``quit`` or the end of input; returns the exit status."""
        opponent = (
            "a second person" if len(self.humans) == 2 else f"the engine (level {self.level})"
        )
        self.say(f"American Pool Checkers (rules {self.board.rules.name}) against {opponent}.")
        self.say("Type a move such as 11-15, or help for the commands.")
        self.say()
        self.say(str(self.board))
        announced = False
        while True:
            outcome = self.outcome()
            if outcome is not None:
                if not announced:
                    self.say(f"Game over: {outcome.reason()}. Result {outcome.result()}.")
                    self.say("You may still save FILE, undo or quit.")
                    announced = True
            elif self.board.turn not in self.humans:
                self._engine_move()
                continue
            else:
                announced = False
            turn = self.board.turn.name.capitalize()
            line = self._ask("> " if outcome is not None else f"{turn} to move> ")
            if line is None:
                return 0
            if not self._command(line):
                return 0

    def _engine_move(self) -> None:
        color = self.board.turn
        result = self.engine.search(self.board.copy(), self.limit, level=self.level)
        legal = self.board.legal_moves
        move = result.move if result.move in legal else None
        if move is None:
            raise RuntimeError(f"the engine returned {result.move!r}, not a legal move")
        move = legal[legal.index(move)]
        text = self.board.notation(move)
        self.board.push(move)
        self.say(f"{self.name(color)} ({color.name.lower()}) plays {text}")
        self.say(str(self.board))

    def _command(self, line: str) -> bool:
        """Act on one input line; ``False`` ends the session."""
        word, _, rest = line.partition(" ")
        word = word.lower()
        rest = rest.strip()
        over = self.outcome() is not None
        if not word:
            return True
        if word in ("quit", "exit", "q"):
            return False
        if word in ("help", "?", "h"):
            self.say(HELP)
        elif word in ("board", "b"):
            self.say(str(self.board))
        elif word == "undo":
            self._undo()
        elif word == "save":
            self._save(rest)
        elif over:
            self.say("The game is over: save FILE, undo or quit.")
        elif word == "moves":
            self.say(" ".join(sorted(self.board.notation(m) for m in self.board.legal_moves)))
        elif word == "hint":
            self._hint()
        elif word == "resign":
            self.declared = Outcome(Termination.RESIGNATION, self.board.turn.opponent)
        elif word == "draw":
            self._draw_offer()
        else:
            self._move(line)
        return True

    def _move(self, text: str) -> None:
        try:
            move = self.board.parse_move(text)
        except MoveError as exc:
            self.say(f"Illegal move: {exc}")
            return
        self.board.push(move)
        self.say(str(self.board))

    def _undo(self) -> None:
        if self.declared is not None:
            self.declared = None
            self.say("The game goes on.")
            self.say(str(self.board))
            return
        if not self.board.move_stack:
            self.say("Nothing to undo.")
            return
        taken = [self.board.pop()]
        while self.board.turn not in self.humans and self.board.move_stack:
            taken.append(self.board.pop())
        self.say(f"Took back {len(taken)} move{'s' if len(taken) > 1 else ''}.")
        self.say(str(self.board))

    def _hint(self) -> None:
        result = self.engine.search(self.board.copy(), self.hint_limit)
        if result.move is None:
            self.say("No hint: there is no legal move.")
            return
        self.say(
            f"Hint: {self.board.notation(result.move)} "
            f"(score {format_score(result.score, result.mate_in)}, depth {result.depth})"
        )

    def _draw_offer(self) -> None:
        offering = self.board.turn
        other = offering.opponent
        if other in self.humans:
            answer = self._ask(f"{other.name.capitalize()}, do you accept a draw? (yes/no) ")
            accepted = answer is not None and answer.lower() in ("y", "yes")
            self.say("Draw accepted." if accepted else "Draw declined.")
        else:
            result = self.engine.search(self.board.copy(), self.hint_limit)
            engine_view = -result.score  # the search sees the offering side's view
            engine_wins = result.mate_in is not None and result.mate_in < 0
            accepted = engine_view <= DRAW_ACCEPT_MARGIN and not engine_wins
            verdict = "accepts" if accepted else "declines"
            self.say(
                f"The engine {verdict} the draw "
                f"(its evaluation: {format_score(engine_view, None)} men for it)."
            )
        if accepted:
            self.declared = Outcome(Termination.AGREEMENT, None)

    def _save(self, path: str) -> None:
        if not path:
            self.say("Usage: save FILE")
            return
        from poolcheckers.pdn import game_from_board, write_game

        outcome = self.outcome()
        tags = {
            "Event": "poolcheckers play",
            "Date": datetime.date.today().strftime("%Y.%m.%d"),
            "Black": self.name(Color.BLACK),
            "White": self.name(Color.WHITE),
        }
        if outcome is not None:
            tags["Termination"] = outcome.reason()
        result = outcome.result() if outcome is not None else "*"
        text = write_game(game_from_board(self.board, tags, result))
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as exc:
            self.say(f"Cannot save to {path}: {exc.strerror}")
            return
        self.say(f"Saved {self.board.ply} moves to {path}.")


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def run(
    args: argparse.Namespace,
    *,
    engine_factory: Callable[[], EngineLike] | None = None,
    limit: Any = None,
    hint_limit: Any = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Play the game of ``args``."""
    board = board_from_args(args)
    if not MIN_LEVEL <= args.level <= MAX_LEVEL:
        raise UsageError(f"--level must be {MIN_LEVEL}..{MAX_LEVEL}, not {args.level}")
    if not args.time > 0:
        raise UsageError(f"--time must be > 0 seconds, not {args.time}")
    human = Color.BLACK if args.color == "black" else Color.WHITE
    humans = frozenset(Color) if args.opponent == "human" else frozenset({human})
    session = PlaySession(
        board,
        humans=humans,
        engine_factory=engine_factory or (lambda: open_engine(args.hash, board.rules)),
        limit=limit if limit is not None else make_limit(time=args.time),
        hint_limit=hint_limit if hint_limit is not None else make_limit(time=HINT_TIME),
        level=args.level,
        stdin=stdin or sys.stdin,
        stdout=stdout or sys.stdout,
    )
    return session.run()


def register(subparsers: Any) -> None:
    """Add the ``play`` sub-command."""
    parser = subparsers.add_parser(
        "play",
        help="play a game in the terminal against the engine or a second person",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--color", choices=("black", "white"), default="black", help="your colour (Black starts)"
    )
    parser.add_argument(
        "--opponent", choices=("engine", "human"), default="engine", help="who plays the other side"
    )
    parser.add_argument("--level", type=int, default=MAX_LEVEL, help="engine level 1-10")
    parser.add_argument("--time", type=float, default=1.0, help="engine seconds per move")
    add_position_arguments(parser)
    add_engine_arguments(parser)
    parser.set_defaults(func=run)
