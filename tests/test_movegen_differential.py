"""Board.legal_moves against the independent reference generator (tests/reference.py).

Random positions obey FEN validity (no man on its own crowning row, at most 12
pieces a side); king-heavy and crowded positions are drawn on purpose, since
flying-king captures (R9, R10, R14) and mid-capture crowning (R15) are where
bugs hide.  Both values of the option crown_during_capture are compared, and
so are the R4 notation strings.
"""

from __future__ import annotations

import random

import pytest
import reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolcheckers import Board, Color, Move, PieceType, RuleSet

RULES = {
    "pass": RuleSet.apca(),
    "stop": RuleSet(crown_during_capture="stop"),
}

# man-b, man-w, king-b, king-w
KINDS = [("b", False), ("w", False), ("b", True), ("w", True)]


def _legal_piece(square: int, piece: tuple[str, bool]) -> tuple[str, bool]:
    """A man on its own crowning row (R15) is a king: FEN would reject the man."""
    color, king = piece
    row = reference.to_rc(square)[0]
    if not king and row == reference.KING_ROW[color]:
        return (color, True)
    return piece


def _clip(placement: dict[int, tuple[str, bool]]) -> dict[int, tuple[str, bool]]:
    """At most 12 pieces a side (R3)."""
    out: dict[int, tuple[str, bool]] = {}
    count = {"b": 0, "w": 0}
    for square, piece in placement.items():
        piece = _legal_piece(square, piece)
        if count[piece[0]] < 12:
            count[piece[0]] += 1
            out[square] = piece
    return out


@st.composite
def positions(draw: st.DrawFn, king_weight: int = 1) -> tuple[dict[int, tuple[str, bool]], str]:
    """A random position (placement, side to move).  ``king_weight`` tilts the draw to kings."""
    n = draw(st.integers(min_value=1, max_value=24))
    squares = draw(st.lists(st.integers(1, 32), min_size=n, max_size=n, unique=True))
    weights = [3, 3, king_weight, king_weight]
    pool = [k for k, w in zip(KINDS, weights, strict=True) for _ in range(w)]
    placement = {s: draw(st.sampled_from(pool)) for s in squares}
    return _clip(placement), draw(st.sampled_from(["b", "w"]))


def _rows_from_king_row(square: int, color: str) -> int:
    return abs(reference.to_rc(square)[0] - reference.KING_ROW[color])


@st.composite
def crowning_positions(draw: st.DrawFn) -> tuple[dict[int, tuple[str, bool]], str]:
    """Men of the side to move two to four rows from their king row, opponents just in
    front of it: captures that reach the king row mid-sequence (R15 and the option)."""
    color = draw(st.sampled_from(["b", "w"]))
    other = reference.opponent(color)
    near = [s for s in range(1, 33) if _rows_from_king_row(s, color) in (2, 3, 4)]
    edge = [s for s in range(1, 33) if _rows_from_king_row(s, color) == 1]
    rest = [s for s in range(1, 33) if _rows_from_king_row(s, color) >= 2]
    placement: dict[int, tuple[str, bool]] = {}
    for s in draw(st.lists(st.sampled_from(near), min_size=1, max_size=4, unique=True)):
        placement[s] = (color, draw(st.sampled_from([False, False, False, True])))
    for pool, low, high in ((edge, 2, 4), (rest, 0, 6)):
        for s in draw(st.lists(st.sampled_from(pool), min_size=low, max_size=high, unique=True)):
            placement.setdefault(s, (other, draw(st.booleans())))
    return _clip(placement), color


def _board_moves(board: Board) -> dict[tuple[int, int, frozenset[int]], str]:
    out = {}
    for move in board.legal_moves:
        key = (move.origin, move.destination, move.captured)
        assert key not in out, f"{move} listed twice in {board.fen()} (R4)"
        out[key] = str(move)
    return out


def check_position(
    placement: dict[int, tuple[str, bool]], color: str, crown: str, play: bool = False
) -> None:
    """The library and the reference agree on the legal moves, paths and notation
    (and, with ``play``, on the position after each move: R14 removal, R15 crowning)."""
    fen = reference.to_fen(placement, color)
    board = Board(fen, rules=RULES[crown])
    expected = reference.legal_moves(placement, color, crown_stop=crown == "stop")
    choices = reference.notation_choices(expected)
    got = _board_moves(board)
    assert set(got) == set(expected), (
        f"{fen} ({crown}): missing {sorted(map(_show, set(expected) - set(got)))}, "
        f"extra {sorted(map(_show, set(got) - set(expected)))}"
    )
    for move in board.legal_moves:
        key = (move.origin, move.destination, move.captured)
        assert move.path in expected[key], f"{fen}: path {move.path} does not realise {move}"
        assert str(move) in choices[key], f"{fen}: {move} should be one of {choices[key]} (R4)"
        assert board.notation(move) == str(move)
    assert board.has_capture() == any(key[2] for key in expected)  # R11
    if play:
        for move in list(board.legal_moves):
            board.push(move)
            after = reference.apply(placement, (move.origin, move.destination, move.captured))
            assert _board_placement(board) == after, f"{fen}: after {move}"
            assert board.hash == Board(board.fen()).hash
            board.pop()


