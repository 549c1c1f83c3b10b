"""A slow, obviously-correct move generator written from docs/RULES.md alone.

It shares no code with :mod:`poolcheckers.movegen` or :mod:`poolcheckers.squares`:
the board is a ``dict`` from square number to a piece, geometry is done on
``(row, col)`` coordinates with the formula of R2, and every rule is applied
square by square.  The differential tests compare the library with it.

A piece is a pair ``(color, king)`` with color ``"b"`` or ``"w"``.  A move is
``(origin, destination, frozenset(captured))`` (R4: that triple *is* the move);
:func:`legal_moves` also returns every path that realises each move so that the
notation of R4 can be checked.

>>> start = {s: ("b", False) for s in range(1, 13)}
>>> start.update({s: ("w", False) for s in range(21, 33)})
>>> sorted(notations(start, "b").values())
['10-14', '10-15', '11-15', '11-16', '12-16', '9-13', '9-14']
"""

from __future__ import annotations

from collections.abc import Mapping

Piece = tuple[str, bool]
Position = Mapping[int, Piece]
MoveKey = tuple[int, int, frozenset[int]]

# The four diagonal directions as (row step, col step).  Black sits at the top
# (R2, row 0) and so moves down (row + 1); White moves up (row - 1): R6.
DIAGONALS = ((-1, -1), (-1, 1), (1, -1), (1, 1))
FORWARD_ROW_STEP = {"b": 1, "w": -1}
# R15: the far row of each side is its king row.
KING_ROW = {"b": 7, "w": 0}


def to_rc(square: int) -> tuple[int, int]:
    """R2: row (s-1) div 4; column 2*((s-1) mod 4)+1 on even rows, 2*((s-1) mod 4) on odd."""
    row = (square - 1) // 4
    k = (square - 1) % 4
    return row, (2 * k + 1 if row % 2 == 0 else 2 * k)


def to_square(row: int, col: int) -> int | None:
    """The dark square at (row, col), or None off the board / on a light square (R1)."""
    for square in range(1, 33):
        if to_rc(square) == (row, col):
            return square
    return None


def step(square: int, dr: int, dc: int, distance: int = 1) -> int | None:
    row, col = to_rc(square)
    return to_square(row + dr * distance, col + dc * distance)


def opponent(color: str) -> str:
    return "w" if color == "b" else "b"


# ----------------------------------------------------------------- captures


def _man_jumps(
    board: dict[int, Piece], square: int, color: str, captured: frozenset[int]
) -> list[tuple[int, int]]:
    """(jumped, landing) of every single jump of a man on ``square`` (R7, R14)."""
    found = []
    for dr, dc in DIAGONALS:  # R7: forward or backward
        over = step(square, dr, dc)
        land = step(square, dr, dc, 2)
        if over is None or land is None:
            continue
        victim = board.get(over)
        if victim is None or victim[0] == color:  # R14: never one's own pieces
            continue
        if over in captured:  # R14: a piece is jumped at most once
            continue
        if land in board:  # R14: jumped pieces still stand there
            continue
        found.append((over, land))
    return found


def _king_jumps(
    board: dict[int, Piece], square: int, color: str, captured: frozenset[int]
) -> list[tuple[int, list[int]]]:
    """(jumped, [landings]) of every single flying-king jump from ``square`` (R9, R14)."""
    found = []
    for dr, dc in DIAGONALS:
        distance = 1
        target = step(square, dr, dc, distance)
        while target is not None and target not in board:  # R9: pass empty squares
            distance += 1
            target = step(square, dr, dc, distance)
        if target is None:
            continue
        if board[target][0] == color or target in captured:
            continue  # own piece, or a piece already jumped: it blocks (R14)
        landings = []
        distance += 1
        beyond = step(square, dr, dc, distance)
        while beyond is not None and beyond not in board:  # R9: before the next occupied
            landings.append(beyond)
            distance += 1
            beyond = step(square, dr, dc, distance)
        if landings:
            found.append((target, landings))
    return found


def _extend(
    board: dict[int, Piece],
    square: int,
    color: str,
    king: bool,
    path: tuple[int, ...],
    captured: frozenset[int],
    crown_stop: bool,
    out: list[tuple[tuple[int, ...], frozenset[int]]],
) -> None:
    if king:
        jumps = _king_jumps(board, square, color, captured)
        if not jumps:
            out.append((path, captured))  # R13: ends only when no jump is left
            return
        for victim, landings in jumps:
            now = captured | {victim}
            # R10: only landings from which the capture goes on, if there is one.
            onward = [t for t in landings if _king_jumps(board, t, color, now)]
            for t in onward or landings:
                _extend(board, t, color, True, (*path, t), now, crown_stop, out)
        return
    man_jumps = _man_jumps(board, square, color, captured)
    if not man_jumps:
        out.append((path, captured))
        return
    for victim, land in man_jumps:
        now = captured | {victim}
        if crown_stop and to_rc(land)[0] == KING_ROW[color]:
            out.append(((*path, land), now))  # option "stop": crowned, the move ends
            continue
        # R15 (APCA): the man jumps on as a man; crowned only where it finally ends.
        _extend(board, land, color, False, (*path, land), now, crown_stop, out)


