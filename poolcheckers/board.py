"""The :class:`Board`: a position, its history, and the end rules R16–R21.

>>> board = Board()
>>> board.turn
<Color.BLACK: 0>
>>> len(board.legal_moves)
7
>>> move = board.push_notation("11-15")
>>> board.push_notation("22-18"); board.push_notation("15x22")
Move.from_notation('22-18')
Move.from_notation('15x22')
>>> board.fen()
'W:W21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,22'
>>> board.pop(); board.pop(); board.pop()
Move.from_notation('15x22')
Move.from_notation('22-18')
Move.from_notation('11-15')
>>> board.fen() == STARTING_FEN
True
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator
from typing import Final, NamedTuple

from poolcheckers import fen as fen_module
from poolcheckers import movegen
from poolcheckers.errors import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidSquareError,
    MalformedMoveError,
    MoveError,
    NotYourPieceError,
)
from poolcheckers.fen import STARTING_FEN
from poolcheckers.move import Move
from poolcheckers.pieces import Color, Piece, PieceType
from poolcheckers.rules import THREE_KINGS_MOVE_LIMIT, Outcome, RuleSet, Termination
from poolcheckers.squares import row_col

__all__ = ["STARTING_FEN", "Board"]

# Zobrist keys (fixed seed: the same position always hashes the same).
_rng = random.Random(0x9C0FFEE)
#: ZOBRIST[piece][square]: piece 0 black man, 1 white man, 2 black king, 3 white king.
ZOBRIST: Final = tuple(tuple(_rng.getrandbits(64) for _ in range(33)) for _ in range(4))
ZOBRIST_WHITE_TO_MOVE: Final = _rng.getrandbits(64)

_MOVE_TEXT = re.compile(r"[0-9]{1,3}(?:[-x][0-9]{1,3})+")


def _zobrist(black: int, white: int, kings: int, turn: Color) -> int:
    h = ZOBRIST_WHITE_TO_MOVE if turn is Color.WHITE else 0
    for sq in range(1, 33):
        b = 1 << (sq - 1)
        if black & b:
            h ^= ZOBRIST[2 if kings & b else 0][sq]
        elif white & b:
            h ^= ZOBRIST[3 if kings & b else 1][sq]
    return h


def _three_kings_side(black: int, white: int, kings: int) -> Color | None:
    """The side with exactly three kings and no men against one lone king (R19), if any."""
    if black & ~kings or white & ~kings:
        return None
    nb, nw = black.bit_count(), white.bit_count()
    if nb == 3 and nw == 1:
        return Color.BLACK
    if nb == 1 and nw == 3:
        return Color.WHITE
    return None


class _State(NamedTuple):
    black: int
    white: int
    kings: int
    turn: Color
    hash: int
    halfmove_clock: int
    three_kings_count: int
    #: the position's legal moves if they were generated (``pop`` restores them)
    legal: list[Move] | None


_OPPONENT: Final = (Color.WHITE, Color.BLACK)
_BIT: Final = tuple(1 << (s - 1) if s else 0 for s in range(33))
#: what push saves and pop restores: the fields of :class:`_State` as a plain tuple
#: (cheaper to build than the NamedTuple; push is hot)
_Saved = tuple[int, int, int, Color, int, int, int, list[Move] | None]
_KING_ROW: Final = movegen.KING_ROW


def move_number(start_turn: Color, ply: int) -> int:
    """The number PDN gives the move of ply ``ply`` (0 for the first) of a game whose
    set-up position had ``start_turn`` to move: a move number covers Black's turn and
    White's reply (R3), so a game from White's turn opens with ``1...``.

    >>> move_number(Color.BLACK, 0), move_number(Color.BLACK, 1), move_number(Color.BLACK, 2)
    (1, 1, 2)
    >>> move_number(Color.WHITE, 0), move_number(Color.WHITE, 1)
    (1, 2)
    """
    offset = 1 if start_turn is Color.WHITE else 0
    return 1 + (ply + offset) // 2


class Board:
    """A position with its move stack, under a :class:`RuleSet`.

    ``Board()`` is the start position (R3); ``Board(fen)`` or
    :meth:`from_fen` sets one up.
    """

    def __init__(self, fen: str | None = STARTING_FEN, rules: RuleSet | None = None) -> None:
        self.rules: RuleSet = rules if rules is not None else RuleSet.apca()
        self.move_stack: list[Move] = []
        self._stack: list[_Saved] = []
        self._legal: list[Move] | None = None
        self.black = 0
        self.white = 0
        self.kings = 0
        self.turn = Color.BLACK
        self.halfmove_clock = 0
        self.three_kings_count = 0
        self.hash = 0
        self.start_fen = STARTING_FEN
        self.set_fen(STARTING_FEN if fen is None else fen)

    # ----------------------------------------------------------- set-up
    @classmethod
    def from_fen(cls, text: str, rules: RuleSet | None = None) -> Board:
        """A board set up from FEN (R5).  Raises :class:`FenError` naming the bad token."""
        return cls(text, rules)

    @classmethod
    def empty(cls, rules: RuleSet | None = None) -> Board:
        return cls("B:W:B", rules)

    def set_fen(self, text: str) -> None:
        """Set up the position of ``text``; clears the move stack.  On error nothing changes."""
        parsed = fen_module.parse(text)
        self.black, self.white, self.kings = parsed.black, parsed.white, parsed.kings
        self.turn = Color(parsed.turn)
        self.halfmove_clock = parsed.halfmove_clock
        strong = _three_kings_side(self.black, self.white, self.kings)
        self.three_kings_count = parsed.three_kings_count if strong is not None else 0
        self.hash = _zobrist(self.black, self.white, self.kings, self.turn)
        self.move_stack = []
        self._stack = []
        self._legal = None
        self.start_fen = self.fen()

    def fen(self) -> str:
        """The position as FEN (R5), with the R18/R19 counters when they run."""
        return fen_module.write(
            turn=int(self.turn),
            black=self.black,
            white=self.white,
            kings=self.kings,
            halfmove_clock=self.halfmove_clock,
            three_kings_count=self.three_kings_count,
        )

    def copy(self, *, stack: bool = True) -> Board:
        """An independent copy (with the move stack unless ``stack=False``)."""
        board = Board.__new__(Board)
        board.rules = self.rules
        board.black, board.white, board.kings = self.black, self.white, self.kings
        board.turn = self.turn
        board.hash = self.hash
        board.halfmove_clock = self.halfmove_clock
        board.three_kings_count = self.three_kings_count
        board._legal = self._legal
        if stack:
            board.move_stack = list(self.move_stack)
            board._stack = list(self._stack)
            board.start_fen = self.start_fen
        else:
            board.move_stack = []
            board._stack = []
            board.start_fen = self.fen()
        return board

    # ----------------------------------------------------------- queries
    @property
    def ply(self) -> int:
        """Moves played since the set-up position."""
        return len(self.move_stack)

    def _own_opp(self) -> tuple[int, int]:
        if self.turn is Color.BLACK:
            return self.black, self.white
        return self.white, self.black

    def piece_at(self, square: int) -> Piece | None:
        """The piece on ``square`` (1–32), or ``None``."""
        if not 1 <= square <= 32:
            raise InvalidSquareError(f"square {square} is outside 1-32 (R2)", str(square))
        b = 1 << (square - 1)
        kind = PieceType.KING if self.kings & b else PieceType.MAN
        if self.black & b:
            return Piece(Color.BLACK, kind)
        if self.white & b:
            return Piece(Color.WHITE, kind)
        return None

    def pieces(self, color: Color, kind: PieceType | None = None) -> list[int]:
        """The squares of ``color``'s pieces (of one ``kind`` if given), ascending."""
        bb = self.black if color is Color.BLACK else self.white
        if kind is PieceType.KING:
            bb &= self.kings
        elif kind is PieceType.MAN:
            bb &= ~self.kings
        return [s for s in range(1, 33) if bb >> (s - 1) & 1]

    @property
    def legal_moves(self) -> list[Move]:
        """Every legal move (R6–R15), each exactly once (R4).  Do not mutate the list."""
        if self._legal is None:
            own, opp = self._own_opp()
            self._legal = movegen.generate(own, opp, self.kings, int(self.turn), self.rules)
        return self._legal

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves

    def has_capture(self) -> bool:
        """Whether the side to move must capture (R11)."""
        own, opp = self._own_opp()
        return movegen.has_capture(own, opp, self.kings)

    def paths(self, move: Move) -> list[tuple[int, ...]]:
        """Every landing path by which ``move`` can be walked here, ``move.path`` first.

        R4 makes captures with the same origin, destination and captured set one
        move, however the piece gets there; a user walking a capture landing by
        landing (R9, R14) may take any of these paths.  A plain move has one.
        Raises :class:`IllegalMoveError` if ``move`` is not legal here.

        >>> board = Board("W:WK8:B15,16,21,25")
        >>> [board.notation(m) for m in board.legal_moves]
        ['8x29']
        >>> board.paths(board.legal_moves[0])
        [(8, 18, 29), (8, 22, 29)]
        """
        move = self._generated(move, self.legal_moves)
        if not move.is_capture:
            return [move.path]
        own, opp = self._own_opp()
        out = [move.path]
        for path, mask in movegen.capture_sequences(
            own, opp, self.kings, int(self.turn), self.rules, origin=move.origin
        ):
            if path[-1] == move.destination and mask == move.captured_mask and path not in out:
                out.append(path)
        return out

    # ----------------------------------------------------------- moves
    def push(self, move: Move) -> None:
        """Play ``move`` (it must be legal here: raises :class:`IllegalMoveError` otherwise)."""
        legal = self._legal if self._legal is not None else self.legal_moves
        for candidate in legal:
            if candidate is move:  # the generator's own object: the common, fast case
                break
        else:
            move = self._generated(move, legal)
        self._push_unchecked(move)

    def _generated(self, move: Move, legal: list[Move]) -> Move:
        """The move of ``legal`` (this position's) equal to ``move``: the generator's
        own object carries the notation R4 asks for here.  Raises
        :class:`IllegalMoveError` if there is none."""
        if move not in legal:
            raise IllegalMoveError(
                f"{move.full_notation()} is not a legal move for {self.turn.name_lower} "
                f"in {self.fen()}",
                move.full_notation(),
            )
        return legal[legal.index(move)]

    def _push_unchecked(self, move: Move) -> None:
        turn = self.turn
        black, white, kings = self.black, self.white, self.kings
        h = self.hash
        halfmove_clock = self.halfmove_clock
        self._stack.append(
            (black, white, kings, turn, h, halfmove_clock, self.three_kings_count, self._legal)
        )
        origin, dest = move.origin, move.destination
        o, t = _BIT[origin], _BIT[dest]
        captured = move.captured_mask
        # incremental Zobrist; ZOBRIST[turn] is the mover's man, ZOBRIST[turn + 2] its king
        h ^= ZOBRIST_WHITE_TO_MOVE
        if kings & o:
            new_kings = ((kings & ~captured) & ~o) | t
            keys = ZOBRIST[turn + 2]
            h ^= keys[origin] ^ keys[dest]
            # R18: plies since the last man move or capture
            self.halfmove_clock = 0 if captured else halfmove_clock + 1
        else:
            new_kings = kings & ~captured
            h ^= ZOBRIST[turn][origin]
            if _KING_ROW[turn] & t:  # R15: crowned where the move ends
                new_kings |= t
                h ^= ZOBRIST[turn + 2][dest]
            else:
                h ^= ZOBRIST[turn][dest]
            self.halfmove_clock = 0  # R18: a man moved
        if captured:
            # R14: the captured pieces go only now, all at once
            theirs = 1 - turn
            for sq in move.captured:
                h ^= ZOBRIST[theirs + 2 if kings & _BIT[sq] else theirs][sq]
        if turn:  # White moves
            new_black, new_white = black & ~captured, (white & ~o) | t
        else:
            new_black, new_white = (black & ~o) | t, white & ~captured
        self.black, self.white, self.kings, self.hash = new_black, new_white, new_kings, h
        # R19: the strong side's moves in 3 kings v 1 king, the creating move not counted
        if (new_black | new_white) & ~new_kings:
            self.three_kings_count = 0  # men on the board: no R19 count
        else:
            strong_before = _three_kings_side(black, white, kings)
            strong_after = _three_kings_side(new_black, new_white, new_kings)
            if strong_after is None:
                self.three_kings_count = 0
            elif strong_before is strong_after:
                if turn is strong_after:
                    self.three_kings_count += 1
            else:
                self.three_kings_count = 0
        self.turn = _OPPONENT[turn]
        self.move_stack.append(move)
        self._legal = None

    def pop(self) -> Move:
        """Take back the last move and return it.  Raises ``IndexError`` on an empty stack."""
        try:
            move = self.move_stack.pop()
        except IndexError:
            raise IndexError("pop from an empty move stack") from None
        (
            self.black,
            self.white,
            self.kings,
            self.turn,
            self.hash,
            self.halfmove_clock,
            self.three_kings_count,
            self._legal,
        ) = self._stack.pop()
        return move

    def peek(self) -> Move | None:
        return self.move_stack[-1] if self.move_stack else None

    def legal_prefix(self, moves: Iterable[Move]) -> list[Move]:
        """The longest prefix of ``moves`` that can be played in turn from here.

        Each returned move is the generator's own object in the position where it
        is played, so its ``str`` is the R4 notation there (a principal variation
        printed for a person, say).  The board itself is unchanged.

        >>> board = Board()
        >>> line = [board.parse_move("11-15"), Move.from_notation("22-18"), Move((9, 5))]
        >>> [str(m) for m in board.legal_prefix(line)]
        ['11-15', '22-18']
        """
        work = self.copy(stack=False)
        out: list[Move] = []
        for move in moves:
            legal = work.legal_moves
            if move not in legal:
                break
            own = legal[legal.index(move)]
            out.append(own)
            work._push_unchecked(own)
        return out

    def push_notation(self, text: str) -> Move:
        """Parse ``text`` (:meth:`parse_move`) and play it; returns the move."""
        move = self.parse_move(text)
        self._push_unchecked(move)
        return move

    def notation(self, move: Move) -> str:
        """The R4 notation of ``move`` in this position (full path only where needed)."""
        legal = self.legal_moves
        if move in legal:
            return str(legal[legal.index(move)])
        return move.full_notation()

    def parse_move(self, text: str) -> Move:
        """The legal move that ``text`` names.

        Accepts ``11-15``, ``15x22``, a full path ``1x10x19``, and shorthand that
        names a single legal move (``-`` for a capture, or some of its landing
        squares).  Raises a :class:`MoveError` subclass saying exactly why not.

        >>> Board().parse_move("11-15")
        Move.from_notation('11-15')
        >>> Board().parse_move("10-19")
        Traceback (most recent call last):
        ...
        poolcheckers.errors.IllegalMoveError: 10-19: a man moves one square ... forward ... (R6)
        >>> Board().parse_move("22-18")
        Traceback (most recent call last):
        ...
        poolcheckers.errors.NotYourPieceError: 22-18: square 22 holds a white man; black is to move
        """
        if not isinstance(text, str):
            raise MalformedMoveError(f"a move must be text, not {type(text).__name__}", repr(text))
        token = text.strip().lower()
        if len(token) > 200 or not _MOVE_TEXT.fullmatch(token):
            raise MalformedMoveError(
                f"{text.strip()[:40]!r} is not move notation: expected e.g. 11-15, 15x22 "
                "or 1x10x19 (R4)",
                text,
            )
        squares = [int(p) for p in re.split("[-x]", token)]
        for sq in squares:
            if not 1 <= sq <= 32:
                raise InvalidSquareError(f"{token}: square {sq} is outside 1-32 (R2)", token)
        origin, dest = squares[0], squares[-1]
        piece = self.piece_at(origin)
        if piece is None:
            raise NotYourPieceError(f"{token}: square {origin} is empty", token)
        if piece.color is not self.turn:
            raise NotYourPieceError(
                f"{token}: square {origin} holds a {piece.color.name_lower} "
                f"{piece.type.name.lower()}; {self.turn.name_lower} is to move",
                token,
            )
        middle = squares[1:-1]
        legal = self.legal_moves
        candidates: list[Move] = []
        sequences: list[tuple[tuple[int, ...], int]] = []
        if legal and legal[0].is_capture:
            own, opp = self._own_opp()
            sequences = movegen.capture_sequences(
                own, opp, self.kings, int(self.turn), self.rules, origin=origin
            )
            for path, mask in sequences:
                if path[-1] != dest or not _is_subsequence(middle, path[1:-1]):
                    continue
                move = legal[legal.index(Move(path, frozenset(_bits(mask))))]
                if move not in candidates:
                    candidates.append(move)
        elif not middle:
            candidates = [m for m in legal if m.origin == origin and m.destination == dest]
        if len(candidates) > 1:
            # R4: the full path names its move always, a single jump ``axb`` included.
            exact = [
                legal[legal.index(Move(path, frozenset(_bits(mask))))]
                for path, mask in sequences
                if list(path) == squares
            ]
            if exact:
                return exact[0]
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            paths = [m.full_notation() for m in candidates]
            raise AmbiguousMoveError(
                f"{token} is ambiguous: it could be {', '.join(paths)} (R4: give the full path)",
                token,
                paths,
            )
        raise IllegalMoveError(f"{token}: {self._why_illegal(origin, dest, piece)}", token)

    def _why_illegal(self, origin: int, dest: int, piece: Piece) -> str:
        legal = self.legal_moves
        if not legal:
            return f"{self.turn.name_lower} has no legal move (R16)"
        if legal[0].is_capture:
            mine = [m for m in legal if m.origin == origin]
            example = ", ".join(sorted(str(m) for m in (mine or legal))[:4])
            if not mine:
                return f"a capture is available: R11 (legal: {example})"
            own, opp = self._own_opp()
            sequences = movegen.capture_sequences(
                own, opp, self.kings, int(self.turn), self.rules, origin=origin
            )
            if any(dest in path[1:-1] for path, _ in sequences):
                return f"the capture must be completed: R13 (legal: {example})"
            return (
                f"a capture is available: R11, and no capture of this piece ends on {dest} "
                f"(R7, R9, R10; legal: {example})"
            )
        target = self.piece_at(dest)
        if target is not None:
            return f"square {dest} is occupied ({'R6' if piece.type is PieceType.MAN else 'R8'})"
        if piece.type is PieceType.MAN:
            return "a man moves one square diagonally forward to an empty square (R6)"
        (ro, co), (rd, cd) = row_col(origin), row_col(dest)
        if abs(ro - rd) != abs(co - cd):
            return f"{dest} is not on a diagonal of {origin} (R8)"
        return f"the diagonal from {origin} to {dest} is blocked (R8)"

    # ----------------------------------------------------------- end of game
    def outcome(self) -> Outcome | None:
        """How the game has ended by the rules of the board, or ``None``.

        R21: R16 comes first; then R19, R18 and (option) repetition.  Agreement,
        resignation and time (R17, R20) are decided outside the board:
        build an :class:`Outcome` for them directly.

        >>> Board("W:W:B1").outcome()
        Outcome(termination=<Termination.NO_MOVES: 'no_moves'>, winner=<Color.BLACK: 0>)
        """
        if not self.legal_moves:
            return Outcome(Termination.NO_MOVES, self.turn.opponent)
        if self.three_kings_count >= THREE_KINGS_MOVE_LIMIT:
            strong = _three_kings_side(self.black, self.white, self.kings)
            if strong is not None:
                winner = strong.opponent if self.rules.three_kings_limit_result == "loss" else None
                return Outcome(Termination.THREE_KINGS, winner)
        if self.halfmove_clock >= self.rules.king_only_limit_plies:
            return Outcome(Termination.MOVE_LIMIT, None)
        if self.rules.repetition_draw and self.repetition_count() >= 3:
            return Outcome(Termination.REPETITION, None)
        return None

    def outcome_reason(self, outcome: Outcome | None = None) -> str | None:
        """The end of the game in words, citing the rule and this board's real limits.

        ``outcome`` defaults to :meth:`outcome`; ``None`` when the game goes on.
        For R16 the words say whether the loser has no pieces left or is blocked
        (this board is the final position); R18 and R19 give the rule set's numbers
        (:meth:`Outcome.reason`).

        >>> Board("W:W:B1").outcome_reason()
        'White has no pieces left (R16)'
        >>> Board("W:W32:B27,28,23").outcome_reason()
        'White has no legal move (R16)'
        >>> Board("B:WK32:BK1:H50").outcome_reason()
        'Draw: 25 moves by each side with no man moved and no capture made (R18)'
        >>> Board().outcome_reason() is None
        True
        """
        if outcome is None:
            outcome = self.outcome()
            if outcome is None:
                return None
        if outcome.termination is Termination.NO_MOVES and outcome.winner is self.turn.opponent:
            who = self.turn.name.capitalize()
            own, _ = self._own_opp()
            if own == 0:
                return f"{who} has no pieces left (R16)"
            return f"{who} has no legal move (R16)"
        return outcome.reason(self.rules)

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def repetition_count(self) -> int:
        """How often the current position (same side to move) has occurred."""
        count = 1
        for state in self._reversible_states():
            if state.hash == self.hash:
                count += 1
        return count

    def _reversible_states(self) -> Iterator[_State]:
        n = min(self.halfmove_clock, len(self._stack))
        return map(_State._make, self._stack[len(self._stack) - n :])

    def reversible_history(self) -> list[tuple[int, int, int, Color]]:
        """``(black, white, kings, turn)`` of each earlier position since the last
        man move or capture, oldest first (for repetition in search)."""
        return [(s.black, s.white, s.kings, s.turn) for s in self._reversible_states()]

    @property
    def three_kings_active(self) -> bool:
        """Whether the material is three kings against one (the R19 count runs)."""
        return _three_kings_side(self.black, self.white, self.kings) is not None

    # ----------------------------------------------------------- display
    def squares(self) -> str:
        """The position for display: 32 characters, square 1 first (R2).

        ``b``/``w`` are men, ``B``/``W`` kings (as :meth:`Piece.symbol`), ``.`` an
        empty square; the side to move is :attr:`turn`.

        >>> Board("W:WK5,18:B3,K30").squares()
        '..b.W............w...........B..'
        >>> len(Board().squares()), Board().squares()[:12], Board().squares()[20:]
        (32, 'bbbbbbbbbbbb', 'wwwwwwwwwwww')
        """
        out = []
        for sq in range(1, 33):
            b = 1 << (sq - 1)
            if self.black & b:
                out.append("B" if self.kings & b else "b")
            elif self.white & b:
                out.append("W" if self.kings & b else "w")
            else:
                out.append(".")
        return "".join(out)

    @property
    def start_turn(self) -> Color:
        """The side to move in the set-up position (before :attr:`move_stack`)."""
        return self.turn if self.ply % 2 == 0 else self.turn.opponent

    @property
    def move_number(self) -> int:
        """The number of the move now to be played, as PDN writes it.

        A FEN (R5) carries no move number: the set-up position is move 1.  A move
        number covers Black's turn and White's reply (R3: Black moves first), so
        from a position with White to move, White's first turn is ``1...``.

        >>> board = Board()
        >>> board.move_number
        1
        >>> _ = board.push_notation("11-15"); board.move_number
        1
        >>> _ = board.push_notation("23-19"); board.move_number
        2
        >>> Board("W:W21,22:B1,2").move_number
        1
        """
        return move_number(self.start_turn, self.ply)

    def variation_notation(self, moves: Iterable[Move | str]) -> str:
        """A line of moves played from here, as PDN move text (R4 notation).

        Each move is one side's turn; the move number comes before Black's turn,
        and ``n...`` before a line that begins with White's.  Moves may be
        :class:`Move` objects or text (read by :meth:`parse_move`).  Raises a
        :class:`MoveError` naming the first move that cannot be played; the
        board itself is unchanged.

        >>> Board().variation_notation(["11-15", "23-19", "8-11"])
        '1. 11-15 23-19 2. 8-11'
        >>> Board("W:W21,22:B1,2").variation_notation(["22-17", "1-5", "17-14"])
        '1... 22-17 2. 1-5 17-14'
        >>> Board().variation_notation(["11-15", "11-15"])
        Traceback (most recent call last):
        ...
        poolcheckers.errors.NotYourPieceError: move 2 (11-15): 11-15: square 11 is empty
        """
        work = self.copy()
        parts: list[str] = []
        for i, item in enumerate(moves, start=1):
            try:
                move = work.parse_move(item) if isinstance(item, str) else item
                text = work.notation(move)
                number = work.move_number
                work.push(move)
            except AmbiguousMoveError as exc:
                message = f"move {i} ({item}): {exc}"
                raise AmbiguousMoveError(message, exc.token, exc.candidates) from None
            except MoveError as exc:
                raise type(exc)(f"move {i} ({item}): {exc}", exc.token) from None
            if work.turn is Color.WHITE:  # Black just moved
                parts.append(f"{number}. {text}")
            elif not parts:
                parts.append(f"{number}... {text}")
            else:
                parts.append(text)
        return " ".join(parts)

    def __str__(self) -> str:
        """A diagram: pieces (b w men, B W kings, . empty) with the square numbers beside it.

        >>> print(Board("W:WK5,18:B3,K30"))
           .   .   b   .       1   2   3   4
         W   .   .   .       5   6   7   8
           .   .   .   .       9  10  11  12
         .   .   .   .      13  14  15  16
           .   w   .   .      17  18  19  20
         .   .   .   .      21  22  23  24
           .   .   .   .      25  26  27  28
         .   B   .   .      29  30  31  32
        White to move
        """
        lines: list[str] = []
        for row in range(8):
            cells: list[str] = []
            numbers: list[str] = []
            for col in range(8):
                if (row + col) % 2 == 0:  # a light square (R1)
                    cells.append("  ")
                    numbers.append("  ")
                    continue
                sq = row * 4 + col // 2 + 1
                piece = self.piece_at(sq)
                cells.append(" " + (piece.symbol() if piece else "."))
                numbers.append(f"{sq:2d}")
            lines.append(f"{''.join(cells)}    {''.join(numbers)}".rstrip())
        lines.append(f"{self.turn.name.capitalize()} to move")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self.black == other.black
            and self.white == other.white
            and self.kings == other.kings
            and self.turn == other.turn
            and self.halfmove_clock == other.halfmove_clock
            and self.three_kings_count == other.three_kings_count
            and self.rules == other.rules
        )

    __hash__ = None  # type: ignore[assignment]  # mutable


def _bits(mask: int) -> list[int]:
    return [s for s in range(1, 33) if mask >> (s - 1) & 1]


def _is_subsequence(needle: list[int], hay: tuple[int, ...]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)
