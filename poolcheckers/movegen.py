"""Legal move generation, R6–R15: the rule book in code.

Pure functions on bitboards (bit ``s - 1`` is square ``s``).  ``own`` and
``opp`` are the pieces of the side to move and of its opponent, ``kings`` the
kings of both sides.  :class:`~poolcheckers.Board` wraps these; the engine's
C generator is a separate implementation kept identical by perft and
differential tests.

>>> from poolcheckers.squares import bit
>>> black = sum(bit(s) for s in range(1, 13)); white = sum(bit(s) for s in range(21, 33))
>>> [str(m) for m in generate(black, white, 0, BLACK_TO_MOVE)]
['9-13', '9-14', '10-14', '10-15', '11-15', '11-16', '12-16']
"""

from __future__ import annotations

from typing import Final

from poolcheckers.move import Move
from poolcheckers.rules import RuleSet
from poolcheckers.squares import (
    BLACK_KING_ROW,
    NE,
    NEIGHBOURS,
    NW,
    RAYS,
    SE,
    SQUARES,
    SW,
    WHITE_KING_ROW,
)

BLACK_TO_MOVE: Final = 0
WHITE_TO_MOVE: Final = 1

#: R6: men move forward only.  Black starts at the top (R2, R3) and moves down.
FORWARD: Final = ((SW, SE), (NW, NE))
#: The row on which a man of the side to move is crowned (R15).
KING_ROW: Final = (BLACK_KING_ROW, WHITE_KING_ROW)

_APCA: Final = RuleSet()

# Bit of each square, by square number (index 0 unused).
_BIT: Final = (0, *(1 << (s - 1) for s in SQUARES))

# One shared, immutable Move object per plain move (R6, R8): no allocation in the hot path.
_SIMPLE: Final[dict[tuple[int, int], Move]] = {}
for _a in SQUARES:
    for _d in range(4):
        for _b in RAYS[_a][_d]:
            _SIMPLE[(_a, _b)] = Move((_a, _b))

# For men: (direction, over, landing) of every jump from a square (R7: all four directions).
_MAN_JUMPS: Final[tuple[tuple[tuple[int, int, int], ...], ...]] = tuple(
    tuple(
        (d, over, land)
        for d in range(4)
        if (over := NEIGHBOURS[s][d]) is not None and (land := NEIGHBOURS[over][d]) is not None
    )
    if s
    else ()
    for s in range(33)
)

# For men: forward steps from each square, per side.
_MAN_STEPS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(
        tuple(n for d in FORWARD[side] if (n := NEIGHBOURS[s][d]) is not None) if s else ()
        for s in range(33)
    )
    for side in (BLACK_TO_MOVE, WHITE_TO_MOVE)
)


def _squares(bb: int) -> list[int]:
    out: list[int] = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length())
        bb ^= low
    return out


def simple_moves(own: int, opp: int, kings: int, side: int) -> list[Move]:
    """Moves without capture: men one square forward (R6), kings any distance (R8)."""
    empty = ~(own | opp)
    moves: list[Move] = []
    simple = _SIMPLE
    bits = _BIT
    steps = _MAN_STEPS[side]
    for s in _squares(own & ~kings):
        for t in steps[s]:
            if empty & bits[t]:
                moves.append(simple[(s, t)])
    if own & kings:
        for s in _squares(own & kings):
            for ray in RAYS[s]:
                for t in ray:
                    if not empty & bits[t]:
                        break
                    moves.append(simple[(s, t)])
    return moves


def _man_sequences(
    square: int,
    path: list[int],
    captured: int,
    occupied: int,
    opp: int,
    king_row: int,
    stop_on_king_row: bool,
    out: list[tuple[tuple[int, ...], int]],
) -> None:
    """Extend a man's capture from ``square`` (R7, R13, R14, R15)."""
    bits = _BIT
    extended = False
    for _d, over, land in _MAN_JUMPS[square]:
        ob = bits[over]
        # R14: a piece is jumped at most once; jumped pieces still occupy their square.
        if opp & ob and not captured & ob and not occupied & bits[land]:
            extended = True
            path.append(land)
            if stop_on_king_row and king_row & bits[land]:
                # option crown_during_capture=stop: crowned on arrival, the move ends (§9).
                out.append((tuple(path), captured | ob))
            else:
                # R15 (APCA): on the king row mid-capture a man jumps on as a man if it can.
                _man_sequences(
                    land, path, captured | ob, occupied, opp, king_row, stop_on_king_row, out
                )
            path.pop()
    if not extended and captured:
        out.append((tuple(path), captured))  # R13: the sequence ends only when no jump is left