def capture_paths(
    position: Position, color: str, crown_stop: bool = False
) -> list[tuple[tuple[int, ...], frozenset[int]]]:
    """Every complete capture sequence of ``color`` (path, captured), not merged."""
    out: list[tuple[tuple[int, ...], frozenset[int]]] = []
    for square in sorted(position):
        piece_color, king = position[square]
        if piece_color != color:
            continue
        board = dict(position)
        del board[square]  # R14: the start square is empty during the sequence
        first = (
            _king_jumps(board, square, color, frozenset())
            if king
            else _man_jumps(board, square, color, frozenset())
        )
        if first:
            _extend(board, square, color, king, (square,), frozenset(), crown_stop, out)
    return out


# ----------------------------------------------------------------- plain moves


def plain_moves(position: Position, color: str) -> list[tuple[int, int]]:
    """Men one square diagonally forward (R6), kings any distance (R8)."""
    out = []
    for square in sorted(position):
        piece_color, king = position[square]
        if piece_color != color:
            continue
        if king:
            for dr, dc in DIAGONALS:
                distance = 1
                target = step(square, dr, dc, distance)
                while target is not None and target not in position:
                    out.append((square, target))
                    distance += 1
                    target = step(square, dr, dc, distance)
        else:
            for dc in (-1, 1):
                target = step(square, FORWARD_ROW_STEP[color], dc)
                if target is not None and target not in position:
                    out.append((square, target))
    return out


# ----------------------------------------------------------------- legal moves


def legal_moves(
    position: Position, color: str, crown_stop: bool = False
) -> dict[MoveKey, set[tuple[int, ...]]]:
    """Every legal move, each with the set of paths that realise it.

    R11: if any capture exists only captures are legal; R12: any of them.
    """
    paths = capture_paths(position, color, crown_stop)
    moves: dict[MoveKey, set[tuple[int, ...]]] = {}
    if paths:
        for path, captured in paths:
            moves.setdefault((path[0], path[-1], captured), set()).add(path)
        return moves
    for a, b in plain_moves(position, color):
        moves[(a, b, frozenset())] = {(a, b)}
    return moves


def notation_choices(moves: dict[MoveKey, set[tuple[int, ...]]]) -> dict[MoveKey, set[str]]:
    """Every R4 string that correctly writes each move.

    Plain moves ``a-b``; captures ``axb``, unless another legal capture has the
    same ``a`` and ``b``: then the full path (any path of the move), except
    that a single jump is written ``axb`` (its full path).
    """
    ends: dict[tuple[int, int], int] = {}
    for a, b, _ in moves:
        ends[(a, b)] = ends.get((a, b), 0) + 1
    out: dict[MoveKey, set[str]] = {}
    for key, move_paths in moves.items():
        a, b, captured = key
        if not captured:
            out[key] = {f"{a}-{b}"}
        elif ends[(a, b)] > 1:
            out[key] = {"x".join(str(s) for s in p) for p in move_paths}
        else:
            out[key] = {f"{a}x{b}"}
    return out


def notations(position: Position, color: str, crown_stop: bool = False) -> dict[MoveKey, str]:
    """One R4 string per legal move (the smallest where several paths are valid)."""
    choices = notation_choices(legal_moves(position, color, crown_stop))
    return {key: min(texts) for key, texts in choices.items()}


def generate(
    position: Position, color: str, crown_during_capture: str = "pass"
) -> tuple[set[MoveKey], set[str]]:
    """The legal moves as a set of (origin, destination, captured) and their R4 strings.

    ``crown_during_capture`` is the option of docs/RULES.md §9: "pass" (R15) or "stop".

    >>> keys, texts = generate({22: ("b", False), 26: ("w", False)}, "b")
    >>> keys, texts
    ({(22, 31, frozenset({26}))}, {'22x31'})
    """
    if crown_during_capture not in ("pass", "stop"):
        raise ValueError(f"crown_during_capture is 'pass' or 'stop', not {crown_during_capture!r}")
    texts = notations(position, color, crown_stop=crown_during_capture == "stop")
    return set(texts), set(texts.values())


def apply(position: Position, key: MoveKey) -> dict[int, Piece]:
    """The position after a legal move: captured pieces all removed at the end
    (R14); a man that ends on its king row is crowned (R15)."""
    a, b, captured = key
    board = dict(position)
    color, king = board.pop(a)
    for s in captured:
        del board[s]
    if to_rc(b)[0] == KING_ROW[color]:
        king = True
    board[b] = (color, king)
    return board


def to_fen(position: Position, color: str) -> str:
    """R5 FEN of a position (written here, not by the library)."""
    fields = [color.upper()]
    for side in ("w", "b"):
        items = [
            ("K" if position[s][1] else "") + str(s)
            for s in sorted(position)
            if position[s][0] == side
        ]
        fields.append(side.upper() + ",".join(items))
    return ":".join(fields)