def _show(key: tuple[int, int, frozenset[int]]) -> str:
    a, b, captured = key
    return f"{a}{'x' if captured else '-'}{b}{sorted(captured) if captured else ''}"


SETTINGS = settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)


@pytest.mark.parametrize("crown", ["pass", "stop"])
@SETTINGS
@given(position=positions())
def test_random_positions(crown: str, position: tuple[dict[int, tuple[str, bool]], str]) -> None:
    check_position(*position, crown)


@pytest.mark.parametrize("crown", ["pass", "stop"])
@SETTINGS
@given(position=positions(king_weight=6))
def test_king_heavy_positions(
    crown: str, position: tuple[dict[int, tuple[str, bool]], str]
) -> None:
    check_position(*position, crown)


@pytest.mark.parametrize("crown", ["pass", "stop"])
@settings(SETTINGS, max_examples=1000)
@given(position=crowning_positions())
def test_crowning_positions(crown: str, position: tuple[dict[int, tuple[str, bool]], str]) -> None:
    check_position(*position, crown, play=True)


def test_crowning_positions_tell_the_options_apart() -> None:
    """The crowning strategy really produces positions where pass and stop differ."""
    differ = []

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(position=crowning_positions())
    def collect(position: tuple[dict[int, tuple[str, bool]], str]) -> None:
        placement, color = position
        passing = set(reference.legal_moves(placement, color, crown_stop=False))
        stopping = set(reference.legal_moves(placement, color, crown_stop=True))
        differ.append(passing != stopping)

    collect()
    assert sum(differ) > 30


def _random_placement(rng: random.Random, kings: float) -> dict[int, tuple[str, bool]]:
    n = rng.randint(2, 24)
    placement = {}
    for square in rng.sample(range(1, 33), n):
        placement[square] = (rng.choice("bw"), rng.random() < kings)
    return _clip(placement)


@pytest.mark.parametrize("crown", ["pass", "stop"])
def test_seeded_sweep(crown: str) -> None:
    """A plain seeded sweep for volume: positions where captures are common."""
    rng = random.Random(20261129)
    captures = 0
    for _ in range(2000):
        placement = _random_placement(rng, rng.choice([0.0, 0.2, 0.5, 0.9]))
        color = rng.choice("bw")
        check_position(placement, color, crown, play=True)
        captures += any(k[2] for k in reference.legal_moves(placement, color, crown == "stop"))
    assert captures > 300  # the sweep really exercises captures


def _key(move: Move) -> tuple[int, int, frozenset[int]]:
    return (move.origin, move.destination, move.captured)


def _board_placement(board: Board) -> dict[int, tuple[str, bool]]:
    out = {}
    for square in range(1, 33):
        piece = board.piece_at(square)
        if piece is not None:
            color = "b" if piece.color is Color.BLACK else "w"
            out[square] = (color, piece.type is PieceType.KING)
    return out


@pytest.mark.parametrize("crown", ["pass", "stop"])
def test_random_games_from_start(crown: str) -> None:
    """Random games from R3's start: moves compared at every ply, and the position after
    each move compared with the reference's own application of it (R14, R15)."""
    rng = random.Random(7 if crown == "pass" else 8)
    plies = 0
    for _ in range(60):
        board = Board(rules=RULES[crown])
        placement = _board_placement(board)
        color = "b"
        while True:
            check_position(placement, color, crown)
            found, texts = reference.generate(placement, color, crown_during_capture=crown)
            assert len(texts) == len(found)  # one R4 string per move
            keys = sorted(found, key=lambda k: (k[0], k[1], sorted(k[2])))
            if not keys or board.ply >= 200:
                break
            key = rng.choice(keys)
            move = next(m for m in board.legal_moves if _key(m) == key)
            board.push(move)
            placement = reference.apply(placement, key)
            color = reference.opponent(color)
            plies += 1
            assert _board_placement(board) == placement, f"after {move}: {board.fen()}"
            assert board.turn is (Color.BLACK if color == "b" else Color.WHITE)
    assert plies > 2000
