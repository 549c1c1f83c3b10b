r"""The Hub protocol, version 2 (as Scan 3 defines it), over the engine.

Hub is line based: every line is ``<command> <name>=<value> …``; a value with a
space, ``=`` or nothing in it is written in double quotes, and a flag is a name
without ``=value``.  A GUI and the engine talk like this::

    hub                      -> id name=poolcheckers …, param …, wait
    set-param name=… value=…
    init                     -> ready
    new-game
    pos pos=<position> moves="<move> …"
    level move-time=0.5      (or depth=, nodes=, time= [moves=] [inc=], infinite)
    go think|ponder|analyze  -> info depth=… score=… …, then done move=… ponder=…
    stop / ponder-hit / ping (the only commands taken during a search; ping -> pong)
    quit

For this 8×8 game a position is the side to move (``W`` or ``B``) and one
character per dark square 1–32 in the order of R2: ``w``/``b`` men,
``W``/``B`` kings, ``e`` empty.  ``pos`` gives the position the game started
from and ``moves`` the moves played since (for repetition in search).  A Hub
move is ``from-to`` for a plain move and ``fromxto`` followed by every
captured square (``x``-separated, any order) for a capture: ``15x22x18``.

Scores in ``info`` lines are in men (Scan's unit) from the side to move's
point of view; ``nps`` is in millions of nodes per second (as Scan writes it);
a proven end adds ``win-in=N``: the winner's own moves to the win, as
``analyse`` and the web app count them (negative: the side to move loses;
:func:`poolcheckers.engine.mate_in_moves`).  Every line written is one line of
printable text: control characters (``\x00``-``\x1f``, ``\x7f`` and the other
Unicode controls and line separators), which a bad token from the GUI may
bring into an ``error`` message, are written as ``\xNN`` escapes.
Malformed lines, unknown commands and bad values are answered with
``error message="…"`` and the loop goes on; unknown arguments are ignored, as
the protocol asks.  A ``pos`` line with an error leaves the position as it
was.  The search runs in a background thread, so ``stop`` and ``ping`` are
served while it thinks.  The ``level`` parameter sets the playing strength of
``go think`` and ``go ponder``; ``go analyze`` always searches at full strength.
The ``evaluation`` parameter chooses the network shipped in the package (``nnue``,
the default) or the pattern evaluation (``pattern``).

>>> parse_line('pos pos=Bbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves="11-15 22-18"').args["moves"]
'11-15 22-18'
>>> format_line("error", ("message", "bad move 3-4"))
'error message="bad move 3-4"'
>>> print(escape_controls("move 3\x00-4\x7f"))
move 3\x00-4\x7f
>>> from poolcheckers import Board
>>> hub_position(Board())
'Bbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww'
>>> board = Board("W:W22:B18")
>>> hub_move(board.legal_moves[0])
'22x15x18'
>>> parse_hub_move(board, "22x15x18") == board.legal_moves[0]
True
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import poolcheckers
from poolcheckers.board import Board
from poolcheckers.engine import (
    CENTI_MEN_PER_MAN,
    DEFAULT_EVALUATION,
    DEFAULT_HASH_MB,
    EVALUATIONS,
    MAX_DEPTH,
    MAX_LEVEL,
    MAX_NODES,
    MIN_LEVEL,
    EngineLike,
    NetworkError,
    SearchInfo,
    make_limit,
    table_hits,
    win_in,
)
from poolcheckers.errors import IllegalMoveError, MalformedMoveError, PoolCheckersError
from poolcheckers.move import Move
from poolcheckers.rules import RuleSet

#: The largest bounds passed to the engine (``MAX_NODES`` nodes, ``MAX_DEPTH`` plies,
#: ``MAX_SECONDS``); larger ``level`` values are clamped.
MAX_SECONDS: Final = 1e6

#: Seconds per move for ``go think`` when no ``level`` line came before it.
DEFAULT_MOVE_TIME: Final = 1.0

#: A square number or a count: ASCII digits only (``str.isdigit`` also takes ``²``).
_DIGITS: Final = re.compile(r"[0-9]+")

#: Characters of a Hub position, one per square.
_SQUARE_CHARS: Final = "wbWBe"

ENGINE_NAME: Final = "poolcheckers"
ENGINE_AUTHOR: Final = "poolcheckers developers"

#: Engine parameters declared after ``hub``: name -> (type, default, constraint fields).
PARAMS: Final[dict[str, tuple[str, str, tuple[tuple[str, str], ...]]]] = {
    "level": ("int", str(MAX_LEVEL), (("min", str(MIN_LEVEL)), ("max", str(MAX_LEVEL)))),
    "hash": ("int", str(DEFAULT_HASH_MB), (("min", "1"), ("max", "4096"))),
    "threads": ("int", "1", (("min", "1"), ("max", "64"))),
    "multipv": ("int", "1", (("min", "1"), ("max", "8"))),
    # the network shipped in the package, or the pattern evaluation (docs/ENGINE.md, NNUE)
    "evaluation": ("enum", DEFAULT_EVALUATION, (("values", "pattern nnue"),)),
    "crown_during_capture": ("enum", "pass", (("values", "pass stop"),)),
    "three_kings_limit_result": ("enum", "draw", (("values", "draw loss"),)),
    "king_only_move_limit": ("int", "25", (("min", "1"), ("max", "1000"))),
    "repetition_draw": ("bool", "false", ()),
}
_RULE_PARAMS: Final = (
    "crown_during_capture",
    "three_kings_limit_result",
    "king_only_move_limit",
    "repetition_draw",
)


class HubSyntaxError(ValueError):
    """A line that is not ``<command> <name>=<value> …``."""


@dataclass(frozen=True)
class HubLine:
    """A parsed line: the command and its arguments (a flag's value is ``""``)."""

    command: str
    args: dict[str, str] = field(default_factory=dict)


def parse_line(text: str) -> HubLine:
    """Split a Hub line into its command and arguments.

    >>> parse_line('id name=x author="A B" flag')
    HubLine(command='id', args={'name': 'x', 'author': 'A B', 'flag': ''})
    >>> parse_line("level move-time = 0.5").args  # blanks around '=' are allowed, as in Scan
    {'move-time': '0.5'}
    >>> parse_line('go "think')
    Traceback (most recent call last):
    ...
    poolcheckers.hub.HubSyntaxError: unexpected double quote at column 4
    """
    tokens: list[tuple[str, str | None]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        start = i
        while i < n and not text[i].isspace() and text[i] not in '="':
            i += 1
        name = text[start:i]
        if not name:
            raise HubSyntaxError(f"unexpected {_describe_char(text[i])} at column {i + 1}")
        if i < n and text[i] == '"':
            raise HubSyntaxError(f"unexpected double quote at column {i + 1}")
        if tokens:  # an argument: "name = value" is read as "name=value"
            after = i
            while after < n and text[after].isspace():
                after += 1
            if after < n and text[after] == "=":
                i = after
        value: str | None = None
        if i < n and text[i] == "=":
            i += 1
            if tokens:
                while i < n and text[i].isspace():
                    i += 1
            if i < n and text[i] == '"':
                end = text.find('"', i + 1)
                if end < 0:
                    raise HubSyntaxError(f"unterminated quoted value of {name!r}")
                value = text[i + 1 : end]
                i = end + 1
                if i < n and not text[i].isspace():
                    raise HubSyntaxError(f"missing space after the value of {name!r}")
            else:
                start = i
                while i < n and not text[i].isspace():
                    i += 1
                value = text[start:i]
                if '"' in value or "=" in value:
                    raise HubSyntaxError(f"the value of {name!r} must be quoted: {value!r}")
        tokens.append((name, value))
    if not tokens:
        raise HubSyntaxError("missing command")
    command, value = tokens[0]
    if value is not None:
        raise HubSyntaxError(f"a line starts with a command, not {command}={value}")
    return HubLine(command, {name: "" if v is None else v for name, v in tokens[1:]})


def _describe_char(char: str) -> str:
    """A character for an error message (which quotes double quotes as single ones)."""
    return "double quote" if char == '"' else repr(char)


#: Characters written as ``\xNN``/``\uNNNN`` escapes: C0 and C1 controls, DEL,
#: and the Unicode line and paragraph separators.
_CONTROLS: Final = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escape_controls(text: str) -> str:
    r"""``text`` with every control character written as a ``\xNN`` escape
    (``\uNNNN`` above ``\xff``), so that an output line stays one printable line.

    >>> print(escape_controls("a\tb\r\nc\u2028"))
    a\x09b\x0d\x0ac\u2028
    """
    return _CONTROLS.sub(
        lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) <= 0xFF else f"\\u{ord(m[0]):04x}", text
    )


def _quote(value: str) -> str:
    value = value.replace('"', "'").replace("\n", " ")
    if not value or any(c.isspace() or c == "=" for c in value):
        return f'"{value}"'
    return value


def format_line(command: str, *pairs: tuple[str, str | None]) -> str:
    """A Hub line; a pair whose value is ``None`` is written as a flag.

    >>> format_line("param", ("name", "x"), ("values", "a b"), ("flag", None))
    'param name=x values="a b" flag'
    """
    parts = [command]
    for name, value in pairs:
        parts.append(name if value is None else f"{name}={_quote(value)}")
    return " ".join(parts)


# ----------------------------------------------------------------- positions and moves
def hub_position(board: Board) -> str:
    """The Hub position string of ``board``: side to move, then squares 1–32."""
    chars = [board.turn.char]
    for square in range(1, 33):
        piece = board.piece_at(square)
        chars.append("e" if piece is None else piece.symbol())
    return "".join(chars)


def board_from_hub(text: str, rules: RuleSet | None = None) -> Board:
    """The board of a Hub position string (raises :class:`HubSyntaxError`).

    >>> print(board_from_hub("W" + "e" * 4 + "B" + "e" * 27).fen())
    W:W:BK5
    """
    if len(text) != 33:
        raise HubSyntaxError(
            f"a position is the side to move and 32 squares (33 characters), not {len(text)}"
        )
    if text[0] not in "WB":
        raise HubSyntaxError(f"the side to move is W or B, not {text[0]!r}")
    black: list[str] = []
    white: list[str] = []
    for square, char in enumerate(text[1:], start=1):
        if char not in _SQUARE_CHARS:
            raise HubSyntaxError(
                f"square {square}: {char!r} is not one of w, b, W, B, e (man, king, empty)"
            )
        if char == "e":
            continue
        item = f"K{square}" if char.isupper() else str(square)
        (white if char.lower() == "w" else black).append(item)
    fen = f"{text[0]}:W{','.join(white)}:B{','.join(black)}"
    try:
        return Board.from_fen(fen, rules=rules)
    except PoolCheckersError as exc:
        raise HubSyntaxError(f"bad position: {exc}") from exc


def hub_move(move: Move) -> str:
    """A move in Hub format: ``from-to``, or ``fromxto`` and each captured square."""
    if not move.is_capture:
        return f"{move.origin}-{move.destination}"
    squares = [move.origin, move.destination, *sorted(move.captured)]
    return "x".join(str(s) for s in squares)


def parse_hub_move(board: Board, text: str) -> Move:
    """The legal move of ``board`` that the Hub move ``text`` names.

    ``fromxto`` alone is accepted when a single capture goes from ``from`` to
    ``to``.  Raises :class:`MalformedMoveError` or :class:`IllegalMoveError`.
    """
    token = text.strip()
    capture = "x" in token
    parts = token.split("x") if capture else token.split("-")
    if (
        len(parts) < 2
        or not all(_DIGITS.fullmatch(p) for p in parts)
        or (not capture and len(parts) > 2)
    ):
        raise MalformedMoveError(
            f"{token!r} is not a Hub move: expected from-to or fromxto[xcaptured…]", token
        )
    squares = [int(p) for p in parts]
    if any(not 1 <= s <= 32 for s in squares):
        raise MalformedMoveError(f"{token}: squares are numbered 1-32 (R2)", token)
    origin, dest, captured = squares[0], squares[1], frozenset(squares[2:])
    matches = [
        m
        for m in board.legal_moves
        if m.origin == origin
        and m.destination == dest
        and m.is_capture == capture
        and (not captured or m.captured == captured)
    ]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise IllegalMoveError(
            f"{token} is ambiguous: name the captured squares "
            f"({', '.join(hub_move(m) for m in matches)})",
            token,
        )
    legal = " ".join(sorted(hub_move(m) for m in board.legal_moves)[:8])
    raise IllegalMoveError(f"{token} is not legal here (legal: {legal})", token)


def board_from_pos_command(args: Mapping[str, str], rules: RuleSet) -> Board:
    """The board of a ``pos`` line: ``pos=`` (or the ``start`` flag), then ``moves=``."""
    board = board_from_hub(args["pos"], rules) if "pos" in args else Board(rules=rules)
    for token in args.get("moves", "").split():
        if board.is_game_over():
            raise HubSyntaxError(f"move {token}: the game is already over")
        try:
            board.push(parse_hub_move(board, token))
        except PoolCheckersError as exc:
            raise HubSyntaxError(f"move {token}: {exc}") from exc
    return board


# ----------------------------------------------------------------- the session
EngineFactory = Callable[[int, RuleSet], EngineLike]
LimitFactory = Callable[..., Any]


class LineInput(Protocol):
    """What :class:`HubSession` reads its commands from: any text stream."""

    def readline(self) -> str:
        """The next line with its newline, or ``""`` at the end of input."""


class LineOutput(Protocol):
    """What :class:`HubSession` writes its answers to: any text stream."""

    def write(self, text: str, /) -> object:
        """Write ``text``."""

    def flush(self) -> object:
        """Pass what was written on to the reader."""


@dataclass
class _Level:
    """The search bounds of the last ``level`` line (reset after ``pos`` and ``go``)."""

    depth: int | None = None
    nodes: int | None = None
    move_time: float | None = None
    game_time: float | None = None
    moves: int | None = None
    increment: float = 0.0
    infinite: bool = False

    def limit_kwargs(self, mode: str) -> dict[str, Any]:
        """Keyword arguments of ``Limit`` for a search in ``mode``.

        ``time=`` is the remaining clock of the side to move, as in Scan's
        protocol ("time=<remaining time>"), and ``inc=`` the increment per
        move: without ``moves=`` they are the game clock that the engine
        budgets (``clock``, ``increment``: the policy of
        :mod:`poolcheckers.engine.timeman`).  ``poolcheckers match --clock``
        sends them so before each ``go``.
        """
        kwargs: dict[str, Any] = {}
        if self.depth is not None:
            kwargs["depth"] = self.depth
        if self.nodes is not None:
            kwargs["nodes"] = self.nodes
        if self.infinite or mode == "ponder":
            return kwargs  # until stop (a ponder search's clock starts at ponder-hit)
        if self.move_time is not None:
            kwargs["time"] = self.move_time
        elif self.game_time is not None:
            if self.moves:
                # x/y control: the remaining time shared by the remaining moves.
                kwargs["time"] = self.game_time / self.moves + self.increment
            else:
                kwargs["clock"] = self.game_time
                kwargs["increment"] = self.increment
        elif mode == "think" and not kwargs:
            kwargs["time"] = DEFAULT_MOVE_TIME
        return kwargs

    def ponder_time(self) -> float | None:
        """Seconds to think after ``ponder-hit`` (a per-move time), if any."""
        if self.move_time is not None:
            return self.move_time
        if self.game_time is not None and self.moves:
            return self.game_time / self.moves + self.increment
        return None


class HubSession:
    """One Hub conversation over ``stdin``/``stdout`` (any text streams).

    ``engine_factory(hash_mb, rules)`` makes the engine on ``init`` (or on the
    first search); ``limit_factory(**bounds)`` makes its ``Limit``.
    """

    def __init__(
        self,
        engine_factory: EngineFactory,
        stdin: LineInput,
        stdout: LineOutput,
        *,
        limit_factory: LimitFactory = make_limit,
    ) -> None:
        self._engine_factory = engine_factory
        self._limit_factory = limit_factory
        self._in = stdin
        self._out = stdout
        self._out_lock = threading.Lock()
        self._params: dict[str, str] = {name: spec[1] for name, spec in PARAMS.items()}
        self._engine: EngineLike | None = None
        self._rules = RuleSet.apca()
        self._board = Board(rules=self._rules)
        self._level = _Level()
        self._worker: threading.Thread | None = None
        self._searching = threading.Event()
        self._stop_requested = threading.Event()
        self._pondering = False
        self._ponder_time: float | None = None
        self._timer: threading.Timer | None = None
        self._quit = False
        #: Whether the output was found closed (the GUI is gone).
        self.output_closed = False

    # ------------------------------------------------------------- output
    def write(self, line: str) -> None:
        """Write one line and flush it (thread-safe).

        Control characters are escaped (:func:`escape_controls`).  When the GUI
        has closed its end (a broken pipe), the session ends: nobody is left
        to answer.
        """
        line = escape_controls(line)
        with self._out_lock:
            if self.output_closed:
                return
            try:
                self._out.write(line + "\n")
                self._out.flush()
            except (BrokenPipeError, ConnectionResetError, ValueError):  # ValueError: closed
                self.output_closed = True
                self._quit = True
                if self._engine is not None:
                    self._request_stop(self._engine)  # a search nobody will read

    def error(self, message: str) -> None:
        """Answer with ``error message="…"``."""
        self.write(format_line("error", ("message", message)))

    # ------------------------------------------------------------- loop
    def run(self) -> int:
        """Serve lines until ``quit`` or the end of input; returns the exit status."""
        while not self._quit:
            line = self._in.readline()
            if not line:
                break
            self.handle(line)
        self._stop_search()
        return 0

    def handle(self, text: str) -> None:
        """Act on one input line."""
        try:
            line = parse_line(text)
        except HubSyntaxError as exc:
            self.error(str(exc))
            return
        if self._searching.is_set() and line.command not in (
            "ping",
            "stop",
            "ponder-hit",
            "quit",
        ):
            self.error(f"busy searching: {line.command} must wait for done (or send stop)")
            return
        handler = self._handlers().get(line.command)
        if handler is None:
            self.error(f"unknown command {line.command!r}")
            return
        try:
            handler(line.args)
        except HubSyntaxError as exc:
            self.error(f"{line.command}: {exc}")
        except Exception as exc:  # a bug must not end the conversation with the GUI
            self.error(f"{line.command}: internal error: {type(exc).__name__}: {exc}")

    def _handlers(self) -> dict[str, Callable[[dict[str, str]], None]]:
        return {
            "hub": self._cmd_hub,
            "set-param": self._cmd_set_param,
            "init": self._cmd_init,
            "new-game": self._cmd_new_game,
            "pos": self._cmd_pos,
            "level": self._cmd_level,
            "go": self._cmd_go,
            "stop": self._cmd_stop,
            "ponder-hit": self._cmd_ponder_hit,
            "ping": lambda args: self.write("pong"),
            "quit": self._cmd_quit,
        }

    # ------------------------------------------------------------- commands
    def _cmd_hub(self, args: dict[str, str]) -> None:
        self.write(
            format_line(
                "id",
                ("name", ENGINE_NAME),
                ("version", poolcheckers.__version__),
                ("author", ENGINE_AUTHOR),
            )
        )
        for name, (kind, _default, extra) in PARAMS.items():
            self.write(
                format_line(
                    "param", ("name", name), ("value", self._params[name]), ("type", kind), *extra
                )
            )
        self.write("wait")

    def _cmd_set_param(self, args: dict[str, str]) -> None:
        name = args.get("name", "")
        if not name:
            raise HubSyntaxError("missing name=")
        if name not in PARAMS:
            raise HubSyntaxError(f"unknown parameter {name!r} (known: {', '.join(PARAMS)})")
        value = args.get("value", "")
        if name in ("level", "hash", "threads", "multipv"):
            number = _parse_int(name, value)
            low, high = int(PARAMS[name][2][0][1]), int(PARAMS[name][2][1][1])
            if not low <= number <= high:
                raise HubSyntaxError(f"{name} must be {low}..{high}, not {number}")
        if name == "evaluation" and value not in EVALUATIONS:
            raise HubSyntaxError(
                f"evaluation must be one of {', '.join(EVALUATIONS)}, not {value!r}"
            )
        if name in _RULE_PARAMS:
            options = {k: self._params[k] for k in _RULE_PARAMS}
            options[name] = value
            try:
                self._rules = RuleSet.from_options(f"{k}={v}" for k, v in options.items())
            except PoolCheckersError as exc:
                raise HubSyntaxError(str(exc)) from exc
            self._board = Board(self._board.fen(), rules=self._rules)
        if name == "evaluation" and self._engine is not None:
            try:
                self._engine.set_evaluation(value)  # type: ignore[attr-defined]
            except NetworkError as exc:
                raise HubSyntaxError(str(exc)) from exc
        self._params[name] = value
        if name == "threads" and self._engine is not None:
            self._engine.threads = int(value)  # type: ignore[attr-defined]
        elif name not in ("level", "threads", "multipv", "evaluation"):
            self._engine = None  # made again with the new table size or rules

    def _cmd_init(self, args: dict[str, str]) -> None:
        if self._ensure_engine():
            self.write("ready")

    def _ensure_engine(self) -> bool:
        if self._engine is None:
            try:
                self._engine = self._engine_factory(int(self._params["hash"]), self._rules)
                if self._params["threads"] != "1":
                    self._engine.threads = int(self._params["threads"])  # type: ignore[attr-defined]
                wanted = self._params["evaluation"]
                if getattr(self._engine, "evaluation", DEFAULT_EVALUATION) != wanted:
                    self._engine.set_evaluation(wanted)  # type: ignore[attr-defined]
            except Exception as exc:  # the engine's own failure, reported to the GUI
                self.error(f"the engine cannot start: {exc}")
                return False
        return True

    def _cmd_new_game(self, args: dict[str, str]) -> None:
        clear = getattr(self._engine, "clear", None)
        if callable(clear):
            clear()
        self._board = Board(rules=self._rules)
        self._level = _Level()

    def _cmd_pos(self, args: dict[str, str]) -> None:
        self._board = board_from_pos_command(args, self._rules)
        self._level = _Level()

    def _cmd_level(self, args: dict[str, str]) -> None:
        level = _Level()
        for name, value in args.items():
            # larger bounds than the engine takes mean "no bound" to a GUI: clamped
            if name == "depth":
                level.depth = min(_parse_int(name, value, minimum=1), MAX_DEPTH)
            elif name == "nodes":
                level.nodes = min(_parse_int(name, value, minimum=1), MAX_NODES)
            elif name == "move-time":
                level.move_time = min(_parse_float(name, value), MAX_SECONDS)
            elif name == "time":
                level.game_time = min(_parse_float(name, value), MAX_SECONDS)
            elif name == "moves":
                level.moves = _parse_int(name, value, minimum=1)
            elif name == "inc":
                level.increment = min(_parse_float(name, value), MAX_SECONDS)
            elif name == "infinite":
                level.infinite = True
            # other arguments (e.g. Hub's "ponder" flag) are ignored, as the protocol asks
        self._level = level

    def _cmd_go(self, args: dict[str, str]) -> None:
        # as in Scan: analyze wins over ponder, and a go without a mode thinks
        mode = "analyze" if "analyze" in args else "ponder" if "ponder" in args else "think"
        board = self._board.copy()
        outcome = board.outcome()
        if outcome is not None:
            self.error(f"the game is over: {outcome.reason()}")
            self.write("done")
            return
        if not self._ensure_engine():
            self.write("done")  # every go is answered, even without an engine
            return
        engine = self._engine
        assert engine is not None
        level, self._level = self._level, _Level()
        try:
            limit = self._limit_factory(**level.limit_kwargs(mode))
        except Exception as exc:  # a bound the engine refuses (ValueError, UsageError)
            self.error(f"go: bad level: {exc}")
            self.write("done")  # every go is answered
            return
        self._pondering = mode == "ponder"
        self._ponder_time = self._ponder_budget(level) if self._pondering else None
        if self._worker is not None:
            self._worker.join()
        self._stop_requested.clear()
        self._searching.set()
        self._worker = threading.Thread(
            target=self._search,
            # the level handicaps play; an analysis is always at full strength
            args=(engine, board, limit, None if mode == "analyze" else int(self._params["level"])),
            name="hub-search",
            daemon=True,
        )
        self._worker.start()

    def _ponder_budget(self, level: _Level) -> float | None:
        """Seconds to think after ``ponder-hit``: the per-move time, or the
        engine's share of the game clock (``Limit.budget``), or ``None``
        (until ``stop``) for depth, node and infinite searches."""
        seconds = level.ponder_time()
        if seconds is None and level.game_time is not None:
            try:
                limit = self._limit_factory(**level.limit_kwargs("think"))
                # the engine's usual share of the clock (its soft limit), not its hard stop
                budget = getattr(limit, "soft_budget", None) or getattr(limit, "budget", None)
                seconds = float(budget()) if callable(budget) else None
            except Exception:  # a bound the engine refuses: the fallback below
                seconds = None
            if seconds is None:
                seconds = level.game_time / 20 + level.increment
        return seconds

    def _cmd_stop(self, args: dict[str, str]) -> None:
        if self._searching.is_set() and self._engine is not None:
            self._cancel_timer()
            self._request_stop(self._engine)

    def _cmd_ponder_hit(self, args: dict[str, str]) -> None:
        if not (self._searching.is_set() and self._pondering):
            return
        self._pondering = False
        engine = self._engine
        if self._ponder_time is not None and engine is not None:
            self._cancel_timer()
            self._timer = threading.Timer(self._ponder_time, self._request_stop, (engine,))
            self._timer.daemon = True
            self._timer.start()

    def _cmd_quit(self, args: dict[str, str]) -> None:
        self._quit = True

    # ------------------------------------------------------------- searching
    def _search(self, engine: EngineLike, board: Board, limit: Any, level: int | None) -> None:
        multipv = int(self._params["multipv"])

        def on_info(info: SearchInfo) -> None:
            lines = getattr(info, "lines", ())
            if multipv > 1 and lines:  # one info line per line, numbered multipv=1..n
                for number, line in enumerate(lines, start=1):
                    self.write(info_line(board, line, multipv=number))
            else:
                self.write(info_line(board, info))
            if self._stop_requested.is_set():
                engine.stop()  # a stop that came before the search had begun

        done = done_line(board, None, [])
        try:
            if multipv > 1 and level is None:  # several lines: analysis at full strength
                result = engine.search(
                    board,
                    limit,
                    on_info=on_info,
                    level=level,
                    multipv=multipv,  # type: ignore[call-arg]
                )
            else:
                result = engine.search(board, limit, on_info=on_info, level=level)
            done = done_line(board, result.move, result.pv)
        except Exception as exc:  # the engine's failure must not kill the loop
            self.error(f"search failed: {exc}")
        finally:
            self._cancel_timer()
            self._searching.clear()
            self.write(done)

    def _request_stop(self, engine: EngineLike) -> None:
        self._stop_requested.set()
        engine.stop()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the running search (if any) has written its ``done`` line.

        Returns whether no search is running any more.
        """
        worker = self._worker
        if worker is not None:
            worker.join(timeout)
            return not worker.is_alive()
        return True

    def _stop_search(self) -> None:
        if self._searching.is_set() and self._engine is not None:
            self._request_stop(self._engine)
        if self._worker is not None:
            self._worker.join()
        self._cancel_timer()


def info_line(board: Board, info: SearchInfo, multipv: int | None = None) -> str:
    """The ``info`` line of one finished depth (score in men, PV in Hub moves);
    ``multipv=n`` numbers the line of a multi-PV search (1 is the best)."""
    pairs: list[tuple[str, str | None]] = [("multipv", str(multipv))] if multipv else []
    pairs += [
        ("depth", str(info.depth)),
        ("score", f"{info.score / CENTI_MEN_PER_MAN:.2f}"),
    ]
    moves = win_in(info)
    if moves is not None:
        pairs.append(("win-in", str(moves)))
    seconds = max(info.time, 0.0)
    pairs += [
        ("nodes", str(info.nodes)),
        ("time", f"{seconds:.3f}"),
        ("nps", f"{info.nodes / seconds / 1e6:.3f}" if seconds > 0 else "0"),
        ("pv", " ".join(hub_move(m) for m in board.legal_prefix(info.pv))),
    ]
    hits = table_hits(board)  # endgame tables (docs/EGDB.md)
    if hits is not None:
        pairs.append(("tbhits", str(hits)))
    return format_line("info", *pairs)


def done_line(board: Board, move: Move | None, pv: list[Move] | Any) -> str:
    """``done move=… [ponder=…]``; the first legal move stands in if ``move`` is not legal."""
    legal = board.legal_moves
    if not legal:
        return "done"
    if move is None or move not in legal:
        move = legal[0]
    pairs: list[tuple[str, str | None]] = [("move", hub_move(move))]
    line = list(pv)
    if len(line) >= 2 and line[0] == move:
        after = board.copy(stack=False)
        after.push(legal[legal.index(move)])
        if line[1] in after.legal_moves:
            pairs.append(("ponder", hub_move(line[1])))
    return format_line("done", *pairs)


def _parse_int(name: str, value: str, minimum: int | None = None) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", value.strip()):
        raise HubSyntaxError(f"{name} must be a whole number, not {value!r}")
    number = int(value)
    if minimum is not None and number < minimum:
        raise HubSyntaxError(f"{name} must be at least {minimum}, not {number}")
    return number


def _parse_float(name: str, value: str) -> float:
    if not re.fullmatch(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", value.strip()):
        raise HubSyntaxError(f"{name} must be a number of seconds, not {value!r}")
    number = float(value)
    if not number >= 0 or number == float("inf"):
        raise HubSyntaxError(f"{name} must be a finite number of seconds >= 0, not {value!r}")
    return number


__all__ = [
    "DEFAULT_MOVE_TIME",
    "PARAMS",
    "HubLine",
    "HubSession",
    "HubSyntaxError",
    "board_from_hub",
    "board_from_pos_command",
    "done_line",
    "escape_controls",
    "format_line",
    "hub_move",
    "hub_position",
    "info_line",
    "parse_hub_move",
    "parse_line",
]
