"""Legal move generation, R6–R15: the rule book in code.

Pure functions on bitboards (bit ``s - 1`` is square ``s``).  ``own`` and
``opp`` are the pieces of the side to move and of its opponent, ``kings`` the
kings of both sides.  :class:`~poolcheckers.Board` wraps these; the engine's
C generator is a separate implementation kept identical by perft and
differential tests.

Speed comes from bit-parallel work on whole bitboards: with the numbering of
R2 each diagonal step is a shift by 3, 4 or 5 (by the row's parity), a man's
jump a shift by 7 or 9, so "which men can move" and "which men can capture" are
a few integer operations, and a king's ray is one mask whose nearest occupied
square is its lowest or highest bit.  Plain moves are shared, prebuilt
:class:`Move` objects.

>>> from poolcheckers.squares import bit
>>> black = sum(bit(s) for s in range(1, 13)); white = sum(bit(s) for s in range(21, 33))
>>> [str(m) for m in generate(black, white, 0, BLACK_TO_MOVE)]
['9-13', '9-14', '10-14', '10-15', '11-15', '11-16', '12-16']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from poolcheckers.move import Move
from poolcheckers.rules import RuleSet
from poolcheckers.squares import (
    ALL_SQUARES_MASK,
    BLACK_KING_ROW,
    DIRECTIONS,
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
_FULL: Final = ALL_SQUARES_MASK

# Bit of each square, by square number (index 0 unused).
_BIT: Final = (0, *(1 << (s - 1) for s in SQUARES))


def _mask(squares: Iterable[int]) -> int:
    return sum(_BIT[s] for s in squares)


# ----------------------------------------------------------------- geometry (R2)
# A step towards row 7 (SW, SE) adds 3, 4 or 5 to the square number, a step
# towards row 0 (NW, NE) subtracts it; which one depends on the row's parity.
# ``_STEP_ORIGINS[direction][delta]`` is the set of squares whose neighbour in
# ``direction`` is ``square + delta``: the whole geometry of R2 as masks.
_STEP_ORIGINS: Final[tuple[dict[int, int], ...]] = tuple({} for _ in DIRECTIONS)
for _s in SQUARES:
    for _d in DIRECTIONS:
        _n = NEIGHBOURS[_s][_d]
        if _n is not None:
            _STEP_ORIGINS[_d][_n - _s] = _STEP_ORIGINS[_d].get(_n - _s, 0) | _BIT[_s]
assert {d: sorted(o) for d, o in enumerate(_STEP_ORIGINS)} == {
    NW: [-5, -4],
    NE: [-4, -3],
    SW: [3, 4],
    SE: [4, 5],
}

#: R6: a man's forward steps per side as ``(shift, origins)``: the man on
#: square ``s`` in ``origins`` may step to ``s + shift`` if it is empty.
#: Black moves down (+3/+4/+5), White up (-3/-4/-5).
MAN_STEP_CLASSES: Final[tuple[tuple[tuple[int, int], ...], ...]] = tuple(
    tuple(
        (
            delta,
            _STEP_ORIGINS[FORWARD[side][0]].get(delta, 0)
            | _STEP_ORIGINS[FORWARD[side][1]].get(delta, 0),
        )
        for delta in sorted({*_STEP_ORIGINS[FORWARD[side][0]], *_STEP_ORIGINS[FORWARD[side][1]]})
    )
    for side in (BLACK_TO_MOVE, WHITE_TO_MOVE)
)


def _jump_origins(direction: int, over_delta: int, land_delta: int) -> int:
    """Squares from which a man jumps in ``direction`` over ``square + over_delta``
    to ``square + land_delta`` (checked against the R2 tables)."""
    out = 0
    for s in SQUARES:
        over = NEIGHBOURS[s][direction]
        if over is None or over - s != over_delta:
            continue
        land = NEIGHBOURS[over][direction]
        if land is not None:
            assert land - s == land_delta, (s, direction)
            out |= _BIT[s]
    return out


# R7: jump origins per direction and row parity.  The jump itself is uniform:
# +9 for SE, +7 for SW, -7 for NE, -9 for NW; the jumped square is one step.
_J_SE5: Final = _jump_origins(SE, 5, 9)
_J_SE4: Final = _jump_origins(SE, 4, 9)
_J_SW4: Final = _jump_origins(SW, 4, 7)
_J_SW3: Final = _jump_origins(SW, 3, 7)
_J_NE3: Final = _jump_origins(NE, -3, -7)
_J_NE4: Final = _jump_origins(NE, -4, -7)
_J_NW4: Final = _jump_origins(NW, -4, -9)
_J_NW5: Final = _jump_origins(NW, -5, -9)


def man_capturers(men: int, opp: int, empty: int) -> int:
    """The men that can capture (R7): an opposing piece next to them on a
    diagonal, forward or backward, with the square just beyond it empty."""
    return men & (
        ((_J_SE5 & (opp >> 5)) | (_J_SE4 & (opp >> 4))) & (empty >> 9)
        | ((_J_SW4 & (opp >> 4)) | (_J_SW3 & (opp >> 3))) & (empty >> 7)
        | ((_J_NE3 & (opp << 3)) | (_J_NE4 & (opp << 4))) & (empty << 7)
        | ((_J_NW4 & (opp << 4)) | (_J_NW5 & (opp << 5))) & (empty << 9)
    )


# For men: (jumped bit, landing bit, landing square) of every jump from a square,
# in the direction order NW, NE, SW, SE (R7: all four directions).
_MAN_JUMPS: Final[tuple[tuple[tuple[int, int, int], ...], ...]] = tuple(
    tuple(
        (_BIT[over], _BIT[land], land)
        for d in DIRECTIONS
        if (over := NEIGHBOURS[s][d]) is not None and (land := NEIGHBOURS[over][d]) is not None
    )
    if s
    else ()
    for s in range(33)
)

# Kings (R8, R9): each ray as a mask.  Along SW and SE the square numbers grow,
# so the nearest occupied square of a ray is its lowest bit; along NW and NE
# they fall, so it is its highest bit.
_DOWN: Final = (False, False, True, True)  # indexed by direction
KING_RAYS: Final[tuple[tuple[tuple[int, int, bool], ...], ...]] = tuple(
    tuple((d, _mask(RAYS[s][d]), _DOWN[d]) for d in DIRECTIONS if RAYS[s][d]) if s else ()
    for s in range(33)
)
_RAY_MASK: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(_mask(RAYS[s][d]) for d in DIRECTIONS) if s else (0, 0, 0, 0) for s in range(33)
)


def _nearest(blockers: int, down: bool) -> int:
    """The bit of the occupied square nearest along a ray (``blockers`` != 0)."""
    return blockers & -blockers if down else 1 << (blockers.bit_length() - 1)


def _before(ray: int, blocker: int, down: bool) -> int:
    """The squares of ``ray`` strictly before its occupied square ``blocker``."""
    return ray & (blocker - 1) if down else ray & -(blocker << 1)


# ----------------------------------------------------------------- plain moves
# One shared, immutable Move object per plain move (R6, R8): no allocation in the hot path.
_SIMPLE: Final[dict[tuple[int, int], Move]] = {}
for _a in SQUARES:
    for _d in DIRECTIONS:
        for _b in RAYS[_a][_d]:
            _SIMPLE[(_a, _b)] = Move((_a, _b))

#: R6: per side and square, ``(target bit, move)`` of each forward step.
_MAN_STEP_MOVES: Final[tuple[tuple[tuple[tuple[int, Move], ...], ...], ...]] = tuple(
    tuple(
        tuple(
            (_BIT[n], _SIMPLE[(s, n)]) for d in FORWARD[side] if (n := NEIGHBOURS[s][d]) is not None
        )
        if s
        else ()
        for s in range(33)
    )
    for side in (BLACK_TO_MOVE, WHITE_TO_MOVE)
)

#: R8: per square and direction, ``prefixes[n]`` is the king's moves to the
#: first ``n`` squares of the ray, nearest first.
_KING_RAY_MOVES: Final[
    tuple[tuple[tuple[int, int, bool, tuple[tuple[Move, ...], ...]], ...], ...]
] = tuple(
    tuple(
        (
            mask,
            len(RAYS[s][d]),
            down,
            tuple(
                tuple(_SIMPLE[(s, t)] for t in RAYS[s][d][:n]) for n in range(len(RAYS[s][d]) + 1)
            ),
        )
        for d, mask, down in KING_RAYS[s]
    )
    for s in range(33)
)


def man_movers(men: int, empty: int, side: int) -> int:
    """The men that have a forward step to an empty square (R6)."""
    out = 0
    for shift, origins in MAN_STEP_CLASSES[side]:
        out |= origins & (empty >> shift if shift > 0 else empty << -shift)
    return men & out


def simple_moves(own: int, opp: int, kings: int, side: int) -> list[Move]:
    """Moves without capture: men one square forward (R6), kings any distance (R8).

    Men first, then kings, each by ascending square.
    """
    occupied = own | opp
    empty = _FULL ^ occupied
    moves: list[Move] = []
    append = moves.append
    steps = _MAN_STEP_MOVES[side]
    movers = man_movers(own & ~kings, empty, side)
    while movers:
        low = movers & -movers
        movers ^= low
        for target, move in steps[low.bit_length()]:
            if empty & target:
                append(move)
    own_kings = own & kings
    while own_kings:
        low = own_kings & -own_kings
        own_kings ^= low
        for ray, length, down, prefixes in _KING_RAY_MOVES[low.bit_length()]:
            blockers = ray & occupied
            if not blockers:
                moves.extend(prefixes[length])  # R8: any number of empty squares
            elif down:
                moves.extend(prefixes[(ray & ((blockers & -blockers) - 1)).bit_count()])
            else:
                moves.extend(prefixes[(ray >> blockers.bit_length()).bit_count()])
    return moves


def count_simple_moves(own: int, opp: int, kings: int, side: int) -> int:
    """``len(simple_moves(...))`` without building the list (for bulk-counting perft)."""
    occupied = own | opp
    empty = _FULL ^ occupied
    men = own & ~kings
    count = 0
    for shift, origins in MAN_STEP_CLASSES[side]:
        if shift > 0:
            count += (((men & origins) << shift) & empty).bit_count()
        else:
            count += (((men & origins) >> -shift) & empty).bit_count()
    own_kings = own & kings
    while own_kings:
        low = own_kings & -own_kings
        own_kings ^= low
        for _d, ray, down in KING_RAYS[low.bit_length()]:
            blockers = ray & occupied
            if not blockers:
                count += ray.bit_count()
            elif down:
                count += (ray & ((blockers & -blockers) - 1)).bit_count()
            else:
                count += (ray >> blockers.bit_length()).bit_count()
    return count


# ----------------------------------------------------------------- captures
def _man_sequences(
    square: int,
    path: list[int],
    captured: int,
    victims: int,
    occupied: int,
    king_row: int,
    stop_on_king_row: bool,
    out: list[tuple[tuple[int, ...], int]],
) -> None:
    """Extend a man's capture from ``square`` (R7, R13, R14, R15).

    ``victims`` are the opposing pieces not yet jumped; the jumped ones stay in
    ``occupied`` until the sequence is over (R14).
    """
    extended = False
    for over, land_bit, land in _MAN_JUMPS[square]:
        # R14: a piece is jumped at most once; jumped pieces still occupy their square.
        if victims & over and not occupied & land_bit:
            extended = True
            path.append(land)
            if stop_on_king_row and king_row & land_bit:
                # option crown_during_capture=stop: crowned on arrival, the move ends (§9).
                out.append((tuple(path), captured | over))
            else:
                # R15 (APCA): on the king row mid-capture a man jumps on as a man if it can.
                _man_sequences(
                    land,
                    path,
                    captured | over,
                    victims ^ over,
                    occupied,
                    king_row,
                    stop_on_king_row,
                    out,
                )
            path.pop()
    if not extended and captured:
        out.append((tuple(path), captured))  # R13: the sequence ends only when no jump is left


def _king_can_capture(square: int, occupied: int, victims: int) -> bool:
    """Whether a king on ``square`` has a jump (R9) over one of ``victims``."""
    for direction, ray, down in KING_RAYS[square]:
        blockers = ray & occupied
        if blockers:
            over = blockers & -blockers if down else 1 << (blockers.bit_length() - 1)
            if over & victims:
                beyond = NEIGHBOURS[over.bit_length()][direction]
                if beyond is not None and not occupied & _BIT[beyond]:
                    return True
    return False


def _king_sequences(
    square: int,
    path: list[int],
    captured: int,
    occupied: int,
    opp: int,
    out: list[tuple[tuple[int, ...], int]],
) -> None:
    """Extend a flying king's capture from ``square`` (R9, R10, R13, R14)."""
    extended = False
    victims = opp & ~captured  # R14: never own pieces, never a piece twice (it still blocks)
    for direction, ray, down in KING_RAYS[square]:
        blockers = ray & occupied  # R9: pass any number of empty squares
        if not blockers:
            continue
        over = _nearest(blockers, down)
        if not over & victims:
            continue
        over_square = over.bit_length()
        beyond = _RAY_MASK[over_square][direction]
        stop = beyond & occupied
        landings = _before(beyond, _nearest(stop, down), down) if stop else beyond
        if not landings:
            continue
        extended = True
        after = captured | over
        remaining = victims ^ over
        squares = RAYS[over_square][direction][: landings.bit_count()]
        # R10: land where the capture can go on, if any such square exists.
        going_on = [t for t in squares if _king_can_capture(t, occupied, remaining)]
        if not going_on:
            # R13: the sequence ends here, on any of the landing squares
            out.extend(((*path, t), after) for t in squares)
            continue
        for t in going_on:
            path.append(t)
            _king_sequences(t, path, after, occupied, opp, out)
            path.pop()
    if not extended and captured:
        out.append((tuple(path), captured))  # R13


