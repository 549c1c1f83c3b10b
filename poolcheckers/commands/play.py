"""``poolcheckers play``: a game in the terminal, against the engine or a second person.

Moves are typed in R4 notation (``11-15``, ``15x22``, ``1x10x19``; a
shorthand that names one legal move is accepted).  Commands:

  undo        take back your last move (and the engine's reply)
  hint        the engine's suggestion for the side to move
  draw        offer a draw (a second person is asked; the engine never
              accepts in the opening, accepts a dead draw, and otherwise
              when it is worse in the middlegame or not better in the endgame)
  resign      give up the game (R20)
  save FILE   write the game so far as PDN (added to FILE if it already holds
              other games; saving again replaces this game's earlier copy)
  board       show the board again
  moves       list the legal moves
  help        this text
  quit        leave

Input is read line by line from standard input, so a game can be piped in;
no terminal is needed.  Ctrl-C (also while the engine thinks) or the end of
input leaves at once.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, TextIO

from poolcheckers.board import Board
from poolcheckers.cli import UsageError, add_position_arguments, playable_board_from_args
from poolcheckers.commands.common import (
    EngineLike,
    EngineUnavailable,
    SearchInfo,
    add_engine_arguments,
    check_level_option,
    help_description,
    make_limit,
    open_engine,
    quiet_broken_pipe,
    search_interruptibly,
    tolerate_bad_bytes,
)
from poolcheckers.engine import (
    DRAW_SEARCH_TIME,
    MAX_LEVEL,
    MIN_LEVEL,
    draw_decision,
    draw_search_needed,
    format_score,
    level_limit,
)
from poolcheckers.errors import AmbiguousMoveError, MalformedMoveError, MoveError
from poolcheckers.pdn import game_from_board, read_games_collect, write_game
from poolcheckers.pieces import Color
from poolcheckers.rules import Outcome, Termination

#: Seconds the engine thinks for a hint.
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
        draw_limit: Any = None,
        stdin: TextIO,
        stdout: TextIO,
    ) -> None:
        self.board = board
        self.humans = humans
        self._engine_factory = engine_factory
        self._engine: EngineLike | None = None
        self.limit = limit
        self.hint_limit = hint_limit
        #: The search that answers a draw offer (policy: poolcheckers.engine.policy).
        self.draw_limit = hint_limit if draw_limit is None else draw_limit
        self.level = level
        self._in = stdin
        self._out = stdout
        #: An ending decided outside the board's rules (resignation, agreement).
        self.declared: Outcome | None = None
        #: Where ``save`` last wrote this game: (path, offset of the game, file size after).
        self._saved: tuple[Path, int, int] | None = None

    # ------------------------------------------------------------- helpers
    def say(self, text: str = "") -> None:
        """Print a line."""
        print(text, file=self._out, flush=True)

    def _ask(self, prompt: str) -> str | None:
        if self._in is sys.stdin and self._out is sys.stdout and _is_terminal(self._in):
            _enable_line_editing()
            try:  # input() edits the line and recalls earlier ones (arrow keys)
                return input(prompt).strip()
            except EOFError:
                self.say()
                return None
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
        """Play until ``quit`` or the end of input; returns the exit status
        (130 after Ctrl-C)."""
        try:
            self._loop()
        except KeyboardInterrupt:
            self.say()
            self.say("Interrupted.")
            return 130
        return 0

    def _loop(self) -> None:
        if len(self.humans) < 2:
            _ = self.engine  # an engine that cannot start is an error now, not after a move
        if len(self.humans) == 2:
            opponent = "a second person"
        else:
            opponent = f"the engine (level {self.level})"
        self.say(f"American Pool Checkers (rules {self.board.rules.name}) against {opponent}.")
        if len(self.humans) == 1:
            (you,) = self.humans
            man, king = ("b", "B") if you is Color.BLACK else ("w", "W")
            start = "top" if you is Color.BLACK else "bottom"
            self.say(
                f"You play {you.name_lower} ({man}, kings {king}) from the {start} of the board; "
                "Black moves first."
            )
        self.say("Type a move such as 11-15, or help for the commands.")
        self.say()
        self.say(str(self.board))
        announced = False
        while True:
            outcome = self.outcome()
            if outcome is not None:
                if not announced:
                    self._announce(outcome)
                    announced = True
            elif self.board.turn not in self.humans:
                self._engine_move()
                continue
            else:
                announced = False
            turn = self.board.turn.name.capitalize()
            line = self._ask("> " if outcome is not None else f"{turn} to move> ")
            if line is None or not self._command(line):
                return

    def _announce(self, outcome: Outcome) -> None:
        """The end of the game in words: who won (or a draw), why, and the result."""
        if outcome.winner is None:
            headline = "drawn"
        else:
            winner = outcome.winner.name.capitalize()
            who = ""
            if len(self.humans) == 1:
                who = (
                    " (you)" if outcome.winner in self.humans else f" ({self.name(outcome.winner)})"
                )
            headline = f"{winner}{who} wins"
        self.say(f"Game over: {headline}, {outcome.result()}. {outcome.reason()}.")
        self.say("You may still save FILE, undo or quit.")

    def _think(self, limit: Any, level: int | None = None) -> SearchInfo:
        """The engine's search of the current position; Ctrl-C stops it and
        leaves the game (the search runs in a thread so Ctrl-C is seen at once)."""
        result, interrupted = search_interruptibly(
            self.engine, self.board.copy(), limit, level=level
        )
        if interrupted or result is None:
            raise KeyboardInterrupt
        return result

    def _engine_move(self) -> None:
        color = self.board.turn
        result = self._think(self.limit, self.level)
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
            ordered = sorted(self.board.legal_moves, key=lambda m: (m.path, sorted(m.captured)))
            self.say(" ".join(self.board.notation(m) for m in ordered))  # by square number
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
        except MalformedMoveError as exc:
            self.say(f"Not a move or a command: {exc}. Type help for the commands.")
            return
        except AmbiguousMoveError as exc:
            self.say(f"Ambiguous move: {exc}")
            return
        except MoveError as exc:
            self.say(f"Illegal move: {exc}")
            return
        color = self.board.turn
        notation = self.board.notation(move)
        self.board.push(move)
        if self.board.turn in self.humans or self.outcome() is not None:
            self.say(str(self.board))
        else:  # the engine answers at once and shows the board after its reply
            self.say(f"{self.name(color)} ({color.name_lower}) played {notation}.")

    def _undo(self) -> None:
        if self.declared is not None:
            self.declared = None
            self.say("The game goes on.")
            self.say(str(self.board))
            return
        stack = self.board.move_stack
        # the side that made move i alternates from the side to move at the start
        first = self.board.turn if len(stack) % 2 == 0 else self.board.turn.opponent
        movers = [first if i % 2 == 0 else first.opponent for i in range(len(stack))]
        if not any(color in self.humans for color in movers):
            self.say("Nothing to undo: you have not moved yet.")
            return
        taken = [self.board.pop()]
        while self.board.turn not in self.humans and self.board.move_stack:
            taken.append(self.board.pop())
        self.say(f"Took back {len(taken)} move{'s' if len(taken) > 1 else ''}.")
        self.say(str(self.board))

    def _hint(self) -> None:
        try:
            result = self._think(self.hint_limit)
        except EngineUnavailable as exc:
            self.say(f"No hint: {exc}")
            return
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
            # one policy with the web app (poolcheckers.engine.policy)
            result = self._think(self.draw_limit) if draw_search_needed(self.board) else None
            decision = draw_decision(self.board, other, result)
            accepted = decision.accept
            verdict = "accepts" if accepted else "declines"
            self.say(f"The engine {verdict} the draw ({decision.reason}).")
        if accepted:
            self.declared = Outcome(Termination.AGREEMENT, None)

    def _save(self, path: str) -> None:
        if not path:
            self.say("Usage: save FILE")
            return
        if path.endswith(("/", os.sep)) or Path(path).is_dir():
            self.say(f"Not saved: {path} is a folder; give a file name such as game.pdn")
            return
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
        target = Path(path)
        try:
            offset, others = self._place(target)
            with target.open("r+b" if offset else "wb") as handle:
                handle.seek(offset)
                handle.truncate()
                handle.write((("\n" if others else "") + text).encode("utf-8"))
            size = target.stat().st_size
        except _NotPdnError as exc:
            self.say(f"Not saved: {exc}")
            return
        except OSError as exc:
            self.say(f"Cannot save to {path}: {exc.strerror or exc}")
            return
        self._saved = (target.resolve(), offset, size)
        moves = (self.board.ply + 1) // 2
        summary = f"the game ({moves} move{'s' if moves != 1 else ''}, result {result})"
        if others:
            plural = "s" if others != 1 else ""
            self.say(f"Added {summary} to {path}, after {others} other game{plural}.")
        else:
            self.say(f"Saved {summary} to {path}.")

    def _place(self, target: Path) -> tuple[int, int]:
        """Where this game goes in ``target``: (byte offset, games kept before it).

        A new or empty file is written from the start; a file that this
        session saved the game to (and nobody changed since) gets its copy
        replaced; any other file must hold PDN games, and the game is added
        after them.
        """
        if not target.exists() or target.stat().st_size == 0:
            return 0, 0
        if self._saved is not None:
            saved_path, offset, size = self._saved
            if saved_path == target.resolve() and target.stat().st_size == size:
                head = target.read_bytes()[:offset].decode("utf-8", errors="replace")
                return offset, len(read_games_collect(head)[0]) if offset else 0
        data = target.read_bytes()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise _NotPdnError(f"{target} exists and is not a UTF-8 PDN file") from None
        games, errors = read_games_collect(text)
        if not games:
            raise _NotPdnError(f"{target} exists and holds no PDN games: choose another name")
        if not data.endswith(b"\n"):
            data += b"\n"
            target.write_bytes(data)
        return len(data), len(games) + len(errors)


class _NotPdnError(Exception):
    """``save`` would add a game to a file that is not PDN."""


def _enable_line_editing() -> None:
    """Load ``readline`` (where it exists) so that ``input`` has editing and history."""
    with contextlib.suppress(ImportError):  # not on every platform
        import readline  # noqa: F401  (importing it is what enables it)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _move_limit(level: int, seconds: float | None) -> Any:
    """The limit of the engine's moves: ``seconds`` each, by default its level's
    time (``poolcheckers.engine.level_limit``; a bad ``--time``: UsageError)."""
    try:
        return level_limit(level, move_time=seconds)
    except ValueError as exc:
        raise UsageError(f"--{exc}") from None  # "time must be …"


@quiet_broken_pipe
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
    board = playable_board_from_args(args)
    check_level_option("--level", args.level)
    if args.time is not None and not args.time > 0:
        raise UsageError(f"--time must be > 0 seconds, not {args.time}")
    if stdin is None:
        tolerate_bad_bytes()
    human = Color.BLACK if args.color == "black" else Color.WHITE
    humans = frozenset(Color) if args.opponent == "human" else frozenset({human})
    session = PlaySession(
        board,
        humans=humans,
        engine_factory=engine_factory or (lambda: open_engine(args.hash, board.rules)),
        limit=limit if limit is not None else _move_limit(args.level, args.time),
        hint_limit=hint_limit if hint_limit is not None else make_limit(time=HINT_TIME),
        draw_limit=hint_limit if hint_limit is not None else make_limit(time=DRAW_SEARCH_TIME),
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
        description=help_description(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--color", choices=("black", "white"), default="black", help="your colour (Black starts)"
    )
    parser.add_argument(
        "--opponent", choices=("engine", "human"), default="engine", help="who plays the other side"
    )
    parser.add_argument(
        "--level",
        type=int,
        default=MAX_LEVEL,
        help=f"engine level {MIN_LEVEL}-{MAX_LEVEL} (default {MAX_LEVEL}, full strength)",
    )
    parser.add_argument(
        "--time",
        type=float,
        help="engine seconds per move (default: 0.1 s per level, as in the web app)",
    )
    add_position_arguments(parser)
    add_engine_arguments(parser)
    parser.set_defaults(func=run)