def _king_continuations(
    square: int, captured: int, occupied: int, opp: int
) -> list[tuple[int, int, list[int]]]:
    """Every (over, captured-after, landings) of one king jump from ``square`` (R9)."""
    bits = _BIT
    found: list[tuple[int, int, list[int]]] = []
    for ray in RAYS[square]:
        i = 0
        n = len(ray)
        while i < n and not occupied & bits[ray[i]]:
            i += 1  # R9: pass any number of empty squares
        if i >= n - 1:
            continue
        over = ray[i]
        ob = bits[over]
        if not opp & ob or captured & ob:
            continue  # R14: never own pieces, never a piece twice (it still blocks)
        landings: list[int] = []
        j = i + 1
        while j < n and not occupied & bits[ray[j]]:
            landings.append(ray[j])
            j += 1
        if landings:
            found.append((over, captured | ob, landings))
    return found


def _king_sequences(
    square: int,
    path: list[int],
    captured: int,
    occupied: int,
    opp: int,
    out: list[tuple[tuple[int, ...], int]],
) -> None:
    """Extend a flying king's capture from ``square`` (R9, R10, R13, R14)."""
    jumps = _king_continuations(square, captured, occupied, opp)
    if not jumps:
        if captured:
            out.append((tuple(path), captured))
        return
    for _over, after, landings in jumps:
        # R10: land where the capture can go on, if any such square exists.
        going_on = [t for t in landings if _king_continuations(t, after, occupied, opp)]
        for t in going_on or landings:
            path.append(t)
            _king_sequences(t, path, after, occupied, opp, out)
            path.pop()


def capture_sequences(
    own: int, opp: int, kings: int, side: int, rules: RuleSet = _APCA, origin: int | None = None
) -> list[tuple[tuple[int, ...], int]]:
    """Every complete capture sequence as ``(path, captured_mask)``, paths not merged.

    Two sequences may share origin, destination and captured set (R4 makes
    them one move); :func:`captures` merges them.
    """
    out: list[tuple[tuple[int, ...], int]] = []
    king_row = KING_ROW[side]
    stop = rules.crown_during_capture == "stop"
    pieces = _squares(own) if origin is None else [origin]
    for s in pieces:
        sb = _BIT[s]
        if not own & sb:
            continue
        occupied = (own | opp) & ~sb  # R14: the start square is empty during the sequence
        if kings & sb:
            _king_sequences(s, [s], 0, occupied, opp, out)
        else:
            _man_sequences(s, [s], 0, occupied, opp, king_row, stop, out)
    return out


def captures(own: int, opp: int, kings: int, side: int, rules: RuleSet = _APCA) -> list[Move]:
    """Every capture move (R7, R9–R15), merged and marked for notation as R4 asks."""
    sequences = capture_sequences(own, opp, kings, side, rules)
    if not sequences:
        return []
    merged: dict[tuple[int, int, int], tuple[int, ...]] = {}
    for path, mask in sequences:
        key = (path[0], path[-1], mask)
        if key not in merged:
            merged[key] = path
    per_ends: dict[tuple[int, int], int] = {}
    for origin, dest, _mask in merged:
        per_ends[(origin, dest)] = per_ends.get((origin, dest), 0) + 1
    moves: list[Move] = []
    for (origin, dest, mask), path in merged.items():
        moves.append(
            Move(
                path,
                frozenset(_squares(mask)),
                needs_full_path=per_ends[(origin, dest)] > 1 and len(path) > 2,
            )
        )
    return moves


def has_capture(own: int, opp: int, kings: int) -> bool:
    """Whether the side owning ``own`` has any capture (R11)."""
    bits = _BIT
    occupied = own | opp
    for s in _squares(own & ~kings):
        for _d, over, land in _MAN_JUMPS[s]:
            if opp & bits[over] and not occupied & bits[land]:
                return True
    return any(_king_continuations(s, 0, occupied & ~bits[s], opp) for s in _squares(own & kings))


def generate(own: int, opp: int, kings: int, side: int, rules: RuleSet = _APCA) -> list[Move]:
    """Every legal move: the captures if there is one (R11, R12), else the plain moves."""
    if has_capture(own, opp, kings):
        return captures(own, opp, kings, side, rules)
    return simple_moves(own, opp, kings, side)


def apply(own: int, opp: int, kings: int, side: int, move: Move) -> tuple[int, int, int, bool]:
    """The position after ``move``: ``(own, opp, kings, crowned)``.

    R14: the captured pieces go only now, all at once.  R15: a man whose move
    ends on the king row is crowned.
    """
    origin = _BIT[move.origin]
    dest = _BIT[move.destination]
    mask = move.captured_mask
    own = (own & ~origin) | dest
    opp &= ~mask
    crowned = False
    if kings & origin:
        kings = (kings & ~origin & ~mask) | dest
    else:
        kings &= ~mask
        if KING_ROW[side] & dest:
            kings |= dest
            crowned = True
    return own, opp, kings, crowned