def capture_sequences_of(
    pieces: int, own: int, opp: int, kings: int, side: int, rules: RuleSet
) -> list[tuple[tuple[int, ...], int]]:
    """The capture sequences of the pieces ``pieces`` (a subset of ``own``)."""
    out: list[tuple[tuple[int, ...], int]] = []
    occupied_all = own | opp
    king_row = KING_ROW[side]
    stop = rules.crown_during_capture == "stop"
    while pieces:
        sb = pieces & -pieces
        pieces ^= sb
        s = sb.bit_length()
        occupied = occupied_all ^ sb  # R14: the start square is empty during the sequence
        if kings & sb:
            _king_sequences(s, [s], 0, occupied, opp, out)
        else:
            _man_sequences(s, [s], 0, opp, occupied, king_row, stop, out)
    return out


def capture_sequences(
    own: int, opp: int, kings: int, side: int, rules: RuleSet = _APCA, origin: int | None = None
) -> list[tuple[tuple[int, ...], int]]:
    """Every complete capture sequence as ``(path, captured_mask)``, paths not merged.

    Two sequences may share origin, destination and captured set (R4 makes
    them one move); :func:`captures` merges them.
    """
    if origin is None:
        pieces = man_capturers(own & ~kings, opp, _FULL ^ (own | opp)) | (own & kings)
    else:
        pieces = own & _BIT[origin]
    return capture_sequences_of(pieces, own, opp, kings, side, rules)


