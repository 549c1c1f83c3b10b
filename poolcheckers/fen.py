"""Position notation, R5: ``B:W21,22,…,32:B1,2,…,12``.

Input accepts kings marked ``K``, ranges (``1-12``, ``K1-3``), any whitespace
and either order of the two side fields.  Two optional fields carry the end
rule counters, which otherwise start at zero (R21):

- ``:H<n>`` — the R18 count: plies since the last man move or capture;
- ``:C<n>`` — the R19 count: moves the side with three kings has made against
  the lone king.

:func:`write` emits them only when they are not zero, so a plain R5 FEN is
read and written unchanged.

>>> pos = parse("W:WK5,18:B3,K30")
>>> pos.turn, pos.white_kings, pos.black_kings
(1, [5], [30])
>>> parse("B:W21-32:B1-12").black == parse(STARTING_FEN).black
True
>>> write(parse("W:W9,K10:B1, 2 :H6"))
'W:W9,K10:B1,2:H6'
>>> parse("B:W33:B1")
Traceback (most recent call last):
...
poolcheckers.errors.FenError: FEN token '33' at position 3: square 33 is outside 1-32 (R2)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from poolcheckers.errors import FenError

STARTING_FEN: Final = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"

MAX_PIECES_PER_SIDE: Final = 12  # R3

_ITEM = re.compile(r"(K?)([0-9]+)(?:-([0-9]+))?")


@dataclass
class ParsedFen:
    """A position read from FEN; ``turn`` is 0 for Black, 1 for White."""

    turn: int
    black: int = 0
    white: int = 0
    kings: int = 0
    halfmove_clock: int = 0
    three_kings_count: int = 0
    black_kings: list[int] = field(default_factory=list)
    white_kings: list[int] = field(default_factory=list)


#: tokens longer than this are shown by their start in error messages
SHOWN_TOKEN = 24


def _shown(token: str) -> str:
    return token if len(token) <= SHOWN_TOKEN else token[: SHOWN_TOKEN - 4] + "..."


def _error(message: str, token: str, position: int) -> FenError:
    return FenError(
        f"FEN token {_shown(token)!r} at position {position}: {message}", token, position
    )


def _square(digits: str, raw: str, position: int) -> int:
    """A square's number from its digits; a number of more than two digits is no
    square (and is never converted: Python refuses to read thousands of digits)."""
    if len(digits.lstrip("0")) > 2:
        raise _error(
            f"square {_shown(digits)} is outside 1-32 (R2): a square is one or two digits (R5)",
            raw,
            position,
        )
    return int(digits.lstrip("0") or "0")


def _fields(text: str) -> list[tuple[str, int]]:
    """Split on ':' keeping each field's offset; whitespace around a field is dropped."""
    out: list[tuple[str, int]] = []
    start = 0
    for piece in text.split(":"):
        lead = len(piece) - len(piece.lstrip())
        out.append((piece.strip(), start + lead))
        start += len(piece) + 1
    return out


