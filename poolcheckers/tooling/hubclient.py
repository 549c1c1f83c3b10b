"""An engine in another process, driven over the Hub protocol, as a player.

The protocol's engine side is :mod:`poolcheckers.hub`; this is the other side,
what a GUI does: start the engine, set its parameters, send each position and
read its move.  A match plays a frozen build or another engine this way.
"""

from __future__ import annotations

import contextlib
import shlex
import subprocess
from collections.abc import Sequence

from poolcheckers.board import Board
from poolcheckers.errors import PoolCheckersError
from poolcheckers.hub import format_line, hub_move, hub_position, parse_hub_move, parse_line
from poolcheckers.move import Move
from poolcheckers.tooling import ToolingError
from poolcheckers.tooling.games import ClockReading


class HubPlayer:
    """An engine in another process, spoken to in the Hub protocol.

    ``command`` starts it (its standard input and output carry the protocol);
    every move sends the game from its start (``pos … moves=…``, so that the
    engine sees repetitions; with ``position_only``, the position alone, as
    some GUIs send it: the engine then sees no repetition), the per-move bound
    (``level move-time=``, ``depth=`` or ``nodes=``) and ``go think``, and reads
    the ``done`` line.

    In a game with a clock the bound is ``level time=<left> inc=<increment>``:
    as in Scan's Hub protocol (and :mod:`poolcheckers.hub`), ``time`` is the
    remaining clock of the side to move and ``inc`` what each move adds.  The
    match credits the increment after a move (as fishtest and cutechess do),
    so ``time`` is the clock as it stands, rounded down to the millisecond:
    never time the engine does not have.  (Scan's text says a GUI adds the
    increment before each move; an engine reading it that way is sent one
    increment less than it would be by such a GUI.)
    """

    def __init__(
        self,
        command: Sequence[str],
        name: str,
        *,
        move_time: float | None = None,
        depth: int | None = None,
        nodes: int | None = None,
        hash_mb: int | None = None,
        params: Sequence[tuple[str, str]] = (),
        position_only: bool = False,
    ) -> None:
        self.name = name
        self.position_only = position_only
        self.command = list(command)
        if depth is not None:
            self._level = f"level depth={depth}"
        elif nodes is not None:
            self._level = f"level nodes={nodes}"
        elif move_time is None:  # a game clock: the level line is sent before each move
            self._level = "level move-time=0.1"
        else:
            self._level = f"level move-time={move_time:g}"
        try:
            self._proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as exc:
            raise ToolingError(
                f"cannot start the Hub engine {shlex.join(command)}: {exc}"
            ) from None
        self._send("hub")
        self._read_until("wait")
        settings = list(params)
        if hash_mb is not None:
            settings.append(("hash", str(hash_mb)))
        for key, value in settings:
            self._send(format_line("set-param", ("name", key), ("value", value)))
        self._send("init")
        self._read_until("ready")

    def _send(self, line: str) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise RuntimeError(f"the Hub engine {self.name} has exited") from None

    def _read_until(self, command: str) -> str:
        assert self._proc.stdout is not None
        while True:
            line = self._proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the Hub engine {self.name} exited before {command!r}")
            text = line.strip()
            if not text:
                continue
            head = text.split(None, 1)[0]
            if head == command:
                return text
            if head == "error":
                raise RuntimeError(f"the Hub engine {self.name} answered: {text}")

    def new_game(self) -> None:
        self._send("new-game")

    def choose(self, board: Board, clock: ClockReading | None = None) -> Move:
        """The engine's move for ``board`` (its whole game is sent); with a
        ``clock``, its remaining time and increment are the bound."""
        if self.position_only:
            self._send(format_line("pos", ("pos", hub_position(board))))
        else:
            start = board.copy()
            stack = list(start.move_stack)
            for _ in stack:
                start.pop()
            moves = [hub_move(move) for move in stack]
            self._send(format_line("pos", ("pos", hub_position(start)), ("moves", " ".join(moves))))
        self._send(clock.hub_level() if clock is not None else self._level)
        self._send("go think")
        done = parse_line(self._read_until("done"))
        text = done.args.get("move")
        if not text:
            raise RuntimeError(f"the Hub engine {self.name} gave no move in {board.fen()}")
        try:
            return parse_hub_move(board, text)
        except PoolCheckersError as exc:
            raise RuntimeError(f"the Hub engine {self.name} played {text}: {exc}") from None

    def close(self) -> None:
        """Ask the engine to quit (and end it if it does not)."""
        with contextlib.suppress(RuntimeError):
            self._send("quit")
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