def _squares(bb: int) -> list[int]:
    out: list[int] = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length())
        bb ^= low
    return out


# Every capture of a single jump (one piece taken: a man's R7 jump or a king's
# R9 jump) is prebuilt and shared like the plain moves, keyed by (path, captured mask).
# R4: its notation is always ``axb``, its full path.
_SINGLE_CAPTURES: Final[dict[tuple[tuple[int, ...], int], Move]] = {}
for _a in SQUARES:
    for _d in DIRECTIONS:
        _ray = RAYS[_a][_d]
        for _i, _over in enumerate(_ray):
            for _b in _ray[_i + 1 :]:
                _SINGLE_CAPTURES[((_a, _b), _BIT[_over])] = Move((_a, _b), frozenset((_over,)))


# The captured set of every capture of one or two pieces, by captured mask.
_CAPTURED_SETS: Final[dict[int, frozenset[int]]] = {
    _BIT[a] | _BIT[b]: frozenset((a, b)) for a in SQUARES for b in SQUARES
}


def _captured_set(mask: int) -> frozenset[int]:
    return _CAPTURED_SETS.get(mask) or frozenset(_squares(mask))


def _capture_moves(sequences: list[tuple[tuple[int, ...], int]]) -> list[Move]:
    """The moves of ``sequences``, merged and marked for notation as R4 asks."""
    single = _SINGLE_CAPTURES
    if len({(path[0], path[-1]) for path, _ in sequences}) == len(sequences):
        # no two sequences share origin and destination: nothing to merge, no full paths (R4)
        return [
            single[(path, mask)] if len(path) == 2 else Move(path, _captured_set(mask))
            for path, mask in sequences
        ]
    merged: dict[tuple[int, int, int], tuple[int, ...]] = {}
    per_ends: dict[tuple[int, int], int] = {}
    for path, mask in sequences:
        key = (path[0], path[-1], mask)
        if key not in merged:  # R4: same origin, destination and captured set: one move
            merged[key] = path
            ends = (path[0], path[-1])
            per_ends[ends] = per_ends.get(ends, 0) + 1
    return [
        single[(path, mask)]
        if len(path) == 2
        else Move(
            path,
            _captured_set(mask),
            # R4: several captures from a to b: write every landing square
            needs_full_path=per_ends[(origin, dest)] > 1,
        )
        for (origin, dest, mask), path in merged.items()
    ]