def parse(text: str) -> ParsedFen:
    """Read a FEN (R5); raises :class:`FenError` naming the bad token."""
    if not isinstance(text, str):
        raise FenError("FEN must be text", repr(text), 0)
    stripped = text.strip().strip('"').rstrip(".")
    if not stripped:
        raise FenError("empty FEN: expected e.g. 'B:W21-32:B1-12' (R5)", "", 0)
    parts = _fields(stripped)
    side, side_pos = parts[0]
    if side not in ("B", "W", "b", "w"):
        raise _error("the first field must be the side to move, B or W (R5)", side, side_pos)
    pos = ParsedFen(turn=0 if side.upper() == "B" else 1)
    seen_sides: set[str] = set()
    owner: dict[int, str] = {}
    for body, offset in parts[1:]:
        if not body:
            raise _error("empty field (R5)", body, offset)
        head = body[0].upper()
        if head in ("H", "C") and re.fullmatch("[0-9]{1,6}", body[1:].strip()):
            if head in seen_sides:
                raise _error(f"the {head} counter is given twice", body, offset)
            seen_sides.add(head)
            value = int(body[1:].strip())
            if head == "H":
                pos.halfmove_clock = value
            else:
                if value > 13:
                    raise _error("the R19 count runs from 0 to 13", body, offset)
                pos.three_kings_count = value
            continue
        if head not in ("B", "W"):
            raise _error("expected a side field starting with W or B (R5)", body, offset)
        if head in seen_sides:
            raise _error(f"side {head} is given twice (R5)", body, offset)
        seen_sides.add(head)
        items = body[1:]
        cursor = offset + 1
        if items:
            for piece in items.split(","):
                # whitespace may stand around an item, never inside one ("1 2" is an error)
                raw = piece.strip()
                token_pos = cursor + len(piece) - len(piece.lstrip())
                cursor += len(piece) + 1
                item = raw.upper()
                match = _ITEM.fullmatch(item)
                if match is None:
                    raise _error(
                        "expected a square 1-32, K before a king, or a range a-b", raw, token_pos
                    )
                king = match.group(1) == "K"
                first = _square(match.group(2), raw, token_pos)
                last = _square(match.group(3), raw, token_pos) if match.group(3) else first
                if last < first:
                    raise _error(f"range {first}-{last} runs backwards", raw, token_pos)
                for sq in range(first, last + 1):
                    if not 1 <= sq <= 32:
                        raise _error(f"square {sq} is outside 1-32 (R2)", raw, token_pos)
                    if sq in owner:
                        other = owner[sq]
                        what = "twice" if other == head else "to both sides"
                        raise _error(f"square {sq} is given {what}", raw, token_pos)
                    owner[sq] = head
                    b = 1 << (sq - 1)
                    if king:
                        pos.kings |= b
                        (pos.black_kings if head == "B" else pos.white_kings).append(sq)
                    elif head == "B" and sq >= 29:
                        raise _error(
                            f"a Black man on {sq} would already have been crowned (R15)",
                            raw,
                            token_pos,
                        )
                    elif head == "W" and sq <= 4:
                        raise _error(
                            f"a White man on {sq} would already have been crowned (R15)",
                            raw,
                            token_pos,
                        )
                    if head == "B":
                        pos.black |= b
                    else:
                        pos.white |= b
        count = (pos.black if head == "B" else pos.white).bit_count()
        if count > MAX_PIECES_PER_SIDE:
            raise _error(f"{count} pieces for one side; at most 12 (R3)", body, offset)
    for needed in ("W", "B"):
        if needed not in seen_sides:
            raise FenError(
                f"FEN {stripped!r} has no {needed} field (R5: side, then W… and B… fields)",
                stripped,
                len(stripped),
            )
    return pos


def _side_field(char: str, men: int, kings: int) -> str:
    items: list[str] = []
    for sq in range(1, 33):
        b = 1 << (sq - 1)
        if men & b:
            items.append(f"K{sq}" if kings & b else str(sq))
    return char + ",".join(items)


def write(
    pos: ParsedFen | None = None,
    *,
    turn: int = 0,
    black: int = 0,
    white: int = 0,
    kings: int = 0,
    halfmove_clock: int = 0,
    three_kings_count: int = 0,
) -> str:
    """Write a FEN (R5): side to move, White's squares, Black's squares, then counters."""
    if pos is not None:
        turn, black, white, kings = pos.turn, pos.black, pos.white, pos.kings
        halfmove_clock, three_kings_count = pos.halfmove_clock, pos.three_kings_count
    text = ":".join(
        ("B" if turn == 0 else "W", _side_field("W", white, kings), _side_field("B", black, kings))
    )
    if halfmove_clock:
        text += f":H{halfmove_clock}"
    if three_kings_count:
        text += f":C{three_kings_count}"
    return text