def captures(own: int, opp: int, kings: int, side: int, rules: RuleSet = _APCA) -> list[Move]:
    """Every capture move (R7, R9–R15), merged and marked for notation as R4 asks."""
    return _capture_moves(capture_sequences(own, opp, kings, side, rules))


def has_capture(own: int, opp: int, kings: int) -> bool:
    """Whether the side owning ``own`` has any capture (R11)."""
    occupied = own | opp
    if man_capturers(own & ~kings, opp, _FULL ^ occupied):
        return True
    return bool(own & kings) and kings_can_capture(own & kings, occupied, opp)


def kings_can_capture(own_kings: int, occupied: int, opp: int) -> bool:
    """Whether one of the kings ``own_kings`` has a capture (R9, R11)."""
    while own_kings:
        low = own_kings & -own_kings
        own_kings ^= low
        # R14: the king's own square is empty during its sequence
        if _king_can_capture(low.bit_length(), occupied ^ low, opp):
            return True
    return False


def generate(own: int, opp: int, kings: int, side: int, rules: RuleSet = _APCA) -> list[Move]:
    """Every legal move: the captures if there is one (R11, R12), else the plain moves."""
    occupied = own | opp
    own_kings = own & kings
    capturers = man_capturers(own ^ own_kings, opp, _FULL ^ occupied)
    if capturers or (own_kings and kings_can_capture(own_kings, occupied, opp)):
        return _capture_moves(
            capture_sequences_of(capturers | own_kings, own, opp, kings, side, rules)
        )
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
